"""``ember.xpu``: Intel GPUs, which ember does not have, answered as a torch build without XPU:
``is_available()`` False, ``device_count()`` 0, seeding accepted, memory counters 0, and
calls that need a device raise ``AssertionError: Torch not compiled with XPU enabled``.

Example:
    >>> ember.xpu.is_available()
    False
"""

from __future__ import annotations

__all__ = [
    "current_device",
    "device_count",
    "empty_cache",
    "get_device_name",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "memory_allocated",
    "seed",
    "seed_all",
    "set_device",
    "synchronize",
]


def _not_compiled() -> AssertionError:
    return AssertionError("Torch not compiled with XPU enabled")


def is_available() -> bool:
    """False: ember has no XPU backend."""
    return False


def device_count() -> int:
    """0: no XPU device."""
    return 0


def is_initialized() -> bool:
    """False: XPU is never initialized."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: no XPU device."""
    return False


def manual_seed(seed) -> None:
    """Accepted and ignored, as a torch build without XPU."""
    int(seed)


def manual_seed_all(seed) -> None:
    """Accepted and ignored, as a torch build without XPU."""
    int(seed)


def seed() -> None:
    """Accepted and ignored."""


def seed_all() -> None:
    """Accepted and ignored."""


def empty_cache() -> None:
    """Nothing to free."""


def memory_allocated(device=None) -> int:
    """0: no XPU memory is ever allocated."""
    return 0


def current_device() -> int:
    """Needs an XPU device: raises."""
    raise _not_compiled()


def set_device(device) -> None:
    """Needs an XPU device: raises."""
    raise _not_compiled()


def get_device_name(device=None) -> str:
    """Needs an XPU device: raises."""
    raise _not_compiled()


def synchronize(device=None) -> None:
    """Needs an XPU device: raises."""
    raise _not_compiled()
