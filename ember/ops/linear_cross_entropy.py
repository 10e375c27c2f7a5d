"""The chunked primitive behind ``F.linear_cross_entropy(..., options=...)`` (not a public op).

``cross_entropy(linear(x, W, b), t)`` for x (N, in), W (C, in), b (C,) or None and int64
class-index targets, computed ``chunk`` rows of the batch at a time, so the (N, C) logits never
exist: only one (chunk, C) block does. Each block gives its rows' losses and, in the same pass,
their logit gradient ``(softmax - onehot) * scale``, which is folded at once into the input
gradient (``dlogits @ W``), the weight gradient (``dlogits.T @ x``) and the bias gradient.

- ``'mean'`` / ``'sum'``: the gradients are computed in forward when the caller says they are
  needed (three GEMMs per block, as a reference forward + backward) and backward only scales
  them by the output gradient, in place unless ``keep`` (``allow_retain_graph``) is set. A
  second backward after the in-place use recomputes them (PyTorch raises there instead).
- ``'none'``: the per-row output gradient is needed before the weight gradient can be summed,
  so forward computes only the losses and backward recomputes the blocks with it folded in.
- With ``create_graph`` backward is written with Tensor ops on the full logits, so double
  backward is exact (PyTorch's chunked path does not support it).
"""

from __future__ import annotations

from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.autograd.function import NOGRAD_CTX, Function
from ember.ops._dispatch import xp_of
from ember.ops.loss import MEAN, NONE, _class_targets, _reduce, _row_weights
from ember.tensor import _wrap

_state = _gm.state

__all__: list[str] = []


def _blocks(x, W, b, t, scale, chunk, need, ct):
    """Losses of all rows (``-log_softmax(x W^T + b)[t]``, unweighted) and, when ``scale`` is
    not None, the gradients ``(gx, gW, gb)`` of ``sum_n scale_n loss_n`` for the inputs
    flagged in ``need`` (None elsewhere). ``scale`` is an array (N,) or a Python number."""
    xp = xp_of(W)
    n = x.shape[0]
    loss = xp.empty((n,), dtype=ct)
    grads = scale is not None
    gx = xp.empty(x.shape, dtype=ct) if grads and need[0] else None
    gW = xp.zeros(W.shape, dtype=ct) if grads and need[1] else None
    gb = xp.zeros(W.shape[:1], dtype=ct) if grads and need[2] else None
    rows = xp.arange(min(chunk, n))
    Wt = W.T
    for s in range(0, n, chunk):
        e = min(s + chunk, n)
        xc = x[s:e].astype(ct, copy=False)
        tc = t[s:e]
        r = rows[: e - s]
        z = xc.dot(Wt)  # the block's logits (chunk, C)
        if b is not None:
            z += b
        z -= z.max(axis=1, keepdims=True)
        zt = z[r, tc]
        xp.exp(z, out=z)
        ssum = z.sum(axis=1)
        loss[s:e] = xp.log(ssum) - zt
        if not grads:
            continue
        # d loss_n / d z_n = softmax_n - onehot(t_n), times the row's scale
        sc = scale[s:e] if xp.ndim(scale) else scale
        z *= (sc / ssum)[:, None]
        z[r, tc] -= sc
        if gx is not None:
            gx[s:e] = z.dot(W)
        if gW is not None:
            gW += z.T.dot(xc)
        if gb is not None:
            gb += z.sum(axis=0)
    return loss, (gx, gW, gb)


class LinearCrossEntropyChunked(Function):
    """``cross_entropy(linear(x, W, b), t)`` by blocks of ``chunk`` rows: x (N, in), W (C, in),
    b (C,) or None, target (N,) int64, class ``weight`` (C,) or None. ``acc`` is the compute
    dtype (the input's, or float32 for float16 input), ``keep`` is ``allow_retain_graph`` and
    ``need`` the three flags (input, weight, bias need a gradient). Arguments are validated by
    ``F.linear_cross_entropy``."""

    _array_forward = True
    _node_name = "LinearCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, x, W, b, target, weight, reduction, ignore_index, chunk, acc, keep, need):
        xp = xp_of(x)
        ct = acc
        Wc = W.astype(ct, copy=False)
        bc = b.astype(ct, copy=False) if b is not None else None
        t, mask = _class_targets(target, W.shape[0], ignore_index)
        if weight is not None:
            weight = weight.astype(ct, copy=False)
        w, denom = _row_weights(t, mask, weight, ct)
        recording = ctx is not NOGRAD_CTX
        pre = recording and reduction != NONE and any(need)
        scale = (w if w is not None else 1.0) if pre else None
        loss, grads = _blocks(x, Wc, bc, t, scale, chunk, need, ct)
        if w is not None:
            loss *= w
        out = _reduce(xp, loss, reduction, denom)
        if recording:
            ctx.grads = grads if pre else None
            ctx.args = (t, w, denom, weight, reduction, chunk, ct, keep, need)
            ctx.save_for_backward(*((x, W) if b is None else (x, W, b)))
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        if _state.enabled:  # create_graph: the gradient must stay a function of x, W, b
            return _backward_graph(ctx, g)
        t, w, denom, weight, reduction, chunk, ct, keep, need = ctx.args
        gd = g._data.astype(ct, copy=False)
        if reduction == NONE:
            # the per-row output gradient joins the scale: recompute the blocks with it
            saved = ctx.saved_tensors
            x, W = saved[0]._data, saved[1]._data.astype(ct, copy=False)
            b = saved[2]._data.astype(ct, copy=False) if len(saved) == 3 else None
            _, grads = _blocks(x, W, b, t, gd * w if w is not None else gd, chunk, need, ct)
            return _out(grads)
        sc = gd / denom if reduction == MEAN else gd
        grads = ctx.grads
        if grads is None:  # a second backward after the buffers were scaled in place
            saved = ctx.saved_tensors
            x, W = saved[0]._data, saved[1]._data.astype(ct, copy=False)
            b = saved[2]._data.astype(ct, copy=False) if len(saved) == 3 else None
            _, grads = _blocks(x, W, b, t, w if w is not None else 1.0, chunk, need, ct)
            keep = False
        elif not keep:
            ctx.grads = None  # used up: scaled in place, as PyTorch's default
        if keep:
            return _out([gr * sc if gr is not None else None for gr in grads])
        for gr in grads:
            if gr is not None:
                gr *= sc
        return _out(grads)


def _out(grads):
    gx, gW, gb = grads
    return (
        _wrap(gx) if gx is not None else None,
        _wrap(gW) if gW is not None else None,
        _wrap(gb) if gb is not None else None,
    ) + (None,) * 8


def _backward_graph(ctx, g):
    """The gradient written with Tensor ops on the full logits, for double backward."""
    t, w, denom, weight, reduction, chunk, ct, keep, need = ctx.args
    saved = ctx.saved_tensors
    x, W = saved[0], saved[1]
    b = saved[2] if len(saved) == 3 else None
    xp = xp_of(t)
    dt = _dtype.from_np(ct)
    z = x.to(dt)
    Wc = W.to(dt)
    logits = z.matmul(Wc.t())
    if b is not None:
        logits = logits + b.to(dt)
    n, c = logits.shape
    rs = w if w is not None else xp.ones((n,), dtype=ct)
    onehot = xp.zeros((n, c), dtype=ct)
    onehot[xp.arange(n), t] = rs
    gs = g.to(dt)
    gs = gs / denom if reduction == MEAN else gs
    gs = gs.unsqueeze(1) if reduction == NONE else gs
    dl = gs * (logits.softmax(1) * _wrap(rs[:, None]) - _wrap(onehot))
    gx = dl.matmul(Wc) if need[0] else None
    gW = dl.t().matmul(z) if need[1] else None
    gb = dl.sum(0) if need[2] and b is not None else None
    return (gx, gW, gb) + (None,) * 8
