"""Pooling layers (MaxPool, AvgPool, adaptive pooling, MaxUnpool2d, LPPool2d) (PyTorch's ``torch.nn.modules.pooling``)."""

from __future__ import annotations

__all__: list[str] = []
