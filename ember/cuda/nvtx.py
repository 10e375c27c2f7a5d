"""``ember.cuda.nvtx``: NVIDIA Tools Extension ranges, absent from a CPU-only stack.

Each call raises what a CPU-only torch raises.
"""

from __future__ import annotations

import contextlib

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def _no_nvtx() -> RuntimeError:
    # NOTE: matches torch's message on a build without NVTX
    return RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")


def range_push(msg):
    """Push an NVTX range: raises, as a CPU-only torch."""
    raise _no_nvtx()


def range_pop():
    """Pop an NVTX range: raises, as a CPU-only torch."""
    raise _no_nvtx()


def mark(msg):
    """Mark an NVTX event: raises, as a CPU-only torch."""
    raise _no_nvtx()


def range_start(msg) -> int:
    """Start an NVTX range: raises, as a CPU-only torch."""
    # NOTE: matches torch: its NVTX placeholder lacks this entry point altogether
    raise AttributeError("'_NVTXStub' object has no attribute 'rangeStartA'")


def range_end(range_id) -> None:
    """End an NVTX range: raises, as a CPU-only torch."""
    raise AttributeError("'_NVTXStub' object has no attribute 'rangeEnd'")


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """An NVTX range around a block: raises on entry, as a CPU-only torch."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
