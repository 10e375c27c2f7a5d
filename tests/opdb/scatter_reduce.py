"""Rows for ember/ops/scatter_reduce.py: ``scatter_reduce`` and ``index_reduce`` for every
reduction, with and without ``include_self``, repeated indices in forward and backward.

Checked against torch only (torch is the reference for which element wins and for the
gradients' tie and zero rules)."""

import warnings

from tests.opdb import Int, OpInfo, Sample

S = Sample


def _scatter_reduce(lib, x, i, s, reduce, include_self):
    return lib.scatter_reduce(x, 1, i, s, reduce, include_self=include_self)


def _index_reduce(lib, x, i, s, reduce, include_self):
    with warnings.catch_warnings():  # torch: "index_reduce() is in beta"
        warnings.simplefilter("ignore")
        return x.index_reduce(0, i, s, reduce, include_self=include_self)


def _inplace(lib, x, i, s, reduce, include_self):
    return (x * 1).scatter_reduce_(1, i, s, reduce, include_self=include_self)


_R = ("sum", "prod", "mean", "amax", "amin")

ROWS = [
    OpInfo(
        "scatter_reduce",
        _scatter_reduce,
        None,
        [
            S(((3, 4), Int((3, 6), 0, 4), (3, 6), r, inc), name=f"{r}_{inc}")
            for r in ("sum", "prod", "mean", "amax", "amin")
            for inc in (True, False)
        ],
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "scatter_reduce",
        _scatter_reduce,
        None,
        # torch refuses the gradient when src is larger than index: forward only
        [S(((4, 5), Int((2, 3), 0, 5), (3, 4), r, False), name=f"partial_{r}") for r in _R],
        grad=False,
    ),
    OpInfo(
        "scatter_reduce_",
        _inplace,
        None,
        [S(((3, 4), Int((3, 6), 0, 4), (3, 6), "amax", False), name="amax")],
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "index_reduce",
        _index_reduce,
        None,
        [
            S(((4, 3), Int((5,), 0, 4), (5, 3), r, inc), name=f"{r}_{inc}")
            for r in ("prod", "mean", "amax", "amin")
            for inc in (True, False)
        ],
        domain=(0.5, 2.0),
    ),
]
