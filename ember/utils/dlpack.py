"""``ember.utils.dlpack`` (PyTorch's ``torch.utils.dlpack``): exchange tensors with other array
libraries through the DLPack protocol, without copying.

Example:
    >>> from ember.utils.dlpack import from_dlpack
    >>> from_dlpack(ember.arange(3.0)).tolist()
    [0.0, 1.0, 2.0]
"""

from __future__ import annotations

import enum

from ember.ops.memory import from_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (``dlpack.h``); ember's tensors are all ``kDLCPU``."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor):
    """A DLPack capsule that shares ``tensor``'s memory (the legacy exchange API; prefer
    passing the tensor itself to the consumer's ``from_dlpack``).

    Example:
        >>> type(ember.utils.dlpack.to_dlpack(ember.zeros(2))).__name__
        'PyCapsule'
    """
    return tensor.__dlpack__()
