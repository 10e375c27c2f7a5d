"""``ember.cpu.amp.grad_scaler`` (torch's file of the same name): the deprecated CPU
``GradScaler``, defined in ``ember.cpu.amp``."""

from ember.cpu.amp import GradScaler

__all__ = ["GradScaler"]
