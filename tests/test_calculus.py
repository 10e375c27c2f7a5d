"""diff, gradient, trapezoid/trapz, cumulative_trapezoid, logcumsumexp against torch:
integer and bool inputs, prepend/append, spacing forms, extreme values, in-place-free
gradients, out=, errors (random float cases are op-table rows)."""

from __future__ import annotations

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)
pytestmark = needs_torch
INF = float("inf")
Y = [1.0, 4, 9, 16]
YI = [1, 4, 9, 16]


def same(call):
    got, want = call(ember), call(torch)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-6)


def raises_like_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as ee:
        call(ember)
    assert str(ee.value).replace("ember", "torch") == str(te.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.diff(lib.tensor([1, 3, 7])),
        lambda lib: lib.tensor([True, False, False, True]).diff(2),
        lambda lib: lib.diff(lib.tensor([1, 3, 7]), 5),
        lambda lib: lib.diff(lib.tensor([1, 3, 7]), 0),
        lambda lib: lib.diff(
            lib.tensor([1, 3, 7]), 1, prepend=lib.tensor([1.5]), append=lib.tensor([2])
        ),
        lambda lib: lib.diff(lib.ones(2, 3), 1, 0, append=lib.zeros(1, 3)),
        lambda lib: lib.trapezoid(lib.tensor(YI)),
        lambda lib: lib.trapezoid(lib.tensor(YI), dx=2),
        lambda lib: lib.trapezoid(lib.tensor(Y), lib.tensor([0, 1, 3, 4])),
        lambda lib: lib.trapezoid(lib.ones(2, 0)),
        lambda lib: lib.trapz(lib.tensor(Y), dx=0.5),
        lambda lib: lib.cumulative_trapezoid(lib.tensor(YI)),
        lambda lib: lib.cumulative_trapezoid(lib.tensor(Y), lib.tensor([0.0, 1, 3, 4])),
        lambda lib: lib.cumulative_trapezoid(lib.ones(2, 0)),
        lambda lib: lib.gradient(lib.tensor(Y)),
        lambda lib: lib.gradient(lib.tensor(YI)),
        lambda lib: lib.gradient(lib.tensor(Y), spacing=2.0),
        lambda lib: lib.gradient(lib.tensor(Y), spacing=(lib.tensor([0.0, 1, 3, 4]),)),
        lambda lib: lib.gradient(lib.tensor(Y), spacing=[lib.tensor([0.0, 1, 3, 4])], edge_order=2),
        lambda lib: lib.gradient(lib.tensor([[1.0, 2, 4], [3, 7, 8]]), spacing=[1.0, 2.0]),
        lambda lib: lib.gradient(lib.tensor([[1.0, 2, 4], [3, 7, 8]]), dim=1, edge_order=2),
        lambda lib: lib.gradient(lib.tensor(2.0)),
        lambda lib: lib.logcumsumexp(lib.tensor([-INF, -INF, 1.0]), 0),
        lambda lib: lib.logcumsumexp(lib.tensor([-1000.0, 1000.0, 1.0]), 0),
        lambda lib: lib.tensor([[0.5, -1.0], [2.0, 3.0]]).logcumsumexp(-1),
        lambda lib: lib.logcumsumexp(lib.tensor(2.0), 0),
    ],
)
def test_values_and_dtypes(call):
    same(call)


def test_logcumsumexp_gradient_extreme_values():
    def grad(lib):
        x = lib.tensor([-800.0, 1.0, 700.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = lib.logcumsumexp(x, 0)
        y.backward(lib.tensor([1.0, -2.0, 0.0, 3.0], dtype=lib.float64))
        return x.grad

    same(grad)


def test_out():
    out = ember.empty(0, dtype=ember.int64)
    assert ember.diff(ember.tensor([1, 3, 7]), out=out) is out
    assert out.tolist() == [2, 4]
    out = ember.empty(0)
    ember.logcumsumexp(ember.tensor([0.0, 0.0]), 0, out=out)
    np.testing.assert_allclose(out.numpy(), [0.0, np.log(2)], rtol=1e-6)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.diff(lib.tensor(3.0)),
        lambda lib: lib.diff(lib.tensor([1, 2]), -1),
        lambda lib: lib.diff(lib.tensor([1, 2]), prepend=lib.tensor(1)),
        lambda lib: lib.diff(lib.tensor([1, 2]), prepend=1),
        lambda lib: lib.trapezoid(lib.tensor(Y), lib.tensor([0.0, 1, 3])),
        lambda lib: lib.trapezoid(lib.tensor(3.0)),
        lambda lib: lib.cumulative_trapezoid(lib.tensor(Y), lib.tensor([0.0, 1, 3])),
        lambda lib: lib.gradient(lib.ones(3, 4), spacing=[1.0, 2.0], dim=0),
        lambda lib: lib.gradient(lib.ones(3, 4), edge_order=3),
        lambda lib: lib.gradient(lib.ones(2, 4), edge_order=2),
        lambda lib: lib.logcumsumexp(lib.tensor([1, 2]), 0),
    ],
)
def test_errors_match_torch(call):
    raises_like_torch(call)
