"""``ember.nn.functional``: pooling. Max and average pooling over 1-3 dims, adaptive pooling,
``max_unpool``, power-average (``lp_pool``) and fractional max pooling, with PyTorch's
signatures.

These check the arguments (in PyTorch's order, with its exception types) and compute output
sizes; the computation is in ``ember.ops.pooling``. Every function takes a batched input
``(N, C, *spatial)`` or an unbatched one ``(C, *spatial)``.
"""

from __future__ import annotations

import math
import operator

from ember import _autocast as _ac
from ember import _dtype, relu
from ember.ops import pooling as _P
from ember.ops._elementwise import _check
from ember.tensor import Tensor

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]

_WORDS = {1: "one", 2: "two", 3: "three"}
_SNAME = _dtype.SCALAR_NAMES


# ---- argument checks ---------------------------------------------------------------------------
def _tensor(op: str, input) -> None:
    _check(input, op)


def _ints(op: str, name: str, value, n: int, optional: bool = False):
    """``value`` as a tuple of ``n`` ints (one int, or a sequence of 1 or ``n``); None (or an
    empty sequence, when ``optional``) stays None."""
    if optional and (value is None or (isinstance(value, (tuple, list)) and not value)):
        return None
    seq = value if isinstance(value, (tuple, list)) else (value,)
    try:
        vals = tuple(operator.index(v) for v in seq)
    except TypeError:
        bad = next(v for v in seq if not hasattr(v, "__index__"))
        raise TypeError(
            f"{op}(): argument '{name}' must be tuple of ints, not {type(bad).__name__}"
        ) from None
    if len(vals) == 1:
        return vals * n
    if len(vals) != n:
        what = (
            "an int, list of ints or tuple of ints of size 1"
            if n == 1
            else (
                f"either be {'omitted, ' if optional else ''}a single int, or a tuple of "
                f"{_WORDS[n]} ints"
            )
        )
        raise RuntimeError(
            f"{op}: {name} must {what} but got size {len(vals)}"
            if n == 1
            else f"{op}: {name} must {what}"
        )
    return vals


def _dims(op: str, input: Tensor, n: int, expected: str) -> None:
    """A batched or unbatched input whose non-batch dims are non-empty."""
    nd = input.dim()
    shape = list(input.shape)
    if nd not in (n + 1, n + 2) or 0 in shape[nd - n - 1 :]:
        raise RuntimeError(
            f"{op}: Expected {expected} tensor with optional 0 dim batch size for "
            f"input, but got:{shape}"
        )


def _window_checks(op: str, input: Tensor, n: int, k, s, p, d, ceil_mode: bool):
    """PyTorch's pooling checks, in its order; returns the output sizes."""
    if any(v == 0 for v in s):
        # NOTE: matches torch: a zero kernel_size (which stride defaults to) reads as a zero
        # stride
        raise RuntimeError(f"{op}: stride should not be zero (stride={list(s)})")
    if any(v < 0 for v in p):
        raise RuntimeError(f"{op}: pad must be non-negative, but got pad: {min(p)}")
    for pp, kk, dd in zip(p, k, d):
        if pp > int(kk / 2):  # C division: truncates toward zero
            raise RuntimeError(
                f"{op}: pad should be at most half of effective kernel size, but "
                f"got pad={pp}, kernel_size={kk} and dilation={dd}"
            )
    if any(v <= 0 for v in k):
        raise RuntimeError(f"{op}: kernel size should be greater than zero, but got {list(k)}")
    if any(v <= 0 for v in s):
        raise RuntimeError(f"{op}: stride should be greater than zero, but got {list(s)}")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"{op}: dilation should be greater than zero, but got {list(d)}")
    _dims(op, input, n, f"{n + 1}D or {n + 2}D (batch mode)")
    size = tuple(input.shape[-n:])
    out = tuple(_P.out_size(*a, ceil_mode) for a in zip(size, k, s, p, d))
    if min(out) < 1:
        c = input.shape[-n - 1]
        raise RuntimeError(
            f"{op}: Given input size: ({'x'.join(map(str, (c,) + size))}). "
            f"Calculated output size: ({'x'.join(map(str, (c,) + out))}). "
            f"Output size is too small"
        )
    return out


def _dtype_check(op: str, input: Tensor, floating: bool = False) -> None:
    kind = input._data.dtype.kind
    if kind in "fV" or (not floating and kind in "iu"):
        return
    name = _SNAME.get(input._data.dtype.name, input._data.dtype.name)
    raise NotImplementedError(
        f"\"{op}\" not implemented for '{name}'"
        + (f": {op} needs a floating-point input; call .float() first" if floating else "")
    )


# ---- max pooling -------------------------------------------------------------------------------
def _max_pool(n, op, input, kernel_size, stride, padding, dilation, ceil_mode, want_idx):
    _tensor(op, input)
    k = _ints(op, "kernel_size", kernel_size, n)
    s = _ints(op, "stride", stride, n, optional=True) or k
    p = _ints(op, "padding", padding, n)
    d = _ints(op, "dilation", dilation, n)
    out = _window_checks(op, input, n, k, s, p, d, ceil_mode)
    _dtype_check(op, input)
    if n == 1:  # NOTE: matches torch: computed as a 2-d pool over (..., 1, L)
        r = _P.max_pool(
            input.unsqueeze(-2), (1,) + k, (1,) + s, (0,) + p, (1,) + d, (1,) + out, want_idx
        )
        return (r[0].squeeze(-2), r[1].squeeze(-2)) if want_idx else r.squeeze(-2)
    return _P.max_pool(input, k, s, p, d, out, want_idx)


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """``max_pool1d`` returning ``(output, indices)``.

    Example:
        >>> y, i = ember.nn.functional.max_pool1d_with_indices(ember.tensor([[1., 3., 2., 0.]]), 2)
        >>> i
        tensor([[1, 2]])
    """
    return _max_pool(
        1, "max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode, True
    )


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """``max_pool2d`` returning ``(output, indices)``; indices are flat positions within each
    ``(H, W)`` plane.

    Example:
        >>> x = ember.arange(16.).reshape(1, 4, 4)
        >>> ember.nn.functional.max_pool2d_with_indices(x, 2)[1]
        tensor([[[ 5,  7],
                 [13, 15]]])
    """
    return _max_pool(
        2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode, True
    )


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """``max_pool3d`` returning ``(output, indices)``; indices are flat positions within each
    ``(D, H, W)`` volume.

    Example:
        >>> x = ember.arange(8.).reshape(1, 2, 2, 2)
        >>> ember.nn.functional.max_pool3d_with_indices(x, 2)[1]
        tensor([[[[7]]]])
    """
    return _max_pool(
        3, "max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode, True
    )


def max_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """Maximum over sliding windows of the last dim: input ``(N, C, L)`` or ``(C, L)``.

    ``stride`` defaults to ``kernel_size``; ``padding`` (at most half the kernel) adds -inf
    on both sides; ``dilation`` spaces a window's elements; ``ceil_mode`` keeps a last partial
    window. With ``return_indices`` returns ``(output, indices)`` as well. The gradient goes to
    each window's first maximum.

    Example:
        >>> ember.nn.functional.max_pool1d(ember.tensor([[1., 3., 2., 0.]]), 2)
        tensor([[3., 2.]])
    """
    return _max_pool(
        1,
        "max_pool1d",
        input,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        bool(return_indices),
    )


def max_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """Maximum over sliding windows of the last two dims: input ``(N, C, H, W)`` or
    ``(C, H, W)``; arguments as ``max_pool1d``'s, each an int or a pair.

    Example:
        >>> ember.nn.functional.max_pool2d(ember.arange(16.).reshape(1, 4, 4), 2)
        tensor([[[ 5.,  7.],
                 [13., 15.]]])
    """
    return _max_pool(
        2,
        "max_pool2d",
        input,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        bool(return_indices),
    )


def max_pool3d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """Maximum over sliding windows of the last three dims: input ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``; arguments as ``max_pool1d``'s, each an int or a triple.

    Example:
        >>> ember.nn.functional.max_pool3d(ember.arange(8.).reshape(1, 2, 2, 2), 2)
        tensor([[[[7.]]]])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            max_pool3d, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
        )
    return _max_pool(
        3,
        "max_pool3d",
        input,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        bool(return_indices),
    )


# ---- average pooling --------------------------------------------------------------------------
def _avg_pool(
    n, op, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    _tensor(op, input)
    k = _ints(op, "kernel_size", kernel_size, n)
    s = _ints(op, "stride", stride, n, optional=True) or k
    p = _ints(op, "padding", padding, n)
    if n == 2 and input.dim() < 3:
        # NOTE: matches torch: a too-small input fails on a dim lookup
        raise IndexError(
            f"{op}: Dimension out of range (expected to be in range of "
            f"[{-input.dim()}, {input.dim() - 1}], but got {-n - 1}): the input "
            f"must be ({n + 1}D or {n + 2}D), got shape {list(input.shape)}"
        )
    out = _window_checks(op, input, n, k, s, p, (1,) * n, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{op}: divisor must be not zero")
    _dtype_check(op, input)
    return _P.avg_pool(input, k, s, p, out, ceil_mode, count_include_pad, divisor_override)


def avg_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """Mean over sliding windows of the last dim: input ``(N, C, L)`` or ``(C, L)``.

    ``padding`` adds zeros on both sides, counted in the mean when ``count_include_pad``;
    ``ceil_mode`` keeps a last partial window (averaged over the part inside input and
    padding).

    Example:
        >>> ember.nn.functional.avg_pool1d(ember.tensor([[1., 3., 2., 0.]]), 2)
        tensor([[2., 1.]])
    """
    return _avg_pool(
        1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode, count_include_pad, None
    )


def avg_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override=None,
) -> Tensor:
    """Mean over sliding windows of the last two dims: input ``(N, C, H, W)`` or ``(C, H, W)``;
    ``divisor_override`` divides every window's sum by that number instead.

    Example:
        >>> ember.nn.functional.avg_pool2d(ember.arange(16.).reshape(1, 4, 4), 2)
        tensor([[[ 2.5000,  4.5000],
                 [10.5000, 12.5000]]])
    """
    return _avg_pool(
        2,
        "avg_pool2d",
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


def avg_pool3d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override=None,
) -> Tensor:
    """Mean over sliding windows of the last three dims: input ``(N, C, D, H, W)`` or
    ``(C, D, H, W)``; arguments as ``avg_pool2d``'s.

    Example:
        >>> ember.nn.functional.avg_pool3d(ember.arange(8.).reshape(1, 2, 2, 2), 2)
        tensor([[[[3.5000]]]])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            avg_pool3d,
            input,
            kernel_size,
            stride,
            padding,
            ceil_mode,
            count_include_pad,
            divisor_override,
        )
    return _avg_pool(
        3,
        "avg_pool3d",
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


# ---- adaptive pooling -------------------------------------------------------------------------
def _adaptive_args(n, op, input, output_size, max_mode: bool):
    _tensor(op, input)
    nd = input.dim()
    if n == 1:
        if nd not in (2, 3):
            raise RuntimeError(
                f"Expected 2 to 3 dimensions, but got {nd}-dimensional tensor "
                f"for argument #1 'self' (while checking arguments for {op})"
            )
    elif nd not in (n + 1, n + 2):
        raise RuntimeError(
            f"{op}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}"
        )
    seq = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * n
    if len(seq) != n:
        raise RuntimeError(f"{op}(): output_size must have {n} elements, got {list(seq)}")
    size = tuple(input.shape[nd - n :])
    out = tuple(size[i] if v is None else operator.index(v) for i, v in enumerate(seq))
    if any(v < 0 for v in out):
        raise RuntimeError(
            f"{op}: elements of output_size must be greater than or equal to 0 "
            f"but received {list(out)}"
        )
    for i in range(nd - n, nd):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input.shape)} with "
                f"dimension {i} being empty"
            )
    _dtype_check(op, input, floating=True)
    return out


def _adaptive_avg(n, op, input, output_size):
    out = _adaptive_args(n, op, input, output_size, False)
    if n == 1:  # NOTE: matches torch: a 2-d pool over (..., 1, L)
        return _P.adaptive_avg_pool(input.unsqueeze(-2), (1,) + out).squeeze(-2)
    return _P.adaptive_avg_pool(input, out)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Mean over ``output_size`` windows that split the last dim as evenly as possible (window
    ``i`` covers ``[floor(i*L/out), ceil((i+1)*L/out))``).

    Example:
        >>> ember.nn.functional.adaptive_avg_pool1d(ember.tensor([[1., 3., 2., 0.]]), 1)
        tensor([[1.5000]])
    """
    return _adaptive_avg(1, "adaptive_avg_pool1d", input, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Adaptive mean pooling to ``output_size`` (an int, or a pair where None keeps that dim);
    ``output_size=1`` is a global mean.

    Example:
        >>> ember.nn.functional.adaptive_avg_pool2d(ember.ones(3, 5, 7), 1).shape
        ember.Size([3, 1, 1])
    """
    return _adaptive_avg(2, "adaptive_avg_pool2d", input, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Adaptive mean pooling over the last three dims to ``output_size``.

    Example:
        >>> ember.nn.functional.adaptive_avg_pool3d(ember.ones(2, 4, 4, 4), (1, 2, None)).shape
        ember.Size([2, 1, 2, 4])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(adaptive_avg_pool3d, input, output_size)
    return _adaptive_avg(3, "adaptive_avg_pool3d", input, output_size)


def _adaptive_max(n, op, input, output_size, want_idx):
    out = _adaptive_args(n, op, input, output_size, True)
    if n == 1:
        r = _P.adaptive_max_pool(input.unsqueeze(-2), (1,) + out, want_idx)
        return (r[0].squeeze(-2), r[1].squeeze(-2)) if want_idx else r.squeeze(-2)
    return _P.adaptive_max_pool(input, out, want_idx)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool1d`` returning ``(output, indices)``.

    Example:
        >>> x = ember.tensor([[1., 3., 2., 0.]])
        >>> ember.nn.functional.adaptive_max_pool1d_with_indices(x, 1)[1]
        tensor([[1]])
    """
    return _adaptive_max(1, "adaptive_max_pool1d", input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool2d`` returning ``(output, indices)``.

    Example:
        >>> x = ember.arange(16.).reshape(1, 4, 4)
        >>> ember.nn.functional.adaptive_max_pool2d_with_indices(x, 1)[1]
        tensor([[[15]]])
    """
    return _adaptive_max(2, "adaptive_max_pool2d", input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool3d`` returning ``(output, indices)``.

    Example:
        >>> x = ember.arange(8.).reshape(1, 2, 2, 2)
        >>> ember.nn.functional.adaptive_max_pool3d_with_indices(x, 1)[1]
        tensor([[[[7]]]])
    """
    return _adaptive_max(3, "adaptive_max_pool3d", input, output_size, True)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Maximum over ``output_size`` windows that split the last dim as evenly as possible;
    with ``return_indices`` also the position of each maximum.

    Example:
        >>> ember.nn.functional.adaptive_max_pool1d(ember.tensor([[1., 3., 2., 0.]]), 2)
        tensor([[3., 2.]])
    """
    return _adaptive_max(1, "adaptive_max_pool1d", input, output_size, bool(return_indices))


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Adaptive max pooling over the last two dims to ``output_size`` (None keeps a dim).

    Example:
        >>> ember.nn.functional.adaptive_max_pool2d(ember.arange(16.).reshape(1, 4, 4), 1)
        tensor([[[15.]]])
    """
    return _adaptive_max(2, "adaptive_max_pool2d", input, output_size, bool(return_indices))


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Adaptive max pooling over the last three dims to ``output_size``.

    Example:
        >>> ember.nn.functional.adaptive_max_pool3d(ember.arange(8.).reshape(1, 2, 2, 2), 1)
        tensor([[[[7.]]]])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(adaptive_max_pool3d, input, output_size, return_indices)
    return _adaptive_max(3, "adaptive_max_pool3d", input, output_size, bool(return_indices))


# ---- max_unpool --------------------------------------------------------------------------------
def _unpool(n, op, input, indices, kernel_size, stride, padding, output_size):
    _tensor(op, input)
    if not isinstance(indices, Tensor):
        raise TypeError(f"{op}(): argument 'indices' must be Tensor, not {type(indices).__name__}")
    k = _ints(op, "kernel_size", kernel_size, n)
    s = _ints(op, "stride", stride, n, optional=True) or k
    p = _ints(op, "padding", padding, n)
    nd = input.dim()
    if nd < n:
        raise RuntimeError(
            f"{op}: expected a {n + 1}D or {n + 2}D input, got shape {list(input.shape)}"
        )
    default = [(input.shape[nd - n + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(n)]
    if output_size is None:
        out = default
    else:
        out = list(output_size)
        if len(out) == n + 2:
            out = out[2:]
        if len(out) != n:
            raise ValueError(
                f"output_size should be a sequence containing {n} or {n + 2} "
                f"elements, but it has a length of '{len(output_size)}'"
            )
        for i in range(n):
            lo, hi = default[i] - s[i], default[i] + s[i]
            if not lo < out[i] < hi:
                raise ValueError(
                    f'invalid output_size "{tuple(output_size)}" (dim {i} must be '
                    f"between {lo} and {hi})"
                )
    one_d = n == 1
    if one_d:  # NOTE: matches torch: computed as a 2-d unpool over (..., 1, L)
        input, indices, n, out = input.unsqueeze(-2), indices.unsqueeze(-2), 2, [1] + out
        op = "max_unpool2d"
        nd += 1
    if indices._data.dtype.name != "int64":
        raise RuntimeError(
            f"{op}: elements in indices should be type int64 but got: "
            f"{_SNAME.get(indices._data.dtype.name)}"
        )
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"{op}: Expected shape of indices to be same as that of the input "
            f"tensor ({list(input.shape)}) but got indices tensor with shape: "
            f"{list(indices.shape)}"
        )
    if nd not in (n + 1, n + 2):
        raise RuntimeError(
            f"{op}: Expected {n + 1}D or {n + 2}D (batch mode) tensor for input, "
            f"but got shape {list(input.shape)}"
        )
    _dtype_check(op, input, floating=True)
    plane = math.prod(out)
    lead = tuple(input.shape[: nd - n])
    x2 = input.reshape(math.prod(lead), -1)
    i2 = indices.reshape(x2.shape)
    if i2.numel() and not input.is_meta:
        lo, hi = i2.min().item(), i2.max().item()
        if lo < 0 or hi >= plane:
            raise RuntimeError(
                f"{op}: Found an invalid max index: {lo if lo < 0 else hi} "
                f"(output volumes are of size {'x'.join(map(str, out))})"
            )
    y = input.new_zeros((x2.shape[0], plane)).scatter(1, i2, x2).reshape(lead + tuple(out))
    return y.squeeze(-2) if one_d else y


def max_unpool1d(
    input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None
) -> Tensor:
    """The inverse of ``max_pool1d``: ``input`` placed at ``indices`` (as ``max_pool1d``
    returned them) in a zero tensor of the pooled input's length (or ``output_size``).

    Example:
        >>> y, i = ember.nn.functional.max_pool1d(ember.tensor([[1., 3., 2., 0.]]), 2,
        ...                                       return_indices=True)
        >>> ember.nn.functional.max_unpool1d(y, i, 2)
        tensor([[0., 3., 2., 0.]])
    """
    return _unpool(1, "max_unpool1d", input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(
    input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None
) -> Tensor:
    """The inverse of ``max_pool2d``: each value placed at its flat per-plane index in a zero
    tensor of size ``(H_in - 1) * stride - 2 * padding + kernel_size`` (or ``output_size``).

    Example:
        >>> x = ember.arange(16.).reshape(1, 4, 4)
        >>> y, i = ember.nn.functional.max_pool2d(x, 2, return_indices=True)
        >>> ember.nn.functional.max_unpool2d(y, i, 2)[0, 1]
        tensor([0., 5., 0., 7.])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            max_unpool2d, input, indices, kernel_size, stride, padding, output_size
        )
    return _unpool(2, "max_unpool2d", input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(
    input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None
) -> Tensor:
    """The inverse of ``max_pool3d`` (see ``max_unpool2d``).

    Example:
        >>> x = ember.arange(8.).reshape(1, 2, 2, 2)
        >>> y, i = ember.nn.functional.max_pool3d(x, 2, return_indices=True)
        >>> ember.nn.functional.max_unpool3d(y, i, 2).sum()
        tensor(7.)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            max_unpool3d, input, indices, kernel_size, stride, padding, output_size
        )
    return _unpool(3, "max_unpool3d", input, indices, kernel_size, stride, padding, output_size)


# ---- power-average pooling --------------------------------------------------------------------
def _lp(n, input, norm_type, kernel_size, stride, ceil_mode):
    k = _ints(f"lp_pool{n}d", "kernel_size", kernel_size, n)
    pool = (avg_pool1d, avg_pool2d, avg_pool3d)[n - 1]
    out = pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    # NOTE: matches torch: sign(out) * relu(|out|) (a negative mean from odd powers keeps its
    # sign), scaled by the window size, then the 1/p root
    return (out.sign() * relu(out.abs())).mul(math.prod(k)).pow(1.0 / norm_type)


def lp_pool1d(
    input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling: ``(sum over the window of x**p) ** (1/p)`` over the last dim.

    Example:
        >>> ember.nn.functional.lp_pool1d(ember.tensor([[3., 4.]]), 2, 2)
        tensor([[5.]])
    """
    return _lp(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(
    input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over the last two dims (see ``lp_pool1d``).

    Example:
        >>> ember.nn.functional.lp_pool2d(ember.ones(1, 2, 2), 1, 2)
        tensor([[[4.]]])
    """
    return _lp(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(
    input: Tensor, norm_type, kernel_size, stride=None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over the last three dims (see ``lp_pool1d``).

    Example:
        >>> ember.nn.functional.lp_pool3d(ember.ones(1, 2, 2, 2), 1, 2)
        tensor([[[[8.]]]])
    """
    return _lp(3, input, norm_type, kernel_size, stride, ceil_mode)
