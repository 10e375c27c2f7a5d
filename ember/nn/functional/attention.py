"""``ember.nn.functional``: Attention: scaled_dot_product_attention, multi_head_attention_forward."""

from __future__ import annotations

__all__: list[str] = []
