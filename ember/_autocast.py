"""Autocast state and the CPU cast policy, as PyTorch's ``at::autocast``.

The state is per thread and per device type (enabled, the low-precision dtype), plus the weight
cache flag and the nesting depth that ``ember.autocast`` keeps. ember computes on the CPU only,
so only CPU autocast changes what an op computes; the other device types keep their state (a
CPU-only torch keeps it too) and affect nothing.

The ops torch's CPU autocast covers call one of the policies below at entry, behind one
module-level boolean, ``on``: True while some thread has CPU autocast enabled. With autocast
off (every thread) the cost of a hook is that one read; with it on somewhere, the policy checks
the calling thread's own state.

Policies (torch's names): ``low`` casts the floating-point CPU tensor arguments, float64
excepted, to the autocast dtype (``linear``, ``matmul``, ``conv2d``...); ``fp32`` casts them to
float32 (the losses, ``prod``, linear algebra, FFTs...); ``promote`` casts them to the widest
of them (``cat``, ``stack``, ``index_copy``). The cast is ``Tensor.to``, so gradients flow back
to a parameter in its own dtype. A float32 leaf that requires grad is cast once per outermost
autocast region (torch's weight cache), so a weight used twice has one cast node.
"""

from __future__ import annotations

import threading

from ember import _dtype

on = False  # some thread has CPU autocast enabled: the one read a hook makes

_DEVICE_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu "
    "mtia privateuseone"
).split()
# the device types with an autocast dispatch key, and their default low-precision dtypes
_DEFAULT_DTYPE = {
    "cpu": _dtype.bfloat16,
    "cuda": _dtype.float16,
    "ipu": _dtype.float16,
    "xpu": _dtype.float16,
    "mps": _dtype.float16,
    "hpu": _dtype.bfloat16,
    "xla": _dtype.bfloat16,
    "mtia": _dtype.float16,
    "maia": _dtype.float16,
    "privateuseone": _dtype.float16,
}


class _Local(threading.local):
    def __init__(self) -> None:
        self.enabled: set[str] = set()
        self.dtype = dict(_DEFAULT_DTYPE)
        self.cache_enabled = True
        self.nesting = 0


_local = _Local()
_lock = threading.Lock()
_threads_on = 0  # threads with CPU autocast enabled (``on`` is ``_threads_on > 0``)
_cache: dict[int, tuple] = {}  # id(fp32 leaf) -> (leaf, its cast): shared by threads, as torch's


def device_type_of(device: str, fn: str = "") -> str:
    """The device type of a device string (``"cuda:0"`` -> ``"cuda"``), checked as torch's."""
    if not isinstance(device, str):
        raise TypeError(
            f"{fn}(): argument 'device_type' (position 1) must be str, not {type(device).__name__}"
        )
    kind = device.split(":", 1)[0]
    if kind not in _DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
            f"string: {device}"
        )
    return kind


def is_enabled(kind: str) -> bool:
    return kind in _local.enabled


def set_enabled(kind: str, enabled: bool) -> None:
    global on, _threads_on
    st = _local
    if kind == "cpu" and bool(enabled) != ("cpu" in st.enabled):
        with _lock:
            _threads_on += 1 if enabled else -1
            on = _threads_on > 0
    if enabled:
        st.enabled.add(kind)
    else:
        st.enabled.discard(kind)


def get_dtype(kind: str):
    dt = _local.dtype.get(kind)
    if dt is None:
        # NOTE: matches torch: a device type without autocast has an undefined dtype
        raise RuntimeError("unsupported scalarType")
    return dt


def set_dtype(kind: str, dtype) -> None:
    _local.dtype[kind] = dtype


def clear_cache() -> None:
    with _lock:
        _cache.clear()


# ---- the cast policies ---------------------------------------------------------------------
def _eligible(t) -> bool:
    # torch's is_eligible: a floating-point CPU tensor other than float64
    if not hasattr(t, "_data") or not t.is_floating_point():
        return False
    return t.dtype is not _dtype.float64 and t.device.type == "cpu"


def _cast(t, dt):
    if not _eligible(t) or t.dtype is dt:
        return t
    st = _local
    if (
        t.dtype is _dtype.float32
        and dt is st.dtype["cpu"]
        and t.requires_grad
        and t._grad_fn is None
        and t._base is None
        and st.cache_enabled
    ):
        hit = _cache.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        cast = t.to(dt)
        with _lock:
            _cache[id(t)] = (t, cast)
        return cast
    return t.to(dt)


def low(*args):
    """The arguments with each eligible tensor cast to the CPU autocast dtype (the
    lower-precision policy); unchanged when this thread's CPU autocast is off."""
    st = _local
    if "cpu" not in st.enabled:
        return args
    dt = st.dtype["cpu"]
    return tuple(_cast(a, dt) for a in args)


def fp32(*args):
    """The arguments with each eligible tensor cast to float32 (the fp32 policy)."""
    if "cpu" not in _local.enabled:
        return args
    f32 = _dtype.float32
    return tuple(_cast(a, f32) for a in args)


def _widest(tensors):
    # torch's prioritize: float32 wins over the autocast dtype; any other mix is an error
    low_dt = _local.dtype["cpu"]
    to = low_dt
    for t in tensors:
        dt = t.dtype
        if dt is _dtype.float32 or to is _dtype.float32:
            to = _dtype.float32
        elif dt is not low_dt:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return to


def enabled() -> bool:
    """Whether this thread's CPU autocast is on (a hook's second check, after ``on``)."""
    return "cpu" in _local.enabled


class _Excluded:
    """Autocast off for the ops nested in a policy-covered op (torch runs an autocast kernel's
    body with the autocast key excluded); the thread still counts in ``on``."""

    def __enter__(self) -> None:
        _local.enabled.discard("cpu")

    def __exit__(self, *exc) -> None:
        _local.enabled.add("cpu")


_excluded = _Excluded()


def _cast_arg(a, dt):
    if isinstance(a, (list, tuple)):
        return type(a)(_cast(t, dt) for t in a)
    return _cast(a, dt)


def _call(fn, dt, args, kwargs):
    args = [_cast_arg(a, dt) for a in args]
    kwargs = {k: _cast_arg(v, dt) for k, v in kwargs.items()}
    with _excluded:
        return fn(*args, **kwargs)


def call_fp32(fn, *args, **kwargs):
    """``fn`` on its tensor arguments (and tensor lists) cast to float32, with autocast off
    inside (the fp32 policy; ops nested in ``fn`` are not cast again, as in torch)."""
    return _call(fn, _dtype.float32, args, kwargs)


def call_low(fn, *args, **kwargs):
    """``fn`` on its tensor arguments cast to the autocast dtype, with autocast off inside."""
    return _call(fn, _local.dtype["cpu"], args, kwargs)


def call_promote(fn, *args, **kwargs):
    """``fn`` on its tensor arguments cast to the widest of them (the promote policy)."""
    flat = [
        t for a in (*args, *kwargs.values()) for t in (a if isinstance(a, (list, tuple)) else (a,))
    ]
    return _call(fn, _widest([t for t in flat if _eligible(t)]), args, kwargs)


def call_plain(fn, *args, **kwargs):
    """``fn`` with autocast off inside and no casts: an op torch does not cover whose ember
    body calls covered ops (``bilinear`` computes through ``matmul``)."""
    with _excluded:
        return fn(*args, **kwargs)


def einsum_operands(eq: str, operands):
    """einsum's operands under autocast: cast to the autocast dtype when the equation sums a
    label out (torch computes that contraction with ``bmm``), else unchanged."""
    lhs, out = eq.split("->")
    if set(lhs) - set(out) - {","}:
        return list(low(*operands))
    return operands


# ---- torch's module-level autocast functions (ember.<name>) ---------------------------------
def _deprecated(old: str, new: str) -> None:
    import warnings

    warnings.warn(
        f"torch.{old} is deprecated. Please use torch.{new} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is enabled in this thread for ``device_type`` (CUDA when omitted, as
    torch's legacy form).

    Example:
        >>> with ember.autocast("cpu"):
        ...     ember.is_autocast_enabled("cpu")
        True
    """
    if device_type is None:
        return "cuda" in _local.enabled
    return device_type_of(device_type, "is_autocast_enabled") in _local.enabled


def set_autocast_enabled(*args) -> None:
    """``set_autocast_enabled(device_type, enabled)``, or ``set_autocast_enabled(enabled)`` for
    CUDA: switch autocast for this thread (``ember.autocast`` is the usual way).

    Example:
        >>> ember.set_autocast_enabled("cpu", True)
        >>> (ember.ones(2, 2) @ ember.ones(2, 2)).dtype
        ember.bfloat16
        >>> ember.set_autocast_enabled("cpu", False)
    """
    if len(args) == 1:
        kind, enabled = "cuda", args[0]
    elif len(args) == 2:
        kind, enabled = device_type_of(args[0], "set_autocast_enabled"), args[1]
    else:
        raise TypeError(
            f"set_autocast_enabled() takes (device_type, enabled) or (enabled), got {len(args)} "
            "arguments"
        )
    set_enabled(kind, bool(enabled))


def get_autocast_dtype(device_type: str):
    """The dtype autocast uses on ``device_type`` in this thread (CPU: bfloat16 by default).

    Example:
        >>> ember.get_autocast_dtype("cpu"), ember.get_autocast_dtype("cuda")
        (ember.bfloat16, ember.float16)
    """
    return get_dtype(device_type_of(device_type, "get_autocast_dtype"))


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Set the dtype autocast uses on ``device_type`` in this thread.

    Example:
        >>> ember.set_autocast_dtype("cpu", ember.float16)
        >>> ember.get_autocast_dtype("cpu")
        ember.float16
        >>> ember.set_autocast_dtype("cpu", ember.bfloat16)
    """
    set_dtype(device_type_of(device_type, "set_autocast_dtype"), dtype)


def is_autocast_cpu_enabled() -> bool:
    """Deprecated: ``is_autocast_enabled('cpu')``."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return "cpu" in _local.enabled


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated: ``set_autocast_enabled('cpu', enabled)``."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_enabled("cpu", bool(enabled))


def get_autocast_cpu_dtype():
    """Deprecated: ``get_autocast_dtype('cpu')``."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_dtype("cpu")


def set_autocast_cpu_dtype(dtype) -> None:
    """Deprecated: ``set_autocast_dtype('cpu', dtype)``."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    """Deprecated: ``get_autocast_dtype('cuda')``."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return get_dtype("cuda")


def set_autocast_gpu_dtype(dtype) -> None:
    """Deprecated: ``set_autocast_dtype('cuda', dtype)``."""
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_dtype("cuda", dtype)


def is_autocast_cache_enabled() -> bool:
    """Whether autocast caches the low-precision casts of float32 leaf tensors (this thread).

    Example:
        >>> ember.is_autocast_cache_enabled()
        True
    """
    return _local.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Switch autocast's cast cache for this thread.

    Example:
        >>> ember.set_autocast_cache_enabled(False)
        >>> ember.is_autocast_cache_enabled()
        False
        >>> ember.set_autocast_cache_enabled(True)
    """
    _local.cache_enabled = bool(enabled)


def autocast_increment_nesting() -> int:
    """One more autocast region entered in this thread; returns the new depth.

    Example:
        >>> ember.autocast_increment_nesting(), ember.autocast_decrement_nesting()
        (1, 0)
    """
    _local.nesting += 1
    return _local.nesting


def autocast_decrement_nesting() -> int:
    """One autocast region left in this thread; returns the new depth (0: outside all)."""
    _local.nesting -= 1
    return _local.nesting


def clear_autocast_cache() -> None:
    """Drop the cached casts of float32 leaf tensors (autocast does it on leaving its outermost
    region).

    Example:
        >>> ember.clear_autocast_cache()
    """
    clear_cache()


PUBLIC = (
    "is_autocast_enabled set_autocast_enabled get_autocast_dtype set_autocast_dtype "
    "is_autocast_cpu_enabled set_autocast_cpu_enabled get_autocast_cpu_dtype "
    "set_autocast_cpu_dtype get_autocast_gpu_dtype set_autocast_gpu_dtype "
    "is_autocast_cache_enabled set_autocast_cache_enabled autocast_increment_nesting "
    "autocast_decrement_nesting clear_autocast_cache"
).split()
