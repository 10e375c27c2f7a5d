"""``functional_call``: run a Module with given tensors in place of its parameters and buffers
(PyTorch's ``torch.func.functional_call``).

This file takes the dicts apart (one dict, or a list/tuple of dicts with distinct keys); the
swap itself is ``ember.nn.utils.stateless._functional_call``, in the nn layer below.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ember.nn.modules.module import Module
from ember.nn.utils.stateless import _functional_call
from ember.tensor import Tensor

__all__ = ["functional_call"]


def functional_call(
    module: Module,
    parameter_and_buffer_dicts: dict[str, Tensor] | Sequence[dict[str, Tensor]],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Call ``module(*args, **kwargs)`` with the given tensors in place of its parameters and
    buffers, leaving the module exactly as it was (also when forward raises).

    The result is differentiable with respect to the given tensors, which may be any tensors
    (not only Parameters; non-leaf tensors such as ``w - lr * g`` too), so a Module can be used
    as a pure function of its weights: MAML, per-example gradients, Hessian-vector products.

    Args:
        module: the module to call.
        parameter_and_buffer_dicts: dotted name (as in ``named_parameters`` /
            ``named_buffers``) -> tensor. Names left out keep the module's own tensors. A
            list or tuple of dicts is merged; a name in two of them raises ``ValueError``.
        args: positional arguments for the call; anything but a tuple is one argument.
        kwargs: keyword arguments for the call.
        tie_weights: when the module holds one tensor under several names (tied weights, a
            shared submodule), a value given for one name is used for all of them; different
            values for names that are tied raise ``ValueError``. With ``False`` each name is
            replaced on its own.
        strict: require the names to be exactly the module's parameters and buffers (after
            tying); missing or unexpected names raise ``RuntimeError`` naming them.

    Returns:
        What ``module`` returns.

    A buffer that forward updates in place (BatchNorm's running statistics) is updated in the
    tensor given for it; one that forward reassigns is replaced in the given dict (with a
    single dict, as PyTorch does).

    Example:
        >>> class Scale(ember.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = ember.nn.Parameter(ember.ones(2))
        ...     def forward(self, x):
        ...         return x * self.w
        >>> m = Scale()
        >>> ember.func.functional_call(m, {"w": ember.tensor([2.0, 3.0])}, ember.ones(2))
        tensor([2., 3.])
        >>> m.w
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        merged = {}
        counts: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                counts[k] = counts.get(k, 0) + 1
                merged[k] = v
        if len(merged) != sum(counts.values()):
            repeated = [k for k, n in counts.items() if n > 1]  # in order of first appearance
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of "
                "functional call is ambiguous"
            )
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
            f"dicts, but got {type(parameter_and_buffer_dicts)}"
        )
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)
