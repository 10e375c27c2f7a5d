"""``Optimizer``: the base class of every optimizer, with PyTorch's surface.

Parameter groups are dicts holding every hyper-parameter (defaults filled in), ``state`` maps a
parameter to its per-parameter buffers, and ``state_dict()`` is PyTorch's layout (parameters as
integer indices), so a state dict moves between ember and torch once its tensors are converted.
Subclasses implement ``_step_group`` (the base ``step`` loops over groups) as one small
per-parameter update on raw arrays (no graph, in-place ufuncs): see sgd.py and adam.py. The
element-wise optimizers share, from _common.py, their argument checks (``check_args``), the loop
over a group's parameters (``params_to_step``, which calls the optimizer's ``_init_state`` on a
parameter's first step) and the maximize/weight-decay prologue of an update (``effective_grad``).
A subclass that needs the whole step (LBFGS) overrides ``step``; ``__init_subclass__`` wraps such
a ``step`` so the step hooks run around it as around the base one.

Hooks (PyTorch's): per optimizer, step pre/post hooks, state_dict pre/post hooks and
load_state_dict pre/post hooks; for every optimizer, ``register_optimizer_step_pre_hook`` and
``register_optimizer_step_post_hook``. Without step hooks a step pays one ``if``.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

import ember
from ember.optim._common import check_step_flags
from ember.tensor import Tensor
from ember.utils.hooks import RemovableHandle


class _RequiredParameter:
    """Marks a hyper-parameter a group must give when the optimizer has no default for it."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


# Hooks every optimizer runs around ``step`` (PyTorch's ``register_optimizer_step_*_hook``).
_global_optimizer_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_optimizer_post_hooks: OrderedDict[int, Callable] = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)`` to run before every optimizer's ``step``.

    ``args`` starts with the optimizer itself (the arguments ``step`` was called with); the hook
    may return a new ``(args, kwargs)`` pair for ``step``.

    Example:
        >>> import ember
        >>> from ember.optim.optimizer import register_optimizer_step_pre_hook
        >>> w = ember.nn.Parameter(ember.ones(1))
        >>> opt = ember.optim.SGD([w], lr=0.5)
        >>> seen = []
        >>> handle = register_optimizer_step_pre_hook(lambda o, a, k: seen.append(type(o).__name__))
        >>> opt.step(); handle.remove(); opt.step(); seen
        ['SGD']
    """
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)`` to run after every optimizer's ``step``.

    Example:
        >>> import ember
        >>> from ember.optim.optimizer import register_optimizer_step_post_hook
        >>> w = ember.nn.Parameter(ember.ones(1))
        >>> opt = ember.optim.SGD([w], lr=0.5)
        >>> seen = []
        >>> handle = register_optimizer_step_post_hook(lambda o, a, k: seen.append(len(a)))
        >>> opt.step(); handle.remove(); seen
        [1]
    """
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _call_step_with_hooks(func: Callable, args: tuple, kwargs: dict) -> Any:
    """Run ``func(*args, **kwargs)`` (a ``step``; ``args[0]`` is the optimizer) between the step
    hooks: the global pre-hooks, then the optimizer's, the step, the optimizer's post-hooks, then
    the global ones."""
    self = args[0]
    if self.__dict__.get("_in_hooked_step"):
        # A subclass's step calling ``super().step()``: the hooks already ran around the outer one.
        return func(*args, **kwargs)
    for hook in (*_global_optimizer_pre_hooks.values(), *self._optimizer_step_pre_hooks.values()):
        result = hook(self, args, kwargs)
        if result is not None:
            if isinstance(result, tuple) and len(result) == 2:
                args, kwargs = result
            else:
                raise RuntimeError(
                    f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                    f"{result}."
                )
    self._in_hooked_step = True
    try:
        out = func(*args, **kwargs)
    finally:
        del self._in_hooked_step
    for hook in (*self._optimizer_step_post_hooks.values(), *_global_optimizer_post_hooks.values()):
        hook(self, args, kwargs)
    return out


def _hook_step(func: Callable) -> Callable:
    """Wrap a ``step`` so the step hooks run around it; without hooks it costs one check."""

    @functools.wraps(func)
    def step(self, *args, **kwargs):
        if (
            self._optimizer_step_pre_hooks
            or self._optimizer_step_post_hooks
            or _global_optimizer_pre_hooks
            or _global_optimizer_post_hooks
        ):
            return _call_step_with_hooks(func, (self, *args), kwargs)
        return func(self, *args, **kwargs)

    # NOTE: matches torch: a hooked step carries ``hooked = True``.
    step.hooked = True
    return step


def _new_hook_dicts(obj: Any) -> None:
    for name in (
        "_optimizer_step_pre_hooks",
        "_optimizer_step_post_hooks",
        "_optimizer_state_dict_pre_hooks",
        "_optimizer_state_dict_post_hooks",
        "_optimizer_load_state_dict_pre_hooks",
        "_optimizer_load_state_dict_post_hooks",
    ):
        if name not in obj.__dict__:
            setattr(obj, name, OrderedDict())


def _register(hooks: OrderedDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _typename(obj: Any) -> str:
    # NOTE: matches torch.typename: a Tensor's type string, else the qualified class name.
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    prefix = "" if module in ("builtins", None) else module + "."
    return prefix + type(obj).__qualname__


class Optimizer:
    """Base class of all optimizers (``torch.optim.Optimizer``).

    Args:
        params: an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts each holding
            ``"params"`` and per-group hyper-parameters that override ``defaults``.
        defaults: the hyper-parameters every group starts from.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.ones(2))
        >>> opt = ember.optim.SGD([w], lr=0.5)
        >>> w.sum().backward(); opt.step(); w.tolist()
        [0.5, 0.5]
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hook_step(step)

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], defaults: dict[str, Any]):
        self.defaults = defaults
        _new_hook_dicts(self)
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
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        # ``named_parameters()`` gives (name, tensor) pairs: the names go to "param_names".
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = names
        differentiable = self.defaults.get("differentiable", None)
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}"
                )
            if not differentiable and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization parameter "
                    f"{name}"
                )
            param_group.setdefault(name, default)
        ids = [id(p) for p in tensors]
        if len(set(ids)) != len(ids):
            # NOTE: matches torch: a warning (not yet an error) for a repeated parameter.
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add param "
                    f"group {which} to the optimizer"
                )
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters (to None by default, else to zeros in place).

        Example:
            >>> import ember
            >>> w = ember.nn.Parameter(ember.ones(2))
            >>> opt = ember.optim.SGD([w], lr=0.1)
            >>> w.sum().backward(); opt.zero_grad(set_to_none=False); w.grad.tolist()
            [0.0, 0.0]
            >>> opt.zero_grad(); w.grad is None
            True
        """
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

    @_hook_step
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update the parameters once; ``closure`` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with ember.enable_grad():
                loss = closure()
        with ember.no_grad():
            for group in self.param_groups:
                check_step_flags(self, group)
                self._step_group(group)
        return loss

    def _step_group(self, group: dict[str, Any]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # ---- hooks -------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs)`` to run before ``step``; it may return a
        new ``(args, kwargs)`` pair (``args[0]`` is the optimizer).

        Example:
            >>> import ember
            >>> w = ember.nn.Parameter(ember.ones(1))
            >>> opt = ember.optim.SGD([w], lr=0.5)
            >>> h = opt.register_step_pre_hook(lambda o, a, k: print("stepping"))
            >>> opt.step()
            stepping
        """
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs)`` to run after ``step``.

        Example:
            >>> import ember
            >>> w = ember.nn.Parameter(ember.ones(1))
            >>> opt = ember.optim.SGD([w], lr=0.5)
            >>> h = opt.register_step_post_hook(lambda o, a, k: print("stepped"))
            >>> opt.step()
            stepped
        """
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(optimizer)`` to run before ``state_dict`` builds the dict.

        Example:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=0.5)
            >>> h = opt.register_state_dict_pre_hook(lambda o: print("saving"))
            >>> sd = opt.state_dict()
            saving
        """
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict)``, run on the built dict; a returned dict
        replaces it.

        Example:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=0.5)
            >>> h = opt.register_state_dict_post_hook(lambda o, sd: {**sd, "note": 1})
            >>> opt.state_dict()["note"]
            1
        """
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict)``, run on a shallow copy of the dict given to
        ``load_state_dict``; a returned dict is loaded instead.

        Example:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=0.5)
            >>> def halve(o, sd):
            ...     sd["param_groups"] = [{**g, "lr": g["lr"] / 2} for g in sd["param_groups"]]
            >>> h = opt.register_load_state_dict_pre_hook(halve)
            >>> opt.load_state_dict(opt.state_dict()); opt.param_groups[0]["lr"]
            0.25
        """
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Register ``hook(optimizer)`` to run after ``load_state_dict`` has loaded.

        Example:
            >>> import ember
            >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=0.5)
            >>> h = opt.register_load_state_dict_post_hook(lambda o: print("loaded"))
            >>> opt.load_state_dict(opt.state_dict())
            loaded
        """
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

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
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index: dict[int, int] = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            # NOTE: matches torch: indices count every slot, and a parameter repeated within a
            # group gets the index of its last slot there (one seen in an earlier group keeps
            # its index).
            index.update(
                {id(p): i for i, p in enumerate(group["params"], start) if id(p) not in index}
            )
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state dict from ``state_dict()`` (ember's, or torch's with tensors converted).

        Buffers are copied and cast to their parameter's dtype (``step`` keeps its own dtype);
        a group's extra keys are kept, keys it lacks are filled by the optimizer's
        ``__setstate__`` where it knows a default.

        Example:
            >>> import ember
            >>> w = ember.nn.Parameter(ember.ones(2))
            >>> opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)
            >>> sd = opt.state_dict(); sd["param_groups"][0]["lr"] = 0.2
            >>> opt.load_state_dict(sd); opt.param_groups[0]["lr"]
            0.2
        """
        state_dict = state_dict.copy()  # shallow, as torch: the pre-hooks may edit it
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of "
                    "optimizer's group"
                )
        by_index = {
            i: p
            for group, saved in zip(groups, saved_groups)
            for i, p in zip(saved["params"], group["params"])
        }
        # NOTE: matches torch: under fused or capturable the loaded step becomes float32
        step32 = {
            i
            for saved in saved_groups
            if saved.get("fused") or saved.get("capturable")
            for i in saved["params"]
        }
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for i, buffers in state_dict["state"].items():
            if i in by_index:
                p = by_index[i]
                state[p] = _cast(p, buffers)
                if i in step32 and isinstance(state[p].get("step"), Tensor):
                    state[p]["step"] = state[p]["step"].to(ember.float32)
            else:
                # NOTE: matches torch: state of no parameter is kept as it is.
                state[i] = buffers
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        # NOTE: matches torch: __setstate__ lets a subclass fill the group keys it defaults.
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        _new_hook_dicts(self)  # an unpickled optimizer starts without hooks, as torch's
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")  # NOTE: matches torch: a blank line between groups
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _cast(param: Tensor, value: Any, key: Any = None) -> Any:
    """A copy of a loaded state value: tensors cast to the parameter's floating dtype (not
    ``step``), containers copied through."""
    if isinstance(value, Tensor):
        # NOTE: matches torch: `step` keeps its dtype; other floating buffers take the param's.
        # Deliberate difference: buffers are copied, so stepping never writes into the caller's
        # dict (torch aliases them when no cast is needed).
        if key != "step" and param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device).clone()
        return value.clone()
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        # LBFGS keeps lists of tensors (its history); torch casts inside any iterable.
        return type(value)(_cast(param, v) for v in value)
    return value


__all__ = [
    "Optimizer",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
    "required",
]
