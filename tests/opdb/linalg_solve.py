"""Rows for the top-level names of ember/ops/linalg_solve.py (inverse, det, logdet, slogdet);
tests/opdb/linalg_lu.py and linalg_matrix.py reuse the samples and helpers.
Square inputs get ``3 I`` added (``_wc``) so they are well conditioned; tests/test_linalg_solve.py
covers torch.linalg's forms, batches, errors and singular input."""

import warnings

import numpy as np

from tests.opdb import OpInfo, Sample

SQ = [Sample(((3, 3),), name="2d"), Sample(((2, 3, 3),), name="batch")]
RHS = [
    Sample(((3, 2), (3, 3)), name="2d"),
    Sample(((2, 3, 1), (3, 3)), name="bcast"),
    Sample(((3, 2), (2, 3, 3)), name="batch"),
]
F = ("float32", "float64")


def _quiet(fn, *args, **kwargs):
    """Call a deprecated op (its warning is asserted in tests/test_linalg_solve.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _wc(lib, x):
    return x + 3 * lib.eye(x.shape[-1], dtype=x.dtype, device=x.device)


def _spd(lib, x):
    return x @ x.mT + 3 * lib.eye(x.shape[-1], dtype=x.dtype, device=x.device)


def _np_wc(x):
    return x + 3 * np.eye(x.shape[-1])


def _np_spd(x):
    return x @ np.swapaxes(x, -1, -2) + 3 * np.eye(x.shape[-1])


def _expm(x):
    from scipy.linalg import expm

    return expm(x)


ROWS = [
    OpInfo(
        "inverse",
        lambda lib, x: lib.inverse(_wc(lib, x)),
        lambda x: np.linalg.inv(_np_wc(x)),
        SQ,
        dtypes=F,
    ),
    OpInfo(
        "inverse",
        lambda lib, x: _wc(lib, x).inverse(),
        lambda x: np.linalg.inv(_np_wc(x)),
        SQ[:1],
        dtypes=F,
    ),
    OpInfo("det", lambda lib, x: lib.det(x), np.linalg.det, SQ, dtypes=F),
    OpInfo("det", lambda lib, x: x.det(), np.linalg.det, SQ[:1], dtypes=F),
    OpInfo(
        "logdet",
        lambda lib, x: lib.logdet(_wc(lib, x)),
        lambda x: np.log(np.linalg.det(_np_wc(x))),
        SQ,
        dtypes=F,
    ),
    OpInfo(
        "slogdet",
        lambda lib, x: lib.slogdet(x),
        lambda x: tuple(np.linalg.slogdet(x)),
        SQ,
        dtypes=F,
    ),
]
