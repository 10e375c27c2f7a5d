"""Rows for ember/ops/calculus.py: diff, gradient, trapezoid/trapz, cumulative_trapezoid,
logcumsumexp."""

import numpy as np

from tests.opdb import Const, Int, OpInfo, Sample

S = Sample
X = Const([0.0, 0.5, 1.7, 2.0, 3.1])


def _trapezoid(y, x=None, dx=None, dim=-1):
    if x is not None:
        return np.trapezoid(y, x, axis=dim)
    return np.trapezoid(y, dx=1.0 if dx is None else dx, axis=dim)


def _cumtrapz(y, x=None, dx=None, dim=-1):
    y = np.moveaxis(y, dim, -1)
    pair = y[..., 1:] + y[..., :-1]
    h = np.diff(x) if x is not None else (1.0 if dx is None else dx)
    return np.moveaxis(np.cumsum(h * pair / 2, -1), -1, dim)


def _np_diff(x, n=1, dim=-1, prepend=None, append=None):
    sides = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    return np.diff(x, n, dim, **sides)


ROWS = [
    OpInfo(
        "diff",
        lambda lib, x, *a, **kw: lib.diff(x, *a, **kw),
        _np_diff,
        [
            S(((5,),), name="1d"),
            S(((3, 4), 2, 0), name="n2_dim0"),
            S(((3, 4), 1, -1, (3, 2), (3, 1)), name="prepend_append"),
            S(((3,), 4), name="n_too_big"),
        ],
    ),
    OpInfo(
        "diff",
        lambda lib, x: lib.diff(x),
        lambda x: np.diff(x),
        [S((Int((5,), -5, 5),), name="int")],
        grad=False,
    ),
    OpInfo(
        "gradient",
        lambda lib, x, **kw: lib.gradient(x, **kw),
        lambda x, spacing=1, dim=None, edge_order=1: np.gradient(
            x,
            *(spacing if isinstance(spacing, list) else [spacing]),
            axis=dim,
            edge_order=edge_order,
        ),
        [
            S(((5,),), name="1d"),
            S(((4, 5),), {"spacing": 0.5}, name="2d"),
            S(((4, 5),), {"spacing": [2.0], "dim": 1, "edge_order": 2}, name="edge2"),
        ],
    ),
    OpInfo(
        "gradient",
        lambda lib, x, c, **kw: lib.gradient(x, spacing=[c], dim=0, **kw),
        lambda x, c, edge_order=1: np.gradient(x, c, axis=0, edge_order=edge_order),
        [
            S(((5, 3), X), name="coords"),
            S(((5, 3), X), {"edge_order": 2}, name="coords_edge2"),
        ],
    ),
    OpInfo(
        "trapezoid",
        lambda lib, y, *a, **kw: lib.trapezoid(y, *a, **kw),
        _trapezoid,
        [
            S(((5,),), name="1d"),
            S(((3, 4),), {"dx": 0.5, "dim": 0}, name="dx"),
            S(((3, 5), X), name="x1d"),
            S(((3, 5), (3, 5)), name="x_full"),
        ],
    ),
    OpInfo(
        "trapz",
        lambda lib, y, *a, **kw: lib.trapz(y, *a, **kw),
        _trapezoid,
        [S(((3, 5), X), name="x1d"), S(((4,),), {"dx": 2.0}, name="dx")],
    ),
    OpInfo(
        "cumulative_trapezoid",
        lambda lib, y, *a, **kw: lib.cumulative_trapezoid(y, *a, **kw),
        _cumtrapz,
        [
            S(((5,),), name="1d"),
            S(((3, 4),), {"dx": 0.5, "dim": 0}, name="dx"),
            S(((3, 5), X), name="x1d"),
        ],
    ),
    OpInfo(
        "logcumsumexp",
        lambda lib, x, d: lib.logcumsumexp(x, d),
        lambda x, d: np.logaddexp.accumulate(x, axis=d) if x.ndim else x,
        [S(((4, 5), 1), name="2d"), S(((4, 5), 0), name="dim0"), S(((), 0), name="0d")],
        domain=(-3.0, 3.0),
    ),
]
