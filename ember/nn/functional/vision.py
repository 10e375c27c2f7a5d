"""``ember.nn.functional``: Shape and resampling: pad, interpolate, upsample, pixel_shuffle, pixel_unshuffle, channel_shuffle."""

from __future__ import annotations

__all__: list[str] = []
