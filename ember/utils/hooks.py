"""``ember.utils.hooks`` (PyTorch's ``torch.utils.hooks``): the handle every ``register_*hook``
returns. The class itself lives with the autograd hooks (``ember/autograd/function.py``)."""

from ember.autograd.function import RemovableHandle

__all__ = ["RemovableHandle"]
