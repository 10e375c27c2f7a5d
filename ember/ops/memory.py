"""Memory layout and foreign memory: memory formats (``channels_last``...), ``dim_order``,
``empty_strided``/``empty_permuted``, ``frombuffer``, DLPack exchange, and the pinning and
sharing queries of a CPU-only stack.

A NumPy array can have any strides, so ``x.contiguous(memory_format=ember.channels_last)``
really gives the NHWC layout (strides as PyTorch's) and later element-wise ops keep it, since
NumPy's ufuncs preserve their input's layout; ops that build their output themselves (matmul,
convolution) return C-contiguous results, where PyTorch would often propagate channels_last.
"""

from __future__ import annotations

import operator

from ember import _dtype, backend
from ember._device import device as _device
from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.tensor import Tensor, _wrap

__all__ = [
    "memory_format",
    "contiguous_format",
    "preserve_format",
    "channels_last",
    "channels_last_3d",
    "legacy_contiguous_format",
    "empty_strided",
    "empty_permuted",
    "frombuffer",
    "from_file",
    "from_dlpack",
    "to_dlpack",
    "get_device",
    "addmv_",
]


class memory_format:  # noqa: N801  (PyTorch's class name)
    """A memory layout name (``ember.channels_last``...), as ``torch.memory_format``."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"ember.{self._name}"

    def __reduce__(self):
        return (_by_name, (self._name,))


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
# NOTE: matches torch: the legacy name is the same object as contiguous_format
legacy_contiguous_format = contiguous_format
_FORMATS = {
    f._name: f for f in (contiguous_format, preserve_format, channels_last, channels_last_3d)
}


def _by_name(name: str) -> memory_format:
    return _FORMATS[name]


# channels_last: the physical dim order (N, spatial..., C) of a 4-D / 5-D tensor
_PHYSICAL = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def _format_rank(fmt: memory_format, ndim: int) -> tuple:
    rank, order = _PHYSICAL[fmt]
    if ndim != rank:
        what = "channels_last" if rank == 4 else "channels_last_3d"
        raise RuntimeError(f"required rank {rank} tensor to use {what} format")
    return order


def _strides_for(shape, order) -> tuple:
    """Element strides of a tensor of ``shape`` laid out densely in dim ``order``."""
    st = [0] * len(shape)
    acc = 1
    for d in reversed(order):
        st[d] = acc
        acc *= max(shape[d], 1)
    return tuple(st)


def _is_format(a, fmt) -> bool:
    xp = xp_of(a)
    if fmt is None or fmt is contiguous_format or fmt is preserve_format:
        return xp.is_contiguous(a)
    rank, order = _PHYSICAL[fmt]
    if a.ndim != rank or xp.device_type == "meta":
        return False
    want = _strides_for(a.shape, order)
    have = xp.strides_of(a)
    # size-1 dims can have any stride (PyTorch ignores them too)
    return all(n == 1 or w == h for n, w, h in zip(a.shape, want, have))


class _ToFormat(Function):
    _array_forward = True
    _node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a, order):
        xp = xp_of(a)
        if xp.device_type == "meta":
            return a.copy()
        inv = [0] * len(order)
        for i, d in enumerate(order):
            inv[d] = i
        return xp.ascontiguousarray(a.transpose(order)).transpose(inv)

    @staticmethod
    def backward(ctx, g):
        return g, None


def _in_format(t: Tensor, fmt) -> Tensor:
    return unary(_ToFormat, t, _format_rank(fmt, t.ndim))


def contiguous_in(self: Tensor, memory_format) -> Tensor:
    """``Tensor.contiguous`` given a ``memory_format`` (ember/ops/conversion.py calls it)."""
    if memory_format is contiguous_format or memory_format is preserve_format:
        return self.contiguous()
    _format_rank(memory_format, self.ndim)
    return self if _is_format(self._data, memory_format) else _in_format(self, memory_format)


def is_contiguous_in(self: Tensor, memory_format) -> bool:
    """``Tensor.is_contiguous`` given a ``memory_format`` (ember/tensor.py calls it): whether
    the memory is dense in its order."""
    if memory_format is preserve_format:
        raise RuntimeError("Memory format preserve_format is not supported by is_contiguous")
    return _is_format(self._data, memory_format)


def _dim_order(self: Tensor, *, ambiguity_check=False) -> tuple:
    """The dims from outermost to innermost in memory (by decreasing stride).

    Example:
        >>> ember.zeros(2, 3, 4, 5).contiguous(memory_format=ember.channels_last).dim_order()
        (0, 2, 3, 1)
    """
    st = self.stride()
    order = tuple(sorted(range(self.ndim), key=lambda i: -st[i]))
    if ambiguity_check is not False:
        if len(set(st)) != len(st):
            raise RuntimeError(
                "The tensor does not have unique dim order, or cannot map to exact one of the "
                "given memory formats."
            )
    return order


Tensor.dim_order = _dim_order


# ---- strided and permuted allocation ----------------------------------------------------------
def _alloc(size, stride, dt, device):
    xp = backend.for_device(device.type)
    if xp.device_type == "meta":
        return xp.empty(size, dtype=dt._np)
    need = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    buf = xp.empty(need, dtype=dt._np)
    return xp.as_strided(buf, size, stride)


def _factory_args(dtype, device):
    from ember._device import get_default_device

    dt = dtype or _dtype.get_default_dtype()
    dev = _device(device) if device is not None else get_default_device()
    return dt, dev


def empty_strided(
    size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
) -> Tensor:
    """An uninitialized tensor with the given ``size`` and ``stride`` (in elements).

    Example:
        >>> ember.empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    size = tuple(operator.index(s) for s in size)
    stride = tuple(operator.index(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: size {list(size)}, stride {list(stride)}"
        )
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"empty_strided: negative strides are not supported, got {list(stride)}")
    dt, dev = _factory_args(dtype, device)
    return _wrap(_alloc(size, stride, dt, dev)).requires_grad_(requires_grad)


def empty_permuted(
    size,
    physical_layout,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """An uninitialized tensor of ``size`` whose memory holds the dims in the order
    ``physical_layout`` (outermost first).

    Example:
        >>> ember.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
        (12, 1, 3)
    """
    size = tuple(operator.index(s) for s in size)
    order = tuple(operator.index(d) for d in physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(
            f"Number of dimensions in size does not match the length of the physical_layout; "
            f"or physical_layout is not a permutation: size {list(size)}, physical_layout "
            f"{list(order)}"
        )
    dt, dev = _factory_args(dtype, device)
    return _wrap(_alloc(size, _strides_for(size, order), dt, dev)).requires_grad_(requires_grad)


def _new_empty_strided(
    self,
    size,
    stride,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """``empty_strided`` with this tensor's dtype and device unless given."""
    return empty_strided(
        size,
        stride,
        dtype=dtype or self.dtype,
        device=device or self.device,
        requires_grad=requires_grad,
    )


Tensor.new_empty_strided = _new_empty_strided


# ---- foreign memory ------------------------------------------------------------------------------
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor:
    """A 1-D tensor over the memory of a Python buffer (``bytearray``, ``array``, ``mmap``...)
    without a copy: writes through either side show in the other.

    Example:
        >>> ember.frombuffer(bytearray(b"\\x01\\x00\\x02\\x00"), dtype=ember.int16)
        tensor([1, 2], dtype=ember.int16)
    """
    from ember.backend import _storage

    n = memoryview(buffer).nbytes
    isz = dtype.itemsize
    if n == 0 or count == 0:
        raise ValueError(f"both buffer length ({n}) and count ({count}) must not be 0")
    if offset < 0 or offset >= n:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({n} bytes) minus 1"
        )
    if count < 0:
        if (n - offset) % isz:
            raise ValueError(
                f"buffer length ({n - offset} bytes) after offset ({offset} bytes) must be a "
                f"multiple of element size ({isz})"
            )
        count = (n - offset) // isz
    elif offset + count * isz > n:
        raise ValueError(
            f"requested buffer length ({count} * {isz} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({n} bytes)"
        )
    raw = _storage.frombuffer(buffer, offset, count * isz)
    return _wrap(_storage.typed(raw, dtype._np)).requires_grad_(requires_grad)


def from_file(
    filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False
) -> Tensor:
    """A 1-D tensor of ``size`` elements read from the start of a file. ``shared=True`` maps
    the file, so writes to the tensor reach the file; otherwise the tensor is a private copy.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "w.bin")
        >>> with open(path, "wb") as f:
        ...     _ = f.write(bytes([1, 0, 2, 0]))
        >>> ember.from_file(path, size=2, dtype=ember.int16)
        tensor([1, 2], dtype=ember.int16)
    """
    import mmap
    import os

    from ember.backend import _storage

    dt, _ = _factory_args(dtype, device)
    need = size * dt.itemsize
    have = os.path.getsize(filename)
    if need > have:
        raise RuntimeError(
            f"file <{filename}> size <{have}> is smaller than the required mapping size <{need}>"
        )
    if need == 0:
        return _wrap(backend.cpu.empty(0, dtype=dt._np))
    with open(filename, "r+b" if shared else "rb") as f:
        if shared:
            buf = mmap.mmap(f.fileno(), need, access=mmap.ACCESS_WRITE)
        else:
            buf = bytearray(f.read(need))
    return _wrap(_storage.typed(_storage.frombuffer(buf, 0, need), dt._np))


def from_dlpack(ext_tensor) -> Tensor:
    """A tensor sharing the memory of any object with ``__dlpack__`` (a NumPy array, a
    PyTorch or JAX CPU tensor...).

    Example:
        >>> ember.from_dlpack(ember.arange(3).numpy())
        tensor([0, 1, 2])
    """
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(
            f"from_dlpack: expected an object with __dlpack__ (a tensor of another library), "
            f"got {type(ext_tensor).__name__}; a bare DLPack capsule cannot be imported by "
            "NumPy, pass the producing tensor itself"
        )
    try:
        arr = backend.cpu.from_dlpack(ext_tensor)
    except (BufferError, RuntimeError, TypeError) as e:
        raise RuntimeError(f"from_dlpack: cannot import this tensor on the CPU ({e})") from None
    if arr.dtype not in _dtype._FROM_NP:
        raise TypeError(f"from_dlpack: ember has no dtype for {arr.dtype}")
    return _wrap(arr)


def to_dlpack(tensor: Tensor):
    """A DLPack capsule of ``tensor``'s memory (``tensor.__dlpack__()``).

    Example:
        >>> type(ember.to_dlpack(ember.zeros(2))).__name__
        'PyCapsule'
    """
    # NOTE: matches torch: unlike __dlpack__, to_dlpack exports tensors that require grad
    if xp_of(tensor._data).device_type != "cpu":
        raise BufferError(f"DLPack export: only CPU tensors are supported, got {tensor.device}")
    return tensor._data.__dlpack__()


def _dlpack(self: Tensor, *, stream=None, max_version=None, dl_device=None, copy=None):
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if xp_of(self._data).device_type != "cpu":
        raise BufferError(f"DLPack export: only CPU tensors are supported, got {self.device}")
    kwargs = {}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if copy is not None:
        kwargs["copy"] = copy
    return self._data.__dlpack__(**kwargs)


def _dlpack_device(self: Tensor):
    return (1, 0)  # kDLCPU, device 0


Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = _dlpack_device


# ---- pinning, sharing, device index --------------------------------------------------------------
def _is_pinned(self: Tensor, device=None) -> bool:
    """Always False: there is no accelerator to pin memory for."""
    return False


def _pin_memory(self: Tensor, device=None) -> Tensor:
    # NOTE: matches a CPU-only torch: pinning needs an accelerator
    raise RuntimeError("Cannot access accelerator device when none is available.")


def _is_shared(self: Tensor) -> bool:
    """Whether ``share_memory_()`` was called (ember's worker processes receive tensors
    through files in /dev/shm either way)."""
    return self.__dict__.get("_shared", False)


def _share_memory_(self: Tensor) -> Tensor:
    """Mark as shared (see ``is_shared``) and return ``self``."""
    self.__dict__["_shared"] = True
    return self


Tensor.is_pinned = _is_pinned
Tensor.pin_memory = _pin_memory
Tensor.is_shared = _is_shared
Tensor.share_memory_ = _share_memory_


def get_device(input: Tensor) -> int:
    """The device index: -1 for CPU tensors.

    Example:
        >>> ember.get_device(ember.zeros(1))
        -1
    """
    return input.get_device()


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``input.addmv_(mat, vec, beta=beta, alpha=alpha)``.

    Example:
        >>> ember.addmv_(ember.zeros(2), ember.eye(2), ember.ones(2))
        tensor([1., 1.])
    """
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)
