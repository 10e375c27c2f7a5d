"""Names that load on first use, so ``import ember`` does not pay for them.

Two kinds, both read from tables that cost nothing to look up:

- A package's names: ``lazy_getattr(module_name, table)`` makes a module ``__getattr__`` (it
  runs only on a miss). ``table`` maps a name to ``"package.module"`` (the submodule itself),
  ``"package.module:attr"`` (an attribute of it) or ``"package.module:attr[key]"`` (an entry of
  a dict attribute). The value is stored in the package on first access, so later lookups are
  plain attribute reads.
- ``Tensor`` methods and properties that a lazily loaded module attaches:
  ``attach_lazy_attrs(cls, table)`` puts a stand-in (``LazyAttr``) under each name; the first
  access imports the module, whose own ``Tensor.name = ...`` replaces the stand-in, and answers
  with the real attribute. From then on the stand-in is gone.

Which modules load lazily, and the names each brings, is generated into ``ember/_lazy_table.py``
by ``tools/gen_lazy_table.py`` (``tests/test_lazy_import.py`` fails while it is stale).
"""

from __future__ import annotations

import importlib
import sys


def resolve(target: str):
    """The object a table entry names: ``"pkg.mod"``, ``"pkg.mod:attr"`` or
    ``"pkg.mod:attr[key]"``."""
    path, _, attr = target.partition(":")
    value = importlib.import_module(path)
    if attr:
        attr, _, key = attr.partition("[")
        value = getattr(value, attr)
        if key:
            value = value[key[:-1]]
    return value


def names(namespace: str) -> dict[str, str]:
    """The names of ``namespace`` that load on first use, as ``{name: target}`` for
    ``lazy_getattr``, from ember/_lazy_table.py (which lists them per module, ``name`` or
    ``name=attr`` where the module's attribute has another name)."""
    from ember import _lazy_table

    table = {}
    for module, listed in _lazy_table.NAMES[namespace].items():
        for entry in listed.split():
            name, _, attr = entry.partition("=")
            table[name] = f"{module}:{attr or name}"
    return table


def lazy_getattr(module_name: str, table: dict[str, str], fallback=None):
    def __getattr__(name: str):
        target = table.get(name)
        if target is None:
            if fallback is not None:
                return fallback(name)
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = resolve(target)
        setattr(sys.modules[module_name], name, value)
        return value

    return __getattr__


def lazy_dir(module_globals: dict, table: dict[str, str]):
    def __dir__():
        return sorted(set(module_globals) | set(table))

    return __dir__


class LazyAttr:
    """Stands in for a class attribute until the module that defines it is imported.

    A data descriptor (it has ``__set__``), so it also stands in for properties: reading,
    writing or deleting the attribute on a class or an instance first imports the module."""

    __slots__ = ("owner", "name", "module")

    def __init__(self, owner: type, name: str, module: str):
        self.owner, self.name, self.module = owner, name, module

    def _load(self) -> None:
        importlib.import_module(self.module)
        if self.owner.__dict__.get(self.name) is self:
            raise RuntimeError(
                f"{self.module} did not define {self.owner.__name__}.{self.name}: "
                "ember/_lazy_table.py is stale (run tools/gen_lazy_table.py)"
            )

    def __get__(self, obj, cls=None):
        self._load()
        return getattr(cls if obj is None else obj, self.name)

    def __set__(self, obj, value) -> None:
        self._load()
        setattr(obj, self.name, value)

    def __delete__(self, obj) -> None:
        self._load()
        delattr(obj, self.name)

    def __repr__(self) -> str:
        return f"<{self.owner.__name__}.{self.name}, loaded from {self.module} on first use>"


def attach_lazy_attrs(cls: type, table: dict[str, str]) -> None:
    """Put a ``LazyAttr`` on ``cls`` for each name of each module in ``table``
    (``{module: "name name..."}``); a module already imported has attached its own."""
    for module, listed in table.items():
        if module in sys.modules:
            continue
        for name in listed.split():
            setattr(cls, name, LazyAttr(cls, name, module))
