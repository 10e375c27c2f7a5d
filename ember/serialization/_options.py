"""Process-wide checkpoint options, as ``torch.serialization`` keeps them.

CRC-32s on save, the mmap flags of ``load(mmap=True)``, the byte order assumed for archives
without a ``byteorder`` record (global), and ``skip_data`` (per thread, as PyTorch's: a
``skip_data`` block in one thread does not change a save running in another).
"""

from __future__ import annotations

import threading
import warnings
from enum import Enum

try:
    from mmap import MAP_PRIVATE, MAP_SHARED
except ImportError:  # Windows has no mmap flags
    MAP_PRIVATE = MAP_SHARED = None


class _Config:
    compute_crc32 = True
    mmap_flags = MAP_PRIVATE
    endianness = None


config = _Config()


class _Local(threading.local):
    def __init__(self):
        super().__init__()
        self.skip_data = False
        self.materialize_fake_tensors = False


tls = _Local()


class LoadEndianness(Enum):
    """The byte order ``load`` assumes for a zip checkpoint without a ``byteorder`` record
    (files of PyTorch before 2.1 and ``_disable_byteorder_record=True`` saves).

    Example:
        >>> ember.serialization.LoadEndianness.LITTLE
        <LoadEndianness.LITTLE: 2>
    """

    NATIVE = 1
    LITTLE = 2
    BIG = 3


def get_default_load_endianness() -> LoadEndianness | None:
    """The byte order assumed for checkpoints without a byte order record (None: little
    endian, PyTorch's default since 2.1).

    Example:
        >>> ember.serialization.get_default_load_endianness() is None
        True
    """
    return config.endianness


def set_default_load_endianness(endianness) -> None:
    """Set the byte order assumed for checkpoints without a byte order record.

    Args:
        endianness: a ``LoadEndianness`` or None (little endian).

    Raises:
        TypeError: ``endianness`` is neither.

    Example:
        >>> from ember.serialization import LoadEndianness
        >>> ember.serialization.set_default_load_endianness(LoadEndianness.NATIVE)
        >>> ember.serialization.get_default_load_endianness()
        <LoadEndianness.NATIVE: 1>
        >>> ember.serialization.set_default_load_endianness(None)
    """
    if not isinstance(endianness, LoadEndianness) and endianness is not None:
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    config.endianness = endianness


def fallback_byteorder() -> str:
    """``"little"``/``"big"`` for a zip archive that has no ``byteorder`` record."""
    e = config.endianness
    if e is None or e is LoadEndianness.LITTLE:
        return "little"
    if e is LoadEndianness.BIG:
        return "big"
    if e is LoadEndianness.NATIVE:
        import sys

        return sys.byteorder
    raise ValueError("Invalid load endianness type")


def get_crc32_options() -> bool:
    """Whether ``save`` computes the CRC-32 of each record (default True).

    Example:
        >>> ember.serialization.get_crc32_options()
        True
    """
    return config.compute_crc32


def set_crc32_options(compute_crc32: bool) -> None:
    """Set whether ``save`` computes each record's CRC-32. Without them every CRC field of the
    archive is 0: saving is faster, ``load`` (ember's and PyTorch's) still reads the file, but
    ``unzip`` and ``zipfile`` report the records as corrupt.

    Args:
        compute_crc32: the new setting.

    Example:
        >>> import io
        >>> ember.serialization.set_crc32_options(False)
        >>> buf = io.BytesIO()
        >>> ember.save(ember.ones(2), buf)
        >>> ember.serialization.set_crc32_options(True)
        >>> _ = buf.seek(0)
        >>> ember.load(buf)
        tensor([1., 1.])
    """
    # NOTE: matches torch: any value is stored as given (truthiness decides).
    config.compute_crc32 = compute_crc32


def get_default_mmap_options() -> int | None:
    """The ``mmap`` flags of ``load(..., mmap=True)``: ``mmap.MAP_PRIVATE`` (the default:
    writes to the loaded tensors stay in memory) or ``mmap.MAP_SHARED`` (they reach the file).

    Example:
        >>> import mmap
        >>> ember.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
        True
    """
    return config.mmap_flags


class set_default_mmap_options:
    """Set the ``mmap`` flags of ``load(..., mmap=True)``; as a context manager, restore the
    previous flags on exit.

    Args:
        flags: ``mmap.MAP_PRIVATE`` or ``mmap.MAP_SHARED``.

    Raises:
        ValueError: any other value.

    Example:
        >>> import mmap
        >>> with ember.serialization.set_default_mmap_options(mmap.MAP_SHARED):
        ...     ember.serialization.get_default_mmap_options() == mmap.MAP_SHARED
        True
        >>> ember.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
        True
    """

    def __init__(self, flags: int) -> None:
        if MAP_PRIVATE is None:
            raise RuntimeError(
                "Changing the default mmap options is currently not supported for Windows"
            )
        if flags != MAP_PRIVATE and flags != MAP_SHARED:
            raise ValueError(
                "Invalid argument in function set_default_mmap_options, "
                f"expected mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}"
            )
        # NOTE: matches torch: the flags change at construction, so a plain call sets them.
        self.prev = config.mmap_flags
        config.mmap_flags = flags

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        config.mmap_flags = self.prev


class skip_data:
    """Save or load without tensor bytes.

    Saving writes the whole checkpoint structure with each storage's bytes left as zeros (their
    CRC-32 fields 0), to be filled in a later pass. Loading builds every tensor with its shape,
    dtype and sharing but does not read its bytes: the values are uninitialized memory.

    Args:
        materialize_fake_tensors: accepted for PyTorch's signature; ember has no fake tensors,
            so it changes nothing.

    Example:
        >>> import io
        >>> buf = io.BytesIO()
        >>> with ember.serialization.skip_data():
        ...     ember.save({"w": ember.ones(2, 3)}, buf)
        >>> _ = buf.seek(0)
        >>> ember.load(buf)["w"]
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
    """

    def __init__(self, materialize_fake_tensors: bool = False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._old = (tls.skip_data, tls.materialize_fake_tensors)
        tls.skip_data = True
        tls.materialize_fake_tensors = self.materialize_fake_tensors

    def __exit__(self, type, value, tb):
        tls.skip_data, tls.materialize_fake_tensors = self._old


def warn_meta_skip() -> None:
    warnings.warn(
        "Serializing tensors on the meta device under skip_data context manager is a no-op",
        stacklevel=6,
    )
