"""The fractional max pooling primitive (split from ``pooling.py``; nn-only): windows of a
fixed size whose starts follow a pseudo-random sequence (torch's rule, from ``samples`` in
[0, 1) per plane and spatial dim), the maximum and its flat index per window; backward scatters
the gradient to the winners, and the scatter and gather are each other's backward.
"""

from __future__ import annotations

import itertools
import math

from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.tensor import Tensor


def fractional_starts(xp, u, size: int, o: int, k: int):
    """Window starts of fractional max pooling (Graham, 2014) along one axis, per plane: ``u``
    ``(N, C)`` samples in [0, 1) of the input's float type; ``(N, C, o)`` int64 starts."""
    dt = u.dtype.type
    out = xp.empty(u.shape + (o,), dtype=xp.int64)
    if o > 1:
        alpha = dt(size - k) / dt(o - 1)
        i = xp.arange(o - 1).astype(u.dtype)
        # NOTE: matches torch: int((i + u) * alpha) - int(u * alpha), in the input's precision
        out[..., :-1] = ((i + u[..., None]) * alpha).astype(xp.int64) - (
            (u * alpha).astype(xp.int64)[..., None]
        )
    if o > 0:
        out[..., -1] = size - k
    return out


class FractionalMaxPool(Function):
    """Maximum over windows of ``kernel`` at per-plane ``starts`` (one ``(N, C, O_d)`` array per
    spatial dim) of an ``(N, C, *S)`` input; returns the output and the flat per-plane indices
    of the maxima."""

    _array_forward = True
    _node_name = "FractionalMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, x, starts, kernel):
        xp = xp_of(x)
        if x.ndim == len(kernel) + 1:  # unbatched: one sample, the same memory layout
            y, idx = FractionalMaxPool.forward(ctx, x[None], starts, kernel)
            ctx.in_shape = x.shape
            return y[0], idx[0]
        n, c = x.shape[:2]
        sizes = x.shape[2:]
        k = len(sizes)
        outs = tuple(st.shape[-1] for st in starts)
        if xp.device_type == "meta":
            ctx.flat, ctx.in_shape = None, x.shape
            return xp.empty((n, c) + outs, dtype=x.dtype), xp.empty((n, c) + outs, xp.int64)
        strides = [math.prod(sizes[d + 1 :]) for d in range(k)]
        plane = math.prod(sizes)
        # in-plane position of every window's first slot, (N, C, *outs), and the offset of each
        # slot from it, in row-major window order
        base = 0
        for d in range(k):
            shape = [n, c] + [outs[d] if j == d else 1 for j in range(k)]
            base = base + starts[d].reshape(shape) * strides[d]
        base = xp.broadcast_to(base, (n, c) + outs)
        offs = [
            sum(o * st for o, st in zip(slot, strides))
            for slot in itertools.product(*(range(max(kd, 0)) for kd in kernel))
        ]
        if not offs:
            # NOTE: matches torch: an empty window gives -inf at its start position
            idx = xp.ascontiguousarray(base, dtype=xp.int64)
            y = xp.full((n, c) + outs, -math.inf, dtype=x.dtype)
        else:
            # one contiguous gather per slot and a running maximum, as torch's loop: a later
            # slot wins only if strictly greater (the first maximum stays) or, when the input
            # has NaNs, if it is NaN (the last NaN wins)
            flat0 = base + (xp.arange(n * c, dtype=xp.int64) * plane).reshape((n, c) + (1,) * k)
            xf = x.reshape(-1)
            # slot j read through the input shifted by its offset: no index arithmetic per slot
            y = xf[offs[0] :].take(flat0)
            win = xp.zeros(y.shape, dtype=xp.int16 if len(offs) < 2**15 else xp.int64)
            nan = x.dtype.kind in "fV" and bool(xp.isnan(x.sum()))
            for j in range(1, len(offs)):
                v = xf[offs[j] :].take(flat0)
                upd = v > y
                if nan:
                    upd |= xp.isnan(v)
                xp.copyto(y, v, where=upd)
                xp.copyto(win, j, where=upd)
            o = xp.asarray(offs, dtype=xp.int64).take(win)
            idx = base + o
            ctx.flat = (flat0 + o).reshape(-1)
            ctx.in_shape = x.shape
            return y, idx
        ctx.in_shape = x.shape
        ctx.flat = (
            idx + (xp.arange(n * c, dtype=xp.int64) * plane).reshape((n, c) + (1,) * k)
        ).reshape(-1)
        return y, idx

    @staticmethod
    def backward(ctx, g, _):
        return _IndexScatter.apply(g, ctx.flat, ctx.in_shape), None, None


class _IndexScatter(Function):
    """``g`` added onto the flat positions ``flat`` of a zero array of ``shape`` (repeated
    positions accumulate: one ``bincount``)."""

    _array_forward = True
    _node_name = "FractionalMaxPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, g, flat, shape):
        ctx.flat, ctx.g_shape = flat, g.shape
        xp = xp_of(g)
        out = xp.bincount(flat, g.reshape(-1), minlength=math.prod(shape))
        return out.astype(g.dtype, copy=False).reshape(shape)

    @staticmethod
    def backward(ctx, gg):
        return _IndexGather.apply(gg, ctx.flat, ctx.g_shape), None, None


class _IndexGather(Function):
    """The values at the flat positions ``flat`` of ``a``, shaped ``shape`` (the adjoint of
    ``_IndexScatter``)."""

    _array_forward = True
    _node_name = "FractionalMaxPoolGatherBackward0"

    @staticmethod
    def forward(ctx, a, flat, shape):
        ctx.flat, ctx.in_shape = flat, a.shape
        return a.reshape(-1).take(flat).reshape(shape)

    @staticmethod
    def backward(ctx, g):
        return _IndexScatter.apply(g, ctx.flat, ctx.in_shape), None, None


_FRACTIONAL_NODES = {
    2: FractionalMaxPool,
    3: type(
        "FractionalMaxPool3D", (FractionalMaxPool,), {"_node_name": "FractionalMaxPool3DBackward0"}
    ),
}


def fractional_max_pool(input: Tensor, kernel, output, samples: Tensor):
    """Fractional max pooling of an ``(N, C, *S)`` or ``(C, *S)`` input (arguments checked):
    the output and the int64 per-plane indices of the maxima. ``samples`` ``(>= N, C, k)`` holds the
    random offsets, PyTorch's order (2-d: width, height; 3-d: depth, height, width)."""
    k = len(kernel)
    x = input._data
    xp = xp_of(x)
    if x.ndim == k + 1:
        x = x[None]
    n, c = x.shape[:2]
    u = samples._data[:n]
    if u.dtype.char in "eE":
        u = u.astype(xp.float32)
    order = (1, 0) if k == 2 else (0, 1, 2)  # the sample column of each spatial dim
    starts = tuple(
        fractional_starts(xp, u[:, :, order[d]], x.shape[2 + d], output[d], kernel[d])
        for d in range(k)
    )
    return _FRACTIONAL_NODES[k].apply(input, starts, tuple(kernel))


__all__: list[str] = []
