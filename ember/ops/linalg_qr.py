"""torch.linalg.qr and the Householder-reflector family (``torch.geqrf``,
``linalg.householder_product``/``torch.orgqr``, ``torch.ormqr``), with the old ``torch.qr``.

``LinalgQr`` is one batched LAPACK call forward (geqrf + orgqr, the signs torch gives) and torch's
formula backward in Tensor ops. Householder products and ``ormqr`` apply one reflector at a time
(batched over matrices); with a gradient to compute they do it in Tensor ops, so autograd
differentiates the product itself.
"""

from __future__ import annotations

from ember import _autocast as _ac
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import cj, xp_of
from ember.ops.diagonal import diag_embed
from ember.ops.joining import cat
from ember.ops.linalg_decomp import (
    _RETURN_TYPES,
    _at_least_2d,
    _complex,
    _float_input,
)
from ember.ops.pointwise import _out
from ember.ops.reduction import _out_tuple, _tname
from ember.tensor import Tensor, _wrap


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
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(qr, A, mode)
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
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(geqrf, input)
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
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(householder_product, A, tau)
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
            Q = Q - (tau[..., i, None, None] * v) @ (cj(v).mT @ Q)
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
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(orgqr, input, tau)
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
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(ormqr, input, tau, other, left, transpose)
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
        t = cj(tau) if transpose else tau
        C = other
        order = range(k) if left == transpose else range(k - 1, -1, -1)
        for i in order:
            v = V[..., :, i : i + 1]
            ti = t[..., i, None, None]
            if left:
                C = C - (ti * v) @ (cj(v).mT @ C)
            else:
                C = C - (C @ v) @ (ti * cj(v).mT)
        return _out(C, out)
    return _out(_Ormqr.apply(input, tau, other, bool(left), bool(transpose)), out)


_qr_old.__name__ = _qr_old.__qualname__ = "qr"

# ---- exports ------------------------------------------------------------------------------------
LINALG_ALL = ("qr", "householder_product")  # ember.linalg's names
# torch.qr differs from torch.linalg.qr (some=): ember/__init__.py installs _TOP's functions
_TOP = {"qr": _qr_old, "geqrf": geqrf, "orgqr": orgqr, "ormqr": ormqr}
__all__ = ["geqrf", "orgqr", "ormqr"]

for _name in ("qr", "geqrf", "orgqr", "ormqr"):
    setattr(Tensor, _name, _TOP[_name])
