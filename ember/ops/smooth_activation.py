"""The smooth activations as primitive ops (gelu, silu, mish, elu/celu, softplus, logsigmoid,
hardswish), split from ``activation.py``, whose helpers they share; nn-only, as that file.

Each is an op and its *gradient op*: ``_Smooth`` saves the input and its backward applies
``<Name>Grad(g, x)``, which knows the first and the second derivative, so double backward works.
"""

from __future__ import annotations

from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.activation import (
    _F64,
    _GELU_C,
    _GELU_K,
    _INV_SQRT_2PI,
    _SQRT1_2,
    _down,
    _f32,
    _some,
    _up,
)
from ember.tensor import Tensor


class _Smooth(Function):
    """``y = f(x, *params)``; backward is ``grad_op(g, x, *params)``. A subclass defines
    ``value(x, *params)`` returning ``(y, aux)`` on arrays; ``aux`` (kept on the node, not
    saved as a tensor) lets the gradient op reuse work the forward already did."""

    _array_forward = True
    grad_op: type

    @classmethod
    def forward(cls, ctx, x, *params):
        ctx.save_for_backward(x)
        ctx.params = params
        z = _up(x)
        y, aux = cls.value(z, *params)
        ctx.aux = aux if aux is not None and z is x else None
        return _down(y, x)

    @classmethod
    def backward(cls, ctx, g):
        (x,) = ctx.saved_tensors
        params = ctx.params
        return (cls.grad_op.apply(g, x, ctx.aux, *params),) + (None,) * len(params)


class _SmoothGrad(Function):
    """``g * f'(x)``; a subclass defines ``deriv(x, aux, *params)`` on arrays and
    ``deriv2(x, *params)`` on Tensors (for double backward)."""

    _array_forward = True

    @classmethod
    def forward(cls, ctx, g, x, aux, *params):
        ctx.save_for_backward(g, x)
        ctx.params = params
        d = cls.deriv(_up(x), aux, *params)
        d *= g
        return _down(d, g)

    @classmethod
    def backward(cls, ctx, gg):
        g, x = ctx.saved_tensors
        params = ctx.params
        need_g, need_x = ctx.needs_input_grad[:2]
        gg_g = cls.apply(gg, x, None, *params) if need_g else None
        gg_x = gg * g * cls.deriv2(x, *params) if need_x else None
        return (gg_g, gg_x, None) + (None,) * len(params)


def _sigmoid(xp, z):
    """``1 / (1 + exp(-z))``: exp overflows to inf for very negative z and gives 0."""
    s = xp.negative(z)
    xp.exp(s, out=s)
    s += 1.0
    return xp.reciprocal(s, out=s)


def _gelu_sigmoid(xp, x):
    """``sigmoid(2 k (x + c x^3))`` = ``0.5 (1 + tanh(k (x + c x^3)))``."""
    u = x * x
    u *= -2.0 * _GELU_C * _GELU_K
    u -= 2.0 * _GELU_K
    u *= x
    xp.exp(u, out=u)
    u += 1.0
    return xp.reciprocal(u, out=u)


def _erf32(xp, z):
    """``erf`` to float32 precision in float32 arithmetic: Numerical Recipes' Chebyshev fit of
    ``erfc`` (relative error below 1.2e-7 everywhere), one ``exp`` and no branches; the float64
    backend ``erf`` is exact to float64 but some 10x slower."""
    a = xp.abs(z)
    t = a * 0.5
    t += 1.0
    xp.reciprocal(t, out=t)
    p = t * 0.17087277
    for c in (
        -0.82215223,
        1.48851587,
        -1.13520398,
        0.27886807,
        -0.18628806,
        0.09678418,
        0.37409196,
        1.00002368,
    ):
        p += c
        p *= t
    p -= 1.26551223
    a *= a
    p -= a
    xp.exp(p, out=p)
    p *= t  # erfc(|z|)
    xp.subtract(1.0, p, out=p)
    return xp.copysign(p, z, out=p)


def _erf(xp, z):
    return xp.erf(z) if z.dtype == _F64 else _erf32(xp, z)


class Gelu(_Smooth):
    _node_name = "GeluBackward0"

    @staticmethod
    def value(x, approximate):
        xp = xp_of(x)
        if approximate == "tanh":
            # 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = k (x + c x^3): the same function, but
            # exp is several times cheaper than NumPy's tanh and 1 + tanh(u) does not cancel
            s = _gelu_sigmoid(xp, x)
            return x * s, s
        # NOTE: matches torch: 0.5 x (1 + erf(x / sqrt 2)), so it is exactly 0 far below zero
        cdf = _erf(xp, x * _SQRT1_2)
        cdf += 1.0
        cdf *= 0.5
        return x * cdf, cdf


class GeluGrad(_SmoothGrad):
    _node_name = "GeluBackwardBackward0"

    @staticmethod
    def deriv(x, aux, approximate):
        xp = xp_of(x)
        if approximate == "tanh":
            s = _gelu_sigmoid(xp, x) if aux is None else aux
            # d/dx x s(2u) = s + 2 x s (1 - s) u'  (0.5 (1 + t) = s, 1 - t^2 = 4 s (1 - s))
            d = x * x
            d *= 3.0 * _GELU_C * _GELU_K * 2.0
            d += 2.0 * _GELU_K
            d *= x
            d *= s
            d *= 1.0 - s
            d += s
            return d
        if aux is None:
            aux = _erf(xp, x * _SQRT1_2)
            aux += 1.0
            aux *= 0.5
        # d/dx x Phi(x) = Phi(x) + x phi(x)
        p = x * x
        p *= -0.5
        xp.exp(p, out=p)
        p *= _INV_SQRT_2PI
        p *= x
        p += aux
        return p

    @staticmethod
    def deriv2(x, approximate):
        if approximate == "tanh":
            u = (x + _GELU_C * x * x * x) * _GELU_K
            du = (1 + 3 * _GELU_C * x * x) * _GELU_K
            t = u.tanh()
            sech2 = 1 - t * t
            # d' = t' + 0.5 x t'' with t' = sech2 du, t'' = -2 t sech2 du^2 + sech2 6 c k x
            return sech2 * du + 0.5 * x * sech2 * (-2 * t * du * du + 6 * _GELU_C * _GELU_K * x)
        # d/dx (Phi + x phi) = 2 phi - x^2 phi
        return (x * x * -0.5).exp() * _INV_SQRT_2PI * (2 - x * x)


class Silu(_Smooth):
    _node_name = "SiluBackward0"

    @staticmethod
    def value(x):
        s = _sigmoid(xp_of(x), x)
        return x * s, s


class SiluGrad(_SmoothGrad):
    _node_name = "SiluBackwardBackward0"

    @staticmethod
    def deriv(x, aux):
        s = _sigmoid(xp_of(x), x) if aux is None else aux
        # d/dx x s = s (1 + x (1 - s))
        d = 1.0 - s
        d *= x
        d += 1.0
        d *= s
        return d

    @staticmethod
    def deriv2(x):
        s = x.sigmoid()
        return s * (1 - s) * (2 + x * (1 - 2 * s))


def _log1p(xp, e):
    """``log1p(e)`` for ``e >= 0`` from ``log``: NumPy's ``log1p`` is scalar code, some 10x
    slower than its SIMD ``log``. With ``u = fl(1 + e)``, ``log(u) - ((u - 1) - e) / u``
    corrects the rounding of ``u`` to first order (exact to a few ulps, and ``e`` itself when
    ``1 + e`` rounds to 1)."""
    u = e + 1.0
    c = u - 1.0
    c -= e
    c /= u
    xp.log(u, out=u)
    u -= c
    return u


def _log1p_exp_neg_abs(xp, z):
    """``log1p(exp(-|z|))``."""
    e = xp.abs(z)
    xp.negative(e, out=e)
    xp.exp(e, out=e)
    return _log1p(xp, e)


def _softplus(xp, z):
    """``log(1 + exp(z))`` without overflow: ``max(z, 0) + log1p(exp(-|z|))``."""
    e = _log1p_exp_neg_abs(xp, z)
    e += xp.maximum(z, 0.0)
    return e


def _mish_parts(xp, x):
    """``(tanh(softplus(x)), sigmoid(x))`` from one ``exp``: with ``e = exp(x)`` and
    ``n = e (e + 2)``, ``tanh(log(1 + e)) = n / (n + 2)`` (no cancellation for any sign) and
    ``sigmoid(x) = e / (1 + e)``. ``x`` is capped at 20, past which both are 1 in float64."""
    e = xp.minimum(x, 20.0)
    xp.exp(e, out=e)
    n = e + 2.0
    n *= e
    t = n + 2.0
    xp.divide(n, t, out=t)
    s = e + 1.0
    xp.divide(e, s, out=s)
    return t, s


class Mish(_Smooth):
    _node_name = "MishBackward0"

    @staticmethod
    def value(x):
        t, s = _mish_parts(xp_of(x), x)
        return x * t, (t, s)


class MishGrad(_SmoothGrad):
    _node_name = "MishBackwardBackward0"

    @staticmethod
    def deriv(x, aux):
        xp = xp_of(x)
        t, s = _mish_parts(xp, x) if aux is None else aux
        # d/dx x tanh(sp(x)) = t + x sigmoid(x) (1 - t^2)
        d = t * t
        xp.subtract(1.0, d, out=d)
        d *= s
        d *= x
        d += t
        return d

    @staticmethod
    def deriv2(x):
        s = x.sigmoid()
        t = _softplus_t(x).tanh()
        sech2 = 1 - t * t
        return sech2 * (2 * s + x * s * (1 - s) - 2 * x * s * s * t)


def _softplus_t(x: Tensor) -> Tensor:
    """Stable softplus on Tensors (for second derivatives)."""
    return x.clamp_min(0) + (-x.abs()).exp().log1p()


class Elu(_Smooth):
    """``scale * x`` above 0, ``scale * alpha * (exp(input_scale * x) - 1)`` at or below (elu,
    selu and celu are this with different constants)."""

    _node_name = "EluBackward0"

    @staticmethod
    def value(x, alpha, scale, input_scale):
        xp = xp_of(x)
        # the two branches summed: each is exactly 0 on the other's side
        e = xp.minimum(x, 0.0)
        if input_scale != 1.0:
            e *= input_scale
        # NOTE: matches torch: expm1, exact near 0 where exp(x) - 1 cancels (NumPy's expm1 is
        # scalar code, the slowest part of this op)
        xp.expm1(e, out=e)
        y = e * (alpha * scale)
        p = xp.maximum(x, 0.0)
        if scale != 1.0:
            p *= scale
        y += p
        return y, e  # backward's exp(input_scale * x) is e + 1: no second exp


class EluGrad(_SmoothGrad):
    _node_name = "EluBackwardBackward0"

    @staticmethod
    def deriv(x, aux, alpha, scale, input_scale):
        xp = xp_of(x)
        if aux is not None:
            d = aux + 1.0
        else:
            d = xp.minimum(x, 0.0)
            if input_scale != 1.0:
                d *= input_scale
            xp.exp(d, out=d)  # exactly 1 where x >= 0
        c = input_scale * scale * alpha
        if c != 1.0:
            d *= c
        # NOTE: matches torch: x == 0 takes the exponential side. ``scale`` above 0 by adding
        # (scale - c) there: no branch per element (np.where mispredicts on mixed signs)
        if scale != c:
            d += xp.multiply(x > 0, scale - c, dtype=d.dtype)
        return d

    @staticmethod
    def deriv2(x, alpha, scale, input_scale):
        neg = (x.clamp_max(0) * input_scale).exp() * (input_scale * input_scale * scale * alpha)
        # NOTE: matches torch: the second derivative is 0 at x == 0
        return neg * (x < 0)


class Celu(Elu):
    _node_name = "CeluBackward0"

    @classmethod
    def backward(cls, ctx, g):
        (x,) = ctx.saved_tensors
        alpha, scale, _ = ctx.params
        # NOTE: matches torch: celu's backward takes 1 / alpha with alpha rounded to float32
        return EluGrad.apply(g, x, None, alpha, scale, 1.0 / _f32(alpha)), None, None, None


class Softplus(_Smooth):
    _node_name = "SoftplusBackward0"

    @staticmethod
    def value(x, beta, threshold):
        xp = xp_of(x)
        z = x * beta if beta != 1.0 else x
        y = _softplus(xp, z)
        if beta != 1.0:
            y /= beta
        # NOTE: matches torch: the identity where beta * x > threshold
        big = z > threshold
        if _some(xp, big):
            xp.copyto(y, x, where=big)
        return y, None


class SoftplusGrad(_SmoothGrad):
    _node_name = "SoftplusBackwardBackward0"

    @staticmethod
    def deriv(x, aux, beta, threshold):
        xp = xp_of(x)
        z = x * beta if beta != 1.0 else x
        d = _sigmoid(xp, z)
        big = z > threshold
        if _some(xp, big):
            xp.copyto(d, 1.0, where=big)
        return d

    @staticmethod
    def deriv2(x, beta, threshold):
        z = x * beta
        s = z.sigmoid()
        # NOTE: matches torch: 0 at beta * x == threshold, where the first derivative is not
        return s * (1 - s) * beta * (z < threshold)


class LogSigmoid(_Smooth):
    _node_name = "LogSigmoidBackward0"

    @staticmethod
    def value(x):
        # log sigmoid(x) = -softplus(-x) = min(x, 0) - log1p(exp(-|x|))
        xp = xp_of(x)
        e = _log1p_exp_neg_abs(xp, x)
        return xp.subtract(xp.minimum(x, 0.0), e, out=e), None


class LogSigmoidGrad(_SmoothGrad):
    _node_name = "LogSigmoidBackwardBackward0"

    @staticmethod
    def deriv(x, aux):
        # d/dx log sigmoid(x) = sigmoid(-x), computed without overflow for either sign
        xp = xp_of(x)
        return _sigmoid(xp, xp.negative(x))

    @staticmethod
    def deriv2(x):
        s = x.sigmoid()
        return -s * (1 - s)


class Hardswish(_Smooth):
    _node_name = "HardswishBackward0"

    @staticmethod
    def value(x):
        xp = xp_of(x)
        z = x + 3.0
        xp.clip(z, 0.0, 6.0, out=z)
        z *= x
        z /= 6.0
        return z, None


class HardswishGrad(_SmoothGrad):
    _node_name = "HardswishBackwardBackward0"

    @staticmethod
    def deriv(x, aux):
        xp = xp_of(x)
        # NOTE: matches torch: 0 up to -3, x / 3 + 0.5 strictly inside (-3, 3), 1 from 3 on
        d = x / 3.0
        d += 0.5
        lo, hi = x <= -3.0, x >= 3.0
        if _some(xp, lo):
            xp.copyto(d, 0.0, where=lo)
        if _some(xp, hi):
            xp.copyto(d, 1.0, where=hi)
        return d

    @staticmethod
    def deriv2(x):
        return ((x > -3) & (x < 3)).to(x.dtype) / 3.0


for _op, _grad in (
    (Gelu, GeluGrad),
    (Silu, SiluGrad),
    (Mish, MishGrad),
    (Elu, EluGrad),
    (Softplus, SoftplusGrad),
    (LogSigmoid, LogSigmoidGrad),
    (Hardswish, HardswishGrad),
):
    _op.grad_op = _grad
Celu.grad_op = EluGrad

__all__: list[str] = []
