"""Data-dependent results: ``nonzero``, ``argwhere``, ``unique``, ``unique_consecutive``."""

from __future__ import annotations

import math
import operator

from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops._elementwise import _complex_unsupported
from ember.ops.gather_scatter import _maybe_out
from ember.ops.indexing import _INT64
from ember.ops.masked import _data_dependent
from ember.tensor import Tensor, _wrap, _wrap_dim


# ---- data-dependent results: nonzero, argwhere, unique ----------------------------------------
def nonzero(input: Tensor, *, out=None, as_tuple: bool = False):
    """Indices of the non-zero elements: an ``(n, ndim)`` int64 tensor, or with ``as_tuple`` one
    1-D tensor per dim.

    Example:
        >>> ember.tensor([[0, 1], [2, 0]]).nonzero()
        tensor([[0, 1],
                [1, 0]])
    """
    a = input._data
    _data_dependent("nonzero", a)
    xp = xp_of(a)
    if as_tuple:
        res = xp.nonzero(a.reshape(1) if a.ndim == 0 else a)
        return tuple(_wrap(r.astype(_INT64, copy=False)) for r in res)
    r = _wrap(xp.argwhere(a).astype(_INT64, copy=False))
    return _maybe_out(r, out)


def argwhere(input: Tensor) -> Tensor:
    """``nonzero(input)``: the ``(n, ndim)`` indices of the non-zero elements."""
    return nonzero(input)


class _Unique(Function):
    _array_forward = True
    _node_name = "Unique2Backward0"

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        vals, inv, counts = xp.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        return vals, inv.reshape(a.shape).astype(_INT64), counts.astype(_INT64)

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("the derivative for '_unique2' is not implemented.")


def _unique_dim_check(op: str, a, dim) -> int:
    """torch's argument checks of ``unique``/``unique_consecutive`` with ``dim``: the dim (an
    int in range; a 0-d input has none), then at most one zero-sized dim, and that one ``dim``."""
    if isinstance(dim, bool) or not isinstance(dim, int):
        try:
            dim = operator.index(dim)
        except TypeError:
            name = "unique_dim" if op == "unique" else op
            sep = " (position 2)" if op == "unique" else ""
            raise TypeError(
                f"{name}(): argument 'dim'{sep} must be int, not {type(dim).__name__}"
            ) from None
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, a.ndim)
    _data_dependent(op, a)
    zeros = [i for i, n in enumerate(a.shape) if n == 0]
    if len(zeros) > 1:
        # NOTE: matches torch: its message ends with a space
        raise RuntimeError(
            "Number of zero sized dimensions is more than one, so unique cannot be applied "
        )
    if zeros and zeros[0] != d:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    if a.dtype.kind == "c":
        _complex_unsupported("unique_dim", a.dtype)
    return d


def _unique_slices(a, d: int, consecutive: bool):
    """The distinct slices of ``a`` along dim ``d`` (sorted lexicographically unless
    ``consecutive``, which collapses only runs of equal neighbours), the group index of each
    slice and each group's size; one sort and one comparison over all slices."""
    xp = xp_of(a)
    moved = xp.moveaxis(a, d, 0)
    n = moved.shape[0]
    flat = moved.reshape(n, math.prod(moved.shape[1:]))
    # ml_dtypes' floats (bfloat16, float8) widen exactly to float32, which NumPy sorts natively
    keys = flat.astype(xp.float32) if flat.dtype.kind == "V" else flat
    order = None
    if not consecutive and n > 1 and keys.shape[1]:
        # lexsort's last key is the primary one: the first element of each slice
        order = xp.lexsort(keys.T[::-1])
        keys = keys[order]
    start = xp.ones(n, dtype=bool)
    if n > 1:
        # != (not a bytes comparison): -0.0 equals 0.0, and NaN equals nothing, as in torch
        xp.any(keys[1:] != keys[:-1], axis=1, out=start[1:])
    firsts = xp.flatnonzero(start)
    pick = firsts if order is None else order[firsts]
    vals = xp.moveaxis(moved[pick], 0, d)
    group = xp.cumsum(start, dtype=_INT64) - 1
    if order is None:
        inv = group
    else:
        inv = xp.empty(n, dtype=_INT64)
        inv[order] = group
    counts = xp.diff(firsts, append=n).astype(_INT64, copy=False)
    return xp.ascontiguousarray(vals), inv, counts


class _UniqueDim(Function):
    _array_forward = True
    _node_name = "UniqueDimBackward0"

    @staticmethod
    def forward(ctx, a, d):
        return _unique_slices(a, d, False)

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("the derivative for 'unique_dim' is not implemented.")


class _UniqueConsecutive(Function):
    _array_forward = True
    _node_name = "UniqueConsecutiveBackward0"

    @staticmethod
    def forward(ctx, a, d):
        if d is not None:
            return _unique_slices(a, d, True)
        flat = a.reshape(-1)
        vals, inv, counts = _unique_slices(flat, 0, True)
        return vals, inv.reshape(a.shape), counts

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


def _pick(res, return_inverse: bool, return_counts: bool):
    vals, inv, counts = res
    if return_inverse and return_counts:
        return vals, inv, counts
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, counts
    return vals


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,  # noqa: A002
    return_counts: bool = False,
    dim=None,
):
    """The distinct values of ``input`` (sorted), with optionally the index of each element in
    them (``return_inverse``, input's shape) and how often each occurs (``return_counts``).
    With ``dim``, the distinct slices along that dim (sorted lexicographically), the index of
    each slice among them and their counts.

    Example:
        >>> ember.unique(ember.tensor([3, 1, 3]), return_counts=True)
        (tensor([1, 3]), tensor([1, 2]))
        >>> ember.unique(ember.tensor([[1, 2], [0, 5], [1, 2]]), dim=0, return_inverse=True)
        (tensor([[0, 5],
                [1, 2]]), tensor([1, 0, 1]))
    """
    if dim is not None:
        # NOTE: matches torch on CPU: the slices come back sorted even with sorted=False
        d = _unique_dim_check("unique", input._data, dim)
        return _pick(_UniqueDim.apply(input, d), return_inverse, return_counts)
    _data_dependent("unique", input._data)
    if input._data.dtype.kind == "c":
        _complex_unsupported("unique", input._data.dtype)
    # NOTE: matches torch on CPU: the values come back sorted even with sorted=False
    return _pick(_Unique.apply(input), return_inverse, return_counts)


def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    """Collapse runs of equal consecutive values (of the flattened input, or slices along
    ``dim``) to one each, with optionally each element's run index and the run lengths.

    Example:
        >>> ember.unique_consecutive(ember.tensor([1, 1, 2, 1]), return_counts=True)
        (tensor([1, 2, 1]), tensor([2, 1, 1]))
    """
    a = input._data
    if dim is not None:
        d = _unique_dim_check("unique_consecutive", a, dim)
    else:
        d = None
        _data_dependent("unique_consecutive", a)
        if a.dtype.kind == "c":
            _complex_unsupported("unique", a.dtype)
    return _pick(_UniqueConsecutive.apply(input, d), return_inverse, return_counts)


__all__ = ["nonzero", "argwhere", "unique", "unique_consecutive"]

Tensor.nonzero = nonzero
Tensor.argwhere = argwhere
Tensor.unique = unique
Tensor.unique_consecutive = unique_consecutive
