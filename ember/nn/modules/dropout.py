"""Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout (PyTorch's
``torch.nn.modules.dropout``)."""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]
    p: float
    inplace: bool

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """In training, zero each element with probability ``p`` and scale the rest by
    ``1 / (1 - p)``; the identity in eval mode.

    Example:
        >>> m = ember.nn.Dropout(p=0.2)
        >>> m(ember.randn(20, 16)).shape
        ember.Size([20, 16])
        >>> m
        Dropout(p=0.2, inplace=False)
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Channel-wise dropout of ``(N, C, L)`` or ``(C, L)`` inputs (see ``F.dropout1d``).

    Example:
        >>> ember.nn.Dropout1d(0.2)(ember.randn(20, 16, 32)).shape
        ember.Size([20, 16, 32])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Channel-wise dropout of ``(N, C, H, W)`` inputs (see ``F.dropout2d``).

    Example:
        >>> ember.nn.Dropout2d(0.2)(ember.randn(20, 16, 32, 32)).shape
        ember.Size([20, 16, 32, 32])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Channel-wise dropout of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs (see
    ``F.dropout3d``).

    Example:
        >>> ember.nn.Dropout3d(0.2)(ember.randn(2, 4, 3, 3, 3)).shape
        ember.Size([2, 4, 3, 3, 3])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalizing statistics (see ``F.alpha_dropout``); the
    identity in eval mode.

    Example:
        >>> ember.nn.AlphaDropout(0.2)(ember.randn(20, 16)).shape
        ember.Size([20, 16])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (see ``F.feature_alpha_dropout``).

    Example:
        >>> ember.nn.FeatureAlphaDropout(0.2)(ember.randn(20, 16, 4, 4)).shape
        ember.Size([20, 16, 4, 4])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
