"""The LSTM over a padded batch, feature-major (split from ``rnn.py``, whose ``RecurrentLayer``
calls ``_lstm_fm_forward``/``_lstm_fm_backward`` when every step has the whole batch); see the
layout note below."""

from __future__ import annotations

from ember.autograd.function import NOGRAD_CTX
from ember.ops._dispatch import xp_of


# ---- LSTM over a padded batch: feature-major steps -------------------------------------------
# NumPy pays a few microseconds per call on top of the arithmetic for operands that are not
# contiguous (a gate's columns of a (B, 4H) block are not), which at these sizes is as much as
# the arithmetic. So on a padded input (every step has the whole batch) the LSTM keeps each
# step's quantities as contiguous (features, B) blocks: the recurrent GEMM is W @ h_prev with
# h_prev (P, B), and every gate is a run of H rows. Blocks are indexed by *position* 0..T along
# the sequence: step t reads the state at position t (t + 1 in reverse) and writes the next;
#   S  (T + 1, 5H, B)  at a step's read position: its gates [o, i, f, g] (the weights' rows
#                      reordered, so that [i, f] and [g, c_prev] are adjacent pairs) and the
#                      cell state at that position (c_prev; the final position holds c_n)
#   Y  (T + 1, P + I + 1, B)  the hidden state at each position (h0 included), then the
#                      input of the step that reads it and a row of ones (the bias)
#   D  (T + 1, 6H, B)  backward, at the read position: [dc, do, di, df, dg, dc_prev] (the
#                      gate gradients contiguous for the GEMM, dc ahead of do and dc_prev
#                      after dg so that dh * [k, po] and dc * [qi, qf, qg, f] are one call)
# Each step's two projections are one GEMM, [W_hh | W_ih | b] @ [h_prev; x_t; 1] (the inputs
# sit below each position's hidden state in Y); the weight gradients are one GEMM each over
# the (4H, T * B) gate gradients.
def _gate_perm(xp, w, h, factors, out):
    """``out`` = rows of ``w`` (gate order i, f, g, o) in the order o, i, f, g, each gate
    multiplied by its factor (``factors`` in the order o, i, f, g)."""
    fo, fi, ff, fg = factors
    xp.multiply(w[3 * h :], fo, out=out[:h])
    if fi == ff:
        xp.multiply(w[: 2 * h], fi, out=out[h : 3 * h])
    else:
        xp.multiply(w[:h], fi, out=out[h : 2 * h])
        xp.multiply(w[h : 2 * h], ff, out=out[2 * h : 3 * h])
    xp.multiply(w[2 * h : 3 * h], fg, out=out[3 * h :])
    return out


def _positions(pl):
    """``(order, read, write, init, final)``: the steps in processing order, the position each
    step reads its state from and writes its new state to, and the first and last position."""
    t = len(pl.steps)
    if pl.reverse:
        return range(t - 1, -1, -1), 1, 0, t, 0
    return range(t), 0, 1, 0, t


def _swap01(src, out):
    """``out[...] = src.transpose(1, 0, 2)`` for 3-D arrays: moved as whole rows of the last
    axis (one opaque item each, where the backend has such dtypes), as the elementwise copy
    pays NumPy's per-row iteration cost on these short rows."""
    xp = xp_of(src)
    if hasattr(xp, "void") and src.strides[2] == src.itemsize and out.flags.c_contiguous:
        row = xp.dtype((xp.void, src.shape[2] * src.itemsize))
        try:
            out.view(row)[..., 0][...] = src.view(row)[..., 0].transpose(1, 0)
            return
        except ValueError:  # a view NumPy cannot reinterpret: copy element by element
            pass
    out[...] = src.transpose(1, 0, 2)


def _lstm_fm_forward(ctx, x, h0, c0, w_ih, w_hh, b, w_hr, pl):
    xp = xp_of(x)
    dt = x.dtype
    n, k = x.shape
    g4 = w_ih.shape[0]
    h = g4 // 4
    p = h0.shape[1]
    bsz = pl.batch
    t_len = len(pl.steps)
    order, rd, wr, init, final = _positions(pl)
    # -x for the sigmoid gates o, i, f; -2x for g: 2 / (1 + exp(-2x)) - 1 = tanh(x)
    factors = (-1, -1, -1, -2)
    # one GEMM per step for both projections: [W_hh | W_ih | b] @ [h_prev; x_t; 1]
    kb = p + k + (b is not None)
    wc = xp.empty((g4, kb), dt)
    _gate_perm(xp, w_hh, h, factors, wc[:, :p])
    _gate_perm(xp, w_ih, h, factors, wc[:, p : p + k])
    y_all = xp.empty((t_len + 1, kb, bsz), dt)  # per position [h; x of the step reading h; 1]
    y_all[rd : rd + t_len, p : p + k] = x.reshape(t_len, bsz, k).transpose(0, 2, 1)
    if b is not None:
        _gate_perm(xp, b[:, None], h, factors, wc[:, p + k :])
        y_all[rd : rd + t_len, p + k] = 1
    num = xp.empty((g4, bsz), dt)  # 2 / (1 + e) for g leaves tanh + 1
    num[: 3 * h] = 1
    num[3 * h :] = 2
    s_all = xp.empty((t_len + 1, 5 * h, bsz), dt)
    s4 = s_all.reshape(t_len + 1, 5, h, bsz)
    s4[init, 4] = c0.T
    y_all[init, :p] = h0.T
    tc_all = xp.empty((t_len, h, bsz), dt)  # tanh(c)
    proj = w_hr is not None
    m_all = xp.empty((t_len, h, bsz), dt) if proj else None
    # [i g, f c_prev] per step: kept for backward (i g gives i (1 - g^2) in one call less)
    record = int(ctx is not NOGRAD_CTX)
    pb_all = xp.empty((t_len if record else 1, 2 * h, bsz), dt)
    # 1 as an array: NumPy takes an array operand faster than a Python number
    one = xp.ones((g4, bsz), dt)
    one_h = one[:h]
    c_all = s4[:, 4]
    h_all = y_all[:, :p]
    h1, h3, h4 = h, 3 * h, 4 * h
    dot, multiply, add, subtract = xp.dot, xp.multiply, xp.add, xp.subtract
    exp, tanh, divide = xp.exp, xp.tanh, xp.divide
    # (ufunc outputs passed positionally: a little less call overhead than out=)
    for t in order:
        st = s_all[t + rd]
        a = st[:h4]
        dot(wc, y_all[t + rd], a)
        exp(a, a)
        add(a, one, a)
        divide(num, a, a)
        gg = st[h3:h4]
        subtract(gg, one_h, gg)
        pb = pb_all[t * record]
        multiply(st[h1:h3], st[h3:], pb)  # [i g, f c_prev]
        c = c_all[t + wr]
        add(pb[:h1], pb[h1:], c)
        tc = tc_all[t]
        tanh(c, tc)
        if proj:
            mm = m_all[t]
            multiply(st[:h1], tc, mm)
            dot(w_hr, mm, h_all[t + wr])
        else:
            multiply(st[:h1], tc, h_all[t + wr])
    # row-major hidden states (B, P) per position: the output, and the GEMM operand of dW_hh
    y_rows = xp.ascontiguousarray(y_all[:, :p].transpose(0, 2, 1))
    ctx.arrays = (s_all, tc_all, y_rows, m_all, y_all, pb_all)
    y = y_rows[wr : wr + t_len].reshape(n, p)
    return y, y_rows[final].copy(), xp.ascontiguousarray(s4[final, 4].T)


def _lstm_fm_backward(ctx, gy, ghn, gcn, x, w_ih, w_hh, w_hr, needs, pl):
    xp = xp_of(gy)
    s_all, tc_all, y_rows, m_all, y_all, pb_all = ctx.arrays
    t_len, h, bsz = tc_all.shape
    n = t_len * bsz
    p = y_rows.shape[2]
    g4 = 4 * h
    dt = gy.dtype
    order, rd, wr, init, final = _positions(pl)
    st = s_all.reshape(t_len + 1, 5, h, bsz)[rd : rd + t_len]  # [o, i, f, g, c_prev] per step
    o, i, f, g = st[:, 0], st[:, 1], st[:, 2], st[:, 3]
    multiply, subtract = xp.multiply, xp.subtract
    # every step's local derivatives at once; with dh, dc the gradients reaching a step's h
    # and c (dc: from the next step, and through h), m = o tanh(c) (h without projection):
    #   dc = dh k + dc_next            k = o (1 - tanh(c)^2) = o - m tanh(c)
    #   d o pre-activation = dh po     po = tanh(c) o (1 - o)
    #   d [i, f, g] pre-activations = dc [g i (1 - i), c_prev f (1 - f), i (1 - g^2)]
    #   d c_prev = dc f                i (1 - g^2) = i - (i g) g
    s3 = xp.subtract(1, st[:, :3])
    s3 *= st[:, :3]  # [o (1 - o), i (1 - i), f (1 - f)]
    kp = xp.empty((t_len, 2, h, bsz), dt)  # [k, po]
    k = kp[:, 0]
    m = m_all if m_all is not None else y_all[wr : wr + t_len, :p]
    multiply(m, tc_all, out=k)
    subtract(o, k, out=k)
    multiply(s3[:, 0], tc_all, out=kp[:, 1])
    q = xp.empty((t_len, 4, h, bsz), dt)  # [qi, qf, qg, f]
    multiply(s3[:, 1:], st[:, 3:], out=q[:, :2])
    qg = q[:, 2]
    multiply(pb_all[:, 0:h], g, out=qg)
    subtract(i, qg, out=qg)
    q[:, 3] = f
    dy_all = xp.empty((t_len + 1, p, bsz), dt)  # gradients reaching each position's h
    dy_all[wr : wr + t_len] = gy.reshape(t_len, bsz, p).transpose(0, 2, 1)
    dy_all[init] = 0
    dy_all[final] += ghn.T
    d_all = xp.empty((t_len + 1, 6 * h, bsz), dt)
    d6 = d_all.reshape(t_len + 1, 6, h, bsz)
    d6[final, 5] = gcn.T  # what reaches c_n, read as the carried dc of the last step
    # W_hh^T with the gate columns in the order of the gradients' rows
    whh_t = _gate_perm(xp, w_hh, h, (1, 1, 1, 1), xp.empty((g4, p), dt)).T
    proj = w_hr is not None
    dm = xp.empty((h, bsz), dt) if proj else None
    whr_t = w_hr.T if proj else None
    tmp = xp.empty((p, bsz), dt)
    dot, add = xp.dot, xp.add
    dcp = d6[:, 5]
    dgates = d_all[:, h : 5 * h]
    for t in reversed(order):
        dh = dy_all[t + wr]
        if proj:
            dh = dot(whr_t, dh, dm)
        dblk = d6[t + rd]
        multiply(dh, kp[t], dblk[:2])  # [dc through h, do]
        dc = dblk[0]
        add(dc, dcp[t + wr], dc)
        multiply(dc, q[t], dblk[2:])  # [di, df, dg, dc_prev]
        dot(whh_t, dgates[t + rd], tmp)  # d h_prev = W_hh^T d gates
        dp = dy_all[t + rd]
        add(dp, tmp, dp)
    # the gate gradients as (4H, T * B) in the weights' gate order, columns in data-row order
    dg = xp.empty((g4, t_len, bsz), dt)
    blk = d_all[rd : rd + t_len]
    _swap01(blk[:, 2 * h : 5 * h], dg[: 3 * h])
    _swap01(blk[:, h : 2 * h], dg[3 * h :])
    dg = dg.reshape(g4, n)
    dx = dg.T.dot(w_ih) if needs[0] else None
    dw_ih = dg.dot(x) if needs[3] else None
    dw_hh = dg.dot(y_rows[rd : rd + t_len].reshape(n, p)) if needs[4] else None
    db = dg.dot(xp.ones(n, dt)) if needs[5] else None  # (a GEMV: faster than sum here)
    dw_hr = None
    if proj and needs[7]:
        dym = dy_all[wr : wr + t_len].transpose(1, 0, 2).reshape(p, n)
        dw_hr = dym.dot(m_all.transpose(1, 0, 2).reshape(h, n).T)
    dh0 = xp.ascontiguousarray(dy_all[init].T)
    dc0 = xp.ascontiguousarray(d6[init, 5].T)
    return dx, dh0, dc0, dw_ih, dw_hh, db, None, dw_hr
