"""``ember.backends``: the switches PyTorch programs set on ``torch.backends``.

ember runs on NumPy: there is no cuDNN, MPS or CUDA matmul to configure. The flags exist so
that programs which set them (``torch.backends.cudnn.benchmark = True``) run unchanged; they
change nothing, as on a CPU-only PyTorch build. ``mps.is_available()`` is False.

Example:
    >>> ember.backends.cudnn.deterministic = True
    >>> ember.backends.mps.is_available()
    False
"""

from __future__ import annotations

import types

cudnn = types.SimpleNamespace(
    enabled=True,
    benchmark=False,
    deterministic=False,
    allow_tf32=True,
    is_available=lambda: False,
    version=lambda: None,
)
mps = types.SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
cuda = types.SimpleNamespace(
    is_built=lambda: False,
    matmul=types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True),
)
