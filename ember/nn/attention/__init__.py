"""``ember.nn.attention``: choose the kernels behind ``scaled_dot_product_attention``
(PyTorch's ``torch.nn.attention``).

ember has one attention kernel (``ember.ops.attention``). On CPU torch has two that run, the
math kernel and a CPU flash kernel, and they give the same numbers up to rounding, so ember
serves both with its one kernel. What this module keeps is torch's bookkeeping: the enabled
flags (shared with ``ember.backends.cuda``'s ``enable_*_sdp``), the priority order, and, in
``nn.functional.scaled_dot_product_attention``, torch's CPU errors when the math kernel is
disabled and the flash kernel cannot take the inputs.
"""

from __future__ import annotations

import contextlib
import logging
import warnings

from ember.backends import cuda as _cuda

SDPBackend = _cuda.SDPBackend
SDPAParams = _cuda.SDPAParams
can_use_flash_attention = _cuda.can_use_flash_attention
can_use_efficient_attention = _cuda.can_use_efficient_attention
# NOTE: matches torch: the enum reports this module as its home
SDPBackend.__module__ = __name__

__all__ = [
    "SDPBackend",
    "sdpa_kernel",
    "WARN_FOR_UNFUSED_KERNELS",
    "register_flash_attention_impl",
    "activate_flash_attention_impl",
    "list_flash_attention_impls",
    "current_flash_attention_impl",
    "restore_flash_attention_impl",
]

# With True, the bias subclasses warn why the fused kernels were not used (as torch's flag).
WARN_FOR_UNFUSED_KERNELS = False

# torch's flag names, in the order torch reads them back
_backend_names = {
    "cudnn": "CUDNN_ATTENTION",
    "flash": "FLASH_ATTENTION",
    "mem_efficient": "EFFICIENT_ATTENTION",
    "math": "MATH",
    "overrideable": "OVERRIDEABLE",
}
# ember.backends.cuda has no overrideable flag: it lives here (it has no effect on CPU)
_overrideable = [True]
# torch's default priority order: flash, efficient, math, cudnn, overrideable
_priority = [1, 2, 0, 3, 4]


def _get_enabled(name: str) -> bool:
    if name == "overrideable":
        return _overrideable[0]
    return getattr(_cuda, f"{name}_sdp_enabled")()


def _set_enabled(name: str, enabled: bool) -> None:
    if name == "overrideable":
        _overrideable[0] = enabled
    else:
        getattr(_cuda, f"enable_{name}_sdp")(enabled)


def _raise_kernel_warnings(params) -> None:
    """With ``WARN_FOR_UNFUSED_KERNELS``, warn that the fused kernels cannot be used."""
    if WARN_FOR_UNFUSED_KERNELS:
        if not can_use_efficient_attention(params):
            warnings.warn("Efficient attention can't be used because:", stacklevel=2)
            can_use_efficient_attention(params, True)
        if not can_use_flash_attention(params):
            warnings.warn("Flash attention can't be used because:", stacklevel=2)
            can_use_flash_attention(params, True)


def _cur_sdpa_kernel_backends(with_priority: bool = False) -> list:
    backends = [getattr(SDPBackend, v) for n, v in _backend_names.items() if _get_enabled(n)]
    if with_priority:
        backends.sort(key=lambda b: _priority.index(int(b)))
    return backends


def _sdpa_kernel(backends, set_priority: bool = False) -> None:
    for name, val in _backend_names.items():
        _set_enabled(name, getattr(SDPBackend, val) in backends)
    if set_priority:
        order = [int(b) for b in backends]
        order += [b for b in _priority if b not in order]
        _priority[:] = order


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Enable only ``backends`` for ``scaled_dot_product_attention`` inside the block.

    A context manager (and, through ``contextlib``, a decorator). On exit the previous flags
    (and, with ``set_priority``, the previous priority order) come back. On CPU only
    ``MATH`` and ``FLASH_ATTENTION`` run; enabling neither makes attention raise.

    Args:
        backends: an ``SDPBackend`` or a list of them.
        set_priority: whether the list's order becomes the kernels' priority order.

    Example:
        >>> from ember.nn.attention import SDPBackend, sdpa_kernel
        >>> q = ember.randn(1, 2, 3, 4)
        >>> with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
        ...     ember.nn.functional.scaled_dot_product_attention(q, q, q).shape
        ember.Size([1, 2, 3, 4])
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
            f"got {type(backends).__name__}"
        )
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends(with_priority=set_priority)
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous, set_priority)


@contextlib.contextmanager
def _sdpa_kernel_variadic(*backends):
    with sdpa_kernel(list(backends)):
        yield


def _get_flash_version() -> str:
    """The flash-attention release torch's flash kernel follows."""
    return "2.5.7"


# ---- flash-attention implementation registry ------------------------------------------------
_logger = logging.getLogger(__name__)
_FLASH_ATTENTION_IMPLS: dict = {}
_FLASH_ATTENTION_ACTIVE: list = [None]  # (name, handle) of the active implementation


def register_flash_attention_impl(impl: str, *, register_fn) -> None:
    """Record ``register_fn`` as the callable that activates flash implementation ``impl``.

    Args:
        impl: the implementation's name (``"FA3"``, ``"FA4"`` or a provider's own).
        register_fn: called by :func:`activate_flash_attention_impl`; it may return a handle
            with a ``remove()`` method, kept while the implementation is active.

    Example:
        >>> from ember.nn import attention
        >>> attention.register_flash_attention_impl("Mine", register_fn=lambda: None)
        >>> "Mine" in attention.list_flash_attention_impls()
        True
    """
    _FLASH_ATTENTION_IMPLS[impl] = register_fn


def activate_flash_attention_impl(impl: str) -> None:
    """Activate a registered flash implementation (restoring the default first).

    Args:
        impl: a name from :func:`list_flash_attention_impls`.

    Example:
        >>> from ember.nn import attention
        >>> attention.activate_flash_attention_impl("FA3")
        Traceback (most recent call last):
        ModuleNotFoundError: No module named 'flash_attn_interface'
    """
    restore_flash_attention_impl(_raise_warn=False)
    register_fn = _FLASH_ATTENTION_IMPLS.get(impl)
    if register_fn is None:
        raise ValueError(
            f"Unknown flash attention impl '{impl}'. "
            f"Available implementations: {list_flash_attention_impls()}"
        )
    handle = register_fn()
    if handle is not None:
        _FLASH_ATTENTION_ACTIVE[0] = (impl, handle)


def list_flash_attention_impls() -> list[str]:
    """The names of the registered flash implementations, sorted.

    Example:
        >>> ember.nn.attention.list_flash_attention_impls()[:2]
        ['FA3', 'FA4']
    """
    return sorted(_FLASH_ATTENTION_IMPLS)


def current_flash_attention_impl() -> str | None:
    """The active flash implementation's name, or None for the default.

    Example:
        >>> ember.nn.attention.current_flash_attention_impl() is None
        True
    """
    active = _FLASH_ATTENTION_ACTIVE[0]
    return active[0] if active is not None else None


def restore_flash_attention_impl(_raise_warn: bool = True) -> None:
    """Go back to the default flash implementation (logs a warning if none was activated).

    Example:
        >>> ember.nn.attention.restore_flash_attention_impl(False)
    """
    active = _FLASH_ATTENTION_ACTIVE[0]
    if active is not None:
        active[1].remove()
    elif _raise_warn:
        _logger.warning("Trying to restore default FA2 impl when no custom impl was activated")
    _FLASH_ATTENTION_ACTIVE[0] = None


def _needs(module: str):
    # torch's FA3/FA4 register functions import their CUDA libraries; neither exists here
    def register_fn(*args, **kwargs):
        raise ModuleNotFoundError(f"No module named '{module}'", name=module)

    return register_fn


register_flash_attention_impl("FA3", register_fn=_needs("flash_attn_interface"))
register_flash_attention_impl("FA4", register_fn=_needs("flash_attn"))


# ---- the CPU kernel choice, called by nn.functional.scaled_dot_product_attention -------------
_NO_VIABLE = (
    "No viable backend for scaled_dot_product_attention was found. This is likely due to "
    "turning off both the math kernel and the fused kernels."
)


def _flash_cpu_reason(q, k, v, attn_mask, dropout_p, enable_gqa) -> str | None:
    """Why torch's CPU flash kernel cannot take these inputs (its first failing check), or
    None when it can."""
    if dropout_p > 0.0:
        return "Both fused kernels do not support non-zero dropout."
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        return (
            "All fused kernels requires query, key and value to be 4 dimensional, but got "
            f"Query dim: {q.ndim}, Key dim: {k.ndim}, Value dim: {v.ndim} instead."
        )
    qs, ks, vs = list(q.shape), list(k.shape), list(v.shape)
    if not (qs[0] == ks[0] == vs[0]):
        return (
            "For dense inputs, both fused kernels require query, key and value to have the "
            f"same batch_size. Query.sizes(): {qs}, Key.sizes(): {ks}, Value.sizes(): {vs} "
            "instead. To broadcast dense inputs, try using unsqueeze and expand_to before "
            "passing them into the kernel."
        )
    if enable_gqa:
        if qs[1] % ks[1] or ks[1] != vs[1]:
            return (
                "The number of heads in key/value must divide number of heads in query.Got "
                f"input Key sizes(): {ks[1]}, Value sizes(): {vs[1]}, Query sizes(): {qs[1]} "
                "instead."
            )
    elif not (qs[1] == ks[1] == vs[1]):
        return (
            "For dense input, both fused kernels require query, key and value to have the same "
            f"num_heads. Query.sizes(): {qs}, Key sizes(): {ks}, Value sizes(): {vs} instead. "
            "To broadcast dense inputs, try using unsqueeze and expand_to before passing them "
            "into the kernel."
        )
    if attn_mask is not None and attn_mask.ndim not in (2, 4):
        return (
            "Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x "
            "{KV_seq_len, 1}); 4d - ({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x "
            "{KV_seq_len, 1})"
        )
    if not (qs[3] == ks[3] == vs[3]):
        return (
            "Flash attention requires q,k,v to have the same last dimension. Got "
            f"Query.size(-1): {qs[3]}, Key.size(-1): {ks[3]}, Value.size(-1): {vs[3]} instead."
        )
    strides = [t.stride(-1) for t in (q, k, v)]
    if any(s != 1 for s in strides):
        return (
            "All fused kernels require the last dimension of the input to have stride 1. Got "
            f"Query.stride(-1): {strides[0]}, Key.stride(-1): {strides[1]}, "
            f"Value.stride(-1): {strides[2]}"
        )
    if q._data.dtype.name not in ("float16", "float32", "float64", "bfloat16"):
        from ember.nn.functional.attention import _tname

        return (
            "Expected query, key and value to all be of dtype: {Float, Double, BFloat16, "
            f"Half}}. Got Query dtype: {_tname(q)}, Key dtype: {_tname(k)}, and Value dtype: "
            f"{_tname(v)} instead."
        )
    return None


def _check_cpu_backend(q, k, v, attn_mask, dropout_p, enable_gqa) -> None:
    """Raise as torch's CPU kernel choice does when the math kernel is disabled: no enabled
    CPU kernel, or a flash kernel that cannot take these inputs (after warning why)."""
    if not _cuda.flash_sdp_enabled():
        raise RuntimeError(_NO_VIABLE)
    reason = _flash_cpu_reason(q, k, v, attn_mask, dropout_p, enable_gqa)
    if reason is not None:
        warnings.warn("Flash attention kernel not used because:", UserWarning, stacklevel=3)
        warnings.warn(reason, UserWarning, stacklevel=3)
        raise RuntimeError("No available kernel.  Aborting execution.")
