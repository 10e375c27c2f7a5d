"""Boolean masks: ``masked_select`` and ``masked_scatter`` (and ``masked_scatter_``)."""

from __future__ import annotations

from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.ops.gather_scatter import _maybe_out, _pad_to
from ember.ops.indexing import _Index, _IndexInto, _IndexPut, _inplace_method, _Key
from ember.ops.pointwise import _name
from ember.tensor import Tensor


# ---- masks ------------------------------------------------------------------------------------
def _bool_mask(mask, op: str, msg: str | None = None):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{op}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype.kind != "b":
        raise RuntimeError(msg or f"{op}: expected BoolTensor for mask")
    return mask


def _data_dependent(op: str, arr) -> None:
    if xp_of(arr).device_type == "meta":
        raise NotImplementedError(
            f"{op} on a meta tensor: the result shape depends on the data, "
            "which a meta tensor does not have"
        )


class MaskedSelect(Function):
    _array_forward = True
    _node_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, a, m, shape):
        xp = xp_of(a)
        ctx.shape = shape
        ctx.save_for_backward(m)
        mb = xp.broadcast_to(m, shape)
        return xp.broadcast_to(a, shape)[mb]

    @staticmethod
    def backward(ctx, g):
        (m,) = ctx.saved_tensors
        key = _Key(None, (xp_of(m._data).broadcast_to(m._data, ctx.shape),))
        return _IndexInto.apply(g, key, ctx.shape, False), None, None


def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """The elements of ``input`` where ``mask`` is True, as a 1-D tensor (they broadcast).

    Example:
        >>> ember.tensor([1, 2, 3]).masked_select(ember.tensor([True, False, True]))
        tensor([1, 3])
    """
    _bool_mask(mask, "masked_select")
    _data_dependent("masked_select", input._data)
    _data_dependent("masked_select", mask._data)
    from ember.ops.broadcast import _broadcast_pair

    shape = _broadcast_pair(input._data.shape, mask._data.shape)
    return _maybe_out(MaskedSelect.apply(input, mask, shape), out)


class MaskedScatter(Function):
    _array_forward = True
    _node_name = "MaskedScatterBackward0"

    @staticmethod
    def _mutate(out, m, src):
        xp = xp_of(out)
        if xp.device_type == "meta":
            return
        mb = xp.broadcast_to(m, out.shape)
        n = int(xp.count_nonzero(mb))
        if src.size < n:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        out[mb] = src.reshape(-1)[:n]

    @staticmethod
    def forward(ctx, a, m, src, shape):
        xp = xp_of(a)
        ctx.shape, ctx.src_shape = shape, src.shape
        ctx.save_for_backward(m)
        out = xp.broadcast_to(a, shape).copy()
        MaskedScatter._mutate(out, m, src)
        return out

    @staticmethod
    def backward(ctx, g):
        (m,) = ctx.saved_tensors
        need_a, _, need_s = ctx.needs_input_grad[:3]
        key = _Key(None, (xp_of(m._data).broadcast_to(m._data, ctx.shape),))
        ga = _IndexPut.apply(g, 0, key, False) if need_a else None
        gs = None
        if need_s:
            vals = unary(_Index, g, key)
            numel = 1
            for s in ctx.src_shape:
                numel *= s
            gs = _pad_to(vals, (numel,)).reshape(ctx.src_shape)
        return ga, None, gs, None


def _prep_masked_scatter(input: Tensor, mask: Tensor, source: Tensor, inplace_: bool = False):
    _bool_mask(
        mask,
        "masked_scatter_",
        "masked_scatter_ only supports boolean masks, but got "
        f"mask with dtype {_name(mask._data.dtype) if isinstance(mask, Tensor) else ''}",
    )
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but "
            f"got {_name(input._data.dtype)} and {_name(source._data.dtype)}"
        )
    from ember.ops.broadcast import _broadcast_pair

    if inplace_:
        shape = input._data.shape
        if _broadcast_pair(shape, mask._data.shape) != shape:
            raise RuntimeError(
                f"masked_scatter_: the mask of shape {list(mask.shape)} does not "
                f"broadcast to self of shape {list(shape)}"
            )
    else:
        shape = _broadcast_pair(input._data.shape, mask._data.shape)
    return MaskedScatter, (input, mask, source, shape)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with the True positions of ``mask`` filled, in order, from the first
    elements of ``source``.

    Example:
        >>> ember.zeros(3).masked_scatter(ember.tensor([True, False, True]), ember.ones(2) * 5)
        tensor([5., 0., 5.])
    """
    cls, args = _prep_masked_scatter(input, mask, source)
    return cls.apply(*args)


def _prep_masked_scatter_m(self, mask, source):
    cls, (a, m, s, shape) = _prep_masked_scatter(self, mask, source, True)
    return _MaskedScatterSelf, (a, m, s)


class _MaskedScatterSelf(MaskedScatter):
    """``masked_scatter`` with the output of ``self``'s shape (the in-place form)."""

    _node_name = "MaskedScatterBackward0"

    @staticmethod
    def forward(ctx, a, m, src):
        return MaskedScatter.forward(ctx, a, m, src, a.shape)

    @staticmethod
    def backward(ctx, g):
        return MaskedScatter.backward(ctx, g)[:3]


__all__ = ["masked_select", "masked_scatter"]

Tensor.masked_select = masked_select
Tensor.masked_scatter = masked_scatter
Tensor.masked_scatter_ = _inplace_method(_prep_masked_scatter_m, "masked_scatter")
