"""PixelShuffle and PixelUnshuffle (PyTorch's ``torch.nn.modules.pixelshuffle``)."""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """``(*, C * r**2, H, W)`` to ``(*, C, H * r, W * r)`` (``F.pixel_shuffle``).

    Example:
        >>> ember.nn.PixelShuffle(3)(ember.ones(1, 9, 4, 4)).shape
        ember.Size([1, 1, 12, 12])
    """

    __constants__ = ["upscale_factor"]
    upscale_factor: int

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H * r, W * r)`` to ``(*, C * r**2, H, W)`` (``F.pixel_unshuffle``).

    Example:
        >>> ember.nn.PixelUnshuffle(3)(ember.ones(1, 1, 12, 12)).shape
        ember.Size([1, 9, 4, 4])
    """

    __constants__ = ["downscale_factor"]
    downscale_factor: int

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
