"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d (PyTorch's ``torch.nn.modules.upsampling``)."""

from __future__ import annotations

__all__: list[str] = []
