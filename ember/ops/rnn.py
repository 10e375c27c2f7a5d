"""Recurrent layers as sequence primitives: the engine behind ``nn.RNN``, ``nn.LSTM``, ``nn.GRU``
and their cells (nn-only; not an op family of ``ember``).

One layer in one direction is one ``Function``, ``RecurrentLayer``, on raw arrays: the input
projection ``x @ W_ih.T + b`` of every time step in one GEMM, then the recurrence over the
steps: per step one GEMM with ``W_hh`` and the gates' pointwise math in a few in-place NumPy
calls into preallocated buffers. Its backward walks the steps in reverse the same way and
computes the weight gradients with one GEMM each over all steps afterwards. Per-step Python
work is a handful of array calls.

Sequences are laid out *packed*, as PyTorch's ``PackedSequence``: ``data`` is ``(N, features)``
with the rows of step ``t`` contiguous, ``batch_sizes[t]`` of them, non-increasing in ``t``. A
padded ``(T, B, features)`` input is the case ``batch_sizes = (B,) * T``. A ``_Plan`` turns
``batch_sizes`` and the direction into the step schedule: for each step its rows and where its
previous hidden state lives (the initial state, the rows of the step before, or, in the
reverse direction when the batch grows, both).

The LSTM on a padded input (the common case, and ``LSTMCell``) runs feature-major: each step's
quantities are contiguous ``(features, B)`` blocks, as NumPy's per-call cost on non-contiguous
operands is as large as the arithmetic at these sizes (see "LSTM over a padded batch" below).
The other cases run row-major on ``(rows, features)`` blocks.

Gates go through one ``exp`` call per step: ``sigmoid(x) = 1 / (1 + exp(-x))`` and the LSTM's
``tanh(x) = 2 sigmoid(2x) - 1``; the factors -1 and -2 are folded into copies of the weights
made once per call (exact in floating point). NumPy's ``exp`` is about twice as fast as its
``tanh``.

``backward`` is written on arrays for speed. When a graph of the backward is asked for
(``create_graph=True``), it instead recomputes the layer with Tensor ops (``_composite``) and
differentiates that, so double backward works; tests compare the two paths.
"""

from __future__ import annotations

from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops._lstm_padded import _lstm_fm_backward, _lstm_fm_forward
from ember.tensor import _wrap

_INIT, _ROW, _CAT = 0, 1, 2
_state = _gm.state


class _Plan:
    """The step schedule of one direction over ``batch_sizes``.

    ``steps``: ``(r0, r1, kind, p0, bp)`` in processing order, rows ``r0:r1`` of the data; the
    previous hidden state is ``h0[:b]`` (``_INIT``), rows ``p0:p0 + b`` of the output
    (``_ROW``), or rows ``p0:p0 + bp`` followed by ``h0[bp:b]`` (``_CAT``). ``final``: the
    output rows holding each sequence's last state (a slice, or a list of rows). ``prev``: for
    each data row, the row of ``concat(output, h0)`` holding its previous state (None when a
    slice expression covers it: ``uniform``).
    """

    __slots__ = ("steps", "n", "batch", "final", "prev", "uniform", "reverse", "_arrays")

    def __init__(self, batch_sizes: tuple, reverse: bool):
        bs = batch_sizes
        T = len(bs)
        off = [0] * T
        for t in range(1, T):
            off[t] = off[t - 1] + bs[t - 1]
        n = off[-1] + bs[-1] if T else 0
        batch = bs[0] if T else 0
        self.n, self.batch, self.reverse = n, batch, reverse
        self.uniform = all(b == batch for b in bs)
        self._arrays = {}
        steps = []
        if not reverse:
            for t in range(T):
                kind = _INIT if t == 0 else _ROW
                steps.append((off[t], off[t] + bs[t], kind, off[t - 1] if t else 0, 0))
        else:
            for t in range(T - 1, -1, -1):
                if t == T - 1:
                    steps.append((off[t], off[t] + bs[t], _INIT, 0, 0))
                elif bs[t + 1] == bs[t]:
                    steps.append((off[t], off[t] + bs[t], _ROW, off[t + 1], 0))
                else:
                    steps.append((off[t], off[t] + bs[t], _CAT, off[t + 1], bs[t + 1]))
        self.steps = steps
        if reverse:
            self.final = slice(0, batch)
        elif self.uniform:
            self.final = slice(n - batch, n)
        else:  # sequence i ends at the last step with more than i rows
            last = [0] * batch
            for t in range(T):
                for i in range(bs[t]):
                    last[i] = off[t] + i
            self.final = last
        self.prev = None
        if not self.uniform:
            prev = [0] * n
            for r0, r1, kind, p0, bp in steps:
                for i in range(r1 - r0):
                    if kind == _INIT or (kind == _CAT and i >= bp):
                        prev[r0 + i] = n + i
                    else:
                        prev[r0 + i] = p0 + i
            self.prev = prev

    def index(self, name: str, xp):
        """``final`` or ``prev`` as an index array of ``xp`` (made once)."""
        a = self._arrays.get(name)
        if a is None:
            a = self._arrays[name] = xp.asarray(getattr(self, name), dtype=xp.intp)
        return a

    def final_rows(self, y, xp):
        f = self.final
        return y[f] if f.__class__ is slice else y[self.index("final", xp)]

    def previous(self, y, h0, xp):
        """For every data row, the state it started from: ``(N, features)``."""
        b, n = self.batch, self.n
        if self.uniform:
            if self.reverse:
                return xp.concatenate((y[b:], h0))
            return xp.concatenate((h0, y[: n - b]))
        return xp.concatenate((y, h0))[self.index("prev", xp)]


_PLANS: dict = {}


def plan(batch_sizes: tuple, reverse: bool) -> _Plan:
    """The (cached) ``_Plan`` for ``batch_sizes`` (a tuple of ints) in one direction."""
    key = (batch_sizes, reverse)
    p = _PLANS.get(key)
    if p is None:
        if len(_PLANS) > 256:
            _PLANS.clear()
        p = _PLANS[key] = _Plan(batch_sizes, reverse)
    return p


def uniform_plan(steps: int, batch: int, reverse: bool) -> _Plan:
    """The plan of a padded ``(steps, batch, ...)`` input."""
    key = (steps, batch, reverse)
    p = _PLANS.get(key)
    if p is None:
        p = plan((batch,) * steps, reverse)
        _PLANS[key] = p
    return p


def _gate_scale(xp, dt, h: int, factors: tuple):
    """``(len(factors) * h,)``: each gate's block filled with its factor."""
    s = xp.empty(len(factors) * h, dtype=dt)
    for k, v in enumerate(factors):
        s[k * h : (k + 1) * h] = v
    return s


def _prev_rows(step, y, h0):
    r0, r1, kind, p0, bp = step
    if kind == _INIT:
        return h0[: r1 - r0]
    if kind == _ROW:
        return y[p0 : p0 + r1 - r0]
    xp = xp_of(y)
    return xp.concatenate((y[p0 : p0 + bp], h0[bp : r1 - r0]))


def _carry(step, g, dy, dh0):
    """Add ``g``, the gradient of a step's previous state, where that state came from."""
    r0, r1, kind, p0, bp = step
    b = r1 - r0
    if kind == _INIT:
        dh0[:b] += g
    elif kind == _ROW:
        dy[p0 : p0 + b] += g
    else:
        dy[p0 : p0 + bp] += g[:bp]
        dh0[bp:b] += g[bp:]


# ---- LSTM ------------------------------------------------------------------------------------
def _lstm_forward(ctx, xg, h0, c0, w_hh, w_hr, pl):
    xp = xp_of(xg)
    dt = xg.dtype
    n, g4 = xg.shape
    h = g4 // 4
    p = h0.shape[1]
    # -x for the sigmoid gates i, f, o; -2x for g (tanh(x) = 2 sigmoid(2x) - 1)
    scale = _gate_scale(xp, dt, h, (-1, -1, -2, -1))
    xs = xg * scale
    ws_t = xp.multiply(w_hh.T, scale, out=xp.empty((w_hh.shape[1], g4), dt))  # (p, 4h)
    a_all = xp.empty((n, g4), dt)  # activations i, f, g, o
    c_all = xp.empty((n, h), dt)
    tc_all = xp.empty((n, h), dt)  # tanh(c)
    y = xp.empty((n, p), dt)
    proj = w_hr is not None
    m_all = xp.empty((n, h), dt) if proj else None
    whr_t = w_hr.T if proj else None
    tmp = xp.empty((pl.batch, h), dt)
    gbuf = xp.empty((pl.batch, g4), dt)
    dot, multiply, tanh, exp, reciprocal = xp.dot, xp.multiply, xp.tanh, xp.exp, xp.reciprocal
    h2, h3 = 2 * h, 3 * h
    for step in pl.steps:
        r0, r1 = step[0], step[1]
        hp = _prev_rows(step, y, h0)
        cp = _prev_rows(step, c_all, c0)
        a = a_all[r0:r1]
        # the product lands in a small reused buffer (kept in cache), then joins the inputs
        xp.add(dot(hp, ws_t, out=gbuf[: r1 - r0]), xs[r0:r1], out=a)
        exp(a, out=a)
        a += 1
        reciprocal(a, out=a)
        gg = a[:, h2:h3]
        gg *= 2
        gg -= 1
        c = c_all[r0:r1]
        multiply(a[:, h:h2], cp, out=c)  # f * c_prev
        t = tmp[: r1 - r0]
        multiply(a[:, :h], a[:, h2:h3], out=t)  # i * g
        c += t
        tc = tc_all[r0:r1]
        tanh(c, out=tc)
        if proj:
            m = m_all[r0:r1]
            multiply(a[:, h3:], tc, out=m)
            dot(m, whr_t, out=y[r0:r1])
        else:
            multiply(a[:, h3:], tc, out=y[r0:r1])
    ctx.arrays = (a_all, c_all, tc_all, m_all)
    return y, pl.final_rows(y, xp), pl.final_rows(c_all, xp)


def _lstm_backward(ctx, gy, ghn, gcn, y, h0, c0, w_hh, w_hr, pl):
    xp = xp_of(gy)
    a_all, c_all, tc_all, m_all = ctx.arrays
    n, g4 = a_all.shape
    h = g4 // 4
    h2, h3 = 2 * h, 3 * h
    dt = gy.dtype
    i, f, g, o = a_all[:, :h], a_all[:, h:h2], a_all[:, h2:h3], a_all[:, h3:]
    c_prev = pl.previous(c_all, c0, xp)
    # every step's local derivatives at once: with dh, dc the gradients reaching a step's h, c,
    #   dc_total = dh * o (1 - tanh(c)^2) + dc          (k)
    #   d[i, f, g] pre-activations = dc_total * q        (q: g i(1-i), c_prev f(1-f), i(1-g^2))
    #   d o pre-activation = dh * tanh(c) o (1 - o)     (po)
    # (in place, without temporaries: these are (N, H) arrays)
    q = xp.empty((n, 3, h), dt)
    qi, qf, qg = q[:, 0], q[:, 1], q[:, 2]
    xp.subtract(1, i, out=qi)
    qi *= i
    qi *= g
    xp.subtract(1, f, out=qf)
    qf *= f
    qf *= c_prev
    xp.multiply(g, g, out=qg)
    xp.subtract(1, qg, out=qg)
    qg *= i
    po = xp.subtract(1, o)
    po *= o
    po *= tc_all
    k = xp.multiply(tc_all, tc_all)
    xp.subtract(1, k, out=k)
    k *= o
    dy = xp.array(gy, dtype=dt)  # accumulates the carried gradients
    fin = pl.final if pl.final.__class__ is slice else pl.index("final", xp)
    dy[fin] += ghn
    dc_all = xp.zeros((n, h), dt)
    dc_all[fin] += gcn
    dg = xp.empty((n, g4), dt)
    dgv = dg.reshape(n, 4, h)
    dh0 = xp.zeros(h0.shape, dt)
    dc0 = xp.zeros(c0.shape, dt)
    b = pl.batch
    dc_buf = xp.empty((b, h), dt)
    tmp_h = xp.empty((b, h), dt)
    tmp_p = xp.empty((b, h0.shape[1]), dt)
    proj = w_hr is not None
    dm_buf = xp.empty((b, h), dt) if proj else None
    dot, multiply = xp.dot, xp.multiply
    for step in reversed(pl.steps):
        r0, r1 = step[0], step[1]
        nb = r1 - r0
        dh = dy[r0:r1]
        if proj:
            dh = dot(dh, w_hr, out=dm_buf[:nb])
        dc = dc_buf[:nb]
        multiply(dh, k[r0:r1], out=dc)
        dc += dc_all[r0:r1]
        multiply(dc[:, None, :], q[r0:r1], out=dgv[r0:r1, :3])
        multiply(dh, po[r0:r1], out=dg[r0:r1, h3:])
        # d c_prev = dc * f ;  d h_prev = d gates @ W_hh
        _carry(step, multiply(dc, f[r0:r1], out=tmp_h[:nb]), dc_all, dc0)
        _carry(step, dot(dg[r0:r1], w_hh, out=tmp_p[:nb]), dy, dh0)
    dw_hh = dg.T.dot(pl.previous(y, h0, xp))
    dw_hr = dy.T.dot(m_all) if proj else None
    return dg, dh0, dc0, dw_hh, None, dw_hr


# ---- GRU -------------------------------------------------------------------------------------
def _gru_forward(ctx, xg, h0, w_hh, b_hh, pl):
    xp = xp_of(xg)
    dt = xg.dtype
    n, g3 = xg.shape
    h = g3 // 3
    h2 = 2 * h
    scale = _gate_scale(xp, dt, h, (-1, -1, 1))  # sigmoid(x) = 1 / (1 + exp(-x)) for r, z
    xs = xg[:, :h2] * -1
    ws_t = xp.multiply(w_hh.T, scale, out=xp.empty((w_hh.shape[1], g3), dt))
    bs = b_hh * scale if b_hh is not None else None
    a_all = xp.empty((n, g3), dt)  # r, z, n
    gh_all = xp.empty((n, g3), dt)  # h @ W_hh.T + b_hh (its r, z part negated)
    y = xp.empty((n, h), dt)
    dot, multiply, tanh = xp.dot, xp.multiply, xp.tanh
    for step in pl.steps:
        r0, r1 = step[0], step[1]
        hp = _prev_rows(step, y, h0)
        gh = gh_all[r0:r1]
        dot(hp, ws_t, out=gh)
        if bs is not None:
            gh += bs
        a = a_all[r0:r1]
        rz = a[:, :h2]
        xp.add(gh[:, :h2], xs[r0:r1], out=rz)
        xp.exp(rz, out=rz)
        rz += 1
        xp.reciprocal(rz, out=rz)
        nn = a[:, h2:]
        multiply(a[:, :h], gh[:, h2:], out=nn)  # r * (W_hn h + b_hn)
        nn += xg[r0:r1, h2:]
        tanh(nn, out=nn)
        out = y[r0:r1]
        xp.subtract(hp, nn, out=out)  # h' = n + z (h - n)
        out *= a[:, h:h2]
        out += nn
    ctx.arrays = (a_all, gh_all)
    return y, pl.final_rows(y, xp)


def _gru_backward(ctx, gy, ghn, y, h0, w_hh, b_hh, pl):
    xp = xp_of(gy)
    a_all, gh_all = ctx.arrays
    n, g3 = a_all.shape
    h = g3 // 3
    h2 = 2 * h
    dt = gy.dtype
    r, z, nn = a_all[:, :h], a_all[:, h:h2], a_all[:, h2:]
    ghn_pre = gh_all[:, h2:]
    h_prev = pl.previous(y, h0, xp)
    # per unit of dh:  dn_pre = (1 - z)(1 - n^2) = k1,  dz_pre = (h_prev - n) z (1 - z) = k2,
    # dr_pre = k1 ghn r (1 - r) = k3,  d(W_hn h + b_hn) = k1 r = k4,  dh_prev direct = z
    k1 = (1 - z) * (1 - nn * nn)
    k2 = (h_prev - nn) * z * (1 - z)
    q_in = xp.empty((n, 3, h), dt)
    xp.multiply(k1 * ghn_pre, r * (1 - r), out=q_in[:, 0])
    q_in[:, 1] = k2
    q_in[:, 2] = k1
    q_h = q_in.copy()
    xp.multiply(k1, r, out=q_h[:, 2])
    dy = xp.array(gy, dtype=dt)
    fin = pl.final if pl.final.__class__ is slice else pl.index("final", xp)
    dy[fin] += ghn
    dgi = xp.empty((n, g3), dt)
    dgh = xp.empty((n, g3), dt)
    dgiv, dghv = dgi.reshape(n, 3, h), dgh.reshape(n, 3, h)
    dh0 = xp.zeros(h0.shape, dt)
    b = pl.batch
    tmp = xp.empty((b, h), dt)
    tmp2 = xp.empty((b, h), dt)
    dot, multiply = xp.dot, xp.multiply
    for step in reversed(pl.steps):
        r0, r1 = step[0], step[1]
        nb = r1 - r0
        dh = dy[r0:r1]
        d3 = dh[:, None, :]
        multiply(d3, q_in[r0:r1], out=dgiv[r0:r1])
        multiply(d3, q_h[r0:r1], out=dghv[r0:r1])
        t = dot(dgh[r0:r1], w_hh, out=tmp[:nb])
        t += multiply(dh, z[r0:r1], out=tmp2[:nb])
        _carry(step, t, dy, dh0)
    dw_hh = dgh.T.dot(h_prev)
    db_hh = dgh.sum(0) if b_hh is not None else None
    return dgi, dh0, None, dw_hh, db_hh, None


# ---- Elman RNN (tanh or relu) ----------------------------------------------------------------
def _rnn_forward(ctx, xg, h0, w_hh, relu, pl):
    xp = xp_of(xg)
    n = xg.shape[0]
    y = xp.empty((n, h0.shape[1]), xg.dtype)
    w_t = w_hh.T
    for step in pl.steps:
        r0, r1 = step[0], step[1]
        out = y[r0:r1]
        xp.dot(_prev_rows(step, y, h0), w_t, out=out)
        out += xg[r0:r1]
        if relu:
            xp.maximum(out, 0, out=out)
        else:
            xp.tanh(out, out=out)
    return y, pl.final_rows(y, xp)


def _rnn_backward(ctx, gy, ghn, y, h0, w_hh, relu, pl):
    xp = xp_of(gy)
    dt = gy.dtype
    # d tanh = 1 - y^2 ; d relu = [y > 0]
    deriv = (y > 0).astype(dt) if relu else 1 - y * y
    dy = xp.array(gy, dtype=dt)
    fin = pl.final if pl.final.__class__ is slice else pl.index("final", xp)
    dy[fin] += ghn
    dg = xp.empty(y.shape, dt)
    dh0 = xp.zeros(h0.shape, dt)
    tmp = xp.empty(h0.shape, dt)
    for step in reversed(pl.steps):
        r0, r1 = step[0], step[1]
        d = xp.multiply(dy[r0:r1], deriv[r0:r1], out=dg[r0:r1])
        _carry(step, xp.dot(d, w_hh, out=tmp[: r1 - r0]), dy, dh0)
    return dg, dh0, None, dg.T.dot(pl.previous(y, h0, xp)), None, None


# ---- the primitive ---------------------------------------------------------------------------
class RecurrentLayer(Function):
    """One recurrent layer in one direction over a packed sequence.

    ``forward(x, h0, c0, w_ih, w_hh, b, b_hh, w_hr, mode, plan)``: ``x`` ``(N, I)`` the input
    rows, ``h0`` ``(B, P)``, ``c0`` ``(B, H)`` (LSTM only), ``w_ih`` ``(gates * H, I)``, ``b``
    the bias added to the input projection (for LSTM and RNN ``b_ih + b_hh``; for GRU
    ``b_ih``, as its ``b_hn`` sits inside ``r * (W_hn h + b_hn)`` and is passed as ``b_hh``),
    ``w_hr`` the LSTM projection or None; ``mode`` one of ``"LSTM"``, ``"GRU"``,
    ``"RNN_TANH"``, ``"RNN_RELU"``. Returns ``(y, h_n)`` or, for the LSTM, ``(y, h_n, c_n)``;
    ``y`` is ``(N, P)``.
    """

    _array_forward = True
    _node_name = "RecurrentLayerBackward0"

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b, b_hh, w_hr, mode, pl):
        ctx.mode = mode
        ctx.plan = pl
        if mode == "LSTM" and pl.uniform:
            out = _lstm_fm_forward(ctx, x, h0, c0, w_ih, w_hh, b, w_hr, pl)
        else:
            xg = x.dot(w_ih.T)  # the input projection of every step in one GEMM
            if b is not None:
                xg += b.reshape(1, -1)
            if mode == "LSTM":
                out = _lstm_forward(ctx, xg, h0, c0, w_hh, w_hr, pl)
            elif mode == "GRU":
                out = _gru_forward(ctx, xg, h0, w_hh, b_hh, pl)
            else:
                out = _rnn_forward(ctx, xg, h0, w_hh, mode == "RNN_RELU", pl)
        ctx.save_for_backward(x, h0, c0, w_ih, w_hh, b, b_hh, w_hr, out[0])
        return out

    @staticmethod
    def backward(ctx, gy, ghn, gcn=None):
        x, h0, c0, w_ih, w_hh, b, b_hh, w_hr, y = ctx.saved_tensors
        mode, pl = ctx.mode, ctx.plan
        if _state.enabled:  # create_graph: differentiate the Tensor-op version instead
            return _composite_backward(ctx, (gy, ghn, gcn), x, h0, c0, w_ih, w_hh, b, b_hh, w_hr)
        d = lambda t: None if t is None else t._data  # noqa: E731
        needs = ctx.needs_input_grad
        if mode == "LSTM" and pl.uniform:
            grads = _lstm_fm_backward(
                ctx,
                gy._data,
                ghn._data,
                gcn._data,
                x._data,
                w_ih._data,
                w_hh._data,
                d(w_hr),
                needs,
                pl,
            )
        else:
            if mode == "LSTM":
                dxg, dh0, dc0, dw_hh, db_hh, dw_hr = _lstm_backward(
                    ctx,
                    gy._data,
                    ghn._data,
                    gcn._data,
                    y._data,
                    h0._data,
                    c0._data,
                    w_hh._data,
                    d(w_hr),
                    pl,
                )
            elif mode == "GRU":
                dxg, dh0, dc0, dw_hh, db_hh, dw_hr = _gru_backward(
                    ctx, gy._data, ghn._data, y._data, h0._data, w_hh._data, d(b_hh), pl
                )
            else:
                dxg, dh0, dc0, dw_hh, db_hh, dw_hr = _rnn_backward(
                    ctx, gy._data, ghn._data, y._data, h0._data, w_hh._data, mode == "RNN_RELU", pl
                )
            # through the input projection xg = x W_ih^T + b
            dx = dxg.dot(w_ih._data) if needs[0] else None
            dw_ih = dxg.T.dot(x._data) if needs[3] else None
            db = dxg.sum(0) if needs[5] else None
            grads = (dx, dh0, dc0, dw_ih, dw_hh, db, db_hh, dw_hr)
        out = [_wrap(g) if g is not None and needs[j] else None for j, g in enumerate(grads)]
        return (*out, None, None)


# ---- the same computation with Tensor ops (double backward, and the tests' reference) -------
def _composite(mode, x, h0, c0, w_ih, w_hh, b, b_hh, w_hr, pl):
    """``RecurrentLayer``'s outputs computed with differentiable Tensor ops, step by step."""
    from ember.ops.joining import cat

    xg = x @ w_ih.mT
    if b is not None:
        xg = xg + b

    state_h = h0
    state_c = c0
    rows = []
    for r0, r1, _kind, _p0, _bp in pl.steps:
        b = r1 - r0
        x = xg[r0:r1]
        hp = state_h[:b]
        if mode == "LSTM":
            gates = x + hp @ w_hh.mT
            i, f, g, o = gates.chunk(4, 1)
            c = f.sigmoid() * state_c[:b] + i.sigmoid() * g.tanh()
            hn = o.sigmoid() * c.tanh()
            if w_hr is not None:
                hn = hn @ w_hr.mT
            state_c = cat([c, state_c[b:]]) if b < state_c.shape[0] else c
        elif mode == "GRU":
            gh = hp @ w_hh.mT
            if b_hh is not None:
                gh = gh + b_hh
            xr, xz, xn = x.chunk(3, 1)
            hr, hz, hn_ = gh.chunk(3, 1)
            r = (xr + hr).sigmoid()
            z = (xz + hz).sigmoid()
            nn = (xn + r * hn_).tanh()
            hn = (1 - z) * nn + z * hp
        else:
            pre = x + hp @ w_hh.mT
            hn = pre.relu() if mode == "RNN_RELU" else pre.tanh()
        rows.append((r0, hn))
        state_h = cat([hn, state_h[b:]]) if b < state_h.shape[0] else hn
    rows.sort(key=lambda e: e[0])
    y = cat([r for _, r in rows]) if rows else xg[:, :0]
    if mode == "LSTM":
        return y, state_h, state_c
    return y, state_h


def _composite_backward(ctx, grads, *inputs):
    from ember.autograd.engine import grad as autograd_grad

    k = len(inputs)
    needs = ctx.needs_input_grad[:k]
    # aliases through a view, so the inner ``grad`` stops at them and leaves the outer graph
    alias = [t.view(t.shape) if t is not None else None for t in inputs]
    outs = _composite(ctx.mode, *alias, ctx.plan)
    want = [j for j in range(k) if needs[j] and alias[j] is not None]
    got = autograd_grad(
        outs, [alias[j] for j in want], grads[: len(outs)], create_graph=True, allow_unused=True
    )
    res = [None] * k
    for j, g in zip(want, got):
        res[j] = g
    return (*res, None, None)
