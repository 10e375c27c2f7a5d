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
traffic and in how it calls BLAS):

- ``x`` is copied once into a zero-padded buffer; an ``as_strided`` window view of that buffer
  (no Python loop over output positions) is copied into a column matrix ``col`` of shape
  ``(groups, Cg * K [+ 1], N * L)``: batch folded into the columns, so the product with the
  weight ``(groups, Og, Cg * K [+ 1])`` is ONE large GEMM per group, the shape BLAS is fastest
  at (and one thread synchronization, which matters on a loaded machine). The bias rides in
  the GEMM as a row of ones under the columns; one copy lays ``(O, N, *Y)`` out as
  ``(N, O, *Y)``.
- The input gradient (col2im) is one GEMM ``w^T @ gy`` followed, for each kernel tap, by one
  strided add of its slice of the columns into a padded buffer (no ``np.add.at``).
- The weight gradient is one GEMM of ``gy`` against the forward's ``col`` (kept on the node
  until backward); ``gy`` is laid out for the GEMMs once and shared by both gradients.
"""

from __future__ import annotations

import math
from itertools import product

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import cj, xp_of

# ---- geometry ---------------------------------------------------------------------------------


class _Geom:
    """Everything about a convolution that does not depend on the batch size, computed once
    per distinct configuration (``_geom`` caches them)."""

    __slots__ = (
        "D",
        "C",
        "O",
        "G",
        "Cg",
        "Og",
        "K",
        "Kp",
        "X",
        "Y",
        "s",
        "d",
        "lo",
        "P",
        "Pp",
        "SP",
        "L",
        "copy_hi",
        "cropped",
        "trivial",
        "sp",
    )

    def __init__(self, C, O, G, K, X, Y, s, d, lo):  # noqa: E741
        D = len(K)
        self.D, self.C, self.O, self.G = D, C, O, G
        self.Cg, self.Og = C // G, O // G
        self.K, self.Kp, self.X, self.Y, self.s, self.d, self.lo = K, math.prod(K), X, Y, s, d, lo
        self.L = math.prod(Y)
        # the padded extent each dim needs: up to the last output's last tap
        P = tuple(max((Y[i] - 1) * s[i] + (K[i] - 1) * d[i] + 1, 1) for i in range(D))
        self.P, self.Pp = P, math.prod(P)
        SP = [1] * D
        for i in range(D - 2, -1, -1):
            SP[i] = SP[i + 1] * P[i + 1]
        self.SP = tuple(SP)
        # the part of x inside the padded buffer (x's tail past the last tap is never read)
        self.copy_hi = tuple(max(0, min(X[i], P[i] - lo[i])) for i in range(D))
        self.cropped = self.copy_hi != X
        # 1x1 kernel, stride 1, no padding: x is its own column matrix
        self.trivial = self.Kp == 1 and not any(lo) and P == X and all(v == 1 for v in s)
        self.sp = tuple(range(2, 2 + D))  # the spatial axes of (N, C, *spatial)


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
    return a.astype(_F32) if a.dtype.char in "eE" else a


def _padded(x, g: _Geom):
    """``x`` (N, C, *X) copied into a zero buffer (N, C, *P)."""
    xp = xp_of(x)
    buf = xp.zeros((x.shape[0], g.C) + g.P, x.dtype)
    if g.cropped:
        x = x[(slice(None), slice(None)) + tuple(slice(0, h) for h in g.copy_hi)]
    buf[(slice(None), slice(None)) + tuple(slice(lo, lo + h) for lo, h in zip(g.lo, g.copy_hi))] = x
    return buf


def _windows(buf, g: _Geom, order: str):
    """The strided window view of a padded buffer (N, C, *P): ``order`` "col" gives
    (G, Cg, *K, N, *Y) (the GEMM's column layout), "unfold" gives (N, C, *K, *Y)."""
    D, Pp = g.D, g.Pp
    tap = tuple(g.d[i] * g.SP[i] for i in range(D))
    pos = tuple(g.s[i] * g.SP[i] for i in range(D))
    if order == "col":
        shape = (g.G, g.Cg) + g.K + (buf.shape[0],) + g.Y
        strides = (g.Cg * Pp, Pp) + tap + (g.C * Pp,) + pos
    else:
        shape = (buf.shape[0], g.C) + g.K + g.Y
        strides = (g.C * Pp, Pp) + tap + pos
    return xp_of(buf).as_strided(buf, shape, strides)


def _im2col(x, g: _Geom, ones_row: bool = False):
    """Columns ``(G, Cg * Kp [+ 1], N * L)`` of ``x`` (N, C, *X): row ``(c, k)``, column
    ``(n, p)`` holds the input that tap ``k`` of output ``p`` of image ``n`` reads in channel
    ``c``; with ``ones_row`` a last row of ones (the bias, folded into the GEMM)."""
    xp = xp_of(x)
    N = x.shape[0]
    R = g.Cg * g.Kp
    col = xp.empty((g.G, R + ones_row, N * g.L), x.dtype)
    if g.trivial:  # 1x1 kernel, stride 1, no padding: the windows are x itself
        D = g.D
        win = x.reshape((N, g.G, g.Cg) + g.K + g.Y).transpose(
            1, 2, *range(3, 3 + D), 0, *range(3 + D, 3 + 2 * D)
        )
    else:
        win = _windows(_padded(x, g), g, "col")
    col[:, :R].reshape((g.G, g.Cg) + g.K + (N,) + g.Y)[...] = win
    if ones_row:
        col[:, R] = 1
    return col


def _col2im(src, g: _Geom):
    """The adjoint of ``_im2col``: columns viewed as ``(C, Kp, N, *Y)`` summed back into an
    array ``(N, C, *X)``, one strided add per kernel tap (no scatter-add)."""
    xp = xp_of(src)
    C, N = g.C, src.shape[2]
    if g.trivial:
        return src[:, 0].transpose(1, 0, *g.sp).copy()
    pad = xp.zeros((N, C) + g.P, src.dtype)
    padT = pad.transpose(1, 0, *g.sp)  # (C, N, *P): the columns' order, for cheaper adds
    for j, k in enumerate(product(*(range(k) for k in g.K))):
        idx = (slice(None), slice(None)) + tuple(
            slice(k[i] * g.d[i], k[i] * g.d[i] + (g.Y[i] - 1) * g.s[i] + 1, g.s[i])
            for i in range(g.D)
        )
        padT[idx] += src[:, j]
    if not any(g.lo) and g.P == g.X:
        return pad
    if g.cropped:
        out = xp.zeros((N, C) + g.X, src.dtype)
        out[(slice(None), slice(None)) + tuple(slice(0, h) for h in g.copy_hi)] = pad[
            (slice(None), slice(None)) + tuple(slice(lo, lo + h) for lo, h in zip(g.lo, g.copy_hi))
        ]
        return out
    return pad[
        (slice(None), slice(None)) + tuple(slice(lo, lo + h) for lo, h in zip(g.lo, g.X))
    ].copy()


def _to_cols(y, g: _Geom):
    """An output-shaped ``y`` (N, O, *Y) laid out as the GEMM's ``(G, Og, N * L)``."""
    N = y.shape[0]
    return y.transpose(1, 0, *g.sp).copy().reshape(g.G, g.Og, N * g.L)


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


def _conv_fwd(x, w, b, g: _Geom):
    """``conv(x, w) + b`` and the column matrix (kept for the weight gradient). One GEMM per
    group over the whole batch, the bias folded in as a row of ones under the columns, then
    one copy from (O, N, *Y) into the (N, O, *Y) output.

    (One GEMM per image would write the output in place, and is faster on an idle machine;
    but each BLAS call synchronizes its threads, and with 64 calls a step that costs seconds
    when other processes hold the cores.)"""
    xp = xp_of(x)
    N = x.shape[0]
    G, Og, R = g.G, g.Og, g.Cg * g.Kp
    col = _im2col(x, g, b is not None)
    wm = _wmat(w, g)
    if b is not None:
        wa = xp.empty((G, Og, R + 1), x.dtype)
        wa[:, :, :R] = wm
        wa[:, :, R] = b.reshape(G, Og)
        wm = wa
    y = xp.empty((N, g.O) + g.Y, x.dtype)
    y.transpose(1, 0, *g.sp)[...] = _mm(wm, col).reshape((g.O, N) + g.Y)
    return y, col


def _convT_fwd(y, w, b, g: _Geom, ycols=None):
    N = y.shape[0]
    if ycols is None:
        ycols = _to_cols(y, g)
    gcol = _mm(_wmat(w, g).transpose(0, 2, 1), ycols)
    x = _col2im(gcol.reshape((g.C, g.Kp, N) + g.Y), g)
    if b is not None:
        x += b.reshape((1, g.C) + (1,) * g.D)
    return x


def _wgrad(x, gy, g: _Geom, col=None, gycols=None):
    R = g.Cg * g.Kp
    if col is None:
        col = _im2col(x, g)
    if gycols is None:
        gycols = _to_cols(gy, g)
    gw = _mm(gycols, col[:, :R].transpose(0, 2, 1))
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
        if x.dtype.char in "eE":
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
        if x._data.dtype.kind == "c":  # complex: the adjoints conjugate x and w
            x, w, col = cj(x), cj(w), None
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
        if y.dtype.char in "eE":
            return _half_wrap(lambda y, w, b: _convT_fwd(y, w, b, g), y, w, b)
        return _convT_fwd(y, w, b, g, ycols)

    @staticmethod
    def backward(ctx, gx):
        y, w = ctx.saved_tensors
        need_y, need_w, need_b = ctx.needs_input_grad[:3]
        g = ctx.g
        y, w = cj(y), cj(w)  # complex: the adjoints conjugate y and w
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
        if x.dtype.char in "eE":
            return _half_wrap(lambda x, gy: _wgrad(x, gy, g), x, gy)
        return _wgrad(x, gy, g, col, gycols)

    @staticmethod
    def backward(ctx, gg):
        x, gy = ctx.saved_tensors
        need_x, need_gy = ctx.needs_input_grad[:2]
        g = ctx.g
        x, gy = cj(x), cj(gy)  # complex: the adjoints conjugate x and gy
        # <gg, dw(x, gy)> = <A_gg x, gy>
        gx = ConvTranspose.apply(gy, gg, None, g) if need_x else None
        ggy = Conv.apply(x, gg, None, g) if need_gy else None
        return gx, ggy, None, None, None


# ---- unfold / fold ---------------------------------------------------------------------------
def _unfold_arr(x, g: _Geom):
    """``(N, C * Kp, L)`` patches of ``x`` (N, C, *X) (F.unfold's layout)."""
    N = x.shape[0]
    return _windows(_padded(x, g), g, "unfold").copy().reshape(N, g.C * g.Kp, g.L)


def _fold_arr(cols, g: _Geom):
    """The adjoint of ``_unfold_arr``: ``(N, C * Kp, L)`` summed into ``(N, C, *X)``."""
    N = cols.shape[0]
    return _col2im(cols.reshape((N, g.C, g.Kp) + g.Y).transpose(1, 2, 0, *range(3, 3 + g.D)), g)


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
    return _geom(C, C, 1, K, X, Y, s, d, lo)


__all__: list[str] = []
