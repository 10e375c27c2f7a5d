"""Element-wise math of one input: ``abs``, ``sign``, ``square``, ``sqrt``, ``exp``/``log``,
trigonometric and hyperbolic functions, ``sigmoid``, ``logit``, ``erf``, ``relu``,
``nan_to_num``..., with their Tensor methods and in-place forms.

Most one-input ops share the ``_Unary`` forward (``xp.<fn>(x)``, saving the input or the output)
and differ only in their backward, which is written with Tensor ops so that it can be
differentiated again. Ops that PyTorch computes in floating point promote integer and bool
inputs to the default float dtype first (``_floating``).

The other element-wise families live beside this file (``rounding``, ``binary_math``, ``clamp``,
``ternary``, ``comparison``, ``logical``); their public names stay reachable here too
(``ember.ops.math.clamp``...), from before the split.
"""

from __future__ import annotations

import math as _m

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import cj, unary, xp_of
from ember.ops._elementwise import (
    _BOOL,
    _arr,
    _check,
    _complex_unsupported,
    _copy,
    _floating,
    _floating_c,
    _opmath,
    _Unary,
    _unsupported,
    _ZeroGrad,
)
from ember.ops.activation import relu_grad
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor, _wrap

_F32 = _dtype.float32._np


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
        if x.dtype.kind not in "fV":
            return xp_of(x).sign(x)
        # NOTE: matches torch: sign(nan) = 0 (NumPy gives nan)
        return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


class Sgn(Sign):
    _node_name = "SgnBackward0"

    @staticmethod
    def forward(ctx, x):
        if x.dtype.kind != "c":
            return Sign.forward(ctx, x)
        xp = xp_of(x)
        a = xp.abs(x)
        ctx.save_for_backward(x)
        # z / |z|, 0 at 0
        return xp.where(a == 0, 0, x / xp.where(a == 0, 1, a)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        if not ctx.saved_tensors:
            return _ZeroGrad.backward(ctx, g)
        (x,) = ctx.saved_tensors
        a = x.abs()
        s = x.sgn()
        # conjugate Wirtinger: (g - s^2 conj(g)) / (2|z|), 0 at z = 0 (torch's sgn_backward)
        return ((g - s * s * g.conj()) / (2 * a)).masked_fill(a == 0, 0)


class Reciprocal(_Unary):
    _node_name = "ReciprocalBackward0"
    fn, saves = "reciprocal", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return -g * cj(y * y)


class Square(_Unary):
    _node_name = "PowBackward0"  # NOTE: matches torch: square is pow(x, 2)
    fn, saves = "square", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * cj(2 * x)


class Sqrt(_Unary):
    _node_name = "SqrtBackward0"
    fn, saves = "sqrt", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g / cj(2 * y)  # inf at 0, as in torch


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
        return -0.5 * g * cj(y * y * y)


class Exp(_Unary):
    _node_name = "ExpBackward0"
    fn, saves = "exp", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * cj(y)


class Exp2(_Unary):
    _node_name = "Exp2Backward0"
    fn, saves = "exp2", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * cj(y * _m.log(2.0))


class Expm1(_Unary):
    _node_name = "Expm1Backward0"
    fn, saves = "expm1", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * cj(y + 1)


class Log(_Unary):
    _node_name = "LogBackward0"
    fn, saves = "log", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / cj(x)


class Log2(_Unary):
    _node_name = "Log2Backward0"
    fn, saves = "log2", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / cj(x * _m.log(2.0))


class Log10(_Unary):
    _node_name = "Log10Backward0"
    fn, saves = "log10", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / cj(x * _m.log(10.0))


class Log1p(_Unary):
    _node_name = "Log1PBackward0"
    fn, saves = "log1p", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / cj(x + 1)


class Sin(_Unary):
    _node_name = "SinBackward0"
    fn, saves = "sin", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * cj(x.cos())


class Cos(_Unary):
    _node_name = "CosBackward0"
    fn, saves = "cos", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * cj(-x.sin())


class Tan(_Unary):
    _node_name = "TanBackward0"
    fn, saves = "tan", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * cj(1 + y * y)  # d tan = 1 + tan^2


class Asin(_Unary):
    _node_name = "AsinBackward0"
    fn, saves = "arcsin", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * cj((1 - x * x).rsqrt())


class Acos(_Unary):
    _node_name = "AcosBackward0"
    fn, saves = "arccos", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * cj(-(1 - x * x).rsqrt())


class Atan(_Unary):
    _node_name = "AtanBackward0"
    fn, saves = "arctan", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / cj(x * x + 1)


class Sinh(_Unary):
    _node_name = "SinhBackward0"
    fn, saves = "sinh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * cj(x.cosh())


class Cosh(_Unary):
    _node_name = "CoshBackward0"
    fn, saves = "cosh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * cj(x.sinh())


class Tanh(_Unary):
    _node_name = "TanhBackward0"
    fn, saves = "tanh", "y"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * cj(1 - y * y)


class Asinh(_Unary):
    _node_name = "AsinhBackward0"
    fn, saves = "arcsinh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * cj((x * x + 1).rsqrt())


class Acosh(_Unary):
    _node_name = "AcoshBackward0"
    fn, saves = "arccosh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if x.is_complex():  # the principal branch: sqrt(z - 1) sqrt(z + 1), not sqrt(z^2 - 1)
            return g * cj((x - 1).rsqrt() * (x + 1).rsqrt())
        return g * (x * x - 1).rsqrt()


class Atanh(_Unary):
    _node_name = "AtanhBackward0"
    fn, saves = "arctanh", "x"

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / cj(1 - x * x)


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
        return g * cj((1 - y) * y)


class Logit(Function):
    _array_forward = True
    _node_name = "LogitBackward0"

    @staticmethod
    def forward(ctx, x, eps):
        xp = xp_of(x)
        ctx.save_for_backward(x)
        ctx.eps = eps
        if x.dtype.itemsize == 2:  # float16, bfloat16
            # NOTE: matches torch: its half-precision logit rounds every step (the bounds,
            # 1 - x, the ratio) to the input's dtype, not only the result
            low = x.dtype

            def r(a):
                return xp.asarray(a, dtype=_F32).astype(low).astype(_F32)

            z = x.astype(_F32)
            if eps is not None:
                z = xp.minimum(xp.maximum(z, r(eps)), r(1 - eps))
            with xp.errstate(divide="ignore", invalid="ignore"):
                return xp.log(r(z / r(1 - z))).astype(low)
        z = x
        if eps is not None:
            z = xp.minimum(xp.maximum(z, eps), 1 - eps)
        return xp.log(z / (1 - z))

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
        # one primitive (``g * (y > 0)`` in one NumPy pass) rather than masked_fill of a
        # comparison: two ops, a bool tensor and np.where, several times the cost in a step
        return relu_grad(g, y)  # NOTE: matches torch: relu'(0) = 0


class NanToNum(Function):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
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


def _float_unary(cls, name: str, summary: str, example: str, result: str, complex_ok=True):
    """A public op ``name(input, *, out=None)`` computing ``cls`` in floating point (and on
    complex tensors where ``complex_ok``, as torch does; else torch's error)."""
    cast = _floating_c if complex_ok else _floating

    def op(input: Tensor, *, out=None) -> Tensor:
        return _out(unary(cls, cast(input, name)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{summary}; integer and bool inputs give the default float dtype.\n\n"
        f"    Example:\n        >>> {example}\n        {result}\n    "
    )
    return op


reciprocal = _float_unary(
    Reciprocal,
    "reciprocal",
    "``1 / input``",
    "ember.reciprocal(ember.tensor([2.0]))",
    "tensor([0.5000])",
)
sqrt = _float_unary(Sqrt, "sqrt", "Square root", "ember.sqrt(ember.tensor([4.0]))", "tensor([2.])")
rsqrt = _float_unary(
    Rsqrt, "rsqrt", "``1 / sqrt(input)``", "ember.rsqrt(ember.tensor([4.0]))", "tensor([0.5000])"
)
exp = _float_unary(
    Exp, "exp", "``e ** input``", "ember.exp(ember.tensor([0.0, 1.0]))", "tensor([1.0000, 2.7183])"
)
exp2 = _float_unary(
    Exp2, "exp2", "``2 ** input``", "ember.exp2(ember.tensor([3.0]))", "tensor([8.])"
)
expm1 = _float_unary(
    Expm1,
    "expm1",
    "``exp(input) - 1``, accurate near 0",
    "ember.expm1(ember.tensor([1e-10]))",
    "tensor([1.0000e-10])",
)
log = _float_unary(
    Log,
    "log",
    "Natural logarithm",
    "ember.log(ember.tensor([1.0, 2.0]))",
    "tensor([0.0000, 0.6931])",
)
log2 = _float_unary(
    Log2, "log2", "Base-2 logarithm", "ember.log2(ember.tensor([8.0]))", "tensor([3.])"
)
log10 = _float_unary(
    Log10, "log10", "Base-10 logarithm", "ember.log10(ember.tensor([100.0]))", "tensor([2.])"
)
log1p = _float_unary(
    Log1p,
    "log1p",
    "``log(1 + input)``, accurate near 0",
    "ember.log1p(ember.tensor([1e-10]))",
    "tensor([1.0000e-10])",
)
sin = _float_unary(Sin, "sin", "Sine", "ember.sin(ember.tensor([0.0, 1.5708]))", "tensor([0., 1.])")
cos = _float_unary(Cos, "cos", "Cosine", "ember.cos(ember.tensor([0.0]))", "tensor([1.])")
tan = _float_unary(Tan, "tan", "Tangent", "ember.tan(ember.tensor([0.7854]))", "tensor([1.0000])")
asin = _float_unary(
    Asin, "asin", "Arcsine (``arcsin``)", "ember.asin(ember.tensor([1.0]))", "tensor([1.5708])"
)
acos = _float_unary(
    Acos, "acos", "Arccosine (``arccos``)", "ember.acos(ember.tensor([1.0]))", "tensor([0.])"
)
atan = _float_unary(
    Atan, "atan", "Arctangent (``arctan``)", "ember.atan(ember.tensor([1.0]))", "tensor([0.7854])"
)
sinh = _float_unary(
    Sinh, "sinh", "Hyperbolic sine", "ember.sinh(ember.tensor([1.0]))", "tensor([1.1752])"
)
cosh = _float_unary(
    Cosh, "cosh", "Hyperbolic cosine", "ember.cosh(ember.tensor([0.0]))", "tensor([1.])"
)
tanh = _float_unary(
    Tanh, "tanh", "Hyperbolic tangent", "ember.tanh(ember.tensor([0.5]))", "tensor([0.4621])"
)
asinh = _float_unary(
    Asinh,
    "asinh",
    "Inverse hyperbolic sine (``arcsinh``)",
    "ember.asinh(ember.tensor([1.0]))",
    "tensor([0.8814])",
)
acosh = _float_unary(
    Acosh,
    "acosh",
    "Inverse hyperbolic cosine (``arccosh``)",
    "ember.acosh(ember.tensor([1.0]))",
    "tensor([0.])",
)
atanh = _float_unary(
    Atanh,
    "atanh",
    "Inverse hyperbolic tangent (``arctanh``)",
    "ember.atanh(ember.tensor([0.5]))",
    "tensor([0.5493])",
)
sigmoid = _float_unary(
    Sigmoid,
    "sigmoid",
    "Logistic sigmoid ``1 / (1 + exp(-input))``",
    "ember.sigmoid(ember.tensor([0.0, 2.0]))",
    "tensor([0.5000, 0.8808])",
)
erf = _float_unary(
    Erf,
    "erf",
    "Error function",
    "ember.erf(ember.tensor([0.5]))",
    "tensor([0.5205])",
    complex_ok=False,
)
erfc = _float_unary(
    Erfc,
    "erfc",
    "Complementary error function ``1 - erf(input)``",
    "ember.erfc(ember.tensor([0.5]))",
    "tensor([0.4795])",
    complex_ok=False,
)
erfinv = _float_unary(
    Erfinv,
    "erfinv",
    "Inverse error function on (-1, 1)",
    "ember.erfinv(ember.tensor([0.5]))",
    "tensor([0.4769])",
    complex_ok=False,
)
deg2rad = _float_unary(
    Deg2Rad,
    "deg2rad",
    "Degrees to radians",
    "ember.deg2rad(ember.tensor([180.0]))",
    "tensor([3.1416])",
    complex_ok=False,
)
rad2deg = _float_unary(
    Rad2Deg,
    "rad2deg",
    "Radians to degrees",
    "ember.rad2deg(ember.tensor([3.1416]))",
    "tensor([180.0004])",
    complex_ok=False,
)
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
    dt = _check(input, "sign")._data.dtype
    if dt == _BOOL:
        return _out(_copy(input), out)
    if dt.kind == "c":
        _complex_unsupported("sign", dt)
    return _out(unary(Sign, input), out)


def sgn(input: Tensor, *, out=None) -> Tensor:
    """``sign`` of real tensors; ``z / |z|`` (0 at 0) of complex ones."""
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
    dt = _check(input, "relu")._data.dtype
    if dt.kind in "bc":
        if dt.kind == "c":
            _complex_unsupported("relu", dt)
        raise RuntimeError("Boolean inputs not supported for relu")
    return unary(Relu, input)


def nan_to_num(
    input: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
    *,
    out=None,
) -> Tensor:
    """Replace nan, +inf and -inf (default: 0 and the dtype's largest/lowest finite values).

    Example:
        >>> ember.nan_to_num(ember.tensor([float("nan"), float("inf")]), posinf=1.0)
        tensor([0., 1.])
    """
    d = _check(input, "nan_to_num")._data.dtype
    if d.kind not in "fV":
        if d.kind == "c":  # real and imaginary parts each replaced (as NumPy's)
            from ember.autograd.grad_mode import is_grad_enabled

            if input.requires_grad and is_grad_enabled():
                raise RuntimeError(
                    "nan_to_num does not support automatic differentiation for outputs with "
                    "complex dtype."
                )
            return _out(unary(NanToNum, input, nan, posinf, neginf), out)
        return _out(_copy(input), out)
    if d.char in "eE":  # computed in float32: the defaults are the input dtype's limits
        info = _dtype.finfo(_dtype.from_np(d))
        posinf = info.max if posinf is None else posinf
        neginf = info.min if neginf is None else neginf
    return _out(unary(NanToNum, input, nan, posinf, neginf), out)


def positive(input: Tensor) -> Tensor:
    """``input`` itself (``+input``); bool tensors raise, as in PyTorch."""
    if _check(input, "positive")._data.dtype == _BOOL:
        raise RuntimeError(
            "The `+` operator, on a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead."
        )
    return input


# ---- Tensor methods and in-place forms --------------------------------------------------------
_UNARY_METHODS = {
    "abs": abs,
    "absolute": abs,
    "sign": sign,
    "sgn": sgn,
    "reciprocal": reciprocal,
    "square": square,
    "sqrt": sqrt,
    "rsqrt": rsqrt,
    "exp": exp,
    "exp2": exp2,
    "expm1": expm1,
    "log": log,
    "log2": log2,
    "log10": log10,
    "log1p": log1p,
    "sin": sin,
    "cos": cos,
    "tan": tan,
    "asin": asin,
    "arcsin": asin,
    "acos": acos,
    "arccos": acos,
    "atan": atan,
    "arctan": atan,
    "sinh": sinh,
    "cosh": cosh,
    "tanh": tanh,
    "asinh": asinh,
    "arcsinh": asinh,
    "acosh": acosh,
    "arccosh": acosh,
    "atanh": atanh,
    "arctanh": atanh,
    "sigmoid": sigmoid,
    "logit": logit,
    "erf": erf,
    "erfc": erfc,
    "erfinv": erfinv,
    "relu": relu,
    "nan_to_num": nan_to_num,
    "deg2rad": deg2rad,
    "rad2deg": rad2deg,
}
for _name, _fn in _UNARY_METHODS.items():
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))
Tensor.positive = positive
Tensor.__abs__ = abs
_abs_inplace = Tensor.abs_


def _abs_(input: Tensor) -> Tensor:
    if input._data.dtype.kind == "c":  # the real result cannot be written into complex memory
        _complex_unsupported("abs_", input._data.dtype)
    return _abs_inplace(input)


Tensor.abs_ = Tensor.absolute_ = _abs_

# torch-level in-place functions (``torch.relu_(x)``...) for the ops PyTorch exposes them for
_TORCH_INPLACE = (
    "abs",
    "acos",
    "acosh",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctanh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "cos",
    "cosh",
    "deg2rad",
    "erf",
    "erfc",
    "exp2",
    "exp",
    "expm1",
    "log10",
    "log1p",
    "log2",
    "log",
    "logit",
    "nan_to_num",
    "rad2deg",
    "reciprocal",
    "relu",
    "rsqrt",
    "sigmoid",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
)
for _name in _TORCH_INPLACE:
    globals()[_name + "_"] = getattr(Tensor, _name + "_")

__all__ = [
    "abs",
    "absolute",
    "sign",
    "sgn",
    "reciprocal",
    "square",
    "sqrt",
    "rsqrt",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "asin",
    "arcsin",
    "acos",
    "arccos",
    "atan",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "arcsinh",
    "acosh",
    "arccosh",
    "atanh",
    "arctanh",
    "sigmoid",
    "logit",
    "erf",
    "erfc",
    "erfinv",
    "relu",
    "nan_to_num",
    "positive",
    "deg2rad",
    "rad2deg",
    *(n + "_" for n in _TORCH_INPLACE),
]
