"""``softmax`` and ``log_softmax`` along one dim.

Both are primitives rather than compositions of ``exp``/``sum``/``log``: they subtract the max
first (so large inputs do not overflow) and their backward needs only the output.
"""

from __future__ import annotations

import operator

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.tensor import Tensor, _wrap_dim


def _shifted(x, dim):
    """``x - max(x, dim)`` in at least float32 (float16 is computed in float32)."""
    xp = xp_of(x)
    if x.dtype.char in "eE":
        x = x.astype(_dtype.float32._np)
    return x - xp.max(x, axis=dim, keepdims=True)


def _softmax_array(x, dim):
    if x.size == 0:
        return x.copy()
    if x.ndim == 0:  # NumPy gives scalars for 0-d arithmetic: work on one element
        return _softmax_array(x.reshape(1), 0).reshape(())
    xp = xp_of(x)
    e = _shifted(x, dim)
    xp.exp(e, out=e)
    e /= xp.sum(e, axis=dim, keepdims=True)
    return e.astype(x.dtype) if e.dtype != x.dtype else e


def _log_softmax_array(x, dim):
    if x.size == 0:
        return x.copy()
    if x.ndim == 0:
        return _log_softmax_array(x.reshape(1), 0).reshape(())
    xp = xp_of(x)
    z = _shifted(x, dim)
    z -= xp.log(xp.sum(xp.exp(z), axis=dim, keepdims=True))
    return z.astype(x.dtype) if z.dtype != x.dtype else z


class Softmax(Function):
    _array_forward = True
    _node_name = "SoftmaxBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        y = _softmax_array(x, dim)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        # d softmax: dy_i/dx_j = y_i (delta_ij - y_j)  =>  grad = y * (g - sum(g * y))
        return y * (g - (g * y).sum(ctx.dim, keepdim=True)), None


class LogSoftmax(Function):
    _array_forward = True
    _node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        y = _log_softmax_array(x, dim)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        # d log_softmax: dy_i/dx_j = delta_ij - softmax_j  =>  grad = g - exp(y) * sum(g)
        return g - y.exp() * g.sum(ctx.dim, keepdim=True), None


def _prepare(op: str, input: Tensor, dim, dtype):
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if dim is None or isinstance(dim, (float, bool)):
        raise TypeError(
            f"{op}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}"
        )
    try:
        dim = operator.index(dim)
    except TypeError:
        raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}") from None
    if dtype is not None:
        input = input.to(dtype)
    d = _wrap_dim(dim, input._data.ndim)
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(
            f'"{op}_lastdim_kernel_impl" not implemented for '
            f"'{_SNAME[input._data.dtype.name]}': {op} needs a floating-point input; pass "
            f"dtype=ember.float32 or call .float() first"
        )
    # a 0-d tensor is reduced over all (none) of its dims
    return input, (d if input._data.ndim else None)


_SNAME = _dtype.SCALAR_NAMES


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably; with ``dtype`` the input is
    converted first.

    Example:
        >>> ember.softmax(ember.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    input, d = _prepare("softmax", input, dim, dtype)
    return Softmax.apply(input, d)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``, computed stably; with ``dtype`` the input is
    converted first.

    Example:
        >>> ember.log_softmax(ember.tensor([0.0, 0.0]), dim=0)
        tensor([-0.6931, -0.6931])
    """
    input, d = _prepare("log_softmax", input, dim, dtype)
    return LogSoftmax.apply(input, d)


__all__ = ["softmax", "log_softmax"]

Tensor.softmax = softmax
Tensor.log_softmax = log_softmax
