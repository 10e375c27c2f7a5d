"""Parametrizations of a module's tensors (PyTorch's ``torch.nn.utils.parametrize``).

``register_parametrization(m, "weight", P)`` moves ``m.weight`` into
``m.parametrizations.weight.original`` (or ``original0``, ``original1``... when ``P`` has a
``right_inverse`` returning several tensors) and makes ``m.weight`` a property computing
``P(original)`` on every read. As in PyTorch, the property lives on a per-instance subclass
named ``Parametrized<Class>`` (the module's ``__class__`` is swapped), so unparametrized
modules keep the plain attribute protocol and pay nothing.
"""

from __future__ import annotations

import collections.abc
import copy
import copyreg
from contextlib import contextmanager

import ember
from ember.nn.modules.container import ModuleDict, ModuleList
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.tensor import Tensor

__all__ = [
    "cached",
    "ParametrizationList",
    "register_parametrization",
    "is_parametrized",
    "remove_parametrizations",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Context manager: each parametrized tensor is computed once inside it and reused.

    Example:
        >>> m = ember.nn.Linear(3, 3)
        >>> _ = register_parametrization(m, "weight", ember.nn.Identity())
        >>> with cached():
        ...     m.weight is m.weight
        True
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, x) -> None:
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    # keeps ``dest``'s identity (optimizers hold it), as torch's ``set_``
    dest.set_(src)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor and its unparametrized original(s).

    Built by ``register_parametrization``; ``original`` (or ``original0``...) holds the
    tensor(s) the first parametrization is applied to.
    """

    def __init__(self, modules, original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape = original.shape
        original_dtype = original.dtype
        # the original becomes right_inverse(original), through every parametrization that
        # has one (the others count as the identity)
        with ember.no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            if original.device != new.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\n"
                    f"right_inverse(original).device: {new.device}"
                )
            with ember.no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, orig_i in enumerate(new):
                if not isinstance(orig_i, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        "(list, tuple...). "
                        f"Got element {i} of the sequence with type {type(orig_i).__name__}."
                    )
                if isinstance(original, Parameter):
                    orig_i = Parameter(orig_i, original.requires_grad)
                orig_i.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", orig_i)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\n"
                    f"parametrized dtype: {z.dtype}"
                )
            if z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\n"
                    f"parametrized shape: {z.shape}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Set the original(s) so that the parametrized tensor becomes ``value``."""
        with ember.no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}"
                    )
                _maybe_set(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors. "
                    f"Got {type(value).__name__}."
                )
            if len(value) != self.ntensors:
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors of length "
                    f"{self.ntensors}. Got a sequence of length {len(value)}."
                )
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors "
                        f"or reference-type opaques. Got element {i} of type "
                        f"{type(tensor).__name__}."
                    )
                if original_i.dtype != tensor.dtype:
                    raise ValueError(
                        f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                        f"while `original{i}` has dtype {original_i.dtype}"
                    )
                _maybe_set(original_i, tensor)

    def forward(self) -> Tensor:
        mods = list(self._modules.values())
        if self.is_tensor:
            x = mods[0](self.original)
        else:
            x = mods[0](*[getattr(self, f"original{i}") for i in range(self.ntensors)])
        for m in mods[1:]:
            x = m(x)
        return x


def _deepcopy(self, memo):
    # NOTE: matches torch: the default deepcopy of a parametrized module copies its __dict__
    # (the class is shared, so the property keeps working on the copy)
    obj = memo.get(id(self))
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _getstate(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _inject_new_class(module: Module) -> None:
    cls = module.__class__
    dct = {"__getstate__": _getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")
    key = (id(module), tensor_name)

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        return parametrization()

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` on its original.

    Args:
        module: the module holding the parameter or buffer.
        tensor_name: its name; registering again on the same name chains parametrizations.
        parametrization: a Module; an optional ``right_inverse`` maps a value back to
            the original(s).
        unsafe: skip the checks that the parametrization keeps the dtype and shape.

    Returns:
        ``module`` (its class is now ``Parametrized<Class>``).

    Example:
        >>> class Symmetric(ember.nn.Module):
        ...     def forward(self, x):
        ...         return x.triu() + x.triu(1).mT
        >>> m = register_parametrization(ember.nn.Linear(3, 3), "weight", Symmetric())
        >>> bool((m.weight == m.weight.T).all()), type(m).__name__
        (True, 'ParametrizedLinear')
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.dtype: {y.dtype}\n"
                    f"parametrization(module.{tensor_name}).dtype: {x.dtype}"
                )
            if x.shape != y.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.shape: {y.shape}\n"
                    f"parametrization(module.{tensor_name}).shape: {x.shape}"
                )
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(z, Tensor):
                        raise ValueError(
                            "parametrization.right_inverse must return a tensor. "
                            f"Got: {type(z).__name__}"
                        )
                    if z.dtype != y.dtype:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have "
                            f"the same dtype as module.{tensor_name}, unless the `unsafe` flag "
                            f"is enabled.\nmodule.{tensor_name}.dtype: {y.dtype}\n"
                            f"returned dtype: {z.dtype}"
                        )
                    if z.shape != y.shape:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have "
                            f"the same shape as module.{tensor_name}, unless the `unsafe` flag "
                            f"is enabled.\nmodule.{tensor_name}.shape: {y.shape}\n"
                            f"returned shape: {z.shape}"
                        )
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a "
            f"parametrized element with name '{tensor_name}'"
        )
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given).

    Example:
        >>> is_parametrized(ember.nn.Linear(2, 2))
        False
    """
    plists = module._modules.get("parametrizations") if isinstance(module, Module) else None
    if plists is None or not isinstance(plists, ModuleDict):
        return False
    if tensor_name is None:
        return len(plists) > 0
    return tensor_name in plists


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Remove the parametrizations on ``module.<tensor_name>``.

    Args:
        module: a parametrized module.
        tensor_name: the parametrized tensor.
        leave_parametrized: keep the current parametrized value (True) or the original.

    Returns:
        ``module``; its class goes back to the unparametrized one when nothing is left.

    Example:
        >>> m = ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 3))
        >>> type(remove_parametrizations(m, "weight")).__name__
        'Linear'
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with ember.no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                "that is parametrized in terms of a sequence of tensors."
            )
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before any parametrization was registered.

    Example:
        >>> m = ember.nn.utils.parametrizations.weight_norm(ember.nn.Linear(2, 2))
        >>> type_before_parametrizations(m).__name__
        'Linear'
    """
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    """Register ``from_module``'s parametrizations (all, or ``tensor_name``'s) on
    ``to_module``, sharing their original tensors.

    Example:
        >>> a = ember.nn.utils.parametrizations.orthogonal(ember.nn.Linear(3, 3))
        >>> b = transfer_parametrizations_and_params(a, ember.nn.Linear(3, 3))
        >>> b.parametrizations.weight.original is a.parametrizations.weight.original
        True
    """
    if is_parametrized(from_module):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            src = from_module.parametrizations[name]
            for param_func in src:
                register_parametrization(to_module, name, param_func)
            dst = to_module.parametrizations[name]
            if hasattr(src, "original"):
                dst.original = src.original
            else:
                i = 0
                while hasattr(src, f"original{i}"):
                    setattr(dst, f"original{i}", getattr(src, f"original{i}"))
                    i += 1
    return to_module
