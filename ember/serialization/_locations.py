"""Storage locations (``location_tag``, ``default_restore_location``, ``register_package``)
and the small helpers of ``torch.serialization``'s public API.

A location is the device string a checkpoint records per storage (``"cpu"``, ``"cuda:0"``).
Taggers name a storage's location; deserializers move a CPU storage to a location. Both are
tried in priority order (lower first) until one answers, as in PyTorch; ``ember.load`` asks the
registry for the locations ember does not know itself (and when a ``map_location`` callable
returns None), so ``register_package`` extends it.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable

from ember.serialization import _rebuild

_package_registry: list[tuple[int, Callable, Callable]] = []
_n_builtin = [0]
_BUILTIN_FUNCS: set = set()


class SourceChangeWarning(Warning):
    """The source of a class pickled in a checkpoint changed since it was saved (PyTorch's
    legacy loader warns with it; ember never checks sources, so never raises it).

    Example:
        >>> issubclass(ember.serialization.SourceChangeWarning, Warning)
        True
    """


@contextlib.contextmanager
def mkdtemp():
    """A temporary directory, removed with its contents on exit.

    Example:
        >>> import os
        >>> with ember.serialization.mkdtemp() as path:
        ...     os.path.isdir(path)
        True
        >>> os.path.exists(path)
        False
    """
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)


def register_package(
    priority: int,
    tagger: Callable,
    deserializer: Callable,
) -> None:
    """Register a tagger (``storage -> location str or None``) and a deserializer
    (``(storage, location) -> storage or None``), tried in order of ``priority`` (lower first)
    by ``location_tag`` and ``default_restore_location`` (and so by ``ember.load``).

    Args:
        priority: lower runs earlier (ember's own: cpu 10, cuda 20, mps 21, meta 22, hpu 24,
            xpu 25, mtia 26).
        tagger: names the location of a storage, or returns None to pass.
        deserializer: restores a storage at a location, or returns None to pass.

    Example:
        >>> def tag(storage):
        ...     return None
        >>> def to_cpu(storage, location):
        ...     return storage if location == "my_device" else None
        >>> ember.serialization.register_package(5, tag, to_cpu)
        >>> s = ember.ones(2).untyped_storage()
        >>> ember.serialization.default_restore_location(s, "my_device") is s
        True
    """
    _package_registry.append((priority, tagger, deserializer))
    # NOTE: matches torch: a plain tuple sort (equal priorities order by the callables, which
    # raises TypeError for functions, as PyTorch's does).
    _package_registry.sort()


def check_module_version_greater_or_equal(module, req_version_tuple, error_if_malformed=True):
    """Whether ``module.__version__`` is at least ``req_version_tuple``, compared field by
    field after casting each version field to the type of the required one.

    Args:
        module: a module with ``__version__``.
        req_version_tuple: the minimum version, e.g. ``(1, 2)``.
        error_if_malformed: raise RuntimeError for a version that cannot be compared (else
            warn and return True).

    Example:
        >>> import types
        >>> m = types.ModuleType("m")
        >>> m.__version__ = "1.10.2"
        >>> ember.serialization.check_module_version_greater_or_equal(m, (1, 9))
        True
    """
    try:
        fields = module.__version__.split(".")
        version = tuple(type(req)(fields[i]) for i, req in enumerate(req_version_tuple))
        met = version >= req_version_tuple
    except Exception as e:
        message = (
            f"'{module.__name__}' module version string is malformed '{module.__version__}' "
            f"and cannot be compared with tuple {req_version_tuple}"
        )
        if error_if_malformed:
            raise RuntimeError(message) from e
        warnings.warn(message + ", but continuing assuming that requirement is met", stacklevel=2)
        met = True
    return met


# ---- devices ---------------------------------------------------------------------------------


def _device_module(backend: str):
    import ember

    return getattr(ember, backend, None)


def _validate_device(location, backend: str) -> int:
    """The device index ``location`` names, or PyTorch's error where ember cannot hold it
    (always, for an accelerator: ember runs on the CPU)."""
    module = _device_module(backend)
    if module is None:
        raise RuntimeError(
            f"The {backend.upper()} device module is not registered. If you are running on a "
            "CPU-only machine, please use ember.load with map_location=ember.device('cpu') to "
            "map your storages to the CPU."
        )
    if isinstance(location, int):
        index = location
    else:
        kind, _, index = str(location).partition(":")
        if kind != backend:
            raise ValueError(f"Expected a {backend} device, but got: {location}")
        index = int(index) if index else 0
    if not module.is_available():
        raise RuntimeError(
            f"Attempting to deserialize object on a {backend.upper()} device but "
            f"ember.{backend}.is_available() is False. If you are running on a CPU-only "
            "machine, please use ember.load with map_location=ember.device('cpu') to map your "
            "storages to the CPU."
        )
    return index  # unreachable while ember has no accelerator


def validate_cuda_device(location):
    """The CUDA device index of ``location`` (``"cuda:1"``, ``1``); ember has no CUDA, so this
    raises what a CPU-only PyTorch raises.

    Raises:
        ValueError: ``location`` is not a CUDA device.
        RuntimeError: CUDA is not available (always, in ember).

    Example:
        >>> ember.serialization.validate_cuda_device("cuda:0")
        Traceback (most recent call last):
        ...
        RuntimeError: Attempting to deserialize object on a CUDA device but ember.cuda...
    """
    return _validate_device(location, "cuda")


def validate_hpu_device(location):
    """The HPU device index of ``location``; ember has no HPU module, so this raises what a
    PyTorch without one raises.

    Example:
        >>> ember.serialization.validate_hpu_device("hpu:0")
        Traceback (most recent call last):
        ...
        RuntimeError: The HPU device module is not registered. ...
    """
    return _validate_device(location, "hpu")


def _cpu_tag(obj):
    if obj.device.type == "cpu":
        return "cpu"


def _meta_tag(obj):
    if obj.device.type == "meta":
        return "meta"


def _backend_tag(backend: str):
    def tag(obj):
        if obj.device.type == backend:
            index = obj.device.index
            return backend if index is None else f"{backend}:{index}"

    return tag


def _cpu_deserialize(obj, location):
    if location == "cpu":
        return obj


def _meta_deserialize(obj, location):
    if location == "meta":
        return obj.to("meta") if isinstance(obj, _rebuild.UntypedStorage) else _meta_storage(obj)


def _meta_storage(obj):
    from ember.storage import UntypedStorage

    return UntypedStorage(obj.nbytes(), device="meta")


def _backend_deserialize(backend: str):
    pattern = re.compile(f"{backend}(:|[0-9]+)")

    def deserialize(obj, location):
        if location == backend or pattern.match(location):
            _validate_device(location, backend)
            return obj.to(location)  # unreachable while ember has no accelerator

    return deserialize


def _register_builtins() -> None:
    register_package(10, _cpu_tag, _cpu_deserialize)
    register_package(20, _backend_tag("cuda"), _backend_deserialize("cuda"))
    register_package(21, _backend_tag("mps"), _backend_deserialize("mps"))
    register_package(22, _meta_tag, _meta_deserialize)
    for priority, backend in ((24, "hpu"), (25, "xpu"), (26, "mtia")):
        register_package(priority, _backend_tag(backend), _backend_deserialize(backend))
    _n_builtin[0] = len(_package_registry)
    _BUILTIN_FUNCS.update(fn for _, _, fn in _package_registry)


_register_builtins()


def has_user_packages() -> bool:
    return len(_package_registry) > _n_builtin[0]


def restore_by_user_packages(storage, location: str):
    """``storage`` restored by a deserializer the user registered, or None: ``ember.load``
    asks these for the locations its own rules refuse."""
    for _, _, fn in _package_registry:
        if fn not in _BUILTIN_FUNCS:
            result = fn(storage, location)
            if result is not None:
                return result
    return None


def location_tag(storage) -> str:
    """The location string a checkpoint records for ``storage`` (``"cpu"``, ``"meta"``...).

    Raises:
        RuntimeError: no registered tagger names it.

    Example:
        >>> ember.serialization.location_tag(ember.ones(2).untyped_storage())
        'cpu'
    """
    for _, tagger, _ in _package_registry:
        location = tagger(storage)
        if location:
            return location
    import ember

    raise RuntimeError(f"don't know how to determine data location of {ember.typename(storage)}")


def default_restore_location(storage, location: str):
    """``storage`` restored at ``location`` by the first registered deserializer that answers
    (what ``ember.load`` does without ``map_location``).

    Raises:
        RuntimeError: no deserializer matches ``location`` (or the device is unavailable:
            ``"cuda:0"`` on a machine without CUDA).

    Example:
        >>> s = ember.ones(2).untyped_storage()
        >>> ember.serialization.default_restore_location(s, "cpu") is s
        True
        >>> ember.serialization.default_restore_location(s, "meta").device
        device(type='meta')
    """
    for _, _, fn in _package_registry:
        result = fn(storage, location)
        if result is not None:
            return result
    raise RuntimeError(
        f"don't know how to restore data location of {_typename(storage)} (tagged with {location})"
    )


def _typename(storage) -> str:
    if isinstance(storage, _rebuild.UntypedStorage):
        return "ember.storage.UntypedStorage"  # what the loader's storage stands for
    import ember

    return ember.typename(storage)


def normalize_storage_type(storage_type):
    """The top-level ``ember`` class of the same name as ``storage_type``.

    Example:
        >>> ember.serialization.normalize_storage_type(ember.FloatStorage)
        <class 'ember.FloatStorage'>
    """
    import ember

    return getattr(ember, storage_type.__name__)


def storage_to_tensor_type(storage):
    """The legacy tensor class of a legacy storage (``FloatStorage`` -> ``FloatTensor``),
    looked up in the storage class's module.

    Raises:
        AttributeError: the module has no such tensor class (``TypedStorage`` and
            ``UntypedStorage`` instances, as in PyTorch).

    Example:
        >>> ember.serialization.storage_to_tensor_type(ember.FloatStorage(2))
        <class 'ember.FloatTensor'>
    """
    storage_type = type(storage)
    module = importlib.import_module(storage_type.__module__)
    return getattr(module, storage_type.__name__.replace("Storage", "Tensor"))
