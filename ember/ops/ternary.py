"""Element-wise ops of three inputs: ``where``, ``lerp``, ``addcmul``, ``addcdiv`` and
``masked_fill``, with their Tensor methods and in-place forms."""

from __future__ import annotations

import warnings

from ember import _dtype, backend
from ember.autograd.function import Function
from ember.ops._dispatch import cj, promote, xp_of
from ember.ops._elementwise import _BOOL, _TORCH_NAME, _cast, _check, _opmath, _unsupported
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor

_F32, _F64 = _dtype.float32._np, _dtype.float64._np


class Where(Function):
    _array_forward = True
    _node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, cond, x, y, dt):
        ctx.save_for_backward(cond)
        if cond.dtype != _BOOL:
            cond = cond.astype(_BOOL)
        out = xp_of(cond).where(cond, _cast(x, dt), _cast(y, dt))
        return out if out.dtype == dt else out.astype(dt)

    @staticmethod
    def backward(ctx, g):
        (cond,) = ctx.saved_tensors
        _, need_x, need_y, _ = ctx.needs_input_grad
        if cond.dtype is not _dtype.bool:
            cond = cond.bool()
        return (
            None,
            (g.masked_fill(~cond, 0.0) if need_x else None),
            (g.masked_fill(cond, 0.0) if need_y else None),
            None,
        )


def where(condition: Tensor, input=None, other=None, *, out=None):
    """``input`` where ``condition`` is True, else ``other`` (tensors or numbers, broadcast and
    type-promoted). ``where(condition)`` alone is ``condition.nonzero(as_tuple=True)``.

    Example:
        >>> ember.where(ember.tensor([True, False]), ember.tensor([1.0, 2.0]), 0.0)
        tensor([1., 0.])
    """
    _check(condition, "where", "condition")
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if input is None or other is None:
        raise TypeError(
            "where() takes a condition and both input and other (or only the condition)"
        )
    cd = condition._data.dtype
    if cd != _BOOL:
        if cd != _dtype.uint8._np:
            raise RuntimeError(
                f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{_TORCH_NAME[condition.dtype.name]}"
            )
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be "
            "removed in a future version of PyTorch. Use a boolean condition instead.",
            UserWarning,
            stacklevel=2,
        )
    for v, name in ((input, "input"), (other, "other")):
        if not isinstance(v, (Tensor, int, float, complex, backend.generic)):
            raise TypeError(
                f"where(): argument '{name}' must be Tensor or a number, not {type(v).__name__}"
            )
    return _out(Where.apply(condition, input, other, promote(input, other)), out)


class Lerp(Function):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "LerpBackward0"

    fma = False  # the half-precision classes below

    @classmethod
    def forward(cls, ctx, start, end, weight):
        xp = xp_of(start)
        ctx.save_for_backward(start, end, weight)
        s, e = _opmath(start), _opmath(end)
        diff = e - s
        w = _opmath(weight) if backend.is_array(weight) else weight
        if cls.fma:
            # NOTE: matches torch: its float16/bfloat16 kernels fuse the multiply-add in float32,
            # rounding once (float64 products of float32 values are exact); ember's float32
            # lerp keeps NumPy's two roundings (fusing there costs 4x, for one unit in the last
            # place)
            w = w if backend.is_array(w) else xp.float32(w)
            omw = (1 - w).astype(_F64)  # 1 - weight in float32, as torch
            s, e, diff, w = s.astype(_F64), e.astype(_F64), diff.astype(_F64), w.astype(_F64)
        else:
            omw = 1 - w
        # NOTE: matches torch: the formula depends on |weight| < 0.5, exact at both ends
        if backend.is_array(w):
            y = xp.where(xp.abs(w) < 0.5, s + w * diff, e - diff * omw)
        elif abs(w) < 0.5:  # (a complex weight too)
            y = s + w * diff
        else:
            y = e - diff * omw
        return y.astype(start.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        start, end, w = ctx.saved_tensors
        need_s, need_e, need_w = ctx.needs_input_grad
        return (
            (g * cj(1 - w) if need_s else None),
            (g * cj(w) if need_e else None),
            (g * cj(end - start) if need_w else None),
        )


class LerpT(Lerp):
    _node_name = "LerpBackward1"


class LerpHalf(Lerp):
    fma = True


class LerpTHalf(LerpT):
    fma = True


def lerp(input: Tensor, end: Tensor, weight, *, out=None) -> Tensor:
    """``input + weight * (end - input)``; ``weight`` is a number or a tensor.

    Example:
        >>> ember.lerp(ember.tensor([0.0]), ember.tensor([10.0]), 0.25)
        tensor([2.5000])
    """
    _check(input, "lerp")
    _check(end, "lerp", "end", 2)
    d = input._data.dtype
    if d.kind not in "fV":
        if d.kind != "c":
            _unsupported("lerp", d)
        if not isinstance(weight, Tensor):
            weight = complex(weight)
    for t, name in ((end, "end"), (weight, "weight")):
        if isinstance(t, Tensor) and t._data.dtype != d:
            raise RuntimeError(
                f"expected dtype {input.dtype.name} for `{name}` but got dtype {t.dtype.name}"
            )
    if isinstance(weight, Tensor):
        cls = LerpTHalf if d.itemsize == 2 else LerpT
        return _out(cls.apply(input, end, weight), out)
    if d.kind != "c":
        weight = _real_scalar(weight, d)
    return _out((LerpHalf if d.itemsize == 2 else Lerp).apply(input, end, weight), out)


def _real_scalar(v, d) -> float:
    """``float(v)``, with torch's error for a complex number with an imaginary part."""
    if isinstance(v, complex) or (isinstance(v, backend.generic) and v.dtype.kind == "c"):
        if v.imag != 0:
            ctype = _CTYPES.get(d.name, "c10::" + _TORCH_NAME[_dtype.from_np(d).name])
            raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
        v = v.real
    return float(v)


_CTYPES = {"float32": "float", "float64": "double"}


class Addcmul(Function):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "AddcmulBackward0"

    @staticmethod
    def forward(ctx, x, t1, t2, value, dt):
        ctx.save_for_backward(t1, t2)
        ctx.value = value
        return _cast(x, dt) + value * _cast(t1, dt) * _cast(t2, dt)

    @staticmethod
    def backward(ctx, g):
        t1, t2 = ctx.saved_tensors
        _, need_1, need_2, _, _ = ctx.needs_input_grad
        v = ctx.value
        g1 = g * cj(t2 * v) if need_1 else None
        return g, g1, (g * cj(t1 * v) if need_2 else None), None, None


class Addcdiv(Function):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "AddcdivBackward0"

    @staticmethod
    def forward(ctx, x, t1, t2, value, dt):
        ctx.save_for_backward(t1, t2)
        ctx.value = value
        return _cast(x, dt) + value * _cast(t1, dt) / _cast(t2, dt)

    @staticmethod
    def backward(ctx, g):
        t1, t2 = ctx.saved_tensors
        _, need_1, need_2, _, _ = ctx.needs_input_grad
        v = ctx.value
        return (
            g,
            (g * cj(v / t2) if need_1 else None),
            (-g * cj(v * t1 / (t2 * t2)) if need_2 else None),
            None,
            None,
        )


def _addc_value(value, dt):
    if isinstance(value, Tensor):
        value = value.item()
    # NOTE: matches torch: an integer result takes the value truncated to an integer
    return int(value) if dt.kind in "biu" else value


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1, out=None) -> Tensor:
    """``input + value * tensor1 * tensor2``.

    Example:
        >>> ember.addcmul(ember.ones(2), ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))
        tensor([4., 9.])
    """
    for i, (t, name) in enumerate(((input, "input"), (tensor1, "tensor1"), (tensor2, "tensor2"))):
        _check(t, "addcmul", name, i + 1)
    dt = promote(input, tensor1, tensor2)
    return _out(Addcmul.apply(input, tensor1, tensor2, _addc_value(value, dt), dt), out)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1, out=None) -> Tensor:
    """``input + value * tensor1 / tensor2`` (integer ``tensor1``/``tensor2`` raise, as in
    PyTorch).

    Example:
        >>> ember.addcdiv(ember.ones(2), ember.tensor([1.0, 2.0]), ember.tensor([2.0, 4.0]))
        tensor([1.5000, 1.5000])
    """
    for i, (t, name) in enumerate(((input, "input"), (tensor1, "tensor1"), (tensor2, "tensor2"))):
        _check(t, "addcdiv", name, i + 1)
    if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
        # NOTE: matches torch: two spaces in "future  release".
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic "
            "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes."
        )
    dt = promote(input, tensor1, tensor2)
    return _out(Addcdiv.apply(input, tensor1, tensor2, _addc_value(value, dt), dt), out)


class MaskedFill(Function):
    _array_forward = True
    _node_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.save_for_backward(mask)
        out = xp_of(x).where(mask, value, x)
        return out if out.dtype == x.dtype else out.astype(x.dtype)

    @staticmethod
    def backward(ctx, g):
        (mask,) = ctx.saved_tensors
        need_x, _, need_v = ctx.needs_input_grad
        # a tensor value gets the sum of the gradient over the filled places (the engine sums
        # the broadcast gradient down to the value's 0-d shape)
        return (
            (g.masked_fill(mask, 0.0) if need_x else None),
            None,
            (g.masked_fill(~mask, 0.0) if need_v else None),
        )


class MaskedFillT(MaskedFill):
    _node_name = "MaskedFillBackward1"


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``input`` with ``value`` where the bool ``mask`` is True (``mask`` broadcasts).

    ``value`` is a number or a 0-d tensor (differentiable); the result keeps ``input``'s dtype.

    Example:
        >>> x = ember.tensor([1.0, 2.0, 3.0])
        >>> x.masked_fill(x > 1.5, 0.0)
        tensor([1., 0., 0.])
    """
    _check(input, "masked_fill")
    _check(mask, "masked_fill", "mask", 2)
    if mask._data.dtype != _BOOL:
        raise RuntimeError(
            f"masked_fill only supports boolean masks, but got mask with dtype {mask.dtype}; "
            "use mask.bool() or a comparison such as x > 0"
        )
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"masked_fill only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        return MaskedFillT.apply(input, mask, value)
    if not isinstance(value, (int, float, backend.generic)):
        if not isinstance(value, complex):
            raise TypeError(
                f"masked_fill(): argument 'value' must be a number or a 0-d Tensor, "
                f"not {type(value).__name__}"
            )
        if input._data.dtype.kind != "c":
            value = _real_scalar(value, input._data.dtype)
    if isinstance(value, backend.generic):
        value = value.item()
    return MaskedFill.apply(input, mask, value)


# ---- Tensor methods and in-place forms --------------------------------------------------------
_BINARY_METHODS = {
    "lerp": lerp,
    "addcmul": addcmul,
    "addcdiv": addcdiv,
    "masked_fill": masked_fill,
}
for _name, _fn in _BINARY_METHODS.items():
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))
Tensor.where = lambda self, condition, other: where(condition, self, other)

__all__ = ["where", "lerp", "addcmul", "addcdiv", "masked_fill"]
