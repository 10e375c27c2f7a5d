"""Raw-memory helpers for checkpoints (``ember.serialization``): the NumPy side of storages.

A PyTorch storage is a flat block of bytes that tensors view with an offset and strides. On
the CPU backend that block is the memory of a root array (the array at the end of a view's
``.base`` chain); these helpers expose it as a flat ``uint8`` array without copying, build typed
strided views back from such a block, and wrap file buffers (reads and memory maps).
"""

from __future__ import annotations

import numpy as _np

from ember.backend.cpu import _root

uint8 = _np.dtype("uint8")


def storage_of(array):
    """``(raw, byte_offset)`` for a CPU array: ``raw`` is a flat ``uint8`` view of all the
    memory of the array's root and ``byte_offset`` where ``array`` starts in it.

    Returns ``None`` where the memory cannot be described as PyTorch's storage + offset +
    non-negative strides (a negative-stride view, a root whose memory has holes): the caller
    saves a contiguous copy instead.
    """
    if array.size == 0:  # nothing to share: an empty storage of its own
        return _np.empty(0, uint8), 0
    if any(s < 0 for s in array.strides):
        return None
    root = _root(array)
    raw = _flat_bytes(root)
    if raw is None:
        return None
    start = raw.__array_interface__["data"][0]
    offset = array.__array_interface__["data"][0] - start
    if offset < 0 or offset > raw.nbytes:
        return None
    return raw, offset


def _flat_bytes(root):
    """A flat ``uint8`` view of a dense array's memory, whatever its axis order; or None."""
    if root.ndim == 0 or root.flags.c_contiguous:
        return root.reshape(-1).view(uint8) if root.size else _np.empty(0, uint8)
    if any(s < 0 for s in root.strides):
        return None
    # An owning array can be dense in another axis order (a ufunc's output on transposed
    # input): sort its axes by stride, and it is C-contiguous if it is dense at all.
    order = sorted(range(root.ndim), key=lambda i: -root.strides[i])
    dense = root.transpose(order)
    if not dense.flags.c_contiguous:
        return None
    return dense.reshape(-1).view(uint8)


def bytes_of(array):
    """The bytes of a C-contiguous array as a flat ``uint8`` array (no copy)."""
    return array.reshape(-1).view(uint8)


def contiguous(array):
    """``array`` itself when C-contiguous, else a C-contiguous copy."""
    return _np.ascontiguousarray(array)


def empty_bytes(nbytes: int):
    """An uninitialized ``uint8`` buffer of ``nbytes`` (the target of one ``readinto``)."""
    return _np.empty(nbytes, uint8)


def frombuffer(buffer, offset: int, nbytes: int):
    """A ``uint8`` array over ``buffer[offset:offset + nbytes]`` (a memory map: no read)."""
    return _np.frombuffer(buffer, uint8, nbytes, offset)


def typed(raw, np_dtype):
    """``raw`` (flat ``uint8``) reinterpreted as ``np_dtype`` elements (no copy)."""
    if raw.size == 0:
        return _np.empty(0, np_dtype)
    return raw.view(np_dtype)


def strided(flat, shape, strides, offset: int):
    """The view of the flat array ``flat`` with ``shape``, ``strides`` and ``offset`` in
    elements. The caller has checked that it stays inside ``flat``."""
    isz = flat.itemsize
    if 0 in shape:
        return _np.empty(shape, flat.dtype)
    return _np.ndarray(shape, flat.dtype, flat, offset * isz, tuple(s * isz for s in strides))


def byteswap(flat) -> None:
    """Swap the byte order of every element in place (a checkpoint of the other endianness)."""
    flat.byteswap(inplace=True)


def writeable(array) -> bool:
    return bool(array.flags.writeable)
