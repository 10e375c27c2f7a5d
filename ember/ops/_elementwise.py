"""Shared pieces of the element-wise op families (``math``, ``rounding``, ``binary_math``,
``clamp``, ``ternary``, ``comparison``, ``logical``): argument checks and PyTorch-worded errors,
dtype helpers, the one-input ``Function`` bases and the wrapper for binary operator dunders."""

from __future__ import annotations

from ember import _dtype, backend
from ember.autograd.function import Function
from ember.ops._dispatch import promote, xp_of
from ember.ops.creation import zeros_like
from ember.tensor import Tensor, _wrap

_ARRAY_TYPES = backend._BY_TYPE
_F16 = _dtype.float16._np
_F32 = _dtype.float32._np
_F64 = _dtype.float64._np
_BOOL = _dtype.bool._np
_TORCH_NAME = _dtype.SCALAR_NAMES


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


# ---- one-input Function bases -----------------------------------------------------------------
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


# ---- binary operator dunders ------------------------------------------------------------------
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
