"""``ember.cuda.tunable``: TunableOp (GEMM kernel auto-tuning on a GPU), which needs CUDA.

Every switch and query raises what a CPU-only torch raises.
"""

from __future__ import annotations

from ember.cuda._utils import no_binding

__all__ = [
    "enable",
    "is_enabled",
    "tuning_enable",
    "tuning_is_enabled",
    "record_untuned_enable",
    "record_untuned_is_enabled",
    "set_max_tuning_duration",
    "get_max_tuning_duration",
    "set_max_tuning_iterations",
    "get_max_tuning_iterations",
    "set_filename",
    "get_filename",
    "get_results",
    "get_validators",
    "read_file",
    "tune_gemm_in_file",
    "mgpu_tune_gemm_in_file",
    "set_rotating_buffer_size",
    "get_rotating_buffer_size",
    "set_numerical_check_tolerances",
]


def enable(val: bool = True) -> None:
    """Switch TunableOp on or off: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_enable")


def is_enabled() -> bool:
    """Whether TunableOp is on: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_is_enabled")


def tuning_enable(val: bool = True) -> None:
    """Switch tuning on or off: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_tuning_enable")


def tuning_is_enabled() -> bool:
    """Whether tuning is on: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_tuning_is_enabled")


def record_untuned_enable(val: bool = True) -> None:
    """Switch recording of untuned GEMMs: raises, as a CPU-only torch."""
    raise no_binding("_cuda_record_untuned_enable")


def record_untuned_is_enabled() -> bool:
    """Whether untuned GEMMs are recorded: raises, as a CPU-only torch."""
    raise no_binding("_cuda_record_untuned_is_enabled")


def set_max_tuning_duration(duration: int) -> None:
    """Cap the tuning time per GEMM: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_set_max_tuning_duration")


def get_max_tuning_duration() -> int:
    """The tuning time cap: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_get_max_tuning_duration")


def set_max_tuning_iterations(iterations: int) -> None:
    """Cap the tuning iterations per GEMM: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_set_max_tuning_iterations")


def get_max_tuning_iterations() -> int:
    """The tuning iteration cap: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_get_max_tuning_iterations")


def set_filename(filename: str, insert_device_ordinal: bool = False) -> None:
    """Set the results file: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_set_filename")


def get_filename() -> str:
    """The results file: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_get_filename")


def get_results() -> tuple:
    """The tuning results: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_get_results")


def get_validators() -> tuple:
    """The tuning validators: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_get_validators")


def read_file(filename: str | None = None) -> bool:
    """Load tuning results: raises, as a CPU-only torch."""
    raise no_binding(
        "_cuda_tunableop_get_filename" if filename is None else "_cuda_tunableop_read_file"
    )


def tune_gemm_in_file(filename: str) -> None:
    """Tune the GEMMs listed in a file: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_is_enabled")


def mgpu_tune_gemm_in_file(filename_pattern: str, num_gpus: int) -> None:
    """Tune GEMMs on several GPUs: raises, as a CPU-only torch (there are no GPUs)."""
    # NOTE: matches torch: the GPU count is checked first, against 0 devices
    raise AssertionError(f"num_gpus must be between 1 and 0, got {num_gpus}")


def set_rotating_buffer_size(buffer_size: int) -> None:
    """Set the rotating buffer size: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_set_rotating_buffer_size")


def get_rotating_buffer_size() -> int:
    """The rotating buffer size: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_get_rotating_buffer_size")


def set_numerical_check_tolerances(enable: bool, atol: float = 1e-5, rtol: float = 1e-5) -> None:
    """Set the numerical check tolerances: raises, as a CPU-only torch."""
    raise no_binding("_cuda_tunableop_set_numerical_check_tolerances")
