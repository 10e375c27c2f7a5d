"""Calling a Module with other tensors in place of its parameters and buffers.

``_functional_call`` is the mechanism behind ``ember.func.functional_call``. It lives here, in
the nn layer, because ``ember.func`` sits above nn and nn never imports upward (PyTorch splits
it the same way). ``functional_call`` is PyTorch's older, deprecated name for it.

How a call works: every given name is resolved once to the dict that holds it in its owning
submodule (``_parameters``, ``_buffers`` or the instance ``__dict__``); the given tensors are
written straight into those dicts, so they need not be Parameters and may be non-leaf tensors;
forward runs; a ``finally`` writes the originals back in reverse order. Nothing is copied and
no ``__setattr__`` or registration hook runs.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = ["functional_call"]

_MISSING = object()  # "no such attribute": restoring it deletes the entry again

_DEPRECATION = (
    "`ember.nn.utils.stateless.functional_call` is deprecated (as "
    "`torch.nn.utils.stateless.functional_call` is as of PyTorch 2.0) and will be removed "
    "with it. Please use `ember.func.functional_call` instead which is a drop-in replacement."
)


def functional_call(
    module: Module,
    parameters_and_buffers: dict[str, Tensor],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Deprecated alias of :func:`ember.func.functional_call` taking a single dict.

    Warns a ``FutureWarning`` on every call, as PyTorch does.

    Example:
        >>> m = ember.nn.Module()
        >>> m.w = ember.nn.Parameter(ember.ones(2))
        >>> m.forward = lambda x: x * m.w
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", FutureWarning)
        ...     ember.nn.utils.stateless.functional_call(m, {"w": ember.zeros(2)}, ember.ones(2))
        tensor([0., 0.])
    """
    warnings.warn(_DEPRECATION, FutureWarning, stacklevel=2)
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )


functional_call.__deprecated__ = _DEPRECATION  # what typing's @deprecated records


def _functional_call(
    module: Module,
    parameters_and_buffers: dict[str, Tensor],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with ``parameters_and_buffers`` (dotted name -> Tensor or
    None) in place of the module's own; the module is as it was afterwards.

    When forward replaces one of the swapped tensors (``self.buf = self.buf + 1``), the new
    tensor is written back into ``parameters_and_buffers`` under the given name (PyTorch does
    the same); in-place updates (BatchNorm's running stats) land in the given tensor itself.
    """
    # Looked up, not imported: a DataParallel exists only once its module has been imported.
    data_parallel = sys.modules.get("ember.nn.parallel.data_parallel")
    if data_parallel is not None and isinstance(module, data_parallel.DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    plan = _plan(module, parameters_and_buffers, tie_weights, strict)
    originals = []
    try:
        for _, target, key, value in plan:
            if isinstance(target, dict):
                originals.append(target.get(key, _MISSING))
                target[key] = value
            else:  # a module whose class has a data descriptor (property) of that name
                originals.append(getattr(target, key))
                setattr(target, key, value)
        return module(*args, **kwargs)
    finally:
        # What forward left in each slot, read before anything is restored.
        replaced = []
        for i in range(len(originals)):
            name, target, key, value = plan[i]
            now = (
                target.get(key, _MISSING)
                if isinstance(target, dict)
                else getattr(target, key, _MISSING)
            )
            if now is not value and now is not _MISSING:
                replaced.append((name, now))
        # Reverse order, so that two names for one slot (a submodule shared under two names,
        # tie_weights=False) still leave the first original in place.
        for i in range(len(originals) - 1, -1, -1):
            _, target, key, _ = plan[i]
            original = originals[i]
            if isinstance(target, dict):
                if original is _MISSING:
                    target.pop(key, None)
                else:
                    target[key] = original
            else:
                setattr(target, key, original)
        for name, now in replaced:
            if name in parameters_and_buffers:
                parameters_and_buffers[name] = now


def _plan(
    module: Module, given: dict[str, Tensor], tie_weights: bool, strict: bool
) -> list[tuple[str, Any, str, Tensor | None]]:
    """``(name, dict or module, key, value)`` for every tensor to swap in, with every check
    done before anything is written."""
    if tie_weights or strict:
        slots: dict[str, tuple[dict, str, Tensor]] | None = {}
        modules: dict[str, Module] = {}
        _walk(module, "", slots, modules)
    else:
        slots, modules = None, {"": module}
    names = _untie(slots, given) if tie_weights else given
    if strict:
        _check_keys(module, slots, names)
    plan = []
    for name, value in names.items():
        entry = slots.get(name) if slots is not None else None
        if entry is not None:
            if value is not None and not isinstance(value, Tensor):
                raise _not_a_tensor(name, value)
            plan.append((name, entry[0], entry[1], value))
        else:
            plan.append((name, *_resolve(module, name, value, modules), value))
    return plan


def _walk(module: Module, prefix: str, slots: dict, modules: dict) -> None:
    """Every parameter and buffer under every name that reaches it (a shared submodule or
    Parameter under each of its names: PyTorch's ``remove_duplicate=False``), and every
    submodule path."""
    modules[prefix[:-1]] = module
    d = module.__dict__
    params = d["_parameters"]
    for k, v in params.items():
        if v is not None:
            slots[prefix + k] = (params, k, v)
    buffers = d["_buffers"]
    for k, v in buffers.items():
        if v is not None:
            slots[prefix + k] = (buffers, k, v)
    for k, child in d["_modules"].items():
        if child is not None:
            _walk(child, prefix + k + ".", slots, modules)


def _untie(slots: dict, given: dict[str, Tensor]) -> dict[str, Tensor]:
    """``given`` plus, for each given name of a tensor the module holds under several names
    (tied weights), those other names with the same value."""
    groups: dict[int, list[str]] = {}
    for name, entry in slots.items():
        groups.setdefault(id(entry[2]), []).append(name)
    untied = None
    for group in groups.values():
        if len(group) == 1:
            continue
        named = [n for n in group if n in given]
        if not named:
            continue
        value = given[named[0]]
        if any(given[n] is not value for n in named[1:]):
            # NOTE: matches torch's error. torch raises KeyError instead when a group has more
            # than two names and only some are given; ember checks just the given ones.
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(group)}, "
                "which are tied. Consider using tie_weights=False"
            )
        if untied is None:
            untied = dict(given)
        for n in group:
            untied.setdefault(n, value)
    return given if untied is None else untied


def _check_keys(module: Module, slots: dict, names: dict[str, Tensor]) -> None:
    missing = sorted(slots.keys() - names.keys())
    unexpected = sorted(names.keys() - slots.keys())
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError(
            f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(msgs)
        )


def _resolve(module: Module, name: str, value, modules: dict[str, Module]) -> tuple[Any, str]:
    """The dict (or, for a property, the module) that holds ``name`` and the key in it."""
    prefix, _, attr = name.rpartition(".")
    owner = _submodule(module, prefix, name, modules)
    if value is not None and not isinstance(value, Tensor):
        raise _not_a_tensor(name, value)
    if attr == "":
        raise KeyError(f"functional_call: key '{name}': tensor name can't be empty string \"\"")
    d = owner.__dict__
    if attr in d["_parameters"]:
        return d["_parameters"], attr
    if attr in d["_buffers"]:
        return d["_buffers"], attr
    if attr in d["_modules"]:
        raise TypeError(
            f"functional_call: key '{name}' names a submodule slot of "
            f"{owner._get_name()}, not a parameter, buffer or tensor attribute"
        )
    try:
        current = getattr(owner, attr)
    except AttributeError:
        current = _MISSING  # NOTE: matches torch: set for the call, removed afterwards
    if current is not _MISSING and current is not None and not isinstance(current, Tensor):
        raise TypeError(
            f"functional_call: key '{name}': attribute `{attr}` of "
            f"{owner._get_name()} is a {type(current).__name__}, not a Tensor"
        )
    if hasattr(getattr(type(owner), attr, None), "__set__"):
        return owner, attr  # a property: an instance __dict__ entry would not be seen
    # NOTE: differs from torch, which uses setattr here: a Parameter given under a new name
    # would be registered for the call, and a leaf tensor would trip ember's registration
    # warning. Writing the instance __dict__ makes it a plain attribute for the call.
    return d, attr


def _submodule(module: Module, path: str, name: str, modules: dict[str, Module]) -> Module:
    found = modules.get(path)
    if found is not None:
        return found
    parent_path, _, attr = path.rpartition(".")
    parent = _submodule(module, parent_path, name, modules)
    try:
        sub = getattr(parent, attr)
    except AttributeError:
        raise AttributeError(
            f"{parent._get_name()} has no attribute `{attr}` (functional_call key '{name}')"
        ) from None
    if not isinstance(sub, Module):
        raise TypeError(
            f"functional_call: key '{name}': `{path}` is a {type(sub).__name__}, not a Module"
        )
    modules[path] = sub
    return sub


def _not_a_tensor(name: str, value) -> TypeError:
    return TypeError(
        f"functional_call: the value for '{name}' is a {type(value).__name__}; "
        "expected a Tensor (or None)"
    )
