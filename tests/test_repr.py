"""Tests of ember/_tensor_str.py: ``repr(tensor)`` is PyTorch's, character for character
(with ``ember.`` where PyTorch prints ``torch.``)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import ember
from ember import _tensor_str

set_printoptions = _tensor_str.set_printoptions


@pytest.fixture(autouse=True)
def _default_printoptions():
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")


# ---- fixed expectations (PyTorch 2.13's output, no torch needed) -----------------------------
EXPECTED = [
    (lambda: ember.tensor([1.0, 2.0]), "tensor([1., 2.])"),
    (lambda: ember.tensor([1, 2]), "tensor([1, 2])"),
    (lambda: ember.tensor([True, False]), "tensor([ True, False])"),
    (lambda: ember.tensor(3.5), "tensor(3.5000)"),
    (lambda: ember.tensor(3), "tensor(3)"),
    (lambda: ember.tensor([1.5, -2.25]), "tensor([ 1.5000, -2.2500])"),
    (lambda: ember.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    # sci mode when max / min of the nonzero magnitudes exceeds 1000
    (lambda: ember.tensor([1.0, 1001.0]), "tensor([1.0000e+00, 1.0010e+03])"),
    (lambda: ember.tensor([1.0, 999.0]), "tensor([  1., 999.])"),
    (lambda: ember.tensor([1.5, 1001.0]), "tensor([   1.5000, 1001.0000])"),
    (lambda: ember.tensor([float("nan"), 1.0, float("-inf")]), "tensor([nan, 1., -inf])"),
    (lambda: ember.tensor([0.0, 0.0]), "tensor([0., 0.])"),
    (lambda: ember.tensor([[1.0, 2.0], [3.0, 4.0]]), "tensor([[1., 2.],\n        [3., 4.]])"),
    (
        lambda: ember.arange(8).reshape(2, 2, 2),
        "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])",
    ),
    (
        lambda: ember.tensor([1.0, 2.0], dtype=ember.float64),
        "tensor([1., 2.], dtype=ember.float64)",
    ),
    (lambda: ember.tensor([1, 2], dtype=ember.int32), "tensor([1, 2], dtype=ember.int32)"),
    (lambda: ember.zeros(0), "tensor([])"),
    (lambda: ember.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: ember.zeros(0, dtype=ember.int64), "tensor([], dtype=ember.int64)"),
    (lambda: ember.zeros(2, 3, device="meta"), "tensor(..., device='meta', size=(2, 3))"),
    (
        lambda: ember.zeros(2, device="meta", dtype=ember.int64),
        "tensor(..., device='meta', size=(2,), dtype=ember.int64)",
    ),
    (lambda: ember.ones(2, requires_grad=True), "tensor([1., 1.], requires_grad=True)"),
    (lambda: ember.ones(2, requires_grad=True) * 2, "tensor([2., 2.], grad_fn=<MulBackward0>)"),
    (lambda: ember.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (
        lambda: ember.arange(30.0),
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
        "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
        "        28., 29.])",
    ),
]


@pytest.mark.parametrize("make,expected", EXPECTED)
def test_repr_fixed(make, expected):
    assert repr(make()) == expected
    assert str(make()) == expected


def test_suffix_wraps_past_linewidth():
    t = ember.ones(3, 30, dtype=ember.float64, requires_grad=True) * 2
    assert repr(t).endswith("dtype=ember.float64,\n       grad_fn=<MulBackward0>)")


def test_set_printoptions():
    set_printoptions(precision=2)
    assert repr(ember.tensor([1.12345])) == "tensor([1.12])"
    set_printoptions(threshold=5)
    assert repr(ember.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    set_printoptions(profile="default")
    assert repr(ember.tensor([1.12345])) == "tensor([1.1235])"
    assert repr(ember.arange(10)) == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"
    set_printoptions(sci_mode=True)
    assert repr(ember.tensor([1.0, 2.0])) == "tensor([1.0000e+00, 2.0000e+00])"
    # NOTE: matches torch: any call resets sci_mode unless it is given again
    set_printoptions(precision=4)
    assert repr(ember.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    set_printoptions(edgeitems=0, threshold=2)
    assert repr(ember.arange(5)) == "tensor([...], size=(5,))"
    with _tensor_str.printoptions(precision=1):
        assert _tensor_str.get_printoptions()["precision"] == 1
    assert _tensor_str.get_printoptions()["precision"] == 4
    assert _tensor_str.__all__ == ["set_printoptions"]


def test_default_dtype_and_device_context():
    old = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert repr(ember.tensor([1.0])) == "tensor([1.])"
        assert repr(ember.tensor([1.0], dtype=ember.float32)) == "tensor([1.], dtype=ember.float32)"
    finally:
        ember.set_default_dtype(old)
    # NOTE: matches torch: a CPU tensor shows no device even inside a meta device context
    with ember.device("meta"):
        assert repr(ember.tensor([1.0], device="cpu")) == "tensor([1.])"
        assert repr(ember.zeros(1)) == "tensor(..., device='meta', size=(1,))"


def test_repr_has_no_side_effects_and_is_fast():
    x = ember.ones(3, requires_grad=True)
    y = x * 2
    repr(y)
    assert y._version == 0 and x._version == 0 and x.grad is None
    big = ember.zeros(1000, 1000)
    start = time.perf_counter()
    s = repr(big)
    assert time.perf_counter() - start < 1.0
    assert s.count("...") == 7  # one per shown row and one for the rows left out


def test_subclass_prefix():
    class MyTensor(ember.Tensor):
        pass

    t = ember.ones(2)
    sub = object.__new__(MyTensor)
    for k in ("_data", "_requires_grad", "_grad", "_grad_fn", "_vc", "_base"):
        setattr(sub, k, getattr(t, k))
    assert repr(sub) == "MyTensor([1., 1.])"


# ---- parity with torch -----------------------------------------------------------------------
CASES = [
    "m.tensor([1., 2.])",
    "m.tensor([1, 2])",
    "m.tensor([True, False])",
    "m.tensor(3.5)",
    "m.tensor(3)",
    "m.tensor(True)",
    "m.tensor(-0.0)",
    "m.tensor([1.5, 2.25, -3.125])",
    "m.tensor([1e-5, 1.0])",
    "m.tensor([1e9, 1.0])",
    "m.tensor([1e-5])",
    "m.tensor([1e8, 2e8])",
    "m.tensor([1., 1001.])",
    "m.tensor([1., 999.])",
    "m.tensor([float('nan'), 1.0])",
    "m.tensor([float('inf'), -float('inf'), float('nan')])",
    "m.tensor([float('inf'), 1.5])",
    "m.tensor([0., 0.])",
    "m.tensor([0.1, float('nan')])",
    "m.tensor([[1., 2.], [3., 4.]])",
    "m.arange(24).reshape(2, 3, 4)",
    "m.arange(24.).reshape(2, 3, 4)",
    "m.arange(120).reshape(2, 3, 4, 5)",
    "m.arange(2000)",
    "m.arange(2000.)",
    "m.arange(3000).reshape(30, 100)",
    "m.arange(3000.).reshape(10, 3, 100) / 7",
    "m.arange(100) * 1000",
    "m.arange(100.) / 3",
    "m.arange(40.) * 1e10",
    "m.tensor([1.23456789e-10, 5.0])",
    "m.tensor([1., 2.], dtype=m.float64)",
    "m.tensor([1, 2], dtype=m.int32)",
    "m.tensor([1, 2], dtype=m.uint8)",
    "m.tensor([1., 2.], dtype=m.float16)",
    "m.tensor(2.5, dtype=m.float64)",
    "m.tensor([65504., 0.001], dtype=m.float16)",
    "m.tensor([-1, -200, 3], dtype=m.int16)",
    "m.tensor([[True, False], [False, True]])",
    "m.zeros(0)",
    "m.zeros(0, 3)",
    "m.zeros(2, 0, dtype=m.int64)",
    "m.zeros(0, dtype=m.int64)",
    "m.zeros(0, dtype=m.float64)",
    "m.zeros(0, dtype=m.bool)",
    "m.zeros(2, 3, device='meta')",
    "m.zeros(2, 3, device='meta', dtype=m.int64)",
    "m.zeros((), device='meta')",
    "m.zeros(5, device='meta', requires_grad=True)",
    "m.zeros(5, device='meta', dtype=m.float64)",
    "m.ones(3, requires_grad=True)",
    "m.ones(3, requires_grad=True) * 2",
    "m.ones(3, requires_grad=True, dtype=m.float64) * 2",
    "m.ones(2, 40, requires_grad=True)",
    "m.ones(3, 30, dtype=m.float64, requires_grad=True)",
    "m.arange(18.).reshape(1, 18) * 1.23456",
    "m.tensor([123456.789, 0.5])",
    "m.tensor([-1.5, 2.0, -3.0])",
    "m.tensor([-1., 2.])",
    "m.tensor([100., -100.])",
    "m.tensor([0.00012345, 0.5])",
    "m.tensor([5e-5, 0.])",
    "m.tensor([[1e-10, 1e10], [1., 2.]])",
    "m.tensor([1, -9223372036854775807])",
    "m.arange(1001)",
    "m.arange(1000)",
    "m.arange(7.).reshape(7, 1)",
    "m.arange(2100.).reshape(700, 3)",
    "m.arange(2100).reshape(3, 700)",
    "m.arange(5000.).reshape(10, 10, 50)",
    "m.tensor([[[1.]]])",
    "m.zeros(1, 1, 1, 0)",
    "m.tensor([1e-300, 1e300], dtype=m.float64)",
    "m.tensor([3.14159265358979], dtype=m.float64)",
    "m.arange(50.).reshape(5, 10) ** 3",
    "m.tensor([1e100], dtype=m.float64)",
    "m.tensor([2.**60], dtype=m.float64)",
    "m.tensor(float('nan'))",
    "m.tensor(float('-inf'))",
    "m.tensor(1e-20)",
    "m.arange(1, 12).reshape(1, 11) ** 8",
    "m.arange(6.).reshape(2, 3).t()",
    "m.tensor([0.1, 0.25], dtype=m.float16)",
    "m.tensor([1, 2], dtype=m.int8) * -100",
]
OPTIONS = [
    dict(),
    dict(precision=2),
    dict(threshold=5),
    dict(edgeitems=1, threshold=10),
    dict(linewidth=40),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(profile="short"),
    dict(profile="full"),
    dict(edgeitems=0, threshold=5),
    dict(precision=8),
]


@pytest.mark.parametrize(
    "opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default"
)
def test_repr_parity_with_torch(opts):
    torch = pytest.importorskip("torch")
    mismatches = []
    try:
        for case in CASES:
            torch.set_printoptions(profile="default")
            torch.set_printoptions(**opts)
            set_printoptions(profile="default")
            set_printoptions(**opts)
            expected = repr(eval(case, {"m": torch})).replace("torch.", "ember.")
            got = repr(eval(case, {"m": ember}))
            if got != expected:
                mismatches.append(f"{case}:\n{got}\n!=\n{expected}")
    finally:
        torch.set_printoptions(profile="default")
    assert not mismatches, "\n\n".join(mismatches)


def test_random_values_parity_with_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for scale in (1e-6, 1e-3, 1.0, 1e3, 1e6, 1e9):
        for shape in ((5,), (3, 4), (40, 40)):
            a = (rng.standard_normal(shape) * scale).astype(np.float32)
            for arr in (a, a.astype(np.float64), np.round(a), a.astype(np.float16)):
                assert repr(ember.from_numpy(arr.copy())) == repr(
                    torch.from_numpy(arr.copy())
                ).replace("torch.", "ember.")
