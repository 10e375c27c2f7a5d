"""Element-wise math of two inputs: ``remainder``/``fmod``, ``atan2``, ``maximum``/``minimum``,
``fmax``/``fmin``, ``float_power``, ``hypot``, ``copysign`` and ``xlogy``, with their Tensor
methods, the ``%`` operator and in-place forms."""

from __future__ import annotations

from ember import _dtype, backend
from ember.autograd.function import Function
from ember.ops._dispatch import binary, promote, xp_of
from ember.ops._elementwise import (
    _BOOL,
    _F64,
    _TORCH_NAME,
    _arr,
    _check,
    _complex_unsupported,
    _floating_pair,
    _operator,
    _unsupported,
    _xp2,
    _zeros,
)
from ember.ops.pointwise import _out, div, inplace
from ember.ops.pointwise import pow as _pow
from ember.ops.ternary import where
from ember.tensor import Tensor


def _any_zero(b) -> bool:
    if backend.is_array(b):
        return xp_of(b).device_type != "meta" and bool((b == 0).any())
    return b == 0


def _int_zero_check(a, b, op):
    for x in (a, b):
        if backend.is_array(x):
            k = x.dtype.kind
            if k in "iu":
                if _any_zero(b):
                    raise RuntimeError("ZeroDivisionError: integer division by zero")
                return
            if k == "c":
                _complex_unsupported(op, x.dtype)


class Remainder(Function):
    _array_forward = True
    _node_name = "RemainderBackward1"

    @staticmethod
    def forward(ctx, a, b):
        _int_zero_check(a, b, "remainder_cpu")
        ctx.save_for_backward(a, b)
        return a % b  # NOTE: matches torch: Python's sign convention (that of the divisor)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # a % b = a - b * floor(a / b)
        return (g if need_a else None), (-g * div(a, b, rounding_mode="floor") if need_b else None)


class RemainderScalar(Remainder):
    _node_name = "RemainderBackward0"


class Fmod(Function):
    _array_forward = True
    _node_name = "FmodBackward1"

    @staticmethod
    def forward(ctx, a, b):
        _int_zero_check(a, b, "fmod_cpu")
        ctx.save_for_backward(a, b)
        return _xp2(a, b).fmod(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (g if need_a else None), (-g * div(a, b, rounding_mode="trunc") if need_b else None)


class FmodScalar(Fmod):
    _node_name = "FmodBackward0"


def _bool_operand(op, a, b):
    for x in (a, b):
        if isinstance(x, Tensor) and x._data.dtype == _BOOL and promote(a, b) == _BOOL:
            _unsupported(op, _BOOL)


def remainder(input, other, *, out=None) -> Tensor:
    """Python's ``%``: the result has the sign of ``other`` (``input`` may be a number).

    Example:
        >>> ember.remainder(ember.tensor([-3, 3]), 2)
        tensor([1, 1])
    """
    if not isinstance(input, Tensor):
        _check(other, "remainder", "other", 2)
    _bool_operand("remainder", input, other)
    cls = Remainder if isinstance(other, Tensor) else RemainderScalar
    return _out(binary(cls, input, other), out)


def fmod(input: Tensor, other, *, out=None) -> Tensor:
    """C's ``fmod``: the remainder has the sign of ``input``.

    Example:
        >>> ember.fmod(ember.tensor([-3, 3]), 2)
        tensor([-1,  1])
    """
    _check(input, "fmod")
    _bool_operand("fmod", input, other)
    return _out(binary(Fmod if isinstance(other, Tensor) else FmodScalar, input, other), out)


class Atan2(Function):
    _array_forward = True
    _node_name = "Atan2Backward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return xp_of(a).arctan2(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        r = (a * a + b * b).reciprocal()
        r = r.masked_fill(r.isinf(), 0.0)  # NOTE: matches torch: zero gradient at (0, 0)
        return (g * b * r if need_a else None), (g * -a * r if need_b else None)


def atan2(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Angle of the point ``(other, input)``: ``atan(input / other)`` in the right quadrant.

    Example:
        >>> ember.atan2(ember.tensor([1.0]), ember.tensor([-1.0]))
        tensor([2.3562])
    """
    _check(input, "atan2")
    _check(other, "atan2", "other", 2)
    return _out(binary(Atan2, *_floating_pair(input, other, "atan2_cpu")), out)


arctan2 = atan2


class Maximum(Function):
    _array_forward = True
    _node_name = "MaximumBackward0"

    @staticmethod
    def forward(ctx, a, b):
        if a.dtype.kind == "c":
            _complex_unsupported("maximum", a.dtype)
        ctx.save_for_backward(a, b)
        return xp_of(a).maximum(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # NOTE: matches torch: ties split the gradient equally
        split = where(a == b, g / 2, g)
        return (split.masked_fill(a < b, 0.0) if need_a else None), (
            split.masked_fill(a > b, 0.0) if need_b else None
        )


class Minimum(Function):
    _array_forward = True
    _node_name = "MinimumBackward0"

    @staticmethod
    def forward(ctx, a, b):
        if a.dtype.kind == "c":
            _complex_unsupported("minimum", a.dtype)
        ctx.save_for_backward(a, b)
        return xp_of(a).minimum(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        split = where(a == b, g / 2, g)
        return (split.masked_fill(a > b, 0.0) if need_a else None), (
            split.masked_fill(a < b, 0.0) if need_b else None
        )


class Fmax(Function):
    _array_forward = True
    _node_name = "FmaxBackward0"

    @staticmethod
    def forward(ctx, a, b):
        if a.dtype.kind == "c":
            _complex_unsupported("fmax", a.dtype)
        ctx.save_for_backward(a, b)
        return xp_of(a).fmax(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # NOTE: matches torch: a tie goes to input; a nan loses to a number
        pick_a = (a >= b) | b.isnan()
        return (g.masked_fill(~pick_a, 0.0) if need_a else None), (
            g.masked_fill(pick_a, 0.0) if need_b else None
        )


class Fmin(Function):
    _array_forward = True
    _node_name = "FminBackward0"

    @staticmethod
    def forward(ctx, a, b):
        if a.dtype.kind == "c":
            _complex_unsupported("fmin", a.dtype)
        ctx.save_for_backward(a, b)
        return xp_of(a).fmin(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        pick_a = (a <= b) | b.isnan()
        return (g.masked_fill(~pick_a, 0.0) if need_a else None), (
            g.masked_fill(pick_a, 0.0) if need_b else None
        )


def _tensor_pair_op(cls, name: str, doc: str):
    def op(input: Tensor, other: Tensor, *, out=None) -> Tensor:
        _check(input, name)
        _check(other, name, "other", 2)
        return _out(binary(cls, input, other), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


maximum = _tensor_pair_op(
    Maximum,
    "maximum",
    """Element-wise maximum (nan propagates).

    Example:
        >>> ember.maximum(ember.tensor([1, 5]), ember.tensor([3, 2]))
        tensor([3, 5])
    """,
)
minimum = _tensor_pair_op(Minimum, "minimum", "Element-wise minimum (nan propagates).")
fmax = _tensor_pair_op(Fmax, "fmax", "Element-wise maximum that ignores nan (C's ``fmax``).")
fmin = _tensor_pair_op(Fmin, "fmin", "Element-wise minimum that ignores nan (C's ``fmin``).")


def _is_complex(v) -> bool:
    """Whether a Tensor or number operand is complex."""
    if isinstance(v, Tensor):
        return v._data.dtype.kind == "c"
    return isinstance(v, complex) or (isinstance(v, backend.generic) and v.dtype.kind == "c")


def float_power(input, exponent, *, out=None) -> Tensor:
    """``input ** exponent`` computed and returned in float64 (either may be a number).

    Example:
        >>> ember.float_power(ember.tensor([2]), 3)
        tensor([8.], dtype=ember.float64)
    """
    if not isinstance(input, Tensor):
        _check(exponent, "float_power", "exponent", 2)
    # complex128 when either operand is complex, else float64
    dt = _dtype.float64
    for v in (input, exponent):
        if _is_complex(v):
            dt = _dtype.complex128
    cv = float if dt is _dtype.float64 else complex
    a = input.to(dt) if isinstance(input, Tensor) else cv(input)
    b = exponent.to(dt) if isinstance(exponent, Tensor) else cv(exponent)
    return _out(_pow(a, b), out)


def _float_power_(self: Tensor, exponent) -> Tensor:
    need = _F64
    for v in (self, exponent):
        if _is_complex(v):
            need = _dtype.complex128._np
    if self._data.dtype != need:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {_TORCH_NAME[self.dtype.name]} but the "
            f"operation's result requires dtype {'Double' if need is _F64 else 'ComplexDouble'}"
        )
    return _float_power_inplace(self, exponent)


_float_power_inplace = inplace(float_power)


class Hypot(Function):
    _array_forward = True
    _node_name = "HypotBackward0"

    @staticmethod
    def forward(ctx, a, b):
        xp = xp_of(a)
        y = _arr(xp.hypot(a, b), xp)
        ctx.save_for_backward(a, b, y)
        return y

    @staticmethod
    def backward(ctx, g):
        a, b, y = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (g * a / y if need_a else None), (g * b / y if need_b else None)


def hypot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``sqrt(input**2 + other**2)`` without overflow (floating tensors only).

    Example:
        >>> ember.hypot(ember.tensor([3.0]), ember.tensor([4.0]))
        tensor([5.])
    """
    _check(input, "hypot")
    _check(other, "hypot", "other", 2)
    dt = promote(input, other)
    if dt.kind not in "fV":
        if dt.kind == "c":
            _complex_unsupported("hypot_cpu", dt)
        _unsupported("hypot", dt)
    return _out(binary(Hypot, input, other), out)


class Copysign(Function):
    _array_forward = True
    _node_name = "CopysignBackward0"

    @staticmethod
    def forward(ctx, a, b):
        xp = _xp2(a, b)
        y = _arr(xp.copysign(a, b), xp)
        ctx.save_for_backward(a, y)
        return y

    @staticmethod
    def backward(ctx, g):
        a, y = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # d/da = +-1 (the sign flip), zero at a == 0; nothing flows to the sign source
        ga = g * (y / a).masked_fill(a == 0, 0.0) if need_a else None
        return ga, (_zeros(g) if need_b else None)


class CopysignScalar(Copysign):
    _node_name = "CopysignBackward1"


def copysign(input: Tensor, other, *, out=None) -> Tensor:
    """The magnitude of ``input`` with the sign of ``other`` (result is floating).

    Example:
        >>> ember.copysign(ember.tensor([1.0, 2.0]), -1)
        tensor([-1., -2.])
    """
    _check(input, "copysign")
    cls = Copysign if isinstance(other, Tensor) else CopysignScalar
    return _out(binary(cls, *_floating_pair(input, other, "copysign_cpu")), out)


class Xlogy(Function):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "XlogyBackward0"

    @staticmethod
    def forward(ctx, x, y):
        xp = _xp2(x, y)
        # a number operand becomes a 0-d array of the other's dtype (log of a Python number
        # would give a float64 NumPy scalar, which is not weak in promotion)
        if not backend.is_array(x):
            x = xp.asarray(x, dtype=y.dtype)
        if not backend.is_array(y):
            y = xp.asarray(y, dtype=x.dtype)
        ctx.save_for_backward(x, y)
        r = xp.where(x == 0, 0, x * xp.log(y))  # NOTE: matches torch: 0 * log(0) = 0 ...
        return xp.where(xp.isnan(y), float("nan"), r)  # ... but a nan y gives nan

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        # NOTE: matches torch: d/dx = log(y), but 0 where x == 0 and y <= 0
        gx = (g * y.log()).masked_fill((x == 0) & (y <= 0), 0.0) if need_x else None
        return gx, (g * x / y if need_y else None)


class XlogyScalarSelf(Xlogy):
    _node_name = "XlogyBackward1"


class XlogyScalarOther(Xlogy):
    _node_name = "XlogyBackward2"


def xlogy(input, other, *, out=None) -> Tensor:
    """``input * log(other)``, with 0 where ``input == 0`` (unless ``other`` is nan).

    Example:
        >>> ember.xlogy(ember.tensor([0.0, 2.0]), ember.tensor([0.0, 1.0]))
        tensor([0., 0.])
    """
    if not isinstance(input, Tensor):
        _check(other, "xlogy", "other", 2)
        cls = XlogyScalarSelf
    else:
        cls = Xlogy if isinstance(other, Tensor) else XlogyScalarOther
    return _out(binary(cls, *_floating_pair(input, other, "xlogy_cpu")), out)


# ---- Tensor methods, operators and in-place forms ---------------------------------------------
_BINARY_METHODS = {
    "remainder": remainder,
    "fmod": fmod,
    "atan2": atan2,
    "arctan2": atan2,
    "hypot": hypot,
    "copysign": copysign,
    "xlogy": xlogy,
}
for _name, _fn in _BINARY_METHODS.items():
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))
for _name, _fn in {
    "maximum": maximum,
    "minimum": minimum,
    "fmax": fmax,
    "fmin": fmin,
    "float_power": float_power,
}.items():
    setattr(Tensor, _name, _fn)
Tensor.float_power_ = _float_power_
Tensor.__mod__ = _operator(remainder)
Tensor.__rmod__ = _operator(remainder, reflected=True)
Tensor.__imod__ = _operator(Tensor.remainder_)

# torch-level in-place functions (``torch.xlogy_(x, y)``)
_TORCH_INPLACE = ("xlogy",)
for _name in _TORCH_INPLACE:
    globals()[_name + "_"] = getattr(Tensor, _name + "_")

__all__ = [
    "remainder",
    "fmod",
    "atan2",
    "arctan2",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "float_power",
    "hypot",
    "copysign",
    "xlogy",
    *(n + "_" for n in _TORCH_INPLACE),
]
