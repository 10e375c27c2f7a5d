"""``ember.cuda``: what PyTorch programs ask of ``torch.cuda``, answered as a CPU-only PyTorch.

ember has no CUDA backend, so every query gives a CPU-only torch build's answer:
``is_available()`` is False and ``device_count()`` 0, so the usual
``torch.device("cuda" if torch.cuda.is_available() else "cpu")`` picks the CPU. Seeding calls
are accepted and do nothing (torch defers them until CUDA initializes, which never happens),
the memory counters read 0, and anything that needs a GPU raises torch's
``AssertionError: Torch not compiled with CUDA enabled``.

Example:
    >>> ember.cuda.is_available(), ember.cuda.device_count()
    (False, 0)
"""

from __future__ import annotations

import collections

from ember.cuda import amp

__all__ = [
    "amp",
    "Event",
    "OutOfMemoryError",
    "Stream",
    "StreamContext",
    "can_device_access_peer",
    "current_blas_handle",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "get_arch_list",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_gencode_flags",
    "get_rng_state",
    "get_rng_state_all",
    "get_sync_debug_mode",
    "init",
    "initial_seed",
    "ipc_collect",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "is_tf32_supported",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_max_memory_allocated",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_per_process_memory_fraction",
    "set_rng_state",
    "set_rng_state_all",
    "set_stream",
    "set_sync_debug_mode",
    "stream",
    "synchronize",
]


def _not_compiled() -> AssertionError:
    # NOTE: matches torch: a CPU-only build answers every GPU request with this AssertionError
    return AssertionError("Torch not compiled with CUDA enabled")


class OutOfMemoryError(RuntimeError):
    """Raised when a CUDA allocation fails (never, in ember: there is no CUDA memory)."""


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
def _index(device, *, optional: bool = True) -> int:
    """A CUDA device index from None (-1: the current one), an int, 'cuda:N' or a device."""
    from ember._device import device as _device_cls

    if device is None:
        return -1
    if isinstance(device, str):
        device = _device_cls(device)
    if isinstance(device, _device_cls):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return -1 if device.index is None else device.index
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    raise ValueError(
        f"Expected a torch.device with a specified index or an integer, but got:{device}"
    )


def current_device() -> int:
    """The current CUDA device index: raises, as a CPU-only torch."""
    raise _not_compiled()


def set_device(device) -> None:
    """Select a CUDA device: a negative index is accepted and ignored; any device raises."""
    if _index(device) >= 0:
        # torch's CPU-only build fails here with an AttributeError on an internal binding;
        # ember gives the AssertionError every other GPU request gives.
        raise _not_compiled()


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
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc):
        return False


class device_of(device):
    """``device`` of a tensor's device: a no-op for CPU tensors."""

    def __init__(self, obj):
        d = obj.device
        super().__init__(d.index if d.type == "cuda" and d.index is not None else -1)


# ---- streams and events ------------------------------------------------------------------------
class Stream:
    """A CUDA stream: cannot be made without CUDA."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    """A CUDA event: cannot be made without CUDA."""

    def __new__(cls, *args, **kwargs):
        # NOTE: matches torch: a CPU-only build has only a placeholder class here
        raise RuntimeError("Tried to instantiate dummy base class Event")


class StreamContext:
    """Context that makes a stream current; ``stream(None)`` is a no-op."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            raise _not_compiled()

    def __exit__(self, *exc):
        return False


def stream(stream) -> StreamContext:
    """Run a block on ``stream``: ``None`` (the only stream ember can be given) is a no-op.

    Example:
        >>> with ember.cuda.stream(None):
        ...     pass
    """
    return StreamContext(stream)


def set_stream(stream) -> None:
    """Make ``stream`` current; ``None`` is accepted and ignored."""
    if stream is not None:
        raise _not_compiled()


def current_stream(device=None):
    """The current CUDA stream: raises, as a CPU-only torch."""
    raise _not_compiled()


def default_stream(device=None):
    """The default CUDA stream: raises, as a CPU-only torch."""
    raise _not_compiled()


# ---- random ------------------------------------------------------------------------------------
def manual_seed(seed) -> None:
    """Accepted and ignored (no CUDA generator exists), as a CPU-only torch.

    Example:
        >>> ember.cuda.manual_seed(0)
    """
    int(seed)  # NOTE: matches torch: the seed is converted (and checked) even without CUDA


def manual_seed_all(seed) -> None:
    """Accepted and ignored (no CUDA generator exists), as a CPU-only torch."""
    int(seed)


def seed() -> None:
    """Accepted and ignored, as a CPU-only torch."""


def seed_all() -> None:
    """Accepted and ignored, as a CPU-only torch."""


def initial_seed() -> int:
    """The seed of the current CUDA generator: raises, as a CPU-only torch."""
    raise _not_compiled()


def get_rng_state(device="cuda"):
    """A CUDA generator's state: raises, as a CPU-only torch."""
    raise _not_compiled()


def get_rng_state_all() -> list:
    """The states of every CUDA generator: none."""
    return []


def set_rng_state(new_state, device="cuda") -> None:
    """Accepted and ignored (torch defers it until CUDA initializes, which never happens)."""


def set_rng_state_all(new_states) -> None:
    """Accepted and ignored, as ``set_rng_state``."""


# ---- memory ------------------------------------------------------------------------------------
def empty_cache() -> None:
    """Nothing to free: no CUDA memory is ever allocated."""


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


def memory_stats(device=None) -> collections.OrderedDict:
    """The allocator's statistics: none, as a CPU-only torch (an empty OrderedDict)."""
    return collections.OrderedDict()


def reset_peak_memory_stats(device=None) -> None:
    """Nothing to reset: the peaks are always 0.

    torch's CPU-only build fails here with an AttributeError on an internal binding; the
    counters it would reset read 0, so ember accepts the call.
    """


def reset_max_memory_allocated(device=None) -> None:
    """Nothing to reset (see ``reset_peak_memory_stats``)."""


def reset_accumulated_memory_stats(device=None) -> None:
    """Nothing to reset (see ``reset_peak_memory_stats``)."""


def mem_get_info(device=None) -> tuple[int, int]:
    """Free and total memory of a CUDA device: raises, as a CPU-only torch."""
    raise _not_compiled()


def set_per_process_memory_fraction(fraction, device=None) -> None:
    """Cap a process's CUDA memory: raises, as a CPU-only torch."""
    raise _not_compiled()
