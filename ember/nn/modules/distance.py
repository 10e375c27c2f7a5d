"""CosineSimilarity and PairwiseDistance (PyTorch's ``torch.nn.modules.distance``)."""

from __future__ import annotations

__all__: list[str] = []
