"""``ember.utils.weak`` (PyTorch's ``torch.utils.weak``): weak references and weak-keyed
dictionaries that compare keys by identity, as tensors need (a tensor's ``==`` is elementwise,
so a plain ``weakref.WeakKeyDictionary`` cannot look tensors up).

Example:
    >>> from ember.utils.weak import WeakTensorKeyDictionary
    >>> d = WeakTensorKeyDictionary()
    >>> t = ember.zeros(2)
    >>> d[t] = "meta"
    >>> d[t], len(d)
    ('meta', 1)
    >>> del t
    >>> len(d)
    0
"""

from __future__ import annotations

import weakref
from collections.abc import MutableMapping

from ember.tensor import Tensor

__all__ = ["TensorWeakRef", "WeakIdRef", "WeakIdKeyDictionary", "WeakTensorKeyDictionary"]


class WeakIdRef(weakref.ref):
    """A weak reference hashed by its referent's ``id`` and equal to another only when both
    refer to the same live object (a dead reference equals only itself)."""

    __slots__ = ["_id"]

    def __init__(self, key, callback=None) -> None:
        self._id = id(key)
        super().__init__(key, callback)

    def __hash__(self) -> int:
        return self._id

    def __eq__(self, other) -> bool:
        a, b = self(), other()
        if a is not None and b is not None:
            return a is b
        return self is other


class WeakIdKeyDictionary(MutableMapping):
    """A mapping whose keys are held weakly and compared by identity; an entry disappears when
    its key is garbage-collected."""

    def __init__(self, dict=None, ref_type=WeakIdRef) -> None:  # noqa: A002 - torch's name
        self.data: dict = {}
        self.ref_type = ref_type
        selfref = weakref.ref(self)

        def remove(k) -> None:
            me = selfref()
            if me is not None:
                me.data.pop(k, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def __getitem__(self, key):
        return self.data[self.ref_type(key)]

    def __setitem__(self, key, value) -> None:
        self.data[self.ref_type(key, self._remove)] = value

    def __delitem__(self, key) -> None:
        del self.data[self.ref_type(key)]

    def __contains__(self, key) -> bool:
        try:
            wr = self.ref_type(key)
        except TypeError:
            return False
        return wr in self.data

    def __len__(self) -> int:
        return sum(1 for wr in list(self.data) if wr() is not None)

    def __iter__(self):
        # a snapshot: keys collected while iterating are skipped, not an error
        for wr in list(self.data):
            obj = wr()
            if obj is not None:
                yield obj

    def __repr__(self) -> str:
        return f"<{type(self).__name__} at {id(self):#x}>"

    def copy(self) -> WeakIdKeyDictionary:
        new = type(self)(ref_type=self.ref_type)
        for key, value in self.items():
            new[key] = value
        return new

    __copy__ = copy

    def get(self, key, default=None):
        return self.data.get(self.ref_type(key), default)

    def keyrefs(self) -> list:
        """The weak references to the keys."""
        return list(self.data)

    def setdefault(self, key, default=None):
        return self.data.setdefault(self.ref_type(key, self._remove), default)

    def pop(self, key, *args):
        return self.data.pop(self.ref_type(key), *args)

    def popitem(self):
        while True:
            wr, value = self.data.popitem()
            obj = wr()
            if obj is not None:
                return obj, value

    def update(self, dict=None, **kwargs) -> None:  # noqa: A002 - torch's name
        if dict is not None:
            items = dict.items() if hasattr(dict, "items") else dict
            for key, value in items:
                self[key] = value
        for key, value in kwargs.items():
            self[key] = value


# Tensors hash by identity already; the dictionary name says what it is for.
WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a tensor (``ref()`` gives the tensor, or None once it is gone)."""

    def __init__(self, tensor: Tensor) -> None:
        if not isinstance(tensor, Tensor):
            raise AssertionError(f"expected torch.Tensor, got {type(tensor)}.")
        self.ref = weakref.ref(tensor)

    def __call__(self):
        return self.ref()
