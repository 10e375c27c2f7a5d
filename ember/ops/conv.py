"""Convolutions: the ``Conv`` / ``ConvTranspose`` / ``ConvWeightGrad`` primitives behind
``F.conv{1,2,3}d``, ``F.conv_transpose{1,2,3}d``, and ``Unfold`` / ``Fold`` behind
``F.unfold`` / ``F.fold``.

A convolution is a linear map ``A_w`` from the input ``x`` to the output ``y``, bilinear in
``(w, x)``. Three primitives share one geometry (``_Geom``) and call each other in backward,
so every derivative of every order is again one of them (Chainer's arrangement):

- ``Conv(x, w)``: ``y = A_w x``; dx = ConvTranspose(g, w), dw = ConvWeightGrad(x, g)
- ``ConvTranspose(y, w)``: ``x = A_w^T y``; dy = Conv(g, w), dw = ConvWeightGrad(g, y)
- ``ConvWeightGrad(x, gy)``: ``dw`` of ``<gy, A_w x>``; dx = ConvTranspose(gy, G),
  dgy = Conv(x, G)

Geometry: ``y[p] = sum_k w[k] * xpad[p * stride + k * dilation]`` where ``xpad`` is ``x`` with
``lo`` zeros in front of each spatial dim; the output size ``Y`` is part of the geometry, so the
transposed convolution (whose output size PyTorch lets the caller pick through
``output_padding``) is the exact adjoint of the convolution with the same geometry.

How it is computed (the speed of a NumPy framework's convolution is all in its memory
traffic):

- ``x`` is copied once into a zero-padded buffer; an ``as_strided`` window view of that buffer
  is copied into a column matrix ``col`` of shape ``(groups, Cg * K, N * L)`` -- batch folded
  into the columns, so that the product with the weight ``(groups, Og, Cg * K)`` is ONE large
  GEMM per group, the shape BLAS is fastest at. Its output ``(O, N, L)`` is then copied into
  ``(N, O, *Y)`` with the bias added in the same pass.
- With stride 1 (the common case) the windows are read "flat": each image of the padded buffer
  is one long row, an output position ``p`` reads ``p + offset(k)`` for a kernel offset
  ``k``, and so each kernel offset is ONE contiguous slice (long inner loops for NumPy's
  copies). The price: positions in the padding columns of each row are computed and dropped
  (``L = Y[0] * prod(P[1:])`` instead of ``prod(Y)``; 6-13 % more columns for 3x3 kernels on
  32x32 / 16x16 images).
- The input gradient (col2im) adds, for each kernel offset, one strided slice of the column
  gradient into the padded buffer (no ``np.add.at``); the weight gradient is one GEMM against
  the forward's ``col`` (kept on the node until backward).
"""

from __future__ import annotations

import math
from itertools import product

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of

# ---- geometry ---------------------------------------------------------------------------------


class _Geom:
    """Everything about a convolution that does not depend on the batch size, computed once
    per distinct configuration (``_geom`` caches them)."""

    __slots__ = ("D", "C", "O", "G", "Cg", "Og", "K", "Kp", "X", "Y", "s", "d", "lo", "flat",
                 "P", "Pp", "SP", "koff", "L", "slack", "grid", "crop", "copy_hi", "trivial",
                 "cropped")

    def __init__(self, C, O, G, K, X, Y, s, d, lo):  # noqa: E741
        D = len(K)
        self.D, self.C, self.O, self.G = D, C, O, G
        self.Cg, self.Og = C // G, O // G
        self.K, self.Kp, self.X, self.Y, self.s, self.d, self.lo = K, math.prod(K), X, Y, s, d, lo
        # the padded extent each dim needs: up to the last output's last tap
        P = tuple((Y[i] - 1) * s[i] + (K[i] - 1) * d[i] + 1 for i in range(D))
        P = tuple(max(p, 1) for p in P)
        self.P, self.Pp = P, math.prod(P)
        SP = [1] * D
        for i in range(D - 2, -1, -1):
            SP[i] = SP[i + 1] * P[i + 1]
        self.SP = tuple(SP)
        # flat offset of each kernel tap in the padded buffer, in (k0, k1, ...) order
        self.koff = tuple(sum(k[i] * d[i] * SP[i] for i in range(D))
                          for k in product(*(range(k) for k in K)))
        inner = math.prod(P[1:])
        # flat windows: stride 1 and not too many dropped columns (tiny images, huge kernels)
        self.flat = all(v == 1 for v in s) and Y[0] * inner <= 1.5 * math.prod(Y) + 64
        if self.flat:
            self.L = Y[0] * inner
            self.grid = (Y[0],) + P[1:]
            self.crop = D > 1 and P[1:] != Y[1:]
            self.slack = max(0, max(self.koff, default=0) + self.L - self.Pp)
        else:
            self.L = math.prod(Y)
            self.grid = Y
            self.crop = False
            self.slack = 0
        # the part of x inside the padded buffer (x's tail past the last tap is never read)
        self.copy_hi = tuple(max(0, min(X[i], P[i] - lo[i])) for i in range(D))
        self.cropped = self.copy_hi != X
        # x is its own padded buffer: no padding, nothing dropped, one tap
        self.trivial = (self.Kp == 1 and not any(lo) and P == X and self.flat and not self.crop)


_GEOMS: dict = {}


def _geom(C, O, G, K, X, Y, s, d, lo) -> _Geom:  # noqa: E741
    key = (C, O, G, K, X, Y, s, d, lo)
    g = _GEOMS.get(key)
    if g is None:
        if len(_GEOMS) > 512:
            _GEOMS.clear()
        g = _GEOMS[key] = _Geom(C, O, G, K, X, Y, s, d, lo)
    return g


# ---- array kernels -------------------------------------------------------------------------
_F32 = _dtype.float32._np


def _f32(a):
    # NOTE: matches torch: CPU half convolutions accumulate in float32
    return a.astype(_F32) if a.dtype.char == "e" else a


def _padded(x, g: _Geom):
    """``x`` (N, C, *X) copied into a zero buffer (N, C, *P), plus ``slack`` zeros after it:
    returns the flat buffer."""
    xp = xp_of(x)
    N = x.shape[0]
    n = N * g.C * g.Pp
    buf = xp.zeros(n + g.slack, x.dtype)
    dst = buf[:n].reshape((N, g.C) + g.P)
    idx_d = (slice(None), slice(None)) + tuple(slice(lo, lo + h) for lo, h in
                                               zip(g.lo, g.copy_hi))
    if g.cropped:
        x = x[(slice(None), slice(None)) + tuple(slice(0, h) for h in g.copy_hi)]
    dst[idx_d] = x
    return buf


def _im2col(x, g: _Geom):
    """Columns ``(G, Cg * Kp, N * L)`` of ``x`` (N, C, *X): row ``(c, k)``, column ``(n, p)``
    holds the input that tap ``k`` of output ``p`` of image ``n`` reads in channel ``c``."""
    xp = xp_of(x)
    N = x.shape[0]
    if g.trivial:
        # 1x1 kernel, stride 1, no padding: the columns are x itself, channels first
        return x.reshape(N, g.G, g.Cg, g.L).transpose(1, 2, 0, 3).copy().reshape(
            g.G, g.Cg, N * g.L)
    buf = _padded(x, g)
    D, Pp = g.D, g.Pp
    tap = tuple(g.d[i] * g.SP[i] for i in range(D))
    if g.flat:
        shape = (g.G, g.Cg) + g.K + (N, g.L)
        strides = (g.Cg * Pp, Pp) + tap + (g.C * Pp, 1)
    else:
        shape = (g.G, g.Cg) + g.K + (N,) + g.Y
        strides = (g.Cg * Pp, Pp) + tap + (g.C * Pp,) + tuple(g.s[i] * g.SP[i] for i in range(D))
    win = xp.as_strided(buf, shape, strides)
    return win.copy().reshape(g.G, g.Cg * g.Kp, N * g.L)


def _col2im(gcol, N, g: _Geom):
    """The adjoint of ``_im2col``: columns ``(G, Cg * Kp, N * L)`` summed back into an array
    ``(N, C, *X)``, one strided add per kernel tap."""
    xp = xp_of(gcol)
    C, Pp, L = g.C, g.Pp, g.L
    if g.trivial:
        return gcol.reshape(C, N, L).transpose(1, 0, 2).copy().reshape((N, C) + g.X)
    n = N * C * Pp
    buf = xp.zeros(n + g.slack, gcol.dtype)
    if g.flat:
        src = gcol.reshape(C, g.Kp, N, L)
        for j, off in enumerate(g.koff):
            dst = xp.as_strided(buf, (N, C, L), (C * Pp, Pp, 1), off)
            dst += src[:, j].transpose(1, 0, 2)
    else:
        pad = buf[:n].reshape((N, C) + g.P)
        src = gcol.reshape((C, g.Kp, N) + g.Y)
        for j, k in enumerate(product(*(range(k) for k in g.K))):
            idx = (slice(None), slice(None)) + tuple(
                slice(k[i] * g.d[i], k[i] * g.d[i] + (g.Y[i] - 1) * g.s[i] + 1, g.s[i])
                for i in range(g.D))
            pad[idx] += src[:, j].transpose(1, 0, *range(2, 2 + g.D))
    pad = buf[:n].reshape((N, C) + g.P)
    if not any(g.lo) and g.P == g.X and not g.slack:
        return pad
    if g.cropped:
        out = xp.zeros((N, C) + g.X, gcol.dtype)
        out[(slice(None), slice(None)) + tuple(slice(0, h) for h in g.copy_hi)] = pad[
            (slice(None), slice(None)) + tuple(slice(lo, lo + h) for lo, h in
                                               zip(g.lo, g.copy_hi))]
        return out
    return pad[(slice(None), slice(None)) + tuple(
        slice(lo, lo + h) for lo, h in zip(g.lo, g.X))].copy()


def _to_cols(y, g: _Geom):
    """An output-shaped ``y`` (N, O, *Y) laid out as the GEMM's ``(G, Og, N * L)``, zeros in
    the flat layout's dropped positions."""
    xp = xp_of(y)
    N = y.shape[0]
    if g.crop:
        out = xp.zeros((g.O, N) + g.grid, y.dtype)
        out[(slice(None), slice(None)) + tuple(slice(0, v) for v in g.Y)] = y.transpose(
            1, 0, *range(2, 2 + g.D))
        return out.reshape(g.G, g.Og, N * g.L)
    return y.transpose(1, 0, *range(2, 2 + g.D)).copy().reshape(g.G, g.Og, N * g.L)


def _from_cols(yl, N, g: _Geom, b):
    """The GEMM's ``(G, Og, N * L)`` back to ``(N, O, *Y)``, adding the bias ``b`` (or None)
    in the same pass."""
    xp = xp_of(yl)
    src = yl.reshape((g.O, N) + g.grid)
    if g.crop:
        src = src[(slice(None), slice(None)) + tuple(slice(0, v) for v in g.Y)]
    src = src.transpose(1, 0, *range(2, 2 + g.D))
    out = xp.empty((N, g.O) + g.Y, yl.dtype)
    if b is not None:
        xp.add(src, b.reshape((1, g.O) + (1,) * g.D), out=out)
    else:
        out[...] = src
    return out


def _wmat(w, g: _Geom):
    """The weight ``(O, Cg, *K)`` as the GEMM's ``(G, Og, Cg * Kp)``."""
    return w.reshape(g.G, g.Og, g.Cg * g.Kp)


def _mm(a, b):
    """Group-batched matrix product ``(G, m, k) @ (G, k, n)``; one group (the usual case) goes
    through ``ndarray.dot``, which reaches BLAS for any operand layout (NumPy's stacked
    ``matmul`` falls back to a slow loop for some transposed operands)."""
    if a.shape[0] == 1:
        return a[0].dot(b[0])[None]
    return xp_of(a).matmul(a, b)


def _conv_fwd(x, w, b, g: _Geom, col=None):
    N = x.shape[0]
    if col is None:
        col = _im2col(x, g)
    yl = _mm(_wmat(w, g), col)
    return _from_cols(yl, N, g, b), col


def _convT_fwd(y, w, b, g: _Geom, ycols=None):
    N = y.shape[0]
    if ycols is None:
        ycols = _to_cols(y, g)
    gcol = _mm(_wmat(w, g).transpose(0, 2, 1), ycols)
    x = _col2im(gcol, N, g)
    if b is not None:
        x += b.reshape((1, g.C) + (1,) * g.D)
    return x


def _wgrad(x, gy, g: _Geom, col=None, gycols=None):
    if col is None:
        col = _im2col(x, g)
    if gycols is None:
        gycols = _to_cols(gy, g)
    gw = _mm(gycols, col.transpose(0, 2, 1))
    return gw.reshape((g.O, g.Cg) + g.K)


def _half_wrap(fn, *arrays, **kw):
    """Run ``fn`` on float32 copies of half arrays and cast its result back."""
    out = fn(*[None if a is None else _f32(a) for a in arrays], **kw)
    return out.astype(arrays[0].dtype)


# ---- primitives ------------------------------------------------------------------------------
class Conv(Function):
    """``y = conv(x, w) + b`` for ``x`` (N, C, *X), ``w`` (O, C/G, *K), ``b`` (O,) or None."""

    _array_forward = True
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, w, b, g):
        ctx.save_for_backward(x, w)
        ctx.g = g
        if x.dtype.char == "e":
            return _half_wrap(lambda x, w, b: _conv_fwd(x, w, b, g)[0], x, w, b)
        y, col = _conv_fwd(x, w, b, g)
        ctx.col = col  # the weight gradient's operand; dropped by backward
        return y

    @staticmethod
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        g = ctx.g
        col = ctx.__dict__.pop("col", None)
        # both products read gy in the GEMM layout: lay it out once
        cols = _to_cols(gy._data, g) if need_x and need_w and col is not None else None
        gx = ConvTranspose.apply(gy, w, None, g, cols) if need_x else None
        gw = ConvWeightGrad.apply(x, gy, g, col, cols) if need_w else None
        gb = gy.sum((0,) + tuple(range(2, 2 + g.D))) if need_b else None
        return gx, gw, gb, None


class ConvTranspose(Function):
    """``x = conv_transpose(y, w) + b``: the adjoint of ``Conv`` with geometry ``g``; ``y``
    (N, O, *Y), ``w`` (O, C/G, *K), ``b`` (C,) or None; ``ycols`` optionally carries ``y``
    already in the GEMM layout (a cache, not an input)."""

    _array_forward = True
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, y, w, b, g, ycols=None):
        ctx.save_for_backward(y, w)
        ctx.g = g
        if y.dtype.char == "e":
            return _half_wrap(lambda y, w, b: _convT_fwd(y, w, b, g), y, w, b)
        return _convT_fwd(y, w, b, g, ycols)

    @staticmethod
    def backward(ctx, gx):
        y, w = ctx.saved_tensors
        need_y, need_w, need_b = ctx.needs_input_grad[:3]
        g = ctx.g
        gy = Conv.apply(gx, w, None, g) if need_y else None
        # x = A_w^T y: <gx, A_w^T y> = <A_w gx, y>, the weight gradient of a conv of gx by y
        gw = ConvWeightGrad.apply(gx, y, g, None) if need_w else None
        gb = gx.sum((0,) + tuple(range(2, 2 + g.D))) if need_b else None
        return gy, gw, gb, None, None


class ConvWeightGrad(Function):
    """``dw`` of ``<gy, conv(x, w)>``: bilinear in ``(x, gy)``; ``col`` optionally carries
    ``x``'s columns from the forward (a cache, not an input)."""

    _array_forward = True
    _node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, x, gy, g, col, gycols=None):
        ctx.save_for_backward(x, gy)
        ctx.g = g
        if x.dtype.char == "e":
            return _half_wrap(lambda x, gy: _wgrad(x, gy, g), x, gy)
        return _wgrad(x, gy, g, col, gycols)

    @staticmethod
    def backward(ctx, gg):
        x, gy = ctx.saved_tensors
        need_x, need_gy = ctx.needs_input_grad[:2]
        g = ctx.g
        # <gg, dw(x, gy)> = <A_gg x, gy>
        gx = ConvTranspose.apply(gy, gg, None, g) if need_x else None
        ggy = Conv.apply(x, gg, None, g) if need_gy else None
        return gx, ggy, None, None, None


# ---- unfold / fold ---------------------------------------------------------------------------
def _unfold_arr(x, g: _Geom):
    """``(N, C * Kp, L)`` patches of ``x`` (N, C, *X) (F.unfold's layout)."""
    xp = xp_of(x)
    N = x.shape[0]
    buf = _padded(x, g)
    D, Pp = g.D, g.Pp
    shape = (N, g.C) + g.K + g.Y
    strides = ((g.C * Pp, Pp) + tuple(g.d[i] * g.SP[i] for i in range(D))
               + tuple(g.s[i] * g.SP[i] for i in range(D)))
    return xp.as_strided(buf, shape, strides).copy().reshape(N, g.C * g.Kp, g.L)


def _fold_arr(cols, g: _Geom):
    """The adjoint of ``_unfold_arr``: ``(N, C * Kp, L)`` summed into ``(N, C, *X)``."""
    N = cols.shape[0]
    # (N, C, Kp, L) -> the (C, Kp, N, L) column layout _col2im reads
    gcol = cols.reshape(N, g.C, g.Kp, g.L).transpose(1, 2, 0, 3)
    return _col2im(gcol.copy().reshape(1, g.C * g.Kp, N * g.L), N, g)


class Unfold(Function):
    _array_forward = True
    _node_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, x, g):
        ctx.g = g
        return _unfold_arr(x, g)

    @staticmethod
    def backward(ctx, gy):
        return Fold.apply(gy, ctx.g), None


class Fold(Function):
    _array_forward = True
    _node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, cols, g):
        ctx.g = g
        return _fold_arr(cols, g)

    @staticmethod
    def backward(ctx, gx):
        return Unfold.apply(gx, ctx.g), None


def unfold_geom(C, K, X, s, d, lo) -> _Geom:
    """The geometry of F.unfold/F.fold: ``lo`` zeros on both sides of each spatial dim."""
    Y = tuple((X[i] + 2 * lo[i] - d[i] * (K[i] - 1) - 1) // s[i] + 1 for i in range(len(K)))
    g = _Geom(C, C, 1, K, X, Y, s, d, lo)
    # unfold/fold always read windows the strided way (their layout is (N, C*K, L))
    g.flat, g.L, g.grid, g.crop, g.slack, g.trivial = False, math.prod(Y), Y, False, 0, False
    return g


__all__: list[str] = []
