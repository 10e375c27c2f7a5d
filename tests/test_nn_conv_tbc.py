"""F.conv_tbc (time-batch-channel 1-D convolution): values, gradients and errors against torch."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

RNG = np.random.default_rng(0)


def _rand(*shape):
    return RNG.standard_normal(shape)


def _close(a, b, tol=1e-9):
    a = a.detach().numpy() if hasattr(a, "detach") else a
    b = b.detach().numpy() if hasattr(b, "detach") else b
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# (T, B, C_in, K, C_out, pad): padding, cropping (negative pad), a kernel as long as the padded
# input, an empty output, an empty kernel, an empty batch, a 1-step kernel
CASES = [
    (5, 2, 3, 3, 4, 0),
    (5, 2, 3, 3, 4, 1),
    (6, 3, 2, 2, 5, -1),
    (7, 1, 2, 1, 3, 2),
    (4, 3, 5, 4, 2, 3),
    (3, 2, 3, 3, 4, 0),
    (2, 2, 3, 3, 4, 0),
    (0, 2, 3, 3, 4, 1),
    (5, 2, 3, 0, 4, 0),
    (5, 0, 3, 3, 4, 1),
    (8, 2, 4, 3, 3, -2),
]


@needs_torch
@pytest.mark.parametrize("case", CASES)
def test_conv_tbc_matches_torch(case):
    T, B, C, K, Co, pad = case
    x, w, b = _rand(T, B, C), _rand(K, C, Co), _rand(Co)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ex, ew, eb = (ember.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = torch.nn.functional.conv_tbc(tx, tw, tb, pad)
    ey = EF.conv_tbc(ex, ew, eb, pad)
    _close(ey, ty)
    assert ey.is_contiguous()
    g = _rand(*ty.shape)
    ty.backward(torch.tensor(g))
    ey.backward(ember.tensor(g))
    for e, t in ((ex, tx), (ew, tw), (eb, tb)):
        assert e.grad is not None
        _close(e.grad, t.grad)


@needs_torch
def test_conv_tbc_keyword_pad_and_dtypes():
    x, w, b = _rand(6, 2, 3), _rand(3, 3, 4), _rand(4)
    for dt in ("float32", "int32"):
        xs, ws, bs = (a.astype(dt) if dt == "float32" else (a * 3).astype(dt) for a in (x, w, b))
        ey = EF.conv_tbc(ember.tensor(xs), ember.tensor(ws), ember.tensor(bs), pad=1)
        ty = torch.nn.functional.conv_tbc(
            torch.tensor(xs), torch.tensor(ws), torch.tensor(bs), pad=1
        )
        assert str(ey.dtype).split(".")[1] == str(ty.dtype).split(".")[1]
        _close(ey, ty, 1e-5)
    # the bias takes the input's dtype, as torch
    ey = EF.conv_tbc(ember.tensor(x), ember.tensor(w), ember.tensor(b.astype("float32")))
    ty = torch.nn.functional.conv_tbc(
        torch.tensor(x), torch.tensor(w), torch.tensor(b.astype("float32"))
    )
    assert ey.dtype == ember.float64 and ty.dtype == torch.float64
    _close(ey, ty, 1e-6)


def test_conv_tbc_gradcheck_and_double_backward():
    x, w, b = (ember.tensor(_rand(*s), requires_grad=True) for s in ((5, 2, 3), (3, 3, 2), (2,)))
    for pad in (0, 1, -1):

        def f(x, w, b, pad=pad):
            return EF.conv_tbc(x, w, b, pad)

        assert ember.autograd.gradcheck(f, (x, w, b))
        assert ember.autograd.gradgradcheck(f, (x, w, b))


def test_conv_tbc_is_conv1d_on_time_major_views():
    x, w, b = ember.tensor(_rand(7, 2, 3)), ember.tensor(_rand(3, 3, 4)), ember.tensor(_rand(4))
    ref = EF.conv1d(x.permute(1, 2, 0), w.permute(2, 1, 0), b, padding=2).permute(2, 0, 1)
    _close(EF.conv_tbc(x, w, b, 2), ref, 1e-12)


def _args(x=(5, 2, 3), w=(3, 3, 4), b=(4,), dtypes=("float64",) * 3):
    return tuple(np.zeros(s, dtype=d) for s, d in zip((x, w, b), dtypes))


@needs_torch
@pytest.mark.parametrize(
    "args,pad",
    [
        (_args(x=(5, 3)), 0),
        (_args(x=(1, 5, 2, 3)), 0),
        (_args(w=(3, 4)), 0),
        (_args(b=(1, 4)), 0),
        (_args(b=(3,)), 0),
        (_args(w=(3, 2, 4)), 0),
        (_args(x=(1, 2, 3)), 0),
        (_args(), -2),
        (_args(dtypes=("float32", "float64", "float64")), 0),
        (_args(dtypes=("float64", "float32", "float64")), 0),
        (_args(dtypes=("bool", "bool", "bool")), 0),
        (_args(), 1.5),
        (_args(), True),
        (_args(), "1"),
    ],
)
def test_conv_tbc_errors_match_torch(args, pad):
    with pytest.raises(Exception) as expected:
        torch.nn.functional.conv_tbc(*(torch.tensor(a) for a in args), pad)
    with pytest.raises(expected.type) as got:
        EF.conv_tbc(*(ember.tensor(a) for a in args), pad)
    assert str(got.value).startswith(str(expected.value).replace("torch.", "ember."))
    assert "conv_tbc" in str(got.value) or expected.type is not RuntimeError


@needs_torch
def test_conv_tbc_argument_type_errors_match_torch():
    x, w, b = _args()
    for args in (([1.0], w, b), (x, w, None)):
        with pytest.raises(TypeError) as expected:
            torch.nn.functional.conv_tbc(
                *(torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args)
            )
        with pytest.raises(TypeError) as got:
            EF.conv_tbc(*(ember.tensor(a) if isinstance(a, np.ndarray) else a for a in args))
        assert str(got.value) == str(expected.value)
    with pytest.raises(TypeError):
        EF.conv_tbc(ember.tensor(x), ember.tensor(w))  # bias is required, as torch
    assert EF.conv_tbc(*(ember.tensor(a) for a in (x, w, b)), ember.tensor(1)).shape == (5, 2, 4)
