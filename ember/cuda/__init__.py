"""``ember.cuda``: what PyTorch programs ask of ``torch.cuda`` before choosing a device.

ember has no CUDA backend yet, so CUDA is reported unavailable, as on a CPU-only PyTorch build:
the usual ``torch.device("cuda" if torch.cuda.is_available() else "cpu")`` picks the CPU.
Seeding calls are accepted and do nothing (PyTorch's are deferred until CUDA initializes, which
never happens here); anything that needs a GPU raises.

Example:
    >>> ember.cuda.is_available()
    False
"""

from __future__ import annotations


def is_available() -> bool:
    """False: ember has no CUDA backend yet."""
    return False


def device_count() -> int:
    """0: no CUDA devices are usable."""
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Accepted and ignored (no CUDA generator exists), as PyTorch without a GPU."""


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored (no CUDA generator exists), as PyTorch without a GPU."""


def empty_cache() -> None:
    """Nothing to free: no CUDA memory is ever allocated."""


def _unavailable(name):
    def fn(*args, **kwargs):
        raise RuntimeError(
            f"ember.cuda.{name}(): ember has no CUDA backend yet; check "
            f"ember.cuda.is_available() and use device='cpu'"
        )

    fn.__name__ = fn.__qualname__ = name
    return fn


synchronize = _unavailable("synchronize")
current_device = _unavailable("current_device")
get_device_name = _unavailable("get_device_name")
set_device = _unavailable("set_device")
memory_allocated = _unavailable("memory_allocated")
max_memory_allocated = _unavailable("max_memory_allocated")
