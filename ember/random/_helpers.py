"""Shared helpers of the random ops: PyTorch's dtype names for error messages, the generator
argument, argument checks, and the samplers on raw arrays that every draw goes through."""

from __future__ import annotations

from ember import _dtype, backend
from ember.ops.creation import _shape
from ember.random.generator import Generator, default_generator
from ember.tensor import Tensor

_cpu = backend.cpu
_F16, _F32, _F64 = (_cpu.dtype(n) for n in ("float16", "float32", "float64"))
_I64 = _cpu.dtype("int64")

# PyTorch's names of dtypes in its error messages: ScalarType names and C++ type names.
_SCALAR_NAME = _dtype.SCALAR_NAMES
_CPP_NAME = {
    "bool": "bool",
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
}
_CPP_SHORT = {
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int32_t",
    "int64": "int64_t",
}


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
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_SCALAR_NAME[npd.name]}'")


def _check_float(npd, kernel: str, complex_ok: bool = False) -> None:
    if npd.kind not in "fV" and not (complex_ok and npd.kind == "c"):
        raise _not_impl(kernel, npd)


def _check_grad(npd, requires_grad: bool) -> None:
    if requires_grad and npd.kind not in "fcV":
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
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(x).__name__}") from None


# ---- samplers on raw arrays (all draws go through these) ---------------------------------------
def _complex_draw(draw, rng, shape, npd):
    """A complex sample: ``draw`` for the real and the imaginary part of each element (in
    the real dtype of ``npd``), interleaved as torch's complex kernels draw them."""
    parts = draw(rng, tuple(shape) + (2,), _cpu.dtype(npd.char.lower()))  # F -> f, D -> d
    return parts.view(npd).reshape(shape)


def _uniform01(rng, shape, npd):
    """Uniform [0, 1) in the accumulate type of ``npd`` (float32 for float16); complex: each
    part uniform."""
    if npd.kind == "c":
        return _complex_draw(_uniform01, rng, shape, npd)
    if npd == _F64:
        return rng.random(shape)
    if npd == _F16:
        # NOTE: matches torch: half draws 11 random mantissa bits, k / 2**11, never rounding up
        # to 1 (a float32 draw cast to half would).
        return rng.integers(0, 2048, size=shape, dtype=_cpu.int16).astype(_F32) * _F32.type(2**-11)
    return rng.random(shape, dtype=_F32)


def _std_normal(rng, shape, npd):
    """Standard normal; complex: ``E|z|^2 = 1``, each part of variance 1/2 (as torch)."""
    if npd.kind == "c":
        z = _complex_draw(_std_normal, rng, shape, npd)
        z *= 0.5**0.5
        return z
    return rng.standard_normal(shape, dtype=_F64 if npd == _F64 else _F32)


def _acc(npd):
    return _F64 if npd == _F64 else _F32


def _empty(xp, shape, npd):
    return xp.empty(shape, dtype=npd)
