"""torch.linalg's spectral decompositions: svd (+ svdvals), eigh (+ eigvalsh), eig (+ eigvals),
with the old ``torch.svd``; the input checks and error wording the other linalg_* files share.

The factorizations are primitives whose forward is one batched LAPACK call in the backend
(``backend/_linalg_decomp.py``) and whose backward is PyTorch's formula written in Tensor ops, so
double backward works. Values-only forms (svdvals, eigvalsh, eigvals) skip the vectors when no
gradient is needed and go through the full factorization when one is (as torch does).
QR and the Householder family live in ``linalg_qr.py``; pinv, matrix_rank, cond and lstsq in
``linalg_lstsq.py``.

LinalgSvd, LinalgEigh and LinalgEig keep ``materialize_grads`` off: an output nobody used
reaches backward as None, and torch's formulas take shorter (and, for repeated singular values,
finite) branches then.
"""

from __future__ import annotations

from ember import _autocast as _ac
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops._selection import _return_type
from ember.ops.diagonal import diag_embed
from ember.ops.linalg_solve import _eye_like
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
    if d.kind not in "fc" or d.itemsize < 4:  # bfloat16 and float8 are kind "V"
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
    if d.kind not in "fc" or d.itemsize < 4:  # bfloat16 and float8 are kind "V"
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
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(svd, A, full_matrices, driver=driver)
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


def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """The singular values of each matrix of ``A``, descending (``torch.linalg.svdvals``).
    Differentiable to any order (through the full svd when a gradient is needed).

    Example:
        >>> ember.linalg.svdvals(ember.tensor([[3.0, 0.0], [0.0, -4.0]]))
        tensor([4., 3.])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(svdvals, A, driver=driver)
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )
    _check_svd_input(A)
    return _out(_svdvals(A), out)


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
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(eigh, A, UPLO)
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
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(eigvalsh, A, UPLO)
    upper = _check_uplo(UPLO)
    _check_eigh_input(A, "linalg.eigh")
    if _gm.state.enabled and A._requires_grad:
        w = LinalgEigh.apply(A, upper)[0]
    else:
        w = _Eigvalsh.apply(A, upper)
    return _out(w, out)


# ---- eig ----------------------------------------------------------------------------------------
class LinalgEig(Function):
    _array_forward = True
    _node_name = "LinalgEigBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        try:
            w, v = xp.linalg_eig(a, True)
        except xp.linalg.LinAlgError:  # NumPy refuses non-finite input as LinAlgError too
            if not bool(xp.isfinite(a).all()):
                raise RuntimeError(
                    "torch.linalg.eig: input tensor should not contain infs or NaNs."
                ) from None
            raise _convergence_error(xp, "eig", a, "linalg.eig") from None
        ctx.real_input = a.dtype.kind != "c"
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gL, gV):
        L, V = ctx.saved_tensors
        gA = _eig_backward(gL, gV, L, V)
        # NOTE: matches torch: a real input gets the real part of the complex gradient
        return gA.real if gA is not None and ctx.real_input else gA


LinalgEig._Node.materialize_grads = False


def _solve(A: Tensor, B: Tensor) -> Tensor:
    from ember.linalg import solve

    return solve(A, B)


def _eig_backward(gL, gV, L, V):
    """PyTorch's linalg_eig_backward (general A = V diag(L) V^-1, V with unit columns):
    gA = V^-H (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(E)) V^H, E_ij = L_j - L_i
    off the diagonal; the second term projects out the directions that only rescale the
    columns of V (their norm is fixed at 1)."""
    Vh = V.mH
    if gV is None:
        if gL is None:
            return None
        return _solve(Vh, gL.unsqueeze(-1) * Vh)
    VhgV = Vh @ gV
    _gauge_check(
        VhgV,
        None,
        "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
        "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
        "so it is ill-defined.",
    )
    re_diag = VhgV.diagonal(dim1=-2, dim2=-1).real.to(V.dtype)
    gA = VhgV - Vh @ (V * re_diag.unsqueeze(-2))
    Lc = L.conj()
    Ec = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + _eye_like(L, L.shape[-1])
    gA = gA / Ec
    if gL is not None:  # the diagonal is gL (what is left there is Im(diag V^H gV) ~ 0)
        gA = gA - diag_embed(gA.diagonal(dim1=-2, dim2=-1)) + diag_embed(gL)
    return _solve(Vh, gA @ Vh)


def _check_eig_input(A: Tensor, op: str) -> None:
    _at_least_2d(A, op)
    d = A._data.dtype
    if d.kind not in "fcV":
        # NOTE: matches torch: the complex output dtype is looked up before any dtype check
        raise RuntimeError(f"Unknown Complex ScalarType for {_tname(d)}")
    _float_input(A, op, "linalg_eig_out_cpu", refuse_int=False)
    _square(A, op)


def _check_complex_out(out, names, op: str, src) -> None:
    """torch's out= check: each out tensor must hold the complex result (a complex dtype)."""
    for t, name in zip(out, names):
        if t is not None and t._data.dtype.kind != "c":
            raise RuntimeError(
                f"{op}: Expected {name} to be safely castable from {_tname(src)} dtype, but got "
                f"{name} with dtype {_tname(t._data.dtype)}"
            )


def _complex_of(A: Tensor):
    return xp_of(A._data).result_type(A._data.dtype, "complex64")


def eig(A: Tensor, *, out=None):
    """Eigenvalues and eigenvectors of general square matrices (``torch.linalg.eig``), complex
    (``complex64`` for float32 input, ``complex128`` for float64), in LAPACK's (geev) order.
    Each eigenvector has norm 1 and is defined up to a phase: a differentiated loss must not
    depend on that phase (torch's check raises otherwise).

    Example:
        >>> ember.linalg.eig(ember.tensor([[2.0, 0.0], [0.0, 3.0]])).eigenvalues
        tensor([2.+0.j, 3.+0.j])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(eig, A)
    _check_eig_input(A, "linalg.eig")
    if out is not None:
        _check_complex_out(out, ("eigenvalues", "eigenvectors"), "torch.linalg.eig", _complex_of(A))
    return _out_tuple(_RETURN_TYPES["linalg_eig"](*LinalgEig.apply(A)), out)


class _Eigvals(Function):
    _array_forward = True
    _node_name = "LinalgEigBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        try:
            return xp.linalg_eig(a, False)
        except xp.linalg.LinAlgError:
            raise _convergence_error(xp, "eig", a, "linalg.eigvals") from None


def eigvals(A: Tensor, *, out=None) -> Tensor:
    """The eigenvalues of general square matrices (``torch.linalg.eigvals``), complex, in
    LAPACK's order; through ``eig`` when a gradient is needed.

    Example:
        >>> ember.linalg.eigvals(ember.tensor([[0.0, -1.0], [1.0, 0.0]]))
        tensor([0.+1.j, 0.-1.j])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(eigvals, A)
    _check_eig_input(A, "linalg.eigvals")
    if out is not None:
        _check_complex_out((out,), ("eigenvalues",), "torch.linalg.eigvals", _complex_of(A))
    if _gm.state.enabled and A._requires_grad:
        return _out(LinalgEig.apply(A)[0], out)
    return _out(_Eigvals.apply(A), out)


# ---- removed names: torch keeps them as stubs that say what replaced them ----------------------
def _removed(name: str, msg: str):
    def fn(*args, **kwargs):
        raise RuntimeError(
            f"This function was deprecated since version 1.9 and is now removed. {msg}"
        )

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Removed from torch in 1.9 (raises, as torch's ``{name}`` does): {msg}"
    return fn


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

_svd_old.__name__ = _svd_old.__qualname__ = "svd"


# ---- exports ------------------------------------------------------------------------------------
# ember.linalg's names (torch.linalg.<name>); linalg_qr.py and linalg_lstsq.py list theirs
LINALG_ALL = ("svd", "svdvals", "eigh", "eigvalsh", "eig", "eigvals")

# torch.<name>: the old names are different functions from the torch.linalg ones of the same
# name (svd returns V), so ember's namespace gets them under torch's names (ember/__init__.py
# installs _TOP after the star import).
_TOP = {"svd": _svd_old, "symeig": symeig, "eig": _eig_removed}
__all__: list = []

for _name in ("svd", "symeig", "eig"):
    setattr(Tensor, _name, _TOP[_name])
