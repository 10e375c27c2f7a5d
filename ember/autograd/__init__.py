"""Reverse-mode automatic differentiation (``ember.autograd``)."""

from ember.autograd import anomaly_mode, engine, function, grad_mode  # noqa: F401
from ember.autograd._modes import (  # noqa: F401
    enforce_grad_layout_policy,
    is_multithreading_enabled,
    is_tensor_like,
    is_view_replay_enabled,
    set_multithreading_enabled,
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
    "Variable",
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
    "set_multithreading_enabled",
    "enforce_grad_layout_policy",
    "variable",
    "grad_mode",
]

# Loaded on first use, so that ``import ember`` stays fast: the submodules below and the names
# they provide here.
_LAZY_MODULES = ("forward_ad", "functional", "graph", "profiler", "variable")
_LAZY_NAMES = {
    "Variable": "ember.autograd.variable",
    "ProfilerActivity": "ember.profiler",
    "kineto_available": "ember.profiler",
}


def __getattr__(name):
    import importlib

    if name in _LAZY_MODULES:
        return importlib.import_module(f"ember.autograd.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))
