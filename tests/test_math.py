"""Behaviour of the element-wise math ops (ember/ops/math.py and its sibling families):
dtypes, errors, nan handling, gradient conventions at the awkward points, operators, in-place
forms and meta tensors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember

NAN, INF = float("nan"), float("inf")


def _torch():
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float32)
    return torch


def _np(t):
    return t.detach().numpy() if isinstance(t, ember.Tensor) else t.detach().numpy()


# ---- result dtypes: ember against torch ----------------------------------------------------------
DTYPE_CASES = {
    "exp_int": lambda lib, i, f, b: lib.exp(i),
    "sqrt_bool": lambda lib, i, f, b: lib.sqrt(b),
    "sigmoid_int": lambda lib, i, f, b: lib.sigmoid(i),
    "abs_int": lambda lib, i, f, b: lib.abs(i),
    "sign_bool": lambda lib, i, f, b: lib.sign(b),
    "square_bool": lambda lib, i, f, b: lib.square(b),
    "square_int": lambda lib, i, f, b: lib.square(i),
    "floor_int": lambda lib, i, f, b: lib.floor(i),
    "round_int": lambda lib, i, f, b: lib.round(i),
    "relu_int": lambda lib, i, f, b: lib.relu(i),
    "nan_to_num_int": lambda lib, i, f, b: lib.nan_to_num(i),
    "isnan_int": lambda lib, i, f, b: lib.isnan(i),
    "remainder_int_float": lambda lib, i, f, b: lib.remainder(i, 1.5),
    "remainder_int_int": lambda lib, i, f, b: i % 2,
    "rmod_scalar": lambda lib, i, f, b: 7 % i,
    "fmod_int": lambda lib, i, f, b: lib.fmod(i, 2),
    "atan2_int": lambda lib, i, f, b: lib.atan2(i, i),
    "maximum_int_float": lambda lib, i, f, b: lib.maximum(i, f),
    "minimum_bool": lambda lib, i, f, b: lib.minimum(b, b),
    "fmax_int": lambda lib, i, f, b: lib.fmax(i, i),
    "float_power_int": lambda lib, i, f, b: lib.float_power(i, 2),
    "float_power_scalar": lambda lib, i, f, b: lib.float_power(2, f),
    "copysign_int": lambda lib, i, f, b: lib.copysign(i, -1),
    "xlogy_int": lambda lib, i, f, b: lib.xlogy(i, i),
    "xlogy_scalar": lambda lib, i, f, b: lib.xlogy(2, f),
    "clamp_int_float": lambda lib, i, f, b: lib.clamp(i, min=1.5),
    "clamp_int_int": lambda lib, i, f, b: lib.clamp(i, 1, 2),
    "clamp_bool": lambda lib, i, f, b: lib.clamp(b, 0, 1),
    "clamp_tensor_f64": lambda lib, i, f, b: lib.clamp(f, min=f.double()),
    "where_numbers_float": lambda lib, i, f, b: lib.where(b, 1.0, 0.0),
    "where_numbers_int": lambda lib, i, f, b: lib.where(b, 1, 0),
    "where_int_float": lambda lib, i, f, b: lib.where(b, i, 2.5),
    "where_f32_f64": lambda lib, i, f, b: lib.where(b, f, f.double()),
    "where_0d": lambda lib, i, f, b: lib.where(b, 1, lib.tensor(1.5, dtype=lib.float64)),
    "addcmul_int": lambda lib, i, f, b: lib.addcmul(i, i, i, value=2),
    "addcmul_int_float_value": lambda lib, i, f, b: lib.addcmul(i, i, i, value=2.5),
    "addcmul_mixed": lambda lib, i, f, b: lib.addcmul(f, i, f.double()),
    "masked_fill_int_float": lambda lib, i, f, b: i.masked_fill(b, 2.7),
    "masked_fill_bool": lambda lib, i, f, b: b.masked_fill(b, 5),
    "masked_fill_long_value": lambda lib, i, f, b: f.masked_fill(b, lib.tensor(1)),
    "eq_int_float": lambda lib, i, f, b: lib.eq(i, 2.5),
    "lt_uint8_big": lambda lib, i, f, b: lib.lt(i.to(lib.uint8), 300),
    "gt_bool_int": lambda lib, i, f, b: b > 0,
    "logical_and_mixed": lambda lib, i, f, b: lib.logical_and(i, f),
    "bitwise_bool_int": lambda lib, i, f, b: b & 1,
    "bitwise_int_bool": lambda lib, i, f, b: i | True,
    "bitwise_uint8_int8": lambda lib, i, f, b: i.to(lib.uint8) ^ i.to(lib.int8),
    "bitwise_uint8_negative": lambda lib, i, f, b: i.to(lib.uint8) & -1,
    "shift_bool": lambda lib, i, f, b: b << 1,
    "rshift_scalar": lambda lib, i, f, b: 64 >> i,
    "invert_bool": lambda lib, i, f, b: ~b,
    "isclose_int": lambda lib, i, f, b: lib.isclose(i, i + 1, atol=1.0),
    "isclose_bool": lambda lib, i, f, b: lib.isclose(b, b),
}


@pytest.mark.parametrize("case", list(DTYPE_CASES))
def test_result_dtype_and_values_match_torch(case):
    torch = _torch()
    fn = DTYPE_CASES[case]

    def make(lib):
        return (
            lib.tensor([1, 2, 3]),
            lib.tensor([1.0, -2.0, 3.5]),
            lib.tensor([True, False, True]),
        )

    got, want = fn(ember, *make(ember)), fn(torch, *make(torch))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(got).astype(np.float64), _np(want).astype(np.float64), rtol=1e-6)


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("op", ["exp", "erfinv", "sigmoid", "rsqrt", "logit", "atan"])
def test_float_ops_keep_float_dtype(op, dt):
    x = ember.tensor([0.25, 0.5], dtype=getattr(ember, dt))
    assert getattr(ember, op)(x).dtype is getattr(ember, dt)


def test_default_dtype_decides_int_promotion():
    try:
        ember.set_default_dtype(ember.float64)
        assert ember.exp(ember.tensor([1])).dtype is ember.float64
        assert ember.clamp(ember.tensor([1]), min=0.5).dtype is ember.float64
        assert ember.where(ember.tensor([True]), 1.0, 0.0).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


# ---- comparisons and the Python protocol ---------------------------------------------------------
def test_comparisons_return_bool_and_broadcast():
    a = ember.tensor([[1.0, 2.0, 3.0]])
    b = ember.tensor([[2.0], [1.0]])
    for r in (a == b, a != b, a < b, a <= b, a > b, a >= b, ember.greater_equal(a, 2)):
        assert r.dtype is ember.bool
    assert (a < b).shape == (2, 3)
    assert (a > b).tolist() == [[False, False, True], [False, True, True]]
    assert (2 < a).tolist() == [[False, False, True]]  # reflected: a > 2
    assert (a == 2).requires_grad is False


def test_eq_with_non_tensor_falls_back_like_torch():
    x = ember.tensor([1, 2])
    assert (x == None) is False  # noqa: E711
    assert (x != "a") is True
    with pytest.raises(TypeError):
        x < None  # noqa: B015
    with pytest.raises(TypeError):
        ember.eq(x, None)


def test_hash_is_identity_after_eq_is_defined():
    x, y = ember.tensor([1.0]), ember.tensor([1.0])
    assert hash(x) != hash(y) or x is y
    d = {x: "x", y: "y"}
    assert d[x] == "x" and d[y] == "y"
    assert x in {x} and y not in {x}


def test_equal_and_allclose_return_python_bools():
    a = ember.tensor([1.0, 2.0])
    assert ember.equal(a, ember.tensor([1, 2])) is True
    assert ember.equal(a, ember.tensor([1.0])) is False
    assert ember.equal(ember.tensor([NAN]), ember.tensor([NAN])) is False
    assert ember.allclose(a, a + 1e-7) is True
    assert ember.allclose(a, a + 1e-3) is False
    assert ember.allclose(ember.tensor([NAN]), ember.tensor([NAN]), equal_nan=True) is True
    # 0-d operands (NumPy's == of 0-d arrays is a scalar, not an array)
    assert ember.equal(ember.tensor(3), ember.tensor(3.0)) is True
    assert ember.equal(ember.tensor(3), ember.tensor(4)) is False
    assert ember.allclose(ember.tensor(1.0), ember.tensor(1.0 + 1e-9)) is True


def test_isclose_rules():
    a = ember.tensor([1.0, INF, -INF, NAN, 0.0])
    b = ember.tensor([1.0 + 1e-6, INF, INF, NAN, 1e-9])
    assert ember.isclose(a, b).tolist() == [True, True, False, False, True]
    assert ember.isclose(a, b, equal_nan=True).tolist()[3] is True
    assert ember.isclose(a, b, rtol=0, atol=0).tolist() == [False, True, False, False, False]
    with pytest.raises(RuntimeError, match="did not match"):
        ember.isclose(a, b.double())
    with pytest.raises(RuntimeError, match="rtol"):
        ember.isclose(a, b, rtol=-1)
    with pytest.raises(TypeError):
        ember.isclose(a, 1.0)


# ---- logical and bitwise ops ---------------------------------------------------------------------
def test_logical_and_bitwise_ops():
    b = ember.tensor([True, False, True])
    i = ember.tensor([12, 5, -1])
    assert (~b).tolist() == [False, True, False]
    assert (~i).tolist() == [-13, -6, 0]
    assert (i & 10).tolist() == [8, 0, 10] and (10 & i).tolist() == [8, 0, 10]
    assert (i | 1).tolist() == [13, 5, -1] and (i ^ i).tolist() == [0, 0, 0]
    assert (i << 2).tolist() == [48, 20, -4] and (i >> 2).tolist() == [3, 1, -1]
    assert (1 << ember.tensor([0, 3])).tolist() == [1, 8]
    assert ember.logical_xor(i, b).tolist() == [False, True, False]
    assert ember.logical_not(ember.tensor([0.0, NAN])).tolist() == [True, False]


def test_bitwise_errors():
    f = ember.tensor([1.0])
    with pytest.raises(NotImplementedError, match="bitwise_and"):
        ember.bitwise_and(f, f)
    with pytest.raises(NotImplementedError):
        ember.tensor([1]) & 1.5
    with pytest.raises(TypeError, match="invert"):
        _ = ~f
    with pytest.raises(NotImplementedError):
        ember.tensor([True]) << ember.tensor([True])
    with pytest.raises(TypeError):
        ember.logical_and(ember.tensor([1]), 1)


def test_inplace_operators_keep_identity_and_bump_version():
    x = ember.tensor([5, 6, 7])
    y = x
    v = x._version
    x &= 3
    x |= 8
    x ^= 1
    x <<= 1
    x >>= 1
    x %= 4
    assert x is y and x.tolist() == [0, 3, 2]
    assert x._version == v + 6
    with pytest.raises(RuntimeError, match="can't be cast"):
        x.exp_()


# ---- errors --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda f, i, b: ember.atan2(f, 2.0), TypeError, "must be Tensor"),
        (lambda f, i, b: ember.maximum(f, 2), TypeError, "must be Tensor"),
        (lambda f, i, b: ember.hypot(f, 2.0), TypeError, "must be Tensor"),
        (lambda f, i, b: ember.hypot(i, i), NotImplementedError, "hypot"),
        (lambda f, i, b: ember.fmod(2, f), TypeError, "must be Tensor"),
        (lambda f, i, b: ember.exp(2.0), TypeError, "must be Tensor"),
        (lambda f, i, b: ember.clamp(f), RuntimeError, "At least one"),
        (lambda f, i, b: ember.clamp(f, f, 1.0), TypeError, "both"),
        (lambda f, i, b: ember.clamp_min(f, None), TypeError, "min"),
        (lambda f, i, b: ember.where(i, f, f), RuntimeError, "boolean"),
        (lambda f, i, b: ember.where(b, f), TypeError, "both"),
        (lambda f, i, b: f.masked_fill(i, 1.0), RuntimeError, "boolean masks"),
        (lambda f, i, b: f.masked_fill(b, ember.tensor([1.0])), RuntimeError, "0-dimensional"),
        (lambda f, i, b: f.masked_fill(b, "x"), TypeError, "value"),
        (lambda f, i, b: ember.lerp(f, f.double(), 0.5), RuntimeError, "expected dtype"),
        (lambda f, i, b: ember.lerp(f, f, f.double()), RuntimeError, "weight"),
        (lambda f, i, b: ember.lerp(i, i, 0.5), NotImplementedError, "lerp"),
        (lambda f, i, b: ember.addcdiv(f, i, i), RuntimeError, "Integer division"),
        (lambda f, i, b: ember.remainder(i, 0), RuntimeError, "ZeroDivisionError"),
        (
            lambda f, i, b: ember.fmod(i, ember.zeros(3, dtype=ember.int64)),
            RuntimeError,
            "ZeroDivisionError",
        ),
        (lambda f, i, b: ember.remainder(b, b), NotImplementedError, "remainder"),
        (lambda f, i, b: ember.frac(i), NotImplementedError, "frac"),
        (lambda f, i, b: ember.abs(b), NotImplementedError, "abs"),
        (lambda f, i, b: ember.floor(b), NotImplementedError, "floor"),
        (lambda f, i, b: ember.round(i, decimals=1), NotImplementedError, "round"),
        (lambda f, i, b: ember.relu(b), RuntimeError, "Boolean"),
        (lambda f, i, b: ember.positive(b), RuntimeError, "bool"),
        (lambda f, i, b: f.float_power_(2), RuntimeError, "Double"),
        (lambda f, i, b: i.sqrt_(), RuntimeError, "can't be cast"),
        (lambda f, i, b: i.clamp_(0.5), RuntimeError, "can't be cast"),
        (
            lambda f, i, b: ember.zeros(3).masked_fill_(ember.zeros(2, 3, dtype=ember.bool), 1.0),
            RuntimeError,
            "doesn't match the broadcast shape",
        ),
    ],
)
def test_errors(call, exc, match):
    f = ember.tensor([1.0, 2.0, 3.0])
    i = ember.tensor([1, 2, 3])
    b = ember.tensor([True, False, True])
    with pytest.raises(exc, match=match):
        call(f, i, b)


def test_integer_remainder_by_zero_matches_torch_error_type():
    torch = _torch()
    with pytest.raises(RuntimeError):
        torch.remainder(torch.tensor([1]), 0)
    with pytest.raises(RuntimeError):
        ember.remainder(ember.tensor([1]), 0)
    assert math.isnan(ember.remainder(ember.tensor([1.0]), 0).item())


def test_where_uint8_condition_warns():
    with pytest.warns(UserWarning, match="uint8"):
        r = ember.where(ember.tensor([1, 0], dtype=ember.uint8), 1.0, 2.0)
    assert r.tolist() == [1.0, 2.0]


# ---- nan and inf ---------------------------------------------------------------------------------
def test_nan_handling():
    x = ember.tensor([NAN, -0.0, 2.0, -INF])
    assert ember.sign(x).tolist() == [0.0, 0.0, 1.0, -1.0]  # torch: sign(nan) = 0
    assert math.isnan(ember.maximum(x, ember.zeros(4)).tolist()[0])
    assert ember.fmax(x, ember.zeros(4)).tolist() == [0.0, 0.0, 2.0, 0.0]
    assert math.isnan(ember.clamp(x, 0, 1).tolist()[0])
    assert all(math.isnan(v) for v in ember.clamp(x, min=NAN).tolist())
    assert math.isnan(ember.relu(x).tolist()[0])
    assert ember.nan_to_num(x).tolist()[::3] == [0.0, -3.4028234663852886e38]
    assert ember.nan_to_num(x.half()).tolist()[3] == -65504.0
    assert ember.isfinite(x).tolist() == [False, True, True, False]
    assert ember.isneginf(x).tolist() == [False, False, False, True]
    assert ember.xlogy(ember.tensor([0.0, 0.0]), ember.tensor([0.0, NAN])).tolist()[0] == 0.0
    assert math.isnan(ember.logit(ember.tensor([1.5])).item())


# ---- gradients at the awkward points, against torch ----------------------------------------------
GRAD_CASES = {
    "abs_at_0": (lambda lib, x: lib.abs(x), [[0.0, -1.0, 2.0]]),
    "relu_at_0": (lambda lib, x: lib.relu(x), [[0.0, -1.0, 2.0]]),
    "sqrt_at_0": (lambda lib, x: lib.sqrt(x), [[0.0, 1.0]]),
    "rsqrt_at_0": (lambda lib, x: lib.rsqrt(x), [[0.0, 4.0]]),
    "asin_at_1": (lambda lib, x: lib.asin(x), [[1.0, 0.5]]),
    "acosh_at_1": (lambda lib, x: lib.acosh(x), [[1.0, 2.0]]),
    "sign": (lambda lib, x: lib.sign(x), [[0.0, -1.0]]),
    "round_floor_ceil_trunc": (
        lambda lib, x: (
            lib.round(x) + lib.floor(x) + lib.ceil(x) + lib.trunc(x) + lib.round(x, decimals=1)
        ),
        [[0.5, -1.25]],
    ),
    "frac": (lambda lib, x: lib.frac(x), [[1.5, -1.5]]),
    "clamp_bounds_inclusive": (
        lambda lib, x: lib.clamp(x, 0.0, 1.0),
        [[0.0, 0.5, 1.0, 2.0, -1.0, NAN]],
    ),
    "clamp_min_gt_max": (lambda lib, x: lib.clamp(x, 1.0, 0.0), [[0.5, 2.0]]),
    "clamp_tensors": (
        lambda lib, x, lo, hi: lib.clamp(x, lo, hi),
        [[0.0, 0.5, 1.0, 2.0, -1.0, 0.5], [0.0] * 5 + [1.0], [1.0] * 5 + [0.0]],
    ),
    "clamp_min_tensor": (lambda lib, x, lo: lib.clamp(x, min=lo), [[0.0, 0.5, -1.0], [0.0] * 3]),
    "clamp_max_tensor": (lambda lib, x, hi: lib.clamp_max(x, hi), [[1.0, 0.5, 2.0], [1.0] * 3]),
    "maximum_ties": (
        lambda lib, a, b: lib.maximum(a, b),
        [[1.0, 2.0, 3.0, NAN], [1.0, 1.0, 4.0, 1.0]],
    ),
    "minimum_ties": (lambda lib, a, b: lib.minimum(a, b), [[1.0, 2.0, 3.0], [1.0, 1.0, 4.0]]),
    "fmax_ties_nan": (
        lambda lib, a, b: lib.fmax(a, b),
        [[1.0, 2.0, NAN, 1.0], [1.0, 1.0, 4.0, NAN]],
    ),
    "fmin_ties_nan": (
        lambda lib, a, b: lib.fmin(a, b),
        [[1.0, 2.0, NAN, 1.0], [1.0, 1.0, 4.0, NAN]],
    ),
    "atan2_origin": (lambda lib, a, b: lib.atan2(a, b), [[0.0, 1e-170, 1.0], [0.0, 1e-170, 0.0]]),
    "hypot_origin": (lambda lib, a, b: lib.hypot(a, b), [[0.0, 3.0], [0.0, 4.0]]),
    "xlogy_zeros": (
        lambda lib, a, b: lib.xlogy(a, b),
        [[0.0, 0.0, 0.0, 0.0, 1.0, 0.0], [0.5, 0.0, -1.0, NAN, 0.0, INF]],
    ),
    "logit": (lambda lib, x: lib.logit(x), [[-0.5, 0.5, 1.5, 0.0, 1.0]]),
    "logit_eps": (lambda lib, x: lib.logit(x, eps=0.1), [[0.05, 0.5, 0.95, 0.1]]),
    "copysign_at_0": (lambda lib, a, b: lib.copysign(a, b), [[0.0, 1.0, -2.0], [1.0, -1.0, 1.0]]),
    "nan_to_num": (lambda lib, x: lib.nan_to_num(x), [[NAN, INF, 1.0]]),
    "remainder_fmod": (
        lambda lib, a, b: lib.remainder(a, b) + lib.fmod(a, b),
        [[5.0, -5.0], [3.0, 3.0]],
    ),
    "where": (lambda lib, x, y: lib.where(x > 1, x, y), [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]),
    "where_bcast": (lambda lib, x, y: lib.where(y > 0, x, y), [[1.0, 2.0], [[1.0], [-1.0]]]),
    "masked_fill_value": (lambda lib, x, v: x.masked_fill(x > 1, v), [[1.0, 2.0, 3.0], 7.0]),
    "lerp_tensor": (lambda lib, a, b, w: lib.lerp(a, b, w), [[1.0, 2.0], [3.0, 5.0], [0.2, 0.8]]),
    "addcdiv": (
        lambda lib, x, a, b: lib.addcdiv(x, a, b, value=0.5),
        [[1.0, 2.0], [3.0, 4.0], [2.0, -1.0]],
    ),
    "float_power_zero": (lambda lib, x, y: lib.float_power(x, y), [[0.0, 2.0], [0.0, 3.0]]),
    "pow_zero": (lambda lib, x, y: x**y, [[0.0, 0.0, 2.0], [0.0, 2.0, 0.0]]),
    "pow_scalar_zero": (lambda lib, x: x**0 + 2.0**x, [[0.0, 1.5]]),
    "erfinv": (lambda lib, x: lib.erfinv(x), [[0.0, 0.5, -0.9]]),
}


def _grads(lib, fn, vals, create_graph=False):
    ts = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in vals]
    out = fn(lib, *ts)
    g = lib.autograd.grad(out.sum(), ts, allow_unused=True, create_graph=create_graph)
    return out, ts, g


@pytest.mark.parametrize("case", list(GRAD_CASES))
def test_gradients_match_torch(case):
    torch = _torch()
    fn, vals = GRAD_CASES[case]
    out_e, _, ge = _grads(ember, fn, vals)
    out_t, _, gt = _grads(torch, fn, vals)
    np.testing.assert_allclose(_np(out_e), _np(out_t), rtol=1e-12, atol=0, equal_nan=True)
    for a, b in zip(ge, gt, strict=True):
        b = np.zeros(b.shape) if b is None or b._is_zerotensor() else _np(b)
        a = np.zeros(b.shape) if a is None else _np(a)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-300, equal_nan=True, err_msg=case)


SECOND = {
    "tanh": (lambda lib, x: lib.tanh(x), [[0.3, -1.2]]),
    "sigmoid": (lambda lib, x: lib.sigmoid(x), [[0.3, -1.2]]),
    "erfinv": (lambda lib, x: lib.erfinv(x), [[0.3, -0.7]]),
    "atan2": (lambda lib, a, b: lib.atan2(a, b), [[0.3, -1.2], [0.5, 2.0]]),
    "hypot": (lambda lib, a, b: lib.hypot(a, b), [[0.3, -1.2], [0.5, 2.0]]),
    "where_mul": (lambda lib, x, y: lib.where(x > 0, x * x, y * x), [[0.3, -1.2], [0.5, 2.0]]),
    "maximum_mul": (lambda lib, a, b: lib.maximum(a * a, b), [[0.3, -1.2], [0.5, 0.09]]),
    "xlogy": (lambda lib, a, b: lib.xlogy(a, b), [[0.3, 1.2], [0.5, 2.0]]),
    "lerp": (lambda lib, a, b, w: lib.lerp(a, b, w), [[0.3, 1.2], [0.5, 2.0], [0.1, 0.7]]),
    "masked_fill": (lambda lib, x: (x * x).masked_fill(x > 1, 0.0), [[0.3, 1.2]]),
    "logit": (lambda lib, x: lib.logit(x), [[0.3, 0.8]]),
}


@pytest.mark.parametrize("case", list(SECOND))
def test_double_backward_matches_torch(case):
    torch = _torch()
    fn, vals = SECOND[case]
    res = []
    for lib in (ember, torch):
        _, ts, g = _grads(lib, fn, vals, create_graph=True)
        total = sum((gi * gi).sum() for gi in g)
        res.append(
            [None if h is None else _np(h) for h in lib.autograd.grad(total, ts, allow_unused=True)]
        )
    for a, b in zip(*res, strict=True):
        # an input the first gradient does not depend on: None, or zeros
        assert (a is None or not a.any()) if b is None else a is not None
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10)


def test_grad_fn_names_match_torch():
    torch = _torch()
    calls = {
        "exp": lambda lib, x, y: lib.exp(x),
        "square": lambda lib, x, y: lib.square(x),
        "logit": lambda lib, x, y: lib.logit(x),
        "relu": lambda lib, x, y: lib.relu(x),
        "round_dec": lambda lib, x, y: lib.round(x, decimals=1),
        "rem_scalar": lambda lib, x, y: x % 2,
        "rem": lambda lib, x, y: x % y,
        "fmod": lambda lib, x, y: lib.fmod(x, 2.0),
        "atan2": lambda lib, x, y: lib.atan2(x, y),
        "maximum": lambda lib, x, y: lib.maximum(x, y),
        "hypot": lambda lib, x, y: lib.hypot(x, y),
        "copysign": lambda lib, x, y: lib.copysign(x, -1.0),
        "xlogy": lambda lib, x, y: lib.xlogy(x, y),
        "xlogy1": lambda lib, x, y: lib.xlogy(2, y),
        "xlogy2": lambda lib, x, y: lib.xlogy(x, 2.0),
        "clamp": lambda lib, x, y: lib.clamp(x, 0, 1),
        "clamp_t": lambda lib, x, y: x.clamp(y),
        "clamp_min": lambda lib, x, y: lib.clamp_min(x, 0),
        "clamp_min_t": lambda lib, x, y: lib.clamp_min(x, y),
        "clamp_max": lambda lib, x, y: lib.clamp_max(x, 0),
        "where": lambda lib, x, y: lib.where(x > 0.5, x, y),
        "lerp": lambda lib, x, y: lib.lerp(x, y, 0.3),
        "lerp_t": lambda lib, x, y: x.lerp(y, y),
        "addcmul": lambda lib, x, y: lib.addcmul(x, x, y),
        "addcdiv": lambda lib, x, y: lib.addcdiv(x, x, y),
        "masked_fill": lambda lib, x, y: x.masked_fill(x > 0.5, 1.0),
        "masked_fill_t": lambda lib, x, y: x.masked_fill(x > 0.5, y.sum()),
        "nan_to_num": lambda lib, x, y: lib.nan_to_num(x),
        "log1p": lambda lib, x, y: x.log1p(),
    }
    for name, fn in calls.items():
        got = fn(ember, *[ember.tensor([0.3, 0.7], requires_grad=True) for _ in range(2)])
        want = fn(torch, *[torch.tensor([0.3, 0.7], requires_grad=True) for _ in range(2)])
        assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__, name


# ---- in-place forms ------------------------------------------------------------------------------
def test_inplace_on_leaf_that_requires_grad_raises():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.exp_()
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.masked_fill_(x > 1, 0.0)
    with ember.no_grad():
        x.clamp_(max=1.5)
    assert x.tolist() == [1.0, 1.5]


def test_inplace_grads_and_versions_match_torch():
    torch = _torch()
    res = []
    for lib in (ember, torch):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x * 2
        v = y._version
        r = y.mul_(1.5)
        assert r is y and y._version == v + 1
        y.masked_fill_(y > 0.7, 0.25).clamp_(min=0.2).sigmoid_()
        (y * x).sum().backward()
        res.append((_np(y), _np(x.grad)))
    for a, b in zip(*res, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


_ARITH_INPLACE = [
    ("add_", {}),
    ("add_", {"alpha": 0.5}),
    ("sub_", {}),
    ("sub_", {"alpha": 3}),
    ("mul_", {}),
    ("div_", {}),
]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("operand", ["same_shape", "broadcast_row", "python_float", "python_int"])
@pytest.mark.parametrize("op,kw", _ARITH_INPLACE, ids=lambda v: str(v))
def test_inplace_arithmetic_without_grad_matches_torch_and_writes_in_place(op, kw, operand, dtype):
    # without recording these run straight into the tensor's memory (pointwise._inplace_direct)
    torch = _torch()
    rng = np.random.default_rng(0)
    base = rng.uniform(0.5, 2.0, (4, 3))
    other = {
        "same_shape": rng.uniform(0.5, 2.0, (4, 3)),
        "broadcast_row": rng.uniform(0.5, 2.0, 3),
        "python_float": 0.75,
        "python_int": 3,
    }[operand]

    def run(lib):
        dt = getattr(lib, dtype)
        x = lib.tensor(base, dtype=dt)
        o = lib.tensor(other, dtype=dt) if isinstance(other, np.ndarray) else other
        view = x[1:]  # shares x's memory
        v = x._version
        with lib.no_grad():
            r = getattr(view, op)(o[1:] if operand == "same_shape" else o, **kw)
        assert r is view and x._version == v + 1
        return _np(x)

    if "alpha" in kw:  # torch fuses a + alpha * b (one rounding): ember rounds the product too
        eps = np.finfo(dtype).eps
        np.testing.assert_allclose(run(ember), run(torch), rtol=4 * eps, atol=4 * eps)
    else:
        np.testing.assert_array_equal(run(ember), run(torch))


def test_inplace_arithmetic_direct_path_takes_only_what_needs_no_promotion():
    from ember.ops import pointwise as pw

    x = ember.ones(3)
    assert pw._inplace_direct(x, pw.add, (ember.ones(3),), {"alpha": 2.0})
    assert x.tolist() == [3.0, 3.0, 3.0] and x._version == 1
    refused = [
        (ember.ones(3, dtype=ember.int64), pw.add, (1,), {}),  # integer tensor
        (ember.ones(3), pw.add, (ember.ones(3, dtype=ember.float64),), {}),  # promotes
        (ember.ones(3), pw.div, (2.0,), {"rounding_mode": "floor"}),
        (ember.ones(3), pw.add, (ember.ones(2, 3),), {}),  # does not fit: general path
        (ember.ones(3, device="meta"), pw.mul, (2.0,), {}),
    ]
    for t, fn, args, kw in refused:
        assert not pw._inplace_direct(t, fn, args, kw)
        assert t._version == 0


def test_inplace_arithmetic_shape_errors_leave_the_tensor_as_it_was():
    x = ember.ones(3)
    with ember.no_grad(), pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x.add_(ember.ones(2, 3))
    with ember.no_grad(), pytest.raises(RuntimeError, match="can't be cast"):
        ember.ones(3, dtype=ember.int64).mul_(1.5)
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0


def test_inplace_modifying_saved_input_is_detected():
    x = ember.tensor([0.5, 1.0], requires_grad=True)
    y = x * 1
    z = y.sin()
    y.exp_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_torch_level_inplace_functions_return_their_argument():
    x = ember.tensor([-1.0, 0.5])
    assert ember.relu_(x) is x and x.tolist() == [0.0, 0.5]
    assert ember.clamp_(x, max=0.25) is x and x.tolist() == [0.0, 0.25]
    assert ember.exp_(x) is x


def test_masked_fill_inplace_broadcasts_mask_to_self():
    x = ember.zeros(2, 3)
    x.masked_fill_(ember.tensor([True, False, True]), 1.0)
    assert x.tolist() == [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]
    assert ember.zeros(3).masked_fill(ember.zeros(2, 3, dtype=ember.bool), 1.0).shape == (2, 3)


def test_out_argument():
    x = ember.tensor([0.0, 1.0])
    out = ember.empty(2)
    r = ember.exp(x, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), [1.0, math.e], rtol=1e-6)
    out_b = ember.empty(2, dtype=ember.bool)
    assert ember.gt(x, 0.5, out=out_b) is out_b and out_b.tolist() == [False, True]


def test_positive_returns_input_and_float_power_inplace():
    x = ember.tensor([1.0, -2.0])
    assert ember.positive(x) is x and +x is x
    d = ember.tensor([2.0, 3.0], dtype=ember.float64)
    assert d.float_power_(2) is d and d.tolist() == [4.0, 9.0]


def test_remainder_sign_follows_divisor_and_fmod_follows_dividend():
    a = ember.tensor([-3.0, 3.0, -3, 3])
    b = ember.tensor([2.0, -2.0, -2, 2])
    assert ember.remainder(a, b).tolist() == [1.0, -1.0, -1.0, 1.0]
    assert ember.fmod(a, b).tolist() == [-1.0, 1.0, -1.0, 1.0]
    assert (ember.tensor([-3, 3]) % 2).tolist() == [1, 1]
    assert (7 % ember.tensor([2, -2])).tolist() == [1, -1]


def test_round_half_to_even_and_decimals():
    x = ember.tensor([0.5, 1.5, 2.5, -0.5, 1234.5])
    assert ember.round(x).tolist() == [0.0, 2.0, 2.0, -0.0, 1234.0]
    assert ember.round(ember.tensor([1234.5]), decimals=-2).tolist() == [1200.0]
    assert ember.round(ember.tensor([0.125], dtype=ember.float64), decimals=2).item() == 0.12


def test_where_condition_only_delegates_to_nonzero():
    if not hasattr(ember.Tensor, "nonzero"):
        pytest.skip("nonzero (indexing family) not available yet")
    idx = ember.where(ember.tensor([[True, False], [False, True]]))
    assert [t.tolist() for t in idx] == [[0, 1], [0, 1]]


# ---- meta tensors --------------------------------------------------------------------------------
def test_meta_shapes_and_dtypes():
    x = ember.zeros(2, 1, 3, device="meta")
    y = ember.zeros(4, 1, device="meta")
    i = ember.zeros(4, 1, dtype=ember.int64, device="meta")
    m = x > 0
    assert m.dtype is ember.bool and m.device.type == "meta"
    cases = [
        (ember.exp(x), (2, 1, 3), ember.float32),
        (ember.exp(i), (4, 1), ember.float32),
        (ember.atan2(x, y), (2, 4, 3), ember.float32),
        (ember.where(m, x, y.double()), (2, 4, 3), ember.float64),
        (ember.where(x > 0, 1, 0), (2, 1, 3), ember.int64),
        (ember.clamp(x, y, None), (2, 4, 3), ember.float32),
        (ember.clamp(i, min=0.5), (4, 1), ember.float32),
        (x.masked_fill(y > 0, 1.0), (2, 4, 3), ember.float32),
        (ember.lerp(x, x, y.expand(4, 3)), (2, 4, 3), ember.float32),
        (ember.isclose(x, y), (2, 4, 3), ember.bool),
        (ember.nan_to_num(x), (2, 1, 3), ember.float32),
        (ember.float_power(x, 2), (2, 1, 3), ember.float64),
        (i & 3, (4, 1), ember.int64),
        (ember.round(x, decimals=2), (2, 1, 3), ember.float32),
        (ember.xlogy(2.0, y), (4, 1), ember.float32),
    ]
    for t, shape, dt in cases:
        assert t.device.type == "meta" and t.shape == shape and t.dtype is dt


def test_meta_backward_and_data_dependent_errors():
    x = ember.zeros(3, device="meta", requires_grad=True)
    ember.sigmoid(x).clamp(0.1, 0.9).sum().backward()
    assert x.grad.shape == (3,) and x.grad.device.type == "meta"
    with pytest.raises(RuntimeError, match="meta"):
        ember.allclose(x.detach(), x.detach())
    with pytest.raises(RuntimeError, match="meta"):
        ember.equal(x.detach(), x.detach())


@pytest.mark.parametrize("op", ["add", "sub", "rsub"])
@pytest.mark.parametrize("other", [2, 2.5])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_alpha_with_a_number_operand_matches_torch(op, other, dtype):
    if dtype == "int64" and isinstance(other, float):
        pytest.skip("promotes to float: covered by the float rows")
    torch = _torch()
    ours = getattr(ember, op)(ember.arange(4).to(getattr(ember, dtype)), other, alpha=3)
    theirs = getattr(torch, op)(torch.arange(4).to(getattr(torch, dtype)), other, alpha=3)
    assert str(ours.dtype)[6:] == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
