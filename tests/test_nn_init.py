"""ember.nn.init: exact parity with torch for the deterministic functions (gains, fans, constant,
eye, dirac) and errors; distributions, bounds, determinism and meta behaviour for the random ones
(ember's random streams are its own, so their numbers are not compared with torch's)."""

from __future__ import annotations

import inspect
import math
import tracemalloc

import numpy as np
import pytest

import ember
import ember.nn.init as init

try:
    import torch
    import torch.nn.init as tinit
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

RANDOM = [
    "uniform_",
    "normal_",
    "trunc_normal_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
]
ALL_FILLS = RANDOM + ["constant_", "ones_", "zeros_", "eye_", "dirac_"]
EXTRA_ARGS = {"constant_": (0.5,), "sparse_": (0.3,)}


def _np(t):
    return t.detach().numpy()


# ---- API surface ---------------------------------------------------------------------------------
@needs_torch
def test_public_names_match_torch():
    # ember adds the versioned-default API (ember.nn._default_init) to torch's names
    extra = ["get_default_version", "set_default_version", "default_version"]
    assert sorted(init.__all__) == sorted(tinit.__all__ + extra)
    for name in tinit.__all__ + [
        "_calculate_fan_in_and_fan_out",
        "_calculate_correct_fan",
        "_no_grad_uniform_",
        "_no_grad_normal_",
        "_no_grad_trunc_normal_",
        "_no_grad_fill_",
        "_no_grad_zero_",
    ]:
        assert callable(getattr(init, name)), name


@needs_torch
@pytest.mark.parametrize(
    "name",
    ALL_FILLS + ["calculate_gain", "_calculate_fan_in_and_fan_out", "_calculate_correct_fan"],
)
def test_signatures_match_torch(name):
    ours = inspect.signature(getattr(init, name)).parameters.values()
    theirs = inspect.signature(getattr(tinit, name)).parameters.values()
    assert [(p.name, p.default, p.kind) for p in ours] == [
        (p.name, p.default, p.kind) for p in theirs
    ]


# ---- gains and fans: exact parity ----------------------------------------------------------------
GAINS = [
    ("linear", None),
    ("conv1d", None),
    ("conv2d", None),
    ("conv3d", None),
    ("conv_transpose1d", None),
    ("conv_transpose2d", None),
    ("conv_transpose3d", None),
    ("sigmoid", None),
    ("tanh", None),
    ("relu", None),
    ("leaky_relu", None),
    ("leaky_relu", 0.2),
    ("leaky_relu", 3),
    ("leaky_relu", math.sqrt(5)),
    ("selu", None),
    ("tanh", 7),
]


@needs_torch
@pytest.mark.parametrize("nonlinearity,param", GAINS)
def test_calculate_gain_matches_torch(nonlinearity, param):
    ours = init.calculate_gain(nonlinearity, param)
    theirs = tinit.calculate_gain(nonlinearity, param)
    assert ours == theirs and type(ours) is type(theirs)


def test_calculate_gain_values():
    assert init.calculate_gain("linear") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01**2))
    assert init.calculate_gain("selu") == 0.75


@pytest.mark.parametrize(
    "args,msg",
    [
        (("leaky_relu", True), "negative_slope True not a valid number"),
        (("leaky_relu", "0.1"), "negative_slope 0.1 not a valid number"),
        (("foo",), "Unsupported nonlinearity foo"),
        (("ReLU",), "Unsupported nonlinearity ReLU"),
    ],
)
def test_calculate_gain_errors(args, msg):
    with pytest.raises(ValueError, match=f"^{msg}$"):
        init.calculate_gain(*args)


FAN_SHAPES = [(3, 4), (4, 3), (5, 2, 3), (6, 3, 2, 2), (2, 3, 1, 4, 5), (0, 4), (3, 0, 2)]


@needs_torch
@pytest.mark.parametrize("shape", FAN_SHAPES, ids=str)
def test_fans_match_torch(shape):
    e, t = ember.empty(*shape), torch.empty(*shape)
    assert init._calculate_fan_in_and_fan_out(e) == tinit._calculate_fan_in_and_fan_out(t)
    for mode in ("fan_in", "fan_out", "FAN_IN", "Fan_Out"):
        assert init._calculate_correct_fan(e, mode) == tinit._calculate_correct_fan(t, mode)


def test_fans_of_a_linear_weight():
    assert init._calculate_fan_in_and_fan_out(ember.empty(3, 4)) == (4, 3)
    assert init._calculate_fan_in_and_fan_out(ember.empty(8, 4, 3, 3)) == (36, 72)
    assert init._calculate_fan_in_and_fan_out(ember.empty(8, 4, 3, 3, device="meta")) == (36, 72)


@pytest.mark.parametrize("shape", [(), (5,)], ids=["0d", "1d"])
def test_fans_need_two_dims(shape):
    msg = "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
    with pytest.raises(ValueError, match=f"^{msg}$"):
        init._calculate_fan_in_and_fan_out(ember.empty(shape))
    for fn in ("xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"):
        with pytest.raises(ValueError, match=msg):
            getattr(init, fn)(ember.empty(shape))


def test_correct_fan_rejects_unknown_modes():
    with pytest.raises(
        ValueError,
        match=r"^Mode fan_avg not supported, please use one of "
        r"\['fan_in', 'fan_out'\]$",
    ):
        init._calculate_correct_fan(ember.empty(3, 4), "fan_avg")
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_normal_(ember.empty(3, 4), mode="fan_avg")


# ---- deterministic fills: exact parity -----------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), ()], ids=str)
def test_constant_ones_zeros_match_torch(shape, dtype):
    for fn, args in (("constant_", (0.3,)), ("constant_", (-2,)), ("ones_", ()), ("zeros_", ())):
        e = getattr(init, fn)(ember.empty(shape, dtype=getattr(ember, dtype)), *args)
        t = getattr(tinit, fn)(torch.empty(shape, dtype=getattr(torch, dtype)), *args)
        assert str(e.dtype).split(".")[-1] == dtype
        np.testing.assert_array_equal(_np(e), t.numpy())


@needs_torch
@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (0, 3), (1, 1)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_eye_matches_torch(shape, dtype):
    e = init.eye_(ember.empty(*shape, dtype=getattr(ember, dtype)))
    t = tinit.eye_(torch.empty(*shape, dtype=getattr(torch, dtype)))
    np.testing.assert_array_equal(_np(e), t.numpy())


@needs_torch
@pytest.mark.parametrize(
    "shape,groups",
    [
        ((4, 2, 3), 1),
        ((2, 4, 3), 1),
        ((4, 2, 3, 3), 2),
        ((6, 3, 2, 4), 3),
        ((4, 4, 3, 3, 3), 1),
        ((4, 2, 1, 5, 2), 2),
        ((6, 1, 3), 3),
        ((3, 5, 4, 4), 1),
    ],
    ids=str,
)
def test_dirac_matches_torch(shape, groups):
    e = init.dirac_(ember.randn(*shape), groups)
    t = tinit.dirac_(torch.randn(*shape), groups)
    np.testing.assert_array_equal(_np(e), t.numpy())


@pytest.mark.parametrize(
    "fn,shape,msg",
    [
        ("eye_", (3,), "Only tensors with 2 dimensions are supported"),
        ("eye_", (2, 2, 2), "Only tensors with 2 dimensions are supported"),
        ("dirac_", (3, 3), "Only tensors with 3, 4, or 5 dimensions are supported"),
        ("dirac_", (1, 1, 1, 1, 1, 1), "Only tensors with 3, 4, or 5 dimensions are supported"),
        ("orthogonal_", (3,), "Only tensors with 2 or more dimensions are supported"),
        ("sparse_", (3,), "Only tensors with 2 dimensions are supported"),
        ("sparse_", (3, 3, 3), "Only tensors with 2 dimensions are supported"),
    ],
)
def test_dimension_errors(fn, shape, msg):
    args = (0.5,) if fn == "sparse_" else ()
    with pytest.raises(ValueError, match=f"^{msg}$"):
        getattr(init, fn)(ember.empty(*shape), *args)
    with pytest.raises(ValueError, match=f"^{msg}$"):  # checked on meta tensors too
        getattr(init, fn)(ember.empty(*shape, device="meta"), *args)


def test_dirac_groups_must_divide_dim0():
    with pytest.raises(ValueError, match="^dim 0 must be divisible by groups$"):
        init.dirac_(ember.empty(4, 2, 3), 3)


# ---- every fill: in place, no graph, returns its tensor ------------------------------------------
@pytest.mark.parametrize("fn", ALL_FILLS)
def test_fills_parameters_in_place_without_recording(fn):
    p = ember.nn.Parameter(
        ember.empty(4, 3, 2)
        if fn == "dirac_"
        else ember.empty(4, 3)
        if fn in ("eye_", "sparse_")
        else ember.empty(4, 3, 2)
    )
    data_before = p.data
    version = p._version
    out = getattr(init, fn)(p, *EXTRA_ARGS.get(fn, ()))
    assert out is p
    assert p.grad_fn is None and p.requires_grad and p.is_leaf
    assert p._version > version
    assert np.shares_memory(_np(p), _np(data_before))
    assert np.isfinite(_np(p)).all()


@pytest.mark.parametrize("fn", ALL_FILLS)
def test_fills_work_under_enable_grad_and_no_grad(fn):
    shape = (4, 3, 2) if fn == "dirac_" else (4, 3)
    for ctx in (ember.enable_grad, ember.no_grad):
        p = ember.nn.Parameter(ember.empty(*shape))
        with ctx():
            getattr(init, fn)(p, *EXTRA_ARGS.get(fn, ()))
        assert p.grad_fn is None


@pytest.mark.parametrize("fn", ALL_FILLS)
def test_meta_tensors_allocate_nothing(fn):
    shape = (20_000, 20_000, 1) if fn == "dirac_" else (20_000, 20_000)  # 1.6 GB if real
    t = ember.nn.Parameter(ember.empty(*shape, device="meta"))
    tracemalloc.start()
    try:
        out = getattr(init, fn)(t, *EXTRA_ARGS.get(fn, ()))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out is t and t.is_meta and t.shape == shape
    assert peak < 1_000_000


# ---- random fills: distributions and bounds ------------------------------------------------------
def test_uniform_bounds_and_moments():
    ember.manual_seed(0)
    w = _np(init.uniform_(ember.empty(200, 100), -2.0, 3.0))
    assert w.min() >= -2.0 and w.max() < 3.0
    assert abs(w.mean() - 0.5) < 0.05 and abs(w.std() - 5 / math.sqrt(12)) < 0.05
    w = _np(init.uniform_(ember.empty(10_000)))  # default U(0, 1)
    assert w.min() >= 0 and w.max() < 1 and abs(w.mean() - 0.5) < 0.02


def test_normal_moments():
    ember.manual_seed(0)
    w = _np(init.normal_(ember.empty(200, 100), 1.5, 0.5))
    assert abs(w.mean() - 1.5) < 0.02 and abs(w.std() - 0.5) < 0.02
    w = _np(init.normal_(ember.empty(20_000)))
    assert abs(w.mean()) < 0.03 and abs(w.std() - 1) < 0.03


@pytest.mark.parametrize("gain", [1.0, 2.5])
def test_xavier(gain):
    ember.manual_seed(0)
    shape = (60, 40, 3)  # fan_in 120, fan_out 180
    a = gain * math.sqrt(6.0 / 300)
    w = _np(init.xavier_uniform_(ember.empty(*shape), gain=gain))
    assert np.abs(w).max() <= a and np.abs(w).max() > 0.98 * a
    assert abs(w.std() - a / math.sqrt(3)) < 0.03 * a
    w = _np(init.xavier_normal_(ember.empty(*shape), gain))
    assert abs(w.std() - gain * math.sqrt(2.0 / 300)) < 0.03 * gain * math.sqrt(2.0 / 300)


@pytest.mark.parametrize(
    "a,mode,nonlinearity",
    [
        (0, "fan_in", "leaky_relu"),
        (math.sqrt(5), "fan_in", "leaky_relu"),
        (0, "fan_out", "relu"),
        (0.2, "fan_in", "leaky_relu"),
        (0, "fan_in", "tanh"),
        (0, "FAN_OUT", "linear"),
    ],
)
def test_kaiming(a, mode, nonlinearity):
    ember.manual_seed(0)
    shape = (80, 50, 3)
    fan = 150 if mode.lower() == "fan_in" else 240
    std = init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    w = _np(init.kaiming_uniform_(ember.empty(*shape), a, mode, nonlinearity))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert abs(w.std() - std) < 0.03 * std
    w = _np(init.kaiming_normal_(ember.empty(*shape), a=a, mode=mode, nonlinearity=nonlinearity))
    assert abs(w.std() - std) < 0.03 * std and abs(w.mean()) < 0.05 * std


@pytest.mark.parametrize("fn", ["kaiming_uniform_", "kaiming_normal_"])
def test_kaiming_zero_element_warns_and_leaves_tensor(fn):
    t = ember.empty(0, 3)
    with pytest.warns(UserWarning, match="^Initializing zero-element tensors is a no-op$") as rec:
        assert getattr(init, fn)(t) is t
    assert rec[0].filename == __file__


def _truncated_moments(mean, std, a, b):
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2  # noqa: E731
    z = cdf(beta) - cdf(alpha)
    m = mean + std * (pdf(alpha) - pdf(beta)) / z
    var = std**2 * (
        1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - ((pdf(alpha) - pdf(beta)) / z) ** 2
    )
    return m, math.sqrt(var)


@pytest.mark.parametrize(
    "mean,std,a,b",
    [
        (0.0, 1.0, -2.0, 2.0),  # defaults: most of the mass inside
        (0.0, 0.02, -0.04, 0.04),  # ViT-style
        (0.0, 1.0, 1.0, 3.0),  # one tail: the uniform-proposal path
        (0.5, 2.0, -0.1, 0.2),  # a narrow window around the mean
        (0.0, 1.0, 1.8, 4.0),  # a tail, 4% acceptance
    ],
)
def test_trunc_normal_bounds_and_moments(mean, std, a, b):
    ember.manual_seed(0)
    w = _np(init.trunc_normal_(ember.empty(200, 100), mean, std, a, b))
    assert w.min() >= a and w.max() <= b
    m, s = _truncated_moments(mean, std, a, b)
    assert abs(w.mean() - m) < 0.03 * (b - a)
    assert abs(w.std() - s) < 0.05 * s


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_trunc_normal_dtypes(dtype):
    ember.manual_seed(1)
    w = init.trunc_normal_(ember.empty(5000, dtype=getattr(ember, dtype)), a=-1.0, b=1.5)
    assert str(w.dtype) == f"ember.{dtype}"
    v = _np(w).astype(np.float64)
    assert v.min() >= -1.0 and v.max() <= 1.5


def test_trunc_normal_warns_when_mean_is_far_from_the_window():
    with pytest.warns(
        UserWarning,
        match=r"mean is more than 2 std from \[a, b\] in "
        r"nn.init.trunc_normal_",
    ) as rec:
        w = init.trunc_normal_(ember.empty(100), mean=10.0)
    assert rec[0].filename == __file__
    assert (_np(w) >= -2).all() and (_np(w) <= 2).all()


@pytest.mark.parametrize(
    "shape,gain",
    [((3, 5), 1), ((5, 3), 1), ((4, 4), 2.0), ((6, 2, 3), 1), ((2, 3, 2, 2), 0.5)],
    ids=str,
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_orthogonal(shape, gain, dtype):
    w = init.orthogonal_(ember.empty(*shape, dtype=getattr(ember, dtype)), gain=gain)
    assert str(w.dtype) == f"ember.{dtype}"
    m = _np(w).reshape(shape[0], -1).astype(np.float64) / gain
    tol = 1e-5 if dtype == "float32" else 1e-12
    small = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(small, np.eye(min(m.shape)), atol=tol)


def test_orthogonal_is_haar_distributed():
    # With the sign fix, the diagonal of Q has mean 0; without it, it is biased positive.
    ember.manual_seed(0)
    diag = np.concatenate([np.diag(_np(init.orthogonal_(ember.empty(4, 4)))) for _ in range(500)])
    assert abs(diag.mean()) < 0.05


def test_orthogonal_empty_and_half():
    t = ember.empty(0, 3)
    assert init.orthogonal_(t) is t
    with pytest.raises(NotImplementedError, match="geqrf_cpu"):
        init.orthogonal_(ember.empty(3, 3, dtype=ember.float16))
    with pytest.raises(NotImplementedError, match="normal_kernel_cpu"):
        init.orthogonal_(ember.empty(3, 3, dtype=ember.int64))


@pytest.mark.parametrize(
    "sparsity,rows,cols", [(0.1, 10, 4), (0.5, 7, 3), (0.0, 5, 2), (1.0, 4, 3), (0.3, 1, 5)]
)
def test_sparse(sparsity, rows, cols):
    ember.manual_seed(0)
    w = _np(init.sparse_(ember.empty(rows, cols), sparsity, std=0.5))
    zeros = (w == 0).sum(axis=0)
    assert (zeros == math.ceil(sparsity * rows)).all()
    assert (w != 0).sum() == (rows - math.ceil(sparsity * rows)) * cols


def test_sparse_zero_positions_are_random_per_column():
    ember.manual_seed(0)
    w = _np(init.sparse_(ember.empty(50, 40), 0.5))
    patterns = {tuple(np.flatnonzero(w[:, j] == 0)) for j in range(40)}
    assert len(patterns) == 40
    counts = (w == 0).sum(axis=1)  # each row is zeroed in about half of the columns
    assert counts.min() > 5 and counts.max() < 35


@pytest.mark.parametrize("fn", ["uniform_", "normal_", "kaiming_uniform_"])
def test_random_fills_reject_integer_tensors(fn):
    with pytest.raises(NotImplementedError):
        getattr(init, fn)(ember.empty(3, 4, dtype=ember.int64))


# ---- determinism ---------------------------------------------------------------------------------
def _draw(fn, **kw):
    shape = (6, 5)
    return _np(getattr(init, fn)(ember.empty(*shape), *EXTRA_ARGS.get(fn, ()), **kw))


@pytest.mark.parametrize("fn", RANDOM)
def test_manual_seed_reproduces(fn):
    ember.manual_seed(7)
    a = _draw(fn)
    ember.manual_seed(7)
    b = _draw(fn)
    c = _draw(fn)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("fn", RANDOM)
def test_generator_argument(fn):
    a = _draw(fn, generator=ember.Generator().manual_seed(3))
    ember.manual_seed(0)
    state = ember.get_rng_state()
    b = _draw(fn, generator=ember.Generator().manual_seed(3))
    np.testing.assert_array_equal(a, b)
    # the default generator was not used
    np.testing.assert_array_equal(ember.get_rng_state().numpy(), state.numpy())
    c = _draw(fn, generator=ember.Generator().manual_seed(4))
    assert not np.array_equal(a, c)


# ---- deprecated aliases --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "old",
    [
        "uniform",
        "normal",
        "constant",
        "eye",
        "dirac",
        "xavier_uniform",
        "xavier_normal",
        "kaiming_uniform",
        "kaiming_normal",
        "orthogonal",
        "sparse",
    ],
)
def test_deprecated_aliases_warn_and_work(old):
    shape = (3, 4, 2) if old == "dirac" else (3, 4)
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(old, ())
    t = ember.empty(*shape)
    with pytest.warns(
        FutureWarning, match=f"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`."
    ) as rec:
        assert getattr(init, old)(t, *args) is t
    assert rec[0].filename == __file__
    assert getattr(init, old).__name__ == old
