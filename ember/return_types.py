"""The named tuples returned by ops like ``max(dim=...)`` and ``sort`` (``torch.return_types``)."""

from ember.ops._selection import _rt

globals().update(_rt)
__all__ = sorted(_rt)
