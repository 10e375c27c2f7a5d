"""``ember.amp``: automatic mixed precision, as ``torch.amp``.

``autocast("cpu")`` runs the matrix products and convolutions of a region in bfloat16 (or
float16) and the precision-sensitive ops (losses, linear algebra, FFTs) in float32, with torch's
CPU op lists; ``GradScaler("cpu")`` scales the loss and skips optimizer steps whose gradients
overflowed. ``autocast("cuda")`` disables itself with torch's warning, as a CPU-only torch does.

Example:
    >>> with ember.amp.autocast("cpu"):
    ...     y = ember.nn.functional.linear(ember.ones(2, 3), ember.ones(4, 3))
    >>> y.dtype
    ember.bfloat16
"""

from ember.amp import autocast_mode, grad_scaler  # noqa: F401
from ember.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from ember.amp.grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
