"""Rearranging and repeating elements into a new tensor (copies, not views): ``flip``,
``fliplr``, ``flipud``, ``roll``, ``repeat``, ``tile``, ``repeat_interleave``."""

from __future__ import annotations

import operator

from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.ops.broadcast import expand
from ember.ops.shape import _dims_arg, _keyword_size, _size_args, reshape, unsqueeze, view
from ember.ops.slicing import _FULL
from ember.tensor import Tensor, _wrap, _wrap_dim


# ---- flip, roll, repeat -----------------------------------------------------------------------
class Flip(Function):
    _array_forward = True
    _node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        if a.ndim == 0:
            return a.copy()
        key = tuple(slice(None, None, -1) if i in dims else _FULL for i in range(a.ndim))
        return a[key].copy()

    @staticmethod
    def backward(ctx, g):
        return flip(g, ctx.dims), None


def flip(input: Tensor, *dims, **kwargs) -> Tensor:
    """Reverse the order of elements along ``dims`` (a copy, as in PyTorch).

    Example:
        >>> ember.arange(3).flip(0)
        tensor([2, 1, 0])
    """
    if kwargs:
        dims = _keyword_size(dims, kwargs, "dims", "flip")
    return unary(Flip, input, _dims_arg(dims, input._data.ndim))


def fliplr(input: Tensor) -> Tensor:
    """Flip dim 1 (left/right) of a tensor with at least 2 dims."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    """Flip dim 0 (up/down) of a tensor with at least 1 dim."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class Roll(Function):
    _array_forward = True
    _node_name = "RollBackward0"

    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        if a.ndim == 0:
            return a.copy()
        return xp_of(a).roll(a, shifts, dims)

    @staticmethod
    def backward(ctx, g):
        return roll(g, tuple(-s for s in ctx.shifts), ctx.dims), None, None


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Shift elements cyclically along ``dims`` (all elements, flattened, when ``dims`` is None).

    Example:
        >>> ember.arange(4).roll(1)
        tensor([3, 0, 1, 2])
    """
    shifts = (
        (operator.index(shifts),)
        if isinstance(shifts, (int, Tensor))
        else tuple(operator.index(s) for s in shifts)
    )
    n = input._data.ndim
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return unary(Roll, input, shifts, None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    if n == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return unary(Roll, input, shifts, tuple(_wrap_dim(d, n) for d in dims))


class Repeat(Function):
    _array_forward = True
    _node_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, a, reps):
        shape = (1,) * (len(reps) - a.ndim) + a.shape
        ctx.shape = a.shape
        ctx.reps = reps
        ctx.inner = shape
        # tile by broadcasting an interleaved (1, s0, 1, s1, ...) view to (r0, s0, r1, s1, ...)
        inter = tuple(x for s in shape for x in (1, s))
        big = tuple(x for r, s in zip(reps, shape, strict=False) for x in (r, s))
        xp = xp_of(a)
        out = xp.empty(tuple(r * s for r, s in zip(reps, shape, strict=False)), dtype=a.dtype)
        out.reshape(big)[...] = xp.broadcast_to(a.reshape(inter), big)  # always a fresh copy
        return out

    @staticmethod
    def backward(ctx, g):
        big = tuple(x for r, s in zip(ctx.reps, ctx.inner, strict=False) for x in (r, s))
        g = g.reshape(big)
        if big:
            g = g.sum(tuple(range(0, len(big), 2)))
        return g.reshape(ctx.shape), None


def repeat(input: Tensor, *repeats, **kwargs) -> Tensor:
    """Tile the tensor ``sizes[i]`` times along each dim (a copy).

    Example:
        >>> ember.tensor([1, 2]).repeat(2)
        tensor([1, 2, 1, 2])
    """
    if kwargs:
        repeats = _keyword_size(repeats, kwargs, "repeats", "repeat")
    sizes = repeats
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    reps = _size_args(sizes)
    if len(reps) < input._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number "
            "of dimensions of tensor"
        )
    for r in reps:
        if r < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {r}: {list(reps)}")
    return unary(Repeat, input, reps)


def tile(input: Tensor, dims) -> Tensor:
    """``repeat`` with ``dims`` padded by leading ones to the tensor's rank."""
    dims = _size_args((dims,)) if not isinstance(dims, int) else (dims,)
    dims = (1,) * (input._data.ndim - len(dims)) + dims
    return repeat(input, dims)


def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element ``repeats`` times (an int or one count per element) along ``dim``
    (the flattened input when ``dim`` is None). ``repeat_interleave(counts)`` gives the indices
    ``[0]*counts[0] + [1]*counts[1] + ...``.

    Example:
        >>> ember.tensor([1, 2]).repeat_interleave(2)
        tensor([1, 1, 2, 2])
    """
    if repeats is None:  # repeat_interleave(repeats): indices 0..n-1 repeated
        return _interleave_index(input)
    if dim is None:
        input = reshape(input, -1)
        dim = 0
    d = _wrap_dim(dim, input._data.ndim)
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        size = input._data.shape[d] if input._data.ndim else 1
        if repeats.numel() == 1:
            repeats = repeats.reshape(1).expand(size)
        if repeats.shape[0] != size:
            raise RuntimeError(
                f"repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {repeats.shape[0]} and input.size({d}) = {size}"
            )
        from ember.ops.index_dim import index_select

        idx = _interleave_index(repeats)
        if output_size is not None and idx.shape[0] != output_size:
            raise RuntimeError(
                f"repeat_interleave: output_size {output_size} does not match "
                f"the sum of repeats {idx.shape[0]}"
            )
        return index_select(input, d, idx)
    r = operator.index(repeats.reshape(()) if isinstance(repeats, Tensor) else repeats)
    if r < 0:
        raise RuntimeError("Repeats must be non-negative")
    if input._data.ndim == 0:
        input = reshape(input, 1)
    shape = input._data.shape
    e = expand(unsqueeze(input, d + 1), shape[: d + 1] + (r,) + shape[d + 1 :])
    from ember.ops.conversion import clone

    return view(clone(e), shape[:d] + (shape[d] * r,) + shape[d + 1 :])


def _interleave_index(repeats: Tensor) -> Tensor:
    a = repeats._data
    xp = xp_of(a)
    if xp.device_type == "meta":
        raise NotImplementedError(
            "repeat_interleave with tensor repeats on a meta tensor: the "
            "result size depends on the data"
        )
    if a.ndim > 1 or a.dtype.kind not in "iu":
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    a = a.reshape(-1)
    if a.size and int(a.min()) < 0:
        raise RuntimeError("repeats can not be negative")
    return _wrap(xp.repeat(xp.arange(a.shape[0], dtype=a.dtype), a).astype("int64"))


__all__ = [
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "tile",
    "repeat_interleave",
]

Tensor.flip = flip
Tensor.fliplr = fliplr
Tensor.flipud = flipud
Tensor.roll = roll
Tensor.repeat = repeat
Tensor.tile = tile
Tensor.repeat_interleave = repeat_interleave
