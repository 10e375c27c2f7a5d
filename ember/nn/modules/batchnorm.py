"""BatchNorm1d/2d/3d and their Lazy forms (PyTorch's ``torch.nn.modules.batchnorm``)."""

from __future__ import annotations

__all__: list[str] = []
