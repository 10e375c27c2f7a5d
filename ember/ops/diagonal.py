"""Triangles and diagonals: ``tril``, ``triu``, ``diagonal`` (a view), ``diagonal_scatter``,
``diag_embed``, ``diag``."""

from __future__ import annotations

import operator

from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.ops.shape import _view_op
from ember.tensor import Tensor, _wrap_dim


# ---- triangles and diagonals ------------------------------------------------------------------
def _tri(a, k, upper):
    xp = xp_of(a)
    n, m = a.shape[-2:]
    keep = ~xp.tri(n, m, k - 1, dtype=bool) if upper else xp.tri(n, m, k, dtype=bool)
    return xp.where(keep, a, xp.zeros((), dtype=a.dtype))


class Tril(Function):
    _array_forward = True
    _node_name = "TrilBackward0"

    @staticmethod
    def forward(ctx, a, k):
        ctx.k = k
        return _tri(a, k, False)

    @staticmethod
    def backward(ctx, g):
        return tril(g, ctx.k), None


class Triu(Function):
    _array_forward = True
    _node_name = "TriuBackward0"

    @staticmethod
    def forward(ctx, a, k):
        ctx.k = k
        return _tri(a, k, True)

    @staticmethod
    def backward(ctx, g):
        return triu(g, ctx.k), None


def tril(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """Zero the elements above the ``diagonal``-th diagonal of the last two dims.

    Example:
        >>> ember.ones(2, 2).tril()
        tensor([[1., 0.],
                [1., 1.]])
    """
    if input._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return _maybe_out(unary(Tril, input, operator.index(diagonal)), out)


def triu(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """Zero the elements below the ``diagonal``-th diagonal of the last two dims."""
    if input._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return _maybe_out(unary(Triu, input, operator.index(diagonal)), out)


def _maybe_out(result: Tensor, out) -> Tensor:
    if out is None:
        return result
    from ember.ops.pointwise import _out

    return _out(result, out)


def _diag_view(a, offset, d1, d2):
    """The (writable) view of the ``offset`` diagonal of dims ``d1``, ``d2``, last."""
    d = xp_of(a).diagonal(a, offset, d1, d2)
    flags = getattr(d, "flags", None)
    if flags is not None and not flags.writeable and a.flags.writeable:
        d.setflags(write=True)  # NumPy hands out read-only diagonals; PyTorch's are writable
    return d


class _Diagonal(Function):
    _array_forward = True
    _node_name = "DiagonalBackward0"

    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        ctx.args = (a.shape, offset, d1, d2)
        return _diag_view(a, offset, d1, d2)

    @staticmethod
    def backward(ctx, g):
        return _DiagInto.apply(g, *ctx.args), None, None, None


class _DiagonalCopy(_Diagonal):
    _node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        return _Diagonal.forward(ctx, a, offset, d1, d2).copy()


class _DiagInto(Function):
    """Zeros of ``shape`` with ``v`` on the ``offset`` diagonal of dims ``d1``, ``d2``."""

    _array_forward = True
    _node_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx, v, shape, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        out = xp_of(v).zeros(shape, dtype=v.dtype)
        _diag_view(out, offset, d1, d2)[...] = v
        return out

    @staticmethod
    def backward(ctx, g):
        return unary(_Diagonal, g, *ctx.args), None, None, None, None


class DiagonalScatter(Function):
    _array_forward = True
    _node_name = "DiagonalScatterBackward0"

    @staticmethod
    def forward(ctx, a, src, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        out = a.copy()
        _diag_view(out, offset, d1, d2)[...] = src
        return out

    @staticmethod
    def backward(ctx, g):
        ga = gs = None
        if ctx.needs_input_grad[0]:
            ga = DiagonalScatter.apply(g, 0, *ctx.args)
        if ctx.needs_input_grad[1]:
            gs = unary(_Diagonal, g, *ctx.args)
        return ga, gs, None, None, None


def _diag_dims(n, dim1, dim2):
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset`` diagonal of dims ``dim1``, ``dim2``, as the last dim (a view).

    Example:
        >>> ember.arange(4).reshape(2, 2).diagonal()
        tensor([0, 3])
    """
    d1, d2 = _diag_dims(input._data.ndim, dim1, dim2)
    return _view_op(_Diagonal, input, operator.index(offset), d1, d2)


def diagonal_scatter(
    input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    """A copy of ``input`` with ``src`` written on its ``offset`` diagonal of ``dim1``, ``dim2``."""
    d1, d2 = _diag_dims(input._data.ndim, dim1, dim2)
    offset = operator.index(offset)
    want = xp_of(input._data).diagonal(input._data, offset, d1, d2).shape
    if tuple(src.shape) != tuple(want):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(want)}"
        )
    return DiagonalScatter.apply(input, src.to(input.dtype), offset, d1, d2)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims ``dim1``, ``dim2`` of the result) with the last dim of ``input`` on their
    ``offset`` diagonal.

    Example:
        >>> ember.diag_embed(ember.ones(2)).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    n = input._data.ndim + 1
    d1, d2 = _diag_dims(n, dim1, dim2)
    offset = operator.index(offset)
    shape = input._data.shape
    m = shape[-1] + abs(offset)
    rest = iter(shape[:-1])
    out_shape = tuple(m if i in (d1, d2) else next(rest) for i in range(n))
    return _DiagInto.apply(input, out_shape, offset, d1, d2)


def diag(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """A 1-D tensor as the ``diagonal``-th diagonal of a square matrix, or the ``diagonal``-th
    diagonal of a 2-D tensor (a copy).

    Example:
        >>> ember.diag(ember.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
    """
    n = input._data.ndim
    k = operator.index(diagonal)
    if n == 1:
        m = input._data.shape[0] + abs(k)
        result = _DiagInto.apply(input, (m, m), k, 0, 1)
    elif n == 2:
        result = unary(_DiagonalCopy, input, k, 0, 1)
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")
    return _maybe_out(result, out)


__all__ = [
    "tril",
    "triu",
    "diagonal",
    "diagonal_scatter",
    "diag_embed",
    "diag",
]

Tensor.tril = tril
Tensor.triu = triu
Tensor.diagonal = diagonal
Tensor.diagonal_scatter = diagonal_scatter
Tensor.diag_embed = diag_embed
Tensor.diag = diag
