"""Dtype and device conversion, ``clone``, ``copy_``, ``contiguous``, ``fill_``, ``zero_``."""

from __future__ import annotations

import warnings

from ember import _dtype, backend
from ember._device import as_device
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function, _check_inplace, check_inference_write
from ember.ops._dispatch import unary, xp_of
from ember.tensor import Tensor

_F32 = _dtype.float32._np


class ToCopy(Function):
    """Copy to another dtype and/or device; backward converts the gradient back."""

    _array_forward = True
    _node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, np_dtype, xp_to):
        xp_from = xp_of(a)
        ctx.src = (a.dtype, xp_from.device_type)
        if xp_to is not xp_from:
            a = _transfer(a, xp_from, xp_to)
        if a.dtype != np_dtype:
            if a.dtype.kind == "c" and np_dtype.kind not in "cb":
                # NOTE: matches torch: the real part, with torch's warning (not NumPy's)
                warnings.warn(
                    "Casting complex values to real discards the imaginary part",
                    UserWarning,
                    stacklevel=4,
                )
                a = a.real
            elif np_dtype.char == "4" and a.dtype.kind in "fV":
                # NOTE: matches torch: float8_e4m3fn (no infinity) saturates out-of-range
                # values and infinities to +-448; ml_dtypes would give nan
                a = xp_of(a).clip(a.astype(_F32, copy=False), -448.0, 448.0)
            return backend.cast(a, np_dtype)
        return a if xp_to is not xp_from else a.copy()

    @staticmethod
    def backward(ctx, g):
        dt, dev = ctx.src
        if dt.kind != "c" and g._data.dtype.kind == "c":
            g = g.real  # a real source gets the real part of a complex gradient
        return g.to(device=dev, dtype=_dtype.from_np(dt)), None, None


def _transfer(a, xp_from, xp_to):
    if xp_to.device_type == "meta":
        return xp_to.empty(a.shape, dtype=a.dtype)
    if xp_from.device_type == "meta":
        raise NotImplementedError(
            "Cannot copy out of meta tensor; no data! Please use to_empty() (on a Module) or "
            "ember.empty_like(t, device=...) to allocate real memory instead."
        )
    return xp_to.from_numpy(xp_from.to_numpy(a))


_TO_FORMS = (
    "to(dtype, non_blocking=False, copy=False), "
    "to(device=None, dtype=None, non_blocking=False, copy=False) or "
    "to(other, non_blocking=False, copy=False)"
)


def _parse_to(args, kwargs):
    """``(device, dtype, non_blocking, copy)`` from the arguments of one of PyTorch's three
    ``to`` forms (``_TO_FORMS``); ``memory_format`` is accepted and has no effect on NumPy."""
    kwargs.pop("memory_format", None)
    rest = list(args)
    device = dtype = None
    first = rest[0] if rest else None
    if isinstance(first, Tensor):  # to(other, ...)
        rest.pop(0)
        device, dtype = first.device, first.dtype
        taken = ("device", "dtype")
    elif isinstance(first, _dtype.dtype):  # to(dtype, ...)
        rest.pop(0)
        dtype = first
        taken = ("device", "dtype")
    else:  # to(device=None, dtype=None, ...)
        taken = []
        if rest and not isinstance(first, bool):
            device = rest.pop(0)
            taken.append("device")
            if rest and (rest[0] is None or isinstance(rest[0], _dtype.dtype)):
                dtype = rest.pop(0)
                taken.append("dtype")
        device = kwargs.pop("device", device) if "device" not in taken else device
        dtype = kwargs.pop("dtype", dtype) if "dtype" not in taken else dtype
    flags = {"non_blocking": False, "copy": False}
    for name in flags:
        if rest and isinstance(rest[0], bool):
            flags[name] = rest.pop(0)
            if name in kwargs:
                rest.append(kwargs.pop(name))  # given twice: reported below
        elif name in kwargs:
            flags[name] = kwargs.pop(name)
    if (
        rest
        or kwargs
        or not all(isinstance(v, bool) for v in flags.values())
        or not (dtype is None or isinstance(dtype, _dtype.dtype))
    ):
        got = ", ".join(
            [type(a).__name__ for a in args]
            + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
        )
        raise TypeError(
            f"to() received an invalid combination of arguments - got ({got}), "
            f"but expected one of: {_TO_FORMS}"
        )
    if device is not None:
        try:
            device = as_device(device)
        except TypeError:
            raise TypeError(
                f"to() received an invalid device {device!r}; expected one of: {_TO_FORMS}"
            ) from None
    return device, dtype, flags["non_blocking"], flags["copy"]


def to(self: Tensor, *args, **kwargs) -> Tensor:
    """Convert to a dtype and/or device: ``t.to(ember.float64)``, ``t.to("meta")``,
    ``t.to(other)``, ``t.to(device, dtype)``. Returns ``self`` when nothing changes."""
    device, dtype, _nb, copy = _parse_to(args, kwargs)
    xp_from = xp_of(self._data)
    xp_to = xp_from if device is None else backend.for_device(as_device(device).type)
    npd = self._data.dtype if dtype is None else _dtype.to_np(dtype)
    if xp_to is xp_from and npd == self._data.dtype and not copy:
        return self
    return unary(ToCopy, self, npd, xp_to)


def _typed(dt):
    def conv(self, memory_format=None):
        return to(self, dt)

    conv.__name__ = dt.name
    return conv


_TENSOR_TYPES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
    "int16": "ShortTensor",
    "int8": "CharTensor",
    "uint8": "ByteTensor",
    "bool": "BoolTensor",
}
# "torch.FloatTensor" -> ember.float32, for ``type("torch.FloatTensor")``
_TYPE_NAMES = {f"torch.{v}": getattr(_dtype, k) for k, v in _TENSOR_TYPES.items()}


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """With no argument, the type name (``"torch.FloatTensor"``); else convert to ``dtype`` (a
    dtype, a name such as ``"torch.DoubleTensor"`` or a legacy type such as
    ``ember.DoubleTensor``)."""
    if dtype is None:
        where = "" if self.device.type == "cpu" else f"{self.device.type}."
        return f"torch.{where}{_TENSOR_TYPES[self.dtype.name]}"
    if isinstance(dtype, str):
        if dtype not in _TYPE_NAMES:
            raise ValueError(f"invalid type: {dtype!r}")
        dtype = _TYPE_NAMES[dtype]
    elif not isinstance(dtype, _dtype.dtype):
        from ember.ops.legacy import _TensorType  # (the legacy types load on first use)

        if isinstance(dtype, _TensorType):  # ember.DoubleTensor...
            dtype = dtype.dtype
    return to(self, dtype)


class Clone(Function):
    _array_forward = True
    _node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, g):
        return g


def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A copy of ``input`` with its own memory, differentiable."""
    return unary(Clone, input)


def contiguous(self: Tensor, memory_format=None) -> Tensor:
    """``self`` if laid out in ``memory_format`` (default C order), else a copy that is.

    Example:
        >>> ember.zeros(1, 2, 3, 4).contiguous(memory_format=ember.channels_last).stride()
        (24, 1, 8, 2)
    """
    if memory_format is not None:
        from ember.ops.memory import contiguous_in  # (memory formats load on first use)

        return contiguous_in(self, memory_format)
    if xp_of(self._data).is_contiguous(self._data):
        return self
    return clone(self)


class CopyFrom(Function):
    """``dst.copy_(src)`` as a graph op: the result takes src's values (broadcast, cast)."""

    _array_forward = True
    _node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, dst, src):
        xp = xp_of(dst)
        if backend.is_array(src) and xp_of(src) is not xp:
            src = _transfer(src, xp_of(src), xp)
        out = xp.empty(dst.shape, dtype=dst.dtype)
        out[...] = backend.cast(src, dst.dtype) if src.dtype != dst.dtype else src
        return out

    @staticmethod
    def backward(ctx, g):
        return None, g


def copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    """Copy ``src``'s values into ``self`` (broadcasting, casting, across devices)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    check_inference_write(self)
    record = _gm.state.enabled and (self._requires_grad or src._requires_grad)
    if not record:
        s = src._data
        if xp_of(s) is not xp_of(self._data):
            s = _transfer(s, xp_of(s), xp_of(self._data))
        if s.dtype != self._data.dtype:
            s = backend.cast(s, self._data.dtype)
        try:
            self._data[...] = s
        except ValueError:
            raise RuntimeError(
                f"copy_: the source of shape {tuple(src.shape)} cannot be broadcast to the "
                f"destination of shape {tuple(self.shape)}"
            ) from None
        self._vc[0] += 1
        return self
    from ember.ops.pointwise import inplace

    return inplace(_copy_fn)(self, src)


def _copy_fn(dst, src):
    from ember.ops._dispatch import binary

    return binary(CopyFrom, dst, src)


_copy_fn.__name__ = "copy"


def fill_(self: Tensor, value) -> Tensor:
    """Fill with a number (or a one-element tensor)."""
    check_inference_write(self)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        if value._requires_grad and _gm.state.enabled:
            return copy_(self, value.expand(self.shape))
        value = value.item()
    if _gm.state.enabled and self._requires_grad:
        from ember.ops.pointwise import inplace

        return inplace(_fill_fn)(self, value)
    self._data[...] = backend.scalar_for(value, self._data.dtype)
    self._vc[0] += 1
    return self


class Fill(Function):
    _array_forward = True
    _node_name = "FillBackward0"

    @staticmethod
    def forward(ctx, a, value):
        out = xp_of(a).empty(a.shape, dtype=a.dtype)
        out[...] = backend.scalar_for(value, a.dtype)
        return out

    @staticmethod
    def backward(ctx, g):
        return g * 0, None


def _fill_fn(t, value):
    return unary(Fill, t, value)


_fill_fn.__name__ = "fill"


def zero_(self: Tensor) -> Tensor:
    """Fill with zeros."""
    return fill_(self, 0)


def cpu(self: Tensor, memory_format=None) -> Tensor:
    return to(self, "cpu")


def cuda(self: Tensor, device=None, non_blocking=False, memory_format=None) -> Tensor:
    return to(
        self,
        as_device(
            "cuda"
            if device is None
            else device
            if not isinstance(device, int)
            else f"cuda:{device}"
        ),
    )


def _check_leaf_inplace(t):
    _check_inplace(t)


Tensor.to = to
Tensor.type = type_
Tensor.float = _typed(_dtype.float32)
Tensor.double = _typed(_dtype.float64)
Tensor.half = _typed(_dtype.float16)
Tensor.bfloat16 = _typed(_dtype.bfloat16)
Tensor.cfloat = _typed(_dtype.complex64)
Tensor.cdouble = _typed(_dtype.complex128)
Tensor.long = _typed(_dtype.int64)
Tensor.int = _typed(_dtype.int32)
Tensor.short = _typed(_dtype.int16)
Tensor.char = _typed(_dtype.int8)
Tensor.byte = _typed(_dtype.uint8)
Tensor.bool = _typed(_dtype.bool)
Tensor.clone = clone
Tensor.contiguous = contiguous
Tensor.copy_ = copy_
Tensor.fill_ = fill_
Tensor.zero_ = zero_
Tensor.cpu = cpu
Tensor.cuda = cuda
Tensor.type_as = lambda self, other: to(self, other.dtype)
Tensor.new_tensor = lambda self, data, dtype=None, device=None, requires_grad=False: __import__(
    "ember"
).tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)
