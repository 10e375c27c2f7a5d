"""ember's dtypes and PyTorch's type-promotion rules.

A ``dtype`` wraps the NumPy dtype used for storage (every backend stores with NumPy's dtype
objects). Promotion follows PyTorch, which differs from NumPy: integer with float gives that
float (NumPy widens ``int64 + float16`` to float64), zero-dim tensors and Python scalars only
take part when they are of a higher category than the dimensioned operands.
"""

from __future__ import annotations

import builtins as _b
import threading

from ember import backend as _backend


class dtype:
    """A tensor element type, e.g. ``ember.float32``."""

    __slots__ = ("name", "_np", "itemsize", "is_floating_point", "is_signed", "is_complex")

    def __init__(self, name: str, np_name: str, is_floating_point: bool, is_signed: bool):
        self.name = name
        self._np = _backend.np_dtype(np_name)
        self.itemsize = self._np.itemsize
        self.is_floating_point = is_floating_point
        self.is_signed = is_signed
        self.is_complex = False

    def __repr__(self) -> str:
        return f"ember.{self.name}"

    def __reduce__(self):
        return self.name  # pickles as the module-level singleton ``ember._dtype.<name>``

    def to_real(self) -> dtype:
        return self

    def to_complex(self) -> dtype:
        raise NotImplementedError("ember has no complex dtypes")


bool = dtype("bool", "bool", False, False)  # noqa: A001  (PyTorch's name)
uint8 = dtype("uint8", "uint8", False, False)
int8 = dtype("int8", "int8", False, True)
int16 = dtype("int16", "int16", False, True)
int32 = dtype("int32", "int32", False, True)
int64 = dtype("int64", "int64", False, True)
float16 = dtype("float16", "float16", True, True)
float32 = dtype("float32", "float32", True, True)
float64 = dtype("float64", "float64", True, True)
short, long, half, double = int16, int64, float16, float64
int = int32  # noqa: A001
float = float32  # noqa: A001

all_dtypes = (bool, uint8, int8, int16, int32, int64, float16, float32, float64)
_FROM_NP = {d._np: d for d in all_dtypes}
_BY_NAME = {d.name: d for d in all_dtypes}
# PyTorch's ScalarType names, which its error messages use ("Float", "Long"...), by dtype name
SCALAR_NAMES = dict(
    zip(
        (d.name for d in all_dtypes),
        ("Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"),
    )
)


def from_np(np_dtype) -> dtype:
    """The ember dtype of a NumPy dtype."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        raise TypeError(
            f"NumPy dtype {np_dtype} has no ember counterpart; "
            f"supported: {', '.join(d.name for d in all_dtypes)}"
        ) from None


def to_np(d):
    """The NumPy storage dtype for an ember dtype (or a NumPy dtype / Python type)."""
    if d.__class__ is dtype:
        return d._np
    if d is _b.float:
        return get_default_dtype()._np
    if d is _b.int:
        return int64._np
    if d is _b.bool:
        return bool._np
    if isinstance(d, str):
        if d in _BY_NAME:
            return _BY_NAME[d]._np
    try:
        npd = _backend.np_dtype(d)
    except TypeError:
        raise TypeError(f"{d!r} is not a dtype; use e.g. ember.float32") from None
    from_np(npd)
    return npd


# ---- default dtype ---------------------------------------------------------------------------

_default = float32


def get_default_dtype() -> dtype:
    """The dtype of tensors built from Python floats (float32 unless changed)."""
    return _default


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype (float16, float32 or float64), as
    ``torch.set_default_dtype``."""
    global _default
    d = from_np(to_np(d))
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default = d
    _promote_cache.clear()


# ---- promotion -------------------------------------------------------------------------------


# Category order: bool < integer < floating.
def _category(d: dtype) -> _b.int:
    if d is bool:
        return 0
    return 2 if d.is_floating_point else 1


_INT_ORDER = (uint8, int8, int16, int32, int64)


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's ``promote_types``: the smallest dtype both ``a`` and ``b`` convert to."""
    if a is b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    if ca == 2:
        return a if a.itemsize >= b.itemsize else b
    if ca == 0:
        return bool
    # integers: NOTE: matches torch: uint8 with a signed type needs the next wider signed type.
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a.itemsize >= b.itemsize else b


def _combine(higher, lower):
    # torch's combine_categories: the lower-priority group only counts if it is of a higher
    # category (bool < int < float) than the higher-priority group.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type_of(dims, zeros, scalars) -> dtype:
    """Result dtype from dimensioned tensors, zero-dim tensors and Python scalars (by dtype)."""
    groups = []
    for group in (dims, zeros, scalars):
        r = None
        for d in group:
            r = d if r is None else promote_types(r, d)
        groups.append(r)
    return _combine(groups[0], _combine(groups[1], groups[2]))


def scalar_dtype(x) -> dtype:
    """The dtype a Python scalar takes part in promotion with (float -> default dtype)."""
    t = type(x)
    if t is _b.bool:
        return bool
    if t is _b.int:
        return int64
    if t is _b.float:
        return _default
    if isinstance(x, _b.bool):
        return bool
    if isinstance(x, _b.int):
        return int64
    if isinstance(x, _b.float):
        return _default
    if isinstance(x, complex):
        raise NotImplementedError("ember has no complex dtypes")
    if isinstance(x, _backend.generic):  # a NumPy scalar counts like a Python number
        return scalar_dtype(x.item())
    raise TypeError(f"expected a number, got {type(x).__name__}")


_promote_cache: dict = {}
_cache_lock = threading.Lock()


def binary_np_dtype(xa, xb):
    """NumPy dtype of the result of a binary op between arrays or Python scalars.

    ``xa``/``xb`` are backend arrays or Python numbers (at least one an array). Cached on the
    dtypes and zero-dim-ness so that the common case costs a dict lookup.
    """
    ka = (xa.dtype, xa.ndim == 0) if _backend.is_array(xa) else (type(xa),)
    kb = (xb.dtype, xb.ndim == 0) if _backend.is_array(xb) else (type(xb),)
    key = (ka, kb)
    r = _promote_cache.get(key)
    if r is None:
        dims, zeros, scalars = [], [], []
        for k, x in ((ka, xa), (kb, xb)):
            if len(k) == 2:
                (zeros if k[1] else dims).append(from_np(k[0]))
            else:
                scalars.append(scalar_dtype(x))
        r = result_type_of(dims, zeros, scalars)._np
        with _cache_lock:
            _promote_cache[key] = r
    return r
