"""``F.interpolate(..., antialias=True)`` (bilinear, bicubic, lanczos) against torch."""

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
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

MODES = [("bilinear", False), ("bilinear", True), ("bicubic", False), ("bicubic", True)]
MODES += [("lanczos", False)]
SIZES = [
    ((7, 9), dict(size=(3, 4))),
    ((7, 9), dict(size=(1, 1))),
    ((7, 9), dict(size=(11, 13))),  # up
    ((7, 9), dict(size=(16, 2))),  # up one axis, down the other
    ((7, 9), dict(size=(7, 5))),  # one axis unchanged
    ((32, 32), dict(scale_factor=0.37)),
    ((32, 32), dict(scale_factor=(0.3, 2.2))),
    ((32, 32), dict(scale_factor=1 / 3, recompute_scale_factor=True)),
    ((33, 20), dict(scale_factor=1.7)),
    ((100, 37), dict(size=(9, 200))),
    ((2, 3), dict(size=(5, 1))),  # torch's width-1 quirk
    ((1, 1), dict(size=(4, 3))),
]


def _pair(shape, dtype, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode,ac", MODES)
def test_values_match_torch(mode, ac, dtype):
    tol = 1e-6 if dtype == "float32" else 1e-12
    for hw, kw in SIZES:
        e, t = _pair((2, 3, *hw), dtype)
        want = TF.interpolate(t, mode=mode, align_corners=ac, antialias=True, **kw)
        got = F.interpolate(e, mode=mode, align_corners=ac, antialias=True, **kw)
        assert got.dtype == e.dtype and tuple(got.shape) == tuple(want.shape), (hw, kw)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol, err_msg=str(kw))


@needs_torch
def test_weights_are_torchs_bit_for_bit():
    # an identity image resized along W only: the output columns are torch's weights
    for mode, ac in [("bilinear", False), ("bilinear", True), ("bicubic", False)]:
        for n_in, n_out in [(3, 2), (7, 13), (32, 5), (100, 31), (5, 64)]:
            eye = np.eye(n_in, dtype="float32")[None, None]
            kw = dict(size=(n_in, n_out), mode=mode, align_corners=ac, antialias=True)
            want = TF.interpolate(torch.from_numpy(eye), **kw).numpy()
            got = F.interpolate(ember.from_numpy(eye), **kw).numpy()
            assert (got == want).all(), (mode, ac, n_in, n_out)


@needs_torch
def test_upsampling_bilinear_equals_plain_as_torch():
    e, t = _pair((1, 2, 5, 6), "float64")
    for ac in (False, True):
        kw = dict(size=(11, 17), mode="bilinear", align_corners=ac)
        aa, plain = F.interpolate(e, antialias=True, **kw), F.interpolate(e, **kw)
        taa, tplain = TF.interpolate(t, antialias=True, **kw), TF.interpolate(t, **kw)
        same = torch.allclose(taa, tplain, atol=1e-12)
        assert same == (not ac)  # torch's own behaviour, so the test below means something
        assert np.allclose(aa.numpy(), plain.numpy(), atol=1e-12) == same
        np.testing.assert_allclose(aa.numpy(), taa.numpy(), atol=1e-12)


@needs_torch
@pytest.mark.parametrize("mode,ac", MODES)
def test_gradient_matches_torch(mode, ac):
    for hw, kw in [((7, 9), dict(size=(3, 13))), ((6, 8), dict(size=(2, 1)))]:
        e, t = _pair((2, 2, *hw), "float64", seed=1)
        e.requires_grad_()
        t.requires_grad_()
        ye = F.interpolate(e, mode=mode, align_corners=ac, antialias=True, **kw)
        yt = TF.interpolate(t, mode=mode, align_corners=ac, antialias=True, **kw)
        g = np.random.default_rng(2).standard_normal(tuple(yt.shape))
        ye.backward(ember.from_numpy(g.copy()))
        yt.backward(torch.from_numpy(g.copy()))
        assert ye.grad_fn.name() == yt.grad_fn.name().replace("torch::autograd::", "")
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_gradcheck_and_gradgradcheck(mode):
    x = ember.from_numpy(np.random.default_rng(3).standard_normal((1, 2, 6, 7)))
    x.requires_grad_()
    for size in [(3, 11), (9, 2)]:

        def f(t, size=size):
            return F.interpolate(t, size=size, mode=mode, antialias=True)

        assert ember.autograd.gradcheck(f, (x,))
        assert ember.autograd.gradgradcheck(f, (x,))


def test_meta_shapes():
    x = ember.empty(2, 3, 30, 17, device="meta")
    y = F.interpolate(x, scale_factor=(0.5, 1.7), mode="bicubic", antialias=True)
    assert y.device.type == "meta" and tuple(y.shape) == (2, 3, 15, 28)
    assert y.dtype == ember.float32


@needs_torch
def test_errors_match_torch():
    cases = [
        ((1, 2, 9), "float32", dict(size=4, mode="bilinear", antialias=True)),
        ((1, 2, 3, 5, 9), "float32", dict(size=4, mode="bicubic", antialias=True)),
        ((1, 2, 5, 9), "float32", dict(size=4, mode="nearest", antialias=True)),
        ((1, 2, 5, 9), "float32", dict(size=4, mode="area", antialias=True)),
        ((1, 2, 5, 9), "float32", dict(size=4, mode="lanczos")),
        ((1, 2, 5, 9), "float32", dict(size=4, mode="lanczos", antialias=True, align_corners=True)),
        ((1, 2, 9), "float32", dict(size=4, mode="lanczos")),
        ((1, 2, 5, 9), "float16", dict(size=4, mode="bilinear", antialias=True)),
        ((1, 2, 5, 9), "int32", dict(size=4, mode="bicubic", antialias=True)),
        ((1, 2, 5, 9), "float32", dict(size=0, mode="bilinear", antialias=True)),
    ]
    for shape, dtype, kw in cases:
        e, t = _pair(shape, dtype)
        with pytest.raises(Exception) as want:
            TF.interpolate(t, **kw)
        with pytest.raises(type(want.value)) as got:
            F.interpolate(e, **kw)
        assert str(got.value) == str(want.value), kw


@needs_torch
def test_resize_in_a_data_pipeline_program():
    # a torchvision-style Resize: uint8-like images as float, resized with antialias, then
    # normalized and batched
    rng = np.random.default_rng(4)
    images = [rng.integers(0, 256, (3, h, w)).astype("float32") for h, w in [(64, 48), (37, 90)]]

    def pipeline(lib, fn):
        out = []
        for img in images:
            x = lib.from_numpy(img.copy())[None] / 255.0
            x = fn.interpolate(x, size=(24, 24), mode="bilinear", antialias=True)
            mean = lib.tensor([0.485, 0.456, 0.406]).reshape(1, 3, 1, 1)
            out.append((x - mean) / 0.25)
        return lib.cat(out).numpy()

    np.testing.assert_allclose(pipeline(ember, F), pipeline(torch, TF), rtol=1e-6, atol=1e-6)
