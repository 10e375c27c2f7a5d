"""``make_tensor``: a random test tensor of a given shape, dtype and value range (torch's
rules for the defaults, the range checks and the clamping to the dtype's range)."""

from __future__ import annotations

import collections.abc
import math
import warnings

_INTEGRAL = ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
_FLOATING = ("float16", "bfloat16", "float32", "float64")
_COMPLEX = ("complex32", "complex64", "complex128")
_FLOAT8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")
# finite range of the floating dtypes (used when ember.finfo is not there)
_FMAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}
_FTINY = {
    "float16": 6.103515625e-05,
    "bfloat16": 1.1754943508222875e-38,
    "float32": 1.1754943508222875e-38,
    "complex64": 1.1754943508222875e-38,
}


def _name(dtype) -> str:
    return str(dtype).rpartition(".")[2]


def _fmax(dtype) -> float:
    import ember

    if hasattr(ember, "finfo"):
        return ember.finfo(dtype).max
    return _FMAX.get(_name(dtype).replace("complex64", "float32"), 1.7976931348623157e308)


def _ftiny(dtype) -> float:
    import ember

    if hasattr(ember, "finfo"):
        return ember.finfo(dtype).tiny
    return _FTINY.get(_name(dtype), 2.2250738585072014e-308)


def _irange(name: str) -> tuple[int, int]:
    bits = int("".join(c for c in name if c.isdigit()))
    if name.startswith("u"):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def make_tensor(
    *shape,
    dtype,
    device,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format=None,
):
    """A tensor of ``shape`` with values drawn uniformly from ``[low, high)``.

    Defaults: bool [0, 2), unsigned [0, 10), signed integers [-9, 10), floating and complex
    [-9, 9); bounds outside the dtype's finite range are clamped to it. ``noncontiguous=True``
    gives a strided view, ``exclude_zero=True`` replaces zeros (by 1, or the dtype's smallest
    normal number).

    Example:
        >>> t = ember.testing.make_tensor(2, 3, dtype=ember.float32, device="cpu", low=0, high=1)
        >>> t.shape, bool(((t >= 0) & (t < 1)).all())
        (ember.Size([2, 3]), True)
    """
    import ember

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    name = _name(dtype)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
            f"but got noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    if requires_grad and (name == "bool" or name in _INTEGRAL):
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, "
            f"but got dtype={dtype}"
        )

    def low_high(lo_inc, hi_exc, d_low, d_high):
        lo = low if low is not None else d_low
        hi = high if high is not None else d_high
        if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={lo} and high={hi}")
        if lo == hi and (name in _FLOATING or name in _COMPLEX):
            warnings.warn(
                "Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
                "types is deprecated since 2.1 and will be removed in 2.3. "
                "Use `torch.full(...)` instead.",
                FutureWarning,
                stacklevel=3,
            )
        elif lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
        elif hi < lo_inc or lo >= hi_exc:
            raise ValueError(
                f"The value interval specified by `low` and `high` is [{lo}, {hi}), "
                f"but {dtype} only supports [{lo_inc}, {hi_exc})"
            )
        lo, hi = min(max(lo, lo_inc), hi_exc), min(max(hi, lo_inc), hi_exc)
        if name == "bool" or name in _INTEGRAL:
            return math.ceil(lo), math.ceil(hi)
        return lo, hi

    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        # double the last dimension, keep every second element
        shape = (*shape[:-1], 2 * shape[-1])
    if name == "bool":
        lo, hi = low_high(0, 2, 0, 2)
        result = ember.randint(lo, hi, shape, device=device, dtype=dtype)
    elif name in _INTEGRAL:
        imin, imax = _irange(name)
        # NOTE: matches torch: int64's upper bound is exclusive at iinfo.max itself
        lo, hi = low_high(imin, imax + (1 if name != "int64" else 0), -9, 10)
        result = ember.randint(lo, hi, shape, device=device, dtype=dtype)
    elif name in _FLOATING or name in _COMPLEX or name in _FLOAT8:
        fmax = _fmax(dtype)
        lo, hi = low_high(-fmax, fmax, -9, 9)
        draw_dtype = ember.float32 if name in _FLOAT8 else dtype
        result = ember.empty(shape, device=device, dtype=draw_dtype)
        target = ember.view_as_real(result) if name in _COMPLEX else result
        if hi - lo >= fmax:
            target.uniform_(lo / 2, hi / 2).mul_(2)
        else:
            target.uniform_(lo, hi)
        if name in _FLOAT8:
            result = result.to(dtype)
    else:
        raise TypeError(
            f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
            " To request support, file an issue at: https://github.com/pytorch/pytorch/issues"
        )
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if (name == "bool" or name in _INTEGRAL) else _ftiny(dtype)
    if name in _FLOATING or name in _COMPLEX:
        result.requires_grad = requires_grad
    return result
