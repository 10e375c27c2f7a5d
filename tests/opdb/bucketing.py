"""Rows for ember/ops/bucketing.py: searchsorted, bucketize, isin, unravel_index (integer and
bool results, no gradients)."""

import numpy as np

from tests.opdb import Const, Int, OpInfo, Sample

S = Sample
EDGES = Const([-1.5, -0.5, 0.0, 0.25, 1.0, 1.5])
ROWS2 = Const([[-1.0, 0.0, 0.5, 1.0], [-2.0, -1.0, 0.0, 3.0]])


def _batched(seq, v, right=False, **_):
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, v, side)
    return np.stack([np.searchsorted(s, x, side) for s, x in zip(seq, v)])


ROWS = [
    OpInfo(
        "searchsorted",
        lambda lib, s, v, **kw: lib.searchsorted(s, v, **kw),
        _batched,
        [
            S((EDGES, (3, 4)), name="1d"),
            S((EDGES, (7,)), {"right": True}, name="right"),
            S((EDGES, (7,)), {"side": "right", "out_int32": True}, name="side_int32"),
            S((ROWS2, (2, 5)), name="batched"),
            S((ROWS2, (2, 5)), {"right": True}, name="batched_right"),
            S((EDGES, 0.25), name="scalar"),
        ],
        dtypes=("float32", "float64"),
        grad=False,
    ),
    OpInfo(
        "searchsorted",
        lambda lib, s, v: lib.searchsorted(s, v),
        lambda s, v: np.searchsorted(np.sort(s), v),
        [S((Const([0, 2, 2, 5, 9]), Int((6,), -1, 11)), name="int_values")],
        grad=False,
        torch=False,
        skip_reason="float sequence with int values: checked in tests/test_bucketing.py",
    ),
    OpInfo(
        "bucketize",
        lambda lib, x, b, **kw: lib.bucketize(x, b, **kw),
        lambda x, b, right=False, **_: np.searchsorted(b, x, "right" if right else "left"),
        [
            S(((3, 4), EDGES), name="2d"),
            S(((5,), EDGES), {"right": True, "out_int32": True}, name="right"),
            S(((), EDGES), name="0d"),
        ],
        dtypes=("float32", "float64"),
        grad=False,
    ),
    OpInfo(
        "isin",
        lambda lib, e, t, **kw: lib.isin(e, t, **kw),
        lambda e, t, invert=False, **_: np.isin(e, t, invert=invert),
        [
            S((Int((3, 5), 0, 9), Int((4,), 0, 9)), name="ints"),
            S((Int((6,), 0, 9), Int((2, 2), 0, 9)), {"invert": True}, name="invert"),
            S((Int((6,), 0, 5), 3), name="scalar_test"),
        ],
        grad=False,
    ),
    OpInfo(
        "unravel_index",
        lambda lib, i, shape: lib.unravel_index(i, shape),
        lambda i, shape: np.unravel_index(i % np.prod(shape), shape),
        [
            S((Int((2, 5), -24, 24), [2, 3, 4]), name="3d"),
            S((Int((), 0, 6), [6]), name="0d"),
        ],
        grad=False,
    ),
]
