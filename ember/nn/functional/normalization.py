"""``ember.nn.functional``: Normalization: batch_norm, layer_norm, group_norm, instance_norm,
rms_norm, local_response_norm, normalize."""

from __future__ import annotations

from ember import _dtype
from ember.ops._dispatch import xp_of
from ember.ops._elementwise import _check
from ember.ops.creation import zeros
from ember.ops.joining import cat
from ember.ops.normalization import NativeBatchNorm, NativeLayerNorm
from ember.ops.pointwise import div
from ember.tensor import Tensor

__all__ = [
    "batch_norm",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "local_response_norm",
    "normalize",
    "rms_norm",
]

_SCALAR = _dtype.SCALAR_NAMES


def _shape_tuple(fn: str, shape, pos: int = 2) -> tuple:
    if isinstance(shape, int) and not isinstance(shape, bool):
        raise TypeError(
            f"{fn}(): argument 'normalized_shape' (position {pos}) must be tuple of ints, not int"
        )
    return tuple(int(s) for s in shape)


def _check_tensor(fn: str, name: str, pos: int, t, optional: bool = False) -> None:
    if not (optional and t is None):
        _check(t, fn, name, pos)


def _check_params_dtype(x, *params) -> None:
    """PyTorch's CPU rule: parameters share the input's dtype, except float32 parameters of a
    float16 input (mixed precision)."""
    dt = x.dtype
    for p in params:
        if p is None or p._data.dtype == dt:
            continue
        if dt.char in "eE" and p._data.dtype.char == "f":
            continue
        if dt.char in "eEf":
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _check_float(kernel: str, x) -> None:
    if x.dtype.kind not in "fV":
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_SCALAR.get(x.dtype.name, x.dtype.name)}'"
        )


def _check_normalized(fn_sep: str, input: Tensor, shape: tuple, weight, bias) -> None:
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            f"one element, but got normalized_shape = {list(shape)}"
        )
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(p.shape)} and normalized_shape = {list(shape)}"
            )
    xs = tuple(input.shape)
    k = len(shape)
    if len(xs) < k or xs[len(xs) - k :] != shape:
        expect = ", ".join(str(s) for s in shape)
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{fn_sep}{expect}], but got input of size{list(xs)}"
        )


def layer_norm(
    input: Tensor,
    normalized_shape,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize over the last ``len(normalized_shape)`` dims to zero mean and unit (biased)
    variance, then ``* weight + bias`` (each of shape ``normalized_shape``, or None).

    Example:
        >>> x = ember.tensor([[1.0, 2.0, 3.0]])
        >>> ember.nn.functional.layer_norm(x, (3,))
        tensor([[-1.2247,  0.0000,  1.2247]])
    """
    _check_tensor("layer_norm", "input", 1, input)
    shape = _shape_tuple("layer_norm", normalized_shape)
    _check_tensor("layer_norm", "weight", 3, weight, True)
    _check_tensor("layer_norm", "bias", 4, bias, True)
    _check_normalized(", ", input, shape, weight, bias)
    x = input._data
    _check_float("LayerNormKernelImpl", x)
    _check_params_dtype(x, weight, bias)
    return NativeLayerNorm.apply(input, weight, bias, len(shape), float(eps))


def _check_features(name: str, expected: int, t) -> None:
    if t is not None and t.numel() != expected:
        raise RuntimeError(f"{name} should contain {expected} elements not {t.numel()}")


def _verify_batch_size(size) -> None:
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel (dim 1) of ``input`` ``(N, C, *)`` over the batch and spatial
    dims, then ``* weight + bias`` (each ``(C,)`` or None).

    With ``training``, the batch's mean and biased variance normalize, and ``running_mean``/
    ``running_var`` (if given) are updated in place: ``r = (1 - momentum) * r + momentum * s``,
    with the unbiased batch variance. Otherwise the running statistics normalize.

    Example:
        >>> x = ember.tensor([[1.0, 10.0], [3.0, 30.0]])
        >>> rm, rv = ember.zeros(2), ember.ones(2)
        >>> ember.nn.functional.batch_norm(x, rm, rv, training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
        >>> rm
        tensor([0.2000, 2.0000])
    """
    _check_tensor("batch_norm", "input", 1, input)
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    x = input._data
    # NOTE: matches torch: a 1-D input counts 0 features in the size checks
    c = x.shape[1] if x.ndim > 1 else 0
    if running_mean is not None:
        _check_features("running_mean", c, running_mean)
    elif not training:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if running_var is not None:
        _check_features("running_var", c, running_var)
    elif not training:
        raise RuntimeError("running_var must be defined in evaluation mode")
    _check_features("weight", c, weight)
    _check_features("bias", c, bias)
    _check_float("batch_norm", x)
    _check_params_dtype(x, weight, bias, running_mean, running_var)
    rm = None if running_mean is None else running_mean._data
    rv = None if running_var is None else running_var._data
    if not training or x.size == 0:
        rm_upd = rv_upd = None
    else:
        rm_upd, rv_upd = rm, rv
    if not training:
        return NativeBatchNorm.apply(input, weight, bias, rm, rv, False, momentum, float(eps))
    return NativeBatchNorm.apply(
        input, weight, bias, rm_upd, rv_upd, True, float(momentum), float(eps)
    )


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel of each sample (``input`` ``(N, C, *)``) over its spatial dims,
    then ``* weight + bias`` (``(C,)`` or None).

    ``use_input_stats=False`` normalizes with ``running_mean``/``running_var`` instead; with
    ``use_input_stats`` and running statistics given, they are updated in place with the
    per-sample statistics averaged over the batch.

    Example:
        >>> x = ember.tensor([[[1.0, 3.0], [10.0, 30.0]]])
        >>> ember.nn.functional.instance_norm(x)
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """
    _check_tensor("instance_norm", "input", 1, input)
    if use_input_stats:
        size = input.size()
        n = 1
        for s in size[2:]:
            n *= s
        if n == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size {size}"
            )
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    x = input._data
    b, c = x.shape[0], x.shape[1]
    # PyTorch's definition: batch norm of the input viewed as (1, N * C, *) with the
    # per-channel arguments repeated N times
    bc = b * c
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t.numel() * b != bc:
            raise RuntimeError(f"{name} should contain {bc} elements not {t.numel() * b}")
    _check_float("batch_norm", x)
    _check_params_dtype(x, weight, bias, running_mean, running_var)
    xr = input.reshape((1, bc) + tuple(x.shape[2:]))
    w = None if weight is None else weight.repeat(b)
    bb = None if bias is None else bias.repeat(b)
    rm = rv = None
    if running_mean is not None:
        rm = _tile(running_mean._data, b)
    if running_var is not None:
        rv = _tile(running_var._data, b)
    out = NativeBatchNorm.apply(
        xr, w, bb, rm, rv, bool(use_input_stats), float(momentum), float(eps)
    )
    if use_input_stats and x.size:
        # the repeated statistics were updated per sample: keep their batch mean
        if rm is not None:
            running_mean._data[...] = rm.reshape(b, c).mean(0)
        if rv is not None:
            running_var._data[...] = rv.reshape(b, c).mean(0)
    return out.reshape(input.shape)


def _tile(a, n: int):
    """``a`` (1-D, raw) repeated ``n`` times, as a new array (the op updates it in place)."""
    xp = xp_of(a)
    out = xp.empty((n, a.shape[0]), dtype=a.dtype)
    out[...] = a
    return out.reshape(-1)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Split the channels of ``input`` ``(N, C, *)`` into ``num_groups`` groups, normalize each
    group of each sample over its channels and spatial dims, then ``* weight + bias`` per
    channel (``(C,)`` or None).

    Example:
        >>> x = ember.tensor([[[1.0], [3.0], [10.0], [30.0]]])
        >>> ember.nn.functional.group_norm(x, 2)
        tensor([[[-1.0000],
                 [ 1.0000],
                 [-1.0000],
                 [ 1.0000]]])
    """
    _check_tensor("group_norm", "input", 1, input)
    nd = input.dim()
    if nd < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {nd}")
    shape = tuple(input.shape)
    _verify_batch_size([shape[0] * shape[1] // num_groups, num_groups] + list(shape[2:]))
    n, c = shape[0], shape[1]
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            # NOTE: matches torch: both messages show the weight's shape ([0] without one)
            shown = [0] if weight is None else list(weight.shape)
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {shown} and input of shape {list(shape)}"
            )
    x = input._data
    _check_float("group_norm", x)
    _check_params_dtype(x, weight, bias)
    # normalizing (N, G, C/G * L) over its last dim is a layer norm without affine
    y = NativeLayerNorm.apply(input.reshape(n, num_groups, -1), None, None, 1, float(eps))
    y = y.reshape(shape)
    if weight is not None or bias is not None:
        bshape = (1, c) + (1,) * (nd - 2)
        if weight is not None:
            y = y * weight.reshape(bshape)
        if bias is not None:
            y = y + bias.reshape(bshape)
    return y


def rms_norm(
    input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    """``input / sqrt(mean(input ** 2) + eps) * weight``, the mean over the last
    ``len(normalized_shape)`` dims; ``eps=None`` is the machine epsilon of the input's dtype
    (float32's for float16).

    Example:
        >>> ember.nn.functional.rms_norm(ember.tensor([[3.0, 4.0]]), (2,))
        tensor([[0.8485, 1.1314]])
    """
    _check_tensor("rms_norm", "input", 1, input)
    shape = _shape_tuple("rms_norm", normalized_shape)
    _check_tensor("rms_norm", "weight", 3, weight, True)
    _check_normalized("", input, shape, weight, None)
    x = input._data
    _check_float("rms_norm", x)
    if eps is None:
        # NOTE: matches torch: the default eps is the machine epsilon of the compute dtype
        # (float32's for float16 inputs)
        eps = 2.0**-52 if x.dtype.char == "d" else 2.0**-23
    dims = tuple(range(input.dim() - len(shape), input.dim()))
    # float16 is computed in float32, as PyTorch's CPU path (opmath)
    xf = input.float() if x.dtype.char in "eE" else input
    y = xf * (xf.square().mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        y = y * weight
    return y.to(input.dtype) if y.dtype != input.dtype else y


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Divide each element by ``(k + alpha * mean of squares over ``size`` neighbouring
    channels) ** beta`` (the window zero-padded at the ends, as PyTorch's).

    Example:
        >>> y = ember.nn.functional.local_response_norm(ember.ones(1, 4, 2, 2), 2)
        >>> y.shape
        ember.Size([1, 4, 2, 2])
    """
    _check_tensor("local_response_norm", "input", 1, input)
    nd = input.dim()
    if nd < 3:
        # NOTE: matches torch: its message carries a run of spaces from a wrapped line
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input "
            f"(got {nd} dimensions)"
        )
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input * input
    before, after = size // 2, (size - 1) // 2
    # the channel window sums as shifted slices of the zero-padded squares (size is small)
    zshape = list(sq.shape)
    parts = []
    if before:
        zshape[1] = before
        parts.append(zeros(zshape, dtype=sq.dtype, device=sq.device))
    parts.append(sq)
    if after:
        zshape[1] = after
        parts.append(zeros(zshape, dtype=sq.dtype, device=sq.device))
    padded = cat(parts, 1) if len(parts) > 1 else sq
    div = padded.narrow(1, 0, c)
    for i in range(1, size):
        div = div + padded.narrow(1, i, c)
    div = (div * (alpha / size) + k).pow(beta)
    return input / div


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """``input / max(norm_p(input, dim), eps)``: unit ``p``-norm slices along ``dim``.

    Example:
        >>> ember.nn.functional.normalize(ember.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return div(input, denom, out=out)
