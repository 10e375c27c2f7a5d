"""Pooling layers: MaxPool, AvgPool, adaptive pooling, MaxUnpool, LPPool and FractionalMaxPool
(PyTorch's ``torch.nn.modules.pooling``). Each stores its arguments under PyTorch's names and
computes through one ``F`` call."""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]


def _ntuple(value, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n


# ---- max pooling -------------------------------------------------------------------------------
class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of the last dim: ``(N, C, L)`` or ``(C, L)`` to ``L_out =
    floor((L + 2*padding - dilation*(kernel_size-1) - 1) / stride) + 1`` (ceil with
    ``ceil_mode``). ``stride`` defaults to ``kernel_size``; ``return_indices`` also returns the
    positions of the maxima (for ``MaxUnpool1d``).

    Example:
        >>> ember.nn.MaxPool1d(2)(ember.tensor([[1., 3., 2., 0.]]))
        tensor([[3., 2.]])
    """

    def forward(self, input: Tensor):
        return F.max_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of the last two dims: ``(N, C, H, W)`` or ``(C, H, W)``;
    arguments as ``MaxPool1d``'s, each an int or a pair.

    Example:
        >>> ember.nn.MaxPool2d(2)(ember.randn(64, 32, 32, 32)).shape
        ember.Size([64, 32, 16, 16])
    """

    def forward(self, input: Tensor):
        return F.max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class MaxPool3d(_MaxPoolNd):
    """Max over sliding windows of the last three dims: ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``; arguments as ``MaxPool1d``'s, each an int or a triple.

    Example:
        >>> ember.nn.MaxPool3d(2)(ember.randn(1, 2, 4, 4, 4)).shape
        ember.Size([1, 2, 2, 2, 2])
    """

    def forward(self, input: Tensor):
        return F.max_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


# ---- average pooling --------------------------------------------------------------------------
class AvgPool1d(Module):
    """Mean over sliding windows of the last dim: ``(N, C, L)`` or ``(C, L)``. Zero
    ``padding`` counts in the mean when ``count_include_pad``.

    Example:
        >>> ember.nn.AvgPool1d(2)(ember.tensor([[1., 3., 2., 0.]]))
        tensor([[2., 1.]])
    """

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    __constants__ = [
        "kernel_size",
        "stride",
        "padding",
        "ceil_mode",
        "count_include_pad",
        "divisor_override",
    ]

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override=None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """Mean over sliding windows of the last two dims: ``(N, C, H, W)`` or ``(C, H, W)``;
    ``divisor_override`` divides each window's sum by that number instead of its size.

    Example:
        >>> ember.nn.AvgPool2d(2)(ember.arange(16.).reshape(1, 4, 4))
        tensor([[[ 2.5000,  4.5000],
                 [10.5000, 12.5000]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AvgPool3d(_AvgPoolNd):
    """Mean over sliding windows of the last three dims: ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``; arguments as ``AvgPool2d``'s.

    Example:
        >>> ember.nn.AvgPool3d(2)(ember.arange(8.).reshape(1, 2, 2, 2))
        tensor([[[[3.5000]]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


# ---- adaptive pooling -------------------------------------------------------------------------
class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Mean over ``output_size`` windows that split the last dim as evenly as possible.

    Example:
        >>> ember.nn.AdaptiveAvgPool1d(1)(ember.tensor([[1., 3., 2., 0.]]))
        tensor([[1.5000]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Adaptive mean pooling of the last two dims to ``output_size`` (an int, or a pair where
    None keeps that dim); ``AdaptiveAvgPool2d(1)`` is global average pooling.

    Example:
        >>> ember.nn.AdaptiveAvgPool2d((5, None))(ember.randn(1, 64, 8, 9)).shape
        ember.Size([1, 64, 5, 9])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Adaptive mean pooling of the last three dims to ``output_size``.

    Example:
        >>> ember.nn.AdaptiveAvgPool3d(1)(ember.randn(1, 2, 3, 4, 5)).shape
        ember.Size([1, 2, 1, 1, 1])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Maximum over ``output_size`` windows that split the last dim as evenly as possible;
    ``return_indices`` also returns the positions of the maxima.

    Example:
        >>> ember.nn.AdaptiveMaxPool1d(2)(ember.tensor([[1., 3., 2., 0.]]))
        tensor([[3., 2.]])
    """

    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of the last two dims to ``output_size`` (None keeps a dim).

    Example:
        >>> ember.nn.AdaptiveMaxPool2d((5, 7))(ember.randn(1, 64, 8, 9)).shape
        ember.Size([1, 64, 5, 7])
    """

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of the last three dims to ``output_size``.

    Example:
        >>> ember.nn.AdaptiveMaxPool3d(1)(ember.randn(1, 2, 3, 4, 5)).shape
        ember.Size([1, 2, 1, 1, 1])
    """

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


# ---- max unpooling ----------------------------------------------------------------------------
class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        n = self._n
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The inverse of ``MaxPool1d``: values placed at the indices ``MaxPool1d`` returned,
    zeros elsewhere; ``output_size`` picks among the input lengths that pool to this size.

    Example:
        >>> pool, unpool = ember.nn.MaxPool1d(2, return_indices=True), ember.nn.MaxUnpool1d(2)
        >>> unpool(*pool(ember.tensor([[1., 3., 2., 0.]])))
        tensor([[0., 3., 2., 0.]])
    """

    _n = 1

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool1d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool2d(_MaxUnpoolNd):
    """The inverse of ``MaxPool2d`` (see ``MaxUnpool1d``).

    Example:
        >>> pool, unpool = ember.nn.MaxPool2d(2, return_indices=True), ember.nn.MaxUnpool2d(2)
        >>> unpool(*pool(ember.randn(1, 3, 4, 4))).shape
        ember.Size([1, 3, 4, 4])
    """

    _n = 2

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool3d(_MaxUnpoolNd):
    """The inverse of ``MaxPool3d`` (see ``MaxUnpool1d``).

    Example:
        >>> pool, unpool = ember.nn.MaxPool3d(2, return_indices=True), ember.nn.MaxUnpool3d(2)
        >>> unpool(*pool(ember.randn(1, 2, 4, 4, 4))).shape
        ember.Size([1, 2, 4, 4, 4])
    """

    _n = 3

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return F.max_unpool3d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


# ---- power-average pooling --------------------------------------------------------------------
class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over the last dim: ``(sum over the window of x**p) ** (1/p)``
    (``p = norm_type``; p = 1 is sum pooling, large p approaches max pooling).

    Example:
        >>> ember.nn.LPPool1d(2, 2)(ember.tensor([[3., 4.]]))
        tensor([[5.]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )


class LPPool2d(_LPPoolNd):
    """Power-average pooling over the last two dims (see ``LPPool1d``).

    Example:
        >>> ember.nn.LPPool2d(1, 2)(ember.ones(1, 2, 2))
        tensor([[[4.]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )


class LPPool3d(_LPPoolNd):
    """Power-average pooling over the last three dims (see ``LPPool1d``).

    Example:
        >>> ember.nn.LPPool3d(1, 2)(ember.ones(1, 2, 2, 2))
        tensor([[[[8.]]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )


# ---- fractional max pooling ------------------------------------------------------------------
class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _n = 2

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices: bool = False,
        _random_samples=None,
    ) -> None:
        super().__init__()
        n = self._n
        name = type(self).__name__
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        # a buffer (None unless given): fixed offsets, saved in the state_dict as torch's
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling of ``(N, C, H, W)`` or ``(C, H, W)`` (``F.fractional_max_pool2d``):
    ``kernel_size`` windows at pseudo-random steps, to ``output_size`` or ``output_ratio``
    (in (0, 1)) times the input size. Offsets come from ember's generator unless
    ``_random_samples`` ``(N, C, 2)`` is given.

    Example:
        >>> m = ember.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
        >>> m(ember.randn(20, 16, 50, 32)).shape
        ember.Size([20, 16, 25, 16])
    """

    def forward(self, input: Tensor):
        return F.fractional_max_pool2d(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``
    (``F.fractional_max_pool3d``); ``_random_samples`` is ``(N, C, 3)``.

    Example:
        >>> m = ember.nn.FractionalMaxPool3d(3, output_size=(13, 12, 11))
        >>> m(ember.randn(2, 4, 50, 32, 16)).shape
        ember.Size([2, 4, 13, 12, 11])
    """

    _n = 3

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices: bool = False,
        _random_samples=None,
    ) -> None:
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
            isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)
        ):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(kernel_size, output_size, output_ratio, return_indices, _random_samples)

    def forward(self, input: Tensor):
        return F.fractional_max_pool3d(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )
