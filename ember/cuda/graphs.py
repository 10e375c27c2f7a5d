"""``ember.cuda.graphs``: CUDA graph capture and replay, which need CUDA.

Every entry point raises what a CPU-only torch raises.
"""

from __future__ import annotations

from ember.cuda._utils import dummy

__all__ = [
    "is_current_stream_capturing",
    "graph_pool_handle",
    "CUDAGraph",
    "graph",
    "make_graphed_callables",
]


def is_current_stream_capturing() -> bool:
    """Whether a CUDA graph is being captured: raises, as a CPU-only torch."""
    raise dummy("_cuda_isCurrentStreamCapturing")


def graph_pool_handle():
    """A memory-pool handle for graph capture: raises, as a CPU-only torch."""
    raise dummy("_graph_pool_handle")


class CUDAGraph:
    """A captured CUDA graph: cannot be made without CUDA."""

    def __new__(cls, keep_graph: bool = False):
        raise dummy("CUDAGraph")


class graph:
    """Context manager that captures CUDA work into a ``CUDAGraph``: its capture stream cannot
    be made without CUDA."""

    default_capture_stream = None

    def __init__(
        self,
        cuda_graph,
        pool=None,
        stream=None,
        capture_error_mode: str = "global",
        enable_annotations: bool = False,
        check_input_liveness: bool = False,
    ):
        from ember.cuda.streams import Stream

        if stream is None and graph.default_capture_stream is None:
            graph.default_capture_stream = Stream()  # raises: no CUDA
        self.cuda_graph = cuda_graph
        self.pool = () if pool is None else (pool,)
        self.capture_stream = stream if stream is not None else graph.default_capture_stream
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        raise dummy("_cuda_isCurrentStreamCapturing")

    def __exit__(self, *exc):
        return False


def make_graphed_callables(
    callables, sample_args, num_warmup_iters: int = 3, allow_unused_input: bool = False, pool=None
):
    """Capture callables into CUDA graphs: raises, as a CPU-only torch."""
    # NOTE: matches torch: the first thing it builds is a CUDAGraph
    raise dummy("CUDAGraph")
