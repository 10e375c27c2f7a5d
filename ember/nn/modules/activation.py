"""Activation layers (ReLU, GELU, Softmax, PReLU...) (PyTorch's ``torch.nn.modules.activation``).

Each layer stores its options under PyTorch's attribute names and computes through one
``ember.nn.functional`` call; ``extra_repr`` prints what PyTorch's prints. ``MultiheadAttention``
lives in ``attention.py``.
"""

from __future__ import annotations

import warnings

from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.ops.creation import empty
from ember.tensor import Tensor

__all__ = [
    "ReLU",
    "ReLU6",
    "LeakyReLU",
    "PReLU",
    "RReLU",
    "ELU",
    "SELU",
    "CELU",
    "GELU",
    "SiLU",
    "Mish",
    "Softplus",
    "Softsign",
    "Hardtanh",
    "Hardsigmoid",
    "Hardswish",
    "Sigmoid",
    "Tanh",
    "LogSigmoid",
    "Tanhshrink",
    "Softshrink",
    "Hardshrink",
    "Threshold",
    "GLU",
    "Softmax",
    "LogSoftmax",
    "Softmin",
    "Softmax2d",
]


class _Inplace(Module):
    """A parameterless activation with only an ``inplace`` option."""

    __constants__ = ["inplace"]
    inplace: bool

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    """``max(x, 0)`` element-wise; ``inplace=True`` overwrites the input.

    Example:
        >>> ember.nn.ReLU()(ember.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)


class SELU(_Inplace):
    """``scale * elu(x, alpha)`` with SELU's fixed constants.

    Example:
        >>> ember.nn.SELU()(ember.tensor([1.0]))
        tensor([1.0507])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class SiLU(_Inplace):
    """``x * sigmoid(x)``.

    Example:
        >>> ember.nn.SiLU()(ember.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)


class Mish(_Inplace):
    """``x * tanh(softplus(x))``.

    Example:
        >>> ember.nn.Mish()(ember.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6``.

    Example:
        >>> ember.nn.Hardsigmoid()(ember.tensor([0.0]))
        tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)

    def extra_repr(self) -> str:
        return ""  # NOTE: matches torch: the inplace option is not shown


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6``.

    Example:
        >>> ember.nn.Hardswish()(ember.tensor([1.0]))
        tensor([0.6667])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)

    def extra_repr(self) -> str:
        return ""  # NOTE: matches torch: the inplace option is not shown


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]``.

    Example:
        >>> ember.nn.Hardtanh(-2.0, 2.0)(ember.tensor([-3.0, 1.0, 3.0]))
        tensor([-2.,  1.,  2.])
    """

    __constants__ = ["min_val", "max_val", "inplace"]
    min_val: float
    max_val: float
    inplace: bool

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn(
                "keyword argument `min_value` is deprecated and renamed to `min_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value
        if max_value is not None:
            warnings.warn(
                "keyword argument `max_value` is deprecated and renamed to `max_val`",
                FutureWarning,
                stacklevel=2,
            )
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"
            )

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``.

    Example:
        >>> ember.nn.ReLU6()(ember.tensor([-1.0, 7.0]))
        tensor([0., 6.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    Example:
        >>> ember.nn.LeakyReLU(0.1)(ember.tensor([-1.0, 2.0]))
        tensor([-0.1000,  2.0000])
    """

    __constants__ = ["inplace", "negative_slope"]
    inplace: bool
    negative_slope: float

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class PReLU(Module):
    """``max(0, x) + weight * min(0, x)`` with a learned ``weight``: one slope shared by all
    channels (``num_parameters=1``) or one per channel (dim 1 of the input), each starting at
    ``init``.

    Example:
        >>> m = ember.nn.PReLU()
        >>> m(ember.tensor([-1.0, 2.0]))
        tensor([-0.2500,  2.0000], grad_fn=<PreluKernelBackward0>)
    """

    __constants__ = ["num_parameters"]
    num_parameters: int

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, **factory_kwargs))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Set every slope back to ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomized leaky ReLU: in training each non-positive element gets a slope drawn from
    ``U(lower, upper)``; in eval the slope is ``(lower + upper) / 2``.

    Example:
        >>> ember.nn.RReLU(0.2, 0.4).eval()(ember.tensor([-1.0, 2.0]))
        tensor([-0.3000,  2.0000])
    """

    __constants__ = ["lower", "upper", "inplace"]
    lower: float
    upper: float
    inplace: bool

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"


class ELU(Module):
    """``x`` above 0, ``alpha * (exp(x) - 1)`` at or below.

    Example:
        >>> ember.nn.ELU()(ember.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """

    __constants__ = ["alpha", "inplace"]
    alpha: float
    inplace: bool

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class CELU(ELU):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Example:
        >>> ember.nn.CELU(2.0)(ember.tensor([-1.0, 2.0]))
        tensor([-0.7869,  2.0000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class GELU(Module):
    """``x * Phi(x)``; ``approximate="tanh"`` uses the tanh approximation.

    Example:
        >>> ember.nn.GELU()(ember.tensor([1.0]))
        tensor([0.8413])
    """

    __constants__ = ["approximate"]
    approximate: str

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``.

    Example:
        >>> ember.nn.Softplus()(ember.tensor([0.0]))
        tensor([0.6931])
    """

    __constants__ = ["beta", "threshold"]
    beta: float
    threshold: float

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``.

    Example:
        >>> ember.nn.Threshold(1.0, -1.0)(ember.tensor([0.5, 2.0]))
        tensor([-1.,  2.])
    """

    __constants__ = ["threshold", "value", "inplace"]
    threshold: float
    value: float
    inplace: bool

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class _Shrink(Module):
    __constants__ = ["lambd"]
    lambd: float

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return str(self.lambd)


class Softshrink(_Shrink):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between.

    Example:
        >>> ember.nn.Softshrink()(ember.tensor([1.0]))
        tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class Hardshrink(_Shrink):
    """``x`` where ``|x| > lambd``, else 0.

    Example:
        >>> ember.nn.Hardshrink()(ember.tensor([0.2, 1.0]))
        tensor([0., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``.

    Example:
        >>> ember.nn.Sigmoid()(ember.tensor([0.0]))
        tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class Tanh(Module):
    """Hyperbolic tangent.

    Example:
        >>> ember.nn.Tanh()(ember.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class LogSigmoid(Module):
    """``log(sigmoid(x))``, stable for large ``|x|``.

    Example:
        >>> ember.nn.LogSigmoid()(ember.tensor([0.0]))
        tensor([-0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softsign(Module):
    """``x / (1 + |x|)``.

    Example:
        >>> ember.nn.Softsign()(ember.tensor([1.0]))
        tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)``.

    Example:
        >>> ember.nn.Tanhshrink()(ember.tensor([0.0]))
        tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class GLU(Module):
    """Gated linear unit ``a * sigmoid(b)`` over the two halves of ``dim``.

    Example:
        >>> ember.nn.GLU()(ember.tensor([1.0, 0.0]))
        tensor([0.5000])
    """

    __constants__ = ["dim"]
    dim: int

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class _DimSoftmax(Module):
    __constants__ = ["dim"]
    dim: int | None

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_DimSoftmax):
    """``exp(x) / sum(exp(x))`` along ``dim``.

    Example:
        >>> ember.nn.Softmax(dim=0)(ember.zeros(2))
        tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_DimSoftmax):
    """``log(softmax(x))`` along ``dim``, computed stably.

    Example:
        >>> ember.nn.LogSoftmax(dim=0)(ember.zeros(2))
        tensor([-0.6931, -0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmin(_DimSoftmax):
    """``softmax(-x)`` along ``dim``.

    Example:
        >>> ember.nn.Softmin(dim=0)(ember.zeros(2))
        tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of a ``(N, C, H, W)`` or ``(C, H, W)`` input.

    Example:
        >>> ember.nn.Softmax2d()(ember.zeros(2, 1, 1)).flatten()
        tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3, _stacklevel=5)


# NOTE: matches torch: MultiheadAttention is reachable from this module
# (``from torch.nn.modules.activation import MultiheadAttention``); ember defines it in
# attention.py, beside the functional it computes through.
from ember.nn.modules.attention import MultiheadAttention  # noqa: E402,F401
