"""Reducing scatters: ``scatter_reduce`` (along ``dim`` by an index tensor of the source's
shape) and ``index_reduce`` (whole slices by a 1-D index), with ``sum``, ``prod``, ``mean``,
``amax`` and ``amin``, ``include_self``, their in-place forms and PyTorch's gradients.

Forward is one ``ufunc.at`` over flat positions into a copy of the input (NumPy >= 1.25 runs
``add.at``/``maximum.at`` at ``bincount`` speed); ``index_reduce`` is ``scatter_reduce`` with
the index broadcast over the source. Backward is written in Tensor ops, so it differentiates
again (``prod`` with two or more zeros in one group excepted, as in PyTorch).
"""

from __future__ import annotations

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.gather_scatter import ScatterAdd, ScatterValue, _int_index, _prep_scatter, gather
from ember.ops.pointwise import _name, _out, inplace
from ember.ops.ternary import where
from ember.tensor import Tensor, _wrap, _wrap_dim

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _flat_positions(xp, idx, dim: int, out_shape):
    """Flat positions into a C-contiguous array of ``out_shape`` of the elements that index
    ``idx`` sends along ``dim`` (every other coordinate is the element's own)."""
    strides = [1] * len(out_shape)
    for d in range(len(out_shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * out_shape[d + 1]
    if idx.ndim == 1:
        return idx if strides[dim] == 1 else idx * strides[dim]  # no copy: ufunc.at reads it
    pos = idx * strides[dim] if strides[dim] != 1 else idx
    for d in range(idx.ndim):
        if d != dim and idx.shape[d] > 1:
            sh = [1] * idx.ndim
            sh[d] = idx.shape[d]
            pos = pos + (xp.arange(idx.shape[d]) * strides[d]).reshape(sh)
    return pos


def _inexact(npd) -> bool:
    """Floating or complex, ml_dtypes' bfloat16 and float8 (NumPy kind "V") included."""
    return npd.kind in "fc" or _dtype.from_np(npd).is_floating_point


def _identity(xp, reduce: str, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if _inexact(dtype):
        return -xp.inf if reduce == "amax" else xp.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _reduce_into(a, idx, src, dim: int, reduce: str, include_self: bool):
    """A copy of ``a`` with ``src[p]`` reduced into position ``p`` with ``p[dim] = idx[p]``."""
    xp = xp_of(a)
    out = a.reshape(1).copy() if a.ndim == 0 else xp.ascontiguousarray(a).copy()
    if idx.ndim == 0:
        idx = idx.reshape(1)
    if src.ndim == 0:
        src = src.reshape(1)
    if xp.device_type == "meta":
        return out.reshape(a.shape)
    if tuple(src.shape) != tuple(idx.shape):  # only the leading block of src is read
        src = src[tuple(slice(0, s) for s in idx.shape)]
    pos = _flat_positions(xp, idx, dim, out.shape).reshape(-1)
    src = src.reshape(-1)
    flat = out.reshape(-1)
    if not include_self:
        flat[pos] = _identity(xp, reduce, out.dtype)
    if reduce in ("sum", "mean"):
        if out.dtype.kind == "b":
            xp.logical_or.at(flat, pos, src)
        else:
            xp.add.at(flat, pos, src)
        if reduce == "mean":
            count = xp.bincount(pos, minlength=flat.size)
            if include_self:
                count += 1
            count = xp.maximum(count, 1)
            if _inexact(out.dtype):
                flat /= count.astype(out.dtype)
            else:
                # NOTE: matches torch: an integer mean rounds toward minus infinity
                flat //= count.astype(out.dtype)
    elif reduce == "prod":
        xp.logical_and.at(flat, pos, src) if out.dtype.kind == "b" else xp.multiply.at(
            flat, pos, src
        )
    elif reduce == "amax":
        xp.maximum.at(flat, pos, src)
    else:
        xp.minimum.at(flat, pos, src)
    return out.reshape(a.shape)


class ScatterReduce(Function):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, a, idx, src, dim, reduce, include_self):
        out = _reduce_into(a, idx, src, dim, reduce, include_self)
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        ctx.src_shape = src.shape
        ctx.save_for_backward(a, idx, src, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, idx, src, out = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        if idx.ndim == 0 or a.ndim == 0:  # as 1-element 1-D tensors
            shapes = (a.shape, src.shape)
            a, idx, src, out, g = (t.reshape(-1) for t in (a, idx, src, out, g))
        else:
            shapes = None
        src = _lead(src, idx.shape)
        gs = None
        if reduce == "sum":
            ga = g
            gs = gather(g, dim, idx)
        elif reduce == "mean":
            n = _wrap(xp_of(g._data).full(g.shape, 1 if include_self else 0, g._data.dtype))
            n = ScatterAdd.apply(n, idx, _ones_like(src), dim)
            n = where(n == 0, 1, n)
            ga = g / n
            gs = gather(ga, dim, idx)
        elif reduce == "prod":
            ga, gs = _prod_grads(a, idx, src, out, g, dim, include_self)
        else:
            # NOTE: matches torch: the gradient is shared evenly among tied extrema
            value = gather(out, dim, idx)
            a_hit = (a == out).to(g.dtype)
            s_hit = (src == value).to(g.dtype)
            # NOTE: matches torch: with include_self=False a self value equal to the result
            # still counts as a tie (it takes a share, then its gradient is zeroed below)
            count = ScatterAdd.apply(a_hit, idx, s_hit, dim)
            share = g / count
            ga = a_hit * share
            gs = s_hit * gather(share, dim, idx)
        if not include_self:
            ga = ScatterValue.apply(ga, idx, 0, dim)
        gs = _pad(gs, ctx.src_shape if shapes is None else (shapes[1] or (1,)))
        if shapes is not None:
            ga, gs = ga.reshape(shapes[0]), gs.reshape(shapes[1])
        return ga, None, gs, None, None, None


def _lead(t: Tensor, shape) -> Tensor:
    if tuple(t.shape) == tuple(shape):
        return t
    return t[tuple(slice(0, s) for s in shape)]


def _pad(g: Tensor, shape) -> Tensor:
    from ember.ops.gather_scatter import _pad_to

    return _pad_to(g, shape)


def _ones_like(t: Tensor) -> Tensor:
    return _wrap(xp_of(t._data).ones(t.shape, dtype=t._data.dtype))


def _prod_grads(a, idx, src, out, g, dim, include_self):
    """Gradients of a scatter product that stay exact with zeros: each factor's gradient is
    the product of the others, recomputed with that factor set to 1 where it is 0."""
    a_safe = where(a == 0, 1, a)
    ga = g * ScatterReduce.apply(a_safe, idx, src, dim, "prod", include_self) / a_safe
    s_zero = src == 0
    zeros_in = _wrap(xp_of(a._data).zeros(a.shape, dtype=g._data.dtype))
    n_zero = gather(ScatterAdd.apply(zeros_in, idx, s_zero.to(g.dtype), dim), dim, idx)
    lone = s_zero & (n_zero == 1)
    # a lone zero's gradient is the product of the rest of its group
    rest = ScatterReduce.apply(a, idx, where(lone, 1, src), dim, "prod", include_self)
    gs = where(lone, gather(g * rest, dim, idx), gather(g * out, dim, idx) / where(s_zero, 1, src))
    return ga, gs


def _check_reduce(reduce, op: str) -> None:
    if reduce not in _REDUCES:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )


def _prep_scatter_reduce(
    input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self=True
):
    _check_reduce(reduce, "scatter_reduce")
    if not isinstance(src, Tensor):
        raise TypeError(
            f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not "
            f"{type(src).__name__}"
        )
    _, args = _prep_scatter(input, dim, index, src, op="scatter")
    return ScatterReduce, (input, index, src, args[3], reduce, bool(include_self))


def scatter_reduce(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
    out=None,
) -> Tensor:
    """A copy of ``input`` with each ``src[p]`` reduced into ``out[p with p[dim] = index[p]]``
    by ``reduce`` (``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``);
    ``include_self=False`` leaves ``input``'s own values out of the positions written to.

    Example:
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.scatter_reduce(0, ember.tensor([0, 0, 2]), ember.tensor([5.0, 7.0, 1.0]), "amax")
        tensor([7., 2., 3.])
    """
    cls, args = _prep_scatter_reduce(input, dim, index, src, reduce, include_self=include_self)
    return _out(cls.apply(*args), out)


def _prep_index_reduce(
    input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self=True
):
    op = "index_reduce_"
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    if isinstance(index, Tensor):
        _int_index(index, op, f"dtype int32/int64 for index but got: {_name(index._data.dtype)}")
    else:
        _int_index(index, op)
    if not isinstance(source, Tensor):
        raise TypeError(
            f"index_reduce(): argument 'source' (position 3) must be Tensor, not "
            f"{type(source).__name__}"
        )
    a, i, s = input._data, index._data, source._data
    d = _wrap_dim(dim, a.ndim)
    if i.ndim > 1:
        raise IndexError(
            f"{op}(): Index is supposed to be a vector, but got dim: {i.ndim} with type: "
            f"{_name(i.dtype)} and size: {list(i.shape)}"
        )
    if s.dtype != a.dtype:
        raise RuntimeError(
            f"{op}(): self ({_name(a.dtype)}) and source ({_name(s.dtype)}) "
            "must have the same scalar type"
        )
    n = i.size
    s_len = s.shape[d] if s.ndim else 1
    if n != s_len:
        raise RuntimeError(
            f"{op}(): Number of indices ({n}) should be equal to source.size(dim): ({s_len}), "
            f"for dim: {d}"
        )
    want = tuple(a.shape[k] if k != d else n for k in range(a.ndim))
    if s.ndim != a.ndim or (a.ndim and tuple(s.shape) != want):
        raise RuntimeError(
            f"{op}(): Source/destination tensor must have same slice shapes. Destination "
            f"slice shape: {list(a.shape[:d] + a.shape[d + 1 :])} at dimension {d} and source "
            f"slice shape: {list(s.shape[:d] + s.shape[d + 1 :])} at dimension {d}."
        )
    xp = xp_of(i)
    if xp.device_type != "meta" and n and (i.min() < 0 or i.max() >= (a.shape[d] if a.ndim else 1)):
        raise IndexError("index out of range in self")
    full = i.reshape(-1)
    if a.ndim > 1:
        sh = [1] * a.ndim
        sh[d] = n
        full = xp.ascontiguousarray(xp.broadcast_to(full.reshape(sh), s.shape))
    return ScatterReduce, (input, _wrap(full), source, d, reduce, bool(include_self))


def index_reduce(
    input: Tensor,
    dim: int,
    index: Tensor,
    source: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
    out=None,
) -> Tensor:
    """A copy of ``input`` with slice ``source[i]`` (along ``dim``) reduced into slice
    ``index[i]`` by ``reduce`` (``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``).

    Example:
        >>> x = ember.ones(3, 2)
        >>> x.index_reduce(0, ember.tensor([0, 0]), ember.tensor([[2.0, 3.0], [4.0, 5.0]]), "prod")
        tensor([[ 8., 15.],
                [ 1.,  1.],
                [ 1.,  1.]])
    """
    cls, args = _prep_index_reduce(input, dim, index, source, reduce, include_self=include_self)
    return _out(cls.apply(*args), out)


def _scatter_reduce_m(self, dim, index, src, reduce, *, include_self=True):
    return scatter_reduce(self, dim, index, src, reduce, include_self=include_self)


def _index_reduce_m(self, dim, index, source, reduce, *, include_self=True):
    return index_reduce(self, dim, index, source, reduce, include_self=include_self)


_scatter_reduce_m.__name__ = "scatter_reduce"
_index_reduce_m.__name__ = "index_reduce"

__all__ = ["scatter_reduce", "index_reduce"]

Tensor.scatter_reduce = scatter_reduce
Tensor.scatter_reduce_ = inplace(_scatter_reduce_m)
Tensor.index_reduce = _index_reduce_m
Tensor.index_reduce_ = inplace(_index_reduce_m)
