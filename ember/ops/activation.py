"""The element-wise activations of ``ember.nn.functional`` as primitive ops (nn-only: not in
``ops.FAMILIES``, no ``ember.*`` names and no Tensor methods).

Each activation is one ``Function`` whose forward is a few NumPy passes over the raw array, so a
layer costs one node and no temporaries in the graph. Backward is one more primitive, the
activation's *gradient op* (PyTorch's ``*_backward`` kernels: ``GeluBackward`` computes
``g * gelu'(x)``), whose own backward is written with Tensor ops, so double backward works:

- ``_Scale`` serves every piecewise-linear activation (relu, leaky_relu, hardtanh, threshold,
  the shrinks, rrelu...): its derivative is a constant per element, so the gradient op is
  ``g * d`` with ``d`` a fixed array (or mask) and no gradient flows back to ``x``.
- The smooth activations (gelu, silu, mish, elu, softplus, logsigmoid, hardswish) have a
  ``_Grad`` op taking ``(g, x)`` that knows the first and second derivative; they live in
  ``smooth_activation.py`` and are re-exported here.

float16 inputs are computed in float32 and rounded once at the end, as PyTorch's kernels do.
"""

from __future__ import annotations

import math
import struct

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.tensor import Tensor

_F16 = _dtype.float16._np
_F32 = _dtype.float32._np
_F64 = _dtype.float64._np
_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_K = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _f32(v: float) -> float:
    """``v`` rounded to float32 (for the constants PyTorch keeps in single precision)."""
    return struct.unpack("f", struct.pack("f", v))[0]


_ONE_SIXTH_F32 = _f32(1.0 / 6.0)


def _up(x):
    # NOTE: matches torch: half kernels compute in float32 and round once.
    return x.astype(_F32) if x.dtype.char in "eE" else x  # float16, bfloat16


def _some(xp, mask) -> bool:
    """Whether ``mask`` has a True element (always on meta, which has no values): a rare
    branch is then taken only where needed."""
    return xp.device_type == "meta" or bool(mask.any())


def _down(y, like):
    return y.astype(like.dtype) if y.dtype != like.dtype else y


# ---- the piecewise-constant gradient op -------------------------------------------------------
class _Scale(Function):
    """``g * d`` for a fixed array ``d`` (a float array or a bool mask): the gradient of every
    piecewise-linear activation. ``d`` is a constant, so the op is linear in ``g`` and its own
    gradient is itself."""

    _array_forward = True
    _node_name = "ThresholdBackwardBackward0"

    @staticmethod
    def forward(ctx, g, d):
        ctx.d = d
        return xp_of(g).multiply(g, d, dtype=g.dtype)

    @staticmethod
    def backward(ctx, gg):
        return unary(_Scale, gg, ctx.d), None


def _scale_node(name: str) -> type:
    return type(name.replace("Backward", ""), (_Scale,), {"_node_name": name})


# PyTorch's names for the gradient nodes (the computation is the same)
_ReluGrad = _scale_node("ThresholdBackwardBackward0")
_LeakyGrad = _scale_node("LeakyReluBackwardBackward0")
_HardtanhGrad = _scale_node("HardtanhBackwardBackward0")
_ThresholdGrad = _scale_node("ThresholdBackwardBackward0")
_SoftshrinkGrad = _scale_node("SoftshrinkBackwardBackward0")
_HardshrinkGrad = _scale_node("HardshrinkBackwardBackward0")
_HardsigmoidGrad = _scale_node("HardsigmoidBackwardBackward0")
_RreluGrad = _scale_node("RreluWithNoiseBackwardBackward0")


def relu_grad(g: Tensor, y: Tensor) -> Tensor:
    """``g`` where ``y > 0`` else 0: ReLU's gradient from its output (one NumPy pass)."""
    # NOTE: matches torch: relu'(0) = 0
    return unary(_ReluGrad, g, y._data > 0)


# ---- piecewise-linear activations -------------------------------------------------------------
class LeakyRelu(Function):
    _array_forward = True
    _node_name = "LeakyReluBackward0"

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        xp = xp_of(x)
        s = x * slope
        # max(x, s x) for 0 <= slope <= 1 (x > 0 picks x, x <= 0 picks s x): one cheap pass
        if 0.0 <= slope <= 1.0:
            return xp.maximum(x, s, out=s)
        return xp.where(x > 0, x, s)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = x._data
        xp = xp_of(xd)
        slope = ctx.slope
        if slope == 0.0:
            return unary(_LeakyGrad, g, xd > 0), None
        # 1 where x > 0, else slope: max(mask, slope) is exact for 0 <= slope <= 1 and, unlike
        # np.where or copyto(where=), has no data-dependent branch (a mixed mask mispredicts)
        if 0.0 <= slope <= 1.0:
            d = xp.maximum(xd > 0, slope, dtype=g._data.dtype)
        else:
            d = xp.where(xd > 0, 1.0, slope).astype(g._data.dtype)
        return unary(_LeakyGrad, g, d), None


class Hardtanh(Function):
    _array_forward = True
    _node_name = "HardtanhBackward0"

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        xp = xp_of(x)
        if x.dtype.kind not in "fV":
            if x.dtype.kind == "c":
                raise NotImplementedError("clamp is not supported for complex types")
            lo, hi = math.ceil(lo), math.floor(hi)
        return _down(xp.clip(x, lo, hi), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = x._data
        # NOTE: matches torch: the gradient is zero at both corners (x == min_val or max_val)
        return unary(_HardtanhGrad, g, (xd > ctx.lo) & (xd < ctx.hi)), None, None


class Threshold(Function):
    _array_forward = True
    _node_name = "ThresholdBackward0"

    @staticmethod
    def forward(ctx, x, th, value):
        ctx.save_for_backward(x)
        ctx.th = th
        xp = xp_of(x)
        if x.dtype.kind == "c":
            cname = _dtype.SCALAR_NAMES[_dtype.from_np(x.dtype).name]
            raise NotImplementedError(f"\"threshold_cpu\" not implemented for '{cname}'")
        return _down(xp.where(x > th, x, value), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return unary(_ThresholdGrad, g, x._data > ctx.th), None, None


class Softshrink(Function):
    _array_forward = True
    _node_name = "SoftshrinkBackward0"

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        xp = xp_of(x)
        # x - clip(x, -l, l): x - l above l, x + l below -l, 0 between (nan stays nan)
        z = _up(x)
        return _down(z - xp.minimum(xp.maximum(z, -lambd), lambd), x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = x._data
        return unary(_SoftshrinkGrad, g, (xd > ctx.lambd) | (xd < -ctx.lambd)), None


class Hardshrink(Function):
    _array_forward = True
    _node_name = "HardshrinkBackward0"

    @staticmethod
    def forward(ctx, x, lambd):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        xp = xp_of(x)
        # x times the mask: no branch per element, and nan stays nan as in torch
        return xp.multiply(x, (x > lambd) | (x < -lambd), dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = x._data
        return unary(_HardshrinkGrad, g, (xd > ctx.lambd) | (xd < -ctx.lambd)), None


class Hardsigmoid(Function):
    _array_forward = True
    _node_name = "HardsigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xp = xp_of(x)
        z = _up(x) + 3.0
        xp.clip(z, 0.0, 6.0, out=z)
        z /= 6.0
        return _down(z, x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = x._data
        xp = xp_of(xd)
        # NOTE: matches torch: 1/6 (rounded to float32 whatever the dtype) strictly inside
        # (-3, 3), 0 at the corners
        d = xp.multiply((xd > -3.0) & (xd < 3.0), _ONE_SIXTH_F32, dtype=g._data.dtype)
        return unary(_HardsigmoidGrad, g, d)


class Rrelu(Function):
    """``x * noise``: ``noise`` is 1 where ``x > 0`` and the random slope elsewhere."""

    _array_forward = True
    _node_name = "RreluWithNoiseBackward0"

    @staticmethod
    def forward(ctx, x, noise):
        ctx.noise = noise
        return x * noise

    @staticmethod
    def backward(ctx, g):
        return unary(_RreluGrad, g, ctx.noise), None


# ---- PReLU ------------------------------------------------------------------------------------
class Prelu(Function):
    """``x`` above 0, ``w * x`` at or below: ``w`` is one slope or one per channel (dim 1),
    validated by the caller."""

    _array_forward = True
    _node_name = "PreluKernelBackward0"

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        xp = xp_of(x)
        # max(x, 0) + w min(x, 0): exact on both sides, no branch per element
        y = xp.minimum(x, 0)
        y *= _channel_view(w, x.ndim)
        y += xp.maximum(x, 0)
        return y

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need_x, need_w = ctx.needs_input_grad
        wb = w.reshape(_channel_shape(w._data, x.ndim))
        pos = x > 0
        gx = g.where(pos, g * wb) if need_x else None
        gw = None
        if need_w:
            gw = (g * x).masked_fill(pos, 0.0)
            if w.numel() == 1:
                gw = gw.sum().reshape(w.shape)
            else:  # one slope per channel: sum every dim but 1
                gw = gw.sum([d for d in range(x.ndim) if d != 1])
        return gx, gw


def _channel_shape(w, ndim: int) -> tuple:
    if w.size == 1 or ndim < 2:
        return (1,) * ndim if ndim else ()
    return (1, w.shape[0]) + (1,) * (ndim - 2)


def _channel_view(w, ndim: int):
    return w.reshape(_channel_shape(w, ndim))


__all__: list[str] = []


# The smooth activations live in smooth_activation.py (after the helpers above, which it imports).
from ember.ops.smooth_activation import (  # noqa: E402,F401
    Celu,
    Elu,
    EluGrad,
    Gelu,
    GeluGrad,
    Hardswish,
    HardswishGrad,
    LogSigmoid,
    LogSigmoidGrad,
    Mish,
    MishGrad,
    Silu,
    SiluGrad,
    Softplus,
    SoftplusGrad,
)
