"""``ember.autocast`` (``ember.amp.autocast``): the mixed-precision region, with torch's checks
and warnings; ``custom_fwd``/``custom_bwd`` for user autograd Functions.

The per-op casts are ember/_autocast.py's policies, called at the entry of the ops torch's CPU
autocast covers.
"""

from __future__ import annotations

import collections.abc
import functools
import warnings

from ember import _autocast, _dtype

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]

_AVAILABLE = frozenset(_autocast._DEFAULT_DTYPE)


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast exists for ``device_type`` (a device type with an autocast dtype).

    Example:
        >>> ember.amp.is_autocast_available("cpu"), ember.amp.is_autocast_available("meta")
        (True, False)
    """
    return _autocast.device_type_of(device_type, "is_autocast_available") in _AVAILABLE


def autocast_decorator(autocast_instance, func):
    """``func`` wrapped to run inside ``autocast_instance``."""

    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast


class autocast:
    """A region (context manager or decorator) where ops run in mixed precision.

    On the CPU, the ops of torch's lower-precision list (``linear``, ``matmul``, ``mm``,
    ``bmm``, ``addmm``, ``baddbmm``, ``conv*``, ``prelu``, ``scaled_dot_product_attention``...)
    cast their floating-point inputs to ``dtype`` (bfloat16 by default, or float16), the ops of
    its float32 list (the losses, ``prod``, ``cdist``, linear algebra, FFTs...) cast them to
    float32, and ``cat``/``stack``/``index_copy`` to the widest of their inputs; every other op
    runs in its inputs' dtypes. float64 tensors are never cast. Regions nest
    (``autocast(enabled=False)`` inside turns it off), and the state is per thread.

    Args:
        device_type: ``"cpu"``; ``"cuda"`` warns and disables itself (no CUDA here).
        dtype: the low-precision dtype; ``get_autocast_dtype(device_type)`` when None.
        enabled: False makes the region an autocast-free one.
        cache_enabled: cache the casts of float32 leaf tensors inside the region.

    Example:
        >>> w = ember.ones(4, 3, requires_grad=True)
        >>> with ember.autocast("cpu", dtype=ember.bfloat16):
        ...     y = ember.nn.functional.linear(ember.ones(2, 3), w)
        ...     loss = ember.nn.functional.mse_loss(y, ember.zeros(2, 4))
        >>> y.dtype, loss.dtype
        (ember.bfloat16, ember.float32)
        >>> loss.backward()
        >>> w.grad.dtype
        ember.float32
    """

    def __init__(
        self,
        device_type: str,
        dtype=None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = _autocast.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{self.device}'"
            )
        self._cache_enabled = (
            _autocast.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        )
        if enabled:
            if self.device == "cuda":
                # NOTE: matches torch: a CPU-only build disables CUDA autocast with a warning
                warnings.warn(
                    "CUDA is not available or torch_xla is imported. Disabling autocast.",
                    stacklevel=2,
                )
                enabled = False
            elif self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
                name = self.device.upper()
                warnings.warn(
                    f"In {name} autocast, but the target dtype is not supported. Disabling "
                    f"autocast.\n{name} Autocast only supports dtypes of ember.bfloat16, "
                    "ember.float16 currently.",
                    stacklevel=2,
                )
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        ac = _autocast
        self.prev_cache_enabled = ac.is_autocast_cache_enabled()
        self.prev = ac.is_autocast_enabled(self.device)
        self.prev_fastdtype = ac.get_autocast_dtype(self.device)
        ac.set_autocast_enabled(self.device, self._enabled)
        ac.set_autocast_dtype(self.device, self.fast_dtype)
        ac.autocast_increment_nesting()
        ac.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        ac = _autocast
        if ac.autocast_decrement_nesting() == 0:
            ac.clear_autocast_cache()
        ac.set_autocast_enabled(self.device, self.prev)
        ac.set_autocast_dtype(self.device, self.prev_fastdtype)
        ac.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        output = model(input)"
            )
        return autocast_decorator(self, func)


def _cast(value, device_type: str, dtype):
    """``value`` with its floating-point (not float64) tensors on ``device_type`` cast to
    ``dtype``, through lists, tuples, dicts and other iterables."""
    if hasattr(value, "_data") and hasattr(value, "is_floating_point"):
        ok = (
            value.is_floating_point()
            and value.device.type == device_type
            and value.dtype is not _dtype.float64
        )
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes)) or type(value).__name__ == "ndarray":
        return value
    if isinstance(value, collections.abc.Mapping):
        return {
            _cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()
        }
    if isinstance(value, collections.abc.Iterable):
        it = (_cast(v, device_type, dtype) for v in value)
        return type(value)(it) if isinstance(value, (list, tuple)) else it
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for a custom ``autograd.Function``'s ``forward`` under autocast.

    With ``cast_inputs`` a dtype, inside an enabled region the floating-point tensor arguments
    are cast to it and ``forward`` runs with autocast off; otherwise ``forward`` runs in the
    current state. Either way ``backward`` (decorated with ``custom_bwd``) sees the same state.

    Example:
        >>> class Double(ember.autograd.Function):
        ...     @staticmethod
        ...     @ember.amp.custom_fwd(device_type="cpu", cast_inputs=ember.float32)
        ...     def forward(ctx, x):
        ...         return x * 2
        ...
        ...     @staticmethod
        ...     @ember.amp.custom_bwd(device_type="cpu")
        ...     def backward(ctx, g):
        ...         return g * 2
        >>> with ember.autocast("cpu"):
        ...     Double.apply(ember.ones(2, dtype=ember.bfloat16)).dtype
        ember.float32
    """
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = _autocast.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = _autocast.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if _autocast.is_autocast_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return fwd(
                    *_cast(args, device_type, cast_inputs),
                    **_cast(kwargs, device_type, cast_inputs),
                )
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for a custom ``autograd.Function``'s ``backward``: runs it in the autocast
    state its ``forward`` (decorated with ``custom_fwd``) ran in. See ``custom_fwd``."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(
            device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype
        ):
            return bwd(*args, **kwargs)

    return decorate_bwd
