"""``ember.cpu.amp``: the deprecated CPU spellings of ``ember.amp.autocast`` and
``ember.amp.GradScaler`` (torch warns with a FutureWarning; they work the same).

Example:
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with ember.cpu.amp.autocast():
    ...         y = ember.ones(2, 2) @ ember.ones(2, 2)
    >>> y.dtype
    ember.bfloat16
"""

from __future__ import annotations

import warnings

from ember import _dtype
from ember.amp import autocast_mode as _am
from ember.amp import grad_scaler as _gs

__all__ = ["autocast", "GradScaler"]


class autocast(_am.autocast):
    """``ember.amp.autocast("cpu", ...)`` (deprecated spelling; bfloat16 by default)."""

    def __init__(self, enabled: bool = True, dtype=_dtype.bfloat16, cache_enabled: bool = True):
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. "
            "Please use `torch.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_gs.GradScaler):
    """``ember.amp.GradScaler("cpu", ...)`` (deprecated spelling)."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cpu.amp.GradScaler(args...)` is deprecated. "
            "Please use `torch.amp.GradScaler('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(
            "cpu",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )
