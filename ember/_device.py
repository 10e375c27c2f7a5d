"""``ember.device`` and the default-device context (``with ember.device("meta"): ...``)."""

from __future__ import annotations

import threading

_TYPES = ("cpu", "meta", "cuda")


class device:
    """Where a tensor's data lives: ``device("cpu")``, ``device("meta")``, ``device("cuda", 0)``.

    Also a context manager that makes itself the default device of factory functions and of
    modules built inside the ``with`` block::

        with ember.device("meta"):
            x = ember.zeros(10**10)  # no memory allocated
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None):  # noqa: A002  (PyTorch's name)
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(f"device() expects a string like 'cpu' or 'cuda:0', got {type!r}")
        name = type
        if ":" in name:
            if index is not None:
                raise ValueError(f"device string {name!r} already has an index; got index={index}")
            name, _, idx = name.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"invalid device string {type!r}: the index must be a number")
            index = int(idx)
        if name not in _TYPES:
            raise RuntimeError(
                f"Expected one of cpu, cuda, meta device type at start of device string: {type}"
            )
        self.type, self.index = name, index

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self) -> device:
        _state.stack = (*_state.stack, _state.default)
        _state.default = self
        return self

    def __exit__(self, *exc) -> None:
        *rest, _state.default = _state.stack
        _state.stack = tuple(rest)


class _State(threading.local):
    default: device | None = None
    stack: tuple = ()


_state = _State()
CPU = device("cpu")
META = device("meta")


def as_device(d) -> device:
    """Normalize ``None`` (the default device), a string or an int (cuda index) to a ``device``."""
    if d is None:
        return _state.default or CPU
    if d.__class__ is device:
        return d
    if isinstance(d, str):
        return CPU if d == "cpu" else META if d == "meta" else device(d)
    if isinstance(d, int) and not isinstance(d, bool):
        return device("cuda", d)
    raise TypeError(f"expected a device, a string like 'cpu' or an index, got {d!r}")


def get_default_device() -> device:
    return _state.default or CPU


def set_default_device(d) -> None:
    _state.default = None if d is None else as_device(d)
