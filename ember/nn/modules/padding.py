"""Padding layers (ZeroPad*, ConstantPad*, ReflectionPad*, ReplicationPad*, CircularPad*)
(PyTorch's ``torch.nn.modules.padding``): each holds its ``padding`` tuple (last dim first, as
``F.pad``) and calls ``F.pad`` once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]


def _ntuple(padding, n: int) -> tuple:
    # NOTE: matches torch: any iterable is taken as given (its length is checked by F.pad)
    if isinstance(padding, Iterable):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    """A padding layer of ``_dims`` dims in ``_mode``."""

    __constants__ = ["padding"]
    padding: Sequence[int]
    _mode = "constant"
    _dims = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]
    value: float

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim of a ``(C, W)`` or ``(N, C, W)`` input with ``value``; ``padding``
    is an int (both sides) or ``(left, right)``.

    Example:
        >>> ember.nn.ConstantPad1d(2, 3.5)(ember.zeros(1, 2, 3)).shape
        ember.Size([1, 2, 7])
    """

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with ``value``; ``padding`` is an int or ``(left, right, top,
    bottom)``.

    Example:
        >>> ember.nn.ConstantPad2d((3, 0, 2, 1), 3.5)(ember.zeros(1, 2, 2)).shape
        ember.Size([1, 5, 5])
    """

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with ``value``; ``padding`` is an int or ``(left, right, top,
    bottom, front, back)``.

    Example:
        >>> ember.nn.ConstantPad3d(1, 0.5)(ember.zeros(1, 2, 2, 2)).shape
        ember.Size([1, 4, 4, 4])
    """

    _dims = 3


class ZeroPad1d(ConstantPad1d):
    """``ConstantPad1d`` with zeros.

    Example:
        >>> ember.nn.ZeroPad1d((1, 2))(ember.ones(1, 2, 3)).shape
        ember.Size([1, 2, 6])
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """``ConstantPad2d`` with zeros.

    Example:
        >>> ember.nn.ZeroPad2d(1)(ember.ones(1, 1, 2, 2)).shape
        ember.Size([1, 1, 4, 4])
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """``ConstantPad3d`` with zeros.

    Example:
        >>> ember.nn.ZeroPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
        ember.Size([1, 1, 4, 4, 4])
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Mirrors the last dim about its edge elements (each pad must be smaller than the dim).

    Example:
        >>> ember.nn.ReflectionPad1d(2)(ember.arange(4.0).reshape(1, 1, 4))
        tensor([[[2., 1., 0., 1., 2., 3., 2., 1.]]])
    """

    _mode, _dims = "reflect", 1


class ReflectionPad2d(_PadNd):
    """Mirrors the last 2 dims about their edges; ``padding``: int or ``(l, r, t, b)``.

    Example:
        >>> ember.nn.ReflectionPad2d(1)(ember.ones(1, 1, 3, 3)).shape
        ember.Size([1, 1, 5, 5])
    """

    _mode, _dims = "reflect", 2


class ReflectionPad3d(_PadNd):
    """Mirrors the last 3 dims about their edges.

    Example:
        >>> ember.nn.ReflectionPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
        ember.Size([1, 1, 4, 4, 4])
    """

    _mode, _dims = "reflect", 3


class ReplicationPad1d(_PadNd):
    """Repeats the edge elements of the last dim.

    Example:
        >>> ember.nn.ReplicationPad1d((2, 1))(ember.arange(3.0).reshape(1, 1, 3))
        tensor([[[0., 0., 0., 1., 2., 2.]]])
    """

    _mode, _dims = "replicate", 1


class ReplicationPad2d(_PadNd):
    """Repeats the edges of the last 2 dims.

    Example:
        >>> ember.nn.ReplicationPad2d(2)(ember.ones(1, 1, 3, 3)).shape
        ember.Size([1, 1, 7, 7])
    """

    _mode, _dims = "replicate", 2


class ReplicationPad3d(_PadNd):
    """Repeats the edges of the last 3 dims.

    Example:
        >>> ember.nn.ReplicationPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
        ember.Size([1, 1, 4, 4, 4])
    """

    _mode, _dims = "replicate", 3


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        n = self._dims
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Wraps the last dim around (the start pads the end and the end the start).

    Example:
        >>> ember.nn.CircularPad1d((3, 1))(ember.arange(4.0).reshape(1, 1, 4))
        tensor([[[1., 2., 3., 0., 1., 2., 3., 0.]]])
    """

    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Wraps the last 2 dims around.

    Example:
        >>> ember.nn.CircularPad2d(1)(ember.ones(1, 1, 3, 3)).shape
        ember.Size([1, 1, 5, 5])
    """

    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Wraps the last 3 dims around.

    Example:
        >>> ember.nn.CircularPad3d(1)(ember.ones(1, 1, 2, 2, 2)).shape
        ember.Size([1, 1, 4, 4, 4])
    """

    _dims = 3
