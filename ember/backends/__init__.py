"""``ember.backends``: the switches PyTorch programs set on ``torch.backends``.

ember runs on NumPy: there is no cuDNN, MPS, oneDNN (mkldnn) or CUDA matmul to configure. The
flags exist so that programs which set them (``torch.backends.cudnn.benchmark = True``) run
unchanged: each keeps the value it is given (type-checked as in torch) and changes nothing,
as on a CPU-only PyTorch build. The ``is_available()``/``is_built()`` queries tell the truth
about ember: no cuDNN, CUDA, MPS or oneDNN; OpenMP and MKL only if NumPy's BLAS is MKL.
``cuda.matmul.allow_tf32`` mirrors ``ember.get_float32_matmul_precision()`` as in torch.

Example:
    >>> ember.backends.cudnn.benchmark = True
    >>> ember.backends.cudnn.benchmark
    True
    >>> ember.backends.cudnn.is_available(), ember.backends.mps.is_available()
    (False, False)
    >>> ember.backends.cudnn.benchmark = False
"""

from __future__ import annotations

import contextlib
import types

from ember import _environment

__all__ = ["cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]


def _check_bool(value, setter: str) -> None:
    if not isinstance(value, bool):
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")


class _Flags(types.ModuleType):
    """A namespace of flags: each flag is a type-checked attribute that keeps its value."""

    _checked: dict[str, str] = {}  # flag -> the setter name torch's error message names

    def __setattr__(self, name, value):
        setter = self._checked.get(name)
        if setter is not None:
            _check_bool(value, setter)
        super().__setattr__(name, value)

    @contextlib.contextmanager
    def _flags(self, **values):
        saved = {k: getattr(self, k) for k in values}
        try:
            for k, v in values.items():
                setattr(self, k, v)
            yield
        finally:
            for k, v in saved.items():
                object.__setattr__(self, k, v)


# ---- cudnn -------------------------------------------------------------------------------------
class _CudnnModule(_Flags):
    _checked = {
        "enabled": "set_enabled_cudnn",
        "benchmark": "set_benchmark_cudnn",
        "deterministic": "set_deterministic_cudnn",
        # NOTE: matches torch: its message names the cuBLAS setter for cudnn.allow_tf32
        "allow_tf32": "set_allow_tf32_cublas",
    }

    @staticmethod
    def is_available() -> bool:
        """False: ember has no cuDNN."""
        return False

    @staticmethod
    def version():
        """None: no cuDNN library is loaded."""
        return None

    @staticmethod
    def is_acceptable(tensor) -> bool:
        """False: cuDNN would accept no tensor here."""
        return False

    def flags(
        self,
        enabled=False,
        benchmark=False,
        benchmark_limit=10,
        deterministic=False,
        allow_tf32=True,
        fp32_precision="none",
        depthwise_kernel="auto",
    ):
        """Context that sets the cuDNN flags for a block and restores them after."""
        return self._flags(
            enabled=enabled,
            benchmark=benchmark,
            benchmark_limit=benchmark_limit,
            deterministic=deterministic,
            allow_tf32=allow_tf32,
        )


cudnn = _CudnnModule("ember.backends.cudnn", "cuDNN flags (kept, no effect: ember has no cuDNN).")
for _k, _v in dict(
    enabled=True, benchmark=False, deterministic=False, allow_tf32=True, benchmark_limit=None
).items():
    setattr(cudnn, _k, _v)


# ---- cuda --------------------------------------------------------------------------------------
class _CublasModule:
    """``backends.cuda.matmul``: cuBLAS flags; ``allow_tf32`` mirrors the matmul precision."""

    _reduction = (
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
    )

    def __init__(self):
        object.__setattr__(self, "_values", dict.fromkeys(self._reduction, True))

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _environment.get_float32_matmul_precision() != "highest"
        if name in self._reduction:
            return self._values[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _check_bool(value, "set_allow_tf32_cublas")
            # NOTE: matches torch: allowing TF32 is float32 matmul precision 'high'
            _environment.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._reduction:
            # torch also takes a (allow, allow_split_k) pair; the first entry is the flag
            flag = value[0] if isinstance(value, (tuple, list)) and value else value
            if not isinstance(flag, bool):
                raise TypeError(
                    f"{name} expects a bool or a tuple/list of bools, but got {type(value)}"
                )
            self._values[name] = flag
        else:
            raise AttributeError(f"Unknown attribute {name}")


class _CudaModule(types.ModuleType):
    @staticmethod
    def is_built() -> bool:
        """False: ember was not built with CUDA."""
        return False


cuda = _CudaModule("ember.backends.cuda", "CUDA flags (kept, no effect: ember has no CUDA).")
cuda.matmul = _CublasModule()
_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _sdp_pair(kind):
    def enable(enabled: bool) -> None:
        _check_bool(enabled, f"set_sdp_use_{kind}")
        _SDP[kind] = enabled

    def enabled() -> bool:
        return _SDP[kind]

    enable.__name__ = enable.__qualname__ = f"enable_{kind}_sdp"
    enabled.__name__ = enabled.__qualname__ = f"{kind}_sdp_enabled"
    enable.__doc__ = f"Record whether the {kind} attention kernel may be used (kept, no effect)."
    enabled.__doc__ = f"Whether the {kind} attention kernel may be used (as last set)."
    setattr(cuda, enable.__name__, enable)
    setattr(cuda, enabled.__name__, enabled)


for _kind in _SDP:
    _sdp_pair(_kind)


@contextlib.contextmanager
def _sdp_kernel(
    enable_flash: bool = True,
    enable_math: bool = True,
    enable_mem_efficient: bool = True,
    enable_cudnn: bool = True,
):
    import warnings

    warnings.warn(
        "`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
        "will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context "
        "manager, with updated signature",
        FutureWarning,
        stacklevel=3,
    )
    saved = dict(_SDP)
    _SDP.update(
        flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn
    )
    try:
        yield {}
    finally:
        _SDP.update(saved)


cuda.sdp_kernel = _sdp_kernel

# ---- mps, mkldnn, mkl, openmp, opt_einsum, cpu, mha ---------------------------------------------
mps = types.ModuleType("ember.backends.mps", "Apple MPS: not available in ember.")
mps.is_available = lambda: False
mps.is_built = lambda: False


class _MkldnnModule(_Flags):
    _checked = {"enabled": "set_enabled_mkldnn", "deterministic": "set_deterministic_mkldnn"}

    @staticmethod
    def is_available() -> bool:
        """False: ember does not use oneDNN (mkldnn)."""
        return False

    def flags(self, enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
        """Context that sets the oneDNN flags for a block and restores them after."""
        return self._flags(enabled=enabled, deterministic=deterministic)


mkldnn = _MkldnnModule("ember.backends.mkldnn", "oneDNN flags (kept, no effect in ember).")
mkldnn.enabled = True
mkldnn.deterministic = False


def _blas_is_mkl() -> bool:
    from ember.backend import _threads

    return "mkl" in _threads.blas_internal_apis()


mkl = types.ModuleType("ember.backends.mkl", "Whether NumPy's BLAS is Intel MKL.")
mkl.is_available = _blas_is_mkl
openmp = types.ModuleType("ember.backends.openmp", "OpenMP: ember's own code uses none.")
openmp.is_available = lambda: False
# ember's einsum does not call the opt_einsum package, so it is reported unavailable and the
# flags are plain attributes (as torch's when opt_einsum is not installed).
opt_einsum = types.ModuleType("ember.backends.opt_einsum", "opt_einsum: not used by ember.")
opt_einsum.is_available = lambda: False
opt_einsum.get_opt_einsum = lambda: None
opt_einsum.enabled = False
opt_einsum.strategy = None
cpu = types.ModuleType("ember.backends.cpu", "The CPU's vector capability.")
cpu.get_cpu_capability = lambda: "DEFAULT"  # NumPy picks its SIMD kernels itself at run time
mha = types.ModuleType("ember.backends.mha", "The MultiheadAttention fast path switch.")
_MHA = {"fastpath": True}


def _set_fastpath_enabled(value: bool) -> None:
    _MHA["fastpath"] = value


mha.get_fastpath_enabled = lambda: _MHA["fastpath"]
mha.set_fastpath_enabled = _set_fastpath_enabled
