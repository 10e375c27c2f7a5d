"""``ember.autograd.variable``: the legacy ``Variable`` (PyTorch's
``torch.autograd.variable``).

Since PyTorch 0.4 a Variable is a Tensor: ``Variable(t, requires_grad=...)`` returns a new
tensor sharing ``t``'s data, and ``isinstance(tensor, Variable)`` holds for every tensor.
``Variable._execution_engine`` is the backward engine's handle (``queue_callback`` runs a
callback when the current backward finishes).
"""

from __future__ import annotations

from ember.autograd import engine as _engine
from ember.tensor import Tensor

__all__ = ["Variable"]


class _ExecutionEngine:
    """The handle ``Variable._execution_engine`` gives to the backward engine."""

    def queue_callback(self, callback) -> None:
        """Run ``callback()`` when the backward in progress finishes."""
        if not _engine.running[0]:
            raise RuntimeError("Final callbacks can only be installed during backward pass.")
        _engine.final_callbacks.append(callback)

    def run_backward(
        self,
        tensors,
        grad_tensors,
        keep_graph,
        create_graph,
        inputs=(),
        allow_unreachable=False,
        accumulate_grad=True,
    ):
        """The engine call behind ``backward`` (``accumulate_grad=True``: into ``.grad``,
        of ``inputs`` only when given) and ``grad`` (False: the gradients of ``inputs``)."""
        inputs = tuple(inputs)
        if accumulate_grad:
            return _engine.backward(
                tensors, grad_tensors, keep_graph, create_graph, inputs=inputs or None
            )
        return _engine.grad(
            tensors,
            inputs,
            grad_tensors,
            retain_graph=keep_graph,
            create_graph=create_graph,
            allow_unused=allow_unreachable,
        )

    def is_checkpoint_valid(self) -> bool:
        """True: ember's checkpointing never invalidates the engine state."""
        return True


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """Legacy constructor: ``Variable(data, requires_grad=False)`` is a new leaf tensor that
    shares ``data``'s memory; every tensor is an instance of ``Variable``.

    Example:
        >>> v = ember.autograd.Variable(ember.ones(2), requires_grad=True)
        >>> v.requires_grad, isinstance(ember.ones(1), ember.autograd.Variable)
        (True, True)
    """

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if volatile:
            import warnings

            warnings.warn(
                "volatile was removed and now has no effect. Use `with ember.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
            if requires_grad:  # NOTE: matches torch: the warning comes first
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if data is None:
            from ember.ops.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(bool(requires_grad))
