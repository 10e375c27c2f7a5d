"""Rounding: ``floor``, ``ceil``, ``round`` (half to even, optionally to ``decimals``),
``trunc``/``fix`` and ``frac``, with their Tensor methods and in-place forms. Integer inputs are
returned as they are; the gradient is zero (but ``frac``'s, which is one)."""

from __future__ import annotations

from ember.ops._dispatch import unary, xp_of
from ember.ops._elementwise import (
    _BOOL,
    _check,
    _complex_unsupported,
    _copy,
    _Unary,
    _unsupported,
    _ZeroGrad,
    _zeros,
)
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor


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
            ten = float(10**-decimals)
            return xp.rint(x / ten) * ten
        ten = float(10**decimals)
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


def _rounding(cls, name: str):
    def op(input: Tensor, *, out=None) -> Tensor:
        d = _check(input, name)._data.dtype
        if d.kind not in "fV":
            if d.kind == "c":
                _complex_unsupported("round_vml_cpu" if name == "round" else name, d)
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
    if d.kind not in "fV":
        if d.kind == "c":
            _complex_unsupported("round_cpu", d)
        _unsupported("round", d)
    return _out(unary(RoundDecimals, input, int(decimals)), out)


def frac(input: Tensor, *, out=None) -> Tensor:
    """Fractional part ``input - trunc(input)`` (floating inputs only, as in PyTorch).

    Example:
        >>> ember.frac(ember.tensor([-1.5, 2.25]))
        tensor([-0.5000,  0.2500])
    """
    d = _check(input, "frac")._data.dtype
    if d.kind not in "fV":
        if d.kind == "c":
            _complex_unsupported("frac_cpu", d)
        _unsupported("frac", d)
    return _out(unary(Frac, input), out)


# ---- Tensor methods and in-place forms --------------------------------------------------------
_UNARY_METHODS = {
    "floor": floor,
    "ceil": ceil,
    "round": round,
    "trunc": trunc,
    "fix": trunc,
    "frac": frac,
}
for _name, _fn in _UNARY_METHODS.items():
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))

# torch-level in-place functions (``torch.floor_(x)``...)
_TORCH_INPLACE = ("ceil", "fix", "floor", "frac", "round", "trunc")
for _name in _TORCH_INPLACE:
    globals()[_name + "_"] = getattr(Tensor, _name + "_")

__all__ = [
    "floor",
    "ceil",
    "round",
    "trunc",
    "fix",
    "frac",
    *(n + "_" for n in _TORCH_INPLACE),
]
