"""The ops along one dim at a 1-D index: ``index_select``, ``index_add``, ``index_copy``,
``index_fill`` (and their in-place methods)."""

from __future__ import annotations

from ember import _autocast as _ac
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.gather_scatter import _FillAt, _int_index, _maybe_out, _number
from ember.ops.indexing import _check_bounds, _copy_and, _inplace_method
from ember.ops.pointwise import _name
from ember.ops.slicing import _FULL
from ember.tensor import Tensor, _wrap, _wrap_dim


# ---- index_select / index_add / index_copy / index_fill ---------------------------------------
def _dim_key(idx, dim: int) -> tuple:
    return (_FULL,) * dim + (idx,)


def _prep_index(input: Tensor, dim: int, index: Tensor, op: str, bounds_exc=IndexError):
    _int_index(
        index,
        op,
        "dtype int32/int64 for index"
        + ("" if op == "index_select" else f" but got: {_name(index._data.dtype)}"),
    )
    if index._data.ndim > 1:
        raise IndexError(
            f"{op}(): Index is supposed to be a vector"
            + (
                ""
                if op == "index_select"
                else f", but got dim: {index.ndim} with type: {_name(index._data.dtype)} and size: "
                f"{list(index.shape)}"
            )
        )
    n = input._data.ndim
    d = _wrap_dim(dim, n)
    size = input._data.shape[d] if n else 1
    _check_bounds(
        index._data,
        size,
        d,
        bounds_exc,
        message=None
        if op != "index_select"
        else "index_select(): index {bad} is out of bounds for dimension {dim} with size {size}",
    )
    return d


class IndexSelect(Function):
    _array_forward = True
    _node_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, a, idx, dim):
        ctx.dim, ctx.shape = dim, a.shape
        ctx.save_for_backward(idx)
        if a.ndim == 0:
            return a.reshape(1)[idx.reshape(-1)].reshape(())
        return a[_dim_key(idx.reshape(-1), dim)]

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        zeros = _wrap(xp_of(g._data).zeros(ctx.shape, dtype=g._data.dtype))
        return IndexAdd.apply(zeros, idx, g, ctx.dim, 1), None, None


def index_select(input: Tensor, dim: int, index: Tensor, *, out=None) -> Tensor:
    """The slices of ``input`` at ``index`` (1-D) along ``dim`` (a copy).

    Example:
        >>> ember.tensor([[1, 2], [3, 4]]).index_select(1, ember.tensor([1, 1]))
        tensor([[2, 2],
                [4, 4]])
    """
    # NOTE: matches torch: an index out of range is an IndexError here (index_add_'s is a
    # RuntimeError)
    d = _prep_index(input, dim, index, "index_select")
    if input._data.ndim == 0 and index.numel() != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)"
        )
    return _maybe_out(IndexSelect.apply(input, index, d), out)


def _source_checks(input, index, source, d, op):
    s, a = source._data.shape, input._data.shape
    if source._data.dtype != input._data.dtype:
        if op == "index_add_":
            raise RuntimeError(
                f"index_add_(): self ({_name(input._data.dtype)}) and source "
                f"({_name(source._data.dtype)}) must have the same scalar type"
            )
        raise RuntimeError(
            f"{op}(): self and source expected to have the same dtype, but got "
            f"(self) {_name(input._data.dtype)} and (source) "
            f"{_name(source._data.dtype)}"
        )
    sn = s if s else (1,)
    an = a if a else (1,)
    if len(sn) != len(an) or any(
        x != y for k, (x, y) in enumerate(zip(sn, an, strict=True)) if k != d
    ):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(a)} source.shape = {list(s)}"
        )
    if index.numel() != sn[d]:
        raise RuntimeError(
            f"{op}(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({sn[d]}), for dim: {d}"
        )


class IndexAdd(Function):
    _array_forward = True
    _node_name = "IndexAddBackward0"

    @staticmethod
    def _mutate(out, idx, src, dim, alpha):
        if out.ndim == 0:
            out = out.reshape(1)
        src = src.reshape(out.shape[:dim] + (idx.size,) + out.shape[dim + 1 :])
        xp_of(out).add_at(out, _dim_key(idx.reshape(-1), dim), src if alpha == 1 else src * alpha)

    @staticmethod
    def forward(ctx, a, idx, src, dim, alpha):
        ctx.dim, ctx.alpha, ctx.src_shape = dim, alpha, src.shape
        ctx.save_for_backward(idx)
        return _copy_and(IndexAdd._mutate, a, idx, src, dim, alpha)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        gs = None
        if ctx.needs_input_grad[2]:
            gs = index_select(g.reshape(-1) if g.ndim == 0 else g, ctx.dim, idx)
            gs = (gs if ctx.alpha == 1 else gs * ctx.alpha).reshape(ctx.src_shape)
        return g, None, gs, None, None


def _prep_index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1):
    d = _prep_index(input, dim, index, "index_add_", RuntimeError)
    _source_checks(input, index, source, d, "index_add_")
    return IndexAdd, (input, index, source, d, alpha)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """A copy of ``input`` with ``alpha * source`` added at ``index`` along ``dim`` (repeated
    indices accumulate).

    Example:
        >>> ember.zeros(3).index_add(0, ember.tensor([0, 0]), ember.ones(2))
        tensor([2., 0., 0.])
    """
    cls, args = _prep_index_add(input, dim, index, source, alpha=alpha)
    return cls.apply(*args)


class IndexCopy(Function):
    _array_forward = True
    _node_name = "IndexCopyBackward0"

    @staticmethod
    def _mutate(out, idx, src, dim):
        if out.ndim == 0:
            out = out.reshape(1)
        out[_dim_key(idx.reshape(-1), dim)] = src.reshape(
            out.shape[:dim] + (idx.size,) + out.shape[dim + 1 :]
        )

    @staticmethod
    def forward(ctx, a, idx, src, dim):
        ctx.dim, ctx.src_shape = dim, src.shape
        ctx.save_for_backward(idx)
        return _copy_and(IndexCopy._mutate, a, idx, src, dim)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_a, _, need_s = ctx.needs_input_grad[:3]
        g1 = g.reshape(-1) if g.ndim == 0 else g
        ga = IndexFill.apply(g, idx, 0, ctx.dim) if need_a else None
        gs = index_select(g1, ctx.dim, idx).reshape(ctx.src_shape) if need_s else None
        return ga, None, gs, None


def _prep_index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor):
    d = _prep_index(input, dim, index, "index_copy_")
    _source_checks(input, index, source, d, "index_copy_")
    return IndexCopy, (input, index, source, d)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with the slices of ``source`` written at ``index`` along ``dim``.

    Example:
        >>> ember.zeros(3).index_copy(0, ember.tensor([2]), ember.ones(1))
        tensor([0., 0., 1.])
    """
    if _ac.on and _ac.enabled():  # autocast's promote list
        return _ac.call_promote(index_copy, input, dim, index, source)
    cls, args = _prep_index_copy(input, dim, index, source)
    return cls.apply(*args)


class IndexFill(_FillAt):
    _array_forward = True
    _node_name = "IndexFillBackward0"

    @staticmethod
    def _mutate(out, idx, value, dim):
        if out.ndim == 0:
            out = out.reshape(1)
        out[_dim_key(idx.reshape(-1), dim)] = value


class IndexFillTensor(IndexFill):
    _node_name = "IndexFillBackward1"

    @staticmethod
    def forward(ctx, a, idx, value, dim):
        ctx.dim = dim
        ctx.save_for_backward(idx)
        return _copy_and(IndexFill._mutate, a, idx, value.astype(a.dtype), dim)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_a, _, need_v = ctx.needs_input_grad[:3]
        ga = IndexFill.apply(g, idx, 0, ctx.dim) if need_a else None
        gv = None
        if need_v:  # every filled element once, however often its index repeats
            u = _wrap(xp_of(idx._data).unique(idx._data.reshape(-1)))
            gv = index_select(g.reshape(-1) if g.ndim == 0 else g, ctx.dim, u).sum()
        return ga, None, gv, None


def _prep_index_fill(input: Tensor, dim: int, index: Tensor, value):
    d = _prep_index(input, dim, index, "index_fill_")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"index_fill_ only supports a 0-dimensional value tensor, but got "
                f"tensor with {value.ndim} dimension(s)."
            )
        return IndexFillTensor, (input, index, value, d)
    return IndexFill, (input, index, _number(value, "value"), d)


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """A copy of ``input`` with the slices at ``index`` along ``dim`` set to ``value``.

    Example:
        >>> ember.zeros(3).index_fill(0, ember.tensor([1]), 7.0)
        tensor([0., 7., 0.])
    """
    cls, args = _prep_index_fill(input, dim, index, value)
    return cls.apply(*args)


__all__ = ["index_select", "index_add", "index_copy", "index_fill"]

Tensor.index_select = index_select
Tensor.index_add = index_add
Tensor.index_add_ = _inplace_method(_prep_index_add, "index_add")
Tensor.index_copy = index_copy
Tensor.index_copy_ = _inplace_method(_prep_index_copy, "index_copy")
Tensor.index_fill = index_fill
Tensor.index_fill_ = _inplace_method(_prep_index_fill, "index_fill")
