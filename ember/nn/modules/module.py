"""``Module``: the base class of every layer and model (PyTorch's ``torch.nn.Module``).

The attribute protocol, its invariants and the load transaction are described in
``ember/nn/MODULE.md``; read it before changing ``__setattr__``, ``_apply`` or
``load_state_dict``.
"""

from __future__ import annotations

import copy
import functools
import threading
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator
from typing import Any

from ember.autograd import grad_mode as _gm
from ember.autograd.function import RemovableHandle
from ember.nn.parameter import Buffer, Parameter
from ember.tensor import Tensor

__all__ = [
    "Module",
    "RegistrationWarning",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
    "set_registration_warnings",
]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys the module expected but did not get, and the
    keys it got but did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first by ``spaces`` (blank lines stay empty), for nested reprs."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    pad = " " * spaces
    return "\n".join([first] + [pad + line if line.strip() else "" for line in rest])


def typename(obj) -> str:
    """The type name PyTorch prints in errors: ``torch.FloatTensor`` for a tensor, the
    qualified class name otherwise (``int``, ``ember.nn.modules.linear.Linear``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


# ---- global hooks (all modules) ----------------------------------------------------------------
_global_buffer_registration_hooks: dict = OrderedDict()
_global_module_registration_hooks: dict = OrderedDict()
_global_parameter_registration_hooks: dict = OrderedDict()
_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_is_full_backward_hook: bool | None = None
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()


def _add_hook(hooks: dict, hook, *, prepend: bool = False, extra=None) -> RemovableHandle:
    handle = RemovableHandle(hooks, extra_dict=extra)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_buffer_registration_hook(hook) -> RemovableHandle:
    """Register ``hook(module, name, buffer)`` to run on every ``register_buffer``; a returned
    tensor replaces the buffer."""
    return _add_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook) -> RemovableHandle:
    """Register ``hook(module, name, submodule)`` to run whenever a submodule is registered; a
    returned module replaces it."""
    return _add_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook) -> RemovableHandle:
    """Register ``hook(module, name, param)`` to run on every ``register_parameter``; a
    returned Parameter replaces it."""
    return _add_hook(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """Register ``hook(module, args)`` to run before every module's ``forward``."""
    return _add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(
    hook, *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """Register ``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)`` with
    ``with_kwargs``) to run after every module's ``forward``."""
    handle = _add_hook(
        _global_forward_hooks,
        hook,
        extra=[_global_forward_hooks_always_called, _global_forward_hooks_with_kwargs],
    )
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    return handle


def _set_global_full(full: bool) -> None:
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global "
            "Module hook. Please use only one of them."
        )
    _global_is_full_backward_hook = full


def register_module_backward_hook(hook) -> RemovableHandle:
    """Deprecated: use ``register_module_full_backward_hook``."""
    _set_global_full(False)
    return _add_hook(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """Register ``hook(module, grad_output)`` to run for every module before its input
    gradients are computed; a returned tuple replaces ``grad_output``."""
    return _add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """Register ``hook(module, grad_input, grad_output)`` to run for every module once the
    gradients with respect to its inputs are computed; a returned tuple replaces
    ``grad_input``."""
    _set_global_full(True)
    return _add_hook(_global_backward_hooks, hook)


# ---- registration diagnostics (beyond PyTorch) ------------------------------------------------
class RegistrationWarning(UserWarning):
    """An attribute assignment that PyTorch accepts silently but that leaves parameters or
    submodules unregistered (so they are not trained, moved or saved)."""


_registration_warnings = True


def set_registration_warnings(enabled: bool) -> None:
    """Turn ember's registration diagnostics on or off for all modules (on by default).

    When on, assigning to a Module attribute a list, tuple, set or dict that holds Modules or
    Parameters, or a leaf tensor with ``requires_grad=True`` that is not a Parameter, emits a
    :class:`RegistrationWarning`. Behaviour is PyTorch's either way: nothing is registered.
    """
    global _registration_warnings
    _registration_warnings = bool(enabled)


# The rules below are shared with ``ember.nn.utils.check`` (which applies them to a built model,
# nested containers and plain objects included), so the warning and the check agree.
def _set_by_class(module: Module, name: str) -> bool:
    """The class's property takes assignments to ``name`` (a parametrized tensor's, for one)."""
    return isinstance(getattr(type(module), name, None), property)


def _forgotten_parameter(value: Tensor) -> bool:
    """A tensor that looks like a parameter someone forgot to wrap in ``nn.Parameter``."""
    # Only leaves: a non-leaf that requires grad is an activation (a cached hidden state,
    # an output kept by a hook), not a forgotten parameter.
    return not isinstance(value, Parameter) and value._requires_grad and value._grad_fn is None


def _tensor_fix(name: str) -> str:
    return (
        f"Wrap it in nn.Parameter(...) to train it, or use register_buffer('{name}', tensor) "
        "for state that is not trained."
    )


def _member_kind(value) -> str | None:
    """'Parameter' or 'Module' for what a container needs ember's own container to register."""
    if isinstance(value, Parameter):
        return "Parameter"
    if isinstance(value, Module):
        return "Module"
    return None


def _container_fixes(kinds, is_dict: bool) -> list[str]:
    """The registering containers for ``kinds`` (from ``_member_kind``), in a stable order."""
    fixes = []
    if "Module" in kinds:
        fixes.append("nn.ModuleDict" if is_dict else "nn.ModuleList")
    if "Parameter" in kinds:
        fixes.append("nn.ParameterDict" if is_dict else "nn.ParameterList")
    return fixes


def _diagnose(module: Module, name: str, value) -> None:
    if _set_by_class(module, name):
        return
    owner = f"{type(module).__name__}.{name}"
    if isinstance(value, Tensor):
        if _forgotten_parameter(value):
            warnings.warn(
                f"{owner} is a tensor with requires_grad=True but not an nn.Parameter, so it is "
                f"not registered: parameters(), optimizers, .to() and state_dict() will not see "
                f"it. {_tensor_fix(name)} "
                "(ember.nn.set_registration_warnings(False) silences this.)",
                RegistrationWarning,
                stacklevel=3,
            )
        return
    items = value.values() if isinstance(value, dict) else value
    kinds = {k for k in map(_member_kind, items) if k is not None}
    if not kinds:
        return
    fixes = _container_fixes(kinds, isinstance(value, dict))
    what = " and ".join(sorted(k + "s" for k in kinds))
    warnings.warn(
        f"{owner} is a plain {type(value).__name__} holding {what}; they are not registered, "
        f"so parameters(), optimizers, .to() and state_dict() will not see them. Use "
        f"{' / '.join(fixes)} instead. "
        "(ember.nn.set_registration_warnings(False) silences this.)",
        RegistrationWarning,
        stacklevel=3,
    )


# ---- the load_state_dict transaction -----------------------------------------------------------
# ``_load_from_state_dict`` (PyTorch's per-module protocol) queues its writes here while a
# ``load_state_dict`` call is validating, so that a load that fails changes nothing.
_load_tls = threading.local()


def _queue_or_run(action: Callable[[bool], Callable | None]) -> None:
    pending = getattr(_load_tls, "pending", None)
    if pending is None:
        action(False)
    else:
        pending.append(action)


# Module's own bookkeeping dicts: code ported from PyTorch sometimes reassigns them
# (``self._modules = OrderedDict(...)``); they are not user attributes to diagnose.
_OWN_STATE = frozenset(("_parameters", "_buffers", "_modules", "_non_persistent_buffers_set"))


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


class Module:
    """Base class for all neural network modules.

    Assign Parameters, buffers and submodules as attributes in ``__init__`` (after calling
    ``super().__init__()``) and they are registered; define ``forward`` and call the module.

    Example:
        >>> class Net(ember.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = ember.nn.Linear(4, 2)
        ...     def forward(self, x):
        ...         return self.fc(x).relu()
        >>> [n for n, _ in Net().named_parameters()]
        ['fc.weight', 'fc.bias']
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs) -> None:
        if not self.call_super_init and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword "
                f"argument '{next(iter(kwargs))}'"
            )
        if not self.call_super_init and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()
        d["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # ---- registration ---------------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is saved and moved with the module but not trained (e.g.
        BatchNorm's running mean). A non-persistent buffer is left out of ``state_dict``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        # NOTE: matches torch: an explicit call follows ``persistent``, even for a tensor marked
        # by ``Buffer(..., persistent=...)`` (only assignment reads the mark).
        for hook in _global_buffer_registration_hooks.values():
            out = hook(self, name, tensor)
            if out is not None:
                tensor = out
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or ``None``, which keeps the name registered but holds nothing)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        for hook in _global_parameter_registration_hooks.values():
            out = hook(self, name, param)
            if out is not None:
                param = out
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module, reachable as ``self.<name>``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            out = hook(self, name, module)
            if out is not None:
                module = out
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of ``add_module``."""
        self.add_module(name, module)

    # ---- attribute protocol (see MODULE.md) -----------------------------------------------------
    def __getattr__(self, name: str):
        d = self.__dict__
        if "_parameters" in d:
            p = d["_parameters"]
            if name in p:
                return p[name]
        if "_buffers" in d:
            b = d["_buffers"]
            if name in b:
                return b[name]
        if "_modules" in d:
            m = d["_modules"]
            if name in m:
                return m[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._discard(name, d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._discard(
                name, d, self._parameters, self._buffers, self._non_persistent_buffers_set
            )
            for hook in _global_module_registration_hooks.values():
                out = hook(self, name, value)
                if out is not None:
                    value = out
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            for hook in _global_module_registration_hooks.values():
                out = hook(self, name, value)
                if out is not None:
                    value = out
            modules[name] = value
            return
        buffers = d.get("_buffers")
        is_buffer = isinstance(value, Buffer)
        if is_buffer or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            persistent = (
                value.persistent if is_buffer else name not in self._non_persistent_buffers_set
            )
            self.register_buffer(name, value, persistent)
            return
        if (
            _registration_warnings
            and name not in _OWN_STATE
            and (
                type(value) in (list, tuple, set, frozenset, dict, OrderedDict)
                or isinstance(value, Tensor)
            )
        ):
            _diagnose(self, name, value)
        object.__setattr__(self, name, value)

    @staticmethod
    def _discard(name, *dicts_or_sets) -> None:
        for d in dicts_or_sets:
            if name in d:
                if isinstance(d, dict):
                    del d[name]
                else:
                    d.discard(name)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        # The class's attributes (methods included), the instance's, then registered names.
        attrs = dir(type(self)) + list(self.__dict__)
        keys = attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        # Names that are not valid identifiers (e.g. Sequential's "0") are left out.
        return sorted(k for k in keys if not k[0].isdigit())

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        # Modules pickled by older versions may lack the newer hook dicts.
        for name in (
            "_forward_pre_hooks",
            "_forward_hooks",
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_forward_pre_hooks_with_kwargs",
            "_state_dict_hooks",
            "_state_dict_pre_hooks",
            "_load_state_dict_pre_hooks",
            "_load_state_dict_post_hooks",
            "_backward_pre_hooks",
            "_backward_hooks",
        ):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # ---- submodule and member access ------------------------------------------------------------
    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` ("" is ``self``)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at dotted path ``target``; with ``strict`` the path must exist."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self
        for item in atoms[:-1]:
            if not hasattr(parent, item):
                raise AttributeError(parent._get_name() + " has no attribute `" + item + "`")
            parent = getattr(parent, item)
            if not isinstance(parent, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        last = atoms[-1]
        if strict and not hasattr(parent, last):
            raise AttributeError(parent._get_name() + " has no attribute `" + last + "`")
        if hasattr(parent, last):
            existing = getattr(parent, last)
            if not isinstance(existing, Module):
                raise AttributeError("`" + last + "` is not an nn.Module")
        setattr(parent, last, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target`` (e.g. ``"net.0.weight"``)."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        buf = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buf

    def get_extra_state(self) -> Any:
        """Override with ``set_extra_state`` to save extra (picklable) state in ``state_dict``."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at "
            "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug."
        )

    def set_extra_state(self, state: Any) -> None:
        """Restore what ``get_extra_state`` returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at "
            "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug."
        )

    # ---- traversal ------------------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield (module_prefix + "." + k if module_prefix else k), v

    def _parameter_list(self) -> list:
        """``list(self.parameters())``, gathered without building the dotted names (a
        per-step cost of ``zero_grad``) when no class on the way redefines the traversal."""
        cls = type(self)
        if (
            cls.parameters is not Module.parameters
            or cls.named_parameters is not Module.named_parameters
        ):
            return list(self.parameters())
        # the pre-order of ``named_modules`` (each module once), as an explicit stack
        seen_modules = set()
        seen = set()
        out = []
        stack = [self]
        while stack:
            m = stack.pop()
            if m in seen_modules:
                continue
            if type(m).named_modules is not _named_modules:
                return list(self.parameters())
            seen_modules.add(m)
            for p in m._parameters.values():
                if p is not None and p not in seen:
                    seen.add(p)
                    out.append(p)
            children = m._modules
            if children:
                stack.extend([c for c in reversed(children.values()) if c is not None])
        return out

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module and (with ``recurse``) all submodules, each once."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; a shared parameter is reported once under its
        first name unless ``remove_duplicate=False``."""
        yield from self._named_members(
            lambda m: m._parameters.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members(
            lambda m: m._buffers.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """Direct children, each module once."""
        memo = set()
        for name, m in self._modules.items():
            if m is not None and m not in memo:
                memo.add(m)
                yield name, m

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ):
        """This module and all below it, depth first, pre-order, as ``(dotted name, module)``."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    # ---- modes ----------------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode on this module and all below it; returns ``self``."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the ``.grad`` of every parameter: to ``None`` (default) or to zeros."""
        if getattr(self, "_is_replica", False):
            warnings.warn(
                "Calling .zero_grad() from a module created with nn.DataParallel() has no "
                "effect. The parameters are copied (in a differentiable manner) from the "
                "original module. This means they are not leaf nodes in autograd and so don't "
                "accumulate gradients. If you need gradients in your forward method, consider "
                "using autograd.grad instead.",
                stacklevel=2,
            )
        for p in self._parameter_list():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def share_memory(self) -> Module:
        """Move storage to shared memory (a no-op for ember's CPU arrays); returns ``self``."""
        return self._apply(_share_memory)

    # ---- conversion: everything goes through _apply --------------------------------------------
    def _apply(self, fn, recurse: bool = True) -> Module:
        """Apply ``fn`` (Tensor -> Tensor) to every parameter, gradient and buffer, in place.

        Parameters keep their identity (their data is replaced), so optimizers holding them
        stay valid; buffers are replaced in ``_buffers``.
        """
        if recurse:
            for module in self.children():
                module._apply(fn, recurse)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with _gm.no_grad():
                applied = fn(param)
            if not isinstance(applied, Tensor):
                raise TypeError(
                    f"_apply(): {self._get_name()}.{key}: fn returned "
                    f"{type(applied).__name__}, expected a Tensor"
                )
            param.data = applied
            grad = param._grad
            if grad is not None:
                with _gm.no_grad():
                    grad_applied = fn(grad)
                grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first) and then on ``self``; returns
        ``self``. Typical use: custom initialization."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``,
        ``to(device, dtype)``, ``to(tensor)``. Only floating-point tensors change dtype.
        Modifies the module in place and returns it."""
        from ember.ops.conversion import _parse_to

        # NOTE: matches torch: a module converts in place, so ``copy`` (by keyword, or a second
        # positional bool after ``non_blocking``) is refused, even ``copy=False``.
        if "copy" in kwargs or sum(isinstance(a, bool) for a in args) > 1:
            raise RuntimeError(".to() does not accept copy argument")
        device, dtype, non_blocking, _copy = _parse_to(args, dict(kwargs))
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError(
                    "nn.Module.to only accepts floating point or complex dtypes, but "
                    f"got desired dtype={dtype}"
                )
            if dtype.is_complex:
                # NOTE: matches torch: its warning, word for word but the issue tracker
                warnings.warn(
                    "Complex modules are a new feature under active development whose design "
                    "may change, and some modules might not work as expected when using "
                    "complex tensors as parameters or buffers.",
                    UserWarning,
                    stacklevel=2,
                )

        def convert(t):
            cast = dtype if t.is_floating_point() or t.is_complex() else None
            return t.to(device, cast, non_blocking)

        return self._apply(convert)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Move to ``device`` with new, uninitialized storage (e.g. to materialize a module
        built on ``meta``); call ``reset_parameters()`` or load a state_dict afterwards."""
        from ember.ops.creation import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    # NOTE: matches torch: each moves every tensor, so a CPU-only build raises what the
    # tensor method raises (xpu: torch's AssertionError; ipu, mtia: ember/_unsupported.py)
    def xpu(self, device=None) -> Module:
        return self._apply(lambda t: t.xpu(device))

    def ipu(self, device=None) -> Module:
        return self._apply(lambda t: t.ipu(device))

    def mtia(self, device=None) -> Module:
        return self._apply(lambda t: t.mtia(device))

    def compile(self, *args, **kwargs) -> None:
        """Compile the module's forward in place: ember has no compiler, so nothing changes
        (compilation must not change results; like ``ember.compile``, it runs eagerly)."""

    def type(self, dst_type) -> Module:
        """Cast every parameter and buffer to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    # ---- calling --------------------------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        # Fast path: with no hook of any kind, a call is just forward.
        if (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or _global_forward_pre_hooks
            or _global_forward_hooks
            or _global_backward_hooks
            or _global_backward_pre_hooks
        ):
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    __call__ = _call_impl

    def _call_with_hooks(self, args, kwargs):
        from ember.nn.modules._backward_hook import BackwardHook

        result = None
        called_always = set()
        try:
            full_bw, legacy_bw = [], []
            bw_pre = []
            if self._backward_pre_hooks or _global_backward_pre_hooks:
                bw_pre = self._get_backward_pre_hooks()
            if self._backward_hooks or _global_backward_hooks:
                full_bw, legacy_bw = self._get_backward_hooks()
            if _global_forward_pre_hooks or self._forward_pre_hooks:
                for hook_id, hook in (
                    *_global_forward_pre_hooks.items(),
                    *self._forward_pre_hooks.items(),
                ):
                    if hook_id in self._forward_pre_hooks_with_kwargs:
                        out = hook(self, args, kwargs)
                        if out is not None:
                            if isinstance(out, tuple) and len(out) == 2:
                                args, kwargs = out
                            else:
                                raise RuntimeError(
                                    "forward pre-hook must return None or a tuple of "
                                    f"(new_args, new_kwargs), but got {out}."
                                )
                    else:
                        out = hook(self, args)
                        if out is not None:
                            args = out if isinstance(out, tuple) else (out,)
            bw_hook = None
            if full_bw or bw_pre:
                bw_hook = BackwardHook(self, full_bw, bw_pre)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            if _global_forward_hooks or self._forward_hooks:
                for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                    if (
                        hook_id in self._forward_hooks_always_called
                        or hook_id in _global_forward_hooks_always_called
                    ):
                        called_always.add(hook_id)
                    if (
                        hook_id in self._forward_hooks_with_kwargs
                        or hook_id in _global_forward_hooks_with_kwargs
                    ):
                        out = hook(self, args, kwargs, result)
                    else:
                        out = hook(self, args, result)
                    if out is not None:
                        result = out
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a "
                        f"Tensor or a tuple of Tensors but received {type(result)}",
                        stacklevel=3,
                    )
                result = bw_hook.setup_output_hook(result)
            if legacy_bw:
                var = result
                while not isinstance(var, Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in legacy_bw:
                        grad_fn.register_hook(functools.partial(_legacy_backward_hook, hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result
        except Exception:
            # Forward hooks registered with always_call=True run even when forward raised.
            for hook_id, hook in _global_forward_hooks.items():
                if hook_id in _global_forward_hooks_always_called and hook_id not in called_always:
                    try:
                        out = hook(self, args, result)
                        if out is not None:
                            result = out
                    except Exception as e:
                        warnings.warn(
                            "global module forward hook with ``always_call=True`` "
                            "raised an exception that was silenced as another error "
                            f"was raised in forward: {e}",
                            stacklevel=3,
                        )
            for hook_id, hook in self._forward_hooks.items():
                if hook_id in self._forward_hooks_always_called and hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            out = hook(self, args, kwargs, result)
                        else:
                            out = hook(self, args, result)
                        if out is not None:
                            result = out
                    except Exception as e:
                        warnings.warn(
                            "module forward hook with ``always_call=True`` raised an "
                            "exception that was silenced as another error was raised "
                            f"in forward: {e}",
                            stacklevel=3,
                        )
            raise

    # ---- forward hooks --------------------------------------------------------------------------
    def register_forward_pre_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Register ``hook(module, args)`` (or ``hook(module, args, kwargs)`` with
        ``with_kwargs``) to run before ``forward``; it may return replacement args (or
        ``(args, kwargs)``)."""
        handle = _add_hook(
            self._forward_pre_hooks,
            hook,
            prepend=prepend,
            extra=self._forward_pre_hooks_with_kwargs,
        )
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> RemovableHandle:
        """Register ``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``)
        to run after ``forward``; a returned value replaces the output. With
        ``always_call`` the hook also runs when forward raises."""
        handle = _add_hook(
            self._forward_hooks,
            hook,
            prepend=prepend,
            extra=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    # ---- backward hooks -------------------------------------------------------------------------
    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(module, grad_output)`` to run when the gradients with respect to
        the module's outputs are known; a returned tuple replaces ``grad_output``."""
        return _add_hook(self._backward_pre_hooks, hook, prepend=prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(module, grad_input, grad_output)`` to run once the gradients with
        respect to the module's positional tensor inputs are computed; a returned tuple
        replaces ``grad_input``."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks "
                "on a single Module. Please use only one of them."
            )
        self._is_full_backward_hook = True
        return _add_hook(self._backward_hooks, hook, prepend=prepend)

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Deprecated (PyTorch too): the hook sees the gradients of the last operation in
        forward only. Use ``register_full_backward_hook``."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks "
                "on a single Module. Please use only one of them."
            )
        self._is_full_backward_hook = False
        return _add_hook(self._backward_hooks, hook)

    def _get_backward_hooks(self):
        full, legacy = [], []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _global_is_full_backward_hook is False:
            legacy += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            legacy += self._backward_hooks.values()
        return full, legacy

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn) -> None:
        # PyTorch's deprecation warnings for the cases where a legacy backward hook (which
        # sees only the last node of forward) misses part of grad_input or grad_output.
        if not isinstance(result, Tensor):
            if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not return a single "
                    "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                    "versions. This hook will be missing some of the grad_output. Please use "
                    "register_full_backward_hook to get the documented behavior.",
                    FutureWarning,
                    stacklevel=4,
                )
                return
        else:
            result = (result,)
        if not isinstance(inputs, Tensor):
            if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
                warnings.warn(
                    "Using non-full backward hooks on a Module that does not take as input a "
                    "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                    "future versions. This hook will be missing some of the grad_input. Please "
                    "use register_full_backward_hook to get the documented behavior.",
                    FutureWarning,
                    stacklevel=4,
                )
                return
        else:
            inputs = (inputs,)
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if not out_grad_fn or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn(
                "Using a non-full backward hook when outputs are nested in python data "
                "structure is deprecated and will be removed in future versions. This hook "
                "will be missing some grad_output.",
                FutureWarning,
                stacklevel=4,
            )
        elif len(out_grad_fn) > 1:
            warnings.warn(
                "Using a non-full backward hook when outputs are generated by different "
                "autograd Nodes is deprecated and will be removed in future versions. This "
                "hook will be missing some grad_output. Please use register_full_backward_hook "
                "to get the documented behavior.",
                FutureWarning,
                stacklevel=4,
            )
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn(
                    "Using a non-full backward hook when the forward contains multiple autograd "
                    "Nodes is deprecated and will be removed in future versions. This hook will "
                    "be missing some grad_input. Please use register_full_backward_hook to get "
                    "the documented behavior.",
                    FutureWarning,
                    stacklevel=4,
                )

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    # ---- state_dict -----------------------------------------------------------------------------
    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """Register ``hook(module, prefix, keep_vars)`` to run before ``state_dict`` saves."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """Register ``hook(module, state_dict, prefix, local_metadata)`` to run after
        ``state_dict``; it may modify the dict in place and must return None."""
        hook._from_public_api = True
        return _add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        # The older private API: the root module's hook may return a replacement dict.
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook "
                "that was previously registered via "
                "register_state_dict_post_hook"
            )
        return _add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """Register ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` to run before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        return _add_hook(
            self._load_state_dict_pre_hooks, functools.partial(hook, self) if with_module else hook
        )

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """Register ``hook(module, incompatible_keys)`` to run after loading; it may edit
        ``incompatible_keys`` in place (which ``strict`` then sees) and must return None."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        """Put this module's own state (not its children's) into ``destination``."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An ordered dict of the module's whole state: for each module in ``named_modules``
        order its parameters, then persistent buffers, then ``_extra_state``. Values share
        memory with the module (detached unless ``keep_vars``)."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.",
                FutureWarning,
                stacklevel=2,
            )
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            out = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if out is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif out is not None:
                destination = out
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        """Load this module's own entries (not its children's) from ``state_dict``; report
        problems by appending to the three lists. Override to convert old formats."""
        from ember.nn.parameter import is_lazy

        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        for k, v in self._buffers.items():
            if v is not None and k not in self._non_persistent_buffers_set:
                local_state[k] = v
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected '
                    "torch.Tensor or Tensor-like object from checkpoint but "
                    f"received {type(value)}"
                )
                continue
            lazy = is_lazy(param)
            if lazy and is_lazy(value):
                continue  # both uninitialized: nothing to copy
            if not lazy and param.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
                value = value[0]  # old checkpoints stored scalars as shape (1,)
            if not lazy and value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{value.shape} from checkpoint, the shape in current model "
                    f"is {param.shape}."
                )
                continue
            if param.is_meta and not value.is_meta and not assign:
                warnings.warn(
                    f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
                    "parameter in the current model, which is a no-op. (Did you mean to pass "
                    "`assign=True` to assign items in the state dictionary to their "
                    "corresponding key in the module instead of copying them in place?)",
                    stacklevel=3,
                )
            elif value.is_meta and not param.is_meta:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{value.size()}, an exception occurred : ('Cannot copy out of meta tensor; "
                    "no data!',)."
                )
                continue
            if assign:
                _queue_or_run(functools.partial(_assign_entry, self, name, param, value))
            else:
                _queue_or_run(functools.partial(_copy_entry, param, value))
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                _queue_or_run(functools.partial(_set_extra_state, self, state_dict[extra_key]))
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_key:
                    first = key[len(prefix) :].split(".", 1)[0]
                    if first not in self._modules and first not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and buffers from ``state_dict`` into this module and its children.

        With ``strict`` the keys must match exactly. Every problem (missing and unexpected
        keys, shape mismatches) is gathered into one ``RuntimeError``, and when it is raised
        the module is left exactly as it was. With ``assign`` the loaded tensors replace the
        module's own (keeping each parameter's ``requires_grad``), e.g. to fill a module built
        on ``meta``. Returns ``_IncompatibleKeys(missing_keys, unexpected_keys)``.
        """
        from collections.abc import Mapping

        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        visited: list[tuple[Module, int, int]] = []
        undo: list[Callable[[], None]] = []  # run in reverse if the load fails

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            if type(module)._load_from_state_dict is not Module._load_from_state_dict:
                # A custom loader may write directly instead of through super() (code ported
                # from PyTorch does): keep the module's own tensors to put back on failure.
                undo.append(_own_tensors_undo(module))
            module._load_from_state_dict(
                local_state_dict,
                prefix,
                local_metadata,
                True,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {
                        k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)
                    }
                    load(child, child_state, child_prefix)
            # Post-order, the order of PyTorch's post hooks, with how many keys were gathered
            # by then: in PyTorch a module's post hooks see only those.
            visited.append((module, len(missing_keys), len(unexpected_keys)))

        def rollback():
            for u in reversed(undo):
                u()

        # Phase 1: validate. Writes are queued, not done.
        pending: list = []
        outer = getattr(_load_tls, "pending", None)
        _load_tls.pending = pending
        try:
            load(self, state_dict)
        except BaseException:
            rollback()
            raise
        finally:
            _load_tls.pending = outer

        def failure():
            msgs = list(error_msgs)
            if strict:
                if unexpected_keys:
                    msgs.insert(
                        0,
                        "Unexpected key(s) in state_dict: {}. ".format(
                            ", ".join(f'"{k}"' for k in unexpected_keys)
                        ),
                    )
                if missing_keys:
                    msgs.insert(
                        0,
                        "Missing key(s) in state_dict: {}. ".format(
                            ", ".join(f'"{k}"' for k in missing_keys)
                        ),
                    )
            if msgs:
                return RuntimeError(
                    "Error(s) in loading state_dict for {}:\n\t{}".format(
                        type(self).__name__, "\n\t".join(msgs)
                    )
                )
            return None

        post_hooks = [v for v in visited if v[0]._load_state_dict_post_hooks]
        if not post_hooks or error_msgs:
            err = failure()
            if err is not None:
                rollback()
                raise err
        # Phase 2: write. User code can still fail here: set_extra_state, and post hooks (which
        # may also clear keys that strict would reject, so the outcome is known only after
        # they run). Every write that such code follows keeps what is needed to undo it.
        if post_hooks:
            guarded = len(pending)
        else:
            guarded = max(
                (
                    i
                    for i, action in enumerate(pending)
                    if getattr(action, "func", None) is _set_extra_state
                ),
                default=0,
            )
        try:
            for i, action in enumerate(pending):
                u = action(i < guarded)
                if u is not None:
                    undo.append(u)
            if post_hooks:
                self._run_load_post_hooks(post_hooks, missing_keys, unexpected_keys)
                err = failure()
                if err is not None:
                    raise err
        except BaseException:
            rollback()
            raise
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    @staticmethod
    def _run_load_post_hooks(post_hooks, missing_keys: list, unexpected_keys: list) -> None:
        """Run the load post hooks as PyTorch does, each module's once its subtree has loaded:
        ``missing_keys`` and ``unexpected_keys`` (edited in place) then hold only the keys
        gathered up to that module, minus what earlier hooks removed."""
        gathered = missing_keys[:], unexpected_keys[:]
        missing_keys.clear()
        unexpected_keys.clear()
        incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
        n_missing = n_unexpected = 0
        for module, upto_missing, upto_unexpected in post_hooks:
            missing_keys += gathered[0][n_missing:upto_missing]
            unexpected_keys += gathered[1][n_unexpected:upto_unexpected]
            n_missing, n_unexpected = upto_missing, upto_unexpected
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace."
                    )
        missing_keys += gathered[0][n_missing:]
        unexpected_keys += gathered[1][n_unexpected:]

    # ---- repr -----------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's repr parentheses (override; default empty)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def _replicate_for_data_parallel(self):
        replica = self.__new__(type(self))
        state = replica.__dict__
        state.update(self.__dict__)
        state["_parameters"] = {}
        state["_buffers"] = state["_buffers"].copy()
        state["_modules"] = state["_modules"].copy()
        state["_is_replica"] = True
        return replica


# ---- the writes that load_state_dict queues; each returns its undo when asked ------------------
def _copy_entry(param: Tensor, value: Tensor, want_undo: bool):
    old = param._data.copy() if want_undo else None
    with _gm.no_grad():
        param.copy_(value)
    if want_undo:

        def undo():
            with _gm.no_grad():
                param._data[...] = old

        return undo
    return None


def _assign_entry(module: Module, name: str, param: Tensor, value: Tensor, want_undo: bool):
    if isinstance(param, Parameter):
        if not isinstance(value, Parameter):
            value = Parameter(value, requires_grad=param.requires_grad)
        else:
            value.requires_grad_(param.requires_grad)
    with _gm.no_grad():
        setattr(module, name, value)
    if want_undo:

        def undo():
            if name in module._parameters:
                module._parameters[name] = param
            else:
                module._buffers[name] = param

        return undo
    return None


def _set_extra_state(module: Module, state, want_undo: bool):
    # The undo restores a deep copy of what get_extra_state returned before (a copy, since
    # set_extra_state may update that very object in place).
    keep = want_undo and type(module).get_extra_state is not Module.get_extra_state
    old = copy.deepcopy(module.get_extra_state()) if keep else None
    module.set_extra_state(state)
    if keep:
        return functools.partial(module.set_extra_state, old)
    return None


def _own_tensors_undo(module: Module) -> Callable[[], None]:
    """An undo for direct writes to ``module``'s own parameters and buffers: it puts back the
    same tensor objects in the same slots, holding the values they hold now."""
    from ember.nn.parameter import is_lazy

    slots = [(d, dict(d)) for d in (module._parameters, module._buffers)]
    values = [
        (t, t._data.copy())
        for _, saved in slots
        for t in saved.values()
        if t is not None and not is_lazy(t) and not t.is_meta
    ]

    def undo():
        for d, saved in slots:
            d.clear()
            d.update(saved)
        for t, old in values:
            if t._data.shape == old.shape and t._data.dtype == old.dtype:
                t._data[...] = old  # in place: views and aliases of t see the old values too
            else:
                t._data = old

    return undo


def _share_memory(t: Tensor) -> Tensor:
    # ember's CPU tensors have no separate shared-memory storage, so plain tensors have no
    # ``share_memory_``: they stay as they are. Tensors that define it (uninitialized ones,
    # which raise as in PyTorch) are asked.
    share = getattr(t, "share_memory_", None)
    return t if share is None else share()


def _legacy_backward_hook(hook, module, grad_input, grad_output):
    return hook(module, grad_input, grad_output)


_named_modules = Module.named_modules
