"""Behaviour tests for ember/ops/linalg.py and ember/ops/softmax.py: errors, dtype rules,
graph-node names, in-place forms, meta shapes, numerical stability, and higher-order parity
with torch (the op table in tests/opdb/linalg.py covers forward/gradients row by row)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import ember
from ember.ops.products import multi_dot

RNG = np.random.default_rng(0)


def _t(*shape, dtype=np.float64, requires_grad=False):
    return ember.tensor(RNG.standard_normal(shape).astype(dtype), requires_grad=requires_grad)


def _i(*shape):
    return ember.tensor(RNG.integers(-5, 5, size=shape))


def _torch():
    return pytest.importorskip("torch", reason="torch is the reference for this test")


def _to_torch(torch, t, requires_grad=False):
    return torch.from_numpy(t.detach().numpy().copy()).requires_grad_(requires_grad)


# ---- errors ----------------------------------------------------------------------------------
f, d = np.float32, np.float64
ERRORS = [
    (
        "matmul-0d",
        lambda L, T: L.matmul(T((), f), T((3,), f)),
        RuntimeError,
        "both arguments to matmul need to be at least 1D, but they are 0D and 1D",
    ),
    (
        "matmul-2d",
        lambda L, T: L.matmul(T((2, 3), f), T((4, 5), f)),
        RuntimeError,
        re.escape("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    ),
    (
        "matmul-1d2d",
        lambda L, T: L.matmul(T((3,), f), T((4, 5), f)),
        RuntimeError,
        re.escape("mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"),
    ),
    ("matmul-3d2d", lambda L, T: T((5, 2, 3), f) @ T((4, 5), f), RuntimeError, "cannot be multi"),
    (
        "matmul-1d1d",
        lambda L, T: L.matmul(T((3,), f), T((4,), f)),
        RuntimeError,
        "inconsistent tensor size",
    ),
    (
        "matmul-2d1d",
        lambda L, T: L.matmul(T((2, 3), f), T((4,), f)),
        RuntimeError,
        re.escape("size mismatch, got input (2), mat (2x3), vec (4)"),
    ),
    (
        "matmul-batch",
        lambda L, T: L.matmul(T((2, 2, 3), f), T((3, 3, 4), f)),
        RuntimeError,
        re.escape("The size of tensor a (2) must match the size of tensor b (3)"),
    ),
    (
        "matmul-dtype",
        lambda L, T: L.matmul(T((2, 3), f), T((3, 4), d)),
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: float != double",
    ),
    (
        "dot-dtype",
        lambda L, T: L.matmul(T((3,), f), T((3,), d)),
        RuntimeError,
        "dot : expected both vectors to have same dtype, but found Float and Double",
    ),
    (
        "matmul-bool",
        lambda L, T: L.matmul(T((2, 3), bool), T((3, 4), bool)),
        NotImplementedError,
        "not implemented for 'Bool'",
    ),
    ("matmul-list", lambda L, T: L.matmul(T((2, 3), f), [[1.0]]), TypeError, "must be Tensor"),
    ("matmul-op-list", lambda L, T: T((2, 2), f) @ [[1.0, 2.0]], TypeError, "@"),
    ("mm-1d", lambda L, T: L.mm(T((3,), f), T((3, 4), f)), RuntimeError, "self must be a matrix"),
    ("mm-mat2", lambda L, T: L.mm(T((2, 3), f), T((3,), f)), RuntimeError, "mat2 must be a matrix"),
    (
        "mm-shape",
        lambda L, T: L.mm(T((2, 3), f), T((4, 4), f)),
        RuntimeError,
        re.escape("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)"),
    ),
    (
        "bmm-2d",
        lambda L, T: L.bmm(T((2, 3), f), T((2, 3, 4), f)),
        RuntimeError,
        "batch1 must be a 3D tensor",
    ),
    (
        "bmm-batch",
        lambda L, T: L.bmm(T((2, 2, 3), f), T((3, 3, 4), f)),
        RuntimeError,
        re.escape(
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3]."
        ),
    ),
    (
        "bmm-dtype",
        lambda L, T: L.bmm(T((2, 2, 3), f), T((2, 3, 4), d)),
        RuntimeError,
        "expected scalar type Float but found Double",
    ),
    (
        "mv-dims",
        lambda L, T: L.mv(T((2, 3), f), T((3, 1), f)),
        RuntimeError,
        "vector \\+ matrix @ vector expected, got 1, 2, 2",
    ),
    (
        "dot-2d",
        lambda L, T: L.dot(T((2, 3), f), T((3,), f)),
        RuntimeError,
        "1D tensors expected, but got 2D and 1D tensors",
    ),
    (
        "dot-size",
        lambda L, T: L.dot(T((3,), f), T((4,), f)),
        RuntimeError,
        re.escape("expected tensor [3] and src [4]"),
    ),
    ("vdot-dtype", lambda L, T: L.vdot(T((3,), f), T((3,), d)), RuntimeError, "same dtype"),
    (
        "addmm-expand",
        lambda L, T: L.addmm(T((3, 4), f), T((2, 3), f), T((3, 4), f)),
        RuntimeError,
        re.escape(
            "The expanded size of the tensor (2) must match the existing size "
            "(3) at non-singleton dimension 0"
        ),
    ),
    (
        "addmm-ndim",
        lambda L, T: L.addmm(T((2, 4, 1), f), T((2, 3), f), T((3, 4), f)),
        RuntimeError,
        "must be greater or equal to the number of dimensions",
    ),
    (
        "addmm-1d",
        lambda L, T: L.addmm(T((2, 4), f), T((3,), f), T((3, 4), f)),
        RuntimeError,
        "mat1 must be a matrix, got 1-D tensor",
    ),
    (
        "addmm-dtype",
        lambda L, T: L.addmm(T((2, 4), d), T((2, 3), f), T((3, 4), f)),
        RuntimeError,
        "same dtype",
    ),
    (
        "addbmm-batches",
        lambda L, T: L.addbmm(T((2, 4), f), T((5, 2, 3), f), T((4, 3, 4), f)),
        RuntimeError,
        "batch1 and batch2 must have same number of batches, got 5 and 4",
    ),
    (
        "addbmm-sizes",
        lambda L, T: L.addbmm(T((2, 4), f), T((5, 2, 3), f), T((5, 4, 4), f)),
        RuntimeError,
        re.escape("Incompatible matrix sizes for bmm (2x3 and 4x4)"),
    ),
    (
        "baddbmm-expand",
        lambda L, T: L.baddbmm(T((5, 2, 4), f), T((2, 3), f), T((5, 3, 4), f)),
        RuntimeError,
        "3D tensor",
    ),
    (
        "addr-int-alpha",
        lambda L, T: L.addr(T((2, 2), np.int64), T((2,), np.int64), T((2,), np.int64), alpha=2.5),
        RuntimeError,
        "For integral input tensors, argument alpha must not be a floating point number.",
    ),
    (
        "outer-2d",
        lambda L, T: L.outer(T((2, 3), f), T((4,), f)),
        RuntimeError,
        "outer: Expected 1-D argument self, but got 2-D",
    ),
    (
        "outer-0d",
        lambda L, T: L.outer(T((3,), f), T((), f)),
        RuntimeError,
        "Expected 1-D argument vec2, but got 0-D",
    ),
    (
        "inner-last",
        lambda L, T: L.inner(T((2, 3), f), T((4, 4), f)),
        RuntimeError,
        re.escape(
            "inner() the last dimension must match on both input tensors but got shapes "
            "[2, 3] and [4, 4]"
        ),
    ),
    (
        "inner-dtype",
        lambda L, T: L.inner(T((3,), f), T((3,), d)),
        RuntimeError,
        "both inputs should have same dtype",
    ),
    (
        "tensordot-size",
        lambda L, T: L.tensordot(T((2, 3), f), T((4, 4), f), dims=1),
        RuntimeError,
        "contracted dimensions need to match, but first has size 3 in dim -1 and "
        "second has size 4 in dim 0",
    ),
    (
        "tensordot-neg",
        lambda L, T: L.tensordot(T((2, 3), f), T((3, 4), f), dims=-1),
        RuntimeError,
        "tensordot expects dims >= 0, but got dims=-1",
    ),
    (
        "tensordot-big",
        lambda L, T: L.tensordot(T((2, 3), f), T((3, 4), f), dims=3),
        RuntimeError,
        "tensordot expects dims < ndim_a or ndim_b, but got dims=3",
    ),
    (
        "tensordot-lens",
        lambda L, T: L.tensordot(T((2, 3), f), T((3, 4), f), dims=([1], [0, 1])),
        RuntimeError,
        "both dimension lists should have same length",
    ),
    (
        "tensordot-ints",
        lambda L, T: L.tensordot(T((2, 3), f), T((3, 4), f), dims=(1, 0)),
        TypeError,
        "must be tuple of ints, not int",
    ),
    (
        "tensordot-dtype",
        lambda L, T: L.tensordot(T((2, 3), f), T((3, 4), d), dims=1),
        RuntimeError,
        "both inputs should have same dtype",
    ),
    (
        "tensordot-dup",
        lambda L, T: L.tensordot(T((2, 3), f), T((3, 3), f), dims=([1, 1], [0, 1])),
        RuntimeError,
        "dim 1 appears multiple times in the list of dims",
    ),
    (
        "einsum-few",
        lambda L, T: L.einsum("ij,jk->ik", T((2, 3), f)),
        RuntimeError,
        "einsum\\(\\): fewer operands were provided than specified in the equation",
    ),
    (
        "einsum-many",
        lambda L, T: L.einsum("ij->ij", T((2, 3), f), T((2, 3), f)),
        RuntimeError,
        "more operands were provided",
    ),
    (
        "einsum-out",
        lambda L, T: L.einsum("ij->k", T((2, 3), f)),
        RuntimeError,
        "output subscript k does not appear in the equation for any input operand",
    ),
    (
        "einsum-out-twice",
        lambda L, T: L.einsum("ij->ii", T((2, 3), f)),
        RuntimeError,
        "output subscript i appears more than once in the output",
    ),
    (
        "einsum-ndim",
        lambda L, T: L.einsum("ijk->ij", T((2, 3), f)),
        RuntimeError,
        re.escape(
            "the number of subscripts in the equation (3) does not match the number of "
            "dimensions (2) for operand 0 and no ellipsis was given"
        ),
    ),
    (
        "einsum-char",
        lambda L, T: L.einsum("i1->i", T((2, 3), f)),
        RuntimeError,
        "invalid subscript given at index 1 in the equation string, subscripts must be in",
    ),
    (
        "einsum-arrow",
        lambda L, T: L.einsum("ij-->ij", T((2, 3), f)),
        RuntimeError,
        "invalid subscript given at index 2",
    ),
    (
        "einsum-dot",
        lambda L, T: L.einsum("i.j->ij", T((2, 3), f)),
        RuntimeError,
        "found '.' for operand 0 that is not part of any ellipsis",
    ),
    (
        "einsum-repeat",
        lambda L, T: L.einsum("ii->i", T((3, 4), f)),
        RuntimeError,
        "subscript i is repeated for operand 0 but the sizes don't match, 4 != 3",
    ),
    (
        "einsum-bcast",
        lambda L, T: L.einsum("i,i->i", T((2,), f), T((3,), f)),
        RuntimeError,
        "subscript i has size 3 for operand 1 which does not broadcast with previously seen size 2",
    ),
    (
        "einsum-dtype",
        lambda L, T: L.einsum("ij,jk->ik", T((2, 3), f), T((3, 4), d)),
        RuntimeError,
        "expected scalar type Float but found Double",
    ),
    (
        "einsum-bool",
        lambda L, T: L.einsum("ij,jk->ik", T((2, 3), bool), T((3, 4), bool)),
        NotImplementedError,
        "not implemented for 'Bool'",
    ),
    (
        "cross-ndim",
        lambda L, T: L.cross(T((4, 3), f), T((3,), f), dim=-1),
        RuntimeError,
        "linalg.cross: inputs must have the same number of dimensions",
    ),
    (
        "cross-len",
        lambda L, T: L.cross(T((4, 3), f), T((4, 3), f), dim=0),
        RuntimeError,
        "linalg.cross: inputs dimension 0 must have length 3. Got 4 and 4",
    ),
    (
        "cross-dim",
        lambda L, T: L.cross(T((4, 3), f), T((4, 3), f), dim=2),
        IndexError,
        "Dimension out of range",
    ),
    (
        "cross-dtype",
        lambda L, T: L.cross(T((4, 3), f), T((4, 3), d), dim=1),
        RuntimeError,
        "expected scalar type Float but found Double",
    ),
    (
        "cross-bool",
        lambda L, T: L.cross(T((3,), bool), T((3,), bool), dim=0),
        NotImplementedError,
        "\"cross\" not implemented for 'Bool'",
    ),
    ("softmax-nodim", lambda L, T: L.softmax(T((2, 3), f)), TypeError, "dim"),
    ("log_softmax-nodim", lambda L, T: L.log_softmax(T((2, 3), f)), TypeError, "dim"),
    ("softmax-method-nodim", lambda L, T: T((2, 3), f).softmax(), TypeError, "dim"),
    (
        "softmax-dim-none",
        lambda L, T: L.softmax(T((2, 3), f), None),
        TypeError,
        "must be int, not NoneType",
    ),
    (
        "softmax-dim-float",
        lambda L, T: L.softmax(T((2, 3), f), 1.0),
        TypeError,
        "must be int, not float",
    ),
    (
        "softmax-dim-tuple",
        lambda L, T: L.softmax(T((2, 3), f), dim=(1,)),
        TypeError,
        "must be int, not tuple",
    ),
    (
        "softmax-range",
        lambda L, T: L.softmax(T((2, 3), f), 2),
        IndexError,
        re.escape("Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ),
    (
        "softmax-0d-range",
        lambda L, T: L.softmax(T((), f), 1),
        IndexError,
        re.escape("expected to be in range of [-1, 0], but got 1"),
    ),
    (
        "softmax-int",
        lambda L, T: L.softmax(T((2, 3), np.int64), 1),
        NotImplementedError,
        "not implemented for 'Long'",
    ),
    (
        "softmax-int-dtype",
        lambda L, T: L.softmax(T((2, 3), f), 1, dtype=L.int64),
        NotImplementedError,
        "not implemented for 'Long'",
    ),
    (
        "log_softmax-bool",
        lambda L, T: L.log_softmax(T((2, 3), bool), 1),
        NotImplementedError,
        "not implemented for 'Bool'",
    ),
]


def _maker(lib):
    def make(shape, dtype):
        a = np.ones(shape, dtype=dtype)
        return lib.from_numpy(a) if shape else lib.tensor(a)

    return make


@pytest.mark.parametrize("fn,exc,msg", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(ember, _maker(ember))


@pytest.mark.parametrize("fn,exc", [e[1:3] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_error_types_match_torch(fn, exc):
    torch = _torch()
    with pytest.raises(exc):
        fn(torch, _maker(torch))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, T: L.matmul(T((2, 3), f), T((4, 5), f)),
        lambda L, T: L.einsum("ij,jk->ik", T((2, 3), f), T((4, 5), f)),
        lambda L, T: L.tensordot(T((2, 3), f), T((4, 5), f), dims=1),
        lambda L, T: L.cross(T((2, 3), f), T((2, 4), f), dim=1),
    ],
    ids=["matmul", "einsum", "tensordot", "cross"],
)
def test_shape_errors_on_meta(fn):
    make = lambda shape, dtype: ember.zeros(shape, dtype=ember.float32, device="meta")  # noqa: E731
    with pytest.raises(RuntimeError):
        fn(ember, make)


# ---- dtypes ----------------------------------------------------------------------------------
def test_integer_matmul_is_exact_int64():
    a, b = _i(3, 4), _i(4, 2)
    for r in (a @ b, ember.mm(a, b), ember.matmul(a.unsqueeze(0), b), _i(4) @ b):
        assert r.dtype == ember.int64
    np.testing.assert_array_equal((a @ b).numpy(), a.numpy() @ b.numpy())
    assert not (a @ b).requires_grad


def test_int32_dot_and_einsum_keep_dtype():
    a = ember.tensor([1, 2, 3], dtype=ember.int32)
    assert ember.dot(a, a).dtype == ember.int32 and ember.dot(a, a).item() == 14
    assert ember.einsum("i,i->", a, a).dtype == ember.int32


@pytest.mark.parametrize("op", ["matmul", "einsum", "bmm", "softmax", "log_softmax", "cross"])
def test_float16_in_float16_out(op):
    torch = _torch()
    x = RNG.standard_normal((2, 3, 3)).astype(np.float16)
    y = RNG.standard_normal((2, 3, 3)).astype(np.float16)
    calls = {
        "matmul": lambda L, a, b: L.matmul(a, b),
        "einsum": lambda L, a, b: L.einsum("bij,bjk->bik", a, b),
        "bmm": lambda L, a, b: L.bmm(a, b),
        "softmax": lambda L, a, b: L.softmax(a, -1),
        "log_softmax": lambda L, a, b: L.log_softmax(a, 1),
        "cross": lambda L, a, b: L.cross(a, b, dim=2),
    }
    got = calls[op](ember, ember.tensor(x), ember.tensor(y))
    want = calls[op](torch, torch.from_numpy(x), torch.from_numpy(y))
    assert got.dtype == ember.float16
    np.testing.assert_allclose(
        got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=2e-3, atol=2e-3
    )


def test_promoting_products():
    i, x, z, x3 = _i(3), _t(4, dtype=np.float32), _t(4), _t(3, dtype=np.float32)
    assert ember.outer(i, x).dtype == ember.float32
    assert ember.outer(x, z).dtype == ember.float64
    assert ember.kron(_i(2, 2), x).dtype == ember.float32
    assert ember.addr(_i(3, 4), x3, x).dtype == ember.float32
    assert ember.addr(_t(3, 4), x3, x, beta=0).dtype == ember.float64


def test_einsum_bool_sum_counts_in_int64():
    m = ember.tensor([[True, False, True], [True, True, True]])
    r = ember.einsum("ij->i", m)
    assert r.dtype == ember.int64 and r.tolist() == [2, 3]
    assert ember.einsum("ij->ji", m).dtype == ember.bool


def test_integer_addmm_truncates_float_scalars():
    torch = _torch()
    a, b, c = _i(2, 2), _i(2, 3), _i(3, 2)
    got = ember.addmm(a, b, c, beta=0.5, alpha=2.7)
    want = torch.addmm(*(torch.from_numpy(t.numpy()) for t in (a, b, c)), beta=0.5, alpha=2.7)
    assert got.dtype == ember.int64
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_softmax_dtype_argument_casts_first_and_grad_returns_in_input_dtype():
    x = _t(2, 3, dtype=np.float32, requires_grad=True)
    y = ember.softmax(x, 1, dtype=ember.float64)
    assert y.dtype == ember.float64
    np.testing.assert_allclose(y.sum(1).detach().numpy(), [1.0, 1.0], rtol=1e-15)
    (y * ember.tensor([1.0, 0.0, 0.0], dtype=ember.float64)).sum().backward()
    assert x.grad.dtype == ember.float32
    yi = ember.log_softmax(_i(2, 3), -1, ember.float32)
    assert yi.dtype == ember.float32
    assert x.softmax(0, ember.float64).dtype == ember.float64


# ---- softmax numerics ------------------------------------------------------------------------
def test_softmax_large_values_are_stable():
    x = ember.tensor([[1000.0, 0.0, -1000.0], [3.4e38, 3.4e38, 0.0]], dtype=ember.float32)
    y = ember.softmax(x, 1).numpy()
    np.testing.assert_allclose(y, [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]], atol=1e-7)
    ly = ember.log_softmax(x, -1).numpy()
    assert np.isfinite(ly[0]).all()
    np.testing.assert_allclose(ly[0], [0.0, -1000.0, -2000.0], rtol=1e-6)
    np.testing.assert_allclose(ly[1, :2], [-np.log(2)] * 2, rtol=1e-6)


def test_softmax_special_values_match_torch():
    torch = _torch()
    inf = float("inf")
    rows = [[-inf, -inf], [inf, 1.0], [-inf, 0.0], [float("nan"), 1.0]]
    for op in ("softmax", "log_softmax"):
        x = np.array(rows)
        got = getattr(ember, op)(ember.tensor(x), 1).numpy()
        want = getattr(torch, op)(torch.from_numpy(x), 1).numpy()
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_negative_dim_and_sums(op):
    x = _t(2, 3, 4)
    fn = getattr(ember, op)
    for pos, neg in ((0, -3), (1, -2), (2, -1)):
        np.testing.assert_array_equal(fn(x, pos).numpy(), fn(x, neg).numpy())
    y = ember.softmax(x, -2).numpy()
    np.testing.assert_allclose(y.sum(-2), np.ones((2, 4)), rtol=1e-14)
    np.testing.assert_allclose(
        ember.log_softmax(x, 0).numpy(), np.log(ember.softmax(x, 0).numpy()), rtol=1e-12, atol=1e-14
    )


@pytest.mark.parametrize("shape,dim", [((0, 3), 1), ((2, 0), 1), ((2, 0), 0)])
def test_softmax_empty(shape, dim):
    x = ember.zeros(shape)
    assert ember.softmax(x, dim).shape == shape
    assert ember.log_softmax(x, dim).shape == shape


# ---- graph nodes, higher order, parity ---------------------------------------------------------
@pytest.mark.parametrize(
    "shapes,name",
    [
        (((3,), (3,)), "DotBackward0"),
        (((2, 3), (3,)), "MvBackward0"),
        (((3,), (3, 4)), "SqueezeBackward4"),
        (((2, 3), (3, 4)), "MmBackward0"),
        (((5, 2, 3), (5, 3, 4)), "UnsafeViewBackward0"),
    ],
)
def test_matmul_node_names_match_torch(shapes, name):
    a, b = (_t(*s, requires_grad=True) for s in shapes)
    assert type((a @ b).grad_fn).__name__ == name


def test_node_names():
    x = _t(2, 3, requires_grad=True)
    assert type(ember.softmax(x, 1).grad_fn).__name__ == "SoftmaxBackward0"
    assert type(ember.log_softmax(x, 1).grad_fn).__name__ == "LogSoftmaxBackward0"
    assert type(ember.addmm(_t(2, 2), x, _t(3, 2)).grad_fn).__name__ == "AddmmBackward0"
    assert type(ember.bmm(x.unsqueeze(0), _t(1, 3, 2)).grad_fn).__name__ == "BmmBackward0"
    assert type(ember.cross(x, x, dim=1).grad_fn).__name__ == "LinalgCrossBackward0"


def _hvp_parity(fn_ember, fn_torch, shapes):
    """Value, gradient and a Hessian-vector product through create_graph, against torch."""
    torch = _torch()
    xs = [_t(*s, requires_grad=True) for s in shapes]
    ts = [_to_torch(torch, x, True) for x in xs]
    ye, yt = fn_ember(ember, *xs), fn_torch(torch, *ts)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-10)
    w = RNG.standard_normal(tuple(yt.shape))
    ge = ember.autograd.grad(ye, xs, ember.tensor(w), create_graph=True)
    gt = torch.autograd.grad(yt, ts, torch.from_numpy(w), create_graph=True)
    vs = [RNG.standard_normal(tuple(x.shape)) for x in xs]
    se = sum((g * ember.tensor(v)).sum() for g, v in zip(ge, vs, strict=True))
    st = sum((g * torch.from_numpy(v)).sum() for g, v in zip(gt, vs, strict=True))
    he = ember.autograd.grad(se, xs, allow_unused=True)
    ht = torch.autograd.grad(st, ts, allow_unused=True)
    for a, b in zip(ge, gt, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-10)
    for a, b in zip(he, ht, strict=True):
        if b is None:
            assert a is None or not np.any(a.numpy())
            continue
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(
    "shapes",
    [
        ((2, 1, 2, 3), (4, 3, 2)),
        ((5, 2, 3), (3, 4)),
        ((3,), (2, 3, 4)),
        ((2, 4, 3), (3,)),
        ((3,), (3,)),
    ],
)
def test_matmul_double_backward_parity(shapes):
    _hvp_parity(lambda L, a, b: L.matmul(a, b) ** 2, lambda L, a, b: L.matmul(a, b) ** 2, shapes)


@pytest.mark.parametrize(
    "eq,shapes",
    [
        ("ii->i", ((3, 3),)),
        ("iij,jk->ik", ((3, 3, 2), (2, 4))),
        ("ij,ij->", ((2, 3), (2, 3))),
        ("...ij,...jk", ((5, 2, 3), (3, 4))),
        ("ij->j", ((2, 3),)),
        ("i,i->", ((1,), (3,))),
        ("bij,bjk->bik", ((5, 2, 3), (1, 3, 4))),
    ],
)
def test_einsum_double_backward_parity(eq, shapes):
    fn = lambda L, *xs: L.einsum(eq, *xs) ** 2  # noqa: E731
    _hvp_parity(fn, fn, shapes)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_double_backward_parity(op):
    fn = lambda L, x: getattr(L, op)(x, -2) * 1.5  # noqa: E731
    _hvp_parity(fn, fn, [(3, 4, 2)])


def test_addmm_beta_zero_ignores_nan_but_keeps_zero_grad():
    i = ember.full((2, 2), float("nan"), dtype=ember.float64, requires_grad=True)
    a = _t(2, 3, requires_grad=True)
    b = _t(3, 2)
    y = ember.addmm(i, a, b, beta=0)
    np.testing.assert_allclose(y.detach().numpy(), a.detach().numpy() @ b.numpy(), rtol=1e-15)
    gi, ga = ember.autograd.grad(y.sum(), [i, a])
    np.testing.assert_array_equal(gi.numpy(), np.zeros((2, 2)))


def test_einsum_forms_match_torch():
    torch = _torch()
    cases = [
        ("Ba,ab", (3, 2), (2, 5)),
        ("bA,Ab", (3, 2), (2, 3)),
        ("...ij->ij", (5, 2, 3)),
        ("i...->...", (5, 2, 3)),
        ("...,...->...", (5, 2, 3), (3,)),
        ("...->", (5, 2, 3)),
        (" i j , j k -> i k ", (2, 3), (3, 4)),
        ("...i,...i->...", (5, 1, 3), (4, 3)),
        ("ji", (2, 3)),
        ("i->", (0,)),
        (",->", (), ()),
    ]
    for eq, *shapes in cases:
        xs = [_t(*s) for s in shapes]
        got = ember.einsum(eq, *xs)
        want = torch.einsum(eq, *[_to_torch(torch, x) for x in xs])
        assert tuple(got.shape) == tuple(want.shape), eq
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12, err_msg=eq)
    a, b = _t(2, 3), _t(3, 4)
    ta, tb = _to_torch(torch, a), _to_torch(torch, b)
    got = ember.einsum(a, [0, Ellipsis], b, [Ellipsis, 2])
    want = torch.einsum(ta, [0, Ellipsis], tb, [Ellipsis, 2])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_einsum_output_owns_its_memory():
    x = _t(2, 3)
    y = ember.einsum("ij->ji", x)
    d = ember.einsum("ii->i", _t(3, 3))
    before = x.numpy().copy()
    y.fill_(100.0)
    d.fill_(100.0)
    np.testing.assert_array_equal(x.numpy(), before)


def test_tensordot_dims_forms_agree():
    a, b = _t(3, 4, 5), _t(4, 5, 2)
    want = np.tensordot(a.numpy(), b.numpy(), 2)
    for dims in (
        2,
        ([1, 2], [0, 1]),
        [[-2, -1], [0, 1]],
        ember.tensor(2),
        ember.tensor([[1, 2], [0, 1]]),
    ):
        np.testing.assert_allclose(ember.tensordot(a, b, dims=dims).numpy(), want, rtol=1e-12)


def test_multi_dot_and_chain_matmul():
    ms = [_t(6, 2), _t(2, 5), _t(5, 1), _t(1, 4)]
    want = ms[0].numpy() @ ms[1].numpy() @ ms[2].numpy() @ ms[3].numpy()
    np.testing.assert_allclose(multi_dot(ms).numpy(), want, rtol=1e-12)
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        np.testing.assert_allclose(ember.chain_matmul(*ms).numpy(), want, rtol=1e-12)
    with pytest.raises(RuntimeError, match="expected at least 2 tensors but got 1"):
        multi_dot(ms[:1])
    with pytest.raises(RuntimeError, match="tensor 1 must be 2D but got 1D"):
        multi_dot([ms[0], _t(2), ms[1]])
    with pytest.raises(RuntimeError, match="tensors 0 and 1 with shapes"):
        multi_dot([ms[0], ms[2]])
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="Tensor dimension is 1"):
        ember.chain_matmul(_t(3), _t(3))


def test_cross_without_dim_warns_and_uses_first_size3_dim():
    a, b = _t(3, 4), _t(3, 4)
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        r = ember.cross(a, b)
    np.testing.assert_allclose(r.numpy(), np.cross(a.numpy(), b.numpy(), axis=0), rtol=1e-12)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="no dimension of size 3"):
        ember.cross(_t(4, 2), _t(4, 2))


# ---- operators, out=, in-place, meta ---------------------------------------------------------
def test_matmul_operators():
    a, b = _t(2, 3), _t(3, 4)
    np.testing.assert_array_equal((a @ b).numpy(), a.numpy() @ b.numpy())
    np.testing.assert_array_equal(a.__rmatmul__(_t(5, 2)).shape, (5, 3))
    assert a.__matmul__([1.0]) is NotImplemented
    assert a.__rmatmul__("x") is NotImplemented


def test_matmul_2d_float32_is_plain_blas():
    a = RNG.standard_normal((64, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 48)).astype(np.float32)
    r = ember.from_numpy(a) @ ember.from_numpy(b)
    np.testing.assert_array_equal(r.numpy(), a @ b)
    x = RNG.standard_normal((4, 5, 32)).astype(np.float32)
    r3 = ember.from_numpy(x) @ ember.from_numpy(b)
    np.testing.assert_allclose(r3.numpy(), x @ b, rtol=1e-5, atol=1e-5)


def test_out_argument():
    a, b = _t(2, 3), _t(3, 4)
    out = ember.empty(2, 4, dtype=ember.float64)
    r = ember.matmul(a, b, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), a.numpy() @ b.numpy(), rtol=1e-15)


@pytest.mark.parametrize(
    "method,args",
    [
        ("addmm_", ((2, 3), (3, 4))),
        ("addmv_", ((2, 3), (3,))),
        ("addr_", ((2,), (4,))),
        ("baddbmm_", ((1, 2, 3), (1, 3, 4))),
        ("addbmm_", ((5, 2, 3), (5, 3, 4))),
    ],
)
def test_inplace_fused_forms(method, args):
    shape = {
        "addmm_": (2, 4),
        "addmv_": (2,),
        "addr_": (2, 4),
        "baddbmm_": (1, 2, 4),
        "addbmm_": (2, 4),
    }[method]
    x = _t(*shape)
    before = x.numpy().copy()
    ops = [_t(*s) for s in args]
    v = x._version
    r = getattr(x, method)(*ops, beta=2.0, alpha=0.5)
    assert r is x and x._version == v + 1
    want = getattr(ember, method[:-1])(ember.tensor(before), *ops, beta=2.0, alpha=0.5)
    np.testing.assert_allclose(x.numpy(), want.numpy(), rtol=1e-14)


def test_inplace_on_leaf_requiring_grad_raises():
    x = _t(2, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.addmm_(_t(2, 3), _t(3, 4))


def test_modifying_saved_operand_is_detected():
    a = _t(2, 3, requires_grad=True)
    b = _t(3, 4)
    y = (a @ b).sum()
    b.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize(
    "fn,shape",
    [
        (lambda x, y: x @ y, (7, 2, 5)),
        (lambda x, y: ember.einsum("bij,bjk->bik", x, y), (7, 2, 5)),
        (lambda x, y: ember.einsum("...ij,...kj", x, x), (7, 2, 2)),
        (lambda x, y: ember.tensordot(x, y, dims=([0, 2], [0, 1])), (2, 5)),
        (lambda x, y: ember.softmax(x, -1), (7, 2, 3)),
        (lambda x, y: ember.baddbmm(ember.zeros(2, 5, device="meta"), x, y), (7, 2, 5)),
        (lambda x, y: ember.kron(x, y), (49, 6, 15)),
    ],
)
def test_meta_shapes(fn, shape):
    x = ember.zeros(7, 2, 3, device="meta", requires_grad=True)
    y = ember.zeros(7, 3, 5, device="meta")
    r = fn(x, y)
    assert r.device.type == "meta" and tuple(r.shape) == shape and r.dtype == ember.float32


def test_softmax_is_not_composite_and_sums_to_one_in_float32():
    x = ember.tensor(RNG.standard_normal((4, 1000)).astype(np.float32) * 30)
    y = ember.softmax(x, 1)
    np.testing.assert_allclose(y.sum(1).numpy(), np.ones(4), rtol=1e-5)


def test_no_warnings_from_plain_calls():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.matmul(_t(2, 3), _t(3))
        ember.einsum("ij,jk", _t(2, 3), _t(3, 4))
        ember.cross(_t(2, 3), _t(2, 3), dim=1)


# ---- cholesky and solve_triangular ---------------------------------------------------------------
def _spd(rng, *batch, n=4):
    m = rng.standard_normal((*batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("batch", [(), (3,), (2, 3)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_values_and_gradients_match_torch(batch, upper):
    torch = _torch()
    a = _spd(np.random.default_rng(0), *batch)
    g = np.random.default_rng(1).standard_normal(a.shape)
    ea = ember.tensor(a, requires_grad=True)
    ta = torch.tensor(a, requires_grad=True)
    el, tl = ember.linalg.cholesky(ea, upper=upper), torch.linalg.cholesky(ta, upper=upper)
    np.testing.assert_allclose(el.detach().numpy(), tl.detach().numpy(), rtol=1e-12, atol=1e-12)
    (el * ember.tensor(g)).sum().backward()
    (tl * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular_values_and_gradients_match_torch(upper, left, unitriangular):
    torch = _torch()
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 1, 3, 3)) + 3 * np.eye(3)  # both triangles set: one is read
    b = rng.standard_normal((3, 3, 2) if left else (3, 2, 3))  # batch broadcasts against a
    g = rng.standard_normal((2, 3, 3, 2) if left else (2, 3, 2, 3))
    kw = dict(upper=upper, left=left, unitriangular=unitriangular)
    ea, eb = ember.tensor(a, requires_grad=True), ember.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ex, tx = (
        ember.linalg.solve_triangular(ea, eb, **kw),
        torch.linalg.solve_triangular(ta, tb, **kw),
    )
    np.testing.assert_allclose(ex.detach().numpy(), tx.detach().numpy(), rtol=1e-11, atol=1e-12)
    (ex * ember.tensor(g)).sum().backward()
    (tx * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(eb.grad.numpy(), tb.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_cholesky_and_solve_triangular_pass_gradgradcheck():
    rng = np.random.default_rng(3)
    a = ember.tensor(_spd(rng, n=3), requires_grad=True)
    t = ember.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    b = ember.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    sym = lambda x: ember.linalg.cholesky((x + x.mT) / 2)  # noqa: E731
    assert ember.autograd.gradcheck(sym, (a,))
    assert ember.autograd.gradgradcheck(sym, (a,))
    solve = lambda x, y: ember.linalg.solve_triangular(x, y, upper=False)  # noqa: E731
    assert ember.autograd.gradcheck(solve, (t, b))
    assert ember.autograd.gradgradcheck(solve, (t, b))


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.linalg.cholesky(lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
        lambda lib: lib.linalg.cholesky(
            lib.stack([lib.eye(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])])
        ),
        lambda lib: lib.linalg.cholesky(lib.ones(2, 3)),
        lambda lib: lib.linalg.cholesky(lib.ones(2)),
        lambda lib: lib.linalg.cholesky(lib.ones(2, 2, dtype=lib.long)),
        lambda lib: lib.linalg.solve_triangular(lib.eye(2), lib.ones(3, 1), upper=True),
        lambda lib: lib.linalg.solve_triangular(lib.eye(2), lib.ones(2), upper=True),
    ],
)
def test_errors_match_torch(call):
    torch = _torch()
    with pytest.raises(Exception) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(ember)
    assert str(got.value) == str(expected.value)
    assert isinstance(got.value, ember.linalg.LinAlgError) == isinstance(
        expected.value, torch.linalg.LinAlgError
    )


def test_solve_triangular_result_dtype_is_as_torchs():
    torch = _torch()
    for da, db in (("float32", "float64"), ("float64", "float32")):
        e = ember.linalg.solve_triangular(
            ember.eye(2, dtype=getattr(ember, da)),
            ember.ones(2, 1, dtype=getattr(ember, db)),
            upper=True,
        )
        t = torch.linalg.solve_triangular(
            torch.eye(2, dtype=getattr(torch, da)),
            torch.ones(2, 1, dtype=getattr(torch, db)),
            upper=True,
        )
        assert str(e.dtype)[6:] == str(t.dtype)[6:]
