"""CPU kernels of the linalg decompositions (``ember/ops/linalg_decomp.py``).

Batched work runs in NumPy's stacked LAPACK gufuncs (gesdd, syevd, geqrf/orgqr, geev), which
are the same LAPACK routines torch calls, so values agree to rounding and the sign/phase
conventions of QR agree exactly. Least squares has no batched call anywhere (NumPy's lstsq
takes one matrix, SciPy's loops), so it runs SciPy's LAPACK drivers one matrix at a time.
SciPy is imported inside the functions that use it (``import ember`` must not load it).

A non-convergence surfaces as NumPy's ``LinAlgError``; ``convergence_failure`` then finds the
first failing batch element and LAPACK's ``info`` for it (error path only), so the op can word
the error as torch does.
"""

from __future__ import annotations

import numpy as _np

from ember.backend import _threads


def linalg_svd(a, full_matrices: bool, compute_uv: bool):
    """``(U, S, Vh)`` (or ``S``) of each matrix of ``a``; empty matrices as torch gives them."""
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    real = _np.empty((), a.dtype).real.dtype
    if m == 0 or n == 0:
        k = min(m, n)
        s = _np.zeros(batch + (k,), real)
        if not compute_uv:
            return s
        mu, nv = (m, n) if full_matrices else (k, k)
        u = _np.broadcast_to(_np.eye(m, mu, dtype=a.dtype), batch + (m, mu)).copy()
        vh = _np.broadcast_to(_np.eye(nv, n, dtype=a.dtype), batch + (nv, n)).copy()
        return u, s, vh
    if not compute_uv:
        return _np.linalg.svd(a, compute_uv=False)
    return _np.linalg.svd(a, full_matrices=full_matrices)


def linalg_eigh(a, upper: bool, compute_v: bool):
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices, reading one triangle."""
    uplo = "U" if upper else "L"
    if a.shape[-1] == 0:
        real = _np.empty((), a.dtype).real.dtype
        w = _np.zeros(a.shape[:-1], real)
        return (w, a.copy()) if compute_v else w
    if not compute_v:
        return _np.linalg.eigvalsh(a, UPLO=uplo)
    w, v = _np.linalg.eigh(a, UPLO=uplo)
    return w, v


def linalg_qr(a, mode: str):
    """``(Q, R)``; mode ``'r'`` gives an empty ``Q`` as torch does."""
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    k = min(m, n)
    if m == 0 or n == 0:
        qn = m if mode == "complete" else k
        rm = m if mode == "complete" else k
        q = _np.broadcast_to(_np.eye(m, qn, dtype=a.dtype), batch + (m, qn)).copy()
        r = _np.zeros(batch + (rm, n), a.dtype)
        return (_np.zeros((0,), a.dtype) if mode == "r" else q), r
    if mode == "r":
        r = _np.linalg.qr(a, mode="r")
        return _np.zeros((0,), a.dtype), r
    q, r = _np.linalg.qr(a, mode=mode)
    return q, r


def geqrf(a):
    """LAPACK's geqrf: R above the diagonal, the Householder vectors below it, and tau."""
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return a.copy(), _np.zeros(a.shape[:-2] + (min(m, n),), a.dtype)
    h, tau = _np.linalg.qr(a, mode="raw")  # h is the transposed (Fortran) result
    return _np.ascontiguousarray(_np.swapaxes(h, -1, -2)), tau


def _reflectors(a, k):
    """The first ``k`` Householder vectors stored in ``a``: unit lower trapezoidal columns."""
    v = _np.tril(a[..., :, :k], -1)
    idx = _np.arange(k)
    v[..., idx, idx] = 1
    return v


def householder_product(a, tau):
    """``H_1 ... H_k`` applied to the first ``n`` columns of the identity (LAPACK's orgqr),
    batched: one rank-1 update per reflector, over every matrix at once."""
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    v = _reflectors(a, k)
    dtype = _np.result_type(a.dtype, tau.dtype)
    q = _np.broadcast_to(_np.eye(m, n, dtype=dtype), a.shape[:-2] + (m, n)).copy()
    # H_i touches rows i: only (v is zero above i), and applying H_k first keeps the
    # columns < i of the running product equal to the identity's
    for i in range(k - 1, -1, -1):
        vi = v[..., i:, i : i + 1]
        blk = q[..., i:, i:]
        w = _np.conj(vi).swapaxes(-1, -2) @ blk
        blk -= (tau[..., i, None, None] * vi) @ w
    return q


def ormqr(a, tau, c, left: bool, transpose: bool):
    """``op(Q) C`` or ``C op(Q)`` for ``Q = H_1 ... H_k`` stored as geqrf leaves it."""
    k = tau.shape[-1]
    v = _reflectors(a, k)
    dtype = _np.result_type(a.dtype, tau.dtype, c.dtype)
    out = c.astype(dtype, copy=True)
    forward = left == transpose  # Q^H C and C Q apply H_1 first
    order = range(k) if forward else range(k - 1, -1, -1)
    t = _np.conj(tau) if transpose else tau
    for i in order:
        vi = v[..., i:, i : i + 1]
        ti = t[..., i, None, None]
        if left:
            blk = out[..., i:, :]
            blk -= (ti * vi) @ (_np.conj(vi).swapaxes(-1, -2) @ blk)
        else:
            blk = out[..., :, i:]
            blk -= (blk @ vi) @ (ti * _np.conj(vi).swapaxes(-1, -2))
    return out


def linalg_lstsq(a, b, rcond: float, driver: str):
    """SciPy's LAPACK least-squares drivers, one matrix at a time: per matrix the ``max(m, n)
    x k`` block LAPACK leaves in B (the solution in its first ``n`` rows, the rotated residual
    in the rest), the rank and the singular values."""
    _threads.scipy_blas_single_threaded()
    from scipy.linalg import lapack

    m, n = a.shape[-2:]
    nrhs = b.shape[-1]
    batch = a.shape[:-2]
    flat_a = a.reshape((-1, m, n))
    flat_b = b.reshape((-1, m, nrhs))
    nb = flat_a.shape[0]
    rows = max(m, n)
    k = min(m, n)
    out = _np.zeros((nb, rows, nrhs), a.dtype)
    rank = _np.zeros(nb, _np.int64)
    sv = _np.zeros((nb, k), _np.empty((), a.dtype).real.dtype)
    if nb == 0 or k == 0 or nrhs == 0:
        return out.reshape(batch + (rows, nrhs)), rank.reshape(batch), sv.reshape(batch + (k,))
    fn = lapack.get_lapack_funcs(driver, (flat_a[0], flat_b[0]))
    if driver != "gels":
        lw = lapack.get_lapack_funcs(driver + "_lwork", (flat_a[0],))(m, n, nrhs, rcond)
        lwork = int(_np.real(lw[0]))
    for i in range(nb):
        ai = _np.array(flat_a[i], order="F")
        bi = _np.zeros((rows, nrhs), a.dtype, order="F")
        bi[:m] = flat_b[i]
        if driver == "gels":
            qr, x, info = fn(ai, bi)
            if info == 0:
                info = _gels_rank_deficient(qr, k)
        elif driver == "gelsy":
            jpvt = _np.zeros(n, _np.int32)
            _, x, _, r, info = fn(ai, bi, jpvt, rcond, lwork)
            rank[i] = r
        elif driver == "gelsd":
            x, s, r, info = fn(ai, bi, lwork, int(lw[1]), rcond)
            rank[i], sv[i] = r, s[:k]
        else:
            _, x, s, r, _, info = fn(ai, bi, cond=rcond, lwork=lwork)
            rank[i], sv[i] = r, s[:k]
        if info > 0:
            raise _np.linalg.LinAlgError(i, int(info))
        out[i] = x[:rows]
    return out.reshape(batch + (rows, nrhs)), rank.reshape(batch), sv.reshape(batch + (k,))


def _gels_rank_deficient(qr, k: int) -> int:
    """LAPACK's gels reports rank deficiency only where a diagonal entry of R (or L) is exactly
    zero, which depends on the BLAS kernel's rounding (ones(3, 2) gives R[1, 1] = 0 with one
    kernel, 1e-17 with another). An entry at round-off level, ``|r_ii| <= max(m, n) * eps *
    max |r_jj|``, counts as zero too, so the same matrix gives the same answer on every CPU.
    Returns gels's ``info``: one plus the first such index, or 0."""
    d = _np.abs(_np.diagonal(qr[:k, :k]))
    tol = max(qr.shape) * _np.finfo(d.dtype).eps * d.max()
    small = _np.flatnonzero(d <= tol)
    return int(small[0]) + 1 if small.size else 0


def linalg_eig(a, compute_v: bool = True):
    """Eigenvalues and right eigenvectors (complex; unit norm, largest entry real, LAPACK's
    geev) of general square matrices; the eigenvalues alone when not ``compute_v``."""
    ct = _np.result_type(a.dtype, _np.complex64)
    if a.shape[-1] == 0:
        w = _np.zeros(a.shape[:-1], ct)
        return (w, _np.zeros(a.shape, ct)) if compute_v else w
    if compute_v:
        w, v = _np.linalg.eig(a)
        return w.astype(ct, copy=False), v.astype(ct, copy=False)
    try:
        return _np.linalg.eigvals(a).astype(ct, copy=False)
    except _np.linalg.LinAlgError:
        bad = ~_np.isfinite(a).all((-2, -1))
        if not bad.any():
            raise
    # NOTE: matches torch: eigvals of a non-finite matrix are NaN, not an error
    w = _np.linalg.eigvals(_np.where(bad[..., None, None], 0, a)).astype(ct, copy=False)
    w[bad] = _np.nan
    return w


def convergence_failure(kind: str, a):
    """``(batch index, info)`` of the first matrix of ``a`` whose LAPACK routine fails (error
    path only: it runs the SciPy routine matrix by matrix)."""
    _threads.scipy_blas_single_threaded()
    from scipy.linalg import lapack

    flat = a.reshape((-1,) + a.shape[-2:])
    for i, m in enumerate(flat):
        if kind == "eigh":
            fn = lapack.get_lapack_funcs("syevd" if m.dtype.kind == "f" else "heevd", (m,))
            info = fn(m, compute_v=1, lower=1)[-1]
        elif kind == "eig":
            fn = lapack.get_lapack_funcs("geev", (m,))
            info = fn(m)[-1]
        else:
            if not _np.isfinite(m).all():
                return i, -1
            fn = lapack.get_lapack_funcs("gesdd", (m,))
            info = fn(m, compute_uv=1, full_matrices=0)[-1]
        if info > 0:
            return i, int(info)
        if not _np.isfinite(m).all():
            return i, -1
    return 0, 0
