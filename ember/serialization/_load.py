"""Reading checkpoints: PyTorch's zip format and its legacy (pre-1.6) format.

Both formats name each storage in the pickle by a persistent id; this module resolves those
ids to bytes (one read per storage into a fresh buffer, or a view of a memory map), applies
``map_location``, and hands tensors back as views of those bytes. Every size and offset read
from the file is checked before it is used, so damage ends in ``RuntimeError`` or
``UnpicklingError`` (the caller adds the file's name), never a wild allocation or read.
"""

from __future__ import annotations

import io
import sys
from pickle import UnpicklingError

from ember._device import device
from ember.backend import _storage
from ember.serialization import _locations, _options, _rebuild, _unpickler
from ember.serialization._rebuild import StorageType, TypedStorage, UntypedStorage
from ember.serialization._zip import ZipError, ZipReader

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_CPU = device("cpu")
_META = device("meta")


class Restore:
    """``map_location`` resolved once: where each storage goes, given its saved location."""

    def __init__(self, map_location):
        self.fn = None
        self.table = None
        self.fixed = None
        self.mapped = None
        if map_location is None:
            pass
        elif isinstance(map_location, (str, device)):
            self.fixed = _rebuild.check_location(str(device(map_location)))
        elif isinstance(map_location, dict):
            self.table = map_location
        elif callable(map_location):
            self.fn = map_location
        else:
            raise TypeError(
                "ember.load: map_location must be None, a str, an ember.device, a dict or a "
                f"callable, got {type(map_location).__name__}"
            )

    def target(self, location) -> device | None:
        """The device a storage saved at ``location`` loads to (None: ask the callable)."""
        if not isinstance(location, str):
            raise RuntimeError(f"a storage location must be a string, got {location!r:.100}")
        if self.fixed is not None:
            return self.fixed
        if self.fn is not None:
            return None
        if self.table is not None:
            location = self.table.get(location, location)
            if isinstance(location, device):
                location = str(location)
        try:
            return _rebuild.check_location(location)
        except RuntimeError:
            if not _locations.has_user_packages():
                raise
            self.mapped = location
            return None  # ask the packages registered with register_package, once read

    def call(self, storage: UntypedStorage, location: str) -> UntypedStorage:
        if self.fn is None:
            return self._by_packages(storage, self.mapped)
        result = self.fn(storage, location)
        if result is None:
            try:
                target = _rebuild.check_location(location)
            except RuntimeError:
                if not _locations.has_user_packages():
                    raise
                return self._by_packages(storage, location)
            return storage.to(target)
        if not isinstance(result, UntypedStorage):
            raise TypeError(
                "ember.load: a map_location callable must return the storage it was given "
                f"(possibly moved with .to()/.cpu()) or None, got {type(result).__name__}"
            )
        return result

    @staticmethod
    def _by_packages(storage: UntypedStorage, location: str) -> UntypedStorage:
        result = _locations.restore_by_user_packages(storage, location)
        if result is None:
            _rebuild.check_location(location)  # raises ember's error for the location
        if not isinstance(result, UntypedStorage):
            raise TypeError(
                "ember.load: a deserializer registered with register_package must return the "
                f"storage it was given (possibly moved with .to()) or None, got "
                f"{type(result).__name__}"
            )
        return result


def _pid_fields(pid, n: int):
    if len(pid) != n:
        raise UnpicklingError(f"a storage persistent id has {len(pid)} fields, expected {n}")
    kind = pid[0]
    if isinstance(kind, bytes):
        kind = kind.decode("ascii", "replace")
    if kind != "storage":
        raise UnpicklingError(f"Only persistent_load of storage is allowed, but got {kind!r:.50}")
    stype, key, location, numel = pid[1:5]
    if isinstance(location, bytes):
        location = location.decode("ascii", "replace")
    if not isinstance(stype, StorageType):
        raise UnpicklingError(f"a storage persistent id names {stype!r:.100}, not a storage type")
    if type(numel) is not int or numel < 0:
        raise UnpicklingError(f"a storage persistent id has element count {numel!r:.50}")
    return stype, key, location, numel


# ---- zip -------------------------------------------------------------------------------------


def load_zip(file, length, restore, *, weights_only, pickle_module, mm, load_args):
    zr = ZipReader(file, length)
    rec = zr.get("data.pkl")
    if rec is None:
        if zr.get("constants.pkl") is not None:
            raise RuntimeError(
                "this is a TorchScript archive (torch.jit.save), which ember "
                "cannot load; save a state_dict() with torch.save instead"
            )
        raise RuntimeError(
            f"not a PyTorch checkpoint: the zip archive has no data.pkl "
            f"(records: {', '.join(list(zr.records)[:5])})"
        )
    swap = False
    bo = zr.get("byteorder")
    if bo is not None:
        order = zr.read(bo)
        if order not in (b"little", b"big"):
            raise ValueError(f"Unknown endianness type: {order.decode('ascii', 'replace')}")
        swap = order.decode() != sys.byteorder
    else:  # an archive without the record: set_default_load_endianness decides
        swap = _options.fallback_byteorder() != sys.byteorder
    skip = _options.tls.skip_data
    pickle_bytes = zr.read(rec)
    storages: dict[str, TypedStorage] = {}

    def persistent_load(pid):
        if not isinstance(pid, tuple):
            raise UnpicklingError(f"persistent_load id must be a tuple, got {type(pid).__name__}")
        stype, key, location, numel = _pid_fields(pid, 5)
        if not isinstance(key, str):
            raise UnpicklingError(f"a storage key must be a str, got {key!r:.50}")
        nbytes = numel * stype.dtype.itemsize
        found = storages.get(key)
        if found is not None:
            if nbytes > found.untyped.nbytes():
                raise RuntimeError(
                    f"storage {key} is used with {nbytes} bytes but holds {found.untyped.nbytes()}"
                )
            return TypedStorage(found.untyped, stype.dtype)
        srec = zr.get(f"data/{key}")
        if srec is None:
            raise RuntimeError(
                f"the archive has no record data/{key} for a storage the pickle names"
            )
        if srec.size != nbytes:
            raise RuntimeError(
                f"record data/{key} holds {srec.size} bytes, but the pickle "
                f"declares {numel} elements of {stype.dtype} ({nbytes} bytes)"
            )
        target = restore.target(location)
        if target is not None and target.type == "meta":
            us = UntypedStorage(None, nbytes, _META)
        elif skip:  # skip_data: the tensor's structure only, its bytes uninitialized
            us = UntypedStorage(_storage.empty_bytes(nbytes), nbytes, _CPU)
            if target is None:
                us = restore.call(us, location)
        else:
            if mm is not None:
                if srec.method != 0:
                    raise RuntimeError(
                        f"record data/{key} is compressed; mmap=True needs "
                        "stored (uncompressed) records"
                    )
                raw = _storage.frombuffer(mm, zr.data_offset(srec), nbytes)
            else:
                raw = _storage.empty_bytes(nbytes)
                zr.read_into(srec, raw)
            if (
                swap
                and stype.dtype.itemsize > 1
                and not isinstance(stype.dtype, _rebuild.TorchDtype)
            ):
                _storage.byteswap(_storage.typed(raw, stype.dtype._np))
            us = UntypedStorage(raw, nbytes, _CPU)
            if target is None:
                us = restore.call(us, location)
        ts = TypedStorage(us, stype.dtype)
        storages[key] = ts
        return ts

    if weights_only:
        return _unpickler.WeightsUnpickler(
            pickle_bytes, persistent_load, encoding=load_args.get("encoding", "utf-8")
        ).load()
    return _unpickler.full_unpickler(
        pickle_module, io.BytesIO(pickle_bytes), persistent_load, **load_args
    ).load()


# ---- legacy ----------------------------------------------------------------------------------


def is_tar(head: bytes) -> bool:
    return len(head) >= 262 and head[257:262] == b"ustar"


def load_legacy(data, file, base, restore, *, weights_only, pickle_module, load_args):
    """``data``: the file's bytes (a buffer or memory map), ``file`` readable at ``base``."""
    encoding = load_args.get("encoding", "utf-8")
    roots: dict = {}  # root key -> [TypedStorage, needs data]
    views: dict = {}

    def persistent_load(pid):
        if not isinstance(pid, tuple):
            raise UnpicklingError(f"persistent_load id must be a tuple, got {type(pid).__name__}")
        kind = pid[0].decode("ascii", "replace") if isinstance(pid[0], bytes) else pid[0]
        if kind == "module" and not weights_only:
            return pid[1]
        stype, root_key, location, numel = _pid_fields(pid, 6)
        view_metadata = pid[5]
        dt = stype.dtype
        if root_key not in roots:
            nbytes = numel * dt.itemsize
            target = restore.target(location)
            if target is not None and target.type == "meta":
                us = UntypedStorage(None, nbytes, _META)
            else:
                # Filled from the data section after the pickles (as PyTorch does); cap the
                # size by what the file could hold so a corrupt count cannot allocate at will.
                if nbytes > len(data):
                    raise RuntimeError(
                        f"storage {root_key!r:.50} declares {nbytes} bytes, more "
                        f"than the whole file ({len(data)} bytes)"
                    )
                us = UntypedStorage(_storage.empty_bytes(nbytes), nbytes, _CPU)
            roots[root_key] = [TypedStorage(us, dt), location, target]
        root = roots[root_key][0]
        if view_metadata is None:
            return root if root.dtype is dt else TypedStorage(root.untyped, dt)
        try:
            view_key, offset, view_size = view_metadata
        except (TypeError, ValueError):
            raise UnpicklingError(f"bad storage view metadata {view_metadata!r:.100}") from None
        if view_key not in views:
            if type(offset) is not int or type(view_size) is not int or offset < 0 or view_size < 0:
                raise UnpicklingError(f"bad storage view metadata {view_metadata!r:.100}")
            isz = dt.itemsize
            ru = root.untyped
            if (offset + view_size) * isz > ru.nbytes():
                raise RuntimeError(f"storage view {view_key!r:.50} runs past its root storage")
            raw = None if ru._raw is None else ru._raw[offset * isz : (offset + view_size) * isz]
            views[view_key] = TypedStorage(UntypedStorage(raw, view_size * isz, ru.device), dt)
        return views[view_key]

    def unpickle(pos, persistent=None):
        if weights_only or persistent is None:
            up = _unpickler.WeightsUnpickler(data, persistent, pos=pos, encoding=encoding)
            return up.load(), up.pos
        file.seek(base + pos)
        up = _unpickler.full_unpickler(pickle_module, file, persistent, **load_args)
        obj = up.load()
        return obj, file.tell() - base

    magic, pos = unpickle(0)
    if magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol, pos = unpickle(pos)
    if protocol != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol!r:.50}")
    sys_info, pos = unpickle(pos)
    little = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else True
    result, pos = unpickle(pos, persistent_load)
    keys, pos = unpickle(pos)
    if not isinstance(keys, list):
        raise RuntimeError(f"the storage key list is corrupt: {keys!r:.100}")
    swap = bool(little) != (sys.byteorder == "little")
    for key in keys:
        entry = roots.get(key)
        if entry is None:
            raise RuntimeError(f"storage key {key!r:.50} not found in the pickle")
        ts, location, target = entry
        if pos + 8 > len(data):
            raise RuntimeError("the file is truncated in its storage data")
        numel = int.from_bytes(data[pos : pos + 8], "little", signed=True)
        nbytes = numel * ts.dtype.itemsize
        pos += 8
        if nbytes != ts.untyped.nbytes():
            raise RuntimeError(
                f"storage {key!r:.50} has {numel} elements in the data section "
                f"but the pickle declares {ts.untyped.nbytes()} bytes"
            )
        if pos + nbytes > len(data):
            raise RuntimeError(
                f"the file is truncated in storage {key!r:.50}: needs "
                f"{nbytes} bytes at byte {pos}, the file has {len(data)}"
            )
        raw = ts.untyped._raw
        if raw is not None and nbytes and not _options.tls.skip_data:
            file.seek(base + pos)
            got = file.readinto(raw)
            if got != nbytes:
                raise RuntimeError(f"short read in storage {key!r:.50} (truncated file)")
            if swap and ts.dtype.itemsize > 1 and not isinstance(ts.dtype, _rebuild.TorchDtype):
                _storage.byteswap(_storage.typed(raw, ts.dtype._np))
        pos += nbytes
        if target is None:  # a map_location callable sees the filled storage
            moved = restore.call(ts.untyped, location)
            if moved is not ts.untyped:
                raise RuntimeError(
                    "ember.load: with a legacy-format checkpoint, a map_location callable may "
                    "only return the storage it was given or None"
                )
    return result


__all__ = ["ZipError", "load_zip", "load_legacy", "Restore", "is_tar"]
