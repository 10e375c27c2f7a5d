"""Rows for ember/ops/distances.py: dist, cdist, pdist, renorm."""

import numpy as np

from tests.opdb import OpInfo, Sample

S = Sample


def _cdist(a, b, p=2.0, compute_mode=None):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(a.dtype)
    if p == np.inf:
        return d.max(-1)
    return (d**p).sum(-1) ** (1 / p)


def _pdist(x, p=2.0):
    i, j = np.triu_indices(len(x), 1)
    return _cdist(x, x, p)[i, j]


def _dist(a, b, p=2.0):
    d = np.abs(a - b).ravel()
    if p == 0:
        return np.array(float((d != 0).sum()))
    if p == np.inf:
        return d.max()
    return (d**p).sum() ** (1 / p)


def _renorm(x, p, dim, maxnorm):
    axes = tuple(k for k in range(x.ndim) if k != dim % x.ndim)
    n = (np.abs(x) ** p).sum(axes, keepdims=True) ** (1 / p)
    return x * np.where(n > maxnorm, maxnorm / (n + 1e-7), 1.0)


ROWS = [
    OpInfo(
        "cdist",
        lambda lib, a, b, *args: lib.cdist(a, b, *args),
        _cdist,
        [
            S(((3, 4), (5, 4)), name="p2"),
            S(((2, 3, 4), (1, 5, 4), 1.0), name="p1_batch"),
            S(((3, 4), (5, 4), 3.0), name="p3"),
            S(((3, 4), (5, 4), float("inf")), name="pinf"),
            S(((3, 4), (5, 4), 0.5), name="p_half"),
            S(((30, 4), (5, 4)), name="mm"),
            S(((3, 4), (5, 4), 2.0, "use_mm_for_euclid_dist"), name="mm_forced"),
        ],
        dtypes=("float32", "float64"),
    ),
    OpInfo(
        "cdist",
        lambda lib, a, b: lib.cdist(a, b, 0.0),
        lambda a, b: _cdist(a, b, 0.0),
        [S(((3, 4), (5, 4)), name="p0")],
        dtypes=("float32", "float64"),
        grad=False,
    ),
    OpInfo(
        "pdist",
        lambda lib, x, *a: lib.pdist(x, *a),
        _pdist,
        [S(((5, 3),), name="p2"), S(((4, 3), 1.0), name="p1"), S(((4, 3), 3.0), name="p3")],
        dtypes=("float32", "float64"),
    ),
    OpInfo(
        "dist",
        lambda lib, a, b, *p: lib.dist(a, b, *p),
        _dist,
        [
            S(((3, 4), (4,)), name="bcast"),
            S(((3, 4), (3, 4), 1.0), name="p1"),
            S(((3, 4), (3, 4), 3.0), name="p3"),
            S(((3, 4), (3, 4), float("inf")), name="pinf"),
        ],
    ),
    OpInfo(
        "renorm",
        lambda lib, x, *a: lib.renorm(x, *a),
        _renorm,
        [
            S(((4, 3), 2.0, 0, 1.0), name="p2"),
            S(((2, 3, 4), 1.0, 1, 2.0), name="p1_dim1"),
            S(((3, 4), 3.0, -1, 0.5), name="p3"),
        ],
    ),
    OpInfo(
        "renorm_",
        lambda lib, x, *a: (x * 1).renorm_(*a),
        _renorm,
        [S(((4, 3), 2.0, 0, 1.0), name="p2")],
    ),
]
