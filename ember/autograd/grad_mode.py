"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

The flag is thread-local, as in PyTorch: a ``no_grad`` block in one thread does not switch off
recording in another. Each class works as a context manager and as a decorator.
"""

from __future__ import annotations

import functools
import inspect
import threading


class _State(threading.local):
    enabled = True
    inference = False


state = _State()


class _Anomaly:
    """The switches of ``autograd.detect_anomaly`` (anomaly_mode.py): one for the process, not
    per thread (NOTE: matches torch, whose anomaly mode is global)."""

    __slots__ = ("enabled", "check_nan")

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


anomaly = _Anomaly()


def is_grad_enabled() -> bool:
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _DecoratorContextManager:
    """Lets a grad-mode context manager decorate functions and generator functions."""

    def __call__(self, fn):
        if inspect.isclass(fn):
            raise TypeError(f"{type(self).__name__} decorates functions, not classes")
        if inspect.isgeneratorfunction(fn):

            @functools.wraps(fn)
            def gen_wrapper(*args, **kwargs):
                gen = fn(*args, **kwargs)
                with self.clone():
                    item = next(gen)
                while True:
                    try:
                        sent = yield item
                    except GeneratorExit:
                        gen.close()
                        raise
                    with self.clone():
                        try:
                            item = gen.send(sent)
                        except StopIteration as stop:
                            return stop.value

            return gen_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_DecoratorContextManager):
    """Disable gradient recording inside the block (or the decorated function).

    Example:
        >>> x = ember.ones(2, requires_grad=True)
        >>> with ember.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording inside the block, even within ``no_grad``."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set gradient recording on or off; takes effect at once, and as a context manager
    restores the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev

    def clone(self):
        return type(self)(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``; tensors made inside are inference tensors (``is_inference()``)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self.prev = (True, False)

    def __new__(cls, mode=True):
        # NOTE: matches torch: ``@inference_mode`` without parentheses also works.
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled, state.inference = False, True
        else:
            state.inference = False

    def __exit__(self, *exc) -> None:
        state.enabled, state.inference = self.prev

    def clone(self):
        return type(self)(self.mode)
