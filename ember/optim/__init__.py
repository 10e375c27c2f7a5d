"""``ember.optim``: PyTorch's optimizers (``torch.optim``) over ember tensors."""

from ember.optim.adam import Adam
from ember.optim.adamw import AdamW
from ember.optim.optimizer import Optimizer
from ember.optim.sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "SGD"]
