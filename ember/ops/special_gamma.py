"""The gamma-function family: ``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma`` and the
regularized incomplete gamma functions ``igamma``/``igammac``, with their Tensor methods and
in-place forms.

The kernels live in ``ember/backend/_gamma.py`` (NumPy has none of them); each primitive's
backward is the next function of the family (``lgamma' = digamma``, ``digamma' =
polygamma(1)``...), so derivatives of any order exist. ``mvlgamma`` is composed from ``lgamma``.
"""

from __future__ import annotations

import math as _m

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import binary, promote, unary, xp_of
from ember.ops._elementwise import _check, _floating, _floating_pair
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor


class Lgamma(Function):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "LgammaBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return xp_of(x).lgamma(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * digamma(x)


class Digamma(Function):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "DigammaBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return xp_of(x).digamma(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * polygamma(1, x)


class Polygamma(Function):
    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "PolygammaBackward0"

    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        return xp_of(x).polygamma(n, x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * polygamma(ctx.n + 1, x), None


class _Igamma(Function):
    """P(a, x) (``sign`` 1) or Q(a, x) (``sign`` -1); differentiable in ``x`` only."""

    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    fn = "gammainc"
    sign = 1.0

    @classmethod
    def forward(cls, ctx, a, x):
        ctx.save_for_backward(a, x)
        return getattr(xp_of(a), cls.fn)(a, x)

    @classmethod
    def backward(cls, ctx, g):
        a, x = ctx.saved_tensors
        need_a, need_x = ctx.needs_input_grad
        if need_a:
            # NOTE: matches torch: no derivative in the shape parameter (message included)
            raise NotImplementedError(
                f"the derivative for '{cls._node_name[:-9].lower()}: input' is not implemented."
            )
        # dP/dx = x^(a-1) e^-x / Gamma(a), the Gamma(a, 1) density
        dens = ((a - 1) * x.log() - x - lgamma(a)).exp()
        return None, g * dens * cls.sign


class Igamma(_Igamma):
    _node_name = "IgammaBackward0"


class Igammac(_Igamma):
    _node_name = "IgammacBackward0"
    fn = "gammaincc"
    sign = -1.0


def lgamma(input: Tensor, *, out=None) -> Tensor:
    """``log |Gamma(input)|``; +inf at 0 and the negative integers.

    Example:
        >>> ember.lgamma(ember.tensor([0.5, 3.0]))
        tensor([0.5724, 0.6931])
    """
    return _out(unary(Lgamma, _floating(input, "lgamma")), out)


def digamma(input: Tensor, *, out=None) -> Tensor:
    """The derivative of ``lgamma``; nan at the negative integers, -inf at 0.

    Example:
        >>> ember.digamma(ember.tensor([1.0, 2.0]))
        tensor([-0.5772,  0.4228])
    """
    return _out(unary(Digamma, _floating(input, "digamma")), out)


def polygamma(n: int, input: Tensor, *, out=None) -> Tensor:
    """The ``n``-th derivative of ``digamma`` (``polygamma(0, x)`` is ``digamma(x)``).

    Example:
        >>> ember.polygamma(1, ember.tensor([1.0]))
        tensor([1.6449])
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _floating(input, "polygamma")
    if n == 0:
        return _out(unary(Digamma, x), out)
    return _out(unary(Polygamma, x, n), out)


def mvlgamma(input: Tensor, p: int, *, out=None) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``:
    ``p (p - 1) / 4 log(pi) + sum_{i < p} lgamma(input - i / 2)``.

    Example:
        >>> ember.mvlgamma(ember.tensor([2.5]), 2)
        tensor([0.8570])
    """
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"mvlgamma(): argument 'p' must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _floating(input, "mvlgamma")
    res = lgamma(x)
    for i in range(1, p):
        res = res + lgamma(x - i / 2)
    return _out(res + p * (p - 1) / 4 * _m.log(_m.pi), out)


def _igamma_args(input, other, name: str):
    _check(input, name)
    _check(other, name, "other", 2)
    dt = promote(input, other)
    if dt.kind not in "fV":
        # NOTE: matches torch: no integer kernel (one float operand is enough)
        raise NotImplementedError(
            f"\"{name}_cpu\" not implemented for '{_dtype.SCALAR_NAMES[_dtype.from_np(dt).name]}'"
        )
    return _floating_pair(input, other)


def igamma(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized lower incomplete gamma function ``P(input, other)``
    (``torch.special.gammainc``); differentiable in ``other`` only.

    Example:
        >>> ember.igamma(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 1.0]))
        tensor([0.6321, 0.2642])
    """
    return _out(binary(Igamma, *_igamma_args(input, other, "igamma")), out)


def igammac(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``
    (``torch.special.gammaincc``); differentiable in ``other`` only.

    Example:
        >>> ember.igammac(ember.tensor([1.0]), ember.tensor([1.0]))
        tensor([0.3679])
    """
    return _out(binary(Igammac, *_igamma_args(input, other, "igammac")), out)


# ---- Tensor methods and in-place forms --------------------------------------------------------
def _polygamma_method(self: Tensor, n: int) -> Tensor:
    return polygamma(n, self)


_polygamma_method.__name__ = "polygamma"

for _name, _fn in (
    ("lgamma", lgamma),
    ("digamma", digamma),
    ("mvlgamma", mvlgamma),
    ("igamma", igamma),
    ("igammac", igammac),
    ("polygamma", _polygamma_method),
):
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "igamma", "igammac"]
