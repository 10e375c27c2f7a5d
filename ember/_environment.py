"""Process-level switches and queries of ``torch``: threads, float32 matmul precision,
deterministic algorithms, ``warn_always``, ``set_flush_denormal``, the ``has_*`` build flags,
``get_device_module`` and ``compile``.

What each one means in ember, which computes on NumPy on the CPU:

- ``set_num_threads``/``get_num_threads`` are the BLAS library's thread pool (the only
  intra-op parallelism ember has: its GEMMs, convolutions and LAPACK calls), set and read
  through threadpoolctl.
- ``set_num_interop_threads`` is recorded only: ember runs independent ops one after the other.
- The float32 matmul precision and the deterministic-algorithm switches keep their values and
  validate their arguments as torch does; ember's CPU kernels are always full float32 precision
  and deterministic, so neither changes a result.
- ``compile`` returns the model or function itself: compilation is an optimization, never a
  change of results, and ember has no compiler, so the uncompiled program is the right answer.
"""

from __future__ import annotations

import builtins

__all__ = [
    "set_num_threads",
    "get_num_threads",
    "set_num_interop_threads",
    "get_num_interop_threads",
    "set_float32_matmul_precision",
    "get_float32_matmul_precision",
    "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "get_deterministic_debug_mode",
    "set_warn_always",
    "is_warn_always_enabled",
    "set_flush_denormal",
    "get_device_module",
    "is_vulkan_available",
    "compile",
]

# What ember was built with, as torch's ``has_*`` flags. LAPACK and FFTs come with NumPy/SciPy;
# ember itself uses neither MKL-specific paths nor OpenMP.
has_lapack = True
has_spectral = True
has_mkl = False
has_openmp = False

_PRECISIONS = ("highest", "high", "medium")


class _State:
    matmul_precision = "highest"
    deterministic = False
    deterministic_warn_only = False
    warn_always = False
    interop_threads: int | None = None


_state = _State()


def _expect_bool(value, what: str) -> None:
    if not isinstance(value, builtins.bool):
        raise RuntimeError(f"{what} expects a bool, but got {type(value).__name__}")


def _expect_positive_int(value, name: str) -> int:
    if isinstance(value, builtins.bool) or not isinstance(value, builtins.int):
        raise RuntimeError(f"{name} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return value


# ---- threads -----------------------------------------------------------------------------------
def set_num_threads(int) -> None:  # noqa: A002  (torch's parameter name)
    """Set the number of threads used for intra-op parallelism: the BLAS thread pool.

    Example:
        >>> n = ember.get_num_threads()
        >>> ember.set_num_threads(1); ember.get_num_threads()
        1
        >>> ember.set_num_threads(n)
    """
    from ember.backend import _threads

    _threads.set_blas_num_threads(_expect_positive_int(int, "set_num_threads"))


def get_num_threads() -> int:
    """The number of threads of the BLAS pool that runs ember's matrix products.

    Example:
        >>> ember.get_num_threads() >= 1
        True
    """
    from ember.backend import _threads

    return _threads.blas_num_threads()


def set_num_interop_threads(int) -> None:  # noqa: A002  (torch's parameter name)
    """Set the inter-op thread count; recorded only (ember runs independent ops in sequence).

    As in torch it may be called once per process.

    Example:
        >>> ember.get_num_interop_threads() >= 1
        True
    """
    n = _expect_positive_int(int, "set_num_interop_threads")
    if _state.interop_threads is not None:
        # NOTE: matches torch: the inter-op pool size can be set only once per process
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    _state.interop_threads = n


def get_num_interop_threads() -> int:
    """The inter-op thread count: 1 (ember runs independent ops in sequence) unless set."""
    return 1 if _state.interop_threads is None else _state.interop_threads


# ---- float32 matmul precision ------------------------------------------------------------------
def set_float32_matmul_precision(precision: str) -> None:
    """Set the internal precision of float32 matrix products: 'highest', 'high' or 'medium'.

    ember's products are always computed in full float32 (NumPy's BLAS), so the setting is
    recorded and read back (and mirrored in ``backends.cuda.matmul.allow_tf32``, as in torch)
    but changes no result.

    Example:
        >>> ember.set_float32_matmul_precision("high")
        >>> ember.get_float32_matmul_precision()
        'high'
        >>> ember.set_float32_matmul_precision("highest")
    """
    if not isinstance(precision, str):
        raise RuntimeError(
            f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}"
        )
    if precision not in _PRECISIONS:
        import warnings

        # NOTE: matches torch: an unknown precision warns and leaves the setting unchanged
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _state.matmul_precision = precision


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision last set: 'highest' (the default), 'high' or 'medium'.

    Example:
        >>> ember.get_float32_matmul_precision()
        'highest'
    """
    return _state.matmul_precision


# ---- deterministic algorithms -------------------------------------------------------------------
def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms only (every ember kernel already is deterministic).

    Example:
        >>> ember.use_deterministic_algorithms(True)
        >>> ember.are_deterministic_algorithms_enabled()
        True
        >>> ember.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, builtins.bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
            f"not {type(mode).__name__}"
        )
    if not isinstance(warn_only, builtins.bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
            f"not {type(warn_only).__name__}"
        )
    _state.deterministic = mode
    _state.deterministic_warn_only = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in effect."""
    return _state.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether deterministic mode was set with ``warn_only=True``."""
    return _state.deterministic_warn_only


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode) -> None:
    """Set deterministic mode as a level: 0/'default' off, 1/'warn', 2/'error'.

    Example:
        >>> ember.set_deterministic_debug_mode("warn")
        >>> ember.get_deterministic_debug_mode()
        1
        >>> ember.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    elif isinstance(debug_mode, builtins.int) and not isinstance(debug_mode, builtins.bool):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(
                f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
            )
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    _state.deterministic = debug_mode != 0
    _state.deterministic_warn_only = debug_mode == 1


def get_deterministic_debug_mode() -> int:
    """The deterministic level: 0 off, 1 warn only, 2 error."""
    if not _state.deterministic:
        return 0
    return 1 if _state.deterministic_warn_only else 2


# ---- warnings and denormals --------------------------------------------------------------------
def set_warn_always(b: bool, /) -> None:
    """Make warnings that torch gives once per process be given every time (recorded)."""
    _expect_bool(b, "setWarnOnlyOnce")
    _state.warn_always = b


def is_warn_always_enabled() -> bool:
    """Whether ``set_warn_always(True)`` is in effect.

    Example:
        >>> ember.is_warn_always_enabled()
        False
    """
    return _state.warn_always


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormal floats to zero could be switched on: never in ember.

    NumPy offers no control of the CPU's flush-to-zero mode, so ember computes with denormals
    and returns False (torch returns True on x86 CPUs with SSE3).

    Example:
        >>> ember.set_flush_denormal(True)
        False
    """
    _expect_bool(mode, "flush_denormal")
    return False


# ---- devices ----------------------------------------------------------------------------------
def get_device_module(device=None):
    """The module of a device type: ``ember.cpu`` for 'cpu' (and by default), ``ember.cuda``...

    Example:
        >>> ember.get_device_module("cuda").is_available()
        False
    """
    import importlib

    from ember._device import device as _device_cls

    if device is None:
        name = "cpu"  # NOTE: matches torch: the current accelerator's module, else torch.cpu
    elif isinstance(device, _device_cls):
        name = device.type
    elif isinstance(device, str):
        name = _device_cls(device).type if ":" in device else device
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if name in ("cpu", "cuda", "mps", "xpu"):
        return importlib.import_module(f"ember.{name}")
    raise RuntimeError(
        f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'."
    )


def is_vulkan_available() -> bool:
    """False: ember has no Vulkan backend."""
    return False


# ---- compile -----------------------------------------------------------------------------------
def compile(  # noqa: A001  (torch's name)
    model=None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend=None,
    mode: str | None = None,
    options: dict | None = None,
    name: str | None = None,
    disable: bool = False,
    recompile_limit: int | None = None,
    isolate_recompiles: bool = False,
    shapes_spec=None,
):
    """``model`` to run as compiled: ember has no compiler, so it runs eagerly, unchanged.

    Compilation in torch is an optimization that must not change results, so running the
    program uncompiled gives the same answers. Usable as ``compile(fn)``, ``@compile`` and
    ``@compile(mode=...)``. A function comes back as it is; a Module comes back wrapped in
    an ``OptimizedModule``, as in torch, so its ``state_dict`` keys carry torch's
    ``_orig_mod.`` prefix and ``compiled._orig_mod`` is the original.

    Example:
        >>> f = ember.compile(lambda x: x * 2)
        >>> f(ember.tensor([1.0]))
        tensor([2.])
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified")
    if model is None:
        return lambda fn: compile(fn, disable=disable)
    if not callable(model):
        raise RuntimeError(f"compile(): expected a Module or a callable, got {type(model)}")
    if disable:
        return model
    from ember.nn.modules.module import Module

    if isinstance(model, Module):
        from ember._dynamo.eval_frame import OptimizedModule

        return OptimizedModule(model)
    return model
