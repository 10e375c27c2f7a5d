"""Pooling: F.max_pool/avg_pool 1-3d, adaptive pooling, max_unpool, lp_pool and their modules,
against torch (outputs, indices, input gradients, output sizes, errors, reprs), plus gradcheck
and double backward."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as EF
from ember.autograd import gradcheck, gradgradcheck

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

RNG = np.random.default_rng(0)


def _data(shape, ties=False, dtype=np.float64):
    a = RNG.standard_normal(shape)
    if ties:  # after a ReLU most windows tie at 0; rounding makes ties among the rest too
        a = np.round(np.maximum(a, 0), 1)
    return a.astype(dtype)


def _both(a, grad=True):
    return ember.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def _check(ef, tf, a, rtol=1e-9, atol=1e-12):
    """Output (and indices) equal, and the input gradient for a random output gradient."""
    xe, xt = _both(a)
    ye, yt = ef(xe), tf(xt)
    if isinstance(yt, tuple):
        assert ye[1].dtype == ember.int64
        np.testing.assert_array_equal(ye[1].numpy(), yt[1].numpy())
        ye, yt = ye[0], yt[0]
    assert tuple(ye.shape) == tuple(yt.shape)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    g = RNG.standard_normal(tuple(yt.shape)).astype(a.dtype)
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=atol)


# ---- max pooling ------------------------------------------------------------------------------
MAX2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=1),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, dilation=2),
    dict(kernel_size=2, stride=2, ceil_mode=True),
    dict(kernel_size=2, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=3, padding=1, ceil_mode=True),
    dict(kernel_size=4, stride=3, padding=2, dilation=1, ceil_mode=True),
    dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 1), dilation=(2, 1), ceil_mode=True),
    dict(kernel_size=1),
    dict(kernel_size=(1, 4), stride=(2, 1)),
    dict(kernel_size=5, stride=1, padding=2),
]


@needs_torch
@pytest.mark.parametrize("kw", MAX2D)
@pytest.mark.parametrize("ties", [False, True])
def test_max_pool2d_matches_torch(kw, ties):
    a = _data((2, 3, 7, 8), ties)
    _check(
        lambda x: EF.max_pool2d(x, **kw, return_indices=True),
        lambda x: TF.max_pool2d(x, **kw, return_indices=True),
        a,
    )


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=2),
        dict(kernel_size=3, stride=1, dilation=2, ceil_mode=True),
        dict(kernel_size=(2, 1, 3), stride=(1, 2, 2), padding=(1, 0, 1), ceil_mode=True),
    ],
)
@pytest.mark.parametrize("ties", [False, True])
def test_max_pool3d_matches_torch(kw, ties):
    a = _data((2, 2, 5, 6, 7), ties)
    _check(
        lambda x: EF.max_pool3d(x, **kw, return_indices=True),
        lambda x: TF.max_pool3d(x, **kw, return_indices=True),
        a,
    )
    _check(lambda x: EF.max_pool3d(x, **kw), lambda x: TF.max_pool3d(x, **kw), a[0])  # unbatched


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=2),
        dict(kernel_size=3, dilation=2, ceil_mode=True, stride=2),
    ],
)
def test_max_pool1d_matches_torch(kw):
    for shape in ((2, 3, 11), (3, 11)):
        a = _data(shape, ties=True)
        _check(
            lambda x: EF.max_pool1d(x, **kw, return_indices=True),
            lambda x: TF.max_pool1d(x, **kw, return_indices=True),
            a,
        )


@needs_torch
def test_with_indices_names_and_unbatched_2d():
    a = _data((3, 6, 6), ties=True)
    _check(
        lambda x: EF.max_pool2d_with_indices(x, 2), lambda x: TF.max_pool2d_with_indices(x, 2), a
    )
    _check(
        lambda x: EF.max_pool1d_with_indices(x, 2), lambda x: TF.max_pool1d_with_indices(x, 2), a[0]
    )
    _check(
        lambda x: EF.max_pool3d_with_indices(x, 2),
        lambda x: TF.max_pool3d_with_indices(x, 2),
        a[None],
    )
    y = EF.max_pool2d(ember.tensor(a), 2)
    assert isinstance(y, ember.Tensor) and y.shape == (3, 3, 3)


@needs_torch
def test_fast_path_float32_cnn_shape():
    # the cnn benchmark's case: 2x2 stride 2 after a ReLU (ties at 0)
    a = _data((4, 8, 16, 16), ties=True, dtype=np.float32)
    _check(
        lambda x: EF.max_pool2d(x, 2, 2, return_indices=True),
        lambda x: TF.max_pool2d(x, 2, 2, return_indices=True),
        a,
        rtol=1e-6,
        atol=1e-7,
    )
    a = _data((4, 8, 17, 15), ties=True, dtype=np.float32)  # odd sizes: the last row is dropped
    _check(lambda x: EF.max_pool2d(x, 2), lambda x: TF.max_pool2d(x, 2), a, rtol=1e-6, atol=1e-7)


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2, stride=1, padding=1),
        dict(kernel_size=3, stride=2, padding=1, dilation=2),
        dict(kernel_size=2),
    ],
)
def test_max_pool_nan_and_minus_inf_like_torch(kw):
    # NOTE: torch takes a NaN as the maximum, the last NaN of a window winning; an all -inf
    # window reports its first element (never the padding)
    a = _data((1, 2, 6, 6))
    a[0, 0, 1, 1] = a[0, 0, 2, 1] = a[0, 0, 1, 4] = np.nan
    a[0, 1] = -np.inf
    a[0, 1, 3, 3] = 1.0
    xe, xt = _both(a)
    ye, ie = EF.max_pool2d(xe, **kw, return_indices=True)
    yt, it = TF.max_pool2d(xt, **kw, return_indices=True)
    np.testing.assert_array_equal(ie.numpy(), it.numpy())
    np.testing.assert_array_equal(ye.detach().numpy(), yt.detach().numpy())
    ye.sum().backward()
    yt.sum().backward()
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


@needs_torch
def test_max_pool_non_finite_output_gradient_stays_in_its_window():
    a = _data((1, 1, 4, 4))
    g = np.ones((1, 1, 2, 2))
    g[0, 0, 0, 0] = np.inf
    for kw in (dict(kernel_size=2), dict(kernel_size=2, stride=1, padding=1)):
        xe, xt = _both(a)
        ye, yt = EF.max_pool2d(xe, **kw), TF.max_pool2d(xt, **kw)
        g = np.ones(tuple(yt.shape))
        g.flat[0] = np.inf
        ye.backward(ember.tensor(g))
        yt.backward(torch.tensor(g))
        np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


@needs_torch
def test_max_pool_integer_input():
    a = RNG.integers(-5, 5, (2, 3, 6, 7))
    ye, ie = EF.max_pool2d(ember.tensor(a), 3, 2, 1, return_indices=True)
    yt, it = TF.max_pool2d(torch.tensor(a), 3, 2, 1, return_indices=True)
    assert ye.dtype == ember.int64
    np.testing.assert_array_equal(ye.numpy(), yt.numpy())
    np.testing.assert_array_equal(ie.numpy(), it.numpy())


@needs_torch
def test_output_sizes_match_torch_in_ceil_mode():
    # every size / kernel / stride / padding / dilation in range, through one 2-d pool each:
    # H runs through the max-pool cases and W through the avg-pool ones
    seen = 0
    for size, k, s, p, d in itertools.product(
        range(1, 8), (1, 2, 3, 4), (1, 2, 3), (0, 1, 2), (1, 2)
    ):
        if p > k // 2 or size + 2 * p - d * (k - 1) - 1 < 0:
            continue
        for ceil in (False, True):
            a = np.zeros((1, size, size))
            want = TF.max_pool2d(torch.tensor(a), k, s, p, (d, 1), ceil).shape
            got = EF.max_pool2d(ember.tensor(a), k, s, p, (d, 1), ceil).shape
            assert tuple(got) == tuple(want), (size, k, s, p, d, ceil)
            seen += 1
    assert seen > 300


# ---- average pooling --------------------------------------------------------------------------
AVG2D = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 0), ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, divisor_override=2),
    dict(kernel_size=2, stride=3, ceil_mode=True),
]


@needs_torch
@pytest.mark.parametrize("kw", AVG2D)
def test_avg_pool2d_matches_torch(kw):
    a = _data((2, 3, 7, 8))
    _check(lambda x: EF.avg_pool2d(x, **kw), lambda x: TF.avg_pool2d(x, **kw), a)
    _check(lambda x: EF.avg_pool2d(x, **kw), lambda x: TF.avg_pool2d(x, **kw), a[0])


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=2, count_include_pad=False),
        dict(kernel_size=3, padding=1, stride=2, count_include_pad=False, divisor_override=5),
    ],
)
def test_avg_pool3d_matches_torch(kw):
    a = _data((2, 2, 5, 6, 7))
    _check(lambda x: EF.avg_pool3d(x, **kw), lambda x: TF.avg_pool3d(x, **kw), a)


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=3, padding=1, count_include_pad=False),
    ],
)
def test_avg_pool1d_matches_torch(kw):
    a = _data((2, 3, 9))
    _check(lambda x: EF.avg_pool1d(x, **kw), lambda x: TF.avg_pool1d(x, **kw), a)
    _check(lambda x: EF.avg_pool1d(x, **kw), lambda x: TF.avg_pool1d(x, **kw), a[0])


@needs_torch
def test_avg_pool_inf_stays_in_its_windows_and_integers_truncate():
    a = _data((1, 1, 6, 6))
    a[0, 0, 0, 0] = np.inf
    _check(lambda x: EF.avg_pool2d(x, 2), lambda x: TF.avg_pool2d(x, 2), a)
    b = RNG.integers(-20, 20, (2, 2, 5, 6))
    for kw in (
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        dict(kernel_size=2, divisor_override=3),
    ):
        ye = EF.avg_pool2d(ember.tensor(b), **kw)
        assert ye.dtype == ember.int64
        np.testing.assert_array_equal(ye.numpy(), TF.avg_pool2d(torch.tensor(b), **kw).numpy())


@needs_torch
def test_float32_avg_pool():
    a = _data((4, 8, 9, 9), dtype=np.float32)
    _check(
        lambda x: EF.avg_pool2d(x, 3, 2, 1),
        lambda x: TF.avg_pool2d(x, 3, 2, 1),
        a,
        rtol=1e-5,
        atol=1e-6,
    )


# ---- adaptive pooling -------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("out", [1, 2, 3, 5, (None, 3), (7, 8), 9, (4, 1)])
def test_adaptive_pool2d_matches_torch(out):
    for shape in ((2, 3, 7, 8), (3, 7, 8)):
        a = _data(shape, ties=True)
        _check(
            lambda x: EF.adaptive_avg_pool2d(x, out),
            lambda x: TF.adaptive_avg_pool2d(x, out),
            _data(shape),
        )
        _check(
            lambda x: EF.adaptive_max_pool2d(x, out, True),
            lambda x: TF.adaptive_max_pool2d(x, out, True),
            a,
        )


@needs_torch
def test_adaptive_pool1d_3d_match_torch():
    for out in (1, 3, 4, 10):
        a = _data((2, 3, 7), ties=True)
        _check(
            lambda x, o=out: EF.adaptive_avg_pool1d(x, o),
            lambda x, o=out: TF.adaptive_avg_pool1d(x, o),
            a,
        )
        _check(
            lambda x, o=out: EF.adaptive_max_pool1d(x, o, True),
            lambda x, o=out: TF.adaptive_max_pool1d(x, o, True),
            a,
        )
    for out in ((2, 3, 4), 1, (None, 2, 5)):
        a = _data((2, 2, 5, 7, 6), ties=True)
        _check(
            lambda x, o=out: EF.adaptive_avg_pool3d(x, o),
            lambda x, o=out: TF.adaptive_avg_pool3d(x, o),
            a,
        )
        _check(
            lambda x, o=out: EF.adaptive_max_pool3d(x, o, True),
            lambda x, o=out: TF.adaptive_max_pool3d(x, o, True),
            a,
        )
        _check(
            lambda x, o=out: EF.adaptive_max_pool3d_with_indices(x, o),
            lambda x, o=out: TF.adaptive_max_pool3d_with_indices(x, o),
            a[0],
        )


@needs_torch
def test_adaptive_pool_to_size_zero():
    a = _data((2, 3, 7, 8))
    for ef, tf in (
        (EF.adaptive_avg_pool2d, TF.adaptive_avg_pool2d),
        (EF.adaptive_max_pool2d, TF.adaptive_max_pool2d),
    ):
        ye, yt = ef(ember.tensor(a), (0, 2)), tf(torch.tensor(a), (0, 2))
        assert tuple(ye.shape) == tuple(yt.shape) == (2, 3, 0, 2)


def test_global_adaptive_avg_pool_is_a_mean():
    x = ember.randn(2, 3, 4, 5, requires_grad=True)
    y = EF.adaptive_avg_pool2d(x, 1)
    assert y.grad_fn.name() == "MeanBackward1"
    np.testing.assert_allclose(
        y.detach().numpy(), x.detach().numpy().mean((2, 3), keepdims=True), rtol=1e-6
    )


# ---- lp_pool and max_unpool -------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "n, args",
    [(1, (2, 3)), (1, (3.0, 3, 2, True)), (2, (2, 2)), (2, (1.5, (2, 3), 1)), (3, (2, 2, 1, True))],
)
def test_lp_pool_matches_torch(n, args):
    a = np.abs(_data((2, 2) + (6,) * n)) + 0.1
    ef = getattr(EF, f"lp_pool{n}d")
    tf = getattr(TF, f"lp_pool{n}d")
    _check(lambda x: ef(x, *args), lambda x: tf(x, *args), a)


@needs_torch
@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_matches_torch(n):
    pool_e, pool_t = getattr(EF, f"max_pool{n}d"), getattr(TF, f"max_pool{n}d")
    unp_e, unp_t = getattr(EF, f"max_unpool{n}d"), getattr(TF, f"max_unpool{n}d")
    for size, kw, out in (
        (4, dict(kernel_size=2), None),
        (5, dict(kernel_size=2), "full"),
        (5, dict(kernel_size=3, stride=2, padding=1), "spatial"),
    ):
        shape = (2, 2) + (size,) * n
        out = {None: None, "full": shape, "spatial": shape[2:]}[out]

        def fe(x, kw=kw, out=out):
            return unp_e(*pool_e(x, **kw, return_indices=True), **kw, output_size=out)

        def ft(x, kw=kw, out=out):
            return unp_t(*pool_t(x, **kw, return_indices=True), **kw, output_size=out)

        _check(fe, ft, _data(shape))
        _check(fe, ft, _data(shape[1:]))


# ---- errors -----------------------------------------------------------------------------------
ERRORS = [
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 0)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 2, 0)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 2, 1, 0, 0)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 2, 1, 2)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 2, 2, -1)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 2, -1)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 9)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, (2, 2, 2))),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 2.0)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x[0, 0], 2)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x[None], 2)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x[:, :0], 2)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x > 0, 2)),
    ("max_pool1d", lambda F, x: F.max_pool1d(x[0, 0, 0], 2)),
    ("max_pool1d", lambda F, x: F.max_pool1d(x[0], 2, 1, 2)),
    ("max_pool1d", lambda F, x: F.max_pool1d(x[0], (2, 2))),
    ("max_pool3d", lambda F, x: F.max_pool3d(x[0], 2, 1, 2)),
    ("max_pool3d", lambda F, x: F.max_pool3d(x[0, 0], 2)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x, 2, 1, 2)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x, 2, divisor_override=0)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x, 9)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x[0, 0], 2)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x[None], 2)),
    ("avg_pool1d", lambda F, x: F.avg_pool1d(x[0], 9)),
    ("avg_pool1d", lambda F, x: F.avg_pool1d(x[0], 2, divisor_override=2)),
    ("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x[0, 0], 2)),
    ("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x, -1)),
    ("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x, (1, 2, 3))),
    ("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x[:, :, :0], 2)),
    ("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x.long(), 2)),
    ("adaptive_max_pool2d", lambda F, x: F.adaptive_max_pool2d(x.long(), 2)),
    ("adaptive_max_pool1d", lambda F, x: F.adaptive_max_pool1d(x[0, 0, 0], 2)),
    ("adaptive_max_pool3d", lambda F, x: F.adaptive_max_pool3d(x[0], 2)),
    (
        "max_unpool2d",
        lambda F, x: F.max_unpool2d(
            *F.max_pool2d(x, 2, return_indices=True), 2, output_size=(9, 9)
        ),
    ),
    ("max_unpool2d", lambda F, x: F.max_unpool2d(x, x.new_full(x.shape, 99).long(), 2)),
    ("max_unpool2d", lambda F, x: F.max_unpool2d(x, x.new_full(x.shape, -1).long(), 2)),
    ("max_unpool2d", lambda F, x: F.max_unpool2d(x, x, 2)),
    ("max_unpool2d", lambda F, x: F.max_unpool2d(x, x[..., :2].long(), 2)),
    ("max_unpool2d", lambda F, x: F.max_unpool2d(x.long(), x.long(), 2)),
]


@needs_torch
@pytest.mark.parametrize("op, call", ERRORS, ids=[f"{i}-{e[0]}" for i, e in enumerate(ERRORS)])
def test_errors_have_torch_types(op, call):
    a = _data((2, 3, 4, 4))
    with pytest.raises(Exception) as want:
        call(TF, torch.tensor(a))
    with pytest.raises(want.type) as got:
        call(EF, ember.tensor(a))
    assert got.type is want.type
    assert op in str(got.value) or "output_size" in str(got.value)


def test_non_tensor_input_is_a_type_error():
    with pytest.raises(TypeError, match="max_pool2d"):
        EF.max_pool2d(np.zeros((1, 2, 2)), 2)


# ---- modules ----------------------------------------------------------------------------------
MODULES = [
    ("MaxPool1d", (3,), {}, (2, 3, 10)),
    ("MaxPool2d", (2,), {}, (2, 3, 8, 8)),
    ("MaxPool2d", ((2, 3), (1, 2), 1, 2, True, True), {}, (2, 3, 8, 9)),
    ("MaxPool3d", (2,), {"stride": 1}, (1, 2, 4, 5, 4)),
    ("AvgPool1d", (3,), {"padding": 1}, (2, 3, 10)),
    ("AvgPool2d", (2,), {}, (2, 3, 8, 8)),
    ("AvgPool2d", (3, 2, 1, True, False, 2), {}, (2, 3, 8, 9)),
    ("AvgPool3d", (2,), {"ceil_mode": True}, (1, 2, 5, 5, 4)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 10)),
    ("AdaptiveAvgPool2d", ((None, 2),), {}, (2, 3, 8, 9)),
    ("AdaptiveAvgPool3d", (2,), {}, (1, 2, 5, 5, 4)),
    ("AdaptiveMaxPool1d", (2,), {}, (2, 3, 10)),
    ("AdaptiveMaxPool2d", (3, True), {}, (2, 3, 8, 9)),
    ("AdaptiveMaxPool3d", ((1, 2, 3),), {}, (1, 2, 5, 5, 4)),
    ("LPPool1d", (2, 3), {}, (2, 3, 10)),
    ("LPPool2d", (2, 3, 1, True), {}, (2, 3, 8, 9)),
    ("LPPool3d", (1.5, 2), {}, (1, 2, 5, 5, 4)),
]


@needs_torch
@pytest.mark.parametrize(
    "name, args, kwargs, shape", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)]
)
def test_module_matches_torch(name, args, kwargs, shape):
    me, mt = getattr(enn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(me) == repr(mt)
    public = {k: v for k, v in vars(mt).items() if not k.startswith("_") and k != "training"}
    assert {k: getattr(me, k) for k in public} == public
    assert list(type(me).__constants__) == list(type(mt).__constants__)
    assert list(me.state_dict()) == list(mt.state_dict()) == []
    a = np.abs(_data(shape)) + 0.1 if name.startswith("LP") else _data(shape, ties=True)
    for train in (True, False):
        me.train(train)
        mt.train(train)
        _check(me, mt, a)


@needs_torch
@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_module_matches_torch(n):
    ue, ut = getattr(enn, f"MaxUnpool{n}d")(2), getattr(torch.nn, f"MaxUnpool{n}d")(2)
    pe, pt = (
        getattr(enn, f"MaxPool{n}d")(2, return_indices=True),
        getattr(torch.nn, f"MaxPool{n}d")(2, return_indices=True),
    )
    assert repr(ue) == repr(ut)
    assert (ue.kernel_size, ue.stride, ue.padding) == (ut.kernel_size, ut.stride, ut.padding)
    shape = (2, 2) + (5,) * n
    _check(
        lambda x: ue(*pe(x), output_size=shape),
        lambda x: ut(*pt(x), output_size=shape),
        _data(shape),
    )


def test_meta_inputs_give_shapes_without_data():
    x = ember.empty(2, 3, 9, 10, device="meta", requires_grad=True)
    for m, out in (
        (enn.MaxPool2d(3, 2, 1), (2, 3, 5, 5)),
        (enn.AvgPool2d(2), (2, 3, 4, 5)),
        (enn.AdaptiveAvgPool2d((4, 3)), (2, 3, 4, 3)),
        (enn.AdaptiveMaxPool2d(4), (2, 3, 4, 4)),
        (enn.AdaptiveAvgPool2d(1), (2, 3, 1, 1)),
    ):
        y = m(x)
        assert y.is_meta and tuple(y.shape) == out, m
        y.sum().backward()
        assert x.grad.is_meta and x.grad.shape == x.shape
        x.grad = None
    y, i = EF.max_pool2d(x, 2, return_indices=True)
    assert i.is_meta and i.dtype == ember.int64 and tuple(i.shape) == (2, 3, 4, 5)


# ---- autograd ---------------------------------------------------------------------------------
GRADCHECK = [
    lambda x: EF.max_pool2d(x, 2),
    lambda x: EF.max_pool2d(x, 3, 2, 1, 2, True),
    lambda x: EF.max_pool1d(x[0], 3, 1, 1),
    lambda x: EF.max_pool3d(x[None], 2, 1, 1),
    lambda x: EF.avg_pool2d(x, 3, 2, 1, True, False),
    lambda x: EF.avg_pool1d(x[0], 2, 1, 1),
    lambda x: EF.avg_pool3d(x[None], 2, 1, 1, divisor_override=3),
    lambda x: EF.adaptive_avg_pool2d(x, (2, 3)),
    lambda x: EF.adaptive_avg_pool1d(x[0], 4),
    lambda x: EF.adaptive_avg_pool3d(x[None], 2),
    lambda x: EF.adaptive_max_pool2d(x, (2, 3)),
    lambda x: EF.adaptive_max_pool1d(x[0], 3),
    lambda x: EF.adaptive_max_pool3d(x[None], 2),
    lambda x: EF.lp_pool2d(x, 2, 2),
    lambda x: EF.lp_pool1d(x[0], 3, 2),
    lambda x: EF.max_unpool2d(*EF.max_pool2d(x[:, :4, :4], 2, return_indices=True), 2),
]


@pytest.mark.parametrize("i", range(len(GRADCHECK)))
def test_gradcheck_and_double_backward(i):
    # distinct values apart by more than eps: the maximum of every window is unambiguous
    a = RNG.permutation(2 * 5 * 5).reshape(2, 5, 5) / 10.0 + 1.0
    x = ember.tensor(a, requires_grad=True)
    assert gradcheck(GRADCHECK[i], (x,), eps=1e-6, atol=1e-6)
    assert gradgradcheck(GRADCHECK[i], (x,), eps=1e-6, atol=1e-6)


@needs_torch
def test_double_backward_matches_torch():
    a = _data((2, 2, 6, 6), ties=True)
    for ef, tf in ((EF.max_pool2d, TF.max_pool2d), (EF.avg_pool2d, TF.avg_pool2d)):
        xe, xt = _both(a)
        ge, gt = _both(_data((2, 2, 3, 3)))
        (gxe,) = ember.autograd.grad(ef(xe, 3, 2, 1), xe, ge, create_graph=True)
        (gxt,) = torch.autograd.grad(tf(xt, 3, 2, 1), xt, gt, create_graph=True)
        w = _data((2, 2, 6, 6))
        (gxe * ember.tensor(w)).sum().backward()
        (gxt * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(ge.grad.numpy(), gt.grad.numpy(), rtol=1e-9)


@needs_torch
def test_node_names_match_torch():
    x = ember.randn(1, 2, 6, 6, requires_grad=True)
    xt = torch.randn(1, 2, 6, 6, requires_grad=True)
    for call in (
        lambda F, x: F.max_pool2d(x, 2),
        lambda F, x: F.max_pool3d(x, 2),
        lambda F, x: F.avg_pool2d(x, 2),
        lambda F, x: F.avg_pool3d(x, 2),
        lambda F, x: F.adaptive_avg_pool2d(x, 2),
        lambda F, x: F.adaptive_avg_pool2d(x, 1),
        lambda F, x: F.adaptive_max_pool2d(x, 4),
        lambda F, x: F.max_pool1d(x[0], 2),
        lambda F, x: F.adaptive_max_pool3d(x, 2),
    ):
        assert call(EF, x).grad_fn.name() == call(TF, xt).grad_fn.name()


# ---- fractional max pooling -------------------------------------------------------------------
FRACTIONAL = [
    (2, (2, 3, 7, 8), 2, (3, 4)),
    (2, (2, 3, 9, 9), 3, (4, 5)),
    (2, (3, 7, 8), (2, 3), (5, 4)),  # unbatched
    (2, (2, 2, 5, 5), 1, (5, 5)),
    (2, (1, 2, 6, 6), 2, (1, 1)),
    (2, (2, 3, 12, 10), 3, (10, 4)),  # overlapping windows: the gradient accumulates
    (3, (2, 3, 5, 6, 7), 2, (3, 4, 5)),
    (3, (3, 5, 6, 7), (2, 1, 3), (2, 5, 3)),
    (3, (1, 2, 6, 6, 6), 2, (4, 4, 4)),
]


@needs_torch
@pytest.mark.parametrize("n,shape,k,out", FRACTIONAL)
@pytest.mark.parametrize("ties", [False, True])
def test_fractional_max_pool_matches_torch(n, shape, k, out, ties):
    batch = shape[0] if len(shape) == n + 2 else 1
    s = RNG.random((batch + 1, shape[-n - 1], n))  # extra sample rows are ignored
    ef, tf = getattr(EF, f"fractional_max_pool{n}d"), getattr(TF, f"fractional_max_pool{n}d")
    _check(
        lambda x: ef(x, k, output_size=out, return_indices=True, _random_samples=ember.tensor(s)),
        lambda x: tf(x, k, output_size=out, return_indices=True, _random_samples=torch.tensor(s)),
        _data(shape, ties),
    )


@needs_torch
def test_fractional_max_pool_float32_windows_and_node_names():
    # the window starts are computed in the input's precision, as torch's
    x = _data((3, 4, 50, 60), dtype=np.float32)
    s = RNG.random((3, 4, 2)).astype(np.float32)
    ye, ie = EF.fractional_max_pool2d_with_indices(
        ember.tensor(x), 3, output_size=(23, 31), _random_samples=ember.tensor(s)
    )
    yt, it = TF.fractional_max_pool2d_with_indices(
        torch.tensor(x), 3, output_size=(23, 31), _random_samples=torch.tensor(s)
    )
    np.testing.assert_array_equal(ie.numpy(), it.numpy())
    np.testing.assert_array_equal(ye.numpy(), yt.numpy())
    for n, shape in ((2, (1, 2, 6, 7)), (3, (1, 2, 5, 6, 7))):
        xe, xt = _both(_data(shape))
        ye = getattr(EF, f"fractional_max_pool{n}d")(xe, 2, output_size=(3,) * n)
        yt = getattr(TF, f"fractional_max_pool{n}d")(xt, 2, output_size=(3,) * n)
        assert ye.grad_fn.name() == yt.grad_fn.name().replace("torch::autograd::", "")


@needs_torch
def test_fractional_max_pool_nan_and_empty_windows_match_torch():
    x = np.array([[[[1.0, np.nan, 3.0], [np.nan, 2.0, 0.0], [1.0, 2.0, 3.0]]]])
    s = np.array([[[0.3, 0.6]]])
    _check(
        lambda t: EF.fractional_max_pool2d(
            t, 2, output_size=(2, 2), return_indices=True, _random_samples=ember.tensor(s)
        ),
        lambda t: TF.fractional_max_pool2d(
            t, 2, output_size=(2, 2), return_indices=True, _random_samples=torch.tensor(s)
        ),
        x,
    )
    x = _data((1, 1, 7, 8))
    s = RNG.random((1, 1, 2))
    ye, ie = EF.fractional_max_pool2d(
        ember.tensor(x), 0, output_size=(2, 2), return_indices=True, _random_samples=ember.tensor(s)
    )
    yt, it = TF.fractional_max_pool2d(
        torch.tensor(x), 0, output_size=(2, 2), return_indices=True, _random_samples=torch.tensor(s)
    )
    np.testing.assert_array_equal(ye.numpy(), yt.numpy())
    np.testing.assert_array_equal(ie.numpy(), it.numpy())


def test_fractional_max_pool_draws_from_embers_generator():
    x = ember.tensor(_data((2, 3, 10, 12)))
    ember.manual_seed(3)
    a = EF.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5))
    ember.manual_seed(3)
    b = enn.FractionalMaxPool2d(2, output_ratio=0.5)(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.shape == (2, 3, 5, 6)
    # fresh offsets each call (23 -> 10 with kernel 2: the starts depend on the sample)
    x = ember.tensor(_data((2, 3, 23, 29)))
    c = EF.fractional_max_pool2d(x, 2, output_size=(10, 12), return_indices=True)[1]
    d = EF.fractional_max_pool2d(x, 2, output_size=(10, 12), return_indices=True)[1]
    assert not np.array_equal(c.numpy(), d.numpy())


@pytest.mark.parametrize("n", [2, 3])
def test_fractional_max_pool_gradcheck_and_double_backward(n):
    x = ember.tensor(_data((1, 2) + ((7,) * 2 if n == 2 else (5,) * 3)), requires_grad=True)
    s = ember.tensor(RNG.random((1, 2, n)))

    def f(t):
        return getattr(EF, f"fractional_max_pool{n}d")(
            t, 5 - n, output_size=(4 - n // 3,) * n, _random_samples=s
        )

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_fractional_max_pool_meta_gives_shapes():
    y, i = EF.fractional_max_pool2d(
        ember.empty(2, 3, 8, 8, device="meta"), 2, output_size=(3, 4), return_indices=True
    )
    assert y.shape == i.shape == (2, 3, 3, 4) and y.device.type == "meta"
    assert i.dtype == ember.int64
    y = EF.fractional_max_pool3d(ember.empty(3, 8, 8, 8, device="meta"), 2, output_ratio=0.5)
    assert y.shape == (3, 4, 4, 4)


_S2 = np.full((2, 3, 2), 0.5)


@needs_torch
@pytest.mark.parametrize(
    "n,shape,args,kw",
    [
        (2, (2, 3, 7, 8), (2,), {"output_size": (7, 8)}),
        (2, (2, 3, 7, 8), (3,), {"output_size": (6, 8)}),
        (2, (2, 3, 7, 8), (2,), {"output_size": (3, 8)}),
        (2, (2, 3, 7, 8), (2,), {"output_size": (3, 4), "_random_samples": _S2[:1]}),
        (2, (2, 3, 7, 8), (2,), {"output_size": (3, 4), "_random_samples": _S2[:, :2]}),
        (2, (2, 3, 7, 8), (2,), {"output_size": (3, 4), "_random_samples": _S2[..., :1]}),
        (2, (2, 3, 7, 8), (2,), {"output_size": (3, 4), "_random_samples": _S2[0]}),
        (2, (2, 3, 7, 8), (2,), {"output_size": (3, 4), "_random_samples": _S2.astype(np.float32)}),
        (2, (7, 8), (2,), {"output_size": (3, 4)}),
        (2, (1, 2, 3, 7, 8), (2,), {"output_size": (3, 4), "_random_samples": _S2[..., :1]}),
        (2, (2, 3, 7, 8), ((2, 2, 2),), {"output_size": (3, 4)}),
        (2, (2, 3, 7, 8), (2,), {"output_size": (3, 4, 5)}),
        (2, (2, 3, 7, 8), (2,), {}),
        (2, (2, 3, 7, 8), (2,), {"output_ratio": (0.5, 0.5, 0.5)}),
        (2, (2, 3, 7, 8), (2,), {"output_ratio": 0.5}),  # torch takes len() of a float
        (2, (2, 0, 7, 8), (2,), {"output_size": (3, 4)}),
        (2, (2, 3, 0, 8), (2,), {"output_size": (3, 4)}),
        (2, (2, 3, 7, 8), (2.0,), {"output_size": (3, 4)}),
        (2, (2, 3, 7, 8), (2,), {"output_size": (3, 4), "dtype": np.int64}),
        (
            2,
            (2, 3, 7, 8),
            (2,),
            {
                "output_size": (3, 4),
                "dtype": np.int64,
                "_random_samples": np.zeros((2, 3, 2), np.int64),
            },
        ),
        (3, (2, 3, 5, 6, 7), (2,), {"output_size": (4, 4, 5)}),
        (3, (2, 3, 5, 6, 7), (2,), {"output_size": (3, 5, 5)}),
        (3, (2, 3, 5, 6, 7), (2,), {"output_size": (3, 4, 6)}),
        (3, (2, 3, 4, 5, 6, 7), (2,), {"output_size": (3, 4, 5)}),
        (3, (2, 0, 5, 6, 7), (2,), {"output_size": (3, 4, 5)}),
        (3, (2, 3, 5, 6, 7), ((2, 2),), {"output_size": (3, 4, 5)}),
        (
            3,
            (2, 3, 5, 6, 7),
            (2,),
            {"output_size": (3, 4, 5), "_random_samples": np.zeros((2, 3, 2))},
        ),
    ],
)
def test_fractional_max_pool_errors_match_torch(n, shape, args, kw):
    kw = dict(kw)
    x = np.zeros(shape, kw.pop("dtype", np.float64))
    s = kw.pop("_random_samples", None)
    ef, tf = getattr(EF, f"fractional_max_pool{n}d"), getattr(TF, f"fractional_max_pool{n}d")
    with pytest.raises(Exception) as expected:
        tf(
            torch.tensor(x),
            *args,
            **kw,
            **({} if s is None else {"_random_samples": torch.tensor(s)}),
        )
    with pytest.raises(expected.type) as got:
        ef(
            ember.tensor(x),
            *args,
            **kw,
            **({} if s is None else {"_random_samples": ember.tensor(s)}),
        )
    if expected.type is not TypeError:  # TypeErrors name the Python-level argument differently
        assert str(got.value) == str(expected.value)


@needs_torch
@pytest.mark.parametrize(
    "cls,kw",
    [
        ("FractionalMaxPool2d", {"kernel_size": 2, "output_size": 3}),
        (
            "FractionalMaxPool2d",
            {"kernel_size": (2, 3), "output_ratio": (0.5, 0.7), "return_indices": True},
        ),
        ("FractionalMaxPool3d", {"kernel_size": 2, "output_ratio": 0.5}),
        (
            "FractionalMaxPool3d",
            {"kernel_size": (1, 2, 2), "output_size": (2, 3, 3), "return_indices": True},
        ),
    ],
)
def test_fractional_max_pool_modules_match_torch(cls, kw):
    n = 2 if cls.endswith("2d") else 3
    shape = (2, 3) + ((9, 10) if n == 2 else (5, 6, 7))
    s = RNG.random((2, 3, n))
    em = getattr(enn, cls)(**kw, _random_samples=ember.tensor(s))
    tm = getattr(torch.nn, cls)(**kw, _random_samples=torch.tensor(s))
    assert repr(em) == repr(tm)
    for a in ("kernel_size", "output_size", "output_ratio", "return_indices"):
        assert getattr(em, a) == getattr(tm, a)
    assert type(em).__constants__ == type(tm).__constants__
    assert list(em.state_dict()) == list(tm.state_dict()) == ["_random_samples"]
    assert list(getattr(enn, cls)(**kw).state_dict()) == []
    _check(em, tm, _data(shape))


@needs_torch
@pytest.mark.parametrize(
    "cls,kw",
    [
        ("FractionalMaxPool2d", {"kernel_size": 2}),
        ("FractionalMaxPool2d", {"kernel_size": 2, "output_size": 2, "output_ratio": 0.5}),
        ("FractionalMaxPool2d", {"kernel_size": 2, "output_ratio": 1.5}),
        ("FractionalMaxPool3d", {"kernel_size": 2, "output_ratio": (0.5, 0.5, 1.0)}),
        ("FractionalMaxPool3d", {"kernel_size": 0, "output_ratio": 0.5}),
        ("FractionalMaxPool3d", {"kernel_size": (2, 0, 2), "output_ratio": 0.5}),
    ],
)
def test_fractional_max_pool_module_errors_match_torch(cls, kw):
    with pytest.raises(ValueError) as expected:
        getattr(torch.nn, cls)(**kw)
    with pytest.raises(ValueError) as got:
        getattr(enn, cls)(**kw)
    assert str(got.value) == str(expected.value)
