"""Rows for the top-level names of ember/ops/linalg_lu.py (cholesky_solve, cholesky_inverse,
lu_solve, lu_unpack, lu, triangular_solve). Square inputs get ``3 I`` added (``_wc``) or are made
positive-definite (``_spd``); tests/test_linalg_lu.py covers torch.linalg's forms, batches, errors
and singular input."""

import numpy as np

from tests.opdb import OpInfo, Sample
from tests.opdb.linalg_solve import RHS, SQ, F, _np_spd, _np_wc, _quiet, _spd, _wc

ROWS = [
    OpInfo(
        "cholesky_solve",
        lambda lib, b, x: lib.cholesky_solve(b, lib.linalg.cholesky(_spd(lib, x))),
        lambda b, x: np.linalg.solve(_np_spd(x), b),
        RHS,
        dtypes=F,
    ),
    OpInfo(
        "cholesky_solve",
        lambda lib, b, x: b.cholesky_solve(lib.linalg.cholesky(_spd(lib, x)).mT, upper=True),
        lambda b, x: np.linalg.solve(_np_spd(x), b),
        RHS[:1],
        dtypes=F,
    ),
    OpInfo(
        "cholesky_inverse",
        lambda lib, x: lib.cholesky_inverse(lib.linalg.cholesky(_spd(lib, x))),
        lambda x: np.linalg.inv(_np_spd(x)),
        SQ,
        dtypes=F,
    ),
    OpInfo(
        "lu_solve",
        lambda lib, b, x: _quiet(lib.lu_solve, b, *lib.linalg.lu_factor(_wc(lib, x))),
        lambda b, x: np.linalg.solve(_np_wc(x), b),
        RHS,
        dtypes=F,
    ),
    OpInfo(
        "lu_unpack",
        lambda lib, x: lib.lu_unpack(*lib.linalg.lu_factor(x)),
        None,
        SQ + [Sample(((3, 4),), name="wide"), Sample(((2, 4, 3),), name="tall")],
        dtypes=F,
    ),
    OpInfo("lu", lambda lib, x: _quiet(lib.lu, x), None, SQ, dtypes=F),
    OpInfo("lu", lambda lib, x: _quiet(x.lu, get_infos=True), None, SQ[1:], dtypes=F),
    OpInfo(
        "triangular_solve",
        lambda lib, b, a: _quiet(lib.triangular_solve, b, _wc(lib, a)),
        lambda b, a: (
            np.linalg.solve(np.triu(_np_wc(a)), b),
            np.broadcast_to(
                _np_wc(a), np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + a.shape[-2:]
            ),
        ),
        RHS,
        dtypes=F,
    ),
    OpInfo(
        "triangular_solve",
        lambda lib, b, a: _quiet(b.triangular_solve, _wc(lib, a), False, True, True),
        None,
        RHS[:1],
        dtypes=F,
    ),
]
