"""Weight matrices of ``F.interpolate(..., antialias=True)`` (not public ops: ``F.interpolate``
validates its arguments and applies these through ``ops.vision``'s ``Resample`` node).

Antialiased resampling is separable: along each axis, output ``i`` is a normalized weighted sum
of a window of inputs around its centre ``scale * (i + 0.5)``. When downscaling
(``scale = in / out > 1``) the filter is stretched by ``scale``, so every input contributes
(a low-pass filter); when upscaling it is the plain filter. One (out, in) matrix per axis holds
those weights, so the whole resize is one GEMM per axis, and its gradient the transposes.

The window bounds, filter arguments and normalization follow PyTorch's kernel operation by
operation in the input's float type (with the same double-precision intermediate steps), so
the weights are PyTorch's to the last bit and the results differ only by summation order.
"""

from __future__ import annotations

import functools
import math

from ember import backend

_cpu = backend.cpu

# taps of each filter at scale 1 (its support is half that, in input pixels)
INTERP_SIZE = {"bilinear": 2, "bicubic": 4, "lanczos": 6}


def _triangle(x, dt):
    x = _cpu.abs(x)
    return _cpu.where(x < dt(1), dt(1) - x, dt(0))


def _fma(a, b, c, dt):
    """``a * b + c`` rounded once to ``dt`` (float32: the product is exact in double)."""
    f64 = _cpu.float64
    if dt is f64:
        # float64 has no wider type in NumPy; the unfused form differs by at most an ulp
        return a * b + c
    return (a.astype(f64) * b + c).astype(dt)


def _keys_cubic(x, dt):
    # NOTE: matches torch: the antialiased cubic uses Keys' a = -0.5 (the plain bicubic -0.75),
    # and its compiled kernel fuses the multiply-adds (FMA), emulated here for float32
    a = dt(-0.5)
    x = _cpu.abs(x)
    near = _fma(_fma(_cpu.full_like(x, a + dt(2)), x, -(a + dt(3)), dt) * x, x, dt(1), dt)
    far = _fma(
        _fma(_fma(_cpu.full_like(x, a), x, -dt(5) * a, dt), x, dt(8) * a, dt), x, -dt(4) * a, dt
    )
    return _cpu.where(x < dt(1), near, _cpu.where(x < dt(2), far, dt(0)))


def _sinc(x, dt):
    px = x * dt(math.pi)
    with _cpu.errstate(divide="ignore", invalid="ignore"):
        # float32: libm's sinf is (nearly always) correctly rounded, NumPy's SIMD sin not
        s = _cpu.sin(px.astype(_cpu.float64)).astype(dt) / px
    return _cpu.where(x == dt(0), dt(1), s).astype(dt)


def _lanczos3(x, dt):
    x = _cpu.abs(x)
    # NOTE: matches torch: ``sinc(x / 3.0)`` deduces a double argument, so that factor and the
    # product run in double
    far = _sinc(x.astype(_cpu.float64) / 3.0, _cpu.float64)
    w = (_sinc(x, dt).astype(_cpu.float64) * far).astype(dt)
    return _cpu.where(x < dt(3), w, dt(0))


_FILTERS = {"bilinear": _triangle, "bicubic": _keys_cubic, "lanczos": _lanczos3}


def _scale(n_in, n_out, align_corners, scale, dt):
    """PyTorch's input/output coordinate ratio, in ``dt``."""
    if align_corners:
        return dt(n_in - 1) / dt(n_out - 1) if n_out > 1 else dt(0)
    if scale is not None and scale > 0:
        # NOTE: matches torch: a given scale_factor is used as is (1/scale), not in/out
        return dt(1.0 / scale)
    return dt(n_in) / dt(n_out)


@functools.lru_cache(maxsize=256)
def antialias_matrix(mode, n_in, n_out, align_corners, scale, dtname):
    """The (n_out, n_in) antialiased ``mode`` weights along one axis (a cached, read-only
    CPU array of ``dtname``)."""
    dt = _cpu.dtype(dtname).type
    f64 = _cpu.float64
    s = _scale(n_in, n_out, align_corners, scale, dt)
    half = INTERP_SIZE[mode] * 0.5
    down = s >= dt(1)
    # C++ mixes the float ``scale`` with double literals: those steps run in double
    support = dt(half * f64(s)) if down else dt(half)
    invscale = dt(1.0 / f64(s)) if down else dt(1)
    taps = int(math.ceil(support)) * 2 + 1
    i = _cpu.arange(n_out, dtype=f64)
    center = (f64(s) * (i + 0.5)).astype(dt)
    lo = (center - support).astype(f64) + 0.5
    hi = (center + support).astype(f64) + 0.5
    # NOTE: matches torch: bounds truncate toward zero (static_cast), not floor
    xmin = _cpu.maximum(lo.astype(_cpu.int64), 0)
    xsize = _cpu.clip(_cpu.minimum(hi.astype(_cpu.int64), n_in) - xmin, 0, taps)
    j = _cpu.arange(taps)
    idx = xmin[:, None] + j  # (n_out, taps)
    valid = j < xsize[:, None]
    arg = ((idx.astype(dt) - center[:, None]).astype(f64) + 0.5) * f64(invscale)
    w = _FILTERS[mode](arg.astype(dt), dt).astype(dt)
    w = _cpu.where(valid, w, dt(0))
    # sequential sum in ``dt``, as the kernel's loop (cumsum accumulates in order)
    total = _cpu.cumsum(w, axis=1, dtype=dt)[:, -1]
    safe = _cpu.where(total != dt(0), total, dt(1))
    w = (w / safe[:, None]).astype(dt)
    m = _cpu.zeros((n_out, n_in), dt)
    rows = _cpu.broadcast_to(_cpu.arange(n_out)[:, None], idx.shape)
    # windows may run past the input's end only where ``valid`` is False (weight 0): clip them
    m[rows[valid], idx[valid]] = w[valid]
    m.setflags(write=False)
    return m


@functools.lru_cache(maxsize=64)
def first_row_matrix(mode, n_in, n_out, align_corners, scale, dtname):
    """``antialias_matrix`` with every row replaced by its first (torch's forward quirk, see
    ``F.interpolate``)."""
    m = antialias_matrix(mode, n_in, n_out, align_corners, scale, dtname)
    m = _cpu.repeat(m[:1], n_out, axis=0)
    m.setflags(write=False)
    return m
