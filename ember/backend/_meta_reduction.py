"""Meta shape rules for the reduction op family (registered with meta.rule)."""

from __future__ import annotations

import numpy as _np

from ember.backend.meta import MetaArray, rule


def _axis(axis, ndim):
    if axis is None:
        return None
    return axis % ndim if ndim else 0


def _sorted_shape(a, axis):
    return (a.size,) if axis is None else a.shape


@rule(_np.sort)
def _sort(a, axis=-1, kind=None, order=None, **kwargs):
    return MetaArray(_sorted_shape(a, axis), a.dtype)


@rule(_np.argsort)
def _argsort(a, axis=-1, kind=None, order=None, **kwargs):
    return MetaArray(_sorted_shape(a, axis), _np.intp)


@rule(_np.partition)
def _partition(a, kth, axis=-1, kind="introselect", order=None):
    return MetaArray(_sorted_shape(a, axis), a.dtype)


@rule(_np.argpartition)
def _argpartition(a, kth, axis=-1, kind="introselect", order=None):
    return MetaArray(_sorted_shape(a, axis), _np.intp)


@rule(_np.take_along_axis)
def _take_along_axis(arr, indices, axis=-1):
    if axis is None:
        return MetaArray(indices.shape, arr.dtype)
    ax = _axis(axis, arr.ndim)
    if indices.ndim != arr.ndim:
        raise ValueError("take_along_axis: indices and arr must have the same number of dims")
    shape = _np.broadcast_shapes(
        tuple(1 if i == ax else s for i, s in enumerate(arr.shape)),
        tuple(1 if i == ax else s for i, s in enumerate(indices.shape)),
    )
    return MetaArray(shape[:ax] + (indices.shape[ax],) + shape[ax + 1 :], arr.dtype)


@rule(_np.put_along_axis)
def _put_along_axis(arr, indices, values, axis):
    return None


@rule(_np.cumsum, _np.cumprod)
def _cumulative(a, axis=None, dtype=None, out=None):
    if dtype is None:
        dtype = _np.add(_np.zeros((), a.dtype), _np.zeros((), a.dtype)).dtype
    shape = (a.size,) if axis is None else a.shape
    return MetaArray(shape, dtype)


@rule(_np.flip)
def _flip(m, axis=None):
    return MetaArray(m.shape, m.dtype)


@rule(_np.moveaxis)
def _moveaxis(a, source, destination):
    order = [i for i in range(a.ndim) if i != source % a.ndim]
    order.insert(destination % a.ndim, source % a.ndim)
    return a.transpose(order)


@rule(_np.linalg.svd)
def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    *batch, m, n = a.shape
    k = min(m, n)
    s = MetaArray((*batch, k), a.dtype)
    if not compute_uv:
        return s
    u = MetaArray((*batch, m, m if full_matrices else k), a.dtype)
    vh = MetaArray((*batch, n if full_matrices else k, n), a.dtype)
    return u, s, vh
