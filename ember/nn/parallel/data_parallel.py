"""``DataParallel``: run a module on several accelerators, one slice of the batch each
(PyTorch's ``torch.nn.DataParallel``).

ember has no accelerator backend yet, so only PyTorch's no-accelerator path exists: the
wrapper calls the wrapped module directly. That is what PyTorch itself does on a machine
without GPUs, so code written for it runs unchanged, and checkpoints keep PyTorch's
``module.`` prefix on every key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from ember.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel"]

T = TypeVar("T", bound=Module)


def _accelerator_type() -> str | None:
    """The device type DataParallel would spread over: ``"cuda"`` once ember has a CUDA
    backend registered, else ``None``."""
    from ember.backend import for_device

    try:
        for_device("cuda")
    except (NotImplementedError, AssertionError):
        return None
    return "cuda"


def _no_replication() -> NotImplementedError:
    return NotImplementedError(
        "DataParallel across accelerators is not implemented in ember yet; run the module "
        "directly on one device, or use PyTorch for multi-GPU training."
    )


class DataParallel(Module, Generic[T]):
    """Wraps ``module`` to split each batch along ``dim`` across ``device_ids``.

    Without accelerators (ember's case today) it is a pass-through, as in PyTorch on a machine
    without GPUs: ``forward`` calls ``module`` with the same arguments and ``device_ids`` is
    ``[]``. The wrapped module is the submodule ``module``, so state_dict keys read
    ``"module.<name>"``.

    Args:
        module: the module to run.
        device_ids: accelerator indices (default: all; unused without accelerators).
        output_device: where outputs are gathered (default: ``device_ids[0]``).
        dim: the dimension inputs are split along.

    Example:
        >>> net = ember.nn.DataParallel(ember.nn.Identity())
        >>> net(ember.ones(2)).shape, net.device_ids
        (ember.Size([2]), [])
    """

    def __init__(
        self,
        module: T,
        device_ids: Sequence[int | Any] | None = None,
        output_device: int | Any | None = None,
        dim: int = 0,
    ) -> None:
        super().__init__()
        if _accelerator_type() is not None:
            raise _no_replication()
        # NOTE: matches torch: with no accelerator only ``module`` and ``device_ids`` are set;
        # ``output_device`` and ``dim`` are not kept.
        self.module = module
        self.device_ids = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        raise _no_replication()


def data_parallel(
    module: Module,
    inputs: Any,
    device_ids: Sequence[int | Any] | None = None,
    output_device: int | Any | None = None,
    dim: int = 0,
    module_kwargs: Any | None = None,
) -> Any:
    """Functional ``DataParallel``: ``module(*inputs, **module_kwargs)`` spread over
    ``device_ids``. As in PyTorch, it needs an accelerator: without one it raises
    ``RuntimeError``."""
    if _accelerator_type() is None:
        raise RuntimeError(
            "device type could not be determined: data_parallel needs an accelerator and "
            "none is available. Call the module directly instead."
        )
    raise _no_replication()
