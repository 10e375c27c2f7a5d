"""``QConfig``: which observer (or fake quantizer) constructors a module's activations and
weights get, and the defaults per backend (``get_default_qconfig("x86")``...), as torch's."""

from __future__ import annotations

import warnings
from collections import namedtuple

import ember
from ember import nn
from ember.ao.quantization.fake_quantize import (
    FakeQuantize,
    FakeQuantizeBase,
    FusedMovingAvgObsFakeQuantize,
    default_dynamic_fake_quant,
    default_embedding_fake_quant,
    default_embedding_fake_quant_4bit,
    default_fake_quant,
    default_fused_act_fake_quant,
    default_fused_per_channel_wt_fake_quant,
    default_fused_wt_fake_quant,
    default_per_channel_weight_fake_quant,
    default_weight_fake_quant,
)
from ember.ao.quantization.observer import (
    HistogramObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    NoopObserver,
    PlaceholderObserver,
    _PartialWrapper,
    default_debug_observer,
    default_dynamic_quant_observer,
    default_float_qparams_observer,
    default_float_qparams_observer_4bit,
    default_observer,
    default_per_channel_weight_observer,
    default_placeholder_observer,
    default_reuse_input_observer,
    default_weight_observer,
    per_channel_weight_observer_range_neg_127_to_127,
    weight_observer_range_neg_127_to_127,
)

__all__ = [
    "QConfig",
    "QConfigAny",
    "QConfigDynamic",
    "default_activation_only_qconfig",
    "default_debug_qconfig",
    "default_dynamic_qat_qconfig",
    "default_dynamic_qconfig",
    "default_embedding_qat_qconfig",
    "default_embedding_qat_qconfig_4bit",
    "default_per_channel_qconfig",
    "default_per_channel_symmetric_qnnpack_qconfig",
    "default_qat_qconfig",
    "default_qat_qconfig_v2",
    "default_qconfig",
    "default_quint8_weight_qconfig",
    "default_reuse_input_qconfig",
    "default_symmetric_qnnpack_qconfig",
    "default_weight_only_qconfig",
    "float16_dynamic_qconfig",
    "float16_static_qconfig",
    "float_qparams_weight_only_qconfig",
    "float_qparams_weight_only_qconfig_4bit",
    "get_default_qat_qconfig",
    "get_default_qconfig",
    "per_channel_dynamic_qconfig",
    "qconfig_equals",
]


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """The observer constructors for a module's output (``activation``) and weight.

    Pass classes or ``with_args`` factories, never instances (each module gets its own).

    Example:
        >>> from ember.ao.quantization import QConfig, MinMaxObserver
        >>> qc = QConfig(activation=MinMaxObserver, weight=MinMaxObserver.with_args(
        ...     dtype=ember.qint8))
    """

    __slots__ = ()

    def __new__(cls, activation, weight):
        if isinstance(activation, nn.Module) or isinstance(weight, nn.Module):
            raise ValueError(
                "QConfig received observer instance, please pass observer class instead. Use "
                "MyObserver.with_args(x=1) to override arguments to constructor if needed"
            )
        return super().__new__(cls, activation, weight)


class QConfigDynamic(namedtuple("QConfigDynamic", ["activation", "weight"])):
    """Deprecated (torch 1.12): use ``QConfig``."""

    __slots__ = ()

    def __new__(cls, activation=nn.Identity, weight=nn.Identity):
        warnings.warn(
            "`QConfigDynamic` is going to be deprecated in PyTorch 1.12, please use `QConfig` "
            "instead",
            FutureWarning,
            stacklevel=2,
        )
        if isinstance(weight, nn.Module):
            raise ValueError(
                "QConfigDynamic received observer instance, please pass observer class instead. "
                "Use MyObserver.with_args(x=1) to override arguments to constructor if needed"
            )
        return super().__new__(cls, activation, weight)


QConfigAny = QConfig | None

default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)
default_debug_qconfig = QConfig(weight=default_weight_observer, activation=default_debug_observer)
default_per_channel_qconfig = QConfig(
    activation=default_observer, weight=default_per_channel_weight_observer
)
default_dynamic_qconfig = QConfig(
    activation=default_dynamic_quant_observer, weight=default_weight_observer
)
float16_dynamic_qconfig = QConfig(
    activation=PlaceholderObserver.with_args(dtype=ember.float16, is_dynamic=True),
    weight=PlaceholderObserver.with_args(dtype=ember.float16),
)
float16_static_qconfig = QConfig(
    activation=PlaceholderObserver.with_args(dtype=ember.float16),
    weight=PlaceholderObserver.with_args(dtype=ember.float16),
)
per_channel_dynamic_qconfig = QConfig(
    activation=default_dynamic_quant_observer, weight=default_per_channel_weight_observer
)
float_qparams_weight_only_qconfig = QConfig(
    activation=default_placeholder_observer, weight=default_float_qparams_observer
)
float_qparams_weight_only_qconfig_4bit = QConfig(
    activation=default_placeholder_observer, weight=default_float_qparams_observer_4bit
)
default_qat_qconfig = QConfig(activation=default_fake_quant, weight=default_weight_fake_quant)
default_dynamic_qat_qconfig = QConfig(
    activation=default_dynamic_fake_quant, weight=default_weight_fake_quant
)
default_weight_only_qconfig = QConfig(activation=nn.Identity, weight=default_weight_fake_quant)
default_activation_only_qconfig = QConfig(activation=default_fake_quant, weight=nn.Identity)
default_qat_qconfig_v2 = QConfig(
    activation=default_fused_act_fake_quant, weight=default_fused_wt_fake_quant
)
default_reuse_input_qconfig = QConfig(activation=default_reuse_input_observer, weight=NoopObserver)
default_symmetric_qnnpack_qconfig = QConfig(
    activation=HistogramObserver.with_args(dtype=ember.qint8, reduce_range=False, eps=2**-12),
    weight=weight_observer_range_neg_127_to_127,
)
default_per_channel_symmetric_qnnpack_qconfig = QConfig(
    activation=HistogramObserver.with_args(dtype=ember.qint8, reduce_range=False, eps=2**-12),
    weight=per_channel_weight_observer_range_neg_127_to_127,
)
default_embedding_qat_qconfig = QConfig(
    activation=NoopObserver.with_args(dtype=ember.float32), weight=default_embedding_fake_quant
)
default_embedding_qat_qconfig_4bit = QConfig(
    activation=NoopObserver.with_args(dtype=ember.float32),
    weight=default_embedding_fake_quant_4bit,
)
default_quint8_weight_qconfig = QConfig(activation=HistogramObserver, weight=MinMaxObserver)

_BACKENDS = ["fbgemm", "x86", "qnnpack", "onednn"]


def _check_backend(backend) -> None:
    if backend not in _BACKENDS:
        raise AssertionError(
            f"backend: {backend} not supported. backend must be one of {_BACKENDS}"
        )


def get_default_qconfig(backend: str = "x86", version: int = 0) -> QConfig:
    """The post-training static quantization defaults of ``backend``: a histogram observer for
    activations (``reduce_range`` on x86/fbgemm) and per-channel symmetric weights (per tensor
    on qnnpack).

    Example:
        >>> qc = ember.ao.quantization.get_default_qconfig("x86")
    """
    _check_backend(backend)
    if version != 0:
        raise AssertionError(
            f"Version number: {version} in get_default_qconfig is not supported. Version number "
            "must be 0"
        )
    if backend in ("fbgemm", "x86"):
        return QConfig(
            activation=HistogramObserver.with_args(reduce_range=True),
            weight=default_per_channel_weight_observer,
        )
    if backend == "qnnpack":
        return QConfig(
            activation=HistogramObserver.with_args(reduce_range=False),
            weight=default_weight_observer,
        )
    return QConfig(
        activation=HistogramObserver.with_args(reduce_range=False),
        weight=default_per_channel_weight_observer,
    )


def get_default_qat_qconfig(backend: str = "x86", version: int = 1) -> QConfig:
    """The quantization-aware training defaults of ``backend`` (version 1: the fused
    observer + fake quantize modules; version 0: ``FakeQuantize``).

    Example:
        >>> qc = ember.ao.quantization.get_default_qat_qconfig("fbgemm")
    """
    _check_backend(backend)
    if version not in (0, 1):
        raise AssertionError(
            f"Version number: {version} in get_default_qat_qconfig is not supported. Version "
            "number must be 0 or 1"
        )
    act = FakeQuantize if version == 0 else FusedMovingAvgObsFakeQuantize
    if version == 0:
        per_channel_wt, per_tensor_wt = (
            default_per_channel_weight_fake_quant,
            default_weight_fake_quant,
        )
    else:
        per_channel_wt, per_tensor_wt = (
            default_fused_per_channel_wt_fake_quant,
            default_fused_wt_fake_quant,
        )
    if backend in ("fbgemm", "x86", "qnnpack"):
        activation = act.with_args(
            observer=MovingAverageMinMaxObserver,
            quant_min=0,
            quant_max=255,
            reduce_range=backend != "qnnpack",
        )
    else:
        activation = act.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255)
    weight = per_tensor_wt if backend == "qnnpack" else per_channel_wt
    return QConfig(activation=activation, weight=weight)


def _partial_eq(a, b) -> bool:
    if isinstance(a, _PartialWrapper) and isinstance(b, _PartialWrapper):
        return a.p.func == b.p.func and a.p.args == b.p.args and a.p.keywords == b.p.keywords
    return a == b


def qconfig_equals(q1, q2) -> bool:
    """Whether two qconfigs build the same observers."""
    if q1 is None or q2 is None:
        return q1 == q2
    return _partial_eq(q1.activation, q2.activation) and _partial_eq(q1.weight, q2.weight)


def _activation_is_memoryless(qconfig) -> bool:
    """Whether the activation observer keeps no state: a moving average with constant 1."""
    act = qconfig.activation()
    if isinstance(act, FakeQuantizeBase) and hasattr(act, "activation_post_process"):
        act = act.activation_post_process
    return getattr(act, "averaging_constant", None) == 1


def _assert_valid_qconfig(qconfig, mod) -> None:
    """ConvTranspose modules support only per-tensor weights (torch's check)."""
    if qconfig is None:
        return
    if isinstance(mod, (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)):
        weight = qconfig.weight()
        from ember.ao.quantization.observer import _is_per_channel

        if _is_per_channel(getattr(weight, "qscheme", None)):
            raise AssertionError(
                "Per channel weight observer is not supported yet for ConvTranspose{n}d."
            )
