"""LAPACK kernels for ember/ops/linalg_solve.py that NumPy's batched ``numpy.linalg`` gufuncs do
not cover: LU with LAPACK's pivots (getrf), its solve (getrs), the symmetric-indefinite LDL
factorization (sytrf/hetrf and sytrs/hetrs), Cholesky with the failing minor (potrf), the
triangular solve (BLAS trsm) and the matrix exponential.

SciPy is imported inside each function (``import ember`` must not import it). LAPACK's
factorizations are per matrix: SciPy has no batched getrf/sytrf (``scipy.linalg.lu`` is batched
but returns a permutation, not LAPACK's pivots, and measured 2x slower than this loop), so the
batch is a Python loop over raw LAPACK calls, a few microseconds of overhead each.
"""

from __future__ import annotations

import numpy as _np

from ember.backend import _threads


def _flat(a):
    """``a`` as a C-contiguous (batch, m, n) array and its batch shape."""
    batch = a.shape[:-2]
    return _np.ascontiguousarray(a).reshape((-1,) + a.shape[-2:]), batch


def _lapack(name, a):
    _threads.scipy_blas_single_threaded()
    from scipy.linalg import get_lapack_funcs

    return get_lapack_funcs((name,), (a,))[0]


def linalg_lu_factor(a):
    """LU with partial pivoting of each matrix of ``a`` (..., m, n): the packed factors, LAPACK's
    1-based int32 pivots (..., min(m, n)) and int32 info (..., ): ``i > 0`` when ``U[i-1, i-1]``
    is exactly zero."""
    flat, batch = _flat(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    getrf = _lapack("getrf", flat)
    lu = _np.empty(flat.shape, a.dtype)
    piv = _np.empty((flat.shape[0], k), _np.int32)
    info = _np.zeros(flat.shape[0], _np.int32)
    for i in range(flat.shape[0]):
        lu[i], p, info[i] = getrf(flat[i])
        piv[i] = p[:k]
    piv += 1  # SciPy returns 0-based pivots; torch keeps LAPACK's 1-based ones
    return lu.reshape(a.shape), piv.reshape(batch + (k,)), info.reshape(batch)


def linalg_lu_solve(lu, piv, b):
    """``A^-1 b`` per matrix from LU factors and 1-based pivots (getrs); the three broadcast to
    a common batch. No check for zero pivots: a singular ``U`` gives inf/nan, as LAPACK does."""
    batch = _np.broadcast_shapes(lu.shape[:-2], piv.shape[:-1], b.shape[:-2])
    lu = _np.broadcast_to(lu, batch + lu.shape[-2:]).reshape((-1,) + lu.shape[-2:])
    piv = _np.broadcast_to(piv, batch + piv.shape[-1:]).reshape((-1, piv.shape[-1]))
    bb = _np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    getrs = _lapack("getrs", lu)
    out = _np.empty(bb.shape, _np.result_type(lu, b))
    for i in range(bb.shape[0]):
        out[i] = getrs(lu[i], piv[i] - 1, bb[i])[0]
    return out.reshape(batch + b.shape[-2:])


def linalg_pivots_to_perm(piv, m):
    """The row permutation ``perm`` (..., m) that LAPACK's 1-based pivots (..., k) apply:
    ``(P^T A)[i] = A[perm[i]]``. One vectorized swap per pivot column (k steps, not k*batch)."""
    batch = piv.shape[:-1]
    p = piv.reshape(-1, piv.shape[-1]).astype(_np.intp) - 1
    perm = _np.broadcast_to(_np.arange(m), (p.shape[0], m)).copy()
    rows = _np.arange(p.shape[0])
    for i in range(p.shape[1]):
        j = p[:, i]
        t = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = t
    return perm.reshape(batch + (m,))


def linalg_singular_info(a):
    """LAPACK's getrf info per matrix of square ``a``: 0, or the 1-based index of the first
    exactly zero diagonal element of U (what torch names in its singular-matrix errors)."""
    return linalg_lu_factor(a)[2]


def linalg_cholesky_ex(a):
    """Lower Cholesky factors (potrf) of each matrix and int32 info (the order of the first
    leading minor that is not positive-definite, 0 if none); a failed factor is LAPACK's
    partial result with its upper triangle zeroed, as torch's."""
    flat, batch = _flat(a)
    potrf = _lapack("potrf", flat)
    out = _np.empty(flat.shape, a.dtype)
    info = _np.zeros(flat.shape[0], _np.int32)
    for i in range(flat.shape[0]):
        c, info[i] = potrf(flat[i], lower=1, clean=1)
        out[i] = c
    return _np.tril(out).reshape(a.shape), info.reshape(batch)


def linalg_ldl_factor(a, hermitian):
    """Bunch-Kaufman LDL^T (LDL^H when ``hermitian`` and complex) of the lower triangle of each
    matrix (sytrf/hetrf): the packed factor (upper triangle zeroed), LAPACK's 1-based pivots
    (negative for 2x2 blocks) and info."""
    flat, batch = _flat(a)
    name = "hetrf" if hermitian and a.dtype.kind == "c" else "sytrf"
    fn = _lapack(name, flat)
    n = a.shape[-1]
    out = _np.empty(flat.shape, a.dtype)
    piv = _np.empty((flat.shape[0], n), _np.int32)
    info = _np.zeros(flat.shape[0], _np.int32)
    for i in range(flat.shape[0]):
        ld, p, info[i] = fn(flat[i], lower=1)
        out[i] = ld
        piv[i] = p
    # SciPy hands back LAPACK's own 1-based (signed) ipiv for sytrf
    return _np.tril(out).reshape(a.shape), piv.reshape(batch + (n,)), info.reshape(batch)


def linalg_ldl_solve(ld, piv, b, hermitian):
    """Solve with the factors of ``linalg_ldl_factor`` (sytrs/hetrs), batches broadcast."""
    batch = _np.broadcast_shapes(ld.shape[:-2], piv.shape[:-1], b.shape[:-2])
    ld = _np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((-1,) + ld.shape[-2:])
    piv = _np.broadcast_to(piv, batch + piv.shape[-1:]).reshape((-1, piv.shape[-1]))
    bb = _np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    name = "hetrs" if hermitian and ld.dtype.kind == "c" else "sytrs"
    fn = _lapack(name, ld)
    out = _np.empty(bb.shape, _np.result_type(ld, b))
    for i in range(bb.shape[0]):
        out[i] = fn(ld[i], piv[i], bb[i], lower=1)[0]
    return out.reshape(batch + b.shape[-2:])


def linalg_solve_triangular(a, b, upper, unitriangular):
    """``a^-1 b`` for triangular ``a`` (..., n, n) reading only its ``upper`` (or lower) triangle
    (``unitriangular``: its diagonal taken as ones), ``b`` (..., n, k) of the same dtype and
    batch. BLAS trsm, n^2 k flops instead of the LU of a general solve; a zero on the diagonal
    gives inf/nan, as LAPACK's trtrs would not (NOTE: matches torch, which calls trsm too).

    trsm is per matrix: a 2-D ``a`` takes every right-hand side of the batch in one call; else
    the batch is a loop of one BLAS call each. Fortran-order views without copies: the C-order
    ``x`` is solved in place as ``x^T = b^T a^-T``, where ``a^T`` is ``a``'s buffer read
    column-major (its triangle flipped).
    """
    _threads.scipy_blas_single_threaded()
    from scipy.linalg import get_blas_funcs

    n, k = b.shape[-2:]
    out_shape = a.shape[:-2] + b.shape[-2:] if a.ndim > b.ndim else b.shape
    if 0 in out_shape or n == 0:
        return _np.zeros(out_shape, a.dtype)
    trsm = get_blas_funcs("trsm", (a,))
    lower, diag = int(upper), int(unitriangular)
    if a.ndim == 2:
        # one call: the batch's right-hand sides side by side, (n, batch * k)
        x = _np.array(_np.moveaxis(b, -2, 0), order="C").reshape(n, -1)  # a copy: trsm writes it
        x = trsm(1.0, a.T, x.T, side=1, lower=lower, diag=diag, overwrite_b=1).T
        return _np.moveaxis(x.reshape((n,) + b.shape[:-2] + (k,)), 0, -2)
    flat_a = _np.ascontiguousarray(a).reshape((-1, n, n))
    x = _np.array(b, order="C").reshape((-1, n, k))
    for i in range(x.shape[0]):
        # overwrite_b with an F-contiguous view: trsm writes the solution into x[i]
        trsm(1.0, flat_a[i].T, x[i].T, side=1, lower=lower, diag=diag, overwrite_b=1)
    return x.reshape(b.shape)


def linalg_expm(a):
    """The matrix exponential of each matrix (SciPy's batched scaling-and-squaring Pade)."""
    _threads.scipy_blas_single_threaded()
    from scipy.linalg import expm

    if a.size == 0:
        return a.copy()
    return _np.asarray(expm(a), dtype=a.dtype)
