"""nn.functional's padding and resampling (pad, interpolate, upsample*, pixel_shuffle...):
values, gradients and errors against torch in float64, gradcheck, meta shapes."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = TF = None
needs_torch = pytest.mark.skipif(torch is None,
                                 reason="torch is the reference for this test (pip install torch)")


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
    _parity(lambda t: F.pad(t, pad, mode=mode), lambda t: TF.pad(t, pad, mode=mode),
            _rand(*shape), tol=1e-13)


@needs_torch
@pytest.mark.parametrize("shape,pad", [((2, 3, 2), (1, 2, 0, 1, 2, 1)), ((4,), (2, 3)),
                                       ((2, 3, 4), (-1, -1, 1, 0)), ((), ()), ((2, 3), ())])
def test_pad_constant_any_rank_and_value(shape, pad):
    x = _rand(*shape)
    _parity(lambda t: F.pad(t, pad, value=2.5), lambda t: TF.pad(t, pad, value=2.5), x, tol=1e-13,
            node=bool(pad))


@needs_torch
def test_pad_constant_value_on_integer_and_bool_tensors():
    x = np.arange(5)
    for v in (2.7, -2.7, 3, True):
        np.testing.assert_array_equal(F.pad(ember.tensor(x), (1, 2), value=v).numpy(),
                                      TF.pad(torch.tensor(x), (1, 2), value=v).numpy())
    b = np.array([True, False])
    np.testing.assert_array_equal(F.pad(ember.tensor(b), (1, 1), value=2.7).numpy(),
                                  TF.pad(torch.tensor(b), (1, 1), value=2.7).numpy())


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
@pytest.mark.parametrize("shape,pad,kw", [
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
])
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
