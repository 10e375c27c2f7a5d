"""Quantized tensors: ``quantize_per_tensor``/``quantize_per_channel``, ``dequantize``, the
``q_*`` accessors, empty quantized tensors, and the few quantized kernels torch keeps at the top
level (``quantized_max_pool*d``, ``quantized_batch_norm``).

A quantized tensor is a plain ``Tensor`` whose ``_data`` is a ``QuantizedArray``
(``ops/_quantized_array.py``): the integer representation plus scale, zero point (and axis).
The arithmetic is torch's CPU kernels', in their order of float32 operations, so the integer
values equal torch's bit for bit:

- per tensor, quint8/qint8: ``round(fma(x, 1/scale, zero_point))`` (FBGEMM's fused path);
  qint32: ``round(x * (1/scale) + zero_point)`` in float32; quint4x2/quint2x4:
  ``zero_point + round(x * (1/scale))``;
- per channel: ``round(x * (1/scale) + zero_point)`` in float32, all dtypes;
- rounding is half to even, then the value is clamped to the dtype's range;
- dequantize: ``(q - zero_point) * scale`` in float32 per tensor, in float64 (then rounded to
  float32) per channel; float32 for ``per_channel_affine_float_qparams``.
"""

from __future__ import annotations

import math
import operator

from ember import _dtype
from ember._dtype import (
    per_channel_affine,
    per_channel_affine_float_qparams,
    per_tensor_affine,
    qint32,
    quint2x4,
    quint4x2,
)
from ember.backend import cpu as _xp
from ember.ops._quantized_array import PER_CHANNEL, QuantizedArray
from ember.tensor import Tensor, _wrap

__all__ = [
    "choose_qparams_optimized",
    "dequantize",
    "empty_quantized",
    "int_repr",
    "q_per_channel_axis",
    "q_per_channel_scales",
    "q_per_channel_zero_points",
    "q_scale",
    "q_zero_point",
    "quantize_per_channel",
    "quantize_per_tensor",
    "quantize_per_tensor_dynamic",
    "quantized_batch_norm",
    "quantized_max_pool1d",
    "quantized_max_pool2d",
    "quantized_max_pool3d",
    "_empty_affine_quantized",
    "_empty_per_channel_affine_quantized",
    "_make_per_tensor_quantized_tensor",
    "_make_per_channel_quantized_tensor",
]

_F32 = _xp.dtype("float32")
_F64 = _xp.dtype("float64")
_I64 = _xp.dtype("int64")
_SUB_BYTE = (quint4x2, quint2x4)


def is_quantized_data(a) -> bool:
    return a.__class__ is QuantizedArray


def _qdtype(dtype, op: str):
    if dtype not in _dtype._QUANTIZED:
        name = _dtype.SCALAR_NAMES.get(getattr(dtype, "name", ""), dtype)
        raise RuntimeError(f"ScalarType {name} is not supported in new_qtensor.")
    return dtype


def _float_input(input: Tensor):
    if not isinstance(input, Tensor):
        raise TypeError(f"quantize: argument 'input' must be Tensor, not {type(input).__name__}")
    a = input._data
    if a.dtype != _F32:
        name = _dtype.SCALAR_NAMES.get(input.dtype.name, input.dtype.name)
        raise RuntimeError(f"Quantize only works on Float Tensor, got {name}")
    return a


def _check_zero_point(op: str, zp, qdtype) -> None:
    lo, hi = _dtype._QUANTIZED[qdtype][:2]
    if zp > hi:
        raise RuntimeError(f"{op} zero_point {zp} is above upper bound.")
    if zp < lo:
        raise RuntimeError(f"{op} zero_point {zp} is below lower bound.")


def _to_int_repr(v, qdtype):
    """Rounded float values (any float array) clamped to the dtype's range, as its integers."""
    lo, hi = _dtype._QUANTIZED[qdtype][:2]
    # clamp in float64: int32's bounds are not float32 numbers
    v = _xp.clip(v.astype(_F64), lo, hi)
    v = _xp.nan_to_num(v, nan=0.0)
    return v.astype(qdtype._np.repr_np)


def _quantize_tensor_values(x, scale: float, zp: int, qdtype):
    s32 = _F32.type(scale)
    inv = _F32.type(1.0) / s32
    if qdtype in _SUB_BYTE:
        v = _xp.rint(x * inv) + zp
    elif qdtype is qint32:
        v = _xp.rint(x * inv + _F32.type(zp))
    else:
        # FBGEMM's fused multiply-add: the product is exact in float64, rounded once to float32
        v = _xp.rint((x.astype(_F64) * float(inv) + zp).astype(_F32))
    return _to_int_repr(v, qdtype)


def _scalar_of(v, what: str):
    if isinstance(v, Tensor):
        if v.numel() != 1:
            raise RuntimeError(
                f"quantize_per_tensor: {what} must hold one value, got shape {tuple(v.shape)}"
            )
        return v.item()
    return v


def _make(values, qdtype, qscheme, scale, zp, axis=None) -> Tensor:
    return _wrap(QuantizedArray(values, qdtype, qscheme, scale, zp, axis))


def quantize_per_tensor(input, scale, zero_point, dtype):
    """Quantize a float32 tensor with one scale and zero point:
    ``clamp(round(input / scale) + zero_point, qmin, qmax)``.

    ``input`` may be a list of tensors, with ``scale`` and ``zero_point`` 1-D tensors holding
    one value per tensor; the result is then a list.

    Example:
        >>> q = ember.quantize_per_tensor(ember.tensor([0.0, 0.25, 1.0]), 0.1, 10, ember.quint8)
        >>> q.int_repr()
        tensor([10, 12, 20], dtype=ember.uint8)
    """
    if isinstance(input, (list, tuple)):
        scales = scale.tolist() if isinstance(scale, Tensor) else list(scale)
        zps = zero_point.tolist() if isinstance(zero_point, Tensor) else list(zero_point)
        if isinstance(scale, Tensor) and scale.dtype is not _dtype.float64:
            scales = [float(_F32.type(s)) for s in scales]
        return [quantize_per_tensor(t, s, z, dtype) for t, s, z in zip(input, scales, zps)]
    x = _float_input(input)
    qdtype = _qdtype(dtype, "quantize_per_tensor")
    if isinstance(scale, Tensor):
        # NOTE: matches torch: a tensor scale is read at its own precision (float32 usually)
        scale = float(_scalar_of(scale, "scale"))
    scale = float(scale)
    zp = int(_scalar_of(zero_point, "zero_point"))
    _check_zero_point("quantize_tensor_per_tensor_affine", zp, qdtype)
    values = _quantize_tensor_values(x, scale, zp, qdtype)
    return _make(values, qdtype, per_tensor_affine, scale, zp)


def quantize_per_channel(input: Tensor, scales: Tensor, zero_points: Tensor, axis: int, dtype):
    """Quantize a float32 tensor with one scale and zero point per slice along ``axis``.

    Float ``zero_points`` give the ``per_channel_affine_float_qparams`` scheme (embedding
    tables' quantization), integer ones ``per_channel_affine``.

    Example:
        >>> x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> q = ember.quantize_per_channel(x, ember.tensor([0.1, 0.5]), ember.tensor([0, 0]),
        ...                                0, ember.qint8)
        >>> q.int_repr()
        tensor([[10, 20],
                [ 6,  8]], dtype=ember.int8)
    """
    for name, v in (("scales", scales), ("zero_points", zero_points)):
        if not isinstance(v, Tensor):
            raise TypeError(
                f"quantize_per_channel(): argument '{name}' must be Tensor, not {type(v).__name__}"
            )
    x = _float_input(input)
    qdtype = _qdtype(dtype, "quantize_per_channel")
    axis = operator.index(axis)
    if not 0 <= axis < x.ndim:
        raise RuntimeError(
            "Channel axis out of range in per channel affine quantization. Got: "
            f"{axis}Expected: [0, {x.ndim})"
        )
    s = _xp.asarray(scales.detach().numpy(), dtype=_F64).reshape(-1)
    zraw = zero_points.detach().numpy().reshape(-1)
    if s.shape[0] != zraw.shape[0]:
        raise RuntimeError("number of elements in scales and zero_points must match")
    if s.shape[0] != x.shape[axis]:
        raise RuntimeError(
            f"length of scales must equal to channel, expected {x.shape[axis]} got, {s.shape[0]}"
        )
    shape = [1] * x.ndim
    shape[axis] = s.shape[0]
    s32 = s.astype(_F32).reshape(shape)
    inv = _F32.type(1.0) / s32
    if zraw.dtype.kind == "f":
        # NOTE: matches torch: float zero points keep the scales' and zero points' dtype
        # (float32 from float32 scales) and select the float-qparams scheme
        scheme = per_channel_affine_float_qparams
        zf = zraw.astype(_F32)
        v = _xp.rint(x * inv + zf.reshape(shape))
        sdtype = scales.dtype._np
        scales_kept, zps_kept = s.astype(sdtype), zraw.astype(sdtype)
    else:
        scheme = per_channel_affine
        z = zraw.astype(_I64)
        for zp in z.tolist():
            _check_zero_point("quantize_tensor_per_channel_affine", zp, qdtype)
        v = _xp.rint(x * inv + z.reshape(shape).astype(_F32))
        scales_kept, zps_kept = s, z
    return _make(_to_int_repr(v, qdtype), qdtype, scheme, scales_kept, zps_kept, axis)


def _dynamic_qparams(x, qdtype, reduce_range: bool):
    """The scale and zero point torch's dynamic quantization picks for ``x``'s range."""
    lo, hi = (-128, 127) if qdtype is _dtype.qint8 else (0, 255)
    if reduce_range:
        lo, hi = int(lo / 2), int(hi / 2)  # NOTE: matches torch: C's truncating division
    mn = float(x.min()) if x.size else 0.0
    mx = float(x.max()) if x.size else 0.0
    return choose_qparams(mn, mx, lo, hi)


def choose_qparams(mn: float, mx: float, qmin: int, qmax: int) -> tuple[float, int]:
    """torch's ``ChooseQuantizationParams``: the range [min, max] (widened to hold 0) spread
    over [qmin, qmax] (the scale in float64), and the zero point nearest to an exact 0."""
    mn, mx = min(mn, 0.0), max(mx, 0.0)
    scale = (float(_F32.type(mx)) - float(_F32.type(mn))) / (qmax - qmin)
    if scale == 0.0 or math.isinf(float(_F32.type(1.0) / _F32.type(scale))):
        scale = 0.1
    zp_from_min = qmin - mn / scale
    zp_from_max = qmax - mx / scale
    err_min = abs(qmin) - abs(mn / scale)
    err_max = abs(qmax) - abs(mx / scale)
    initial = zp_from_min if err_min < err_max else zp_from_max
    if initial < qmin:
        zp = qmin
    elif initial > qmax:
        zp = qmax
    else:
        zp = int(_xp.rint(initial))
    return scale, zp


def quantize_per_tensor_dynamic(input: Tensor, dtype, reduce_range: bool):
    """Quantize with the scale and zero point chosen from ``input``'s min and max (dynamic
    quantization); float16 ``dtype`` casts instead.

    Example:
        >>> q = ember.quantize_per_tensor_dynamic(ember.tensor([-1.0, 1.0]), ember.quint8, False)
        >>> q.int_repr()
        tensor([  1, 255], dtype=ember.uint8)
    """
    if dtype is _dtype.float16:
        return input.to(_dtype.float16)
    if dtype not in (_dtype.quint8, _dtype.qint8):
        raise RuntimeError(f"dtype {_dtype.SCALAR_NAMES.get(dtype.name, dtype)}not supported")
    x = _float_input(input)
    scale, zp = _dynamic_qparams(x, dtype, bool(reduce_range))
    return quantize_per_tensor(input, scale, zp, dtype)


# ---- reading a quantized tensor ---------------------------------------------------------------
def _q(self: Tensor, op: str) -> QuantizedArray:
    a = self._data
    if a.__class__ is not QuantizedArray:
        raise NotImplementedError(
            f"Could not run 'aten::{op}' with arguments from the 'CPU' backend: {op}() takes a "
            f"quantized tensor (ember.quantize_per_tensor...), got one of dtype {self.dtype}"
        )
    return a


def _per_tensor(a: QuantizedArray) -> None:
    if a.qscheme in PER_CHANNEL:
        raise RuntimeError(
            "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false."
        )


def _per_channel(a: QuantizedArray) -> None:
    if a.qscheme not in PER_CHANNEL:
        raise RuntimeError(
            "Expected quantizer->qscheme() == kPerChannelAffine || quantizer->qscheme() == "
            "kPerChannelAffineFloatQParams to be true, but got false."
        )


def q_scale(input: Tensor) -> float:
    """The scale of a per-tensor quantized tensor (a Python float)."""
    a = _q(input, "q_scale")
    _per_tensor(a)
    return a.scale


def q_zero_point(input: Tensor) -> int:
    """The zero point of a per-tensor quantized tensor (a Python int)."""
    a = _q(input, "q_zero_point")
    _per_tensor(a)
    return a.zero_point


def q_per_channel_scales(input: Tensor) -> Tensor:
    """The scales of a per-channel quantized tensor (float64, as torch keeps them)."""
    a = _q(input, "q_per_channel_scales")
    _per_channel(a)
    return _wrap(a.scale.copy())


def q_per_channel_zero_points(input: Tensor) -> Tensor:
    """The zero points of a per-channel quantized tensor (int64; float for float qparams)."""
    a = _q(input, "q_per_channel_zero_points")
    _per_channel(a)
    return _wrap(a.zero_point.copy())


def q_per_channel_axis(input: Tensor) -> int:
    """The dimension a per-channel quantized tensor's scales run along."""
    a = _q(input, "q_per_channel_axis")
    _per_channel(a)
    return a.axis


def qscheme(self: Tensor):
    """The quantization scheme, e.g. ``ember.per_tensor_affine``."""
    return _q(self, "qscheme").qscheme


def _pack(values, bits: int):
    """Sub-byte values packed into bytes, the first value in the low bits (torch's layout)."""
    per = 8 // bits
    flat = values.reshape(-1)
    n = -(-flat.size // per)
    padded = _xp.zeros(n * per, dtype=flat.dtype)
    padded[: flat.size] = flat
    grid = padded.reshape(n, per).astype(_xp.dtype("uint8"))
    out = _xp.zeros(n, dtype=_xp.dtype("uint8"))
    for i in range(per):
        out |= grid[:, i] << (bits * i)
    return out


def _unpack(packed, bits: int, shape):
    per = 8 // bits
    n = math.prod(shape)
    mask = (1 << bits) - 1
    grid = _xp.stack([(packed >> (bits * i)) & mask for i in range(per)], axis=1)
    return grid.reshape(-1)[:n].reshape(shape)


def int_repr(input: Tensor) -> Tensor:
    """The integers stored for a quantized tensor (uint8 for quint8, int8 for qint8, int32 for
    qint32; the packed bytes for the sub-byte types), as a new tensor.

    Example:
        >>> q = ember.quantize_per_tensor(ember.tensor([0.5]), 0.25, 1, ember.qint8)
        >>> q.int_repr()
        tensor([3], dtype=ember.int8)
    """
    a = _q(input, "int_repr")
    bits = _dtype._QUANTIZED[a.qdtype][2]
    if bits < 8:
        return _wrap(_pack(a.values, bits))
    return _wrap(_xp.ascontiguousarray(a.values).copy())


def _dequantize_values(a: QuantizedArray):
    if a.qscheme in PER_CHANNEL:
        shape = [1] * a.values.ndim
        shape[a.axis] = a.scale.shape[0]
        if a.qscheme is per_channel_affine_float_qparams:
            z = a.zero_point.astype(_F32).reshape(shape)
            return (a.values.astype(_F32) - z) * a.scale.astype(_F32).reshape(shape)
        d = (a.values.astype(_I64) - a.zero_point.reshape(shape)).astype(_F64)
        return (d * a.scale.reshape(shape)).astype(_F32)
    d = (a.values.astype(_I64) - a.zero_point).astype(_F32)
    return d * _F32.type(a.scale)


def dequantize(tensor):
    """The float32 values a quantized tensor stands for: ``(int_repr - zero_point) * scale``;
    a float tensor is returned as is, a list gives a list.

    Example:
        >>> q = ember.quantize_per_tensor(ember.tensor([0.5]), 0.25, 1, ember.qint8)
        >>> q.dequantize()
        tensor([0.5000])
    """
    if isinstance(tensor, (list, tuple)):
        return [dequantize(t) for t in tensor]
    a = tensor._data
    if a.__class__ is not QuantizedArray:
        # NOTE: matches torch: dequantizing a float tensor is the identity
        return tensor
    return _wrap(_dequantize_values(a))


# ---- empty quantized tensors --------------------------------------------------------------------
def _size(size) -> tuple:
    if len(size) == 1 and not isinstance(size[0], int):
        size = tuple(size[0])
    return tuple(operator.index(s) for s in size)


def _empty_affine_quantized(
    *size,
    scale: float = 1.0,
    zero_point: int = 0,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    memory_format=None,
) -> Tensor:
    """An uninitialized per-tensor quantized tensor (zeros here), torch's private factory."""
    qdtype = _dtype.quint8 if dtype is None else dtype
    if qdtype not in _dtype._QUANTIZED:
        raise RuntimeError(
            "Creation of quantized tensor requires quantized dtype like torch.quint8"
        )
    shape = _size(size)
    values = _xp.zeros(shape, dtype=qdtype._np.repr_np)
    return _make(values, qdtype, per_tensor_affine, float(scale), int(zero_point))


def _empty_per_channel_affine_quantized(
    *size,
    scales: Tensor,
    zero_points: Tensor,
    axis: int,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    memory_format=None,
) -> Tensor:
    """An uninitialized per-channel quantized tensor (zeros here), torch's private factory."""
    qdtype = _dtype.quint8 if dtype is None else dtype
    if qdtype not in _dtype._QUANTIZED:
        raise RuntimeError(
            "Creation of quantized tensor requires quantized dtype like torch.quint8"
        )
    values = _xp.zeros(_size(size), dtype=qdtype._np.repr_np)
    s = _xp.asarray(scales.detach().numpy(), dtype=_F64).reshape(-1)
    z = zero_points.detach().numpy().reshape(-1)
    scheme = per_channel_affine_float_qparams if z.dtype.kind == "f" else per_channel_affine
    z = z.copy() if z.dtype.kind == "f" else z.astype(_I64)
    return _make(values, qdtype, scheme, s, z, operator.index(axis))


def empty_quantized(
    size,
    qtensor: Tensor,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=None,
    memory_format=None,
) -> Tensor:
    """An uninitialized quantized tensor of ``size`` with ``qtensor``'s dtype and parameters."""
    a = _q(qtensor, "empty_quantized")
    values = _xp.zeros(_size((size,)), dtype=a.values.dtype)
    return _wrap(a._like(values))


def _make_per_tensor_quantized_tensor(input: Tensor, scale: float, zero_point: int) -> Tensor:
    """A quantized tensor over given integers (uint8 -> quint8, int8 -> qint8, int32 -> qint32)."""
    qdtype = _FROM_REPR.get(input.dtype)
    if qdtype is None:
        raise RuntimeError(
            f"_make_per_tensor_quantized_tensor: integer tensor of uint8, int8 or int32 "
            f"expected, got {input.dtype}"
        )
    values = _xp.array(input.detach().numpy())
    return _make(values, qdtype, per_tensor_affine, float(scale), int(zero_point))


def _make_per_channel_quantized_tensor(input, scale, zero_point, axis: int) -> Tensor:
    """A per-channel quantized tensor over given integers."""
    qdtype = _FROM_REPR.get(input.dtype)
    if qdtype is None:
        raise RuntimeError(
            f"_make_per_channel_quantized_tensor: integer tensor of uint8, int8 or int32 "
            f"expected, got {input.dtype}"
        )
    values = _xp.array(input.detach().numpy())
    s = _xp.asarray(scale.detach().numpy(), dtype=_F64).reshape(-1)
    z = zero_point.detach().numpy().reshape(-1)
    scheme = per_channel_affine_float_qparams if z.dtype.kind == "f" else per_channel_affine
    z = z.copy() if z.dtype.kind == "f" else z.astype(_I64)
    return _make(values, qdtype, scheme, s, z, operator.index(axis))


_FROM_REPR = {_dtype.uint8: _dtype.quint8, _dtype.int8: _dtype.qint8, _dtype.int32: qint32}


# ---- choose_qparams_optimized -------------------------------------------------------------------
def choose_qparams_optimized(input: Tensor, numel: int, n_bins: int, ratio: float, bit_width: int):
    """The [min, max] range minimizing the L2 quantization error over ``n_bins`` candidate
    ranges, torch's greedy search (used by embedding-table quantization): ``(max, min)``
    as 1-element float32 tensors.
    """
    x = _float_input(input).reshape(-1)[: int(numel)]
    f32 = _F32.type
    xmin, xmax = f32(x.min()), f32(x.max())
    step = f32((xmax - xmin) / f32(n_bins))
    min_bins = int(n_bins * (1.0 - float(f32(ratio))))
    best = cur = _quant_loss(x, xmin, xmax, bit_width)
    best_min, best_max = cur_min, cur_max = xmin, xmax
    thr = f32(min_bins * step)
    while cur_min + thr < cur_max:
        loss_left = _quant_loss(x, f32(cur_min + step), cur_max, bit_width)
        loss_right = _quant_loss(x, cur_min, f32(cur_max - step), bit_width)
        if cur < loss_left and cur < loss_right and cur < best:
            best, best_min, best_max = cur, cur_min, cur_max  # a local optimum
        if loss_left < loss_right:
            cur_min, cur = f32(cur_min + step), loss_left
        else:
            cur_max, cur = f32(cur_max - step), loss_right
    return _wrap(_xp.asarray([best_max], dtype=_F32)), _wrap(_xp.asarray([best_min], dtype=_F32))


def _quant_loss(x, xmin, xmax, bit_width: int):
    """L2 error of quantizing ``x`` to ``bit_width`` bits over [xmin, xmax], with the range's
    start and the scale rounded through float16 as torch's embedding quantization stores them."""
    f32, f16 = _F32.type, _xp.float16
    xmin = f32(f16(xmin))
    rng = f32(xmax - xmin)
    qmax = f32((1 << bit_width) - 1)
    scale = f32(1.0) if rng == 0 else f32(f16(rng / qmax))
    inv = f32(1.0) if scale == 0 else f32(1.0) / scale
    q = _xp.clip(_xp.rint((x - xmin) * inv), f32(0), qmax)
    err = x - (q * scale + xmin)
    return f32(_xp.sqrt(_xp.dot(err, err)))


# ---- quantized kernels torch keeps in its top-level namespace ------------------------------------
def _requantize_same(a: QuantizedArray, values) -> Tensor:
    return _wrap(a._like(values))


def _quantized_max_pool(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode, nd):
    a = _q(input, f"quantized_max_pool{nd}d")
    from ember.nn import functional as F

    pool = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[nd - 1]
    # max pooling commutes with the (monotone) dequantization: pool the integers directly
    ints = _wrap(a.values.astype(_F64))
    out = pool(ints, kernel_size, stride or None, padding, dilation, ceil_mode)
    return _requantize_same(a, out._data.astype(a.values.dtype))


def quantized_max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """1-D max pooling of a quantized tensor; the result keeps its scale and zero point."""
    return _quantized_max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 1)


def quantized_max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """2-D max pooling of a quantized tensor; the result keeps its scale and zero point.

    Example:
        >>> q = ember.quantize_per_tensor(ember.arange(16.0).reshape(1, 4, 4), 1.0, 0,
        ...                               ember.quint8)
        >>> ember.quantized_max_pool2d(q, [2, 2]).int_repr()
        tensor([[[ 5,  7],
                 [13, 15]]], dtype=ember.uint8)
    """
    return _quantized_max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 2)


def quantized_max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """3-D max pooling of a quantized tensor; the result keeps its scale and zero point."""
    return _quantized_max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 3)


def quantized_batch_norm(input, weight, bias, mean, var, eps, output_scale, output_zero_point):
    """Batch norm (inference) of a quantized tensor, requantized to ``output_scale`` and
    ``output_zero_point`` (torch's ``quantized::batch_norm``)."""
    a = _q(input, "quantized_batch_norm")
    x = _dequantize_values(a).astype(_F32)
    c = x.shape[1]
    shape = (1, c) + (1,) * (x.ndim - 2)

    def vec(t, default):
        if t is None:
            return _xp.full(c, default, dtype=_F32)
        return _xp.asarray(t.detach().numpy(), dtype=_F32)

    w, b = vec(weight, 1.0), vec(bias, 0.0)
    m, v = vec(mean, 0.0), vec(var, 1.0)
    alpha = w / _xp.sqrt(v + _F32.type(eps))
    beta = b - m * alpha
    y = x * alpha.reshape(shape) + beta.reshape(shape)
    return quantize_per_tensor(_wrap(y.astype(_F32)), output_scale, output_zero_point, a.qdtype)


def repr_parts(t: Tensor) -> tuple[list, object]:
    """What ``repr`` shows of a quantized tensor: torch's suffixes (size, dtype, scheme and
    parameters) and the dequantized values to print."""
    a = t._data
    out = [f"size={tuple(a.shape)}", f"dtype={a.qdtype}", f"quantization_scheme={a.qscheme}"]
    if a.qscheme in PER_CHANNEL:
        out += [
            f"scale={q_per_channel_scales(t)!r}",
            f"zero_point={q_per_channel_zero_points(t)!r}",
            f"axis={a.axis}",
        ]
    else:
        out += [f"scale={a.scale!r}", f"zero_point={a.zero_point!r}"]
    return out, _dequantize_values(a)


# ---- Tensor methods -----------------------------------------------------------------------------
Tensor.dequantize = dequantize
Tensor.int_repr = int_repr
Tensor.q_scale = q_scale
Tensor.q_zero_point = q_zero_point
Tensor.q_per_channel_scales = q_per_channel_scales
Tensor.q_per_channel_zero_points = q_per_channel_zero_points
Tensor.q_per_channel_axis = q_per_channel_axis
Tensor.qscheme = qscheme
