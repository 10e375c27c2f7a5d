"""``ember.cuda.gds``: GPUDirect Storage (file <-> GPU memory without the CPU), which needs CUDA.

Each entry point raises what a CPU-only torch raises.
"""

from __future__ import annotations

import os
import sys

__all__ = ["gds_register_buffer", "gds_deregister_buffer", "GdsFile"]


def _unsupported(binding: str) -> RuntimeError:
    # NOTE: matches torch's message on a build without cuFile
    return RuntimeError(f"torch._C.{binding} is not supported on this platform")


def gds_register_buffer(s) -> None:
    """Register a CUDA storage with cuFile: raises, as a CPU-only torch."""
    raise _unsupported("_gds_register_buffer")


def gds_deregister_buffer(s) -> None:
    """Deregister a CUDA storage from cuFile: raises, as a CPU-only torch."""
    raise _unsupported("_gds_deregister_buffer")


class GdsFile:
    """A file opened for GPUDirect Storage: the file is opened (``O_DIRECT``), then registering
    it with cuFile raises, as a CPU-only torch."""

    def __init__(self, filename: str, flags: int):
        if sys.platform == "win32":
            raise RuntimeError("GdsFile is not supported on this platform.")
        self.filename = filename
        self.flags = flags
        self.handle = None
        self.fd = os.open(filename, flags | os.O_DIRECT)
        os.close(self.fd)  # torch keeps it open; nothing can use it here
        raise _unsupported("_gds_register_handle")
