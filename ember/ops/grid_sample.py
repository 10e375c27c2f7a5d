"""Primitives behind ``ember.nn.functional.grid_sample`` and ``affine_grid`` (split from
``vision.py``, whose cubic coefficients they share; nn-only, not public ops).

``grid_taps`` turns a sampling grid into taps (flat source indices and weights per corner of
each sample's neighbourhood); ``GridCombine`` gathers the input at the taps and weighs them,
its gradients going to the input through ``PlaneScatter`` (one ``bincount`` per sample, no
``add.at``) and to the grid through the weights; ``AffineGrid`` is ``theta`` applied to a base
grid of normalized coordinates.
"""

from __future__ import annotations

import functools
import math

from ember.autograd.function import Function
from ember.autograd.grad_mode import is_grad_enabled
from ember.ops._dispatch import xp_of
from ember.ops.vision import _cpu
from ember.tensor import Tensor, _wrap

# ``F.grid_sample`` reads each output position from K input positions ("taps": 1 for nearest,
# 2**k corners for (tri)linear, 16 for bicubic) and sums them with weights that depend on the
# grid. The integer tap positions are constants; the weights are Tensors computed from the grid
# with Tensor ops (padding is piecewise linear in the coordinate, so each weight factor is
# ``grid * m + c`` with array constants ``m``, ``c``), which gives the grid its gradient of any
# order. ``GridCombine`` is the one pass over the input: ``out[n, c, q] = sum_k w[k, n, q] *
# x[n, c, tap[k, n, q]]``. Its gradient gathers (``PlaneGather``) and scatter-adds
# (``PlaneScatter``, one ``bincount``) along the same taps; those two are each other's adjoint,
# so every order of derivative is these array passes.


class Taps:
    """The input positions of a grid sample: ``idx`` ``(K, N, Q)``, flat spatial positions in
    each sample's ``(C, P)`` plane stack. The passes loop over the batch: per sample, a
    ``take`` along the plane axis with a 1-D index is much cheaper than one fancy index over
    the whole input (no ``(K, N, C, Q)`` index array)."""

    __slots__ = ("idx", "c", "p", "_chan")

    def __init__(self, idx, c: int, p: int) -> None:
        self.idx, self.c, self.p, self._chan = idx, c, p, None

    def gather(self, x, n: int):
        """What every tap of sample ``n`` reads from an ``(N, C, P)`` array: ``(C, K, Q)``
        (one ``take``)."""
        kk, _, q = self.idx.shape
        return x[n].take(self.idx[:, n].reshape(-1), axis=1).reshape(self.c, kk, q)

    def scatter(self, xp, v, n: int):
        """``(C, K, Q)`` values of sample ``n`` summed onto the positions they were read
        from: ``(C, P)`` (one ``bincount``, no ``add.at``)."""
        if self._chan is None:
            self._chan = (xp.arange(self.c, dtype=xp.int64) * self.p)[:, None, None]
        flat = (self._chan + self.idx[None, :, n]).reshape(-1)
        out = xp.bincount(flat, v.reshape(-1), minlength=self.c * self.p)
        return out.reshape(self.c, self.p)


def _planes(xp, x):
    """``x`` ``(N, C, *S)`` as ``(N, C, P)``."""
    return x.reshape(x.shape[0], x.shape[1], math.prod(x.shape[2:]))


class GridCombine(Function):
    """``out[n, c, q] = sum_k w[k, n, q] * x[n, c, taps[k, n, q]]`` for ``x`` ``(N, C, *S)``
    and weights ``w`` ``(K, N, Q)``: output ``(N, C, Q)`` viewed as ``out_shape``. Linear in
    ``x`` and in ``w``. ``link`` (the grid, or None) gets a zero gradient: nearest sampling's
    weights are constants, but PyTorch still gives the grid a (zero) gradient."""

    _array_forward = True
    _node_name = "GridSampler2DBackward0"

    @staticmethod
    def forward(ctx, x, w, taps, out_shape, link):
        xp = xp_of(x)
        xs = _planes(xp, x)
        n_, c = x.shape[:2]
        out = xp.empty((n_, c, w.shape[2]), dtype=x.dtype)
        for n in range(n_):
            xp.einsum("ckq,kq->cq", taps.gather(xs, n), w[:, n], out=out[n])
        ctx.taps = taps
        ctx.link = None if link is None else (link.shape, link.dtype)
        ctx.save_for_backward(x, w)
        return out.reshape(out_shape)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need_x, need_w = ctx.needs_input_grad[:2]
        glink = None
        if ctx.link is not None and ctx.needs_input_grad[4]:
            glink = _wrap(xp_of(g._data).zeros(*ctx.link))
        g = g.reshape(w.shape[1], x.shape[1], w.shape[2])
        if not is_grad_enabled():  # first order only: one fused pass, no (K, N, C, Q) arrays
            gx, gw = _combine_grads(x._data, w._data, g._data, ctx.taps, need_x, need_w)
            return (
                (_wrap(gx) if need_x else None),
                (_wrap(gw) if need_w else None),
                None,
                None,
                glink,
            )
        gx = gw = None
        if need_x:  # each tap's share of g, summed back onto the position it read
            gx = PlaneScatter.apply(g.unsqueeze(0) * w.unsqueeze(2), ctx.taps, tuple(x.shape))
        if need_w:  # d out / d w[k] = the value tap k read, times g, summed over channels
            gw = (PlaneGather.apply(x, ctx.taps) * g.unsqueeze(0)).sum(2)
        return gx, gw, None, None, glink


def _combine_grads(x, w, g, taps, need_x, need_w):
    """``GridCombine``'s input and weight gradients on arrays, one sample at a time."""
    xp = xp_of(x)
    xs = _planes(xp, x)
    n_, c = x.shape[:2]
    gx = xp.empty((n_, c, taps.p), dtype=x.dtype) if need_x else None
    gw = xp.empty(w.shape, dtype=w.dtype) if need_w else None
    for n in range(n_):
        gn = g[n]
        if need_w:
            xp.einsum("ckq,cq->kq", taps.gather(xs, n), gn, out=gw[:, n])
        if need_x:
            gx[n] = taps.scatter(xp, gn[:, None, :] * w[:, n], n)
    return (gx.reshape(x.shape) if need_x else None), gw


class PlaneGather(Function):
    """``x[n, c, taps[k, n, q]]`` for every tap: ``(N, C, *S)`` to ``(K, N, C, Q)``."""

    _array_forward = True
    _node_name = "GridSamplerGatherBackward0"

    @staticmethod
    def forward(ctx, x, taps):
        ctx.taps, ctx.shape = taps, x.shape
        xp = xp_of(x)
        xs = _planes(xp, x)
        kk, n_, q = taps.idx.shape
        out = xp.empty((kk, n_, x.shape[1], q), dtype=x.dtype)
        for n in range(n_):
            out[:, n] = taps.gather(xs, n).transpose(1, 0, 2)
        return out

    @staticmethod
    def backward(ctx, g):
        return PlaneScatter.apply(g, ctx.taps, ctx.shape), None


class PlaneScatter(Function):
    """The adjoint of ``PlaneGather``: ``(K, N, C, Q)`` values added onto the input positions
    they were read from, an ``(N, C, *S)`` array."""

    _array_forward = True
    _node_name = "GridSamplerScatterBackward0"

    @staticmethod
    def forward(ctx, v, taps, shape):
        ctx.taps = taps
        xp = xp_of(v)
        out = xp.empty((shape[0], shape[1], taps.p), dtype=v.dtype)
        for n in range(shape[0]):
            out[n] = taps.scatter(xp, v[:, n].transpose(1, 0, 2), n)  # sums in float64
        return out.reshape(shape)

    @staticmethod
    def backward(ctx, g):
        return PlaneGather.apply(g, ctx.taps), None, None


def _unnormalize(xp, coord, size: int, align_corners: bool):
    """Grid coordinate in [-1, 1] to input index, and its derivative."""
    if align_corners:
        a = (size - 1) / 2
        return (coord + 1) * a, a
    a = size / 2
    return (coord + 1) * a - 0.5, a


def _clip(xp, src, size: int):
    # NOTE: matches torch: the borders themselves count as clipped (zero gradient)
    hi = size - 1
    return xp.clip(src, 0, hi), ((src > 0) & (src < hi))


def _reflect(xp, src, twice_lo: int, twice_hi: int):
    """``src`` reflected into [twice_lo / 2, twice_hi / 2] (as often as needed), and the sign
    of the derivative."""
    if twice_lo == twice_hi:
        return xp.zeros_like(src), xp.zeros_like(src)
    lo = twice_lo / 2
    span = (twice_hi - twice_lo) / 2
    v = src - lo
    sign = xp.where(v < 0, -1.0, 1.0).astype(src.dtype)
    v = xp.abs(v)
    extra = xp.fmod(v, span)
    even = xp.fmod(xp.floor(v / span), 2) == 0
    return xp.where(even, extra + lo, span - extra + lo), xp.where(even, sign, -sign)


def _pad_coordinate(xp, src, size: int, padding_mode: str, align_corners: bool):
    """``src`` mapped by the padding mode into the input, and the derivative factor."""
    if padding_mode == "border":
        return _clip(xp, src, size)
    if padding_mode == "reflection":
        if align_corners:
            src, d = _reflect(xp, src, 0, 2 * (size - 1))
        else:
            src, d = _reflect(xp, src, -1, 2 * size - 1)
        src, dc = _clip(xp, src, size)
        return src, d * dc
    return src, 1


def _linear_in_grid(xp, grid_t: Tensor, coord, m, value) -> Tensor:
    """The Tensor ``grid_t * m + c`` equal to ``value`` (``c = value - coord * m``): a function
    of the grid with derivative ``m`` where ``value`` is a piecewise-linear function of
    ``coord``."""
    if isinstance(m, (int, float)):
        return grid_t * m + _wrap(value - coord * m)
    m = m.astype(value.dtype, copy=False)
    return grid_t * _wrap(m) + _wrap(value - coord * m)


# taps of a bicubic axis: distances of the 4 taps from the point, and which are "near" (|x| <= 1)
_CUBIC_SIGN = (1.0, 1.0, -1.0, -1.0)
_CUBIC_SHIFT = (1.0, 0.0, 1.0, 2.0)
_CUBIC_NEAR = (0.0, 1.0, 1.0, 0.0)


def _cubic_stack(xp, t: Tensor) -> Tensor:
    """The 4 Keys cubic weights (A = -0.75) of the taps around fraction ``t`` ``(N, Q)``,
    stacked ``(4, N, Q)``: each polynomial evaluated once on all four tap distances."""
    dt = t._data.dtype
    col = (4, 1, 1)
    x = t.unsqueeze(0) * _wrap(xp.asarray(_CUBIC_SIGN, dt).reshape(col)) + _wrap(
        xp.asarray(_CUBIC_SHIFT, dt).reshape(col)
    )
    near, far = _cubic_coeffs_parts(x)
    m = xp.asarray(_CUBIC_NEAR, dt).reshape(col)
    return near * _wrap(m) + far * _wrap(1 - m)


def _cubic_coeffs_parts(x):
    """Keys' two cubic pieces (A = -0.75, as ``_cubic_coeffs``) at distance ``x``."""
    a = -0.75
    near = ((a + 2) * x - (a + 3)) * x * x + 1  # |x| <= 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a  # 1 < |x| < 2
    return near, far


def grid_taps(input_shape, grid: Tensor, mode: str, padding_mode: str, align_corners: bool):
    """The weights ``(K, N, Q)`` (a Tensor of the grid) and ``Taps`` of a grid sample of an
    input of ``input_shape`` at ``grid`` ``(N, *out, k)``; the arguments are checked.

    Every scheme is separable: per spatial dim, T taps with an index, a weight factor (a
    Tensor, or none for nearest) and a validity mask, all ``(T, N, Q)``; the K = prod(T) taps
    are their broadcast products."""
    g = grid._data
    xp = xp_of(g)
    n, c = input_shape[:2]
    sizes = tuple(input_shape[2:])
    k = len(sizes)
    q = math.prod(g.shape[1:-1])
    g = g.reshape(n, q, k)
    gt = grid.reshape(n, q, k)
    col = (2, 1, 1)
    idxs, factors, valids = [], [], []
    for d, size in enumerate(sizes):
        j = k - 1 - d  # the grid lists x (the last dim) first
        coord = g[:, :, j]
        src, a = _unnormalize(xp, coord, size, align_corners)
        if mode == "bicubic":
            base = xp.floor(src)
            t = _linear_in_grid(xp, gt[:, :, j], coord, a, src - base)
            pos, _ = _pad_coordinate(
                xp,
                base[None] + xp.arange(-1, 3, dtype=g.dtype)[:, None, None],
                size,
                padding_mode,
                align_corners,
            )
            # NOTE: matches torch: the padded tap is truncated toward zero
            idx = pos.astype(xp.int64)
            factor = _cubic_stack(xp, t)
        else:
            src, dsrc = _pad_coordinate(xp, src, size, padding_mode, align_corners)
            if mode == "nearest":
                idx = xp.rint(src).astype(xp.int64)[None]  # half to even, as nearbyint
                factor = None
            else:
                base = xp.floor(src)
                idx = base.astype(xp.int64)[None] + xp.arange(2)[:, None, None]
                frac = _linear_in_grid(xp, gt[:, :, j], coord, a * dsrc, src - base)
                # (1 - frac, frac) in two ops
                factor = frac.unsqueeze(0) * _wrap(
                    xp.asarray((-1.0, 1.0), g.dtype).reshape(col)
                ) + _wrap(xp.asarray((1.0, 0.0), g.dtype).reshape(col))
        valid = (idx >= 0) & (idx < size)
        if not valid.all():
            idx = xp.where(valid, idx, 0)
            if factor is not None:
                factor = factor * _wrap(valid.astype(g.dtype))
        idxs.append(idx)
        factors.append(factor)
        valids.append(valid)
    # broadcast the per-dim taps against each other: dim d's taps along axis d of (T_0, ...)
    strides = [math.prod(sizes[d + 1 :]) for d in range(k)]

    def spread(a, d):
        return a.reshape((1,) * d + (a.shape[0],) + (1,) * (k - 1 - d) + (n, q))

    pos = spread(idxs[0], 0) * strides[0]
    for d in range(1, k):
        pos = pos + (spread(idxs[d], d) * strides[d] if strides[d] != 1 else spread(idxs[d], d))
    kk = math.prod(idx.shape[0] for idx in idxs)
    taps = Taps(xp.ascontiguousarray(pos.reshape(kk, n, q)), c, math.prod(sizes))
    if factors[0] is None:  # nearest: constant weights (1 where the tap is inside)
        ok = valids[0]
        for d in range(1, k):
            ok = spread(ok, 0) & spread(valids[d], d)
        return _wrap(ok.reshape(kk, n, q).astype(g.dtype)), taps
    w = factors[0].reshape((factors[0].shape[0],) + (1,) * (k - 1) + (n, q))
    for d in range(1, k):
        w = w * factors[d].reshape((1,) * d + (factors[d].shape[0],) + (1,) * (k - 1 - d) + (n, q))
    return w.reshape(kk, n, q), taps


_GRID_NODES = {2: GridCombine}


def grid_combine(
    input: Tensor, w: Tensor, taps: Taps, out_shape: tuple, link: Tensor | None = None
) -> Tensor:
    """``GridCombine`` under PyTorch's node name for the input's rank."""
    k = input.dim() - 2
    cls = _GRID_NODES.get(k)
    if cls is None:
        cls = _GRID_NODES[k] = type(
            f"GridCombine{k}D", (GridCombine,), {"_node_name": f"GridSampler{k}DBackward0"}
        )
    return cls.apply(input, w, taps, out_shape, link)


# ---- affine grids -------------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _base_grid(sizes: tuple, align_corners: bool, dtname: str):
    """``(prod(sizes), k + 1)`` rows ``[x, y, (z,) 1]`` of the sample points of an output of
    ``sizes`` (outermost first), x varying fastest (a cached CPU array: read only)."""
    dt = _cpu.dtype(dtname)
    axes = []
    for n in sizes:
        if n <= 1:
            axes.append(_cpu.zeros(max(n, 0), dtype=dt))
            continue
        a = _cpu.linspace(-1, 1, n, dtype=dt)
        # NOTE: matches torch: without align_corners the points are pixel centres
        axes.append(a if align_corners else a * dt.type((n - 1) / n))
    mesh = _cpu.meshgrid(*axes, indexing="ij")
    cols = [m.reshape(-1) for m in reversed(mesh)] + [_cpu.ones(math.prod(sizes), dtype=dt)]
    out = _cpu.stack(cols, axis=1)
    out.flags.writeable = False
    return out


class AffineGrid(Function):
    """``theta`` ``(N, k, k + 1)`` applied to the base grid: ``(N, *sizes, k)`` sample points.
    Linear in ``theta``."""

    _array_forward = True
    _node_name = "AffineGridGeneratorBackward0"

    @staticmethod
    def forward(ctx, theta, sizes, align_corners):
        xp = xp_of(theta)
        base = _base_grid(sizes, align_corners, theta.dtype.name)
        if xp is not _cpu:
            base = xp.asarray(base)
        ctx.base, ctx.sizes = base, sizes
        n, k = theta.shape[0], theta.shape[1]
        # (N, P, k + 1) @ (N, k + 1, k): one batched GEMM
        return xp.matmul(base, theta.transpose(0, 2, 1)).reshape((n,) + sizes + (k,))

    @staticmethod
    def backward(ctx, g):
        n, k = g.shape[0], g.shape[-1]
        # d theta[n] = g[n]^T @ base
        return g.reshape(n, -1, k).mT @ _wrap(ctx.base), None, None
