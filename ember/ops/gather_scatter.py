"""Gather and scatter by an index tensor: along a dim (``gather``, ``scatter``, ``scatter_add``,
``take_along_dim``) and on the flattened tensor (``take``, ``put``), with the helpers the other
index ops share (``_int_index``, ``_maybe_out``, ``_number``, ``_FillAt``, ``_pad_to``)."""

from __future__ import annotations

import warnings

from ember import backend
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.indexing import _check_bounds, _copy_and, _IndexInto, _inplace_method, _Key
from ember.ops.pointwise import _name
from ember.ops.slicing import _ViewScatter
from ember.tensor import Tensor, _wrap, _wrap_dim


# ---- gather / scatter -------------------------------------------------------------------------
def _grid(xp, idx, dim: int) -> tuple:
    """The advanced key that sends element ``p`` of ``idx`` to ``p`` with ``p[dim] = idx[p]``."""
    n = idx.ndim
    key = []
    for d in range(n):
        if d == dim:
            key.append(idx)
        else:
            sh = [1] * n
            sh[d] = idx.shape[d]
            key.append(xp.arange(idx.shape[d]).reshape(sh))
    return tuple(key)


def _at_least_1d(out, idx, src):
    """Scatter into a 0-d ``out`` (or with a 0-d index) as into 1-element 1-D ones."""
    if out.ndim == 0:
        out = out.reshape(1)
    if idx.ndim == 0:
        idx = idx.reshape(1)
    if backend.is_array(src) and src.ndim == 0:
        src = src.reshape(1)
    return out, idx, src


def _part(src, shape):
    """The leading ``shape`` block of ``src`` (scatter reads only that much of it)."""
    if tuple(src.shape) == tuple(shape):
        return src
    return src[tuple(slice(0, s) for s in shape)]


def _pad_to(g: Tensor, shape) -> Tensor:
    """``g`` in the leading block of zeros of ``shape`` (the gradient of ``_part``)."""
    if tuple(g.shape) == tuple(shape):
        return g
    key = tuple(slice(0, s) for s in g.shape) + (Ellipsis,)
    return _ViewScatter.apply(g, key, tuple(shape))


class Gather(Function):
    _array_forward = True
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, idx, dim):
        ctx.dim, ctx.shape = dim, a.shape
        ctx.save_for_backward(idx)
        if a.ndim == 0 or idx.ndim == 0:  # as 1-element 1-D tensors
            return a.reshape(-1)[_grid(xp_of(a), idx.reshape(-1), 0)].reshape(idx.shape)
        return a[_grid(xp_of(a), idx, dim)]

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        zeros = _wrap(xp_of(g._data).zeros(ctx.shape, dtype=g._data.dtype))
        return ScatterAdd.apply(zeros, idx, g, ctx.dim), None, None


class Scatter(Function):
    _array_forward = True
    _node_name = "ScatterBackward0"

    @staticmethod
    def _mutate(out, idx, src, dim):
        out, idx, src = _at_least_1d(out, idx, src)
        out[_grid(xp_of(out), idx, dim)] = _part(src, idx.shape)

    @staticmethod
    def forward(ctx, a, idx, src, dim):
        ctx.dim, ctx.src_shape = dim, src.shape
        ctx.save_for_backward(idx)
        return _copy_and(Scatter._mutate, a, idx, src, dim)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_a, _, need_s = ctx.needs_input_grad[:3]
        ga = ScatterValue.apply(g, idx, 0, ctx.dim) if need_a else None
        gs = _pad_to(gather(g, ctx.dim, idx), ctx.src_shape) if need_s else None
        return ga, None, gs, None


class _FillAt(Function):
    """Fill with a number the positions ``_mutate`` selects; the gradient of the input is the
    incoming gradient with those positions filled with 0 (one body for scatter and index_fill)."""

    _array_forward = True

    @classmethod
    def forward(cls, ctx, a, idx, value, dim):
        ctx.dim = dim
        ctx.save_for_backward(idx)
        return _copy_and(cls._mutate, a, idx, value, dim)

    @classmethod
    def backward(cls, ctx, g):
        (idx,) = ctx.saved_tensors
        return cls.apply(g, idx, 0, ctx.dim), None, None, None


class ScatterValue(_FillAt):
    _array_forward = True
    _node_name = "ScatterBackward1"

    @staticmethod
    def _mutate(out, idx, value, dim):
        out, idx, _ = _at_least_1d(out, idx, None)
        out[_grid(xp_of(out), idx, dim)] = value


class ScatterAdd(Function):
    _array_forward = True
    _node_name = "ScatterAddBackward0"

    @staticmethod
    def _mutate(out, idx, src, dim):
        out, idx, src = _at_least_1d(out, idx, src)
        xp_of(out).add_at(out, _grid(xp_of(out), idx, dim), _part(src, idx.shape))

    @staticmethod
    def forward(ctx, a, idx, src, dim):
        ctx.dim, ctx.src_shape = dim, src.shape
        ctx.save_for_backward(idx)
        return _copy_and(ScatterAdd._mutate, a, idx, src, dim)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_s = ctx.needs_input_grad[2]
        gs = _pad_to(gather(g, ctx.dim, idx), ctx.src_shape) if need_s else None
        return g, None, gs, None


class _ScatterReduce(Function):
    """``scatter(..., reduce="add" | "multiply")``: no derivative, as in PyTorch."""

    _array_forward = True
    _node_name = "NotImplemented"

    @staticmethod
    def _mutate(out, idx, src, dim, reduce):
        out, idx, src = _at_least_1d(out, idx, src)
        xp = xp_of(out)
        key = _grid(xp, idx, dim)
        src = _part(src, idx.shape) if backend.is_array(src) else src
        if reduce == "add":
            xp.add_at(out, key, src)
        else:
            xp.multiply.at(out, key, src)

    @staticmethod
    def forward(ctx, a, idx, src, dim, reduce):
        return _copy_and(_ScatterReduce._mutate, a, idx, src, dim, reduce)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::scatter is not implemented")


def _int_index(index, op: str, what: str = "dtype int32/int64 for index"):
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._data.dtype.kind not in "iu" or index._data.dtype.itemsize < 4:
        raise RuntimeError(f"{op}(): Expected {what}")
    return index


def _prep_gather(input: Tensor, dim: int, index: Tensor):
    _int_index(index, "gather")
    a, i = input._data, index._data
    n = max(a.ndim, 1)
    if max(i.ndim, 1) != n:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    d = _wrap_dim(dim, a.ndim)
    ashape = a.shape or (1,)
    ishape = i.shape or (1,)
    for k in range(n):
        if k != d and ishape[k] > ashape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(i.shape)} to be no "
                f"larger than self {list(a.shape)} apart from dimension {d}"
            )
    _check_bounds(i, ashape[d], d)
    return d


def gather(
    input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out=None
) -> Tensor:
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on): values along ``dim`` at
    ``index``; the result has ``index``'s shape.

    Example:
        >>> ember.tensor([[1, 2], [3, 4]]).gather(1, ember.tensor([[1], [0]]))
        tensor([[2],
                [3]])
    """
    d = _prep_gather(input, dim, index)
    return _maybe_out(Gather.apply(input, index, d), out)


def _maybe_out(result: Tensor, out) -> Tensor:
    if out is None:
        return result
    from ember.ops.pointwise import _out

    return _out(result, out)


def _prep_scatter(
    input: Tensor, dim: int, index: Tensor, src=None, value=None, *, reduce=None, op="scatter"
):
    if src is not None and value is not None:
        raise TypeError(f"{op}() got both 'src' and 'value'")
    if src is None:
        src = value
    if src is None:
        raise TypeError(f"{op}() missing 1 required positional argument: 'src' or 'value'")
    _int_index(index, op)
    a, i = input._data, index._data
    if i.ndim != a.ndim and not (a.ndim <= 1 and i.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    d = _wrap_dim(dim, a.ndim)
    is_tensor = isinstance(src, Tensor)
    if is_tensor:
        if src._data.dtype != a.dtype:
            raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype")
        if src._data.ndim != i.ndim and not (src._data.ndim <= 1 and i.ndim <= 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    ashape, ishape = a.shape or (1,), i.shape or (1,)
    sshape = (src._data.shape or (1,)) if is_tensor else None
    for k in range(len(ishape)):
        if k != d and ishape[k] > ashape[k] or is_tensor and ishape[k] > sshape[k]:
            extra = f" and to be no larger size than src {list(src.shape)}" if is_tensor else ""
            raise RuntimeError(
                f"Expected index {list(i.shape)} to be no larger than self {list(a.shape)} apart "
                f"from dimension {d}{extra}"
            )
    _check_bounds(i, ashape[d], d)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if is_tensor:
            warnings.warn(
                "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
                "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
                "reduction options.",
                UserWarning,
                stacklevel=4,
            )
        return _ScatterReduce, (input, index, src, d, reduce)
    if op == "scatter_add":
        return ScatterAdd, (input, index, src, d)
    if is_tensor:
        return Scatter, (input, index, src, d)
    return ScatterValue, (input, index, _number(src, "value"), d)


def _number(v, what: str):
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, backend.generic):
        return v.item()
    raise TypeError(f"{what} must be a number or a Tensor, got {type(v).__name__}")


def scatter(input: Tensor, dim: int, index: Tensor, src=None, value=None, *, reduce=None) -> Tensor:
    """A copy of ``input`` with ``src`` (a tensor, or a number ``value``) written at ``index``
    along ``dim``: ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``.

    Example:
        >>> ember.zeros(3).scatter(0, ember.tensor([2]), 5.0)
        tensor([0., 0., 5.])
    """
    cls, args = _prep_scatter(input, dim, index, src, value, reduce=reduce)
    return cls.apply(*args)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` added at ``index`` along ``dim`` (repeats accumulate).

    Example:
        >>> ember.zeros(2).scatter_add(0, ember.tensor([1, 1]), ember.ones(2))
        tensor([0., 2.])
    """
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' must be Tensor, not {type(src).__name__}")
    cls, args = _prep_scatter(input, dim, index, src, op="scatter_add")
    return cls.apply(*args)


def _prep_scatter_add_m(self, dim, index, src):
    return _prep_scatter(self, dim, index, src, op="scatter_add")


def take_along_dim(input: Tensor, indices: Tensor, dim=None, *, out=None) -> Tensor:
    """Values of ``input`` at ``indices`` along ``dim`` (the flattened input when ``dim`` is
    None); ``input`` and ``indices`` broadcast except along ``dim``.

    Example:
        >>> x = ember.tensor([[10, 30, 20]])
        >>> ember.take_along_dim(x, x.argsort(1), 1)
        tensor([[10, 20, 30]])
    """
    if dim is None:
        return _maybe_out(gather(input.reshape(-1), 0, indices.reshape(-1)), out)
    if input.ndim != indices.ndim:
        raise RuntimeError(
            f"torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    d = _wrap_dim(dim, input.ndim)
    from ember.ops.broadcast import _broadcast_pair

    a, i = list(input.shape), list(indices.shape)
    a[d] = i[d] = 1
    shape = list(_broadcast_pair(tuple(a), tuple(i)))
    ia, ii = list(shape), list(shape)
    ia[d], ii[d] = input.shape[d], indices.shape[d]
    return _maybe_out(gather(input.expand(ia), d, indices.expand(ii)), out)


# ---- take / put -------------------------------------------------------------------------------
def _take_bounds(idx, numel: int) -> None:
    _check_bounds(
        idx,
        numel,
        0,
        IndexError,
        negative=True,
        message="out of range: tried to access index {bad} on a tensor of {size} elements.",
    )


class Take(Function):
    _array_forward = True
    _node_name = "TakeBackward0"

    @staticmethod
    def forward(ctx, a, idx):
        ctx.shape = a.shape
        ctx.save_for_backward(idx)
        return a.reshape(-1)[idx]

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        numel = 1
        for s in ctx.shape:
            numel *= s
        flat = _IndexInto.apply(g, _Key(None, (idx._data,)), (numel,), True)
        return flat.reshape(ctx.shape), None


def take(input: Tensor, index: Tensor) -> Tensor:
    """Elements of the flattened ``input`` at ``index`` (negative counts from the end); the
    result has ``index``'s shape.

    Example:
        >>> ember.tensor([[1, 2], [3, 4]]).take(ember.tensor([0, -1]))
        tensor([1, 4])
    """
    _int_index(index, "take", "dtype int64 for index")
    _take_bounds(index._data, input.numel())
    return Take.apply(input, index)


class Put(Function):
    _array_forward = True
    _node_name = "PutBackward0"

    @staticmethod
    def _mutate(out, idx, src, accumulate):
        flat = out.reshape(-1)
        v = src.reshape(-1) if backend.is_array(src) else src
        _Key(None, (idx.reshape(-1),)).put(flat, v, accumulate)
        if not xp_of(out).is_contiguous(out):  # reshape had to copy: write back
            out[...] = flat.reshape(out.shape)

    @staticmethod
    def forward(ctx, a, idx, src, accumulate):
        ctx.acc = accumulate
        ctx.src_shape = src.shape if backend.is_array(src) else None
        ctx.save_for_backward(idx)
        return _copy_and(Put._mutate, a, idx, src, accumulate)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_a, _, need_s = ctx.needs_input_grad[:3]
        ga = gs = None
        if need_a:
            ga = g if ctx.acc else Put.apply(g, idx, 0, False)
        if need_s:
            gs = take(g, idx).reshape(ctx.src_shape)
        return ga, None, gs, None


def _prep_put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False):
    _int_index(index, "put_", "dtype int64 for index")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got "
            f"self.dtype = {_name(input._data.dtype)} and source.dtype = "
            f"{_name(source._data.dtype)}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            f"put_(): Expected source and index to have the same number of "
            f"elements, but got source.numel() = {source.numel()}, index.numel() = "
            f"{index.numel()}"
        )
    _take_bounds(index._data, input.numel())
    return Put, (input, index, source, bool(accumulate))


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source`` written (or added, with ``accumulate``) at the flat
    positions ``index``.

    Example:
        >>> ember.zeros(2, 2).put(ember.tensor([3]), ember.ones(1))
        tensor([[0., 0.],
                [0., 1.]])
    """
    cls, args = _prep_put(input, index, source, accumulate)
    return cls.apply(*args)


__all__ = ["gather", "scatter", "scatter_add", "take_along_dim", "take", "put"]

Tensor.gather = gather
Tensor.scatter = scatter
Tensor.scatter_ = _inplace_method(_prep_scatter, "scatter")
Tensor.scatter_add = scatter_add
Tensor.scatter_add_ = _inplace_method(_prep_scatter_add_m, "scatter_add")
Tensor.take_along_dim = take_along_dim
Tensor.take = take
Tensor.put = put
Tensor.put_ = _inplace_method(_prep_put, "put")
