"""Tensor creation: ``tensor``, ``as_tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/
``empty`` and their ``_like`` forms, ``arange``, ``linspace``, ``logspace``, ``eye``, and the
legacy ``Tensor(...)`` constructor.
"""

from __future__ import annotations

import builtins
import math
import warnings

from ember import _dtype, backend
from ember._device import as_device
from ember.tensor import Tensor, _init, _wrap

_cpu = backend.cpu


def _xp(device):
    return backend.for_device(as_device(device).type)


def _finish(data, requires_grad: bool) -> Tensor:
    t = _wrap(data)  # marks inference tensors itself
    if requires_grad:
        t.requires_grad_(True)
    return t


def _shape(size) -> tuple:
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(Size)``."""
    if (
        len(size) == 1
        and not isinstance(size[0], (int, Tensor))
        or (len(size) == 1 and isinstance(size[0], Tensor) and size[0].ndim == 1)
    ):
        size = tuple(size[0])
    out = []
    for s in size:
        try:
            s = s.__index__()
        except AttributeError:
            raise TypeError(
                f"size must be a tuple of ints, but got an element of type {type(s).__name__}"
            ) from None
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(s)
    return tuple(out)


def _np_dtype(dtype, default=None):
    if dtype is None:
        return (default or _dtype.get_default_dtype())._np
    return _dtype.to_np(dtype)


def _to_numpy_tree(data):
    """Convert nested sequences that may hold tensors or NumPy values to a NumPy array."""
    if isinstance(data, Tensor):
        return _device_to_numpy(data._data)
    if isinstance(data, (list, tuple)):
        if any(isinstance(x, (Tensor, list, tuple)) for x in data):
            parts = [_to_numpy_tree(x) for x in data]
            if not parts:
                return _cpu.array([], dtype=_cpu.float64)
            shapes = {p.shape for p in parts}
            if len(shapes) > 1:
                raise ValueError(
                    f"expected sequence of equal-length sequences, got shapes {sorted(shapes)}"
                )
            return _cpu.stack(parts)
    try:
        return _cpu.asarray(data)
    except (ValueError, TypeError) as e:
        raise TypeError(f"could not build a tensor from {type(data).__name__}: {e}") from None


def _device_to_numpy(data):
    xp = backend.namespace(data)
    if xp.device_type == "meta":
        raise RuntimeError("cannot read the values of a meta tensor: it holds no data")
    return xp.to_numpy(data)


def _infer_np(data, arr):
    """PyTorch's dtype inference for ``tensor(data)``: Python floats take the default dtype."""
    kind = arr.dtype.kind
    if kind in "fV" and not isinstance(data, backend.ndarray) and arr.dtype != _cpu.float16:
        if _has_numpy_or_tensor_leaf(data):
            return arr.dtype
        return _dtype.get_default_dtype()._np
    if (
        kind == "i"
        and not isinstance(data, backend.ndarray)
        and not _has_numpy_or_tensor_leaf(data)
    ):
        return _cpu.dtype("int64")
    if kind in "OUS":
        raise TypeError(f"could not infer a tensor dtype from data of NumPy kind {arr.dtype}")
    if (
        kind == "c"
        and not isinstance(data, backend.ndarray)
        and not _has_numpy_or_tensor_leaf(data)
    ):
        return _dtype.default_complex_dtype()._np  # Python complex numbers
    return arr.dtype


def _has_numpy_or_tensor_leaf(data) -> bool:
    if isinstance(data, Tensor):
        return True
    if isinstance(data, backend.generic):
        return True
    if isinstance(data, (list, tuple)) and data:
        return _has_numpy_or_tensor_leaf(data[0])
    return False


def tensor(
    data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """Build a tensor by copying ``data`` (a number, nested sequence, array or tensor).

    Example:
        >>> ember.tensor([[1, 2], [3, 4]]).dtype
        ember.int64
        >>> ember.tensor([1.0, 2.0], requires_grad=True)
        tensor([1., 2.], requires_grad=True)
    """
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "ember.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        src = data.detach()
        dev = device if device is not None else src.device
        out = src.to(device=dev, dtype=dtype, copy=True)
        return _finish(out._data, requires_grad)
    arr = _to_numpy_tree(data)
    npd = _np_dtype(dtype) if dtype is not None else _infer_np(data, arr)
    arr = backend.cast(arr, npd) if arr.dtype != npd else arr.copy()
    xp = _xp(device)
    return _finish(xp.from_numpy(arr) if xp is not _cpu else arr, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a tensor or NumPy array when it can."""
    if isinstance(data, Tensor):
        if dtype is None and device is None:
            return data
        return data.to(device=device if device is not None else data.device, dtype=dtype)
    if isinstance(data, backend.ndarray) and (device is None or as_device(device).type == "cpu"):
        npd = data.dtype if dtype is None else _np_dtype(dtype)
        _dtype.from_np(npd)
        return _wrap(data if data.dtype == npd else backend.cast(data, npd))
    return tensor(data, dtype=dtype, device=device)


asarray = as_tensor


def from_numpy(ndarray) -> Tensor:
    """A CPU tensor sharing memory with a NumPy array.

    Example:
        >>> import numpy
        >>> a = numpy.zeros(2); t = ember.from_numpy(a); t[0] = 1; float(a[0])
        1.0
    """
    if not isinstance(ndarray, backend.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_np(ndarray.dtype)
    return _wrap(ndarray)


def _filled(size, fill, dtype, device, requires_grad, default=None) -> Tensor:
    shape = _shape(size)
    xp = _xp(device)
    npd = _np_dtype(dtype, default)
    if fill is None:
        data = xp.empty(shape, dtype=npd)
    elif fill == 0:
        data = xp.zeros(shape, dtype=npd)
    else:
        data = xp.full(shape, backend.scalar_for(fill, npd), dtype=npd)
    return _finish(data, requires_grad)


def _size_keyword(size: tuple, kwargs: dict, fn: str) -> tuple:
    """``size`` of ``fn(*size, ...)`` or of ``fn(size=...)``: torch takes either form."""
    if kwargs:
        unknown = [k for k in kwargs if k != "size"]
        if unknown:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{unknown[0]}'")
        if size:
            # NOTE: matches torch: a size given both ways is refused, not merged
            raise TypeError(f"{fn}() got multiple values for argument 'size'")
        return (kwargs["size"],)
    if not size:
        # NOTE: matches torch: the size is required (``zeros(())`` is the 0-d tensor)
        raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
    return size


def zeros(
    *size,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    **kwargs,
) -> Tensor:
    """A tensor of zeros of the given size: ``zeros(2, 3)``, ``zeros((2, 3))`` or
    ``zeros(size=(2, 3))``.

    Example:
        >>> ember.zeros(size=(2, 3)).shape
        ember.Size([2, 3])
    """
    return _filled(_size_keyword(size, kwargs, "zeros"), 0, dtype, device, requires_grad)


def ones(
    *size,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    **kwargs,
) -> Tensor:
    """A tensor of ones of the given size (``*size`` or ``size=``, as ``zeros``)."""
    return _filled(_size_keyword(size, kwargs, "ones"), 1, dtype, device, requires_grad)


def empty(
    *size,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    memory_format=None,
    **kwargs,
) -> Tensor:
    """An uninitialized tensor of the given size (``*size`` or ``size=``, as ``zeros``)."""
    return _filled(_size_keyword(size, kwargs, "empty"), None, dtype, device, requires_grad)


def full(
    size,
    fill_value,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """A tensor filled with ``fill_value``; its dtype follows the value's type by default."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    default = _dtype.scalar_dtype(fill_value) if dtype is None else None
    return _filled(
        (size,) if isinstance(size, int) else (tuple(size),),
        fill_value,
        dtype,
        device,
        requires_grad,
        default,
    )


def _like(input: Tensor, fill, dtype, device, requires_grad) -> Tensor:
    if dtype is None:
        dtype = input.dtype
    if device is None:
        device = input.device
    return _filled((tuple(input._data.shape),), fill, dtype, device, requires_grad)


def zeros_like(
    input,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
) -> Tensor:
    return _like(input, 0, dtype, device, requires_grad)


def ones_like(
    input,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
) -> Tensor:
    return _like(input, 1, dtype, device, requires_grad)


def empty_like(
    input,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
) -> Tensor:
    return _like(input, None, dtype, device, requires_grad)


def full_like(
    input,
    fill_value,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _like(input, fill_value, dtype, device, requires_grad)


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _real_bound(v):
    """A complex bound of ``arange`` as a real number (torch's error if it has an imaginary
    part)."""
    if v.__class__ is not complex:
        return v
    if v.imag != 0:
        raise RuntimeError("value cannot be converted to type double without overflow")
    return v.real


def arange(
    start=0,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 unless a bound is a float."""
    start, end, step = _num(start), _num(end), _num(step)
    if complex in (start.__class__, end.__class__, step.__class__):
        start, end, step = (_real_bound(v) for v in (start, end, step))
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError(
            f"upper bound and larger bound inconsistent with step sign: start={start}, "
            f"end={end}, step={step}"
        )
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        npd = _dtype.get_default_dtype()._np if is_float else _cpu.dtype("int64")
    else:
        npd = _np_dtype(dtype)
        if npd.kind == "c":
            name = _dtype.SCALAR_NAMES[_dtype.from_np(npd).name]
            raise NotImplementedError(f"\"arange_cpu\" not implemented for '{name}'")
    n = max(0, math.ceil((end - start) / step))
    xp = _xp(device)
    if xp.device_type == "meta":
        data = xp.empty((n,), dtype=npd)
    else:
        # NOTE: matches torch: values are start + i * step computed in double, then cast.
        data = (
            xp.asarray(_cpu.arange(n, dtype=_cpu.float64) * step + start).astype(npd)
            if npd.kind in "fV"
            else xp.asarray(_cpu.arange(start, start + n * step, step)[:n].astype(npd))
        )
    return _finish(data, requires_grad)


def range(  # noqa: A001
    start=0,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """Deprecated in PyTorch: like ``arange`` but includes ``end`` and defaults to float."""
    if end is None:
        start, end = 0, start
    n = builtins.int(math.floor((end - start) / step)) + 1
    npd = _np_dtype(dtype)
    xp = _xp(device)
    data = xp.asarray((_cpu.arange(n, dtype=_cpu.float64) * step + start).astype(npd))
    return _finish(data, requires_grad)


def _linspace_complex_dtype(dtype):
    """linspace's dtype for complex bounds: the default complex dtype, or ``dtype`` if complex."""
    inferred = _dtype.get_default_dtype().to_complex()
    if dtype is None:
        return inferred._np
    if not _dtype.to_np(dtype).kind == "c":
        raise RuntimeError(
            f"torch.linspace(): inferred dtype {_CPP_NAMES[inferred.name]} can't be safely cast "
            f"to passed dtype {_dtype.SCALAR_NAMES[dtype.name]}"
        )
    return _dtype.to_np(dtype)


_CPP_NAMES = {"complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def linspace(
    start,
    end,
    steps,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """``steps`` values evenly spaced from ``start`` to ``end`` inclusive."""
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if isinstance(start, complex) or isinstance(end, complex):
        npd = _linspace_complex_dtype(dtype)
    else:
        npd = _np_dtype(dtype)
    xp = _xp(device)
    if xp.device_type == "meta":
        return _finish(xp.empty((steps,), dtype=npd), requires_grad)
    # NOTE: matches torch: the second half is computed backwards from ``end`` (symmetric).
    i = _cpu.arange(steps, dtype=_cpu.float64)
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    half = steps // 2
    vals = _cpu.where(i < half, start + step * i, end - step * (steps - 1 - i))
    if npd.kind in "iu":
        vals = _cpu.trunc(vals)
    return _finish(xp.asarray(vals.astype(npd)), requires_grad)


def logspace(
    start,
    end,
    steps,
    base=10.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """``base ** linspace(start, end, steps)``."""
    npd = _np_dtype(dtype)
    cplx = npd.kind == "c" or isinstance(_num(start), complex) or isinstance(_num(end), complex)
    if cplx and dtype is None:
        npd = _linspace_complex_dtype(None)
    lin = linspace(start, end, steps, dtype=_dtype.complex128 if cplx else _dtype.float64)
    xp = _xp(device)
    return _finish(xp.asarray((base**lin._data).astype(npd)), requires_grad)


def eye(
    n,
    m=None,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """A 2-D tensor with ones on the diagonal."""
    m = n if m is None else m
    xp = _xp(device)
    return _finish(xp.eye(n, m, dtype=_np_dtype(dtype)), requires_grad)


def scalar_tensor(
    s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False
) -> Tensor:
    return _finish(_xp(device).asarray(s, dtype=_np_dtype(dtype)), requires_grad)


def _legacy_new(cls, *args, **kwargs):
    """``Tensor(*sizes)`` (uninitialized), ``Tensor(data)`` or ``Tensor()`` (empty), in the
    default dtype; ``Tensor(tensor)`` shares the tensor's data, whatever its dtype."""
    device = kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"Tensor() got unexpected keyword arguments {sorted(kwargs)}")
    t = object.__new__(cls)
    # NOTE: matches torch: the legacy constructor follows set_default_dtype (float32 unless set)
    npd = _dtype.get_default_dtype()._np
    if not args:
        data = _xp(device).empty((0,), dtype=npd)
    elif all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        data = _xp(device).empty(tuple(args), dtype=npd)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        data = args[0]._data
    elif len(args) == 1:
        arr = _to_numpy_tree(args[0])
        if npd.itemsize == 2:  # half types: Python floats round through float32, as tensor()
            arr = arr.astype(_dtype.float32._np)
        arr = arr.astype(npd)
        xp = _xp(device)
        data = arr if xp is _cpu else xp.from_numpy(arr)
    else:
        raise TypeError(f"Tensor() expects sizes or one data argument, got {args!r}")
    return _init(t, data)


# ---- Tensor.new_* (same dtype and device as the tensor unless given) -------------------------
def _new(fill):
    def method(
        self,
        *size,
        dtype=None,
        layout=None,
        device=None,
        pin_memory=False,
        requires_grad=False,
        **kwargs,
    ):
        size = _size_keyword(size, kwargs, method.__name__)
        return _filled(size, fill, dtype or self.dtype, device or self.device, requires_grad)

    return method


Tensor.new_zeros = _new(0)
Tensor.new_ones = _new(1)
Tensor.new_empty = _new(None)
Tensor.new_zeros.__name__ = "new_zeros"
Tensor.new_ones.__name__ = "new_ones"
Tensor.new_empty.__name__ = "new_empty"


def _new_full(
    self,
    size,
    fill_value,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _filled(
        (size,) if isinstance(size, int) else (tuple(size),),
        fill_value,
        dtype or self.dtype,
        device or self.device,
        requires_grad,
    )


Tensor.new_full = _new_full
Tensor.new_zeros.__doc__ = "Zeros of ``size`` with this tensor's dtype and device by default."
Tensor.new_ones.__doc__ = "Ones of ``size`` with this tensor's dtype and device by default."
Tensor.new_empty.__doc__ = "Uninitialized, of ``size``, with this tensor's dtype and device."


# ---- triangle indices ---------------------------------------------------------------------------
def _tri_indices(name, lower):
    def fn(
        row: int,
        col: int,
        offset: int = 0,
        *,
        dtype=None,
        device=None,
        layout=None,
        pin_memory=False,
    ) -> Tensor:
        for arg, v in (("row", row), ("col", col)):
            if v < 0:
                raise RuntimeError(f"{arg} must be non-negative, got{v}")
        xp = _xp(device)
        npd = _np_dtype(dtype, _dtype.int64)
        if npd.kind not in "iu":
            raise RuntimeError(f"\"{name}\" not implemented for '{_dtype.from_np(npd).name}'")
        idx = (xp.tril_indices if lower else xp.triu_indices)(row, offset, col)
        return _finish(xp.stack(idx).astype(npd), False)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"The (2, N) row and column indices of the {'lower' if lower else 'upper'} "
        f"triangle of a ``row x col`` matrix (diagonal ``offset``), row-major."
    )
    return fn


tril_indices = _tri_indices("tril_indices", True)
triu_indices = _tri_indices("triu_indices", False)
