"""InstanceNorm1d/2d/3d (PyTorch's ``torch.nn.modules.instancenorm``)."""

from __future__ import annotations

__all__: list[str] = []
