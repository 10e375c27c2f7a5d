"""``ember.nn.functional``: Pooling: max/avg pooling 1-3d, adaptive pooling, max_unpool, lp_pool."""

from __future__ import annotations

__all__: list[str] = []
