"""Padding layers (ZeroPad2d, ConstantPad*, ReflectionPad*, ReplicationPad*, CircularPad*) (PyTorch's ``torch.nn.modules.padding``)."""

from __future__ import annotations

__all__: list[str] = []
