"""Reverse-mode automatic differentiation (``ember.autograd``)."""

from ember.autograd import (  # noqa: F401
    anomaly_mode,
    engine,
    forward_ad,
    function,
    functional,
    grad_mode,
    graph,
)
from ember.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from ember.autograd.engine import backward, grad  # noqa: F401
from ember.autograd.function import Function, once_differentiable  # noqa: F401
from ember.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from ember.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401

# torch.autograd's names (GradcheckError, once_differentiable and the grad-mode queries are
# reachable here for ember's own code, as torch has them in its submodules)
__all__ = [
    "Function",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
]
