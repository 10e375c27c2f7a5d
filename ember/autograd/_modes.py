"""The small switches of ``torch.autograd`` that have one meaningful value in ember:
multithreading of the backward (ember's engine runs backward on the calling thread), view
replay, Kineto and the gradient-layout policy; and ``is_tensor_like``."""

from __future__ import annotations

from ember.autograd.grad_mode import _DecoratorContextManager

# whether the user asked for a multithreaded backward (ember's is single-threaded either way)
_multithreading = [True]


class set_multithreading_enabled(_DecoratorContextManager):
    """Turn multithreaded backward on or off; takes effect at once, and as a context manager
    or decorator restores the previous setting on exit. ember's backward runs on the calling
    thread whatever the setting (the flag is kept for ``is_multithreading_enabled``).

    Example:
        >>> with ember.autograd.set_multithreading_enabled(False):
        ...     ember.autograd.is_multithreading_enabled()
        False
    """

    def __init__(self, mode: bool) -> None:
        self.prev = _multithreading[0]
        self.mode = bool(mode)
        _multithreading[0] = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _multithreading[0] = self.prev

    def clone(self):
        return type(self)(self.mode)


def is_multithreading_enabled() -> bool:
    """The setting of :class:`set_multithreading_enabled` (True by default).

    Example:
        >>> ember.autograd.is_multithreading_enabled()
        True
    """
    return _multithreading[0]


def is_view_replay_enabled() -> bool:
    """False: views of views are rebuilt from their base with ember's own view functions,
    never by replaying recorded view ops (torch's default is off too).

    Example:
        >>> ember.autograd.is_view_replay_enabled()
        False
    """
    return False


class enforce_grad_layout_policy(_DecoratorContextManager):
    """Context manager of torch's gradient-layout contract (accumulated gradients strided as
    their parameters). ember's accumulated gradients are row-major arrays of the parameter's
    shape whatever the setting, which is what the contract asks for contiguous parameters.

    Example:
        >>> with ember.autograd.enforce_grad_layout_policy(False):
        ...     pass
    """

    def __init__(self, enable: bool = True) -> None:
        self.enable = bool(enable)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        pass

    def clone(self):
        return type(self)(self.enable)


def is_tensor_like(inp) -> bool:
    """Whether ``inp`` is a tensor or an object whose type defines ``__torch_function__``.

    Example:
        >>> ember.autograd.is_tensor_like(ember.ones(1)), ember.autograd.is_tensor_like(6)
        (True, False)
    """
    from ember.tensor import Tensor

    return isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")
