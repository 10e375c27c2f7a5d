"""``ember.nn.functional``: Normalization: batch_norm, layer_norm, group_norm, instance_norm,
rms_norm, local_response_norm, normalize."""

from __future__ import annotations

from ember.ops.normalization import NativeBatchNorm, NativeLayerNorm
from ember.tensor import Tensor

__all__ = ["batch_norm", "layer_norm"]

_SCALAR = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
           "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _shape_tuple(fn: str, shape, pos: int = 2) -> tuple:
    if isinstance(shape, int) and not isinstance(shape, bool):
        raise TypeError(f"{fn}(): argument 'normalized_shape' (position {pos}) must be tuple of "
                        f"ints, not int")
    return tuple(int(s) for s in shape)


def _check_tensor(fn: str, name: str, pos: int, t, optional: bool = False) -> None:
    if not isinstance(t, Tensor) and not (optional and t is None):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(t).__name__}")


def _check_params_dtype(x, *params) -> None:
    """PyTorch's CPU rule: parameters share the input's dtype, except float32 parameters of a
    float16 input (mixed precision)."""
    dt = x.dtype
    for p in params:
        if p is None or p._data.dtype == dt:
            continue
        if dt.char == "e" and p._data.dtype.char == "f":
            continue
        if dt.char in "ef":
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _check_float(kernel: str, x) -> None:
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_SCALAR.get(x.dtype.name, x.dtype.name)}'")


def _check_normalized(fn_sep: str, input: Tensor, shape: tuple, weight, bias) -> None:
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            f"one element, but got normalized_shape = {list(shape)}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(p.shape)} and normalized_shape = {list(shape)}")
    xs = tuple(input.shape)
    k = len(shape)
    if len(xs) < k or xs[len(xs) - k:] != shape:
        expect = ", ".join(str(s) for s in shape)
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{fn_sep}{expect}], but got input of size{list(xs)}")


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
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
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
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
    return NativeBatchNorm.apply(input, weight, bias, rm_upd, rv_upd, True, float(momentum),
                                 float(eps))
