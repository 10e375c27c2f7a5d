"""``OptimizedModule``: what ``ember.compile(module)`` returns, as torch's does.

ember has no compiler, so the wrapper only forwards calls to the original module; it exists so
that a compiled model looks as it does in torch: its ``state_dict`` keys and parameter names
carry the ``_orig_mod.`` prefix (checkpoints of compiled models cross between the two
frameworks), its repr nests the original, ``model._orig_mod`` unwraps it, and attributes are
read from and written to the original.
"""

from __future__ import annotations

from ember.nn.modules.module import Module

# the wrapper's own attributes; every other name is read from and written to the original
_OWN = frozenset({"_orig_mod", "forward", "__dict__", "__class__"})


class OptimizedModule(Module):
    """A module compiled by ``ember.compile``: calls run the original module unchanged.

    Example:
        >>> m = ember.nn.Linear(2, 3)
        >>> c = ember.compile(m)
        >>> c._orig_mod is m, list(c.state_dict())
        (True, ['_orig_mod.weight', '_orig_mod.bias'])
    """

    def __init__(self, mod: Module) -> None:
        super().__init__()
        # NOTE: matches torch: the train/eval flag is the original's (read and set through)
        del self.__dict__["training"]
        self._modules["_orig_mod"] = mod

    def __len__(self) -> int:  # NOTE: matches torch: len() is the original's (indexing is not)
        return len(self._modules["_orig_mod"])

    def forward(self, *args, **kwargs):
        return self._modules["_orig_mod"](*args, **kwargs)

    def __getattr__(self, name: str):
        modules = self.__dict__.get("_modules")
        if modules is None or "_orig_mod" not in modules:  # mid-unpickling or copying
            raise AttributeError(f"'OptimizedModule' object has no attribute '{name}'")
        if name == "_orig_mod":
            return modules["_orig_mod"]
        return getattr(modules["_orig_mod"], name)

    def __setattr__(self, name: str, value) -> None:
        if name in _OWN or name in self.__dict__ or "_modules" not in self.__dict__:
            super().__setattr__(name, value)
        else:
            setattr(self._modules["_orig_mod"], name, value)

    def __delattr__(self, name: str) -> None:
        if name in self.__dict__ or name == "_orig_mod":
            super().__delattr__(name)
        else:
            delattr(self._modules["_orig_mod"], name)
