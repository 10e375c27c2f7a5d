"""What PyTorch's checkpoint globals mean to ember: storages, dtypes and the rebuild functions.

A checkpoint pickle names ``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``,
``torch.float32``... The tables here give the ember object that stands for each name; the
restricted unpickler allows exactly ``ALLOWED`` and the full one maps ``torch.*`` names through
the same table. Every rebuild function checks its arguments (a corrupt file must give a clean
error, never a view outside the storage's memory).
"""

from __future__ import annotations

import codecs
import math
from collections import Counter, OrderedDict

from ember import _dtype, backend
from ember._device import device
from ember.backend import _storage
from ember.tensor import Size, Tensor, _init, _wrap


class TorchDtype:
    """A PyTorch dtype that ember lacks (``torch.bfloat16``...): loads as a name, and a tensor
    of it raises an error that says so."""

    __slots__ = ("name", "itemsize")

    def __init__(self, name: str, itemsize: int):
        self.name, self.itemsize = name, itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_missing_dtype, (self.name,))


_MISSING_DTYPES = {
    name: TorchDtype(name, size)
    for name, size in (
        ("bfloat16", 2),
        ("complex32", 4),
        ("complex64", 8),
        ("complex128", 16),
        ("uint16", 2),
        ("uint32", 4),
        ("uint64", 8),
        ("float8_e4m3fn", 1),
        ("float8_e5m2", 1),
        ("float8_e4m3fnuz", 1),
        ("float8_e5m2fnuz", 1),
        ("float8_e8m0fnu", 1),
        ("float4_e2m1fn_x2", 1),
        ("qint8", 1),
        ("quint8", 1),
        ("qint32", 4),
        ("quint4x2", 1),
        ("quint2x4", 1),
        ("bits1x8", 1),
        ("bits2x4", 1),
        ("bits4x2", 1),
        ("bits8", 1),
        ("bits16", 2),
    )
    if name not in _dtype._BY_NAME
}


def _missing_dtype(name: str) -> TorchDtype:
    return _MISSING_DTYPES[name]


def dtype_named(name: str):
    """The ember dtype, or the ``TorchDtype`` stand-in, of PyTorch's dtype ``name``."""
    d = _dtype._BY_NAME.get(name)
    return d if d is not None else _MISSING_DTYPES.get(name)


# ---- storages --------------------------------------------------------------------------------


class StorageType:
    """A legacy storage class named in a checkpoint (``torch.FloatStorage``...): stands for the
    dtype of a persistent storage id.

    Args:
        name: the class name as pickles write it (``"FloatStorage"``).

    Raises:
        KeyError: ``name`` is not one of PyTorch's legacy storage classes.

    Example:
        >>> ember.serialization.StorageType("HalfStorage").dtype
        ember.float16
    """

    __slots__ = ("name", "dtype")

    def __init__(self, name: str, dtype=None):
        if dtype is None:
            found = STORAGE_TYPES.get(name)
            if found is None:
                raise KeyError(f'pickle storage type "{name}" is not recognized')
            dtype = found.dtype
        self.name, self.dtype = name, dtype

    def __str__(self) -> str:
        return f"StorageType(dtype={self.dtype})"

    def __repr__(self) -> str:
        return f"<storage type torch.{self.name}>"


_STORAGE_DTYPES = {
    **{f"{scalar}Storage": name for name, scalar in _dtype.SCALAR_NAMES.items()},
    # torch's dtypes that ember lacks: named placeholders (a tensor of one raises on load)
    "QInt8Storage": "qint8",
    "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32",
    "QUInt4x2Storage": "quint4x2",
    "QUInt2x4Storage": "quint2x4",
}
STORAGE_TYPES = {name: StorageType(name, dtype_named(d)) for name, d in _STORAGE_DTYPES.items()}
UNTYPED = StorageType("UntypedStorage", _dtype.uint8)


class UntypedStorage:
    """The bytes of one checkpoint storage, as a ``map_location`` callable receives them.

    ``map_location=lambda storage, loc: storage`` keeps everything on the CPU, as in PyTorch;
    ``storage.to("meta")`` drops the data.

    Example:
        >>> import io
        >>> buf = io.BytesIO()
        >>> ember.save({"w": ember.ones(2)}, buf)
        >>> _ = buf.seek(0)
        >>> ember.load(buf, map_location=lambda s, loc: s.to("meta"))["w"].device
        device(type='meta')
    """

    __slots__ = ("_raw", "_nbytes", "device")

    def __init__(self, raw, nbytes: int, device_: device):
        self._raw = raw  # a flat uint8 array, or None on the meta device
        self._nbytes = nbytes
        self.device = device_

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    __len__ = size

    def cpu(self) -> UntypedStorage:
        return self.to("cpu")

    def to(self, device_) -> UntypedStorage:
        d = device(device_)
        if d.type == self.device.type:
            return self
        if d.type == "meta":
            return UntypedStorage(None, self._nbytes, d)
        if d.type == "cpu":
            raise RuntimeError("Cannot copy out of meta tensor; no data!")
        raise _no_device(str(d))

    def __repr__(self) -> str:
        return f"<UntypedStorage of {self._nbytes} bytes on {self.device}>"


class TypedStorage:
    """A storage as a persistent id names it: bytes plus the dtype of its elements."""

    __slots__ = ("untyped", "dtype")

    def __init__(self, untyped: UntypedStorage, dtype):
        self.untyped, self.dtype = untyped, dtype

    def __repr__(self) -> str:
        return f"<TypedStorage {self.dtype} of {self.untyped.nbytes()} bytes>"


def _no_device(location: str) -> RuntimeError:
    if location.startswith("cuda"):
        return RuntimeError(
            f"Attempting to deserialize object on a CUDA device ({location}) but ember has no "
            "CUDA backend (ember.cuda.is_available() is False). If you are running on a "
            "CPU-only machine, use ember.load with map_location=ember.device('cpu') to map "
            "your storages to the CPU."
        )
    return RuntimeError(
        f"don't know how to restore data location {location!r}: ember "
        "supports 'cpu' and 'meta' (pass map_location='cpu')"
    )


def check_location(location) -> device:
    """The ember device for a storage location string of a checkpoint ('cpu', 'cuda:0'...)."""
    if not isinstance(location, str):
        raise RuntimeError(f"a storage location must be a string, got {location!r}")
    if location == "cpu" or location.startswith("cpu:"):
        return device("cpu")
    if location == "meta":
        return device("meta")
    raise _no_device(location)


# ---- tensors ---------------------------------------------------------------------------------


def _ints(value, what: str) -> tuple:
    if not isinstance(value, (tuple, list)) or not all(
        type(v) is int or type(v) is bool for v in value
    ):  # noqa: E721  (exact int)
        raise RuntimeError(f"tensor {what} must be a tuple of ints, got {value!r:.200}")
    return tuple(int(v) for v in value)


def _ember_dtype(d, context: str):
    if isinstance(d, TorchDtype):
        raise RuntimeError(
            f"the checkpoint holds a tensor of dtype torch.{d.name} ({context}); ember has no "
            f"such dtype (it has {', '.join(x.name for x in _dtype.all_dtypes)}). Convert it "
            "in PyTorch first, e.g. tensor.float()"
        )
    if d.__class__ is not _dtype.dtype:
        raise RuntimeError(f"expected a dtype, got {d!r:.200} ({context})")
    return d


def tensor_from_storage(storage, offset, size, stride, dtype=None) -> Tensor:
    """A tensor viewing ``storage`` (a TypedStorage) with PyTorch's offset/size/stride,
    bounds-checked."""
    if storage.__class__ is not TypedStorage:
        raise RuntimeError(f"expected a storage, got {type(storage).__name__}")
    dt = _ember_dtype(storage.dtype if dtype is None else dtype, "rebuilding a tensor")
    if type(offset) is not int:
        raise RuntimeError(f"tensor storage offset must be an int, got {offset!r:.100}")
    size = _ints(size, "size")
    stride = _ints(stride, "stride")
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: size {list(size)}, stride {list(stride)}"
        )
    if any(s < 0 for s in size):
        raise RuntimeError(f"negative dimension in tensor size {list(size)}")
    if offset < 0 or any(s < 0 for s in stride):
        raise RuntimeError(
            f"tensor storage offset {offset} and strides {list(stride)} must be non-negative"
        )
    us = storage.untyped
    isz = dt.itemsize
    numel = math.prod(size)
    if us.device.type == "meta":
        return _wrap(backend.for_device("meta").empty(size, dtype=dt._np))
    capacity = us._nbytes // isz
    if numel:
        need = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
        if need > capacity:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{offset}, and itemsize {isz} requiring a storage size of {need * isz} are "
                f"out of bounds for storage of size {us._nbytes}"
            )
    raw = us._raw
    if raw.nbytes % isz:
        raw = raw[: capacity * isz]
    try:
        arr = _storage.strided(_storage.typed(raw, dt._np), size, stride, offset)
    except (ValueError, MemoryError) as e:  # a shape NumPy cannot represent (too big)
        raise RuntimeError(f"cannot rebuild a tensor of size {list(size)}: {e}") from None
    return _wrap(arr)


def _requires_grad(t: Tensor, requires_grad) -> Tensor:
    if requires_grad:
        if requires_grad is not True:
            raise RuntimeError(f"requires_grad must be a bool, got {requires_grad!r:.100}")
        t.requires_grad_(True)
    return t


def rebuild_tensor(storage, storage_offset, size, stride):
    return tensor_from_storage(storage, storage_offset, size, stride)


def rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None, metadata=None
):
    return _requires_grad(tensor_from_storage(storage, storage_offset, size, stride), requires_grad)


def rebuild_tensor_v3(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None
):
    return _requires_grad(
        tensor_from_storage(storage, storage_offset, size, stride, dtype), requires_grad
    )


def rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad=False):
    dt = _ember_dtype(dtype, "rebuilding a meta tensor")
    size = _ints(size, "size")
    _ints(stride, "stride")
    if any(s < 0 for s in size):
        raise RuntimeError(f"negative dimension in tensor size {list(size)}")
    return _requires_grad(
        _wrap(backend.for_device("meta").empty(size, dtype=dt._np)), requires_grad
    )


def rebuild_device_tensor_from_cpu_tensor(data, dtype, device_, requires_grad):
    if not isinstance(data, Tensor):
        raise RuntimeError(f"expected a tensor, got {type(data).__name__}")
    dt = _ember_dtype(dtype, "rebuilding a device tensor")
    d = check_location(str(device_))
    return _requires_grad(data.to(device=d, dtype=dt), requires_grad)


def _parameter(data, requires_grad):
    from ember.nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise RuntimeError(f"a Parameter's data must be a tensor, got {type(data).__name__}")
    if type(requires_grad) is not bool:
        raise RuntimeError(f"requires_grad must be a bool, got {requires_grad!r:.100}")
    return Parameter(data, requires_grad)


def rebuild_parameter(data, requires_grad, backward_hooks):
    return _parameter(data, requires_grad)


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return set_obj_state(_parameter(data, requires_grad), state)


def set_obj_state(obj, state):
    """Restore attributes a user set on a tensor (PyTorch saves them with it)."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state!r:.200}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    cls = type(obj)
    for part in (dict_state, slots_state):
        if not part:
            continue
        if not isinstance(part, dict):
            raise RuntimeError(f"Invalid serialized state: {part!r:.200}")
        for k, v in part.items():
            # ember's own bookkeeping (class-level defaults such as ``_hooks``) is not state
            # a file may set.
            if type(k) is not str or hasattr(cls, k):
                raise RuntimeError(f"invalid tensor attribute {k!r:.100} in serialized state")
            obj.__dict__[k] = v
    return obj


def _as_subclass(t: Tensor, cls) -> Tensor:
    new = object.__new__(cls)
    _init(new, t._data, t._requires_grad)
    new._vc = t._vc
    return new


def rebuild_from_type_v2(func, new_type, args, state):
    if func not in _REBUILD_FUNCS:
        raise RuntimeError(f"_rebuild_from_type_v2: {func!r:.100} is not a tensor rebuild function")
    if not isinstance(args, tuple):
        raise RuntimeError(f"_rebuild_from_type_v2: args must be a tuple, got {args!r:.100}")
    ret = func(*args)
    if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
        raise RuntimeError(f"_rebuild_from_type_v2: {new_type!r:.100} is not a tensor type")
    if type(ret) is not new_type:
        ret = _as_subclass(ret, new_type)
    if getattr(new_type, "__setstate__", None) is not None:
        ret.__setstate__(state)
    else:
        set_obj_state(ret, state)
    return ret


def rebuild_qtensor(
    storage, storage_offset, size, stride, quantizer_params, requires_grad, backward_hooks
):
    """A quantized tensor: its integers viewed from ``storage`` (a QUInt8Storage...) and the
    quantizer ``(qscheme, scale, zero_point)`` or ``(qscheme, scales, zero_points, axis)``."""
    from ember.ops._quantized_array import PER_CHANNEL, QuantizedArray

    qdtype = storage.dtype if storage.__class__ is TypedStorage else None
    if qdtype not in _dtype._QUANTIZED:
        raise RuntimeError(f"_rebuild_qtensor: expected a quantized storage, got {qdtype!r:.100}")
    if _dtype._QUANTIZED[qdtype][2] < 8:
        raise RuntimeError(
            f"_rebuild_qtensor: ember does not load packed {qdtype} tensors from checkpoints"
        )
    repr_dtype = _dtype.from_np(qdtype._np.repr_np)
    values = tensor_from_storage(storage, storage_offset, size, stride, repr_dtype)._data
    if not isinstance(quantizer_params, tuple) or not quantizer_params:
        raise RuntimeError(f"_rebuild_qtensor: bad quantizer params {quantizer_params!r:.100}")
    scheme = quantizer_params[0]
    if scheme.__class__ is not _dtype.qscheme:
        raise RuntimeError(f"_rebuild_qtensor: bad quantization scheme {scheme!r:.100}")
    if scheme in PER_CHANNEL:
        if len(quantizer_params) != 4:
            raise RuntimeError(
                "_rebuild_qtensor: per-channel params are (qscheme, scales, zero_points, axis)"
            )
        _, scales, zps, axis = quantizer_params
        if type(axis) is not int or not 0 <= axis < len(values.shape):
            raise RuntimeError(
                f"_rebuild_qtensor: per_channel axis {axis!r:.50} out of range "
                f"for size {tuple(values.shape)}"
            )
        xp = backend.cpu
        s = xp.asarray(scales.numpy() if isinstance(scales, Tensor) else scales, dtype="float64")
        zraw = zps.numpy() if isinstance(zps, Tensor) else xp.asarray(zps)
        if s.shape != (values.shape[axis],) or zraw.shape != (values.shape[axis],):
            raise RuntimeError(
                f"_rebuild_qtensor: per_channel scales/zero_points length must equal "
                f"size[axis]={values.shape[axis]}, got {s.shape} and {zraw.shape}"
            )
        # NOTE: matches torch: float-qparams tensors are saved as per_channel_affine, their
        # float zero points telling the schemes apart
        if zraw.dtype.kind == "f" or scheme is _dtype.per_channel_affine_float_qparams:
            scheme = _dtype.per_channel_affine_float_qparams
            sdt = scales.numpy().dtype if isinstance(scales, Tensor) else zraw.dtype
            s, z = s.astype(sdt if sdt.kind == "f" else "float32"), zraw.copy()
        else:
            z = zraw.astype("int64")
        arr = QuantizedArray(values, qdtype, scheme, s, z, axis)
    else:
        if len(quantizer_params) != 3:
            raise RuntimeError(
                "_rebuild_qtensor: per-tensor params are (qscheme, scale, zero_point)"
            )
        _, scale, zp = quantizer_params
        arr = QuantizedArray(values, qdtype, scheme, float(scale), int(zp))
    if requires_grad:
        raise RuntimeError("_rebuild_qtensor: a quantized tensor cannot require grad")
    return _wrap(arr)


def _unsupported(kind: str, name: str):
    def rebuild(*args, **kwargs):
        raise RuntimeError(
            f"the checkpoint holds a {kind} tensor (torch._utils.{name}); "
            "ember supports dense strided tensors only"
        )

    rebuild.__name__ = name
    return rebuild


def get_layout(name):
    if name != "torch.strided":
        raise RuntimeError(
            f"the checkpoint uses tensor layout {name!r:.100}; ember supports torch.strided only"
        )
    return "torch.strided"


# ---- safe stand-ins for the builtins PyTorch allows ------------------------------------------


def codecs_encode(obj, encoding="utf-8", errors="strict"):
    """``_codecs.encode`` as protocol-2 pickles use it for bytes: text codecs only."""
    if type(obj) is not str or codecs.lookup(encoding).name not in (
        "latin-1",
        "iso8859-1",
        "utf-8",
        "ascii",
    ):
        raise RuntimeError(
            f"_codecs.encode is allowed for text codecs on str only, got "
            f"{type(obj).__name__} with {encoding!r:.50}"
        )
    return codecs.encode(obj, encoding, errors)


def safe_bytearray(*args):
    """``bytearray`` without the ``bytearray(n)`` form (a file must not allocate at will)."""
    if args and isinstance(args[0], int):
        raise RuntimeError("bytearray(<int>) is not allowed in a checkpoint")
    return bytearray(*args)


def _size(*args):
    if len(args) != 1:
        raise RuntimeError(f"torch.Size takes one sequence of ints, got {len(args)} arguments")
    return Size(_ints(tuple(args[0]) if isinstance(args[0], (list, tuple)) else args[0], "Size"))


def _device(*args):
    return device(*args)


_REBUILD_FUNCS = {
    rebuild_tensor,
    rebuild_tensor_v2,
    rebuild_tensor_v3,
    rebuild_meta_tensor_no_storage,
    rebuild_device_tensor_from_cpu_tensor,
    rebuild_parameter,
    rebuild_parameter_with_state,
}


def allowed_globals() -> dict[str, object]:
    """``"module.name"`` -> the ember object, for every global a weights-only load accepts.

    PyTorch's allow-list (``torch/_weights_only_unpickler.py``), less what ember cannot hold:
    plain containers, tensor rebuild functions, storage types, dtypes, ``Size``, ``device``,
    ``Parameter``.
    """
    from ember.nn.parameter import Parameter

    table: dict[str, object] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "builtins.set": set,
        "builtins.frozenset": frozenset,
        "builtins.bytearray": safe_bytearray,
        "builtins.complex": complex,
        "_codecs.encode": codecs_encode,
        "torch.Size": _size,
        "torch.device": _device,
        "torch.Tensor": Tensor,
        "torch._tensor.Tensor": Tensor,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": get_layout,
        "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
        "torch._utils._rebuild_tensor": rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": rebuild_parameter_with_state,
        "torch._utils._rebuild_meta_tensor_no_storage": rebuild_meta_tensor_no_storage,
        "torch._utils._rebuild_device_tensor_from_cpu_tensor": (
            rebuild_device_tensor_from_cpu_tensor
        ),
    }
    for kind, name in (
        ("sparse", "_rebuild_sparse_tensor"),
        ("nested", "_rebuild_nested_tensor"),
        ("wrapper-subclass", "_rebuild_wrapper_subclass"),
        ("NumPy-backed device", "_rebuild_device_tensor_from_numpy"),
    ):
        table[f"torch._utils.{name}"] = _unsupported(kind, name)
    table["torch._utils._rebuild_qtensor"] = rebuild_qtensor
    for d in (*_dtype.all_dtypes, *_dtype._QUANTIZED):
        table[f"torch.{d.name}"] = d
    for q in (
        _dtype.per_tensor_affine,
        _dtype.per_channel_affine,
        _dtype.per_tensor_symmetric,
        _dtype.per_channel_symmetric,
        _dtype.per_channel_affine_float_qparams,
    ):
        table[f"torch.{q.name}"] = q
    for name, d in _MISSING_DTYPES.items():
        table[f"torch.{name}"] = d
    for name, st in STORAGE_TYPES.items():
        table[f"torch.{name}"] = st
        table[f"torch.cuda.{name}"] = st
    table["torch.storage.UntypedStorage"] = UNTYPED
    table["torch.UntypedStorage"] = UNTYPED
    return table


# Functions and classes a weights-only load may call (REDUCE/NEWOBJ); other allowed globals
# (dtypes, storage types, Tensor) may only be referenced.
def callable_globals(table: dict[str, object]) -> set[int]:
    from ember.nn.parameter import Parameter

    refs_only = (Tensor,)
    ids = {
        id(v)
        for v in table.values()
        if callable(v)
        and v not in refs_only
        and not isinstance(v, (StorageType, TorchDtype, _dtype.dtype, _dtype.qscheme))
    }
    ids.add(id(Parameter))
    return ids
