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

from ember import _dtype, _environment

__all__ = ["cpu", "cuda", "cudnn", "mha", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
__all__ += ["cusparselt", "kleidiai", "miopen", "nnpack", "python_native", "quantized"]
__all__ += ["disable_global_flags", "flags", "flags_frozen", "set_flags"]


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


# ---- fp32 precision: one setting per (backend, op), an op's "none" deferring to its backend's ----
_PRECISIONS = ("ieee", "tf32", "bf16", "none")
# NOTE: matches torch: a tree generic -> backend ("cuda" is cuDNN's and cuBLAS's) -> op. A node
# set to something other than "none" wins; otherwise it follows its parent, and where the whole
# chain is "none" a node never set shows its own default (cuDNN's convolutions and RNNs: TF32).
_PARENT = {
    ("cuda", "all"): ("generic", "all"),
    ("mkldnn", "all"): ("generic", "all"),
    ("cuda", "matmul"): ("cuda", "all"),
    ("cuda", "conv"): ("cuda", "all"),
    ("cuda", "rnn"): ("cuda", "all"),
    ("mkldnn", "conv"): ("mkldnn", "all"),
    ("mkldnn", "matmul"): ("mkldnn", "all"),
    ("mkldnn", "rnn"): ("mkldnn", "all"),
}
_DEFAULT = {("cuda", "conv"): "tf32", ("cuda", "rnn"): "tf32"}
_FP32: dict = {}


# torch.set_float32_matmul_precision's levels as the matmul nodes' precision (cuBLAS, oneDNN)
_LEGACY_MATMUL = {"high": ("tf32", "tf32"), "medium": ("tf32", "bf16")}


def _precision_of(backend: str, op: str) -> str:
    key = (backend, op)
    if op == "matmul" and key not in _FP32:
        # NOTE: matches torch: the legacy float32 matmul precision shows through the matmul
        # nodes; ember cannot tell 'highest' set from never set, and shows the tree then
        legacy = _LEGACY_MATMUL.get(_environment.get_float32_matmul_precision())
        if legacy is not None:
            return legacy[backend == "mkldnn"]
    parent = _PARENT.get(key)
    inherited = _precision_of(*parent) if parent else "none"
    if key in _FP32:
        # set explicitly: a value wins, "none" defers to the parent (not to the default)
        own = _FP32[key]
        return own if own != "none" else inherited
    return inherited if inherited != "none" else _DEFAULT.get(key, "none")


def _set_precision(backend: str, op: str, value) -> None:
    if value not in _PRECISIONS:
        raise RuntimeError(f"Unknown precision: {value}")
    if value == "bf16" and backend == "cuda":
        raise RuntimeError("backend 'cuda' does not support precision 'bf16'")
    _FP32[(backend, op)] = value


class _FP32Precision:
    """``cudnn.conv``, ``mkldnn.matmul``...: an object whose one attribute is ``fp32_precision``."""

    def __init__(self, backend: str, op: str):
        object.__setattr__(self, "_key", (backend, op))

    def __getattr__(self, name):
        if name == "fp32_precision":
            return _precision_of(*self._key)
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name != "fp32_precision":
            raise AttributeError("Unknown attribute " + name)
        _set_precision(*self._key, value)


_FROZEN = [False]


def disable_global_flags() -> None:
    """Forbid setting backend flags outside their ``flags()`` context managers (as torch's
    test suite does to itself)."""
    _FROZEN[0] = True


def flags_frozen() -> bool:
    """Whether ``disable_global_flags()`` was called."""
    return _FROZEN[0]


def set_flags(_fp32_precision="none"):
    """Set the generic fp32 precision; returns the previous value in a 1-tuple."""
    orig = (_precision_of("generic", "all"),)
    if _fp32_precision is not None:
        _set_precision("generic", "all", _fp32_precision)
    return orig


@contextlib.contextmanager
def flags(fp32_precision="none"):
    """Context that sets the generic fp32 precision for a block and restores it after.

    Example:
        >>> with ember.backends.flags(fp32_precision="ieee"):
        ...     ember.backends.fp32_precision
        'ieee'
    """
    orig = set_flags(fp32_precision)
    try:
        yield
    finally:
        set_flags(*orig)


def _make_set_flags(module, names: tuple[str, ...], backend: str | None = None):
    """torch's ``set_flags(_a=None, _b=None...)`` of a flag module: set the given flags, return
    the previous values (all of them, in order). Its ``_fp32_precision`` (default "none", which
    clears an explicit setting) writes ``backend``'s precision."""

    def set_flags(*args, **kwargs):
        values = dict(zip(names, args))
        values.update({k.lstrip("_"): v for k, v in kwargs.items()})
        orig = tuple(getattr(module, n) for n in names)
        if backend is not None:
            precision = values.pop("fp32_precision", "none")
            if precision is not None:
                _set_precision(backend, "all", precision)
        for n, v in values.items():
            if v is not None:
                setattr(module, n, v)
        return orig

    return set_flags


# ---- cudnn -------------------------------------------------------------------------------------
_DEPTHWISE = ["auto"]


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

    @property
    def fp32_precision(self) -> str:
        return _precision_of("cuda", "all")

    @fp32_precision.setter
    def fp32_precision(self, value) -> None:
        _set_precision("cuda", "all", value)

    @property
    def depthwise_kernel(self) -> str:
        return _DEPTHWISE[0]

    @depthwise_kernel.setter
    def depthwise_kernel(self, value) -> None:
        if value not in ("auto", "cudnn", "native"):
            raise RuntimeError(
                f"Unknown cuDNN depthwise kernel mode: {value}. Expected one of: auto, cudnn, "
                "native"
            )
        _DEPTHWISE[0] = value

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
            fp32_precision=fp32_precision,
            depthwise_kernel=depthwise_kernel,
        )


cudnn = _CudnnModule("ember.backends.cudnn", "cuDNN flags (kept, no effect: ember has no cuDNN).")
for _k, _v in dict(
    enabled=True, benchmark=False, deterministic=False, allow_tf32=True, benchmark_limit=None
).items():
    setattr(cudnn, _k, _v)
cudnn.conv = _FP32Precision("cuda", "conv")
cudnn.rnn = _FP32Precision("cuda", "rnn")
cudnn.CUDNN_TENSOR_DTYPES = {_dtype.float16, _dtype.float32, _dtype.float64}
cudnn.set_flags = _make_set_flags(
    cudnn,
    (
        "enabled",
        "benchmark",
        "benchmark_limit",
        "deterministic",
        "allow_tf32",
        "fp32_precision",
        "depthwise_kernel",
    ),
    backend="cuda",
)


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
        if name == "fp32_precision":
            return _precision_of("cuda", "matmul")
        if name == "allow_fp16_accumulation":
            return self._values.get(name, False)
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
        elif name == "fp32_precision":
            _set_precision("cuda", "matmul", value)
        elif name == "allow_fp16_accumulation":
            _check_bool(value, "set_allow_fp16_accumulation_cublas")
            self._values[name] = value
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

    @staticmethod
    def is_acl_available() -> bool:
        """False: ember does not use the Arm Compute Library."""
        return False

    @property
    def allow_tf32(self):
        # NOTE: matches torch: the getter reads a binding a CPU build answers with None
        return None

    @allow_tf32.setter
    def allow_tf32(self, value) -> None:
        _check_bool(value, "_set_onednn_allow_tf32")

    @property
    def fp32_precision(self) -> str:
        return _precision_of("mkldnn", "all")

    @fp32_precision.setter
    def fp32_precision(self, value) -> None:
        # NOTE: matches torch: assigning oneDNN's precision writes the generic one
        _set_precision("generic", "all", value)

    def flags(self, enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
        """Context that sets the oneDNN flags for a block and restores them after."""
        return self._flags(
            enabled=enabled, deterministic=deterministic, fp32_precision=fp32_precision
        )


class _Verbose:
    """Context that turns a library's verbose logging on for a block: ember calls no oneDNN or
    MKL, so there is nothing to log; the level is kept."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        # NOTE: matches torch: a level of 0 (off) enters as None, any other as the object
        return None if self.level == 0 else self

    def __exit__(self, *exc):
        return False


mkldnn = _MkldnnModule("ember.backends.mkldnn", "oneDNN flags (kept, no effect in ember).")
mkldnn.enabled = True
mkldnn.deterministic = False
mkldnn.conv = _FP32Precision("mkldnn", "conv")
mkldnn.matmul = _FP32Precision("mkldnn", "matmul")
mkldnn.rnn = _FP32Precision("mkldnn", "rnn")
mkldnn.VERBOSE_OFF, mkldnn.VERBOSE_ON, mkldnn.VERBOSE_ON_CREATION = 0, 1, 2
mkldnn.verbose = type("verbose", (_Verbose,), {"__module__": "ember.backends.mkldnn"})
mkldnn.set_flags = _make_set_flags(
    mkldnn, ("enabled", "deterministic", "allow_tf32", "fp32_precision"), backend="mkldnn"
)


def _blas_is_mkl() -> bool:
    from ember.backend import _threads

    return "mkl" in _threads.blas_internal_apis()


mkl = types.ModuleType("ember.backends.mkl", "Whether NumPy's BLAS is Intel MKL.")
mkl.is_available = _blas_is_mkl
mkl.VERBOSE_OFF, mkl.VERBOSE_ON = 0, 1
mkl.verbose = type("verbose", (_Verbose,), {"__module__": "ember.backends.mkl"})
openmp = types.ModuleType("ember.backends.openmp", "OpenMP: ember's own code uses none.")
openmp.is_available = lambda: False
# ember's einsum does not call the opt_einsum package, so it is reported unavailable and the
# flags are plain attributes (as torch's when opt_einsum is not installed).
opt_einsum = types.ModuleType("ember.backends.opt_einsum", "opt_einsum: not used by ember.")
opt_einsum.is_available = lambda: False
opt_einsum.get_opt_einsum = lambda: None
opt_einsum.enabled = False
opt_einsum.strategy = None


def _opt_einsum_set_flags(_enabled=None, _strategy=None):
    orig = (opt_einsum.enabled, opt_einsum.strategy)
    if _enabled is not None:
        opt_einsum.enabled = _enabled
    if _strategy is not None:
        opt_einsum.strategy = _strategy
    return orig


@contextlib.contextmanager
def _opt_einsum_flags(enabled=None, strategy=None):
    orig = _opt_einsum_set_flags(enabled, strategy)
    try:
        yield
    finally:
        _opt_einsum_set_flags(*orig)


opt_einsum.set_flags = _opt_einsum_set_flags
opt_einsum.flags = _opt_einsum_flags
cpu = types.ModuleType("ember.backends.cpu", "The CPU's vector capability.")
cpu.get_cpu_capability = lambda: "DEFAULT"  # NumPy picks its SIMD kernels itself at run time
mha = types.ModuleType("ember.backends.mha", "The MultiheadAttention fast path switch.")
_MHA = {"fastpath": True}


def _set_fastpath_enabled(value: bool) -> None:
    _MHA["fastpath"] = value


mha.get_fastpath_enabled = lambda: _MHA["fastpath"]
mha.set_fastpath_enabled = _set_fastpath_enabled


# ---- mps: the queries that need Apple's Metal ---------------------------------------------------
def _mps_get_core_count() -> int:
    raise AttributeError("module 'torch._C' has no attribute '_mps_get_core_count'")


def _mps_get_name() -> str:
    raise AttributeError("module 'torch._C' has no attribute '_mps_get_name'")


def _mps_is_macos_or_newer(major: int, minor: int) -> bool:
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


def _mps_is_macos13_or_newer(minor: int = 0) -> bool:
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


# NOTE: matches torch: a build without MPS fails these with the same errors
mps.get_core_count = _mps_get_core_count
mps.get_name = _mps_get_name
mps.is_macos_or_newer = _mps_is_macos_or_newer
mps.is_macos13_or_newer = _mps_is_macos13_or_newer


# ---- cuda: libraries, workspaces, the cuFFT plan cache, attention kernels -----------------------
class _Backend(int):
    """A member of one of torch's small backend enums (``_LinalgBackend.Default``...)."""

    def __new__(cls, enum: str, name: str, value: int):
        self = super().__new__(cls, value)
        self._enum, self.name, self.value = enum, name, value
        return self

    def __repr__(self) -> str:
        return f"<{self._enum}.{self.name}: {self.value}>"

    __str__ = __repr__


def _enum(enum: str, names: tuple[str, ...]) -> dict[str, _Backend]:
    return {n.lower(): _Backend(enum, n, i) for i, n in enumerate(names)}


_LINALG = _enum("_LinalgBackend", ("Default", "Cusolver", "Magma"))
_BLAS = _enum("_BlasBackend", ("Default", "Cublas", "Cublaslt", "Ck"))
_ROCM_FA = _enum("_ROCmFABackend", ("Default", "AOTriton", "Ck"))
_PREFERRED = {"linalg": _LINALG["default"], "blas": _BLAS["cublas"], "fa": _ROCM_FA["default"]}


def _pick(table: dict, backend, what: str):
    if isinstance(backend, _Backend):
        return backend
    if not isinstance(backend, str) or backend.lower() not in table:
        raise RuntimeError(f"Unknown input value. Choose from: {', '.join(table)}.")
    return table[backend.lower()]


def _preferred_linalg_library(backend=None):
    """The linear-algebra library CUDA ops would prefer (ember runs none of them)."""
    if backend is not None:
        choice = _pick(_LINALG, backend, "linalg")
        # NOTE: matches torch: the choice is recorded before the build is found lacking it
        _PREFERRED["linalg"] = choice
        if choice.name == "Cusolver":
            raise RuntimeError(
                "Cannot set preferred backend to cuSOLVER if PyTorch has not been compiled "
                "with cuSOLVER."
            )
        if choice.name == "Magma":
            raise RuntimeError(
                "Cannot set preferred backend to MAGMA if PyTorch has not been compiled with MAGMA."
            )
    return _PREFERRED["linalg"]


def _preferred_blas_library(backend=None):
    """The BLAS library CUDA matmuls would prefer (ember runs none of them)."""
    if backend is not None:
        choice = _pick(_BLAS, backend, "blas")
        if choice.name == "Cublaslt":
            raise RuntimeError(
                "Cannot set preferred backend to cuBLASLt if PyTorch has not been compiled "
                "with cuBLASLt."
            )
        _PREFERRED["blas"] = choice
    return _PREFERRED["blas"]


def _preferred_rocm_fa_library(backend=None):
    """The flash-attention library ROCm would prefer (ember runs none)."""
    if backend is not None:
        _PREFERRED["fa"] = _pick(_ROCM_FA, backend, "fa")
    return _PREFERRED["fa"]


def _workspace(binding: str):
    def size() -> int:
        # NOTE: matches torch: the CUDA binding is absent from a CPU-only build
        raise AttributeError(f"module 'torch._C' has no attribute '{binding}'")

    return size


class cuFFTPlanCacheAttrContextProp:
    """A property of the cuFFT plan cache that reads and writes through CUDA."""

    def __init__(self, getter, setter):
        self.getter, self.setter = getter, setter

    def __get__(self, obj, objtype):
        return self.getter(obj.device_index)

    def __set__(self, obj, val):
        if isinstance(self.setter, str):
            raise RuntimeError(self.setter)
        self.setter(obj.device_index, val)


def _no_cuda(*args):
    raise AssertionError("Torch not compiled with CUDA enabled")


class cuFFTPlanCache:
    """The cuFFT plan cache of one CUDA device: every read needs CUDA."""

    def __init__(self, device_index):
        self.device_index = device_index

    size = cuFFTPlanCacheAttrContextProp(
        _no_cuda,
        ".size is a read-only property showing the number of plans currently in the "
        "cache. To change the cache capacity, set cufft_plan_cache.max_size.",
    )
    max_size = cuFFTPlanCacheAttrContextProp(_no_cuda, _no_cuda)

    def clear(self):
        _no_cuda()


class cuFFTPlanCacheManager:
    """``backends.cuda.cufft_plan_cache``: one cuFFT plan cache per CUDA device (none here)."""

    __initialized = False

    def __init__(self):
        self.caches = []
        self.__initialized = True

    def __getitem__(self, device):
        index = getattr(device, "index", device)
        # NOTE: matches torch's message for an index past the (zero) devices
        raise RuntimeError(
            f"cufft_plan_cache: expected 0 <= device index < 0, but got device with index {index}"
        )

    def __getattr__(self, name):
        return getattr(cuda.cuFFTPlanCache(None), name)

    def __setattr__(self, name, value):
        if self.__initialized:
            setattr(cuda.cuFFTPlanCache(None), name, value)
        else:
            super().__setattr__(name, value)


class cuBLASModule(_CublasModule):
    """``backends.cuda.matmul``'s type: the cuBLAS flags."""


class SDPBackend(int):
    """The scaled-dot-product-attention kernels (torch.nn.attention.SDPBackend)."""

    __members__: dict = {}

    def __new__(cls, name: str, value: int):
        self = super().__new__(cls, value)
        self.name, self.value = name, value
        return self

    def __repr__(self) -> str:
        return f"<SDPBackend.{self.name}: {self.value}>"

    __str__ = __repr__


for _i, _n in enumerate(
    ("ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "OVERRIDEABLE")
):
    setattr(SDPBackend, _n, SDPBackend(_n, _i - 1))
    SDPBackend.__members__[_n] = getattr(SDPBackend, _n)


class SDPAParams:
    """The arguments of one scaled-dot-product-attention call, for ``can_use_*``."""

    def __init__(self, query, key, value, attn_mask, dropout, is_causal, enable_gqa=False):
        self.query, self.key, self.value = query, key, value
        self.attn_mask, self.dropout = attn_mask, dropout
        self.is_causal, self.enable_gqa = is_causal, enable_gqa


def _can_use(kernel: str):
    def can_use(params, debug: bool = False) -> bool:
        if not isinstance(params, cuda.SDPAParams):
            raise TypeError(
                f"_can_use_{kernel}(): incompatible function arguments; expected SDPAParams, "
                f"got {type(params).__name__}"
            )
        return False  # no GPU attention kernel exists in ember

    can_use.__name__ = can_use.__qualname__ = f"can_use_{kernel}"
    can_use.__doc__ = f"False: ember has no {kernel.replace('_', ' ')} kernel."
    return can_use


_SDP_REDUCTION = [False]


def _allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    _SDP_REDUCTION[0] = enabled


cuda.preferred_linalg_library = _preferred_linalg_library
cuda.preferred_blas_library = _preferred_blas_library
cuda.preferred_rocm_fa_library = _preferred_rocm_fa_library
cuda.cublas_workspace_size = _workspace("_cuda_getCublasWorkspaceSize")
cuda.cublaslt_workspace_size = _workspace("_cuda_getCublasLtWorkspaceSize")
cuda.blas_workspace_size = _workspace("_cuda_getCublasWorkspaceSize")
cuda.cuFFTPlanCacheAttrContextProp = cuFFTPlanCacheAttrContextProp
cuda.cuFFTPlanCache = cuFFTPlanCache
cuda.cuFFTPlanCacheManager = cuFFTPlanCacheManager
cuda.cufft_plan_cache = cuFFTPlanCacheManager()
cuda.cuBLASModule = cuBLASModule
cuda.SDPBackend = SDPBackend
cuda.SDPAParams = SDPAParams
cuda.can_use_flash_attention = _can_use("flash_attention")
cuda.can_use_efficient_attention = _can_use("mem_efficient_attention")
cuda.can_use_cudnn_attention = _can_use("cudnn_attention")
cuda.is_flash_attention_available = lambda: False
cuda.is_ck_sdpa_available = lambda: False
cuda.allow_fp16_bf16_reduction_math_sdp = _allow_fp16_bf16_reduction_math_sdp
cuda.fp16_bf16_reduction_math_sdp_allowed = lambda: _SDP_REDUCTION[0]
for _cls in (cuFFTPlanCacheAttrContextProp, cuFFTPlanCache, cuFFTPlanCacheManager, cuBLASModule):
    _cls.__module__ = "ember.backends.cuda"
del cuFFTPlanCacheAttrContextProp, cuFFTPlanCache, cuFFTPlanCacheManager, cuBLASModule
del SDPBackend, SDPAParams

# ---- libraries ember does not use: cuSPARSELt, KleidiAI, MIOpen, NNPACK ------------------------
cusparselt = types.ModuleType("ember.backends.cusparselt", "cuSPARSELt: not available in ember.")
cusparselt.is_available = lambda: False
cusparselt.version = lambda: None
cusparselt.get_max_alg_id = lambda: None
kleidiai = types.ModuleType("ember.backends.kleidiai", "Arm KleidiAI kernels: not used by ember.")
kleidiai.is_available = lambda: False


class _MiopenModule(_Flags):
    _checked = {"immediate": "set_immediate_miopen"}

    def flags(self, immediate=False):
        """Context that sets the MIOpen flag for a block and restores it after."""
        return self._flags(immediate=immediate)


miopen = _MiopenModule(
    "ember.backends.miopen", "MIOpen flags (kept, no effect: ember has no ROCm)."
)
miopen.immediate = False
miopen.set_flags = _make_set_flags(miopen, ("immediate",))


class _NnpackModule(_Flags):
    _checked = {"enabled": "set_nnpack_enabled"}

    @staticmethod
    def is_available() -> bool:
        """False: ember's convolutions do not use NNPACK (torch's CPU build does)."""
        return False

    def flags(self, enabled=False):
        """Context that sets the NNPACK flag for a block and restores it after."""
        return self._flags(enabled=enabled)


nnpack = _NnpackModule("ember.backends.nnpack", "NNPACK flag (kept, no effect in ember).")
nnpack.enabled = True


def _nnpack_set_flags(_enabled):
    """Set the NNPACK flag; returns the previous value in a 1-tuple."""
    orig = (nnpack.enabled,)
    nnpack.enabled = _enabled
    return orig


_nnpack_set_flags.__name__ = _nnpack_set_flags.__qualname__ = "set_flags"
nnpack.set_flags = _nnpack_set_flags


# ---- quantized: the quantized engine (ember has no quantized kernels) ----------------------------
class _QuantizedModule(types.ModuleType):
    @property
    def supported_engines(self) -> list[str]:
        return ["none"]

    @property
    def engine(self) -> str:
        return "none"

    @engine.setter
    def engine(self, value) -> None:
        if value != "none":
            # NOTE: matches torch's message for an engine the build lacks
            raise RuntimeError(f"{value} is not a valid value for quantized engine")


quantized = _QuantizedModule(
    "ember.backends.quantized", "The quantized engine: none (ember has no quantized kernels)."
)


# ---- python_native: Python-DSL (Triton, CuTe) kernel overrides -----------------------------------
class _DSLController:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"DSLController({self.name}, unavailable, enabled)"


class _PythonNativeModule(types.ModuleType):
    """Kernels written in Python DSLs that replace native ops: none are available to ember; the
    switches keep what they are given."""

    def __init__(self, name, doc):
        super().__init__(name, doc)
        self._disabled_ops: set[str] = set()
        self._disabled_keys: set[str] = set()
        self.triton = _DSLController("triton")
        self.cutedsl = _DSLController("cutedsl")

    @property
    def available_dsls(self) -> list[str]:
        return []

    @property
    def all_dsls(self) -> list[str]:
        return ["cutedsl", "triton"]

    def get_dsl_operations(self, dsl_name: str) -> list[str]:
        """The operations a DSL overrides: none."""
        return []

    def is_dsl_disabled(self, dsl_name: str) -> bool:
        """Whether a DSL is disabled: no (none is loaded either)."""
        return False

    def disable_operations(self, *op_symbols: str) -> None:
        """Record operations whose DSL overrides are disabled."""
        self._disabled_ops.update(op_symbols)

    def enable_operations(self, *op_symbols: str) -> None:
        """Undo ``disable_operations``."""
        self._disabled_ops.difference_update(op_symbols)

    def is_operation_disabled(self, op_symbol: str) -> bool:
        """Whether ``disable_operations`` named the operation."""
        return op_symbol in self._disabled_ops

    def disable_dispatch_keys(self, *dispatch_keys: str) -> None:
        """Record dispatch keys whose DSL overrides are disabled."""
        self._disabled_keys.update(dispatch_keys)

    def enable_dispatch_keys(self, *dispatch_keys: str) -> None:
        """Undo ``disable_dispatch_keys``."""
        self._disabled_keys.difference_update(dispatch_keys)

    @contextlib.contextmanager
    def operations_disabled(self, *op_symbols: str):
        """Context that disables the named operations' overrides for a block."""
        before = set(self._disabled_ops)
        self.disable_operations(*op_symbols)
        try:
            yield
        finally:
            self._disabled_ops = before


python_native = _PythonNativeModule(
    "ember.backends.python_native", "Python-DSL kernel overrides: none available in ember."
)


# ---- the package itself: its generic fp32 precision is a property, as torch's -------------------
class _BackendsModule(types.ModuleType):
    @property
    def fp32_precision(self) -> str:
        return _precision_of("generic", "all")

    @fp32_precision.setter
    def fp32_precision(self, value) -> None:
        if flags_frozen():
            raise RuntimeError(
                "not allowed to set torch.backends flags after disable_global_flags; please use "
                "flags() context manager instead"
            )
        _set_precision("generic", "all", value)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _BackendsModule

# Each flag namespace is a module object built here, not a file: registered under its dotted name
# so that ``import ember.backends.cudnn as cudnn`` and ``from ember.backends.cuda import
# sdp_kernel`` find it, as they find torch's submodule files.
for _name in __all__:
    _namespace = globals()[_name]
    if isinstance(_namespace, types.ModuleType):
        _sys.modules[_namespace.__name__] = _namespace
# torch.backends.cudnn is a package (its ``rnn`` submodule is cuDNN internals): an empty search
# path makes ``import ember.backends.cudnn.rnn`` reach ember's finder, which says why it is absent
cudnn.__path__ = []
del _name, _namespace
