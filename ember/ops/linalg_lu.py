"""torch.linalg's LU, LDL and Cholesky factorizations and the solves from triangular factors
(lu_factor, lu, lu_solve, ldl_factor, ldl_solve, cholesky_ex), with their old top-level names
(lu, lu_solve, lu_unpack, cholesky_solve, cholesky_inverse, triangular_solve).

Primitives: ``LuFactor`` (getrf per matrix, its backward written in triangular solves, so double
backward works) and the LDL pair (sytrf/sytrs; not differentiable, as in torch). The solves are
composites of ``ember.linalg.solve_triangular`` and permutation products.

``lu`` and ``lu_solve`` mean different things in ``torch`` and ``torch.linalg`` (``lu_solve``'s
argument order): the module attributes are the ``torch.linalg`` forms (``LINALG_ALL``;
ember.linalg copies them by name) and the top-level forms are ``_top_*``, bound to their names in
``ember/__init__.py``. The shared input checks live in ember/ops/linalg_solve.py.
"""

from __future__ import annotations

import warnings

from ember import _autocast as _ac
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops._selection import _return_type
from ember.ops.broadcast import broadcast_shapes
from ember.ops.linalg_solve import (
    _any_bad,
    _eye_like,
    _first_bad,
    _float,
    _info_tensor,
    _la,
    _lapack_dtype,
    _need_matrix,
    _outs,
    _square,
    _where,
)
from ember.ops.pointwise import _out
from ember.ops.reduction import _tname
from ember.tensor import Tensor, _wrap

__all__ = [
    "cholesky_solve",
    "cholesky_inverse",
    "lu_solve",
    "lu_unpack",
    "lu",
    "triangular_solve",
]
LINALG_ALL = (
    "cholesky_ex",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
)

# (torch.return_types; ember/return_types.py shows them)
_RETURN_TYPES = {
    n: _return_type(n, fields)
    for n, fields in (
        ("linalg_cholesky_ex", ("L", "info")),
        ("linalg_lu", ("P", "L", "U")),
        ("linalg_lu_factor", ("LU", "pivots")),
        ("linalg_lu_factor_ex", ("LU", "pivots", "info")),
        ("linalg_ldl_factor", ("LD", "pivots")),
        ("linalg_ldl_factor_ex", ("LD", "pivots", "info")),
        ("lu_unpack", ("P", "L", "U")),
        ("triangular_solve", ("solution", "cloned_coefficient")),
    )
}


# ---- primitives ---------------------------------------------------------------------------------
class LuFactor(Function):
    _array_forward = True
    _node_name = "LinalgLuFactorExBackward0"

    @staticmethod
    def forward(ctx, a):
        lu, piv, info = xp_of(a).linalg_lu_factor(a)
        ctx.piv = piv
        ctx.save_for_backward(lu)
        return lu, piv, info

    @staticmethod
    def backward(ctx, g_lu, g_piv=None, g_info=None):
        (lu,) = ctx.saved_tensors
        if g_lu is None:
            return None
        return _lu_backward(lu, _perm_matrix(lu, ctx.piv), g_lu)


def _perm_matrix(lu: Tensor, piv, transpose: bool = False) -> Tensor:
    """P of ``A = P L U`` (``P^T`` with ``transpose``) as a constant tensor of ``lu``'s dtype."""
    xp = xp_of(lu._data)
    m = lu.shape[-2]
    pt = xp.eye(m, dtype=lu._data.dtype)[xp.linalg_pivots_to_perm(piv, m)]
    return _wrap(pt if transpose else pt.swapaxes(-1, -2).copy())


def _lu_square_core(L1, U, gL, gU):
    """L^-H [ (L^H gL) o tril(-1) + (gU U^H) o triu ] U^-H for A = L U (square)."""
    st = _la().solve_triangular
    phi = (L1.mH @ gL).tril(-1) + (gU @ U.mH).triu()
    x = st(U.mH, phi, upper=False, left=False)
    return st(L1.mH, x, upper=True, unitriangular=True)


def _lu_backward(lu: Tensor, P: Tensor, g: Tensor) -> Tensor:
    """The gradient of A from that of its packed LU factors (square, wide and tall A)."""
    from ember.ops.joining import cat

    st = _la().solve_triangular
    m, n = lu.shape[-2:]
    k = min(m, n)
    sq, gsq = lu[..., :k, :k], g[..., :k, :k]
    L1 = sq.tril(-1) + _eye_like(lu, k)
    U1 = sq.triu()
    gL, gU = gsq.tril(-1), gsq.triu()
    if m == n:
        return P @ _lu_square_core(L1, U1, gL, gU)
    if m < n:
        # A = P L [U1 U2]: U2 = L^-1 P^T A2, so A2 gets P L^-H gU2 and L gets -(. U2^H)
        w = st(L1.mH, g[..., :, k:], upper=True, unitriangular=True)
        gL = gL - (w @ lu[..., :, k:].mH).tril(-1)
        return P @ cat([_lu_square_core(L1, U1, gL, gU), w], -1)
    # A = P [L1; L2] U: L2 = A2 U^-1, so A2 gets gL2 U^-H and U gets -(L2^H .)
    v = st(U1.mH, g[..., k:, :], upper=False, left=False)
    gU = gU - (lu[..., k:, :].mH @ v).triu()
    return P @ cat([_lu_square_core(L1, U1, gL, gU), v], -2)


class _NotDifferentiable(Function):
    """LAPACK's LDL routines: torch has no derivative for them; backward says so."""

    _array_forward = True

    @classmethod
    def backward(cls, ctx, *grads):
        raise RuntimeError(f"the derivative for '{cls._what}' is not implemented.")


class LdlFactor(_NotDifferentiable):
    _node_name = "LinalgLdlFactorExBackward0"
    _what = "linalg_ldl_factor_ex"

    @staticmethod
    def forward(ctx, a, hermitian):
        return xp_of(a).linalg_ldl_factor(a, hermitian)


class LdlSolve(_NotDifferentiable):
    _node_name = "LinalgLdlSolveBackward0"
    _what = "linalg_ldl_solve"

    @staticmethod
    def forward(ctx, ld, piv, b, hermitian):
        return xp_of(ld).linalg_ldl_solve(ld, piv, b, hermitian)


# ---- LU ----------------------------------------------------------------------------------------
def _lu_checks(A: Tensor, op: str, pivot: bool) -> None:
    _need_matrix(A, op)
    _lapack_dtype(A, "lu_cpu")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None):
    """``(LU, pivots, info)``: the packed LU factorization with partial pivoting, LAPACK's
    1-based int32 pivots, and ``info`` > 0 where ``U`` has an exactly zero diagonal element.

    Example:
        >>> ember.linalg.lu_factor_ex(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).pivots
        tensor([2, 2], dtype=ember.int32)
    """
    _lu_checks(A, "torch.lu_factor", pivot)
    LU, piv, info = LuFactor.apply(A)
    if check_errors:
        _lu_singular(A, info, "torch.linalg.lu_factor_ex")
    return _outs(_RETURN_TYPES["linalg_lu_factor_ex"](LU, piv, info), out)


def _lu_singular(A: Tensor, info: Tensor, op: str) -> None:
    d = info._data
    if _any_bad(d):
        b, i = _first_bad(d)
        raise RuntimeError(
            f"{op}: {_where(A._data).format(b)}U[{i},{i}] is zero and using it on lu_solve "
            "would result in a division by zero. If you still want to perform the "
            "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )


def lu_factor(A: Tensor, *, pivot: bool = True, out=None):
    """``(LU, pivots)``: the packed LU factorization with partial pivoting (``A = P L U``, ``L``
    unit lower triangular below the diagonal of ``LU``, ``U`` on and above it). Raises for a
    singular matrix (use ``lu_factor_ex`` or ``lu`` to factor one).

    Example:
        >>> LU, pivots = ember.linalg.lu_factor(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> LU
        tensor([[3.0000, 4.0000],
                [0.3333, 0.6667]])
    """
    _lu_checks(A, "torch.lu_factor", pivot)
    LU, piv, info = LuFactor.apply(A)
    _lu_singular(A, info, "torch.linalg.lu_factor")
    return _outs(_RETURN_TYPES["linalg_lu_factor"](LU, piv), out)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True, *, out=None):  # fmt: skip
    """``(P, L, U)`` from the packed factors and pivots of ``lu_factor`` (``A = P L U``); a
    factor not asked for is an empty tensor.

    Example:
        >>> LU, pivots = ember.linalg.lu_factor(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> P, L, U = ember.lu_unpack(LU, pivots)
        >>> P
        tensor([[0., 1.],
                [1., 0.]])
    """
    LU = LU_data
    xp = xp_of(LU._data)
    m, n = LU.shape[-2:]
    k = min(m, n)
    empty = _wrap(xp.zeros((0,), dtype=LU._data.dtype))
    if unpack_data:
        L = LU[..., :, :k].tril(-1) + _wrap(xp.eye(m, k, dtype=LU._data.dtype))
        U = LU[..., :k, :].triu()
    else:
        L = U = empty
    P = _perm_matrix(LU, LU_pivots._data) if unpack_pivots else empty
    if unpack_pivots and P.shape[:-2] != LU.shape[:-2]:
        P = P.expand(*LU.shape[:-2], m, m)
    return _outs(_RETURN_TYPES["lu_unpack"](P, L, U), out)


def lu(A: Tensor, *, pivot: bool = True, out=None):
    """``(P, L, U)`` with ``A = P L U``: the LU factorization with partial pivoting of a
    matrix of any shape (batched), differentiable in ``L`` and ``U``.

    Example:
        >>> P, L, U = ember.linalg.lu(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> U
        tensor([[3.0000, 4.0000],
                [0.0000, 0.6667]])
    """
    _need_matrix(A, "linalg.lu")
    _lapack_dtype(A, "lu_cpu")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, piv, _ = LuFactor.apply(A)
    return _outs(_RETURN_TYPES["linalg_lu"](*lu_unpack(LU, piv)), out)


def _top_lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out=None):
    """``torch.lu`` (deprecated by torch): ``(LU, pivots)`` (and ``infos`` with ``get_infos``),
    as ``linalg.lu_factor_ex``; never raises for a singular matrix.

    Example:
        >>> import warnings; warnings.simplefilter("ignore")
        >>> ember.lu(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))[1]
        tensor([2, 2], dtype=ember.int32)
    """
    warnings.warn(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.",
        UserWarning,
        stacklevel=2,
    )
    _lu_checks(A, "torch.lu_factor", pivot)
    LU, piv, info = LuFactor.apply(A)
    res = (LU, piv, info) if get_infos else (LU, piv)
    return res if out is None else tuple(_out(r, o) for r, o in zip(res, out))


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False,
             out=None) -> Tensor:  # fmt: skip
    """``X`` with ``A X = B`` from ``A``'s LU factors (``adjoint``: ``A^H X = B``; ``left=False``:
    ``X A = B``); batches broadcast. Differentiable in ``LU`` and ``B``.

    Example:
        >>> LU, piv = ember.linalg.lu_factor(ember.tensor([[2.0, 0.0], [0.0, 4.0]]))
        >>> ember.linalg.lu_solve(LU, piv, ember.tensor([[2.0], [2.0]]))
        tensor([[1.0000],
                [0.5000]])
    """
    if LU.ndim >= 2 and LU.shape[-1] != LU.shape[-2]:
        _square(LU, "torch.linalg.lu_solve")
    _square(LU, "linalg.lu_solve")
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if B._data.dtype != LU._data.dtype:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{_tname(LU._data.dtype)} and B of type {_tname(B._data.dtype)} instead"
        )
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            "linalg.lu_solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return _out(lu_solve(LU, pivots, B.mH, adjoint=not adjoint).mH, out)
    st = _la().solve_triangular
    if not adjoint:  # X = U^-1 L^-1 P^T B
        y = st(LU, _perm_matrix(LU, pivots._data, transpose=True) @ B, upper=False,
               unitriangular=True)  # fmt: skip
        return _out(st(LU, y, upper=True), out)
    # A^H = U^H L^H P^T: X = P L^-H U^-H B
    y = st(LU.mH, B, upper=False)
    x = st(LU.mH, y, upper=True, unitriangular=True)
    return _out(_perm_matrix(LU, pivots._data) @ x, out)


def _top_lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """``torch.lu_solve(b, LU, pivots)`` (deprecated by torch): ``linalg.lu_solve(LU, pivots, b)``.

    Example:
        >>> import warnings; warnings.simplefilter("ignore")
        >>> LU, piv = ember.linalg.lu_factor(ember.tensor([[2.0, 0.0], [0.0, 4.0]]))
        >>> ember.lu_solve(ember.tensor([[2.0], [4.0]]), LU, piv)
        tensor([[1.],
                [1.]])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(_top_lu_solve, input, LU_data, LU_pivots)
    warnings.warn(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
        "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
        "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
        "X = torch.linalg.lu_solve(LU, pivots, B)",
        UserWarning,
        stacklevel=2,
    )
    return lu_solve(LU_data, LU_pivots, input, out=out)


# ---- LDL ---------------------------------------------------------------------------------------
def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out=None):
    """``(LD, pivots, info)``: the Bunch-Kaufman factorization ``A = L D L^T`` of a symmetric
    (``hermitian``: Hermitian) matrix from its lower triangle, in LAPACK's packed form
    (sytrf). Not differentiable, as in torch.

    Example:
        >>> ember.linalg.ldl_factor_ex(ember.tensor([[4.0, 2.0], [2.0, 5.0]])).LD
        tensor([[4.0000, 0.0000],
                [0.5000, 4.0000]])
    """
    op = "torch.linalg.ldl_factor_ex"
    _square(A, op)
    _float(A, op)
    _lapack_dtype(A, "ldl_factor_kernel_cpu")
    LD, piv, info = LdlFactor.apply(A, hermitian)
    if check_errors:
        _ldl_error(info, "torch.linalg.ldl_factor_ex")
    return _outs(_RETURN_TYPES["linalg_ldl_factor_ex"](LD, piv, info), out)


def _ldl_error(info: Tensor, op: str) -> None:
    d = info._data
    if _any_bad(d):
        # NOTE: matches torch: it reports a singular D as an unknown LAPACK error code
        raise RuntimeError(f"{op}: Unknown error code: {_first_bad(d)[1]}.")


def ldl_factor(A: Tensor, *, hermitian: bool = False, out=None):
    """``(LD, pivots)``: ``ldl_factor_ex`` that raises when ``D`` is singular.

    Example:
        >>> ember.linalg.ldl_factor(ember.tensor([[4.0, 2.0], [2.0, 5.0]])).pivots
        tensor([1, 2], dtype=ember.int32)
    """
    LD, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    _ldl_error(info, "torch.linalg.ldl_factor")
    return _outs(_RETURN_TYPES["linalg_ldl_factor"](LD, piv), out)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False,
              out=None) -> Tensor:  # fmt: skip
    """``X`` with ``A X = B`` from ``ldl_factor``'s ``(LD, pivots)``; batches broadcast.

    Example:
        >>> LD, piv = ember.linalg.ldl_factor(ember.tensor([[4.0, 2.0], [2.0, 5.0]]))
        >>> ember.linalg.ldl_solve(LD, piv, ember.tensor([[6.0], [7.0]]))
        tensor([[1.],
                [1.]])
    """
    _square(LD, "torch.linalg.ldl_solve")
    if B.ndim < 2:
        raise RuntimeError(
            f"torch.linalg.ldl_solve: Expected B to have at least 2 dimensions, but it has "
            f"{B.ndim} dimensions instead"
        )
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(
            "Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is "
            f"{LD.shape[-2]} by {LD.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    return _out(LdlSolve.apply(LD, pivots, B, hermitian), out)


# ---- Cholesky solves ---------------------------------------------------------------------------
def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    """``(L, info)``: ``linalg.cholesky`` that reports in ``info`` (int32) the order of the
    first leading minor that is not positive-definite instead of raising, unless
    ``check_errors``.

    Example:
        >>> ember.linalg.cholesky_ex(ember.tensor([[1.0, 2.0], [2.0, 1.0]])).info
        tensor(2, dtype=ember.int32)
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(cholesky_ex, A, upper=upper, check_errors=check_errors)
    la = _la()
    _square(A, "linalg.cholesky")
    _float(A, "linalg.cholesky")
    xp = xp_of(A._data)
    try:
        L = la.cholesky(A, upper=upper)
        info = _info_tensor(xp, A.shape[:-2])
    except la.LinAlgError as e:
        if check_errors:
            msg = str(e).replace("linalg.cholesky:", "linalg.cholesky_ex:", 1)
            raise la.LinAlgError(msg) from None
        low, info = xp.linalg_cholesky_ex(A._data)
        L, info = _wrap(xp.conj(xp.swapaxes(low, -1, -2)) if upper else low), _wrap(info)
    return _outs(_RETURN_TYPES["linalg_cholesky_ex"](L, info), out)


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """``X`` with ``A X = B`` for ``A = L L^H`` given its Cholesky factor ``L`` (``upper``:
    ``A = U^H U``); batches broadcast.

    Example:
        >>> L = ember.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> ember.cholesky_solve(ember.tensor([[6.0], [4.0]]), L)
        tensor([[1.],
                [1.]])
    """
    B, L = input, input2  # torch's names; the math reads better as B and L
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(cholesky_solve, B, L, upper)
    if B.ndim < 2:
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {B.ndim} dimensions instead"
        )
    if L.ndim < 2 or L.shape[-1] != L.shape[-2]:
        _square(L, "cholesky_solve")
    if B._data.dtype != L._data.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type "
            f"{_tname(B._data.dtype)} and A of type {_tname(L._data.dtype)} instead."
        )
    if B.shape[-2] != L.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {L.shape[-2]} by "
            f"{L.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    st = _la().solve_triangular
    if upper:  # A = U^H U: X = U^-1 U^-H B
        x = st(L, st(L.mH, B, upper=False), upper=True)
    else:  # A = L L^H: X = L^-H L^-1 B
        x = st(L.mH, st(L, B, upper=False), upper=True)
    return _out(x, out)


def cholesky_inverse(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """The inverse of ``A = L L^H`` (``upper``: ``U^H U``) from its Cholesky factor.

    Example:
        >>> ember.cholesky_inverse(ember.tensor([[2.0, 0.0], [0.0, 1.0]]))
        tensor([[0.2500, 0.0000],
                [0.0000, 1.0000]])
    """
    L = input
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(cholesky_inverse, L, upper)
    _square(L, "cholesky_inverse")
    _float(L, "cholesky_inverse")
    eye = _eye_like(L, L.shape[-1])
    return _out(cholesky_solve(eye.expand(*L.shape), L, upper), out)


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out=None):  # fmt: skip
    """``(solution, cloned_coefficient)``: ``X`` with ``A X = b`` (``transpose``: ``A^T X = b``)
    for triangular ``A``, and a copy of ``A`` (deprecated by torch for
    ``linalg.solve_triangular``).

    Example:
        >>> import warnings; warnings.simplefilter("ignore")
        >>> A = ember.tensor([[2.0, 1.0], [0.0, 1.0]])
        >>> ember.triangular_solve(ember.tensor([[3.0], [1.0]]), A).solution
        tensor([[1.],
                [1.]])
    """
    b = input
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(triangular_solve, b, A, upper, transpose, unitriangular)
    warnings.warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will "
        "be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
        "arguments reversed and does not return a copy of one of the inputs.\n"
        "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B).",
        UserWarning,
        stacklevel=2,
    )
    if b.ndim < 2:
        raise RuntimeError(
            "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
            f"{b.ndim} dimensions instead"
        )
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        _square(A, "triangular_solve")
    if b.shape[-2] != A.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for triangular_solve: each A matrix is {A.shape[-2]} by "
            f"{A.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}"
        )
    M = A.mT if transpose else A
    x = _la().solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    batch = tuple(broadcast_shapes(A.shape[:-2], b.shape[:-2]))
    coef = A.expand(*batch, *A.shape[-2:]).clone()
    return _outs(_RETURN_TYPES["triangular_solve"](x, coef), out)


# ---- Tensor methods (torch's top-level forms) ---------------------------------------------------
def _method_lu(self, pivot=True, get_infos=False):
    return _top_lu(self, pivot, get_infos)


def _method_lu_solve(self, LU_data, LU_pivots):
    return _top_lu_solve(self, LU_data, LU_pivots)


# torch.<name> for each name of __all__: ember/__init__.py binds these over the star import, since
# lu and lu_solve here are the torch.linalg forms
_TOP = {n: globals()[n] for n in __all__}
_TOP.update(lu=_top_lu, lu_solve=_top_lu_solve)

Tensor.cholesky_solve = cholesky_solve
Tensor.cholesky_inverse = cholesky_inverse
Tensor.lu = _method_lu
Tensor.lu_solve = _method_lu_solve
Tensor.triangular_solve = triangular_solve
