"""MultiheadAttention (PyTorch keeps it in modules/activation.py) (PyTorch's ``torch.nn.modules.attention``)."""

from __future__ import annotations

__all__: list[str] = []
