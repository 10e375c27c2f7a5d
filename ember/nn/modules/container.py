"""Containers: Modules that hold other modules or parameters (PyTorch's ``container.py``).

``Sequential``, ``ModuleList`` and ``ModuleDict`` keep their children in ``_modules``;
``ParameterList`` and ``ParameterDict`` keep Parameters in ``_parameters`` (and anything else as
a plain attribute), so everything they hold is registered exactly as if it had been assigned to
an attribute. List-like containers name their entries ``"0"``, ``"1"``, ...: that is what
``named_parameters`` and ``state_dict`` show (``"layers.3.weight"``).

The containers write their own dicts directly and never assign a plain ``list``/``dict`` to an
attribute, so ember's registration diagnostics (``RegistrationWarning``) never fire from here.
"""

from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections import abc as container_abcs
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice
from typing import Any

from ember.nn.modules.module import (
    Module,
    _global_backward_hooks,
    _global_backward_pre_hooks,
    _global_forward_hooks,
    _global_forward_pre_hooks,
    typename,
)
from ember.nn.parameter import Parameter
from ember.tensor import Tensor

_call_impl = Module._call_impl

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _renumber(modules: dict, insert_at: int | None = None, new: Module | None = None) -> None:
    """Rename the entries of ``modules`` to ``"0"``, ``"1"``, ... keeping their order, after
    putting ``new`` at position ``insert_at`` if given (as ``list.insert``). In place, so
    anyone holding the dict sees the change."""
    values = list(modules.values())
    if insert_at is not None:
        values.insert(insert_at, new)
    modules.clear()
    modules.update((str(i), m) for i, m in enumerate(values))


def _check_index(idx, size: int) -> int:
    """``idx`` as a non-negative position in a sequence of ``size``; IndexError outside it."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


def _indent_all(text: str, spaces: int) -> str:
    # NOTE: matches torch: ModuleList's repr indents every line after the first, blank ones
    # included (Module's repr leaves blank lines empty).
    first, *rest = text.split("\n")
    pad = " " * spaces
    return "\n".join([first] + [pad + line for line in rest])


def _set_member(module: Module, name: str, value) -> None:
    """``setattr(module, name, value)`` for the Parameter containers: Parameters and Modules
    are registered, other objects become plain attributes (without the registration
    diagnostics, which are about forgotten containers, not about a container's entries)."""
    if (
        isinstance(value, (Parameter, Module))
        or name in module._parameters
        or name in module._modules
        or name in module._buffers
    ):
        setattr(module, name, value)
    else:
        object.__setattr__(module, name, value)


class Container(Module):
    """Deprecated (as in PyTorch): subclass ``Module`` instead. Registers each keyword
    argument as a submodule."""

    def __init__(self, **kwargs: Any) -> None:
        warnings.warn(
            "`nn.Container` is deprecated. All of its functionality is now "
            "implemented in `nn.Module`. Subclass that instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class Sequential(Module):
    """A chain of modules: ``forward`` feeds its input to the first module and each module's
    output to the next, and returns the last output.

    Built from modules (named ``"0"``, ``"1"``, ...) or from one ``OrderedDict`` of named
    modules. It is also a list of its modules: indexing, slicing (a ``Sequential`` of the same
    class), assignment, deletion, ``append``/``insert``/``extend``/``pop``, ``+`` and ``*``.

    Example:
        >>> net = ember.nn.Sequential(ember.nn.Identity(), ember.nn.Identity())
        >>> len(net), net(ember.ones(2)).shape
        (2, ember.Size([2]))
    """

    _modules: dict[str, Module]

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _key_at(self, idx) -> str:
        return next(islice(self._modules, _check_index(idx, len(self)), None))

    def __getitem__(self, idx: int | slice) -> Module | Sequential:
        if isinstance(idx, slice):
            # NOTE: matches torch: a slice keeps the original names ("1", "2", or the
            # OrderedDict's keys); they are not renumbered.
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                delattr(self, key)
        else:
            delattr(self, self._key_at(idx))
        # NOTE: matches torch: after a deletion every entry is renamed "0", "1", ..., names
        # given by an OrderedDict included.
        _renumber(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        combined = Sequential()
        for layer in chain(self, other):
            combined.append(layer)
        return combined

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(offset + i), module)
        return self

    def _check_factor(self, other) -> None:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other: int) -> Sequential:
        """``other`` copies of this chain, one after another. The modules are shared, not
        copied (as in PyTorch): ``seq * 2`` applies each layer twice with the same weights."""
        self._check_factor(other)
        combined = Sequential()
        for i, module in enumerate(list(self) * other):
            combined.add_module(str(i), module)
        return combined

    def __rmul__(self, other: int) -> Sequential:
        return self.__mul__(other)

    def __imul__(self, other: int) -> Sequential:
        self._check_factor(other)
        # Unlike torch, which looks the originals up by "0", "1", ... and so raises KeyError
        # for a Sequential built from an OrderedDict, this takes them by position.
        original = list(self)
        offset = len(self)
        for _ in range(other - 1):
            for module in original:
                self.add_module(str(offset), module)
                offset += 1
        return self

    def pop(self, key: int | slice) -> Module | Sequential:
        """Remove the module (or the ``Sequential`` of modules, for a slice) at ``key`` and
        return it."""
        value = self[key]
        del self[key]
        return value

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` at position ``index`` (negative counts from the end), moving the
        later modules up by one; returns ``self``."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        if index == n:
            self._modules[str(n)] = module
            return self
        # torch shifts entries by their names "i-1" -> "i" (a KeyError for OrderedDict names);
        # inserting by position and renumbering gives the same result for numbered entries.
        _renumber(self._modules, index, module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Append every module of ``sequential`` (any iterable of modules); returns ``self``."""
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for module in self._modules.values():
            # ``module(input)`` without its frame when the call would be just ``forward``: the
            # checks of ``Module._call_impl``'s no-hook fast path, spelled out
            if type(module).__call__ is _call_impl and not (
                module._forward_pre_hooks
                or module._forward_hooks
                or module._backward_hooks
                or module._backward_pre_hooks
                or _global_forward_pre_hooks
                or _global_forward_hooks
                or _global_backward_hooks
                or _global_backward_pre_hooks
            ):
                input = module.forward(input)
            else:
                input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as submodules ``"0"``, ``"1"``, ... so that
    ``parameters()``, ``to()`` and ``state_dict()`` see them. It has no ``forward``: iterate
    over it in the owner's ``forward``.

    Example:
        >>> layers = ember.nn.ModuleList([ember.nn.Identity() for _ in range(3)])
        >>> layers.append(ember.nn.Identity())[-1]
        Identity()
    """

    _modules: dict[str, Module]

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def _key_at(self, idx) -> str:
        return str(_check_index(idx, len(self)))

    def __getitem__(self, idx: int | slice) -> Module | ModuleList:
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._key_at(idx))
        _renumber(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self) -> str:
        # Runs of consecutive entries with the same repr print once, as "(2-5): 4 x Linear(..)".
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list[list] = []  # [first index, last index, repr]
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = []
        for start, end, text in runs:
            if start == end:
                line = f"({start}): {text}"
            else:
                line = f"({start}-{end}): {end - start + 1} x {text}"
            lines.append(_indent_all(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``, as ``list.insert`` does (negative
        counts from the end; past either end means at that end)."""
        # torch shifts entries from len(self) down to index, which corrupts the list for a
        # negative index or one past the end; ember follows list.insert instead.
        if not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        _renumber(self._modules, index, module)

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: int | slice) -> Module | ModuleList:
        """Remove the module (or the ``ModuleList``, for a slice) at ``key`` and return it."""
        value = self[key]
        del self[key]
        return value

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append every module of the iterable ``modules``; returns ``self``."""
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


def _pairs(kind: str, items: Iterable) -> Iterator[tuple[Any, Any]]:
    """The ``(key, value)`` pairs of an iterable of pairs, checked as ``dict.update`` does."""
    for j, pair in enumerate(items):
        if not isinstance(pair, container_abcs.Iterable):
            raise TypeError(
                f"{kind} update sequence element #{j} should be Iterable; is {type(pair).__name__}"
            )
        if len(pair) != 2:
            raise ValueError(
                f"{kind} update sequence element #{j} has length {len(pair)}; 2 is required"
            )
        yield pair[0], pair[1]


class ModuleDict(Module):
    """An ordered dict of modules, registered as submodules under their keys.

    Insertion order is kept, and ``update`` keeps the order of the mapping or the pairs it is
    given. It has no ``forward``.

    Example:
        >>> heads = ember.nn.ModuleDict({"a": ember.nn.Identity()})
        >>> heads["b"] = ember.nn.Identity()
        >>> list(heads)
        ['a', 'b']
    """

    _modules: dict[str, Module]

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove ``key`` and return its module."""
        value = self[key]
        del self[key]
        return value

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        """Add or replace entries from a mapping (a ``dict``, ``OrderedDict`` or
        ``ModuleDict``) or an iterable of ``(key, module)`` pairs, in their order."""
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value "
                "pairs, but got " + type(modules).__name__
            )
        if isinstance(modules, (ModuleDict, container_abcs.Mapping)):
            pairs = modules.items()
        else:
            pairs = _pairs("ModuleDict", modules)
        for key, module in pairs:
            self[key] = module


def _tensor_entry(value, kind_of_dtype: str) -> str:
    """The text ParameterList/ParameterDict print for one entry."""
    if not isinstance(value, Tensor):
        return "Object of type: " + type(value).__name__
    size = "x".join(str(s) for s in value.size())
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"{kind} containing: [{kind_of_dtype} of size {size}{device}]"


class ParameterList(Module):
    """A list of Parameters, registered as ``"0"``, ``"1"``, ... so that ``parameters()``,
    optimizers, ``to()`` and ``state_dict()`` see them.

    A plain Tensor put in the list (by the constructor, ``append``, ``extend`` or item
    assignment) is wrapped into a ``Parameter`` (so it requires grad); other objects are kept
    as they are.

    Example:
        >>> ps = ember.nn.ParameterList([ember.zeros(2, 3)])
        >>> type(ps[0]).__name__, [n for n, _ in ps.named_parameters()]
        ('Parameter', ['0'])
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self += values

    def _key_at(self, idx) -> str:
        return str(_check_index(idx, len(self)))

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._key_at(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        # Every way of putting an entry in the list ends here, so this is the one place that
        # wraps plain tensors.
        key = self._key_at(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        _set_member(self, key, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def append(self, value: Any) -> ParameterList:
        """Add ``value`` at the end (a Tensor becomes a Parameter); returns ``self``."""
        index = len(self)
        object.__setattr__(self, "_size", index + 1)
        try:
            self[index] = value
        except BaseException:
            object.__setattr__(self, "_size", index)
            raise
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Append every element of the iterable ``values``; returns ``self``."""
        # A Tensor is iterable, but unpacking it into rows is never what is meant here.
        if not isinstance(values, container_abcs.Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        # NOTE: matches torch: the dtype prints as PyTorch spells it ("torch.float32"), so that
        # reprs compare equal across the two.
        lines = []
        for k, p in enumerate(self):
            dtype = f"torch.{p.dtype.name}" if isinstance(p, Tensor) else ""
            lines.append(f"  ({k}): " + _tensor_entry(p, dtype))
        return "\n".join(lines)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of Parameters, registered under their (string) keys.

    A plain Tensor put in the dict is wrapped into a ``Parameter``; other objects are kept as
    they are.

    Order: insertion order, and ``update`` keeps the order of an ``OrderedDict``, another
    ``ParameterDict`` or an iterable of pairs, but adds a plain ``dict``'s (or any other
    mapping's) entries sorted by key (as PyTorch does, which predates ordered dicts).

    Example:
        >>> pd = ember.nn.ParameterDict({"b": ember.zeros(1), "a": ember.zeros(1)})
        >>> list(pd)
        ['a', 'b']
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _check_key(key) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not "
                f"a string (type is '{type(key).__name__}'). Open an issue on "
                "github if you need non-string keys."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        # NOTE: matches torch: entries are attributes, so a missing key raises AttributeError.
        return getattr(self, self._check_key(key))

    def __setitem__(self, key: str, value: Any) -> None:
        # Every way of putting an entry in the dict ends here. Unlike torch, the key is
        # recorded only once the assignment succeeded, so a rejected one leaves no trace.
        self._check_key(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        _set_member(self, key, value)
        self._keys[key] = None

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same entries (the same Parameter objects)."""
        # An OrderedDict, because a plain dict would be sorted by update.
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any | None = None) -> Any:
        """``self[key]``, after inserting ``default`` there if ``key`` is absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every entry."""
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str) -> Any:
        """Remove ``key`` and return its value."""
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Remove the last inserted entry and return it as ``(key, value)``."""
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key: str, default: Any | None = None) -> Any:
        """``self[key]`` if ``key`` is present, else ``default``."""
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any | None = None) -> ParameterDict:
        """A new ParameterDict with ``keys``, each set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        return (self[k] for k in self._keys)

    def update(self, parameters: Mapping[str, Any] | Iterable) -> None:
        """Add or replace entries from a mapping or an iterable of ``(key, value)`` pairs
        (see the class docstring for the order)."""
        if not isinstance(parameters, container_abcs.Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of "
                "key/value pairs, but got " + type(parameters).__name__
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = parameters.items()
        elif isinstance(parameters, container_abcs.Mapping):
            # NOTE: matches torch: a plain dict's entries are added sorted by key.
            pairs = sorted(parameters.items())
        else:
            pairs = _pairs("ParameterDict", parameters)
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        # NOTE: matches torch: ParameterDict prints the tensor type ("torch.FloatTensor"),
        # ParameterList the dtype.
        lines = []
        for k, p in self.items():
            kind = typename(p) if isinstance(p, Tensor) else ""
            lines.append(f"  ({k}): " + _tensor_entry(p, kind))
        return "\n".join(lines)

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self
