"""``torch.special``'s own functions (Bessel functions, ``erfcx``, ``ndtri``, ``zeta``, the
orthogonal polynomials...) and the element-wise functions of ``torch`` around them (``i0``,
``sinc``, ``logaddexp``, ``gcd``, ``lcm``, ``heaviside``, ``frexp``, ``ldexp``,
``nextafter``, ``signbit``), with their Tensor methods and in-place forms.

The kernels are ``scipy.special``'s, behind the backend's ``special(name, ...)``
(``backend/_special.py``). The public ``ember.special`` namespace (``ember/special.py``) maps
torch's names onto these and onto the existing ops they alias (``expit`` is ``sigmoid``...).
As in torch, the Bessel functions and polynomials are not differentiable: their result never
requires grad.
"""

from __future__ import annotations

import math as _m

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import binary, cj, promote, unary, xp_of
from ember.ops._elementwise import (
    _TORCH_NAME,
    _check,
    _floating,
    _floating_c,
    _floating_pair,
    _opmath,
)
from ember.ops._selection import _return_type
from ember.ops.calculus import _complex_log_add_exp
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor, _wrap

_SQRT_2PI = _m.sqrt(2 * _m.pi)
_F64 = _dtype.float64._np
_F32 = _dtype.float32._np
_F16 = _dtype.float16._np
_I32 = _dtype.int32._np


def _not_impl(kernel: str, npd):
    raise NotImplementedError(
        f"\"{kernel}_cpu\" not implemented for '{_TORCH_NAME[_dtype.from_np(npd).name]}'"
    )


def _float32_64(input, name: str, kernel: str | None = None) -> Tensor:
    """``input`` as float32/float64 (ints promoted); float16 refused, as torch's kernels do."""
    x = _floating(input, name)
    d = x._data.dtype
    if d != _F32 and d != _F64:
        _not_impl(kernel or name, d)
    return x


# ---- differentiable one-input functions -------------------------------------------------------
class _Special(Function):
    """``y = special(fn, x)``, saving the input and the output for backward."""

    _array_forward = True
    fn = ""

    @classmethod
    def forward(cls, ctx, x):
        y = xp_of(x).special(cls.fn, x)
        ctx.save_for_backward(x, y)
        return y


class I0(_Special):
    _node_name = "I0Backward0"
    fn = "i0"

    @staticmethod
    def backward(ctx, g):
        x, _ = ctx.saved_tensors
        return g * i1(x)  # I0' = I1


class I0e(_Special):
    _node_name = "SpecialI0EBackward0"
    fn = "i0e"

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * (i1e(x) - x.sgn() * y)  # (e^-|x| I0)' = e^-|x| I1 - sgn(x) e^-|x| I0


def _not_tiny(x):
    """``|x| > eps`` and ``x`` with the other elements replaced by eps (torch's guard for the
    1/x in the I1 derivatives: its limit 1/2 is used there, nan included)."""
    eps = _dtype.finfo(x.dtype).eps
    keep = x.abs() > eps
    return keep, x.masked_fill(~keep, eps)


class I1(_Special):
    _node_name = "SpecialI1Backward0"
    fn = "i1"

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        # I1' = I0 - I1 / x, with its limit 1/2 at 0
        # NOTE: matches torch: 1/2 wherever |x| <= eps, and for nan x
        keep, sx = _not_tiny(x)
        return g * (i0(sx) - y / sx).masked_fill(~keep, 0.5)


class I1e(_Special):
    _node_name = "SpecialI1EBackward0"
    fn = "i1e"

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        # NOTE: matches torch: 1/2 wherever |x| <= eps, and for nan x
        keep, sx = _not_tiny(x)
        return g * (i0e(sx) - y * (sx.sgn() + sx.reciprocal())).masked_fill(~keep, 0.5)


class Erfcx(_Special):
    _node_name = "SpecialErfcxBackward0"
    fn = "erfcx"

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * (2 * x * y - 2 / _m.sqrt(_m.pi))  # (e^x^2 erfc x)' = 2x erfcx - 2/sqrt(pi)


class Ndtri(_Special):
    _node_name = "SpecialNdtriBackward0"
    fn = "ndtri"

    @staticmethod
    def backward(ctx, g):
        _, y = ctx.saved_tensors
        return g * (_SQRT_2PI * (y * y / 2).exp())  # 1 / ndtr'(ndtri(p))


class LogNdtr(_Special):
    _node_name = "SpecialLogNdtrBackward0"
    fn = "log_ndtr"

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g / _SQRT_2PI * (-(y + x * x / 2)).exp()  # phi(x) / ndtr(x)


class Entr(_Special):
    _node_name = "SpecialEntrBackward0"
    fn = "entr"

    @staticmethod
    def backward(ctx, g):
        x, _ = ctx.saved_tensors
        return g * -(1 + x.log())


class Sinc(_Special):
    _node_name = "SincBackward0"
    fn = "sinc"

    @staticmethod
    def backward(ctx, g):
        x, _ = ctx.saved_tensors
        px = x * _m.pi
        den = x * x * _m.pi
        # (sin(pi x) / (pi x))' = (pi x cos(pi x) - sin(pi x)) / (pi x^2)
        # NOTE: matches torch: 0 wherever pi x^2 underflows to 0 (tiny x too, not only 0)
        return g * cj(((px * px.cos() - px.sin()) / den).masked_fill(den == 0, 0.0))


class Zeta(Function):
    _array_forward = True
    _node_name = "SpecialZetaBackward0"

    @staticmethod
    def forward(ctx, x, q):
        ctx.save_for_backward(x, q)
        return xp_of(x).special("zeta", x, q)

    @staticmethod
    def backward(ctx, g):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            # NOTE: matches torch: no derivative in the exponent (message included)
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, g * -x * zeta(x + 1, q)  # d/dq zeta(x, q) = -x zeta(x + 1, q)


class Xlog1py(Function):
    _array_forward = True
    _node_name = "SpecialXlog1PyBackward0"

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return xp_of(x).special("xlog1py", x, y)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        gx = gy = None
        if need_x:
            # NOTE: matches torch: 0 where x == 0 and y <= -1 (log1p(y) is -inf or nan there)
            gx = xlog1py(g, y).masked_fill((x == 0) & (y <= -1), 0.0)
        if need_y:
            gy = g * x / (y + 1)
        return gx, gy


def _as_tensors(a, b):
    """Both operands as tensors: a number becomes a 0-d tensor of the other's dtype (torch's
    number operands never widen a tensor's dtype), so the kernels see two arrays."""
    if not isinstance(a, Tensor):
        a = _wrap(xp_of(b._data).asarray(a, dtype=b._data.dtype))
    elif not isinstance(b, Tensor):
        b = _wrap(xp_of(a._data).asarray(b, dtype=a._data.dtype))
    return a, b


def _diff_unary(
    cls, name: str, half: bool, example: str, result: str, summary: str, complex_ok=False
):
    floating = _floating_c if complex_ok else _floating

    def op(input: Tensor, *, out=None) -> Tensor:
        x = floating(input, name) if half else _float32_64(input, name)
        return _out(unary(cls, x), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{summary}; integer and bool inputs give the default float dtype.\n\n"
        f"    Example:\n        >>> {example}\n        {result}\n    "
    )
    return op


i0 = _diff_unary(
    I0,
    "i0",
    True,
    "ember.i0(ember.tensor([0.0, 1.0]))",
    "tensor([1.0000, 1.2661])",
    "Modified Bessel function of the first kind of order 0, ``I0(input)``",
)
i0e = _diff_unary(
    I0e,
    "i0e",
    True,
    "ember.special.i0e(ember.tensor([1.0]))",
    "tensor([0.4658])",
    "Exponentially scaled ``I0``: ``exp(-|input|) I0(input)``",
)
i1 = _diff_unary(
    I1,
    "i1",
    True,
    "ember.special.i1(ember.tensor([1.0]))",
    "tensor([0.5652])",
    "Modified Bessel function of the first kind of order 1, ``I1(input)``",
)
i1e = _diff_unary(
    I1e,
    "i1e",
    True,
    "ember.special.i1e(ember.tensor([1.0]))",
    "tensor([0.2079])",
    "Exponentially scaled ``I1``: ``exp(-|input|) I1(input)``",
)
erfcx = _diff_unary(
    Erfcx,
    "erfcx",
    False,
    "ember.special.erfcx(ember.tensor([1.0]))",
    "tensor([0.4276])",
    "Scaled complementary error function ``exp(input^2) erfc(input)``",
)
ndtri = _diff_unary(
    Ndtri,
    "ndtri",
    False,
    "ember.special.ndtri(ember.tensor([0.975]))",
    "tensor([1.9600])",
    "Quantile of the standard normal distribution (inverse of ``ndtr``)",
)
log_ndtr = _diff_unary(
    LogNdtr,
    "log_ndtr",
    False,
    "ember.special.log_ndtr(ember.tensor([0.0]))",
    "tensor([-0.6931])",
    "Log of the standard normal CDF, accurate in the far left tail",
)
entr = _diff_unary(
    Entr,
    "entr",
    True,
    "ember.special.entr(ember.tensor([0.5]))",
    "tensor([0.3466])",
    "Elementwise entropy ``-x log x`` (0 at 0, -inf for x < 0)",
)
sinc = _diff_unary(
    Sinc,
    "sinc",
    True,
    "ember.sinc(ember.tensor([0.0, 0.5]))",
    "tensor([1.0000, 0.6366])",
    "Normalized sinc ``sin(pi x) / (pi x)``, 1 at 0",
    complex_ok=True,
)


def ndtr(input: Tensor, *, out=None) -> Tensor:
    """Standard normal CDF ``(1 + erf(input / sqrt(2))) / 2``.

    Example:
        >>> ember.special.ndtr(ember.tensor([0.0, 1.0]))
        tensor([0.5000, 0.8413])
    """
    from ember.ops.math import erf  # noqa: PLC0415  (math imports this module's family early)

    # NOTE: matches torch: composed of erf (so it underflows to 0 below x ~ -8.3, and float16
    # rounds after each step, as torch's composite does)
    x = _floating(input, "ndtr")
    return _out((1 + erf(x * _m.sqrt(0.5))) * 0.5, out)


def zeta(input, other, *, out=None) -> Tensor:
    """Hurwitz zeta function ``sum_k (k + other) ** -input``; differentiable in ``other``.

    Example:
        >>> ember.special.zeta(ember.tensor([2.0]), ember.tensor([1.0]))
        tensor([1.6449])
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        _check(input, "special_zeta")
    a, b = _floating_pair(input, other)
    d = promote(a, b)
    if d != _F32 and d != _F64:
        _not_impl("zeta", d)
    return _out(binary(Zeta, *_as_tensors(a, b)), out)


def xlog1py(input, other, *, out=None) -> Tensor:
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is nan).

    Example:
        >>> ember.special.xlog1py(ember.tensor([0.0, 2.0]), ember.tensor([-1.0, 1.0]))
        tensor([0.0000, 1.3863])
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        _check(input, "special_xlog1py")
    return _out(binary(Xlog1py, *_as_tensors(*_floating_pair(input, other))), out)


# ---- non-differentiable functions (the result never requires grad, as torch's) ---------------
def _nondiff_unary(name: str, example: str, result: str, summary: str):
    def op(input: Tensor, *, out=None) -> Tensor:
        x = _float32_64(input, name)
        return _out(_wrap(xp_of(x._data).special(name, x._data)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{summary} (not differentiable, as in torch).\n\n"
        f"    Example:\n        >>> {example}\n        {result}\n    "
    )
    return op


def _nd(name, arg, result, summary):
    return _nondiff_unary(name, f"ember.special.{name}(ember.tensor([{arg}]))", result, summary)


airy_ai = _nd("airy_ai", "1.0", "tensor([0.1353])", "Airy function ``Ai(input)``")
bessel_j0 = _nd("bessel_j0", "1.0", "tensor([0.7652])", "Bessel function of the first kind, J0")
bessel_j1 = _nd("bessel_j1", "1.0", "tensor([0.4401])", "Bessel function of the first kind, J1")
bessel_y0 = _nd("bessel_y0", "1.0", "tensor([0.0883])", "Bessel function of the second kind, Y0")
bessel_y1 = _nd("bessel_y1", "1.0", "tensor([-0.7812])", "Bessel function of the second kind, Y1")
modified_bessel_i0 = _nd("modified_bessel_i0", "1.0", "tensor([1.2661])", "Modified Bessel I0")
modified_bessel_i1 = _nd("modified_bessel_i1", "1.0", "tensor([0.5652])", "Modified Bessel I1")
modified_bessel_k0 = _nd("modified_bessel_k0", "1.0", "tensor([0.4210])", "Modified Bessel K0")
modified_bessel_k1 = _nd("modified_bessel_k1", "1.0", "tensor([0.6019])", "Modified Bessel K1")
scaled_modified_bessel_k0 = _nd(
    "scaled_modified_bessel_k0", "1.0", "tensor([1.1445])", "``exp(input) K0(input)``"
)
scaled_modified_bessel_k1 = _nd(
    "scaled_modified_bessel_k1", "1.0", "tensor([1.6362])", "``exp(input) K1(input)``"
)
spherical_bessel_j0 = _nd(
    "spherical_bessel_j0", "1.0", "tensor([0.8415])", "Spherical Bessel j0, ``sin(x) / x``"
)


def _polynomial(name: str, summary: str, result: str):
    def op(input, n, *, out=None) -> Tensor:
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            _check(input, name)
        ta = input if isinstance(input, Tensor) else None
        tn = n if isinstance(n, Tensor) else None
        dt = promote(input, n)
        if dt.kind not in "fV":  # "V": bfloat16 (ml_dtypes)
            dt = _dtype.get_default_dtype()._np
        if dt != _F32 and dt != _F64:
            _not_impl(name, dt)
        xp = xp_of((ta if ta is not None else tn)._data)
        x = ta._data.astype(dt, copy=False) if ta is not None else xp.asarray(input, dtype=dt)
        k = tn._data if tn is not None else n
        return _out(_wrap(xp.special(name, x, k)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{summary} of degree ``n`` (an integer or integer tensor, broadcast with ``input``); 0 "
        f"for negative ``n``; not differentiable, as in torch.\n\n"
        f"    Example:\n        >>> ember.special.{name}(ember.tensor([0.5]), 3)\n"
        f"        {result}\n    "
    )
    return op


chebyshev_polynomial_t = _polynomial(
    "chebyshev_polynomial_t", "Chebyshev polynomial of the first kind T_n", "tensor([-1.])"
)
chebyshev_polynomial_u = _polynomial(
    "chebyshev_polynomial_u", "Chebyshev polynomial of the second kind U_n", "tensor([-1.])"
)
chebyshev_polynomial_v = _polynomial(
    "chebyshev_polynomial_v", "Chebyshev polynomial of the third kind V_n", "tensor([-1.])"
)
chebyshev_polynomial_w = _polynomial(
    "chebyshev_polynomial_w", "Chebyshev polynomial of the fourth kind W_n", "tensor([-1.])"
)
shifted_chebyshev_polynomial_t = _polynomial(
    "shifted_chebyshev_polynomial_t",
    "Shifted Chebyshev polynomial T*_n(x) = T_n(2x - 1)",
    "tensor([-0.])",
)
shifted_chebyshev_polynomial_u = _polynomial(
    "shifted_chebyshev_polynomial_u",
    "Shifted Chebyshev polynomial U*_n(x) = U_n(2x - 1)",
    "tensor([-0.])",
)
shifted_chebyshev_polynomial_v = _polynomial(
    "shifted_chebyshev_polynomial_v",
    "Shifted Chebyshev polynomial V*_n(x) = V_n(2x - 1)",
    "tensor([1.])",
)
shifted_chebyshev_polynomial_w = _polynomial(
    "shifted_chebyshev_polynomial_w",
    "Shifted Chebyshev polynomial W*_n(x) = W_n(2x - 1)",
    "tensor([-1.])",
)
hermite_polynomial_h = _polynomial(
    "hermite_polynomial_h", "Physicists' Hermite polynomial H_n", "tensor([-5.])"
)
hermite_polynomial_he = _polynomial(
    "hermite_polynomial_he", "Probabilists' Hermite polynomial He_n", "tensor([-1.3750])"
)
laguerre_polynomial_l = _polynomial(
    "laguerre_polynomial_l", "Laguerre polynomial L_n", "tensor([-0.1458])"
)
legendre_polynomial_p = _polynomial(
    "legendre_polynomial_p", "Legendre polynomial P_n", "tensor([-0.4375])"
)


# ---- element-wise torch functions -------------------------------------------------------------
def _binary_check(input, other, name: str, arg: str = "other"):
    _check(input, name)
    _check(other, name, arg, 2)


def _float_only(dt, name: str):
    if dt.kind not in "fV":  # "V": bfloat16 (ml_dtypes)
        _not_impl(name, dt)


class LogAddExp(Function):
    _array_forward = True
    _node_name = "LogaddexpBackward0"
    base2 = False

    @classmethod
    def forward(cls, ctx, a, b):
        xp = xp_of(a)
        ctx.save_for_backward(a, b)
        if a.dtype.kind == "c":
            return xp.asarray(_complex_log_add_exp(xp, a, b), dtype=a.dtype)
        f = xp.logaddexp2 if cls.base2 else xp.logaddexp
        return f(_opmath(a), _opmath(b)).astype(a.dtype, copy=False)

    @classmethod
    def backward(cls, ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # d/da log(e^a + e^b) = 1 / (1 + e^(b - a)) (base 2: 2^(b - a))
        pw = (lambda t: t.exp2()) if cls.base2 else (lambda t: t.exp())
        ga = g * cj(1 / (1 + pw(b - a))) if need_a else None
        gb = g * cj(1 / (1 + pw(a - b))) if need_b else None
        return ga, gb


class LogAddExp2(LogAddExp):
    _node_name = "Logaddexp2Backward0"
    base2 = True


def logaddexp(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``log(exp(input) + exp(other))`` without overflow.

    Example:
        >>> ember.logaddexp(ember.tensor([1.0]), ember.tensor([2.0]))
        tensor([2.3133])
    """
    _binary_check(input, other, "logaddexp")
    dt = promote(input, other)
    if dt.kind != "c":  # torch computes logaddexp (not logaddexp2) on complex too
        _float_only(dt, "logaddexp")
    return _out(binary(LogAddExp, input, other), out)


def logaddexp2(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``log2(2 ** input + 2 ** other)`` without overflow.

    Example:
        >>> ember.logaddexp2(ember.tensor([1.0]), ember.tensor([1.0]))
        tensor([2.])
    """
    _binary_check(input, other, "logaddexp2")
    _float_only(promote(input, other), "logaddexp2")
    return _out(binary(LogAddExp2, input, other), out)


def _integer_binary(name: str, ufunc: str, summary: str, example: str, result: str):
    def op(input: Tensor, other: Tensor, *, out=None) -> Tensor:
        _binary_check(input, other, name)
        dt = promote(input, other)
        if dt.kind not in "iu":
            _not_impl(name, dt)
        a, b = input._data.astype(dt, copy=False), other._data.astype(dt, copy=False)
        xp = xp_of(a)
        return _out(_wrap(xp.asarray(getattr(xp, ufunc)(a, b))), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{summary} (integer tensors only; not differentiable).\n\n"
        f"    Example:\n        >>> {example}\n        {result}\n    "
    )
    return op


gcd = _integer_binary(
    "gcd",
    "gcd",
    "Greatest common divisor, non-negative",
    "ember.gcd(ember.tensor([4, -6]), ember.tensor([6, 9]))",
    "tensor([2, 3])",
)
lcm = _integer_binary(
    "lcm",
    "lcm",
    "Least common multiple, non-negative",
    "ember.lcm(ember.tensor([4, -6]), ember.tensor([6, 9]))",
    "tensor([12, 18])",
)


class _NoDerivative(Function):
    """Forward on arrays; any backward raises torch's 'not implemented' error."""

    _array_forward = True
    _node_name = "NotImplemented"
    message = ""

    @classmethod
    def backward(cls, ctx, g):
        raise RuntimeError(cls.message)


class Heaviside(_NoDerivative):
    _node_name = "NotImplemented"
    message = "derivative for aten::heaviside is not implemented"

    @staticmethod
    def forward(ctx, x, v):
        xp = xp_of(x)
        return xp.asarray(xp.where(x == 0, v, x > 0), dtype=x.dtype)


def heaviside(input: Tensor, values: Tensor, *, out=None) -> Tensor:
    """Step function: 0 for ``input < 0``, ``values`` at 0, 1 for ``input > 0``.

    Example:
        >>> ember.heaviside(ember.tensor([-1.0, 0.0, 2.0]), ember.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
    """
    _binary_check(input, values, "heaviside", "values")
    if input._data.dtype.kind == "c" or values._data.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _out(binary(Heaviside, input, values), out)


class Nextafter(Function):
    _array_forward = True
    _node_name = "NextafterBackward0"

    @staticmethod
    def forward(ctx, a, b):
        xp = xp_of(a)
        ctx.save_for_backward(a, b)
        return xp.asarray(xp.nextafter(a, b))

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # NOTE: matches torch: the step is taken as a constant, so the gradient passes to input
        # unchanged except where input == other (the result is other there), and other gets 0
        ga = g.masked_fill(a == b, 0.0) if need_a else None
        gb = g.new_zeros(g.shape) if need_b else None
        return ga, gb


def nextafter(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The next floating-point value after ``input`` towards ``other``.

    Example:
        >>> ember.nextafter(ember.tensor([1.0]), ember.tensor([2.0])) - 1
        tensor([1.1921e-07])
    """
    _binary_check(input, other, "nextafter")
    _float_only(promote(input, other), "nextafter")
    return _out(binary(Nextafter, input, other), out)


class Ldexp(Function):
    _array_forward = True
    _node_name = "LdexpBackward0"

    @staticmethod
    def forward(ctx, x, e):
        xp = xp_of(x)
        # NOTE: matches torch: ldexp is x * pow(2, e), so in float16/bfloat16 the power is
        # rounded to that dtype before the product (each step computed in float32)
        p = xp.exp2(_opmath(e)).astype(x.dtype, copy=False)
        ctx.save_for_backward(x, p)
        return (_opmath(x) * _opmath(p)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        x, p = ctx.saved_tensors
        need_x, need_e = ctx.needs_input_grad
        # d/dx x 2^e = 2^e; d/de = x 2^e log 2
        gx = g * cj(p) if need_x else None
        return gx, (g * cj(x * p * _m.log(2)) if need_e else None)


class LdexpIntExp(Function):
    _array_forward = True
    _node_name = "LdexpBackward0"

    @staticmethod
    def forward(ctx, x, e):
        xp = xp_of(x)
        ctx.save_for_backward(e)
        if x.dtype.kind == "c":  # a power of two in the real dtype scales both parts exactly
            return x * xp.exp2(e.astype(x.real.dtype))
        # NOTE: matches torch: with an integer exponent torch scales exactly (C's ldexp,
        # rounded once: ldexp(1e300, -1100) = 7.4e-32 where 1e300 * 2.0**-1100 is 0); float16,
        # float32 and bfloat16 scale exactly in float64 first. |e| > 5000 saturates alike.
        ei = xp.clip(e, -5000, 5000).astype(_I32, copy=False)
        wide = x.dtype != _F64
        y = xp.ldexp(x.astype(_F64) if wide else x, ei)
        return y.astype(x.dtype) if wide else y

    @staticmethod
    def backward(ctx, g):
        (e,) = ctx.saved_tensors
        # NOTE: matches torch: its backward takes 2^e in integer arithmetic, so the input's
        # gradient is 0 where e < 0
        p = _wrap(xp_of(e._data).exp2(e._data.astype(g._data.dtype)))
        return g * p.masked_fill(e < 0, 0.0), None


def ldexp(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``input * 2 ** other``; integer operands give the default float dtype.

    Example:
        >>> ember.ldexp(ember.tensor([1.5]), ember.tensor([3]))
        tensor([12.])
    """
    _binary_check(input, other, "ldexp")
    dt = promote(input, other)
    if dt.kind not in "fcV":  # "V": bfloat16 (ml_dtypes)
        dt = _dtype.get_default_dtype()._np
    a = input if input._data.dtype == dt else _wrap(input._data.astype(dt))
    # keeps the autograd history when only a float operand is cast (ints never require grad)
    if input._requires_grad and a is not input:
        a = input.to(_dtype.from_np(dt))
    if other._data.dtype.kind == "b":
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    if other._data.dtype.kind in "iu":
        return _out(LdexpIntExp.apply(a, other), out)
    b = other if other._data.dtype == dt else _wrap(other._data.astype(dt))
    if other._requires_grad and b is not other:
        b = other.to(_dtype.from_np(dt))
    return _out(binary(Ldexp, a, b), out)


class Frexp(Function):
    _array_forward = True
    _node_name = "FrexpBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xp = xp_of(x)
        return xp.asarray(xp.frexp(x)[0])

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        e = xp_of(x._data).asarray(xp_of(x._data).frexp(x._data)[1])
        return g / _wrap(e.astype(g._data.dtype)).exp2()  # mantissa = x / 2^e


# (torch.return_types; ember/return_types.py shows it)
_RETURN_TYPES = {"frexp": _return_type("frexp", ("mantissa", "exponent"))}


def frexp(input: Tensor, *, out=None):
    """Split into mantissa in ``[0.5, 1)`` (signed) and int32 exponent: ``input = m * 2 ** e``.

    Example:
        >>> ember.frexp(ember.tensor([8.0]))
        frexp(mantissa=tensor([0.5000]), exponent=tensor([4], dtype=ember.int32))
    """
    _check(input, "frexp")
    d = input._data
    if d.dtype.kind not in "fV":  # "V": bfloat16 (ml_dtypes)
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    xp = xp_of(d)
    e = _wrap(xp.asarray(xp.frexp(d)[1]).astype(_dtype.int32._np, copy=False))
    m = unary(Frexp, input)
    if out is not None:
        _out(m, out[0])
        _out(e, out[1])
        return _RETURN_TYPES["frexp"](out[0], out[1])
    return _RETURN_TYPES["frexp"](m, e)


def signbit(input: Tensor, *, out=None) -> Tensor:
    """Whether the sign bit is set (True for -0.0 and negative values).

    Example:
        >>> ember.signbit(ember.tensor([-0.0, 1.0]))
        tensor([ True, False])
    """
    d = _check(input, "signbit")._data
    if d.dtype.kind == "c":
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    xp = xp_of(d)
    return _out(_wrap(xp.asarray(xp.signbit(d))), out)


# ---- Tensor methods and in-place forms --------------------------------------------------------
for _name, _fn in (
    ("i0", i0),
    ("sinc", sinc),
    ("gcd", gcd),
    ("lcm", lcm),
    ("heaviside", heaviside),
    ("ldexp", ldexp),
    ("nextafter", nextafter),
):
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))
for _name, _fn in (
    ("logaddexp", logaddexp),
    ("logaddexp2", logaddexp2),
    ("frexp", frexp),
    ("signbit", signbit),
):
    setattr(Tensor, _name, _fn)
i0_, sinc_, gcd_, lcm_, ldexp_ = (
    Tensor.i0_,
    Tensor.sinc_,
    Tensor.gcd_,
    Tensor.lcm_,
    Tensor.ldexp_,
)

__all__ = [
    "i0",
    "i0_",
    "sinc",
    "sinc_",
    "logaddexp",
    "logaddexp2",
    "gcd",
    "gcd_",
    "lcm",
    "lcm_",
    "heaviside",
    "frexp",
    "ldexp",
    "ldexp_",
    "nextafter",
    "signbit",
]
