"""Writing PyTorch's legacy (pre-1.6) checkpoint format: ``ember.save(...,
_use_new_zipfile_serialization=False)``.

The layout (the one ``_load.load_legacy`` reads): five pickles back to back (the magic number,
the protocol version 1001, a sys-info dict, the object with storages as persistent ids
``("storage", storage type, key, location, numel, None)``, the sorted list of storage keys),
then each storage in key order as its element count (int64, little-endian) and its raw bytes.
The whole file is built in memory first, so a pickling failure writes nothing.
"""

from __future__ import annotations

import inspect
import io
import warnings

from ember.serialization import _pickler
from ember.serialization._load import MAGIC_NUMBER, PROTOCOL_VERSION

# NOTE: matches torch: these sizes are constants in its writer, whatever the platform
_SYS_INFO = dict(
    protocol_version=PROTOCOL_VERSION,
    little_endian=True,
    type_sizes=dict(short=2, int=4, long=4),
)


def _legacy_pickler(pickle_module):
    base = _pickler.pickler_class(pickle_module)

    class LegacyPickler(base):
        def __init__(self, file, protocol):
            super().__init__(file, protocol)
            self.numels: dict[str, int] = {}

        def persistent_id(self, obj):
            pid = super().persistent_id(obj)
            if pid is not None:
                # the data section repeats the element count the id declares
                self.numels[pid[2]] = pid[4]
                # the legacy id has a sixth field, view metadata: always None since storage
                # views went away (tensors sharing a storage share its key instead)
                return (*pid, None)
            if isinstance(obj, type) and _is_module_class(obj):
                return ("module", obj, *_source(obj))
            return None

    return LegacyPickler


def _is_module_class(cls) -> bool:
    from ember.nn.modules.module import Module

    return issubclass(cls, Module)


def _source(cls):
    # NOTE: matches torch: a container class is recorded with its source file and code
    try:
        return inspect.getsourcefile(cls), "".join(inspect.getsourcelines(cls)[0])
    except Exception:
        warnings.warn(
            f"Couldn't retrieve source code for container of type {cls.__name__}. It won't be "
            "checked for correctness upon loading.",
            stacklevel=4,
        )
        return None, None


def legacy_bytes(obj, pickle_module, pickle_protocol) -> tuple[bytes, list]:
    """The file's pickle part and ``[(numel, raw)]`` of its storages, in order."""
    buf = io.BytesIO()
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, _SYS_INFO):
        pickle_module.dump(header, buf, protocol=pickle_protocol)
    pickler = _legacy_pickler(pickle_module)(buf, pickle_protocol)
    pickler.dump(obj)
    numels = pickler.numels
    keys = sorted(key for key, _ in pickler.storages)
    pickle_module.dump(keys, buf, protocol=pickle_protocol)
    raws = dict(pickler.storages)
    return buf.getvalue(), [(numels[k], raws[k]) for k in keys]


def write_legacy(file, pickle_bytes: bytes, storages) -> None:
    file.write(pickle_bytes)
    for numel, raw in storages:
        file.write(int(numel).to_bytes(8, "little", signed=True))
        if raw.nbytes:
            file.write(memoryview(raw).cast("B"))
    file.flush()
