"""The machinery every selection shares (``extrema.py``, ``sorting.py``, ``cumulative.py``):
PyTorch's named-tuple return types, the gather/scatter pair along an axis, and ``_Selection``.

A selection (max/min with ``dim``, sort, topk, kthvalue, median, mode, cummax/cummin) picks
indices along one axis in forward; the values are the input at those indices, and backward
scatters the gradient back to them (``_Scatter``, whose backward is a gather, ``_Gather``, and
back: so every order of derivative works).
"""

from __future__ import annotations

from collections import namedtuple

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of

_I64 = _dtype.int64._np


# ---- return types (PyTorch's torch.return_types: named tuples) --------------------------------
def _return_type(name, fields=("values", "indices")):
    cls = namedtuple(name, fields)
    cls.__module__ = "ember.return_types"
    return cls


_rt = {
    n: _return_type(n)
    for n in (
        "max",
        "min",
        "sort",
        "topk",
        "kthvalue",
        "median",
        "nanmedian",
        "mode",
        "cummax",
        "cummin",
    )
}
_rt["aminmax"] = _return_type("aminmax", ("min", "max"))


# ---- gather / scatter along an axis: the backward pair of every selection ---------------------
def _along(xp, idx, axis):
    """The fancy index that addresses ``idx`` along ``axis`` (for scatter-add)."""
    ix = []
    for d, s in enumerate(idx.shape):
        if d == axis:
            ix.append(idx)
        else:
            shape = [1] * idx.ndim
            shape[d] = s
            ix.append(xp.arange(s).reshape(shape))
    return tuple(ix)


class _Gather(Function):
    _array_forward = True
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, idx, axis, accumulate):
        ctx.idx, ctx.axis, ctx.shape, ctx.accumulate = idx, axis, a.shape, accumulate
        return xp_of(a).take_along_axis(a, idx, axis)

    @staticmethod
    def backward(ctx, g):
        return _Scatter.apply(g, ctx.idx, ctx.axis, ctx.shape, ctx.accumulate), None, None, None


class _Scatter(Function):
    """``zeros(shape)`` with ``g`` written (``accumulate``: added) at ``idx`` along ``axis``."""

    _array_forward = True
    _node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, g, idx, axis, shape, accumulate):
        ctx.idx, ctx.axis, ctx.accumulate = idx, axis, accumulate
        xp = xp_of(g)
        out = xp.zeros(shape, dtype=g.dtype)
        if accumulate:
            xp.add_at(out, _along(xp, idx, axis), g)
        else:  # indices distinct within each slice: a plain write
            xp.put_along_axis(out, idx, g, axis)
        return out

    @staticmethod
    def backward(ctx, g):
        return _Gather.apply(g, ctx.idx, ctx.axis, ctx.accumulate), None, None, None, None


class _Selection(Function):
    """Picks indices along ``axis`` (``_pick``) and returns ``(input[indices], indices)``."""

    _array_forward = True
    _reduces = False  # one index per slice: drop the axis unless keepdim
    _unique = True  # indices are distinct within a slice (else backward accumulates)

    @classmethod
    def forward(cls, ctx, a, axis, keepdim, *args):
        shape = a.shape
        if a.ndim == 0:
            a = a.reshape(1)
        xp = xp_of(a)
        idx = cls._pick(xp, a, axis, *args).astype(_I64, copy=False)
        values = xp.take_along_axis(a, idx, axis)
        if not shape:
            out_shape = ()
        elif cls._reduces and not keepdim:
            out_shape = idx.shape[:axis] + idx.shape[axis + 1 :]
        else:
            out_shape = idx.shape
        indices = idx.reshape(out_shape)
        # saved as an output: an in-place change to the returned indices is caught in backward
        ctx.save_for_backward(indices)
        ctx.idx_shape, ctx.axis, ctx.shape, ctx.work_shape = idx.shape, axis, shape, a.shape
        ctx.nargs = 3 + len(args)
        return values.reshape(out_shape), indices

    @staticmethod
    def backward(ctx, g, g_indices=None):
        (indices,) = ctx.saved_tensors
        idx = indices._data.reshape(ctx.idx_shape)
        g = g.reshape(ctx.idx_shape)
        gx = _Scatter.apply(g, idx, ctx.axis, ctx.work_shape, not ctx._function._unique)
        return (gx.reshape(ctx.shape),) + (None,) * (ctx.nargs - 1)
