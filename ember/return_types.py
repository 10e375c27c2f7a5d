"""The named tuples returned by ops like ``max(dim=...)`` and ``sort`` (``torch.return_types``)."""

from ember.ops._selection import _rt

globals().update(_rt)
__all__ = sorted(_rt)

from ember.ops.linalg_decomp import _RETURN_TYPES as _decomp_rt  # noqa: E402

globals().update(_decomp_rt)
__all__ += sorted(_decomp_rt)
