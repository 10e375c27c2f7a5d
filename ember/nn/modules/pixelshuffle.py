"""PixelShuffle and PixelUnshuffle (PyTorch's ``torch.nn.modules.pixelshuffle``)."""

from __future__ import annotations

__all__: list[str] = []
