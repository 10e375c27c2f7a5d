"""``ember.autograd.graph``: the autograd graph's public handles (PyTorch's
``torch.autograd.graph``): ``Node``, gradient edges, saved-tensor hooks, multi-tensor
gradient hooks and version bumps.

Saved-tensor hooks: every recorded op passes what it saves for backward through the innermost
``pack_hook`` (under ``no_grad``) when it is recorded, and ``ctx.saved_tensors`` passes the
packed values through the paired ``unpack_hook`` (``function.apply_saved_hooks``); as torch,
only the innermost pair applies and the version counter is not checked for hooked tensors.
"""

from __future__ import annotations

import abc
import contextlib
from collections import namedtuple

from ember.autograd import engine as _engine
from ember.autograd import function as _function
from ember.tensor import Tensor

__all__ = [
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "register_multi_grad_hook",
    "allow_mutation_on_saved_tensors",
    "Node",
    "GradientEdge",
    "get_gradient_edge",
    "increment_version",
    "region_activation_memory_budget",
    "set_warn_on_accumulate_grad_stream_mismatch",
    "set_override_stale_capture_stream",
]


class Node(abc.ABC):
    """The type of every autograd graph node (``tensor.grad_fn``, ``AccumulateGrad``):
    ``isinstance(t.grad_fn, Node)`` is True.

    Example:
        >>> x = ember.ones(2, requires_grad=True)
        >>> isinstance((x * 2).grad_fn, ember.autograd.graph.Node)
        True
    """

    @abc.abstractmethod
    def name(self) -> str:
        """The node's name (``MulBackward0``)."""

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple:
        """``(node, output_nr)`` per forward input."""

    @abc.abstractmethod
    def register_hook(self, fn):
        """Run ``fn(grad_inputs, grad_outputs)`` after the node's backward."""

    @abc.abstractmethod
    def register_prehook(self, fn):
        """Run ``fn(grad_outputs)`` before the node's backward."""


Node.register(_function.BackwardNode)
Node.register(_function.AccumulateGrad)


GradientEdge = namedtuple("GradientEdge", ["node", "output_nr", "ownership_token"])
GradientEdge.__new__.__defaults__ = (None,)
GradientEdge.__module__ = "ember.autograd.graph"
GradientEdge.__doc__ = "An edge of the autograd graph: ``(node, output_nr, ownership_token)``."


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge through which ``tensor``'s gradient flows: its ``grad_fn`` and output index,
    or a leaf's ``AccumulateGrad`` node.

    Example:
        >>> x = ember.ones(2, requires_grad=True)
        >>> ember.autograd.graph.get_gradient_edge(x * 2).node.name()
        'MulBackward0'
    """
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    if tensor.grad_fn is None:
        return GradientEdge(_function.AccumulateGrad(tensor), 0)
    return GradientEdge(tensor.grad_fn, tensor._output_nr)


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an
    in-place change does, so that backward refuses its stale saved values.

    Example:
        >>> x = ember.ones(2)
        >>> v = x._version
        >>> ember.autograd.graph.increment_version(x)
        >>> x._version - v
        1
    """
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t._vc[0] += 1


# The message of the innermost active ``disable_saved_tensors_hooks`` (None: hooks allowed).
_disabled = [None]


class saved_tensors_hooks:
    """Context manager: ops recorded inside it pass the tensors they save for backward
    through ``pack_hook`` (at once) and ``unpack_hook`` (when backward reads them).

    Args:
        pack_hook: ``Tensor -> Any``, called under ``no_grad``; it must not modify its input
            in place.
        unpack_hook: ``Any -> Tensor``, returns a tensor equal to the one packed.

    Example:
        >>> seen = []
        >>> x = ember.ones(2, requires_grad=True)
        >>> hooks = ember.autograd.graph.saved_tensors_hooks(lambda t: seen.append(1) or t, id)
        >>> with hooks:
        ...     y = x.exp()
        >>> len(seen)
        1
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _disabled[0] is not None:
            raise RuntimeError(_disabled[0])
        _function.saved_hooks_stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _function.saved_hooks_stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved-tensor hooks that keep saved tensors in CPU memory (torch moves them off the
    accelerator); on ember's CPU tensors this keeps a CPU copy and moves it back to the
    tensor's device on unpack. ``pin_memory`` is accepted and has no effect.

    Example:
        >>> x = ember.ones(2, requires_grad=True)
        >>> with ember.autograd.graph.save_on_cpu():
        ...     y = (x * x).sum()
        >>> y.backward()
        >>> x.grad
        tensor([2., 2.])
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack(t):
            return (t.device, t.detach().to("cpu", copy=True))

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Context manager inside which using saved-tensor hooks raises
    ``RuntimeError(error_message)`` (as does entering it while hooks are active).

    Example:
        >>> with ember.autograd.graph.disable_saved_tensors_hooks("no hooks"):
        ...     pass
    """
    if _function.saved_hooks_stack:
        raise RuntimeError(error_message)
    prev = _disabled[0]
    _disabled[0] = error_message
    try:
        yield
    finally:
        _disabled[0] = prev


class _AllowMutationOnSavedContext:
    """What ``allow_mutation_on_saved_tensors`` yields (torch's name)."""


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager inside which tensors saved for backward may be modified in place:
    backward uses their values from when they were saved (each saved tensor is copied when
    it is saved).

    Example:
        >>> x = ember.ones(2, requires_grad=True)
        >>> with ember.autograd.graph.allow_mutation_on_saved_tensors():
        ...     a = x.clone()
        ...     y = (a * a).sum()
        ...     _ = a.mul_(3)
        ...     y.backward()
        >>> x.grad
        tensor([2., 2.])
    """
    # NOTE: torch copies a saved tensor lazily, on its first in-place change; ember copies at
    # save time (same gradients, more memory)
    with saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        yield _AllowMutationOnSavedContext()


class _MultiHandle:
    """The handle ``register_multi_grad_hook`` returns: ``remove()`` removes every hook."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all"):
    """Register ``fn`` on several tensors' gradients: with ``mode="all"``, ``fn(grads)`` once
    per backward, after the gradients are computed, with None for tensors that got none; with
    ``mode="any"``, ``fn(grad)`` once per backward, for the first gradient computed.

    Example:
        >>> x, y = ember.ones(2, requires_grad=True), ember.ones(2, requires_grad=True)
        >>> got = []
        >>> h = ember.autograd.graph.register_multi_grad_hook((x, y), got.append)
        >>> (x * 2).sum().backward()
        >>> got
        [(tensor([2., 2.]), None)]
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    grads = [None] * len(tensors)
    pending = [False]

    def flush():
        pending[0] = False
        got = tuple(grads)
        grads[:] = [None] * len(tensors)
        if mode == "all":
            fn(got)

    def make_hook(i):
        def hook(grad):
            if not pending[0]:
                pending[0] = True
                _engine.final_callbacks.append(flush)
                if mode == "any":
                    fn(grad)
            grads[i] = grad

        return hook

    return _MultiHandle(
        [t.register_hook(make_hook(i)) for i, t in enumerate(tensors) if t.requires_grad]
    )


@contextlib.contextmanager
def region_activation_memory_budget(budget: float):
    """torch.compile's activation-memory budget for a region; outside a compiled region (and
    ember compiles nothing) torch refuses it, and so does ember.

    Example:
        >>> try:
        ...     with ember.autograd.graph.region_activation_memory_budget(0.5):
        ...         pass
        ... except RuntimeError:
        ...     pass
    """
    name = "ember.autograd.graph.region_activation_memory_budget"
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        raise TypeError(f"{name}: expects a float, got {type(budget).__name__}")
    if not 0 <= budget <= 1:
        raise ValueError(f"{name}: must be in [0, 1], got {budget}")
    raise RuntimeError(
        f"{name} can only be used inside a torch.compile region; it has no effect in eager mode."
    )
    yield  # pragma: no cover


def set_warn_on_accumulate_grad_stream_mismatch(enabled: bool) -> None:
    """Whether to warn when a gradient reaches a leaf from another CUDA stream: ember runs no
    streams, so there is never anything to warn about.

    Example:
        >>> ember.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch(False)
    """


def set_override_stale_capture_stream(enabled: bool) -> None:
    """How autograd treats a stale stream during CUDA graph capture: ember captures no CUDA
    graphs, so the setting has nothing to act on.

    Example:
        >>> ember.autograd.graph.set_override_stale_capture_stream(True)
    """
