"""Scaled dot-product attention as one primitive, the op behind ``nn.functional``'s
``scaled_dot_product_attention`` and ``multi_head_attention_forward``.

``Attention`` computes ``softmax(q @ k^T * scale + mask) @ v`` on raw arrays in one forward:
the score matrix is made once and turned into the attention weights in place (mask and causal
bias added, max subtracted, exponentiated and normalized without further temporaries). As a
composite of matmul, mul, add, softmax and matmul it would make five score-sized arrays and
five graph nodes.

The scores are computed key-major, as ``k @ q^T`` of shape ``(..., S, L)``: the softmax then
reduces along axis -2, which NumPy runs as whole-row vector operations, where a reduction along
a short last axis costs a loop step per row (3-6x slower for the row lengths of attention).
The products with the transposed weights cost nothing extra (BLAS reads a transposed operand
as is), and the weights returned are a transposed view of that array.

The op returns the output and the weights; the weights are a second output so that
``need_weights`` callers get them without recomputation, and so that backward reads them as a
saved *output*, which keeps double backward exact.

Backward has two bodies: Tensor ops (used while recording, i.e. under ``create_graph``, so
second derivatives work) and raw arrays with in-place updates (the usual case, one pass fewer
over the score-sized arrays per step). A test compares the two.

nn-only: not one of ``ember.ops.FAMILIES``; ``ember.nn.functional.attention`` imports it.
"""

from __future__ import annotations

from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.tensor import _wrap

_state = _gm.state
_causal_cache: dict = {}


def causal_bias_t(xp, q_len: int, k_len: int, dtype):
    """The causal mask, key-major: ``(k_len, q_len)``, -inf where key j comes after query i
    (j > i, aligned top-left as PyTorch's ``is_causal``), else 0. Cached per shape and dtype:
    a training loop asks for the same one every step."""
    if xp.device_type == "meta":
        return xp.zeros((k_len, q_len), dtype=dtype)
    key = (xp, q_len, k_len, dtype)
    bias = _causal_cache.get(key)
    if bias is None:
        bias = xp.tril(xp.full((k_len, q_len), -xp.inf, dtype=dtype), -1)
        bias.flags.writeable = False
        if len(_causal_cache) > 64:  # many distinct lengths: keep the cache bounded
            _causal_cache.clear()
        _causal_cache[key] = bias
    return bias


def _softmax_cols(xp, s, safe: bool):
    """Softmax of ``s`` along axis -2, in place. With ``safe``, a column that is all -inf
    (a query with every key masked) gives zeros instead of NaN."""
    m = s.max(axis=-2, keepdims=True)
    if safe and xp.device_type == "meta":  # shapes only: nothing to inspect
        safe = False
    if safe:
        dead = m == -xp.inf
        if dead.any():
            m[dead] = 0  # exp(-inf - 0) = 0: the column sums to 0, fixed below
        else:
            safe = False
    s -= m
    xp.exp(s, out=s)
    total = s.sum(axis=-2, keepdims=True)
    if safe:
        total[total == 0] = 1
    s /= total
    return s


def _mT(a):
    return a.swapaxes(-1, -2)


class Attention(Function):
    """``(softmax(q @ k^T * scale + mask) * keep) @ v`` and the weights it used.

    Arguments: ``q (..., L, E)``, ``k (..., S, E)``, ``v (..., S, Ev)`` (batch dims
    broadcast), ``mask`` None, bool (True = take part) or float (added), broadcastable to
    ``(..., L, S)``; ``scale`` a float; ``causal`` a bool; ``keep`` None or the dropout
    multiplier (0 or 1/(1-p)), broadcastable to ``(..., L, S)``; ``safe`` whether all-masked
    rows give 0 (SDPA) or NaN (``multi_head_attention_forward``'s ``need_weights`` path).
    Validated by the callers.
    """

    _array_forward = True
    _low_opmath = True  # float16/bfloat16 compute in float32 and round once, as torch's kernels
    _node_name = "ScaledDotProductAttentionBackward0"

    @staticmethod
    def forward(ctx, q, k, v, mask, scale, causal, keep, safe):
        xp = xp_of(q)
        # key-major scores (..., S, L); the scale goes on q, the smaller operand
        s = xp.matmul(k, _mT(q * scale))
        if mask is not None:
            mask = _mT(mask) if mask.ndim >= 2 else mask[..., None]
            if mask.dtype.kind == "b":
                mask = xp.where(mask, xp.zeros((), s.dtype), xp.asarray(-xp.inf, s.dtype))
            elif mask.dtype != s.dtype:
                mask = mask.astype(s.dtype)
            if xp.device_type != "meta" and mask.size < s.size and not mask.flags.c_contiguous:
                # a mask broadcast over the batch: adding its transposed view would stride
                # through it once per batch element; one contiguous copy of it is cheaper
                mask = xp.ascontiguousarray(mask)
            if xp.broadcast_shapes(s.shape, mask.shape) == s.shape:
                s += mask
            else:  # the mask has more batch dims than the scores
                s = s + mask
        if causal:
            s += causal_bias_t(xp, s.shape[-1], s.shape[-2], s.dtype)
        pt = _softmax_cols(xp, s, safe)
        if keep is not None:
            pt = pt * _mT(keep)
            # with dropout the output is the dropped weights; the softmax itself is kept as a
            # constant for backward
            ctx.p = _mT(s)
        out = xp.matmul(_mT(pt), v)
        ctx.scale = scale
        ctx.keep = keep
        used = _mT(pt)
        ctx.save_for_backward(q, k, v, used)
        return out, used

    @staticmethod
    def backward(ctx, g_out, g_used):
        if _state.enabled:
            return _backward_tensors(ctx, g_out, g_used)
        return _backward_arrays(ctx, g_out, g_used)


# An unused second output (SDPA's weights) reaches backward as None, not as a zero array.
Attention._Node.materialize_grads = False


def _backward_tensors(ctx, g_out, g_used):
    q, k, v, used = ctx.saved_tensors
    need_q, need_k, need_v, need_m = ctx.needs_input_grad[:4]
    keep = None
    p = used
    if ctx.keep is not None:
        keep = _wrap(ctx.keep)
        p = _wrap(ctx.p)
    gq = gk = gv = gm = None
    # out = used @ v  =>  d used = g v^T,  d v = used^T g
    if g_out is not None:
        if need_v:
            gv = used.mT @ g_out
        g_used = g_out @ v.mT if g_used is None else g_used + g_out @ v.mT
    if g_used is None or not (need_q or need_k or need_m):
        return gq, gk, gv, gm, None, None, None, None
    gp = g_used if keep is None else g_used * keep
    # d softmax: ds = p * (dp - sum(dp * p))
    gs = p * (gp - (gp * p).sum(-1, keepdim=True))
    if need_m:
        gm = gs
    gs = gs * ctx.scale
    if need_q:
        gq = gs @ k
    if need_k:
        gk = gs.mT @ q
    return gq, gk, gv, gm, None, None, None, None


def _backward_arrays(ctx, g_out, g_used):
    """The same gradients on raw arrays, key-major like forward: ``gst`` is d scores^T."""
    q, k, v, used = (t._data for t in ctx.saved_tensors)
    need_q, need_k, need_v, need_m = ctx.needs_input_grad[:4]
    xp = xp_of(used)
    keep = ctx.keep
    usedt = _mT(used)
    pt = usedt if keep is None else _mT(ctx.p)
    gq = gk = gv = gm = None
    if g_out is not None:
        g = g_out._data
        if need_v:
            gv = _wrap(xp.matmul(usedt, g))
        gst = xp.matmul(v, _mT(g))
        if g_used is not None:
            gst += _mT(g_used._data)
    elif g_used is not None:
        gst = _mT(g_used._data).copy()
    else:
        gst = None
    if gst is None or not (need_q or need_k or need_m):
        return gq, gk, gv, gm, None, None, None, None
    if keep is not None:
        gst *= _mT(keep)
    # d softmax: ds = p * (dp - sum(dp * p)), written into gst
    gst -= (gst * pt).sum(axis=-2, keepdims=True)
    gst *= pt
    if need_m:
        gm = _wrap(_mT(gst.copy() if (need_q or need_k) else gst))
    scale = ctx.scale
    if need_q:
        r = xp.matmul(_mT(gst), k)
        r *= scale
        gq = _wrap(r)
    if need_k:
        r = xp.matmul(gst, q)
        r *= scale
        gk = _wrap(r)
    return gq, gk, gv, gm, None, None, None, None
