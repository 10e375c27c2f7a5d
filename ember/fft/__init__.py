"""``torch.fft``: discrete Fourier transforms with autograd.

Each transform checks and canonicalizes its arguments as torch does, then composes the three
primitives of ``ember/ops/spectral.py`` (complex-to-complex, real-to-complex, complex-to-real)
with ``conj`` and zero-padding, the way torch composes ``_fft_c2c``/``_fft_r2c``/``_fft_c2r``,
so values, output dtypes and gradients are torch's. The kernels are SciPy's pocketfft
(``ember/backend/_fft.py``).
"""

from __future__ import annotations

from ember import _autocast as _ac
from ember import _dtype
from ember.ops.complex import conj
from ember.ops.creation import _finish, _np_dtype, _xp
from ember.ops.pointwise import _out
from ember.ops.rearrange import roll
from ember.ops.spectral import FftC2C, FftC2R, FftR2C, resize
from ember.tensor import Tensor

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]


# ---- argument checks ---------------------------------------------------------------------------
def _scale(norm, forward: bool, fname: str) -> int:
    """torch's ``norm_from_string``: the scaling mode (0 none, 1 sqrt(n), 2 n) of a direction."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    if not isinstance(norm, str):
        raise TypeError(f"fft_{fname}(): argument 'norm' must be str, not {type(norm).__name__}")
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _tensor(x, fname: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"fft_{fname}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    return x


def _int(v, fname: str, arg: str):
    if v is None or isinstance(v, int) and not isinstance(v, bool):
        return v
    try:
        return v.__index__()
    except AttributeError:
        raise TypeError(
            f"fft_{fname}(): argument '{arg}' must be int, not {type(v).__name__}"
        ) from None


def _ints(v, fname: str, arg: str):
    """An int or a sequence of ints as a tuple (None stays None), as torch's IntArrayRef."""
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    try:
        return tuple(i.__index__() for i in v)
    except (AttributeError, TypeError):
        raise TypeError(
            f"fft_{fname}(): argument '{arg}' must be tuple of ints, not {type(v).__name__}"
        ) from None


def _wrap(d: int, ndim: int) -> int:
    # NOTE: matches torch: FFT dims do not wrap scalars (a 0-d tensor has no dim -1)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
            f"but got {d})"
        )
    return d + ndim if d < 0 else d


def _points(n: int) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _promote(x: Tensor, require_complex: bool = False) -> Tensor:
    """torch's ``promote_tensor_fft``: integers become the default float dtype; complex output
    transforms of real input (c2r) take it as complex; half precision is refused on CPU."""
    d = x._data.dtype
    kind = d.kind
    if (kind == "f" and d.itemsize >= 4) or kind == "c":  # float32/64, complex64/128
        pass
    elif kind in "biu":
        x = x.to(_dtype.get_default_dtype())
    else:  # float16, bfloat16 (kind "V" in ml_dtypes), float8
        raise RuntimeError(f"Unsupported dtype {_dtype.SCALAR_NAMES[_dtype.from_np(d).name]}")
    if require_complex and x._data.dtype.kind != "c":
        x = x.to(_dtype.from_np(x._data.dtype).to_complex())
    return x


def _real_only(x: Tensor, fname: str) -> None:
    if x._data.dtype.kind == "c":
        name = _dtype.SCALAR_NAMES[_dtype.from_np(x._data.dtype).name]
        raise RuntimeError(f"{fname} expects a real input tensor, but got {name}")


def _canon(x: Tensor, s, dim, fname: str):
    """torch's ``canonicalize_fft_shape_and_dim_args``: the transformed dims and their signal
    sizes (``s`` alone names the last ``len(s)`` dims; -1 keeps a dim's size)."""
    s = _ints(s, fname, "s")
    dim = _ints(dim, fname, "dim")
    ndim = x.ndim
    if dim is not None:
        dim = tuple(_wrap(d, ndim) for d in dim)
        if len(set(dim)) != len(dim):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        if dim is None:
            dim = tuple(range(ndim - len(s), ndim))
        shape = tuple(x.shape[d] if n == -1 else n for d, n in zip(dim, s))
    else:
        if dim is None:
            dim = tuple(range(ndim))
        shape = tuple(x.shape[d] for d in dim)
    for n in shape:
        _points(n)
    return dim, shape


def _canon_c2r(x: Tensor, s, dim, fname: str):
    """``_canon`` for a Hermitian (c2r) input: the output size of the last dim (default
    ``2 * (m - 1)``) and the input sizes, ``n // 2 + 1`` on that dim."""
    dims, shape = _canon(x, s, dim, fname)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    s = _ints(s, fname, "s")
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    _points(last)
    return dims, shape[:-1] + (last // 2 + 1,), last


# ---- the transforms ----------------------------------------------------------------------------
def _c2c_any(x: Tensor, dims: tuple, scale: int, forward: bool) -> Tensor:
    """The full transform of a real or complex tensor (real input: the r2c kernel, so the
    input's gradient is real, as torch's)."""
    if not dims:  # NOTE: matches torch: no dims gives a complex copy of the input
        y = x.to(_dtype.from_np(x._data.dtype).to_complex())
        return y.clone() if y is x else y
    if x._data.dtype.kind == "c":
        return FftC2C.apply(x, dims, scale, forward)
    y = FftR2C.apply(x, dims, scale, False)
    return y if forward else conj(y)


def _c2c_1d(fname, input, n, dim, norm, forward, out):
    x = _tensor(input, fname)
    n, dim = _int(n, fname, "n"), _int(dim, fname, "dim")
    d = _wrap(dim, x.ndim)
    x = _promote(x)
    scale = _scale(norm, forward, fname)
    size = x.shape[d] if n is None else n
    _points(size)
    return _out(_c2c_any(resize(x, (d,), (size,)), (d,), scale, forward), out)


def _c2c_nd(fname, input, s, dim, norm, forward, out):
    x = _tensor(input, fname)
    dims, shape = _canon(x, s, dim, fname)
    x = _promote(x)
    scale = _scale(norm, forward, fname)
    return _out(_c2c_any(resize(x, dims, shape), dims, scale, forward), out)


def _r2c_1d(fname, input, n, dim, norm, forward, out):
    """rfft (forward) and ihfft (inverse: the conjugate of the forward one-sided transform)."""
    x = _tensor(input, fname)
    n, dim = _int(n, fname, "n"), _int(dim, fname, "dim")
    d = _wrap(dim, x.ndim)
    _real_only(x, fname)
    x = _promote(x)
    scale = _scale(norm, forward, fname)
    size = x.shape[d] if n is None else n
    _points(size)
    y = FftR2C.apply(resize(x, (d,), (size,)), (d,), scale, True)
    return _out(y if forward else conj(y), out)


def _c2r_1d(fname, input, n, dim, norm, forward, out):
    """irfft (inverse) and hfft (forward: the c2r transform of the conjugate)."""
    x = _tensor(input, fname)
    n, dim = _int(n, fname, "n"), _int(dim, fname, "dim")
    d = _wrap(dim, x.ndim)
    x = _promote(x, require_complex=True)
    scale = _scale(norm, forward, fname)
    size = 2 * (x.shape[d] - 1) if n is None else n
    _points(size)
    if n is not None:
        x = resize(x, (d,), (size // 2 + 1,))
    if forward:
        x = conj(x)
    return _out(FftC2R.apply(x, (d,), scale, size), out)


def _rfftn(fname, input, s, dim, norm, out):
    x = _tensor(input, fname)
    if x._data.dtype.kind == "c":
        name = _dtype.SCALAR_NAMES[_dtype.from_np(x._data.dtype).name]
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {name}")
    dims, shape = _canon(x, s, dim, fname)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _promote(x)
    scale = _scale(norm, True, fname)
    return _out(FftR2C.apply(resize(x, dims, shape), dims, scale, True), out)


def _irfftn(fname, input, s, dim, norm, out):
    x = _tensor(input, fname)
    dims, shape, last = _canon_c2r(x, s, dim, "irfftn")
    x = _promote(x, require_complex=True)
    scale = _scale(norm, False, fname)
    return _out(FftC2R.apply(resize(x, dims, shape), dims, scale, last), out)


def _hfftn(fname, input, s, dim, norm, out):
    x = _tensor(input, fname)
    dims, shape, last = _canon_c2r(x, s, dim, "hfftn")
    x = _promote(x, require_complex=True)
    scale = _scale(norm, True, fname)
    x = resize(x, dims, shape)
    if len(dims) > 1:
        x = FftC2C.apply(x, dims[:-1], scale, True)
    return _out(FftC2R.apply(conj(x), dims[-1:], scale, last), out)


def _ihfftn(fname, input, s, dim, norm, out):
    x = _tensor(input, fname)
    dims, shape = _canon(x, s, dim, fname)
    if not dims:
        raise RuntimeError("ihfftn must transform at least one axis")
    if x._data.dtype.kind == "c":
        name = _dtype.SCALAR_NAMES[_dtype.from_np(x._data.dtype).name]
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {name}")
    x = _promote(x)
    scale = _scale(norm, False, fname)
    y = conj(FftR2C.apply(resize(x, dims, shape), dims[-1:], scale, True))
    if len(dims) > 1:
        y = FftC2C.apply(y, dims[:-1], scale, False)
    return _out(y, out)


def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *, out=None):
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim``
    (``sum_k x_k exp(-2 pi i jk/n)``), zero-padded or trimmed to ``n`` points. ``norm`` scales
    by ``1/n`` on ``"forward"``, ``1/sqrt(n)`` on ``"ortho"``, not at all on ``"backward"``.

    Example:
        >>> ember.fft.fft(ember.tensor([1.0, 2.0, 3.0, 4.0]))[1]
        tensor(-2.+2.j)
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(fft, input, n, dim, norm)
    return _c2c_1d("fft", input, n, dim, norm, True, out)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *, out=None):
    """The inverse of ``fft`` (``exp(+2 pi i jk/n)``, divided by ``n`` with the default norm).

    Example:
        >>> ember.fft.ifft(ember.tensor([10.0, 0.0, 0.0, 0.0])).real
        tensor([2.5000, 2.5000, 2.5000, 2.5000])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(ifft, input, n, dim, norm)
    return _c2c_1d("ifft", input, n, dim, norm, False, out)


def fft2(input: Tensor, s=None, dim=(-2, -1), norm: str | None = None, *, out=None):
    """The two-dimensional ``fft`` over ``dim`` (the last two dims by default).

    Example:
        >>> ember.fft.fft2(ember.ones(2, 2)).real
        tensor([[4., 0.],
                [0., 0.]])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(fft2, input, s, dim, norm)
    return _c2c_nd("fft2", input, s, dim, norm, True, out)


def ifft2(input: Tensor, s=None, dim=(-2, -1), norm: str | None = None, *, out=None):
    """The inverse of ``fft2``.

    Example:
        >>> ember.fft.ifft2(ember.fft.fft2(ember.ones(2, 2))).real
        tensor([[1., 1.],
                [1., 1.]])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(ifft2, input, s, dim, norm)
    return _c2c_nd("ifft2", input, s, dim, norm, False, out)


def fftn(input: Tensor, s=None, dim=None, norm: str | None = None, *, out=None):
    """The n-dimensional ``fft`` over ``dim`` (all dims by default; with ``s`` alone, the last
    ``len(s)`` dims), each zero-padded or trimmed to its size in ``s`` (-1 keeps it).

    Example:
        >>> ember.fft.fftn(ember.ones(2, 2)).shape
        ember.Size([2, 2])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(fftn, input, s, dim, norm)
    return _c2c_nd("fftn", input, s, dim, norm, True, out)


def ifftn(input: Tensor, s=None, dim=None, norm: str | None = None, *, out=None):
    """The inverse of ``fftn``.

    Example:
        >>> ember.fft.ifftn(ember.fft.fftn(ember.ones(2, 2))).real
        tensor([[1., 1.],
                [1., 1.]])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(ifftn, input, s, dim, norm)
    return _c2c_nd("ifftn", input, s, dim, norm, False, out)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *, out=None):
    """The ``fft`` of a real signal, keeping the ``n // 2 + 1`` non-redundant frequencies.

    Example:
        >>> ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0]))[1]
        tensor(-2.+2.j)
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(rfft, input, n, dim, norm)
    return _r2c_1d("rfft", input, n, dim, norm, True, out)


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *, out=None):
    """The inverse of ``rfft``: a real signal of ``n`` points (default ``2 * (m - 1)`` for
    ``m`` input frequencies) from its one-sided spectrum.

    Example:
        >>> ember.fft.irfft(ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0])))
        tensor([1., 2., 3., 4.])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(irfft, input, n, dim, norm)
    return _c2r_1d("irfft", input, n, dim, norm, False, out)


def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *, out=None):
    """The ``fft`` of a signal with Hermitian symmetry given by its first half: real, ``n``
    points (default ``2 * (m - 1)``).

    Example:
        >>> ember.fft.hfft(ember.tensor([1.0, 0.0, 0.0]))
        tensor([1., 1., 1., 1.])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(hfft, input, n, dim, norm)
    return _c2r_1d("hfft", input, n, dim, norm, True, out)


def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *, out=None):
    """The inverse of ``hfft``: the first half of the (Hermitian) ``ifft`` of a real signal.

    Example:
        >>> ember.fft.ihfft(ember.tensor([1.0, 1.0, 1.0, 1.0])).real
        tensor([1., 0., 0.])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(ihfft, input, n, dim, norm)
    return _r2c_1d("ihfft", input, n, dim, norm, False, out)


def rfft2(input: Tensor, s=None, dim=(-2, -1), norm: str | None = None, *, out=None):
    """The two-dimensional ``rfftn`` (the last dim of ``dim`` is the one-sided one).

    Example:
        >>> ember.fft.rfft2(ember.ones(2, 4)).shape
        ember.Size([2, 3])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(rfft2, input, s, dim, norm)
    return _rfftn("rfft2", input, s, dim, norm, out)


def irfft2(input: Tensor, s=None, dim=(-2, -1), norm: str | None = None, *, out=None):
    """The inverse of ``rfft2``.

    Example:
        >>> ember.fft.irfft2(ember.fft.rfft2(ember.ones(2, 4)))
        tensor([[1., 1., 1., 1.],
                [1., 1., 1., 1.]])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(irfft2, input, s, dim, norm)
    return _irfftn("irfft2", input, s, dim, norm, out)


def rfftn(input: Tensor, s=None, dim=None, norm: str | None = None, *, out=None):
    """The n-dimensional ``fft`` of a real signal, one-sided on the last dim of ``dim``.

    Example:
        >>> ember.fft.rfftn(ember.ones(2, 2, 4)).shape
        ember.Size([2, 2, 3])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(rfftn, input, s, dim, norm)
    return _rfftn("rfftn", input, s, dim, norm, out)


def irfftn(input: Tensor, s=None, dim=None, norm: str | None = None, *, out=None):
    """The inverse of ``rfftn``: real, the last dim ``2 * (m - 1)`` long unless ``s`` says.

    Example:
        >>> ember.fft.irfftn(ember.fft.rfftn(ember.ones(2, 4))).shape
        ember.Size([2, 4])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(irfftn, input, s, dim, norm)
    return _irfftn("irfftn", input, s, dim, norm, out)


def hfft2(input: Tensor, s=None, dim=(-2, -1), norm: str | None = None, *, out=None):
    """The two-dimensional ``hfftn``.

    Example:
        >>> ember.fft.hfft2(ember.ones(2, 3, dtype=ember.complex64)).shape
        ember.Size([2, 4])
    """
    return _hfftn("hfft2", input, s, dim, norm, out)


def ihfft2(input: Tensor, s=None, dim=(-2, -1), norm: str | None = None, *, out=None):
    """The two-dimensional ``ihfftn``.

    Example:
        >>> ember.fft.ihfft2(ember.ones(2, 4)).shape
        ember.Size([2, 3])
    """
    return _ihfftn("ihfft2", input, s, dim, norm, out)


def hfftn(input: Tensor, s=None, dim=None, norm: str | None = None, *, out=None):
    """The n-dimensional ``fft`` of a Hermitian-symmetric signal given by its first half on
    the last dim of ``dim``: real output.

    Example:
        >>> ember.fft.hfftn(ember.ones(2, 3, dtype=ember.complex64)).shape
        ember.Size([2, 4])
    """
    return _hfftn("hfftn", input, s, dim, norm, out)


def ihfftn(input: Tensor, s=None, dim=None, norm: str | None = None, *, out=None):
    """The inverse of ``hfftn``: the one-sided n-dimensional ``ifft`` of a real signal.

    Example:
        >>> ember.fft.ihfftn(ember.ones(2, 4)).shape
        ember.Size([2, 3])
    """
    return _ihfftn("ihfftn", input, s, dim, norm, out)


# ---- frequencies and shifts --------------------------------------------------------------------
def _freq(fname, k, n, d, out, dtype, device, requires_grad):
    npd = _np_dtype(dtype)
    if npd.kind not in "fc":
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    if npd.kind == "c":
        name = _dtype.SCALAR_NAMES[_dtype.from_np(npd).name]
        # NOTE: matches torch: the dtype check lets complex through, arange refuses it
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{name}'")
    xp = _xp(device)
    d = float(d)
    # NOTE: matches torch: integers times 1 / (n * d) in the output dtype (not a division)
    scale = 1.0 / (n * d) if n * d != 0 else (float("inf") if n else float("nan"))
    if xp.device_type == "meta":
        r = xp.empty((len(k),), dtype=npd)
    else:
        r = xp.asarray(k, dtype=npd) * xp.asarray(scale, dtype=npd)
    return _out(_finish(r, requires_grad), out)


def fftfreq(
    n: int,
    d: float = 1.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The sample frequencies of an ``fft`` of ``n`` points spaced ``d`` apart:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

    Example:
        >>> ember.fft.fftfreq(4)
        tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    n = _int(n, "fftfreq", "n")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    k = list(range((n + 1) // 2)) + list(range(-(n // 2), 0))
    return _freq("fftfreq", k, n, d, out, dtype, device, requires_grad)


def rfftfreq(
    n: int,
    d: float = 1.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The sample frequencies of an ``rfft`` of ``n`` points: ``[0, 1, ..., n // 2] / (d * n)``.

    Example:
        >>> ember.fft.rfftfreq(4)
        tensor([0.0000, 0.2500, 0.5000])
    """
    n = _int(n, "rfftfreq", "n")
    if n < 0:
        m = n // 2 + 1
        raise RuntimeError(f"Trying to create tensor with negative dimension {m}: [{m}]")
    return _freq("rfftfreq", list(range(n // 2 + 1)), n, d, out, dtype, device, requires_grad)


def _shift(x: Tensor, dim, inverse: bool, fname: str) -> Tensor:
    x = _tensor(x, fname)
    if dim is None:
        dims = tuple(range(x.ndim))
    else:
        dims = tuple(_wrap_shift(d, x.ndim) for d in _ints(dim, fname, "dim"))
    if not dims:
        raise RuntimeError("`shifts` required")
    shifts = tuple((x.shape[d] + inverse) // 2 for d in dims)
    return roll(x, shifts, dims)


def _wrap_shift(d: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
        )
    return d + n if d < 0 else d


def fftshift(input: Tensor, dim=None) -> Tensor:
    """``input`` rolled so that the zero frequency of an ``fft`` is in the middle of each of
    ``dim`` (all dims by default).

    Example:
        >>> ember.fft.fftshift(ember.fft.fftfreq(4))
        tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    return _shift(input, dim, False, "fftshift")


def ifftshift(input: Tensor, dim=None) -> Tensor:
    """The inverse of ``fftshift``.

    Example:
        >>> ember.fft.ifftshift(ember.fft.fftshift(ember.fft.fftfreq(5)))
        tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    """
    return _shift(input, dim, True, "ifftshift")


from ember import _unsupported  # noqa: E402


def __getattr__(name: str):
    # Runs only on a miss, so existing names cost nothing: a torch name ember deliberately
    # lacks answers with its reason (ember/_unsupported.py).
    return _unsupported.module_getattr(__name__, name)


def __dir__() -> list[str]:
    return sorted(__all__)  # torch's names only, not the helpers imported above
