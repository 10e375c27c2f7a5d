"""``ember.nn.functional``: Shape and resampling: pad, interpolate, upsample, pixel_shuffle,
pixel_unshuffle, channel_shuffle."""

from __future__ import annotations

import operator

from ember.ops import vision as _vision
from ember.tensor import Tensor

__all__ = ["pad"]

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_tuple(pad) -> tuple:
    """``pad`` as a tuple of Python ints, with torch's TypeErrors for anything else."""
    if isinstance(pad, Tensor) or not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{type(pad).__name__}")
    out = []
    for i, p in enumerate(pad):
        if isinstance(p, bool) or isinstance(p, float):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}")
        try:
            out.append(operator.index(p) if not isinstance(p, Tensor) else int(p.item()))
        except TypeError:
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}") from None
    return tuple(out)


def _check_non_constant(x: Tensor, pairs: tuple, mode: str) -> None:
    """torch's checks for reflect/replicate/circular over ``k = len(pairs)`` dims."""
    ndim, k = x.dim(), len(pairs)
    shape = tuple(x.shape)
    if not 1 <= k <= 3 or ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {2 * k} is not supported for {ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    sizes = shape[ndim - k:]
    outs = [n + lo + hi for n, (lo, hi) in zip(sizes, pairs)]
    if mode == "circular":
        for n, (lo, hi) in zip(sizes, pairs):
            if lo > n or hi > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
        if any(o < 0 for o in outs):
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        for n, (lo, hi) in zip(sizes, pairs):
            kept = n - max(-lo, 0) - max(-hi, 0)
            if max(lo, 0) > kept or max(hi, 0) > kept:
                # deliberate difference: torch reads memory it has not written here
                raise RuntimeError(
                    f"pad(): circular padding {(lo, hi)} wraps around more than once what "
                    f"remains ({kept}) of a dimension of size {n} after cropping (input "
                    f"{list(shape)}); crop and pad in two calls instead")
        return
    batched = ndim == k + 2
    if any(s == 0 for s in shape[1 if batched else 0:]):
        raise RuntimeError(
            f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {list(shape)}")
    if mode == "reflect":
        for j in range(k - 1, -1, -1):  # torch checks the last dim first
            lo, hi = pairs[j]
            if lo >= sizes[j] or hi >= sizes[j]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * (k - 1 - j)}: Padding size should be less than the "
                    f"corresponding input dimension, but got: padding ({lo}, {hi}) at "
                    f"dimension {ndim - k + j} of input {list(shape)}")
    if any(o < 0 for o in outs):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: "
                           f"{list(shape[:ndim - k]) + outs}")
    if all(o < 1 for o in outs):
        names = "DHW"[3 - k:]
        # NOTE: matches torch: its 2-d message has a space before the parenthesis
        gap = " " if k == 2 else ""
        raise RuntimeError(
            f"input ({', '.join(f'{a}: {n}' for a, n in zip(names, sizes))}{gap}) is too small. "
            f"Calculated output {' '.join(f'{a}: {o}' for a, o in zip(names, outs))}")


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad ``input``: ``pad`` = ``(left, right)`` for the last dim, then ``(top, bottom)`` for
    the one before, and so on (negative values crop). ``mode``: ``'constant'`` (fill with
    ``value``, default 0, any rank), ``'reflect'`` (mirror without repeating the edge),
    ``'replicate'`` (repeat the edge), ``'circular'`` (wrap around); the last three pad 1, 2 or
    3 trailing dims of a (batched or unbatched) input.

    Example:
        >>> x = ember.tensor([[1.0, 2.0, 3.0]])
        >>> ember.nn.functional.pad(x, (2, 1), mode="reflect")
        tensor([[3., 2., 1., 2., 3., 2.]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    p = _pad_tuple(pad)
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(p) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    ndim = input.dim()
    if len(p) > 2 * ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(p)} and input of dimension "
                           f"{ndim}")
    # torch lists pads from the last dim backwards; the primitive takes them in dim order
    pairs = tuple((p[2 * i], p[2 * i + 1]) for i in range(len(p) // 2 - 1, -1, -1))
    if mode == "constant":
        shape = tuple(input.shape)
        for n, (lo, hi) in zip(shape[ndim - len(pairs):], pairs):
            if n + min(lo, 0) + min(hi, 0) < 0:
                raise RuntimeError(
                    f"narrow(): length must be non-negative. (pad(): cropping {(-lo, -hi)} "
                    f"from a dimension of size {n} of input {list(shape)})")
        if not pairs:
            return input.clone()
        value = 0 if value is None else value
        return _vision.pad_node("constant", len(pairs)).apply(input, pairs, mode, value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    _check_non_constant(input, pairs, mode)
    return _vision.pad_node(mode, len(pairs)).apply(input, pairs, mode, 0)
