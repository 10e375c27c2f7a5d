"""Rows for ember/ops/linalg_extra.py: cholesky (deprecated), lobpcg, svd_lowrank and
pca_lowrank. The randomized ones are checked where they are exact (q = full rank: the
reconstruction equals the input); errors and the removed torch.solve in tests/test_misc_ops.py.
"""

import warnings

import numpy as np

from tests.opdb import OpInfo, Sample

S = Sample
F = ("float32", "float64")


def _spd(lib, x):
    return x @ x.mT + 3 * lib.eye(x.shape[-1], dtype=x.dtype, device=x.device)


def _np_spd(x):
    return x @ np.swapaxes(x, -1, -2) + 3 * np.eye(x.shape[-1])


def _cholesky(lib, x, upper=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in torch, and so here
        return lib.cholesky(_spd(lib, x), upper=upper)


def _cholesky_ref(x, upper=False):
    low = np.linalg.cholesky(_np_spd(x))
    return np.swapaxes(low, -1, -2) if upper else low


def _lobpcg(lib, x, largest=True):
    # eigenvalues only: eigenvectors are defined up to sign
    return lib.lobpcg(_spd(lib, x), k=2, largest=largest)[0]


def _lobpcg_ref(x, largest=True):
    w = np.linalg.eigvalsh(_np_spd(x))
    return w[..., ::-1][..., :2] if largest else w[..., :2]


def _svd_lowrank(lib, x):
    U, S_, V = lib.svd_lowrank(x, q=min(x.shape[-2:]))
    return U @ lib.diag_embed(S_) @ V.mT


def _pca_lowrank(lib, x):
    m, n = x.shape[-2:]
    U, S_, V = lib.pca_lowrank(x, q=min(m - 1, n))  # centering costs one rank
    return U @ lib.diag_embed(S_) @ V.mT


ROWS = [
    OpInfo(
        "cholesky",
        _cholesky,
        _cholesky_ref,
        [S(((4, 4),), name="2d"), S(((2, 3, 3),), {"upper": True}, name="batch_upper")],
        dtypes=F,
    ),
    OpInfo(
        "lobpcg",
        _lobpcg,
        _lobpcg_ref,
        [S(((7, 7),), name="largest"), S(((2, 6, 6),), {"largest": False}, name="smallest")],
        dtypes=F,
        meta=False,
        torch=False,  # torch's values stop at its tolerance: parity at 1e-6 in test_misc_ops
        skip_reason="lobpcg: torch converges to a tolerance (parity in tests/test_misc_ops.py)",
    ),
    OpInfo(
        "svd_lowrank",
        _svd_lowrank,
        lambda x: x,
        [S(((5, 3),), name="tall"), S(((3, 5),), name="wide")],
        dtypes=F,
        meta=False,
    ),
    OpInfo(
        "pca_lowrank",
        _pca_lowrank,
        lambda x: x - x.mean(-2, keepdims=True),
        [S(((5, 3),), name="tall"), S(((2, 3, 4),), name="batch")],
        dtypes=F,
        meta=False,
    ),
]
