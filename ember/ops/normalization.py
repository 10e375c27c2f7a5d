"""Primitives behind ``ember.nn.functional``'s normalization and dropout layers.

``layer_norm`` and ``batch_norm`` are primitives rather than compositions of ``mean``/``var``
because both sit in every training step of the models they serve: forward runs on raw arrays
in a few passes (sums are one-thread BLAS matrix-vector products or einsum reductions, without
temporaries; large arrays slab by slab, in cache), and the first-order backward is the closed
form on arrays. When backward itself is recorded (``create_graph=True``) the same closed form is
evaluated with Tensor ops on the saved input, so double backward works (layer_norm forward +
backward measured ~2.2x faster than the composite on (16, 64, 128) float32).

Dropout's masks are drawn here from ember's generator and applied by one multiply (``MaskMul``,
torch's ``MulBackward0``); alpha dropout adds an offset (``MaskAffine``).

nn-only: these are reached through ``ember.nn.functional``, so this file is not one of the
``ember.ops.FAMILIES`` (it exports no ``ember.*`` names).
"""

from __future__ import annotations

import functools
import math

from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.autograd.function import NOGRAD_CTX, Function
from ember.ops._dispatch import xp_of
from ember.random.generator import default_generator
from ember.tensor import _wrap

_F32 = _dtype.float32._np
_F64 = _dtype.float64._np
_state = _gm.state

__all__: list[str] = []


def _acc(x):
    """``x`` in its compute type: float16 is normalized in float32, as PyTorch's CPU kernels."""
    return x.astype(_F32) if x.dtype.char in "eE" else x


# BLAS products run on row blocks of at most this many elements. OpenBLAS threads larger calls,
# and its threads, competing for the cores with other work, were measured 10-40x slower than one
# thread; einsum (always one thread) was measured ~5x slower than one-thread BLAS on the
# matrix-vector products below (1M float32 elements: 620 us against 110 us).
_BLAS_MAX = 1 << 18


# Element-wise passes over large arrays run slab by slab, _SLAB elements (1 MB of float32) at a
# time, so a slab's later passes read what its first pass left in cache: layer_norm always (its
# rows are independent: the whole forward or backward runs per slab), batch_norm's element-wise
# passes past _SLAB_MIN elements (measured on 2M elements: backward ~15% faster, forward ~5%;
# no gain below ~1M).
_SLAB = 1 << 18
_SLAB_MIN = 1 << 20


def _step(a):
    """Rows per block of the 2-D ``a`` for BLAS calls of at most _BLAS_MAX elements."""
    return max(1, _BLAS_MAX // max(1, a.shape[1]))


def _matvec(a, v):
    """``a @ v`` for a 2-D ``a`` and a vector ``v``, as a 1-D array."""
    if a.size <= _BLAS_MAX:
        return a.dot(v)
    step = _step(a)
    return xp_of(a).concatenate([a[i : i + step].dot(v) for i in range(0, a.shape[0], step)])


def _vecmat(v, a):
    """``v @ a`` for a vector ``v`` and a 2-D ``a``: a weighted sum of the rows of ``a``."""
    if a.size <= _BLAS_MAX:
        return v.dot(a)
    step = _step(a)
    out = v[:step].dot(a[:step])
    for i in range(step, a.shape[0], step):
        out += v[i : i + step].dot(a[i : i + step])
    return out


def _rowsum(a):
    """Sums of the rows of a 2-D array as an ``(m, 1)`` column: a BLAS product with a vector of
    ones (several times faster than ``sum(axis=1)`` for short rows)."""
    return _matvec(a, xp_of(a).ones(a.shape[1], dtype=a.dtype)).reshape(-1, 1)


def _colsum(a):
    """Sums of the columns of a 2-D array (a BLAS product with a vector of ones)."""
    return _vecmat(xp_of(a).ones(a.shape[0], dtype=a.dtype), a)


def _rowdot(a, b):
    """Row-wise dot products of two 2-D arrays as an ``(m, 1)`` column, in one pass."""
    return xp_of(a).einsum("ij,ij->i", a, b).reshape(-1, 1)


# ---- layer_norm --------------------------------------------------------------------------------
def _ln_rows(x2, wa, ba, eps, xc, r, out):
    """Forward of a block of rows ``x2`` ``(m, n)``: centered rows into ``xc``, ``1 / std`` into
    ``r`` and the output into ``out`` (``wa``/``ba`` flat or None)."""
    xp = xp_of(x2)
    m, n = x2.shape
    mu = x2.dot(xp.ones(n, dtype=x2.dtype))
    mu *= 1.0 / n
    xp.subtract(x2, mu.reshape(m, 1), out=xc)
    xp.einsum("ij,ij->i", xc, xc, out=r)
    r *= 1.0 / n
    r += eps
    xp.sqrt(r, out=r)
    xp.divide(1.0, r, out=r)
    if wa is not None:
        # xhat * w = xc * (r (x) w): one K=1 GEMM and a same-shape multiply, measured faster
        # than two broadcasting multiplies (NumPy's are ~1.5-2x slower than same-shape ones)
        xp.dot(r.reshape(m, 1), wa.reshape(1, n), out=out)
        out *= xc
    else:
        xp.multiply(xc, r.reshape(m, 1), out=out)
    if ba is not None:
        out += ba


def _ln_rows_backward(g2, xc, r, wa, gx, p, sums):
    """Backward of a block of rows: ``dx`` into ``gx`` (None: not needed), using ``p`` (same
    shape) as scratch. Returns the block's ``sum(g * xhat)`` and ``sum(g)`` over rows where
    ``sums`` (else None, None)."""
    xp = xp_of(g2)
    m, n = g2.shape
    # p = g * xc = g * xhat / r: every sum below is a matrix-vector product on g or p
    xp.multiply(g2, xc, out=p)
    gw = gb = None
    if sums:
        gw, gb = r.dot(p), xp.ones(m, dtype=g2.dtype).dot(g2)
    if gx is None:
        return gw, gb
    # y = xhat * w + b,  xhat = xc * r  =>
    # dx = r * (gh - mean(gh) - xhat * mean(gh * xhat)),  gh = g * w
    #    = g * (r (x) w)  +  xc * (-r^3 sum(p w) / n)  -  r sum(g w) / n
    v = wa if wa is not None else xp.ones(n, dtype=g2.dtype)
    a = g2.dot(v)
    c = p.dot(v)
    if wa is not None:
        xp.dot(r.reshape(m, 1), wa.reshape(1, n), out=gx)
        gx *= g2
    else:
        xp.multiply(g2, r.reshape(m, 1), out=gx)
    c *= r * r * r
    c *= -1.0 / n
    a *= r
    a *= -1.0 / n
    xp.multiply(xc, c.reshape(m, 1), out=p)
    gx += p
    gx += a.reshape(m, 1)
    return gw, gb


class NativeLayerNorm(Function):
    """Normalize ``x`` over its last ``k`` dims, then scale by ``w`` and shift by ``b`` (each
    None or of the normalized shape). Arguments are validated by ``F.layer_norm``.

    Rows of ``x`` (the normalized dims flattened, ``(m, n)``) are centered (``xc``) and scaled
    by ``r = 1 / std``; forward keeps ``xc`` and ``r`` for backward. Both run on blocks of rows
    of at most _SLAB elements, each block's passes while it is in cache (measured 1.3-1.8x
    faster than whole-array passes on 6M elements), which also keeps every BLAS call on one
    thread (see _BLAS_MAX)."""

    _array_forward = True
    _node_name = "NativeLayerNormBackward0"

    @staticmethod
    def forward(ctx, x, w, b, k, eps):
        shape = x.shape
        n = math.prod(shape[len(shape) - k :])
        m = math.prod(shape[: len(shape) - k])
        xp = xp_of(x)
        ctx.save_for_backward(x, w)
        ctx.k, ctx.eps = k, eps
        if xp.device_type == "meta" or x.size == 0:
            ctx.xc = None
            return xp.empty(shape, dtype=x.dtype)
        x2 = _acc(x).reshape(m, n)
        dt = x2.dtype
        wa = None if w is None else _acc(w).reshape(n).astype(dt, copy=False)
        ba = None if b is None else _acc(b).reshape(n).astype(dt, copy=False)
        xc = xp.empty((m, n), dtype=dt)
        r = xp.empty(m, dtype=dt)
        out = xp.empty((m, n), dtype=dt)
        step = max(1, _SLAB // n)
        for i in range(0, m, step):
            j = i + step
            _ln_rows(x2[i:j], wa, ba, eps, xc[i:j], r[i:j], out[i:j])
        ctx.xc, ctx.r = xc, r
        return out.reshape(shape).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        if _state.enabled or ctx.xc is None:  # create_graph: the same formula, recorded
            return _layer_norm_backward_recorded(ctx, x, w, g, need_x, need_w, need_b)
        xc, r = ctx.xc, ctx.r
        m, n = xc.shape
        xp = xp_of(xc)
        dt = xc.dtype
        g2 = _acc(g._data).reshape(m, n).astype(dt, copy=False)
        wa = None if w is None else _acc(w._data).reshape(n).astype(dt, copy=False)
        sums = need_w or need_b
        gx = xp.empty((m, n), dtype=dt) if need_x else None
        step = max(1, _SLAB // n)
        p = xp.empty((min(step, m), n), dtype=dt)  # scratch, reused by every block
        sw = sb = None
        for i in range(0, m, step):
            j = min(i + step, m)
            bw, bb = _ln_rows_backward(
                g2[i:j], xc[i:j], r[i:j], wa, None if gx is None else gx[i:j], p[: j - i], sums
            )
            if sums:
                sw, sb = (bw, bb) if sw is None else (sw + bw, sb + bb)
        gw = gb = None
        if need_w:
            gw = _wrap(sw.reshape(w.shape).astype(w._data.dtype, copy=False))
        if need_b:
            gb = _wrap(
                sb.reshape(w.shape if w is not None else x.shape[-ctx.k :]).astype(
                    x._data.dtype, copy=False
                )
            )
        if need_x:
            gx = _wrap(gx.reshape(x.shape).astype(x._data.dtype, copy=False))
        return gx, gw, gb, None, None


def _layer_norm_backward_recorded(ctx, x, w, g, need_x, need_w, need_b):
    k, eps = ctx.k, ctx.eps
    dims = tuple(range(x.dim() - k, x.dim()))
    lead = tuple(range(x.dim() - k))
    xf = x.float() if x.dtype == _dtype.float16 else x
    mean = xf.mean(dims, keepdim=True)
    xc = xf - mean
    rstd = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
    xhat = xc * rstd
    gx = gw = gb = None
    if need_w:
        gw = (g * xhat).sum(lead) if lead else g * xhat
    if need_b:
        gb = g.sum(lead) if lead else g
    if need_x:
        gh = g * w if w is not None else g
        gx = rstd * (gh - gh.mean(dims, keepdim=True) - xhat * (gh * xhat).mean(dims, keepdim=True))
    return gx, gw, gb, None, None


# ---- batch_norm --------------------------------------------------------------------------------
def _chan_sum(a3):
    """Per-channel sums of an ``(N, C, L)`` array: BLAS row sums over L, then over N."""
    n, c, length = a3.shape
    if length == 1:
        return _colsum(a3.reshape(n, c))
    return _colsum(_rowsum(a3.reshape(n * c, length)).reshape(n, c))


def _chan_dot(a3, b3):
    """Per-channel sums of ``a3 * b3`` for ``(N, C, L)`` arrays, without the product array."""
    n, c, length = a3.shape
    xp = xp_of(a3)
    if length == 1:
        return xp.einsum("ij,ij->j", a3.reshape(n, c), b3.reshape(n, c))
    return _colsum(_rowdot(a3.reshape(n * c, length), b3.reshape(n * c, length)).reshape(n, c))


def _slab_rows(a3):
    """Samples per slab of the ``(N, C, L)`` array ``a3`` (all of them when it is small)."""
    nb, c, length = a3.shape
    return nb if a3.size <= _SLAB_MIN else max(1, _SLAB // max(1, c * length))


def _scale_shift(a3, scale, shift):
    """``a3 * scale + shift`` (per-channel ``(1, C, 1)`` factors, ``shift`` may be None) as a new
    array, slab by slab."""
    xp = xp_of(a3)
    out = xp.empty(a3.shape, dtype=xp.result_type(a3, scale))
    step = _slab_rows(a3)
    for i in range(0, a3.shape[0], step):
        o = out[i : i + step]
        xp.multiply(a3[i : i + step], scale, out=o)
        if shift is not None:
            o += shift
    return out


def _center(x3, mean):
    """``x3 - mean`` (per channel) and the per-channel sums of its squares, slab by slab (the
    squares are summed while the slab is in cache)."""
    xp = xp_of(x3)
    nb, c, length = x3.shape
    step = _slab_rows(x3)
    if step >= nb:
        xc = x3 - mean.reshape(1, c, 1)
        return xc, _chan_dot(xc, xc)
    xc = xp.empty(x3.shape, dtype=x3.dtype)
    sq = xp.empty(nb * c, dtype=x3.dtype)
    m3, xc2 = mean.reshape(1, c, 1), xc.reshape(nb * c, length)
    for i in range(0, nb, step):
        xp.subtract(x3[i : i + step], m3, out=xc[i : i + step])
        rows = xc2[i * c : (i + step) * c]
        xp.einsum("ij,ij->i", rows, rows, out=sq[i * c : (i + step) * c])
    return xc, _colsum(sq.reshape(nb, c))


def _chan_sum_dot(g3, xc):
    """Per-channel ``sum(g3)`` and ``sum(g3 * xc)`` of ``(N, C, L)`` arrays; slab by slab when
    large (each slab of ``g3`` is read twice while in cache)."""
    nb, c, length = g3.shape
    step = _slab_rows(g3)
    if step >= nb or length == 1:
        return _chan_sum(g3), _chan_dot(g3, xc)
    xp = xp_of(g3)
    g2, x2 = g3.reshape(nb * c, length), xc.reshape(nb * c, length)
    sums = xp.empty((2, nb * c), dtype=g3.dtype)
    ones = xp.ones(length, dtype=g3.dtype)
    for i in range(0, nb * c, step * c):
        j = i + step * c
        xp.dot(g2[i:j], ones, out=sums[0, i:j])
        xp.einsum("ij,ij->i", g2[i:j], x2[i:j], out=sums[1, i:j])
    return _colsum(sums[0].reshape(nb, c)), _colsum(sums[1].reshape(nb, c))


def _update_running(r, stat, momentum):
    """``r = (1 - momentum) * r + momentum * stat`` in place (no autograd: a buffer)."""
    r *= 1.0 - momentum
    r += (momentum * stat).astype(r.dtype, copy=False)


class NativeBatchNorm(Function):
    """Batch normalization of ``x`` (N, C, *) per channel. ``training``: normalize with the
    batch's mean and biased variance and update the raw running arrays ``rm``/``rv`` (None: no
    update) with momentum, the variance unbiased; else normalize with ``rm``/``rv``. Arguments
    are validated by ``F.batch_norm``."""

    _array_forward = True
    _node_name = "NativeBatchNormBackward0"

    @staticmethod
    def forward(ctx, x, w, b, rm, rv, training, momentum, eps):
        shape = x.shape
        nb, c = shape[0], shape[1]
        length = math.prod(shape[2:])
        xp = xp_of(x)
        ctx.save_for_backward(x, w)
        ctx.training, ctx.eps = training, eps
        if xp.device_type == "meta" or x.size == 0:
            ctx.xc = None
            if not training:
                ctx.mean, ctx.rstd = rm.copy(), 1.0 / xp.sqrt(rv + eps)
            return xp.empty(shape, dtype=x.dtype)
        x3 = _acc(x).reshape(nb, c, length)
        n = nb * length
        if training:
            mean = _chan_sum(x3) / n
            xc, var = _center(x3, mean)
            var /= n
            if rm is not None:
                _update_running(rm, mean, momentum)
            if rv is not None:
                _update_running(rv, var * (n / (n - 1)), momentum)
            rstd = 1.0 / xp.sqrt(var + eps)
        else:
            mean = _acc(rm).copy()  # the buffer may change before backward
            rstd = 1.0 / xp.sqrt(_acc(rv) + eps)
            xc = None
        ctx.mean, ctx.rstd = mean, rstd
        wa = None if w is None else _acc(w)
        if xc is None and ctx is NOGRAD_CTX:
            # inference: one multiply-add with per-channel scale and shift, no x-hat
            scale = rstd if wa is None else wa * rstd
            shift = -mean * scale
            if b is not None:
                shift += _acc(b)
            out = _scale_shift(x3, scale.reshape(1, c, 1), shift.reshape(1, c, 1))
            return out.reshape(shape).astype(x.dtype, copy=False)
        if xc is None:
            xc = x3 - mean.reshape(1, c, 1)
        # x-hat = xc * rstd is never formed: the output scales xc by w * rstd in one pass, and
        # backward folds rstd into its per-channel factors
        ctx.xc = xc
        scale = rstd if wa is None else wa * rstd
        out = _scale_shift(
            xc, scale.reshape(1, c, 1), None if b is None else _acc(b).reshape(1, c, 1)
        )
        return out.reshape(shape).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        if _state.enabled or ctx.xc is None:  # create_graph: the same formula, recorded
            return _batch_norm_backward_recorded(ctx, x, w, g, need_x, need_w, need_b)
        xc, rstd = ctx.xc, ctx.rstd
        nb, c, length = xc.shape
        g3 = _acc(g._data).reshape(nb, c, length)
        dt = x._data.dtype
        want_sum = need_b or (need_x and ctx.training)
        want_dot = need_w or (need_x and ctx.training)
        if want_sum and want_dot:
            gsum, gdot = _chan_sum_dot(g3, xc)
        else:
            gsum = _chan_sum(g3) if want_sum else None
            gdot = _chan_dot(g3, xc) if want_dot else None
        if gdot is not None:
            gdot *= rstd  # sum(g * xhat) per channel
        gx = gw = gb = None
        if need_w:
            gw = _wrap(gdot.astype(w._data.dtype, copy=False))
        if need_b:
            gb = _wrap(gsum.astype(dt if w is None else w._data.dtype, copy=False))
        if need_x:
            scale = rstd if w is None else _acc(w._data) * rstd
            if ctx.training:
                # y = xhat * w + b with batch statistics  =>
                # dx = w * rstd * (g - mean(g) - xhat * mean(g * xhat)),  xhat = xc * rstd
                n = nb * length
                k = (gdot * rstd / n).reshape(1, c, 1)
                h = (gsum / n).reshape(1, c, 1)
                s = scale.reshape(1, c, 1)
                xp = xp_of(xc)
                gx = xp.empty(xc.shape, dtype=xc.dtype)
                # the four passes run on one slab of samples at a time, while it is in cache
                step = _slab_rows(xc)
                for i in range(0, nb, step):
                    o = gx[i : i + step]
                    xp.multiply(xc[i : i + step], k, out=o)
                    o += h
                    xp.subtract(g3[i : i + step], o, out=o)
                    o *= s
            else:  # fixed statistics: an affine map per channel
                gx = g3 * scale.reshape(1, c, 1)
            gx = _wrap(gx.reshape(x.shape).astype(dt, copy=False))
        return gx, gw, gb, None, None, None, None, None


def _batch_norm_backward_recorded(ctx, x, w, g, need_x, need_w, need_b):
    nd = x.dim()
    dims = (0,) + tuple(range(2, nd))
    bshape = (1, -1) + (1,) * (nd - 2)
    xf = x.float() if x.dtype == _dtype.float16 else x
    if ctx.training:
        mean = xf.mean(dims, keepdim=True)
        xc = xf - mean
        rstd = ((xc * xc).mean(dims, keepdim=True) + ctx.eps).rsqrt()
    else:  # the running statistics as of forward: constants
        xc = xf - _wrap(ctx.mean).reshape(bshape)
        rstd = _wrap(ctx.rstd).reshape(bshape)
    xhat = xc * rstd
    gx = gw = gb = None
    if need_w:
        gw = (g * xhat).sum(dims)
    if need_b:
        gb = g.sum(dims)
    if need_x:
        gh = g * w.reshape(bshape) if w is not None else g
        if ctx.training:
            gx = rstd * (
                gh - gh.mean(dims, keepdim=True) - xhat * (gh * xhat).mean(dims, keepdim=True)
            )
        else:
            gx = gh * rstd
    return gx, gw, gb, None, None, None, None, None


# ---- dropout -----------------------------------------------------------------------------------
def _uniform(shape, dtype, generator):
    """U[0, 1) draws of ``shape`` (float64 for float64 inputs, float32 otherwise)."""
    gen = default_generator if generator is None else generator
    if dtype == _F64:
        return gen._rng.random(shape)
    return gen._rng.random(shape, dtype=_F32)


def dropout_mask(x, p: float, noise_shape, generator=None):
    """The scaled keep mask of inverted dropout, broadcastable to raw array ``x``: each entry
    ``1 / (1 - p)`` with probability ``1 - p``, else 0 (``noise_shape`` has 1 on the feature
    dims that share a draw)."""
    xp = xp_of(x)
    if xp.device_type == "meta":
        return xp.empty(noise_shape, dtype=x.dtype)
    q = 1.0 - p
    keep = _uniform(noise_shape, x.dtype, generator) < q
    mask = xp.asarray(keep, dtype=x.dtype)
    mask *= mask.dtype.type(1.0 / q)
    return mask


# NOTE: matches torch: alpha dropout's constants (SELU's alpha * scale).
_ALPHA = 1.7580993408473766


def alpha_dropout_masks(x, p: float, noise_shape, generator=None):
    """``(a * keep, b)`` for alpha dropout ``y = x * a * keep + b``: dropped entries go to SELU's
    negative saturation value and ``a``, ``b`` keep the mean and variance of a unit input."""
    xp = xp_of(x)
    if xp.device_type == "meta":
        return xp.empty(noise_shape, dtype=x.dtype), xp.empty(noise_shape, dtype=x.dtype)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    keep = xp.asarray(_uniform(noise_shape, x.dtype, generator) < 1.0 - p, dtype=x.dtype)
    b = (keep - 1) * (_ALPHA * a) + _ALPHA * a * p
    keep *= keep.dtype.type(a)
    return keep, b.astype(x.dtype, copy=False)


class MaskMul(Function):
    """``x * mask`` for a constant raw-array ``mask`` (broadcast to ``x``)."""

    _array_forward = True
    _node_name = "MulBackward0"

    @staticmethod
    def forward(ctx, x, mask):
        ctx.mask = mask
        return x * mask

    @staticmethod
    def backward(ctx, g):
        return g * _wrap(ctx.mask), None


class MaskAffine(Function):
    """``x * a + b`` for constant raw arrays ``a`` and ``b`` (alpha dropout)."""

    _array_forward = True
    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, x, a, b):
        ctx.a = a
        out = x * a
        out += b
        return out

    @staticmethod
    def backward(ctx, g):
        return g * _wrap(ctx.a), None, None


# ---- cross-map local response normalization (nn.CrossMapLRN2d) --------------------------------
@functools.lru_cache(maxsize=64)
def _lrn_windows(channels: int, size: int):
    """The channel windows of torch's legacy cross-map LRN as 0/1 ``(C, C)`` matrices (row
    ``c`` marks the channels summed for channel ``c``): the forward's and the backward's."""
    from ember import backend

    np_ = backend.for_device("cpu")
    fwd = np_.zeros((channels, channels))
    bwd = np_.zeros((channels, channels))
    pre = int((size - 1) / 2 + 1)
    inv = int(size - (size - 1) / 2)
    for c in range(channels):
        # NOTE: matches torch: its running window never drops channel 0 once added, so channel
        # c sums channel 0 and [c - pre + 1, c + pre - 1] (not a centred window of ``size``)
        fwd[c, 0] = 1
        fwd[c, max(c - pre + 1, 0) : min(c + pre, channels)] = 1
        # NOTE: matches torch: the backward sums ratios over [c - inv, c + size - 1 - inv],
        # another window, so torch's gradient is not the derivative of its forward
        bwd[c, max(c - inv, 0) : max(min(c + size - inv, channels), 0)] = 1
    return fwd, bwd


class _CrossMapLRN2dFn(Function):
    """``x * (k + alpha / size * sum_window(x^2)) ** -beta`` over channel windows, with torch's
    legacy windows and its hand-written backward."""

    _array_forward = True
    _node_name = "CrossMapLRN2dBackward"

    @staticmethod
    def forward(ctx, x, size, alpha, beta, k):
        xp = xp_of(x)
        n, c, h, w = x.shape
        fwd, _ = _lrn_windows(c, size)
        sq = (x * x).reshape(n, c, h * w)
        scale = xp.matmul(xp.asarray(fwd, dtype=x.dtype), sq).reshape(x.shape)
        scale *= alpha / size
        scale += k
        out = x * scale**-beta
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        n, c, h, w = x.shape
        size = ctx.size
        if size - int(size - (size - 1) / 2) < 1:
            # NOTE: matches torch: its backward fails for size 1 (a window narrower than its
            # padding)
            raise RuntimeError(f"start (1) + length ({c}) exceeds dimension size ({c}).")
        scale = _wrap(ctx.scale)
        _, bwd = _lrn_windows(c, size)
        b = _wrap(xp_of(ctx.scale).asarray(bwd, dtype=ctx.scale.dtype))
        ratio = (g * out / scale).reshape(n, c, h * w)
        acc = (b @ ratio).reshape(x.shape)
        gi = scale**-ctx.beta * g - (2 * ctx.alpha * ctx.beta / size) * x * acc
        return gi, None, None, None, None
