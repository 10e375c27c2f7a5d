"""Extrema: ``max``, ``min``, ``amax``, ``amin``, ``aminmax``, ``argmax``, ``argmin``.

``Amax``/``Amin`` (and ``max()``/``min()`` over everything) reduce over a set of axes and share
the gradient evenly among ties; ``max``/``min`` with ``dim`` are selections (``MaxDim``, on
``_selection._Selection``): the gradient goes to the returned index.
"""

from __future__ import annotations

import builtins

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.ops._elementwise import _complex_unsupported
from ember.ops._selection import _rt, _Selection
from ember.ops.pointwise import _out
from ember.ops.reduction import _axes, _check_nonempty, _const, _keep, _keep_shape, _out_tuple
from ember.tensor import Tensor, _wrap, _wrap_dim

_I64 = _dtype.int64._np


# ---- max, min, amax, amin, argmax, argmin, aminmax -------------------------------------------
class Amax(Function):
    _array_forward = True
    _node_name = "AmaxBackward0"
    _is_max = True
    # max()/min()/median() over everything spread the gradient over ties counting NaN == NaN
    # (PyTorch's evenly_distribute_backward); amax/amin compare with == only.
    _nan_ties = False

    @classmethod
    def forward(cls, ctx, a, axes, keepdim):
        ctx.axes, ctx.keepdim = axes, keepdim
        xp = xp_of(a)
        r = xp.asarray((xp.max if cls._is_max else xp.min)(a, axis=axes, keepdims=keepdim))
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        return _spread_evenly(ctx, g), None, None


def _spread_evenly(ctx, g):
    """``g`` split evenly among the input elements equal to the result (ties share)."""
    x, out = ctx.saved_tensors
    xd, od = x._data, out._data
    xp = xp_of(xd)
    shape = xd.shape
    od = od.reshape(_keep_shape(shape, ctx.axes))
    mask = xd == od
    if ctx._function._nan_ties and xd.dtype.kind in "fV":
        mask = mask | (xp.isnan(xd) & xp.isnan(od))
    count = xp.sum(mask, axis=ctx.axes, keepdims=True)
    g = _keep(g, shape, ctx.axes, ctx.keepdim)
    return g / _const(count, xd) * _const(mask, xd)


class Amin(Amax):
    _node_name = "AminBackward0"
    _is_max = False


class MaxAll(Amax):
    _node_name = "MaxBackward1"
    _nan_ties = True


class MinAll(Amin):
    _node_name = "MinBackward1"
    _nan_ties = True


def _argext(xp, a, axis, is_max):
    return (xp.argmax if is_max else xp.argmin)(a, axis=axis, keepdims=True)


class MaxDim(_Selection):
    _node_name = "MaxBackward0"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis):
        return _argext(xp, a, axis, True)


class MinDim(MaxDim):
    _node_name = "MinBackward0"

    @staticmethod
    def _pick(xp, a, axis):
        return _argext(xp, a, axis, False)


def _binary_extremum(name, input, other, out):
    import ember  # the math family's maximum/minimum (imported late: it sits above this file)

    return (
        getattr(ember, name)(input, other, out=out)
        if out is not None
        else getattr(ember, name)(input, other)
    )


def _max_min(input, dim, keepdim, other, out, is_max):
    name = "max" if is_max else "min"
    if isinstance(dim, Tensor) or other is not None:
        return _binary_extremum(
            "maximum" if is_max else "minimum", input, dim if other is None else other, out
        )
    if input._data.dtype.kind == "c":
        # NOTE: matches torch: the wording differs between the full and the dim reduction
        _complex_unsupported(name if dim is not None else name + "_all", input._data.dtype)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}(): keepdim=True needs a dim (use amax/amin to keep dims)")
        _check_nonempty(input, None, name, RuntimeError)
        return _out(unary(MaxAll if is_max else MinAll, input, None, False), out)
    axis = _wrap_dim(dim, input._data.ndim)
    _check_nonempty(input, (axis,), name)
    r = _rt[name](*(MaxDim if is_max else MinDim).apply(input, axis if input.ndim else 0, keepdim))
    return _out_tuple(r, out)


def max(input: Tensor, dim=None, keepdim: bool = False, *, other=None, out=None):  # noqa: A001
    """Largest element (0-d), or ``(values, indices)`` along ``dim``, or the element-wise
    maximum of two tensors (``max(a, b)``, as ``ember.maximum``).

    The gradient of ``max(x)`` is shared evenly among ties; with ``dim`` it goes to the
    returned index.

    Example:
        >>> ember.tensor([[1.0, 5.0], [4.0, 2.0]]).max(1)
        max(values=tensor([5., 4.]), indices=tensor([1, 0]))
    """
    return _max_min(input, dim, keepdim, other, out, True)


def min(input: Tensor, dim=None, keepdim: bool = False, *, other=None, out=None):  # noqa: A001
    """Smallest element (0-d), or ``(values, indices)`` along ``dim``, or the element-wise
    minimum of two tensors (``min(a, b)``).

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).min()
        tensor(1.)
    """
    return _max_min(input, dim, keepdim, other, out, False)


def amax(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    """Maximum over ``dim`` (an int or a tuple; every dim by default). Ties share the gradient
    evenly.

    Example:
        >>> ember.tensor([[1.0, 5.0], [4.0, 2.0]]).amax(0)
        tensor([4., 5.])
    """
    axes = _axes(input, dim)
    if input._data.dtype.kind == "c":
        _complex_unsupported("max_values_cpu", input._data.dtype)
    _check_nonempty(input, axes, "amax", RuntimeError)
    return _out(unary(Amax, input, axes, keepdim), out)


def amin(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    """Minimum over ``dim`` (an int or a tuple; every dim by default).

    Example:
        >>> ember.tensor([[1.0, 5.0], [4.0, 2.0]]).amin(1)
        tensor([1., 2.])
    """
    axes = _axes(input, dim)
    if input._data.dtype.kind == "c":
        _complex_unsupported("min_values_cpu", input._data.dtype)
    _check_nonempty(input, axes, "amin", RuntimeError)
    return _out(unary(Amin, input, axes, keepdim), out)


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False, out=None):
    """``(min, max)`` over ``dim`` (every dim when None), as a named tuple.

    Example:
        >>> ember.aminmax(ember.tensor([3.0, 1.0, 2.0]))
        aminmax(min=tensor(1.), max=tensor(3.))
    """
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    axes = _axes(input, () if dim is None else dim)
    if input._data.dtype.kind == "c":
        _complex_unsupported("aminmax_cpu", input._data.dtype)
    shape = input._data.shape
    if input._data.size == 0 and (axes is None or builtins.any(shape[d] == 0 for d in axes)):
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity."
        )
    r = _rt["aminmax"](unary(Amin, input, axes, keepdim), unary(Amax, input, axes, keepdim))
    return _out_tuple(r, out)


def _argext_public(input, dim, keepdim, is_max):
    name = "argmax" if is_max else "argmin"
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    a = input._data
    xp = xp_of(a)
    if a.dtype.kind in "bc":
        if a.dtype.kind == "c":
            _complex_unsupported(name, a.dtype)
        raise RuntimeError(f"{name}(): does not support bool input (convert it with .int())")
    if dim is None:
        _check_nonempty(input, None, name)
        r = (xp.argmax if is_max else xp.argmin)(a.reshape(-1))
        r = xp.asarray(r, dtype=_I64)
        return _wrap(r.reshape((1,) * a.ndim) if keepdim else r)
    axis = _wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return _wrap(xp.zeros((), dtype=_I64))
    _check_nonempty(input, (axis,), name)
    r = (xp.argmax if is_max else xp.argmin)(a, axis=axis, keepdims=keepdim)
    return _wrap(xp.asarray(r, dtype=_I64))


def argmax(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """Index of the largest element (of the flattened input when ``dim`` is None), int64.

    Example:
        >>> ember.tensor([[1.0, 5.0], [4.0, 2.0]]).argmax(1)
        tensor([1, 0])
    """
    return _out(_argext_public(input, dim, keepdim, True), out)


def argmin(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """Index of the smallest element (of the flattened input when ``dim`` is None), int64.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).argmin()
        tensor(1)
    """
    return _out(_argext_public(input, dim, keepdim, False), out)


__all__ = [
    "max",
    "min",
    "amax",
    "amin",
    "aminmax",
    "argmax",
    "argmin",
]

Tensor.max = max
Tensor.min = min
Tensor.amax = amax
Tensor.amin = amin
Tensor.aminmax = aminmax
Tensor.argmax = argmax
Tensor.argmin = argmin
