"""Convolution layers: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their Lazy forms (PyTorch's
``torch.nn.modules.conv``)."""

from __future__ import annotations

from ember.autograd.grad_mode import no_grad
from ember.nn import functional as F
from ember.nn._default_init import reset_linear
from ember.nn.modules.lazy import LazyModuleMixin
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter, UninitializedParameter
from ember.ops.creation import empty
from ember.tensor import Tensor

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}


def _ntuple(v, n: int) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    """What Conv and ConvTranspose layers share: arguments, parameters, init, repr."""

    __constants__ = [
        "stride",
        "padding",
        "dilation",
        "groups",
        "padding_mode",
        "output_padding",
        "in_channels",
        "out_channels",
        "kernel_size",
    ]
    _num_dims = 0

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: tuple,
        stride: tuple,
        padding,
        dilation: tuple,
        transposed: bool,
        output_padding: tuple,
        groups: int,
        bias: bool,
        padding_mode: str,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                # NOTE: matches torch: the set is printed in its (hash-dependent) order
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for the non-zeros padding modes: (last dim's front, back, ...)
        n = len(kernel_size)
        if isinstance(padding, str):
            rev = [0, 0] * n
            if padding == "same":
                for i, (d, k) in enumerate(zip(dilation, kernel_size)):
                    total = d * (k - 1)
                    j = n - 1 - i
                    rev[2 * j], rev[2 * j + 1] = total // 2, total - total // 2
        else:
            rev = tuple(p for p in reversed(padding) for _ in range(2))
        self._reversed_padding_repeated_twice = rev
        shape = (
            (in_channels, out_channels // groups)
            if transposed
            else (out_channels, in_channels // groups)
        ) + tuple(kernel_size)
        self.weight = Parameter(empty(shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # version 1 (the default): PyTorch's kaiming_uniform_(a=sqrt(5)) on the weight, the bias
        # from U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = weight.shape[1] * prod(kernel)
        reset_linear(self.weight, self.bias)

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    _fn = None  # F.conv1d / conv2d / conv3d

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        n = self._num_dims
        super().__init__(
            in_channels,
            out_channels,
            _ntuple(kernel_size, n),
            _ntuple(stride, n),
            padding if isinstance(padding, str) else _ntuple(padding, n),
            _ntuple(dilation, n),
            False,
            (0,) * n,
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return type(self)._fn(
                F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                weight,
                bias,
                self.stride,
                0,
                self.dilation,
                self.groups,
            )
        return type(self)._fn(
            input, weight, bias, self.stride, self.padding, self.dilation, self.groups
        )

    def forward(self, input: Tensor) -> Tensor:
        p = self._parameters
        w = p["weight"] if "weight" in p else self.weight
        b = p["bias"] if "bias" in p else self.bias
        return self._conv_forward(input, w, b)


class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L) or (C_in, L) inputs: ``weight`` (C_out, C_in / groups,
    k), ``bias`` (C_out,); ``padding`` an int, a 1-tuple, ``'valid'`` or ``'same'``;
    ``padding_mode`` 'zeros', 'reflect', 'replicate' or 'circular'.

    Example:
        >>> m = ember.nn.Conv1d(16, 33, 3, stride=2)
        >>> m(ember.randn(20, 16, 50)).shape
        ember.Size([20, 33, 24])
    """

    _num_dims = 1
    _fn = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W) inputs: ``weight`` (C_out,
    C_in / groups, kH, kW), ``bias`` (C_out,); ``kernel_size``, ``stride``, ``padding`` and
    ``dilation`` ints or pairs (``padding`` also ``'valid'``/``'same'``); ``groups`` splits the
    channels (``groups=in_channels`` is a depthwise convolution).

    Example:
        >>> m = ember.nn.Conv2d(3, 32, 3, padding=1)
        >>> m
        Conv2d(3, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
        >>> m(ember.randn(2, 3, 16, 16)).shape
        ember.Size([2, 32, 16, 16])
    """

    _num_dims = 2
    _fn = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-D convolution over (N, C_in, D, H, W) or (C_in, D, H, W) inputs: ``weight`` (C_out,
    C_in / groups, kD, kH, kW).

    Example:
        >>> m = ember.nn.Conv3d(2, 4, 3, padding=1)
        >>> m(ember.randn(1, 2, 5, 5, 5)).shape
        ember.Size([1, 4, 5, 5, 5])
    """

    _num_dims = 3
    _fn = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _fn = None

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        n = self._num_dims
        super().__init__(
            in_channels,
            out_channels,
            _ntuple(kernel_size, n),
            _ntuple(stride, n),
            _ntuple(padding, n),
            _ntuple(dilation, n),
            True,
            _ntuple(output_padding, n),
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )

    def _output_padding(
        self,
        input: Tensor,
        output_size,
        stride,
        padding,
        kernel_size,
        num_spatial_dims: int,
        dilation=None,
    ) -> list:
        """The output padding that gives ``output_size`` (PyTorch's rule: any size from the
        minimum to ``stride - 1`` more)."""
        if output_size is None:
            return list(_ntuple(self.output_padding, num_spatial_dims))
        n = num_spatial_dims
        lead = 2 if input.dim() == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == lead + n:
            output_size = output_size[lead:]
        if len(output_size) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.dim()}D input, output_size must "
                f"have {n} or {lead + n} elements (got {len(output_size)})"
            )
        mins = [
            (input.shape[i + lead] - 1) * stride[i]
            - 2 * padding[i]
            + (dilation[i] if dilation is not None else 1) * (kernel_size[i] - 1)
            + 1
            for i in range(n)
        ]
        maxs = [mins[i] + stride[i] - 1 for i in range(n)]
        for i in range(n):
            if not mins[i] <= output_size[i] <= maxs[i]:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{mins} to {maxs} (for an input of {input.shape[2:]})"
                )
        return [output_size[i] - mins[i] for i in range(n)]

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError(
                f"Only `zeros` padding mode is supported for {self.__class__.__name__}"
            )
        n = self._num_dims
        op = self._output_padding(
            input, output_size, self.stride, self.padding, self.kernel_size, n, self.dilation
        )
        return type(self)._fn(
            input, self.weight, self.bias, self.stride, self.padding, op, self.groups, self.dilation
        )


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution (the gradient of Conv1d with respect to its input): ``weight``
    (C_in, C_out / groups, k); ``forward(input, output_size=None)`` picks among the output
    lengths a strided layer can produce.

    Example:
        >>> m = ember.nn.ConvTranspose1d(16, 33, 3, stride=2)
        >>> m(ember.randn(20, 16, 50)).shape
        ember.Size([20, 33, 101])
    """

    _num_dims = 1
    _fn = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution: ``weight`` (C_in, C_out / groups, kH, kW); output size
    ``(in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``, or the one
    ``forward(input, output_size=...)`` asks for.

    Example:
        >>> up = ember.nn.ConvTranspose2d(16, 16, 3, stride=2, padding=1)
        >>> up(ember.randn(1, 16, 6, 6), output_size=[1, 16, 12, 12]).shape
        ember.Size([1, 16, 12, 12])
    """

    _num_dims = 2
    _fn = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution: ``weight`` (C_in, C_out / groups, kD, kH, kW).

    Example:
        >>> m = ember.nn.ConvTranspose3d(2, 4, 3, stride=2)
        >>> m(ember.randn(1, 2, 3, 3, 3)).shape
        ember.Size([1, 4, 7, 7, 7])
    """

    _num_dims = 3
    _fn = staticmethod(F.conv_transpose3d)


# ---- lazy forms ------------------------------------------------------------------------------
class _LazyConvXdMixin(LazyModuleMixin):
    """``in_channels`` from the first input's channel dim (dim 1, or 0 unbatched)."""

    def reset_parameters(self) -> None:
        # _ConvNd.__init__ calls this before the parameters exist: only initialize real ones
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        """Set ``in_channels`` from ``input``, then create and initialize the parameters."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_channels = self._get_in_channels(input)
                if self.in_channels % self.groups != 0:
                    raise ValueError("in_channels must be divisible by groups")
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups)
                self.weight.materialize(shape + tuple(self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        n = self._num_dims + 1
        if input.dim() not in (n, n + 1):
            raise RuntimeError(
                f"Expected {n}D (unbatched) or {n + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == n + 1 else input.shape[0]

    def _lazy_init(self, out_channels: int, bias: bool, factory_kwargs: dict) -> None:
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)


def _lazy_conv(name: str, base: type) -> type:
    def __init__(
        self,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        # a bias-less layer with 0 channels first, so no tensor is made only to be replaced
        LazyModuleMixin.__init__(
            self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode
        )
        self._lazy_init(out_channels, bias, {"device": device, "dtype": dtype})

    doc = (
        f"A :class:`{base.__name__}` whose ``in_channels`` is inferred from the first "
        f"input (``input.shape[1]``, or ``shape[0]`` unbatched); it becomes a "
        f"``{base.__name__}`` after that call.\n\n    Example:\n"
        f"        >>> m = ember.nn.{name}(4, 3)\n"
        f"        >>> m(ember.randn(1, 2{', 8' * base._num_dims})).shape[1]\n        4\n"
    )
    return type(
        name,
        (_LazyConvXdMixin, base),
        {
            "__init__": __init__,
            "cls_to_become": base,
            "__doc__": doc,
            "__module__": __name__,
            "__qualname__": name,
        },
    )


def _lazy_conv_transpose(name: str, base: type) -> type:
    def __init__(
        self,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        LazyModuleMixin.__init__(
            self,
            0,
            0,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            False,
            dilation,
            padding_mode,
        )
        self._lazy_init(out_channels, bias, {"device": device, "dtype": dtype})

    doc = (
        f"A :class:`{base.__name__}` whose ``in_channels`` is inferred from the first "
        f"input (``input.shape[1]``, or ``shape[0]`` unbatched); it becomes a "
        f"``{base.__name__}`` after that call.\n\n    Example:\n"
        f"        >>> m = ember.nn.{name}(4, 3)\n"
        f"        >>> m(ember.randn(1, 2{', 8' * base._num_dims})).shape[1]\n        4\n"
    )
    return type(
        name,
        (_LazyConvXdMixin, base),
        {
            "__init__": __init__,
            "cls_to_become": base,
            "__doc__": doc,
            "__module__": __name__,
            "__qualname__": name,
        },
    )


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose("LazyConvTranspose1d", ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose("LazyConvTranspose2d", ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose("LazyConvTranspose3d", ConvTranspose3d)
