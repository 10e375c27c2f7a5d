"""User-allowed globals for the weights-only load (``add_safe_globals`` and its kin).

A global the user marks safe may do in a weights-only load what PyTorch's weights-only
unpickler lets it do: be named (GLOBAL), be called (REDUCE: ``f(*args)``), be instantiated
without ``__init__`` (NEWOBJ: ``cls.__new__(cls, *args)``) and have state set on its instances
(BUILD: ``__setstate__``, else ``__dict__`` update and ``setattr`` of slots). Modules that give
a shell (``sys``, ``os``, ``posix``, ``nt``) stay refused even when marked.
"""

from __future__ import annotations

import _compat_pickle
from collections.abc import Callable

BLOCKED_MODULES = ("sys", "os", "posix", "nt")

_marked: set = set()
_cache: list = [None, None]  # name -> object table of ``_marked`` and its objects' ids


class BadEntry(Exception):
    """Marks an error in the user's list (not in the file): the loader lets it through."""


class _BadEntryValue(BadEntry, ValueError):
    pass


class _BadEntryType(BadEntry, TypeError):
    pass


class UserCodeError(Exception):
    """Carries an exception raised by a marked global's own code out of the loader, which
    re-raises it as it is (PyTorch lets those through unchanged)."""

    def __init__(self, exc: BaseException):
        super().__init__(exc)
        self.exc = exc


def call_user(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as e:
        raise UserCodeError(e) from None


def _set(new: set) -> None:
    global _marked
    _marked = new
    _cache[0] = _cache[1] = None


def clear_safe_globals() -> None:
    """Forget every global marked safe with ``add_safe_globals``.

    Example:
        >>> ember.serialization.add_safe_globals([print])
        >>> ember.serialization.clear_safe_globals()
        >>> ember.serialization.get_safe_globals()
        []
    """
    _set(set())


def get_safe_globals() -> list[Callable | tuple[Callable, str]]:
    """The globals marked safe for the weights-only load (in no particular order).

    Example:
        >>> import collections
        >>> ember.serialization.add_safe_globals([collections.namedtuple])
        >>> ember.serialization.get_safe_globals() == [collections.namedtuple]
        True
        >>> ember.serialization.clear_safe_globals()
    """
    return list(_marked)


def add_safe_globals(safe_globals: list[Callable | tuple[Callable, str]]) -> None:
    """Mark classes and functions safe for ``ember.load(..., weights_only=True)``: the load may
    then call them, instantiate them (without ``__init__``, as pickle does) and set their
    instances' state.

    A checkpoint names each global ``"{module}.{qualname}"``; give ``(obj, "module.name")``
    where the file names it otherwise (a class saved from another module or under another
    library's name).

    Args:
        safe_globals: classes/functions, or ``(obj, "module.name")`` pairs.

    Example:
        >>> import fractions, io
        >>> buf = io.BytesIO()
        >>> ember.save({"ratio": fractions.Fraction(1, 3), "w": ember.ones(2)}, buf)
        >>> ember.serialization.add_safe_globals([fractions.Fraction])
        >>> _ = buf.seek(0)
        >>> ember.load(buf)["ratio"]
        Fraction(1, 3)
        >>> ember.serialization.clear_safe_globals()
    """
    _set(_marked.union(set(safe_globals)))


def remove_safe_globals(safe_globals) -> None:
    _set(_marked - set(safe_globals))


class safe_globals:
    """Mark globals safe for the weights-only load inside a ``with`` block only.

    Args:
        safe_globals: classes/functions, or ``(obj, "module.name")`` pairs.

    Example:
        >>> import decimal, io
        >>> buf = io.BytesIO()
        >>> ember.save([decimal.Decimal("1.5")], buf)
        >>> _ = buf.seek(0)
        >>> with ember.serialization.safe_globals([decimal.Decimal]):
        ...     ember.load(buf)
        [Decimal('1.5')]
        >>> ember.serialization.get_safe_globals()
        []
    """

    def __init__(self, safe_globals: list[Callable | tuple[Callable, str]]):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        remove_safe_globals(self.safe_globals)


def user_allowed() -> dict[str, object]:
    """``"module.name"`` -> object for the marked globals (checked as PyTorch checks them)."""
    table = _cache[0]
    if table is not None:
        return table
    table = {}
    for f in _marked:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise _BadEntryValue(
                    "Expected tuple of length 2 (global, str of callable full path), but got "
                    f"tuple of length: {len(f)}"
                )
            if type(f[1]) is not str:
                raise _BadEntryType(
                    "Expected second item in tuple to be str of callable full path, but got: "
                    f"{type(f[1])}"
                )
            f, name = f
            table[name] = f
        else:
            table[f"{f.__module__}.{f.__qualname__}"] = f
    _cache[0] = table
    _cache[1] = {id(v) for v in table.values()}
    return table


def user_ids() -> set[int]:
    """The ids of the marked globals (what REDUCE, NEWOBJ and BUILD check against)."""
    if _cache[1] is None:
        user_allowed()
    return _cache[1]


def fix_name(module: str, name: str) -> tuple[str, str]:
    """Python 2 names (``__builtin__.set``) as Python 3 spells them; pickle does the same."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


_STRINGS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "STRING"}
_STRINGS |= {"BINSTRING", "SHORT_BINSTRING"}


def globals_in_pickle(data: bytes) -> list[str]:
    """Every global ``data`` names, in order of first appearance, read statically (no code
    runs). A STACK_GLOBAL counts when its two strings are pushed right before it, as pickle
    writes them; one built at run time is not seen (as in PyTorch)."""
    found: dict[str, None] = {}
    recent: list = []
    try:
        import pickletools  # only when a file is scanned: import ember stays lean

        for op, arg, _ in pickletools.genops(data):
            if op.name == "GLOBAL":
                module, name = arg.split(" ", 1)
                module, name = fix_name(module, name)
                found[f"{module}.{name}"] = None
            elif op.name == "STACK_GLOBAL":
                if len(recent) >= 2 and all(isinstance(s, str) for s in recent[-2:]):
                    module, name = fix_name(recent[-2], recent[-1])
                    found[f"{module}.{name}"] = None
            if op.name in _STRINGS:
                recent.append(arg)
            elif op.name not in ("MEMOIZE", "BINPUT", "LONG_BINPUT", "PUT", "FRAME"):
                recent.clear()
    except ValueError as e:  # pickletools' error for a corrupt stream
        from pickle import UnpicklingError

        raise UnpicklingError(f"the pickle is corrupt: {e}") from None
    return list(found)
