"""Rows for the top-level names of ember/ops/linalg_matrix.py (matrix_power, matrix_exp, trace);
tests/test_linalg_solve.py covers torch.linalg's forms (tensorinv, tensorsolve, vander...)."""

import numpy as np

from tests.opdb import OpInfo, Sample
from tests.opdb.linalg_solve import SQ, F, _expm, _np_wc, _wc

ROWS = [
    OpInfo(
        "matrix_power",
        lambda lib, x: lib.matrix_power(x, 3),
        lambda x: np.linalg.matrix_power(x, 3),
        SQ,
        dtypes=F,
    ),
    OpInfo(
        "matrix_power",
        lambda lib, x: _wc(lib, x).matrix_power(-2),
        lambda x: np.linalg.matrix_power(_np_wc(x), -2),
        SQ,
        dtypes=F,
    ),
    OpInfo(
        "matrix_power",
        lambda lib, x: lib.matrix_power(x, 0),
        lambda x: np.broadcast_to(np.eye(x.shape[-1]), x.shape),
        SQ,
        dtypes=F,
        grad=False,
    ),
    OpInfo("matrix_exp", lambda lib, x: lib.matrix_exp(x), _expm, SQ, dtypes=F, domain=(-1, 1)),
    OpInfo("matrix_exp", lambda lib, x: x.matrix_exp(), _expm, SQ[:1], dtypes=F, domain=(-1, 1)),
    OpInfo(
        "trace",
        lambda lib, x: lib.trace(x),
        np.trace,
        [Sample(((3, 3),), name="square"), Sample(((2, 4),), name="wide")],
        gradgrad=False,
    ),
    OpInfo(
        "trace",
        lambda lib, x: x.trace(),
        np.trace,
        [Sample(((4, 2),), name="tall")],
        gradgrad=False,
    ),
]
