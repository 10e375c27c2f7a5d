"""What every ``ember.cuda`` module shares: torch's CPU-only errors and its device-index rules."""

from __future__ import annotations


def not_compiled() -> AssertionError:
    # NOTE: matches torch: a CPU-only build answers most GPU requests with this AssertionError
    return AssertionError("Torch not compiled with CUDA enabled")


def no_binding(name: str) -> AttributeError:
    # NOTE: matches torch: on a CPU-only build these functions reach for a CUDA binding that was
    # not compiled in and fail with exactly this AttributeError; ember reports the same failure
    return AttributeError(f"module 'torch._C' has no attribute '{name}'")


def no_nvml() -> ModuleNotFoundError:
    # NOTE: matches torch: the NVML queries need the nvidia-ml-py package, absent here
    return ModuleNotFoundError(
        "nvidia-ml-py does not seem to be installed or it can't be imported."
    )


def dummy(name: str) -> RuntimeError:
    # NOTE: matches torch: a CPU-only build binds placeholder classes that refuse to be built
    return RuntimeError(f"Tried to instantiate dummy base class {name}")


def device_index(device, optional: bool = False, allow_cpu: bool = False):
    """torch.cuda's device-index rule: an int, ``'cuda:N'`` or a cuda device gives N; with
    ``optional`` a device without an index (or ``None``) gives the current device, which a
    CPU-only torch cannot name (``None``)."""
    from ember._device import device as _device

    if isinstance(device, str):
        device = _device(device)
    if isinstance(device, _device):
        if allow_cpu:
            if device.type not in ("cuda", "cpu"):
                raise ValueError(f"Expected a cuda or cpu device, but got: {device}")
        elif device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
    from ember.cuda import device as _cuda_device

    if isinstance(device, _cuda_device):
        return device.idx
    idx = None
    if isinstance(device, _device):
        idx = -1 if allow_cpu and device.type == "cpu" else device.index
    elif isinstance(device, int):
        idx = device
    if idx is None:
        if not optional:
            raise ValueError(
                f"Expected a torch.device with a specified index or an integer, but got:{device}"
            )
        # the current CUDA device: none on a CPU-only stack
    return idx
