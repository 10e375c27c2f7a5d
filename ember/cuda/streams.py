"""``ember.cuda.streams``: CUDA streams and events, which cannot exist without CUDA.

Building one raises what a CPU-only torch raises; ``torch.cuda.stream(None)`` and friends (in
``ember.cuda``) stay usable, so code that passes an optional stream runs on the CPU.
"""

from __future__ import annotations

from ember.cuda._utils import dummy

__all__ = ["Event", "ExternalStream", "Stream"]


class Stream:
    """A CUDA stream: cannot be made without CUDA."""

    def __new__(cls, device=None, priority=0, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class ExternalStream(Stream):
    """A CUDA stream allocated elsewhere (``stream_ptr``): cannot be wrapped without CUDA."""

    def __new__(cls, stream_ptr, device=None, **kwargs):
        # NOTE: matches torch: an external stream selects its device first, then finds no CUDA
        from ember.cuda import device as _device_ctx

        with _device_ctx(device):
            raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    """A CUDA event: cannot be made without CUDA."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False, external=False):
        raise dummy("Event")
