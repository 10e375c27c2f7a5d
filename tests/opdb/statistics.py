"""Rows for ember/ops/statistics.py: bincount, histc, histogram, histogramdd, quantile,
nanquantile, cov, corrcoef. The counting ops have data-dependent shapes or no gradient; the
quantiles and covariances are differentiated."""

import warnings

import numpy as np

from tests.opdb import Const, Int, OpInfo, Sample

S = Sample
QV = [0.0, 0.25, 0.5, 0.9, 1.0]
Q = "q"  # stands for the tensor QV, built in the row's function (q is not differentiated)
NAN_AT = np.array([[0, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 1]], dtype=bool)


def _q(lib, q, like):
    return lib.tensor(QV, dtype=like.dtype) if isinstance(q, str) else q


def _with_nans(lib, x):
    return lib.where(lib.tensor(NAN_AT), float("nan"), x)


def _histc(x, bins=100, min=0, max=0):
    if min == max:
        min, max = x.min(), x.max()
    return np.histogram(x, bins, (min, max))[0].astype(x.dtype)


def _histogram(x, bins, weight=None, range=None, density=False):
    h, e = np.histogram(x.ravel(), bins, range, weights=weight, density=density)
    return h.astype(x.dtype), e.astype(x.dtype)


def _histogramdd(x, bins, range=None, weight=None, density=False):
    rng = None if range is None else [range[i : i + 2] for i in (0, 2)]
    h, e = np.histogramdd(x.reshape(-1, x.shape[-1]), bins, rng, weights=weight, density=density)
    return [h] + list(e)


def _quantile(x, q, dim=None, keepdim=False, interpolation="linear", nan=False):
    q = QV if isinstance(q, str) else q
    f = np.nanquantile if nan else np.quantile
    with warnings.catch_warnings():  # "All-NaN slice encountered": NaN is the answer
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(x, q, axis=dim, keepdims=keepdim, method=interpolation)


ROWS = [
    OpInfo(
        "bincount",
        lambda lib, i, *a, **kw: lib.bincount(i, *a, **kw),
        lambda i, w=None, minlength=0: np.bincount(i, w, minlength),
        [
            S((Int((20,), 0, 7),), name="counts"),
            S((Int((20,), 0, 7),), {"minlength": 10}, name="minlength"),
            S((Int((6,), 0, 4), (6,)), name="weights"),
        ],
        grad=False,
        meta=False,
    ),
    OpInfo(
        "histc",
        lambda lib, x, *a: lib.histc(x, *a),
        _histc,
        [S(((50,),), name="default"), S(((4, 6), 7, -1.0, 1.5), name="range")],
        dtypes=("float32", "float64"),
        grad=False,
    ),
    OpInfo(
        "histogram",
        lambda lib, x, b, *w, **kw: tuple(lib.histogram(x, b, weight=w[0] if w else None, **kw)),
        _histogram,
        [
            S(((40,), 6), name="bins"),
            S(((5, 8), 5), {"range": (-1.0, 1.0), "density": True}, name="range_density"),
            S(((12,), 4, (12,)), name="weight_positional"),
        ],
        dtypes=("float32", "float64"),
        grad=False,
    ),
    OpInfo(
        "histogram",
        lambda lib, x, e, w: tuple(lib.histogram(x, e, weight=w)),
        lambda x, e, w: _histogram(x, np.sort(e), weight=w),
        [S(((30,), Const([-1.5, -0.2, 0.0, 0.7, 1.9]), (30,)), name="edges_weight")],
        dtypes=("float32", "float64"),
        grad=False,
    ),
    OpInfo(
        "histogramdd",
        lambda lib, x, b, **kw: (
            [lib.histogramdd(x, b, **kw).hist] + list(lib.histogramdd(x, b, **kw).bin_edges)
        ),
        _histogramdd,
        [
            S(((30, 2), [3, 4]), name="bins"),
            S(((6, 5, 2), 3), {"range": [-1.0, 1.0, -2.0, 2.0], "density": True}, name="range"),
        ],
        dtypes=("float32", "float64"),
        grad=False,
    ),
    OpInfo(
        "quantile",
        lambda lib, x, q, *a, **kw: lib.quantile(x, _q(lib, q, x), *a, **kw),
        _quantile,
        [
            S(((4, 7), 0.3), name="all"),
            S(((4, 7), Q, 1), name="dim1"),
            S(((3, 4, 5), Q, 0, True), name="keepdim"),
        ]
        + [
            S(((4, 6), Q, -1), {"interpolation": m}, name=m)
            for m in ("lower", "higher", "midpoint", "nearest")
        ],
        dtypes=("float32", "float64"),
    ),
    OpInfo(
        "quantile",
        lambda lib, x, q: lib.quantile(x, q, dim=None, keepdim=True),
        lambda x, q: np.quantile(x, q, keepdims=True),
        [S(((3, 4), 0.6), name="none_keepdim")],
        dtypes=("float32", "float64"),
    ),
    OpInfo(
        "nanquantile",
        lambda lib, x, q, *a: lib.nanquantile(_with_nans(lib, x), _q(lib, q, x), *a),
        lambda x, q, *a: _quantile(np.where(NAN_AT, np.nan, x), q, *a, nan=True),
        [S(((3, 4), Q, 1), name="nans"), S(((3, 4), 0.4, 0), name="dim0")],
        dtypes=("float32", "float64"),
    ),
    OpInfo(
        "cov",
        lambda lib, x, *w, **kw: (
            lib.cov(x, **dict(zip(("fweights", "aweights")[-len(w) :], w)), **kw)
            if w
            else lib.cov(x, **kw)
        ),
        lambda x, *w, correction=1: np.cov(x, ddof=correction, **dict(zip(("aweights",), w))),
        [
            S(((3, 6),), name="2d"),
            S(((6,),), {"correction": 0}, name="1d"),
            S(((2, 5), Const([0.5, 1.0, 2.0, 0.1, 1.5])), name="aweights"),
        ],
        dtypes=("float32", "float64"),
    ),
    OpInfo(
        "cov",
        lambda lib, x, f: lib.cov(x, fweights=f),
        lambda x, f: np.cov(x, fweights=f),
        [S(((2, 5), Int((5,), 1, 4)), name="fweights")],
        dtypes=("float32", "float64"),
    ),
    OpInfo(
        "corrcoef",
        lambda lib, x: lib.corrcoef(x),
        np.corrcoef,
        [S(((3, 6),), name="2d"), S(((5,),), name="1d")],
        dtypes=("float32", "float64"),
    ),
]
