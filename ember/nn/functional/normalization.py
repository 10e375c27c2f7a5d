"""``ember.nn.functional``: Normalization: batch_norm, layer_norm, group_norm, instance_norm,
rms_norm, local_response_norm, normalize."""

from __future__ import annotations

from ember.ops.normalization import NativeLayerNorm
from ember.tensor import Tensor

__all__ = ["layer_norm"]

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
