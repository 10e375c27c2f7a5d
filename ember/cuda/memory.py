"""``ember.cuda.memory``: the CUDA caching allocator's API, answered as a CPU-only torch.

No CUDA memory is ever allocated, so the counters read 0 and the statistics are empty; the
calls that would reach the allocator itself raise what a CPU-only torch raises.

Example:
    >>> ember.cuda.memory_allocated(), ember.cuda.max_memory_reserved()
    (0, 0)
"""

from __future__ import annotations

import collections
import contextlib

from ember.cuda._utils import device_index, dummy, no_binding, not_compiled

__all__ = [
    "caching_allocator_alloc",
    "caching_allocator_delete",
    "caching_allocator_disabled",
    "caching_allocator_enable",
    "get_per_process_memory_fraction",
    "set_per_process_memory_fraction",
    "empty_cache",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "host_memory_stats",
    "host_memory_stats_as_nested_dict",
    "reset_accumulated_host_memory_stats",
    "reset_peak_host_memory_stats",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "memory_cached",
    "max_memory_cached",
    "memory_snapshot",
    "memory_summary",
    "list_gpu_processes",
    "mem_get_info",
    "get_allocator_backend",
    "CUDAPluggableAllocator",
    "change_current_allocator",
    "MemPool",
    "use_mem_pool",
]


# ---- counters: nothing is ever allocated -------------------------------------------------------
def memory_stats(device=None) -> collections.OrderedDict:
    """The allocator's statistics: none, as a CPU-only torch (an empty OrderedDict).

    Example:
        >>> ember.cuda.memory_stats()
        OrderedDict()
    """
    return collections.OrderedDict()


def memory_stats_as_nested_dict(device=None) -> dict:
    """The allocator's statistics as nested dicts: none (``{}``)."""
    return {}


def host_memory_stats() -> collections.OrderedDict:
    """The pinned host allocator's statistics: none (an empty OrderedDict)."""
    return collections.OrderedDict()


def host_memory_stats_as_nested_dict() -> dict:
    """The pinned host allocator's statistics as nested dicts: none (``{}``)."""
    return {}


def memory_allocated(device=None) -> int:
    """0: no CUDA memory is ever allocated."""
    return 0


def max_memory_allocated(device=None) -> int:
    """0: no CUDA memory is ever allocated."""
    return 0


def memory_reserved(device=None) -> int:
    """0: no CUDA memory is ever reserved."""
    return 0


def max_memory_reserved(device=None) -> int:
    """0: no CUDA memory is ever reserved."""
    return 0


def memory_cached(device=None) -> int:
    """Deprecated name of ``memory_reserved``: 0."""
    return 0


def max_memory_cached(device=None) -> int:
    """Deprecated name of ``max_memory_reserved``: 0."""
    return 0


def empty_cache() -> None:
    """Nothing to free: no CUDA memory is ever allocated."""


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A printout of the allocator's statistics: raises, as a CPU-only torch (it has none)."""
    device_index(device, optional=True)
    # NOTE: matches torch: the printout looks up a statistic a CPU-only build never records
    raise KeyError("allocated_bytes.all.current")


# ---- calls that need the allocator itself ------------------------------------------------------
def _reset(binding: str, device) -> None:
    device_index(device, optional=True)
    raise no_binding(binding)


def reset_peak_memory_stats(device=None) -> None:
    """Reset the allocator's peak counters: raises, as a CPU-only torch."""
    _reset("_cuda_resetPeakMemoryStats", device)


def reset_max_memory_allocated(device=None) -> None:
    """Reset the peak allocated memory: raises, as a CPU-only torch."""
    _reset("_cuda_resetPeakMemoryStats", device)


def reset_max_memory_cached(device=None) -> None:
    """Reset the peak reserved memory: raises, as a CPU-only torch."""
    _reset("_cuda_resetPeakMemoryStats", device)


def reset_accumulated_memory_stats(device=None) -> None:
    """Reset the allocator's accumulated counters: raises, as a CPU-only torch."""
    _reset("_cuda_resetAccumulatedMemoryStats", device)


def reset_peak_host_memory_stats() -> None:
    """Reset the host allocator's peak counters: raises, as a CPU-only torch."""
    raise no_binding("_cuda_resetPeakHostMemoryStats")


def reset_accumulated_host_memory_stats() -> None:
    """Reset the host allocator's accumulated counters: raises, as a CPU-only torch."""
    raise no_binding("_cuda_resetAccumulatedHostMemoryStats")


def memory_snapshot(mempool_id=None, include_traces=True):
    """The allocator's state: raises, as a CPU-only torch."""
    raise no_binding("_cuda_memorySnapshot")


def get_allocator_backend() -> str:
    """The allocator's backend name: raises, as a CPU-only torch."""
    raise no_binding("_cuda_getAllocatorBackend")


def mem_get_info(device=None) -> tuple[int, int]:
    """Free and total memory of a CUDA device: raises, as a CPU-only torch."""
    if device is not None:
        device_index(device, optional=True)
    raise not_compiled()


def get_per_process_memory_fraction(device=None) -> float:
    """The memory cap of this process on a CUDA device: raises, as a CPU-only torch."""
    raise not_compiled()


def set_per_process_memory_fraction(fraction, device=None) -> None:
    """Cap this process's CUDA memory: raises, as a CPU-only torch."""
    raise not_compiled()


def caching_allocator_alloc(size, device=None, stream=None):
    """Allocate CUDA memory through the caching allocator: raises, as a CPU-only torch."""
    raise not_compiled()


def caching_allocator_delete(mem_ptr) -> None:
    """Free memory from ``caching_allocator_alloc``: raises, as a CPU-only torch."""
    raise no_binding("_cuda_cudaCachingAllocator_raw_delete")


def caching_allocator_enable(value: bool = True) -> None:
    """Switch the caching allocator on or off: accepted, as a CPU-only torch (it skips the call
    without CUDA)."""


@contextlib.contextmanager
def caching_allocator_disabled():
    """Run a block with the caching allocator off: raises on entry, as a CPU-only torch."""
    raise no_binding("_cuda_cudaCachingAllocator_is_enabled")
    yield  # pragma: no cover


def list_gpu_processes(device=None) -> str:
    """The processes using a GPU, as text: NVML is missing, and the text says so.

    Example:
        >>> ember.cuda.list_gpu_processes()
        'pynvml module not found, please install nvidia-ml-py'
    """
    # NOTE: matches torch: it returns (not raises) this line when pynvml cannot be imported
    return "pynvml module not found, please install nvidia-ml-py"


class CUDAPluggableAllocator:
    """A CUDA allocator loaded from a shared library: the library is loaded, then registering
    it with CUDA raises, as a CPU-only torch."""

    def __init__(self, path_to_so_file: str, alloc_fn_name: str, free_fn_name: str):
        import ctypes  # only here: most programs never load an allocator

        lib = ctypes.CDLL(path_to_so_file)
        alloc_fn = ctypes.cast(getattr(lib, alloc_fn_name), ctypes.c_void_p).value
        free_fn = ctypes.cast(getattr(lib, free_fn_name), ctypes.c_void_p).value
        if alloc_fn is None:
            raise AssertionError(f"alloc_fn '{alloc_fn_name}' is None")
        if free_fn is None:
            raise AssertionError(f"free_fn '{free_fn_name}' is None")
        raise no_binding("_cuda_customAllocator")


def change_current_allocator(allocator) -> None:
    """Make ``allocator`` CUDA's allocator: raises, as a CPU-only torch."""
    raise no_binding("_cuda_changeCurrentAllocator")


class MemPool:
    """A private CUDA memory pool: cannot be made without CUDA."""

    def __new__(cls, *args, **kwargs):
        raise dummy("MemPool")


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    """Route allocations to ``pool``: raises on entry, as a CPU-only torch."""
    if device is not None:
        device_index(device)
    raise not_compiled()
    yield  # pragma: no cover
