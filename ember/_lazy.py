"""Names of a package that load on first use, so ``import ember`` does not pay for them.

``lazy_getattr(module_name, table)`` makes a module ``__getattr__`` (it runs only on a miss):
``table`` maps a name to ``"package.module"`` (the submodule itself) or
``"package.module:attr"`` (an attribute of it). The value is stored in the package on first
access, so later lookups are plain attribute reads.
"""

from __future__ import annotations

import importlib
import sys


def lazy_getattr(module_name: str, table: dict[str, str], fallback=None):
    def __getattr__(name: str):
        target = table.get(name)
        if target is None:
            if fallback is not None:
                return fallback(name)
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        path, _, attr = target.partition(":")
        value = importlib.import_module(path)
        if attr:
            value = getattr(value, attr)
        setattr(sys.modules[module_name], name, value)
        return value

    return __getattr__


def lazy_dir(module_globals: dict, table: dict[str, str]):
    def __dir__():
        return sorted(set(module_globals) | set(table))

    return __dir__
