"""scatter_reduce / index_reduce against torch: integer and bool dtypes, ties and zeros in the
gradients, in-place forms, 0-d tensors, errors (the op table covers random float64 cases)."""

from __future__ import annotations

import warnings

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
REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _both(arr):
    return ember.tensor(np.array(arr)), torch.tensor(np.array(arr))


def _eq(a, b):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


def _quiet_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: "index_reduce() is in beta"
        return fn()


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "bool"])
def test_dtypes(reduce, include_self, dtype):
    x = np.array([[5, -7, 9, 0], [1, 2, 3, 4]]).astype(dtype)
    s = np.array([[2, 3, -4, -4, 6], [-1, 5, 5, 0, 7]]).astype(dtype)
    i = np.array([[0, 0, 2, 2, 3], [1, 1, 1, 3, 3]])
    if dtype == "bool" and reduce == "mean":
        pytest.skip("torch has no bool mean")
    (ex, tx), (es, ts), (ei, ti) = _both(x), _both(s), _both(i)
    got = ex.scatter_reduce(1, ei, es, reduce, include_self=include_self)
    _eq(got, tx.scatter_reduce(1, ti, ts, reduce, include_self=include_self))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_int_and_dim1(reduce, include_self):
    x = np.arange(12).reshape(3, 4) - 5
    s = np.array([[2, 3], [-4, 4], [6, -1]])
    for ex, tx, es, ts in [(*_both(x), *_both(s)), (*_both(x * 1.5), *_both(s * 0.5))]:
        ei, ti = _both([3, 3])
        got = ex.index_reduce(1, ei, es, reduce, include_self=include_self)
        want = _quiet_torch(
            lambda t=tx, i=ti, s=ts: t.index_reduce(1, i, s, reduce, include_self=include_self)
        )
        _eq(got, want)


def _grads(lib, x, i, s, reduce, include_self, g):
    xt = lib.tensor(x, requires_grad=True)
    st = lib.tensor(s, requires_grad=True)
    out = xt.scatter_reduce(0, lib.tensor(i), st, reduce, include_self=include_self)
    out.backward(lib.tensor(g))
    return out, xt.grad, st.grad


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize(
    "reduce,x,s",
    [
        # ties: the gradient is shared evenly among the tied elements
        ("amax", [1.0, 2.0, 2.0, 3.0], [2.0, 1.0, 2.0, 2.0, 3.0, 3.0]),
        ("amin", [1.0, 2.0, 2.0, 3.0], [1.0, 1.0, 2.0, 5.0, 3.0, 3.0]),
        # zeros: one zero in a group, two zeros in a group, a zero in self
        ("prod", [0.0, 2.0, 3.0, 4.0], [2.0, 0.0, 5.0, 0.0, 0.0, 3.0]),
        ("prod", [1.5, 2.0, 0.0, 4.0], [2.0, 3.0, 5.0, 0.5, 0.0, 3.0]),
        ("mean", [1.5, 2.0, 0.0, 4.0], [2.0, 3.0, 5.0, 0.5, 0.0, 3.0]),
        ("sum", [1.5, 2.0, 0.0, 4.0], [2.0, 3.0, 5.0, 0.5, 0.0, 3.0]),
    ],
)
def test_gradient_ties_and_zeros(reduce, x, s, include_self):
    i = [0, 0, 1, 1, 2, 2]
    g = [1.0, -2.0, 3.0, 0.5]
    for a, b in zip(
        _grads(ember, x, i, s, reduce, include_self, g),
        _grads(torch, x, i, s, reduce, include_self, g),
    ):
        _eq(a, b)


def test_double_backward_prod_with_one_zero():
    def f(lib):
        x = lib.tensor([1.5, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        s = lib.tensor([0.0, 2.0, 4.0, 5.0], dtype=lib.float64, requires_grad=True)
        y = x.scatter_reduce(0, lib.tensor([0, 0, 1, 1]), s, "prod")
        (gs,) = lib.autograd.grad(y.sum(), s, create_graph=True)
        (gg,) = lib.autograd.grad((gs * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum(), s)
        return gs, gg

    for a, b in zip(f(ember), f(torch)):
        _eq(a, b)


def test_inplace_forms_and_out():
    x = np.arange(6.0).reshape(3, 2)
    (ex, tx), (ei, ti), (es, ts) = _both(x), _both([2, 0]), _both([[1.0, 9.0], [-3.0, 4.0]])
    (e2, t2) = _both([[2, 0], [0, 0]])
    r = ex.scatter_reduce_(0, e2, es, "amax", include_self=False)
    assert r is ex
    _eq(ex, tx.scatter_reduce_(0, t2, ts, "amax", include_self=False))
    r = ex.index_reduce_(0, ei, es, "prod")
    assert r is ex
    _eq(ex, _quiet_torch(lambda: tx.index_reduce_(0, ti, ts, "prod")))
    out = ember.empty(0, dtype=ember.float64)
    assert ember.scatter_reduce(ex, 0, e2, es, "sum", out=out) is out
    _eq(out, torch.scatter_reduce(tx, 0, t2, ts, "sum"))
    out = ember.empty(0, dtype=ember.float64)
    ember.index_reduce(ex, 0, ei, es, "mean", out=out)
    _eq(out, _quiet_torch(lambda: torch.index_reduce(tx, 0, ti, ts, "mean")))


def test_inplace_records_history():
    w = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = ember.tensor([5.0, 0.5], requires_grad=True)
    y = w * 2
    y.scatter_reduce_(0, ember.tensor([0, 0]), s, "amax")
    y.sum().backward()
    tw = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ts = torch.tensor([5.0, 0.5], requires_grad=True)
    ty = tw * 2
    ty.scatter_reduce_(0, torch.tensor([0, 0]), ts, "amax")
    ty.sum().backward()
    _eq(w.grad, tw.grad)
    _eq(s.grad, ts.grad)


def test_zero_dim():
    (ex, tx), (ei, ti), (es, ts) = _both(3.0), _both(0), _both(5.0)
    _eq(ex.scatter_reduce(0, ei, es, "sum"), tx.scatter_reduce(0, ti, ts, "sum"))


def _error(fn_e, fn_t):
    with pytest.raises(Exception) as te:
        _quiet_torch(fn_t)
    with pytest.raises(type(te.value)) as ee:
        fn_e()
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.zeros(3).scatter_reduce(0, lib.tensor([0]), lib.ones(1), "max2"),
        lambda lib: lib.zeros(3).scatter_reduce(0, lib.tensor([5]), lib.ones(1), "sum"),
        lambda lib: lib.zeros(3).scatter_reduce(0, lib.tensor([1]), lib.ones(1).long(), "sum"),
        lambda lib: lib.zeros(3, 2).index_reduce(0, lib.tensor([0, 0]), lib.ones(2, 2), "sum"),
        lambda lib: lib.zeros(3, 2).index_reduce(0, lib.tensor([0, 1, 2]), lib.ones(2, 2), "prod"),
        lambda lib: lib.zeros(3, 2).index_reduce(0, lib.tensor([[0, 1]]), lib.ones(2, 2), "prod"),
        lambda lib: lib.zeros(3, 2).index_reduce(0, lib.tensor([0.0, 1]), lib.ones(2, 2), "prod"),
        lambda lib: lib.zeros(3, 2).index_reduce(
            0, lib.tensor([0, 1]), lib.ones(2, 2).long(), "prod"
        ),
        lambda lib: lib.zeros(3, 2).index_reduce(0, lib.tensor([0, 5]), lib.ones(2, 2), "prod"),
    ],
)
def test_errors_match_torch(call):
    _error(lambda: call(ember), lambda: call(torch))
