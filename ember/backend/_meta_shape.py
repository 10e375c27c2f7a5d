"""Meta shape rules for the shape and indexing op families (registered with meta.rule)."""

from __future__ import annotations

import math

import numpy as _np

from ember.backend.meta import MetaArray, broadcast_shapes, rule


def _dtype_of(arrays):
    return _np.result_type(*[_np.zeros((), a.dtype) for a in arrays])


@rule(_np.concatenate)
def _concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    first = arrays[0].shape
    if axis is None:
        return MetaArray((sum(a.size for a in arrays),), dtype or _dtype_of(arrays))
    ax = axis % len(first)
    for a in arrays:
        if len(a.shape) != len(first) or any(
            s != f for i, (s, f) in enumerate(zip(a.shape, first, strict=False)) if i != ax
        ):
            raise ValueError(
                f"all the input array dimensions except for the concatenation axis must match "
                f"exactly: {a.shape} and {first} along axis {ax}"
            )
    shape = list(first)
    shape[ax] = sum(a.shape[ax] for a in arrays)
    return MetaArray(shape, dtype or _dtype_of(arrays))


@rule(_np.stack)
def _stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    first = arrays[0].shape
    for a in arrays:
        if a.shape != first:
            raise ValueError("all input arrays must have the same shape")
    ax = axis % (len(first) + 1)
    shape = list(first)
    shape.insert(ax, len(arrays))
    return MetaArray(shape, dtype or _dtype_of(arrays))


@rule(_np.roll)
def _roll(a, shift, axis=None):
    return MetaArray(a.shape, a.dtype)


@rule(_np.diagonal)
def _diagonal(a, offset=0, axis1=0, axis2=1):
    n = a.ndim
    d1, d2 = axis1 % n, axis2 % n
    s1, s2 = a.shape[d1], a.shape[d2]
    if offset >= 0:
        length = max(0, min(s1, s2 - offset))
    else:
        length = max(0, min(s1 + offset, s2))
    rest = tuple(s for i, s in enumerate(a.shape) if i not in (d1, d2))
    return MetaArray(rest + (length,), a.dtype)


@rule(_np.take_along_axis)
def _take_along_axis(arr, indices, axis=-1):
    if axis is None:
        return MetaArray(indices.shape, arr.dtype)
    ax = axis % arr.ndim
    a = tuple(1 if i == ax else s for i, s in enumerate(arr.shape))
    b = tuple(1 if i == ax else s for i, s in enumerate(indices.shape))
    shape = list(broadcast_shapes(a, b))
    shape[ax] = indices.shape[ax]
    return MetaArray(shape, arr.dtype)


def _data_dependent(name):
    def r(*args, **kwargs):
        raise NotImplementedError(
            f"{name} on a meta tensor: the result shape depends on the data, which a meta "
            "tensor does not have"
        )

    return r


for _f in (_np.nonzero, _np.argwhere, _np.unique, _np.flatnonzero):
    rule(_f)(_data_dependent(f"numpy.{_f.__name__}"))


@rule(_np.repeat)
def _repeat(a, repeats, axis=None):
    if not isinstance(repeats, int):  # per-element counts: the length is data
        raise NotImplementedError("numpy.repeat with an array of counts on a meta tensor")
    if axis is None:
        return MetaArray((math.prod(a.shape) * repeats,), a.dtype)
    ax = axis % a.ndim
    return MetaArray(a.shape[:ax] + (a.shape[ax] * repeats,) + a.shape[ax + 1 :], a.dtype)


@rule(_np.take)
def _take(a, indices, axis=None, out=None, mode="raise"):
    ishape = indices.shape if hasattr(indices, "shape") else _np.shape(indices)
    if axis is None:
        shape = tuple(ishape)
    else:
        ax = axis % a.ndim
        shape = a.shape[:ax] + tuple(ishape) + a.shape[ax + 1 :]
    return out if out is not None else MetaArray(shape, a.dtype)
