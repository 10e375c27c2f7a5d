"""``ember.cuda.jiterator``: CUDA kernels compiled at run time from C++ source, which need CUDA.

A jitted function can be made (torch defers the CUDA check to the call); calling it raises what
a CPU-only torch raises.
"""

from __future__ import annotations

__all__: list[str] = []


class _JittedFunction:
    def __init__(self, code_string: str, return_by_ref: bool, num_outputs: int, **kwargs):
        self.code_string = code_string
        self.return_by_ref = return_by_ref
        self.num_outputs = num_outputs
        self.kwargs_dict = kwargs

    def __call__(self, *tensors, **kwargs):
        raise AssertionError(
            "Jiterator is only supported on CUDA and ROCm GPUs, none are available."
        )


def _create_jit_fn(code_string: str, **kwargs):
    """A CUDA elementwise kernel from C++ source: calling it raises without CUDA."""
    return _JittedFunction(code_string, return_by_ref=False, num_outputs=1, **kwargs)


def _create_multi_output_jit_fn(code_string: str, num_outputs: int, **kwargs):
    """A CUDA kernel with ``num_outputs`` outputs: calling it raises without CUDA."""
    return _JittedFunction(code_string, return_by_ref=True, num_outputs=num_outputs, **kwargs)
