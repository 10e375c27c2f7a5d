"""ember's dtypes and PyTorch's type-promotion rules.

A ``dtype`` wraps the NumPy dtype used for storage (every backend stores with NumPy's dtype
objects). Promotion follows PyTorch, which differs from NumPy: integer with float gives that
float (NumPy widens ``int64 + float16`` to float64), zero-dim tensors and Python scalars only
take part when they are of a higher category than the dimensioned operands.
"""

from __future__ import annotations

import builtins as _b
import math
import threading

from ember import backend as _backend


class dtype:
    """A tensor element type, e.g. ``ember.float32``."""

    __slots__ = (
        "name",
        "_np",
        "_lazy",
        "itemsize",
        "is_floating_point",
        "_signed",
        "is_complex",
        "abbr",
    )

    def __init__(self, name, np_name, is_floating_point, is_signed, abbr, lazy=False, size=0):
        self.name = name
        if lazy:  # an ml_dtypes type: its NumPy dtype is looked up on first use
            self._lazy = np_name
            self.itemsize = size
        else:
            self._np = _backend.np_dtype(np_name)
            self.itemsize = self._np.itemsize
        self.is_floating_point = is_floating_point
        self._signed = is_signed
        self.is_complex = np_name.startswith("complex")
        self.abbr = abbr

    @property
    def is_signed(self) -> _b.bool:
        if self._signed is None:
            # NOTE: matches torch: a quantized dtype has no signedness to report
            raise RuntimeError("isSignedType not supported for quantized types")
        return self._signed

    def __getattr__(self, name):
        # only reached while ``_np`` of an ml_dtypes type is still unset
        if name != "_np":
            raise AttributeError(f"'ember.dtype' object has no attribute '{name}'")
        npd = self._np = _backend.ml_dtype(self._lazy)
        _FROM_NP[npd] = self
        return npd

    def __repr__(self) -> str:
        return f"ember.{self.name}"

    def __reduce__(self):
        return self.name  # pickles as the module-level singleton ``ember._dtype.<name>``

    def to_real(self) -> dtype:
        """The real dtype of a complex one (``complex64`` -> ``float32``); others unchanged."""
        return _TO_REAL.get(self, self)

    def to_complex(self) -> dtype:
        """The complex dtype with this real precision (``float64`` -> ``complex128``)."""
        if self.is_complex:
            return self
        if self is float16:
            raise NotImplementedError(
                "complex32 (ComplexHalf) is not supported: NumPy has no complex32 type"
            )
        try:
            return _TO_COMPLEX[self]
        except KeyError:
            raise RuntimeError(f"Unsupported dtype {SCALAR_NAMES[self.name]}") from None


bool = dtype("bool", "bool", False, False, "b8")  # noqa: A001  (PyTorch's name)
uint8 = dtype("uint8", "uint8", False, False, "u8")
int8 = dtype("int8", "int8", False, True, "i8")
int16 = dtype("int16", "int16", False, True, "i16")
int32 = dtype("int32", "int32", False, True, "i32")
int64 = dtype("int64", "int64", False, True, "i64")
uint16 = dtype("uint16", "uint16", False, False, "u16")
uint32 = dtype("uint32", "uint32", False, False, "u32")
uint64 = dtype("uint64", "uint64", False, False, "u64")
float16 = dtype("float16", "float16", True, True, "f16")
bfloat16 = dtype("bfloat16", "bfloat16", True, True, "bf16", lazy=True, size=2)
float32 = dtype("float32", "float32", True, True, "f32")
float64 = dtype("float64", "float64", True, True, "f64")
complex64 = dtype("complex64", "complex64", False, True, "c64")
complex128 = dtype("complex128", "complex128", False, True, "c128")
float8_e4m3fn = dtype("float8_e4m3fn", "float8_e4m3fn", True, True, "f8e4m3fn", True, 1)
float8_e5m2 = dtype("float8_e5m2", "float8_e5m2", True, True, "f8e5m2", True, 1)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", "float8_e4m3fnuz", True, True, "f8e4m3fnuz", True, 1)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", "float8_e5m2fnuz", True, True, "f8e5m2fnuz", True, 1)
float8_e8m0fnu = dtype("float8_e8m0fnu", "float8_e8m0fnu", True, False, "f8e8m0fnu", True, 1)


class _QuantizedNp:
    """The stand-in NumPy dtype of a quantized tensor's backend array (``QuantizedArray`` in
    ``ember/ops/quantized.py``): NumPy has no quantized types, so this object carries what the
    generic Tensor code reads of a dtype (``kind``, ``char``, ``itemsize``, ``name``). Its kind
    is the integer representation's ('u' or 'i'): not floating, so it cannot require grad."""

    __slots__ = ("name", "kind", "char", "itemsize", "repr_np")

    def __init__(self, name, repr_name):
        self.name = name
        self.repr_np = _backend.np_dtype(repr_name)
        self.kind = self.repr_np.kind
        self.char = "Q" + name  # never one of NumPy's one-letter codes
        self.itemsize = self.repr_np.itemsize

    def __repr__(self) -> str:
        return f"dtype({self.name!r})"


def _quantized(name, repr_name, lo, hi, bits):
    d = object.__new__(dtype)
    d.name = name
    d._np = _QuantizedNp(name, repr_name)
    d.itemsize = d._np.itemsize
    d.is_floating_point = False
    d._signed = None
    d.is_complex = False
    d.abbr = name
    _QUANTIZED[d] = (lo, hi, bits)
    return d


# quantized dtype -> (quant_min, quant_max, bits per value) of its integer representation
_QUANTIZED: dict = {}
quint8 = _quantized("quint8", "uint8", 0, 255, 8)
qint8 = _quantized("qint8", "int8", -128, 127, 8)
qint32 = _quantized("qint32", "int32", -(2**31), 2**31 - 1, 32)
# NOTE: matches torch: the sub-byte types pack 2 (4) values into each byte of their storage
quint4x2 = _quantized("quint4x2", "uint8", 0, 15, 4)
quint2x4 = _quantized("quint2x4", "uint8", 0, 3, 2)
short, long, half, double = int16, int64, float16, float64
cfloat, cdouble = complex64, complex128
int = int32  # noqa: A001
float = float32  # noqa: A001

all_dtypes = (
    bool,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    float32,
    float64,
    uint16,
    uint32,
    uint64,
    bfloat16,
    complex64,
    complex128,
    float8_e4m3fn,
    float8_e5m2,
    float8_e4m3fnuz,
    float8_e5m2fnuz,
    float8_e8m0fnu,
)
# the NumPy dtypes of the ml_dtypes types join this table when first looked up (``__getattr__``)
_FROM_NP = {d._np: d for d in all_dtypes if not hasattr(d, "_lazy")}
_FROM_NP.update((d._np, d) for d in _QUANTIZED)
_BY_NAME = {d.name: d for d in all_dtypes}
_BY_NAME.update((d.name, d) for d in _QUANTIZED)
# PyTorch's ScalarType names, which its error messages use ("Float", "Long"...), by dtype name
SCALAR_NAMES = dict(
    zip(
        (d.name for d in all_dtypes),
        (
            "Bool",
            "Byte",
            "Char",
            "Short",
            "Int",
            "Long",
            "Half",
            "Float",
            "Double",
            "UInt16",
            "UInt32",
            "UInt64",
            "BFloat16",
            "ComplexFloat",
            "ComplexDouble",
            "Float8_e4m3fn",
            "Float8_e5m2",
            "Float8_e4m3fnuz",
            "Float8_e5m2fnuz",
            "Float8_e8m0fnu",
        ),
    )
)
SCALAR_NAMES.update(
    quint8="QUInt8", qint8="QInt8", qint32="QInt32", quint4x2="QUInt4x2", quint2x4="QUInt2x4"
)


class qscheme:
    """A quantization scheme, e.g. ``ember.per_tensor_affine`` (``torch.qscheme``).

    Example:
        >>> ember.quantize_per_tensor(ember.ones(2), 0.1, 0, ember.quint8).qscheme()
        ember.per_tensor_affine
    """

    __slots__ = ("name",)

    def __new__(cls, *args, **kwargs):
        # NOTE: matches torch: the five schemes are the only instances
        raise TypeError("cannot create 'ember.qscheme' instances")

    def __repr__(self) -> str:
        return f"ember.{self.name}"

    def __reduce__(self):
        return self.name  # pickles as the module-level singleton, as dtypes do


def _scheme(name: str) -> qscheme:
    q = object.__new__(qscheme)
    q.name = name
    return q


per_tensor_affine = _scheme("per_tensor_affine")
per_channel_affine = _scheme("per_channel_affine")
per_tensor_symmetric = _scheme("per_tensor_symmetric")
per_channel_symmetric = _scheme("per_channel_symmetric")
per_channel_affine_float_qparams = _scheme("per_channel_affine_float_qparams")

_TO_REAL = {complex64: float32, complex128: float64}
_TO_COMPLEX = {float32: complex64, float64: complex128, bfloat16: complex64}
_FLOAT8 = frozenset((float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu))
_UINT_WIDE = frozenset((uint16, uint32, uint64))


def from_np(np_dtype) -> dtype:
    """The ember dtype of a NumPy dtype."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        if getattr(np_dtype, "kind", "") == "V":  # an ml_dtypes type not looked up yet
            for d in all_dtypes:
                if hasattr(d, "_lazy") and d._np == np_dtype:
                    return d
        raise TypeError(
            f"NumPy dtype {np_dtype} has no ember counterpart; "
            f"supported: {', '.join(d.name for d in all_dtypes)}"
        ) from None


def to_np(d):
    """The NumPy storage dtype for an ember dtype (or a NumPy dtype / Python type)."""
    if d.__class__ is dtype:
        return d._np
    if d is _b.float:
        return get_default_dtype()._np
    if d is _b.int:
        return int64._np
    if d is _b.bool:
        return bool._np
    if isinstance(d, str):
        if d in _BY_NAME:
            return _BY_NAME[d]._np
    try:
        npd = _backend.np_dtype(d)
    except TypeError:
        raise TypeError(f"{d!r} is not a dtype; use e.g. ember.float32") from None
    from_np(npd)
    return npd


# ---- default dtype ---------------------------------------------------------------------------

_default = float32


def get_default_dtype() -> dtype:
    """The dtype of tensors built from Python floats (float32 unless changed)."""
    return _default


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype (float16, bfloat16, float32 or float64), as
    ``torch.set_default_dtype``; Python complex numbers then take the matching complex dtype."""
    global _default
    d = from_np(to_np(d))
    if not d.is_floating_point or d in _FLOAT8:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default = d
    _promote_cache.clear()


def default_complex_dtype() -> dtype:
    """The dtype Python complex numbers take: the complex type of the default float dtype."""
    if _default is float64:
        return complex128
    if _default is float32:
        return complex64
    if _default is float16:
        raise NotImplementedError(
            "complex32 (the complex dtype of the float16 default) is not supported: NumPy has "
            "no complex32 type"
        )
    raise RuntimeError("invalid default scalar type for complex")


# ---- promotion -------------------------------------------------------------------------------


# Category order: bool < integer < floating < complex.
def _category(d: dtype) -> _b.int:
    if d is bool:
        return 0
    if d.is_complex:
        return 3
    return 2 if d.is_floating_point else 1


_INT_ORDER = (uint8, int8, int16, int32, int64)


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """PyTorch's ``promote_types``: the smallest dtype both arguments convert to.

    Example:
        >>> import ember
        >>> ember.promote_types(ember.int32, ember.float16)
        ember.float16
        >>> ember.promote_types(ember.bfloat16, ember.float16)
        ember.float32
    """
    a, b = type1, type2
    if a is b:
        return a
    if a in _FLOAT8 or b in _FLOAT8:
        raise RuntimeError(
            "Promotion for Float8 Types is not supported, attempted to promote "
            f"{SCALAR_NAMES[a.name]} and {SCALAR_NAMES[b.name]}"
        )
    ca, cb = _category(a), _category(b)
    if (a in _UINT_WIDE or b in _UINT_WIDE) and max(ca, cb) != 2:
        # NOTE: matches torch: the wide unsigned types only promote with real floating types
        raise RuntimeError(
            "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
            f"{SCALAR_NAMES[a.name]} and {SCALAR_NAMES[b.name]}"
        )
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi.is_complex and lo.is_floating_point and lo.itemsize > hi.itemsize // 2:
            return complex128  # complex64 with float64
        return hi
    if ca == 2 or ca == 3:
        if a.itemsize == b.itemsize:  # float16 with bfloat16
            return float32
        return a if a.itemsize > b.itemsize else b
    if ca == 0:
        return bool
    # integers: NOTE: matches torch: uint8 with a signed type needs the next wider signed type.
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a.itemsize >= b.itemsize else b


def can_cast(from_: dtype, to: dtype) -> _b.bool:
    """Whether PyTorch's casting rules allow ``from_`` to ``to`` in type promotion: never to a
    lower category (complex > floating > integer > bool).

    Example:
        >>> import ember
        >>> ember.can_cast(ember.float32, ember.int32), ember.can_cast(ember.int64, ember.float16)
        (False, True)
    """
    return _category(from_) <= _category(to)


def _combine(higher, lower):
    # torch's combine_categories: the lower-priority group only counts if it is of a higher
    # category (bool < int < float < complex) than the higher-priority group; a complex one
    # keeps a floating group's precision.
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type_of(dims, zeros, scalars) -> dtype:
    """Result dtype from dimensioned tensors, zero-dim tensors and Python scalars (by dtype)."""
    groups = []
    for group in (dims, zeros, scalars):
        r = None
        for d in group:
            r = d if r is None else promote_types(r, d)
        groups.append(r)
    return _combine(groups[0], _combine(groups[1], groups[2]))


def scalar_dtype(x) -> dtype:
    """The dtype a Python scalar takes part in promotion with (float -> default dtype)."""
    t = type(x)
    if t is _b.bool:
        return bool
    if t is _b.int:
        return int64
    if t is _b.float:
        return _default
    if isinstance(x, _b.bool):
        return bool
    if isinstance(x, _b.int):
        return int64
    if isinstance(x, _b.float):
        return _default
    if isinstance(x, complex):
        return default_complex_dtype()
    if isinstance(x, _backend.generic):  # a NumPy scalar counts like a Python number
        return scalar_dtype(x.item())
    raise TypeError(f"expected a number, got {type(x).__name__}")


_promote_cache: dict = {}
_cache_lock = threading.Lock()


def binary_np_dtype(xa, xb):
    """NumPy dtype of the result of a binary op between arrays or Python scalars.

    ``xa``/``xb`` are backend arrays or Python numbers (at least one an array). Cached on the
    dtypes and zero-dim-ness so that the common case costs a dict lookup.
    """
    ka = (xa.dtype, xa.ndim == 0) if _backend.is_array(xa) else (type(xa),)
    kb = (xb.dtype, xb.ndim == 0) if _backend.is_array(xb) else (type(xb),)
    key = (ka, kb)
    r = _promote_cache.get(key)
    if r is None:
        dims, zeros, scalars = [], [], []
        for k, x in ((ka, xa), (kb, xb)):
            if len(k) == 2:
                (zeros if k[1] else dims).append(from_np(k[0]))
            else:
                scalars.append(scalar_dtype(x))
        r = result_type_of(dims, zeros, scalars)._np
        with _cache_lock:
            _promote_cache[key] = r
    return r


# ---- machine limits --------------------------------------------------------------------------


def _dtype_arg(type):
    return _default if type is None else from_np(to_np(type))


class finfo:
    """Machine limits of a floating dtype, as ``torch.finfo`` (a complex dtype gives its real
    part's limits).

    Example:
        >>> import ember
        >>> ember.finfo(ember.bfloat16).eps
        0.0078125
    """

    __hash__ = None  # NOTE: matches torch: finfo objects compare by value and are unhashable

    def __init__(self, type=None):
        d = _dtype_arg(type).to_real()
        if not d.is_floating_point:
            raise TypeError(
                "finfo() requires a floating point input type. Use ember.iinfo to handle "
                f"'{d.name}'"
            )
        info = _backend.finfo(d._np)
        self.bits = d.itemsize * 8
        self.dtype = d.name
        self.eps = _b.float(info.eps)
        self.max = _b.float(info.max)
        self.min = _b.float(info.min)
        self.tiny = self.smallest_normal = _b.float(info.smallest_normal)
        # NOTE: matches torch: 10 ** -(decimal digits the type holds), a power of ten
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        if d is float8_e5m2fnuz:  # NOTE: matches torch, which reports e4m3fnuz's epsilon here
            self.eps = 0.125

    def __eq__(self, other):
        return isinstance(other, finfo) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Machine limits of an integer dtype, as ``torch.iinfo``.

    Example:
        >>> import ember
        >>> ember.iinfo(ember.int8).min, ember.iinfo(ember.uint8).max
        (-128, 255)
    """

    __hash__ = None

    def __init__(self, type):
        d = _dtype_arg(type)
        if d is bool:
            raise TypeError("ember.bool is not supported by ember.iinfo")
        if d.is_floating_point or d.is_complex:
            raise TypeError(
                f"iinfo() requires an integer input type. Use ember.finfo to handle '{d.name}'"
            )
        self.bits = d.itemsize * 8
        self.dtype = d.name
        self.max = (1 << (self.bits - d.is_signed)) - 1
        self.min = -(1 << (self.bits - 1)) if d.is_signed else 0

    def __eq__(self, other):
        return isinstance(other, iinfo) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
