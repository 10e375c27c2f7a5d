"""Fake quantizers for quantization-aware training: an observer plus a quantize-dequantize step
in float (``ember.fake_quantize_per_tensor_affine``/``_per_channel_affine``), whose gradient
passes straight through inside the quantized range.

``FusedMovingAvgObsFakeQuantize`` is torch's fused kernel (``fused_moving_avg_obs_fake_quant``)
written out: the moving-average min/max update in float64 per element, and the scale and zero
point from ``ChooseQuantizationParams`` (not the observer's ``calculate_qparams``: torch's fused
kernel computes them its own way, and so does this).
"""

from __future__ import annotations

import math

import ember
from ember import nn
from ember.ao.quantization.observer import (
    FixedQParamsObserver,
    HistogramObserver,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    _channel_rows,
    _iinfo,
    _is_per_channel,
    _is_per_tensor,
    _is_symmetric,
    _with_args,
    default_fixed_qparams_range_0to1_observer,
    default_fixed_qparams_range_neg1to1_observer,
)
from ember.backend import cpu as _xp

__all__ = [
    "FakeQuantize",
    "FakeQuantizeBase",
    "FixedQParamsFakeQuantize",
    "FusedMovingAvgObsFakeQuantize",
    "default_affine_fixed_qparams_fake_quant",
    "default_dynamic_fake_quant",
    "default_embedding_fake_quant",
    "default_embedding_fake_quant_4bit",
    "default_fake_quant",
    "default_fixed_qparams_range_0to1_fake_quant",
    "default_fixed_qparams_range_neg1to1_fake_quant",
    "default_fused_act_fake_quant",
    "default_fused_per_channel_wt_fake_quant",
    "default_fused_wt_fake_quant",
    "default_histogram_fake_quant",
    "default_per_channel_weight_fake_quant",
    "default_symmetric_fixed_qparams_fake_quant",
    "default_weight_fake_quant",
    "disable_fake_quant",
    "disable_observer",
    "enable_fake_quant",
    "enable_observer",
    "fused_per_channel_wt_fake_quant_range_neg_127_to_127",
    "fused_wt_fake_quant_range_neg_127_to_127",
]


class FakeQuantizeBase(nn.Module):
    """Base of the fake quantizers: two switch buffers, ``fake_quant_enabled`` and
    ``observer_enabled`` (uint8, as torch's)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("fake_quant_enabled", ember.tensor([1], dtype=ember.uint8))
        self.register_buffer("observer_enabled", ember.tensor([1], dtype=ember.uint8))

    def forward(self, x):
        raise NotImplementedError(f"{type(self).__name__} must implement forward")

    def calculate_qparams(self, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement calculate_qparams")

    def enable_fake_quant(self, enabled: bool = True) -> None:
        self.fake_quant_enabled[0] = 1 if enabled else 0

    def disable_fake_quant(self):
        self.enable_fake_quant(False)

    def enable_observer(self, enabled: bool = True) -> None:
        self.observer_enabled[0] = 1 if enabled else 0

    def disable_observer(self):
        self.enable_observer(False)

    @classmethod
    def with_args(cls, **kwargs):
        return _with_args(cls, **kwargs)


class FakeQuantize(FakeQuantizeBase):
    """Observes its input (while ``observer_enabled``) and fake-quantizes it with the observer's
    current scale and zero point (while ``fake_quant_enabled``).

    Args:
        observer: the observer constructor (default ``MovingAverageMinMaxObserver``).
        quant_min, quant_max: the integer range (passed on to the observer).
        **observer_kwargs: the observer's other arguments.

    Example:
        >>> fq = ember.ao.quantization.FakeQuantize(quant_min=0, quant_max=255)
        >>> fq(ember.tensor([0.0, 0.5, 1.0]))
        tensor([0.0000, 0.4980, 1.0000])
    """

    def __init__(
        self,
        observer=MovingAverageMinMaxObserver,
        quant_min=None,
        quant_max=None,
        is_dynamic=False,
        **observer_kwargs,
    ):
        super().__init__()
        if quant_min is not None and quant_max is not None:
            if quant_min > quant_max:
                raise AssertionError("quant_min must be less than or equal to quant_max")
            dtype = observer_kwargs.get("dtype", ember.quint8)
            if hasattr(observer, "p"):
                dtype = getattr(getattr(observer, "p", {}), "keywords", {}).get("dtype", dtype)
            lo, hi, _ = _iinfo(dtype)
            if lo > quant_min:
                raise AssertionError("quant_min out of bound")
            if quant_max > hi:
                raise AssertionError("quant_max out of bound")
            observer_kwargs.update({"quant_min": quant_min, "quant_max": quant_max})
        observer_kwargs["is_dynamic"] = is_dynamic
        self.activation_post_process = observer(**observer_kwargs)
        self.quant_min = self.activation_post_process.quant_min
        self.quant_max = self.activation_post_process.quant_max
        self.is_dynamic = self.activation_post_process.is_dynamic
        float_zp = self.activation_post_process.qscheme == ember.per_channel_affine_float_qparams
        self.register_buffer("scale", ember.tensor([1.0], dtype=ember.float32))
        self.register_buffer(
            "zero_point", ember.tensor([0], dtype=ember.float32 if float_zp else ember.int32)
        )
        self.dtype = self.activation_post_process.dtype
        self.qscheme = self.activation_post_process.qscheme
        self.ch_axis = getattr(self.activation_post_process, "ch_axis", -1)
        if not (_is_per_channel(self.qscheme) or _is_per_tensor(self.qscheme)):
            raise AssertionError(
                "Only per channel and per tensor quantization are supported in fake quantize got "
                f"qscheme: {self.qscheme}"
            )
        self.is_per_channel = _is_per_channel(self.qscheme)

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def _set_qparams(self, scale, zero_point):
        # NOTE: matches torch: the buffers keep their dtypes (copy_ casts the observer's int64
        # symmetric zero point to int32) and take the observer's shapes
        self.scale = scale.detach().to(self.scale.dtype).clone()
        self.zero_point = zero_point.detach().to(self.zero_point.dtype).clone()

    def _fake_quantize(self, X):
        if self.is_per_channel:
            return ember.fake_quantize_per_channel_affine(
                X, self.scale, self.zero_point, self.ch_axis, self.quant_min, self.quant_max
            )
        return ember.fake_quantize_per_tensor_affine(
            X, self.scale, self.zero_point, self.quant_min, self.quant_max
        )

    def forward(self, X):
        if int(self.observer_enabled[0]) == 1:
            self.activation_post_process(X.detach())
            self._set_qparams(*self.calculate_qparams())
        if int(self.fake_quant_enabled[0]) == 1:
            X = self._fake_quantize(X)
        return X

    def extra_repr(self):
        return (
            f"fake_quant_enabled={self.fake_quant_enabled}, "
            f"observer_enabled={self.observer_enabled}, quant_min={self.quant_min}, "
            f"quant_max={self.quant_max}, dtype={self.dtype}, qscheme={self.qscheme}, "
            f"ch_axis={self.ch_axis}, scale={self.scale}, zero_point={self.zero_point}"
        )

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, *args):
        for name in ("scale", "zero_point"):
            key = prefix + name
            if key in state_dict:
                # the buffers take the saved shapes (per channel: one value per channel)
                setattr(
                    self, name, ember.empty(state_dict[key].shape, dtype=getattr(self, name).dtype)
                )
            elif strict:
                missing.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, *args)


class FixedQParamsFakeQuantize(FakeQuantize):
    """Fake quantization with fixed parameters (a ``FixedQParamsObserver``'s)."""

    def __init__(self, observer):
        super().__init__(observer=observer)
        if type(self.activation_post_process) is not FixedQParamsObserver:
            raise AssertionError(f"{type(self).__name__}'s observer must be a FixedQParamsObserver")
        self._observer_ctr = observer
        self.scale = self.activation_post_process.scale
        self.zero_point = self.activation_post_process.zero_point
        if not _is_per_tensor(self.qscheme):
            raise AssertionError(
                "Only per tensor quantization is supported FixedQParamsFakeQuantize module, got "
                f"qscheme:{self.qscheme}"
            )

    def calculate_qparams(self):
        return self.scale, self.zero_point


# ---- the fused observer + fake quantize kernel -------------------------------------------------
_SMALL_SCALE = 6.1e-5


def _choose_qparams(mn: float, mx: float, qmin: int, qmax: int, symmetric: bool):
    """torch's C++ ``ChooseQuantizationParams`` (what the fused kernel uses): float32 range,
    float64 intermediates, a float32 scale and the nudged integer zero point."""
    f32 = _xp.float32
    mn, mx = float(f32(min(mn, 0.0))), float(f32(max(mx, 0.0)))
    if symmetric and mn < 0 and mx > 0:
        sym_min = -((qmax - qmin) // 2 + 1)
        sym_max = (qmax - qmin) // 2
        max_scale = max(abs(mn / sym_min), abs(mx / sym_max))
        mn, mx = float(f32(max_scale * sym_min)), float(f32(max_scale * sym_max))
    scale = (mx - mn) / (qmax - qmin)
    if float(f32(scale)) == 0.0 or math.isinf(float(f32(1.0) / f32(scale))):
        scale = 0.1
    if scale < _SMALL_SCALE:
        org = scale
        scale = _SMALL_SCALE
        # widen the range to fit the smallest scale
        if mn == 0.0:
            mx = float(f32(_SMALL_SCALE * (qmax - qmin)))
        elif mx == 0.0:
            mn = float(f32(-_SMALL_SCALE * (qmax - qmin)))
        else:
            amp = float(f32(_SMALL_SCALE / org))
            mn, mx = float(f32(mn * amp)), float(f32(mx * amp))
    scale32 = float(f32(scale))
    zp_min = qmin - mn / scale32
    zp_max = qmax - mx / scale32
    err_min = abs(qmin) - abs(mn / scale32)
    err_max = abs(qmax) - abs(mx / scale32)
    initial = zp_min if err_min < err_max else zp_max
    if symmetric and mn < 0 and mx > 0:
        initial = (qmin + qmax) / 2
    if initial < qmin:
        zp = qmin
    elif initial > qmax:
        zp = qmax
    else:
        zp = int(_xp.rint(initial))
    return scale32, zp


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    """``FakeQuantize`` with a moving-average min/max observer, in one step as torch's fused
    kernel computes it (the QAT default since torch 1.10).

    Example:
        >>> fq = ember.ao.quantization.FusedMovingAvgObsFakeQuantize()
        >>> fq(ember.tensor([0.0, 1.0])).shape
        ember.Size([2])
    """

    def __init__(
        self,
        observer=MovingAverageMinMaxObserver,
        quant_min: int = 0,
        quant_max: int = 255,
        **observer_kwargs,
    ) -> None:
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)
        if not isinstance(
            self.activation_post_process,
            (MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver),
        ):
            raise AssertionError(
                "Fused observer+fake_quant module only works with MovingAverageMinMaxObserver"
            )
        self.register_buffer("fake_quant_enabled", ember.tensor([1], dtype=ember.long))
        self.register_buffer("observer_enabled", ember.tensor([1], dtype=ember.long))
        self.is_symmetric_quant = _is_symmetric(self.activation_post_process.qscheme)

    def extra_repr(self) -> str:
        return (
            f"fake_quant_enabled={self.fake_quant_enabled}, "
            f"observer_enabled={self.observer_enabled}, scale={self.scale}, "
            f"zero_point={self.zero_point}, dtype={self.dtype}, quant_min={self.quant_min}, "
            f"quant_max={self.quant_max}, qscheme={self.qscheme}, "
            f"reduce_range={self.activation_post_process.reduce_range}"
        )

    def forward(self, X):
        obs = self.activation_post_process
        c = obs.averaging_constant
        qmin, qmax = obs.quant_min, obs.quant_max
        if self.is_per_channel:
            rows = _channel_rows(X.detach(), self.ch_axis)
            n = rows.shape[0]
            if obs.min_val.numel() != n:
                obs.min_val = ember.full((n,), float("inf"))
                obs.max_val = ember.full((n,), float("-inf"))
        if int(self.observer_enabled[0]):
            if self.is_per_channel:
                lo, hi = (t.numpy() for t in ember.aminmax(rows, dim=1))
            else:
                lo, hi = (t.numpy().reshape(1) for t in ember.aminmax(X.detach()))
            run_lo = obs.min_val.numpy().reshape(-1).astype("float64")
            run_hi = obs.max_val.numpy().reshape(-1).astype("float64")
            # the C++ loop: a float running value plus a double constant times a float
            # difference, in double, stored back as float
            new_lo = _xp.where(_xp.isinf(run_lo), lo, run_lo + c * (lo - run_lo))
            new_hi = _xp.where(_xp.isinf(run_hi), hi, run_hi + c * (hi - run_hi))
            shape = obs.min_val.shape
            obs.min_val = ember.from_numpy(new_lo.astype("float32").reshape(shape))
            obs.max_val = ember.from_numpy(new_hi.astype("float32").reshape(shape))
            lo32 = obs.min_val.numpy().reshape(-1)
            hi32 = obs.max_val.numpy().reshape(-1)
            qp = [
                _choose_qparams(float(a), float(b), qmin, qmax, self.is_symmetric_quant)
                for a, b in zip(lo32, hi32, strict=True)
            ]
            self.scale = ember.tensor([s for s, _ in qp], dtype=ember.float32)
            self.zero_point = ember.tensor([z for _, z in qp], dtype=ember.int32)
        if int(self.fake_quant_enabled[0]):
            return self._fake_quantize(X)
        return X.clone()


def _fake_quant_module(mod) -> bool:
    return isinstance(mod, FakeQuantizeBase)


def disable_fake_quant(mod):
    """``model.apply(disable_fake_quant)``: stop fake-quantizing (observers may still run)."""
    if _fake_quant_module(mod):
        mod.disable_fake_quant()


def enable_fake_quant(mod):
    """``model.apply(enable_fake_quant)``: fake-quantize again."""
    if _fake_quant_module(mod):
        mod.enable_fake_quant()


def disable_observer(mod):
    """``model.apply(disable_observer)``: freeze the quantization parameters."""
    if _fake_quant_module(mod):
        mod.disable_observer()


def enable_observer(mod):
    """``model.apply(enable_observer)``: update the quantization parameters again."""
    if _fake_quant_module(mod):
        mod.enable_observer()


default_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=0,
    quant_max=255,
    dtype=ember.quint8,
    qscheme=ember.per_tensor_affine,
    reduce_range=True,
)
default_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=-128,
    quant_max=127,
    dtype=ember.qint8,
    qscheme=ember.per_tensor_symmetric,
    reduce_range=False,
)
default_dynamic_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=0,
    quant_max=255,
    is_dynamic=True,
    dtype=ember.quint8,
    averaging_constant=1,
)
default_fixed_qparams_range_neg1to1_fake_quant = FixedQParamsFakeQuantize.with_args(
    observer=default_fixed_qparams_range_neg1to1_observer
)
default_fixed_qparams_range_0to1_fake_quant = FixedQParamsFakeQuantize.with_args(
    observer=default_fixed_qparams_range_0to1_observer
)
default_symmetric_fixed_qparams_fake_quant = default_fixed_qparams_range_neg1to1_fake_quant
default_affine_fixed_qparams_fake_quant = default_fixed_qparams_range_0to1_fake_quant
default_per_channel_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    quant_min=-128,
    quant_max=127,
    dtype=ember.qint8,
    qscheme=ember.per_channel_symmetric,
    reduce_range=False,
    ch_axis=0,
)
default_embedding_fake_quant = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    qscheme=ember.per_channel_affine_float_qparams,
    dtype=ember.quint8,
    quant_min=0,
    quant_max=255,
    ch_axis=0,
    averaging_constant=1,
)
default_embedding_fake_quant_4bit = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    qscheme=ember.per_channel_affine_float_qparams,
    ch_axis=0,
    dtype=ember.quint4x2,
    averaging_constant=1,
)
default_histogram_fake_quant = FakeQuantize.with_args(
    observer=HistogramObserver,
    quant_min=0,
    quant_max=255,
    dtype=ember.quint8,
    qscheme=ember.per_tensor_affine,
    reduce_range=True,
)
default_fused_act_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=ember.quint8
)
default_fused_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=-128,
    quant_max=127,
    dtype=ember.qint8,
    qscheme=ember.per_tensor_symmetric,
)
default_fused_per_channel_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    quant_min=-128,
    quant_max=127,
    dtype=ember.qint8,
    qscheme=ember.per_channel_symmetric,
)
fused_wt_fake_quant_range_neg_127_to_127 = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver,
    quant_min=-127,
    quant_max=127,
    dtype=ember.qint8,
    qscheme=ember.per_tensor_symmetric,
    eps=2**-12,
)
fused_per_channel_wt_fake_quant_range_neg_127_to_127 = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    quant_min=-127,
    quant_max=127,
    dtype=ember.qint8,
    qscheme=ember.per_channel_symmetric,
    eps=2**-12,
)
