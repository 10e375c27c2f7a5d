"""Reductions: ``sum``, ``mean`` (more in this file as they land)."""

from __future__ import annotations

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import unary, wrap_dims, xp_of
from ember.tensor import Tensor


def _expand_back(g, shape, axes, keepdim):
    """Broadcast a reduced gradient back to the input ``shape``."""
    if axes is None and g.ndim == 0:
        return g.expand(shape)
    if not keepdim and axes is not None and shape:
        g = g.reshape([1 if i in axes else s for i, s in enumerate(shape)])
    elif not keepdim and axes is None:
        g = g.reshape([1] * len(shape))
    return g.expand(shape)


class Sum(Function):
    _array_forward = True
    _node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, axes, keepdim, np_dtype):
        ctx.shape = a.shape
        ctx.axes = axes
        ctx.keepdim = keepdim
        return a.sum(axis=axes, keepdims=keepdim, dtype=np_dtype)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx.shape, ctx.axes, ctx.keepdim), None, None, None


def _sum_dtype(a, dtype):
    if dtype is not None:
        return _dtype.to_np(dtype)
    # NOTE: matches torch: integer and bool sums accumulate in int64
    if a._data.dtype.kind in "biu":
        return _dtype.int64._np
    return a._data.dtype


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    """Sum over ``dim`` (an int, a tuple, or all dims when omitted).

    Example:
        >>> ember.ones(2, 3).sum(1)
        tensor([3., 3.])
    """
    axes = wrap_dims(dim, input._data.ndim)
    if axes == () and dim is not None and not isinstance(dim, int):
        axes = None  # NOTE: matches torch: sum(dim=[]) reduces everything
    if input._data.ndim == 0:
        axes = None
    return unary(Sum, input, axes, keepdim, _sum_dtype(input, dtype))


class Mean(Function):
    _array_forward = True
    _node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, axes, keepdim, np_dtype):
        ctx.shape = a.shape
        ctx.axes = axes
        ctx.keepdim = keepdim
        n = 1
        for i, s in enumerate(a.shape):
            if axes is None or i in axes:
                n *= s
        ctx.n = n
        return xp_of(a).mean(a, axis=axes, keepdims=keepdim, dtype=np_dtype)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g / ctx.n, ctx.shape, ctx.axes, ctx.keepdim), None, None, None


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean over ``dim`` (all dims when omitted); floating inputs only, as in PyTorch."""
    npd = input._data.dtype if dtype is None else _dtype.to_np(dtype)
    if npd.kind != "f":
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {_dtype.from_np(npd).name.capitalize()}"
        )
    axes = wrap_dims(dim, input._data.ndim)
    if axes == () and dim is not None:
        axes = None
    if input._data.ndim == 0:
        axes = None
    return unary(Mean, input, axes, keepdim, npd)


__all__ = ["sum", "mean"]

Tensor.sum = sum
Tensor.mean = mean
