"""Data-dependent results: ``nonzero``, ``argwhere``, ``unique``, ``unique_consecutive``."""

from __future__ import annotations

from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops._elementwise import _complex_unsupported
from ember.ops.gather_scatter import _maybe_out
from ember.ops.indexing import _INT64
from ember.ops.masked import _data_dependent
from ember.tensor import Tensor, _wrap


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


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,  # noqa: A002
    return_counts: bool = False,
    dim=None,
):
    """The distinct values of ``input`` (sorted), with optionally the index of each element in
    them (``return_inverse``, input's shape) and how often each occurs (``return_counts``).

    Example:
        >>> ember.unique(ember.tensor([3, 1, 3]), return_counts=True)
        (tensor([1, 3]), tensor([1, 2]))
    """
    if dim is not None:
        raise NotImplementedError("ember: unique(dim=...) is not supported yet; use dim=None")
    _data_dependent("unique", input._data)
    if input._data.dtype.kind == "c":
        _complex_unsupported("unique", input._data.dtype)
    # NOTE: matches torch on CPU: the values come back sorted even with sorted=False
    vals, inv, counts = _Unique.apply(input)
    if return_inverse and return_counts:
        return vals, inv, counts
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, counts
    return vals


def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    """Collapse runs of equal consecutive values (of the flattened input) to one each."""
    if dim is not None:
        raise NotImplementedError("ember: unique_consecutive(dim=...) is not supported yet")
    a = input._data
    _data_dependent("unique_consecutive", a)
    if a.dtype.kind == "c":
        _complex_unsupported("unique", a.dtype)
    xp = xp_of(a)
    flat = a.reshape(-1)
    start = xp.ones(flat.shape, dtype=bool)
    if flat.size:
        start[1:] = flat[1:] != flat[:-1]
    vals = _wrap(flat[start])
    inv = _wrap((xp.cumsum(start) - 1).reshape(a.shape).astype(_INT64))
    firsts = xp.flatnonzero(start)
    counts = _wrap(xp.diff(xp.concatenate([firsts, xp.asarray([flat.size])])).astype(_INT64))
    if return_inverse and return_counts:
        return vals, inv, counts
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, counts
    return vals


__all__ = ["nonzero", "argwhere", "unique", "unique_consecutive"]

Tensor.nonzero = nonzero
Tensor.argwhere = argwhere
Tensor.unique = unique
Tensor.unique_consecutive = unique_consecutive
