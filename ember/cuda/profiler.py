"""``ember.cuda.profiler``: the CUDA profiler's switches, which need CUDA."""

from __future__ import annotations

import contextlib

from ember.cuda._utils import not_compiled

__all__ = ["start", "stop", "profile"]


def start():
    """Start the CUDA profiler: raises, as a CPU-only torch."""
    raise not_compiled()


def stop():
    """Stop the CUDA profiler: raises, as a CPU-only torch."""
    raise not_compiled()


@contextlib.contextmanager
def profile():
    """Profile a block with the CUDA profiler: raises on entry, as a CPU-only torch."""
    start()
    try:
        yield
    finally:
        stop()
