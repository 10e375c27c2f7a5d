"""The discrete Fourier transform primitives behind ``ember.fft``, ``stft``/``istft`` and
overlap-add.

Three primitives, as torch's: ``FftC2C`` (complex to complex, either direction), ``FftR2C``
(real to complex, forward, optionally one-sided) and ``FftC2R`` (the inverse of a one-sided
Hermitian spectrum, real out). Every public transform composes them with ``conj`` and a
zero-pad/trim (``Resize``), as torch's do, so gradients are torch's by construction: each
primitive's backward is another primitive (the adjoint transform), so double backward works.

``scale`` is torch's ``fft_norm_mode``: 0 none, 1 ``1/sqrt(n)``, 2 ``1/n`` (n: the product of
the transformed sizes), the same in both directions, so an adjoint keeps its forward's scale.
"""

from __future__ import annotations

from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.complex import real
from ember.tensor import Tensor, _wrap


def _is_meta(a) -> bool:
    return xp_of(a).device_type == "meta"


def _scaled_band(g: Tensor, axis: int, count: int, factor: float, fresh: bool) -> Tensor:
    """``g`` with entries ``1 .. count`` of ``axis`` multiplied by ``factor`` (the Hermitian
    weights of the one-sided transforms' gradients). Outside double backward this scales a
    slice of the array in place (of ``g``'s own when ``fresh``, else of a copy) instead of
    multiplying the whole by a mask."""
    if count <= 0:
        return g
    d = g._data
    if not (_gm.state.enabled and g._requires_grad):
        if _is_meta(d):
            return g
        if not fresh:
            d = d.copy()
        d[(slice(None),) * axis + (slice(1, 1 + count),)] *= factor
        return _wrap(d)
    xp = xp_of(d)
    m = xp.ones(d.shape[axis], dtype=xp.empty((), d.dtype).real.dtype)
    if not _is_meta(m):
        m[1 : 1 + count] = factor
    return g * _wrap(m.reshape((-1,) + (1,) * (d.ndim - 1 - axis)))


class FftC2C(Function):
    """``scale * F(a)`` over ``dims``; ``F`` is ``exp(-2 pi i jk/n)`` forward, ``+`` inverse."""

    _array_forward = True
    _node_name = "FftC2CBackward0"

    @staticmethod
    def forward(ctx, a, dims, scale, forward):
        ctx.args = (dims, scale, forward)
        return xp_of(a).fft_c2c(a, dims, scale, forward)

    @staticmethod
    def backward(ctx, g):
        dims, scale, forward = ctx.args
        # the adjoint of scale * F is scale * F^H: the other direction, same scale
        return FftC2C.apply(g, dims, scale, not forward), None, None, None


class FftR2C(Function):
    """``scale * F(a)`` of a real ``a`` over ``dims`` (forward direction); ``onesided`` keeps
    the first ``n // 2 + 1`` entries of the last transformed dim."""

    _array_forward = True
    _node_name = "FftR2CBackward0"

    @staticmethod
    def forward(ctx, a, dims, scale, onesided):
        ctx.args = (dims, scale, onesided, a.shape[dims[-1]])
        return xp_of(a).fft_r2c(a, dims, scale, onesided)

    @staticmethod
    def backward(ctx, g):
        dims, scale, onesided, n = ctx.args
        if not onesided:  # real input: the real part of the adjoint
            return real(FftC2C.apply(g, dims, scale, False)), None, None, None
        # Re(F^H pad(g)) with the dropped half zero equals the Hermitian inverse (c2r) of g with
        # the entries that have a dropped mirror halved: half the size of torch's c2c of the
        # zero-padded gradient, the same values.
        g = _scaled_band(g, dims[-1], n - g.shape[dims[-1]], 0.5, fresh=False)
        return FftC2R.apply(g, dims, scale, n), None, None, None


class FftC2R(Function):
    """``scale * F^H(h)`` over ``dims`` for the Hermitian signal whose first half is ``a``
    (``last_size // 2 + 1`` entries on the last dim): real, ``last_size`` long there."""

    _array_forward = True
    _node_name = "FftC2RBackward0"

    @staticmethod
    def forward(ctx, a, dims, scale, last_size):
        ctx.args = (dims, scale)
        return xp_of(a).fft_c2r(a, dims, scale, last_size)

    @staticmethod
    def backward(ctx, g):
        dims, scale = ctx.args
        # NOTE: matches torch: the one-sided forward transform of g, with the entries that
        # stand for two (their mirror) doubled; the imaginary parts at 0/Nyquist get nothing
        gi = FftR2C.apply(g, dims, scale, True)
        gi = _scaled_band(gi, dims[-1], g.shape[dims[-1]] - gi.shape[dims[-1]], 2.0, fresh=True)
        return gi, None, None, None


class Resize(Function):
    """Zero-pad or trim ``a`` at the end of each of ``dims`` to ``sizes`` (torch's
    ``resize_fft_input``)."""

    _array_forward = True
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, a, dims, sizes):
        ctx.args = (dims, tuple(a.shape[d] for d in dims))
        xp = xp_of(a)
        shape = list(a.shape)
        idx = [slice(None)] * a.ndim
        for d, s in zip(dims, sizes):
            shape[d] = s
            idx[d] = slice(0, min(s, a.shape[d]))
        if _is_meta(a):
            return xp.empty(tuple(shape), dtype=a.dtype)
        if all(s <= a.shape[d] for d, s in zip(dims, sizes)):
            return a[tuple(idx)].copy()
        out = xp.zeros(tuple(shape), dtype=a.dtype)
        out[tuple(idx)] = a[tuple(idx)]
        return out

    @staticmethod
    def backward(ctx, g):
        dims, old = ctx.args
        return Resize.apply(g, dims, old), None, None


def resize(x: Tensor, dims: tuple, sizes) -> Tensor:
    """``x`` zero-padded or trimmed to ``sizes`` along ``dims`` (itself when nothing changes)."""
    if all(x.shape[d] == s for d, s in zip(dims, sizes)):
        return x
    return Resize.apply(x, tuple(dims), tuple(sizes))


# ---- framing and overlap-add (stft / istft) ----------------------------------------------------
class Frames(Function):
    """The frames ``a[..., f * hop : f * hop + size]`` of the last dim of ``a``, stacked as
    ``(..., n_frames, size)`` (torch's ``unfold``)."""

    _array_forward = True
    _node_name = "UnfoldBackward0"

    @staticmethod
    def forward(ctx, a, size, hop):
        length = a.shape[-1]
        ctx.args = (size, hop, length)
        n_frames = 1 + (length - size) // hop
        xp = xp_of(a)
        shape = a.shape[:-1] + (n_frames, size)
        if _is_meta(a):
            return xp.empty(shape, dtype=a.dtype)
        a = xp.ascontiguousarray(a)
        strides = tuple(s // a.itemsize for s in a.strides[:-1]) + (hop, 1)
        return xp.as_strided(a, shape, strides).copy()

    @staticmethod
    def backward(ctx, g):
        size, hop, length = ctx.args
        return OverlapAdd.apply(g, hop, length), None, None


class OverlapAdd(Function):
    """The sum of frames ``(..., n_frames, size)`` placed ``hop`` apart into a signal of
    ``length`` (torch's ``unfold_backward``); the adjoint of ``Frames``."""

    _array_forward = True
    _node_name = "UnfoldBackwardBackward0"

    @staticmethod
    def forward(ctx, a, hop, length):
        n_frames, size = a.shape[-2:]
        ctx.args = (size, hop)
        xp = xp_of(a)
        batch = a.shape[:-2]
        if _is_meta(a):
            return xp.empty(batch + (length,), dtype=a.dtype)
        # The output as rows of ``hop`` samples: chunk c of every frame lands on rows
        # c .. c + n_frames, so each chunk is one vectorized add (size / hop adds in all).
        rows = max(-(-length // hop), n_frames + -(-size // hop))
        out = xp.zeros(batch + (rows, hop), dtype=a.dtype)
        for c in range(0, -(-size // hop)):
            w = min(hop, size - c * hop)
            out[..., c : c + n_frames, :w] += a[..., c * hop : c * hop + w]
        return out.reshape(batch + (rows * hop,))[..., :length].copy()

    @staticmethod
    def backward(ctx, g):
        size, hop = ctx.args
        return Frames.apply(g, size, hop), None, None
