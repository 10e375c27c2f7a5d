"""Finding where values fall: ``searchsorted``, ``bucketize``, ``isin`` and
``unravel_index``. Integer (or bool) results, no gradients.

A batched ``searchsorted`` (one sorted row per row of values) is one row-wise ``lexsort`` of
the boundaries and the values together: a value's insertion point is the number of boundaries
sorted before it, a running count. NumPy has no batched ``searchsorted``, and this avoids a
Python loop over the rows.
"""

from __future__ import annotations

import math

from ember import _dtype
from ember.ops._dispatch import xp_of
from ember.ops.pointwise import _out
from ember.tensor import Tensor, _wrap

_I64, _I32 = _dtype.int64._np, _dtype.int32._np


def _batched_search(xp, seq, vals, right: bool):
    """Insertion points of each row of ``vals`` (B, V) in the sorted row of ``seq`` (B, L)."""
    B, L = seq.shape
    V = vals.shape[1]
    keys = xp.concatenate([seq, vals.astype(xp.result_type(seq, vals))], axis=1)
    # ties: a value sorts before equal boundaries (left) or after them (right)
    flag = xp.empty((B, L + V), dtype=xp.int8)
    flag[:, :L] = 0 if right else 1
    flag[:, L:] = 1 if right else 0
    order = xp.lexsort((flag, keys), axis=-1)
    is_seq = order < L
    before = xp.cumsum(is_seq, axis=1)
    rows, cols = xp.nonzero(~is_seq)
    out = xp.empty((B, V), dtype=xp.int64)
    out[rows, order[rows, cols] - L] = before[rows, cols]
    return out


def searchsorted(
    sorted_sequence: Tensor,
    values,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    out=None,
    sorter=None,
) -> Tensor:
    """Indices at which ``values`` would be inserted into the last dim of ``sorted_sequence``
    to keep it sorted (the first such index, or the last with ``right=True`` or
    ``side="right"``); an N-D sequence searches row by row.

    Example:
        >>> ember.searchsorted(ember.tensor([1, 3, 5, 7]), ember.tensor([3, 6]))
        tensor([1, 3])
    """
    op = "torch.searchsorted()"
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{op}: side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(
                f"{op}: side and right can't be set to opposites, got side of left while right "
                "was True"
            )
        right = side == "right"
    seq = sorted_sequence._data
    scalar = not isinstance(values, Tensor)
    if scalar or values.dim() == 0:
        if seq.ndim != 1:
            raise RuntimeError(
                f"{op}: input value can be a scalar only when boundaries tensor dimension is 1, "
                f"but we got boundaries tensor dim({seq.ndim}) and input value's dim(0) numel(1)"
            )
    elif seq.ndim != 1 and tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
        raise RuntimeError(
            f"{op}: boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            "boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(seq.shape)} and input value tensor {list(values.shape)}"
        )
    xp = xp_of(seq)
    if sorter is not None:
        srt = sorter._data
        if tuple(srt.shape) != tuple(seq.shape):
            raise RuntimeError(
                f"{op}: boundary and sorter must have the same size, but got boundary tensor "
                f"{list(seq.shape)}and got sorter tensor {list(srt.shape)}"
            )
        if xp.device_type != "meta":
            if srt.size and (srt.min() < 0 or srt.max() >= seq.shape[-1]):
                raise RuntimeError(f"{op}: sorter index out of range")
            seq = xp.take_along_axis(seq, srt, axis=-1)
    v = xp.asarray(values) if scalar else values._data
    for a in (seq, v):
        if a.dtype.kind == "c":  # NumPy orders complex numbers; torch refuses them
            name = _dtype.SCALAR_NAMES[a.dtype.name]
            raise NotImplementedError(f"\"searchsorted_out_cpu\" not implemented for '{name}'")
    dt = _I32 if out_int32 else _I64
    if xp.device_type == "meta":
        return _out(_wrap(xp.empty(v.shape, dtype=dt)), out)
    side_s = "right" if right else "left"
    if seq.ndim == 1:
        res = xp.searchsorted(seq, v, side=side_s)
    else:
        lead = v.shape[:-1]
        B = math.prod(lead)
        res = _batched_search(
            xp, seq.reshape(B, seq.shape[-1]), v.reshape(B, v.shape[-1]), right
        ).reshape(v.shape)
    return _out(_wrap(xp.asarray(res, dtype=dt)), out)


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out=None):
    """The bucket of each element of ``input`` among 1-D sorted ``boundaries``: ``i`` with
    ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``boundaries[i-1] <= x <
    boundaries[i]``).

    Example:
        >>> ember.bucketize(ember.tensor([3, 6, 9]), ember.tensor([1, 3, 5, 7, 9]))
        tensor([1, 3, 4])
    """
    if boundaries.dim() != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False, out=None):
    """Whether each element of ``elements`` is in ``test_elements`` (either may be a number).

    Example:
        >>> ember.isin(ember.tensor([1, 2, 3, 4]), ember.tensor([2, 4]))
        tensor([False,  True, False,  True])
    """
    ref = elements if isinstance(elements, Tensor) else test_elements
    xp = xp_of(ref._data)
    e = elements._data if isinstance(elements, Tensor) else xp.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else xp.asarray(test_elements)
    for a in (e, t):
        if a.dtype.kind in "bc":
            name = "Bool" if a.dtype.kind == "b" else _dtype.SCALAR_NAMES[a.dtype.name]
            raise RuntimeError(f"Unsupported input type encountered for isin(): {name}")
    if xp.device_type == "meta":
        return _out(_wrap(xp.empty(e.shape, dtype=bool)), out)
    res = xp.asarray(xp.isin(e, t, assume_unique=assume_unique, invert=invert))
    return _out(_wrap(res), out)


def unravel_index(indices: Tensor, shape) -> tuple:
    """The coordinates, in a tensor of ``shape``, of each flat index (one tensor per dim;
    negative indices count from the end).

    Example:
        >>> ember.unravel_index(ember.tensor([4, 5]), (2, 3))
        (tensor([1, 1]), tensor([1, 2]))
    """
    a = indices._data
    if a.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not shape:
        return ()
    total = math.prod(shape)
    if total == 0:
        raise RuntimeError("ZeroDivisionError")
    xp = xp_of(a)
    if xp.device_type == "meta":
        return tuple(_wrap(xp.empty(a.shape, dtype=_I64)) for _ in shape)
    # NOTE: matches torch: indices wrap around the total size (so -1 is the last element)
    coords = xp.unravel_index(a.astype(_I64) % total, shape)
    return tuple(_wrap(xp.asarray(c, dtype=_I64)) for c in coords)


__all__ = ["searchsorted", "bucketize", "isin", "unravel_index"]
