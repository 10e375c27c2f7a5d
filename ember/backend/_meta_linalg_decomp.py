"""Meta forms of the linalg decomposition kernels (``_linalg_decomp.py``): shapes and dtypes."""

from __future__ import annotations

import numpy as _np

from ember.backend.meta import MetaArray


def _real(dtype):
    return _np.empty((), dtype).real.dtype


def linalg_svd(a, full_matrices: bool, compute_uv: bool):
    *batch, m, n = a.shape
    batch = tuple(batch)
    k = min(m, n)
    s = MetaArray(batch + (k,), _real(a.dtype))
    if not compute_uv:
        return s
    mu, nv = (m, n) if full_matrices else (k, k)
    return MetaArray(batch + (m, mu), a.dtype), s, MetaArray(batch + (nv, n), a.dtype)


def linalg_eigh(a, upper: bool, compute_v: bool):
    w = MetaArray(a.shape[:-1], _real(a.dtype))
    return (w, MetaArray(a.shape, a.dtype)) if compute_v else w


def linalg_qr(a, mode: str):
    *batch, m, n = a.shape
    batch = tuple(batch)
    k = m if mode == "complete" else min(m, n)
    q = MetaArray((0,), a.dtype) if mode == "r" else MetaArray(batch + (m, k), a.dtype)
    return q, MetaArray(batch + (k, n), a.dtype)


def geqrf(a):
    return MetaArray(a.shape, a.dtype), MetaArray(a.shape[:-2] + (min(a.shape[-2:]),), a.dtype)


def householder_product(a, tau):
    return MetaArray(a.shape, _np.result_type(a.dtype, tau.dtype))


def ormqr(a, tau, c, left: bool, transpose: bool):
    return MetaArray(c.shape, _np.result_type(a.dtype, tau.dtype, c.dtype))


def linalg_lstsq(a, b, rcond: float, driver: str):
    *batch, m, n = a.shape
    batch = tuple(batch)
    return (
        MetaArray(batch + (max(m, n), b.shape[-1]), a.dtype),
        MetaArray(batch, _np.int64),
        MetaArray(batch + (min(m, n),), _real(a.dtype)),
    )


def linalg_eig(a, compute_v: bool = True):
    ct = _np.result_type(a.dtype, _np.complex64)
    w = MetaArray(a.shape[:-1], ct)
    return (w, MetaArray(a.shape, ct)) if compute_v else w
