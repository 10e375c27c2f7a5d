"""Flatten and Unflatten (PyTorch's ``torch.nn.modules.flatten``)."""

from __future__ import annotations

from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens dims ``start_dim`` to ``end_dim`` (inclusive) into one.

    Example:
        >>> ember.nn.Flatten()(ember.ones(32, 1, 5, 5)).shape
        ember.Size([32, 25])
    """

    __constants__ = ["start_dim", "end_dim"]
    start_dim: int
    end_dim: int

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expands dim ``dim`` into ``unflattened_size`` (a tuple or list of ints; one may be -1).

    Example:
        >>> ember.nn.Unflatten(1, (2, 5, 5))(ember.ones(2, 50)).shape
        ember.Size([2, 2, 5, 5])
    """

    __constants__ = ["dim", "unflattened_size"]
    dim: int

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                f"unflattened_size must be a tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        for i, s in enumerate(unflattened_size):
            if not isinstance(s, int):
                raise TypeError(
                    f"unflattened_size must be tuple of ints, but found element of "
                    f"type {type(s).__name__} at pos {i}"
                )
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
