"""Logical and bitwise ops (bool or integer results, no graph): ``logical_and``/``or``/``xor``/
``not`` and ``bitwise_and``/``or``/``xor``/``not``/``left_shift``/``right_shift``, with their
Tensor methods, the ``~ & | ^ << >>`` operators and in-place forms."""

from __future__ import annotations

import operator

from ember.ops._dispatch import _as_array, numpy_error, promote, xp_of
from ember.ops._elementwise import (
    _BOOL,
    _cast,
    _check,
    _complex_unsupported,
    _operator,
    _unsupported,
)
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor, _wrap

# torch's kernel names, which its refusal of complex operands quotes
_KERNELS = {"bitwise_left_shift": "lshift_cpu", "bitwise_right_shift": "rshift_cpu"}


def _logical(name: str, fn_name: str):
    def op(input: Tensor, other: Tensor, *, out=None) -> Tensor:
        _check(input, name)
        _check(other, name, "other", 2)
        a, b = input._data, other._data
        try:
            res = getattr(xp_of(a), fn_name)(a, b)
        except ValueError as e:
            raise numpy_error(e, (a, b)) from None
        return _out(_wrap(_as_array(res, None)), out)

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
    if dt.kind in "fcV":
        if dt.kind == "c":
            _complex_unsupported(_KERNELS.get(name, name + "_cpu"), dt)
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
    if x.dtype.kind in "fcV":
        if x.dtype.kind == "c":
            _complex_unsupported("bitwise_not_cpu", x.dtype)
        _unsupported("bitwise_not", x.dtype)
    return _out(_wrap(_as_array(xp_of(x).invert(x), None)), out)


def _invert(self: Tensor) -> Tensor:
    if self._data.dtype.kind in "fcV":
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type "
            f"tensors, got {self.dtype}"
        )
    return bitwise_not(self)


# ---- Tensor methods, operators and in-place forms ---------------------------------------------
_BINARY_METHODS = {
    "logical_and": logical_and,
    "logical_or": logical_or,
    "logical_xor": logical_xor,
    "logical_not": logical_not,
    "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or,
    "bitwise_xor": bitwise_xor,
    "bitwise_not": bitwise_not,
    "bitwise_left_shift": bitwise_left_shift,
    "bitwise_right_shift": bitwise_right_shift,
}
for _name, _fn in _BINARY_METHODS.items():
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))
Tensor.__invert__ = _invert
for _dunder, _name in (
    ("and", "bitwise_and"),
    ("or", "bitwise_or"),
    ("xor", "bitwise_xor"),
    ("lshift", "bitwise_left_shift"),
    ("rshift", "bitwise_right_shift"),
):
    setattr(Tensor, f"__{_dunder}__", _operator(globals()[_name]))
    setattr(Tensor, f"__r{_dunder}__", _operator(globals()[_name], reflected=True))
    setattr(Tensor, f"__i{_dunder}__", _operator(getattr(Tensor, _name + "_")))

__all__ = [
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_left_shift",
    "bitwise_right_shift",
]
