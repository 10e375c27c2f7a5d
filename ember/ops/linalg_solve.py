"""torch.linalg's inverses, determinants and general solves (inv, inv_ex, det, slogdet, solve,
solve_ex) and their old top-level names (inverse, det, logdet, slogdet), plus the input checks
that the other linalg ops files share. The LU, LDL and Cholesky factorizations and the solves
from their factors are in ember/ops/linalg_lu.py; matrix_power, matrix_exp, tensorinv... in
ember/ops/linalg_matrix.py.

Primitives: ``Inv``, ``Solve`` and their ``_ex`` forms, ``Det``, ``Slogdet`` (NumPy's batched
LAPACK gufuncs). Every backward is written in Tensor ops (solves, inverses, SVDs), so double
backward works.

``slogdet``'s return type and ``det``'s argument name differ in ``torch`` and ``torch.linalg``:
the module attributes are the ``torch.linalg`` forms (``LINALG_ALL``; ember.linalg copies them
by name) and the top-level forms are ``_top_*``, bound to their names in ``ember/__init__.py``.
"""

from __future__ import annotations

import math

from ember import _autocast as _ac
from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import cj, xp_of
from ember.ops._selection import _return_type
from ember.ops.pointwise import _out
from ember.ops.reduction import _tname
from ember.tensor import Tensor, _wrap

__all__ = [
    "inverse",
    "det",
    "logdet",
    "slogdet",
]
LINALG_ALL = (
    "inv",
    "inv_ex",
    "det",
    "slogdet",
    "solve",
    "solve_ex",
)

# (torch.return_types; ember/return_types.py shows them)
_RETURN_TYPES = {
    n: _return_type(n, fields)
    for n, fields in (
        ("slogdet", ("sign", "logabsdet")),
        ("linalg_slogdet", ("sign", "logabsdet")),
        ("linalg_inv_ex", ("inverse", "info")),
        ("linalg_solve_ex", ("result", "info")),
    )
}


def _la():
    # ember.linalg imports this module at its end, so it is reached at call time, not import time
    import ember.linalg as la

    return la


def _float(A: Tensor, op: str, low_precision: bool = True) -> None:
    d = A._data.dtype
    if d.kind not in "fcV":
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {_tname(d)}"
        )
    if not low_precision and d.itemsize == 2:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {_tname(d)}")


def _lapack_dtype(A: Tensor, kernel: str) -> None:
    """NOTE: matches torch: its LAPACK kernels refuse half precision and integers this way."""
    d = A._data.dtype
    if d.kind not in "fc" or d.itemsize == 2:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(d)}'")


def _square(A: Tensor, op: str) -> None:
    _la()._square(A, op)


def _need_matrix(A: Tensor, op: str) -> None:
    if A._data.ndim < 2:
        raise RuntimeError(
            f"{op}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead"
        )


def _any_bad(info) -> bool:
    """Whether any LAPACK info is nonzero (never on meta, which has no values)."""
    return info.size > 0 and xp_of(info).device_type != "meta" and bool((info != 0).any())


def _first_bad(info):
    """(flat batch index, info value) of the first nonzero LAPACK info."""
    flat = info.reshape(-1)
    b = int((flat != 0).argmax())
    return b, int(flat[b])


def _where(a) -> str:
    return "(Batch element {}): " if a.ndim > 2 else ""


def _singular_error(xp, a, op: str) -> Exception:
    b, i = _first_bad(xp.linalg_singular_info(a))
    where = _where(a).format(b)
    if "solve" in op:
        return _la().LinAlgError(
            f"torch.{op}: {where}The solver failed because the input matrix is singular."
        )
    return _la().LinAlgError(
        f"{op}: {where}The diagonal element {i} is zero, the inversion could not be completed "
        "because the input matrix is singular."
    )


def _info_tensor(xp, batch) -> Tensor:
    return _wrap(xp.zeros(batch, dtype=_dtype.int32._np))


def _outs(res, out):
    if out is None:
        return res
    return type(res)(*[_out(r, o) for r, o in zip(res, out)])


def _eye_like(A: Tensor, n: int) -> Tensor:
    xp = xp_of(A._data)
    return _wrap(xp.eye(n, dtype=A._data.dtype))


# ---- primitives ---------------------------------------------------------------------------------
class Inv(Function):
    _array_forward = True
    _node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, a, op):
        xp = xp_of(a)
        try:
            r = xp.linalg.inv(a)
        except xp.linalg.LinAlgError:
            raise _singular_error(xp, a, op) from None
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx, g):
        (ai,) = ctx.saved_tensors
        return _inv_backward(ai, g), None


def _inv_backward(ai: Tensor, g: Tensor) -> Tensor:
    # d(A^-1) = -A^-1 dA A^-1, so dA = -A^-H g A^-H
    aih = ai.mH
    return -(aih @ g @ aih)


class InvEx(Function):
    """``inv_ex``: a singular matrix gives LAPACK's getrs "inverse" (inf/nan) and its info
    instead of an error, and still a graph (NOTE: matches torch: its gradient is nan there)."""

    _array_forward = True
    _node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        try:
            r, info = xp.linalg.inv(a), xp.zeros(a.shape[:-2], dtype=_dtype.int32._np)
        except xp.linalg.LinAlgError:
            # NOTE: matches torch: a singular matrix's "inverse" is getrs with the zero pivot
            lu, piv, info = xp.linalg_lu_factor(a)
            r = xp.linalg_lu_solve(lu, piv, xp.eye(a.shape[-1], dtype=a.dtype))
        ctx.save_for_backward(r)
        return r, info

    @staticmethod
    def backward(ctx, g, g_info=None):
        (ai,) = ctx.saved_tensors
        return _inv_backward(ai, g)


class Solve(Function):
    _array_forward = True
    _node_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, a, b, op):
        xp = xp_of(a)
        try:
            x = xp.linalg.solve(a, b)
        except xp.linalg.LinAlgError:
            raise _singular_error(xp, a, op) from None
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        # X = A^-1 B: dB = A^-H g, dA = -dB X^H (the engine sums broadcast batch dims)
        gb = Solve.apply(a.mH, g, "linalg.solve")
        ga = -(gb @ x.mH) if ctx.needs_input_grad[0] else None
        return ga, gb, None


class SolveEx(Function):
    """``solve_ex``: as ``InvEx``, a singular matrix gives getrs' inf/nan result, its info and a
    graph (its backward solves by getrs too, so it never raises)."""

    _array_forward = True
    _node_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, a, b):
        xp = xp_of(a)
        try:
            x, info = xp.linalg.solve(a, b), xp.zeros(a.shape[:-2], dtype=_dtype.int32._np)
        except xp.linalg.LinAlgError:
            lu, piv, info = xp.linalg_lu_factor(a)
            x = xp.linalg_lu_solve(lu, piv, b)
        ctx.save_for_backward(a, x)
        return x, info

    @staticmethod
    def backward(ctx, g, g_info=None):
        a, x = ctx.saved_tensors
        gb = SolveEx.apply(a.mH, g)[0]
        ga = -(gb @ x.mH) if ctx.needs_input_grad[0] else None
        return ga, gb


class Det(Function):
    _array_forward = True
    _node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, a):
        d = xp_of(a).linalg.det(a)
        ctx.save_for_backward(a, d)
        return d

    @staticmethod
    def backward(ctx, g):
        a, d = ctx.saved_tensors
        singular = d._data == 0
        if not a._data.size or not singular.any():
            return _det_backward_regular(a, d, g)
        if singular.all():
            return _det_backward_singular(a, g)
        # NOTE: matches torch: only the singular matrices of a batch take the SVD formula (the
        # others' double backward stays finite where the SVD's would not, e.g. at I)
        from ember.ops.joining import cat

        xp = xp_of(singular)
        flat = singular.reshape(-1)
        ok, bad = xp.nonzero(~flat)[0], xp.nonzero(flat)[0]
        n = a.shape[-1]
        af, df, gf = a.reshape(-1, n, n), d.reshape(-1), g.reshape(-1)
        parts = cat(
            [
                _det_backward_regular(af[_wrap(ok)], df[_wrap(ok)], gf[_wrap(ok)]),
                _det_backward_singular(af[_wrap(bad)], gf[_wrap(bad)]),
            ]
        )
        return parts[_wrap(xp.argsort(xp.concatenate([ok, bad])))].reshape(a.shape)


def _det_backward_regular(a: Tensor, d: Tensor, g: Tensor) -> Tensor:
    # d det(A) = det(A) tr(A^-1 dA): dA = g conj(det) A^-H
    return (g * cj(d))[..., None, None] * inv(a).mH


def _det_backward_singular(a: Tensor, g: Tensor) -> Tensor:
    """The cofactor matrix from an SVD, valid for singular matrices: ``A = U S V^H`` gives
    ``conj(cof(A)) = conj(det(U) det(V^H)) U diag(prod_{j != i} s_j) V^H``. Tensor ops, so double
    backward works where the SVD's does (NOTE: matches torch: nan where singular values repeat,
    as at a matrix of rank n - 2 or less)."""
    from ember.ops.joining import cat

    U, S, Vh = _la().svd(a)
    # prod_{j != i} s_j as the products before and after i: no division by a zero s_i
    ones = S[..., :1] * 0 + 1
    left = cat([ones, S[..., :-1]], -1).cumprod(-1)
    right = cat([ones, S.flip(-1)[..., :-1]], -1).cumprod(-1).flip(-1)
    phase = cj(det(U) * det(Vh)) * g
    return (U * (left * right).unsqueeze(-2)) @ Vh * phase[..., None, None]


class Slogdet(Function):
    _array_forward = True
    _node_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, a):
        sign, lad = xp_of(a).linalg.slogdet(a)
        ctx.save_for_backward(a, sign)
        return sign, lad

    @staticmethod
    def backward(ctx, g_sign, g_lad):
        a, sign = ctx.saved_tensors
        if a._data.dtype.kind == "c" and g_sign is not None:
            # with w = log det A (dw = tr(A^-1 dA)): logabsdet = Re w, sign = exp(i Im w), so
            # the gradient reaching w is g_lad - i Im(conj(g_sign) sign)
            gw = (g_sign.conj() * sign).imag * -1j
            g_lad = gw if g_lad is None else g_lad + gw
        if g_lad is None:
            return None
        # d log|det A| = Re tr(A^-1 dA); the sign of a real matrix is locally constant
        return g_lad[..., None, None] * inv(a).mH


# ---- inverses, determinants, solves -------------------------------------------------------------
def inv(A: Tensor, *, out=None) -> Tensor:
    """The inverse of a square matrix (or of each matrix of a batch). Raises ``LinAlgError``
    naming the zero diagonal element of ``U`` (and the batch element) for a singular input.

    Example:
        >>> ember.linalg.inv(ember.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(inv, A)
    _square(A, "linalg.inv")
    _float(A, "linalg.inv", low_precision=False)
    return _out(Inv.apply(A, "linalg.inv"), out)


def inverse(input: Tensor, *, out=None) -> Tensor:
    """``torch.inverse``: the same as ``linalg.inv``.

    Example:
        >>> ember.inverse(ember.tensor([[0.0, 1.0], [1.0, 0.0]]))
        tensor([[0., 1.],
                [1., 0.]])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(inverse, input)
    return inv(input, out=out)


def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):
    """``(inverse, info)``: ``linalg.inv`` that reports singular matrices in ``info`` (int32, the
    1-based index of the zero diagonal element of ``U``, 0 when invertible) instead of raising,
    unless ``check_errors``.

    Example:
        >>> ember.linalg.inv_ex(ember.tensor([[1.0, 2.0], [2.0, 4.0]])).info
        tensor(2, dtype=ember.int32)
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(inv_ex, A, check_errors=check_errors)
    _square(A, "linalg.inv")
    _float(A, "linalg.inv", low_precision=False)
    if check_errors:
        r, info = Inv.apply(A, "linalg.inv_ex"), _info_tensor(xp_of(A._data), A.shape[:-2])
    else:
        r, info = InvEx.apply(A)
    return _outs(_RETURN_TYPES["linalg_inv_ex"](r, info), out)


def _solve_args(A: Tensor, B: Tensor, left: bool, op: str):
    """Checks as torch's linalg.solve; returns (A', B', vector) with ``A' X = B'``."""
    _float(A, op)
    _square(A, op)
    if B._data.dtype != A._data.dtype:
        raise RuntimeError(
            f"{op}: Expected A and B to have the same dtype, but found A of type "
            f"{_tname(A._data.dtype)} and B of type {_tname(B._data.dtype)} instead"
        )
    _lapack_dtype(A, "lu_cpu")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    n = A.shape[-1]
    if vector:
        if B.shape[-1] != n:
            eq = "AX = B" if left else "XA = B"
            shape = f"{B.shape[-1]}x1" if left else f"1x{B.shape[-1]}"
            raise RuntimeError(
                f"{op}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {shape})"
            )
        return (A if left else A.mT), B.unsqueeze(-1), True
    k = B.shape[-2] if left else B.shape[-1]
    if k != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
            f"{B.shape[-2]}x{B.shape[-1]})"
        )
    _batch_check(B.shape[:-2], A.shape[:-2])
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return A.mT, B.mT, False
    return A, B, False


def _batch_check(sa, sb) -> None:
    """NOTE: matches torch: a batch mismatch names B's batch as tensor a and A's as tensor b."""
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )


def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for square ``A``; batch dimensions
    broadcast, and ``B`` of shape ``A.shape[:-1]`` (or 1-D) is a vector.

    Example:
        >>> ember.linalg.solve(ember.tensor([[2.0, 0.0], [0.0, 4.0]]), ember.tensor([2.0, 2.0]))
        tensor([1.0000, 0.5000])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(solve, A, B, left=left)
    a, b, vector = _solve_args(A, B, left, "linalg.solve")
    x = Solve.apply(a, b, "linalg.solve")
    if vector:
        x = x.squeeze(-1)
    elif not left:
        x = x.mT
    return _out(x, out)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    """``(result, info)``: ``linalg.solve`` that reports singular matrices in ``info`` (as
    ``inv_ex``) instead of raising, unless ``check_errors``.

    Example:
        >>> ember.linalg.solve_ex(ember.eye(2), ember.ones(2)).result
        tensor([1., 1.])
    """
    a, b, vector = _solve_args(A, B, left, "linalg.solve")
    if check_errors:
        x = Solve.apply(a, b, "linalg.solve_ex")
        info = _info_tensor(xp_of(A._data), A.shape[:-2])
    else:
        x, info = SolveEx.apply(a, b)
    if vector:
        x = x.squeeze(-1)
    elif not left:
        x = x.mT
    return _outs(_RETURN_TYPES["linalg_solve_ex"](x, info), out)


def det(A: Tensor, *, out=None) -> Tensor:
    """The determinant of a square matrix (or of each matrix of a batch).

    Example:
        >>> ember.linalg.det(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor(-2.)
    """
    _square(A, "linalg.det")
    _float(A, "linalg.det")
    _lapack_dtype(A, "lu_cpu")
    return _out(Det.apply(A), out)


def _top_det(input: Tensor) -> Tensor:
    """``torch.det``: the same as ``linalg.det``.

    Example:
        >>> ember.det(ember.tensor([[2.0, 0.0], [0.0, 3.0]]))
        tensor(6.)
    """
    return det(input)


def _slogdet(A: Tensor, kind: str):
    _square(A, "linalg.slogdet")
    _float(A, "linalg.slogdet", low_precision=False)
    return _RETURN_TYPES[kind](*Slogdet.apply(A))


def slogdet(A: Tensor, *, out=None):
    """``(sign, logabsdet)`` of the determinant, computed without overflow:
    ``det = sign * exp(logabsdet)``; a singular matrix gives ``(0, -inf)``.

    Example:
        >>> ember.linalg.slogdet(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).sign
        tensor(-1.)
    """
    return _outs(_slogdet(A, "linalg_slogdet"), out)


def _top_slogdet(input: Tensor):
    """``torch.slogdet``: ``linalg.slogdet`` with the return type ``torch.return_types.slogdet``.

    Example:
        >>> ember.slogdet(ember.tensor([[2.0, 0.0], [0.0, 3.0]])).logabsdet
        tensor(1.7918)
    """
    return _slogdet(input, "slogdet")


def logdet(input: Tensor) -> Tensor:
    """The log of the determinant: ``nan`` for a negative determinant, ``-inf`` for zero.

    Example:
        >>> ember.logdet(ember.tensor([[2.0, 0.0], [0.0, 3.0]]))
        tensor(1.7918)
    """
    from ember.ops.ternary import where

    _square(input, "logdet")
    _float(input, "logdet", low_precision=False)
    sign, lad = Slogdet.apply(input)
    if input._data.dtype.kind == "c":  # NOTE: matches torch: log det = log(sign) + logabsdet
        return sign.log() + lad
    return where(sign < 0, math.nan, lad)


# torch.<name> for each name of __all__: ember/__init__.py binds these over the star import, since
# det and slogdet here are the torch.linalg forms
_TOP = {n: globals()[n] for n in __all__}
_TOP.update(
    det=_top_det,
    slogdet=_top_slogdet,
)

Tensor.inverse = inverse
Tensor.det = _top_det
Tensor.logdet = logdet
Tensor.slogdet = _top_slogdet
