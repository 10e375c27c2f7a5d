"""Convolution weight memory formats (PyTorch's ``torch.nn.utils.memory_format``).

NumPy arrays carry no channels-last layout that changes how ember computes, so, as
``Module.to(memory_format=...)``, these check their arguments and return the module as is.
"""

from __future__ import annotations

__all__ = [
    "convert_conv2d_weight_memory_format",
    "convert_conv3d_weight_memory_format",
]


def convert_conv2d_weight_memory_format(module, memory_format):
    """Return ``module`` (the memory format of ``Conv2d``/``ConvTranspose2d`` weights has no
    effect on NumPy).

    Example:
        >>> m = ember.nn.Conv2d(2, 2, 3)
        >>> convert_conv2d_weight_memory_format(m, ember.channels_last) is m
        True
    """
    return module


def convert_conv3d_weight_memory_format(module, memory_format):
    """Return ``module`` (the memory format of ``Conv3d``/``ConvTranspose3d`` weights has no
    effect on NumPy).

    Example:
        >>> m = ember.nn.Conv3d(2, 2, 3)
        >>> convert_conv3d_weight_memory_format(m, ember.channels_last_3d) is m
        True
    """
    return module
