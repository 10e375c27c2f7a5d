"""Comparisons and tests with bool results (no graph): ``eq``/``ne``/``lt``/``le``/``gt``/``ge``
and their aliases, the ``is*`` predicates (``isnan``, ``isinf``, ``isfinite``...), ``isclose``,
``allclose`` and ``equal``, with their Tensor methods, operators and in-place forms."""

from __future__ import annotations

import operator

from ember import _dtype
from ember.ops._dispatch import _as_array, numpy_error, promote2, xp_of
from ember.ops._elementwise import _BOOL, _TORCH_NAME, _check, _complex_unsupported, _operator
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor, _wrap


def _predicate(name: str, fn, doc: str):
    """A bool-valued element-wise test (no graph)."""

    def op(input: Tensor) -> Tensor:
        x = _check(input, name)._data
        return _wrap(_as_array(fn(xp_of(x), x), None))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


isnan = _predicate(
    "isnan",
    lambda xp, x: xp.isnan(x),
    """Whether each element is nan.

    Example:
        >>> ember.isnan(ember.tensor([1.0, float("nan")]))
        tensor([False,  True])
    """,
)
isinf = _predicate("isinf", lambda xp, x: xp.isinf(x), "Whether each element is +inf or -inf.")


def _signed_inf(name: str, positive: bool):
    def test(xp, x):
        if x.dtype.kind == "c":
            _complex_unsupported(name, x.dtype)
        return xp.isinf(x) & ((x > 0) if positive else (x < 0))

    return test


isposinf = _predicate("isposinf", _signed_inf("isposinf", True), "Whether each element is +inf.")
isneginf = _predicate("isneginf", _signed_inf("isneginf", False), "Whether each element is -inf.")
isfinite = _predicate(
    "isfinite", lambda xp, x: xp.isfinite(x), "Whether each element is finite (not nan or inf)."
)
isreal = _predicate(
    "isreal",
    lambda xp, x: x.imag == 0 if x.dtype.kind == "c" else xp.ones(x.shape, dtype=_BOOL),
    """Whether each element is real: its imaginary part is zero (all True for real dtypes).

    Example:
        >>> ember.isreal(ember.tensor([1 + 0j, 1j]))
        tensor([ True, False])
    """,
)


def _compare(name: str, fn, doc: str = ""):
    def op(input: Tensor, other, *, out=None) -> Tensor:
        _check(input, name)
        xa, xb = promote2(input, other)
        try:
            res = fn(xa, xb)
        except ValueError as e:
            raise numpy_error(e, (xa, xb)) from None
        return _out(_wrap(_as_array(res, None)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc or f"Element-wise ``{name}`` comparison, a bool tensor (broadcast, promoted)."
    return op


def _order(name: str, fn, kernel: str):
    """An ordering comparison: NumPy orders complex numbers lexicographically, torch refuses
    them."""

    def op(input: Tensor, other, *, out=None) -> Tensor:
        _check(input, name)
        xa, xb = promote2(input, other)
        if xa.dtype.kind == "c":  # xa is input's promoted array
            _complex_unsupported(kernel, xa.dtype)
        try:
            res = fn(xa, xb)
        except ValueError as e:
            raise numpy_error(e, (xa, xb)) from None
        return _out(_wrap(_as_array(res, None)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Element-wise ``{name}`` comparison, a bool tensor (broadcast, promoted)."
    return op


eq = _compare(
    "eq",
    operator.eq,
    """``input == other`` element-wise, a bool tensor.

    Example:
        >>> ember.eq(ember.tensor([1, 2]), 2)
        tensor([False,  True])
    """,
)
ne = _compare("ne", operator.ne)
lt = _order("lt", operator.lt, "lt_cpu")
le = _order("le", operator.le, "le_cpu")
gt = _order("gt", operator.gt, "gt_cpu")
ge = _order("ge", operator.ge, "ge_cpu")
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge


# ---- closeness and equality -------------------------------------------------------------------
def isclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
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
    if equal_nan and a.dtype.kind in "fcV":
        close = close | (xp.isnan(a) & xp.isnan(b))
    if rtol == 0 and atol == 0:
        return _wrap(_as_array(close, None))
    if a.dtype.kind not in "fcV":
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


def _host_bool(x, op: str, xp) -> bool:
    if xp.device_type == "meta":
        raise RuntimeError(f"{op}() cannot be called on meta tensors: they hold no data")
    return bool(xp.all(x))


def allclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """``isclose(...)`` for every element, as a Python bool.

    Example:
        >>> ember.allclose(ember.tensor([1.0]), ember.tensor([1.0 + 1e-9]))
        True
    """
    close = isclose(input, other, rtol, atol, equal_nan)._data
    return _host_bool(close, "allclose", xp_of(close))


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
    # the namespace of the operands: `==` of 0-d arrays gives a NumPy scalar, not an array
    return _host_bool(xa == xb, "equal", xp_of(input._data))


# ---- Tensor methods, operators and in-place forms ---------------------------------------------
_BINARY_METHODS = {
    "eq": eq,
    "ne": ne,
    "lt": lt,
    "le": le,
    "gt": gt,
    "ge": ge,
    "not_equal": ne,
    "less": lt,
    "less_equal": le,
    "greater": gt,
    "greater_equal": ge,
}
for _name, _fn in _BINARY_METHODS.items():
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))
for _name, _fn in {
    "isnan": isnan,
    "isinf": isinf,
    "isposinf": isposinf,
    "isneginf": isneginf,
    "isfinite": isfinite,
    "isreal": isreal,
    "isclose": isclose,
    "allclose": allclose,
    "equal": equal,
}.items():
    setattr(Tensor, _name, _fn)
for _name, _fn in (("eq", eq), ("ne", ne), ("lt", lt), ("le", le), ("gt", gt), ("ge", ge)):
    setattr(Tensor, f"__{_name}__", _operator(_fn))
# Tensor keeps its identity hash: __hash__ is set in the class body, and assigning __eq__
# afterwards does not remove it (only defining __eq__ in the class body would).

__all__ = [
    "isnan",
    "isinf",
    "isposinf",
    "isneginf",
    "isfinite",
    "isreal",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "isclose",
    "allclose",
    "equal",
]
