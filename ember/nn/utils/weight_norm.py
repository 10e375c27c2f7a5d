"""Hook-based weight normalization (PyTorch's deprecated ``torch.nn.utils.weight_norm``).

``weight_norm(m)`` replaces the parameter ``weight`` by ``weight_g`` (magnitude) and
``weight_v`` (direction) and recomputes ``m.weight = g * v / ||v||`` in a forward pre-hook.
The parametrization-based ``nn.utils.parametrizations.weight_norm`` replaces it.
"""

from __future__ import annotations

import warnings
from typing import Any

import ember
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _weight_norm(v, g, dim: int):
    # w = g * v / ||v||, the norm over every dimension but `dim` (all of them for dim=-1)
    return v * (g / ember.norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes the normalized weight."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Any:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> WeightNorm:
        warnings.warn(
            "`torch.nn.utils.weight_norm` is deprecated "
            "in favor of `torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=3,
        )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `WeightNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying weight normalization"
            )
        del module._parameters[name]
        module.register_parameter(
            name + "_g", Parameter(ember.norm_except_dim(weight, 2, fn.dim).data)
        )
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``<name>_g * <name>_v / ||<name>_v||`` through a
    forward pre-hook (deprecated in torch: warns a ``FutureWarning``).

    Args:
        module: the module.
        name: the parameter.
        dim: the dimension kept by the norm (``None``: one norm over the whole tensor).

    Returns:
        ``module``.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", FutureWarning)
        ...     m = weight_norm(ember.nn.Linear(4, 3))
        >>> sorted(n for n, _ in m.named_parameters())
        ['bias', 'weight_g', 'weight_v']
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``weight_norm``: ``<name>`` becomes a plain Parameter again.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", FutureWarning)
        ...     m = weight_norm(ember.nn.Linear(4, 3))
        >>> sorted(n for n, _ in remove_weight_norm(m).named_parameters())
        ['bias', 'weight']
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
