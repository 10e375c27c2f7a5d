"""ChannelShuffle (PyTorch's ``torch.nn.modules.channelshuffle``)."""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Interleaves the channels of ``groups`` groups (``F.channel_shuffle``).

    Example:
        >>> ember.nn.ChannelShuffle(2)(ember.arange(4.0).reshape(1, 4, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """

    __constants__ = ["groups"]
    groups: int

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
