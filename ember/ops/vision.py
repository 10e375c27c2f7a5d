"""Primitives behind ``ember.nn.functional``'s padding and resampling (not public ops of their
own: ``F.pad`` and ``F.interpolate`` validate their arguments and call these).

Padding is one linear map per mode, ``Pad``, and its adjoint, ``PadFold`` (the gradient of a
pad: the centre of the output gradient with each border's gradient summed back into the input
elements it was copied from). Each is the other's backward, so gradients of any order are
these two array passes. ``pads`` is ``((left, right), ...)`` for the last ``len(pads)`` dims in
dim order; negative entries crop.

Both work on raw arrays by slicing only: the output is allocated once, the input copied into
its centre, and each border filled from the part of the output already written (reflect and
circular borders are slices of it, replicate borders a broadcast of its edge).
"""

from __future__ import annotations

import functools
import math

from ember import backend
from ember.autograd.function import Function
from ember.autograd.grad_mode import is_grad_enabled
from ember.ops._dispatch import xp_of
from ember.tensor import Tensor, _wrap

_ALL = slice(None)


def _crops_and_pads(pads):
    """Split ``pads`` into the crops (the negative parts, as positive numbers) and the
    padding proper (the positive parts)."""
    crops = tuple((max(-lo, 0), max(-hi, 0)) for lo, hi in pads)
    grow = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pads)
    return crops, grow


def _crop(x, crops):
    """The view of ``x`` without ``crops`` along its last ``len(crops)`` dims."""
    if not any(lo or hi for lo, hi in crops):
        return x
    lead = x.ndim - len(crops)
    return x[(_ALL,) * lead + tuple(slice(lo, x.shape[lead + i] - hi)
                                    for i, (lo, hi) in enumerate(crops))]


def _pad_grow(x, grow, mode, value):
    """``x`` padded by the non-negative ``grow``: one allocation, then slice copies."""
    xp = xp_of(x)
    lead = x.ndim - len(grow)
    shape = x.shape[:lead] + tuple(n + lo + hi for n, (lo, hi) in zip(x.shape[lead:], grow))
    out = xp.empty(shape, dtype=x.dtype)
    centre = [slice(lo, lo + n) for n, (lo, hi) in zip(x.shape[lead:], grow)]
    out[(_ALL,) * lead + tuple(centre)] = x
    if mode == "constant":
        for i, (lo, hi) in enumerate(grow):
            head = (_ALL,) * (lead + i)
            if lo:
                out[head + (slice(0, lo),)] = value
            if hi:
                out[head + (slice(shape[lead + i] - hi, None),)] = value
        return out
    # Border of dim i: full extent along the dims already filled (so corners come out right),
    # centre only along the dims still to do (their borders are not written yet).
    for i, (lo, hi) in enumerate(grow):
        if not (lo or hi):
            continue
        n = x.shape[lead + i]
        head = (_ALL,) * (lead + i)
        tail = tuple(centre[i + 1:])

        def at(s, head=head, tail=tail):
            return head + (s,) + tail

        if mode == "reflect":
            # out index lo - k (k = 1..lo) mirrors input k, i.e. out index lo + k
            if lo:
                out[at(slice(0, lo))] = out[at(slice(2 * lo, lo, -1))]
            if hi:
                last = lo + n - 1  # out index last + k mirrors last - k
                stop = last - hi - 1
                out[at(slice(last + 1, last + 1 + hi))] = out[
                    at(slice(last - 1, stop if stop >= 0 else None, -1))]
        elif mode == "replicate":
            if lo:
                out[at(slice(0, lo))] = out[at(slice(lo, lo + 1))]
            if hi:
                out[at(slice(lo + n, lo + n + hi))] = out[at(slice(lo + n - 1, lo + n))]
        else:  # circular: out index lo - k is input n - k, out index lo + n + k is input k
            if lo:
                out[at(slice(0, lo))] = out[at(slice(n, n + lo))]
            if hi:
                out[at(slice(lo + n, lo + n + hi))] = out[at(slice(lo, lo + hi))]
    return out


def _fold_grow(g, grow, mode):
    """The adjoint of ``_pad_grow``: the centre of ``g`` with each border added back onto the
    input elements it was copied from (sums of reversed or shifted slices: no scatter)."""
    lead = g.ndim - len(grow)
    own = False  # whether ``g`` is our own array yet (the incoming gradient must not change)
    for i in range(len(grow) - 1, -1, -1):  # the reverse of the order the borders were filled
        lo, hi = grow[i]
        if not (lo or hi):
            continue
        d = lead + i
        n = g.shape[d] - lo - hi
        head = (_ALL,) * d

        def at(s, head=head):
            return head + (s,)

        c = g[at(slice(lo, lo + n))]
        if mode == "constant":
            g = c
            continue
        if not own:
            c = c.copy()
        if mode == "reflect":
            if lo:
                c[at(slice(1, 1 + lo))] += g[at(slice(lo - 1, None, -1))]
            if hi:
                c[at(slice(n - 1 - hi, n - 1))] += g[at(slice(lo + n + hi - 1, lo + n - 1, -1))]
        elif mode == "replicate":
            if lo:
                c[at(slice(0, 1))] += g[at(slice(0, lo))].sum(axis=d, keepdims=True)
            if hi:
                c[at(slice(n - 1, n))] += g[at(slice(lo + n, None))].sum(axis=d, keepdims=True)
        else:  # circular
            if lo:
                c[at(slice(n - lo, n))] += g[at(slice(0, lo))]
            if hi:
                c[at(slice(0, hi))] += g[at(slice(lo + n, None))]
        g = c
        own = True
    if not own:
        g = g.copy()
    return g


def pad_array(x, pads, mode, value=0):
    """``x`` padded (and cropped by negative entries) as ``F.pad`` with validated arguments."""
    crops, grow = _crops_and_pads(pads)
    if mode in ("reflect", "replicate"):
        # NOTE: matches torch: these index the uncropped input (a border mirrors or repeats
        # the input's own edge), so the crop comes after the padding
        return _crop(_pad_grow(x, grow, mode, value), crops)
    return _pad_grow(_crop(x, crops), grow, mode, value)


def pad_adjoint_array(g, pads, mode):
    """The gradient of ``pad_array`` with respect to its input, given the output's ``g``."""
    crops, grow = _crops_and_pads(pads)
    uncrop = tuple((lo, hi) for lo, hi in crops)
    if mode in ("reflect", "replicate"):
        if any(lo or hi for lo, hi in crops):
            g = _pad_grow(g, uncrop, "constant", 0)
        return _fold_grow(g, grow, mode)
    g = _fold_grow(g, grow, mode)
    if any(lo or hi for lo, hi in crops):
        g = _pad_grow(g, uncrop, "constant", 0)
    return g


class Pad(Function):
    """``pad_array`` as a differentiable op; ``pads``, ``mode`` and ``value`` are checked by
    ``F.pad``."""

    _array_forward = True
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, pads, mode, value):
        ctx.pads, ctx.mode = pads, mode
        return pad_array(x, pads, mode, value)

    @staticmethod
    def backward(ctx, g):
        # pad is linear: its gradient is its adjoint applied to g
        return pad_node(ctx.mode, len(ctx.pads), fold=True).apply(g, ctx.pads, ctx.mode), \
            None, None, None


class PadFold(Function):
    """The adjoint of ``Pad`` (its backward); its own backward is ``Pad`` again."""

    _array_forward = True
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, g, pads, mode):
        ctx.pads, ctx.mode = pads, mode
        return pad_adjoint_array(g, pads, mode)

    @staticmethod
    def backward(ctx, gg):
        return pad_node(ctx.mode, len(ctx.pads)).apply(gg, ctx.pads, ctx.mode, 0), None, None


_NODE_NAMES = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0",
               "circular": "CopySlices", "constant": "ConstantPadNdBackward0"}
_NODES: dict = {}


def pad_node(mode: str, k: int, fold: bool = False) -> type:
    """``Pad`` (or ``PadFold``) under PyTorch's node name for ``mode`` over ``k`` dims."""
    key = (mode, k, fold)
    cls = _NODES.get(key)
    if cls is None:
        name = _NODE_NAMES[mode].format(k)
        if fold:  # torch's node for differentiating the pad's backward
            name = ("ConstantPadNdBackward0" if mode in ("constant", "circular")
                    else name.replace("Backward0", "BackwardBackward0"))
        base = PadFold if fold else Pad
        cls = _NODES[key] = type(base.__name__ + name.split("Backward")[0], (base,),
                                 {"_node_name": name})
    return cls


# ---- resampling ---------------------------------------------------------------------------
# ``F.interpolate``'s linear modes (linear, bilinear, trilinear, bicubic, area) are separable:
# along each spatial axis the output is a fixed (out, in) matrix times the input. ``Resample``
# applies one matrix per axis as a GEMM; its gradient applies the transposed matrices (the
# transposed weighted scatter, with no scatter). Nearest modes gather one input index per output
# position; the gradient sums the runs of equal indices (``add.reduceat``: the indices are
# non-decreasing, so no scatter either).

_cpu = backend.cpu


def _ratio(n_in: int, n_out: int, align_corners: bool, scale, dt):
    """PyTorch's source/destination coordinate ratio, in the input's float type ``dt``."""
    if align_corners:
        return dt(n_in - 1) / dt(n_out - 1) if n_out > 1 else dt(0)
    if scale is not None and scale > 0:
        # NOTE: matches torch: a given scale_factor is used as is (1/scale), not in/out
        return dt(1.0 / scale)
    return dt(n_in) / dt(n_out)


def _source(n_in, n_out, align_corners, scale, dt, cubic):
    r = _ratio(n_in, n_out, align_corners, scale, dt)
    o = _cpu.arange(n_out).astype(dt)
    if align_corners:
        return r * o
    src = r * (o + dt(0.5)) - dt(0.5)
    # NOTE: matches torch: linear modes clamp negative coordinates to 0, cubic keeps them
    return src if cubic else _cpu.maximum(src, dt(0))


def _guard(src, n_in, dt):
    """Integer part (at most n_in - 1) and fraction (clamped to [0, 1]) of ``src``."""
    i0 = _cpu.minimum(_cpu.floor(src).astype(_cpu.int64), n_in - 1)
    lam = _cpu.clip(src - i0.astype(dt), dt(0), dt(1))
    return i0, lam


@functools.lru_cache(maxsize=256)
def _linear_matrix(n_in, n_out, align_corners, scale, dtname):
    dt = _cpu.dtype(dtname).type
    i0, lam = _guard(_source(n_in, n_out, align_corners, scale, dt, False), n_in, dt)
    i1 = i0 + (i0 < n_in - 1)
    m = _cpu.zeros((n_out, n_in), dt)
    rows = _cpu.arange(n_out)
    m[rows, i0] += dt(1) - lam
    m[rows, i1] += lam
    return m


def _cubic_coeffs(t, dt):
    """Keys' cubic convolution weights (A = -0.75, as PyTorch) of the 4 taps around ``t``."""
    a = dt(-0.75)

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return far(t + dt(1)), near(t), near(dt(1) - t), far(dt(2) - t)


@functools.lru_cache(maxsize=256)
def _cubic_matrix(n_in, n_out, align_corners, scale, dtname):
    dt = _cpu.dtype(dtname).type
    i0, lam = _guard(_source(n_in, n_out, align_corners, scale, dt, True), n_in, dt)
    m = _cpu.zeros((n_out, n_in), dt)
    rows = _cpu.arange(n_out)
    for j, w in enumerate(_cubic_coeffs(lam, dt)):
        # NOTE: matches torch: taps beyond the border read the border element (clamped index),
        # so their weights add up there; within one tap no (row, col) repeats
        m[rows, _cpu.clip(i0 - 1 + j, 0, n_in - 1)] += w
    return m


@functools.lru_cache(maxsize=256)
def _area_matrix(n_in, n_out, dtname):
    """Adaptive average pooling: output i averages input [floor(i*in/out), ceil((i+1)*in/out))."""
    m = _cpu.zeros((n_out, n_in), dtname)
    for i in range(n_out):
        lo, hi = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def resample_matrix(mode, n_in, n_out, align_corners, scale, dtname):
    """The (n_out, n_in) matrix of ``mode`` along one axis (a cached CPU array: read only)."""
    if mode == "area":
        return _area_matrix(n_in, n_out, dtname)
    if mode == "bicubic":
        return _cubic_matrix(n_in, n_out, align_corners, scale, dtname)
    return _linear_matrix(n_in, n_out, align_corners, scale, dtname)


@functools.lru_cache(maxsize=256)
def nearest_index(n_in, n_out, scale, exact):
    """PyTorch's nearest (``exact=False``) or nearest-exact source index of each output."""
    f32 = _cpu.float32
    s = f32(1.0 / scale) if scale is not None and scale > 0 else f32(n_in) / f32(n_out)
    o = _cpu.arange(n_out)
    if exact:
        # NOTE: matches torch: (o + 0.5) * scale in double, rounded to float, then floored
        idx = _cpu.floor(((o + 0.5) * s).astype(f32)).astype(_cpu.int64)
    elif n_out == n_in:  # NOTE: matches torch: these two ratios bypass the scale
        idx = o
    elif n_out == 2 * n_in:
        idx = o >> 1
    else:
        idx = _cpu.floor(o.astype(f32) * s).astype(_cpu.int64)
    idx = _cpu.minimum(idx, n_in - 1)
    # the runs of equal indices (idx is non-decreasing), for the gradient's sums
    present, starts = _cpu.unique(idx, return_index=True)
    # an integer upscale k that repeats each input k times: repeat / reshape-sum (faster)
    k = n_out // n_in
    rep = k if k > 1 and n_out == k * n_in and (idx == o // k).all() else 0
    return idx, present, starts, rep


def _apply_matrices(x, mats):
    """``x`` with ``mats[j]`` (out, in) applied along each of its last ``len(mats)`` axes
    (``None``: that axis unchanged). The last axis is one GEMM over all other dims folded;
    the others one batched GEMM each."""
    xp = xp_of(x)
    k = len(mats)
    for j in range(k - 1, -1, -1):
        m = mats[j]
        if m is None:
            continue
        if xp is not _cpu:
            m = xp.asarray(m)
        shape = x.shape
        d = x.ndim - k + j
        pre, n, post = math.prod(shape[:d]), shape[d], math.prod(shape[d + 1:])
        if post == 1:
            y = x.reshape(pre, n).dot(m.T)
        elif pre == 1:
            y = m.dot(x.reshape(n, post))
        else:
            # the axis moved last (one copy) so the product is one large GEMM: NumPy's
            # broadcast matmul of a (out, in) matrix over ``pre`` stacks is far slower
            t = x.reshape(pre, n, post).transpose(0, 2, 1).reshape(pre * post, n)
            y = t.dot(m.T).reshape(pre, post, -1).transpose(0, 2, 1)
        x = y.reshape(shape[:d] + (m.shape[0],) + shape[d + 1:])
    return x


class Resample(Function):
    """``x`` times one matrix per trailing axis; ``mats`` and their transposes ``mats_t`` are
    read-only arrays of the input's float type. Linear in ``x``: the gradient is the same op
    with the transposes."""

    _array_forward = True
    _node_name = "UpsampleBilinear2DBackward0"

    @staticmethod
    def forward(ctx, x, mats, mats_t):
        ctx.mats, ctx.mats_t = mats, mats_t
        half = x.dtype.char == "e"
        y = _apply_matrices(x.astype(_cpu.float32) if half else x, mats)
        return y.astype(x.dtype) if half else y

    @staticmethod
    def backward(ctx, g):
        cls = resample_node(ctx._function._node_name, fold=True)
        return cls.apply(g, ctx.mats_t, ctx.mats), None, None


class NearestGather(Function):
    """``x`` indexed by ``index[j][0]`` along each of its trailing axes (``None``: kept)."""

    _array_forward = True
    _node_name = "UpsampleNearest2DBackward0"

    @staticmethod
    def forward(ctx, x, index, in_sizes):
        ctx.index, ctx.in_sizes = index, in_sizes
        k = len(index)
        for j, ix in enumerate(index):
            if ix is None:
                continue
            d = x.ndim - k + j
            if ix[3] and xp_of(x) is _cpu:
                x = _cpu.repeat(x, ix[3], axis=d)
            else:
                x = x[(_ALL,) * d + (ix[0],)]
        return x

    @staticmethod
    def backward(ctx, g):
        cls = nearest_node(ctx._function._node_name, fold=True)
        return cls.apply(g, ctx.index, ctx.in_sizes), None, None


class NearestSum(Function):
    """The adjoint of ``NearestGather``: each input position gets the sum of the outputs that
    copied it (runs of ``add.reduceat``), zero where none did."""

    _array_forward = True
    _node_name = "UpsampleNearest2DBackwardBackward0"

    @staticmethod
    def forward(ctx, g, index, in_sizes):
        ctx.index, ctx.in_sizes = index, in_sizes
        xp = xp_of(g)
        k = len(index)
        for j, ix in enumerate(index):
            if ix is None:
                continue
            d = g.ndim - k + j
            _, present, starts, rep = ix
            if rep:
                g = g.reshape(g.shape[:d] + (in_sizes[j], rep) + g.shape[d + 1:]).sum(axis=d + 1)
                continue
            s = xp.add.reduceat(g, starts, axis=d)
            if len(present) != in_sizes[j]:
                full = xp.zeros(g.shape[:d] + (in_sizes[j],) + g.shape[d + 1:], g.dtype)
                full[(_ALL,) * d + (present,)] = s
                s = full
            g = s
        return g

    @staticmethod
    def backward(ctx, gg):
        cls = nearest_node(ctx._function._node_name.replace("BackwardBackward0", "Backward0"))
        return cls.apply(gg, ctx.index, ctx.in_sizes), None, None


def resample_node(name: str, fold: bool = False) -> type:
    """``Resample`` under PyTorch's node name (and the name of its backward, for ``fold``)."""
    if fold:
        name = (name.replace("BackwardBackward0", "Backward0") if "BackwardBackward" in name
                else name.replace("Backward0", "BackwardBackward0"))
    cls = _NODES.get(("resample", name))
    if cls is None:
        cls = _NODES[("resample", name)] = type(
            "Resample" + name.split("Backward")[0], (Resample,), {"_node_name": name})
    return cls


def nearest_node(name: str, fold: bool = False) -> type:
    """``NearestGather`` (or, for ``fold``, ``NearestSum``) under PyTorch's node name."""
    base = NearestSum if fold else NearestGather
    if fold:
        name = name.replace("Backward0", "BackwardBackward0")
    cls = _NODES.get(("nearest", name))
    if cls is None:
        cls = _NODES[("nearest", name)] = type(
            base.__name__ + name.split("Backward")[0], (base,), {"_node_name": name})
    return cls


# ---- grid sampling ------------------------------------------------------------------------------
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
            return ((_wrap(gx) if need_x else None), (_wrap(gw) if need_w else None), None, None,
                    glink)
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
        xp.asarray(_CUBIC_SHIFT, dt).reshape(col))
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
            pos, _ = _pad_coordinate(xp, base[None] + xp.arange(-1, 3, dtype=g.dtype)[:, None,
                                                                                    None],
                                     size, padding_mode, align_corners)
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
                factor = frac.unsqueeze(0) * _wrap(xp.asarray((-1.0, 1.0), g.dtype).reshape(
                    col)) + _wrap(xp.asarray((1.0, 0.0), g.dtype).reshape(col))
        valid = (idx >= 0) & (idx < size)
        if not valid.all():
            idx = xp.where(valid, idx, 0)
            if factor is not None:
                factor = factor * _wrap(valid.astype(g.dtype))
        idxs.append(idx)
        factors.append(factor)
        valids.append(valid)
    # broadcast the per-dim taps against each other: dim d's taps along axis d of (T_0, ...)
    strides = [math.prod(sizes[d + 1:]) for d in range(k)]

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
        w = w * factors[d].reshape((1,) * d + (factors[d].shape[0],) + (1,) * (k - 1 - d)
                                   + (n, q))
    return w.reshape(kk, n, q), taps


_GRID_NODES = {2: GridCombine}


def grid_combine(input: Tensor, w: Tensor, taps: Taps, out_shape: tuple,
                 link: Tensor | None = None) -> Tensor:
    """``GridCombine`` under PyTorch's node name for the input's rank."""
    k = input.dim() - 2
    cls = _GRID_NODES.get(k)
    if cls is None:
        cls = _GRID_NODES[k] = type(f"GridCombine{k}D", (GridCombine,),
                                    {"_node_name": f"GridSampler{k}DBackward0"})
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
