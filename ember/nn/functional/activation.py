"""``ember.nn.functional``: activation functions (relu, gelu, elu, softplus, hardtanh, glu...)
and softmax/log_softmax/softmin."""

from __future__ import annotations

import warnings

from ember.ops import math as _math
from ember.ops import softmax as _softmax
from ember.tensor import Tensor

__all__ = ["relu", "relu_", "sigmoid", "tanh", "softmax", "log_softmax"]


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` element-wise; with ``inplace=True`` writes into ``input``.

    Example:
        >>> ember.nn.functional.relu(ember.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """
    return _math.relu_(input) if inplace else _math.relu(input)


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``."""
    return _math.relu_(input)


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-input))`` element-wise."""
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent element-wise."""
    return input.tanh()


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    # NOTE: matches torch: the legacy implicit dim (0 for 0-, 1- and 3-D inputs, else 1), with
    # its deprecation warning; ``stacklevel`` counts from this function, as PyTorch's does.
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``; with ``dtype`` the input is converted first.

    Example:
        >>> ember.nn.functional.softmax(ember.zeros(2), dim=0)
        tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _softmax.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype=None) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``; with ``dtype`` the input is converted first.

    Example:
        >>> ember.nn.functional.log_softmax(ember.zeros(2), dim=0)
        tensor([-0.6931, -0.6931])
    """
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _softmax.log_softmax(input, dim, dtype=dtype)
