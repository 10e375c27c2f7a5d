"""Random creation functions: ``rand``, ``randn``, ``randint``, ``randperm`` and the ``*_like``
variants, with PyTorch's integer-range checks shared by ``random_``."""

from __future__ import annotations

import warnings

from ember import _dtype, backend
from ember.ops.creation import _finish, _np_dtype, _shape, _xp
from ember.ops.pointwise import _out
from ember.random._helpers import (
    _CPP_NAME,
    _CPP_SHORT,
    _F16,
    _I64,
    _SCALAR_NAME,
    _check_float,
    _check_grad,
    _cpu,
    _empty,
    _gen,
    _int,
    _not_impl,
    _size_arg,
    _std_normal,
    _uniform01,
)
from ember.tensor import Tensor


# ---- creation functions ------------------------------------------------------------------------
def _creation(shape, npd, device, requires_grad, draw, out=None, generator=None):
    """Allocate on ``device``: draw on real devices, allocate nothing on meta."""
    _check_grad(npd, requires_grad)
    gen = _gen(generator)
    xp = _xp(device if device is not None or out is None else out.device)
    if xp.device_type == "meta":
        data = _empty(xp, shape, npd)
    else:
        data = xp.asarray(draw(gen._rng, shape, npd))
        if data.dtype != npd:
            data = data.astype(npd)
    return _out(_finish(data, requires_grad and out is None), out)


def _out_dtype(dtype, out, default=None):
    if dtype is None and out is not None:
        return out._data.dtype
    return _np_dtype(dtype, default)


def rand(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **kwargs,
) -> Tensor:
    """Uniform samples from [0, 1), default dtype unless ``dtype`` is given (floating only).

    Example:
        >>> ember.rand(2, 3).shape
        ember.Size([2, 3])
    """
    shape = _size_arg(size, kwargs, "rand")
    npd = _out_dtype(dtype, out)
    _check_float(npd, "check_uniform_bounds", complex_ok=True)
    return _creation(shape, npd, device, requires_grad, _uniform01, out, generator)


def randn(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **kwargs,
) -> Tensor:
    """Samples from the standard normal distribution N(0, 1) (floating dtypes only).

    Example:
        >>> ember.randn(4, dtype=ember.float64).dtype
        ember.float64
    """
    shape = _size_arg(size, kwargs, "randn")
    npd = _out_dtype(dtype, out)
    _check_float(npd, "normal_kernel_cpu", complex_ok=True)
    return _creation(shape, npd, device, requires_grad, _std_normal, out, generator)


def rand_like(
    input: Tensor,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
) -> Tensor:
    """``rand`` with the shape (and by default dtype and device) of ``input``."""
    npd = input._data.dtype if dtype is None else _np_dtype(dtype)
    _check_float(npd, "check_uniform_bounds", complex_ok=True)
    return _creation(
        tuple(input._data.shape),
        npd,
        device if device is not None else input.device,
        requires_grad,
        _uniform01,
        generator=generator,
    )


def randn_like(
    input: Tensor,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
) -> Tensor:
    """``randn`` with the shape (and by default dtype and device) of ``input``."""
    npd = input._data.dtype if dtype is None else _np_dtype(dtype)
    _check_float(npd, "normal_kernel_cpu", complex_ok=True)
    return _creation(
        tuple(input._data.shape),
        npd,
        device if device is not None else input.device,
        requires_grad,
        _std_normal,
        generator=generator,
    )


def _int_range(npd, lo: int, hi: int | None):
    """PyTorch's checks and bounds of ``random_(lo, hi)`` in dtype ``npd``: the inclusive range
    [from, to_inc] of the values drawn (``hi=None``: up to the dtype's limit)."""
    if npd.kind == "c":
        raise RuntimeError(
            "check_random_bounds handles only integral, floating-point and boolean types"
        )
    if hi is not None:
        if lo >= hi:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}"
            )
        if npd.kind in "fV":
            lo, hi = _update_from(lo, npd), _update_to(hi, npd)
            if lo >= hi:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                    f"dtype, but got from={lo} >= to={hi}"
                )
        to_inc = hi - 1
    else:
        if npd.kind in "fV":
            to_inc = min(1 << _DIGITS[npd.name], (1 << 63) - 1)
            lo = _update_from(lo, npd)
            if lo >= to_inc:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                    f"casted to dtype, but got from={lo} > to_inc={to_inc}"
                )
        else:
            to_inc = 1 if npd.kind == "b" else int(_cpu.iinfo(npd).max)
    name = _CPP_NAME[npd.name]
    if npd.kind in "fV":
        fi = _cpu.finfo(npd)
        lim_lo, lim_hi = float(fi.min), float(fi.max)
    elif npd.kind == "b":
        lim_lo, lim_hi = 0, 1
    else:
        ii = _cpu.iinfo(npd)
        lim_lo, lim_hi = int(ii.min), int(ii.max)
    if not lim_lo <= lo <= lim_hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lim_lo <= to_inc <= lim_hi:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")
    if npd.kind in "fV":
        d = _DIGITS[npd.name]
        for v, what in ((lo, "from"), (to_inc, "to - 1")):
            if not -(1 << d) <= v <= (1 << d):
                warnings.warn(
                    f"{what} is out of bounds [-(2^{d}), 2^{d}]. Due to precision limitations "
                    f"{name} can support discrete uniform distribution only within this range. "
                    "This warning will become an error in version 1.7 release, please fix the "
                    "code in advance",
                    UserWarning,
                    stacklevel=4,
                )
    return lo, to_inc


_DIGITS = {"float16": 11, "float32": 24, "float64": 53}


def _as_float_int(v: int, npd) -> int:
    """``int(static_cast<float type>(v))``; values beyond the dtype's range stay as they are
    (the range check that follows reports them)."""
    if abs(v) > float(_cpu.finfo(npd).max):
        return v
    return int(npd.type(v))


def _update_from(lo: int, npd) -> int:
    # NOTE: matches torch: a 'from' that rounds down when cast to the float dtype is moved up to
    # the next representable value, so that no sample falls below it.
    lo1 = _as_float_int(lo + 1, npd)
    if lo1 < lo:
        n = abs(lo + 1).bit_length() - 1
        lo = lo1 + (1 << (n - _DIGITS[npd.name] + 1))
    return lo


def _update_to(hi: int, npd) -> int:
    hi1 = _as_float_int(hi - 1, npd)
    if hi1 >= hi:
        n = abs(hi - 1).bit_length() - 1
        hi = hi1 - (1 << (n - _DIGITS[npd.name] + 1))
    return hi


def _draw_ints(rng, shape, npd, lo: int, to_inc: int):
    """Integers uniform in [lo, to_inc], cast to ``npd`` (uint64 arithmetic for 2**64 ranges)."""
    if lo < -(1 << 63) or to_inc >= 1 << 63:
        raise RuntimeError(f"random_ range [{lo}, {to_inc}] does not fit in int64")
    vals = rng.integers(lo, to_inc, size=shape, dtype=_I64, endpoint=True)
    return vals.astype(npd, copy=False)


def randint(
    *args,
    size=None,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    low=None,
    high=None,
) -> Tensor:
    """Integers uniform in [low, high): ``randint(high, size)`` or ``randint(low, high, size)``.

    int64 unless ``dtype`` is given (floating dtypes allowed).

    Example:
        >>> ember.randint(3, 10, (2, 2)).dtype
        ember.int64
    """
    args = list(args)
    if len(args) > 3:
        raise TypeError(f"randint() takes at most 3 positional arguments ({len(args)} given)")
    if len(args) == 3 or len(args) == 2 and size is None:
        size = args.pop()
    if len(args) == 2:
        if low is not None or high is not None:
            raise TypeError("randint() got multiple values for argument 'low' or 'high'")
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        elif low is None:
            low = args[0]
        else:
            raise TypeError("randint() got multiple values for argument 'low'")
    if high is None or size is None:
        raise TypeError("randint() missing required arguments: 'high' and 'size' are required")
    if isinstance(size, (int, backend.generic)) and not isinstance(size, bool):
        raise TypeError(
            f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}"
        )
    shape = _shape((size,))
    lo = 0 if low is None else _int(low, "low", "randint")
    hi = _int(high, "high", "randint")
    npd = _out_dtype(dtype, out, _dtype.int64)
    lo, to_inc = _int_range(npd, lo, hi)
    return _creation(
        shape,
        npd,
        device,
        requires_grad,
        lambda rng, s, d: _draw_ints(rng, s, d, lo, to_inc),
        out,
        generator,
    )


def randint_like(
    input: Tensor,
    *args,
    low=None,
    high=None,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
) -> Tensor:
    """``randint`` with the shape (and by default dtype and device) of ``input``:
    ``randint_like(x, high)`` or ``randint_like(x, low, high)``."""
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    elif args:
        raise TypeError(
            f"randint_like() takes at most 3 positional arguments ({len(args) + 1} given)"
        )
    if high is None:
        raise TypeError("randint_like() missing required argument 'high'")
    lo = 0 if low is None else _int(low, "low", "randint_like")
    hi = _int(high, "high", "randint_like")
    npd = input._data.dtype if dtype is None else _np_dtype(dtype)
    lo, to_inc = _int_range(npd, lo, hi)
    return _creation(
        tuple(input._data.shape),
        npd,
        device if device is not None else input.device,
        requires_grad,
        lambda rng, s, d: _draw_ints(rng, s, d, lo, to_inc),
        generator=generator,
    )


def randperm(
    n,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` is given).

    Example:
        >>> sorted(ember.randperm(4).tolist())
        [0, 1, 2, 3]
    """
    n = _int(n, "n", "randperm")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    npd = _out_dtype(dtype, out, _dtype.int64)
    if npd.kind in "bc":
        raise _not_impl("randperm", npd)
    if npd.kind in "fV":
        d = _DIGITS[npd.name]
        if n > (1 << d) + 1:
            limit = "2049" if npd == _F16 else f"2^{d}+1"
            raise RuntimeError(
                f"n cannot be greater than {limit} for {_SCALAR_NAME[npd.name]} type."
            )
    elif n > 0 and n - 1 > int(_cpu.iinfo(npd).max):
        raise RuntimeError(
            f"value cannot be converted to type {_CPP_SHORT[npd.name]} without overflow"
        )
    return _creation(
        (n,),
        npd,
        device,
        requires_grad,
        lambda rng, s, d: rng.permutation(n).astype(d),
        out,
        generator,
    )
