"""ember.cuda answers every torch.cuda call as the CPU-only torch installed here does: the same
value, or the same exception type and message (issue 12)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import pytest

import ember

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch (pip install torch)")


def _outcome(thunk):
    """('value', repr) or ('raise', type name, message) of calling ``thunk``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = thunk()
        except BaseException as exc:  # noqa: BLE001 - the exception is the answer compared
            return ("raise", type(exc).__name__, str(exc))
    if isinstance(value, (bool, int, float, str, list, tuple, dict)) or value is None:
        return ("value", type(value).__name__, repr(value).replace("ember.", "torch."))
    return ("value", type(value).__name__)


def _enter(cm_factory):
    def run():
        with cm_factory():
            return "entered"

    return run


JIT_CODE = "template <typename T> T f(T x) {return x;}"

# (id, call on a namespace ``c`` that is torch.cuda or ember.cuda, and the tensor module ``t``)
CALLS = {
    "is_available": lambda c, t: c.is_available(),
    "device_count": lambda c, t: c.device_count(),
    "is_initialized": lambda c, t: c.is_initialized(),
    "init": lambda c, t: c.init(),
    "is_bf16_supported": lambda c, t: c.is_bf16_supported(),
    "is_bf16_supported_no_emulation": lambda c, t: c.is_bf16_supported(False),
    "is_tf32_supported": lambda c, t: c.is_tf32_supported(),
    "get_arch_list": lambda c, t: c.get_arch_list(),
    "get_gencode_flags": lambda c, t: c.get_gencode_flags(),
    "current_device": lambda c, t: c.current_device(),
    "set_device_-1": lambda c, t: c.set_device(-1),
    "set_device_0": lambda c, t: c.set_device(0),
    "set_device_cuda1": lambda c, t: c.set_device(t.device("cuda:1")),
    "set_device_cuda": lambda c, t: c.set_device("cuda"),
    "set_device_cpu": lambda c, t: c.set_device("cpu"),
    "set_device_None": lambda c, t: c.set_device(None),
    "device_ctx_-1": lambda c, t: _enter(lambda: c.device(-1))(),
    "device_ctx_0": lambda c, t: _enter(lambda: c.device(0))(),
    "device_ctx_cuda0": lambda c, t: _enter(lambda: c.device("cuda:0"))(),
    "device_ctx_None": lambda c, t: _enter(lambda: c.device(None))(),
    "device_of_cpu": lambda c, t: _enter(lambda: c.device_of(t.zeros(1)))(),
    "get_device_name": lambda c, t: c.get_device_name(),
    "get_device_name_cpu": lambda c, t: c.get_device_name("cpu"),
    "get_device_capability": lambda c, t: c.get_device_capability(0),
    "get_device_properties": lambda c, t: c.get_device_properties(0),
    "can_device_access_peer": lambda c, t: c.can_device_access_peer(0, 1),
    "synchronize": lambda c, t: c.synchronize(),
    "ipc_collect": lambda c, t: c.ipc_collect(),
    "cudart": lambda c, t: c.cudart(),
    "current_blas_handle": lambda c, t: c.current_blas_handle(),
    "current_solver_handle": lambda c, t: c.current_solver_handle(),
    "set_sync_debug_mode": lambda c, t: c.set_sync_debug_mode(0),
    "get_sync_debug_mode": lambda c, t: c.get_sync_debug_mode(),
    "check_error": lambda c, t: c.check_error(0),
    "CudaError": lambda c, t: c.CudaError(2),
    "DeferredCudaCallError": lambda c, t: str(c.DeferredCudaCallError("x")),
    "OutOfMemoryError_is_runtime": lambda c, t: issubclass(c.OutOfMemoryError, RuntimeError),
    "OutOfMemoryError_is_top": lambda c, t: c.OutOfMemoryError is t.OutOfMemoryError,
    "AcceleratorError_is_top": lambda c, t: c.AcceleratorError is t.AcceleratorError,
    "cudaStatus": lambda c, t: (c.cudaStatus.SUCCESS, c.cudaStatus.ERROR_NOT_READY),
    "default_generators": lambda c, t: c.default_generators,
    "has_half": lambda c, t: (c.has_half, c.has_magma),
    # legacy typed classes
    "FloatTensor_2": lambda c, t: c.FloatTensor(2),
    "DoubleTensor_data": lambda c, t: c.DoubleTensor([1.0]),
    "LongTensor_empty": lambda c, t: c.LongTensor(),
    "FloatTensor_isinstance": lambda c, t: isinstance(t.zeros(2), c.FloatTensor),
    "FloatTensor_attrs": lambda c, t: (str(c.HalfTensor.dtype), c.FloatTensor.is_cuda),
    "BFloat16Tensor_dtype": lambda c, t: str(c.BFloat16Tensor.dtype),
    "FloatStorage_2": lambda c, t: c.FloatStorage(2),
    "ComplexFloatStorage": lambda c, t: c.ComplexFloatStorage(),
    "FloatStorage_isinstance": lambda c, t: isinstance(
        t.zeros(2).untyped_storage(), c.FloatStorage
    ),
    "FloatStorage_dtype": lambda c, t: str(c.DoubleStorage.dtype),
    "sparse_FloatTensor": lambda c, t: c.sparse.FloatTensor(2),
    "sparse_attrs": lambda c, t: (c.sparse.LongTensor.is_sparse, str(c.sparse.IntTensor.dtype)),
    "sparse_isinstance": lambda c, t: isinstance(t.zeros(2).to_sparse(), c.sparse.FloatTensor),
    # memory
    "memory_allocated": lambda c, t: c.memory_allocated(),
    "memory_allocated_cpu": lambda c, t: c.memory_allocated("cpu"),
    "max_memory_allocated": lambda c, t: c.max_memory_allocated(0),
    "memory_reserved": lambda c, t: c.memory_reserved(),
    "max_memory_reserved": lambda c, t: c.max_memory_reserved(),
    "memory_cached": lambda c, t: (c.memory_cached(), c.max_memory_cached()),
    "memory_stats": lambda c, t: c.memory_stats(),
    "memory_stats_as_nested_dict": lambda c, t: c.memory_stats_as_nested_dict(),
    "host_memory_stats": lambda c, t: (c.host_memory_stats(), c.host_memory_stats_as_nested_dict()),
    "memory_summary": lambda c, t: c.memory_summary(),
    "memory_summary_abbrev": lambda c, t: c.memory_summary(0, abbreviated=True),
    "memory_snapshot": lambda c, t: c.memory_snapshot(),
    "empty_cache": lambda c, t: c.empty_cache(),
    "reset_peak_memory_stats": lambda c, t: c.reset_peak_memory_stats(),
    "reset_peak_memory_stats_cpu": lambda c, t: c.reset_peak_memory_stats("cpu"),
    "reset_max_memory_allocated": lambda c, t: c.reset_max_memory_allocated(),
    "reset_max_memory_cached": lambda c, t: c.reset_max_memory_cached(),
    "reset_accumulated_memory_stats": lambda c, t: c.reset_accumulated_memory_stats(),
    "reset_peak_host_memory_stats": lambda c, t: c.reset_peak_host_memory_stats(),
    "reset_accumulated_host": lambda c, t: c.reset_accumulated_host_memory_stats(),
    "mem_get_info": lambda c, t: c.mem_get_info(),
    "mem_get_info_0": lambda c, t: c.mem_get_info(0),
    "mem_get_info_cpu": lambda c, t: c.mem_get_info("cpu"),
    "get_per_process_memory_fraction": lambda c, t: c.get_per_process_memory_fraction(),
    "set_per_process_memory_fraction": lambda c, t: c.set_per_process_memory_fraction(0.5),
    "get_allocator_backend": lambda c, t: c.get_allocator_backend(),
    "caching_allocator_alloc": lambda c, t: c.caching_allocator_alloc(8),
    "caching_allocator_delete": lambda c, t: c.caching_allocator_delete(0),
    "caching_allocator_enable": lambda c, t: c.caching_allocator_enable(False),
    "caching_allocator_disabled": lambda c, t: _enter(c.caching_allocator_disabled)(),
    "change_current_allocator": lambda c, t: c.change_current_allocator(None),
    "CUDAPluggableAllocator_missing_so": lambda c, t: c.CUDAPluggableAllocator("nope.so", "a", "f"),
    "MemPool": lambda c, t: c.MemPool(),
    "use_mem_pool": lambda c, t: _enter(lambda: c.use_mem_pool(None))(),
    "list_gpu_processes": lambda c, t: c.list_gpu_processes(),
    "memory_usage": lambda c, t: c.memory_usage(),
    "utilization": lambda c, t: c.utilization(),
    "temperature": lambda c, t: c.temperature(),
    "power_draw": lambda c, t: c.power_draw(),
    "clock_rate": lambda c, t: c.clock_rate(),
    "device_memory_used": lambda c, t: c.device_memory_used(),
    # random
    "manual_seed": lambda c, t: c.manual_seed(3),
    "manual_seed_bad": lambda c, t: c.manual_seed("a"),
    "manual_seed_all": lambda c, t: c.manual_seed_all(2**70),
    "seed": lambda c, t: (c.seed(), c.seed_all()),
    "initial_seed": lambda c, t: c.initial_seed(),
    "get_rng_state": lambda c, t: c.get_rng_state(),
    "get_rng_state_all": lambda c, t: c.get_rng_state_all(),
    "set_rng_state": lambda c, t: c.set_rng_state(t.zeros(4, dtype=t.uint8)),
    "set_rng_state_bad": lambda c, t: c.set_rng_state(1),
    "set_rng_state_all": lambda c, t: c.set_rng_state_all([t.zeros(4, dtype=t.uint8)]),
    "set_rng_state_all_bad": lambda c, t: c.set_rng_state_all([1]),
    "random_module": lambda c, t: c.random.get_rng_state_all(),
    # streams, events, graphs
    "Stream": lambda c, t: c.Stream(),
    "Stream_0": lambda c, t: c.Stream(device=0, priority=-1),
    "ExternalStream": lambda c, t: c.ExternalStream(0),
    "ExternalStream_-1": lambda c, t: c.ExternalStream(0, device=-1),
    "ExternalStream_0": lambda c, t: c.ExternalStream(0, device=0),
    "Event": lambda c, t: c.Event(enable_timing=True),
    "stream_None": lambda c, t: _enter(lambda: c.stream(None))(),
    "stream_obj": lambda c, t: _enter(lambda: c.stream(object()))(),
    "StreamContext": lambda c, t: _enter(lambda: c.StreamContext(None))(),
    "set_stream_None": lambda c, t: c.set_stream(None),
    "set_stream_bad": lambda c, t: c.set_stream(1),
    "current_stream": lambda c, t: c.current_stream(),
    "default_stream": lambda c, t: c.default_stream(),
    "get_stream_from_external": lambda c, t: c.get_stream_from_external(0),
    "streams_module": lambda c, t: c.streams.Stream(),
    "CUDAGraph": lambda c, t: c.CUDAGraph(),
    "graph": lambda c, t: c.graph(None),
    "graph_pool_handle": lambda c, t: c.graph_pool_handle(),
    "is_current_stream_capturing": lambda c, t: c.is_current_stream_capturing(),
    "make_graphed_callables": lambda c, t: c.make_graphed_callables(lambda x: x, (t.zeros(2),)),
    "GreenContext_create": lambda c, t: c.GreenContext.create(num_sms=1),
    "GreenContext_max": lambda c, t: c.GreenContext.max_workqueue_concurrency(),
    "GreenContext_set": lambda c, t: c.GreenContext().set_context(),
    "GreenContext_stream": lambda c, t: c.GreenContext().Stream(),
    # submodules
    "nvtx_range_push": lambda c, t: c.nvtx.range_push("a"),
    "nvtx_range_pop": lambda c, t: c.nvtx.range_pop(),
    "nvtx_mark": lambda c, t: c.nvtx.mark("a"),
    "nvtx_range_start": lambda c, t: c.nvtx.range_start("a"),
    "nvtx_range_end": lambda c, t: c.nvtx.range_end(1),
    "nvtx_range": lambda c, t: _enter(lambda: c.nvtx.range("a{}", 1))(),
    "profiler_start": lambda c, t: c.profiler.start(),
    "profiler_stop": lambda c, t: c.profiler.stop(),
    "profiler_profile": lambda c, t: _enter(c.profiler.profile)(),
    "nccl_is_available": lambda c, t: c.nccl.is_available([t.zeros(2)]),
    "nccl_version": lambda c, t: c.nccl.version(),
    "nccl_unique_id": lambda c, t: c.nccl.unique_id(),
    "nccl_init_rank": lambda c, t: c.nccl.init_rank(1, b"", 0),
    "nccl_all_reduce": lambda c, t: c.nccl.all_reduce([t.zeros(2)]),
    "nccl_reduce": lambda c, t: c.nccl.reduce([t.zeros(2)]),
    "nccl_broadcast": lambda c, t: c.nccl.broadcast([t.zeros(2)]),
    "nccl_all_gather": lambda c, t: c.nccl.all_gather([t.zeros(2)], [t.zeros(2)]),
    "nccl_reduce_scatter": lambda c, t: c.nccl.reduce_scatter([t.zeros(2)], [t.zeros(2)]),
    "gds_register": lambda c, t: c.gds.gds_register_buffer(t.zeros(2).untyped_storage()),
    "gds_deregister": lambda c, t: c.gds.gds_deregister_buffer(t.zeros(2).untyped_storage()),
    "jiterator": lambda c, t: c.jiterator._create_jit_fn(
        "template <typename T> T f(T x) {return x;}"
    )(t.zeros(2)),
    "amp_definitely_not_available": lambda c, t: c.amp.amp_definitely_not_available(),
    "tunable_mgpu": lambda c, t: c.tunable.mgpu_tune_gemm_in_file("x", 1),
    "tunable_read_file": lambda c, t: c.tunable.read_file(),
    "tunable_read_file_named": lambda c, t: c.tunable.read_file("x"),
    "tunable_tune_gemm_in_file": lambda c, t: c.tunable.tune_gemm_in_file("x"),
}

# the tunable switches and queries, each with the arguments it needs
TUNABLE_ARGS = {
    "set_max_tuning_duration": (1,),
    "set_max_tuning_iterations": (1,),
    "set_filename": ("x",),
    "set_rotating_buffer_size": (1,),
    "set_numerical_check_tolerances": (True,),
}
for _name in [
    "enable",
    "is_enabled",
    "tuning_enable",
    "tuning_is_enabled",
    "record_untuned_enable",
    "record_untuned_is_enabled",
    "get_max_tuning_duration",
    "get_max_tuning_iterations",
    "get_filename",
    "get_results",
    "get_validators",
    "get_rotating_buffer_size",
    *TUNABLE_ARGS,
]:
    CALLS[f"tunable_{_name}"] = lambda c, t, n=_name: getattr(c.tunable, n)(
        *TUNABLE_ARGS.get(n, ())
    )


@needs_torch
@pytest.mark.parametrize("name", sorted(CALLS))
def test_call_matches_cpu_only_torch(name):
    call = CALLS[name]
    want = _outcome(lambda: call(torch.cuda, torch))
    got = _outcome(lambda: call(ember.cuda, ember))
    assert got == want


def test_legacy_classes_on_their_own():
    assert not isinstance(ember.zeros(2), ember.cuda.FloatTensor)
    assert ember.cuda.FloatTensor.dtype is ember.float32 and ember.cuda.FloatTensor.is_cuda
    with pytest.raises(TypeError, match="torch.cuda.FloatTensor not available"):
        ember.cuda.FloatTensor(2)
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        ember.cuda.FloatStorage(2)
    # the CPU classes are untouched
    assert isinstance(ember.zeros(2), ember.FloatTensor)
    assert isinstance(ember.zeros(2).storage(), ember.FloatStorage)


def test_nccl_is_available_warns():
    with pytest.warns(UserWarning, match="not compiled with NCCL"):
        assert ember.cuda.nccl.is_available([ember.zeros(2)]) is False


@needs_torch
def test_gds_file_matches(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"\0" * 4096)
    outcomes = []
    for mod in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # torch's half-built GdsFile complains from __del__; keep that out of the comparison
            outcomes.append(_outcome(lambda m=mod: m.cuda.gds.GdsFile(str(path), os.O_RDONLY)))
    assert outcomes[1] == outcomes[0]


@needs_torch
@pytest.mark.parametrize(
    "module",
    [
        "",
        "memory",
        "random",
        "streams",
        "graphs",
        "nvtx",
        "profiler",
        "nccl",
        "sparse",
        "gds",
        "green_contexts",
        "tunable",
        "amp",
    ],
)
def test_public_names_match(module):
    ours = ember.cuda if not module else getattr(ember.cuda, module)
    theirs = torch.cuda if not module else getattr(torch.cuda, module)
    mine = set(ours.__all__)
    want = set(getattr(theirs, "__all__", ()))
    # NOTE: torch.cuda.__all__ leaves out exceptions and submodules that dir() shows
    assert want - {"annotations", "ctypes", "torch"} <= mine
    assert mine <= {n for n in dir(theirs) if not n.startswith("_")}


# ---- torch.backends ------------------------------------------------------------------------------
def _restoring(b):
    """Run calls on backends ``b`` that set flags, restoring them (torch's are process-global)."""
    return b


BACKEND_CALLS = {
    "fp32_precision": lambda b: b.fp32_precision,
    "flags_frozen": lambda b: b.flags_frozen(),
    "set_flags": lambda b: b.set_flags(None),
    "generic_inherited": lambda b: _with_generic(
        b, lambda: (b.cudnn.fp32_precision, b.cudnn.conv.fp32_precision, b.mkldnn.fp32_precision)
    ),
    "generic_bad": lambda b: setattr(b, "fp32_precision", "x"),
    "generic_flags": lambda b: _enter(lambda: b.flags(fp32_precision="ieee"))(),
    "cusparselt": lambda b: (
        b.cusparselt.is_available(),
        b.cusparselt.version(),
        b.cusparselt.get_max_alg_id(),
    ),
    "kleidiai": lambda b: b.kleidiai.is_available(),
    "miopen": lambda b: (b.miopen.immediate, b.miopen.set_flags(None)),
    "miopen_flags": lambda b: _enter(b.miopen.flags)(),
    "nnpack_set_flags": lambda b: (b.nnpack.set_flags(False), b.nnpack.set_flags(True)),
    "nnpack_set_flags_bad": lambda b: b.nnpack.set_flags(),
    "nnpack_flags": lambda b: _enter(b.nnpack.flags)(),
    "quantized_bad": lambda b: setattr(b.quantized, "engine", "nope"),
    "python_native": lambda b: (
        b.python_native.available_dsls,
        b.python_native.all_dsls,
        b.python_native.get_dsl_operations("triton"),
        b.python_native.is_dsl_disabled("triton"),
        repr(b.python_native.triton),
    ),
    "python_native_ops": lambda b: _python_native_ops(b.python_native),
    "cudnn_conv": lambda b: (b.cudnn.conv.fp32_precision, b.cudnn.rnn.fp32_precision),
    "cudnn_conv_bad": lambda b: setattr(b.cudnn.conv, "fp32_precision", "bad"),
    "cudnn_conv_unknown": lambda b: b.cudnn.conv.x,
    "cudnn_depthwise": lambda b: b.cudnn.depthwise_kernel,
    "cudnn_depthwise_bad": lambda b: setattr(b.cudnn, "depthwise_kernel", "x"),
    "cudnn_fp32_bad": lambda b: setattr(b.cudnn, "fp32_precision", "x"),
    "cudnn_set_flags": lambda b: b.cudnn.set_flags(),
    "cudnn_dtypes": lambda b: sorted(str(d).split(".")[1] for d in b.cudnn.CUDNN_TENSOR_DTYPES),
    "mkldnn_allow_tf32": lambda b: b.mkldnn.allow_tf32,
    "mkldnn_allow_tf32_bad": lambda b: setattr(b.mkldnn, "allow_tf32", None),
    "mkldnn_ops": lambda b: tuple(getattr(b.mkldnn, o).fp32_precision for o in ("conv", "rnn")),
    "mkldnn_misc": lambda b: (
        b.mkldnn.fp32_precision,
        b.mkldnn.is_acl_available(),
        b.mkldnn.VERBOSE_OFF,
        b.mkldnn.VERBOSE_ON,
        b.mkldnn.VERBOSE_ON_CREATION,
    ),
    "mkldnn_set_flags": lambda b: b.mkldnn.set_flags(),
    "mkldnn_verbose_off": lambda b: _enter(lambda: b.mkldnn.verbose(0))(),
    "mkl_verbose": lambda b: (
        b.mkl.VERBOSE_OFF,
        b.mkl.VERBOSE_ON,
        _enter(lambda: b.mkl.verbose(0))(),
    ),
    "mps_core_count": lambda b: b.mps.get_core_count(),
    "mps_name": lambda b: b.mps.get_name(),
    "mps_macos": lambda b: b.mps.is_macos_or_newer(14, 0),
    "mps_macos13": lambda b: b.mps.is_macos13_or_newer(),
    "opt_einsum_flags": lambda b: (b.opt_einsum.set_flags(), _enter(b.opt_einsum.flags)()),
    "cuda_is_built": lambda b: b.cuda.is_built(),
    "cuda_workspaces": lambda b: b.cuda.cublas_workspace_size(),
    "cuda_lt_workspace": lambda b: b.cuda.cublaslt_workspace_size(),
    "cuda_blas_workspace": lambda b: b.cuda.blas_workspace_size(),
    "cuda_blas_library": lambda b: repr(b.cuda.preferred_blas_library()),
    "cuda_blas_library_lt": lambda b: b.cuda.preferred_blas_library("cublaslt"),
    "cuda_rocm_fa": lambda b: repr(b.cuda.preferred_rocm_fa_library()),
    "cuda_cufft_size": lambda b: b.cuda.cufft_plan_cache.size,
    "cuda_cufft_max_size": lambda b: b.cuda.cufft_plan_cache.max_size,
    "cuda_cufft_index": lambda b: b.cuda.cufft_plan_cache[0],
    "cuda_attention": lambda b: (
        b.cuda.is_flash_attention_available(),
        b.cuda.is_ck_sdpa_available(),
        b.cuda.fp16_bf16_reduction_math_sdp_allowed(),
    ),
    "cuda_sdp_backend": lambda b: {k: int(v) for k, v in b.cuda.SDPBackend.__members__.items()},
    "cuda_can_use": lambda b: _can_use(b),
    "cuda_matmul": lambda b: (
        b.cuda.matmul.allow_fp16_accumulation,
        _legacy_matmul(b, "high"),
        _legacy_matmul(b, "medium"),
    ),
}


def _with_generic(b, read):
    b.fp32_precision = "ieee"
    try:
        return read()
    finally:
        b.fp32_precision = "none"


def _legacy_matmul(b, level):
    mod = ember if b is ember.backends else torch
    mod.set_float32_matmul_precision(level)
    try:
        return b.cuda.matmul.fp32_precision, b.mkldnn.matmul.fp32_precision
    finally:
        mod.set_float32_matmul_precision("highest")


def _python_native_ops(pn):
    pn.disable_operations("aten::x")
    try:
        with pn.operations_disabled("aten::y"):
            inside = pn.is_operation_disabled("aten::y")
        return inside, pn.is_operation_disabled("aten::x"), pn.is_operation_disabled("aten::y")
    finally:
        pn.enable_operations("aten::x")


def _can_use(b):
    q = ember.zeros(1, 1, 2, 4) if b is ember.backends else torch.zeros(1, 1, 2, 4)
    params = b.cuda.SDPAParams(q, q, q, None, 0.0, False, False)
    return tuple(
        getattr(b.cuda, f"can_use_{k}_attention")(params) for k in ("flash", "efficient", "cudnn")
    )


def _torch_backend_outcomes() -> dict:
    """Every BACKEND_CALLS outcome (and the precision story) of torch, computed in a fresh
    process: setting torch's fp32_precision flags marks the process as using the new precision
    API, after which torch refuses the legacy ``allow_tf32`` reads other tests make."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import test_cuda_surface as m; "
        "import torch; out = {n: m._outcome(lambda c=c: c(torch.backends)) "
        "for n, c in m.BACKEND_CALLS.items()}; "
        "out['story'] = m._precision_story(torch.backends); print(json.dumps(out))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, os.path.dirname(__file__)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def torch_backends():
    return _torch_backend_outcomes()


def _json(value):
    return json.loads(json.dumps(value))


@needs_torch
@pytest.mark.parametrize("name", sorted(BACKEND_CALLS))
def test_backends_match_cpu_only_torch(name, torch_backends):
    got = _outcome(lambda: BACKEND_CALLS[name](ember.backends))
    assert _json(got) == torch_backends[name]


def test_backends_flags_keep_their_values():
    b = ember.backends
    assert b.cudnn.set_flags(_depthwise_kernel="native")[-1] == "auto"
    assert b.cudnn.depthwise_kernel == "native"
    b.cudnn.set_flags(_depthwise_kernel="auto")
    with b.cudnn.flags(enabled=True, fp32_precision="ieee"):
        assert b.cudnn.fp32_precision == "ieee"
    assert b.cudnn.fp32_precision == "none"
    assert b.quantized.engine == "none" and b.quantized.supported_engines == ["none"]
    assert b.nnpack.is_available() is False  # ember's convolutions do not use NNPACK
    b.cuda.matmul.fp32_precision = "tf32"
    try:
        assert b.cuda.matmul.fp32_precision == "tf32"
    finally:
        b.cuda.matmul.fp32_precision = "none"


@needs_torch
def test_backends_names_match():
    import inspect

    skip = {"m"}  # torch.backends.m: the module object its flag wrapper wraps, not API
    for name in sorted(n for n in dir(torch.backends) if not n.startswith("_")):
        if name in skip:
            continue
        assert hasattr(ember.backends, name), name
        theirs, ours = getattr(torch.backends, name), getattr(ember.backends, name)
        real = getattr(theirs, "m", theirs)
        wanted = {n for n in dir(real) if not n.startswith("_")} | {
            n for n in vars(type(theirs)) if not n.startswith("_")
        }
        wanted = {n for n in wanted if not inspect.ismodule(getattr(real, n, None))}
        wanted -= {"ContextProp", "PropModule", "contextmanager", "Any", "Optional"}
        wanted -= {"TYPE_CHECKING", "deprecated", "DSLController", "flags_frozen"}
        wanted -= {n for n in wanted if n.endswith("Module") or n == "QuantizedEngine"}
        missing = sorted(n for n in wanted if not hasattr(ours, n))
        assert not missing, f"ember.backends.{name} lacks {missing}"


def _precision_story(b):
    def show():
        return (
            b.fp32_precision,
            b.cudnn.fp32_precision,
            b.cudnn.conv.fp32_precision,
            b.cudnn.rnn.fp32_precision,
            b.mkldnn.fp32_precision,
            b.mkldnn.conv.fp32_precision,
            # (the matmul nodes also show torch.set_float32_matmul_precision: see cuda_matmul)
        )

    seen = [show()]
    steps = [
        (b, "ieee"),
        (b, "none"),
        (b.cudnn, "ieee"),
        (b.cudnn.conv, "tf32"),
        (b.cudnn, "none"),
        (b, "ieee"),
        (b, "none"),
        (b.mkldnn, "ieee"),
        (b.mkldnn, "none"),
        (b.cudnn.conv, "none"),
    ]
    for target, value in steps:
        target.fp32_precision = value
        seen.append(show())
    seen.append(_outcome(lambda: setattr(b.cudnn.conv, "fp32_precision", "bf16")))
    return seen


@needs_torch
def test_fp32_precision_tree_matches_torch(torch_backends):
    assert _json(_precision_story(ember.backends)) == torch_backends["story"]
