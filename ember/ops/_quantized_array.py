"""``QuantizedArray``: the backend array of a quantized tensor (its ``_data``).

A quantized tensor is a plain ``ember.Tensor`` (as in torch, ``type(q) is Tensor``) whose
``_data`` is a ``QuantizedArray``: the integer representation (a NumPy-backed array of
uint8/int8/int32, one value per element, sub-byte types unpacked) plus the quantization
parameters. Its ``dtype`` is the stand-in NumPy dtype of the quantized ember dtype
(``ember._dtype._QuantizedNp``), so ``Tensor.dtype``, ``requires_grad_`` (refused: not
floating) and the engine work unchanged, and nothing on the float path checks for it.

What the array does is what torch's quantized CPU backend does to the memory without
arithmetic: views and copies (``reshape``, ``transpose``, basic indexing, ``copy``). A dense
kernel handed a ``QuantizedArray`` (``q + 1``, ``q.sum()``...) fails with PyTorch's "Could not
run ... 'QuantizedCPU' backend" ``NotImplementedError``; arithmetic that torch turns away
earlier raises its ``RuntimeError`` instead.
"""

from __future__ import annotations

import operator

from ember import _dtype, backend
from ember._dtype import (
    per_channel_affine,
    per_channel_affine_float_qparams,
    per_channel_symmetric,
    per_tensor_affine,
)
from ember.backend import cpu as _xp

PER_CHANNEL = (per_channel_affine, per_channel_symmetric, per_channel_affine_float_qparams)


def unsupported(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"Could not run '{name}' with arguments from the 'QuantizedCPU' backend: ember has no "
        "quantized kernel for it. Call .dequantize() first, compute in float, and quantize "
        "the result."
    )


# NOTE: matches torch: these arithmetic ops fail before reaching a kernel, with a RuntimeError
_STRIDED = "empty_strided not supported on quantized tensors yet see https://github.com/pytorch/pytorch/issues/74540"


class QuantizedArray:
    """Integer representation and quantization parameters of one quantized tensor.

    ``scale``/``zero_point`` are a Python float and int for the per-tensor schemes; for the
    per-channel ones they are 1-D arrays (float64 scales, int64 zero points, float zero points
    for ``per_channel_affine_float_qparams``) along ``axis``.
    """

    __slots__ = ("values", "qdtype", "dtype", "qscheme", "scale", "zero_point", "axis")
    __hash__ = object.__hash__
    __array_priority__ = 2000

    def __init__(self, values, qdtype, qscheme, scale, zero_point, axis=None):
        self.values = values
        self.qdtype = qdtype
        self.dtype = qdtype._np
        self.qscheme = qscheme
        self.scale = scale
        self.zero_point = zero_point
        self.axis = axis

    def _like(self, values, axis=None, scale=None, zero_point=None, qscheme=None):
        """The same quantization parameters over other values (a view or copy)."""
        return QuantizedArray(
            values,
            self.qdtype,
            self.qscheme if qscheme is None else qscheme,
            self.scale if scale is None else scale,
            self.zero_point if zero_point is None else zero_point,
            self.axis if axis is None else axis,
        )

    # ---- what the generic Tensor code reads -----------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self.values.shape

    @property
    def ndim(self) -> int:
        return self.values.ndim

    @property
    def size(self) -> int:
        return self.values.size

    @property
    def flags(self):
        return self.values.flags

    @property
    def strides(self):
        return self.values.strides

    @property
    def base(self):
        return None

    @property
    def per_channel(self) -> bool:
        return self.qscheme in PER_CHANNEL

    # ---- views and copies -----------------------------------------------------------------------
    def reshape(self, shape, copy=None):
        # NOTE: matches torch: a per-channel tensor keeps its axis number through a reshape
        if copy is None:
            return self._like(self.values.reshape(shape))
        return self._like(self.values.reshape(shape, copy=copy))

    def transpose(self, dims=None):
        if self.per_channel:
            # NOTE: matches torch: strided views other than reshape exist for per-tensor only
            raise RuntimeError("Setting strides is possible only on uniformly quantized tensor")
        return self._like(self.values.transpose(dims))

    def swapaxes(self, a, b):
        if self.per_channel:
            raise RuntimeError("Setting strides is possible only on uniformly quantized tensor")
        return self._like(self.values.swapaxes(a, b))

    def squeeze(self, axis=None):
        if axis is None:
            axis = tuple(i for i, s in enumerate(self.shape) if s == 1)
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        new_axis = self.axis
        if self.per_channel:
            new_axis = self.axis - sum(1 for a in axes if a % self.ndim < self.axis)
        return self._like(self.values.squeeze(axis), axis=new_axis)

    def copy(self, order="K"):
        return self._like(self.values.copy(order=order))

    def __getitem__(self, key):
        if not self.per_channel:
            return self._like(self.values[key])
        return _index_per_channel(self, key)

    def __setitem__(self, key, value):
        raise unsupported("index_put_")

    def __len__(self) -> int:
        return len(self.values)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"Got unsupported ScalarType {_dtype.SCALAR_NAMES[self.qdtype.name]}")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = ufunc.__name__
        both = sum(1 for i in inputs if i.__class__ is QuantizedArray) > 1
        if name in ("add", "subtract", "multiply", "true_divide") and not both:
            raise RuntimeError(_STRIDED)
        raise unsupported(name)

    def __array_function__(self, func, types, args, kwargs):
        raise unsupported(func.__name__)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(name)

    def __repr__(self) -> str:
        return f"QuantizedArray({self.qdtype}, {self.qscheme}, shape={self.shape})"


def _refuse(name, scalar_error=False):
    def op(self, *args, **kwargs):
        # NOTE: matches torch: a quantized tensor with a number fails in allocation
        # (RuntimeError); two quantized operands reach the missing kernel (NotImplementedError)
        if scalar_error and not any(a.__class__ is QuantizedArray for a in args):
            raise RuntimeError(_STRIDED)
        raise unsupported(name)

    op.__name__ = f"__{name}__"
    return op


for _n in (
    "eq ne lt le gt ge add radd sub rsub truediv rtruediv floordiv rfloordiv mod rmod pow rpow "
    "matmul rmatmul and rand or ror xor rxor neg pos abs invert lshift rshift mul rmul iadd isub "
    "imul itruediv"
).split():
    _scalar = _n in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv")
    setattr(QuantizedArray, f"__{_n}__", _refuse(_n, _scalar))


def _index_per_channel(a: QuantizedArray, key):
    """Basic indexing of a per-channel array: the channel axis moves with the dims removed or
    added before it; an integer at the axis leaves one channel, a per-tensor result."""
    if not isinstance(key, tuple):
        key = (key,)
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    dim = 0  # input dim the next key entry addresses
    out_dim = 0
    axis, scale, zp, scheme = a.axis, a.scale, a.zero_point, a.qscheme
    for k in key:
        if k is Ellipsis:
            skip = a.ndim - n_real
            if dim <= a.axis < dim + skip:
                axis = out_dim + (a.axis - dim)
            dim += skip
            out_dim += skip
            continue
        if k is None:
            out_dim += 1
            continue
        if dim == a.axis:
            if isinstance(k, slice):
                axis = out_dim
                scale, zp = a.scale[k], a.zero_point[k]
            else:
                i = operator.index(k)
                # NOTE: matches torch: one channel left is a per-tensor tensor whose scale went
                # through float32
                scale = float(_xp.float32(a.scale[i]))
                zp = int(a.zero_point[i]) if scheme is not per_channel_affine_float_qparams else 0
                scheme, axis = per_tensor_affine, None
        if isinstance(k, slice):
            out_dim += 1
        dim += 1
    if scheme in PER_CHANNEL and dim <= a.axis:
        axis = out_dim + (a.axis - dim)
    values = a.values[key]
    return QuantizedArray(values, a.qdtype, scheme, scale, zp, axis)


class _QuantizedNamespace:
    """The ``xp`` of a ``QuantizedArray``: the few backend functions the generic Tensor code asks
    for; any other raises PyTorch's error for an op the quantized backend lacks."""

    device_type = "cpu"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(name)

    @staticmethod
    def copy(a):
        return a.copy()

    @staticmethod
    def to_numpy(a):
        return a.__array__()

    @staticmethod
    def is_contiguous(a) -> bool:
        return backend.cpu.is_contiguous(a.values)

    @staticmethod
    def strides_of(a) -> tuple:
        return backend.cpu.strides_of(a.values)

    @staticmethod
    def storage_offset(a) -> int:
        return backend.cpu.storage_offset(a.values)

    @staticmethod
    def data_ptr(a) -> int:
        return backend.cpu.data_ptr(a.values)

    @staticmethod
    def device_index(a):
        return None

    @staticmethod
    def reshape(a, shape):
        return a.reshape(shape)

    @staticmethod
    def transpose(a, axes=None):
        return a.transpose(axes)

    @staticmethod
    def expand_dims(a, axis):
        key = [slice(None)] * a.ndim
        axes = (axis,) if isinstance(axis, int) else axis
        for ax in sorted(x % (a.ndim + len(axes)) for x in axes):
            key.insert(ax, None)
        return a[tuple(key)]

    @staticmethod
    def squeeze(a, axis=None):
        return a.squeeze(axis)

    @staticmethod
    def ascontiguousarray(a):
        return a._like(_xp.ascontiguousarray(a.values))


backend._BY_TYPE[QuantizedArray] = _QuantizedNamespace()
