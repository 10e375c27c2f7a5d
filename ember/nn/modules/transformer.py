"""Transformer, its encoder and decoder stacks and layers (PyTorch's ``torch.nn.modules.transformer``)."""

from __future__ import annotations

__all__: list[str] = []
