"""Storages: the flat memory that tensors view (``Tensor.untyped_storage()``,
``Tensor.storage()``, ``torch.FloatStorage``...).

On the CPU a storage is the memory of the tensor's root array (the array at the end of its
``.base`` chain), seen as flat bytes without a copy (``backend._storage``): writing into a
storage changes every tensor that views it, as in PyTorch. ``UntypedStorage`` is bytes;
``TypedStorage`` is the same bytes with a dtype; the legacy classes (``FloatStorage``...) are
``TypedStorage`` constructors with a fixed dtype, and ``isinstance`` checks the dtype, as
PyTorch's do. Meta tensors have storages with a size and no data.
"""

from __future__ import annotations

import math

from ember import _dtype, backend
from ember._device import CPU, META
from ember._device import device as _device

# torch.storage's public names; ``ember`` itself exports TOP_LEVEL (``torch.FloatStorage``...)
__all__ = ["TypedStorage", "UntypedStorage"]
TOP_LEVEL = [
    "TypedStorage",
    "UntypedStorage",
    "BoolStorage",
    "ByteStorage",
    "CharStorage",
    "ShortStorage",
    "IntStorage",
    "LongStorage",
    "HalfStorage",
    "FloatStorage",
    "DoubleStorage",
    "is_storage",
]


def _st():
    from ember.backend import _storage

    return _storage


def _check_cpu(dev, what: str):
    d = _device(dev) if dev is not None else CPU
    if d.type not in ("cpu", "meta"):
        raise RuntimeError(
            f"{what}: ember storages live on 'cpu' or 'meta', got device {d} (ember has no "
            "accelerator backend)"
        )
    return d


class UntypedStorage:
    """Flat bytes (``torch.UntypedStorage``): ``UntypedStorage(nbytes)`` (zeros here, where
    PyTorch leaves them uninitialized), ``UntypedStorage(sequence_of_bytes)`` or a tensor's
    ``untyped_storage()``.

    Example:
        >>> x = ember.tensor([1.0])
        >>> x.untyped_storage().nbytes()
        4
        >>> x.untyped_storage()[3]
        63
    """

    def __init__(self, *args, device=None):
        d = _check_cpu(device, "UntypedStorage")
        self._meta_nbytes = 0
        if not args:
            args = (0,)
        if len(args) != 1:
            raise TypeError(f"UntypedStorage() takes a size or a sequence, got {len(args)} args")
        (a,) = args
        if isinstance(a, int) and not isinstance(a, bool):
            if a < 0:
                raise RuntimeError(f"Storage size must be non-negative, got {a}")
            raw = None if d.type == "meta" else backend.cpu.zeros(a, dtype="uint8")
            self._meta_nbytes = a
        else:
            raw = backend.cpu.asarray(list(a), dtype="uint8")
            self._meta_nbytes = raw.size
        self._raw, self.device = raw, d

    @classmethod
    def _over(cls, raw, nbytes: int, dev) -> UntypedStorage:
        s = cls.__new__(cls)
        s._raw, s._meta_nbytes, s.device = raw, nbytes, dev
        return s

    # ---- sizes and identity --------------------------------------------------------------------
    def nbytes(self) -> int:
        return self._meta_nbytes if self._raw is None else self._raw.nbytes

    size = nbytes

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    @property
    def dtype(self):
        return _dtype.uint8

    @property
    def is_cuda(self) -> bool:
        return False

    def data_ptr(self) -> int:
        return 0 if self._raw is None else backend.cpu.data_ptr(self._raw)

    def is_shared(self) -> bool:
        return False

    def share_memory_(self):
        return self

    def is_pinned(self, device="cuda") -> bool:
        return False

    def _data(self):
        if self._raw is None:
            raise NotImplementedError("Cannot access data of a meta storage: it holds no data")
        return self._raw

    # ---- data ------------------------------------------------------------------------------
    def tolist(self) -> list:
        return self._data().tolist()

    def __getitem__(self, idx):
        r = self._data()[idx]
        return type(self)._over(r.copy(), r.size, self.device) if isinstance(idx, slice) else int(r)

    def __setitem__(self, idx, value) -> None:
        self._data()[idx] = value

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value):
        self._data()[...] = value
        return self

    def copy_(self, source, non_blocking=None):
        src = source._data() if hasattr(source, "_data") else source
        self._data()[...] = src.view("uint8") if src.dtype.itemsize != 1 else src
        return self

    def clone(self):
        return type(self)._over(self._data().copy(), self.nbytes(), self.device)

    def cpu(self):
        return self

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist()) if self._raw is not None else ""
        head = f"{body}\n" if body else ""
        return f"{head}[ember.storage.UntypedStorage(device={self.device}) of size {len(self)}]"


class _LegacyStorageMeta(type):
    """``isinstance(s, FloatStorage)``: a typed storage of that dtype (as PyTorch's)."""

    def __instancecheck__(cls, obj) -> bool:
        legacy = cls.__dict__.get("_legacy_dtype")
        if legacy is None:
            return type.__instancecheck__(cls, obj)
        return isinstance(obj, TypedStorage) and obj.dtype is legacy


class TypedStorage(metaclass=_LegacyStorageMeta):
    """A storage with an element dtype (``torch.TypedStorage``): ``TypedStorage(size,
    dtype=...)``, ``TypedStorage(sequence, dtype=...)``, ``TypedStorage(wrap_storage=u,
    dtype=...)`` or a tensor's ``storage()``.

    Example:
        >>> s = ember.tensor([1.0, 2.0]).storage()
        >>> s.tolist(), s.dtype, s.size()
        ([1.0, 2.0], ember.float32, 2)
    """

    _legacy_dtype = None

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None, _internal=False):
        dt = self._legacy_dtype or dtype or _dtype.get_default_dtype()
        if wrap_storage is not None:
            if args:
                raise TypeError("TypedStorage(): wrap_storage= takes no positional arguments")
            self._untyped, self.dtype = wrap_storage, dt
            return
        d = _check_cpu(device, type(self).__name__)
        if not args:
            args = (0,)
        (a,) = args
        if isinstance(a, int) and not isinstance(a, bool):
            u = UntypedStorage(a * dt.itemsize, device=d)
        else:
            arr = backend.cpu.asarray(list(a), dtype=dt._np)
            u = UntypedStorage._over(arr.view("uint8"), arr.nbytes, d)
        self._untyped, self.dtype = u, dt

    # ---- sizes and identity --------------------------------------------------------------------
    @property
    def device(self):
        return self._untyped.device

    def untyped(self) -> UntypedStorage:
        return self._untyped

    _untyped_storage = property(untyped)

    def size(self) -> int:
        return self._untyped.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def is_cuda(self) -> bool:
        return False

    def data_ptr(self) -> int:
        return self._untyped.data_ptr()

    def is_shared(self) -> bool:
        return False

    def share_memory_(self):
        return self

    def is_pinned(self, device="cuda") -> bool:
        return False

    def type(self, dtype=None, non_blocking=False):
        """The legacy class name (``'torch.FloatStorage'``); with ``dtype`` (a legacy storage
        class or its dotted name), a copy of the bytes as a storage of that class.

        Example:
            >>> ember.tensor([1, -2], dtype=ember.int8).storage().type("torch.ByteStorage")
             1
             254
            [ember.storage.TypedStorage(dtype=ember.uint8, device=cpu) of size 2]
        """
        if dtype is None:
            return f"torch.{_dtype.SCALAR_NAMES[self.dtype.name]}Storage"
        if isinstance(dtype, str):
            dtype = _import_dotted_name(dtype)
        if not hasattr(dtype, "is_sparse"):
            what = "ember.dtype" if isinstance(dtype, _dtype.dtype) else type(dtype).__name__
            raise AttributeError(f"'{what}' object has no attribute 'is_sparse'")
        target = dtype.__dict__.get("_legacy_dtype") if isinstance(dtype, type) else None
        if target is None:
            raise TypeError(
                "copy_(): argument 'other' (position 1) must be Tensor, not "
                "ember.storage.UntypedStorage"
            )
        # NOTE: matches torch 2.13: the new storage gets one element per *byte* of this one and
        # the bytes are copied in, so only an empty storage or a one-byte target dtype fits.
        n = self.nbytes()
        if n * target.itemsize != n:
            raise RuntimeError(
                f"size does not match, self was {n * target.itemsize} bytes but src was {n} bytes"
            )
        raw = self._untyped._data()
        copy = None if raw is None else raw[:n].copy()
        return TypedStorage(wrap_storage=UntypedStorage._over(copy, n, self.device), dtype=target)

    is_sparse = False

    def _data(self):
        raw = self._untyped._data()
        n = raw.nbytes // self.dtype.itemsize
        return _st().typed(raw[: n * self.dtype.itemsize], self.dtype._np)

    # ---- data ------------------------------------------------------------------------------
    def tolist(self) -> list:
        return self._data().tolist()

    def __getitem__(self, idx):
        r = self._data()[idx]
        if isinstance(idx, slice):
            c = r.copy()
            return TypedStorage(
                wrap_storage=UntypedStorage._over(c.view("uint8"), c.nbytes, self.device),
                dtype=self.dtype,
            )
        return r.item()

    def __setitem__(self, idx, value) -> None:
        self._data()[idx] = value

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value):
        self._data()[...] = value
        return self

    def copy_(self, source, non_blocking=None):
        self._data()[...] = source._data()
        return self

    def clone(self):
        return TypedStorage(wrap_storage=self._untyped.clone(), dtype=self.dtype)

    def cpu(self):
        return self

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist()) if self.device.type != "meta" else ""
        head = f"{body}\n" if body else ""
        return (
            f"{head}[ember.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of "
            f"size {len(self)}]"
        )


def _import_dotted_name(name: str):
    """The object a dotted name names (``'torch.IntStorage'`` is ``ember.IntStorage``)."""
    import importlib

    first, *rest = name.split(".")
    obj = importlib.import_module("ember" if first == "torch" else first)
    for part in rest:
        obj = getattr(obj, part)
    return obj


def _legacy(name: str, dt) -> type:
    cls = _LegacyStorageMeta(name, (TypedStorage,), {"_legacy_dtype": dt, "__module__": "ember"})
    cls.__doc__ = f"``TypedStorage`` of ``{dt}`` (PyTorch's legacy ``torch.{name}``)."
    return cls


BoolStorage = _legacy("BoolStorage", _dtype.bool)
ByteStorage = _legacy("ByteStorage", _dtype.uint8)
CharStorage = _legacy("CharStorage", _dtype.int8)
ShortStorage = _legacy("ShortStorage", _dtype.int16)
IntStorage = _legacy("IntStorage", _dtype.int32)
LongStorage = _legacy("LongStorage", _dtype.int64)
HalfStorage = _legacy("HalfStorage", _dtype.float16)
FloatStorage = _legacy("FloatStorage", _dtype.float32)
DoubleStorage = _legacy("DoubleStorage", _dtype.float64)
_MORE = []
for _name, _dt in (
    ("BFloat16Storage", "bfloat16"),
    ("ComplexFloatStorage", "complex64"),
    ("ComplexDoubleStorage", "complex128"),
):
    if hasattr(_dtype, _dt):  # the dtypes joining ember in issue 12
        globals()[_name] = _legacy(_name, getattr(_dtype, _dt))
        _MORE.append(globals()[_name])
        TOP_LEVEL.append(_name)
_LEGACY = {
    c._legacy_dtype.name: c
    for c in (
        BoolStorage,
        ByteStorage,
        CharStorage,
        ShortStorage,
        IntStorage,
        LongStorage,
        HalfStorage,
        FloatStorage,
        DoubleStorage,
        *_MORE,
    )
}


def is_storage(obj) -> bool:
    """Whether ``obj`` is a storage (typed or untyped).

    Example:
        >>> ember.is_storage(ember.zeros(1).untyped_storage()), ember.is_storage(ember.zeros(1))
        (True, False)
    """
    from ember.serialization._rebuild import UntypedStorage as _Loaded

    return isinstance(obj, (TypedStorage, UntypedStorage, _Loaded))


# ---- Tensor methods ------------------------------------------------------------------------------
def _untyped_storage(self) -> UntypedStorage:
    """The flat bytes this tensor views (its root array's memory; no copy)."""
    a = self._data
    xp = backend.namespace(a)
    if xp.device_type == "meta":
        return UntypedStorage._over(None, math.prod(a.shape) * a.dtype.itemsize, META)
    found = _st().storage_of(a)
    if found is None:
        raise RuntimeError(
            "untyped_storage(): this tensor's memory is not one flat block (a negative-stride "
            "view); call .contiguous() first"
        )
    raw = found[0]
    return UntypedStorage._over(raw, raw.nbytes, CPU)


def _storage(self) -> TypedStorage:
    """The tensor's storage with its dtype (``torch.TypedStorage``)."""
    return TypedStorage(wrap_storage=_untyped_storage(self), dtype=self.dtype)


def _storage_type(self) -> type:
    """The legacy storage class of this tensor's dtype (``ember.FloatStorage``...), or None for
    a dtype that has none (float8, uint16...), as torch."""
    return _LEGACY.get(self.dtype.name)


def _storage_array(source, dtype_np):
    """The flat typed array of a storage, for ``Tensor.set_(storage)``."""
    if isinstance(source, TypedStorage):
        return source._data()
    raw = source._data() if isinstance(source, UntypedStorage) else source._raw
    n = raw.nbytes // dtype_np.itemsize
    return _st().typed(raw[: n * dtype_np.itemsize], dtype_np)


def _attach():
    from ember.tensor import Tensor

    Tensor.untyped_storage = _untyped_storage
    Tensor.storage = _storage
    Tensor.storage_type = _storage_type


_attach()
