"""Small public helpers of ``torch.nn.functional``: the grid-sample mode tables and
``assert_int_or_pair``."""

from __future__ import annotations

__all__ = ["GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES", "assert_int_or_pair"]

# the enum values torch's grid_sampler kernels take for each mode name
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def assert_int_or_pair(arg, arg_name: str, message: str) -> None:
    """Raises ``AssertionError(message.format(arg_name))`` unless ``arg`` is an int or has two
    elements.

    Example:
        >>> ember.nn.functional.assert_int_or_pair((2, 3), "kernel_size", "{} must be a pair")
    """
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
