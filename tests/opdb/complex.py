"""Rows for ember/ops/complex.py. The table draws real float inputs, so each row builds its
complex tensor with ``complex``/``polar`` first (complex-input parity is in test_complex.py)."""

import numpy as np

from tests.opdb import OpInfo, Sample

PAIR = [Sample(((3, 4), (3, 4)), name="same"), Sample(((2, 3), (3,)), name="bcast")]
ONE = [Sample(((3, 4),), name="2d"), Sample(((),), name="0d")]
F = ("float32", "float64")


def _c(lib, x, y):
    return lib.complex(x, y)


ROWS = [
    OpInfo(
        "complex",
        lambda lib, x, y: lib.view_as_real(lib.complex(x, y)),
        lambda x, y: np.stack(np.broadcast_arrays(x, y), -1),
        PAIR,
        dtypes=F,
        gradgrad=False,
    ),
    OpInfo(
        "polar",
        lambda lib, r, t: lib.view_as_real(lib.polar(r, t)),
        lambda r, t: np.stack([r * np.cos(t), r * np.sin(t)], -1),
        PAIR,
        dtypes=F,
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "real",
        lambda lib, x, y: lib.real(_c(lib, x, y)) * 2,
        lambda x, y: np.broadcast_arrays(x, y)[0] * 2,
        PAIR,
        dtypes=F,
        gradgrad=False,
    ),
    OpInfo(
        "imag",
        lambda lib, x, y: lib.imag(_c(lib, x, y)) * 2,
        lambda x, y: np.broadcast_arrays(x, y)[1] * 2,
        PAIR,
        dtypes=F,
        gradgrad=False,
    ),
    OpInfo(
        "angle",
        lambda lib, x, y: lib.angle(_c(lib, x, y)),
        lambda x, y: np.arctan2(y, x),
        PAIR,
        dtypes=F,
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "conj",
        lambda lib, x, y: lib.view_as_real(lib.conj(_c(lib, x, y)) * _c(lib, x, y)),
        lambda x, y: np.stack(np.broadcast_arrays(x * x + y * y, 0 * x * y), -1),
        PAIR,
        dtypes=F,
        gradgrad=False,
    ),
    OpInfo(
        "conj_physical",
        lambda lib, x, y: lib.view_as_real(lib.conj_physical(_c(lib, x, y)) * _c(lib, x, y)),
        lambda x, y: np.stack(np.broadcast_arrays(x * x + y * y, 0 * x * y), -1),
        PAIR,
        dtypes=F,
        gradgrad=False,
    ),
    OpInfo(
        "resolve_conj", lambda lib, x: lib.resolve_conj(x) * 1, lambda x: x, ONE, gradgrad=False
    ),
    OpInfo("resolve_neg", lambda lib, x: lib.resolve_neg(x) * 1, lambda x: x, ONE, gradgrad=False),
    OpInfo("is_conj", lambda lib, x: lib.is_conj(x), None, ONE, grad=False, meta=False),
    OpInfo("is_neg", lambda lib, x: lib.is_neg(x), None, ONE, grad=False, meta=False),
    OpInfo("is_complex", lambda lib, x: lib.is_complex(x), None, ONE, grad=False, meta=False),
    OpInfo(
        "view_as_real",
        lambda lib, x, y: lib.view_as_real(_c(lib, x, y)) * 3,
        lambda x, y: np.stack(np.broadcast_arrays(x, y), -1) * 3,
        PAIR,
        dtypes=F,
        gradgrad=False,
    ),
    OpInfo(
        "view_as_complex",
        lambda lib, x, y: lib.view_as_complex(lib.stack([x, y], -1)).abs(),
        lambda x, y: np.hypot(x, y),
        [Sample(((3, 4), (3, 4)), name="same")],
        dtypes=F,
        domain=(0.5, 2.0),
    ),
]
