"""Special functions NumPy lacks (``erf``, ``i0e``, Bessel functions, orthogonal polynomials...),
vectorized over ndarrays, computed by ``scipy.special`` (imported on first use, so ``import
ember`` does not load SciPy).

The dtype rule is torch's CPU one: float16 computes in float32 and rounds once at the end,
float32 and float64 compute in their own precision (SciPy's float32 loops evaluate in float64
and round, which is within one ulp of torch's float32 kernels). Callers pass floating arrays;
integer inputs are promoted by the ops layer, as torch promotes them.

Where torch's kernel and SciPy's disagree on a value torch defines (edges, overflow), a fix-up
below makes the result torch's and says so. The orthogonal polynomials are torch-specific
(negative degree gives 0, closed forms at the interval ends), so they are evaluated here by
their three-term recurrences, vectorized over the elements.
"""

from __future__ import annotations

import math

import numpy as np

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
# Elements per slice in _apply (see there): 256 KiB of float64, to fit a core's L2 cache.
_CHUNK = 32768


def _sc():
    import scipy.special  # noqa: PLC0415  (lazy: SciPy is loaded by the first special function)

    return scipy.special


def _apply(x, kernel):
    """Run the float64 ``kernel`` on ``x``; keep its shape and floating dtype (the wrapper of
    the hand-written gamma kernels in ``_gamma.py``).

    Large inputs go through in slices: a kernel's dozens of temporaries then stay in cache.
    """
    x = np.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError(f"complex input ({x.dtype}) is not supported")
    dtype = x.dtype if x.dtype.kind == "f" else _F64
    flat = x.ravel()
    out = np.empty(flat.shape, dtype)
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, _CHUNK):
            part = flat[start : start + _CHUNK]
            out[start : start + _CHUNK] = kernel(part.astype(_F64, copy=False))
    return out.reshape(x.shape)


def _compute_dtype(dt, f32_in_f64: bool = False):
    if dt.itemsize <= 2 and dt.kind in "fV":  # float16, bfloat16 (ml_dtypes, kind "V")
        return _F32
    if dt == _F32 and f32_in_f64:
        return _F64
    if dt.kind != "f":
        return _F64
    return dt


def _unary(fn, x, f32_in_f64: bool = False):
    """``fn`` on ``x`` in its compute dtype (float16 -> float32), rounded back to x's dtype."""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError(f"complex input ({x.dtype}) is not supported")
    dt = x.dtype if x.dtype.kind in "fV" else _F64
    cd = _compute_dtype(dt, f32_in_f64)
    with np.errstate(all="ignore"):
        # at least 1-d: NumPy gives scalars for 0-d inputs, and the fix-ups index in place
        y = np.asarray(fn(x.astype(cd, copy=False).reshape(-1))).reshape(x.shape)
    return y if y.dtype == dt else y.astype(dt)


def erf(x):
    """Error function, elementwise; same shape and floating dtype as ``x``."""
    return _unary(_sc().erf, x)


def erfc(x):
    """Complementary error function ``1 - erf(x)``, accurate where it is tiny (large ``x``)."""
    return _unary(_erfc, x)


def _erfc(x):
    y = _sc().erfc(x)
    # NOTE: matches torch: erfc goes on through the subnormals (to x ~ 27.2 in float64) where
    # SciPy's flushes to 0 at x ~ 26.55; there erfcx(x) exp(-x^2) keeps torch's values
    low = (y == 0) & (x < 28)
    if low.any():
        xl = x[low]
        y[low] = _sc().erfcx(xl) * np.exp(-xl * xl)
    return y


def erfinv(x):
    """Inverse error function: ``erfinv(+-1) = +-inf``, nan outside ``[-1, 1]``."""
    # SciPy's float32 erfinv is its own float32 algorithm, further from torch's float32 kernel
    # (measured: 85k of 200k values differ) than float64 rounded to float32 (44 differ).
    return _unary(_erfinv_signed, x, f32_in_f64=True)


def _erfinv_signed(x):
    # NOTE: matches torch: erfinv(-0.0) = -0.0 (SciPy gives +0.0); erfinv is odd, so copying
    # the sign of x onto every result is exact
    y = _sc().erfinv(x)
    return np.copysign(y, x)


# ---- one-argument functions (``special(name, x)``) ------------------------------------------
def _airy_ai(x):
    y = _sc().airy(x)[0]
    # NOTE: matches torch: Ai underflows to 0 for large finite x, where SciPy's airy gives nan
    # past ~1e10; torch's cut-off is x > 103.892 (Ai(103.9) < 1e-307). inf stays nan.
    y[np.isfinite(x) & (x > 103.892)] = 0.0
    return y


def _spherical_j0(x):
    return _sc().spherical_jn(0, x)


def _sinc(x):
    # NOTE: matches torch: sinc(0) = 1, sin(pi x) / (pi x) elsewhere (nan at +-inf)
    px = x * np.asarray(math.pi, x.dtype)
    y = np.sin(px)
    y /= px
    y[x == 0] = 1.0
    return y


def _ndtr(x):
    # NOTE: matches torch: (1 + erf(x / sqrt(2))) / 2, which underflows to 0 below x ~ -8.3
    # (SciPy's ndtr keeps the tail through erfc).
    y = _sc().erf(x * np.asarray(math.sqrt(0.5), x.dtype))
    y += 1
    y *= 0.5
    return y


def _log_ndtr(x):
    y = _sc().log_ndtr(x)
    # NOTE: matches torch: log(1 - p) = -p for the tiny upper tail p = erfc(x / sqrt 2) / 2,
    # which torch keeps down to the subnormals (SciPy's log_ndtr gives -0 past x ~ 37.5)
    big = x > 8
    if big.any():
        y[big] = -0.5 * _erfc(x[big] * np.asarray(math.sqrt(0.5), x.dtype))
    return y


def _lgamma(x):
    y = _sc().gammaln(x)
    # NOTE: matches torch: lgamma(-inf) = inf (SciPy: -inf), and subnormal x, where SciPy's
    # Gamma(x) ~ 1/x overflows, gives -log|x| (torch's value to 1e-16).
    y[x == -np.inf] = np.inf
    tiny = (np.abs(x) < 1e-300) & (x != 0)
    if tiny.any():
        y[tiny] = -np.log(np.abs(x[tiny]))
    return y


def _entr_low(x):
    # NOTE: matches torch: in float16/bfloat16, torch's entr rounds log(x) to that dtype before
    # the product -x * log(x) (which is computed in float32 and rounded once)
    dt = x.dtype
    xf = x.astype(_F32)
    with np.errstate(all="ignore"):
        y = -xf * np.log(xf).astype(dt).astype(_F32)
    y[xf == 0] = 0.0
    y[xf < 0] = -np.inf
    return y.astype(dt)


_UNARY = {
    "airy_ai": _airy_ai,
    "bessel_j0": "j0",
    "bessel_j1": "j1",
    "bessel_y0": "y0",
    "bessel_y1": "y1",
    "modified_bessel_i0": "i0",
    "modified_bessel_i1": "i1",
    "modified_bessel_k0": "k0",
    "modified_bessel_k1": "k1",
    "scaled_modified_bessel_k0": "k0e",
    "scaled_modified_bessel_k1": "k1e",
    "spherical_bessel_j0": _spherical_j0,
    "i0": "i0",
    "i0e": "i0e",
    "i1": "i1",
    "i1e": "i1e",
    "entr": "entr",
    "erfcx": "erfcx",
    "log_ndtr": _log_ndtr,
    "ndtri": "ndtri",
    "ndtr": _ndtr,
    "sinc": _sinc,
    "lgamma": _lgamma,
}
_BINARY = {"zeta": "zeta", "xlog1py": "xlog1py"}


def _resolve(table, name):
    fn = table[name]
    return getattr(_sc(), fn) if isinstance(fn, str) else fn


def special(name: str, *args):
    """``torch.special.<name>`` of same-dtype floating arrays (broadcast), in that dtype.

    One- and two-argument functions by torch's name (``"i0e"``, ``"zeta"``...); the
    polynomials take ``(x, n)``, ``n`` an integer array or number.
    """
    if name == "entr" and np.asarray(args[0]).dtype.itemsize == 2:
        return _entr_low(np.asarray(args[0]))
    if name == "sinc" and np.asarray(args[0]).dtype.kind == "c":  # the one complex function
        with np.errstate(all="ignore"):
            return _sinc(np.atleast_1d(args[0])).reshape(np.shape(args[0]))
    if name in _UNARY:
        return _unary(_resolve(_UNARY, name), args[0])
    if name in _POLY:
        return _poly(name, *args)
    a, b = (np.atleast_1d(v) for v in args)
    shape = np.broadcast_shapes(np.shape(args[0]), np.shape(args[1]))
    dt = a.dtype if a.dtype.kind in "fV" else _F64  # "V": bfloat16 (ml_dtypes)
    cd = _compute_dtype(dt)
    with np.errstate(all="ignore"):
        y = np.asarray(_resolve(_BINARY, name)(a.astype(cd, copy=False), b.astype(cd, copy=False)))
    if name == "zeta":
        # NOTE: matches torch: zeta(x, inf) is nan except at the pole x = 1 (SciPy: 0 for x > 1)
        y[np.broadcast_to(b == np.inf, y.shape) & np.broadcast_to(a != 1, y.shape)] = np.nan
    y = y.reshape(shape)
    return y if y.dtype == dt else y.astype(dt)


# ---- orthogonal polynomials ------------------------------------------------------------------
def _recur(x, n, todo, p0, p1, step):
    """Degree-``n`` values by the recurrence ``p_{k+1} = step(k, x, p_k, p_{k-1})`` from
    ``p_0 = p0``, ``p_1 = p1``, for the elements in ``todo`` (others left 0)."""
    out = np.zeros(x.shape, x.dtype)
    if not todo.any():
        return out
    xs, ns = x[todo], n[todo]
    p, q = np.broadcast_to(p0, xs.shape).astype(x.dtype), p1(xs)
    res = np.where(ns == 0, p, q)
    for k in range(1, int(ns.max())):
        p, q = q, step(k, xs, q, p)
        hit = ns == k + 1
        if hit.any():
            res[hit] = q[hit]
    out[todo] = res
    return out


def _odd(n):
    return (n % 2) == 1


def _cheb_common(name, x, n):
    """The Chebyshev families on ``t`` (``x``, or ``2x - 1`` for the shifted ones): closed
    forms at the interval ends and, for high degrees inside, in the angle acos(t)."""
    shifted = name.startswith("shifted")
    kind = name[-1]
    t = x + x - 1 if shifted else x
    # the interval ends: t = 1 (x = 1) and t = -1 (x = 0 when shifted, else x = -1)
    hi = (x == 1) if shifted else (x == 1)
    lo = (x == 0) if shifted else (x == -1)
    big = (
        {"t": 6, "u": 8, "v": 8, "w": 8}[kind]
        if not shifted
        else {"t": 6, "u": 6, "v": 6, "w": 4}[kind]
    )
    nf = n.astype(x.dtype)
    two_n1 = nf + nf + 1
    sgn = np.where(_odd(n), -1.0, 1.0).astype(x.dtype)
    if kind == "t":
        at_hi, at_lo = np.ones_like(x), sgn
    elif kind == "u":
        at_hi, at_lo = nf + 1, sgn * (nf + 1)
    elif kind == "v":
        at_hi, at_lo = np.ones_like(x), sgn * two_n1
    else:
        at_hi, at_lo = two_n1, sgn
    res = np.zeros(x.shape, x.dtype)
    done = n < 0
    for mask, val in ((hi, at_hi), (lo, at_lo)):
        m = mask & ~done
        res[m] = np.broadcast_to(val, x.shape)[m]
        done |= m
    inner = ~done & (n > big) & (np.abs(t) < 1)
    if inner.any():
        th = np.arccos(t[inner])
        ni = nf[inner]
        if kind == "t":
            v = np.cos(ni * th)
        elif kind == "u":
            s = np.sin(th)
            v = np.sin((ni + 1) * th) / s
        elif kind == "v":
            v = np.cos((ni + 0.5) * th) / np.cos(th / 2)
        else:
            v = np.sin((ni + 0.5) * th) / np.sin(th / 2)
        res[inner] = v
        done |= inner
    p1 = {
        "t": lambda v: v,
        "u": lambda v: v + v,
        "v": lambda v: v + v - 1,
        "w": lambda v: v + v + 1,
    }[kind]
    rest = ~done
    if rest.any():
        r = _recur(t, n, rest, 1.0, p1, lambda k, v, q, p: (v + v) * q - p)
        res[rest] = r[rest]
    return res


def _hermite_h(k, x, q, p):
    return (x + x) * q - (k + k) * p


def _hermite_he(k, x, q, p):
    return x * q - k * p


def _laguerre(k, x, q, p):
    return ((k + k + 1 - x) * q - k * p) / (k + 1)


def _legendre(k, x, q, p):
    return ((k + k + 1) * x * q - k * p) / (k + 1)


def _poly_simple(name, x, n):
    res = np.zeros(x.shape, x.dtype)
    done = n < 0
    if name == "laguerre_polynomial_l":
        # NOTE: matches torch: L_n(0) = 1 for n >= 0, before the recurrence
        m = (x == 0) & ~done
        res[m] = 1.0
        done |= m
    elif name == "legendre_polynomial_p":
        m = (np.abs(x) == 1) & ~done
        res[m] = np.where((x > 0) | ~_odd(n), 1.0, -1.0)[m]
        done |= m
    p1, step = {
        "hermite_polynomial_h": (lambda v: v + v, _hermite_h),
        "hermite_polynomial_he": (lambda v: v.copy(), _hermite_he),
        "laguerre_polynomial_l": (lambda v: 1 - v, _laguerre),
        "legendre_polynomial_p": (lambda v: v.copy(), _legendre),
    }[name]
    rest = ~done
    if rest.any():
        r = _recur(x, n, rest, 1.0, p1, step)
        res[rest] = r[rest]
    return res


_POLY = {
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
}


def _poly(name, x, n):
    x = np.asarray(x)
    dt = x.dtype
    cd = _compute_dtype(dt)
    # NOTE: matches torch: a floating degree is truncated to an integer
    n = np.asarray(n)
    if n.dtype.kind == "f":
        n = np.where(np.isfinite(n), n, -1).astype(np.int64)
    x, n = np.broadcast_arrays(x.astype(cd, copy=False), n.astype(np.int64, copy=False))
    with np.errstate(all="ignore"):
        if "chebyshev" in name:
            y = _cheb_common(name, x, n)
        else:
            y = _poly_simple(name, x, n)
    return y if y.dtype == dt else y.astype(dt)
