"""``Fold`` and ``Unfold`` (PyTorch's ``torch.nn.modules.fold``): sliding local blocks in and
out of a batched image, over ``F.fold`` / ``F.unfold``."""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sums sliding blocks back into an image: ``(N, C * prod(kernel_size), L)`` (or unbatched
    ``(C * prod(kernel_size), L)``) to ``(N, C, *output_size)``; the adjoint of ``Unfold``.
    Each argument is an int or a pair.

    Example:
        >>> fold = ember.nn.Fold(output_size=(4, 5), kernel_size=(2, 2))
        >>> fold(ember.randn(1, 3 * 2 * 2, 12)).shape
        ember.Size([1, 3, 4, 5])
    """

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """Extracts sliding blocks: ``(N, C, H, W)`` (or ``(C, H, W)``) to
    ``(N, C * prod(kernel_size), L)``, column ``l`` holding block ``l`` flattened. Each
    argument is an int or a pair.

    Example:
        >>> unfold = ember.nn.Unfold(kernel_size=(2, 3))
        >>> unfold(ember.randn(2, 5, 3, 4)).shape
        ember.Size([2, 30, 4])
    """

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )
