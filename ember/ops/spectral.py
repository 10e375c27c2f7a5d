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

import math
import warnings

from ember import _autocast as _ac
from ember import _dtype, backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.complex import real, view_as_real
from ember.ops.creation import _finish, _np_dtype, _xp
from ember.ops.joining import cat
from ember.tensor import Tensor, _wrap

_cpu = backend.cpu


def _is_meta(a) -> bool:
    return xp_of(a).device_type == "meta"


def _scale_last_band(d, count: int, factor: float, fresh: bool):
    """``_scaled_band`` of a C-contiguous complex array on its last axis, in one pass: the
    real view times a mask of 1s and ``factor``s, tiled so that each inner loop is long (a
    slice of 15 of 17 entries per row runs short strided loops, twice as slow)."""
    xp = xp_of(d)
    n = d.shape[-1]
    real = d.real.dtype
    rows = d.size // n
    tile = min(rows & -rows, 128) if rows else 1  # a power of two that divides the rows
    mask = xp.ones(2 * n, dtype=real)
    mask[2 : 2 + 2 * count] = factor
    mask = xp.tile(mask, tile)
    out = d if fresh else xp.empty_like(d)
    shape = (-1, 2 * n * tile)
    xp.multiply(d.view(real).reshape(shape), mask, out=out.view(real).reshape(shape))
    return out


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
        if axis == d.ndim - 1 and d.dtype.kind == "c" and d.flags.c_contiguous:
            return _wrap(_scale_last_band(d, count, factor, fresh))
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
    shape = x._data.shape
    if all(shape[d] == s for d, s in zip(dims, sizes)):
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


# ---- window functions --------------------------------------------------------------------------
_CPP_NAMES = {
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def _window_args(name: str, window_length, dtype, device):
    """torch's ``window_function_checks``: the NumPy dtype and backend of a window."""
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        try:
            window_length = window_length.__index__()
        except AttributeError:
            raise TypeError(
                f"{name}(): argument 'window_length' (position 1) must be int, not "
                f"{type(window_length).__name__}"
            ) from None
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    npd = _np_dtype(dtype)
    if npd.kind == "c":
        tname = _dtype.SCALAR_NAMES[_dtype.from_np(npd).name]
        # NOTE: matches torch: complex passes the dtype check and fails in arange
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{tname}'")
    if npd.kind != "f":
        cname = _CPP_NAMES.get(npd.name, npd.name)
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={cname}, "
            "device=cpu, layout=Strided (default), requires_grad=false (default), "
            "pinned_memory=false, memory_format=(nullopt))"
        )
    return window_length, npd, _xp(device)


def _window(name, window_length, periodic, dtype, device, requires_grad, values):
    """A window of ``window_length`` points: ``values(n, npd)`` gives the symmetric window of
    ``n`` points (the periodic one is the first ``window_length`` of ``window_length + 1``)."""
    n, npd, xp = _window_args(name, window_length, dtype, device)
    if xp.device_type == "meta":
        return _finish(xp.empty((n,), dtype=npd), requires_grad)
    if n <= 1:
        return _finish(xp.ones((n,), dtype=npd), requires_grad)
    m = n + 1 if periodic else n
    return _finish(xp.asarray(values(m, npd)[:n]), requires_grad)


def _cosine_terms(m: int, npd, coeffs):
    """``sum_j c_j cos(2 pi j k / (m - 1))`` computed in ``npd`` as torch's kernels do."""
    k = _cpu.arange(m, dtype=npd)
    out = None
    for j, c in enumerate(coeffs):
        if j == 0:
            continue
        t = _cpu.cos(k * npd.type(2.0 * math.pi * j / (m - 1))) * npd.type(c)
        out = t if out is None else out + t
    return out + npd.type(coeffs[0])


def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window ``0.5 - 0.5 cos(2 pi k / (N - 1))``; ``periodic`` (the default, for
    spectral analysis) drops the last point of the ``N + 1``-point window.

    Example:
        >>> ember.hann_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window(
        "hann_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        lambda m, npd: _cosine_terms(m, npd, (0.5, -0.5)),
    )


def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Hamming window ``alpha - beta cos(2 pi k / (N - 1))``.

    Example:
        >>> ember.hamming_window(4, dtype=ember.float64)
        tensor([0.0800, 0.5400, 1.0000, 0.5400], dtype=ember.float64)
    """
    return _window(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        lambda m, npd: _cosine_terms(m, npd, (alpha, -beta)),
    )


def _blackman(m: int, npd):
    # NOTE: matches torch: its order of float operations, so float32 values agree bit for bit
    t = _cpu.arange(m, dtype=npd) * npd.type(math.pi / (m - 1))
    a = _cpu.cos(t * npd.type(4)) * npd.type(0.08)
    return a - _cpu.cos(t * npd.type(2)) * npd.type(0.5) + npd.type(0.42)


def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window ``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``.

    Example:
        >>> ember.blackman_window(3, periodic=False, dtype=ember.float64)
        tensor([0., 1., 0.], dtype=ember.float64)
    """
    return _window(
        "blackman_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _blackman,
    )


def _bartlett(m: int, npd):
    k = _cpu.arange(m, dtype=npd) * npd.type(2.0 / (m - 1))
    half = ((m - 1) >> 1) + 1
    k[half:] = npd.type(2) - k[half:]
    return k


def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The triangular Bartlett window ``1 - |2k / (N - 1) - 1|``.

    Example:
        >>> ember.bartlett_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window(
        "bartlett_window", window_length, periodic, dtype, device, requires_grad, _bartlett
    )


def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta)``, ``a = (N - 1) / 2``.

    Example:
        >>> ember.kaiser_window(3, periodic=False, beta=0.0)
        tensor([1., 1., 1.])
    """

    def values(m, npd):
        a = (m - 1) / 2.0
        k = _cpu.arange(m, dtype=_cpu.float64)
        r = _cpu.i0(beta * _cpu.sqrt(_cpu.abs(1.0 - ((k - a) / a) ** 2))) / _cpu.i0(beta)
        return r.astype(npd)

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, values)


# ---- stft / istft ------------------------------------------------------------------------------
_WARNED: set = set()
_LEGACY = frozenset(("Float", "Double", "Half", "Long", "Int", "Short", "Char", "Byte", "Bool"))


def _warn_once(key: str, msg: str) -> None:
    # NOTE: matches torch: these are TORCH_WARN_ONCE, once per process
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(msg, UserWarning, stacklevel=3)


def _type_repr(t: Tensor) -> str:
    """torch's ``toString()`` of a tensor's type: ``torch.FloatTensor``, ``CPUComplexFloatType``."""
    name = _dtype.SCALAR_NAMES[_dtype.from_np(t._data.dtype).name]
    return f"torch.{name}Tensor" if name in _LEGACY else f"CPU{name}Type"


def _opt(v) -> str:
    return "None" if v is None else str(int(v))


def _center_window(window: Tensor | None, win: int, n_fft: int, like: Tensor):
    """The window zero-padded on both sides to ``n_fft`` (torch centers a shorter one); the
    default (no window) is rectangular, None when it covers all ``n_fft`` points."""
    if win == n_fft:
        return window
    left = (n_fft - win) // 2
    if window is None:
        xp = xp_of(like._data)
        w = xp.zeros((n_fft,), dtype=like._data.dtype)
        if not _is_meta(w):
            w[left : left + win] = 1
        return _wrap(w)
    return _pad_last(window, left, n_fft - win - left)


def _pad_last(t: Tensor, left: int, right: int) -> Tensor:
    """``t`` with zeros before and after along its last dim (differentiable)."""
    xp = xp_of(t._data)
    parts = []
    for n in (left, right):
        parts.append(_wrap(xp.zeros(t.shape[:-1] + (n,), dtype=t._data.dtype)))
    return cat([parts[0], t, parts[1]], -1)


def stft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    """The short-time Fourier transform: the ``fft`` of each ``window``-weighted frame of
    ``n_fft`` samples taken ``hop_length`` apart (default ``n_fft // 4``), as
    ``(n_fft // 2 + 1, n_frames)`` (one-sided, real input) per signal. ``center`` pads
    ``n_fft // 2`` on both sides (``pad_mode``) so frame ``t`` is centered on sample
    ``t * hop_length``. Real input needs ``return_complex`` (True; False gives the old
    ``view_as_real`` layout).

    Example:
        >>> x = ember.arange(8.0)
        >>> ember.stft(x, 4, window=ember.hann_window(4), return_complex=True).shape
        ember.Size([3, 9])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            stft,
            input,
            n_fft,
            hop_length,
            win_length,
            window,
            center,
            pad_mode,
            normalized,
            onesided,
            return_complex,
            align_to_window,
        )
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        from ember.nn.functional import pad as _pad

        signal_dim = input.dim()
        extended = [1] * (3 - signal_dim) + list(input.shape)
        p = int(n_fft // 2)
        input = _pad(input.view(extended), [p, p], pad_mode)
        input = input.view(input.shape[-signal_dim:])
    if window is None:
        _warn_once(
            "stft-window",
            "A window was not provided. A rectangular window will be applied,which is known to "
            "cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
            "warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
        )
    complex_in = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_in:
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will "
            "further require that return_complex=True in a future PyTorch release."
        )
    rc = complex_in if return_complex is None else bool(return_complex)
    if not rc:
        _warn_once(
            "stft-real",
            "stft with return_complex=False is deprecated. In a future pytorch release, stft "
            "will return complex tensors for all inputs, and return_complex=False will raise "
            "an error.\nNote: you can still call torch.view_as_real on the complex output to "
            "recover the old return format.",
        )
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    wrepr = "None" if window is None else f"{_type_repr(window)}{{{list(window.shape)}}}"
    head = (
        f"stft({_type_repr(input)}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
        f"win_length={win}, window={wrepr}, normalized={int(normalized)}, "
        f"onesided={_opt(onesided)}, return_complex={_opt(return_complex)}, "
        f"align_to_window={_opt(align_to_window)}) : "
    )
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(head + "expected a tensor of floating point or complex values")
    if input.dim() not in (1, 2):
        raise RuntimeError(head + "expected a 1D or 2D tensor")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        # NOTE: matches torch: the message names win_length as "n_fft"
        raise RuntimeError(head + f"expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(head + f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(head + f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(
            head + f"expected a 1D window tensor of size equal to win_length={win}, but got "
            f"window with size {list(window.shape)}"
        )
    if align_to_window and win < n_fft:
        # frames start where the (centered) window starts: pad as the window is padded
        left = (n_fft - win) // 2
        x = _pad_last(x, left, n_fft - win - left)
    w = _center_window(window, win, n_fft, x)
    frames = Frames.apply(x.contiguous(), n_fft, hop)
    if w is not None:
        frames = frames * w
    if frames._data.dtype.itemsize < 4 or frames._data.dtype.name == "bfloat16":
        name = _dtype.SCALAR_NAMES[_dtype.from_np(frames._data.dtype).name]
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {name}")
    complex_fft = frames.is_complex()
    sided = (not complex_fft) if onesided is None else bool(onesided)
    scale = 1 if normalized else 0
    if complex_fft:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = FftC2C.apply(frames, (2,), scale, True)
    else:
        out = FftR2C.apply(frames, (2,), scale, sided)
    out = out.transpose(1, 2)
    if input.dim() == 1:
        out = out.squeeze(0)
    return out if rc else view_as_real(out)


def istft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Tensor:
    """The inverse of ``stft``: each frame's inverse ``fft``, weighted by ``window`` and
    overlap-added, divided by the overlap-added squared window (least-squares inversion).
    ``length`` trims or zero-pads the signal; ``center`` drops the ``n_fft // 2`` padding.

    Example:
        >>> x = ember.arange(8.0)
        >>> w = ember.hann_window(4)
        >>> ember.istft(ember.stft(x, 4, window=w, return_complex=True), 4, window=w)
        tensor([0., 1., 2., 3., 4., 5., 6., 7.])
    """
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with "
            "return_complex=True."
        )
    if window is None:
        _warn_once(
            "istft-window",
            "A window was not provided. A rectangular window will be applied.Please provide "
            "the same window used by stft to make the inversion lossless.To suppress this "
            "warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
        )
    dim = input.dim() + 1  # torch counts the dims of view_as_real(input)
    if dim < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-dim}, {dim - 1}], but got -3)"
        )
    n_frames, fft_size = input.shape[-1], input.shape[-2]
    expected = n_fft + hop * (n_frames - 1)
    wrepr = "None" if window is None else f"{_type_repr(window)}{{{list(window.shape)}}}"
    head = (
        f"istft({_type_repr(input)}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
        f"win_length={win}, window={wrepr}, center={int(center)}, "
        f"normalized={int(normalized)}, onesided={_opt(onesided)}, "
        f"length={'None' if length is None else length}, return_complex={int(return_complex)})"
    )
    if input.numel() == 0:
        raise RuntimeError(head + " : input tensor cannot be empty.")
    if dim not in (3, 4):
        raise RuntimeError(head + f" : expected a tensor with 3 or 4 dimensions, but got {dim}")
    sided = fft_size != n_fft if onesided is None else bool(onesided)
    if sided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(
            head + " : expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft / 2 + 1 when onesided=True, but got {fft_size}"
        )
    if not sided and n_fft != fft_size:
        raise RuntimeError(
            head + " : expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft when onesided=False, but got {fft_size}"
        )
    if not 0 < hop <= win:
        raise RuntimeError(head + " : expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(head + " : expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(
            head + " : Invalid window shape. window has to be 1D and length of `win_length`"
        )
    if window is None:
        xp = xp_of(input._data)
        w = _wrap(xp.ones((win,), dtype=xp.empty((), input._data.dtype).real.dtype))
    else:
        w = window
    if win != n_fft:
        left = (n_fft - win) // 2
        w = _pad_last(w, left, n_fft - win - left)
    x = (input if input.dim() == 3 else input.unsqueeze(0)).transpose(1, 2)
    scale = 1 if normalized else 2
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        x = FftC2C.apply(x.contiguous(), (2,), scale, False)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not sided:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        x = FftC2R.apply(x, (2,), scale, n_fft)
    y = OverlapAdd.apply(x * w, hop, expected)
    envelope = OverlapAdd.apply((w * w).expand(1, n_frames, n_fft), hop, expected)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected - n_fft // 2 if center else expected
    y = y[:, start:end]
    envelope = envelope[:, start:end]
    e = envelope._data
    if not _is_meta(e) and e.size and float(abs(e).min()) < 1e-11:
        raise RuntimeError(head + " window overlap add min: 1\n[ CPUBoolType{} ]")
    y = y / envelope
    if input.dim() == 2:
        y = y.squeeze(0)
    if end > expected:
        _warn_once(
            "istft-length",
            "The length of signal is shorter than the length parameter. Result is being padded "
            "with zeros in the tail. Please check your center and hop_length settings.",
        )
        y = resize(y, (y.dim() - 1,), (y.shape[-1] + end - expected,))
    return y


Tensor.stft = stft
Tensor.istft = istft

__all__ = [
    "stft",
    "istft",
    "hann_window",
    "hamming_window",
    "blackman_window",
    "bartlett_window",
    "kaiser_window",
]
