"""Top-level odds and ends of torch's runtime as a CPU-only torch build answers them: the device
exceptions, ``Event``/``Stream`` (the CPU has no events), the queries ``is_inference``,
``is_distributed``, ``cudnn_is_acceptable``, ``set_anomaly_enabled``, ``init_num_threads``, the
removed ``solve``, and the Tensor attributes ``grad_dtype``, ``name``, ``volatile``,
``module_load``, ``is_distributed``, ``xpu``, ``reinforce``, ``solve``.
"""

from __future__ import annotations

import warnings

from ember import _dtype
from ember._device import device as _device
from ember.tensor import Tensor

__all__ = [
    "AcceleratorError",
    "Event",
    "FatalError",
    "OutOfMemoryError",
    "Stream",
    "cudnn_is_acceptable",
    "init_num_threads",
    "is_distributed",
    "is_inference",
    "set_anomaly_enabled",
    "solve",
]


# ---- exceptions ----------------------------------------------------------------------------------
class AcceleratorError(RuntimeError):
    """Exception raised while executing on device (ember has none, so it never raises it)."""


class OutOfMemoryError(RuntimeError):
    """Exception raised when device is out of memory (torch.cuda.OutOfMemoryError)."""


class FatalError(Exception):
    """An unrecoverable error of torch's C++ runtime (ember never raises it)."""


for _cls in (AcceleratorError, OutOfMemoryError, FatalError):
    _cls.__module__ = "ember"


# ---- events and streams --------------------------------------------------------------------------
_NO_EVENTS = "cpu backend doesn't support events."


def _event_device(device) -> _device:
    d = _device("cpu" if device is None else device)
    if d.type not in ("cpu", "meta"):
        raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")
    return d


class Event:
    """A device event. On the CPU, as on a CPU-only torch, work is synchronous: ``query()`` is
    True, ``synchronize()``/``wait()`` return at once, and ``record()`` raises
    ``RuntimeError`` (the CPU backend has no events), so ``elapsed_time`` cannot be measured.

    Example:
        >>> e = ember.Event()
        >>> e.query(), e.device
        (True, device(type='cpu'))
    """

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        self._device = _event_device(device)
        self._flag = int(bool(enable_timing))
        self.event_id = 0

    @property
    def device(self) -> _device:
        return self._device

    def record(self, stream=None) -> None:
        raise RuntimeError(_NO_EVENTS)

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def wait(self, stream=None) -> None:
        return None

    def elapsed_time(self, end_event: Event) -> float:
        if not (self._flag and end_event._flag):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def ipc_handle(self):
        raise NotImplementedError(
            "torch.Event ipc is not supported yet, please open an issue if you need this!"
        )

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise NotImplementedError(
            "torch.Event ipc is not supported yet, please open an issue if you need this!"
        )

    def __repr__(self) -> str:
        return (
            f"torch.Event device_type={self._device.type}, device_index=-1, "
            f"event_flag={self._flag}, event_id={self.event_id}"
        )


class Stream:
    """A device stream. The CPU has one, synchronous stream: ``query()`` is True,
    ``synchronize()`` returns at once, and recording events raises ``RuntimeError`` as on a
    CPU-only torch. Usable as a context manager (a no-op).

    Example:
        >>> with ember.Stream() as s:
        ...     s.query()
        True
    """

    def __init__(self, device=None, *, priority=0):
        self._device = _event_device(device)
        self.device_index = -1
        self.stream_id = 0
        self.device_type = 0  # NOTE: matches torch: the DeviceType code (0 is the CPU)

    @property
    def device(self) -> _device:
        return self._device

    @property
    def native_handle(self):
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def is_capturing(self) -> bool:
        return False

    def record_event(self, event=None):
        raise RuntimeError(_NO_EVENTS)

    def wait_event(self, event) -> None:
        return None

    def wait_stream(self, stream) -> None:
        raise RuntimeError(_NO_EVENTS)

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other._device == self._device

    def __hash__(self) -> int:
        return hash((self._device.type, self.stream_id))

    def __repr__(self) -> str:
        return (
            f"torch.Stream device_type={self._device.type}, device_index=-1, "
            f"stream_id={self.stream_id}"
        )


for _cls in (Event, Stream):
    _cls.__module__ = "ember"


# ---- queries -------------------------------------------------------------------------------------
def _tensor_arg(fn: str, input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )


def is_inference(input: Tensor) -> bool:
    """Whether ``input`` was made in ``inference_mode`` (``input.is_inference()``).

    Example:
        >>> with ember.inference_mode():
        ...     x = ember.zeros(1)
        >>> ember.is_inference(x), ember.is_inference(ember.zeros(1))
        (True, False)
    """
    _tensor_arg("is_inference", input)
    return input.is_inference()


def is_distributed(input: Tensor) -> bool:
    """False: ember tensors are never distributed.

    Example:
        >>> ember.is_distributed(ember.zeros(1))
        False
    """
    _tensor_arg("is_distributed", input)
    return False


def cudnn_is_acceptable(input: Tensor) -> bool:
    """Whether cuDNN could take ``input``: False, as on a torch build without CUDA.

    Example:
        >>> ember.cudnn_is_acceptable(ember.zeros(1))
        False
    """
    _tensor_arg("cudnn_is_acceptable", input)
    return False


def init_num_threads() -> None:
    """Propagate ``set_num_threads`` to a new thread: a no-op, since ember's thread count (the
    BLAS pool's) is process-wide.

    Example:
        >>> ember.init_num_threads()
    """
    return None


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (``autograd.set_detect_anomaly`` without the restore).

    Example:
        >>> ember.set_anomaly_enabled(False)
        >>> ember.is_anomaly_enabled()
        False
    """
    if not isinstance(enabled, bool):
        raise TypeError(
            "set_anomaly_enabled(): argument 'enabled' (position 1) must be bool, not "
            f"{type(enabled).__name__}"
        )
    from ember.autograd import grad_mode as _gm

    _gm.anomaly.enabled = enabled
    _gm.anomaly.check_nan = bool(check_nan)


_SOLVE_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.solve` is "
    "deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments reversed "
    "and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, "
    "which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, "
    "A).solution should be replaced with:\nX = torch.linalg.solve(A, B)"
)


def solve(input: Tensor, A: Tensor, *, out=None):
    """Removed from torch in 1.9 (torch keeps it as a stub that raises): use
    ``linalg.solve(A, B)``, which takes its arguments in the other order.

    Example:
        >>> ember.linalg.solve(ember.eye(2), ember.ones(2))
        tensor([1., 1.])
    """
    # NOTE: matches torch: the name stays, and calling it raises RuntimeError saying what to use
    raise RuntimeError(_SOLVE_REMOVED)


# ---- Tensor attributes ---------------------------------------------------------------------------
def _module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """How ``load_state_dict`` turns the state-dict value ``other`` into this parameter's new
    value when parameters are swapped: ``other.detach()`` if ``assign``, else
    ``self.copy_(other).detach()``.

    Example:
        >>> ember.zeros(2).module_load(ember.ones(2))
        tensor([1., 1.])
    """
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _is_distributed(self: Tensor) -> bool:
    """False: ember tensors are never distributed."""
    return False


_UNSET = object()


def _cast_to_grad_dtype(t: Tensor):
    def hook(g):
        want = t.__dict__.get("_grad_dtype", _UNSET)
        if want is not _UNSET and want is not None and g.dtype is not want:
            return g.to(want)
        return None

    return hook


def _grad_dtype_get(self: Tensor):
    if self._grad_fn is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return self.__dict__.get("_grad_dtype", self.dtype)


def _grad_dtype_set(self: Tensor, value) -> None:
    if self._grad_fn is not None:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if value is not None and not isinstance(value, _dtype.dtype):
        raise RuntimeError(
            f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}"
        )
    first = "_grad_dtype" not in self.__dict__
    self.__dict__["_grad_dtype"] = value
    if first and self._requires_grad:
        # the gradient reaching this leaf is cast to grad_dtype before it is accumulated (a
        # leaf hook; it runs after the hooks registered before it)
        self.register_hook(_cast_to_grad_dtype(self))


_grad_dtype = property(
    _grad_dtype_get,
    _grad_dtype_set,
    doc="The dtype ``.grad`` must have (default: the tensor's dtype; None allows any). Set on "
    "a leaf that requires grad, the gradient backward computes is cast to it.",
)


def _name_get(self: Tensor):
    return None  # named tensors (torch's prototype) are not supported: names are always None


def _volatile_get(self: Tensor) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, 2)
    return False


def _volatile_set(self: Tensor, value) -> None:
    warnings.warn(
        "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
        UserWarning,
        2,
    )


_volatile = property(
    _volatile_get, _volatile_set, doc="Always False (removed from torch; use no_grad)."
)


def _xpu(self: Tensor, device=None, non_blocking=False, memory_format=None) -> Tensor:
    """Copy to an Intel GPU: ember has none, so this raises as a torch build without XPU."""
    if isinstance(device, int):
        # NOTE: matches torch: an index asks the accelerator API, which has no device
        raise RuntimeError("Cannot access accelerator device when none is available.")
    raise AssertionError("Torch not compiled with XPU enabled")


_REINFORCE_REMOVED = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def _reinforce(self: Tensor, reward) -> None:
    """Removed from torch (a stub that raises): use ``ember.distributions``."""
    raise RuntimeError(_REINFORCE_REMOVED)


def _tensor_solve(self: Tensor, other: Tensor):
    """Removed from torch in 1.9 (a stub that raises): use ``linalg.solve(A, B)``."""
    raise RuntimeError(_SOLVE_REMOVED)


def _name_set(self: Tensor, value) -> None:
    raise AttributeError("attribute 'name' of 'torch._C.TensorBase' objects is not writable")


_name = property(_name_get, _name_set, doc="None: ember has no named tensors.")

Tensor.module_load = _module_load
Tensor.is_distributed = _is_distributed
Tensor.grad_dtype = _grad_dtype
Tensor.name = _name
Tensor.volatile = _volatile
Tensor.xpu = _xpu
Tensor.reinforce = _reinforce
Tensor.solve = _tensor_solve
