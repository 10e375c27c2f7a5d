"""``ember.cuda.amp``: CUDA mixed precision, which disables itself without CUDA, as in torch.

``autocast()`` and ``GradScaler()`` can be built (with torch's deprecation warning and its
"CUDA is not available... Disabling" warning) and then do nothing: autocast runs the block in
the tensors' own dtypes, and a disabled scaler passes losses through unscaled and steps the
optimizer directly. A training loop written for a GPU therefore runs unchanged on the CPU.
"""

from __future__ import annotations

import functools
import warnings

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd", "GradScaler"]


def amp_definitely_not_available() -> bool:
    """True: neither CUDA nor XLA is present, so CUDA mixed precision cannot run."""
    return True


class autocast:
    """Mixed-precision region on CUDA: disabled (a no-op) here, with torch's warnings.

    Usable as a context manager and as a decorator.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with ember.cuda.amp.autocast():
        ...         y = ember.ones(2) * 2
        >>> y.dtype
        ember.float32
    """

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        if enabled:
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.",
                UserWarning,
                stacklevel=2,
            )
        self._enabled = False
        self.fast_dtype = dtype
        self._cache_enabled = cache_enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return wrapper


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Decorator for a custom Function's forward under autocast: returns ``fwd`` unchanged."""
    warnings.warn(
        "`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
        "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    if fwd is None:
        return lambda f: f
    return fwd


def custom_bwd(bwd):
    """Decorator for a custom Function's backward under autocast: returns ``bwd`` unchanged."""
    warnings.warn(
        "`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
        "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
        FutureWarning,
        stacklevel=2,
    )
    return bwd


class GradScaler:
    """Loss scaling for float16 training on CUDA: disables itself without CUDA, as in torch.

    Disabled, ``scale(loss)`` returns the loss itself, ``step(optimizer)`` calls
    ``optimizer.step()``, ``unscale_`` and ``update`` do nothing and ``get_scale()`` is 1.0.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     scaler = ember.cuda.amp.GradScaler()
        >>> scaler.is_enabled(), scaler.get_scale()
        (False, 1.0)
    """

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        if enabled:
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                UserWarning,
                stacklevel=2,
            )
        self._device = "cuda"
        self._enabled = False

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs):
        """The outputs unchanged (a disabled scaler does not scale)."""
        return outputs

    def unscale_(self, optimizer) -> None:
        """Nothing to unscale."""

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)``: there are no scaled gradients to check."""
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        """Nothing to update."""

    def get_scale(self) -> float:
        return 1.0

    def state_dict(self) -> dict:
        """Empty: a disabled scaler has no state (as torch's)."""
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        """Accepted and ignored by a disabled scaler (as torch's)."""
