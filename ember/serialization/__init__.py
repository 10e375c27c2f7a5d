"""Checkpoints: ``ember.save`` and ``ember.load``, in PyTorch's file formats.

``ember.save(obj, f)`` writes PyTorch's zip checkpoint (``torch.load(f, weights_only=True)``
reads it); ``ember.load(f)`` reads that format, PyTorch's legacy pre-1.6 format and
safetensors, telling them apart by their first bytes. No part of this needs PyTorch.

The zip archive holds, under one folder named after the file (``archive`` for file objects):
``data.pkl`` (the pickled object, tensors as persistent storage ids), ``.format_version``,
``.storage_alignment``, ``byteorder``, ``data/<key>`` (each storage's raw bytes, stored
uncompressed at a 64-byte aligned offset), ``version`` and ``.data/serialization_id``.
Tensors that share memory (views, tied weights) share one storage in the file and share memory
again after loading.

Loading is safe by default (``weights_only=True``): the pickle is interpreted by ember's own
restricted unpickler, which accepts only plain containers, tensor rebuild functions, storage
types, dtypes, ``Size``, ``device`` and ``Parameter``, plus the classes and functions marked
with ``add_safe_globals``/``safe_globals`` (``get_unsafe_globals_in_checkpoint`` lists what a
file would need), and raises ``UnpicklingError`` naming any other global before touching it.
``weights_only=False`` runs Python's unpickler: it can load a whole pickled module, and it runs
any code the file names.

The rest of ``torch.serialization`` is here too: ``skip_data`` (save or load the structure
without tensor bytes), ``set_crc32_options``, ``set_default_mmap_options`` (``MAP_SHARED`` makes
writes to ``mmap=True`` tensors reach the file), ``set_default_load_endianness`` (for archives
without a byte order record) and the location registry (``register_package``, ``location_tag``,
``default_restore_location``), which ``load`` consults for locations it does not know.

Writing a path is atomic: a temporary file in the same folder, fsync, then a rename over the
target, so an error or a crash mid-save leaves an earlier file intact.
"""

from __future__ import annotations

import io
import os
import pickle
import secrets
import struct
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from pickle import UnpicklingError

from ember.serialization import _load, _options, _pickler, _safe_globals, _unpickler
from ember.serialization._atomic import atomic_write
from ember.serialization._locations import (
    SourceChangeWarning,
    check_module_version_greater_or_equal,
    default_restore_location,
    location_tag,
    mkdtemp,
    normalize_storage_type,
    register_package,
    storage_to_tensor_type,
    validate_cuda_device,
    validate_hpu_device,
)
from ember.serialization._options import (
    LoadEndianness,
    get_crc32_options,
    get_default_load_endianness,
    get_default_mmap_options,
    set_crc32_options,
    set_default_load_endianness,
    set_default_mmap_options,
    skip_data,
)
from ember.serialization._rebuild import StorageType, UntypedStorage  # noqa: F401
from ember.serialization._safe_globals import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
)
from ember.serialization._zip import ZipError, ZipReader, ZipWriter

# torch.serialization's names, all of them (in its order)
__all__ = [
    "SourceChangeWarning",
    "mkdtemp",
    "register_package",
    "check_module_version_greater_or_equal",
    "validate_cuda_device",
    "validate_hpu_device",
    "location_tag",
    "default_restore_location",
    "normalize_storage_type",
    "storage_to_tensor_type",
    "save",
    "load",
    "StorageType",
    "LoadEndianness",
    "get_crc32_options",
    "set_crc32_options",
    "get_default_load_endianness",
    "set_default_load_endianness",
    "get_default_mmap_options",
    "set_default_mmap_options",
    "clear_safe_globals",
    "get_safe_globals",
    "add_safe_globals",
    "safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "skip_data",
]

DEFAULT_PROTOCOL = 2


def _safetensors():
    try:
        from ember.serialization import safetensors
    except ImportError:  # the codec is optional: zip and legacy work without it
        return None
    return safetensors


def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


def _describe(f) -> str:
    if _is_path(f):
        return repr(os.fspath(f))
    name = getattr(f, "name", None)
    return repr(name) if isinstance(name, (str, bytes)) else f"<{type(f).__name__}>"


# ---- save ------------------------------------------------------------------------------------


def _archive_name(f) -> str:
    """The archive's top folder: the file's name without extension, as PyTorch names it."""
    if not _is_path(f):
        return "archive"
    stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
    if not stem or not stem.isascii() or "/" in stem or "\\" in stem:
        return "archive"
    return stem


def _serialization_id() -> str:
    # Two random 64-bit numbers in decimal, 40 digits: the shape of PyTorch's id.
    return f"{secrets.randbits(64):020d}{secrets.randbits(64):020d}"


_PIPELINE_BYTES = 1 << 24  # below this, threads cost more than they save


def _write_zip(
    file, archive: str, pickle_bytes: bytes, storages, byteorder: bool, sync=None
) -> None:
    """Write the archive. Large storages are pipelined: their CRC-32s are computed in a
    thread while the main thread writes (both release the GIL), and with ``sync`` (a path's
    file descriptor) the written part is flushed to disk in another thread while later
    storages are written, so the final fsync has little left to do."""
    skip = _options.tls.skip_data
    compute_crc = bool(_options.config.compute_crc32)
    total = 0 if skip else sum(raw.nbytes for _, raw in storages)
    pipeline = total >= _PIPELINE_BYTES
    pool = ThreadPoolExecutor(2) if pipeline else None
    try:
        crcs = [
            pool.submit(zlib.crc32, raw) if pipeline and compute_crc and raw.nbytes else None
            for _, raw in storages
        ]
        flushing = None
        zw = ZipWriter(file, archive, compute_crc)
        zw.write_record("data.pkl", pickle_bytes)
        zw.write_record(".format_version", b"1")
        zw.write_record(".storage_alignment", b"64")
        if byteorder:
            zw.write_record("byteorder", sys.byteorder.encode())
        for (key, raw), crc in zip(storages, crcs):
            zw.write_record(f"data/{key}", raw, raw.nbytes, crc and crc.result, skip)
            if sync is not None and pipeline and (flushing is None or flushing.done()):
                file.flush()
                flushing = pool.submit(os.fdatasync if hasattr(os, "fdatasync") else os.fsync, sync)
        zw.write_record("version", b"3\n")
        zw.write_record(".data/serialization_id", _serialization_id().encode())
        zw.finish()
        if flushing is not None:
            flushing.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save ``obj`` (a state dict, any nest of containers, tensors and numbers, or any picklable
    object) to ``f`` in PyTorch's checkpoint format.

    ``torch.load(f, weights_only=True)`` reads the file when ``obj`` holds only tensors,
    containers, numbers, strings and None (state dicts and optimizer state dicts do). A whole
    ``nn.Module`` can be saved too (pickled by class name, as in PyTorch); loading it needs
    ``weights_only=False`` and the same code at load time, which makes such files fragile:
    prefer ``state_dict()``.

    Args:
        obj: what to save.
        f: a path (``str`` or ``os.PathLike``; written atomically: temporary file, fsync,
            rename) or a writable binary file object. A path ending in ``.safetensors``
            writes the safetensors format (a flat dict of tensors).
        pickle_module: the pickle module (its pure-Python ``Pickler`` is used).
        pickle_protocol: pickle protocol of ``data.pkl`` (PyTorch's default 2).

    Raises:
        RuntimeError: two tensors view the same memory as different dtypes.
        pickle.PicklingError: ``obj`` holds something that cannot be pickled (nothing is
            written then).

    Example:
        >>> import io
        >>> buf = io.BytesIO()
        >>> ember.save({"w": ember.ones(2, 3), "step": 10}, buf)
        >>> _ = buf.seek(0)
        >>> ember.load(buf)["w"].shape
        ember.Size([2, 3])
    """
    if _is_path(f) and os.fspath(f).endswith(".safetensors"):
        st = _safetensors()
        if st is None:
            raise RuntimeError(
                "ember.save: safetensors support (ember.serialization.safetensors) is not available"
            )
        return st.save(obj, f)
    if not _use_new_zipfile_serialization:
        if _options.tls.skip_data:
            raise RuntimeError(
                "Cannot use skip_data=True with _use_new_zipfile_serialization=False"
            )
        from ember.serialization import _legacy_save

        pickle_bytes, storages = _legacy_save.legacy_bytes(obj, pickle_module, pickle_protocol)
        return _write_to(
            f, lambda file, sync=None: _legacy_save.write_legacy(file, pickle_bytes, storages)
        )
    # Pickle first, in memory: a failure here happens before any file is touched.
    buf = io.BytesIO()
    pickler = _pickler.pickler_class(pickle_module)(buf, pickle_protocol)
    pickler.dump(obj)
    pickle_bytes = buf.getvalue()
    storages = pickler.storages
    archive = _archive_name(f)

    def write(file, sync=None):
        _write_zip(file, archive, pickle_bytes, storages, not _disable_byteorder_record, sync)
        file.flush()

    _write_to(f, write)


def _write_to(f, write) -> None:
    if _is_path(f):
        atomic_write(f, write, "ember.save")
    elif hasattr(f, "write"):
        write(f)
    else:
        raise TypeError(
            f"ember.save: f must be a path or a writable binary file object, got {type(f).__name__}"
        )


# ---- load ------------------------------------------------------------------------------------


class _Window:
    """A binary file seen from ``base`` on (a checkpoint that starts mid-stream)."""

    def __init__(self, file, base: int):
        self._f, self._base = file, base

    def seek(self, pos: int, whence: int = 0) -> int:
        if whence == 0:
            return self._f.seek(self._base + pos) - self._base
        return self._f.seek(pos, whence) - self._base

    def tell(self) -> int:
        return self._f.tell() - self._base

    def read(self, n: int = -1) -> bytes:
        return self._f.read(n)

    def readinto(self, buf) -> int:
        if hasattr(self._f, "readinto"):
            return self._f.readinto(buf)
        data = self._f.read(len(memoryview(buf).cast("B")))
        memoryview(buf).cast("B")[: len(data)] = data
        return len(data)

    def readline(self, *args) -> bytes:
        return self._f.readline(*args)


def _resolve_weights_only(weights_only, pickle_module):
    if weights_only is None:
        # NOTE: matches torch: an explicit pickle_module means a full (trusted) load.
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    return weights_only, pickle_module or pickle


def load(
    f,
    map_location=None,
    pickle_module=None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args,
):
    """Load an object saved by ``ember.save`` or ``torch.save`` (or a safetensors file).

    The format is detected from the content: PyTorch's zip checkpoint, its legacy pre-1.6
    format (``_use_new_zipfile_serialization=False``), or safetensors.

    Args:
        f: a path or a readable, seekable binary file object (read from its position).
        map_location: where tensors go: None (where they were saved: ``"cpu"``), ``"cpu"``,
            ``"meta"`` (shapes only: no data is read), an ``ember.device``, a dict mapping saved
            locations to new ones (``{"cuda:0": "cpu"}``), or a callable
            ``fn(storage, location)`` returning the storage (``storage.to(...)``) or None.
        pickle_module: the module whose ``Unpickler`` runs a full load (implies
            ``weights_only=False`` unless that is given; with ``weights_only=True`` it is an
            error, as in PyTorch).
        weights_only: True (the default): load only tensors, containers and primitive values,
            never running code from the file. False: Python's full unpickler, which can load
            pickled modules and runs whatever the file asks: only for trusted files.
        mmap: map the file instead of reading it: tensors view a private copy-on-write memory
            map (``f`` must be a path; the zip format only).
        **pickle_load_args: ``encoding`` for Python 2 strings (default ``"utf-8"``).

    Raises:
        pickle.UnpicklingError: the pickle names a global outside the allow-list (the message
            names it), or is corrupt.
        RuntimeError: the file is truncated, corrupt or not a checkpoint (the message names the
            file and what is wrong), or a storage's location cannot be restored.
        ValueError: ``mmap=True`` with a file object; an unknown byte order record.

    Example:
        >>> import io
        >>> net = ember.nn.Linear(3, 2)
        >>> buf = io.BytesIO()
        >>> ember.save(net.state_dict(), buf)
        >>> _ = buf.seek(0)
        >>> sd = ember.load(buf, map_location="cpu")
        >>> sorted(sd), ember.equal(sd["weight"], net.weight)
        (['bias', 'weight'], True)
    """
    weights_only, pickle_module = _resolve_weights_only(weights_only, pickle_module)
    mmap = bool(mmap)
    restore = _load.Restore(map_location)
    load_args = dict(pickle_load_args)
    load_args.setdefault("encoding", "utf-8")
    where = _describe(f)
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    if _is_path(f):
        with open(f, "rb") as fh:
            return _load_open(
                f, fh, where, restore, weights_only, pickle_module, mmap, load_args, map_location
            )
    if not (hasattr(f, "read") and hasattr(f, "seek")):
        raise TypeError(
            f"ember.load: f must be a path or a readable, seekable binary file "
            f"object, got {type(f).__name__}"
        )
    return _load_open(
        f, f, where, restore, weights_only, pickle_module, mmap, load_args, map_location
    )


def _load_open(f, fh, where, restore, weights_only, pickle_module, mmap, load_args, map_location):
    base = fh.tell()
    end = fh.seek(0, 2)
    length = end - base
    fh.seek(base)
    head = fh.read(512)
    fh.seek(base)
    if length >= 9 and head[:4] not in (b"PK\x03\x04", b"PK\x05\x06"):
        st = _safetensors()
        if st is not None and st.looks_like_safetensors(head[:9]):
            # The codec names the file in its own errors (SafetensorError, a ValueError).
            return st.load(f if _is_path(f) else fh, map_location=map_location, mmap=mmap)
    try:
        if length == 0:
            raise RuntimeError("the file is empty")
        if head[:4] == b"PK\x03\x04" or head[:4] == b"PK\x05\x06":
            return _load_zip(
                fh, base, length, restore, weights_only, pickle_module, mmap, load_args, f
            )
        if mmap:
            raise RuntimeError(
                "mmap can only be used with files saved with the zip format "
                "(ember.save, or torch.save with _use_new_zipfile_serialization=True); "
                "re-save the checkpoint to use mmap"
            )
        if _load.is_tar(head):
            raise RuntimeError(
                "the file is in PyTorch's oldest (tar) checkpoint format, "
                "which ember does not read; re-save it with torch.save"
            )
        if head[:1] in (b"\x80", b"L", b"I", b"("):
            return _load_legacy(fh, base, length, restore, weights_only, pickle_module, load_args)
        raise RuntimeError(
            f"not a checkpoint: it starts with {head[:16]!r}, which is neither a zip archive "
            "(ember.save / torch.save), PyTorch's legacy format nor safetensors"
        )
    except _safe_globals.BadEntry:  # the user's add_safe_globals list, not the file
        raise
    except _safe_globals.UserCodeError as e:  # a marked global's own code failed
        raise e.exc from None
    except UnpicklingError as e:
        raise UnpicklingError(f"ember.load({where}): {e}") from None
    except ZipError as e:
        raise RuntimeError(f"ember.load({where}): failed reading zip archive: {e}") from None
    except (RuntimeError, ValueError) as e:
        raise _retyped(e, f"ember.load({where}): {e}") from None
    except (EOFError, OSError, struct.error, MemoryError, OverflowError) as e:
        raise RuntimeError(
            f"ember.load({where}): the file is truncated or corrupt: {type(e).__name__}: {e}"
        ) from None
    except Exception as e:
        if not weights_only:  # a full load runs the file's own code: its errors are its own
            raise
        raise RuntimeError(
            f"ember.load({where}): the file is corrupt: {type(e).__name__}: {e}"
        ) from None


def _retyped(e: Exception, msg: str) -> Exception:
    """``e``'s type with message ``msg`` (RuntimeError where that type takes other args)."""
    try:
        return type(e)(msg)
    except Exception:  # noqa: BLE001  (e.g. UnicodeDecodeError needs five arguments)
        return RuntimeError(msg) if isinstance(e, RuntimeError) else ValueError(msg)


def _load_zip(fh, base, length, restore, weights_only, pickle_module, mmap, load_args, f=None):
    file = fh if base == 0 else _Window(fh, base)
    mm = None
    if mmap:
        import mmap as _mmap

        if _options.config.mmap_flags == _options.MAP_SHARED and _options.MAP_SHARED is not None:
            # set_default_mmap_options(MAP_SHARED): writes to the tensors reach the file.
            with open(f, "r+b") as rw:
                mm = _mmap.mmap(rw.fileno(), 0, access=_mmap.ACCESS_WRITE)
        else:
            # Private (copy-on-write, PyTorch's default MAP_PRIVATE): writes to the tensors
            # never reach the file.
            mm = _mmap.mmap(fh.fileno(), 0, access=_mmap.ACCESS_COPY)
    try:
        return _load.load_zip(
            file,
            length,
            restore,
            weights_only=weights_only,
            pickle_module=pickle_module,
            mm=mm,
            load_args=load_args,
        )
    except Exception:
        if mm is not None:
            try:
                mm.close()
            except BufferError:  # arrays made before the error still view it
                pass
        raise


def _load_legacy(fh, base, length, restore, weights_only, pickle_module, load_args):
    file = fh if base == 0 else _Window(fh, base)
    data = None
    try:
        fileno = fh.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        fileno = None
    if fileno is not None:
        import mmap as _mmap

        mm = _mmap.mmap(fileno, 0, access=_mmap.ACCESS_READ)
        data = memoryview(mm)[base : base + length]
    else:
        fh.seek(base)
        data = fh.read(length)
    try:
        return _load.load_legacy(
            data,
            file,
            0,
            restore,
            weights_only=weights_only,
            pickle_module=pickle_module,
            load_args=load_args,
        )
    finally:
        if fileno is not None:
            data.release()
            try:
                mm.close()
            except BufferError:
                pass


# ---- inspection ------------------------------------------------------------------------------


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals a checkpoint names that ``ember.load(f, weights_only=True)`` would refuse:
    not on the default allow-list and not marked with ``add_safe_globals``/``safe_globals``.

    The pickle is read statically: nothing in the file runs or is imported.

    Args:
        f: a path or a readable, seekable binary file object holding a zip checkpoint.

    Returns:
        ``"module.name"`` strings (``"collections.namedtuple"``), in order of first appearance.

    Raises:
        ValueError: ``f`` is not a zip checkpoint (or is a TorchScript archive).

    Example:
        >>> import fractions, io
        >>> buf = io.BytesIO()
        >>> ember.save({"w": ember.ones(2), "r": fractions.Fraction(1, 2)}, buf)
        >>> _ = buf.seek(0)
        >>> ember.serialization.get_unsafe_globals_in_checkpoint(buf)
        ['fractions.Fraction']
    """
    if _is_path(f):
        with open(f, "rb") as fh:
            return _unsafe_globals(fh, _describe(f))
    return _unsafe_globals(f, _describe(f))


def _unsafe_globals(fh, where: str) -> list[str]:
    base = fh.tell()
    head = fh.read(4)
    fh.seek(base)
    if head != b"PK\x03\x04":
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    length = fh.seek(0, 2) - base
    fh.seek(base)
    try:
        zr = ZipReader(fh if base == 0 else _Window(fh, base), length)
        if zr.get("constants.pkl") is not None:
            raise ValueError(
                "Expected input to be a checkpoint returned by torch.save but got a "
                "torchscript checkpoint"
            )
        rec = zr.get("data.pkl")
        if rec is None:
            raise RuntimeError("the zip archive has no data.pkl: not a checkpoint")
        names = _safe_globals.globals_in_pickle(zr.read(rec))
    except (ZipError, RuntimeError) as e:
        raise RuntimeError(f"get_unsafe_globals_in_checkpoint({where}): {e}") from None
    safe = _unpickler._tables()[0].keys() | _safe_globals.user_allowed().keys()
    return [n for n in names if n not in safe]
