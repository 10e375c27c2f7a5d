"""``ember.mps``: Apple's Metal device, which ember does not have, answered as torch does on a
machine without MPS: ``is_available()`` False, ``manual_seed`` accepted, and every call that
needs the device raises torch's ``RuntimeError("Cannot execute ... without MPS backend.")``.

Example:
    >>> ember.mps.is_available(), ember.mps.device_count()
    (False, 0)
"""

from __future__ import annotations

__all__ = [
    "device_count",
    "get_rng_state",
    "manual_seed",
    "seed",
    "set_rng_state",
    "synchronize",
    "empty_cache",
    "set_per_process_memory_fraction",
    "current_allocated_memory",
    "driver_allocated_memory",
    "recommended_max_memory",
    "is_available",
]


def _no_mps(what: str) -> RuntimeError:
    return RuntimeError(f"Cannot execute {what}() without MPS backend.")


def is_available() -> bool:
    """False: ember has no MPS backend (as ``ember.backends.mps.is_available()``)."""
    return False


def device_count() -> int:
    """0: no MPS device."""
    return 0


def manual_seed(seed) -> None:
    """Accepted and ignored without an MPS device, as in torch."""
    int(seed)


def seed() -> None:
    """Needs the MPS generator: raises."""
    raise _no_mps("getDefaultGenerator")


def get_rng_state(device="mps"):
    """Needs the MPS generator: raises."""
    raise _no_mps("getDefaultGenerator")


def set_rng_state(new_state, device="mps") -> None:
    """Needs the MPS generator: raises."""
    raise _no_mps("getDefaultGenerator")


def synchronize() -> None:
    """Needs an MPS device: raises."""
    raise _no_mps("deviceSynchronize")


def empty_cache() -> None:
    """Needs an MPS device: raises."""
    raise _no_mps("emptyCache")


def set_per_process_memory_fraction(fraction) -> None:
    """Needs an MPS device: raises."""
    raise _no_mps("setMemoryFraction")


def current_allocated_memory() -> int:
    """Needs an MPS device: raises."""
    raise _no_mps("getCurrentAllocatedMemory")


def driver_allocated_memory() -> int:
    """Needs an MPS device: raises."""
    raise _no_mps("getDriverAllocatedMemory")


def recommended_max_memory() -> int:
    """Needs an MPS device: raises."""
    raise _no_mps("getRecommendedMaxMemory")
