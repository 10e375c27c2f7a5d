"""``ember.linalg``: PyTorch's ``torch.linalg`` norms (``norm``, ``vector_norm``,
``matrix_norm``, ``svdvals``), ``cholesky`` and ``solve_triangular`` (with ``LinAlgError``), and
``multi_dot`` (defined with the products in ``ember/ops/products.py``); the rest of torch.linalg
comes with issue 12.

``vector_norm`` is one ``Function`` with PyTorch's backward formula for each order; matrix norms
compose it with ``amax``/``amin``/``sum``, and with the singular values for ``'nuc'``, 2 and -2.
"""

from __future__ import annotations

import math

from ember import _autocast as _ac
from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.ops.broadcast import broadcast_shapes
from ember.ops.extrema import amax, amin
from ember.ops.linalg import matmul
from ember.ops.pointwise import _out
from ember.ops.products import multi_dot
from ember.ops.reduction import _acc_dtype, _axes, _keep, _tname
from ember.ops.reduction import sum as _sum
from ember.tensor import Tensor, _wrap, _wrap_dim

_INF = math.inf


def _check_float(input: Tensor, op: str, low_precision: bool = True, kinds: str = "fV"):
    d = input._data.dtype
    if d.kind not in kinds:
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {_tname(d)}"
        )
    if not low_precision and d.itemsize == 2:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {_tname(d)}")


def _apply_dtype(input: Tensor, dtype, op: str) -> Tensor:
    if dtype is None:
        return input
    npd = _dtype.to_np(dtype)
    if npd.kind not in "fcV":
        raise RuntimeError(f"{op}: dtype should be floating point or complex. Got {_tname(npd)}")
    if npd.itemsize < input._data.dtype.itemsize:
        raise RuntimeError(
            f"{op}: the dtype of the input ({_dtype.from_np(input._data.dtype)}) should be "
            f"convertible without narrowing to the specified dtype ({_dtype.from_np(npd)})"
        )
    return input.to(_dtype.from_np(npd))


class LinalgVectorNorm(Function):
    _array_forward = True
    _node_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, a, ord, axes, keepdim):
        ctx.ord, ctx.axes, ctx.keepdim = ord, axes, keepdim
        xp = xp_of(a)
        acc = _acc_dtype(a.dtype)
        x = xp.abs(a.astype(acc, copy=False))
        if ord == 0:
            r = xp.sum(x != 0, axis=axes, keepdims=keepdim, dtype=x.dtype)  # (|a|: real)
        elif ord == _INF:
            r = xp.max(x, axis=axes, keepdims=keepdim)
        elif ord == -_INF:
            r = xp.min(x, axis=axes, keepdims=keepdim)
        elif ord == 1:
            r = xp.sum(x, axis=axes, keepdims=keepdim)
        elif ord == 2:
            r = xp.sqrt(xp.sum(x * x, axis=axes, keepdims=keepdim))
        else:
            r = xp.sum(x**ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)
        # a complex input's norm is real (NOTE: matches torch)
        r = xp.asarray(r).astype(_dtype.from_np(a.dtype).to_real()._np, copy=False)
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, norm = ctx.saved_tensors
        return _vector_norm_backward(ctx, g, x, norm), None, None, None


def _vector_norm_backward(ctx, g, x, norm):
    """PyTorch's ``norm_backward``; its ``masked_fill`` at zeros become safe denominators (the
    masked positions get exactly 0, and no 0/0 enters the graph)."""
    p = ctx.ord
    xd = x._data
    xp = xp_of(xd)
    shape = xd.shape
    g = _keep(g, shape, ctx.axes, ctx.keepdim)
    norm = _keep(norm, shape, ctx.axes, ctx.keepdim)
    if p == 0:
        return g * 0 * x
    sgn = _wrap(xp.sign(xd))
    absx = x * sgn if xd.dtype.kind != "c" else x.abs()
    if p == 1:
        return g * sgn
    nd = norm._data
    norm_zero = _wrap((nd == 0).astype(nd.dtype))
    norm_nonzero = 1 - norm_zero
    if math.isinf(p):
        mask = xp.abs(xd) == nd
        count = xp.sum(mask, axis=ctx.axes, keepdims=True)
        return sgn * (g / _wrap(count.astype(xd.dtype)) * _wrap(mask.astype(xd.dtype)))
    if p == 2:
        return g * (x / (norm + norm_zero)) * norm_nonzero
    if p < 1:
        x_zero = _wrap((xd == 0).astype(xd.dtype))
        scaled = sgn * (absx + x_zero) ** (p - 1)
        return scaled * g * norm ** (1 - p)
    scaled = sgn * absx ** (p - 1) if p < 2 else x * absx ** (p - 2)
    return scaled * (g / (norm + norm_zero) ** (p - 1) * norm_nonzero)


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The vector ``ord``-norm of ``x`` over ``dim`` (every dim, flattened, when None):
    ``sum(|x|^ord)^(1/ord)``, with ``ord`` = ``inf``/``-inf`` the max/min of ``|x|`` and 0 the
    count of nonzeros.

    Example:
        >>> ember.linalg.vector_norm(ember.tensor([3.0, -4.0]), ord=1)
        tensor(7.)
    """
    if isinstance(ord, (str, bool)) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    _check_float(x, "linalg.vector_norm", kinds="fcV")
    x = _apply_dtype(x, dtype, "linalg.vector_norm")
    axes = _axes(x, dim)
    if (ord < 0 or ord == _INF) and x._data.size == 0:
        what = f"{ord}"
        if axes is None:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {what} norm on an empty tensor because "
                "the operation does not have an identity"
            )
        for d in axes:
            if x._data.shape[d] == 0:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {what} norm on the dimension {d} "
                    "because this dimension is empty and the operation does not have an identity"
                )
    return unary(LinalgVectorNorm, x, ord, axes, keepdim)


def _backshift(A: Tensor, d0: int, d1: int) -> tuple:
    """``A`` with dims ``d0, d1`` moved last (in that order), and the permutation used."""
    perm = [i for i in range(A.ndim) if i not in (d0, d1)] + [d0, d1]
    return A.permute(perm), perm


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """The matrix norm of ``A`` over the two dims ``dim``: ``'fro'``, ``'nuc'`` (sum of
    singular values), ``inf``/``-inf`` (max/min row abs-sum), 1/-1 (max/min column abs-sum),
    2/-2 (largest/smallest singular value).

    Example:
        >>> ember.linalg.matrix_norm(ember.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1)
        tensor(6.)
    """
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    dims = tuple(_wrap_dim(d, A.ndim) for d in ((dim,) if isinstance(dim, int) else dim))
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dims}")
    if dims[0] == dims[1]:
        raise RuntimeError(
            f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})"
        )
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        if ord == "fro":
            return vector_norm(A, 2, dims, keepdim, dtype=dtype)
        _check_float(A, "linalg.matrix_norm", low_precision=False, kinds="fcV")
        return _svd_norm(_apply_dtype(A, dtype, "linalg.matrix_norm"), dims, keepdim, "nuc")
    if abs(ord) not in (1, 2, _INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    _check_float(A, "linalg.matrix_norm", low_precision=abs(ord) != 2, kinds="fcV")
    if abs(ord) == 2:
        return _svd_norm(_apply_dtype(A, dtype, "linalg.matrix_norm"), dims, keepdim, ord)
    d0, d1 = dims
    if abs(ord) == _INF:
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = vector_norm(A, 1.0, d0, keepdim, dtype=dtype)
    if sums.shape[d1] == 0:
        if ord > 0:  # NOTE: matches torch: the max over an empty dim is 0 here
            return sums.sum(d1, keepdim) * 0
        raise RuntimeError(f"linalg.matrix_norm: the {ord} norm of an empty matrix is undefined")
    return (amax if ord > 0 else amin)(sums, d1, keepdim)


def _svd_norm(A: Tensor, dims, keepdim: bool, ord):
    B, perm = _backshift(A, *dims)
    from ember.ops.linalg_decomp import svdvals

    s = svdvals(B)  # differentiable to any order (through the svd)
    if ord == "nuc":
        r = _sum(s, -1, keepdim)
    elif s.shape[-1] == 0:
        r = _sum(s, -1, keepdim) * 0
    else:
        r = (amax if ord > 0 else amin)(s, -1, keepdim)
    if keepdim:
        inv = [0] * A.ndim
        for i, p in enumerate(perm):
            inv[p] = i
        r = r.unsqueeze(-1).permute(inv)
    return r


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """A vector or a matrix norm, chosen as ``torch.linalg.norm`` does: ``dim`` of length 2
    (or a 2-D input with ``ord`` given and no ``dim``) gives ``matrix_norm``, else
    ``vector_norm`` (``ord=None``: the 2-norm of the flattened input).

    Example:
        >>> ember.linalg.norm(ember.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(5.)
    """
    if dim is not None:
        if isinstance(dim, int):
            dim = (dim,)
        if len(dim) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"
            )
    elif ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {A.ndim}D"
        )
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A.ndim == 2)):
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(
            f"linalg.vector_norm: ord must be a number for a vector norm; got {ord!r}"
        )
    return vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """Cross product of 3-vectors along ``dim`` (``torch.linalg.cross``: default ``dim=-1``)."""
    from ember.ops.cross import _cross
    from ember.ops.pointwise import _out

    return _out(_cross(input, other, dim), out)


# ---- factorizations and triangular solves --------------------------------------------------------
class LinAlgError(RuntimeError):
    """A matrix that a factorization or solve cannot handle (``torch.linalg.LinAlgError``)."""


def _square(A: Tensor, op: str) -> None:
    if A._data.ndim < 2 or A.shape[-1] != A.shape[-2]:
        shape = tuple(A.shape)
        if len(shape) < 2:
            raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {shape[-2]} by "
            f"{shape[-1]} matrices"
        )


def _not_positive_definite(xp, a):
    """torch's LinAlgError naming the first failing batch element and leading minor."""
    flat = a.reshape((-1,) + a.shape[-2:])
    for b, m in enumerate(flat):
        for k in range(1, m.shape[0] + 1):
            try:
                xp.linalg.cholesky(m[:k, :k])
            except xp.linalg.LinAlgError:
                where = f"(Batch element {b}): " if a.ndim > 2 else ""
                return LinAlgError(
                    f"linalg.cholesky: {where}The factorization could not be completed because "
                    f"the input is not positive-definite (the leading minor of order {k} is not "
                    "positive-definite)."
                )
    return LinAlgError("linalg.cholesky: the input is not positive-definite")


class Cholesky(Function):
    _array_forward = True
    _node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        try:
            low = xp.linalg.cholesky(a)
        except xp.linalg.LinAlgError:
            raise _not_positive_definite(xp, a) from None
        ctx.save_for_backward(low)
        return low

    @staticmethod
    def backward(ctx, g):
        (low,) = ctx.saved_tensors
        # A = L L^H: dA = L^-H Phi L^-1 with Phi the Hermitian matrix whose lower triangle is
        # tril(L^H dL) with its diagonal halved (tril(L^H dL) needs only dL's lower triangle)
        p = (low.mH @ g).tril()
        p = 0.5 * (p + p.tril(-1).mH)
        x = solve_triangular(low.mH, p, upper=True)
        return solve_triangular(low, x, upper=False, left=False)


def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """The Cholesky factor of symmetric positive-definite matrices (batched): lower ``L`` with
    ``A = L L^H``, or upper ``U = L^H`` with ``upper=True``. Only the lower triangle of ``A`` is
    read. Raises ``LinAlgError`` naming the leading minor that is not positive-definite.

    Example:
        >>> ember.linalg.cholesky(ember.tensor([[4.0, 2.0], [2.0, 5.0]]))
        tensor([[2., 0.],
                [1., 2.]])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(cholesky, A, upper=upper)
    _check_float(A, "linalg.cholesky", kinds="fcV")
    _square(A, "linalg.cholesky")
    if A._data.dtype.char in "eE":  # NOTE: matches torch: no half-precision LAPACK kernel
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{_tname(A._data.dtype)}'")
    low = Cholesky.apply(A)
    result = low.mH if upper else low
    return result if out is None else _out(result, out)


class SolveTriangular(Function):
    _array_forward = True
    _node_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx, a, b, upper, unitriangular):
        # NOTE: matches torch: only the triangle named by ``upper`` of ``a`` is read, and a zero
        # on its diagonal gives inf/nan rather than an error
        x = xp_of(a).linalg_solve_triangular(a, b, upper, unitriangular)
        ctx.upper, ctx.unitriangular = upper, unitriangular
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        upper, unit = ctx.upper, ctx.unitriangular
        # X = A^-1 B: dB = A^-H g, dA = -dB X^H restricted to the triangle read (the engine sums
        # the batch dims of a 2-D A)
        gb = solve_triangular(a.mH, g, upper=not upper, unitriangular=unit)
        ga = None
        if need_a:
            ga = -(gb @ x.mH)
            ga = ga.triu(1 if unit else 0) if upper else ga.tril(-1 if unit else 0)
        return ga, (gb if need_b else None), None, None


def solve_triangular(
    A: Tensor,
    B: Tensor,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
    out=None,
) -> Tensor:
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for triangular ``A`` (only its
    ``upper`` or lower triangle is read; ``unitriangular``: its diagonal is taken as ones).
    Batch dimensions broadcast. A zero on the diagonal gives inf/nan, not an error.

    Example:
        >>> A = ember.tensor([[2.0, 1.0], [0.0, 4.0]])
        >>> ember.linalg.solve_triangular(A, ember.tensor([[3.0], [4.0]]), upper=True)
        tensor([[1.],
                [1.]])
    """
    _square(A, "linalg.solve_triangular")
    if B._data.ndim < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."
        )
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            "linalg.solve_triangular: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    d = A._data.dtype
    if d.kind not in "fc" or d.itemsize == 2:
        # NOTE: matches torch: A's dtype picks the kernel (B is cast to it); no half precision
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_tname(d)}'")
    if not left:  # X A = B  <=>  A^T X^T = B^T
        result = solve_triangular(A.mT, B.mT, upper=not upper, unitriangular=unitriangular).mT
        return result if out is None else _out(result, out)
    # NOTE: matches torch: the result has A's dtype, whatever B's is
    B = B.to(A.dtype)
    if A.ndim > 2:  # a 2-D A stays one matrix: one BLAS call takes the whole batch of B
        batch = tuple(broadcast_shapes(A.shape[:-2], B.shape[:-2]))
        A = A.expand(*batch, *A.shape[-2:])
        B = B.expand(*batch, *B.shape[-2:])
    result = SolveTriangular.apply(A, B, upper, unitriangular)
    return result if out is None else _out(result, out)


from ember import _lazy  # noqa: E402

# The decompositions and solvers live in ember/ops/linalg_{solve,lu,matrix,decomp,qr,lstsq}.py,
# each listing its ember.linalg names in LINALG_ALL; they load on first use (ember/_lazy.py).
_LAZY = _lazy.names(__name__)
__all__ = [
    *_LAZY,
    "norm",
    "vector_norm",
    "matrix_norm",
    "multi_dot",
    "cross",
    "matmul",
    "cholesky",
    "solve_triangular",
    "LinAlgError",
]

from ember import _unsupported  # noqa: E402


def _miss(name: str):
    # Runs only on a miss, so existing names cost nothing: a torch name ember deliberately
    # lacks answers with its reason (ember/_unsupported.py).
    return _unsupported.module_getattr(__name__, name)


__getattr__ = _lazy.lazy_getattr(__name__, _LAZY, fallback=_miss)


def __dir__() -> list[str]:
    return sorted(__all__)  # torch's names only, not the helpers imported above
