"""Activation layers (ReLU, GELU, Softmax, PReLU...) (PyTorch's ``torch.nn.modules.activation``)."""

from __future__ import annotations

__all__: list[str] = []
