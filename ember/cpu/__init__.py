"""``ember.cpu``: the CPU as a device module, with the interface of ``torch.cuda``.

Device-generic code (``torch.get_device_module(device).synchronize()``) works on the CPU: the
CPU is always available, is one device, and has nothing to wait for.

Example:
    >>> ember.cpu.is_available(), ember.cpu.device_count(), ember.cpu.current_device()
    (True, 1, 'cpu')
"""

from __future__ import annotations

__all__ = [
    "is_available",
    "is_initialized",
    "synchronize",
    "current_device",
    "current_stream",
    "stream",
    "set_device",
    "device_count",
    "Stream",
    "StreamContext",
    "Event",
]


def is_available() -> bool:
    """True: the CPU is always available."""
    return True


def is_initialized() -> bool:
    """True: the CPU needs no initialization."""
    return True


def device_count() -> int:
    """1: the CPU counts as one device."""
    return 1


def current_device() -> str:
    """'cpu'."""
    return "cpu"


def set_device(device) -> None:
    """Accepted and ignored: there is only one CPU device."""


def synchronize(device=None) -> None:
    """Nothing to wait for: every CPU op has finished when it returns."""


class Stream:
    """The CPU's only stream (ops run in order, so streams change nothing)."""

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True

    def record_event(self, event=None):
        return event if event is not None else Event()

    def wait_event(self, event) -> None:
        pass


class Event:
    """A CPU event: always complete."""

    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass


_current = Stream()


def current_stream(device=None) -> Stream:
    """The CPU's stream."""
    return _current


class StreamContext:
    """Context that makes a stream current: nothing to switch on the CPU."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def stream(stream) -> StreamContext:
    """Run a block on ``stream``: a no-op on the CPU."""
    return StreamContext(stream)


from ember.cpu import amp  # noqa: E402,F401  (torch.cpu.amp)
