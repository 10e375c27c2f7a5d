"""``ember.accelerator``: the device-generic accelerator API, with no accelerator present.

``is_available()`` is False, ``current_accelerator()`` None and ``device_count()`` 0, so
``torch.accelerator.current_accelerator() or "cpu"`` picks the CPU; the calls that need a
device raise torch's ``RuntimeError("Cannot access accelerator device when none is
available.")``.

Example:
    >>> ember.accelerator.is_available(), ember.accelerator.current_accelerator()
    (False, None)
"""

from __future__ import annotations

__all__ = [
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "current_stream",
    "device_count",
    "device_index",
    "empty_cache",
    "get_memory_info",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_device_idx",
    "set_device_index",
    "set_stream",
    "synchronize",
]


def _none() -> RuntimeError:
    return RuntimeError("Cannot access accelerator device when none is available.")


def is_available() -> bool:
    """False: ember has no accelerator."""
    return False


def current_accelerator(check_available: bool = False):
    """The accelerator device type in use: None."""
    return None


def device_count() -> int:
    """0: no accelerator device."""
    return 0


class device_index:
    """Context that selects an accelerator device by index; ``None`` is a no-op."""

    def __init__(self, device, /) -> None:
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            raise _none()

    def __exit__(self, *exc):
        return False


def _needs_device(name):
    def fn(*args, **kwargs):
        raise _none()

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "Needs an accelerator device: raises (ember has none)."
    return fn


current_device_index = _needs_device("current_device_index")
current_device_idx = _needs_device("current_device_idx")
set_device_index = _needs_device("set_device_index")
set_device_idx = _needs_device("set_device_idx")
current_stream = _needs_device("current_stream")
set_stream = _needs_device("set_stream")
synchronize = _needs_device("synchronize")
empty_cache = _needs_device("empty_cache")
get_memory_info = _needs_device("get_memory_info")
memory_allocated = _needs_device("memory_allocated")
max_memory_allocated = _needs_device("max_memory_allocated")
memory_reserved = _needs_device("memory_reserved")
max_memory_reserved = _needs_device("max_memory_reserved")
memory_stats = _needs_device("memory_stats")
reset_accumulated_memory_stats = _needs_device("reset_accumulated_memory_stats")
reset_peak_memory_stats = _needs_device("reset_peak_memory_stats")
