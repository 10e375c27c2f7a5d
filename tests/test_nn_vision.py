"""nn.functional's padding and resampling (pad, interpolate, upsample*, pixel_shuffle...):
values, gradients and errors against torch in float64, gradcheck, meta shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = TF = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _node(t):
    return t.grad_fn.name().replace("torch::autograd::", "")


def _parity(ember_fn, torch_fn, x, tol=1e-12, node=True):
    """Output, input gradient (and node name) of ``ember_fn`` against ``torch_fn`` on ``x``."""
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ey, ty = ember_fn(ex), torch_fn(tx)
    assert tuple(ey.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    gy = _rand(*ty.shape, seed=1)
    ey.backward(ember.tensor(gy))
    ty.backward(torch.tensor(gy))
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol)
    if node:
        assert ey.grad_fn.name() == _node(ty)


# ---- pad ------------------------------------------------------------------------------------
PAD_CASES = [
    ((2, 3, 5), (1, 2)),
    ((3, 5), (2, 1)),  # unbatched 1-d
    ((2, 3, 5), (2, 1, 1, 2)),  # unbatched 2-d
    ((2, 3, 4, 5), (1, 2, 2, 1)),
    ((2, 3, 4, 5), (1, 2, 2, 1, 1, 1)),  # unbatched 3-d
    ((2, 1, 4, 5, 4), (1, 2, 2, 1, 3, 1)),
    ((2, 3, 5), (4, 4)),  # reflect's largest pads
    ((2, 3, 5), (0, 4)),
    ((2, 3, 5), (-1, 2)),  # negative pads crop
    ((2, 3, 5), (2, -1)),
    ((2, 3, 4, 5), (-1, 2, 2, -1)),
    ((1, 2, 3, 4, 5), (3, -1, 2, -1, -1, 2)),
    ((0, 3, 5), (1, 1)),  # empty batch
]


@needs_torch
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", PAD_CASES)
def test_pad_matches_torch(mode, shape, pad):
    _parity(
        lambda t: F.pad(t, pad, mode=mode),
        lambda t: TF.pad(t, pad, mode=mode),
        _rand(*shape),
        tol=1e-13,
    )


@needs_torch
@pytest.mark.parametrize(
    "shape,pad",
    [
        ((2, 3, 2), (1, 2, 0, 1, 2, 1)),
        ((4,), (2, 3)),
        ((2, 3, 4), (-1, -1, 1, 0)),
        ((), ()),
        ((2, 3), ()),
    ],
)
def test_pad_constant_any_rank_and_value(shape, pad):
    x = _rand(*shape)
    _parity(
        lambda t: F.pad(t, pad, value=2.5),
        lambda t: TF.pad(t, pad, value=2.5),
        x,
        tol=1e-13,
        node=bool(pad),
    )


@needs_torch
def test_pad_constant_value_on_integer_and_bool_tensors():
    x = np.arange(5)
    for v in (2.7, -2.7, 3, True):
        np.testing.assert_array_equal(
            F.pad(ember.tensor(x), (1, 2), value=v).numpy(),
            TF.pad(torch.tensor(x), (1, 2), value=v).numpy(),
        )
    b = np.array([True, False])
    np.testing.assert_array_equal(
        F.pad(ember.tensor(b), (1, 1), value=2.7).numpy(),
        TF.pad(torch.tensor(b), (1, 1), value=2.7).numpy(),
    )


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_gradcheck_and_double_backward(mode):
    x = ember.tensor(_rand(2, 3, 4), requires_grad=True)
    pad = (2, 1, -1, 2) if mode != "circular" else (2, 1, 1, 2)
    assert ember.autograd.gradcheck(lambda t: F.pad(t, pad, mode=mode), (x,))
    assert ember.autograd.gradgradcheck(lambda t: F.pad(t, pad, mode=mode) ** 2, (x,))


def test_pad_on_meta_gives_shapes():
    x = ember.empty(2, 3, 8, 9, device="meta")
    for mode in ("constant", "reflect", "replicate", "circular"):
        y = F.pad(x, (1, 2, 3, -1), mode=mode)
        assert y.shape == (2, 3, 10, 12) and y.device.type == "meta"


@needs_torch
@pytest.mark.parametrize(
    "shape,pad,kw",
    [
        ((1, 3, 4), (1, 2, 3), {}),
        ((1, 3, 4), (1, 2) * 4, {}),
        ((1, 3, 4), (1, 2), {"mode": "foo"}),
        ((1, 3, 4), (1, 2, 3), {"mode": "foo"}),
        ((1, 3, 4), (1, 2), {"mode": "reflect", "value": 1.0}),
        ((1, 3, 4), (4, 2), {"mode": "reflect"}),
        ((2, 4, 5), (5, 0, 5, 0), {"mode": "reflect"}),
        ((1, 1, 2, 3, 4), (0, 0, 4, 0, 0, 0), {"mode": "reflect"}),
        ((4,), (1, 2), {"mode": "reflect"}),
        ((1, 2, 3, 4), (1, 1), {"mode": "replicate"}),
        ((2, 3), (), {"mode": "circular"}),
        ((1, 3, 4), (5, 0), {"mode": "circular"}),
        ((1, 3, 4), (-5, -1), {"mode": "circular"}),
        ((2, 0, 4), (1, 1), {"mode": "reflect"}),
        ((0, 4), (1, 1), {"mode": "replicate"}),
        ((2, 0, 4, 3), (1, 1, 1, 1), {"mode": "replicate"}),
        ((1, 4, 5), (-5, 0), {"mode": "reflect"}),
        ((1, 4, 5), (-5, 0), {"mode": "replicate"}),
        ((1, 3, 4), (-4, 0, -3, 0), {"mode": "replicate"}),
        ((2, 1, 4), (-2, -3), {}),
        ((3,), (1.5, 2), {}),
        ((3,), (True, 1), {}),
        ((3,), 1, {}),
        ((3,), None, {}),
        ((), (1, 1), {}),
    ],
)
def test_pad_errors_match_torch(shape, pad, kw):
    x = _rand(*shape)
    with pytest.raises(Exception) as expected:
        TF.pad(torch.tensor(x), pad, **kw)
    with pytest.raises(expected.type) as got:
        F.pad(ember.tensor(x), pad, **kw)
    # torch's message where it is a fixed sentence (not a shape-bearing one we reword)
    first = str(expected.value).split("\n")[0]
    if not first.startswith(("narrow", "Trying")):
        assert str(got.value).split("\n")[0] == first


@needs_torch
def test_pad_accepts_torch_int_likes():
    x = _rand(2, 3)
    for pad in ([1, 2], (np.int64(1), 2), (ember.tensor(1), 2)):
        assert F.pad(ember.tensor(x), pad).shape == (2, 6)
    assert F.pad(ember.tensor(x), (1, 2), mode="reflect", value=0.0).shape == (2, 6)


def test_pad_does_not_change_the_incoming_gradient():
    x = ember.tensor(_rand(1, 3, 4), requires_grad=True)
    y = F.pad(x, (2, 2, 1, 1), mode="reflect")
    g = ember.tensor(_rand(1, 5, 8))
    before = g.numpy().copy()
    y.backward(g)
    np.testing.assert_array_equal(g.numpy(), before)


# ---- interpolate ----------------------------------------------------------------------------
_SPATIAL = {3: (5,), 4: (4, 6), 5: (3, 4, 5)}
_MODE_RANKS = [
    ("nearest", 3),
    ("nearest", 4),
    ("nearest", 5),
    ("nearest-exact", 3),
    ("nearest-exact", 4),
    ("nearest-exact", 5),
    ("linear", 3),
    ("bilinear", 4),
    ("bicubic", 4),
    ("trilinear", 5),
    ("area", 3),
    ("area", 4),
    ("area", 5),
]
_SIZES = [
    {"size": 1},
    {"size": 2},
    {"size": 7},
    {"scale_factor": 2},
    {"scale_factor": 0.5},
    {"scale_factor": 1.7},
    {"scale_factor": 0.4, "recompute_scale_factor": True},
    {"scale_factor": 2.5, "recompute_scale_factor": False},
    {"scale_factor": 1.0},
]


def _interp_kw(mode, sizes, align_corners):
    kw = dict(sizes, mode=mode)
    if mode not in ("nearest", "nearest-exact", "area"):
        kw["align_corners"] = align_corners
    return kw


_NO_CORNERS = ("nearest", "nearest-exact", "area")
_INTERP_CASES = [
    (m, r, s, a)
    for m, r in _MODE_RANKS
    for s in _SIZES
    for a in ((False,) if m in _NO_CORNERS else (False, True))
]


@needs_torch
@pytest.mark.parametrize("mode,rank,sizes,align_corners", _INTERP_CASES)
def test_interpolate_matches_torch(mode, rank, sizes, align_corners):
    kw = _interp_kw(mode, sizes, align_corners)
    x = _rand(2, 3, *_SPATIAL[rank])
    # area's node is torch's adaptive pooling's, which varies (Squeeze, Mean...) by shape
    _parity(
        lambda t: F.interpolate(t, **kw),
        lambda t: TF.interpolate(t, **kw),
        x,
        tol=1e-12,
        node=mode != "area",
    )


@needs_torch
@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest", "nearest-exact", "area"])
def test_interpolate_float32_close_to_torch(mode):
    x = _rand(2, 3, 5, 7).astype(np.float32)
    for kw in ({"scale_factor": 1.7}, {"size": (4, 9)}):
        y = F.interpolate(ember.tensor(x), mode=mode, **kw)
        assert y.dtype == ember.float32
        np.testing.assert_allclose(
            y.numpy(), TF.interpolate(torch.tensor(x), mode=mode, **kw).numpy(), atol=1e-5
        )


@pytest.mark.parametrize(
    "mode,shape",
    [
        ("linear", (1, 2, 4)),
        ("bilinear", (1, 2, 3, 4)),
        ("bicubic", (1, 2, 3, 4)),
        ("trilinear", (1, 1, 2, 3, 3)),
        ("nearest", (1, 2, 3, 4)),
        ("area", (1, 2, 5, 4)),
    ],
)
def test_interpolate_gradcheck_and_double_backward(mode, shape):
    x = ember.tensor(_rand(*shape), requires_grad=True)
    kw = {"scale_factor": 1.5} if mode != "area" else {"size": 3}
    assert ember.autograd.gradcheck(lambda t: F.interpolate(t, mode=mode, **kw), (x,))
    assert ember.autograd.gradgradcheck(lambda t: F.interpolate(t, mode=mode, **kw) ** 2, (x,))


def test_interpolate_on_meta_gives_shapes():
    x = ember.empty(2, 3, 8, 8, device="meta")
    for mode in ("nearest", "bilinear", "bicubic", "area"):
        y = F.interpolate(x, scale_factor=2, mode=mode)
        assert y.shape == (2, 3, 16, 16) and y.device.type == "meta"


@needs_torch
@pytest.mark.parametrize(
    "shape,kw",
    [
        ((1, 2, 4), {"size": 0}),
        ((1, 2, 4), {"scale_factor": 0.1}),
        ((1, 2, 4, 4), {"scale_factor": 0.1, "mode": "bilinear"}),
        ((1, 2, 4, 4), {"size": (0, 3), "mode": "bicubic"}),
        ((1, 2, 3, 4, 5), {"size": (1, 0, 2), "mode": "trilinear"}),
        ((1, 2, 4), {"size": (2.0,)}),
        ((1, 2, 4), {"size": (2, 3)}),
        ((1, 2, 4), {"scale_factor": (2, 3)}),
        ((1, 2, 4), {"scale_factor": -1.0}),
        ((1, 2, 4), {}),
        ((1, 2, 4), {"size": 3, "scale_factor": 2}),
        ((1, 2, 4), {"size": 3, "recompute_scale_factor": True}),
        ((1, 2, 4), {"size": 3, "align_corners": True}),
        ((1, 2, 4), {"size": 3, "align_corners": False, "mode": "area"}),
        ((1, 2, 4), {"size": 3, "antialias": True, "mode": "linear"}),
        ((1, 2, 4), {"size": 3, "mode": "bilinear"}),
        ((1, 2, 4, 4), {"size": 3, "mode": "linear"}),
        ((1, 2, 4, 4, 4), {"size": 3, "mode": "bilinear"}),
        ((1, 2, 4, 4), {"size": 3, "mode": "foo"}),
        ((2, 4), {"size": 3}),
        ((1, 2, 4), {"size": 3, "mode": "bicubic"}),
        ((1, 0, 4, 4), {"size": 3, "mode": "bilinear"}),
        ((1, 2, 0, 4), {"size": 3, "mode": "bilinear"}),
    ],
)
def test_interpolate_errors_match_torch(shape, kw):
    x = _rand(*shape)
    with pytest.raises(Exception) as expected:
        TF.interpolate(torch.tensor(x), **kw)
    with pytest.raises(expected.type, match=None) as got:
        F.interpolate(ember.tensor(x), **kw)
    assert str(got.value) == str(expected.value)


def test_interpolate_antialias_box_of_ones():
    # antialias is tested against torch in test_interpolate_antialias.py
    y = F.interpolate(ember.ones(1, 1, 4, 4), size=2, mode="bilinear", antialias=True)
    assert np.allclose(y.numpy(), 1.0)


@needs_torch
@pytest.mark.parametrize(
    "fn,kw",
    [
        ("upsample", {"mode": "bilinear"}),
        ("upsample", {}),
        ("upsample_nearest", {}),
        ("upsample_bilinear", {}),
    ],
)
def test_deprecated_upsample_functions_warn_and_match(fn, kw):
    x = _rand(1, 2, 3, 4)
    with pytest.warns(UserWarning, match=f"`nn.functional.{fn}` is deprecated") as rec:
        y = getattr(F, fn)(ember.tensor(x), scale_factor=2, **kw)
    assert rec[0].filename == __file__  # points at the caller
    with pytest.warns(UserWarning):
        t = getattr(TF, fn)(torch.tensor(x), scale_factor=2, **kw)
    np.testing.assert_allclose(y.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


# ---- grid_sample / affine_grid --------------------------------------------------------------
def _grid_case(dims, seed=0, spread=1.6):
    rng = np.random.default_rng(seed)
    spatial = (4, 5) if dims == 2 else (3, 4, 5)
    out = (3, 4) if dims == 2 else (2, 3, 4)
    return rng.standard_normal((2, 3) + spatial), rng.uniform(-spread, spread, (2,) + out + (dims,))


GRID_CASES = [
    (d, m, p, a)
    for d in (2, 3)
    for m in ("bilinear", "nearest", "bicubic")
    for p in ("zeros", "border", "reflection")
    for a in (False, True)
    if not (d == 3 and m == "bicubic")
]


@needs_torch
@pytest.mark.parametrize("dims,mode,padding,align", GRID_CASES)
def test_grid_sample_matches_torch(dims, mode, padding, align):
    x, g = _grid_case(dims, seed=len(mode) + len(padding) + align)
    ex, eg = ember.tensor(x, requires_grad=True), ember.tensor(g, requires_grad=True)
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    ey = F.grid_sample(ex, eg, mode, padding, align)
    ty = TF.grid_sample(tx, tg, mode, padding, align)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-9, atol=1e-12)
    gy = _rand(*ty.shape, seed=3)
    ey.backward(ember.tensor(gy))
    ty.backward(torch.tensor(gy))
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(eg.grad.numpy(), tg.grad.numpy(), rtol=1e-9, atol=1e-11)
    assert ey.grad_fn.name() == _node(ty)


@needs_torch
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_at_pixel_centres_and_borders(padding, align):
    # points exactly on pixel centres, borders and half-way (nearest rounds half to even)
    x = _rand(1, 2, 3, 4)
    xs = np.linspace(-1.5, 1.5, 13)
    g = np.stack(np.meshgrid(xs, xs[::2], indexing="xy"), -1)[None]
    for mode in ("bilinear", "nearest", "bicubic"):
        ey = F.grid_sample(ember.tensor(x), ember.tensor(g), mode, padding, align)
        ty = TF.grid_sample(torch.tensor(x), torch.tensor(g), mode, padding, align)
        np.testing.assert_allclose(ey.numpy(), ty.numpy(), rtol=1e-9, atol=1e-12)


@needs_torch
def test_grid_sample_second_order_matches_torch():
    x, g = _grid_case(2, seed=5, spread=1.2)
    for mode in ("bilinear", "bicubic"):
        ex, eg = ember.tensor(x, requires_grad=True), ember.tensor(g, requires_grad=True)
        tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
        ey = F.grid_sample(ex, eg, mode, "reflection", False)
        ty = TF.grid_sample(tx, tg, mode, "reflection", False)
        egx, egg = ember.autograd.grad((ey**2).sum(), (ex, eg), create_graph=True)
        tgx, tgg = torch.autograd.grad((ty**2).sum(), (tx, tg), create_graph=True)
        e2 = ember.autograd.grad(egx.sum() + (egg**2).sum(), (ex, eg))
        t2 = torch.autograd.grad(tgx.sum() + (tgg**2).sum(), (tx, tg))
        for a, b in zip(e2, t2):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize(
    "mode,padding",
    [
        ("bilinear", "zeros"),
        ("bilinear", "reflection"),
        ("bicubic", "border"),
        ("nearest", "zeros"),
    ],
)
def test_grid_sample_gradcheck(mode, padding):
    rng = np.random.default_rng(7)
    x = ember.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    g = ember.tensor(rng.uniform(-1.2, 1.2, (1, 2, 3, 2)), requires_grad=True)

    def f(a, b):
        return F.grid_sample(a, b, mode, padding, align_corners=False)

    assert ember.autograd.gradcheck(f, (x, g))
    assert ember.autograd.gradgradcheck(f, (x, g))
    x3 = ember.tensor(rng.standard_normal((1, 1, 2, 3, 2)), requires_grad=True)
    g3 = ember.tensor(rng.uniform(-1.2, 1.2, (1, 2, 1, 2, 3)), requires_grad=True)
    if mode != "bicubic":
        assert ember.autograd.gradcheck(
            lambda a, b: F.grid_sample(a, b, mode, padding, True), (x3, g3)
        )


@needs_torch
@pytest.mark.parametrize(
    "xs,gs",
    [
        ((0, 3, 4, 5), (0, 3, 3, 2)),
        ((2, 0, 4, 5), (2, 3, 3, 2)),
        ((2, 3, 4, 5), (2, 0, 3, 2)),
        ((2, 3, 4, 5, 6), (2, 0, 3, 2, 3)),
    ],
)
def test_grid_sample_empty_shapes(xs, gs):
    x, g = _rand(*xs), np.random.default_rng(1).uniform(-1, 1, gs)
    ex, eg = ember.tensor(x, requires_grad=True), ember.tensor(g, requires_grad=True)
    ey = F.grid_sample(ex, eg, align_corners=False)
    assert tuple(ey.shape) == tuple(
        TF.grid_sample(torch.tensor(x), torch.tensor(g), align_corners=False).shape
    )
    ey.sum().backward()
    assert ex.grad.shape == ex.shape and eg.grad.shape == eg.shape


@needs_torch
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_grid_sample_single_and_half_precision(dtype):
    x, g = _grid_case(2, seed=2)
    x, g = x.astype(dtype), g.astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-2
    for mode in ("bilinear", "bicubic"):
        ey = F.grid_sample(ember.tensor(x), ember.tensor(g), mode, align_corners=False)
        ty = TF.grid_sample(torch.tensor(x), torch.tensor(g), mode, align_corners=False)
        assert ey.dtype == getattr(ember, ty.dtype.__str__().split(".")[1])
        np.testing.assert_allclose(
            ey.numpy().astype(float), ty.numpy().astype(float), rtol=tol, atol=tol
        )


def test_grid_sample_meta_gives_shape():
    y = F.grid_sample(
        ember.empty(2, 3, 4, 5, device="meta"),
        ember.empty(2, 6, 7, 2, device="meta"),
        align_corners=True,
    )
    assert y.shape == (2, 3, 6, 7) and y.device.type == "meta"


def test_grid_sample_and_affine_grid_warn_without_align_corners():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0") as rec:
        F.grid_sample(ember.ones(1, 1, 2, 2), ember.zeros(1, 1, 1, 2))
    assert rec[0].filename == __file__
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(ember.zeros(1, 2, 3), (1, 1, 2, 2))


@needs_torch
@pytest.mark.parametrize(
    "xs,gs,kw",
    [
        ((2, 3, 4, 5), (3, 3, 3, 2), {}),
        ((2, 3, 4, 5), (2, 3, 3, 3), {}),
        ((2, 3, 4, 5), (2, 3, 3), {}),
        ((3, 4, 5), (2, 3, 3, 2), {}),
        ((2, 3, 4, 5), (2, 3, 3, 3, 2), {}),
        ((2, 3, 4, 5, 6, 7), (2, 3, 3, 3, 3, 4), {}),
        ((2, 3, 4), (2, 3, 1), {}),
        ((2, 3, 4, 5, 6), (2, 3, 3, 3, 3), {"mode": "bicubic"}),
        ((2, 3, 0, 5), (2, 3, 3, 2), {}),
        ((2, 3, 4, 5), (2, 3, 3, 2), {"mode": "foo"}),
        ((2, 3, 4, 5), (2, 3, 3, 2), {"padding_mode": "foo"}),
        ((2, 3, 4, 5), (2, 3, 3, 2), {"grid_dtype": np.float32}),
        ((2, 3, 4, 5), (2, 3, 3, 2), {"dtype": np.int64}),
        ((2, 3, 4, 5, 6), (2, 3, 3, 3, 3), {"dtype": np.int64}),
    ],
)
def test_grid_sample_errors_match_torch(xs, gs, kw):
    kw = dict(kw)
    dt = kw.pop("dtype", np.float64)
    gdt = kw.pop("grid_dtype", dt)
    x, g = np.zeros(xs, dt), np.zeros(gs, gdt)
    with pytest.raises(Exception) as expected:
        TF.grid_sample(torch.tensor(x), torch.tensor(g), align_corners=False, **kw)
    with pytest.raises(expected.type) as got:
        F.grid_sample(ember.tensor(x), ember.tensor(g), align_corners=False, **kw)
    assert str(got.value).startswith(str(expected.value))


AFFINE_SIZES = [
    (2, 3, 4, 5),
    (2, 1, 3, 4, 5),
    (2, 3, 1, 1),
    (2, 3, 1, 4),
    (2, 3, 1, 1, 2),
    [2, 3, 4, 5],
]


@needs_torch
@pytest.mark.parametrize("size", AFFINE_SIZES)
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_matches_torch(size, align):
    k = len(size) - 2
    th = _rand(2, k, k + 1, seed=k)
    e, t = ember.tensor(th, requires_grad=True), torch.tensor(th, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit-size grids with align_corners warn in both
        ey, ty = F.affine_grid(e, size, align), TF.affine_grid(t, size, align)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-14)
    gy = _rand(*ty.shape, seed=9)
    ey.backward(ember.tensor(gy))
    ty.backward(torch.tensor(gy))
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-13)
    assert ey.grad_fn.name() == _node(ty)


def test_affine_grid_gradcheck_and_into_grid_sample():
    th = ember.tensor(_rand(2, 2, 3, seed=4) * 0.5, requires_grad=True)
    x = ember.tensor(_rand(2, 3, 5, 6, seed=5))
    assert ember.autograd.gradcheck(lambda t: F.affine_grid(t, (2, 3, 4, 5), False), (th,))
    assert ember.autograd.gradcheck(
        lambda t: F.grid_sample(x, F.affine_grid(t, (2, 3, 4, 5), False), align_corners=False),
        (th,),
    )
    # the identity map samples the input back (at pixel centres)
    eye = ember.tensor(np.tile(np.eye(2, 3), (2, 1, 1)))
    y = F.grid_sample(x, F.affine_grid(eye, (2, 3, 5, 6), True), align_corners=True)
    np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-12)


@needs_torch
@pytest.mark.parametrize(
    "shape,size",
    [
        ((2, 2, 3), (2, 3, 4)),
        ((2, 2, 3), (2, 3, 4, 5, 6)),
        ((2, 3, 4), (2, 3, 4, 5)),
        ((2, 2, 3), (2, 3, 0, 5)),
        ((2, 2, 3), (3, 3, 4, 5)),
        ((1, 2, 3), (2, 3, 4, 5)),
        ((2, 3), (2, 3, 4, 5)),
        ("int", (2, 3, 4, 5)),
    ],
)
def test_affine_grid_errors_match_torch(shape, size):
    th = np.zeros((2, 2, 3), np.int64) if shape == "int" else np.zeros(shape)
    with pytest.raises(Exception) as expected:
        TF.affine_grid(torch.tensor(th), size, align_corners=False)
    with pytest.raises(expected.type) as got:
        F.affine_grid(ember.tensor(th), size, align_corners=False)
    assert str(got.value) == str(expected.value).replace("torch.", "ember.")


def test_affine_grid_meta_gives_shape():
    y = F.affine_grid(ember.empty(2, 3, 4, device="meta"), (2, 1, 3, 4, 5), align_corners=False)
    assert y.shape == (2, 3, 4, 5, 3) and y.device.type == "meta"


@needs_torch
@pytest.mark.parametrize("size", [(8, 10), (7, 9), (4, 15)])
def test_nearest_upsample_on_meta_has_torchs_shape(size):
    # (8, 10) and (4, 15) are integer upscales: the repeat path, which meta must shape too
    e = ember.nn.functional.interpolate(ember.empty(2, 3, 4, 5, device="meta"), size=size)
    t = torch.nn.functional.interpolate(torch.empty(2, 3, 4, 5, device="meta"), size=size)
    assert e.is_meta and tuple(e.shape) == tuple(t.shape)
