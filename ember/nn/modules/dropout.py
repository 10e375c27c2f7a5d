"""Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout (PyTorch's ``torch.nn.modules.dropout``)."""

from __future__ import annotations

__all__: list[str] = []
