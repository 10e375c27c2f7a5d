"""The quantities built on the singular values (``torch.linalg.pinv``, ``matrix_rank``,
``cond``) and least squares (``torch.linalg.lstsq``), with the old ``torch.pinverse``.

They compose svd/eigh (``linalg_decomp.py``), as torch's implicit-autograd ops do, so gradients
flow through the same formulas; ``pinv`` and ``lstsq`` have their own nodes because torch
differentiates them by their own formulas (not through the truncated factorization).
"""

from __future__ import annotations

import math

from ember import _autocast as _ac
from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.linalg_decomp import (
    _RETURN_TYPES,
    _check_svd_input,
    _eps,
    _linalg_error,
    _removed,
    _square,
    _svdvals,
    eigh,
    eigvalsh,
    svd,
)
from ember.ops.pointwise import _out
from ember.ops.reduction import _tname
from ember.tensor import Tensor, _wrap


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
    if A._data.ndim < 2 or d.kind not in "fc" or d.itemsize < 4:  # bfloat16 and float8 are kind "V"
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
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(pinverse, input, rcond)
    return pinv(input, rtol=rcond)


def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None, out=None):
    """The number of singular values (absolute eigenvalues when ``hermitian``) above
    ``max(atol, rtol * largest)`` (``torch.linalg.matrix_rank``; the positional ``tol`` is
    ``atol`` with ``rtol=0``).

    Example:
        >>> ember.linalg.matrix_rank(ember.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(matrix_rank, A, tol, hermitian, atol=atol, rtol=rtol)
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
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(cond, A, p)
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

    gels assumes full rank and raises ``LinAlgError`` otherwise. NOTE: differs from torch:
    torch raises only where LAPACK's triangular factor has an exact zero on its diagonal, which
    depends on the CPU's BLAS kernels; ember also counts an entry at round-off level
    (``|r_ii| <= max(m, n) * eps * max |r_jj|``) as zero, so a matrix gives the same answer on
    every CPU.

    Example:
        >>> A = ember.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        >>> ember.linalg.lstsq(A, ember.tensor([[1.0], [2.0], [3.0]])).solution
        tensor([[1.],
                [2.]])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(lstsq, A, B, rcond, driver=driver)
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


_lstsq_removed = _removed(
    "lstsq",
    "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
    "reversed arguments and does not return the QR decomposition in the returned tuple "
    "(although it returns other information about the problem).",
)
_matrix_rank_removed = _removed(
    "matrix_rank",
    "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
    "renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
)

# ---- exports ------------------------------------------------------------------------------------
LINALG_ALL = ("pinv", "matrix_rank", "cond", "lstsq")  # ember.linalg's names
# torch.lstsq and torch.matrix_rank are removed stubs: ember/__init__.py installs _TOP's
_TOP = {"pinverse": pinverse, "lstsq": _lstsq_removed, "matrix_rank": _matrix_rank_removed}
__all__ = ["pinverse"]

for _name in ("pinverse", "lstsq"):
    setattr(Tensor, _name, _TOP[_name])
