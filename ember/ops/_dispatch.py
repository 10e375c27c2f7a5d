"""Fast paths for applying element-wise ops (one or two operands) and the helpers every op
file uses.

``Function.apply`` handles any op; unary and binary element-wise ops are the hottest code in
ember (every ``a + b``), so they get a shorter path here with the same semantics: PyTorch's type
promotion on the raw arrays, then forward on arrays, then the node recorded if needed.
"""

from __future__ import annotations

from ember import _dtype, backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import (
    NOGRAD_CTX,
    _as_array,
    _record,
    edge,
    low_opmath,
    numpy_error,
    refresh_stale_view,
    round_low,
)
from ember.tensor import Tensor, _wrap, _wrap_dim

_state = _gm.state
_ARRAY_TYPES = backend._BY_TYPE
_binary_np_dtype = _dtype.binary_np_dtype
_F32 = _dtype.float32._np


def promote2(a, b):
    """The raw operands of a binary op, cast to their PyTorch result dtype where needed."""
    if isinstance(a, Tensor):
        xa = a._data
        if isinstance(b, Tensor):
            xb = b._data
            if xa.dtype is not xb.dtype:
                dt = _binary_np_dtype(xa, xb)
                if xa.dtype is not dt:
                    xa = xa.astype(dt)
                if xb.dtype is not dt:
                    xb = xb.astype(dt)
            return xa, xb
        xb = _number(b, a)
        # an int tensor with a float scalar, or a real tensor with a complex one
        if (isinstance(xb, float) and xa.dtype.kind not in "fcV") or (
            isinstance(xb, complex) and xa.dtype.kind != "c"
        ):
            dt = _binary_np_dtype(xa, xb)
            if xa.dtype is not dt:
                xa = xa.astype(dt)
        return xa, xb
    if not isinstance(b, Tensor):
        raise TypeError(
            f"expected at least one Tensor operand, got {type(a).__name__} and {type(b).__name__}"
        )
    xb, xa = promote2(b, a)
    return xa, xb


def _number(x, like):
    if x.__class__ is float or x.__class__ is int or x.__class__ is bool:
        return x
    if isinstance(x, (int, float)):  # bool and other int/float subclasses
        return x
    if isinstance(x, backend.generic):
        return x.item()
    if isinstance(x, complex):
        return x
    raise TypeError(
        f"unsupported operand type for a Tensor op: {type(x).__name__} (with a tensor of "
        f"shape {tuple(like._data.shape)}); expected a Tensor or a number"
    )


def binary(cls, a, b):
    """Apply the two-operand ``Function`` ``cls`` to tensors or numbers ``a`` and ``b``."""
    ta = a.__class__ is Tensor or isinstance(a, Tensor)
    tb = b.__class__ is Tensor or isinstance(b, Tensor)
    if ta and a._base is not None and a._view_version != a._vc[0]:
        refresh_stale_view(a)
    if tb and b._base is not None and b._view_version != b._vc[0]:
        refresh_stale_view(b)
    low = None
    if ta and tb and a._data.dtype is b._data.dtype:  # no promotion: skip promote2's call
        xa = a._data
        xb = b._data
    else:
        xa, xb = promote2(a, b)
        if (xa if ta else xb).dtype.char in "eE":
            # NOTE: matches torch: float16/bfloat16 kernels compute in float32 and round once,
            # with every operand first cast to the result dtype, except that a * s and a / s
            # with a number or zero-dim s keep s's own value (torch's opmath scalar).
            xl = xa if ta else xb
            if ta and getattr(cls, "_opmath_scalar", False) and (not tb or xb.ndim == 0):
                low = xl.dtype
                xa = xa.astype(_F32)
                if tb:
                    xb = b._data.astype(_F32)
            elif not ta:  # a NumPy scalar of that dtype, rounded as torch
                xa = xl.dtype.type(backend.scalar_for(xa, xl.dtype))
            elif not tb:
                xb = xl.dtype.type(backend.scalar_for(xb, xl.dtype))
    if cls._low_opmath:
        low, (xa, xb) = low_opmath((xa, xb))
    ga = ta and a._requires_grad
    gb = tb and b._requires_grad
    if (ga or gb) and _state.enabled:
        ctx = cls._Node()
        try:
            out = cls.forward(ctx, xa, xb)
        except ValueError as e:
            raise numpy_error(e, (xa, xb)) from None
        if low is not None and out.dtype == _F32:
            out = out.astype(low)
        # the edges built inline (``edge`` spelled out): this runs for every recorded a * b
        ea = eb = None
        if ga:
            fn = a._grad_fn
            ea = (
                (a, None, xa.shape, a._data.dtype)
                if fn is None
                else (fn, a._output_nr, xa.shape, a._data.dtype)
            )
        if gb:
            fn = b._grad_fn
            eb = (
                (b, None, xb.shape, b._data.dtype)
                if fn is None
                else (fn, b._output_nr, xb.shape, b._data.dtype)
            )
        return _record(ctx, (ea, eb), (ga, gb), (a, b), (xa, xb), out)
    try:
        out = cls.forward(NOGRAD_CTX, xa, xb)
    except ValueError as e:
        raise numpy_error(e, (xa, xb)) from None
    if out.__class__ not in _ARRAY_TYPES:
        out = backend.cpu.asarray(out)
    if low is not None and out.dtype == _F32:
        out = out.astype(low)
    return _wrap(out)


def unary(cls, a, *args):
    """Apply the one-tensor ``Function`` ``cls``; the extra ``args`` pass through to forward
    and must not be Tensors (no gradient flows to them)."""
    if a._base is not None and a._view_version != a._vc[0]:
        refresh_stale_view(a)
    x = a._data
    if cls._low_opmath and x.dtype.char in "eE":
        return _apply_low_unary(cls, a, args)
    if a._requires_grad and _state.enabled:
        ctx = cls._Node()
        out = cls.forward(ctx, x, *args)
        fn = a._grad_fn  # ``edge(a)``, spelled out as in ``binary``
        e = (a, None, x.shape, x.dtype) if fn is None else (fn, a._output_nr, x.shape, x.dtype)
        if not args:
            return _record(ctx, (e,), _FIRST_ONLY_1, (a,), (x,), out)
        n = len(args)
        return _record(ctx, (e,) + _NONES[n], _FIRST_ONLY[n], (a, *args), (x, *args), out)
    out = cls.forward(NOGRAD_CTX, x, *args)
    if out.__class__ not in _ARRAY_TYPES:
        out = backend.cpu.asarray(out)
    return _wrap(out)


def _apply_low_unary(cls, a, args):
    # float16/bfloat16: forward in float32, its float32 outputs rounded once (torch's opmath)
    x = a._data
    xf = x.astype(_F32)
    if a._requires_grad and _state.enabled:
        ctx = cls._Node()
        out = round_low(cls.forward(ctx, xf, *args), x.dtype)
        e = edge(a)
        n = len(args)
        return _record(ctx, (e,) + _NONES[n], _FIRST_ONLY[n], (a, *args), (xf, *args), out)
    out = round_low(cls.forward(NOGRAD_CTX, xf, *args), x.dtype)
    if out.__class__ is tuple:
        return tuple(_wrap(o) for o in out)
    if out.__class__ not in _ARRAY_TYPES:
        out = round_low(backend.cpu.asarray(out), x.dtype)
    return _wrap(out)


class _ByCount(dict):
    """``table[n]`` = ``make(n)``, built on first use and kept (a dict hit costs what a list
    index does)."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, n):
        value = self[n] = self.make(n)
        return value


# the empty edges and needs_input_grad of ``unary``, by the number of extra arguments
_NONES = _ByCount(lambda n: (None,) * n)
_FIRST_ONLY = _ByCount(lambda n: (True,) + (False,) * n)
_FIRST_ONLY_1 = (True,)


def promote(*xs):
    """NumPy result dtype of an n-ary op over tensors and Python numbers (PyTorch's rules)."""
    dims, zeros, scalars = [], [], []
    for x in xs:
        if isinstance(x, Tensor):
            (zeros if x._data.ndim == 0 else dims).append(_dtype._FROM_NP[x._data.dtype])
        elif x is not None:
            scalars.append(_dtype.scalar_dtype(x))
    return _dtype.result_type_of(dims, zeros, scalars)._np


def cj(v):
    """``conj(v)`` for backward formulas: ``v`` itself unless complex (a Tensor or a number),
    so the real path pays one call (complex gradients are conjugate Wirtinger derivatives)."""
    if isinstance(v, Tensor):
        return v.conj() if v._data.dtype.kind == "c" else v
    return v.conjugate() if v.__class__ is complex else v


def xp_of(array):
    """The backend namespace of a raw array."""
    return _ARRAY_TYPES[array.__class__]


def wrap_dims(dim, ndim):
    """Normalize ``dim`` (int, sequence or None) to a tuple of non-negative axes (None: all)."""
    if dim is None:
        return None
    if isinstance(dim, int):
        return (_wrap_dim(dim, ndim),)
    dims = tuple(_wrap_dim(d, ndim) for d in dim)
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return dims


__all__ = [
    "binary",
    "unary",
    "promote",
    "promote2",
    "xp_of",
    "wrap_dims",
    "numpy_error",
    "_as_array",
    "_wrap",
]
