"""``LazyModuleMixin``: modules whose parameter shapes come from their first input (PyTorch's
``torch.nn.modules.lazy``).

A lazy module holds ``UninitializedParameter`` / ``UninitializedBuffer`` entries until its first
call. Two hooks do the work, both registered in ``__init__`` and removed once the module is
initialized:

- a forward pre-hook (``_infer_parameters``) that calls ``initialize_parameters(*args,
  **kwargs)`` with the first call's inputs, checks nothing was left uninitialized and turns the
  instance into ``cls_to_become`` (``LazyLinear`` -> ``Linear``);
- a ``load_state_dict`` pre-hook (``_lazy_load_hook``) that materializes an uninitialized entry
  with the shape of the tensor being loaded into it, so the ordinary copy that follows works.

Until then, dtype and device conversions (``.to``, ``.double()``, ``.to("meta")``) work on the
uninitialized entries, and ``state_dict`` reports them as they are.
"""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict

from ember.autograd.function import RemovableHandle
from ember.autograd.grad_mode import no_grad
from ember.nn.parameter import is_lazy
from ember.tensor import Tensor

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """A mixin for modules whose parameters' shapes are inferred from the first input.

    Put it first among the bases (``class LazyLinear(LazyModuleMixin, Linear)``), create the
    parameters as ``UninitializedParameter`` (buffers as ``UninitializedBuffer``) and implement
    ``initialize_parameters(*args, **kwargs)``: it receives the first call's arguments and must
    ``materialize`` every uninitialized entry (then usually ``reset_parameters()``). After that
    first call the module is an ordinary one: its class becomes ``cls_to_become`` when that is
    set, and the lazy hooks are gone.

    Convert dtype and device (``.to(...)``, ``.double()``) before the first call: conversion
    works on uninitialized entries and the parameters are then created with that dtype and
    device. Loading a ``state_dict`` of initialized tensors into an uninitialized lazy module
    takes the shapes from the ``state_dict``.

    Example:
        >>> fc = ember.nn.LazyLinear(10)
        >>> fc.weight
        <UninitializedParameter>
        >>> fc(ember.ones(2, 5)).shape
        ember.Size([2, 10])
        >>> fc
        Linear(in_features=5, out_features=10, bias=True)
    """

    # The class an instance becomes once initialized (None: it stays what it is).
    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = _picklable(self._register_load_state_dict_pre_hook(self._lazy_load_hook))
        self._initialize_hook = _picklable(
            self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)
        )

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        # Uninitialized entries go in as they are (they cannot be detached: they have no data).
        for name, param in self._parameters.items():
            if param is not None:
                if not (keep_vars or is_lazy(param)):
                    param = param.detach()
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                if not (keep_vars or is_lazy(buf)):
                    buf = buf.detach()
                destination[prefix + name] = buf
        # NOTE: differs from torch, whose lazy override drops ``_extra_state`` (so a strict
        # load of its own state_dict then reports it missing); ember keeps Module's behaviour.
        from ember.nn.modules.module import _EXTRA_STATE_KEY_SUFFIX, Module

        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def _lazy_load_hook(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        """``load_state_dict`` pre-hook: give each uninitialized entry the shape of the
        initialized tensor about to be loaded into it; ``Module._load_from_state_dict`` then
        copies the values as for any module."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if param is None or key not in state_dict or not is_lazy(param):
                continue
            value = state_dict[key]
            # A value that is not a tensor is reported by Module._load_from_state_dict.
            if isinstance(value, Tensor) and not is_lazy(value):
                with no_grad():
                    param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Materialize the uninitialized parameters and buffers from the first call's inputs
        (``*args, **kwargs`` are the arguments of that call). Lazy modules implement this."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )

    def has_uninitialized_params(self) -> bool:
        """Whether any of this module's own parameters or buffers is still uninitialized."""
        return any(
            is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values())
        )

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        # The forward pre-hook: runs at the first call only, since it removes itself.
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a "
            "dummy forward pass to correctly initialize the modules"
        )


class _PicklableHandle(RemovableHandle):
    """A ``RemovableHandle`` that survives ``pickle`` and ``copy.deepcopy``.

    The lazy hooks' handles live in the module's ``__dict__``; a copy of the module must get
    handles that point at the copy's hook dicts (a copied weak reference would still point at
    the original's, and ``remove()`` would unhook the original), and weak references cannot
    be pickled. So the state is the dicts themselves, pickled or copied with the module, as
    PyTorch's ``RemovableHandle`` does for every handle.
    """

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        hooks, self.id, extras = state
        self.hooks_dict_ref = _weak(hooks)
        self.extra_dict_ref = tuple(_weak(d) for d in extras)


def _weak(d):
    # A dict that is gone when pickled comes back as a fresh empty one (nothing to remove).
    return weakref.ref(OrderedDict() if d is None else d)


def _picklable(handle: RemovableHandle) -> RemovableHandle:
    handle.__class__ = _PicklableHandle
    return handle
