"""Element-wise math: unary functions (``exp``, ``sin``, ``sigmoid``...), binary and ternary
ops (``maximum``, ``clamp``, ``where``, ``lerp``...), comparisons, logical and bitwise ops,
``isclose``/``allclose``/``equal`` and ``masked_fill``, with their Tensor methods, operators
and in-place forms.

Most one-input ops share the ``_Unary`` forward (``xp.<fn>(x)``, saving the input or the output)
and differ only in their backward, which is written with Tensor ops so that it can be
differentiated again. Ops that PyTorch computes in floating point promote integer and bool
inputs to the default float dtype first (``_floating``); comparisons, logical ops and the
``is*`` predicates return bool tensors and record no graph.
"""

from __future__ import annotations

import math as _m
import operator
import warnings

from ember import _dtype, backend
from ember.autograd.function import Function
from ember.ops._dispatch import _as_array, binary, promote, promote2, unary, xp_of
from ember.ops.creation import zeros_like
from ember.ops.pointwise import _out, div, inplace
from ember.ops.pointwise import pow as _pow
from ember.tensor import Tensor, _wrap

_ARRAY_TYPES = backend._BY_TYPE
_F16 = _dtype.float16._np
_F32 = _dtype.float32._np
_F64 = _dtype.float64._np
_BOOL = _dtype.bool._np
_TORCH_NAME = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


# ---- helpers ----------------------------------------------------------------------------------
def _type_error(op: str, x, arg: str = "input", pos: int = 1):
    raise TypeError(
        f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}"
    )


def _check(x, op: str, arg: str = "input", pos: int = 1) -> Tensor:
    if not isinstance(x, Tensor):
        _type_error(op, x, arg, pos)
    return x


def _unsupported(op: str, npd):
    name = _dtype.from_np(npd).name
    raise NotImplementedError(
        f"{op}() is not implemented for {name} tensors ('{_TORCH_NAME[name]}'); convert the "
        f"input first, e.g. x.float()"
    )


def _floating(input, op: str) -> Tensor:
    """``input`` with integer and bool data cast to the default float dtype (such tensors
    never require grad, so no graph is lost)."""
    if not isinstance(input, Tensor):
        _type_error(op, input)
    d = input._data
    if d.dtype.kind == "f":
        return input
    return _wrap(d.astype(_dtype.get_default_dtype()._np))


def _floating_pair(a, b):
    """Both operands in the default float dtype when their promoted dtype is not floating."""
    dt = promote(a, b)
    if dt.kind == "f":
        return a, b
    f = _dtype.get_default_dtype()._np
    return tuple(_wrap(x._data.astype(f)) if isinstance(x, Tensor) else float(x) for x in (a, b))


def _opmath(x):
    # NOTE: matches torch: float16 kernels compute in float32 and round once at the end.
    return x.astype(_F32) if x.dtype == _F16 else x


def _cast(x, dt):
    """A raw operand in dtype ``dt``: arrays are cast, numbers pass through (NumPy treats them
    as weak, like PyTorch's scalars)."""
    if backend.is_array(x) and x.dtype != dt:
        return x.astype(dt)
    return x


def _arr(y, xp):
    """``y`` as an array: NumPy returns scalars from 0-d ufuncs, and a saved scalar would be
    taken for a constant number instead of the op's output."""
    return y if y.__class__ in _ARRAY_TYPES else xp.asarray(y)


def _xp2(a, b):
    return xp_of(a) if backend.is_array(a) else xp_of(b)


def _copy(t: Tensor) -> Tensor:
    return _wrap(t._data.copy())


def _zeros(g: Tensor) -> Tensor:
    return zeros_like(g)


# ---- one-input ops ----------------------------------------------------------------------------
class _Unary(Function):
    """``y = xp.<fn>(x)``; ``saves`` names what backward needs: the input ("x") or the output
    ("y")."""

    _array_forward = True
    fn = ""
    saves = ""

    @classmethod
    def forward(cls, ctx, x):
        xp = xp_of(x)
        y = getattr(xp, cls.fn)(x)
        if cls.saves == "x":
            ctx.save_for_backward(x)
        elif cls.saves == "y":
            y = _arr(y, xp)
            ctx.save_for_backward(y)
        return y


class _ZeroGrad(_Unary):
    """Piecewise-constant ops: the gradient is zero everywhere (PyTorch's ``zeros_like``)."""

    @staticmethod
    def backward(ctx, g):
        return _zeros(g)


class Abs(_Unary):
    _node_name = "AbsBackward0"
    fn, saves = "abs", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.sgn()  # NOTE: matches torch: abs'(0) = 0


class Sign(_ZeroGrad):
    _node_name = "SignBackward0"

    @staticmethod
    def forward(ctx, x):
        if x.dtype.kind != "f":
            return xp_of(x).sign(x)
        # NOTE: matches torch: sign(nan) = 0 (NumPy gives nan)
        return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


class Sgn(Sign):
    _node_name = "SgnBackward0"


class Reciprocal(_Unary):
    _node_name = "ReciprocalBackward0"
    fn, saves = "reciprocal", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return -g * (y * y)


class Square(_Unary):
    _node_name = "PowBackward0"  # NOTE: matches torch: square is pow(x, 2)
    fn, saves = "square", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (2 * x)


class Sqrt(_Unary):
    _node_name = "SqrtBackward0"
    fn, saves = "sqrt", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g / (2 * y)  # inf at 0, as in torch


class Rsqrt(_Unary):
    _node_name = "RsqrtBackward0"

    @staticmethod
    def forward(ctx, x):
        xp = xp_of(x)
        y = _arr((1 / xp.sqrt(_opmath(x))).astype(x.dtype, copy=False), xp)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return -0.5 * g * (y * y * y)


class Exp(_Unary):
    _node_name = "ExpBackward0"
    fn, saves = "exp", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class Exp2(_Unary):
    _node_name = "Exp2Backward0"
    fn, saves = "exp2", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (y * _m.log(2.0))


class Expm1(_Unary):
    _node_name = "Expm1Backward0"
    fn, saves = "expm1", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (y + 1)


class Log(_Unary):
    _node_name = "LogBackward0"
    fn, saves = "log", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / x


class Log2(_Unary):
    _node_name = "Log2Backward0"
    fn, saves = "log2", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / (x * _m.log(2.0))


class Log10(_Unary):
    _node_name = "Log10Backward0"
    fn, saves = "log10", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / (x * _m.log(10.0))


class Log1p(_Unary):
    _node_name = "Log1PBackward0"
    fn, saves = "log1p", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / (x + 1)


class Sin(_Unary):
    _node_name = "SinBackward0"
    fn, saves = "sin", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos()


class Cos(_Unary):
    _node_name = "CosBackward0"
    fn, saves = "cos", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * -x.sin()


class Tan(_Unary):
    _node_name = "TanBackward0"
    fn, saves = "tan", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1 + y * y)  # d tan = 1 + tan^2


class Asin(_Unary):
    _node_name = "AsinBackward0"
    fn, saves = "arcsin", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (1 - x * x).rsqrt()


class Acos(_Unary):
    _node_name = "AcosBackward0"
    fn, saves = "arccos", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * -(1 - x * x).rsqrt()


class Atan(_Unary):
    _node_name = "AtanBackward0"
    fn, saves = "arctan", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / (x * x + 1)


class Sinh(_Unary):
    _node_name = "SinhBackward0"
    fn, saves = "sinh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cosh()


class Cosh(_Unary):
    _node_name = "CoshBackward0"
    fn, saves = "cosh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.sinh()


class Tanh(_Unary):
    _node_name = "TanhBackward0"
    fn, saves = "tanh", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1 - y * y)


class Asinh(_Unary):
    _node_name = "AsinhBackward0"
    fn, saves = "arcsinh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x * x + 1).rsqrt()


class Acosh(_Unary):
    _node_name = "AcoshBackward0"
    fn, saves = "arccosh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x * x - 1).rsqrt()


class Atanh(_Unary):
    _node_name = "AtanhBackward0"
    fn, saves = "arctanh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / (1 - x * x)


class Sigmoid(_Unary):
    _node_name = "SigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        xp = xp_of(x)
        # 1 / (1 + exp(-x)) as torch computes it: exp overflows to inf for x << 0 and gives 0
        y = _arr((1 / (1 + xp.exp(-_opmath(x)))).astype(x.dtype, copy=False), xp)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1 - y) * y


class Logit(Function):
    _array_forward = True
    _node_name = "LogitBackward0"

    @staticmethod
    def forward(ctx, x, eps):
        xp = xp_of(x)
        z = _opmath(x)
        if eps is not None:
            z = xp.minimum(xp.maximum(z, eps), 1 - eps)
        ctx.save_for_backward(x)
        ctx.eps = eps
        return xp.log(z / (1 - z)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        eps = ctx.eps
        gx = g / (x * (1 - x))
        # NOTE: matches torch: nan outside [0, 1] without eps, 0 outside [eps, 1 - eps] with it
        if eps is None:
            return gx.masked_fill((x < 0) | (x > 1), float("nan")), None
        return gx.masked_fill((x < eps) | (x > 1 - eps), 0.0), None


class Erf(_Unary):
    _node_name = "ErfBackward0"
    fn, saves = "erf", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ((-(x * x)).exp() * (2 / _m.sqrt(_m.pi)))


class Erfc(_Unary):
    _node_name = "ErfcBackward0"
    fn, saves = "erfc", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ((-(x * x)).exp() * (-2 / _m.sqrt(_m.pi)))


class Erfinv(_Unary):
    _node_name = "ErfinvBackward0"
    fn, saves = "erfinv", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * ((y * y).exp() * (_m.sqrt(_m.pi) / 2))  # 1 / erf'(erfinv(x))


class Relu(_Unary):
    _node_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, x):
        xp = xp_of(x)
        y = _arr(xp.maximum(x, 0), xp)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g.masked_fill(y <= 0, 0.0)  # NOTE: matches torch: relu'(0) = 0


class Floor(_ZeroGrad):
    _node_name = "FloorBackward0"
    fn = "floor"


class Ceil(_ZeroGrad):
    _node_name = "CeilBackward0"
    fn = "ceil"


class Round(_ZeroGrad):
    _node_name = "RoundBackward0"
    fn = "rint"  # NOTE: matches torch: halves round to even


class RoundDecimals(_ZeroGrad):
    _node_name = "RoundBackward1"

    @staticmethod
    def forward(ctx, x, decimals):
        xp = xp_of(x)
        # the same steps as torch: scale by 10^|decimals|, round half to even, scale back
        if decimals < 0:
            ten = float(10 ** -decimals)
            return xp.rint(x / ten) * ten
        ten = float(10 ** decimals)
        return xp.rint(x * ten) / ten

    @staticmethod
    def backward(ctx, g):
        return _zeros(g), None


class Trunc(_ZeroGrad):
    _node_name = "TruncBackward0"
    fn = "trunc"


class Frac(_Unary):
    _node_name = "FracBackward0"

    @staticmethod
    def forward(ctx, x):
        return x - xp_of(x).trunc(x)

    @staticmethod
    def backward(ctx, g):
        return g


class NanToNum(Function):
    _array_forward = True
    _node_name = "NanToNumBackward0"

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        ctx.save_for_backward(x)
        return xp_of(x).nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.isfinite(), None, None, None


class Deg2Rad(_Unary):
    _node_name = "Deg2RadBackward0"

    @staticmethod
    def forward(ctx, x):
        return x * (_m.pi / 180)

    @staticmethod
    def backward(ctx, g):
        return g * (_m.pi / 180)


class Rad2Deg(_Unary):
    _node_name = "Rad2DegBackward0"

    @staticmethod
    def forward(ctx, x):
        return x * (180 / _m.pi)

    @staticmethod
    def backward(ctx, g):
        return g * (180 / _m.pi)


def _float_unary(cls, name: str, summary: str, example: str, result: str):
    """A public op ``name(input, *, out=None)`` computing ``cls`` in floating point."""

    def op(input: Tensor, *, out=None) -> Tensor:
        return _out(unary(cls, _floating(input, name)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"{summary}; integer and bool inputs give the default float dtype.\n\n"
                  f"    Example:\n        >>> {example}\n        {result}\n    ")
    return op


reciprocal = _float_unary(Reciprocal, "reciprocal", "``1 / input``",
                          "ember.reciprocal(ember.tensor([2.0]))", "tensor([0.5000])")
sqrt = _float_unary(Sqrt, "sqrt", "Square root",
                    "ember.sqrt(ember.tensor([4.0]))", "tensor([2.])")
rsqrt = _float_unary(Rsqrt, "rsqrt", "``1 / sqrt(input)``",
                     "ember.rsqrt(ember.tensor([4.0]))", "tensor([0.5000])")
exp = _float_unary(Exp, "exp", "``e ** input``",
                   "ember.exp(ember.tensor([0.0, 1.0]))", "tensor([1.0000, 2.7183])")
exp2 = _float_unary(Exp2, "exp2", "``2 ** input``",
                    "ember.exp2(ember.tensor([3.0]))", "tensor([8.])")
expm1 = _float_unary(Expm1, "expm1", "``exp(input) - 1``, accurate near 0",
                     "ember.expm1(ember.tensor([1e-10]))", "tensor([1.0000e-10])")
log = _float_unary(Log, "log", "Natural logarithm",
                   "ember.log(ember.tensor([1.0, 2.0]))", "tensor([0.0000, 0.6931])")
log2 = _float_unary(Log2, "log2", "Base-2 logarithm",
                    "ember.log2(ember.tensor([8.0]))", "tensor([3.])")
log10 = _float_unary(Log10, "log10", "Base-10 logarithm",
                     "ember.log10(ember.tensor([100.0]))", "tensor([2.0000])")
log1p = _float_unary(Log1p, "log1p", "``log(1 + input)``, accurate near 0",
                     "ember.log1p(ember.tensor([1e-10]))", "tensor([1.0000e-10])")
sin = _float_unary(Sin, "sin", "Sine",
                   "ember.sin(ember.tensor([0.0, 1.5708]))", "tensor([0., 1.])")
cos = _float_unary(Cos, "cos", "Cosine",
                   "ember.cos(ember.tensor([0.0]))", "tensor([1.])")
tan = _float_unary(Tan, "tan", "Tangent",
                   "ember.tan(ember.tensor([0.7854]))", "tensor([1.0000])")
asin = _float_unary(Asin, "asin", "Arcsine (``arcsin``)",
                    "ember.asin(ember.tensor([1.0]))", "tensor([1.5708])")
acos = _float_unary(Acos, "acos", "Arccosine (``arccos``)",
                    "ember.acos(ember.tensor([1.0]))", "tensor([0.])")
atan = _float_unary(Atan, "atan", "Arctangent (``arctan``)",
                    "ember.atan(ember.tensor([1.0]))", "tensor([0.7854])")
sinh = _float_unary(Sinh, "sinh", "Hyperbolic sine",
                    "ember.sinh(ember.tensor([1.0]))", "tensor([1.1752])")
cosh = _float_unary(Cosh, "cosh", "Hyperbolic cosine",
                    "ember.cosh(ember.tensor([0.0]))", "tensor([1.])")
tanh = _float_unary(Tanh, "tanh", "Hyperbolic tangent",
                    "ember.tanh(ember.tensor([0.5]))", "tensor([0.4621])")
asinh = _float_unary(Asinh, "asinh", "Inverse hyperbolic sine (``arcsinh``)",
                     "ember.asinh(ember.tensor([1.0]))", "tensor([0.8814])")
acosh = _float_unary(Acosh, "acosh", "Inverse hyperbolic cosine (``arccosh``)",
                     "ember.acosh(ember.tensor([1.0]))", "tensor([0.])")
atanh = _float_unary(Atanh, "atanh", "Inverse hyperbolic tangent (``arctanh``)",
                     "ember.atanh(ember.tensor([0.5]))", "tensor([0.5493])")
sigmoid = _float_unary(Sigmoid, "sigmoid", "Logistic sigmoid ``1 / (1 + exp(-input))``",
                       "ember.sigmoid(ember.tensor([0.0, 2.0]))", "tensor([0.5000, 0.8808])")
erf = _float_unary(Erf, "erf", "Error function",
                   "ember.erf(ember.tensor([0.5]))", "tensor([0.5205])")
erfc = _float_unary(Erfc, "erfc", "Complementary error function ``1 - erf(input)``",
                    "ember.erfc(ember.tensor([0.5]))", "tensor([0.4795])")
erfinv = _float_unary(Erfinv, "erfinv", "Inverse error function on (-1, 1)",
                      "ember.erfinv(ember.tensor([0.5]))", "tensor([0.4769])")
deg2rad = _float_unary(Deg2Rad, "deg2rad", "Degrees to radians",
                       "ember.deg2rad(ember.tensor([180.0]))", "tensor([3.1416])")
rad2deg = _float_unary(Rad2Deg, "rad2deg", "Radians to degrees",
                       "ember.rad2deg(ember.tensor([3.1416]))", "tensor([180.0004])")
arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh


def abs(input: Tensor, *, out=None) -> Tensor:  # noqa: A001  (PyTorch's name)
    """Absolute value; keeps integer dtypes.

    Example:
        >>> ember.abs(ember.tensor([-1, 2]))
        tensor([1, 2])
    """
    if _check(input, "abs")._data.dtype == _BOOL:
        _unsupported("abs", _BOOL)
    return _out(unary(Abs, input), out)


absolute = abs


def sign(input: Tensor, *, out=None) -> Tensor:
    """-1, 0 or 1 by the sign of each element (0 for nan, as in PyTorch); keeps the dtype.

    Example:
        >>> ember.sign(ember.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
    """
    if _check(input, "sign")._data.dtype == _BOOL:
        return _out(_copy(input), out)
    return _out(unary(Sign, input), out)


def sgn(input: Tensor, *, out=None) -> Tensor:
    """``sign`` (ember has no complex dtypes, where ``sgn`` differs)."""
    if _check(input, "sgn")._data.dtype == _BOOL:
        return _out(_copy(input), out)
    return _out(unary(Sgn, input), out)


def square(input: Tensor, *, out=None) -> Tensor:
    """``input * input``; integer dtypes stay integer, bool gives int64.

    Example:
        >>> ember.square(ember.tensor([3]))
        tensor([9])
    """
    if _check(input, "square")._data.dtype == _BOOL:
        input = _wrap(input._data.astype(_dtype.int64._np))
    return _out(unary(Square, input), out)


def logit(input: Tensor, eps: float | None = None, *, out=None) -> Tensor:
    """``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped to ``[eps, 1 - eps]``.

    Example:
        >>> ember.logit(ember.tensor([0.5, 0.0]), eps=1e-6)
        tensor([  0.0000, -13.8155])
    """
    return _out(unary(Logit, _floating(input, "logit"), None if eps is None else float(eps)), out)


def relu(input: Tensor) -> Tensor:
    """``max(input, 0)``; keeps integer dtypes.

    Example:
        >>> ember.relu(ember.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """
    if _check(input, "relu")._data.dtype == _BOOL:
        raise RuntimeError("Boolean inputs not supported for relu")
    return unary(Relu, input)


def _rounding(cls, name: str):
    def op(input: Tensor, *, out=None) -> Tensor:
        d = _check(input, name)._data.dtype
        if d.kind != "f":
            if d == _BOOL:
                _unsupported(name, d)
            return _out(_copy(input), out)  # NOTE: matches torch: integers are returned as is
        return _out(unary(cls, input), out)

    op.__name__ = op.__qualname__ = name
    return op


floor = _rounding(Floor, "floor")
floor.__doc__ = """Largest integer not greater than each element (integer dtypes unchanged).

    Example:
        >>> ember.floor(ember.tensor([-1.5, 1.5]))
        tensor([-2.,  1.])
    """
ceil = _rounding(Ceil, "ceil")
ceil.__doc__ = "Smallest integer not less than each element (integer dtypes unchanged)."
trunc = _rounding(Trunc, "trunc")
trunc.__doc__ = "Round toward zero (integer dtypes unchanged)."
fix = trunc
_round0 = _rounding(Round, "round")


def round(input: Tensor, *, decimals: int = 0, out=None) -> Tensor:  # noqa: A001
    """Round half to even, to ``decimals`` decimal places (negative: to tens, hundreds...).

    Example:
        >>> ember.round(ember.tensor([0.5, 1.5, 1.2345]), decimals=0)
        tensor([0., 2., 1.])
    """
    if decimals == 0:
        return _round0(input, out=out)
    d = _check(input, "round")._data.dtype
    if d.kind != "f":
        _unsupported("round", d)
    return _out(unary(RoundDecimals, input, int(decimals)), out)


def frac(input: Tensor, *, out=None) -> Tensor:
    """Fractional part ``input - trunc(input)`` (floating inputs only, as in PyTorch).

    Example:
        >>> ember.frac(ember.tensor([-1.5, 2.25]))
        tensor([-0.5000,  0.2500])
    """
    d = _check(input, "frac")._data.dtype
    if d.kind != "f":
        _unsupported("frac", d)
    return _out(unary(Frac, input), out)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None, *, out=None) -> Tensor:
    """Replace nan, +inf and -inf (default: 0 and the dtype's largest/lowest finite values).

    Example:
        >>> ember.nan_to_num(ember.tensor([float("nan"), float("inf")]), posinf=1.0)
        tensor([0., 1.])
    """
    if _check(input, "nan_to_num")._data.dtype.kind != "f":
        return _out(_copy(input), out)
    return _out(unary(NanToNum, input, nan, posinf, neginf), out)


def positive(input: Tensor) -> Tensor:
    """``input`` itself (``+input``); bool tensors raise, as in PyTorch."""
    if _check(input, "positive")._data.dtype == _BOOL:
        raise RuntimeError(
            "The `+` operator, on a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead."
        )
    return input


def _predicate(name: str, fn, doc: str):
    """A bool-valued element-wise test (no graph)."""

    def op(input: Tensor) -> Tensor:
        x = _check(input, name)._data
        return _wrap(_as_array(fn(xp_of(x), x), None))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


isnan = _predicate("isnan", lambda xp, x: xp.isnan(x), """Whether each element is nan.

    Example:
        >>> ember.isnan(ember.tensor([1.0, float("nan")]))
        tensor([False,  True])
    """)
isinf = _predicate("isinf", lambda xp, x: xp.isinf(x), "Whether each element is +inf or -inf.")
isposinf = _predicate("isposinf", lambda xp, x: xp.isinf(x) & (x > 0),
                      "Whether each element is +inf.")
isneginf = _predicate("isneginf", lambda xp, x: xp.isinf(x) & (x < 0),
                      "Whether each element is -inf.")
isfinite = _predicate("isfinite", lambda xp, x: xp.isfinite(x),
                      "Whether each element is finite (not nan or inf).")
isreal = _predicate("isreal", lambda xp, x: xp.ones(x.shape, dtype=_BOOL),
                    "All True: ember has only real dtypes.")


# ---- two- and three-input ops -------------------------------------------------------------------
def _any_zero(b) -> bool:
    if backend.is_array(b):
        return xp_of(b).device_type != "meta" and bool((b == 0).any())
    return b == 0


def _int_zero_check(a, b):
    for x in (a, b):
        if backend.is_array(x) and x.dtype.kind in "iu":
            if _any_zero(b):
                raise RuntimeError("ZeroDivisionError: integer division by zero")
            return


class Remainder(Function):
    _array_forward = True
    _node_name = "RemainderBackward1"

    @staticmethod
    def forward(ctx, a, b):
        _int_zero_check(a, b)
        ctx.save_for_backward(a, b)
        return a % b  # NOTE: matches torch: Python's sign convention (that of the divisor)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # a % b = a - b * floor(a / b)
        return (g if need_a else None), (
            -g * div(a, b, rounding_mode="floor") if need_b else None)


class RemainderScalar(Remainder):
    _node_name = "RemainderBackward0"


class Fmod(Function):
    _array_forward = True
    _node_name = "FmodBackward1"

    @staticmethod
    def forward(ctx, a, b):
        _int_zero_check(a, b)
        ctx.save_for_backward(a, b)
        return _xp2(a, b).fmod(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (g if need_a else None), (
            -g * div(a, b, rounding_mode="trunc") if need_b else None)


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
    return _out(binary(Atan2, *_floating_pair(input, other)), out)


arctan2 = atan2


class Maximum(Function):
    _array_forward = True
    _node_name = "MaximumBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return xp_of(a).maximum(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # NOTE: matches torch: ties split the gradient equally
        split = where(a == b, g / 2, g)
        return (split.masked_fill(a < b, 0.0) if need_a else None), (
            split.masked_fill(a > b, 0.0) if need_b else None)


class Minimum(Function):
    _array_forward = True
    _node_name = "MinimumBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return xp_of(a).minimum(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        split = where(a == b, g / 2, g)
        return (split.masked_fill(a > b, 0.0) if need_a else None), (
            split.masked_fill(a < b, 0.0) if need_b else None)


class Fmax(Function):
    _array_forward = True
    _node_name = "FmaxBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return xp_of(a).fmax(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # NOTE: matches torch: a tie goes to input; a nan loses to a number
        pick_a = (a >= b) | b.isnan()
        return (g.masked_fill(~pick_a, 0.0) if need_a else None), (
            g.masked_fill(pick_a, 0.0) if need_b else None)


class Fmin(Function):
    _array_forward = True
    _node_name = "FminBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return xp_of(a).fmin(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        pick_a = (a <= b) | b.isnan()
        return (g.masked_fill(~pick_a, 0.0) if need_a else None), (
            g.masked_fill(pick_a, 0.0) if need_b else None)


def _tensor_pair_op(cls, name: str, doc: str):
    def op(input: Tensor, other: Tensor, *, out=None) -> Tensor:
        _check(input, name)
        _check(other, name, "other", 2)
        return _out(binary(cls, input, other), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


maximum = _tensor_pair_op(Maximum, "maximum", """Element-wise maximum (nan propagates).

    Example:
        >>> ember.maximum(ember.tensor([1, 5]), ember.tensor([3, 2]))
        tensor([3, 5])
    """)
minimum = _tensor_pair_op(Minimum, "minimum", "Element-wise minimum (nan propagates).")
fmax = _tensor_pair_op(Fmax, "fmax", "Element-wise maximum that ignores nan (C's ``fmax``).")
fmin = _tensor_pair_op(Fmin, "fmin", "Element-wise minimum that ignores nan (C's ``fmin``).")


def float_power(input, exponent, *, out=None) -> Tensor:
    """``input ** exponent`` computed and returned in float64 (either may be a number).

    Example:
        >>> ember.float_power(ember.tensor([2]), 3)
        tensor([8.], dtype=ember.float64)
    """
    if not isinstance(input, Tensor):
        _check(exponent, "float_power", "exponent", 2)
    a = input.to(_dtype.float64) if isinstance(input, Tensor) else float(input)
    b = exponent.to(_dtype.float64) if isinstance(exponent, Tensor) else float(exponent)
    return _out(_pow(a, b), out)


def _float_power_(self: Tensor, exponent) -> Tensor:
    if self._data.dtype != _F64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {_TORCH_NAME[self.dtype.name]} but the "
            "operation's result requires dtype Double"
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
    if dt.kind != "f":
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
    return _out(binary(cls, *_floating_pair(input, other)), out)


class Xlogy(Function):
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
    return _out(binary(cls, *_floating_pair(input, other)), out)


# ---- clamp --------------------------------------------------------------------------------------
class Clamp(Function):
    """``clamp`` with number bounds: the gradient passes where ``min <= x <= max``."""

    _array_forward = True
    _node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, x, lo, hi, dt):
        x = _cast(x, dt)
        xp = xp_of(x)
        y = x
        if lo is not None:
            y = xp.maximum(y, lo)
        if hi is not None:
            y = xp.minimum(y, hi)
        if y is x:
            y = x.copy()
        ctx.save_for_backward(x)
        ctx.bounds = lo, hi
        return y

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        lo, hi = ctx.bounds
        # NOTE: matches torch: the bounds are inclusive and a nan input gets no gradient
        keep = (x >= lo) if hi is None else (x <= hi) if lo is None else (x >= lo) & (x <= hi)
        return g.masked_fill(~keep, 0.0), None, None, None


class ClampMin(Clamp):
    _node_name = "ClampMinBackward0"


class ClampMax(Clamp):
    _node_name = "ClampMaxBackward0"


class ClampT(Function):
    """``clamp`` with tensor bounds: gradients also flow to the bound that was taken."""

    _array_forward = True
    _node_name = "ClampBackward0"

    @staticmethod
    def forward(ctx, x, lo, hi, dt):
        ctx.save_for_backward(x, lo, hi)
        x = _cast(x, dt)
        xp = xp_of(x)
        y = x
        if lo is not None:
            y = xp.maximum(y, _cast(lo, dt))
        if hi is not None:
            y = xp.minimum(y, _cast(hi, dt))
        return y

    @staticmethod
    def backward(ctx, g):
        x, lo, hi = ctx.saved_tensors
        _, need_lo, need_hi, _ = ctx.needs_input_grad
        g_lo = g_hi = None
        if lo is not None and hi is not None:
            # NOTE: matches torch: when min > max the result is max, and only max gets gradient
            gx = g.masked_fill(~((x >= lo) & (x <= hi)), 0.0)
            if need_lo:
                g_lo = g.masked_fill(~((x < lo) & (lo < hi)), 0.0)
            if need_hi:
                g_hi = g.masked_fill(~((x > hi) | (hi < lo)), 0.0)
        elif lo is not None:
            gx = g.masked_fill(x < lo, 0.0)
            g_lo = g.masked_fill(~(x < lo), 0.0) if need_lo else None
        else:
            gx = g.masked_fill(x > hi, 0.0)
            g_hi = g.masked_fill(~(x > hi), 0.0) if need_hi else None
        return gx, g_lo, g_hi, None


class ClampMinT(ClampT):
    _node_name = "ClampMinBackward1"


class ClampMaxT(ClampT):
    _node_name = "ClampMaxBackward1"


def _clamp(input, min, max, out, cls, cls_t, op):  # noqa: A002
    _check(input, op)
    if min is None and max is None:
        raise RuntimeError(f"torch.{op}: At least one of 'min' or 'max' must not be None")
    dt = promote(input, min, max)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if not (isinstance(min, Tensor) or min is None) or not (
                isinstance(max, Tensor) or max is None):
            raise TypeError(
                f"{op}() received an invalid combination of arguments: min and max must both "
                f"be Tensors (or None) or both numbers, got {type(min).__name__} and "
                f"{type(max).__name__}; wrap the number with ember.tensor(...)"
            )
        return _out(cls_t.apply(input, min, max, dt), out)
    for v in (min, max):
        if v is not None and not isinstance(v, (int, float, backend.generic)):
            raise TypeError(f"{op}(): min and max must be numbers or Tensors, not "
                            f"{type(v).__name__}")
    lo = None if min is None else (min.item() if isinstance(min, backend.generic) else min)
    hi = None if max is None else (max.item() if isinstance(max, backend.generic) else max)
    return _out(unary(cls, input, lo, hi, dt), out)


def clamp(input: Tensor, min=None, max=None, *, out=None) -> Tensor:  # noqa: A002
    """Limit each element to ``[min, max]`` (numbers or tensors; either may be None).

    The result dtype follows type promotion with the bounds (an int tensor clamped to 0.5 is
    float). When ``min > max`` every element becomes ``max``.

    Example:
        >>> ember.clamp(ember.tensor([-2.0, 0.5, 3.0]), min=0.0, max=1.0)
        tensor([0.0000, 0.5000, 1.0000])
    """
    return _clamp(input, min, max, out, Clamp, ClampT, "clamp")


clip = clamp


def clamp_min(input: Tensor, min) -> Tensor:  # noqa: A002
    """``clamp(input, min=min)``."""
    if min is None:
        raise TypeError("clamp_min(): argument 'min' must be a number or Tensor, not None")
    return _clamp(input, min, None, None, ClampMin, ClampMinT, "clamp_min")


def clamp_max(input: Tensor, max) -> Tensor:  # noqa: A002
    """``clamp(input, max=max)``."""
    if max is None:
        raise TypeError("clamp_max(): argument 'max' must be a number or Tensor, not None")
    return _clamp(input, None, max, None, ClampMax, ClampMaxT, "clamp_max")


# ---- where, lerp, addcmul, addcdiv, masked_fill ---------------------------------------------
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
        return None, (g.masked_fill(~cond, 0.0) if need_x else None), (
            g.masked_fill(cond, 0.0) if need_y else None), None


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
        raise TypeError("where() takes a condition and both input and other (or only the "
                        "condition)")
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
            UserWarning, stacklevel=2)
    for v, name in ((input, "input"), (other, "other")):
        if not isinstance(v, (Tensor, int, float, backend.generic)):
            raise TypeError(f"where(): argument '{name}' must be Tensor or a number, not "
                            f"{type(v).__name__}")
    return _out(Where.apply(condition, input, other, promote(input, other)), out)


class Lerp(Function):
    _array_forward = True
    _node_name = "LerpBackward0"

    @staticmethod
    def forward(ctx, start, end, weight):
        xp = xp_of(start)
        ctx.save_for_backward(start, end, weight)
        s, e = _opmath(start), _opmath(end)
        diff = e - s
        # NOTE: matches torch: the formula depends on |weight| < 0.5, exact at both ends
        if backend.is_array(weight):
            w = _opmath(weight)
            y = xp.where(xp.abs(w) < 0.5, s + w * diff, e - diff * (1 - w))
        elif -0.5 < weight < 0.5:
            y = s + weight * diff
        else:
            y = e - diff * (1 - weight)
        return y.astype(start.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        start, end, w = ctx.saved_tensors
        need_s, need_e, need_w = ctx.needs_input_grad
        return (g * (1 - w) if need_s else None), (g * w if need_e else None), (
            g * (end - start) if need_w else None)


class LerpT(Lerp):
    _node_name = "LerpBackward1"


def lerp(input: Tensor, end: Tensor, weight, *, out=None) -> Tensor:
    """``input + weight * (end - input)``; ``weight`` is a number or a tensor.

    Example:
        >>> ember.lerp(ember.tensor([0.0]), ember.tensor([10.0]), 0.25)
        tensor([2.5000])
    """
    _check(input, "lerp")
    _check(end, "lerp", "end", 2)
    d = input._data.dtype
    if d.kind != "f":
        _unsupported("lerp", d)
    for t, name in ((end, "end"), (weight, "weight")):
        if isinstance(t, Tensor) and t._data.dtype != d:
            raise RuntimeError(f"expected dtype {input.dtype.name} for `{name}` but got dtype "
                               f"{t.dtype.name}")
    if isinstance(weight, Tensor):
        return _out(LerpT.apply(input, end, weight), out)
    return _out(Lerp.apply(input, end, float(weight)), out)


class Addcmul(Function):
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
        return g, (g * t2 * v if need_1 else None), (g * t1 * v if need_2 else None), None, None


class Addcdiv(Function):
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
        return g, (g * (v / t2) if need_1 else None), (
            -g * v * t1 / (t2 * t2) if need_2 else None), None, None


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
    for i, (t, name) in enumerate(((input, "input"), (tensor1, "tensor1"),
                                   (tensor2, "tensor2"))):
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
    for i, (t, name) in enumerate(((input, "input"), (tensor1, "tensor1"),
                                   (tensor2, "tensor2"))):
        _check(t, "addcdiv", name, i + 1)
    if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
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
        return (g.masked_fill(mask, 0.0) if need_x else None), None, (
            g.masked_fill(~mask, 0.0) if need_v else None)


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
        raise TypeError(f"masked_fill(): argument 'value' must be a number or a 0-d Tensor, "
                        f"not {type(value).__name__}")
    if isinstance(value, backend.generic):
        value = value.item()
    return MaskedFill.apply(input, mask, value)


# ---- comparisons, logical and bitwise ops (bool or integer results, no graph) ----------------
def _compare(name: str, fn, doc: str = ""):
    def op(input: Tensor, other, *, out=None) -> Tensor:
        _check(input, name)
        xa, xb = promote2(input, other)
        return _out(_wrap(_as_array(fn(xa, xb), None)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc or f"Element-wise ``{name}`` comparison, a bool tensor (broadcast, promoted)."
    return op


eq = _compare("eq", operator.eq, """``input == other`` element-wise, a bool tensor.

    Example:
        >>> ember.eq(ember.tensor([1, 2]), 2)
        tensor([False,  True])
    """)
ne = _compare("ne", operator.ne)
lt = _compare("lt", operator.lt)
le = _compare("le", operator.le)
gt = _compare("gt", operator.gt)
ge = _compare("ge", operator.ge)
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge


def _logical(name: str, fn_name: str):
    def op(input: Tensor, other: Tensor, *, out=None) -> Tensor:
        _check(input, name)
        _check(other, name, "other", 2)
        a, b = input._data, other._data
        return _out(_wrap(_as_array(getattr(xp_of(a), fn_name)(a, b), None)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Element-wise logical {name[8:]} of the truth values (nonzero is True)."
    return op


logical_and = _logical("logical_and", "logical_and")
logical_and.__doc__ += """

    Example:
        >>> ember.logical_and(ember.tensor([1, 0]), ember.tensor([True, True]))
        tensor([ True, False])
    """
logical_or = _logical("logical_or", "logical_or")
logical_xor = _logical("logical_xor", "logical_xor")


def logical_not(input: Tensor, *, out=None) -> Tensor:
    """Element-wise logical not (nonzero is True), a bool tensor."""
    x = _check(input, "logical_not")._data
    return _out(_wrap(_as_array(xp_of(x).logical_not(x), None)), out)


def _integral_pair(name: str, a, b):
    """The raw operands of a bitwise op in their promoted dtype (integer or bool)."""
    dt = promote(a, b)
    if dt.kind == "f":
        _unsupported(name, dt)
    xp = xp_of((a if isinstance(a, Tensor) else b)._data)

    def raw(v):
        if isinstance(v, Tensor):
            return _cast(v._data, dt)
        # NOTE: matches torch: a number takes the op's dtype, wrapping around (uint8 & -1)
        return xp.asarray(v).astype(dt)

    return raw(a), raw(b), dt


def _bitwise(name: str, fn, bool_ok: bool = True):
    def op(input, other, *, out=None) -> Tensor:
        if not isinstance(input, Tensor):
            _check(other, name, "other", 2)
        xa, xb, dt = _integral_pair(name, input, other)
        if dt == _BOOL and not bool_ok:
            _unsupported(name, dt)
        r = _as_array(fn(xa, xb), None)
        return _out(_wrap(r if r.dtype == dt else r.astype(dt)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Element-wise {name.replace('_', ' ')} of integer or bool tensors/numbers."
    return op


bitwise_and = _bitwise("bitwise_and", operator.and_)
bitwise_and.__doc__ += """

    Example:
        >>> ember.bitwise_and(ember.tensor([12]), 10)
        tensor([8])
    """
bitwise_or = _bitwise("bitwise_or", operator.or_)
bitwise_xor = _bitwise("bitwise_xor", operator.xor)
bitwise_left_shift = _bitwise("bitwise_left_shift", operator.lshift, bool_ok=False)
bitwise_right_shift = _bitwise("bitwise_right_shift", operator.rshift, bool_ok=False)


def bitwise_not(input: Tensor, *, out=None) -> Tensor:
    """Bitwise not of an integer tensor; logical not of a bool tensor.

    Example:
        >>> ember.bitwise_not(ember.tensor([0, 5]))
        tensor([-1, -6])
    """
    x = _check(input, "bitwise_not")._data
    if x.dtype.kind == "f":
        _unsupported("bitwise_not", x.dtype)
    return _out(_wrap(_as_array(xp_of(x).invert(x), None)), out)


# ---- closeness and equality -------------------------------------------------------------------
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Whether ``|input - other| <= atol + rtol * |other|`` element-wise (a bool tensor).

    Both tensors must have the same dtype. Infinities are close only to themselves; nans are
    close to each other only with ``equal_nan=True``.

    Example:
        >>> ember.isclose(ember.tensor([1.0, 2.0]), ember.tensor([1.0 + 1e-6, 2.1]))
        tensor([ True, False])
    """
    _check(input, "isclose")
    _check(other, "isclose", "other", 2)
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"isclose: {_TORCH_NAME[input.dtype.name]} did not match "
            f"{_TORCH_NAME[other.dtype.name]} (input {input.dtype}, other {other.dtype}); "
            "convert one of them with .to(...)"
        )
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    xp = xp_of(a)
    close = a == b
    if equal_nan and a.dtype.kind == "f":
        close = close | (xp.isnan(a) & xp.isnan(b))
    if rtol == 0 and atol == 0:
        return _wrap(_as_array(close, None))
    if a.dtype.kind != "f":
        # NOTE: matches torch: the tolerance is computed in the default float dtype
        f = _dtype.get_default_dtype()._np
        if a.dtype == _BOOL:
            a, b = a.astype(f), b.astype(f)
        allowed = atol + xp.abs(rtol * b.astype(f))
        actual = xp.abs(a - b).astype(f)
    else:
        allowed = atol + xp.abs(rtol * b)
        actual = xp.abs(a - b)
    close = close | (xp.isfinite(actual) & (actual <= allowed))
    return _wrap(_as_array(close, None))


def _host_bool(x, op: str) -> bool:
    xp = xp_of(x)
    if xp.device_type == "meta":
        raise RuntimeError(f"{op}() cannot be called on meta tensors: they hold no data")
    return bool(xp.all(x))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """``isclose(...)`` for every element, as a Python bool.

    Example:
        >>> ember.allclose(ember.tensor([1.0]), ember.tensor([1.0 + 1e-9]))
        True
    """
    return _host_bool(isclose(input, other, rtol, atol, equal_nan)._data, "allclose")


def equal(input: Tensor, other: Tensor) -> bool:
    """True if both tensors have the same shape and the same values (nan is never equal).

    Example:
        >>> ember.equal(ember.tensor([1, 2]), ember.tensor([1.0, 2.0]))
        True
    """
    _check(input, "equal")
    _check(other, "equal", "other", 2)
    if input._data.shape != other._data.shape:
        return False
    xa, xb = promote2(input, other)
    return _host_bool(xa == xb, "equal")


# ---- Tensor methods, operators and in-place forms ---------------------------------------------
_OPERAND = (Tensor, int, float, backend.generic)


def _operator(fn, reflected: bool = False):
    """A binary dunder: unsupported operand types give NotImplemented (so ``t == None`` is
    False and ``t < None`` a TypeError, as in PyTorch)."""
    if reflected:
        def method(self, other):
            if not isinstance(other, _OPERAND):
                return NotImplemented
            return fn(other, self)
    else:
        def method(self, other):
            if not isinstance(other, _OPERAND):
                return NotImplemented
            return fn(self, other)
    return method


def _invert(self: Tensor) -> Tensor:
    if self._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        f"tensors, got {self.dtype}")
    return bitwise_not(self)


_UNARY_METHODS = {
    "abs": abs, "absolute": abs, "sign": sign, "sgn": sgn, "reciprocal": reciprocal,
    "square": square, "sqrt": sqrt, "rsqrt": rsqrt, "exp": exp, "exp2": exp2, "expm1": expm1,
    "log": log, "log2": log2, "log10": log10, "log1p": log1p, "sin": sin, "cos": cos,
    "tan": tan, "asin": asin, "arcsin": asin, "acos": acos, "arccos": acos, "atan": atan,
    "arctan": atan, "sinh": sinh, "cosh": cosh, "tanh": tanh, "asinh": asinh,
    "arcsinh": asinh, "acosh": acosh, "arccosh": acosh, "atanh": atanh, "arctanh": atanh,
    "sigmoid": sigmoid, "logit": logit, "erf": erf, "erfc": erfc, "erfinv": erfinv,
    "relu": relu, "floor": floor, "ceil": ceil, "round": round, "trunc": trunc, "fix": trunc,
    "frac": frac, "nan_to_num": nan_to_num, "deg2rad": deg2rad, "rad2deg": rad2deg,
}
_BINARY_METHODS = {
    "remainder": remainder, "fmod": fmod, "atan2": atan2, "arctan2": atan2, "hypot": hypot,
    "copysign": copysign, "xlogy": xlogy, "clamp": clamp, "clip": clip,
    "clamp_min": clamp_min, "clamp_max": clamp_max, "lerp": lerp, "addcmul": addcmul,
    "addcdiv": addcdiv, "masked_fill": masked_fill, "eq": eq, "ne": ne, "lt": lt, "le": le,
    "gt": gt, "ge": ge, "not_equal": ne, "less": lt, "less_equal": le, "greater": gt,
    "greater_equal": ge, "logical_and": logical_and, "logical_or": logical_or,
    "logical_xor": logical_xor, "logical_not": logical_not, "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
}
for _name, _fn in {**_UNARY_METHODS, **_BINARY_METHODS}.items():
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))
for _name, _fn in {"positive": positive, "isnan": isnan, "isinf": isinf, "isposinf": isposinf,
                   "isneginf": isneginf, "isfinite": isfinite, "isreal": isreal,
                   "maximum": maximum, "minimum": minimum, "fmax": fmax, "fmin": fmin,
                   "float_power": float_power, "isclose": isclose, "allclose": allclose,
                   "equal": equal}.items():
    setattr(Tensor, _name, _fn)
Tensor.float_power_ = _float_power_
Tensor.where = lambda self, condition, other: where(condition, self, other)
Tensor.__abs__ = abs
Tensor.__invert__ = _invert
Tensor.__mod__ = _operator(remainder)
Tensor.__rmod__ = _operator(remainder, reflected=True)
Tensor.__imod__ = _operator(Tensor.remainder_)
for _name, _fn in (("eq", eq), ("ne", ne), ("lt", lt), ("le", le), ("gt", gt), ("ge", ge)):
    setattr(Tensor, f"__{_name}__", _operator(_fn))
for _dunder, _name in (("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                      ("lshift", "bitwise_left_shift"), ("rshift", "bitwise_right_shift")):
    setattr(Tensor, f"__{_dunder}__", _operator(globals()[_name]))
    setattr(Tensor, f"__r{_dunder}__", _operator(globals()[_name], reflected=True))
    setattr(Tensor, f"__i{_dunder}__", _operator(getattr(Tensor, _name + "_")))
# Tensor keeps its identity hash: __hash__ is set in the class body, and assigning __eq__
# afterwards does not remove it (only defining __eq__ in the class body would).

# torch-level in-place functions (``torch.relu_(x)``...) for the ops PyTorch exposes them for
_TORCH_INPLACE = (
    "abs", "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh",
    "asin", "asinh", "atan", "atanh", "ceil", "clamp", "clamp_max", "clamp_min", "clip", "cos",
    "cosh", "deg2rad", "erf", "erfc", "exp2", "exp", "expm1", "fix", "floor", "frac", "log10",
    "log1p", "log2", "log", "logit", "nan_to_num", "rad2deg", "reciprocal", "relu", "round",
    "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "xlogy",
)
for _name in _TORCH_INPLACE:
    globals()[_name + "_"] = getattr(Tensor, _name + "_")

__all__ = [
    "abs", "absolute", "sign", "sgn", "reciprocal", "square", "sqrt", "rsqrt", "exp", "exp2",
    "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "arcsin", "acos",
    "arccos", "atan", "arctan", "sinh", "cosh", "tanh", "asinh", "arcsinh", "acosh", "arccosh",
    "atanh", "arctanh", "sigmoid", "logit", "erf", "erfc", "erfinv", "relu", "floor", "ceil",
    "round", "trunc", "fix", "frac", "isnan", "isinf", "isposinf", "isneginf", "isfinite",
    "isreal", "nan_to_num", "positive", "deg2rad", "rad2deg",
    "remainder", "fmod", "atan2", "arctan2", "maximum", "minimum", "fmax", "fmin",
    "float_power", "clamp", "clip", "clamp_min", "clamp_max", "where", "lerp", "addcmul",
    "addcdiv", "hypot", "copysign", "xlogy", "masked_fill",
    "eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
    "isclose", "allclose", "equal",
    *(n + "_" for n in _TORCH_INPLACE),
]
