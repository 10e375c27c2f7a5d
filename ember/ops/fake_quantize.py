"""Fake quantization (quantization-aware training): quantize and dequantize in one float op,
with torch's straight-through gradient.

``fake_quantize_per_tensor_affine(x, scale, zero_point, quant_min, quant_max)`` is
``(clamp(zero_point + round(x * (1/scale)), quant_min, quant_max) - zero_point) * scale``, in
float32 as torch's CPU kernel computes it (half-to-even rounding); the gradient passes where
``zero_point + round(x / scale)`` lies in ``[quant_min, quant_max]`` and is zero outside
(``x``'s only gradient: scale and zero point are not learned here).
"""

from __future__ import annotations

import operator

from ember import _dtype
from ember.autograd.function import Function
from ember.tensor import Tensor, _wrap

__all__ = ["fake_quantize_per_channel_affine", "fake_quantize_per_tensor_affine"]

_F32_NAME = "float32"


def _check_range(quant_min: int, quant_max: int, zero_points) -> None:
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or equal to `quant_max`.")
    for zp in zero_points:
        if not quant_min <= zp <= quant_max:
            raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")


def _fake_quant(x, scale, zp, quant_min, quant_max, float_zp=False):
    """The fake-quantized values and the in-range mask; ``scale``/``zp`` broadcast against x."""
    dt = x.dtype
    x32 = x.astype(_F32_NAME)
    s32 = scale.astype(_F32_NAME)
    inv = s32.dtype.type(1.0) / s32
    if float_zp:
        z = zp.astype(_F32_NAME)
        q = (x32 * inv + z).round()
    else:
        z = zp
        q = (x32 * inv).round() + z
    mask = (q >= quant_min) & (q <= quant_max)
    out = (q.clip(quant_min, quant_max) - z).astype(_F32_NAME) * s32
    return out.astype(dt), mask


class FakeQuantizePerTensorAffine(Function):
    _array_forward = True
    _node_name = "FakeQuantizePerTensorAffineCachemaskBackward0"

    @staticmethod
    def forward(ctx, x, scale, zero_point, quant_min, quant_max):
        out, mask = _fake_quant(x, scale, zero_point, quant_min, quant_max)
        ctx.mask = mask
        return out

    @staticmethod
    def backward(ctx, g):
        # straight-through estimator: d out / d x = 1 inside the quantization range, else 0
        return g * _wrap(ctx.mask), None, None, None, None


class FakeQuantizePerChannelAffine(Function):
    _array_forward = True
    _node_name = "FakeQuantizePerChannelAffineCachemaskBackward0"

    @staticmethod
    def forward(ctx, x, scale, zero_point, quant_min, quant_max, float_zp):
        out, mask = _fake_quant(x, scale, zero_point, quant_min, quant_max, float_zp)
        ctx.mask = mask
        return out

    @staticmethod
    def backward(ctx, g):
        return g * _wrap(ctx.mask), None, None, None, None, None


class _TensorQparams(FakeQuantizePerTensorAffine):
    _node_name = "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0"


def _floating(input: Tensor, op: str) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not input.is_floating_point():
        raise RuntimeError(f"{op}: expected a floating-point input, got {input.dtype}")
    return input


def fake_quantize_per_tensor_affine(
    input: Tensor, scale, zero_point, quant_min: int, quant_max: int
) -> Tensor:
    """Quantize and dequantize ``input`` with one scale and zero point, differentiably (the
    gradient passes only where the value was inside ``[quant_min, quant_max]``).

    ``scale`` and ``zero_point`` may be Python numbers or one-element tensors.

    Example:
        >>> x = ember.tensor([0.12, 0.26, 9.0], requires_grad=True)
        >>> y = ember.fake_quantize_per_tensor_affine(x, 0.1, 0, 0, 15)
        >>> y
        tensor([0.1000, 0.3000, 1.5000], grad_fn=<FakeQuantizePerTensorAffineCachemaskBackward0>)
        >>> y.sum().backward()
        >>> x.grad
        tensor([1., 1., 0.])
    """
    from ember.backend import cpu as xp

    _floating(input, "fake_quantize_per_tensor_affine")
    cls = FakeQuantizePerTensorAffine
    if isinstance(scale, Tensor) or isinstance(zero_point, Tensor):
        cls = _TensorQparams
        # NOTE: matches torch: tensor qparams are read as float32 scale and int zero point
        scale = float(xp.float32(scale.item() if isinstance(scale, Tensor) else scale))
        zero_point = int(zero_point.item() if isinstance(zero_point, Tensor) else zero_point)
    quant_min, quant_max = operator.index(quant_min), operator.index(quant_max)
    zero_point = int(zero_point)
    _check_range(quant_min, quant_max, (zero_point,))
    s = xp.asarray(scale, dtype="float64")
    return cls.apply(input, s, zero_point, quant_min, quant_max)


def fake_quantize_per_channel_affine(
    input: Tensor, scale: Tensor, zero_point: Tensor, axis: int, quant_min: int, quant_max: int
) -> Tensor:
    """Quantize and dequantize ``input`` with a scale and zero point per slice along ``axis``,
    differentiably (straight-through inside ``[quant_min, quant_max]``).

    ``zero_point`` is int32 (or float, for float zero points), as torch requires.

    Example:
        >>> x = ember.tensor([[0.12, 0.26], [0.5, 9.0]])
        >>> ember.fake_quantize_per_channel_affine(
        ...     x, ember.tensor([0.1, 1.0]), ember.tensor([0, 0], dtype=ember.int32), 0, 0, 5)
        tensor([[0.1000, 0.3000],
                [0.0000, 5.0000]])
    """
    _floating(input, "fake_quantize_per_channel_affine")
    if zero_point.dtype not in (_dtype.int32, _dtype.float32, _dtype.float16):
        found = _dtype.SCALAR_NAMES[zero_point.dtype.name]
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {found}")
    nd = input.dim()
    axis = operator.index(axis)
    if not 0 <= (axis if axis >= 0 else axis + nd) < max(nd, 1):
        raise RuntimeError(
            f"fake_quantize_per_channel_affine: axis {axis} is out of range for a tensor of "
            f"{nd} dims"
        )
    axis = axis % nd
    c = input.shape[axis]
    if scale.numel() != c or zero_point.numel() != c:
        raise RuntimeError(
            "dimensions of scale and zero-point are not consistent with input tensor: "
            f"{c} channels along axis {axis}, {scale.numel()} scales and "
            f"{zero_point.numel()} zero points"
        )
    quant_min, quant_max = operator.index(quant_min), operator.index(quant_max)
    float_zp = zero_point.is_floating_point()
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or equal to `quant_max`.")
    if not float_zp:
        _check_range(quant_min, quant_max, zero_point.tolist())
    shape = [1] * nd
    shape[axis] = c
    s = scale.detach().numpy().astype("float64").reshape(shape)
    z = zero_point.detach().numpy().reshape(shape)
    return FakeQuantizePerChannelAffine.apply(input, s, z, quant_min, quant_max, float_zp)
