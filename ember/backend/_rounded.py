"""Float32 and float16 math that gives the same bits on every x86-64 CPU.

On a CPU with AVX-512 (NumPy's X86_V4 dispatch) NumPy computes the float32 and float16 loops of
the ufuncs below with Intel's SVML kernels, elsewhere with the C library's scalar functions:
the two differ by up to a few units in the last place (``log10(100)`` is ``2.0000002`` on one,
``2`` on the other). The float64 loops differ too, but by far less than a float32 ulp, so
computing in float64 and rounding once to the input's dtype gives the correctly rounded result
(up to a double rounding, far rarer than a float64 ulp) on every CPU, and never more than a
float32 ulp from torch's (Sleef's 1-ulp kernels). The cost is a float64 loop, about 4x the SVML
one on AVX-512 and about what the scalar float32 loop costs elsewhere; none of these functions
is on a training step's hot path (``exp``, ``log``, ``sin``, ``cos``, ``tanh``, ``sqrt`` and the
arithmetic give the same bits on every AVX2 or AVX-512 CPU and stay as they are).
"""

from __future__ import annotations

import numpy as _np

_F64 = _np.dtype(_np.float64)
_NARROW = frozenset({_np.dtype(_np.float32), _np.dtype(_np.float16)})

# NumPy's float32 loops with an SVML kernel on AVX512_SKX (numpy/_core/src/umath/loops_umath_fp
# and loops_hyperbolic), found by running them with and without NPY_DISABLE_CPU_FEATURES
ROUNDED = (
    "exp2 expm1 log2 log10 log1p cbrt tan arcsin arccos arctan sinh cosh arcsinh arccosh "
    "arctanh arctan2"
).split()
# NumPy 2's short aliases of the same ufuncs
ALIASES = {
    "asin": "arcsin",
    "acos": "arccos",
    "atan": "arctan",
    "asinh": "arcsinh",
    "acosh": "arccosh",
    "atanh": "arctanh",
    "atan2": "arctan2",
}


def _narrow_dtype(args):
    """The float32/float16 dtype the ufunc would compute in, or None (any other dtype, or an
    operand that is not a NumPy array or scalar)."""
    dt = None
    for a in args:
        d = getattr(a, "dtype", None)
        if d is None:
            if isinstance(a, (int, float)):  # a weak Python number keeps the array's dtype
                continue
            return None
        if d not in _NARROW:
            return None
        dt = d if dt is None or d.itemsize > dt.itemsize else dt
    return dt


def _rounded(ufunc):
    def fn(*args, **kwargs):
        dt = _narrow_dtype(args)
        if dt is None or "dtype" in kwargs or "signature" in kwargs:
            return ufunc(*args, **kwargs)
        out = kwargs.get("out")
        if out is not None:  # the float64 loop writes into the narrow output, rounding once
            return ufunc(*args, dtype=_F64, **kwargs)
        y = ufunc(*args, dtype=_F64, **kwargs)
        return y.astype(dt)

    fn.__name__ = fn.__qualname__ = ufunc.__name__
    fn.__doc__ = f"NumPy's ``{ufunc.__name__}``; float32/float16 computed in float64, rounded once."
    fn.ufunc = ufunc
    return fn


def rounded_functions() -> dict:
    """``{name: function}`` for the cpu namespace, the aliases included."""
    table = {name: _rounded(getattr(_np, name)) for name in ROUNDED}
    table.update({alias: table[name] for alias, name in ALIASES.items() if hasattr(_np, alias)})
    return table
