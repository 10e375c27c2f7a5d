"""``ember.nn.functional``: Convolutions: conv1d/2d/3d, conv_transpose1d/2d, unfold, fold."""

from __future__ import annotations

__all__: list[str] = []
