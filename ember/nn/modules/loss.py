"""The loss modules (MSELoss, CrossEntropyLoss...) (PyTorch's ``torch.nn.modules.loss``)."""

from __future__ import annotations

__all__: list[str] = []
