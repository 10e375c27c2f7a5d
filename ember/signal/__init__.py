"""``ember.signal``: PyTorch's ``torch.signal`` (the window functions, ``signal.windows``)."""

from ember.signal import windows

__all__ = ["windows"]
