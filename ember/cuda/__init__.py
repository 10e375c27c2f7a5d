"""``ember.cuda``: what PyTorch programs ask of ``torch.cuda``, answered as a CPU-only PyTorch.

ember has no CUDA backend, so every query gives a CPU-only torch build's answer:
``is_available()`` is False and ``device_count()`` 0, so the usual
``torch.device("cuda" if torch.cuda.is_available() else "cpu")`` picks the CPU. Seeding calls
are accepted and do nothing (torch defers them until CUDA initializes, which never happens),
the memory counters read 0, and anything that needs a GPU raises what a CPU-only torch raises
(mostly ``AssertionError: Torch not compiled with CUDA enabled``). The legacy typed classes
(``torch.cuda.FloatTensor``...) exist for ``isinstance`` checks, which are always False.

Example:
    >>> ember.cuda.is_available(), ember.cuda.device_count()
    (False, 0)
"""

from __future__ import annotations

from ember._device import device as _device_cls
from ember._runtime import AcceleratorError, OutOfMemoryError
from ember.cuda._utils import device_index as _device_index
from ember.cuda._utils import no_binding as _no_binding
from ember.cuda._utils import no_nvml as _no_nvml
from ember.cuda._utils import not_compiled as _not_compiled

__all__ = [
    "AcceleratorError",
    "BFloat16Storage",
    "BFloat16Tensor",
    "BoolStorage",
    "BoolTensor",
    "ByteStorage",
    "ByteTensor",
    "CUDAGraph",
    "CUDAPluggableAllocator",
    "CharStorage",
    "CharTensor",
    "ComplexDoubleStorage",
    "ComplexFloatStorage",
    "CudaError",
    "DeferredCudaCallError",
    "Device",
    "DoubleStorage",
    "DoubleTensor",
    "Event",
    "ExternalStream",
    "FloatStorage",
    "FloatTensor",
    "GreenContext",
    "HalfStorage",
    "HalfTensor",
    "IntStorage",
    "IntTensor",
    "LongStorage",
    "LongTensor",
    "MemPool",
    "OutOfMemoryError",
    "ShortStorage",
    "ShortTensor",
    "Stream",
    "StreamContext",
    "amp",
    "caching_allocator_alloc",
    "caching_allocator_delete",
    "caching_allocator_disabled",
    "caching_allocator_enable",
    "can_device_access_peer",
    "change_current_allocator",
    "check_error",
    "clock_rate",
    "cudaStatus",
    "cudart",
    "current_blas_handle",
    "current_device",
    "current_solver_handle",
    "current_stream",
    "default_generators",
    "default_stream",
    "device",
    "device_count",
    "device_memory_used",
    "device_of",
    "empty_cache",
    "gds",
    "get_allocator_backend",
    "get_arch_list",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_gencode_flags",
    "get_per_process_memory_fraction",
    "get_rng_state",
    "get_rng_state_all",
    "get_stream_from_external",
    "get_sync_debug_mode",
    "graph",
    "graph_pool_handle",
    "graphs",
    "green_contexts",
    "has_half",
    "has_magma",
    "host_memory_stats",
    "host_memory_stats_as_nested_dict",
    "init",
    "initial_seed",
    "ipc_collect",
    "is_available",
    "is_bf16_supported",
    "is_current_stream_capturing",
    "is_initialized",
    "is_tf32_supported",
    "jiterator",
    "list_gpu_processes",
    "make_graphed_callables",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "mem_get_info",
    "memory",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_snapshot",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "memory_summary",
    "memory_usage",
    "nccl",
    "nvtx",
    "power_draw",
    "profiler",
    "random",
    "reset_accumulated_host_memory_stats",
    "reset_accumulated_memory_stats",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "reset_peak_host_memory_stats",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_per_process_memory_fraction",
    "set_rng_state",
    "set_rng_state_all",
    "set_stream",
    "set_sync_debug_mode",
    "sparse",
    "stream",
    "streams",
    "synchronize",
    "temperature",
    "tunable",
    "use_mem_pool",
    "utilization",
]

# The type of ``device=`` arguments (torch.cuda.Device).
Device = _device_cls | str | int | None

has_half = True  # NOTE: matches torch: a CPU-only build still reports half support
has_magma = False
default_generators: tuple = ()  # one generator per CUDA device: none


class cudaStatus:
    """The two CUDA status codes torch names."""

    SUCCESS: int = 0
    ERROR_NOT_READY: int = 34


class DeferredCudaCallError(Exception):
    """Raised when a call deferred until CUDA initializes fails (never, without CUDA)."""


class CudaError(RuntimeError):
    """A CUDA runtime error with its code: cannot be built without the CUDA runtime."""

    def __init__(self, code: int) -> None:
        # NOTE: matches torch: it asks the CUDA runtime (absent here) for the code's message
        raise AttributeError("'NoneType' object has no attribute 'cudaGetErrorString'")


def check_error(res: int) -> None:
    """Raise ``CudaError`` for a failing CUDA status: raises, as a CPU-only torch."""
    raise AttributeError("'NoneType' object has no attribute 'cudaError'")


def cudart():
    """The CUDA runtime bindings: raises, as a CPU-only torch."""
    raise _not_compiled()


def current_solver_handle():
    """The cuSOLVER handle: raises, as a CPU-only torch."""
    raise _not_compiled()


# ---- availability ------------------------------------------------------------------------------
def is_available() -> bool:
    """False: ember has no CUDA backend.

    Example:
        >>> ember.device("cuda" if ember.cuda.is_available() else "cpu")
        device(type='cpu')
    """
    return False


def device_count() -> int:
    """0: no CUDA device is usable."""
    return 0


def is_initialized() -> bool:
    """False: CUDA is never initialized."""
    return False


def init() -> None:
    """Initialize CUDA: raises, as a CPU-only torch."""
    raise _not_compiled()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: no CUDA device supports anything here."""
    return False


def is_tf32_supported() -> bool:
    """False: no CUDA device."""
    return False


def get_arch_list() -> list[str]:
    """The CUDA architectures ember was built for: none."""
    return []


def get_gencode_flags() -> str:
    """The NVCC gencode flags ember was built with: none."""
    return ""


# ---- devices -----------------------------------------------------------------------------------
def current_device() -> int:
    """The current CUDA device index: raises, as a CPU-only torch."""
    raise _not_compiled()


def set_device(device) -> None:
    """Select a CUDA device: a negative index is accepted and ignored; any device raises."""
    if _device_index(device) >= 0:
        raise _no_binding("_cuda_setDevice")


def get_device_name(device=None) -> str:
    """The name of a CUDA device: raises, as a CPU-only torch."""
    raise _not_compiled()


def get_device_properties(device=None):
    """The properties of a CUDA device: raises, as a CPU-only torch."""
    raise _not_compiled()


def get_device_capability(device=None) -> tuple[int, int]:
    """The compute capability of a CUDA device: raises, as a CPU-only torch."""
    raise _not_compiled()


def can_device_access_peer(device, peer_device) -> bool:
    """Whether one CUDA device can access another: raises, as a CPU-only torch."""
    raise _not_compiled()


def synchronize(device=None) -> None:
    """Wait for a CUDA device's work: raises, as a CPU-only torch (check ``is_available()``)."""
    raise _not_compiled()


def ipc_collect() -> None:
    """Free CUDA IPC memory: raises, as a CPU-only torch."""
    raise _not_compiled()


def current_blas_handle():
    """The cuBLAS handle: raises, as a CPU-only torch."""
    raise _not_compiled()


def set_sync_debug_mode(debug_mode) -> None:
    """Set the CUDA sync debug mode: raises, as a CPU-only torch."""
    raise _not_compiled()


def get_sync_debug_mode() -> int:
    """The CUDA sync debug mode: raises, as a CPU-only torch."""
    raise _not_compiled()


class device:
    """Context manager that selects a CUDA device; entering it with a real index raises.

    Example:
        >>> with ember.cuda.device(-1):  # a negative index selects nothing
        ...     pass
    """

    def __init__(self, device):
        self.idx = _device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        # NOTE: matches torch: device(None) has no index on a CPU-only build, and entering it
        # fails on comparing None with 0 (TypeError)
        if self.idx < 0:
            return
        raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


class device_of(device):
    """``device`` of a tensor's device: a no-op for CPU tensors."""

    def __init__(self, obj):
        d = obj.device
        super().__init__(d.index if d.type == "cuda" and d.index is not None else -1)


# ---- streams -----------------------------------------------------------------------------------
class StreamContext:
    """Context that makes a stream current: a no-op without CUDA, as in a CPU-only torch.

    Example:
        >>> with ember.cuda.StreamContext(None):
        ...     pass
    """

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        pass  # NOTE: matches torch: without CUDA it enters without touching the stream

    def __exit__(self, *exc):
        return False


def stream(stream) -> StreamContext:
    """Run a block on ``stream``: a no-op without CUDA (only ``None`` can usually be given).

    Example:
        >>> with ember.cuda.stream(None):
        ...     pass
    """
    return StreamContext(stream)


def set_stream(stream) -> None:
    """Make ``stream`` current; ``None`` is accepted and ignored."""
    if stream is None:
        return
    _ = stream.stream_id  # NOTE: matches torch: a non-stream fails here with its AttributeError
    raise _no_binding("_cuda_setStream")


def current_stream(device=None):
    """The current CUDA stream: raises, as a CPU-only torch."""
    raise _not_compiled()


def default_stream(device=None):
    """The default CUDA stream: raises, as a CPU-only torch."""
    raise _not_compiled()


def get_stream_from_external(data_ptr: int, device=None):
    """Wrap a stream made elsewhere: raises, as a CPU-only torch."""
    raise _not_compiled()


# ---- NVML queries ------------------------------------------------------------------------------
def memory_usage(device=None) -> int:
    """The GPU's memory-controller utilization (NVML): raises, NVML is not installed."""
    raise _no_nvml()


def utilization(device=None) -> int:
    """The GPU's utilization (NVML): raises, NVML is not installed."""
    raise _no_nvml()


def temperature(device=None) -> int:
    """The GPU's temperature (NVML): raises, NVML is not installed."""
    raise _no_nvml()


def power_draw(device=None) -> int:
    """The GPU's power draw (NVML): raises, NVML is not installed."""
    raise _no_nvml()


def clock_rate(device=None) -> int:
    """The GPU's SM clock (NVML): raises, NVML is not installed."""
    raise _no_nvml()


def device_memory_used(device=None) -> int:
    """The GPU memory in use (NVML): raises, NVML is not installed."""
    raise _no_nvml()


# ---- submodules and what ember.cuda re-exports from them ---------------------------------------
from ember.cuda import (  # noqa: E402
    amp,
    gds,
    graphs,
    green_contexts,
    jiterator,
    memory,
    nccl,
    nvtx,
    profiler,
    random,
    sparse,
    streams,
    tunable,
)
from ember.cuda._legacy import storage_types as _storage_types  # noqa: E402
from ember.cuda._legacy import tensor_types as _tensor_types  # noqa: E402
from ember.cuda.graphs import (  # noqa: E402
    CUDAGraph,
    graph,
    graph_pool_handle,
    is_current_stream_capturing,
    make_graphed_callables,
)
from ember.cuda.green_contexts import GreenContext  # noqa: E402
from ember.cuda.memory import (  # noqa: E402
    CUDAPluggableAllocator,
    MemPool,
    caching_allocator_alloc,
    caching_allocator_delete,
    caching_allocator_disabled,
    caching_allocator_enable,
    change_current_allocator,
    empty_cache,
    get_allocator_backend,
    get_per_process_memory_fraction,
    host_memory_stats,
    host_memory_stats_as_nested_dict,
    list_gpu_processes,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    reset_accumulated_host_memory_stats,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_max_memory_cached,
    reset_peak_host_memory_stats,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
    use_mem_pool,
)
from ember.cuda.random import (  # noqa: E402
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from ember.cuda.streams import Event, ExternalStream, Stream  # noqa: E402

globals().update(_tensor_types("cuda"))
globals().update(_storage_types())
