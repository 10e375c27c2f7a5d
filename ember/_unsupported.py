"""The torch names ember deliberately does not provide, each with its reason: the one list.

A torch script fails on ember only for what a CPU-only NumPy stack cannot do, and then with an
error that says so. Each namespace below maps a torch name to why ember lacks it; every other
public torch name is implemented (tests/test_coverage.py checks both directions against the
installed torch, so an entry goes stale the moment someone implements the name).

Kinds of entries, and what asking for one does (the module ``__getattr__`` of each ember
namespace and the Tensor attachment below route misses here):

- ``functions``: a stub that raises ``NotImplementedError(reason)`` when called. Getting it
  works, so ``hasattr(torch, name)`` probes see the name as torch does.
- ``classes``: a stub class whose construction raises ``NotImplementedError(reason)``;
  ``isinstance(x, stub)`` is False, as it would be for every ember object.
- ``values`` (dtypes, flags, submodules): ``AttributeError`` naming the reason, so ``hasattr``
  stays False (it only catches AttributeError) and ``getattr(torch, name, default)`` works.
- ``not API``: names torch's ``dir()`` shows that are not API (the standard-library modules
  torch/__init__ imports, typing names, docstring fragments): ``AttributeError`` with the reason.

Tensor methods are attached to ``Tensor`` as stubs at import (a ``Tensor.__getattr__`` would slow
every attribute miss); Tensor flags with a truthful answer (``is_quantized``) are attached as
properties that return it.
"""

from __future__ import annotations

# ---- reasons -------------------------------------------------------------------------------------
_QUANT = (
    "ember has quantized tensors (ember.quantize_per_tensor...), observers, fake quantizers and "
    "qconfigs (ember.ao.quantization), but not yet torch.ao's eager flow (prepare/convert, "
    "fuse_modules, quantize_dynamic) and quantized modules"
)
_QUANT_RNN = (
    "torch's quantized recurrent kernels run FBGEMM's packed int8 GEMMs, which ember does not "
    "implement; dequantize the input and run the float RNN (ember.nn.functional / nn.LSTM)"
)
_QUANT_STORAGE = (
    "ember's quantized tensors keep their integers in a NumPy array, with no typed quantized "
    "storage object; ember.save/load read and write torch's quantized storages without it"
)
_FAKE_QUANT = (
    "the fused observer + fake-quantize step of quantization-aware training (torch.ao) is not "
    "implemented; use fake_quantize_per_tensor_affine with an observer's qparams"
)
_JIT = (
    "TorchScript internals: ember runs eager Python only and has no TorchScript compiler, IR or "
    "runtime"
)
_JIT_DICT = (
    "TorchScript's view of a scripted module's members (the layer containers are "
    "ember.nn.ModuleDict / ParameterDict)"
)
_JIT_CLASSES = "TorchScript custom C++ classes (torch.classes): ember has no C++ runtime"
_FUTURE = (
    "futures hold asynchronous results of TorchScript fork/wait and RPC; ember runs "
    "synchronously in one process"
)
_BENCH = (
    "the C++ multi-threaded benchmark harness for TorchScript modules; ember has no C++ runtime"
)
_DISPATCH = "internals of torch's C++ operator dispatcher; ember has no dispatcher"
_TORCH_FUNCTION = (
    "the __torch_function__ override protocol; ember tensors do not dispatch through "
    "__torch_function__"
)
_LIBRARY = "torch.library registers operators in torch's C++ dispatcher; ember has no dispatcher"
_MONITOR = "logging and statistics hooks of torch's C++ runtime (torch.monitor)"
_FX = "torch.fx symbolic tracing and graph rewriting; ember is eager only"
_EXPORT = "torch.export ahead-of-time graph capture; ember is eager only"
_PACKAGE = "torch.package archives bundle code with torch's own importer and pickler"
_STORAGE_INTERNAL = (
    "torch._C's storage base type; ember's storages are ember.UntypedStorage / TypedStorage"
)
_FILE_INTERNAL = (
    "torch._C's C++ zip reader/writer and storage contexts behind torch.save/load and "
    "torch.package; ember.save/ember.load implement the format in Python"
)
_SYM = (
    "symbolic shapes (SymInt/SymFloat/SymBool and their constraints) exist for torch.compile "
    "and torch.export tracing; ember's shapes are always concrete"
)
_NESTED = (
    "nested (jagged) tensors need torch's NestedTensor layout and kernels, which ember does not "
    "have: pad the batch and pass a mask instead"
)
_COMPLEX32 = "NumPy has no complex32 (complex half) type; use complex64"
_FLOAT4 = (
    "packed float4 pairs (two e2m1 values per byte, for MX formats) have no NumPy or ml_dtypes "
    "equivalent"
)
_SUB_BYTE = (
    "sub-byte integer dtypes are tags for custom packed kernels in torch; NumPy has no 1-7 bit "
    "integers"
)
_BITS = "opaque bit-container dtypes for custom kernels; NumPy has no equivalent"
_CUDNN = "cuDNN kernels run only on NVIDIA GPUs; ember is CPU-only"
_MIOPEN = "MIOpen kernels run only on AMD GPUs; ember is CPU-only"
_MKLDNN = "oneDNN (mkldnn) kernels and tensor layout; ember computes through NumPy/SciPy"
_FBGEMM = "FBGEMM's packed int8/fp16 GEMM kernels; ember computes through NumPy/SciPy"
_SYNC_BN = (
    "per-process kernels of SyncBatchNorm for multi-process training; ember has no "
    "torch.distributed"
)
_AUTOCAST_DEVICE = "autocast state of IPU/XLA devices; ember has only the CPU"
_MTIA = "no MTIA (Meta training and inference accelerator) device; ember is CPU-only"
_IPU = "no IPU (Graphcore) device; ember is CPU-only"
_CXX_ABI = "reports the C++ ABI libtorch was built with; ember has no C++ library"
_RECORD_STREAM = "marks a CUDA stream's use of the memory; ember has no CUDA streams"
_FIRST_CLASS_DIMS = (
    "binds positions to functorch first-class dimensions (functorch.dim), which ember lacks"
)
_ONNX = "ONNX export serializes TorchScript/FX graphs; ember has no graph capture"
_NATIVERT = "the C++ runtime for torch.export programs; ember is eager only"
_NUMA = "binds torch.distributed worker processes to NUMA nodes; ember has no torch.distributed"
_SEMI_STRUCTURED = (
    "2:4 semi-structured sparsity runs only on NVIDIA GPUs (cuSPARSELt / CUTLASS kernels)"
)

# not API
_PY_MODULE = "Python module imported by torch/__init__, not API"
_PY_MODULE_IN = "Python module imported by the torch module's source, not API"
_SELF = "the torch package itself, bound by the module's imports, not API"
_TYPING = "typing helper imported for annotations, not API"
_BUILD_FLAG = "import-time flag of torch/__init__ (loading libtorch's shared libraries), not API"
_INTERNAL_HELPER = "internal helper that torch/__init__ imports, not API"
_DOC_FRAGMENT = "docstring fragments shared by the module's functions, not API"
_TORCH_FUNCTIONAL = (
    "torch.functional is the source file of functions that torch re-exports at the top level "
    "(ember has them as ember.<name>), not API"
)
_TORCH_TYPES = "typing aliases for torch's annotations (torch.types), not API"
_TORCH_VERSION = "the module that defines TorchVersion (see ember.__version__), not API"
_CPP = "bindings of the C++ frontend's internals (torch._C.cpp), not API"
_CONTRIB = "a package of private modules only (torch.contrib._tensorboard_vis), not API"
_DISPATCH_HELPER = "torch's __torch_function__ dispatch helpers imported by the module, not API"
_ANNOTATION_CLASS = "the Tensor class imported for annotations (it is ember.Tensor), not API"

FUNCTION, CLASS, VALUE, NOT_API = "function", "class", "value", "not API"

# (torch namespace, kind, reason, names)
_ENTRIES: list[tuple[str, str, str, str]] = [
    # ---- torch -----------------------------------------------------------------------------------
    (
        "torch",
        FUNCTION,
        _QUANT_RNN,
        "quantized_gru quantized_gru_cell quantized_lstm quantized_lstm_cell "
        "quantized_rnn_relu_cell quantized_rnn_tanh_cell",
    ),
    (
        "torch",
        CLASS,
        _QUANT_STORAGE,
        "QInt32Storage QInt8Storage QUInt2x4Storage QUInt4x2Storage QUInt8Storage",
    ),
    (
        "torch",
        FUNCTION,
        _FAKE_QUANT,
        "fused_moving_avg_obs_fake_quant",
    ),
    (
        "torch",
        CLASS,
        _JIT,
        "AliasDb AnyType Argument ArgumentSpec AwaitType Block BoolType CallStack Capsule "
        "ClassType Code CompilationUnit CompleteArgumentSpec ComplexType ConcreteModuleType "
        "ConcreteModuleTypeBuilder DeepCopyMemoTable DeviceObjType DictType EnumType ErrorReport "
        "ExecutionPlan FileCheck FloatType FunctionSchema FutureType Gradient Graph "
        "GraphExecutorState InferredType IntType InterfaceType JITException ListType "
        "LiteScriptModule Node NoneType NumberType OptionalType PyObjectType RRefType ScriptClass "
        "ScriptClassFunction ScriptDict ScriptDictIterator ScriptDictKeyIterator ScriptFunction "
        "ScriptList ScriptListIterator ScriptMethod ScriptModule ScriptModuleSerializer "
        "ScriptObject ScriptObjectProperty StaticModule StreamObjType StringType SymBoolType "
        "SymIntType TensorType TracingState TupleType Type UnionType Use Value",
    ),
    ("torch", CLASS, _JIT_DICT, "BufferDict ModuleDict ParameterDict"),
    (
        "torch",
        FUNCTION,
        _JIT,
        "fork wait import_ir_module import_ir_module_from_buffer merge_type_from_type_comment "
        "parse_ir parse_schema parse_type_comment unify_type_list",
    ),
    ("torch", VALUE, _JIT_CLASSES, "classes"),
    ("torch", CLASS, _FUTURE, "Future"),
    ("torch", VALUE, _FUTURE, "futures"),
    ("torch", CLASS, _BENCH, "ThroughputBenchmark BenchmarkConfig BenchmarkExecutionStats"),
    (
        "torch",
        CLASS,
        _DISPATCH,
        "DispatchKey DispatchKeySet ExcludeDispatchKeyGuard Tag IODescriptor OperatorInfo",
    ),
    ("torch", CLASS, _TORCH_FUNCTION, "DisableTorchFunction DisableTorchFunctionSubclass"),
    ("torch", VALUE, _TORCH_FUNCTION, "overrides"),
    ("torch", VALUE, _LIBRARY, "library"),
    ("torch", CLASS, _MONITOR, "AggregationType LockingLogger LoggerBase NoopLogger"),
    ("torch", VALUE, _MONITOR, "AVG SUM monitor"),
    ("torch", VALUE, _FX, "fx"),
    ("torch", VALUE, _EXPORT, "export"),
    ("torch", VALUE, _PACKAGE, "package"),
    ("torch", CLASS, _STORAGE_INTERNAL, "StorageBase"),
    (
        "torch",
        CLASS,
        _FILE_INTERNAL,
        "DeserializationStorageContext SerializationStorageContext PyTorchFileReader "
        "PyTorchFileWriter",
    ),
    ("torch", CLASS, _SYM, "SymBool SymFloat SymInt"),
    ("torch", FUNCTION, _SYM, "sym_constrain_range sym_constrain_range_for_size sym_fresh_size"),
    ("torch", VALUE, _NESTED, "nested"),
    ("torch", VALUE, _COMPLEX32, "chalf complex32"),
    ("torch", VALUE, _FLOAT4, "float4_e2m1fn_x2"),
    (
        "torch",
        VALUE,
        _SUB_BYTE,
        "int1 int2 int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 uint6 uint7",
    ),
    ("torch", VALUE, _BITS, "bit bits16 bits1x8 bits2x4 bits4x2 bits8"),
    (
        "torch",
        FUNCTION,
        _CUDNN,
        "cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution "
        "cudnn_convolution_add_relu cudnn_convolution_relu cudnn_convolution_transpose "
        "cudnn_grid_sampler",
    ),
    (
        "torch",
        FUNCTION,
        _MIOPEN,
        "miopen_batch_norm miopen_convolution miopen_convolution_add_relu miopen_convolution_relu "
        "miopen_convolution_transpose miopen_ctc_loss miopen_depthwise_convolution miopen_rnn",
    ),
    (
        "torch",
        FUNCTION,
        _MKLDNN,
        "mkldnn_adaptive_avg_pool2d mkldnn_convolution mkldnn_linear_backward_weights "
        "mkldnn_max_pool2d mkldnn_max_pool3d mkldnn_rnn_layer",
    ),
    (
        "torch",
        FUNCTION,
        _FBGEMM,
        "fbgemm_linear_fp16_weight fbgemm_linear_fp16_weight_fp32_activation "
        "fbgemm_linear_int8_weight fbgemm_linear_int8_weight_fp32_activation "
        "fbgemm_linear_quantize_weight fbgemm_pack_gemm_matrix_fp16 fbgemm_pack_quantized_matrix",
    ),
    (
        "torch",
        FUNCTION,
        _SYNC_BN,
        "batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt "
        "batch_norm_gather_stats batch_norm_gather_stats_with_counts batch_norm_stats "
        "batch_norm_update_stats",
    ),
    (
        "torch",
        FUNCTION,
        _AUTOCAST_DEVICE,
        "get_autocast_ipu_dtype get_autocast_xla_dtype is_autocast_ipu_enabled "
        "is_autocast_xla_enabled set_autocast_ipu_dtype set_autocast_ipu_enabled "
        "set_autocast_xla_dtype set_autocast_xla_enabled",
    ),
    ("torch", VALUE, _MTIA, "mtia"),
    ("torch", VALUE, _ONNX, "onnx"),
    ("torch", VALUE, _NATIVERT, "nativert"),
    ("torch", VALUE, _NUMA, "numa"),
    ("torch", FUNCTION, _CXX_ABI, "compiled_with_cxx11_abi"),
    (
        "torch",
        NOT_API,
        _PY_MODULE,
        "builtins ctypes functools glob importlib inspect math os platform sys textwrap threading "
        "warnings",
    ),
    ("torch", NOT_API, _SELF, "torch"),
    ("torch", NOT_API, _BUILD_FLAG, "TYPE_CHECKING USE_GLOBAL_DEPS USE_RTLD_GLOBAL_WITH_LIBTORCH"),
    (
        "torch",
        NOT_API,
        _INTERNAL_HELPER,
        "PRIVATE_OPS classproperty get_file_path prepare_multiprocessing_environment "
        "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12",
    ),
    ("torch", NOT_API, _TORCH_FUNCTIONAL, "functional"),
    ("torch", NOT_API, _TORCH_TYPES, "types"),
    ("torch", NOT_API, _TORCH_VERSION, "torch_version"),
    ("torch", NOT_API, _CPP, "cpp"),
    ("torch", NOT_API, _CONTRIB, "contrib"),
    # ---- torch.Tensor ----------------------------------------------------------------------------
    ("torch.Tensor", FUNCTION, _MKLDNN, "to_mkldnn"),
    ("torch.Tensor", FUNCTION, _IPU, "ipu"),
    ("torch.Tensor", FUNCTION, _MTIA, "mtia"),
    ("torch.Tensor", FUNCTION, _RECORD_STREAM, "record_stream"),
    ("torch.Tensor", FUNCTION, _NESTED, "to_padded_tensor"),
    ("torch.Tensor", FUNCTION, _FIRST_CLASS_DIMS, "index"),
    # ---- torch.linalg / fft / special ------------------------------------------------------------
    ("torch.linalg", NOT_API, _DOC_FRAGMENT, "common_notes"),
    ("torch.fft", NOT_API, _DOC_FRAGMENT, "common_args factory_common_args"),
    ("torch.fft", NOT_API, _SELF, "torch"),
    ("torch.special", NOT_API, _DOC_FRAGMENT, "common_args multi_dim_common"),
    ("torch.special", NOT_API, _SELF, "torch"),
    ("torch.special", NOT_API, _ANNOTATION_CLASS, "Tensor"),
    # ---- torch.sparse ----------------------------------------------------------------------------
    (
        "torch.sparse",
        CLASS,
        _SEMI_STRUCTURED,
        "SparseSemiStructuredTensor SparseSemiStructuredTensorCUSPARSELT "
        "SparseSemiStructuredTensorCUTLASS",
    ),
    ("torch.sparse", FUNCTION, _SEMI_STRUCTURED, "to_sparse_semi_structured"),
    ("torch.sparse", VALUE, _SEMI_STRUCTURED, "semi_structured"),
    ("torch.sparse", NOT_API, _TYPING, "Any DType DimOrDims TYPE_CHECKING"),
    ("torch.sparse", NOT_API, _SELF, "torch"),
    ("torch.sparse", NOT_API, _ANNOTATION_CLASS, "Tensor"),
    # ---- torch.nn.functional ---------------------------------------------------------------------
    (
        "torch.nn.functional",
        NOT_API,
        _TYPING,
        "BroadcastingList1 BroadcastingList2 BroadcastingList3 Callable DType Optional "
        "TYPE_CHECKING",
    ),
    ("torch.nn.functional", NOT_API, _ANNOTATION_CLASS, "Tensor"),
    (
        "torch.nn.functional",
        NOT_API,
        _DISPATCH_HELPER,
        "boolean_dispatch handle_torch_function has_torch_function has_torch_function_unary "
        "has_torch_function_variadic",
    ),
    ("torch.nn.functional", NOT_API, _PY_MODULE_IN, "dataclasses importlib math np warnings"),
    ("torch.nn.functional", NOT_API, _SELF, "torch"),
    (
        "torch.nn.functional",
        NOT_API,
        _DOC_FRAGMENT,
        "reproducibility_notes sparse_support_notes tf32_notes",
    ),
]

# torch namespace -> {name: (kind, reason)}
UNSUPPORTED: dict[str, dict[str, tuple[str, str]]] = {}
for _ns, _kind, _reason, _names in _ENTRIES:
    _table = UNSUPPORTED.setdefault(_ns, {})
    for _name in _names.split():
        assert _name not in _table, f"{_ns}.{_name} is listed twice"
        _table[_name] = (_kind, _reason)

# Tensor flags about features ember lacks, with the truthful answer (torch has them as
# properties; a raising property would break ``hasattr``).
TENSOR_FLAGS: dict[str, tuple[bool, str]] = {
    "is_mkldnn": (False, _MKLDNN),
    "is_nested": (False, _NESTED),
}


# ---- module paths --------------------------------------------------------------------------------
# ``import ember.a.b`` for a torch module path ember deliberately lacks raises ModuleNotFoundError
# with the reason (the finder below). A path is covered by its own entry here, by an entry for
# one of its packages (the whole subtree), or by a ``value``/``not API`` entry above for the same
# name (``torch.fx`` is listed there as a name of ``torch``). tests/test_import_paths.py walks
# torch's module tree and fails on a public path that is neither importable nor covered.
_DISTRIBUTED = (
    "torch.distributed (process groups, collectives, DDP, RPC, FSDP, elastic launch) is not part "
    "of ember: one process on one CPU, so ember.distributed.is_available() is False"
)
_MULTI_GPU = (
    "scatter, gather, replicate and broadcast of modules and tensors across several GPUs "
    "(DataParallel's machinery); ember runs on one device, where ember.nn.DataParallel calls "
    "the module directly"
)
_NO_XPU = "no Intel XPU device; ember.xpu answers is_available() False and has no streams or graphs"
_NO_MPS = (
    "no Apple MPS device; ember.mps answers is_available() False and has no events or profiler"
)
_GRAPHS = "device graph capture and replay (CUDA/XPU graphs); ember runs eagerly on the CPU"
_CPP_EXTENSION = (
    "building and loading C++/CUDA extensions against libtorch; ember has no C++ library: write "
    "the op in Python (ember.autograd.Function)"
)
_HIPIFY = "translates CUDA C++ sources to HIP for torch's ROCm builds; ember has no C++ sources"
_DATAPIPES = (
    "DataPipes (torch.utils.data.datapipes and their graph utilities) are deprecated in torch "
    "and not in ember: use ember.utils.data's Dataset, IterableDataset and DataLoader"
)
_XEON_LAUNCHER = (
    "torch's launcher script that pins torch processes to Intel Xeon cores and NUMA nodes; "
    "ember is a library of Python over NumPy with nothing to launch"
)
_XNNPACK = "XNNPACK kernels (torch's mobile CPU backend); ember computes through NumPy/SciPy"
_ITT = "Intel ITT instrumentation for VTune traces; ember's profiler records Python timings"
_PROFILER_EVENTS = (
    "the autograd profiler's legacy implementation and its event records (FunctionEvent, "
    "Kernel, MemRecordsAcc); use ember.autograd.profiler.profile and its EventList"
)
_ENV_REPORT = (
    "reports torch's build, CUDA and compiler environment; ember is pure Python (see "
    "ember.__version__ and numpy.show_config())"
)
_PRIVATEUSE1 = "registers an out-of-tree C++ device backend (PrivateUse1); ember has no dispatcher"
_SERIALIZATION_CONFIG = (
    "torch.utils.serialization's config object; ember keeps checkpoint options behind "
    "ember.serialization's setters (set_crc32_options, set_default_mmap_options)"
)
_DEBUG_INTERNALS = "debugging helpers of torch's own C++ runtime and test suite"
_FLOP_COUNTER = (
    "FlopCounterMode counts FLOPs by intercepting ATen ops through __torch_dispatch__; ember has "
    "no dispatcher"
)
_MODULE_TRACKER = (
    "ModuleTracker follows the module hierarchy for torch's dispatch-mode tools (FlopCounterMode, "
    "DTensor debugging), which ember does not have"
)
_PICKLE_DUMP = (
    "a command-line dump of a checkpoint's pickle records; ember.load never runs code from a "
    "file, and Python's pickletools.dis shows the records"
)
_SHARED_MEMORY = (
    "the pickling reductions that move tensors between processes through shared memory; ember "
    "tensors pickle by value (ember.multiprocessing.init_reductions is a no-op)"
)
_THNN = "the placeholder of torch's removed THNN backend, not API"
_NN_CPP = "wrappers of torch's C++ frontend modules (torch.nn.cpp); ember has no C++ frontend"
_MASKED_IMPL = "implementation files of MaskedTensor's op dispatch, with no public names, not API"
_LCE_IMPL = (
    "the chunked kernels behind nn.functional.linear_cross_entropy, with no public names, not API"
)
_PY_TRACER = "the Python tracer torch's C++ profiler (Kineto) calls into, not API"
_VIZ = "a package of private modules only (torch.utils.viz._cycles), not API"
_BENCH_FUZZ = (
    "torch.utils.benchmark's fuzzers (random benchmark inputs) and their example scripts are "
    "not implemented; ember.utils.benchmark has Timer, Measurement and Compare"
)
_BENCH_CPP = (
    "C++ statement timing and Valgrind instruction counts need torch's C++ build; ember is pure "
    "Python (ember.utils.benchmark.Timer times Python statements)"
)
_BENCH_COMPILE = (
    "benchmarks of torch.compile backends (TorchDynamo) have no ember counterpart yet; time the "
    "compiled callable with ember.utils.benchmark.Timer"
)

# (torch package, reason, the submodules of it ember lacks: each with its whole subtree)
_MODULE_ENTRIES: list[tuple[str, str, str]] = [
    (
        "torch.distributed",
        _DISTRIBUTED,
        "algorithms argparse_util autograd c10d_logger checkpoint collective_utils config "
        "constants debug device_mesh distributed_c10d elastic flight_recorder fsdp launch "
        "launcher logging_handlers nn optim pipelining remote_device rendezvous rpc run tensor "
        "utils",
    ),
    ("torch.nn.parallel", _MULTI_GPU, "comm parallel_apply replicate scatter_gather"),
    ("torch.cuda", _MULTI_GPU, "comm"),
    ("torch.jit", _JIT, "annotations frontend generate_bytecode mobile supported_ops"),
    ("torch.jit", _JIT, "unsupported_tensor_ops"),
    ("torch.jit", _QUANT, "quantized"),
    ("torch.backends", _XEON_LAUNCHER, "xeon"),
    ("torch.backends", _XNNPACK, "xnnpack"),
    ("torch.backends.cudnn", _CUDNN, "rnn"),
    ("torch.accelerator", _GRAPHS, "graphs"),
    ("torch.xpu", _GRAPHS, "graphs"),
    ("torch.xpu", _NO_XPU, "memory random streams"),
    ("torch.mps", _NO_MPS, "event profiler"),
    ("torch.autograd", _PROFILER_EVENTS, "profiler_legacy profiler_util"),
    ("torch.profiler", _ITT, "itt"),
    ("torch.profiler", _PY_TRACER, "python_tracer"),
    ("torch.multiprocessing", _SHARED_MEMORY, "reductions"),
    ("torch.masked.maskedtensor", _MASKED_IMPL, "binary passthrough reductions unary"),
    ("torch.nn", _THNN, "backends"),
    ("torch.nn", _NN_CPP, "cpp"),
    ("torch.nn.modules", _LCE_IMPL, "linear_cross_entropy"),
    ("torch.utils", _PRIVATEUSE1, "backend_registration"),
    ("torch.utils", _JIT, "bundled_inputs jit mobile_optimizer model_dump"),
    ("torch.utils", _ENV_REPORT, "collect_env"),
    ("torch.utils", _CPP_EXTENSION, "cpp_extension file_baton"),
    ("torch.utils", _DEBUG_INTERNALS, "cpp_backtrace debug_log"),
    ("torch.utils", _FLOP_COUNTER, "flop_counter"),
    ("torch.utils", _HIPIFY, "hipify"),
    ("torch.utils", _MKLDNN, "mkldnn"),
    ("torch.utils", _MODULE_TRACKER, "module_tracker"),
    ("torch.utils", _SERIALIZATION_CONFIG, "serialization"),
    ("torch.utils", _PICKLE_DUMP, "show_pickle"),
    ("torch.utils", _BENCH, "throughput_benchmark"),
    ("torch.utils", _VIZ, "viz"),
    ("torch.utils.benchmark", _BENCH_FUZZ, "examples op_fuzzers"),
    ("torch.utils.benchmark.utils", _BENCH_FUZZ, "fuzzer sparse_fuzzer"),
    ("torch.utils.benchmark.utils", _BENCH_CPP, "cpp_jit valgrind_wrapper"),
    ("torch.utils.benchmark.utils", _BENCH_COMPILE, "compile"),
    ("torch.utils.data", _DATAPIPES, "datapipes graph graph_settings"),
]

# torch module path -> why ember lacks it (and everything under it)
UNSUPPORTED_MODULES: dict[str, str] = {}
for _package, _reason, _names in _MODULE_ENTRIES:
    for _name in _names.split():
        _path = f"{_package}.{_name}"
        assert _path not in UNSUPPORTED_MODULES, f"module {_path} is listed twice"
        UNSUPPORTED_MODULES[_path] = _reason


def module_reason(torch_path: str) -> str | None:
    """Why ember lacks the torch module ``torch_path`` (``"torch.jit.frontend"``), from its own
    entry or the nearest enclosing one; None when nothing lists it."""
    parts = torch_path.split(".")
    for end in range(len(parts), 1, -1):
        path = ".".join(parts[:end])
        if path in UNSUPPORTED_MODULES:
            return UNSUPPORTED_MODULES[path]
        entry = UNSUPPORTED.get(".".join(parts[: end - 1]), {}).get(parts[end - 1])
        if entry is not None and entry[0] in (VALUE, NOT_API):
            return entry[1]
    return None


class UnsupportedModuleFinder:
    """The last finder on ``sys.meta_path``, so Python asks it only about a module that no
    other finder found: for an ``ember.`` path whose torch module ember deliberately lacks it
    raises ``ModuleNotFoundError`` (an ``ImportError``, so ``try: import ... except
    ImportError`` guards keep working) with the reason; any other path it leaves alone."""

    @staticmethod
    def find_spec(fullname: str, path=None, target=None):
        if not fullname.startswith("ember."):
            return None
        torch_path = ember_to_torch(fullname)
        reason = module_reason(torch_path)
        if reason is None:
            return None
        raise ModuleNotFoundError(
            f"No module named {fullname!r}: {torch_path} is not supported by ember: {reason}",
            name=fullname,
        )


def install_module_finder() -> None:
    """Put ``UnsupportedModuleFinder`` last on ``sys.meta_path`` (once)."""
    import sys

    if UnsupportedModuleFinder not in sys.meta_path:
        sys.meta_path.append(UnsupportedModuleFinder)


# ---- stubs ---------------------------------------------------------------------------------------
class Unsupported:
    """A torch function ember does not provide: calling it raises ``NotImplementedError``."""

    __slots__ = ("__name__", "__qualname__", "reason")

    def __init__(self, qualname: str, reason: str):
        self.__qualname__ = qualname
        self.__name__ = qualname.rsplit(".", 1)[-1]
        self.reason = reason

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"{self.__qualname__} is not supported by ember: {self.reason}")

    def __repr__(self) -> str:
        return f"<unsupported {self.__qualname__}: {self.reason}>"


def _stub_class(qualname: str, reason: str, module: str) -> type:
    def __new__(cls, *args, **kwargs):
        raise NotImplementedError(f"{qualname} is not supported by ember: {reason}")

    name = qualname.rsplit(".", 1)[-1]
    doc = f"Not supported by ember: {reason}."
    attrs = {"__new__": __new__, "__doc__": doc, "__module__": module, "reason": reason}
    attrs["__ember_unsupported__"] = reason
    cls = type(name, (), attrs)
    cls.__qualname__ = name
    return cls


def is_stub(obj) -> bool:
    """Whether ``obj`` is one of this module's stand-ins for an unsupported torch name."""
    return isinstance(obj, Unsupported) or (
        isinstance(obj, type) and "__ember_unsupported__" in obj.__dict__
    )


def ember_to_torch(module: str) -> str:
    """``'ember.linalg'`` -> ``'torch.linalg'``: the table key of an ember namespace."""
    return "torch" + module[len("ember") :]


_STUBS: dict[tuple[str, str], object] = {}


def module_getattr(module: str, name: str):
    """The module ``__getattr__`` of ember namespace ``module`` (runs only on a miss): a stub for
    an unsupported callable, ``AttributeError`` with the reason for anything else listed, and the
    usual ``AttributeError`` for names torch does not have either."""
    entry = UNSUPPORTED.get(ember_to_torch(module), {}).get(name)
    if entry is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    kind, reason = entry
    if kind == FUNCTION or kind == CLASS:
        stub = _STUBS.get((module, name))
        if stub is None:
            qualname = f"{module}.{name}"
            if kind == FUNCTION:
                stub = Unsupported(qualname, reason)
            else:
                stub = _stub_class(qualname, reason, module)
            _STUBS[(module, name)] = stub
        return stub
    raise AttributeError(f"module {module!r} has no attribute {name!r}: {reason}")


def _flag(value: bool, doc: str) -> property:
    return property(lambda self: value, doc=doc)


def attach_tensor_stubs(tensor_cls: type) -> None:
    """Attach the unsupported Tensor methods (stubs) and the truthful flags to ``tensor_cls``,
    never over a name the class already has (an implementation wins; the coverage test then
    reports the stale entry). The test is static, so it loads no lazy attribute."""

    def has(name: str) -> bool:
        return any(name in vars(c) for c in tensor_cls.__mro__)

    for name, (kind, reason) in UNSUPPORTED["torch.Tensor"].items():
        if kind == FUNCTION and not has(name):
            setattr(tensor_cls, name, Unsupported(f"Tensor.{name}", reason))
    for name, (value, reason) in TENSOR_FLAGS.items():
        if not has(name):
            setattr(tensor_cls, name, _flag(value, f"{value}: {reason}."))
