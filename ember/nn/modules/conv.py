"""Convolution layers (Conv1d/2d/3d, ConvTranspose1d/2d, their Lazy forms) (PyTorch's ``torch.nn.modules.conv``)."""

from __future__ import annotations

__all__: list[str] = []
