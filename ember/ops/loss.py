"""The loss primitives behind ``ember.nn.functional``'s losses (not public ops: no ``FAMILIES``
row, no Tensor methods).

Most losses are compositions of Tensor ops in ``ember/nn/functional/loss.py``. The ones here are
primitives because a composite would be slow or would not give PyTorch's numbers:

- ``CrossEntropy``: log_softmax + gather + reduction in one pass over the logits (it is in every
  classification train step); its backward is ``softmax - onehot`` scaled, no log_softmax node.
- ``NllLoss``: gather + class weights + ignore_index + the weighted mean.
- ``BinaryCrossEntropy``: PyTorch clamps the logs at -100 and uses its own gradient
  ``(x - y) / max(x (1 - x), 1e-12)``, which autograd of the clamped formula would not give.
- ``BinaryCrossEntropyWithLogits``: stable for large logits; gradient ``sigmoid(x) - y``.
- ``CtcLoss``: the CTC forward-backward algorithm in log space, vectorized over the batch and the
  label positions, looping only over time, with PyTorch's gradient.

Reductions are PyTorch's enum: 0 ``'none'``, 1 ``'mean'``, 2 ``'sum'``.
"""

from __future__ import annotations

import math

from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.autograd.function import NOGRAD_CTX, Function
from ember.ops._dispatch import xp_of
from ember.ops.activation import LogSigmoid
from ember.tensor import Tensor, _wrap

_state = _gm.state
_F32 = _dtype.float32._np
_F16 = _dtype.float16._np
NONE, MEAN, SUM = 0, 1, 2

__all__: list[str] = []


# ---- helpers on raw arrays -----------------------------------------------------------------------
def _pick(a, t):
    """``a[n, t[n, ...], ...]``: the class entries of ``a`` (N, C, ...) chosen by ``t`` (N, ...)."""
    xp = xp_of(a)
    if a.ndim == 2:
        return a[xp.arange(a.shape[0]), t]
    return xp.take_along_axis(a, t[:, None], axis=1)[:, 0]


def _sub_at(a, t, v) -> None:
    """``a[n, t[n, ...], ...] -= v[n, ...]`` in place (``v`` may be a scalar)."""
    xp = xp_of(a)
    if a.ndim == 2:
        # each row is indexed once, so the fancy-index update is exact (no repeated indices)
        a[xp.arange(a.shape[0]), t] -= v
        return
    idx = t[:, None]
    v = xp.asarray(v, dtype=a.dtype)
    v = v[:, None] if v.ndim else v
    xp.put_along_axis(a, idx, xp.take_along_axis(a, idx, axis=1) - v, axis=1)


def _class_targets(target, c: int, ignore_index: int):
    """The targets made safe to index with (ignored ones set to 0) and the keep-mask (None when
    nothing is ignored); raises PyTorch's IndexError for a target outside ``[0, c)``."""
    xp = xp_of(target)
    t = target
    mask = None
    if t.size and xp.device_type != "meta":  # a meta target has no values to check or mask
        lo, hi = t.min(), t.max()
        if lo <= ignore_index <= hi:  # only then can a target be ignored
            ign = t == ignore_index
            mask = ~ign
            t = xp.where(ign, 0, t)
            lo, hi = t.min(), t.max()
        if lo < 0 or hi >= c:
            bad = t[(t < 0) | (t >= c)].reshape(-1)[0]
            raise IndexError(f"Target {int(bad)} is out of bounds.")
    if t.dtype.kind != "i" or t.dtype.itemsize != 8:  # uint8 targets are accepted, as torch
        t = t.astype("int64")
    return t, mask


def _row_weights(t, mask, weight, dtype):
    """Per-element weights ``weight[t] * keep`` (None when all are 1) and their sum for
    ``'mean'``."""
    if weight is not None:
        w = weight[t].astype(dtype, copy=False)
        if mask is not None:
            w = w * mask
        return w, w.sum()
    if mask is not None:
        w = mask.astype(dtype)
        return w, w.sum()
    return None, t.size


def _expand_c(a, ndim):
    """A per-element array (N, ...) as (N, 1, ...) so it broadcasts against (N, C, ...)."""
    return a.reshape(a.shape[:1] + (1,) + a.shape[1:]) if a.ndim == ndim - 1 else a


def _weight_bcast(weight, ndim):
    """A class weight (C,) shaped to broadcast against (N, C, d1, ...)."""
    return weight.reshape((1, -1) + (1,) * (ndim - 2))


def _reduce(xp, loss, reduction, denom):
    if reduction == NONE:
        return loss
    total = loss.sum()
    if reduction == SUM:
        return xp.asarray(total)
    return xp.asarray(total / denom)


def _grad_scale(g, reduction, denom):
    """The output gradient as an array broadcastable over the per-element losses."""
    if reduction == MEAN:
        return g / denom
    return g


def _log_softmax_1(x):
    """log_softmax along dim 1 (x - max, then minus log-sum-exp): exact at extreme logits."""
    xp = xp_of(x)
    z = x - x.max(axis=1, keepdims=True)
    e = xp.exp(z)
    s = e.sum(axis=1, keepdims=True)
    z -= xp.log(s)
    return z, e, s


# ---- cross entropy with class indices ------------------------------------------------------------
class CrossEntropy(Function):
    """``cross_entropy(x, t)`` for class-index targets: x (N, C, d1, ...) logits, t (N, d1, ...)
    int64; ``weight`` (C,) or None. Arguments are validated by ``F.cross_entropy``.

    Forward makes two passes over the logits (``z = x - max``, then ``exp`` in place) and reads
    ``z`` only at the targets: ``-log_softmax(x)[t] = log(sum(exp(z))) - z[t]``. The exponentials
    are kept, and the first backward turns them into the gradient in place:
    ``(softmax - onehot) * scale``.
    """

    _array_forward = True
    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, x, target, weight, reduction, ignore_index, smoothing):
        xp = xp_of(x)
        half = x.dtype.char in "eE"  # float16, bfloat16
        low = x.dtype
        x0 = x
        if half:  # computed in float32, as torch's CPU kernel
            x = x.astype(_F32)
        c = x.shape[1]
        t, mask = _class_targets(target, c, ignore_index)
        z = x - x.max(axis=1, keepdims=True)
        zt = _pick(z, t)
        if smoothing:  # sum_c weight_c z_c, for the smoothed term
            zsum = (z * _weight_bcast(weight, x.ndim) if weight is not None else z).sum(axis=1)
        e = xp.exp(z, out=z)
        s = e.sum(axis=1)
        lse = xp.log(s)
        w, denom = _row_weights(t, mask, weight, x.dtype)
        loss = lse - zt  # -log_softmax(x)[t]
        if w is not None:
            loss *= w
        if smoothing:
            # -sum_c weight_c log_softmax(x)_c = sum(weight) lse - sum_c weight_c z_c
            wsum = weight.sum() if weight is not None else c
            smooth = wsum * lse - zsum
            if mask is not None:
                smooth *= mask
            loss = loss * (1.0 - smoothing) + smooth * (smoothing / c)
        out = _reduce(xp, loss, reduction, denom)
        if ctx is not NOGRAD_CTX:  # recording: keep what backward needs
            ctx.e = e
            ctx.s = s
            ctx.args = (t, mask, w, denom, weight, reduction, smoothing, c)
            ctx.save_for_backward(x0)  # to recompute the softmax after e is used up
        return out.astype(low) if half else out

    @staticmethod
    def backward(ctx, g):
        if _state.enabled:  # create_graph: the softmax must stay a function of x
            return _ce_backward_graph(ctx, g), None, None, None, None, None
        t, mask, w, denom, weight, reduction, smoothing, c = ctx.args
        e, s = ctx.e, ctx.s
        if e is None:  # a second backward (retain_graph): the buffer was used, recompute it
            (x,) = ctx.saved_tensors
            x = x._data.astype(s.dtype, copy=False)
            xp = xp_of(x)
            e = xp.exp(x - x.max(axis=1, keepdims=True))
        else:
            ctx.e = None
        nd = e.ndim
        xp = xp_of(e)
        # loss = -sum_c a_c logp_c per element  =>  d/dx = scale (softmax sum_c a_c - a)
        gd = g._data
        sc = gd / denom if reduction == MEAN else gd  # scalar, or per element for 'none'
        sw = sc * w if w is not None else sc  # scale of the one-hot term
        if not smoothing:
            e *= _expand_c(sw / s, nd)  # softmax * scale, in place
            _sub_at(e, t, sw)
            return _wrap(e), None, None, None, None, None
        a_row, a_cls = _smooth_terms(mask, w, weight, smoothing, c, e.dtype, t.shape, xp, nd)
        e *= _expand_c(sc * a_row / s, nd)
        e -= (_expand_c(sc, nd) if xp.ndim(sc) else sc) * a_cls
        _sub_at(e, t, (1.0 - smoothing) * sw)
        return _wrap(e), None, None, None, None, None


def _smooth_terms(mask, w, weight, smoothing, c, dtype, shape, xp, nd):
    """For label smoothing: per element ``A = (1-e) w + (e/C) keep sum(weight)`` (the softmax's
    coefficient) and the per-class term ``(e/C) keep weight_c``."""
    keep = mask.astype(dtype) if mask is not None else xp.ones(shape, dtype=dtype)
    wsum = weight.sum() if weight is not None else c
    wi = w if w is not None else keep
    a_row = (1.0 - smoothing) * wi + (smoothing / c) * keep * wsum
    cls = _weight_bcast(weight, nd) if weight is not None else 1.0
    a_cls = (smoothing / c) * _expand_c(keep, nd) * cls
    return a_row, a_cls


def _ce_backward_graph(ctx, g):
    """The cross-entropy gradient written with Tensor ops, for double backward."""
    t, mask, w, denom, weight, reduction, smoothing, c = ctx.args
    (x,) = ctx.saved_tensors
    p = ctx.s  # only its dtype is read
    xp = xp_of(p)
    nd = x.ndim
    shape = tuple(x.shape)
    probs = x.softmax(1)
    keep = mask.astype(p.dtype) if mask is not None else xp.ones(t.shape, dtype=p.dtype)
    wi = w if w is not None else keep
    if smoothing:
        a_row, a_cls = _smooth_terms(mask, w, weight, smoothing, c, p.dtype, t.shape, xp, nd)
        a = xp.broadcast_to(a_cls, shape).copy()
    else:
        a_row = wi
        a = xp.zeros(shape, dtype=p.dtype)
    _sub_at(a, t, -(1.0 - smoothing) * wi)
    gs = g / denom if reduction == MEAN else g
    if reduction == NONE:
        gs = gs.unsqueeze(1)
    return gs * (probs * _wrap(_expand_c(a_row, nd)) - _wrap(a))


# ---- nll -----------------------------------------------------------------------------------------
class NllLoss(Function):
    """``nll_loss(x, t)``: x (N, C, d1, ...) log-probabilities, t (N, d1, ...) class indices."""

    _array_forward = True
    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, x, target, weight, reduction, ignore_index):
        xp = xp_of(x)
        t, mask = _class_targets(target, x.shape[1], ignore_index)
        w, denom = _row_weights(t, mask, weight, x.dtype)
        picked = _pick(x, t)
        loss = -(picked * w) if w is not None else -picked
        out = _reduce(xp, loss, reduction, denom)
        ctx.args = (t, w, denom, reduction, x.shape, x.dtype)
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        t, w, denom, reduction, shape, dtype = ctx.args
        xp = xp_of(g._data)
        # d loss / d x[n, t_n] = -w_n (scaled); every other entry has no gradient
        const = xp.zeros(shape, dtype=dtype)
        if _state.enabled:
            _sub_at(const, t, w if w is not None else xp.ones(t.shape, dtype=dtype))
            gs = g / denom if reduction == MEAN else g
            if reduction == NONE:
                gs = gs.unsqueeze(1)
            return gs * _wrap(const), None, None, None, None
        s = _grad_scale(g._data.astype(dtype, copy=False), reduction, denom)
        sw = s * w if w is not None else s
        if xp.ndim(sw) == 0 and len(shape) > 2:
            sw = xp.full(t.shape, sw, dtype=dtype)
        _sub_at(const, t, sw)
        return _wrap(const), None, None, None, None


# ---- binary cross entropy ------------------------------------------------------------------------
# NOTE: matches torch: its BCE gradient clamps the denominator at 1e-12 rounded to float32
_EPS = 9.999999960041972e-13


class BinaryCrossEntropy(Function):
    """``-w (y log x + (1 - y) log(1 - x))`` with the logs clamped at -100 (PyTorch's)."""

    _array_forward = True
    _node_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, x, y, weight, reduction):
        xp = xp_of(x)
        if x.size and ((x < 0).any() or (x > 1).any()):
            raise RuntimeError("all elements of input should be between 0 and 1")
        # NOTE: matches torch: each log is clamped at -100, so x = 0 or 1 gives a finite loss
        log1 = xp.maximum(xp.log(x), -100.0)
        log0 = xp.maximum(xp.log1p(-x), -100.0)
        loss = -(y * log1 + (1 - y) * log0)
        if weight is not None:
            loss = loss * weight
        ctx.save_for_backward(x, y, weight)
        ctx.reduction = reduction
        return _reduce(xp, loss, reduction, loss.size).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, y, w = ctx.saved_tensors
        if ctx.reduction == MEAN:
            g = g / x.numel()
        if w is not None:
            g = g * w
        need_x, need_y = ctx.needs_input_grad[:2]
        gx = gy = None
        if need_x:
            # NOTE: matches torch: (x - y) / max(x (1 - x), 1e-12), finite at x = 0 and 1
            gx = g * (x - y) / (x * (1 - x)).clamp_min(_EPS)
        if need_y:
            # NOTE: matches torch: the target's gradient uses the logs unclamped
            gy = g * ((-x).log1p() - x.log())
        return gx, gy, None, None


def _softplus_neg(x):
    """``log(1 + exp(-x)) = max(-x, 0) + log1p(exp(-|x|))``: no overflow at any ``x``.

    NumPy's ``log1p`` (and ``logaddexp``) run a scalar loop, ~20x slower than ``log``; with
    ``u = 1 + e``, ``log(u) * e / (u - 1)`` is ``log1p(e)`` to a few ulps (Goldberg's
    correction), and ``e`` itself where ``u`` rounds to 1.
    """
    xp = xp_of(x)
    e = xp.exp(-xp.abs(x))
    u = 1.0 + e
    r = xp.log(u)
    den = u - 1.0
    r = xp.where(den == 0, e, r * (e / den))
    r += xp.maximum(-x, 0)
    return r


class BinaryCrossEntropyWithLogits(Function):
    """``(1 - y) x + (1 + (pw - 1) y) (log1p(exp(-|x|)) + max(-x, 0))``, times ``weight``."""

    _array_forward = True
    _node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, x, y, weight, pos_weight, reduction):
        xp = xp_of(x)
        sp = _softplus_neg(x)
        if pos_weight is not None:
            loss = (1 - y) * x + ((pos_weight - 1) * y + 1) * sp
        else:
            loss = (1 - y) * x + sp
        if weight is not None:
            loss = loss * weight
        ctx.save_for_backward(x, y, weight, pos_weight)
        ctx.reduction = reduction
        return _reduce(xp, loss, reduction, loss.size).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, y, w, pw = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad[:2]
        if not _state.enabled and need_x and not need_y and pw is None:
            # the common call, on arrays: (sigmoid(x) - y) * g
            xd = x._data
            xp = xp_of(xd)
            gd = g._data / xd.size if ctx.reduction == MEAN else g._data
            gx = xp.exp(-xd)
            gx += 1.0
            xp.divide(1.0, gx, out=gx)  # sigmoid(x); exp overflow gives 1/inf = 0, as wanted
            gx -= y._data
            gx *= gd
            if w is not None:
                gx *= w._data
            return _wrap(gx), None, None, None, None
        if ctx.reduction == MEAN:
            g = g / x.numel()
        if w is not None:
            g = g * w
        gx = gy = None
        if need_x:
            sig = x.sigmoid()
            # d/dx = (1 + (pw - 1) y) sigmoid(x) - pw y  (pw = 1: sigmoid(x) - y)
            gx = g * (((pw - 1) * y + 1) * sig - pw * y if pw is not None else sig - y)
        if need_y:
            # d/dy = -x + (pw - 1) softplus(-x)
            gy = -x if pw is None else -x + (pw - 1) * (-LogSigmoid.apply(x))
            gy = g * gy
        return gx, gy, None, None, None


class SmoothL1(Function):
    """Smooth L1 (``huber=False``: ``0.5 d**2 / beta`` inside ``|d| < beta``, ``|d| - 0.5 beta``
    outside) or Huber (``huber=True``: ``0.5 d**2``, ``beta (|d| - 0.5 beta)``) of ``d = x - y``,
    ``beta > 0``. One pass of array work each way instead of a graph of where/abs/mul nodes."""

    _array_forward = True

    @staticmethod
    def forward(ctx, x, y, beta, huber, reduction):
        xp = xp_of(x)
        d = x - y
        ad = xp.abs(d)
        inside = ad < beta
        if huber:
            loss = xp.where(inside, 0.5 * d * d, beta * (ad - 0.5 * beta))
        else:
            loss = xp.where(inside, 0.5 * d * d / beta, ad - 0.5 * beta)
        ctx.save_for_backward(x, y)
        ctx.args = (d, beta, huber, reduction)
        return _reduce(xp, loss, reduction, loss.size).astype(d.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        d, beta, huber, reduction = ctx.args
        if reduction == MEAN:
            g = g / d.size
        # d loss / d x = clamp(d, -beta, beta) (huber) or that / beta (smooth L1); d/dy = -d/dx
        if _state.enabled:
            x, y = ctx.saved_tensors
            gx = (x - y).clamp(-beta, beta) * (g if huber else g / beta)
        else:
            xp = xp_of(d)
            c = xp.clip(d, -beta, beta)
            if not huber:
                c /= beta
            c *= g._data
            gx = _wrap(c)
        return gx, (-gx if ctx.needs_input_grad[1] else None), None, None, None


class _SmoothL1Node(SmoothL1):
    _node_name = "SmoothL1LossBackward0"


class _HuberNode(SmoothL1):
    _node_name = "HuberLossBackward0"


# ---- CTC -----------------------------------------------------------------------------------------
def _lse3(a, b, c):
    """Element-wise log(exp(a) + exp(b) + exp(c)), -inf where all three are -inf."""
    xp = xp_of(a)
    m = xp.maximum(xp.maximum(a, b), c)
    safe = xp.where(m == -math.inf, 0.0, m)
    return safe + xp.log(xp.exp(a - safe) + xp.exp(b - safe) + xp.exp(c - safe))


def ctc_padded_targets(targets, target_lengths, n: int):
    """Targets as an (N, S) int64 array from either PyTorch form: padded (N, S) or concatenated
    1-D (sum of target_lengths)."""
    xp = xp_of(targets)
    targets = targets.astype("int64", copy=False)
    if targets.ndim == 2:
        return targets
    s = int(target_lengths.max()) if n else 0
    out = xp.zeros((n, s), dtype="int64")
    ends = xp.cumsum(target_lengths)
    starts = ends - target_lengths
    for i in range(n):  # one slice per sequence: a copy, no per-label work
        out[i, : target_lengths[i]] = targets[starts[i] : ends[i]]
    return out


class CtcLoss(Function):
    """Connectionist temporal classification: ``-log p(target | input)`` per sequence.

    ``lp`` (T, N, C) log-probabilities; ``targets`` (N, S) int64 (padded); ``il``/``tl`` (N,)
    int64 lengths. Alpha and beta over the extended label sequence (blanks between and around
    the labels, length 2S+1) are computed in log space for all sequences and positions at once,
    one time step per iteration.
    """

    _array_forward = True
    _node_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, lp, targets, il, tl, blank, reduction, zero_infinity):
        xp = xp_of(lp)
        t_max, n, _ = lp.shape
        s = int(tl.max()) if n else 0
        width = 2 * s + 1
        ext = xp.full((n, width), blank, dtype="int64")
        ext[:, 1::2] = targets[:, :s]
        # a label may be reached from two positions back unless it repeats the label there
        skip = xp.zeros((n, width), dtype=bool)
        skip[:, 2:] = ext[:, 2:] != ext[:, :-2]
        lpl = xp.take_along_axis(lp, xp.broadcast_to(ext, (t_max, n, width)), axis=2)
        ninf = -math.inf
        alpha = xp.full((t_max, n, width), ninf, dtype=lp.dtype)
        if t_max:
            alpha[0, :, 0] = lpl[0, :, 0]
            if width > 1:
                alpha[0, :, 1] = xp.where(tl > 0, lpl[0, :, 1], ninf)
        pad1 = xp.full((n, 1), ninf, dtype=lp.dtype)
        pad2 = xp.full((n, 2), ninf, dtype=lp.dtype)
        for t in range(1, t_max):
            a = alpha[t - 1]
            a1 = xp.concatenate([pad1, a[:, :-1]], axis=1)
            a2 = xp.where(skip, xp.concatenate([pad2, a[:, :-2]], axis=1), ninf)
            alpha[t] = _lse3(a, a1, a2) + lpl[t]
        rows = xp.arange(n)
        last_t = xp.maximum(il - 1, 0)
        end = alpha[last_t, rows, 2 * tl]
        end2 = xp.where(tl > 0, alpha[last_t, rows, xp.maximum(2 * tl - 1, 0)], ninf)
        nll = -xp.logaddexp(end, end2)
        nll = xp.where(il > 0, nll, xp.where(tl > 0, math.inf, 0.0))
        inf = xp.isinf(nll) if zero_infinity else None
        loss = xp.where(inf, 0.0, nll) if zero_infinity else nll
        loss = loss.astype(lp.dtype, copy=False)
        if reduction == MEAN:
            out = xp.asarray((loss / xp.maximum(tl, 1)).mean() if n else xp.nan)
        elif reduction == SUM:
            out = xp.asarray(loss.sum())
        else:
            out = loss
        if ctx is not NOGRAD_CTX:  # recording: keep what backward needs
            ctx.args = (lp, lpl, alpha, ext, skip, il, tl, nll, inf, reduction)
            ctx.save_for_backward(lp)
        return out.astype(lp.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        lp, lpl, alpha, ext, skip, il, tl, nll, inf, reduction = ctx.args
        xp = xp_of(lp)
        t_max, n, c = lp.shape
        width = ext.shape[1]
        ninf = -math.inf
        rows = xp.arange(n)
        # beta[t, s]: log-probability of finishing from position s at time t (lp[t] included)
        beta = xp.full((t_max, n, width), ninf, dtype=lp.dtype)
        init = xp.full((n, width), ninf, dtype=lp.dtype)
        last_t = xp.maximum(il - 1, 0)
        init[rows, 2 * tl] = lpl[last_t, rows, 2 * tl]
        has = tl > 0
        init[rows[has], 2 * tl[has] - 1] = lpl[last_t[has], rows[has], 2 * tl[has] - 1]
        pad1 = xp.full((n, 1), ninf, dtype=lp.dtype)
        pad2 = xp.full((n, 2), ninf, dtype=lp.dtype)
        skip_from = xp.concatenate([skip[:, 2:], xp.zeros((n, 2), dtype=bool)], axis=1)
        ilm1 = (il - 1)[:, None]
        for t in range(t_max - 1, -1, -1):
            if t < t_max - 1:
                b = beta[t + 1]
                b1 = xp.concatenate([b[:, 1:], pad1], axis=1)
                b2 = xp.where(skip_from, xp.concatenate([b[:, 2:], pad2], axis=1), ninf)
                rec = _lse3(b, b1, b2) + lpl[t]
                beta[t] = xp.where(t < ilm1, rec, xp.where(t == ilm1, init, ninf))
            else:
                beta[t] = xp.where(t == ilm1, init, ninf)
        # posterior of each extended position, summed per class: exp(alpha + beta - lp + nll)
        post = xp.exp(alpha + beta - lpl + nll[None, :, None])
        onehot = (ext[:, :, None] == xp.arange(c)).astype(lp.dtype)
        per_class = xp.matmul(post.transpose(1, 0, 2), onehot).transpose(1, 0, 2)
        # NOTE: matches torch: its gradient is exp(lp) - posterior, i.e. it assumes lp came from
        # log_softmax (the exp(lp) term cancels through log_softmax's backward)
        grad = xp.exp(lp) - per_class
        # frames past an input's length get 0 (set, not multiplied: an infinite loss's nan too)
        grad = xp.where((xp.arange(t_max)[:, None] < il[None, :])[:, :, None], grad, 0.0)
        if inf is not None:
            grad[:, inf, :] = 0.0
        if reduction == MEAN:  # d mean(loss_n / max(tl_n, 1)) / d loss_n
            grad /= (xp.maximum(tl, 1) * n).astype(lp.dtype)[None, :, None]
        if _state.enabled:
            gt = g.reshape(1, n, 1) if reduction == NONE else g
            (lp_t,) = ctx.saved_tensors  # recorded as an input, so double backward reaches it
            return (_CtcGrad.apply(gt, _wrap(grad), lp_t),) + (None,) * 6
        gd = g._data.astype(lp.dtype, copy=False)
        grad *= gd.reshape(1, n, 1) if reduction == NONE else gd
        return (_wrap(grad),) + (None,) * 6


class _CtcGrad(Function):
    """``g * dloss/dlp`` inside a create_graph backward: PyTorch has no second derivative of
    CTC, and neither has ember (its backward raises PyTorch's error)."""

    _array_forward = True
    _node_name = "CtcLossBackwardBackward0"

    @staticmethod
    def forward(ctx, g, grad, lp):
        return g * grad

    @staticmethod
    def backward(ctx, gg):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


def as_tensor_data(x) -> object:
    """The raw array of a Tensor (helper for callers that accept Tensors or sequences)."""
    return x._data if isinstance(x, Tensor) else x
