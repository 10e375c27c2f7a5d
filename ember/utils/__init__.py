"""``ember.utils`` (PyTorch's ``torch.utils``): ``hooks`` and ``data`` (datasets, samplers,
DataLoader)."""

import copyreg as _copyreg
import sys as _sys
import types as _types
import weakref as _weakref

from ember._lazy import lazy_dir as _lazy_dir
from ember._lazy import lazy_getattr as _lazy_getattr
from ember.utils import data, hooks  # noqa: F401

# these load on first use (import ember stays lean; tensorboard needs the optional package)
_LAZY = {
    m: f"ember.utils.{m}" for m in ("benchmark", "checkpoint", "dlpack", "tensorboard", "weak")
}
__getattr__ = _lazy_getattr(__name__, _LAZY)
__dir__ = _lazy_dir(globals(), _LAZY)

__all__ = ["checkpoint", "data", "deterministic", "dlpack", "hooks", "set_module", "swap_tensors"]
# not tensorboard: a star import would fail where the optional package is missing
__all__ += ["backcompat", "benchmark", "weak"]


def set_module(obj, mod) -> None:
    """Set ``obj.__module__`` to ``mod`` (for nicer reprs of re-exported objects).

    Example:
        >>> def f(): pass
        >>> ember.utils.set_module(f, "ember.nn"); f.__module__
        'ember.nn'
    """
    if not isinstance(mod, str):
        raise TypeError("The mod argument should be a string")
    obj.__module__ = mod


def swap_tensors(t1, t2) -> None:
    """Swap the contents of two tensors in place: afterwards ``t1`` has ``t2``'s data, dtype,
    shape, gradient, class and attributes, and the reverse, while each keeps its identity (so
    references held elsewhere, an optimizer's for instance, see the new contents).

    Example:
        >>> a, b = ember.zeros(2), ember.ones(3)
        >>> ember.utils.swap_tensors(a, b)
        >>> a.tolist(), b.tolist()
        ([1.0, 1.0, 1.0], [0.0, 0.0])
    """
    if _weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if _weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    t1_slots = set(_copyreg._slotnames(t1.__class__))
    t2_slots = set(_copyreg._slotnames(t2.__class__))
    if t1_slots != t2_slots:
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    # NOTE: differs from torch: torch also refuses tensors referenced elsewhere (its use count);
    # ember's tensor state lives entirely in the slots swapped here, so nothing is left behind.
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    missing = object()
    for slot in t1_slots:
        a, b = getattr(t1, slot, missing), getattr(t2, slot, missing)
        for target, value in ((t1, b), (t2, a)):
            if value is missing:
                if hasattr(target, slot):
                    delattr(target, slot)
            else:
                setattr(target, slot, value)


class _Deterministic(_types.ModuleType):
    """``ember.utils.deterministic``: the ``fill_uninitialized_memory`` switch."""

    _fill = True

    @property
    def fill_uninitialized_memory(self) -> bool:
        """Whether uninitialized memory (``empty``) is filled with a known value when
        ``ember.use_deterministic_algorithms(True)`` is on (default True). The switch keeps its
        value but does not act yet: ember's ``empty`` returns unfilled memory in either mode."""
        return type(self)._fill

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode) -> None:
        if not isinstance(mode, bool):
            raise RuntimeError(f"expected a bool, but got {type(mode).__name__}")
        type(self)._fill = mode


deterministic = _Deterministic(
    "ember.utils.deterministic", "Deterministic-mode switches (torch.utils.deterministic)."
)


class _BackcompatWarning:
    """One legacy-behaviour warning switch (``backcompat.broadcast_warning``...): the value is
    kept; ember, like current torch, has no legacy broadcast or keepdim behaviour to warn about."""

    def __init__(self, setter_name: str):
        self._setter_name = setter_name
        self._enabled = False

    def set_enabled(self, value) -> None:
        if not isinstance(value, bool):
            raise RuntimeError(
                f"{self._setter_name} expects a bool, but got {type(value).__name__}"
            )
        self._enabled = value

    def get_enabled(self) -> bool:
        return self._enabled

    enabled = property(get_enabled, set_enabled)


_BackcompatWarning.__name__ = _BackcompatWarning.__qualname__ = "Warning"
backcompat = _types.ModuleType(
    "ember.utils.backcompat", "Warning switches for legacy broadcast and keepdim behaviour."
)
backcompat.Warning = _BackcompatWarning
backcompat.broadcast_warning = _BackcompatWarning("set_backcompat_broadcast_warn")
backcompat.keepdim_warning = _BackcompatWarning("set_backcompat_keepdim_warn")

# module objects built here, not files: registered under their dotted names so that
# ``import ember.utils.deterministic`` finds them, as it finds torch's submodule files
_sys.modules[deterministic.__name__] = deterministic
_sys.modules[backcompat.__name__] = backcompat
