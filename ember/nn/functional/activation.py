"""``ember.nn.functional``: activation functions (relu, gelu, elu, softplus, hardtanh, glu...)
and softmax/log_softmax/softmin.

The element-wise activations are single primitive ops (``ember/ops/activation.py``); the
functions here check arguments as PyTorch does and pick the in-place form.
"""

from __future__ import annotations

import warnings

from ember import _autocast as _ac
from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.ops import activation as _act
from ember.ops import math as _math
from ember.ops import softmax as _softmax
from ember.ops._dispatch import unary
from ember.ops._elementwise import _check
from ember.ops.creation import empty_like as _empty_like
from ember.ops.creation import zeros_like as _zeros_like
from ember.ops.pointwise import inplace as _inplace
from ember.tensor import Tensor, _wrap_dim

__all__ = [
    "relu",
    "relu_",
    "relu6",
    "leaky_relu",
    "leaky_relu_",
    "prelu",
    "rrelu",
    "rrelu_",
    "elu",
    "elu_",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "gelu",
    "silu",
    "mish",
    "softplus",
    "softsign",
    "hardtanh",
    "hardtanh_",
    "hardsigmoid",
    "hardswish",
    "logsigmoid",
    "tanhshrink",
    "softshrink",
    "hardshrink",
    "threshold",
    "threshold_",
    "glu",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "softmin",
    "gumbel_softmax",
]

_TORCH_NAME = _dtype.SCALAR_NAMES


def _floating(input, op: str, kernel: str) -> Tensor:
    """``input`` if it is a floating tensor; PyTorch's errors otherwise."""
    dt = _check(input, op)._data.dtype
    if dt.kind not in "fV":
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_TORCH_NAME.get(dt.name, dt.name)}': {op} "
            f"needs a floating-point input; call .float() first"
        )
    return input


def _tensor(input, op: str) -> Tensor:
    return _check(input, op)


def _no_negative_inplace(input: Tensor, value: float, op: str) -> None:
    # NOTE: matches torch: an in-place form with a negative slope cannot be differentiated
    # (the output no longer tells the sign of the input); PyTorch raises in backward, ember as
    # soon as the graph would be recorded.
    if value < 0 and input._requires_grad and _gm.state.enabled:
        raise RuntimeError(
            f"In-place {op} backward calculation is triggered with a negative slope which is not "
            "supported. This is caused by calling in-place forward function with a negative "
            "slope, please call out-of-place version instead."
        )


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


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``; with ``dtype`` the input is converted first.

    Example:
        >>> ember.nn.functional.log_softmax(ember.zeros(2), dim=0)
        tensor([-0.6931, -0.6931])
    """
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _softmax.log_softmax(input, dim, dtype=dtype)


# ---- piecewise-linear --------------------------------------------------------------------
def _relu6(input: Tensor) -> Tensor:
    return unary(_act.Hardtanh, _tensor(input, "relu6"), 0.0, 6.0)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(input, 0), 6)`` element-wise (``hardtanh(input, 0, 6)``).

    Example:
        >>> ember.nn.functional.relu6(ember.tensor([-1.0, 3.0, 9.0]))
        tensor([0., 3., 6.])
    """
    return _relu6_(input) if inplace else _relu6(input)


_relu6_ = _inplace(_relu6)


def _leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return unary(
        _act.LeakyRelu, _floating(input, "leaky_relu", "leaky_relu_cpu"), float(negative_slope)
    )


_leaky_relu_inplace = _inplace(_leaky_relu)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` where positive, ``negative_slope * input`` elsewhere.

    Example:
        >>> ember.nn.functional.leaky_relu(ember.tensor([-1.0, 2.0]), 0.1)
        tensor([-0.1000,  2.0000])
    """
    if inplace:
        return leaky_relu_(input, negative_slope)
    return _leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place ``leaky_relu``."""
    _no_negative_inplace(_tensor(input, "leaky_relu_"), negative_slope, "leakyReLu")
    return _leaky_relu_inplace(input, negative_slope)


def _hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    _tensor(input, "hardtanh")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input._data.dtype == _dtype.bool._np:
        raise NotImplementedError("\"hardtanh\" not implemented for 'Bool'")
    return unary(_act.Hardtanh, input, min_val, max_val)


_hardtanh_inplace = _inplace(_hardtanh)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``input`` clamped to ``[min_val, max_val]``.

    Example:
        >>> ember.nn.functional.hardtanh(ember.tensor([-2.0, 0.5, 2.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    if inplace:
        return hardtanh_(input, min_val, max_val)
    return _hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place ``hardtanh``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh_inplace(input, min_val, max_val)


def _threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    _tensor(input, "threshold")
    return unary(_act.Threshold, input, threshold, value)


_threshold_inplace = _inplace(_threshold)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``input`` where ``input > threshold``, else ``value``.

    Example:
        >>> ember.nn.functional.threshold(ember.tensor([0.5, 2.0]), 1.0, -1.0)
        tensor([-1.,  2.])
    """
    if inplace:
        return _threshold_inplace(input, threshold, value)
    return _threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place ``threshold``."""
    return _threshold_inplace(input, threshold, value)


def _check_lambd(input: Tensor, lambd: float) -> None:
    if lambd < 0:
        name = _TORCH_NAME.get(input._data.dtype.name, input._data.dtype.name)
        top = {"Half": "65504", "Float": "3.40282e+38"}.get(name, "1.79769e+308")
        raise RuntimeError(
            f"lambda must be in range [0, {top}] for input dtype {name}, but found {lambd:g}"
        )


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between.

    Example:
        >>> ember.nn.functional.softshrink(ember.tensor([-1.0, 0.2, 1.0]))
        tensor([-0.5000,  0.0000,  0.5000])
    """
    _floating(input, "softshrink", "softshrink_cpu")
    _check_lambd(input, lambd)
    return unary(_act.Softshrink, input, float(lambd))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0.

    Example:
        >>> ember.nn.functional.hardshrink(ember.tensor([-1.0, 0.2, 1.0]))
        tensor([-1.,  0.,  1.])
    """
    _floating(input, "hardshrink", "hardshrink_cpu")
    return unary(_act.Hardshrink, input, float(lambd))


def _hardsigmoid(input: Tensor) -> Tensor:
    return unary(_act.Hardsigmoid, _floating(input, "hardsigmoid", "hardsigmoid_cpu"))


_hardsigmoid_inplace = _inplace(_hardsigmoid)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``.

    Example:
        >>> ember.nn.functional.hardsigmoid(ember.tensor([-4.0, 0.0, 4.0]))
        tensor([0.0000, 0.5000, 1.0000])
    """
    return _hardsigmoid_inplace(input) if inplace else _hardsigmoid(input)


def _rrelu(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    _floating(input, "rrelu", "rrelu_with_noise_out_cpu")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        # NOTE: matches torch: in eval mode the slope is the middle of [lower, upper]
        return unary(_act.LeakyRelu, input, (lower + upper) / 2)
    x = input._data
    noise = _empty_like(input.detach()).uniform_(lower, upper)._data
    # NOTE: matches torch: the random slope applies at x <= 0 (x == 0 included)
    noise[x > 0] = 1.0
    return unary(_act.Rrelu, input, noise)


_rrelu_inplace = _inplace(_rrelu)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Randomized leaky ReLU: in training each non-positive element gets a slope drawn from
    ``U(lower, upper)``; in eval the slope is ``(lower + upper) / 2``.

    Example:
        >>> ember.nn.functional.rrelu(ember.tensor([-1.0, 2.0]), 0.2, 0.4)
        tensor([-0.3000,  2.0000])
    """
    if inplace:
        return _rrelu_inplace(input, lower, upper, training)
    return _rrelu(input, lower, upper, training)


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """In-place ``rrelu``."""
    return _rrelu_inplace(input, lower, upper, training)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``max(0, x) + weight * min(0, x)``; ``weight`` holds one slope, or one per channel
    (dim 1 of ``input``).

    Example:
        >>> ember.nn.functional.prelu(ember.tensor([[-1.0, 2.0]]), ember.tensor([0.25]))
        tensor([[-0.2500,  2.0000]])
    """
    _tensor(input, "prelu")
    if not isinstance(weight, Tensor):
        raise TypeError(
            f"prelu(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}"
        )
    w = weight._data
    if w.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.ndim}"
        )
    channels = input._data.shape[1] if input._data.ndim >= 2 else 1
    if w.size != 1 and w.size != channels:
        raise RuntimeError(
            f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{w.size} and channel size = {channels}."
        )
    if _ac.on:  # autocast's lower-precision list
        input, weight = _ac.low(input, weight)
    _floating(input, "prelu", "prelu_cpu")
    return _act.Prelu.apply(input, weight)


# ---- smooth ------------------------------------------------------------------------------
def _elu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return unary(_act.Elu, _floating(input, "elu", "elu_cpu"), float(alpha), 1.0, 1.0)


_elu_inplace = _inplace(_elu)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` above 0, ``alpha * (exp(x) - 1)`` at or below.

    Example:
        >>> ember.nn.functional.elu(ember.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    if inplace:
        return elu_(input, alpha)
    return _elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``elu``."""
    _no_negative_inplace(_tensor(input, "elu_"), alpha, "elu")
    return _elu_inplace(input, alpha)


def _selu(input: Tensor) -> Tensor:
    return unary(
        _act.Elu, _floating(input, "selu", "elu_cpu"), _act.SELU_ALPHA, _act.SELU_SCALE, 1.0
    )


_selu_inplace = _inplace(_selu)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with SELU's fixed constants (alpha ~1.6733, scale ~1.0507).

    Example:
        >>> ember.nn.functional.selu(ember.tensor([1.0]))
        tensor([1.0507])
    """
    return _selu_inplace(input) if inplace else _selu(input)


def selu_(input: Tensor) -> Tensor:
    """In-place ``selu``."""
    return _selu_inplace(input)


def _celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    _floating(input, "celu", "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return unary(_act.Celu, input, float(alpha), 1.0, 1.0 / alpha)


_celu_inplace = _inplace(_celu)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Example:
        >>> ember.nn.functional.celu(ember.tensor([-1.0, 2.0]), alpha=2.0)
        tensor([-0.7869,  2.0000])
    """
    return _celu_inplace(input, alpha) if inplace else _celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``celu``."""
    return _celu_inplace(input, alpha)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)`` (Phi the standard normal CDF, through ``erf``); with
    ``approximate="tanh"``, ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.

    Example:
        >>> ember.nn.functional.gelu(ember.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.1587,  0.0000,  0.8413])
    """
    if approximate != "none" and approximate != "tanh":
        raise RuntimeError("approximate argument must be either none or tanh.")
    return unary(_act.Gelu, _floating(input, "gelu", "GeluKernelImpl"), approximate)


def _silu(input: Tensor) -> Tensor:
    try:
        x = _floating(input, "silu", "silu_cpu")
    except NotImplementedError:
        if input._data.dtype.kind != "c":
            raise
        if input.requires_grad and _gm.is_grad_enabled():
            raise RuntimeError(
                "silu does not support automatic differentiation for outputs with complex dtype."
            ) from None
        # NOTE: matches torch: complex silu computes, without autograd
        return input * input.sigmoid()
    return unary(_act.Silu, x)


_silu_inplace = _inplace(_silu)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (swish).

    Example:
        >>> ember.nn.functional.silu(ember.tensor([0.0, 1.0]))
        tensor([0.0000, 0.7311])
    """
    return _silu_inplace(input) if inplace else _silu(input)


def _mish(input: Tensor) -> Tensor:
    return unary(_act.Mish, _floating(input, "mish", "mish_cpu"))


_mish_inplace = _inplace(_mish)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``.

    Example:
        >>> ember.nn.functional.mish(ember.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8651])
    """
    return _mish_inplace(input) if inplace else _mish(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``.

    Example:
        >>> ember.nn.functional.softplus(ember.tensor([0.0, 30.0]))
        tensor([ 0.6931, 30.0000])
    """
    _floating(input, "softplus", "softplus_cpu")
    return unary(_act.Softplus, input, float(beta), float(threshold))


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, computed without overflow for large ``|x|``.

    Example:
        >>> ember.nn.functional.logsigmoid(ember.tensor([0.0]))
        tensor([-0.6931])
    """
    return unary(_act.LogSigmoid, _floating(input, "logsigmoid", "log_sigmoid_cpu"))


def _hardswish(input: Tensor) -> Tensor:
    return unary(_act.Hardswish, _floating(input, "hardswish", "hardswish_cpu"))


_hardswish_inplace = _inplace(_hardswish)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``.

    Example:
        >>> ember.nn.functional.hardswish(ember.tensor([-4.0, 1.0, 4.0]))
        tensor([-0.0000,  0.6667,  4.0000])
    """
    return _hardswish_inplace(input) if inplace else _hardswish(input)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``.

    Example:
        >>> ember.nn.functional.softsign(ember.tensor([1.0]))
        tensor([0.5000])
    """
    return _tensor(input, "softsign") / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``.

    Example:
        >>> ember.nn.functional.tanhshrink(ember.tensor([0.0]))
        tensor([0.])
    """
    return _tensor(input, "tanhshrink") - input.tanh()


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: ``a * sigmoid(b)`` for ``a, b`` the two halves of ``input`` along
    ``dim``.

    Example:
        >>> ember.nn.functional.glu(ember.tensor([1.0, 0.0]))
        tensor([0.5000])
    """
    _tensor(input, "glu")
    if input._data.dtype.kind == "c":
        cname = _TORCH_NAME[input._data.dtype.name]
        raise NotImplementedError(f"\"glu_cpu\" not implemented for '{cname}'")
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``softmax(-input)`` along ``dim``.

    Example:
        >>> ember.nn.functional.softmin(ember.zeros(2), dim=0)
        tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _softmax.softmax(-input, dim)


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A sample from the Gumbel-softmax distribution over ``dim``: ``softmax((logits + g) /
    tau)`` with ``g`` Gumbel(0, 1) noise; with ``hard=True`` the one-hot of its argmax, whose
    gradient is the soft sample's (straight-through).

    Example:
        >>> y = ember.nn.functional.gumbel_softmax(ember.zeros(2, 5), hard=True)
        >>> y.sum(-1)
        tensor([1., 1.])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_empty_like(logits.detach()).exponential_().log()
    y_soft = _softmax.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _zeros_like(logits.detach()).scatter_(dim, index, 1.0)
    # straight-through: the value of y_hard, the gradient of y_soft
    return y_hard - y_soft.detach() + y_soft
