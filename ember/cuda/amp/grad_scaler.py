"""``ember.cuda.amp.grad_scaler`` (torch's file of the same name): the deprecated CUDA
``GradScaler``, defined in ``ember.cuda.amp``."""

from ember.cuda.amp import GradScaler

__all__ = ["GradScaler"]
