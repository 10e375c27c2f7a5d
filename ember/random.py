"""Random number generation: ``Generator``, seeding, and the random creation and fill ops.

Every draw comes from a ``Generator``, which wraps the backend's bit generator (NumPy's PCG64 on
the CPU). The distributions, dtypes, shapes, argument checks and seeding semantics are
PyTorch's: ``manual_seed(s)`` followed by the same calls gives the same numbers, each
``Generator`` has its own independent stream, and ``get_state``/``set_state`` round-trip
exactly. The numbers themselves are not PyTorch's (PyTorch uses a Mersenne Twister and its own
transformations): code that needs bit-identical random streams across the two libraries must
copy the tensors over.

As in PyTorch, the default generator (``ember.default_generator``) is seeded from the operating
system at import (``initial_seed()`` differs per process until ``manual_seed`` is called), and a
new ``Generator()`` starts from the fixed seed 67280421310721.

Random ops have no gradient: outputs of ``normal(mean_tensor, ...)``, ``bernoulli(p)``,
``poisson(rates)`` and of the in-place fills (``x.uniform_()``...) on tensors that take part in
autograd get a node whose backward is zero, as in PyTorch.

Example:
    >>> ember.manual_seed(0)
    <ember.Generator object at ...>
    >>> a = ember.rand(3); ember.manual_seed(0); bool((ember.rand(3) == a).all())
    True
"""

from __future__ import annotations

import contextlib
import math
import os
import warnings

from ember import _dtype, backend
from ember._device import as_device
from ember.autograd.function import Function
from ember.ops.creation import _finish, _np_dtype, _shape, _xp, zeros_like
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor

_cpu = backend.cpu
_F16, _F32, _F64 = (_cpu.dtype(n) for n in ("float16", "float32", "float64"))
_I64 = _cpu.dtype("int64")
_U64 = 1 << 64
_DEFAULT_SEED = 67280421310721  # PyTorch's seed of a new Generator()

# PyTorch's names of dtypes in its error messages: ScalarType names and C++ type names.
_SCALAR_NAME = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                "int32": "Int", "int64": "Long", "float16": "Half", "float32": "Float",
                "float64": "Double"}
_CPP_NAME = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
             "int16": "short int", "int32": "int", "int64": "long int", "float16": "c10::Half",
             "float32": "float", "float64": "double"}
_CPP_SHORT = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
              "int64": "int64_t"}


# ---- Generator ---------------------------------------------------------------------------------
class Generator:
    """A source of random numbers with its own state (``torch.Generator``).

    Pass it as ``generator=`` to any random function to draw from it instead of the default
    generator. A new Generator starts from PyTorch's fixed seed 67280421310721.

    Example:
        >>> g = ember.Generator().manual_seed(42)
        >>> a = ember.rand(2, generator=g)
        >>> bool((ember.rand(2, generator=ember.Generator().manual_seed(42)) == a).all())
        True
    """

    def __init__(self, device="cpu"):
        d = as_device(device if device is not None else "cpu")
        if d.type == "meta":
            raise RuntimeError("META device type not an accelerator.")
        if d.type != "cpu":
            backend.for_device(d.type)  # raises a clear error for devices ember lacks
        self.device = d
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed) -> Generator:
        """Reset the state from ``seed`` (an int in [-2**63, 2**64); negatives wrap mod 2**64)
        and return ``self``."""
        if isinstance(seed, bool) or not isinstance(seed, (int, backend.generic)) or (
                isinstance(seed, backend.generic) and seed.dtype.kind not in "iu"):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(1 << 63) <= seed < _U64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % _U64
        self._rng = _cpu.random.Generator(_cpu.random.PCG64(self._seed))
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy and return the seed used."""
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with."""
        return self._seed

    def get_state(self) -> Tensor:
        """The full state as a uint8 tensor (seed, PCG64 state and increment, buffered bits)."""
        st = self._rng.bit_generator.state
        raw = (self._seed.to_bytes(8, "little")
               + st["state"]["state"].to_bytes(16, "little")
               + st["state"]["inc"].to_bytes(16, "little")
               + int(st["has_uint32"]).to_bytes(8, "little")
               + int(st["uinteger"]).to_bytes(8, "little"))
        return _finish(_cpu.frombuffer(raw, dtype=_cpu.uint8).copy(), False)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state returned by ``get_state``; returns ``self``."""
        if not isinstance(new_state, Tensor):
            raise TypeError(
                f"expected an ember.uint8 tensor, but got {type(new_state).__name__}")
        if new_state.dtype is not _dtype.uint8:
            raise TypeError(
                f"RNG state must be an ember.uint8 tensor (a ByteTensor), got {new_state.dtype}")
        if new_state.is_meta:
            raise RuntimeError("RNG state must hold data: got a meta tensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a PCG64 generator state of size {_STATE_SIZE} but found the input RNG "
                f"state size to be {new_state.numel()}"
            )
        raw = bytes(new_state.detach().numpy().reshape(-1))
        self._seed = int.from_bytes(raw[0:8], "little")
        rng = _cpu.random.Generator(_cpu.random.PCG64())
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[8:24], "little"),
                      "inc": int.from_bytes(raw[24:40], "little")},
            "has_uint32": int.from_bytes(raw[40:48], "little"),
            "uinteger": int.from_bytes(raw[48:56], "little"),
        }
        self._rng = rng
        return self

    def __repr__(self) -> str:
        return f"<ember.Generator object at {hex(id(self))}>"


_STATE_SIZE = 56

default_generator = Generator()
default_generator.seed()  # NOTE: matches torch: the default CPU generator is seeded from the OS


def manual_seed(seed) -> Generator:
    """Seed the default generator and return it.

    Example:
        >>> g = ember.manual_seed(0); g.initial_seed()
        0
    """
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator from the operating system and return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state as a uint8 tensor (see ``set_rng_state``)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller="fork_rng",
             _devices_kw="devices", device_type="cuda"):
    """Restore the default generator's state on exit (``torch.random.fork_rng``)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


# ---- helpers -----------------------------------------------------------------------------------
def _gen(generator) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be an ember.Generator, got {type(generator).__name__}")
    return generator


def _g(x) -> str:
    """A number as C++ streams print it (PyTorch's messages): ``-1``, ``0.5``, ``nan``."""
    return f"{float(x):g}"


def _not_impl(kernel: str, npd):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_SCALAR_NAME[npd.name]}\'')


def _check_float(npd, kernel: str) -> None:
    if npd.kind != "f":
        raise _not_impl(kernel, npd)


def _check_grad(npd, requires_grad: bool) -> None:
    if requires_grad and npd.kind != "f":
        raise RuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients "
            f"(got {_dtype.from_np(npd)})"
        )


def _size_arg(size, kwargs, fn: str) -> tuple:
    if "size" in kwargs:
        if size:
            raise TypeError(f"{fn}() got multiple values for argument 'size'")
        size = (kwargs.pop("size"),)
    if kwargs:
        raise TypeError(f"{fn}() got unexpected keyword arguments {sorted(kwargs)}")
    return _shape(size)


def _num(x, name: str, fn: str) -> float:
    if isinstance(x, Tensor):
        x = x.item()
    if isinstance(x, (bool, complex)) or not isinstance(x, (int, float, backend.generic)):
        raise TypeError(f"{fn}(): argument '{name}' must be a number, not {type(x).__name__}")
    return float(x)


def _int(x, name: str, fn: str) -> int:
    if isinstance(x, bool) or isinstance(x, float):
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(x).__name__}")
    try:
        return x.__index__()
    except (AttributeError, TypeError):
        raise TypeError(
            f"{fn}(): argument '{name}' must be int, not {type(x).__name__}") from None


# ---- samplers on raw arrays (all draws go through these) ---------------------------------------
def _uniform01(rng, shape, npd):
    """Uniform [0, 1) in the accumulate type of ``npd`` (float32 for float16)."""
    if npd == _F64:
        return rng.random(shape)
    if npd == _F16:
        # NOTE: matches torch: half draws 11 random mantissa bits, k / 2**11, never rounding up
        # to 1 (a float32 draw cast to half would).
        return rng.integers(0, 2048, size=shape, dtype=_cpu.int16).astype(_F32) * _F32.type(2**-11)
    return rng.random(shape, dtype=_F32)


def _std_normal(rng, shape, npd):
    return rng.standard_normal(shape, dtype=_F64 if npd == _F64 else _F32)


def _acc(npd):
    return _F64 if npd == _F64 else _F32


def _empty(xp, shape, npd):
    return xp.empty(shape, dtype=npd)


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


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, **kwargs) -> Tensor:
    """Uniform samples from [0, 1), default dtype unless ``dtype`` is given (floating only).

    Example:
        >>> ember.rand(2, 3).shape
        ember.Size([2, 3])
    """
    shape = _size_arg(size, kwargs, "rand")
    npd = _out_dtype(dtype, out)
    _check_float(npd, "check_uniform_bounds")
    return _creation(shape, npd, device, requires_grad, _uniform01, out, generator)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, **kwargs) -> Tensor:
    """Samples from the standard normal distribution N(0, 1) (floating dtypes only).

    Example:
        >>> ember.randn(4, dtype=ember.float64).dtype
        ember.float64
    """
    shape = _size_arg(size, kwargs, "randn")
    npd = _out_dtype(dtype, out)
    _check_float(npd, "normal_kernel_cpu")
    return _creation(shape, npd, device, requires_grad, _std_normal, out, generator)


def rand_like(input: Tensor, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None) -> Tensor:
    """``rand`` with the shape (and by default dtype and device) of ``input``."""
    npd = input._data.dtype if dtype is None else _np_dtype(dtype)
    _check_float(npd, "check_uniform_bounds")
    return _creation(tuple(input._data.shape), npd, device if device is not None else
                     input.device, requires_grad, _uniform01, generator=generator)


def randn_like(input: Tensor, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None) -> Tensor:
    """``randn`` with the shape (and by default dtype and device) of ``input``."""
    npd = input._data.dtype if dtype is None else _np_dtype(dtype)
    _check_float(npd, "normal_kernel_cpu")
    return _creation(tuple(input._data.shape), npd, device if device is not None else
                     input.device, requires_grad, _std_normal, generator=generator)


def _int_range(npd, lo: int, hi: int | None):
    """PyTorch's checks and bounds of ``random_(lo, hi)`` in dtype ``npd``: the inclusive range
    [from, to_inc] of the values drawn (``hi=None``: up to the dtype's limit)."""
    if hi is not None:
        if lo >= hi:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}")
        if npd.kind == "f":
            lo, hi = _update_from(lo, npd), _update_to(hi, npd)
            if lo >= hi:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                    f"dtype, but got from={lo} >= to={hi}")
        to_inc = hi - 1
    else:
        if npd.kind == "f":
            to_inc = min(1 << _DIGITS[npd.name], (1 << 63) - 1)
            lo = _update_from(lo, npd)
            if lo >= to_inc:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                    f"casted to dtype, but got from={lo} > to_inc={to_inc}")
        else:
            to_inc = 1 if npd.kind == "b" else int(_cpu.iinfo(npd).max)
    name = _CPP_NAME[npd.name]
    if npd.kind == "f":
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
    if npd.kind == "f":
        d = _DIGITS[npd.name]
        for v, what in ((lo, "from"), (to_inc, "to - 1")):
            if not -(1 << d) <= v <= (1 << d):
                warnings.warn(
                    f"{what} is out of bounds [-(2^{d}), 2^{d}]. Due to precision limitations "
                    f"{name} can support discrete uniform distribution only within this range. "
                    "This warning will become an error in version 1.7 release, please fix the "
                    "code in advance", UserWarning, stacklevel=4)
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


def randint(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False, low=None, high=None) -> Tensor:
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
            f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    shape = _shape((size,))
    lo = 0 if low is None else _int(low, "low", "randint")
    hi = _int(high, "high", "randint")
    npd = _out_dtype(dtype, out, _dtype.int64)
    lo, to_inc = _int_range(npd, lo, hi)
    return _creation(shape, npd, device, requires_grad,
                     lambda rng, s, d: _draw_ints(rng, s, d, lo, to_inc), out, generator)


def randint_like(input: Tensor, *args, low=None, high=None, generator=None, dtype=None,
                 layout=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
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
        raise TypeError(f"randint_like() takes at most 3 positional arguments ({len(args) + 1} "
                        "given)")
    if high is None:
        raise TypeError("randint_like() missing required argument 'high'")
    lo = 0 if low is None else _int(low, "low", "randint_like")
    hi = _int(high, "high", "randint_like")
    npd = input._data.dtype if dtype is None else _np_dtype(dtype)
    lo, to_inc = _int_range(npd, lo, hi)
    return _creation(tuple(input._data.shape), npd,
                     device if device is not None else input.device, requires_grad,
                     lambda rng, s, d: _draw_ints(rng, s, d, lo, to_inc), generator=generator)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` is given).

    Example:
        >>> sorted(ember.randperm(4).tolist())
        [0, 1, 2, 3]
    """
    n = _int(n, "n", "randperm")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    npd = _out_dtype(dtype, out, _dtype.int64)
    if npd.kind == "b":
        raise _not_impl("randperm", npd)
    if npd.kind == "f":
        d = _DIGITS[npd.name]
        if n > (1 << d) + 1:
            limit = "2049" if npd == _F16 else f"2^{d}+1"
            raise RuntimeError(
                f"n cannot be greater than {limit} for {_SCALAR_NAME[npd.name]} type.")
    elif n > 0 and n - 1 > int(_cpu.iinfo(npd).max):
        raise RuntimeError(
            f"value cannot be converted to type {_CPP_SHORT[npd.name]} without overflow")
    return _creation((n,), npd, device, requires_grad,
                     lambda rng, s, d: rng.permutation(n).astype(d), out, generator)


# ---- ops with tensor inputs: zero-gradient nodes, as in PyTorch --------------------------------
class _Sample(Function):
    """Forward ``draw(*arrays)``; backward zero for every tensor input (a random sample does not
    depend differentiably on its parameters in PyTorch's convention)."""

    _array_forward = True

    @staticmethod
    def forward(ctx, *args):
        *arrays, draw = args
        return draw(*arrays)

    @staticmethod
    def backward(ctx, g):
        return (*(zeros_like(g) if need else None for need in ctx.needs_input_grad[:-1]), None)


def _sample_fn(node_name: str):
    return type(node_name.replace("Backward", ""), (_Sample,), {"_node_name": node_name})


_NormalTF = _sample_fn("NormalBackward1")  # normal(Tensor mean, float std)
_NormalFT = _sample_fn("NormalBackward2")  # normal(float mean, Tensor std)
_NormalTT = _sample_fn("NormalBackward3")  # normal(Tensor mean, Tensor std)
_Bernoulli = _sample_fn("BernoulliBackward0")
_Poisson = _sample_fn("PoissonBackward0")


def _is_meta(a) -> bool:
    return backend.namespace(a).device_type == "meta"


def _broadcast_shape(a, b) -> tuple:
    sa, sb = tuple(a), tuple(b)
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    out = []
    for i, (x, y) in enumerate(zip(sa, sb, strict=True)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False) -> Tensor:
    """Samples from N(mean, std**2): ``mean``/``std`` tensors (broadcast together) or numbers
    with an explicit ``size``.

    Example:
        >>> ember.normal(ember.zeros(3), 1.0).shape
        ember.Size([3])
        >>> ember.normal(2.0, 0.5, (2, 2)).shape
        ember.Size([2, 2])
    """
    gen = _gen(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError(
                "normal() with a number mean and a number std needs a size: "
                "normal(mean, std, size)")
        m, s = _num(mean, "mean", "normal"), _num(std, "std", "normal")
        if not s >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(s)}")
        shape = _shape((size,))
        npd = _out_dtype(dtype, out)
        _check_float(npd, "normal_kernel_cpu")
        return _creation(shape, npd, device, requires_grad,
                         lambda rng, sh, d: _std_normal(rng, sh, d) * _acc(d).type(s)
                         + _acc(d).type(m), out, gen)
    if size is not None:
        raise TypeError("normal() with a tensor mean or std takes no size argument")
    if mt and not st:
        s = _num(std, "std", "normal")
        if not s >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(s)}")
        npd = mean._data.dtype
        _check_float(npd, "normal_kernel_cpu")

        def draw(m):
            if _is_meta(m):
                return _empty(backend.namespace(m), m.shape, npd)
            z = _std_normal(gen._rng, m.shape, npd) * _acc(npd).type(s) + m
            return z.astype(npd, copy=False)

        return _out(_NormalTF.apply(mean, draw), out)
    if st and not mt:
        m = _num(mean, "mean", "normal")
        npd = std._data.dtype
        _check_float(npd, "normal_kernel_cpu")
        _check_std(std)

        def draw(s):
            if _is_meta(s):
                return _empty(backend.namespace(s), s.shape, npd)
            z = _std_normal(gen._rng, s.shape, npd) * s + _acc(npd).type(m)
            return z.astype(npd, copy=False)

        return _out(_NormalFT.apply(std, draw), out)
    npd = mean._data.dtype
    _check_float(npd, "normal_kernel_cpu")
    shape = _broadcast_shape(mean.shape, std.shape)
    _check_std(std)

    def draw(m, s):
        xp = backend.namespace(m)
        if xp.device_type == "meta" or _is_meta(s):
            return _empty(xp, shape, npd)
        z = _std_normal(gen._rng, shape, npd) * s.astype(npd, copy=False) + m
        return z.astype(npd, copy=False)

    return _out(_NormalTT.apply(mean, std, draw), out)


def _check_std(std: Tensor) -> None:
    if not std.is_meta and std.numel() and not bool((std._data >= 0).all()):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _check_p(p: Tensor) -> None:
    if p.is_meta or not p.numel():
        return
    d = p._data
    if not bool(((d >= 0) & (d <= 1)).all()):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false. (bernoulli: every "
            f"probability must be in [0, 1]; got a {p.dtype} tensor of shape {tuple(p.shape)} "
            "with values outside)")


def _check_p_float(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 samples: ``bernoulli(probs)`` draws each element with probability ``probs[i]``;
    ``bernoulli(x, p)`` fills the shape and dtype of ``x`` with probability ``p``.

    Example:
        >>> ember.bernoulli(ember.tensor([0.0, 1.0]))
        tensor([0., 1.])
    """
    gen = _gen(generator)
    if p is not None:
        # NOTE: differs from torch, whose result here requires grad with a node that raises in
        # backward: ember returns a plain tensor.
        p = _num(p, "p", "bernoulli")
        _check_p_float(p)
        npd = input._data.dtype
        return _out(_creation(tuple(input._data.shape), npd, input.device, False,
                              lambda rng, s, d: rng.random(s) < p, generator=gen), out)
    npd = input._data.dtype
    _check_float(npd, "bernoulli_tensor_cpu_p_")
    _check_p(input)

    def draw(pr):
        if _is_meta(pr):
            return _empty(backend.namespace(pr), pr.shape, npd)
        return (gen._rng.random(pr.shape) < pr).astype(npd)

    return _out(_Bernoulli.apply(input, draw), out)


def poisson(input: Tensor, generator=None) -> Tensor:
    """Samples from Poisson(rate) for each element of ``input`` (rates >= 0), same dtype.

    Example:
        >>> ember.poisson(ember.zeros(2))
        tensor([0., 0.])
    """
    gen = _gen(generator)
    npd = input._data.dtype
    _check_float(npd, "poisson_cpu")
    if not input.is_meta and input.numel() and not bool((input._data >= 0).all()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")

    def draw(lam):
        if _is_meta(lam):
            return _empty(backend.namespace(lam), lam.shape, npd)
        try:
            return gen._rng.poisson(lam.astype(_F64)).astype(npd)
        except ValueError as e:  # NumPy's limit on the rate (about 1e19) or an infinite rate
            raise RuntimeError(f"poisson: invalid rate ({e})") from None

    return _Poisson.apply(input, draw)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None,
                out=None) -> Tensor:
    """Indices sampled from the categorical distribution of each row of ``input`` (weights,
    not necessarily normalized); 1-D or 2-D input, int64 output of shape ``(..., num_samples)``.

    Without replacement each index appears at most once per row.

    Example:
        >>> ember.multinomial(ember.tensor([0.0, 1.0, 0.0]), 2, replacement=True)
        tensor([1, 1])
    """
    gen = _gen(generator)
    d = input._data
    if d.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim (multinomial got shape {tuple(d.shape)})")
    if d.dtype.kind != "f":
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{_SCALAR_NAME[d.dtype.name]}")
    n = _int(num_samples, "num_samples", "multinomial")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    k = d.shape[-1]
    if not replacement and n > k:
        raise RuntimeError(
            f"cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"(n_sample={n}, prob_dist.size(-1)={k})")
    xp = backend.namespace(d)
    out_shape = (*d.shape[:-1], n)
    if xp.device_type == "meta":
        return _out(_finish(_empty(xp, out_shape, _I64), False), out)
    rows = math.prod(d.shape[:-1])
    p = xp.to_numpy(d).reshape(rows, k).astype(_F64)
    if rows:
        if not bool((_cpu.isfinite(p) & (p >= 0)).all()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if not bool((p.sum(axis=1) > 0).all()):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = gen._rng
    if rows == 0:
        idx = _cpu.empty((0, n), dtype=_I64)
    elif replacement:
        idx = _sample_with_replacement(rng, p, n)
    else:
        # NOTE: matches torch's CPU algorithm (exponential race / Gumbel top-k): the n largest
        # p / q with q ~ Exp(1) are a draw without replacement.
        q = rng.standard_exponential(p.shape)
        q[q == 0] = _cpu.finfo(_F64).tiny
        keys = p / q
        idx = _cpu.argsort(-keys, axis=1, kind="stable")[:, :n].astype(_I64)
    return _out(_finish(xp.asarray(idx.reshape(out_shape)), False), out)


def _sample_with_replacement(rng, p, n):
    """Inverse-CDF sampling of every row at once: rows are laid end to end on [0, rows)."""
    rows, k = p.shape
    cdf = _cpu.cumsum(p / p.max(axis=1, keepdims=True), axis=1)  # scaled: no overflow to inf
    cdf /= cdf[:, -1:]
    offsets = _cpu.arange(rows, dtype=_F64)[:, None]
    u = rng.random((rows, n)) + offsets
    idx = _cpu.searchsorted((cdf + offsets).reshape(-1), u.reshape(-1), side="right")
    idx = idx.reshape(rows, n) - _cpu.arange(rows)[:, None] * k
    # u + offset can round up to the next row's start; no draw can land past the row's last
    # nonzero category, so clamp there (zero-probability categories are never chosen).
    last = k - 1 - _cpu.argmax(p[:, ::-1] > 0, axis=1)
    return _cpu.clip(idx, 0, last[:, None]).astype(_I64)


# ---- in-place fills ----------------------------------------------------------------------------
# Each fill is an out-of-place sampler (a zero-gradient Function named as PyTorch's node) turned
# into a method by ``inplace``: it writes into the tensor's memory, bumps the version counter, and
# raises on leaves that require grad outside no_grad, like every in-place op.
_UniformF = _sample_fn("UniformBackward0")
_NormalF = _sample_fn("NormalBackward0")
_BernoulliTF = _sample_fn("BernoulliBackward1")  # bernoulli_(Tensor p)
_BernoulliFF = _sample_fn("BernoulliBackward2")  # bernoulli_(float p)
_RandomFT = _sample_fn("RandomBackward0")  # random_(from, to)
_RandomT = _sample_fn("RandomBackward1")  # random_(to)
_Random = _sample_fn("RandomBackward2")  # random_()
_ExponentialF = _sample_fn("ExponentialBackward0")
_GeometricF = _sample_fn("GeometricBackward0")
_LogNormalF = _sample_fn("LogNormalBackward0")
_CauchyF = _sample_fn("CauchyBackward0")


def _fill(cls, self: Tensor, generator, sample, *extra):
    """Apply ``cls`` to ``self`` (and tensor ``extra``): ``sample(rng, shape, npd, *extra)``."""
    gen = _gen(generator)
    npd = self._data.dtype

    def draw(x, *ex):
        xp = backend.namespace(x)
        if xp.device_type == "meta":
            return _empty(xp, x.shape, npd)
        return xp.asarray(sample(gen._rng, x.shape, npd, *ex)).astype(npd, copy=False)

    return cls.apply(self, *extra, draw)


def _from_to(args, kwargs, names, defaults, fn):
    """Parse PyTorch's ``(from, to)``-style arguments (``from`` is a Python keyword)."""
    vals = list(args) + [None] * (len(names) - len(args))
    if len(args) > len(names):
        raise TypeError(f"{fn}() takes at most {len(names)} arguments ({len(args)} given)")
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{k}'")
        i = names.index(k)
        if i < len(args):
            raise TypeError(f"{fn}() got multiple values for argument '{k}'")
        vals[i] = v
    return [d if v is None and d is not None else v for v, d in zip(vals, defaults, strict=True)]


def _uniform_fill(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    a, b = _from_to(args, kwargs, ("from", "to"), (0.0, 1.0), "uniform_")
    a, b = _num(a, "from", "uniform_"), _num(b, "to", "uniform_")
    npd = self._data.dtype
    _check_float(npd, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_g(a)} > to={_g(b)}")
    fi = _cpu.finfo(npd)
    if b - a > float(fi.max):
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{_CPP_NAME[npd.name]}>::max(), "
            f"but found to={_g(b)} and from={_g(a)} which result in to-from to exceed the limit")

    def sample(rng, shape, d):
        acc = _acc(d)
        return _uniform01(rng, shape, d) * acc.type(b - a) + acc.type(a)

    return _fill(_UniformF, self, generator, sample)


def _normal_fill(self: Tensor, mean=0.0, std=1.0, *, generator=None) -> Tensor:
    m, s = _num(mean, "mean", "normal_"), _num(std, "std", "normal_")
    if not s >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(s)}")
    _check_float(self._data.dtype, "normal_kernel_cpu")

    def sample(rng, shape, d):
        acc = _acc(d)
        return _std_normal(rng, shape, d) * acc.type(s) + acc.type(m)

    return _fill(_NormalF, self, generator, sample)


def _bernoulli_fill(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    if isinstance(p, Tensor):
        if p._data.dtype.kind != "f":
            raise _not_impl("bernoulli_tensor_cpu_p_", p._data.dtype)
        _broadcast_to(p.shape, self.shape)
        _check_p(p)

        def sample(rng, shape, d, pr):
            return rng.random(shape) < pr

        return _fill(_BernoulliTF, self, generator, sample, p)
    p = _num(p, "p", "bernoulli_")
    _check_p_float(p)
    return _fill(_BernoulliFF, self, generator, lambda rng, shape, d: rng.random(shape) < p)


def _broadcast_to(src, dst) -> None:
    src, dst = tuple(src), tuple(dst)
    ok = len(src) <= len(dst) and all(
        s == 1 or s == t for s, t in zip(src[::-1], dst[::-1], strict=False))
    if not ok:
        raise RuntimeError(
            f"The expanded size of the tensor ({dst[-1] if dst else 1}) must match the existing "
            f"size ({src[-1] if src else 1}) at non-singleton dimension 0.  Target sizes: "
            f"{list(dst)}.  Tensor sizes: {list(src)}")


def _random_fill(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    lo, hi = _from_to(args, kwargs, ("from", "to"), (None, None), "random_")
    npd = self._data.dtype
    if lo is not None and hi is None and "to" not in kwargs and len(args) == 1:
        lo, hi = 0, lo  # random_(to)
        cls = _RandomT
    elif lo is None and hi is not None:
        cls = _RandomT
    elif lo is None and hi is None:
        cls = _Random
    else:
        cls = _RandomFT
    if cls is _Random:
        if npd.kind == "f":
            to_inc = 1 << _DIGITS[npd.name]
        elif npd.kind == "b":
            to_inc = 1
        else:
            to_inc = int(_cpu.iinfo(npd).max)
        lo = 0
    else:
        lo = 0 if lo is None else _int(lo, "from", "random_")
        hi = None if hi is None else _int(hi, "to", "random_")
        lo, to_inc = _int_range(npd, lo, hi)
    return _fill(cls, self, generator, lambda rng, s, d: _draw_ints(rng, s, d, lo, to_inc))


def _exponential_fill(self: Tensor, lambd=1.0, *, generator=None) -> Tensor:
    lam = _num(lambd, "lambd", "exponential_")
    if not lam > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lam)}")
    npd = self._data.dtype
    if npd.kind != "f":
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {_SCALAR_NAME[npd.name]}")

    def sample(rng, shape, d):
        acc = _acc(d)
        return rng.standard_exponential(shape, dtype=acc) * acc.type(1.0 / lam)

    return _fill(_ExponentialF, self, generator, sample)


def _geometric_fill(self: Tensor, p, *, generator=None) -> Tensor:
    p = _num(p, "p", "geometric_")
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    npd = self._data.dtype
    if npd.kind == "b":
        raise _not_impl("geometric_cpu", npd)
    return _fill(_GeometricF, self, generator, lambda rng, shape, d: rng.geometric(p, shape))


def _log_normal_fill(self: Tensor, mean=1.0, std=2.0, *, generator=None) -> Tensor:
    m, s = _num(mean, "mean", "log_normal_"), _num(std, "std", "log_normal_")
    if not s > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(s)}")
    _check_float(self._data.dtype, "log_normal_cpu")
    return _fill(_LogNormalF, self, generator,
                 lambda rng, shape, d: _cpu.exp(rng.standard_normal(shape) * s + m))


def _cauchy_fill(self: Tensor, median=0.0, sigma=1.0, *, generator=None) -> Tensor:
    m, s = _num(median, "median", "cauchy_"), _num(sigma, "sigma", "cauchy_")
    if not s > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(s)}")
    npd = self._data.dtype
    if npd.kind != "f":
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {_CPP_NAME[npd.name]}")
    return _fill(_CauchyF, self, generator,
                 lambda rng, shape, d: rng.standard_cauchy(shape) * s + m)


def _method(fn, name: str, doc: str):
    m = inplace(fn)
    m.__name__ = name
    m.__qualname__ = f"Tensor.{name}"
    m.__doc__ = doc
    return m


Tensor.uniform_ = _method(_uniform_fill, "uniform_", """uniform_(from=0, to=1, *, generator=None)

Fill with samples uniform in [from, to) (floating dtypes).

Example:
    >>> ember.empty(3).uniform_(-1, 1).shape
    ember.Size([3])
""")
Tensor.normal_ = _method(_normal_fill, "normal_", """normal_(mean=0, std=1, *, generator=None)

Fill with samples from N(mean, std**2) (floating dtypes).""")
Tensor.bernoulli_ = _method(_bernoulli_fill, "bernoulli_", """bernoulli_(p=0.5, *, generator=None)

Fill with 1 with probability ``p`` (a number, or a tensor broadcast to this shape), else 0.""")
Tensor.random_ = _method(_random_fill, "random_", """random_(from=0, to=None, *, generator=None)

Fill with integers uniform in [from, to). ``random_(to)`` draws from [0, to); ``random_()`` from
[0, 2**mantissa_digits] for floating dtypes and [0, max] for integer dtypes; with ``to=None``
the upper bound is the dtype's limit.

Example:
    >>> ember.zeros(3, dtype=ember.int64).random_(0, 1)
    tensor([0, 0, 0])
""")
Tensor.exponential_ = _method(_exponential_fill, "exponential_",
                              """exponential_(lambd=1, *, generator=None)

Fill with samples from the exponential distribution of rate ``lambd`` (floating dtypes).""")
Tensor.geometric_ = _method(_geometric_fill, "geometric_", """geometric_(p, *, generator=None)

Fill with samples from the geometric distribution on {1, 2, ...} with success probability ``p``.""")
Tensor.log_normal_ = _method(_log_normal_fill, "log_normal_",
                             """log_normal_(mean=1, std=2, *, generator=None)

Fill with ``exp(N(mean, std**2))`` samples (floating dtypes).""")
Tensor.cauchy_ = _method(_cauchy_fill, "cauchy_", """cauchy_(median=0, sigma=1, *, generator=None)

Fill with samples from the Cauchy distribution (floating dtypes).""")
Tensor.bernoulli = bernoulli
Tensor.multinomial = multinomial

__all__ = [
    "Generator",
    "default_generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "rand",
    "randn",
    "randint",
    "randint_like",
    "randperm",
    "normal",
    "bernoulli",
    "multinomial",
    "poisson",
    "rand_like",
    "randn_like",
]
