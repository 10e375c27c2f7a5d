"""bincount, histc, histogram(dd), quantile/nanquantile, cov, corrcoef against torch: output
dtypes, edge cases (empty input, equal min and max, NaN, ties at bin edges), errors with
torch's type and message, out= and Tensor methods. Random float64 cases are op-table rows."""

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
NAN = float("nan")
# values on and near bin edges (built once so both libraries get the same float32 numbers)
EDGY = (np.arange(21) * 0.05).astype(np.float32)


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return x.detach().numpy() if hasattr(x, "detach") else x


def same(call, exact=False):
    """``call(lib)`` gives the same values and dtypes in ember and torch."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's own warnings (cov's degrees of freedom)
        want = call(torch)
    got = call(ember)
    for g, w in zip(
        np.atleast_1d(_np(got)) if not isinstance(got, tuple) else _np(got),
        np.atleast_1d(_np(want)) if not isinstance(want, tuple) else _np(want),
    ):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        if exact:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-12, equal_nan=True)


def raises_like_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as ee:
        call(ember)
    assert str(ee.value).replace("ember", "torch") == str(te.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.bincount(lib.tensor([0, 2, 2, 5])),
        lambda lib: lib.tensor([0, 2, 2, 5]).bincount(minlength=8),
        lambda lib: lib.bincount(lib.tensor([0, 2, 2, 5]), lib.tensor([1.0, 2, 3, 4])),
        lambda lib: lib.bincount(lib.tensor([0, 2, 2]), lib.tensor([1.0, 2, 3]).double()),
        lambda lib: lib.bincount(lib.tensor([0, 2, 2]), lib.tensor([1, 2, 3])),
        lambda lib: lib.bincount(lib.tensor([0, 2, 2]), lib.tensor([True, False, True])),
        lambda lib: lib.bincount(lib.tensor([1, 2], dtype=lib.uint8)),
        lambda lib: lib.bincount(lib.tensor([], dtype=lib.long), minlength=3),
    ],
)
def test_bincount(call):
    same(call, exact=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.histc(lib.tensor([1.0, 2, 1, 2.5, 4]), 4),
        lambda lib: lib.tensor([1.0, 2, 1, 2.5, 4]).histc(4, 0, 3),
        lambda lib: lib.histc(lib.tensor([2.0, 2.0]), 4),
        lambda lib: lib.histc(lib.tensor([2.0, 2.0]), 4, 2, 2),
        lambda lib: lib.histc(lib.tensor([]), 4),
        # values on bin edges, in float32 arithmetic
        lambda lib: lib.histc(lib.tensor(EDGY), 20, 0, 1),
        lambda lib: lib.histc(lib.tensor(EDGY).double(), 7, 0.1, 0.9),
        lambda lib: lib.histogram(lib.tensor([1.0, 2, 1, 2.5, 4]), 4),
        lambda lib: lib.histogram(lib.tensor(EDGY), 20),
        lambda lib: lib.histogram(lib.tensor([2.0, 2.0]), 4),
        lambda lib: lib.histogram(lib.tensor([]), 4),
        lambda lib: lib.histogram(lib.tensor([1.0, 2, 3]), lib.tensor([0.0, 1, 3, 5])),
        lambda lib: lib.tensor([1.0, 2, 1, 2.5, 4]).histogram(
            4, range=(0.0, 3.0), weight=lib.tensor([1.0, 2, 3, 4, 5]), density=True
        ),
        lambda lib: (
            tuple(lib.histogramdd(lib.tensor([[0.0, 1], [1, 0], [2, 0], [2, 2]]), [3, 3])[:1])
            + lib.histogramdd(lib.tensor([[0.0, 1], [1, 0], [2, 0], [2, 2]]), [3, 3])[1]
        ),
        lambda lib: (
            lib.histogramdd(
                lib.tensor([[0.0, 1], [1, 0], [2, 0], [2, 2]]),
                [lib.tensor([0.0, 1, 3]), lib.tensor([0.0, 2])],
            ).hist
        ),
        lambda lib: (
            lib.histogramdd(
                lib.tensor([[0.0, 1], [1, 0], [2, 0], [2, 2]]),
                2,
                weight=lib.tensor([1.0, 2, 4, 8]),
                density=True,
            ).hist
        ),
    ],
)
def test_histograms(call):
    same(call, exact=True)


def test_histogram_out_and_return_type():
    hist, edges = ember.empty(0), ember.empty(0)
    r = ember.histogram(ember.tensor([1.0, 2.0, 2.5]), 2, out=(hist, edges))
    assert r.hist is hist and r.bin_edges is edges
    np.testing.assert_array_equal(hist.numpy(), [1.0, 2.0])
    assert type(r).__name__ == "histogram" and r._fields == ("hist", "bin_edges")
    out = ember.empty(0)
    assert ember.histc(ember.tensor([1.0, 2.0]), 2, out=out) is out


X = [[1.0, 5, 2, 7], [3, NAN, 4, 0], [NAN, NAN, NAN, NAN]]


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.quantile(lib.tensor(X), 0.5),
        lambda lib: lib.quantile(lib.tensor(X), 0.5, 1),
        lambda lib: lib.nanquantile(lib.tensor(X), 0.5, 1),
        lambda lib: lib.tensor(X).nanquantile(lib.tensor([0.0, 0.3, 1.0]), 1, keepdim=True),
        lambda lib: lib.nanquantile(lib.tensor([NAN, NAN]), 0.5),
        lambda lib: lib.quantile(lib.tensor(X), 0.5, keepdim=True),
        lambda lib: lib.quantile(lib.tensor(3.0), 0.5, 0, True),
        lambda lib: lib.quantile(lib.tensor([[1.0, 2], [3, 4]]), lib.tensor(0.25), 0),
        lambda lib: lib.tensor([[1.0, 2], [3, 4]]).quantile(0.75, -1, interpolation="midpoint"),
    ]
    + [
        lambda lib, m=m: lib.quantile(
            lib.arange(6.0), lib.tensor([0.1, 0.2, 0.5, 0.7, 0.9]), interpolation=m
        )
        for m in ("linear", "lower", "higher", "midpoint", "nearest")
    ],
)
def test_quantile_values(call):
    same(call)


@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_gradient_with_ties(interp):
    def grad(lib):
        x = lib.tensor([[3.0, 1.0, 3.0, 2.0, 1.0], [0.5, 0.5, 0.5, 2.0, NAN]], requires_grad=True)
        q = lib.nanquantile(x, lib.tensor([0.25, 0.5, 0.8], dtype=x.dtype), 1, interpolation=interp)
        q.backward(lib.ones_like(q))
        return x.grad

    same(grad)


def test_quantile_out():
    out = ember.empty(0)
    r = ember.quantile(ember.tensor([1.0, 2.0, 4.0]), 0.5, out=out)
    assert r is out and out.item() == 2.0


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.cov(lib.tensor([[1, 2, 4], [3, 1, 0]])),
        lambda lib: lib.tensor([1.0, 2, 4]).cov(correction=0),
        lambda lib: lib.cov(lib.tensor([[1.0, 2, 5], [2, 3, 1]]), fweights=lib.tensor([1, 2, 3])),
        lambda lib: lib.cov(
            lib.tensor([[1.0, 2, 5], [2, 3, 1]]),
            fweights=lib.tensor([1, 2, 3]),
            aweights=lib.tensor([0.5, 1, 2]),
            correction=2,
        ),
        lambda lib: lib.cov(lib.tensor([1, 2, 4]), aweights=lib.tensor([1.0, 2, 1]).double()),
        lambda lib: lib.corrcoef(lib.tensor([[1, 2, 4], [3, 1, 0]])),
        lambda lib: lib.tensor([1.0, 2, 4]).corrcoef(),
    ],
)
def test_cov_corrcoef(call):
    same(call)


def test_cov_warns_on_no_degrees_of_freedom():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        r = ember.cov(ember.tensor([1.0]))
    assert np.isnan(r.item())


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.bincount(lib.tensor([-1, 2])),
        lambda lib: lib.bincount(lib.tensor([[1, 2]])),
        lambda lib: lib.bincount(lib.tensor([1.0, 2])),
        lambda lib: lib.bincount(lib.tensor([True, False])),
        lambda lib: lib.bincount(lib.tensor([0, 2]), minlength=-1),
        lambda lib: lib.bincount(lib.tensor([0, 2, 2]), lib.tensor([1.0, 2])),
        lambda lib: lib.histc(lib.tensor([1, 2]), 4),
        lambda lib: lib.histc(lib.tensor([1.0, 2]), -1),
        lambda lib: lib.histc(lib.tensor([1.0, 2]), 4, 3, 1),
        lambda lib: lib.histc(lib.tensor([1.0, float("inf")]), 4),
        lambda lib: lib.histogram(lib.tensor([1, 2]), 4),
        lambda lib: lib.histogram(lib.tensor([1.0, 2]), 0),
        lambda lib: lib.histogram(lib.tensor([1.0, 2]), lib.tensor([0.0, 1]).double()),
        lambda lib: lib.histogram(lib.tensor([1.0, 2]), 4, weight=lib.tensor([1.0])),
        lambda lib: lib.histogram(lib.tensor([1.0, 2]), 4, range=(3.0, 1.0)),
        lambda lib: lib.histogram(lib.tensor([1.0, float("inf")]), 4),
        lambda lib: lib.quantile(lib.tensor([1, 2]), 0.5),
        lambda lib: lib.quantile(lib.tensor([1.0, 2]), lib.tensor([0.5]).double()),
        lambda lib: lib.quantile(lib.tensor([1.0, 2]), lib.tensor([[0.5]])),
        lambda lib: lib.quantile(lib.tensor([1.0, 2]), 1.5),
        lambda lib: lib.quantile(lib.tensor([1.0, 2]), lib.tensor([1.5])),
        lambda lib: lib.quantile(lib.tensor([1.0, 2]), 0.5, interpolation="foo"),
        lambda lib: lib.nanquantile(lib.tensor([]), 0.5),
        lambda lib: lib.cov(lib.ones(2, 2, 2)),
        lambda lib: lib.cov(lib.tensor([1.0, 2, 4]), fweights=lib.tensor([1.0, 2, 1])),
        lambda lib: lib.cov(lib.tensor([1.0, 2, 4]), fweights=lib.tensor([-1, 2, 1])),
        lambda lib: lib.cov(lib.tensor([1.0, 2, 4]), fweights=lib.tensor([1, 2])),
        lambda lib: lib.cov(lib.tensor([1.0, 2, 4]), fweights=lib.tensor([[1, 2, 1]])),
        lambda lib: lib.cov(lib.tensor([1.0, 2, 4]), aweights=lib.tensor([-1.0, 2, 1])),
        lambda lib: lib.cov(lib.tensor([1.0, 2, 4]), aweights=lib.tensor([1, 2, 1])),
    ],
)
def test_errors_match_torch(call):
    raises_like_torch(call)
