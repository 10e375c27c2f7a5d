"""NumPy's public names for a backend namespace, less the submodules ember never uses."""

from __future__ import annotations

import numpy as _np

# `from numpy import *` would import these lazily loaded submodules too (f2py and testing among
# them): about a seventh of `import ember`'s time, for nothing ember calls.
_UNUSED_SUBMODULES = frozenset(
    {"char", "ctypeslib", "f2py", "ma", "polynomial", "rec", "strings", "testing", "typing"}
)


def numpy_names() -> dict:
    """``{name: object}`` for NumPy's ``__all__`` without the unused submodules."""
    return {name: getattr(_np, name) for name in _np.__all__ if name not in _UNUSED_SUBMODULES}
