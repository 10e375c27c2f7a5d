"""``ember.cuda.green_contexts``: CUDA green contexts (a partition of a GPU's SMs), which need
CUDA. The class exists; creating a context raises what a CPU-only torch raises."""

from __future__ import annotations

__all__ = ["GreenContext"]


def _unsupported() -> RuntimeError:
    return RuntimeError("PyTorch was not built with Green Context support!")


def _no_base(name: str) -> AttributeError:
    # NOTE: matches torch: a CPU-only build's placeholder base class lacks the method
    return AttributeError(f"'super' object has no attribute '{name}'")


class GreenContext:
    """A CUDA green context: ``GreenContext.create(...)`` raises without CUDA."""

    @staticmethod
    def create(
        *,
        num_sms: int | None = None,
        workqueue_scope: str | None = None,
        workqueue_concurrency_limit: int | None = None,
        device_id: int | None = None,
    ):
        """Create a green context: raises, as a CPU-only torch."""
        raise _unsupported()

    @staticmethod
    def max_workqueue_concurrency(device_id: int | None = None) -> int:
        """The device's workqueue concurrency limit: raises, as a CPU-only torch."""
        raise _unsupported()

    def set_context(self):
        """Make this context current: raises, as a CPU-only torch."""
        raise _no_base("set_context")

    def pop_context(self):
        """Restore the previous context: raises, as a CPU-only torch."""
        raise _no_base("pop_context")

    def Stream(self):
        """A stream of this context: raises, as a CPU-only torch."""
        raise _no_base("Stream")
