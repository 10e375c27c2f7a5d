"""Shared pieces of the element-wise op families (``math``, ``rounding``, ``binary_math``,
``clamp``, ``ternary``, ``comparison``, ``logical``): argument checks and PyTorch-worded errors,
dtype helpers, the one-input ``Function`` bases and the wrapper for binary operator dunders."""

from __future__ import annotations

import sys

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
    if d.dtype.kind in "fV":
        return input
    if d.dtype.kind == "c":
        _complex_unsupported(op, d.dtype)
    return _wrap(d.astype(_dtype.get_default_dtype()._np))


def _floating_c(input, op: str) -> Tensor:
    """``_floating`` for ops that PyTorch also computes on complex tensors."""
    if not isinstance(input, Tensor):
        _type_error(op, input)
    d = input._data
    if d.dtype.kind in "fcV":
        return input
    return _wrap(d.astype(_dtype.get_default_dtype()._np))


# ops whose refusal of complex input torch words in its own way (others: ``_unsupported``)
_COMPLEX_ERRORS = {
    "deg2rad": (RuntimeError, "deg2rad is not supported for complex tensors."),
    "rad2deg": (RuntimeError, "rad2deg is not supported for complex tensors."),
    "sign": (
        NotImplementedError,
        "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
        "torch.sgn instead.",
    ),
    "clamp": (NotImplementedError, "clamp is not supported for complex types"),
    "relu": (NotImplementedError, "clamp is not supported for complex types"),
    "floor": (NotImplementedError, "floor is not supported for complex inputs"),
    "ceil": (NotImplementedError, "ceil is not supported for complex inputs"),
    "trunc": (NotImplementedError, "trunc is not supported for complex inputs"),
    "fix": (NotImplementedError, "trunc is not supported for complex inputs"),
    "maximum": (RuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (RuntimeError, "minimum not implemented for complex tensors."),
    "fmax": (RuntimeError, "fmax not implemented for complex tensors."),
    "fmin": (RuntimeError, "fmin not implemented for complex tensors."),
    "isposinf": (RuntimeError, "isposinf does not support complex inputs."),
    "isneginf": (RuntimeError, "isneginf does not support complex inputs."),
    "max": (RuntimeError, "max(): does not support complex input"),
    "min": (RuntimeError, "min(): does not support complex input"),
    "argmax": (RuntimeError, "argmax(): does not support complex input"),
    "argmin": (RuntimeError, "argmin(): does not support complex input"),
    "sort": (RuntimeError, " Sort does not support complex dtypes on CPU"),
    "argsort": (RuntimeError, " Sort does not support complex dtypes on CPU"),
    "topk": (RuntimeError, " topk does not support complex dtypes on CPU"),
    "nansum": (RuntimeError, "nansum on CPU does not support complex inputs"),
    "nanmean": (RuntimeError, "nansum on CPU does not support complex inputs"),
    "msort": (RuntimeError, " Sort does not support complex dtypes on CPU"),
    "signbit": (NotImplementedError, "signbit is not implemented for complex tensors."),
    "heaviside": (RuntimeError, "heaviside is not yet implemented for complex tensors."),
    "abs_": (RuntimeError, "In-place abs is not supported for complex tensors."),
    "isin": (RuntimeError, "Unsupported input type encountered for isin(): {name}"),
}


def _complex_unsupported(op: str, npd):
    """Raise torch's error for an op that refuses complex input (type as torch's; the message
    torch's own where it names the op, else the kernel's "not implemented for" wording)."""
    err = _COMPLEX_ERRORS.get(op)
    name = _TORCH_NAME[_dtype.from_np(npd).name]
    if err is not None:
        raise err[0](err[1].replace("{name}", name))
    raise NotImplementedError(f"\"{op}\" not implemented for '{name}'")


def _caller_kernel() -> str:
    """torch's kernel name for the public op that called ``_floating_pair`` (``xlog1py`` ->
    ``"xlog1py_cpu"``); runs only on the error path. A ``_<op>_args`` helper in between
    names its own caller."""
    frame = sys._getframe(2)
    name = frame.f_code.co_name
    if name.endswith("_args"):
        name = frame.f_back.f_code.co_name
    return name.strip("_") + "_cpu"


def _floating_pair(a, b, op: str = ""):
    """Both operands in the default float dtype when their promoted dtype is not floating;
    complex operands raise torch's error for kernel ``op`` (e.g. ``"atan2_cpu"``)."""
    dt = promote(a, b)
    if dt.kind in "fV":
        return a, b
    if dt.kind == "c":
        _complex_unsupported(op or _caller_kernel(), dt)
    f = _dtype.get_default_dtype()._np
    return tuple(_wrap(x._data.astype(f)) if isinstance(x, Tensor) else float(x) for x in (a, b))


def _opmath(x):
    # NOTE: matches torch: float16 kernels compute in float32 and round once at the end.
    return x.astype(_F32) if x.dtype.char in "eE" else x  # float16, bfloat16


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

    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
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
_OPERAND = (Tensor, int, float, complex, backend.generic)


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
