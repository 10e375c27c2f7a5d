"""``ember.nn.functional``: Dropout: dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout."""

from __future__ import annotations

__all__: list[str] = []
