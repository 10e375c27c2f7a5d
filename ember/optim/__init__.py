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

__all__ = ["Adam", "AdamW", "Optimizer", "SGD"]
__all__ += ["ASGD", "Adadelta", "Adagrad", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop"]
__all__ += ["LBFGS"]
# SparseAdam, Adafactor, Muon and swap_in_optimizer_params_and_state load on first use
# (ember/_lazy.py).
from ember import _lazy  # noqa: E402

_LAZY = _lazy.names(__name__)
__all__ += list(_LAZY)
__getattr__ = _lazy.lazy_getattr(__name__, _LAZY)
__dir__ = _lazy.lazy_dir(globals(), _LAZY)
