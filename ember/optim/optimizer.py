"""``Optimizer``: the base class of every optimizer, with PyTorch's surface.

Parameter groups are dicts holding every hyper-parameter (defaults filled in), ``state`` maps a
parameter to its per-parameter buffers, and ``state_dict()`` is PyTorch's layout (parameters as
integer indices), so a state dict moves between ember and torch once its tensors are converted.
Subclasses implement ``step`` as a loop over groups calling one small per-parameter update on raw
arrays (no graph, in-place ufuncs): see sgd.py and adam.py.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import ember
from ember.tensor import Tensor


class _RequiredParameter:
    """Marks a hyper-parameter a group must give when the optimizer has no default for it."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of all optimizers (``torch.optim.Optimizer``).

    Args:
        params: an iterable of Tensors, or of dicts each holding ``"params"`` and per-group
            hyper-parameters that override ``defaults``.
        defaults: the hyper-parameters every group starts from.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.ones(2))
        >>> opt = ember.optim.SGD([w], lr=0.5)
        >>> w.sum().backward(); opt.step(); w.tolist()
        [0.5, 0.5]
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], defaults: dict[str, Any]):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {params.type()}"
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with optional per-group hyper-parameters).

        Example:
            >>> import ember
            >>> a, b = ember.nn.Parameter(ember.ones(1)), ember.nn.Parameter(ember.ones(1))
            >>> opt = ember.optim.SGD([a], lr=0.1)
            >>> opt.add_param_group({"params": [b], "lr": 0.01})
            >>> [g["lr"] for g in opt.param_groups]
            [0.1, 0.01]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        param_group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is "
                    f"{type(p).__module__ + '.' if type(p).__module__ != 'builtins' else ''}"
                    f"{type(p).__qualname__}"
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization parameter "
                    f"{name}"
                )
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(set(ids)) != len(ids):
            # NOTE: matches torch: a warning (not yet an error) for a repeated parameter.
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters (to None by default, else to zeros in place)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    g = p._grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update the parameters once; ``closure`` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with ember.enable_grad():
                loss = closure()
        with ember.no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group: dict[str, Any]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---- checkpoints -------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state in torch's layout: parameters replaced by integer indices.

        Example:
            >>> import ember
            >>> w = ember.nn.Parameter(ember.ones(2))
            >>> sd = ember.optim.SGD([w], lr=0.1).state_dict()
            >>> sd["state"], sd["param_groups"][0]["params"]
            ({}, [0])
        """
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                packed["params"].append(index[id(p)])
            groups.append(packed)
        state = {index[id(p)]: s for p, s in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state dict from ``state_dict()`` (ember's, or torch's with tensors converted).

        Buffers are copied and cast to their parameter's dtype (``step`` keeps its own dtype).
        """
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(self.param_groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of "
                    "optimizer's group"
                )
        by_index = {
            i: p
            for group, saved in zip(self.param_groups, saved_groups)
            for i, p in zip(saved["params"], group["params"])
        }
        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for i, buffers in state_dict["state"].items():
            if i not in by_index:
                continue
            p = by_index[i]
            state[p] = {k: self._cast(p, k, v) for k, v in buffers.items()}
        new_groups = []
        for group, saved in zip(self.param_groups, saved_groups):
            new = dict(saved)
            new["params"] = group["params"]
            new_groups.append(new)
        self.state = state
        self.param_groups = new_groups

    @staticmethod
    def _cast(param: Tensor, key: str, value: Any) -> Any:
        if not isinstance(value, Tensor):
            return value
        # NOTE: matches torch: `step` keeps its dtype; other floating buffers take the param's.
        # Deliberate difference: buffers are copied, so stepping never writes into the caller's
        # dict (torch aliases them when no cast is needed).
        if key != "step" and param.is_floating_point() and value.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device).clone()
        return value.clone()

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


__all__ = ["Optimizer", "required"]
