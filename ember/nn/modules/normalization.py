"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm (PyTorch's
``torch.nn.modules.normalization``)."""

from __future__ import annotations

import numbers

from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.ops import normalization as _N
from ember.ops.creation import empty
from ember.tensor import Tensor

__all__ = ["CrossMapLRN2d", "GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"]


def _as_shape(normalized_shape) -> tuple:
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


def _affine_parameters(m: Module, shape: tuple, affine: bool, bias: bool, factory_kwargs) -> None:
    """Register ``weight`` and ``bias`` of ``shape`` (``bias`` None when not wanted), or both as
    None without ``affine``, as PyTorch's norm layers do."""
    m.register_parameter("weight", Parameter(empty(shape, **factory_kwargs)) if affine else None)
    m.register_parameter(
        "bias", Parameter(empty(shape, **factory_kwargs)) if affine and bias else None
    )


def _reset_affine(m: Module) -> None:
    # norms are not versioned (see ember.nn._default_init): weight 1, bias 0
    if m.weight is not None:
        init.ones_(m.weight)
    if getattr(m, "bias", None) is not None:
        init.zeros_(m.bias)


class LayerNorm(Module):
    """Normalize over the last dims (``normalized_shape``) to zero mean and unit variance,
    then an element-wise affine map (``weight`` 1 and ``bias`` 0 to start).

    Example:
        >>> m = ember.nn.LayerNorm(10)
        >>> m(ember.randn(20, 5, 10)).shape
        ember.Size([20, 5, 10])
        >>> m
        LayerNorm((10,), eps=1e-05, elementwise_affine=True, bias=True)
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]
    normalized_shape: tuple
    eps: float
    elementwise_affine: bool

    def __init__(
        self,
        normalized_shape,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class GroupNorm(Module):
    """Split ``num_channels`` into ``num_groups`` groups and normalize each group of each
    sample over its channels and spatial dims; then a per-channel affine map (``weight`` 1,
    ``bias`` 0 to start). Input ``(N, C, *)``.

    Example:
        >>> m = ember.nn.GroupNorm(3, 6)
        >>> m(ember.randn(20, 6, 10, 10)).shape
        ember.Size([20, 6, 10, 10])
        >>> m
        GroupNorm(3, 6, eps=1e-05, affine=True, bias=True)
    """

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]
    num_groups: int
    num_channels: int
    eps: float
    affine: bool

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, (num_channels,), affine, bias, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """Root-mean-square normalization over the last dims (``normalized_shape``):
    ``x / sqrt(mean(x ** 2) + eps) * weight``; ``eps=None`` is the machine epsilon of the
    input's dtype (float32's for float16).

    Example:
        >>> m = ember.nn.RMSNorm([2, 3])
        >>> m(ember.randn(2, 2, 3)).shape
        ember.Size([2, 2, 3])
        >>> m
        RMSNorm((2, 3), eps=None, elementwise_affine=True)
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]
    normalized_shape: tuple
    eps: float | None
    elementwise_affine: bool

    def __init__(
        self,
        normalized_shape,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, **factory_kwargs))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class LocalResponseNorm(Module):
    """Normalize each element by the squares of ``size`` neighbouring channels:
    ``x / (k + alpha / size * sum(x_j ** 2)) ** beta``. Input ``(N, C, *)``.

    Example:
        >>> m = ember.nn.LocalResponseNorm(2)
        >>> m(ember.randn(32, 5, 24, 24)).shape
        ember.Size([32, 5, 24, 24])
        >>> m
        LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    __constants__ = ["size", "alpha", "beta", "k"]
    size: int
    alpha: float
    beta: float
    k: float

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """Legacy local response normalization across channels of a 4-D ``(N, C, H, W)`` input:
    ``x / (k + alpha / size * sum of x^2 over nearby channels) ** beta``.

    Kept for PyTorch parity, including its windows: channel ``c`` sums channel 0 and channels
    ``c - (size - 1) // 2 .. c + (size - 1) // 2`` (roughly), and the gradient is PyTorch's
    hand-written one, which uses a shifted window (so it is not the exact derivative). For new
    code use ``LocalResponseNorm``.

    Example:
        >>> ember.nn.CrossMapLRN2d(3)(ember.ones(1, 4, 2, 2)).shape
        ember.Size([1, 4, 2, 2])
    """

    size: int
    alpha: float
    beta: float
    k: float

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        return _N._CrossMapLRN2dFn.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# ---- NLLLoss2d ---------------------------------------------------------------------------------
