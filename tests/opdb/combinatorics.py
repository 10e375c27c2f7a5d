"""Rows for ember/ops/combinatorics.py: cartesian_prod, combinations, block_diag, diagflat,
rot90, vander, msort."""

import itertools

import numpy as np

from tests.opdb import Int, OpInfo, Sample

S = Sample


def _combinations(x, r=2, with_replacement=False):
    f = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(f(range(len(x)), r)), dtype=np.int64).reshape(-1, r)
    return x[idx]


def _block_diag(*ts):
    ts = [np.atleast_2d(t) for t in ts]
    out = np.zeros((sum(t.shape[0] for t in ts), sum(t.shape[1] for t in ts)))
    r = c = 0
    for t in ts:
        out[r : r + t.shape[0], c : c + t.shape[1]] = t
        r, c = r + t.shape[0], c + t.shape[1]
    return out


ROWS = [
    OpInfo(
        "cartesian_prod",
        lambda lib, *ts: lib.cartesian_prod(*ts),
        lambda *ts: np.stack([g.ravel() for g in np.meshgrid(*ts, indexing="ij")], 1),
        [S(((3,), (2,)), name="two"), S(((2,), (3,), (2,)), name="three")],
    ),
    OpInfo(
        "combinations",
        lambda lib, x, **kw: lib.combinations(x, **kw),
        _combinations,
        [
            S(((4,),), name="pairs"),
            S(((5,),), {"r": 3}, name="r3"),
            S(((4,),), {"r": 2, "with_replacement": True}, name="replacement"),
            S(((2,),), {"r": 3}, name="r_gt_n"),
        ],
    ),
    OpInfo(
        "block_diag",
        lambda lib, *ts: lib.block_diag(*ts),
        _block_diag,
        [S(((2, 3), (), (3,), (1, 2)), name="mixed"), S(((2, 2),), name="one")],
    ),
    OpInfo(
        "diagflat",
        lambda lib, x, *a: lib.diagflat(x, *a),
        lambda x, *a: np.diagflat(x, *a),
        [S(((2, 2),), name="2d"), S(((3,), 1), name="offset"), S(((3,), -2), name="neg")],
    ),
    OpInfo(
        "rot90",
        lambda lib, x, *a: lib.rot90(x, *a),
        lambda x, k=1, dims=(0, 1): np.rot90(x, k, dims),
        [
            S(((2, 3),), name="default"),
            S(((2, 3, 4), 2, [0, 2]), name="k2"),
            S(((2, 3, 4), -1, [2, 1]), name="k-1"),
            S(((2, 3), 4), name="k4"),
            S(((2, 3), 3, [0, 1]), name="k3"),
        ],
    ),
    OpInfo(
        "vander",
        lambda lib, x, *a, **kw: lib.vander(x, *a, **kw),
        lambda x, N=None, increasing=False: np.vander(x, N, increasing),
        [
            S(((4,),), name="square"),
            S(((3,), 5), name="wide"),
            S(((3,), 2, True), name="increasing"),
            S(((3,), 1), name="N1"),
        ],
        # torch's own vander backward fails ("modified by an inplace operation"): gradients
        # are checked by finite differences only
        nondeterministic_grad=True,
    ),
    OpInfo(
        "vander",
        lambda lib, x: lib.vander(x, 3),
        lambda x: np.vander(x, 3),
        [S((Int((4,), -3, 4),), name="int")],
        grad=False,
    ),
    OpInfo(
        "msort",
        lambda lib, x: lib.msort(x),
        lambda x: np.sort(x, axis=0),
        [S(((4, 3),), name="2d"), S(((5,),), name="1d")],
        gradgrad=False,
    ),
]
