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
from ember.ops._dispatch import xp_of

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
    return x[
        (_ALL,) * lead
        + tuple(slice(lo, x.shape[lead + i] - hi) for i, (lo, hi) in enumerate(crops))
    ]


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
        tail = tuple(centre[i + 1 :])

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
                    at(slice(last - 1, stop if stop >= 0 else None, -1))
                ]
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
        return (
            pad_node(ctx.mode, len(ctx.pads), fold=True).apply(g, ctx.pads, ctx.mode),
            None,
            None,
            None,
        )


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


_NODE_NAMES = {
    "reflect": "ReflectionPad{}DBackward0",
    "replicate": "ReplicationPad{}DBackward0",
    "circular": "CopySlices",
    "constant": "ConstantPadNdBackward0",
}
_NODES: dict = {}


def pad_node(mode: str, k: int, fold: bool = False) -> type:
    """``Pad`` (or ``PadFold``) under PyTorch's node name for ``mode`` over ``k`` dims."""
    key = (mode, k, fold)
    cls = _NODES.get(key)
    if cls is None:
        name = _NODE_NAMES[mode].format(k)
        if fold:  # torch's node for differentiating the pad's backward
            name = (
                "ConstantPadNdBackward0"
                if mode in ("constant", "circular")
                else name.replace("Backward0", "BackwardBackward0")
            )
        base = PadFold if fold else Pad
        cls = _NODES[key] = type(
            base.__name__ + name.split("Backward")[0], (base,), {"_node_name": name}
        )
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
        pre, n, post = math.prod(shape[:d]), shape[d], math.prod(shape[d + 1 :])
        if post == 1:
            y = x.reshape(pre, n).dot(m.T)
        elif pre == 1:
            y = m.dot(x.reshape(n, post))
        else:
            # the axis moved last (one copy) so the product is one large GEMM: NumPy's
            # broadcast matmul of a (out, in) matrix over ``pre`` stacks is far slower
            t = x.reshape(pre, n, post).transpose(0, 2, 1).reshape(pre * post, n)
            y = t.dot(m.T).reshape(pre, post, -1).transpose(0, 2, 1)
        x = y.reshape(shape[:d] + (m.shape[0],) + shape[d + 1 :])
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
        half = x.dtype.char in "eE"
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
            if ix[3]:  # an integer upscale: each input repeated (faster than a gather)
                x = xp_of(x).repeat(x, ix[3], axis=d)
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
                g = g.reshape(g.shape[:d] + (in_sizes[j], rep) + g.shape[d + 1 :]).sum(axis=d + 1)
                continue
            s = xp.add.reduceat(g, starts, axis=d)
            if len(present) != in_sizes[j]:
                full = xp.zeros(g.shape[:d] + (in_sizes[j],) + g.shape[d + 1 :], g.dtype)
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
        name = (
            name.replace("BackwardBackward0", "Backward0")
            if "BackwardBackward" in name
            else name.replace("Backward0", "BackwardBackward0")
        )
    cls = _NODES.get(("resample", name))
    if cls is None:
        cls = _NODES[("resample", name)] = type(
            "Resample" + name.split("Backward")[0], (Resample,), {"_node_name": name}
        )
    return cls


def nearest_node(name: str, fold: bool = False) -> type:
    """``NearestGather`` (or, for ``fold``, ``NearestSum``) under PyTorch's node name."""
    base = NearestSum if fold else NearestGather
    if fold:
        name = name.replace("Backward0", "BackwardBackward0")
    cls = _NODES.get(("nearest", name))
    if cls is None:
        cls = _NODES[("nearest", name)] = type(
            base.__name__ + name.split("Backward")[0], (base,), {"_node_name": name}
        )
    return cls
