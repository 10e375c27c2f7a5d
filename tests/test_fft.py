"""torch.fft, stft/istft and the window functions against torch: values (float64, 1e-9
relative), output dtypes and shapes, gradients (autograd.grad against torch's, gradcheck and
gradgradcheck on real compositions), error types and messages, and meta-device shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

C2C = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"]
R2C = ["rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn"]  # real input only
C2R = ["irfft", "hfft", "irfft2", "irfftn", "hfft2", "hfftn"]  # real output
ONE_D = {"fft", "ifft", "rfft", "ihfft", "irfft", "hfft"}
ALL = C2C + R2C + C2R
KWARGS_1D = [{}, {"norm": "ortho"}, {"norm": "forward"}, {"n": 4}, {"n": 9, "dim": 0}]
KWARGS_ND = [
    {},
    {"norm": "ortho"},
    {"norm": "forward"},
    {"s": (4, 9)},
    {"dim": (2, 0)},
    {"s": (6, 3), "dim": (0, 1)},
    {"dim": (1,)},
    {"s": (-1, 5)},
]


def _kwargs(name):
    if name in ONE_D:
        return KWARGS_1D
    if name.endswith("2"):
        return [k for k in KWARGS_ND if "dim" not in k or len(k["dim"]) == 2]
    return KWARGS_ND


def _cases():
    for name in ALL:
        for cplx in (False, True):
            if cplx and name in R2C:
                continue
            for kw in _kwargs(name):
                yield name, cplx, kw


def _input(shape, cplx, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    return a + 1j * rng.standard_normal(shape) if cplx else a


def _np(t):
    t = t.detach()
    if torch is not None and isinstance(t, torch.Tensor):
        t = t.resolve_conj()
    return np.asarray(t.numpy())


def _close(a, b, rtol=1e-9):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape
    scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=0, atol=rtol * scale)


def _same_dtype(e, t):
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]


# ---- values and gradients against torch --------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("name,cplx,kw", list(_cases()))
def test_transform_values_and_grads_match_torch(name, cplx, kw):
    a = _input((5, 6, 7) if name not in ONE_D else (5, 6), cplx)
    x, xt = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, yt = getattr(ember.fft, name)(x, **kw), getattr(torch.fft, name)(xt, **kw)
    _same_dtype(y, yt)
    _close(y, yt)
    v = _input(tuple(yt.shape), yt.is_complex(), seed=1)
    (g,) = ember.autograd.grad(y, x, ember.tensor(v))
    (gt,) = torch.autograd.grad(yt, xt, torch.tensor(v))
    _same_dtype(g, gt)
    _close(g, gt)


@needs_torch
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "bool", "complex64"])
def test_output_dtypes_match_torch(name, dt):
    if dt.startswith("complex") and name in R2C:
        return
    x = ember.ones(4, 6, dtype=getattr(ember, dt))
    y = getattr(ember.fft, name)(x)
    yt = getattr(torch.fft, name)(torch.ones(4, 6, dtype=getattr(torch, dt)))
    _same_dtype(y, yt)
    assert tuple(y.shape) == tuple(yt.shape)
    np.testing.assert_allclose(_np(y), _np(yt), atol=1e-5)


@needs_torch
def test_default_dtype_float64_promotes_integers_to_complex128():
    old = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.fft.fft(ember.arange(4)).dtype == ember.complex128
        assert ember.fft.irfft(ember.arange(4)).dtype == ember.float64
    finally:
        ember.set_default_dtype(old)


@pytest.mark.parametrize("shape", [(3, 6, 7), (5, 3, 8), (64, 4, 9), (2, 1, 5)])
@pytest.mark.parametrize("complex_weight", [True, False])
def test_fast_gradient_path_equals_double_backward_path(shape, complex_weight):
    """Outside create_graph the one-sided gradients scale the band of the last axis in one pass
    (rows tiled by the largest power of two dividing their count: 1, 4, 64 here), and a real
    weight's gradient is one contraction over the real views; with it they are Tensor
    formulas: both must give the same numbers."""
    n, m = shape[-2:]
    x = ember.tensor(_input(shape, False), requires_grad=True)
    w = ember.tensor(_input(shape[-2:-1] + (m // 2 + 1,), complex_weight, seed=2))
    w.requires_grad_(True)
    y = (ember.fft.irfft2(ember.fft.rfft2(x) * w, s=(n, m)) ** 2).sum()
    g1 = ember.autograd.grad(y, (x, w), retain_graph=True)
    g2 = ember.autograd.grad(y, (x, w), create_graph=True)
    for a, b in zip(g1, g2, strict=True):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-12)


def test_upstream_gradient_is_not_modified():
    x = ember.tensor(_input((4, 6), False), requires_grad=True)
    y = ember.fft.rfft(x)
    v = ember.tensor(_input(tuple(y.shape), True, seed=3))
    before = v.numpy().copy()
    ember.autograd.grad(y, x, v)
    np.testing.assert_array_equal(v.numpy(), before)


# ---- gradcheck / gradgradcheck on real compositions --------------------------------------------
def _realify(t):
    return ember.view_as_real(t) if t.is_complex() else t


@pytest.mark.parametrize("name", ALL)
def test_gradcheck_and_gradgradcheck(name):
    kw = {"norm": "ortho"}
    x = ember.tensor(_input((2, 3, 4), False), requires_grad=True)

    def real_in(x):
        return _realify(getattr(ember.fft, name)(x, **kw)) ** 2

    assert gradcheck(real_in, (x,))
    assert gradgradcheck(real_in, (x,))
    if name in R2C:
        return
    xr = ember.tensor(_input((2, 3, 4, 2), False, seed=4), requires_grad=True)

    def complex_in(xr):
        return _realify(getattr(ember.fft, name)(ember.view_as_complex(xr), **kw)) ** 2

    assert gradcheck(complex_in, (xr,))
    assert gradgradcheck(complex_in, (xr,))


def test_gradcheck_fourier_layer_with_resizing():
    """The Fourier-neural-operator pattern: a spectral weight, trimmed and padded signals."""
    x = ember.tensor(_input((2, 5, 6), False), requires_grad=True)
    w = ember.tensor(_input((2, 4, 3), False, seed=5), requires_grad=True)

    def f(x, w):
        return ember.fft.irfft2(ember.fft.rfft2(x, s=(4, 5)) * w, s=(5, 7))

    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))


# ---- errors ------------------------------------------------------------------------------------
ERRORS = """
F.fft(x.half())
F.fft(x.bfloat16())
F.rfft(x.half())
F.rfft(x.to(C))
F.ihfft(x.to(C))
F.rfftn(x.to(C))
F.rfft2(x.to(C), dim=())
F.ihfft2(x.to(C))
F.ihfftn(x.to(C), dim=())
F.fft(x, norm='bad')
F.fft(x, norm='Ortho')
F.fft(x, norm=1)
F.fft(x, n=0)
F.fft(x, n=-1)
F.fft(x, dim=2)
F.fft(x, dim=-3)
F.fft(x, dim=(0,))
F.fft(x, dim=-1.0)
F.fft(x, n=2.5)
F.fft2(x, s=(3,), dim=(0,1))
F.fftn(x, s=(3,4,5))
F.fftn(x, dim=(0,0))
F.fftn(x, dim=(0,-2))
F.fft2(x, s=(2.0,3))
F.fftn(x, s=(4,0))
F.irfft(L.randn(1, dtype=L.float64).to(C))
F.irfft(L.randn(4, dtype=L.float64).to(C), n=0)
F.irfftn(L.randn(3, 1, dtype=L.float64).to(C))
F.rfft(L.randn(0))
F.fft(L.tensor(1.0))
F.rfftn(x, dim=())
F.rfft2(x, dim=())
F.irfftn(x.to(C), dim=())
F.irfft2(x, dim=())
F.hfft2(x, dim=())
F.ihfft2(x, dim=())
F.fft([1.0, 2.0])
F.fftfreq(5, dtype=L.int64)
F.rfftfreq(5, dtype=L.int32)
F.fftfreq(4, dtype=C)
F.fftfreq(-1)
F.fftshift(L.arange(5), dim=5)
F.fftshift(L.tensor(3))
L.hann_window(-1)
L.hann_window(3, dtype=L.int64)
L.hamming_window(3, dtype=L.int16)
L.kaiser_window(3, dtype=L.int32)
L.bartlett_window(3, dtype=L.bool)
L.blackman_window(3, dtype=C)
L.hamming_window(3.0)
L.stft(s, 16)
L.stft(s, 200, return_complex=True)
L.stft(s, 200, win_length=100, center=False, return_complex=True)
L.stft(s, 16, hop_length=0, return_complex=True)
L.stft(s, 16, win_length=20, return_complex=True)
L.stft(s, 16, win_length=8, window=L.ones(7), return_complex=True)
L.stft(s.long(), 16, return_complex=True, center=False)
L.stft(L.randn(2,2,100), 16, return_complex=True)
L.stft(s, 16, onesided=True, window=L.ones(16, dtype=L.float64).to(C), return_complex=True)
L.stft(s, 16, pad_mode='bad', return_complex=True)
L.stft(s, 16, align_to_window=True, return_complex=True)
L.stft(s.to(C), 16, hop_length=0, onesided=False, normalized=True)
L.stft(s.to(C), 16, hop_length=0, window=L.ones(16).to(L.complex64), center=False)
L.stft(s.to(L.float64), 16, hop_length=0, window=L.ones(3,4), center=False, return_complex=True)
L.stft(s.half(), 16, return_complex=True, window=L.ones(16).half())
L.istft(X.real, 16)
L.istft(X, 16, return_complex=True)
L.istft(X, 16, onesided=False)
L.istft(X, 16, hop_length=17)
L.istft(X, 16, win_length=17)
L.istft(X, 16, window=L.ones(5))
L.istft(X[None,None], 16)
L.istft(X[:, :0], 16)
L.istft(X, 16, window=L.zeros(16))
L.istft(X, 16, hop_length=16, window=L.hann_window(16))
L.istft(X, 16, window=L.ones(16, dtype=L.float64).to(C))
L.istft(X.to(C), 16, window=L.ones(16, dtype=L.float64).to(C), onesided=False)
L.istft(L.randn(3, dtype=L.float64).to(C), 16)
""".strip().splitlines()


_ERROR_INPUTS: dict = {}


def _raise(L, expr):
    if L not in _ERROR_INPUTS:
        s = L.randn(100)
        X = L.stft(s, 16, return_complex=True, window=L.ones(16))
        _ERROR_INPUTS[L] = dict(F=L.fft, C=L.complex128, L=L, x=L.randn(4, 6), s=s, X=X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            eval(expr, {}, _ERROR_INPUTS[L])
        except Exception as e:  # noqa: BLE001  (the error is what is compared)
            return type(e).__name__, str(e)
    return None


@needs_torch
@pytest.mark.parametrize("expr", ERRORS)
def test_errors_match_torch(expr):
    expected = _raise(torch, expr)
    assert expected is not None, f"torch accepts {expr}"
    assert _raise(ember, expr) == expected


# ---- frequencies and shifts --------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("n", [0, 1, 4, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.1, 2])
def test_fftfreq_rfftfreq(n, d):
    for name in ("fftfreq", "rfftfreq"):
        for dt in (None, "float64", "float16"):
            kw = {} if dt is None else {"dtype": getattr(ember, dt)}
            kwt = {} if dt is None else {"dtype": getattr(torch, dt)}
            a = getattr(ember.fft, name)(n, d, **kw)
            b = getattr(torch.fft, name)(n, d, **kwt)
            _same_dtype(a, b)
            np.testing.assert_array_equal(_np(a), _np(b))
    r = ember.fft.fftfreq(n, requires_grad=True)
    assert r.requires_grad and r.is_leaf
    out = ember.empty(0)
    assert ember.fft.rfftfreq(n, d, out=out) is out and out.shape == (n // 2 + 1,)


@needs_torch
@pytest.mark.parametrize("dim", [None, 0, 1, (0,), (-1, 0)])
def test_fftshift_ifftshift(dim):
    a = np.arange(35.0).reshape(5, 7)
    for name in ("fftshift", "ifftshift"):
        y = getattr(ember.fft, name)(ember.tensor(a), dim=dim)
        yt = getattr(torch.fft, name)(torch.tensor(a), dim=dim)
        np.testing.assert_array_equal(_np(y), _np(yt))
    x = ember.tensor(a)
    np.testing.assert_array_equal(_np(ember.fft.ifftshift(ember.fft.fftshift(x, dim), dim)), a)


def test_out_argument():
    x = ember.randn(4, 6, dtype=ember.float64)
    out = ember.empty(0, dtype=ember.complex128)
    r = ember.fft.rfft(x, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), ember.fft.rfft(x).numpy())
    out = ember.empty(4, 6, dtype=ember.float64)
    ember.fft.irfft2(ember.fft.rfft2(x), s=(4, 6), out=out)
    np.testing.assert_allclose(out.numpy(), x.numpy(), atol=1e-12)


def test_namespace_is_torchs():
    assert set(ember.fft.__all__) == {
        "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
        "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
        "rfftfreq", "fftshift", "ifftshift",
    }  # fmt: skip
    if torch is not None:
        public = {
            n for n in dir(torch.fft) if not n.startswith("_") and callable(getattr(torch.fft, n))
        }
        assert public - {"Tensor"} == set(ember.fft.__all__)


# ---- windows -----------------------------------------------------------------------------------
WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@needs_torch
@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(name, periodic):
    for n in (0, 1, 2, 3, 8, 33):
        for dt, tol in (("float64", 1e-14), ("float32", 1e-6), ("float16", 2e-3)):
            a = getattr(ember, name)(n, periodic, dtype=getattr(ember, dt))
            b = getattr(torch, name)(n, periodic, dtype=getattr(torch, dt))
            _same_dtype(a, b)
            np.testing.assert_allclose(
                _np(a).astype(np.float64), _np(b).astype(np.float64), atol=tol, rtol=0
            )
    w = getattr(ember, name)(5, requires_grad=True)
    assert w.requires_grad and w.dtype == ember.float32
    with ember.device("meta"):
        assert getattr(ember, name)(5).shape == (5,)


@needs_torch
def test_window_parameters():
    for args in ((7, True, 0.3, 0.2), (7, False, 0.6), (6,)):
        a = ember.hamming_window(*args, dtype=ember.float64)
        np.testing.assert_allclose(_np(a), _np(torch.hamming_window(*args, dtype=torch.float64)))
    for args in ((7, True, 5.0), (8, False, 0.5), (8, True)):
        a = ember.kaiser_window(*args, dtype=ember.float64)
        np.testing.assert_allclose(_np(a), _np(torch.kaiser_window(*args, dtype=torch.float64)))


# ---- stft / istft ------------------------------------------------------------------------------
STFT_CASES = [
    {"n_fft": 16},
    {"n_fft": 16, "hop_length": 5},
    {"n_fft": 16, "win_length": 10},
    {"n_fft": 15, "win_length": 9, "hop_length": 3},
    {"n_fft": 16, "center": False},
    {"n_fft": 16, "pad_mode": "constant"},
    {"n_fft": 16, "pad_mode": "replicate"},
    {"n_fft": 16, "normalized": True},
    {"n_fft": 16, "onesided": False},
    {"n_fft": 16, "win_length": 10, "center": False, "align_to_window": True},
    {"n_fft": 16, "win_length": 11, "center": False, "align_to_window": True, "hop_length": 3},
]


def _window_for(kind, length):
    if kind is None:
        return None
    w = np.hanning(length + 2)[1:-1]
    return w * (1 + 0.3j) if kind == "complex" else w


@needs_torch
@pytest.mark.parametrize("case", range(len(STFT_CASES)))
@pytest.mark.parametrize("kind", ["real", "complex-input", "complex-window", "no-window"])
def test_stft_istft_match_torch(case, kind):
    kw = STFT_CASES[case]
    if kind in ("complex-input", "complex-window") and "onesided" in kw:
        return
    shape = (100,) if case % 2 else (3, 64)
    a = _input(shape, kind == "complex-input")
    wa = _window_for({"complex-window": "complex", "no-window": None}.get(kind, "real"),
                     kw.get("win_length", kw["n_fft"]))  # fmt: skip
    x, xt = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    w = None if wa is None else ember.tensor(wa, requires_grad=True)
    wt = None if wa is None else torch.tensor(wa, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = ember.stft(x, window=w, return_complex=True, **kw)
        yt = torch.stft(xt, window=wt, return_complex=True, **kw)
    _same_dtype(y, yt)
    _close(y, yt)
    ins, inst = [x] + [w] * (w is not None), [xt] + [wt] * (wt is not None)
    v = _input(tuple(yt.shape), True, seed=7)
    for g, gt in zip(
        ember.autograd.grad(y, ins, ember.tensor(v)), torch.autograd.grad(yt, inst, torch.tensor(v))
    ):
        _close(g, gt)
    # istft of torch's spectrogram, with gradients to it and to the window
    ikw = {k: v for k, v in kw.items() if k not in ("pad_mode", "align_to_window")}
    cplx = kind in ("complex-input", "complex-window")
    for extra in ({}, {"length": shape[-1] + (7 if case % 2 else -3)}):
        Y, Yt = ember.tensor(_np(yt), requires_grad=True), torch.tensor(_np(yt), requires_grad=True)
        w2 = None if wa is None else ember.tensor(wa, requires_grad=True)
        wt2 = None if wa is None else torch.tensor(wa, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                rt = torch.istft(Yt, window=wt2, return_complex=cplx, **ikw, **extra)
            except RuntimeError as e:  # a window that vanishes on the tail: the same error
                with pytest.raises(RuntimeError) as got:
                    ember.istft(Y, window=w2, return_complex=cplx, **ikw, **extra)
                assert str(got.value) == str(e)
                continue
            r = ember.istft(Y, window=w2, return_complex=cplx, **ikw, **extra)
        _same_dtype(r, rt)
        _close(r, rt)
        v = _input(tuple(rt.shape), cplx, seed=8)
        ins, inst = [Y] + [w2] * (w2 is not None), [Yt] + [wt2] * (wt2 is not None)
        for g, gt in zip(
            ember.autograd.grad(r, ins, ember.tensor(v)),
            torch.autograd.grad(rt, inst, torch.tensor(v)),
        ):
            _close(g, gt)


def test_stft_istft_gradcheck_and_roundtrip():
    x = ember.tensor(_input((2, 40), False), requires_grad=True)
    w = ember.tensor(np.hanning(12)[1:-1].copy(), requires_grad=True)

    def f(x, w):
        return ember.view_as_real(ember.stft(x, 12, 3, 10, w, return_complex=True))

    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))

    def roundtrip(x, w):
        spec = ember.stft(x, 12, 3, 10, w, return_complex=True)
        return ember.istft(spec, 12, 3, 10, w, length=40)

    np.testing.assert_allclose(_np(roundtrip(x, w)), _np(x), atol=1e-12)
    assert gradcheck(roundtrip, (x, w))
    assert gradgradcheck(roundtrip, (x, w))


def test_stft_tensor_methods_and_warnings():
    x = ember.randn(64)
    w = ember.hann_window(16)
    assert ember.Tensor.stft is ember.stft and ember.Tensor.istft is ember.istft
    spec = x.stft(16, window=w, return_complex=True)
    assert spec.shape == (9, 17) and spec.dtype == ember.complex64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's deprecation warning of return_complex=False
        old = x.stft(16, window=w, return_complex=False)
    np.testing.assert_array_equal(old.numpy(), ember.view_as_real(spec).numpy())
    assert spec.istft(16, window=w).shape == (64,)
    # the rectangular-window warning is torch's TORCH_WARN_ONCE: at most once per process
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        ember.stft(x, 16, return_complex=True)
        ember.stft(x, 16, return_complex=True)
    assert sum("A window was not provided" in str(r.message) for r in rec) <= 1


# ---- meta --------------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("name", ALL)
def test_meta_shapes_and_dtypes(name):
    for cplx in (False, True):
        if cplx and name in R2C:
            continue
        for kw in _kwargs(name)[:4]:
            shape = (5, 6) if name in ONE_D else (5, 6, 7)
            x = ember.empty(*shape, device="meta", dtype=ember.complex64 if cplx else None)
            x.requires_grad_(True)
            xt = torch.empty(*shape, device="meta", dtype=torch.complex64 if cplx else None)
            y, yt = getattr(ember.fft, name)(x, **kw), getattr(torch.fft, name)(xt, **kw)
            assert y.device.type == "meta" and tuple(y.shape) == tuple(yt.shape)
            _same_dtype(y, yt)
            _realify(y).sum().backward()
            assert x.grad.shape == x.shape and x.grad.dtype == x.dtype


@needs_torch
def test_meta_stft_istft_freq():
    x = ember.empty(2, 100, device="meta")
    w = ember.hann_window(16, device="meta")
    y = ember.stft(x, 16, window=w, return_complex=True)
    wt = torch.hann_window(16, device="meta")
    yt = torch.stft(torch.empty(2, 100, device="meta"), 16, window=wt, return_complex=True)
    assert y.device.type == "meta" and tuple(y.shape) == tuple(yt.shape)
    _same_dtype(y, yt)
    r = ember.istft(y, 16, window=w, length=100)
    assert r.device.type == "meta" and r.shape == (2, 100) and r.dtype == ember.float32
    assert ember.fft.fftfreq(5, device="meta").shape == (5,)
    assert ember.fft.rfftfreq(5, device="meta").shape == (3,)


def _doc_params(doc_line: str) -> list[str]:
    """Parameter names of a torch docstring's signature line (``name(a, b=1, *, c=None)``)."""
    inner = doc_line[doc_line.index("(") + 1 : doc_line.rindex(")")]
    names, depth, cur = [], 0, ""
    for ch in inner + ",":
        depth += ch in "([" and 1 or (ch in ")]" and -1 or 0)
        if ch == "," and depth == 0:
            names.append(cur.strip().split("=")[0].strip())
            cur = ""
        else:
            cur += ch
    return [n for n in names if n and n != "*"]


@needs_torch
@pytest.mark.parametrize("name", sorted(ember.fft.__all__) + WINDOWS + ["stft", "istft"])
def test_signatures_match_torch(name):
    import inspect

    mod_e, mod_t = (ember.fft, torch.fft) if name in ember.fft.__all__ else (ember, torch)
    params = [
        p.name
        for p in inspect.signature(getattr(mod_e, name)).parameters.values()
        if p.kind is not p.VAR_KEYWORD
    ]
    if name == "stft":
        expected = list(inspect.signature(torch.stft).parameters)
    else:
        lines = [ln for ln in getattr(mod_t, name).__doc__.splitlines() if ln.strip()]
        expected = _doc_params(lines[0])
    # torch documents some factories without every keyword they accept (periodic, alpha, beta,
    # pin_memory): each documented name must be ember's, in torch's order
    assert [p for p in params if p in expected] == expected


def test_no_dims_is_a_complex_copy():
    x = ember.ones(3, dtype=ember.complex64)
    y = ember.fft.fftn(x, dim=())
    assert y is not x and y.dtype == ember.complex64
    y.add_(1)
    assert x.real.sum().item() == 3
    assert ember.fft.fftn(ember.ones(2, 3), dim=()).dtype == ember.complex64
