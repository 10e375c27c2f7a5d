"""The torch.linalg decompositions (svd, eigh, qr, lstsq, householder products, eig) and the
quantities built on them (pinv, matrix_rank, cond), with their old top-level names.

The factorizations are primitives whose forward is one batched LAPACK call in the backend
(``backend/_linalg_decomp.py``) and whose backward is PyTorch's formula written in Tensor ops, so
double backward works. Everything else composes them, as torch's implicit-autograd ops do, so
gradients flow through the same formulas (pinv through svd/eigh, eigvalsh through eigh...).
Householder products and ``ormqr`` apply one reflector at a time (batched over matrices); with
a gradient to compute they do it in Tensor ops, so autograd differentiates the product itself.

LinalgSvd, LinalgEigh and LinalgQr keep ``materialize_grads`` off: an output nobody used
reaches backward as None, and torch's formulas take shorter (and, for repeated singular values,
finite) branches then.
"""

from __future__ import annotations

import math

from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops._selection import _return_type
from ember.ops.diagonal import diag_embed
from ember.ops.joining import cat
from ember.ops.pointwise import _out
from ember.ops.reduction import _out_tuple, _tname
from ember.tensor import Tensor, _wrap

_RETURN_TYPES = {
    "linalg_svd": _return_type("linalg_svd", ("U", "S", "Vh")),
    "svd": _return_type("svd", ("U", "S", "V")),
    "linalg_qr": _return_type("linalg_qr", ("Q", "R")),
    "qr": _return_type("qr", ("Q", "R")),
    "linalg_eigh": _return_type("linalg_eigh", ("eigenvalues", "eigenvectors")),
    "linalg_eig": _return_type("linalg_eig", ("eigenvalues", "eigenvectors")),
    "linalg_lstsq": _return_type(
        "linalg_lstsq", ("solution", "residuals", "rank", "singular_values")
    ),
    "geqrf": _return_type("geqrf", ("a", "tau")),
}
_EPS = {4: 1.1920928955078125e-07, 8: 2.220446049250313e-16}


# ---- input checks -------------------------------------------------------------------------------
def _linalg_error(msg: str):
    from ember.linalg import LinAlgError

    return LinAlgError(msg)


def _at_least_2d(A: Tensor, op: str, name: str = "A") -> None:
    if A._data.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")


def _float_input(A: Tensor, op: str, kernel: str, refuse_int: bool = True) -> None:
    """torch's two checks: integers refused by the op's wrapper (RuntimeError), half precision
    by the CPU kernel's dispatch (NotImplementedError)."""
    d = A._data.dtype
    if d.kind not in "fc" or d.itemsize < 4 or d.name == "bfloat16":
        if refuse_int and d.kind not in "fcV":
            raise RuntimeError(
                f"{op}: Expected a floating point or complex tensor as input. Got {_tname(d)}"
            )
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(d)}'")


def _square(A: Tensor, op: str) -> None:
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )


def _eps(A: Tensor, op: str = "") -> float:
    d = A._data.dtype
    if d.kind not in "fc" or d.itemsize < 4 or d.name == "bfloat16":
        raise RuntimeError("This function doesn't handle types other than float and double")
    return _EPS[d.itemsize if d.kind == "f" else d.itemsize // 2]


def _convergence_error(xp, kind: str, a, op: str):
    """torch's LinAlgError for a LAPACK routine that did not converge, naming the batch
    element (the backend finds it and LAPACK's info, on this error path only)."""
    from ember.backend._linalg_decomp import convergence_failure

    b, info = convergence_failure(kind, a)
    where = f"(Batch element {b}): " if a.ndim > 2 else ""
    if info < 0 or kind == "svd":
        why = "the input matrix contained non-finite values."
    elif kind == "eigh":
        why = (
            "the input matrix is ill-conditioned or has too many repeated eigenvalues "
            f"(error code: {info})."
        )
    else:
        why = f"the input matrix is ill-conditioned (error code: {info})."
    return _linalg_error(f"{op}: {where}The algorithm failed to converge because {why}")


def _complex(t: Tensor) -> bool:
    return t._data.dtype.kind == "c"


def _conj(t: Tensor) -> Tensor:
    return t.conj() if _complex(t) else t


def _eye_like(t: Tensor, n: int) -> Tensor:
    xp = xp_of(t._data)
    return _wrap(xp.eye(n, dtype=t._data.dtype))


# ---- svd ----------------------------------------------------------------------------------------
class LinalgSvd(Function):
    _array_forward = True
    _node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, a, full_matrices):
        xp = xp_of(a)
        try:
            u, s, vh = xp.linalg_svd(a, full_matrices, True)
        except xp.linalg.LinAlgError:
            raise _convergence_error(xp, "svd", a, "linalg.svd") from None
        ctx.full = full_matrices
        ctx.save_for_backward(u, s, vh)
        return u, s, vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        if ctx.full:  # NOTE: matches torch: the extra columns of full matrices get no gradient
            k = S.shape[-1]
            U, Vh = U[..., :, :k], Vh[..., :k, :]
            gU = None if gU is None else gU[..., :, :k]
            gVh = None if gVh is None else gVh[..., :k, :]
        return _svd_backward(gU, gS, gVh, U, S, Vh), None


LinalgSvd._Node.materialize_grads = False


def _svd_backward(gU, gS, gVh, U, S, Vh):
    """PyTorch's svd_backward (real and complex), in Tensor ops."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:  # only the singular values: dA = U diag(gS) Vh
        if gS is None:
            return None
        return U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh
    UhgU = VhgV = None
    if gU is not None:
        UhgU = U.mH @ gU
        UhgU = UhgU - UhgU.mH
    if gVh is not None:
        VhgV = Vh @ gVh.mH
        VhgV = VhgV - VhgV.mH
    if _complex(U):
        _gauge_check(
            UhgU,
            VhgV,
            "svd_backward: The singular vectors in the complex case are "
            "specified up to multiplication by e^{i phi}. The specified loss function "
            "depends on this phase term, making it ill-defined.",
        )
    S2 = S * S
    # E_jk = S_k^2 - S_j^2 off the diagonal, 1 on it
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _eye_like(S, S.shape[-1])
    if UhgU is not None and VhgV is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif UhgU is not None:
        gA = (UhgU / E) * S.unsqueeze(-2)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + diag_embed(gS)
    if _complex(U) and UhgU is not None:
        gA = gA + diag_embed(UhgU.diagonal(dim1=-2, dim2=-1) / (2 * S))
    if m > n and gU is not None:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (U.mH @ gUSinv)
        return gA @ Vh
    if m < n and gVh is not None:
        gA = gA @ Vh
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - (SinvgVh @ Vh.mH) @ Vh
        return U @ gA
    return U @ (gA @ Vh) if m >= n else (U @ gA) @ Vh


def _gauge_check(X, Y, msg):
    """The loss must not depend on the phase of the vectors: Im diag(X + Y) ~ 0."""
    d = 0
    for t in (X, Y):
        if t is not None:
            d = d + t._data.diagonal(0, -2, -1).imag
    xp = xp_of(X._data if X is not None else Y._data)
    if getattr(d, "size", 0) and not bool(xp.all(xp.abs(d) <= 1e-2)):
        raise RuntimeError(msg)


def _check_svd_input(A: Tensor, op: str = "linalg.svd") -> None:
    _at_least_2d(A, op)
    _float_input(A, op, "linalg_svd_cpu")


def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    """The singular value decomposition ``A = U diag(S) Vh`` of each matrix of ``A``
    (``torch.linalg.svd``): ``U`` and ``Vh`` are ``(m, m)``/``(n, n)`` with ``full_matrices``,
    else ``(m, k)``/``(k, n)`` with ``k = min(m, n)``; ``S`` descends. The vectors are defined up
    to sign (LAPACK's gesdd, as torch).

    Example:
        >>> U, S, Vh = ember.linalg.svd(ember.tensor([[3.0, 0.0], [0.0, -4.0]]))
        >>> S
        tensor([4., 3.])
    """
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )
    _check_svd_input(A)
    r = _RETURN_TYPES["linalg_svd"](*LinalgSvd.apply(A, bool(full_matrices)))
    return _out_tuple(r, out)


class _Svdvals(Function):
    _array_forward = True
    _node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        try:
            return xp.linalg_svd(a, False, False)
        except xp.linalg.LinAlgError:
            raise _convergence_error(xp, "svd", a, "linalg.svd") from None


def _svdvals(A: Tensor) -> Tensor:
    """Singular values; through the full svd when a gradient is needed (torch does the same),
    so that every order of derivative works."""
    if _gm.state.enabled and A._requires_grad:
        return LinalgSvd.apply(A, False)[1]
    return _Svdvals.apply(A)


def _svd_old(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None):
    """``torch.svd``: ``(U, S, V)`` with ``V`` (not ``Vh``); ``some=True`` gives the reduced
    factors. With ``compute_uv=False`` ``U`` and ``V`` are zero ``(m, m)``/``(n, n)`` matrices.

    Example:
        >>> ember.svd(ember.tensor([[3.0, 0.0], [0.0, -4.0]])).S
        tensor([4., 3.])
    """
    _check_svd_input(input)
    rt = _RETURN_TYPES["svd"]
    if not compute_uv:
        s = _svdvals(input)
        *batch, m, n = input.shape
        xp = xp_of(input._data)
        z = lambda k: _wrap(xp.zeros((*batch, k, k), input._data.dtype))  # noqa: E731
        return _out_tuple(rt(z(m), s, z(n)), out)
    U, S, Vh = LinalgSvd.apply(input, not some)
    return _out_tuple(rt(U, S, Vh.mH), out)


# ---- eigh ---------------------------------------------------------------------------------------
def _check_uplo(UPLO) -> bool:
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO.upper() == "U"


class LinalgEigh(Function):
    _array_forward = True
    _node_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, a, upper):
        xp = xp_of(a)
        try:
            w, v = xp.linalg_eigh(a, upper, True)
        except xp.linalg.LinAlgError:
            raise _convergence_error(xp, "eigh", a, "linalg.eigh") from None
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gL, gV):
        L, V = ctx.saved_tensors
        return _eigh_backward(gL, gV, L, V), None


LinalgEigh._Node.materialize_grads = False


def _eigh_backward(gL, gV, L, V):
    """PyTorch's linalg_eig_backward for Hermitian input: gA = V (gL + skew(V^H gV) / E) V^H
    with E_ij = L_j - L_i (a Hermitian gradient, whichever triangle was read)."""
    if gV is None:
        if gL is None:
            return None
        return (V * gL.unsqueeze(-2).to(V.dtype)) @ V.mH
    VhgV = V.mH @ gV
    if _complex(V):
        _gauge_check(
            VhgV,
            None,
            "linalg_eigh_backward: The eigenvectors in the complex case "
            "are specified up to multiplication by e^{i phi}. The specified loss "
            "function depends on this quantity, so it is ill-defined.",
        )
    VhgV = 0.5 * (VhgV - VhgV.mH)
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + _eye_like(L, L.shape[-1])
    ret = VhgV / E
    if _complex(V):  # the diagonal is gL alone
        ret = ret - diag_embed(ret.diagonal(dim1=-2, dim2=-1))
    if gL is not None:
        ret = ret + diag_embed(gL.to(ret.dtype))
    return V @ (ret @ V.mH)


def _check_eigh_input(A: Tensor, op: str) -> None:
    _at_least_2d(A, op)
    _float_input(A, op, "linalg_eigh_cpu", refuse_int=False)
    _square(A, op)


def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric (Hermitian) matrices,
    reading only the ``UPLO`` triangle (``torch.linalg.eigh``). Eigenvectors are defined up to
    sign.

    Example:
        >>> ember.linalg.eigh(ember.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
        tensor([1., 3.])
    """
    upper = _check_uplo(UPLO)
    _check_eigh_input(A, "linalg.eigh")
    return _out_tuple(_RETURN_TYPES["linalg_eigh"](*LinalgEigh.apply(A, upper)), out)


class _Eigvalsh(Function):
    _array_forward = True
    _node_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, a, upper):
        xp = xp_of(a)
        try:
            return xp.linalg_eigh(a, upper, False)
        except xp.linalg.LinAlgError:
            raise _convergence_error(xp, "eigh", a, "linalg.eigh") from None


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """The eigenvalues (ascending) of symmetric (Hermitian) matrices (``torch.linalg.eigvalsh``).

    Example:
        >>> ember.linalg.eigvalsh(ember.tensor([[2.0, 1.0], [1.0, 2.0]]))
        tensor([1., 3.])
    """
    upper = _check_uplo(UPLO)
    _check_eigh_input(A, "linalg.eigh")
    if _gm.state.enabled and A._requires_grad:
        w = LinalgEigh.apply(A, upper)[0]
    else:
        w = _Eigvalsh.apply(A, upper)
    return _out(w, out)


# ---- qr -----------------------------------------------------------------------------------------
class LinalgQr(Function):
    _array_forward = True
    _node_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, a, mode):
        q, r = xp_of(a).linalg_qr(a, mode)
        ctx.mode = mode
        ctx.save_for_backward(q, r)
        return q, r

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        if ctx.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                "through linalg.qr."
            )
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        if gQ is None and gR is None:
            return None, None
        if m >= n:
            return _qr_backward_tall(gQ, gR, Q, R), None
        # A = Q [X | Y], R = [U | V]: X = Q U is a square QR, Y = Q V
        U, V = R[..., :, :m], R[..., :, m:]
        gU = gY = None
        gQp = gQ
        if gR is not None:
            gU, gV = gR[..., :, :m], gR[..., :, m:]
            gQp = (Q @ V) @ gV.mH if gQ is None else gQ + (Q @ V) @ gV.mH
            gY = Q @ gV
        gX = _qr_backward_tall(gQp, gU, Q, U)
        if gY is None:
            gY = (Q @ V) * 0
        return cat([gX, gY], -1), None


LinalgQr._Node.materialize_grads = False


def _qr_backward_tall(gQ, gR, Q, R):
    """m >= n: gA = [gQ + Q syminvadj(triu(gR R^H - Q^H gQ))] R^-H."""
    from ember.linalg import solve_triangular

    if gR is not None:
        N = gR @ R.mH
        if gQ is not None:
            N = N - Q.mH @ gQ
    else:
        N = -(Q.mH @ gQ)
    N = N.triu()
    d = N.diagonal(dim1=-2, dim2=-1)
    if _complex(N):
        d = d.real
    X = Q @ (N + N.mH - diag_embed(d.to(N.dtype)))
    if gQ is not None:
        X = X + gQ
    return solve_triangular(R.mH, X, upper=False, left=False)


_QR_MODES = ("reduced", "complete", "r")


def qr(A: Tensor, mode: str = "reduced", *, out=None):
    """The QR decomposition ``A = Q R`` of each matrix (``torch.linalg.qr``), with LAPACK's
    (geqrf) signs, as torch: ``mode='reduced'`` (``Q`` is ``(m, k)``), ``'complete'`` (``Q``
    square) or ``'r'`` (``R`` only; ``Q`` empty).

    Example:
        >>> ember.linalg.qr(ember.tensor([[3.0, 1.0], [4.0, 2.0]])).R
        tensor([[-5.0000, -2.2000],
                [ 0.0000,  0.4000]])
    """
    if mode not in _QR_MODES:
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    _at_least_2d(A, "linalg.qr")
    _float_input(A, "linalg.qr", "geqrf_cpu")
    return _out_tuple(_RETURN_TYPES["linalg_qr"](*LinalgQr.apply(A, mode)), out)


_QR_WARNED = False


def _qr_old(input: Tensor, some: bool = True, *, out=None):
    """``torch.qr``: ``linalg.qr`` with ``some=True`` the reduced and ``False`` the complete
    factorization.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():  # torch.qr warns that it is deprecated
        ...     warnings.simplefilter("ignore")
        ...     ember.qr(ember.tensor([[3.0, 1.0], [4.0, 2.0]])).R.shape
        ember.Size([2, 2])
    """
    global _QR_WARNED
    if not _QR_WARNED:  # NOTE: matches torch: warned once per process
        _QR_WARNED = True
        import warnings

        warnings.warn(
            "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
            "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
            "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
            "torch.linalg.qr(A, 'reduced' if some else 'complete')",
            UserWarning,
            stacklevel=2,
        )
    Q, R = qr(input, "reduced" if some else "complete")
    return _out_tuple(_RETURN_TYPES["qr"](Q, R), out)


class Geqrf(Function):
    _array_forward = True
    _node_name = "GeqrfBackward0"

    @staticmethod
    def forward(ctx, a):
        return xp_of(a).geqrf(a)

    @staticmethod
    def backward(ctx, ga, gtau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input: Tensor, *, out=None):
    """LAPACK's geqrf (``torch.geqrf``): ``a`` holds ``R`` on and above the diagonal and the
    Householder vectors below it, ``tau`` their scales; ``householder_product(a, tau)`` is
    ``Q``. Not differentiable (as in torch).

    Example:
        >>> ember.geqrf(ember.tensor([[3.0], [4.0]])).tau
        tensor([1.6000])
    """
    if input._data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _float_input(input, "geqrf", "geqrf_cpu", refuse_int=False)
    return _out_tuple(_RETURN_TYPES["geqrf"](*Geqrf.apply(input)), out)


# ---- householder products -----------------------------------------------------------------------
def _check_reflectors(input: Tensor, tau: Tensor, op: str) -> None:
    if input._data.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if tau._data.ndim != input._data.ndim - 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal "
            f"to {tau.ndim} and input.ndim is equal to {input.ndim}"
        )
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(
            f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(tau.shape[:-1])}"
        )


def _reflectors(A: Tensor, k: int) -> Tensor:
    """Unit lower-trapezoidal Householder vectors (the first ``k`` columns of ``A``)."""
    m = A.shape[-2]
    xp = xp_of(A._data)
    return A[..., :, :k].tril(-1) + _wrap(xp.eye(m, k, dtype=A._data.dtype))


class _Householder(Function):
    _array_forward = True
    _node_name = "LinalgHouseholderProductBackward0"

    @staticmethod
    def forward(ctx, a, tau):
        return xp_of(a).householder_product(a, tau)


def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """The first ``n`` columns of ``H_1 ... H_k`` with ``H_i = I - tau_i v_i v_i^H``, ``v_i``
    the ``i``-th column of ``A`` below the diagonal with a unit diagonal entry (LAPACK's orgqr;
    ``torch.linalg.householder_product``). With ``geqrf``'s output it is ``Q``.

    Example:
        >>> a, tau = ember.geqrf(ember.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> ember.linalg.householder_product(a, tau)
        tensor([[-0.6000, -0.8000],
                [-0.8000,  0.6000]])
    """
    op = "torch.linalg.householder_product"
    _check_reflectors(A, tau, op)
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    if m < n:
        raise RuntimeError(
            f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if n < k:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.dtype != A.dtype:
        raise RuntimeError(
            f"{op}: tau dtype {_tname(tau._data.dtype)} does not match input dtype "
            f"{_tname(A._data.dtype)}"
        )
    _float_input(A, op, "orgqr_cpu", refuse_int=False)
    if _gm.state.enabled and (A._requires_grad or tau._requires_grad):
        # the product in Tensor ops (one reflector at a time): autograd differentiates it
        V = _reflectors(A, k)
        xp = xp_of(A._data)
        Q = _wrap(xp.eye(m, n, dtype=A._data.dtype)).expand(*A.shape)
        for i in range(k - 1, -1, -1):
            v = V[..., :, i : i + 1]
            Q = Q - (tau[..., i, None, None] * v) @ (_conj(v).mT @ Q)
        return _out(Q, out)
    return _out(_Householder.apply(A, tau), out)


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """``torch.orgqr``: an alias of ``linalg.householder_product``.

    Example:
        >>> a, tau = ember.geqrf(ember.tensor([[3.0], [4.0]]))
        >>> ember.orgqr(a, tau)
        tensor([[-0.6000],
                [-0.8000]])
    """
    return householder_product(input, tau)


class _Ormqr(Function):
    _array_forward = True
    _node_name = "OrmqrBackward0"

    @staticmethod
    def forward(ctx, a, tau, c, left, transpose):
        return xp_of(a).ormqr(a, tau, c, left, transpose)


def ormqr(
    input: Tensor,
    tau: Tensor,
    other: Tensor,
    left: bool = True,
    transpose: bool = False,
    *,
    out=None,
) -> Tensor:
    """``op(Q) @ other`` (``left``) or ``other @ op(Q)``, ``op`` the conjugate transpose when
    ``transpose``, for ``Q = H_1 ... H_k`` as ``geqrf`` stores it (LAPACK's ormqr), without
    forming ``Q``.

    Example:
        >>> a, tau = ember.geqrf(ember.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> ember.ormqr(a, tau, ember.eye(2), transpose=True)
        tensor([[-0.6000, -0.8000],
                [-0.8000,  0.6000]])
    """
    op = "torch.ormqr"
    if input._data.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if other._data.ndim < 2:
        raise RuntimeError(f"{op}: other must have at least 2 dimensions.")
    if tau._data.ndim != input._data.ndim - 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal "
            f"to {tau.ndim} and input.ndim is equal to {input.ndim}"
        )
    if other._data.ndim != input._data.ndim:
        raise RuntimeError(
            f"{op}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}"
        )
    left_size = other.shape[-2] if left else other.shape[-1]
    if left_size != input.shape[-2]:
        which = "other.shape[-2]" if left else "other.shape[-1]"
        raise RuntimeError(f"{op}: {which} must be equal to input.shape[-2]")
    k = tau.shape[-1]
    if k > min(left_size, input.shape[-1]):
        which = "other.shape[-2]" if left else "other.shape[-1]"
        raise RuntimeError(f"{op}: tau.shape[-1] must be equal to min({which}, input.shape[-1])")
    for name, t in (("tau", tau), ("other", other)):
        if tuple(t.shape[: -2 if name == "other" else -1]) != tuple(input.shape[:-2]):
            raise RuntimeError(
                f"{op}: Expected batch dimensions of {name} to be equal to input.shape[:-2], but "
                f"got {list(t.shape[: -2 if name == 'other' else -1])}"
            )
        if t.dtype != input.dtype:
            raise RuntimeError(
                f"{op}: Expected input and {name} to have the same dtype, but input has dtype"
                f"{_tname(input._data.dtype)} and {name} has dtype {_tname(t._data.dtype)}"
            )
    _float_input(input, op, "ormqr_cpu", refuse_int=False)
    if _gm.state.enabled and (input._requires_grad or tau._requires_grad or other._requires_grad):
        V = _reflectors(input, k)
        t = _conj(tau) if transpose else tau
        C = other
        order = range(k) if left == transpose else range(k - 1, -1, -1)
        for i in order:
            v = V[..., :, i : i + 1]
            ti = t[..., i, None, None]
            if left:
                C = C - (ti * v) @ (_conj(v).mT @ C)
            else:
                C = C - (C @ v) @ (ti * _conj(v).mT)
        return _out(C, out)
    return _out(_Ormqr.apply(input, tau, other, bool(left), bool(transpose)), out)


# ---- pinv, matrix_rank, cond --------------------------------------------------------------------
def _tolerances(A: Tensor, atol, rtol, op: str):
    """torch's get_atol_rtol: float64 tolerances; rtol defaults to eps * max(m, n), or to 0
    when a positive atol is given."""
    xp = xp_of(A._data)

    def as_t(v):
        if isinstance(v, Tensor):
            if v._data.dtype.kind == "c":
                raise RuntimeError(f"{op}: {v} tensor of complex type is not supported.")
            return v.to(_dtype.float64)
        return _wrap(xp.asarray(float(v), dtype="float64"))

    eps = _eps(A, op)
    m, n = A.shape[-2:]
    default = eps * max(m, n)
    a = as_t(0.0 if atol is None else atol)
    if rtol is not None:
        r = as_t(rtol)
    elif atol is not None:
        r = _wrap(xp.where(a._data > 0, 0.0, default))
    else:
        r = as_t(default)
    return a, r


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse (``torch.linalg.pinv``): singular values (absolute
    eigenvalues when ``hermitian``) at or below ``max(atol, rtol * largest)`` count as zero;
    ``rtol`` defaults to ``eps * max(m, n)`` (to 0 when only a positive ``atol`` is given).

    Example:
        >>> ember.linalg.pinv(ember.tensor([[2.0, 0.0], [0.0, 0.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    d = A._data.dtype
    if A._data.ndim < 2 or d.kind not in "fc" or d.itemsize < 4 or d.name == "bfloat16":
        raise RuntimeError(
            f"linalg.pinv({_tname(d)}{{{list(A.shape)}}}): expected a tensor with 2 or more "
            "dimensions of float, double, cfloat or cdouble types"
        )
    a, r = _tolerances(A, atol, rtol, "torch.linalg.pinv")
    with _gm.no_grad():
        P = _pinv(A, a, r, hermitian)
    if _gm.state.enabled and A._requires_grad:
        P = LinalgPinv.apply(A, P._data)
    return _out(P, out)


class LinalgPinv(Function):
    """pinv's node: torch differentiates the pseudo-inverse by its own formula (not through
    the truncated svd), so the forward value is computed beforehand and passed in."""

    _array_forward = True
    _node_name = "LinalgPinvBackward0"

    @staticmethod
    def forward(ctx, a, p):
        p = p.copy()
        ctx.save_for_backward(a, p)
        return p

    @staticmethod
    def backward(ctx, g):
        A, P = ctx.saved_tensors
        return _pinv_backward(g, P, A), None


def _pinv(A, a, r, hermitian):
    if hermitian:
        S, U = eigh(A)
        S_abs = S.abs()
        top = S_abs.amax(-1, keepdim=True) if S.shape[-1] else S_abs
        tol = _maximum(a.unsqueeze(-1), r.unsqueeze(-1) * top)
        S_inv = _where(S_abs > tol, S.reciprocal(), S).to(A.dtype)
        return (U * S_inv.unsqueeze(-2)) @ U.mH
    U, S, Vh = svd(A, full_matrices=False)
    top = S[..., :1]
    tol = _maximum(a.unsqueeze(-1), r.unsqueeze(-1) * top)
    S_inv = _where(S > tol, S.reciprocal(), S).to(A.dtype)
    return (Vh.mH * S_inv.unsqueeze(-2)) @ U.mH


def _maximum(x: Tensor, y: Tensor) -> Tensor:
    from ember.ops.binary_math import maximum

    return maximum(x, y)


def _where(mask: Tensor, x: Tensor, like: Tensor) -> Tensor:
    """``where(mask, x, 0)`` with a zero of ``like``'s dtype (torch's ``at::zeros({})``)."""
    from ember.ops.ternary import where

    return where(mask, x, _wrap(xp_of(like._data).zeros((), like._data.dtype)))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv(input, rtol=rcond)``.

    Example:
        >>> ember.pinverse(ember.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    return pinv(input, rtol=rcond)


def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None, out=None):
    """The number of singular values (absolute eigenvalues when ``hermitian``) above
    ``max(atol, rtol * largest)`` (``torch.linalg.matrix_rank``; the positional ``tol`` is
    ``atol`` with ``rtol=0``).

    Example:
        >>> ember.linalg.matrix_rank(ember.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    if tol is not None:
        if atol is not None or rtol is not None:
            raise TypeError(
                "linalg_matrix_rank() received an invalid combination of arguments: tol cannot "
                "be given with atol or rtol"
            )
        atol, rtol = tol, 0.0
    if A._data.ndim < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    a, r = _tolerances(A, atol, rtol, "torch.linalg.matrix_rank")
    with _gm.no_grad():
        S = eigvalsh(A).abs() if hermitian else _svdvals(A)
        if S.shape[-1] == 0:
            return _out(_wrap(xp_of(S._data).zeros(S.shape[:-1], "int64")), out)
        top = S.amax(-1, keepdim=True)
        tol_t = _maximum(a.unsqueeze(-1), r.unsqueeze(-1) * top)
        return _out((S > tol_t).sum(-1), out)


_COND_ORDS = (None, "fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    """The condition number of each matrix in the norm ``p`` (``torch.linalg.cond``):
    ``None``/2/-2 from the singular values (any shape), ``'fro'``, ``'nuc'``, ``inf``, ``-inf``,
    1, -1 as ``norm(A) * norm(inv(A))`` (square only; ``inf`` for a singular matrix).

    Example:
        >>> ember.linalg.cond(ember.tensor([[1.0, 0.0], [0.0, 4.0]]))
        tensor(4.)
    """
    if isinstance(p, bool) or not any(p == o and type(p) is not bool for o in _COND_ORDS):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A._data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    xp = xp_of(A._data)
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        _check_svd_input(A)
        if A.numel() == 0:  # NOTE: matches torch: 0 for empty matrices, as NumPy leaves it open
            real = xp.empty((), A._data.dtype).real.dtype
            return _out(_wrap(xp.zeros(A.shape[:-2], real)), out)
        S = _svdvals(A)
        top, bottom = S[..., 0], S[..., -1]
        return _out(bottom / top if p == -2 else top / bottom, out)
    name = (
        p
        if isinstance(p, str)
        else ("inf" if p == math.inf else "-inf" if p == -math.inf else str(int(p)))
    )
    _square(A, f"linalg.cond(ord={name})")
    from ember import linalg

    inv, info = linalg.inv_ex(A)
    with _gm.no_grad():
        bad = _wrap(xp.asarray(info._data > 0))
    r = linalg.matrix_norm(A, p) * linalg.matrix_norm(inv, p)
    return _out(_where_inf(bad, r), out)


def _where_inf(mask: Tensor, x: Tensor) -> Tensor:
    from ember.ops.ternary import where

    return where(mask, _wrap(xp_of(x._data).full((), math.inf, x._data.dtype)), x)


# ---- lstsq --------------------------------------------------------------------------------------
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


class LinalgLstsq(Function):
    """The differentiable outputs of lstsq (solution, residuals), computed beforehand by the
    LAPACK driver and passed in; backward is torch's, through ``pinv(A)``."""

    _array_forward = True
    _node_name = "LinalgLstsqBackward0"

    @staticmethod
    def forward(ctx, a, b, x, res):
        ctx.save_for_backward(a, b, x)
        ctx.has_res = res.size > 0
        return x.copy(), res

    @staticmethod
    def backward(ctx, gX, gRes):
        A, B, X = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        gA = gB = None
        if gX is not None:
            pinvA = pinv(A)
            if need_a:
                gA = _pinv_backward(gX @ B.mH, pinvA, A)
            if need_b:
                gB = pinvA.mH @ gX
        if gRes is not None and ctx.has_res:
            # at the least-squares optimum d||AX - B||^2 has no X term
            R = A @ X - B
            gR = 2 * R * gRes.unsqueeze(-2)
            if need_a:
                t = gR @ X.mH
                gA = t if gA is None else gA + t
            if need_b:
                gB = -gR if gB is None else gB - gR
        return gA, gB, None, None


LinalgLstsq._Node.materialize_grads = False


def _pinv_backward(g, pinvA, A):
    """PyTorch's pinv_backward (the derivative of the pseudo-inverse, Golub and Pereyra)."""
    m, n = A.shape[-2:]
    pinvAh = pinvA.mH
    gh = g.mH
    if m <= n:
        K = gh @ pinvA
        KpinvAh = K @ pinvAh
        return -(pinvA @ K).mH + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gh - K @ A)
    K = pinvA @ gh
    pinvAhK = pinvAh @ K
    return -(K @ pinvA).mH + (gh - A @ K) @ pinvA @ pinvAh + pinvAhK - pinvAhK @ pinvA @ A


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` (``torch.linalg.lstsq``) by LAPACK's
    ``driver`` (``'gelsy'`` by default; ``'gels'``, ``'gelsd'``, ``'gelss'``). Returns
    ``(solution, residuals, rank, singular_values)``: residuals (squared, per column) when
    ``m > n`` and every matrix has full rank (never with gelsy), rank except with gels, singular
    values with gelsd/gelss; the others are empty, as in torch.

    Example:
        >>> A = ember.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        >>> ember.linalg.lstsq(A, ember.tensor([[1.0], [2.0], [3.0]])).solution
        tensor([[1.],
                [2.]])
    """
    op = "torch.linalg.lstsq"
    if A._data.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if B._data.ndim < 1:
        raise RuntimeError(f"{op}: other must have at least 1 dimension.")
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"{op}: Expected input and other to have the same dtype, but got input's dtype "
            f"{_tname(A._data.dtype)} and other's dtype {_tname(B._data.dtype)}"
        )
    if not (A.ndim >= B.ndim and A.ndim - B.ndim <= 1):
        raise RuntimeError(
            f"{op}: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    if A.shape[-2] != Bm.shape[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size({-1 if vector else -2})")
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    eps = _eps(A, op)
    m, n = A.shape[-2:]
    if rcond is None:
        rcond = eps * max(m, n)
    from ember.ops.broadcast import broadcast_shapes

    batch = tuple(broadcast_shapes(A.shape[:-2], Bm.shape[:-2]))
    A_ = A.expand(*batch, m, n)
    B_ = Bm.expand(*batch, *Bm.shape[-2:])
    xp = xp_of(A._data)
    try:
        raw, rank, sv = xp.linalg_lstsq(A_._data, B_._data, float(rcond), driver)
    except xp.linalg.LinAlgError as e:
        b, info = e.args if len(e.args) == 2 else (0, 0)
        where = f"(Batch element {b}): " if len(batch) else ""
        raise _linalg_error(
            f"{op}: {where}The least squares solution could not be computed because the input "
            f"matrix does not have full rank (error code: {info})."
        ) from None
    x = raw[..., :n, :]
    real = sv.dtype
    empty = lambda dt: _wrap(xp.zeros((0,), dt))  # noqa: E731
    res = xp.zeros((0,), real)
    if m > n and driver != "gelsy" and (driver == "gels" or bool(xp.all(rank == n))):
        res = (xp.abs(raw[..., n:, :]) ** 2).sum(-2).astype(real, copy=False)
    if _gm.state.enabled and (A._requires_grad or B._requires_grad):
        X, R = LinalgLstsq.apply(A_, B_, x, res)
    else:
        X, R = _wrap(xp.ascontiguousarray(x)), _wrap(res)
    if vector:
        X = X.squeeze(-1)
        if R.numel():
            R = R.squeeze(-1)
    rank_t = empty("int64") if driver == "gels" else _wrap(rank)
    sv_t = _wrap(sv) if driver in ("gelsd", "gelss") else empty(real)
    return _RETURN_TYPES["linalg_lstsq"](X, R, rank_t, sv_t)


# ---- removed names: torch keeps them as stubs that say what replaced them ----------------------
def _removed(name: str, msg: str):
    def fn(*args, **kwargs):
        raise RuntimeError(
            f"This function was deprecated since version 1.9 and is now removed. {msg}"
        )

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Removed from torch in 1.9 (raises, as torch's ``{name}`` does): {msg}"
    return fn


_lstsq_removed = _removed(
    "lstsq",
    "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
    "reversed arguments and does not return the QR decomposition in the returned tuple "
    "(although it returns other information about the problem).",
)
symeig = _removed(
    "symeig",
    "The default behavior has changed from using the upper triangular portion of the matrix "
    "by default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) "
    "should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')",
)
_eig_removed = _removed(
    "eig",
    "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
    "tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
    "L_complex = torch.linalg.eigvals(A)",
)
_matrix_rank_removed = _removed(
    "matrix_rank",
    "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
    "renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
)


_svd_old.__name__ = _svd_old.__qualname__ = "svd"
_qr_old.__name__ = _qr_old.__qualname__ = "qr"


# ---- exports ------------------------------------------------------------------------------------
# ember.linalg's names (torch.linalg.<name>)
LINALG_ALL = (
    "svd",
    "eigh",
    "eigvalsh",
    "qr",
    "pinv",
    "matrix_rank",
    "cond",
    "lstsq",
    "householder_product",
)

# torch.<name>: the old names are different functions from the torch.linalg ones of the same
# name (svd returns V, qr takes some=), so ember's namespace gets them under torch's names.
_TOP = {
    "svd": _svd_old,
    "qr": _qr_old,
    "pinverse": pinverse,
    "geqrf": geqrf,
    "orgqr": orgqr,
    "ormqr": ormqr,
    "lstsq": _lstsq_removed,
    "symeig": symeig,
    "eig": _eig_removed,
    "matrix_rank": _matrix_rank_removed,
}
# Only the names whose module attribute is the top-level function; ember/__init__.py adds the
# rest of _TOP (svd, qr... whose attributes here are the torch.linalg functions).
__all__ = ["pinverse", "geqrf", "orgqr", "ormqr"]

for _name in ("svd", "qr", "pinverse", "geqrf", "orgqr", "ormqr", "lstsq", "symeig", "eig"):
    setattr(Tensor, _name, _TOP[_name])
