"""Flatten and Unflatten (PyTorch's ``torch.nn.modules.flatten``)."""

from __future__ import annotations

__all__: list[str] = []
