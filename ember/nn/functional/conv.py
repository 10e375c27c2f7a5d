"""``ember.nn.functional``: Convolutions: conv1d/2d/3d, conv_transpose1d/2d/3d, conv_tbc, unfold,
fold.

Each function checks its arguments as PyTorch does (same exception types and messages where
PyTorch's are informative), works out the geometry and applies one primitive of
``ember.ops.conv``, whose docstring explains how the convolution is computed.
"""

from __future__ import annotations

import operator

from ember import _autocast as _ac
from ember import _dtype
from ember.ops._elementwise import _check
from ember.ops.conv import Conv, ConvTranspose, Fold, Unfold, _geom, unfold_geom
from ember.tensor import Tensor

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "conv_tbc",
    "unfold",
    "fold",
]

_DT_NAME = _dtype.SCALAR_NAMES


def _int(v, op: str, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            if isinstance(v, bool):
                raise TypeError
            return operator.index(v)
        except TypeError:
            raise TypeError(
                f"{op}(): argument '{name}' must be tuple of ints, but found element "
                f"of type {type(v).__name__}"
            ) from None
    return v


def _ntuple(v, D: int, op: str, name: str) -> tuple:
    """An int or a sequence of 1 or D ints as a D-tuple (PyTorch expands a 1-sequence)."""
    if isinstance(v, (list, tuple)):
        vals = tuple(_int(e, op, name) for e in v)
        if len(vals) == 1:
            return vals * D
        if len(vals) != D:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {D} values to match "
                f"the convolution dimensions, but got {name}={list(vals)}"
            )
        return vals
    return (_int(v, op, name),) * D


def _check_tensors(op: str, input, weight, bias) -> None:
    _check(input, op)
    _check(weight, op, "weight", 2)
    if bias is not None:
        _check(bias, op, "bias", 3)


def _batched(op: str, D: int, input: Tensor) -> bool:
    n = input.dim()
    if n not in (D + 1, D + 2):
        raise RuntimeError(
            f"Expected {D + 1}D (unbatched) or {D + 2}D (batched) input to {op}, but got input of "
            f"size: {list(input.shape)}"
        )
    return n == D + 2


def _check_common(op, D, input, weight, bias, stride, dilation, groups, transposed):
    """Checks shared by conv and conv_transpose, in PyTorch's order; returns the batched
    input, whether it was batched, and stride/dilation tuples."""
    _check_tensors(op, input, weight, bias)
    batched = _batched(op, D, input)
    if weight.dim() != D + 2:
        raise RuntimeError(
            f"{op}: expected a {D + 2}-D weight (out_channels, in_channels/groups, kernel "
            f"dims), but got weight of size {list(weight.shape)}"
        )
    stride = _ntuple(stride, D, op, "stride")
    dilation = _ntuple(dilation, D, op, "dilation")
    groups = _int(groups, op, "groups")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    x = input if batched else input.unsqueeze(0)
    ws = list(weight.shape)
    if ws[0] == 0 and not transposed:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least 1 at dimension 0, but got "
            f"weight of size {ws} instead"
        )
    if ws[0] % groups:
        # NOTE: matches torch: the weight size is printed inside double brackets
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{ws}] instead"
        )
    C = x.shape[1]
    if transposed:
        if C != ws[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {ws}, expected input{list(x.shape)} to have "
                f"{ws[0]} channels, but got {C} channels instead"
            )
        n_out = ws[1] * groups
    else:
        if C != ws[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {ws}, expected input{list(x.shape)} to "
                f"have {ws[1] * groups} channels, but got {C} channels instead"
            )
        n_out = ws[0]
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != n_out):
        pre = "Given transposed=1, weight" if transposed else "Given weight"
        raise RuntimeError(
            f"{pre} of size {ws}, expected bias to be 1-dimensional with {n_out} elements, but "
            f"got bias of size {list(bias.shape)} instead"
        )
    dx, dw = x._data.dtype, weight._data.dtype
    if dx != dw:
        raise RuntimeError(
            f"Input type ({_tname(dx)}) and weight type ({_tname(dw)}) should be the same; "
            f"convert one of them first (e.g. weight.to(input.dtype))"
        )
    if bias is not None and bias._data.dtype != dx:
        raise RuntimeError(
            f"Input type ({_bname(dx)}) and bias type ({_bname(bias._data.dtype)}) should be "
            f"the same"
        )
    if dx.kind == "b":
        raise RuntimeError(f"\"{op}\" not implemented for 'Bool'")
    return x, batched, stride, dilation, groups


def _tname(dt) -> str:
    return f"ember.{_DT_NAME.get(dt.name, dt.name)}Tensor"


def _bname(dt) -> str:
    return {"float64": "double", "float32": "float", "float16": "c10::Half"}.get(dt.name, dt.name)


def _conv(op: str, D: int, input, weight, bias, stride, padding, dilation, groups) -> Tensor:
    x, batched, stride, dilation, groups = _check_common(
        op, D, input, weight, bias, stride, dilation, groups, False
    )
    K = tuple(weight.shape[2:])
    X = tuple(x.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            lo = (0,) * D
            Y = None
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            # total padding d*(k-1): the smaller half in front, the rest (one more for an
            # even dilated kernel) behind, which the output size Y = X implies
            # NOTE: differs from torch: no warning for even kernels (torch's concerns a copy
            # its own kernels make; ember pads every input into one buffer anyway)
            lo = tuple(d * (k - 1) // 2 for d, k in zip(dilation, K))
            Y = X
        else:
            raise RuntimeError(f"Invalid padding string: {padding!r}")
        hi = tuple(d * (k - 1) - lv for d, k, lv in zip(dilation, K, lo)) if Y else lo
    else:
        lo = _ntuple(padding, D, op, "padding")
        if any(p < 0 for p in lo):
            raise RuntimeError("negative padding is not supported")
        hi = lo
        Y = None
    padded = tuple(X[i] + lo[i] + hi[i] for i in range(D))
    dk = tuple(dilation[i] * (K[i] - 1) + 1 for i in range(D))
    if any(padded[i] < dk[i] for i in range(D)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, dk))}). Kernel size can't be greater than "
            f"actual input size"
        )
    if Y is None:
        Y = tuple((padded[i] - dk[i]) // stride[i] + 1 for i in range(D))
    g = _geom(x.shape[1], weight.shape[0], groups, K, X, Y, stride, dilation, lo)
    y = Conv.apply(x, weight, bias, g)
    return y if batched else y.squeeze(0)


def _conv_transpose(
    op: str, D: int, input, weight, bias, stride, padding, output_padding, groups, dilation
) -> Tensor:
    if isinstance(padding, str):
        raise TypeError(f"{op}(): argument 'padding' must be tuple of ints, not str")
    x, batched, stride, dilation, groups = _check_common(
        op, D, input, weight, bias, stride, dilation, groups, True
    )
    pad = _ntuple(padding, D, op, "padding")
    op_ = _ntuple(output_padding, D, op, "output_padding")
    if any(p < 0 for p in pad):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in op_):
        raise RuntimeError("negative output_padding is not supported")
    if any(op_[i] >= stride[i] and op_[i] >= dilation[i] for i in range(D)):
        # NOTE: matches torch: a 1-d transposed conv is reported as a 2-d one of height 1
        names = ("depth", "height", "width")[3 - max(D, 2) :]
        full = lambda t, one: ((one,) * (len(names) - D)) + t  # noqa: E731
        parts = (
            [f"output_padding_{n}: {v}" for n, v in zip(names, full(op_, 0))]
            + [f"stride_{n}: {v}" for n, v in zip(names, full(stride, 1))]
            + [f"dilation_{n}: {v}" for n, v in zip(names, full(dilation, 1))]
        )
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but "
            "got " + " ".join(parts)
        )
    K = tuple(weight.shape[2:])
    Yin = tuple(x.shape[2:])
    X = tuple(
        (Yin[i] - 1) * stride[i] - 2 * pad[i] + dilation[i] * (K[i] - 1) + op_[i] + 1
        for i in range(D)
    )
    if any(v <= 0 for v in X):
        raise RuntimeError(
            f"{op}: the output size {list(X)} is not positive (input size {list(Yin)}, kernel "
            f"{list(K)}, stride {list(stride)}, padding {list(pad)}, dilation "
            f"{list(dilation)}); reduce the padding"
        )
    Cin, Cout = weight.shape[0], weight.shape[1] * groups
    # the adjoint of the convolution from Cout channels of size X to Cin channels of size Yin
    g = _geom(Cout, Cin, groups, K, X, Yin, stride, dilation, pad)
    y = ConvTranspose.apply(x, weight, bias, g)
    return y if batched else y.squeeze(0)


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    dilation=1,
    groups: int = 1,
) -> Tensor:
    """1-D convolution (cross-correlation) of ``input`` (N, C_in, L) or (C_in, L) with
    ``weight`` (C_out, C_in / groups, k). ``padding`` is an int, a 1-tuple, ``'valid'`` or
    ``'same'``.

    Example:
        >>> F.conv1d(ember.ones(1, 2, 5), ember.ones(3, 2, 3)).shape
        ember.Size([1, 3, 3])
    """
    if _ac.on:  # autocast's lower-precision list
        input, weight, bias = _ac.low(input, weight, bias)
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    dilation=1,
    groups: int = 1,
) -> Tensor:
    """2-D convolution (cross-correlation) of ``input`` (N, C_in, H, W) or (C_in, H, W) with
    ``weight`` (C_out, C_in / groups, kH, kW); ``bias`` (C_out,) or None. ``stride``,
    ``padding`` and ``dilation`` are ints or pairs; ``padding`` may also be ``'valid'`` or
    ``'same'`` (stride 1; an odd total padding puts the extra zero at the end, as PyTorch).

    Example:
        >>> F.conv2d(ember.ones(1, 3, 8, 8), ember.ones(4, 3, 3, 3), padding=1).shape
        ember.Size([1, 4, 8, 8])
    """
    if _ac.on:  # autocast's lower-precision list
        input, weight, bias = _ac.low(input, weight, bias)
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    dilation=1,
    groups: int = 1,
) -> Tensor:
    """3-D convolution (cross-correlation) of ``input`` (N, C_in, D, H, W) or (C_in, D, H, W)
    with ``weight`` (C_out, C_in / groups, kD, kH, kW).

    Example:
        >>> F.conv3d(ember.ones(1, 2, 4, 4, 4), ember.ones(3, 2, 2, 2, 2)).shape
        ember.Size([1, 3, 3, 3, 3])
    """
    if _ac.on:  # autocast's lower-precision list
        input, weight, bias = _ac.low(input, weight, bias)
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    output_padding=0,
    groups: int = 1,
    dilation=1,
) -> Tensor:
    """1-D transposed convolution (the gradient of ``conv1d`` with respect to its input):
    ``input`` (N, C_in, L), ``weight`` (C_in, C_out / groups, k); output length
    ``(L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.

    Example:
        >>> F.conv_transpose1d(ember.ones(1, 2, 4), ember.ones(2, 3, 3), stride=2).shape
        ember.Size([1, 3, 9])
    """
    if _ac.on:  # autocast's lower-precision list
        input, weight, bias = _ac.low(input, weight, bias)
    return _conv_transpose(
        "conv_transpose1d",
        1,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    output_padding=0,
    groups: int = 1,
    dilation=1,
) -> Tensor:
    """2-D transposed convolution: ``input`` (N, C_in, H, W), ``weight`` (C_in, C_out / groups,
    kH, kW); each output size is ``(in - 1) * stride - 2 * padding + dilation * (k - 1) +
    output_padding + 1``.

    Example:
        >>> F.conv_transpose2d(ember.ones(1, 4, 5, 5), ember.ones(4, 2, 3, 3), stride=2,
        ...                    padding=1, output_padding=1).shape
        ember.Size([1, 2, 10, 10])
    """
    if _ac.on:  # autocast's lower-precision list
        input, weight, bias = _ac.low(input, weight, bias)
    return _conv_transpose(
        "conv_transpose2d",
        2,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride=1,
    padding=0,
    output_padding=0,
    groups: int = 1,
    dilation=1,
) -> Tensor:
    """3-D transposed convolution: ``input`` (N, C_in, D, H, W), ``weight`` (C_in,
    C_out / groups, kD, kH, kW).

    Example:
        >>> F.conv_transpose3d(ember.ones(1, 2, 3, 3, 3), ember.ones(2, 1, 2, 2, 2)).shape
        ember.Size([1, 1, 4, 4, 4])
    """
    if _ac.on:  # autocast's lower-precision list
        input, weight, bias = _ac.low(input, weight, bias)
    return _conv_transpose(
        "conv_transpose3d",
        3,
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


# ---- conv_tbc ----------------------------------------------------------------------------------
def _tbc_pad(pad) -> int:
    if isinstance(pad, bool):
        raise TypeError("conv_tbc(): argument 'pad' (position 4) must be int, not bool")
    try:
        return operator.index(pad)
    except TypeError:
        raise TypeError(
            f"conv_tbc(): argument 'pad' (position 4) must be int, not {type(pad).__name__}"
        ) from None


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution over time-major sequences: ``input`` (T, B, C_in), ``weight``
    (k, C_in, C_out), ``bias`` (C_out,); ``pad`` zero steps on both ends of time (a negative
    ``pad`` crops them). The output is (T + 2 * pad - k + 1, B, C_out).

    It is ``conv1d`` on permuted views (no copies of its own), so it shares conv1d's kernel and
    its gradients, double backward included.

    Example:
        >>> F.conv_tbc(ember.ones(5, 2, 3), ember.ones(3, 3, 4), ember.zeros(4), pad=1).shape
        ember.Size([5, 2, 4])
    """
    for pos, (name, t) in enumerate((("input", input), ("weight", weight), ("bias", bias)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"conv_tbc(): argument '{name}' (position {pos}) must be Tensor, "
                f"not {type(t).__name__}"
            )
    pad = _tbc_pad(pad)
    if input.dim() != 3:
        raise RuntimeError(
            f"Input must have 3 dims: time, batch, in_channel (conv_tbc got "
            f"input of size {list(input.shape)})"
        )
    if weight.dim() != 3:
        raise RuntimeError(
            f"Weight tensor must have 3 dims: kernel_width, in_channels, "
            f"out_channels. (conv_tbc got weight of size {list(weight.shape)})"
        )
    if bias.dim() != 1:
        raise RuntimeError(f"Bias must be 1-D (conv_tbc got bias of size {list(bias.shape)})")
    T, B, C = input.shape
    K, Cw, Co = weight.shape
    if bias.shape[0] != Co:
        raise RuntimeError(
            f"Bias size must equal dim 2 in the weight tensor (output channels). "
            f"(conv_tbc got bias of size {list(bias.shape)} and weight of size "
            f"{list(weight.shape)})"
        )
    if C != Cw:
        raise RuntimeError(
            f"Input dim 2 (input channels) is not == dim 1 in the weight tensor "
            f"(conv_tbc got input of size {list(input.shape)} and weight of size "
            f"{list(weight.shape)})"
        )
    T_out = T + 2 * pad - K + 1
    if T_out < 0:
        # NOTE: matches torch: the message of the output allocation
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {T_out}: "
            f"[{T_out}, {B}, {Co}] (conv_tbc: input of {T} steps with pad={pad} "
            f"is shorter than the kernel's {K})"
        )
    dx, dw = input._data.dtype, weight._data.dtype
    if dx != dw:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got "
            f"{_DT_NAME.get(dx.name, dx.name)} and {_DT_NAME.get(dw.name, dw.name)}"
            f" (conv_tbc: convert the weight with weight.to(input.dtype))"
        )
    if dx.kind == "b":
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if bias._data.dtype != dx:
        # NOTE: matches torch: the bias is cast to the input's dtype (no type check)
        bias = bias.to(input.dtype)
    if T_out == 0 or K == 0:
        # nothing to convolve (conv1d needs a kernel and an output step): the bias alone
        y = bias.expand(T_out, B, Co).contiguous()
        if input.requires_grad or weight.requires_grad:
            # NOTE: matches torch: input and weight still get (zero) gradients; the sum of an
            # empty slice is an exact 0 that reads no element (so no inf * 0 = nan)
            y = y + (input.reshape(-1)[:0].sum() + weight.reshape(-1)[:0].sum())
        return y
    x = input
    if pad < 0:  # a negative pad crops time steps from both ends
        x = x.narrow(0, -pad, T + 2 * pad)
        pad = 0
    y = conv1d(x.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    # NOTE: matches torch: a contiguous (T, B, C_out) result, so that .view() works on it
    return y.permute(2, 0, 1).contiguous()


# ---- unfold / fold ---------------------------------------------------------------------------
def _pair_arg(v, name: str, op: str) -> tuple:
    if isinstance(v, (list, tuple)):
        vals = tuple(_int(e, op, name) for e in v)
        if len(vals) == 1:
            vals = vals * 2
        if len(vals) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(vals)}")
        return vals
    return (_int(v, op, name),) * 2


def _fold_args(op, kernel_size, dilation, padding, stride):
    K = _pair_arg(kernel_size, "kernel_size", op)
    d = _pair_arg(dilation, "dilation", op)
    p = _pair_arg(padding, "padding", op)
    s = _pair_arg(stride, "stride", op)
    for name, v, lo in (("kernel size", K, 1), ("dilation", d, 1), ("stride", s, 1)):
        if v[0] < lo or v[1] < lo:
            raise RuntimeError(
                f"{name} should be greater than zero, but got {name.split()[0]}"
                f"_height: {v[0]} {name.split()[0]}_width: {v[1]}"
            )
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(
            f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}"
        )
    return K, d, p, s


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Extract sliding local blocks: ``input`` (N, C, H, W) or (C, H, W) to (N, C * kH * kW, L)
    (or (C * kH * kW, L)), L the number of block positions; column ``l`` holds block ``l``
    flattened in (channel, kernel row, kernel column) order.

    Example:
        >>> F.unfold(ember.ones(1, 2, 4, 4), kernel_size=2).shape
        ember.Size([1, 8, 9])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"unfold(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() < 3:
        # NOTE: matches torch: a tensor of fewer than 3 dims fails on its dim 2 lookup
        n = max(input.dim(), 1)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got 2)"
        )
    if input.dim() != 4 and input.dim() != 3:
        raise RuntimeError(
            f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    K, d, p, s = _fold_args("unfold", kernel_size, dilation, padding, stride)
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    _fold_dtype("im2col_out_cpu", x)
    X = tuple(x.shape[2:])
    Y = tuple((X[i] + 2 * p[i] - d[i] * (K[i] - 1) - 1) // s[i] + 1 for i in range(2))
    if Y[0] < 1 or Y[1] < 1:
        raise RuntimeError(
            f"Given input with spatial size {X}, kernel_size={K}, dilation={d}, padding={p}, "
            f"calculated shape of the array of sliding blocks as {Y}, but its components must "
            f"be at least one."
        )
    y = Unfold.apply(x, unfold_geom(x.shape[1], K, X, s, d, p))
    return y if batched else y.squeeze(0)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Combine sliding local blocks into a tensor (the adjoint of ``unfold``: overlapping
    values are summed): ``input`` (N, C * kH * kW, L) or (C * kH * kW, L) to
    (N, C, *output_size).

    Example:
        >>> F.fold(ember.ones(1, 8, 9), output_size=(4, 4), kernel_size=2)[0, 0]
        tensor([[1., 2., 2., 1.],
                [2., 4., 4., 2.],
                [2., 4., 4., 2.],
                [1., 2., 2., 1.]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"fold(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    X = _pair_arg(output_size, "output_size", "fold")
    K, d, p, s = _fold_args("fold", kernel_size, dilation, padding, stride)
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    _fold_dtype("col2im_out_cpu", x)
    kp = K[0] * K[1]
    if x.shape[1] % kp:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={x.shape[1]} and kernel_size={K}."
        )
    Y = tuple((X[i] + 2 * p[i] - d[i] * (K[i] - 1) - 1) // s[i] + 1 for i in range(2))
    if Y[0] < 1 or Y[1] < 1:
        raise RuntimeError(
            f"Given output_size={X}, kernel_size={K}, dilation={d}, padding={p}, stride={s}, "
            f"calculated shape of the array of sliding blocks as {Y}, but its components must "
            f"be at least one."
        )
    if x.shape[2] != Y[0] * Y[1]:
        raise RuntimeError(
            f"Given output_size={X}, kernel_size={K}, dilation={d}, padding={p}, stride={s}, "
            f"expected size of input's dimension 2 to match the calculated number of sliding "
            f"blocks {Y[0]} * {Y[1]} = {Y[0] * Y[1]}, but got input.size(2)={x.shape[2]}."
        )
    y = Fold.apply(x, unfold_geom(x.shape[1] // kp, K, X, s, d, p))
    return y if batched else y.squeeze(0)


def _fold_dtype(kernel: str, x: Tensor) -> None:
    dt = x._data.dtype
    if dt.kind not in "fcV":  # (complex too: the copies have real 0/1 weights)
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_DT_NAME.get(dt.name, dt.name)}'"
        )
