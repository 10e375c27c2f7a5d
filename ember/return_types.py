"""The named tuples returned by ops like ``max(dim=...)`` and ``sort`` (``torch.return_types``)."""

from ember import _lazy
from ember.ops._selection import _rt

globals().update(_rt)
# The linear-algebra ones (svd, eigh...) load with ember/ops/linalg_decomp.py (ember/_lazy.py).
_LAZY = _lazy.names(__name__)
__all__ = sorted(_rt) + sorted(_LAZY)
__getattr__ = _lazy.lazy_getattr(__name__, _LAZY)
__dir__ = _lazy.lazy_dir(globals(), _LAZY)
