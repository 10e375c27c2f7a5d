"""``ember.optim``: PyTorch's optimizers (``torch.optim``) over ember tensors."""

from ember.optim import lr_scheduler as lr_scheduler
from ember.optim import swa_utils as swa_utils
from ember.optim.adadelta import Adadelta
from ember.optim.adagrad import Adagrad
from ember.optim.adam import Adam
from ember.optim.adamax import Adamax
from ember.optim.adamw import AdamW
from ember.optim.asgd import ASGD
from ember.optim.lbfgs import LBFGS
from ember.optim.nadam import NAdam
from ember.optim.optimizer import Optimizer
from ember.optim.radam import RAdam
from ember.optim.rmsprop import RMSprop
from ember.optim.rprop import Rprop
from ember.optim.sgd import SGD
from ember.optim.sparse_adam import SparseAdam

__all__ = ["Adam", "AdamW", "Optimizer", "SGD"]
__all__ += ["ASGD", "Adadelta", "Adagrad", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop"]
__all__ += ["LBFGS"]
__all__ += ["SparseAdam"]
from ember.optim.adafactor import Adafactor  # noqa: E402

__all__ += ["Adafactor"]
from ember.optim.muon import Muon  # noqa: E402

__all__ += ["Muon"]
from ember.optim._stateless import swap_in_optimizer_params_and_state  # noqa: E402

__all__ += ["swap_in_optimizer_params_and_state"]
