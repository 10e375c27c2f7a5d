"""Sorting and order statistics: ``sort``, ``argsort``, ``topk``, ``kthvalue``, ``median``,
``nanmedian``, ``mode``.

All but ``argsort`` (which records no graph) and ``median()``/``nanmedian()`` over everything
(an ``Amax``-style reduction whose ties share the gradient) are selections along one axis, on
``_selection._Selection``: the gradient goes back to the returned indices.
"""

from __future__ import annotations

import math

from ember import _dtype
from ember.ops._dispatch import unary, xp_of
from ember.ops._elementwise import _complex_unsupported
from ember.ops._selection import _rt, _Selection
from ember.ops.cumulative import _accumulate
from ember.ops.extrema import Amax
from ember.ops.pointwise import _out
from ember.ops.reduction import _check_nonempty, _out_tuple
from ember.tensor import Tensor, _wrap, _wrap_dim

_I64 = _dtype.int64._np


# ---- sort, argsort, topk, kthvalue, median, nanmedian, mode ----------------------------------
def _argsort(xp, a, axis, descending):
    """Stable argsort; NaN sorts as the largest value (last ascending, first descending)."""
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable")
    # stable descending: sort the reversed input ascending and reverse back, so equal
    # elements keep their input order
    n = a.shape[axis]
    return (n - 1) - xp.flip(xp.argsort(xp.flip(a, axis), axis=axis, kind="stable"), axis)


def _slice(a, axis, start, stop):
    return a[(slice(None),) * axis + (slice(start, stop),)]


class Sort(_Selection):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _node_name = "SortBackward0"

    @staticmethod
    def _pick(xp, a, axis, descending):
        return _argsort(xp, a, axis, descending)


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False, out=None):
    """Sort along ``dim``: ``(values, indices)``. ember's sort is always stable.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).sort(descending=True)
        sort(values=tensor([3., 2., 1.]), indices=tensor([0, 2, 1]))
    """
    if input._data.dtype.kind == "c":
        _complex_unsupported("sort", input._data.dtype)
    axis = _wrap_dim(dim, input._data.ndim)
    r = _rt["sort"](*Sort.apply(input, axis if input.ndim else 0, False, bool(descending)))
    return _out_tuple(r, out)


def argsort(
    input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False, out=None
) -> Tensor:
    """Indices that sort ``input`` along ``dim`` (stable), int64.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).argsort()
        tensor([1, 2, 0])
    """
    a = input._data
    if a.dtype.kind == "c":
        _complex_unsupported("argsort", a.dtype)
    axis = _wrap_dim(dim, a.ndim)
    xp = xp_of(a)
    if a.ndim == 0:
        return _out(_wrap(xp.zeros((), dtype=_I64)), out)
    return _out(_wrap(_argsort(xp, a, axis, descending).astype(_I64, copy=False)), out)


class Topk(_Selection):
    _node_name = "TopkBackward0"

    @staticmethod
    def _pick(xp, a, axis, k, largest, sorted_):
        n = a.shape[axis]
        if k == 0:
            return xp.zeros(a.shape[:axis] + (0,) + a.shape[axis + 1 :], dtype=_I64)
        if k < n:  # partition first: O(n), then order only the k picked
            if largest:
                idx = _slice(xp.argpartition(a, n - k, axis=axis), axis, n - k, n)
            else:
                idx = _slice(xp.argpartition(a, k - 1, axis=axis), axis, 0, k)
            if not sorted_:
                return idx
            order = _argsort(xp, xp.take_along_axis(a, idx, axis), axis, largest)
            return xp.take_along_axis(idx, order, axis)
        return _argsort(xp, a, axis, largest)


def topk(
    input: Tensor,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,  # noqa: A002
    out=None,
):
    """The ``k`` largest (``largest=False``: smallest) elements along ``dim`` and their
    indices, ordered when ``sorted``.

    Example:
        >>> ember.tensor([1.0, 5.0, 3.0]).topk(2)
        topk(values=tensor([5., 3.]), indices=tensor([1, 2]))
    """
    a = input._data
    if a.dtype.kind == "c":
        _complex_unsupported("topk", a.dtype)
    axis = _wrap_dim(dim, a.ndim)
    n = a.shape[axis] if a.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError(
            f"selected index k out of range (topk: k={k} for dimension {dim} of size {n})"
        )
    r = Topk.apply(input, axis if a.ndim else 0, False, int(k), bool(largest), bool(sorted))
    return _out_tuple(_rt["topk"](*r), out)


class Kthvalue(_Selection):
    _node_name = "KthvalueBackward0"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis, k):
        # NaN counts as the largest value, as in PyTorch
        return _slice(xp.argpartition(a, k - 1, axis=axis), axis, k - 1, k)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    """The ``k``-th smallest element (1-based) along ``dim`` and its index.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).kthvalue(2)
        kthvalue(values=tensor(2.), indices=tensor(2))
    """
    a = input._data
    if a.dtype.kind == "c":
        _complex_unsupported("kthvalue_cpu", a.dtype)
    axis = _wrap_dim(dim, a.ndim)
    n = a.shape[axis] if a.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(
            f"kthvalue(): selected number k out of range for dimension {axis} (k={k}, size {n})"
        )
    r = Kthvalue.apply(input, axis if a.ndim else 0, keepdim, int(k))
    return _out_tuple(_rt["kthvalue"](*r), out)


class MedianDim(_Selection):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _node_name = "MedianBackward1"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis):
        k = (a.shape[axis] - 1) // 2
        idx = _slice(xp.argpartition(a, k, axis=axis), axis, k, k + 1)
        if a.dtype.kind in "fV":
            # NOTE: matches torch: a slice holding NaN has median NaN (at its first NaN)
            isnan = xp.isnan(a)
            idx = xp.where(
                xp.any(isnan, axis=axis, keepdims=True),
                xp.argmax(isnan, axis=axis, keepdims=True),
                idx,
            )
        return idx


class NanmedianDim(_Selection):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _node_name = "NanmedianBackward1"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis):
        order = xp.argsort(a, axis=axis, kind="stable")  # NaNs last
        if a.dtype.kind not in "fV":
            return _slice(order, axis, (a.shape[axis] - 1) // 2, (a.shape[axis] + 1) // 2)
        count = xp.sum(~xp.isnan(a), axis=axis, keepdims=True)
        # lower median of the non-NaN values; an all-NaN slice gives its first element (NaN)
        return xp.take_along_axis(order, xp.maximum((count - 1) // 2, 0), axis)


class MedianAll(Amax):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _node_name = "MedianBackward0"
    _nan_ties = True
    _ignore_nan = False

    @classmethod
    def forward(cls, ctx, a, axes, keepdim):
        ctx.axes, ctx.keepdim = None, False
        xp = xp_of(a)
        flat = a.reshape(-1)
        n = flat.shape[0]
        if n == 0:
            r = xp.full((), math.nan, dtype=a.dtype)
        elif cls._ignore_nan and a.dtype.kind in "fV":
            k = xp.sum(~xp.isnan(flat), keepdims=True)
            r = xp.take_along_axis(xp.sort(flat), xp.maximum((k - 1) // 2, 0), 0)
        else:
            k = (n - 1) // 2
            r = xp.partition(flat, k)[k : k + 1]
            if a.dtype.kind in "fV":
                r = xp.where(xp.any(xp.isnan(flat), keepdims=True), a.dtype.type(math.nan), r)
        r = xp.asarray(r).reshape(())
        ctx.save_for_backward(a, r)
        return r


class NanmedianAll(MedianAll):
    _node_name = "NanmedianBackward0"
    _ignore_nan = True


def _median(input, dim, keepdim, out, ignore_nan):
    name = "nanmedian" if ignore_nan else "median"
    if input._data.dtype.kind == "c":
        _complex_unsupported("median_cpu" if dim is None else "median_out", input._data.dtype)
    if dim is None:
        if input._data.dtype.kind not in "fV" and input._data.size == 0:
            raise IndexError(f"{name}(): cannot compute the median of an empty integer tensor")
        return _out(unary(NanmedianAll if ignore_nan else MedianAll, input, None, False), out)
    axis = _wrap_dim(dim, input._data.ndim)
    _check_nonempty(input, (axis,), name)
    cls = NanmedianDim if ignore_nan else MedianDim
    return _out_tuple(_rt[name](*cls.apply(input, axis if input.ndim else 0, keepdim)), out)


def median(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """Lower median of all elements (0-d; the gradient is shared among ties), or
    ``(values, indices)`` along ``dim``. NaN anywhere in a slice gives NaN.

    Example:
        >>> ember.tensor([1.0, 4.0, 2.0, 3.0]).median()
        tensor(2.)
    """
    return _median(input, dim, keepdim, out, False)


def nanmedian(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """``median`` ignoring NaNs (NaN only where a slice is all NaN).

    Example:
        >>> ember.tensor([1.0, float("nan"), 3.0]).nanmedian()
        tensor(1.)
    """
    return _median(input, dim, keepdim, out, True)


class Mode(_Selection):
    _node_name = "ModeBackward0"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis):
        x = a.swapaxes(axis, -1)
        order = xp.argsort(x, axis=-1, kind="stable")
        s = xp.take_along_axis(x, order, -1)
        n = s.shape[-1]
        pos = xp.arange(n)
        start = xp.ones(s.shape, dtype=bool)  # where a run of equal values starts
        start[..., 1:] = s[..., 1:] != s[..., :-1]
        end = xp.ones(s.shape, dtype=bool)
        end[..., :-1] = start[..., 1:]
        first = _accumulate(xp, xp.maximum, xp.where(start, pos, 0), -1)
        length = xp.where(end, pos - first + 1, 0)
        # NOTE: matches torch: the most frequent value, the smallest among equally frequent
        # ones, at the index of its last occurrence (the end of its run in a stable sort)
        best = xp.argmax(length, axis=-1, keepdims=True)
        return xp.take_along_axis(order, best, -1).swapaxes(axis, -1)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out=None):
    """Most frequent value along ``dim`` (the smallest of equally frequent ones) and the index
    of its last occurrence.

    Example:
        >>> ember.tensor([1.0, 2.0, 2.0, 3.0]).mode()
        mode(values=tensor(2.), indices=tensor(2))
    """
    if input._data.dtype.kind == "c":
        _complex_unsupported("mode_cpu", input._data.dtype)
    axis = _wrap_dim(dim, input._data.ndim)
    _check_nonempty(input, (axis,) if input.ndim else None, "mode")
    return _out_tuple(_rt["mode"](*Mode.apply(input, axis if input.ndim else 0, keepdim)), out)


__all__ = [
    "sort",
    "argsort",
    "topk",
    "kthvalue",
    "median",
    "nanmedian",
    "mode",
]

Tensor.sort = sort
Tensor.argsort = argsort
Tensor.topk = topk
Tensor.kthvalue = kthvalue
Tensor.median = median
Tensor.nanmedian = nanmedian
Tensor.mode = mode
