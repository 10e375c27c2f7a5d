"""``ember.jit``: TorchScript, which ember does not have, and the helpers model code calls.

``script``, ``trace``, ``save`` and ``load`` raise ``NotImplementedError``: TorchScript compiles
Python into torch's C++ graph IR, and ember has no such IR (its ops are Python over NumPy).
The helpers that ordinary model code calls work: ``is_scripting()`` and ``is_tracing()`` are
False (ember never scripts), ``ignore``/``unused``/``export`` return their function,
``annotate`` returns its value and ``Final`` is ``typing.Final``.

Example:
    >>> ember.jit.is_scripting()
    False
"""

from __future__ import annotations

import typing

__all__ = [
    "Final",
    "annotate",
    "export",
    "ignore",
    "is_scripting",
    "is_tracing",
    "load",
    "save",
    "script",
    "trace",
    "unused",
]

Final = typing.Final

# torch.jit is a package whose submodules (frontend, annotations, mobile...) are TorchScript
# internals: an empty search path makes ``import ember.jit.frontend`` reach ember's finder,
# which says why (ember/_unsupported.py), instead of "'ember.jit' is not a package"
__path__: list[str] = []

_REASON = (
    "ember has no TorchScript: it compiles Python into torch's C++ graph representation, "
    "which ember (Python over NumPy) does not have. Call the module or function directly"
)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Not available: raises ``NotImplementedError`` (ember has no TorchScript)."""
    raise NotImplementedError(f"{_REASON}; torch.jit.script is not available.")


def trace(func, example_inputs=None, *args, **kwargs):
    """Not available: raises ``NotImplementedError`` (ember has no TorchScript)."""
    raise NotImplementedError(f"{_REASON}; torch.jit.trace is not available.")


def save(m, f, _extra_files=None):
    """Not available: raises ``NotImplementedError``; save a state_dict with ``ember.save``."""
    raise NotImplementedError(f"{_REASON}; save the state_dict with torch.save instead.")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Not available: raises ``NotImplementedError`` (a TorchScript archive holds a program)."""
    raise NotImplementedError(
        f"{_REASON}; a TorchScript archive cannot be loaded. Load a state_dict saved with "
        "torch.save into the Python module instead."
    )


def is_scripting() -> bool:
    """False: code never runs under TorchScript in ember.

    Example:
        >>> ember.jit.is_scripting()
        False
    """
    return False


def is_tracing() -> bool:
    """False: code is never traced in ember."""
    return False


def ignore(drop=False, **kwargs):
    """Mark a function to be left to Python by TorchScript: returns it unchanged."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """Mark a method TorchScript should skip: returns it unchanged."""
    return fn


def export(fn):
    """Mark a method TorchScript should compile: returns it unchanged."""
    return fn


def annotate(the_type, the_value):
    """A type hint for TorchScript: returns ``the_value``."""
    return the_value
