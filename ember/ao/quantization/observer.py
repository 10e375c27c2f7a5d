"""Observers: modules that watch the tensors flowing through a model and turn what they saw
into quantization parameters (``calculate_qparams() -> (scale, zero_point)``).

The arithmetic is torch's, step for step in float32 (a Python number meeting a float32 tensor
is rounded to float32 first, as torch's CPU kernels take a wrapped scalar), so scales and zero
points equal torch's bit for bit. ``HistogramObserver`` runs torch's L2-error search over its
histogram (torch's ``histc``/``linspace``/``bucketize`` binning rules reproduced on arrays).
"""

from __future__ import annotations

import warnings
from functools import partial

import ember
from ember import nn
from ember.backend import cpu as _xp

__all__ = [
    "FixedQParamsObserver",
    "HistogramObserver",
    "MinMaxObserver",
    "MovingAverageMinMaxObserver",
    "MovingAveragePerChannelMinMaxObserver",
    "NoopObserver",
    "ObserverBase",
    "PerChannelMinMaxObserver",
    "PlaceholderObserver",
    "RecordingObserver",
    "ReuseInputObserver",
    "UniformQuantizationObserverBase",
    "default_affine_fixed_qparams_observer",
    "default_debug_observer",
    "default_dynamic_quant_observer",
    "default_fixed_qparams_range_0to1_observer",
    "default_fixed_qparams_range_neg1to1_observer",
    "default_float_qparams_observer",
    "default_float_qparams_observer_4bit",
    "default_histogram_observer",
    "default_observer",
    "default_per_channel_weight_observer",
    "default_placeholder_observer",
    "default_reuse_input_observer",
    "default_symmetric_fixed_qparams_observer",
    "default_weight_observer",
    "get_observer_state_dict",
    "load_observer_state_dict",
    "per_channel_weight_observer_range_neg_127_to_127",
    "weight_observer_range_neg_127_to_127",
]

_F32 = _xp.float32
_EPS = float(_xp.finfo(_F32).eps)


# ---- with_args: observer factories ---------------------------------------------------------------
class _PartialWrapper:
    """A constructor with some keyword arguments bound (``Observer.with_args(...)``); each call
    builds a fresh instance. ``callable_args`` are called at construction time."""

    def __init__(self, p):
        self.p = p
        self.callable_args = {}

    def __call__(self, *args, **keywords):
        for name, make in self.callable_args.items():
            if name not in keywords:
                keywords = {**keywords, name: make()}
        return self.p(*args, **keywords)

    def __repr__(self):
        return self.p.__repr__() + self.callable_args.__repr__()

    def with_args(self, **kwargs):
        return _with_args(self, **kwargs)

    def with_callable_args(self, **kwargs):
        result = _PartialWrapper(p=self.p)
        result.callable_args = {**self.callable_args, **kwargs}
        return result


def _with_args(cls_or_self, **kwargs):
    return _PartialWrapper(partial(cls_or_self, **kwargs))


def _with_callable_args(cls_or_self, **kwargs):
    return _PartialWrapper(partial(cls_or_self)).with_callable_args(**kwargs)


# ---- helpers ------------------------------------------------------------------------------------
def _is_per_tensor(qscheme) -> bool:
    return qscheme in (ember.per_tensor_affine, ember.per_tensor_symmetric)


def _is_per_channel(qscheme) -> bool:
    return qscheme in (
        ember.per_channel_affine,
        ember.per_channel_symmetric,
        ember.per_channel_affine_float_qparams,
    )


def _check_per_tensor(observer_name: str, qscheme) -> None:
    """Refuses a per channel ``qscheme`` for a per tensor observer."""
    if not _is_per_tensor(qscheme):
        raise NotImplementedError(
            f"{observer_name}'s qscheme only support torch.per_tensor_symmetric and "
            f"torch.per_tensor_affine, got {qscheme}"
        )


def _is_symmetric(qscheme) -> bool:
    return qscheme in (ember.per_tensor_symmetric, ember.per_channel_symmetric)


def _array(t):
    """A tensor's values as a NumPy array (a view where possible)."""
    return t.detach().numpy()


def _tensor(a):
    return ember.from_numpy(_xp.ascontiguousarray(a))


def _iinfo(dtype) -> tuple[int, int, int]:
    """(min, max, bits) of an integer or quantized dtype."""
    # ember.iinfo refuses the quantized dtypes (torch.iinfo takes them): their ranges here
    table = {
        ember.quint8: (0, 255, 8),
        ember.qint8: (-128, 127, 8),
        ember.qint32: (-(2**31), 2**31 - 1, 32),
        ember.quint4x2: (0, 15, 4),
        ember.quint2x4: (0, 3, 2),
    }
    if dtype in table:
        return table[dtype]
    info = ember.iinfo(dtype)
    return info.min, info.max, info.bits


def calculate_qmin_qmax(quant_min, quant_max, has_customized_qrange, dtype, reduce_range):
    """The integer range an observer quantizes to: its dtype's (one bit less with
    ``reduce_range``), or the given one (halved with ``reduce_range``)."""
    if has_customized_qrange:
        if dtype in (ember.qint32, ember.int32):
            lo, hi = 0, 2**32 - 1
        else:
            lo, hi = 0, 255
        if quant_min is not None and quant_max is not None:
            lo, hi = quant_min, quant_max
        n = hi - lo + 1
        if dtype in (ember.qint8, ember.int8) and not 0 < n <= 256:
            raise AssertionError(
                "quantization range should be positive and not exceed the maximum bit range (=256)."
            )
        if dtype in (ember.qint32, ember.int32) and not 0 < n <= 2**32:
            raise AssertionError(
                "quantization range should be positive and not exceed the maximum bit range "
                "(=4294967296)."
            )
        if reduce_range:
            quant_min, quant_max = quant_min // 2, quant_max // 2
        return quant_min, quant_max
    if dtype in (ember.qint8, ember.int8):
        return (-64, 63) if reduce_range else (-128, 127)
    if dtype in (ember.quint8, ember.uint8):
        return (0, 127) if reduce_range else (0, 255)
    if dtype in (ember.qint32, ember.int32):
        return -(2**31), 2**31 - 1
    if dtype == ember.uint16:
        return 0, 2**16 - 1
    if dtype == ember.int16:
        return -(2**15), 2**15 - 1
    return 0, 15


def check_min_max_valid(min_val, max_val) -> bool:
    """Whether the observer has seen data (warns if not); min must not exceed max."""
    if min_val.numel() == 0 or max_val.numel() == 0:
        warnings.warn(
            "must run observer before calling calculate_qparams. Returning default values.",
            stacklevel=2,
        )
        return False
    lo, hi = _array(min_val), _array(max_val)
    if min_val.dim() == 0 or max_val.dim() == 0:
        if float(lo) == float("inf") and float(hi) == float("-inf"):
            warnings.warn(
                "must run observer before calling calculate_qparams. Returning default values.",
                stacklevel=2,
            )
            return False
        if float(lo) > float(hi):
            raise AssertionError(f"min {min_val} should be less than max {max_val}")
    elif (lo > hi).any():
        raise AssertionError(f"min {min_val} should be less than max {max_val}")
    return True


# ---- base classes -------------------------------------------------------------------------------
class ObserverBase(nn.Module):
    """Base of every observer: ``forward`` records statistics of its input (and returns the input
    unchanged), ``calculate_qparams`` turns them into quantization parameters.

    Args:
        dtype: the quantized dtype the statistics are for.
        is_dynamic: whether the observer stands in for dynamic (per batch) quantization.
    """

    def __init__(self, dtype, is_dynamic: bool = False):
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    def forward(self, x):
        raise NotImplementedError(f"{type(self).__name__} must implement forward")

    def calculate_qparams(self, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement calculate_qparams")

    with_args = classmethod(_with_args)
    with_callable_args = classmethod(_with_callable_args)


_ALLOWED = (
    "qint8 quint8 quint4x2 qint32 int8 uint8 int16 int32 float8_e5m2 float8_e4m3fn uint16".split()
)


class UniformQuantizationObserverBase(ObserverBase):
    """Base of the observers that quantize uniformly: the scale and zero point follow from a
    minimum and a maximum (``_calculate_qparams``), per tensor or per channel.

    Args:
        dtype: quantized dtype (quint8, qint8...).
        qscheme: per_tensor_affine, per_tensor_symmetric, per_channel_affine,
            per_channel_symmetric or per_channel_affine_float_qparams.
        reduce_range: quantize to one bit less (torch warns that it will be deprecated).
        quant_min, quant_max: a custom integer range instead of the dtype's.
        eps: the smallest scale.
    """

    _version = 3

    def __init__(
        self,
        dtype=None,
        qscheme=None,
        reduce_range=False,
        quant_min=None,
        quant_max=None,
        factory_kwargs=None,
        eps=_EPS,
        is_dynamic=False,
        **kwargs,
    ) -> None:
        dtype = ember.quint8 if dtype is None else dtype
        qscheme = ember.per_tensor_affine if qscheme is None else qscheme
        super().__init__(dtype=dtype, is_dynamic=is_dynamic, **kwargs)
        self.qscheme = qscheme
        if reduce_range:
            # NOTE: matches torch: a UserWarning whenever reduce_range is set (the x86/fbgemm
            # default qconfigs set it)
            warnings.warn(
                "Please use quant_min and quant_max to specify the range for observers. "
                "reduce_range will be deprecated in a future release of PyTorch.",
                stacklevel=2,
            )
        self.reduce_range = reduce_range
        self.register_buffer("eps", ember.tensor([eps]))
        if not (_is_per_tensor(qscheme) or _is_per_channel(qscheme)):
            raise AssertionError(
                "Default Observer only works for per_tensor_affine, per_tensor_symmetric, "
                "per_channel_affine, per_channel_symmetric and per_channel_float_qparams "
                f"quantization scheme, got {qscheme}"
            )
        if self.dtype not in tuple(getattr(ember, n) for n in _ALLOWED):
            raise AssertionError(
                f"Default Observer only works for {', '.join(_ALLOWED)} data type, got {self.dtype}"
            )
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        if self.has_customized_qrange:
            self._validate_qmin_qmax(quant_min, quant_max)
        self.quant_min, self.quant_max = calculate_qmin_qmax(
            quant_min, quant_max, self.has_customized_qrange, self.dtype, self.reduce_range
        )

    def _validate_qmin_qmax(self, quant_min: int, quant_max: int) -> None:
        if not quant_min <= 0 <= quant_max:
            raise AssertionError("Used-specified quantization range must include 0.")
        if quant_min >= quant_max:
            raise AssertionError(
                "qmin must be strictly less than qmax for user-specified quantization range."
            )

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, *args):
        if local_metadata.get("version") in (None, 1):
            # eps became a buffer in version 2
            state_dict[prefix + "eps"] = ember.tensor([_EPS])
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, *args)

    def _calculate_qparams(self, min_val, max_val):
        """Scale and zero point for ``[min_val, max_val]`` (0-d or per channel), in float32 as
        torch computes them: the range is widened to hold 0, spread over
        ``[quant_min, quant_max]``, and the scale kept above ``eps``."""
        if not check_min_max_valid(min_val, max_val):
            return ember.tensor([1.0]), ember.tensor([0])
        qmin, qmax = self.quant_min, self.quant_max
        lo, hi = _array(min_val).astype(_F32), _array(max_val).astype(_F32)
        lo_neg = _xp.minimum(lo, _F32(0))
        hi_pos = _xp.maximum(hi, _F32(0))
        eps = _array(self.eps).astype(_F32)[0]
        if _is_symmetric(self.qscheme):
            hi_pos = _xp.maximum(-lo_neg, hi_pos)
            scale = _xp.maximum(hi_pos / _F32(float(qmax - qmin) / 2), eps)
            if self.dtype in (ember.quint8, ember.uint8):
                mid = (qmin + qmax) // 2 if self.has_customized_qrange else 128
            elif self.dtype == ember.uint16:
                mid = 2**15
            else:
                mid = 0
            zero_point = _xp.full(scale.shape, mid, dtype=_xp.int64)
        elif self.qscheme == ember.per_channel_affine_float_qparams:
            scale = (hi - lo) / _F32(float(qmax - qmin))
            scale = _xp.where(scale > eps, scale, _F32(1)).astype(_F32)
            # X_q = round((X - min) / scale): a float zero point of -min / scale
            zero_point = (_F32(-1) * lo / scale).astype(_F32)
        else:
            scale = _xp.maximum((hi_pos - lo_neg) / _F32(float(qmax - qmin)), eps)
            # NOTE: matches torch: the affine zero point is int32 (``.to(torch.int)``), the
            # symmetric one int64
            zero_point = qmin - _xp.rint(lo_neg / scale).astype(_xp.int32)
            zero_point = _xp.clip(zero_point, qmin, qmax).astype(_xp.int32)
        scale = _xp.asarray(scale, dtype=_F32).reshape(-1) if scale.ndim == 0 else scale
        zero_point = _xp.asarray(zero_point).reshape(-1) if zero_point.ndim == 0 else zero_point
        return _tensor(scale.astype(_F32)), _tensor(zero_point)

    def reset_min_max_vals(self):
        raise NotImplementedError("Cannot reset min/max values in the given observer.")


_ObserverBase = UniformQuantizationObserverBase


def _channel_rows(x, ch_axis: int):
    """``x`` with ``ch_axis`` first, flattened to (channels, rest)."""
    axes = list(range(x.dim()))
    axes[ch_axis], axes[0] = 0, ch_axis
    return ember.flatten(x.permute(axes), start_dim=1)


def _inf_buffers(module):
    module.register_buffer("min_val", ember.tensor(float("inf")))
    module.register_buffer("max_val", ember.tensor(float("-inf")))


class MinMaxObserver(UniformQuantizationObserverBase):
    """Records the running minimum and maximum of its inputs; the quantization parameters
    follow from them (per tensor).

    Example:
        >>> obs = ember.ao.quantization.MinMaxObserver()
        >>> _ = obs(ember.tensor([-1.0, 2.0]))
        >>> obs.calculate_qparams()[1]
        tensor([85], dtype=ember.int32)
    """

    def __init__(
        self,
        dtype=None,
        qscheme=None,
        reduce_range=False,
        quant_min=None,
        quant_max=None,
        factory_kwargs=None,
        eps=_EPS,
        is_dynamic=False,
        **kwargs,
    ) -> None:
        qscheme = ember.per_tensor_affine if qscheme is None else qscheme
        _check_per_tensor(type(self).__name__, qscheme)
        super().__init__(
            dtype=dtype,
            qscheme=qscheme,
            reduce_range=reduce_range,
            quant_min=quant_min,
            quant_max=quant_max,
            factory_kwargs=factory_kwargs,
            eps=eps,
            is_dynamic=is_dynamic,
            **kwargs,
        )
        _inf_buffers(self)
        if qscheme == ember.per_tensor_symmetric and reduce_range and self.dtype == ember.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for quint8")

    def forward(self, x_orig):
        """Records the running minimum and maximum of ``x``."""
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        lo, hi = self._running_range(*ember.aminmax(x))
        with ember.no_grad():
            self.min_val.copy_(lo)
            self.max_val.copy_(hi)
        return x_orig

    def _running_range(self, lo, hi):
        """The running (min, max) after a batch whose range is ``[lo, hi]`` (the buffers start
        at +-inf, so the first batch's range wins)."""
        return ember.minimum(lo, self.min_val), ember.maximum(hi, self.max_val)

    def calculate_qparams(self):
        """The scale and zero point of the range seen so far."""
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def reset_min_max_vals(self):
        """Forgets the range seen so far."""
        with ember.no_grad():
            self.min_val.fill_(float("inf"))
            self.max_val.fill_(float("-inf"))


def _moving_average(old, cur, c):
    # float32 throughout: ``old + c * (cur - old)`` with ``c`` rounded to float32, as torch's
    # tensor expression computes it
    old, cur = _array(old).astype(_F32), _array(cur).astype(_F32)
    return _tensor((old + _F32(c) * (cur - old)).astype(_F32))


class MovingAverageMinMaxObserver(MinMaxObserver):
    """Like ``MinMaxObserver``, with the running min and max moving averages of each input's
    (``x_min = x_min + c * (min(X) - x_min)``, ``c`` the ``averaging_constant``).

    Example:
        >>> obs = ember.ao.quantization.MovingAverageMinMaxObserver(averaging_constant=0.5)
        >>> _ = obs(ember.tensor([0.0, 2.0])); _ = obs(ember.tensor([0.0, 4.0]))
        >>> float(obs.max_val)
        3.0
    """

    def __init__(
        self,
        averaging_constant=0.01,
        dtype=None,
        qscheme=None,
        reduce_range=False,
        quant_min=None,
        quant_max=None,
        eps=_EPS,
        is_dynamic=False,
        **kwargs,
    ) -> None:
        qscheme = ember.per_tensor_affine if qscheme is None else qscheme
        if not _is_per_tensor(qscheme):
            raise NotImplementedError(
                "MovingAverageMinMaxObserver's qscheme only support torch.per_tensor_symmetric "
                f"and torch.per_tensor_affine. but got: {qscheme}"
            )
        self.averaging_constant = averaging_constant
        if is_dynamic and averaging_constant != 1:
            raise NotImplementedError(
                "MovingAverageMinMaxObserver doesn't support dynamic quantization for averaging "
                f"constant of {averaging_constant}"
            )
        super().__init__(
            dtype=dtype,
            qscheme=qscheme,
            reduce_range=reduce_range,
            quant_min=quant_min,
            quant_max=quant_max,
            eps=eps,
            is_dynamic=is_dynamic,
            **kwargs,
        )

    def _running_range(self, lo, hi):
        # ``forward`` is MinMaxObserver's; only the update rule differs
        if float(self.min_val) == float("inf") and float(self.max_val) == float("-inf"):
            return lo, hi
        return (
            _moving_average(self.min_val, lo, self.averaging_constant),
            _moving_average(self.max_val, hi, self.averaging_constant),
        )


class PerChannelMinMaxObserver(UniformQuantizationObserverBase):
    """Records the running minimum and maximum of each channel (along ``ch_axis``); the scales
    and zero points are per channel.

    Example:
        >>> obs = ember.ao.quantization.PerChannelMinMaxObserver(ch_axis=0)
        >>> _ = obs(ember.tensor([[-1.0, 1.0], [0.0, 2.0]]))
        >>> obs.max_val
        tensor([1., 2.])
    """

    def __init__(
        self,
        ch_axis=0,
        dtype=None,
        qscheme=None,
        reduce_range=False,
        quant_min=None,
        quant_max=None,
        factory_kwargs=None,
        eps=_EPS,
        is_dynamic=False,
        **kwargs,
    ) -> None:
        qscheme = ember.per_channel_affine if qscheme is None else qscheme
        if not _is_per_channel(qscheme):
            raise NotImplementedError(
                f"{type(self).__name__}'s qscheme only support torch.per_channel_symmetric, "
                "torch.per_channel_affine and torch.per_channel_affine_float_qparams, got "
                f"{qscheme}"
            )
        if is_dynamic:
            raise NotImplementedError(f"{type(self).__name__} doesn't support dynamic quantization")
        super().__init__(
            dtype=dtype,
            qscheme=qscheme,
            reduce_range=reduce_range,
            quant_min=quant_min,
            quant_max=quant_max,
            factory_kwargs=factory_kwargs,
            eps=eps,
            is_dynamic=is_dynamic,
            **kwargs,
        )
        self.ch_axis = ch_axis
        self.register_buffer("min_val", ember.tensor([]))
        self.register_buffer("max_val", ember.tensor([]))
        if qscheme == ember.per_channel_symmetric and reduce_range and self.dtype == ember.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for quint8")

    def _rows(self, x_orig):
        """The input with ``ch_axis`` first, flattened to (channels, rest), in the buffers'
        dtype."""
        return _channel_rows(x_orig.detach(), self.ch_axis).to(self.min_val.dtype)

    def _store(self, lo, hi):
        self.min_val = lo.detach().clone()
        self.max_val = hi.detach().clone()

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        lo, hi = ember.aminmax(self._rows(x_orig), dim=1)
        if self.min_val.numel() and self.max_val.numel():
            lo, hi = self._running_range(lo, hi)
        self._store(lo, hi)
        return x_orig

    def _running_range(self, lo, hi):
        """The running per channel (min, max) after a batch whose ranges are ``lo``/``hi``
        (called once there are running values: the buffers start empty)."""
        return ember.minimum(lo, self.min_val), ember.maximum(hi, self.max_val)

    def calculate_qparams(self):
        """Per channel scales and zero points of the ranges seen so far."""
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, *args):
        version = local_metadata.get("version")
        names = ("min_vals", "max_vals") if version is not None and version < 3 else None
        if names is not None:
            # version < 3 named the buffers min_vals/max_vals
            for old, new in zip(names, ("min_val", "max_val"), strict=True):
                if prefix + old in state_dict:
                    state_dict[prefix + new] = state_dict.pop(prefix + old)
        for name in ("min_val", "max_val"):
            key = prefix + name
            if key in state_dict:
                # the buffers take the saved shape (empty until the observer has run)
                setattr(self, name, ember.empty(state_dict[key].shape))
            elif strict:
                missing.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing, *args)

    def reset_min_max_vals(self):
        """Forgets the ranges seen so far."""
        self.min_val = ember.tensor([])
        self.max_val = ember.tensor([])


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    """``PerChannelMinMaxObserver`` with moving averages of each channel's min and max."""

    def __init__(
        self,
        averaging_constant=0.01,
        ch_axis=0,
        dtype=None,
        qscheme=None,
        reduce_range=False,
        quant_min=None,
        quant_max=None,
        eps=_EPS,
        is_dynamic=False,
        **kwargs,
    ) -> None:
        super().__init__(
            ch_axis=ch_axis,
            dtype=dtype,
            qscheme=qscheme,
            reduce_range=reduce_range,
            quant_min=quant_min,
            quant_max=quant_max,
            eps=eps,
            is_dynamic=is_dynamic,
            **kwargs,
        )
        self.averaging_constant = averaging_constant

    def _running_range(self, lo, hi):
        # ``forward`` is PerChannelMinMaxObserver's; only the update rule differs
        return (
            _moving_average(self.min_val, lo, self.averaging_constant),
            _moving_average(self.max_val, hi, self.averaging_constant),
        )


# ---- histogram ----------------------------------------------------------------------------------
def _linspace32(start, end, steps: int):
    """torch's float32 ``linspace``: the first half counted up from ``start``, the second down
    from ``end``, each point one fused multiply-add (emulated in float64, then rounded)."""
    start, end = _F32(start), _F32(end)
    step = (end - start) / _F32(steps - 1)
    i = _xp.arange(steps)
    up = (float(start) + float(step) * i).astype(_F32)
    down = (float(end) - float(step) * (steps - 1 - i)).astype(_F32)
    return _xp.where(i < steps // 2, up, down).astype(_F32)


def _histc32(x, bins: int, lo, hi):
    """torch's ``histc`` in float32: the bin of x is ``int((x - lo) * bins / (hi - lo))``, the
    maximum in the last bin, values outside ``[lo, hi]`` dropped."""
    x = x.astype(_F32).reshape(-1)
    lo, hi = _F32(lo), _F32(hi)
    if lo == hi:
        lo, hi = lo - _F32(1), hi + _F32(1)
    x = x[(x >= lo) & (x <= hi)]
    pos = ((x - lo) * _F32(bins) / (hi - lo)).astype(_xp.int64)
    pos[pos == bins] = bins - 1
    return _xp.bincount(pos, minlength=bins).astype(_F32)


class HistogramObserver(UniformQuantizationObserverBase):
    """Records a running histogram of its inputs (``bins`` bins over the range seen so far);
    ``calculate_qparams`` picks the sub-range that minimizes the L2 quantization error (torch's
    non-linear search) and quantizes it as ``MinMaxObserver`` would.

    Example:
        >>> obs = ember.ao.quantization.HistogramObserver(bins=64)
        >>> _ = obs(ember.linspace(-1.0, 1.0, 100))
        >>> obs.histogram.shape
        ember.Size([64])
    """

    def __init__(
        self,
        bins: int = 2048,
        dtype=None,
        qscheme=None,
        reduce_range=False,
        quant_min=None,
        quant_max=None,
        factory_kwargs=None,
        eps=_EPS,
        is_dynamic=False,
        **kwargs,
    ) -> None:
        qscheme = ember.per_tensor_affine if qscheme is None else qscheme
        _check_per_tensor("HistogramObserver", qscheme)
        if is_dynamic:
            raise NotImplementedError("HistogramObserver doesn't support dynamic quantization")
        super().__init__(
            dtype=dtype,
            qscheme=qscheme,
            reduce_range=reduce_range,
            quant_min=quant_min,
            quant_max=quant_max,
            factory_kwargs=factory_kwargs,
            eps=eps,
            is_dynamic=is_dynamic,
            **kwargs,
        )
        self.bins = bins
        self.register_buffer("histogram", ember.zeros(bins))
        _inf_buffers(self)
        self.dst_nbins = 2 ** _iinfo(self.dtype)[2]
        self.upsample_rate = 16  # upscaling an old histogram spreads each bin over 16 sub-bins

    # -- the search ------------------------------------------------------------------------------
    @staticmethod
    def _get_norm(delta_begin, delta_end, density):
        # L2 norm of values spread uniformly over [begin, end]: density * (end^3 - begin^3) / 3
        norm = (delta_end * delta_end * delta_end - delta_begin * delta_begin * delta_begin) / _F32(
            3
        )
        return density * norm

    def _compute_quantization_error(self, next_start_bin: int, next_end_bin: int):
        """The L2 error of quantizing the histogram with bins ``next_start_bin`` to
        ``next_end_bin`` as the range."""
        hist = _array(self.histogram).astype(_F32)
        bin_width = (float(self.max_val) - float(self.min_val)) / self.bins  # float64, as .item()
        dst_bin_width = bin_width * (next_end_bin - next_start_bin + 1) / self.dst_nbins
        if dst_bin_width == 0.0:
            return 0.0
        bw, dbw = _F32(bin_width), _F32(dst_bin_width)
        src_begin = (_xp.arange(self.bins) - next_start_bin).astype(_F32) * bw
        src_end = src_begin + bw
        last = _F32(self.dst_nbins - 1)
        dst_of_begin = _xp.clip(_xp.floor_divide(src_begin, dbw), _F32(0), last)
        dst_of_begin_center = (dst_of_begin + _F32(0.5)) * dbw
        dst_of_end = _xp.clip(_xp.floor_divide(src_end, dbw), _F32(0), last)
        density = hist / bw
        half = _F32(dst_bin_width / 2)
        norm = _xp.zeros(self.bins, dtype=_F32)
        norm = norm + self._get_norm(
            src_begin - dst_of_begin_center, _xp.full_like(norm, half), density
        )
        norm = norm + (dst_of_end - dst_of_begin - _F32(1)) * self._get_norm(
            _F32(-dst_bin_width / 2), half, density
        )
        dst_of_end_center = dst_of_end * dbw + half
        norm = norm + self._get_norm(_F32(-dst_bin_width / 2), src_end - dst_of_end_center, density)
        return float(norm.astype(_F32).sum(dtype=_F32))

    def _non_linear_param_search(self):
        """The sub-range of the histogram with the least quantization error: the range shrinks
        from the side with less mass, by ``1e-5`` of the total at a time, while the error
        falls (caffe2's NormMinimization search)."""
        if self.histogram.size()[0] != self.bins:
            raise AssertionError("bins mismatch")
        lo, hi = _array(self.min_val).astype(_F32), _array(self.max_val).astype(_F32)
        bin_width = (hi - lo) / _F32(self.bins)
        hist = _array(self.histogram).astype(_F32)
        total = float(hist.sum(dtype=_F32))
        csum = _xp.cumsum(hist, dtype=_F32)
        stepsize = 1e-5
        alpha, beta = 0.0, 1.0
        start_bin, end_bin = 0, self.bins - 1
        norm_min = float("inf")
        while alpha < beta:
            next_alpha, next_beta = alpha + stepsize, beta - stepsize
            left, right = start_bin, end_bin
            # the comparisons are float32's (the Python bound meets a float32 tensor)
            a_bound, b_bound = _F32(next_alpha * total), _F32(next_beta * total)
            while left < end_bin and csum[left] < a_bound:
                left += 1
            while right > start_bin and csum[right] > b_bound:
                right -= 1
            next_start_bin, next_end_bin = start_bin, end_bin
            if (left - start_bin) > (end_bin - right):
                next_start_bin, alpha = left, next_alpha
            else:
                next_end_bin, beta = right, next_beta
            if next_start_bin == start_bin and next_end_bin == end_bin:
                continue
            norm = self._compute_quantization_error(next_start_bin, next_end_bin)
            if norm > norm_min:
                break
            norm_min = norm
            start_bin, end_bin = next_start_bin, next_end_bin
        new_min = lo + bin_width * _F32(start_bin)
        new_max = lo + bin_width * _F32(end_bin + 1)
        return _tensor(_xp.asarray(new_min, dtype=_F32)), _tensor(_xp.asarray(new_max, dtype=_F32))

    # -- recording -------------------------------------------------------------------------------
    def _upscale_histogram(self, histogram, orig_min, orig_max, update_min, update_max):
        """The old histogram re-binned onto the new range: each bin split into
        ``upsample_rate`` equal parts, each part moved whole to the new bin of its midpoint."""
        n = self.bins * self.upsample_rate
        hist = _xp.repeat(histogram, self.upsample_rate) / _F32(self.upsample_rate)
        bin_size = (orig_max - orig_min) / _F32(n)
        mids = _linspace32(orig_min, orig_max, n + 1)[:-1] + _F32(0.5) * bin_size
        edges = _linspace32(update_min, update_max, self.bins + 1)
        buckets = _xp.searchsorted(edges, mids, side="right") - 1
        buckets = _xp.clip(buckets, 0, self.bins - 1)
        return _xp.bincount(buckets, weights=hist, minlength=self.bins).astype(_F32)

    def _combine_histograms(
        self, orig_hist, orig_min, orig_max, update_hist, update_min, update_max
    ):
        if update_min == orig_min and update_max == orig_max:
            return orig_hist + update_hist
        if orig_min == orig_max:
            bin_value = orig_hist.sum(dtype=_F32)
            moved = _histc32(_xp.asarray([orig_min]), self.bins, update_min, update_max)
            return moved * bin_value + update_hist
        if update_min > orig_min:
            raise AssertionError("update_min must be <= orig_min")
        if update_max < orig_max:
            raise AssertionError("update_max must be >= orig_max")
        moved = self._upscale_histogram(orig_hist, orig_min, orig_max, update_min, update_max)
        return update_hist + moved

    def reset_histogram(self, x, min_val, max_val) -> None:
        with ember.no_grad():
            self.min_val.copy_(min_val)
            self.max_val.copy_(max_val)
        hist = _histc32(_array(x), self.bins, _F32(float(min_val)), _F32(float(max_val)))
        self.histogram = _tensor(hist)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()
        x_min, x_max = ember.aminmax(x)
        if float(x_min) == float("-inf") or float(x_max) == float("inf"):
            warnings.warn("torch.inf detected in input tensor, ignoring input", stacklevel=2)
            x = x[x.abs() != float("inf")]
            if x.numel() == 0:
                return x_orig
            x_min, x_max = ember.aminmax(x)
        cur_min, cur_max = float(self.min_val), float(self.max_val)
        if cur_min == float("inf") or cur_max == float("-inf"):
            self.reset_histogram(x, x_min, x_max)
            return x_orig
        new_min = _F32(min(cur_min, float(x_min)))
        new_max = _F32(max(cur_max, float(x_max)))
        update = _histc32(_array(x), self.bins, new_min, new_max)
        hist = _array(self.histogram).astype(_F32)
        if new_min == _F32(cur_min) and new_max == _F32(cur_max):
            combined = hist + update
        else:
            combined = self._combine_histograms(
                hist, _F32(cur_min), _F32(cur_max), update, new_min, new_max
            )
            with ember.no_grad():
                self.min_val.fill_(float(new_min))
                self.max_val.fill_(float(new_max))
        self.histogram = _tensor(combined.astype(_F32))
        return x_orig

    def calculate_qparams(self):
        if float(self.min_val) == float("inf") and float(self.max_val) == float("-inf"):
            warnings.warn(
                "must run observer before calling calculate_qparams. Returning default scale "
                "and zero point ",
                stacklevel=2,
            )
            return ember.tensor([1.0]), ember.tensor([0])
        if self.bins != len(self.histogram):
            raise AssertionError(
                "The number of bins in histogram should be equal to the number of bins supplied "
                "while making this observer"
            )
        new_min, new_max = self._non_linear_param_search()
        return self._calculate_qparams(new_min, new_max)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"


# ---- observers that observe nothing -------------------------------------------------------------
class FixedQParamsObserver(ObserverBase):
    """Fixed quantization parameters (for ops with a known output range: sigmoid, tanh)."""

    def __init__(
        self,
        scale,
        zero_point,
        dtype=None,
        qscheme=None,
        quant_min=0,
        quant_max=255,
        is_dynamic=False,
        **kwargs,
    ):
        if is_dynamic:
            raise NotImplementedError("FixedQParamsObserver doesn't support dynamic quantization")
        dtype = ember.quint8 if dtype is None else dtype
        super().__init__(dtype=dtype, is_dynamic=is_dynamic, **kwargs)
        self.quant_min = quant_min
        self.quant_max = quant_max
        self.register_buffer("scale", ember.tensor([scale], dtype=ember.float32))
        self.register_buffer("zero_point", ember.tensor([zero_point], dtype=ember.int32))
        self.qscheme = ember.per_tensor_affine if qscheme is None else qscheme

    def forward(self, X):
        return X

    def calculate_qparams(self):
        return self.scale, self.zero_point


class PlaceholderObserver(ObserverBase):
    """Observes nothing; carries its dtype (float16, or a dynamic quint8) to ``from_float``."""

    def __init__(
        self,
        dtype=None,
        custom_op_name="",
        compute_dtype=None,
        quant_min=None,
        quant_max=None,
        qscheme=None,
        eps=None,
        is_dynamic=False,
    ) -> None:
        dtype = ember.float32 if dtype is None else dtype
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        self.qscheme = ember.per_tensor_affine if qscheme is None else qscheme
        self.quant_min = quant_min
        self.quant_max = quant_max
        self.eps = _EPS if eps is None else eps
        self.custom_op = custom_op_name
        if compute_dtype:
            warnings.warn(
                "Please use `is_dynamic` instead of `compute_dtype`. `compute_dtype` will be "
                "deprecated in a future release of PyTorch.",
                stacklevel=2,
            )

    def forward(self, x):
        return x

    def extra_repr(self):
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for PlaceholderObserver")  # noqa: TRY002


class RecordingObserver(ObserverBase):
    """Keeps every tensor it sees (debugging)."""

    def __init__(self, dtype=None):
        super().__init__(dtype=ember.quint8 if dtype is None else dtype, is_dynamic=False)
        self.tensor_val = []

    def forward(self, x):
        self.tensor_val.append(x.clone())
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for RecordingObserver")  # noqa: TRY002

    def get_tensor_value(self):
        return self.tensor_val


class NoopObserver(ObserverBase):
    """Observes nothing (float16 quantization needs no range)."""

    def __init__(self, dtype=None, custom_op_name="") -> None:
        super().__init__(dtype=ember.float16 if dtype is None else dtype, is_dynamic=False)
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for NoopObserver")  # noqa: TRY002


class ReuseInputObserver(ObserverBase):
    """Reuses the observer of the op's input (FX graph mode only)."""

    def __init__(self) -> None:
        super().__init__(ember.quint8, is_dynamic=False)

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for ReuseInputObserver")  # noqa: TRY002


def _is_activation_post_process(module) -> bool:
    from ember.ao.quantization.fake_quantize import FakeQuantizeBase

    return isinstance(module, (ObserverBase, FakeQuantizeBase))


def get_observer_state_dict(mod):
    """The observers' (and fake quantizers') entries of ``mod.state_dict()``."""
    from collections import OrderedDict

    return OrderedDict(
        (k, v)
        for k, v in mod.state_dict().items()
        if "activation_post_process" in k or "observer" in k
    )


def load_observer_state_dict(mod, obs_dict):
    """Loads ``get_observer_state_dict`` output back into the observers of ``mod``."""
    missing = []
    for name, module in mod.named_modules():
        prefix = name + "." if name else ""
        if _is_activation_post_process(module):
            module._load_from_state_dict(obs_dict, prefix, {}, False, missing, [], [])
    for k in missing:
        if "observer" in k or "activation_post_process" in k:
            raise Exception(f"Missing keys for observer {k} in state_dict")  # noqa: TRY002


# ---- defaults -----------------------------------------------------------------------------------
default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_placeholder_observer = PlaceholderObserver
default_debug_observer = RecordingObserver
default_weight_observer = MinMaxObserver.with_args(
    dtype=ember.qint8, qscheme=ember.per_tensor_symmetric
)
weight_observer_range_neg_127_to_127 = MinMaxObserver.with_args(
    dtype=ember.qint8, qscheme=ember.per_tensor_symmetric, quant_min=-127, quant_max=127, eps=2**-12
)
default_histogram_observer = HistogramObserver.with_args(quant_min=0, quant_max=127)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(
    dtype=ember.qint8, qscheme=ember.per_channel_symmetric
)
per_channel_weight_observer_range_neg_127_to_127 = PerChannelMinMaxObserver.with_args(
    dtype=ember.qint8,
    qscheme=ember.per_channel_symmetric,
    quant_min=-127,
    quant_max=127,
    eps=2**-12,
)
default_dynamic_quant_observer = PlaceholderObserver.with_args(
    dtype=ember.quint8, quant_min=0, quant_max=255, is_dynamic=True
)
default_float_qparams_observer = PerChannelMinMaxObserver.with_args(
    dtype=ember.quint8, qscheme=ember.per_channel_affine_float_qparams, ch_axis=0
)
default_float_qparams_observer_4bit = PerChannelMinMaxObserver.with_args(
    dtype=ember.quint4x2, qscheme=ember.per_channel_affine_float_qparams, ch_axis=0
)
default_fixed_qparams_range_neg1to1_observer = FixedQParamsObserver.with_args(
    scale=2.0 / 256.0, zero_point=128, dtype=ember.quint8, quant_min=0, quant_max=255
)
default_fixed_qparams_range_0to1_observer = FixedQParamsObserver.with_args(
    scale=1.0 / 256.0, zero_point=0, dtype=ember.quint8, quant_min=0, quant_max=255
)
default_symmetric_fixed_qparams_observer = default_fixed_qparams_range_neg1to1_observer
default_affine_fixed_qparams_observer = default_fixed_qparams_range_0to1_observer
default_reuse_input_observer = ReuseInputObserver
