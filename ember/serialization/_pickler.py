"""The pickler that writes PyTorch's checkpoint pickle (``data.pkl``) without PyTorch.

A tensor becomes ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())`` with the storage as a persistent id ``('storage',
torch.<Type>Storage, key, location, numel)``; a Parameter wraps that in
``torch._utils._rebuild_parameter``; dtypes, ``Size`` and ``device`` become ``torch.float32``,
``torch.Size``, ``torch.device``. Those names are written as GLOBAL opcodes by ``save_global``
below, which never imports torch: Python's C pickler insists on importing every global it
writes, so this is a subclass of the pure-Python ``pickle._Pickler`` (the pickle of a state dict
is small: tensor bytes go to the storages, not through the pickler).
"""

from __future__ import annotations

import pickle
from collections import OrderedDict

from ember import _dtype, backend
from ember._device import device
from ember.backend import _storage
from ember.serialization import _options
from ember.tensor import Size, Tensor


class TorchName:
    """A global of PyTorch's that a checkpoint pickle refers to by name."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __repr__(self) -> str:
        return f"<{self.module}.{self.name}>"

    def __call__(self, *args):  # pickle insists that a reduce function be callable
        raise TypeError(f"{self!r} is a name to write into a checkpoint, not a function")


REBUILD_TENSOR_V2 = TorchName("torch._utils", "_rebuild_tensor_v2")
REBUILD_TENSOR_V3 = TorchName("torch._utils", "_rebuild_tensor_v3")
REBUILD_PARAMETER = TorchName("torch._utils", "_rebuild_parameter")
REBUILD_PARAMETER_WITH_STATE = TorchName("torch._utils", "_rebuild_parameter_with_state")
REBUILD_META = TorchName("torch._utils", "_rebuild_meta_tensor_no_storage")
REBUILD_FROM_TYPE_V2 = TorchName("torch._tensor", "_rebuild_from_type_v2")
REBUILD_QTENSOR = TorchName("torch._utils", "_rebuild_qtensor")

# PyTorch's legacy typed-storage class per dtype (``FloatStorage``...): the storage type of a
# persistent id, named after the dtype's ScalarType name.
# The newer dtypes (uint16/32/64, float8) have none: PyTorch saves them as an UntypedStorage
# (numel in bytes) rebuilt by ``_rebuild_tensor_v3`` with the dtype as its last argument.
STORAGE_NAMES = {name: f"{scalar}Storage" for name, scalar in _dtype.SCALAR_NAMES.items()}
_LEGACY = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
_LEGACY += ("bfloat16", "complex64", "complex128")
UNTYPED_STORAGE = TorchName("torch.storage", "UntypedStorage")
_STORAGE_TYPES = {
    d: TorchName("torch", STORAGE_NAMES[d.name]) if d.name in _LEGACY else UNTYPED_STORAGE
    for d in _dtype.all_dtypes
}
_STORAGE_TYPES.update((d, TorchName("torch", STORAGE_NAMES[d.name])) for d in _dtype._QUANTIZED)
_QSCHEMES = (
    _dtype.per_tensor_affine,
    _dtype.per_channel_affine,
    _dtype.per_tensor_symmetric,
    _dtype.per_channel_symmetric,
    _dtype.per_channel_affine_float_qparams,
)


def _global_names() -> dict[int, tuple[str, str, object]]:
    from ember.nn.parameter import Parameter

    names = {
        id(g): (g.module, g.name, g)
        for g in (
            REBUILD_TENSOR_V2,
            REBUILD_TENSOR_V3,
            REBUILD_PARAMETER,
            REBUILD_PARAMETER_WITH_STATE,
            REBUILD_META,
            REBUILD_FROM_TYPE_V2,
            REBUILD_QTENSOR,
            *set(_STORAGE_TYPES.values()),
        )
    }
    for d in (*_dtype.all_dtypes, *_dtype._QUANTIZED, *_QSCHEMES):
        names[id(d)] = ("torch", d.name, d)
    names[id(Size)] = ("torch", "Size", Size)
    names[id(device)] = ("torch", "device", device)
    names[id(Tensor)] = ("torch", "Tensor", Tensor)
    names[id(Parameter)] = ("torch.nn.parameter", "Parameter", Parameter)
    return names


_NAMES: dict[int, tuple[str, str, object]] = {}


class _Reduced:
    """An object that pickles as the reduce tuple ``rv`` (the inner tensor of a Parameter)."""

    __slots__ = ("rv",)

    def __init__(self, rv):
        self.rv = rv


class _StorageRef:
    __slots__ = ("pid",)

    def __init__(self, pid):
        self.pid = pid


def _user_state(t: Tensor) -> dict:
    """The attributes a user set on a tensor (not ember's bookkeeping), which PyTorch keeps."""
    d = t.__dict__
    if not d:
        return {}
    cls = type(t)
    return {k: v for k, v in d.items() if k != "_is_buffer" and not hasattr(cls, k)}


def _pickler_class(base):
    class CheckpointPickler(base):
        """Pickles ``obj`` to ``file``; the storages it meets are listed in ``storages``."""

        def __init__(self, file, protocol):
            super().__init__(file, protocol)
            if not _NAMES:
                _NAMES.update(_global_names())
            self.storages: list[tuple[str, object]] = []  # (key, flat uint8 array)
            self._by_memory: dict[tuple[int, int], tuple[str, object, int]] = {}

        def persistent_id(self, obj):
            if obj.__class__ is _StorageRef:
                return obj.pid
            return None

        def reducer_override(self, obj):
            cls = obj.__class__
            if cls is _Reduced:
                return obj.rv
            if isinstance(obj, Tensor):
                return self._reduce_tensor(obj)
            if cls is Size:
                return (Size, (tuple(obj),))
            if cls is device:
                return (device, (str(obj),))
            return NotImplemented

        def save_global(self, obj, name=None):
            entry = _NAMES.get(id(obj))
            if entry is None or entry[2] is not obj:
                return super().save_global(obj, name)
            module, gname = entry[0], entry[1]
            if self.proto >= 4:
                self.save(module)
                self.save(gname)
                self.write(pickle.STACK_GLOBAL)
            else:
                self.write(pickle.GLOBAL + f"{module}\n{gname}\n".encode())
            self.memoize(obj)

        dispatch = dict(base.dispatch)
        dispatch[TorchName] = save_global

        # ---- tensors ---------------------------------------------------------------------
        def _reduce_tensor(self, t: Tensor):
            from ember.nn.parameter import Parameter

            arr = t._data
            if arr.dtype.__class__ is _dtype._QuantizedNp:
                return self._reduce_qtensor(t)
            xp = backend.namespace(arr)
            dt = _dtype.from_np(arr.dtype)
            rg = t._requires_grad
            if xp.device_type == "meta":
                if _options.tls.skip_data:
                    _options.warn_meta_skip()
                inner = (REBUILD_META, (dt, tuple(arr.shape), tuple(xp.strides_of(arr)), False))
            else:
                location = "cpu"
                if xp.device_type != "cpu":
                    location = f"cuda:{xp.device_index(arr) or 0}"
                    arr = xp.to_numpy(arr)
                ref, offset, strides = self._storage(arr, dt, location)
                args = (ref, offset, tuple(arr.shape), strides, False, OrderedDict())
                if _STORAGE_TYPES[dt] is UNTYPED_STORAGE:
                    inner = (REBUILD_TENSOR_V3, (*args, dt))
                else:
                    inner = (REBUILD_TENSOR_V2, args)
            state = _user_state(t)
            if isinstance(t, Parameter):
                if state:
                    return (
                        REBUILD_PARAMETER_WITH_STATE,
                        (_Reduced(inner), rg, OrderedDict(), state),
                    )
                return (REBUILD_PARAMETER, (_Reduced(inner), rg, OrderedDict()))
            func, args = inner
            if rg:
                args = _with_requires_grad(func, args)
            if type(t) is not Tensor or state:
                return (REBUILD_FROM_TYPE_V2, (func, type(t), args, state))
            return (func, args)

        def _reduce_qtensor(self, t: Tensor):
            """``torch._utils._rebuild_qtensor(storage, offset, size, stride, quantizer,
            False, OrderedDict())``, the integers in a QUInt8Storage (QInt8, QInt32)."""
            a = t._data
            if _dtype._QUANTIZED[a.qdtype][2] < 8:
                raise NotImplementedError(
                    f"ember.save: packed {a.qdtype} tensors are not saved by ember; save "
                    "t.int_repr() and the quantization parameters instead"
                )
            ref, offset, strides = self._storage(a.values, a.qdtype, "cpu")
            if a.axis is None:
                params = (a.qscheme, a.scale, a.zero_point)
            else:
                from ember.tensor import _wrap

                # NOTE: matches torch: float-qparams tensors are written as per_channel_affine
                # (their float zero points tell the schemes apart on load)
                params = (_dtype.per_channel_affine, _wrap(a.scale), _wrap(a.zero_point), a.axis)
            args = (ref, offset, tuple(a.shape), strides, params, False, OrderedDict())
            return (REBUILD_QTENSOR, args)

        def _storage(self, arr, dt, location):
            isz = dt.itemsize
            st = _storage.storage_of(arr)
            if st is not None:
                raw, off = st
                if off % isz or raw.nbytes % isz or any(s % isz for s in arr.strides):
                    st = None
            if st is None:  # not expressible as storage + strides: save a contiguous copy
                arr = _storage.contiguous(arr).copy() if arr.size else _storage.contiguous(arr)
                raw, off = _storage.storage_of(arr)
            mem = (raw.__array_interface__["data"][0], raw.nbytes)
            found = self._by_memory.get(mem) if raw.nbytes else None
            if found is None:
                key = str(len(self.storages))
                self.storages.append((key, raw))
                if raw.nbytes:
                    self._by_memory[mem] = (key, dt, location)
            else:
                key, first_dt, _ = found
                if first_dt is not dt:
                    raise RuntimeError(
                        "Cannot save multiple tensors or storages that view the same data as "
                        f"different types: one is {first_dt}, another {dt}. Save a .clone() of "
                        "one of them."
                    )
            stype = _STORAGE_TYPES[dt]
            numel = raw.nbytes if stype is UNTYPED_STORAGE else raw.nbytes // isz
            pid = ("storage", stype, key, location, numel)
            strides = tuple(s // isz for s in arr.strides)
            return _StorageRef(pid), off // isz, strides

    return CheckpointPickler


def _with_requires_grad(func, args):
    if func is REBUILD_META:  # (dtype, size, stride, requires_grad)
        return (*args[:3], True)
    return (*args[:4], True, *args[5:])


_DEFAULT = None


def pickler_class(pickle_module):
    """The checkpoint pickler over ``pickle_module``'s pure-Python pickler."""
    global _DEFAULT
    if pickle_module is pickle:
        if _DEFAULT is None:
            _DEFAULT = _pickler_class(pickle._Pickler)
        return _DEFAULT
    base = getattr(pickle_module, "Pickler", None)
    if not (isinstance(base, type) and issubclass(base, pickle._Pickler)):
        raise TypeError(
            f"ember.save: pickle_module {getattr(pickle_module, '__name__', pickle_module)!r} "
            "has no pure-Python Pickler (a subclass of pickle._Pickler, as dill's is); ember "
            "writes PyTorch's global names without importing PyTorch, which needs one. Use "
            "the default pickle module."
        )
    return _pickler_class(base)
