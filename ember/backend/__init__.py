"""Array backends: one array namespace (``xp``) per device type.

Ops never import NumPy: they ask the backend for the namespace of their input arrays
(``xp = namespace(array)``) so that one op body serves every backend. A backend module exposes
the array API its ops use (NumPy's names), plus:

- ``device_type``: ``"cpu"``, ``"meta"`` or ``"cuda"``;
- ``ndarray``: its array type;
- ``asarray(obj, dtype=None)``, ``to_numpy(array)``, ``from_numpy(ndarray)``;
- ``Generator``: the bit generator behind ``ember.Generator`` on that device.

This package is the only place that imports NumPy (a test enforces it).
"""

from __future__ import annotations

import numpy as _np

from ember.backend import cpu, meta

# NumPy's dtypes are ember's storage dtypes; ``ember.dtype`` wraps them (see ember/_dtype.py).
np_dtype = _np.dtype
ndarray = _np.ndarray
generic = _np.generic

_BY_TYPE: dict[type, object] = {cpu.ndarray: cpu, meta.ndarray: meta}
_BY_DEVICE: dict[str, object] = {"cpu": cpu, "meta": meta}


def ml_dtype(name: str):
    """The NumPy dtype ``name`` from ml_dtypes (``bfloat16``, ``float8_e4m3fn``...), imported on
    first use so that ``import ember`` does not load it."""
    import ml_dtypes

    return _np.dtype(getattr(ml_dtypes, name))


def finfo(npd):
    """Machine limits of a floating NumPy dtype (ml_dtypes' own finfo for its types)."""
    if npd.char not in "efdg":  # ml_dtypes' types (float8_e5m2 has kind "f" too)
        import ml_dtypes

        return ml_dtypes.finfo(npd)
    return _np.finfo(npd)


_F16, _F32, _F64 = _np.dtype("float16"), _np.dtype("float32"), _np.dtype("float64")


def cast(a, npd):
    """``a.astype(npd)`` as torch converts values: float64 to a float narrower than float32
    (float16, bfloat16, the float8 types) goes through float32.

    NOTE: matches torch: its Half, BFloat16 and Float8 types are built from a float, so a double
    is rounded twice (to float32, then to the narrow type); NumPy and ml_dtypes round once, and
    about one value in 20,000 differs.
    """
    if a.dtype == _F64 and _narrow_float(npd):
        a = a.astype(_F32)
    return a.astype(npd)


def _narrow_float(npd) -> bool:
    """float16, bfloat16 and the float8 types (ml_dtypes' floats have kind "V", or "f")."""
    return npd.itemsize < 4 and npd.kind in "fV"


def widen(a, npd):
    """``a.astype(npd)`` for half-precision operands widened to float32. An array broadcast
    along some dim (a stride of 0, as the gradient of a ``sum``) casts its distinct values once
    and is broadcast back, read-only: ml_dtypes casts a stride-0 array value by value, about
    25x slower than a dense one."""
    if a.__class__ is _np.ndarray and 0 in a.strides and a.size > 1:
        core = a[tuple(slice(0, 1) if s == 0 else slice(None) for s in a.strides)]
        return _np.broadcast_to(core.astype(npd), a.shape)
    return a.astype(npd)


def scalar_for(value, npd):
    """A Python number as torch writes it into a tensor of NumPy dtype ``npd`` (a float
    bound for float16, bfloat16 or a float8 type rounded to float32 first, as ``cast`` does)."""
    if isinstance(value, float) and _narrow_float(npd):  # np.float64 too
        return float(_np.float32(value))
    return value


def namespace(array):
    """The backend module (``xp``) that owns ``array``."""
    return _BY_TYPE[type(array)]


def for_device(device_type: str):
    """The backend module for a device type, e.g. ``"cpu"``."""
    xp = _BY_DEVICE.get(device_type)
    if xp is None:
        if device_type == "cuda":
            # NOTE: matches torch: what a CPU-only build raises for any CUDA tensor
            raise AssertionError("Torch not compiled with CUDA enabled")
        raise RuntimeError(f"unknown device type {device_type!r}; expected 'cpu' or 'meta'")
    return xp


def is_array(obj) -> bool:
    """Whether ``obj`` is an array of some backend."""
    return type(obj) in _BY_TYPE


def register(module) -> None:
    """Add a backend module (used by the CUDA backend when CuPy is importable)."""
    _BY_TYPE[module.ndarray] = module
    _BY_DEVICE[module.device_type] = module
