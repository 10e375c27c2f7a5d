"""The meta backend: arrays that hold a shape and a dtype and no data.

``MetaArray`` takes part in NumPy's dispatch protocols (``__array_ufunc__`` and
``__array_function__``), so this namespace is NumPy's own with the creation functions replaced:
an op body that calls ``xp.exp(x)`` or ``xp.sum(x, axis=1)`` gets a MetaArray of the right shape
and dtype back, and nothing is allocated. A NumPy function without a shape rule here raises
``NotImplementedError`` naming it.
"""

from __future__ import annotations

import math
import operator

import numpy as _np

from ember.backend._numpy_names import numpy_names

globals().update(numpy_names())  # NumPy's names; array functions dispatch to MetaArray

device_type = "meta"
Generator = None


class MetaArray:
    """Shape and dtype of an array that does not exist."""

    __slots__ = ("shape", "dtype", "__weakref__")
    __array_priority__ = 2000

    def __init__(self, shape, dtype):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = _np.dtype(dtype)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)
    T = property(lambda self: self.transpose())
    mT = property(lambda self: self.swapaxes(-1, -2))
    base = None
    flags = None

    def __repr__(self) -> str:
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    # -- protocols ---------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.pop("out", None)
        if method == "__call__":
            result = _ufunc_call(ufunc, inputs, kwargs)
        elif method == "reduce":
            result = _ufunc_reduce(ufunc, inputs, kwargs)
        elif method == "accumulate":
            x = inputs[0]
            result = MetaArray(x.shape, _ufunc_dtype(ufunc, (x,) * ufunc.nin, kwargs.get("dtype")))
        elif method == "at":
            return None
        else:
            raise NotImplementedError(f"meta arrays do not support {ufunc.__name__}.{method}")
        if out is not None:
            return out[0] if isinstance(out, tuple) and len(out) == 1 else out
        return result

    def __array_function__(self, func, types, args, kwargs):
        rule = _RULES.get(func)
        if rule is None:
            raise NotImplementedError(
                f"meta tensors have no shape rule for numpy.{func.__name__} yet"
            )
        return rule(*args, **kwargs)

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("a meta array holds no data: it cannot be converted to NumPy")

    # -- methods op bodies use ---------------------------------------------------------------
    def astype(self, dtype, copy=True, **kwargs):
        return MetaArray(self.shape, dtype)

    def copy(self, order="C"):
        return MetaArray(self.shape, self.dtype)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        return MetaArray(_reshape_shape(self.shape, shape), self.dtype)

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(range(self.ndim))[::-1]
        return MetaArray(tuple(self.shape[a] for a in axes), self.dtype)

    def swapaxes(self, a, b):
        p = list(range(self.ndim))
        p[a], p[b] = p[b], p[a]
        return self.transpose(p)

    def dot(self, other):
        # the ops call ``dot`` on operands of at most 2 dims, where it is ``matmul``
        return _np.matmul(self, other)

    def view(self, dtype=None):
        return MetaArray(self.shape, self.dtype if dtype is None else dtype)

    def __getitem__(self, index):
        return _index(self, index)

    def __setitem__(self, index, value):
        pass

    def fill(self, value):
        pass

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _RULES[_np.sum](self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _RULES[_np.mean](self, axis=axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return _RULES[_np.max](self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return _RULES[_np.min](self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _RULES[_np.prod](self, axis=axis, dtype=dtype, keepdims=keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        return _RULES[_np.any](self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return _RULES[_np.all](self, axis=axis, keepdims=keepdims)

    def item(self):
        raise RuntimeError("a meta array holds no data: item() is not available")

    def tolist(self):
        raise RuntimeError("a meta array holds no data: tolist() is not available")


ndarray = MetaArray


def _binop(ufunc, reflected=False):
    if reflected:
        return lambda self, other: _ufunc_call(ufunc, (other, self), {})
    return lambda self, other: _ufunc_call(ufunc, (self, other), {})


def _inplace(ufunc):
    def op(self, other):
        _ufunc_call(ufunc, (self, other), {})
        return self

    return op


for _name, _uf in [
    ("add", _np.add),
    ("sub", _np.subtract),
    ("mul", _np.multiply),
    ("truediv", _np.true_divide),
    ("floordiv", _np.floor_divide),
    ("mod", _np.remainder),
    ("pow", _np.power),
    ("matmul", _np.matmul),
    ("and", _np.bitwise_and),
    ("or", _np.bitwise_or),
    ("xor", _np.bitwise_xor),
    ("lshift", _np.left_shift),
    ("rshift", _np.right_shift),
]:
    setattr(MetaArray, f"__{_name}__", _binop(_uf))
    setattr(MetaArray, f"__r{_name}__", _binop(_uf, reflected=True))
    setattr(MetaArray, f"__i{_name}__", _inplace(_uf))
for _name, _uf in [
    ("lt", _np.less),
    ("le", _np.less_equal),
    ("gt", _np.greater),
    ("ge", _np.greater_equal),
    ("eq", _np.equal),
    ("ne", _np.not_equal),
]:
    setattr(MetaArray, f"__{_name}__", _binop(_uf))
MetaArray.__neg__ = lambda self: MetaArray(self.shape, self.dtype)
MetaArray.__pos__ = MetaArray.__neg__
MetaArray.__abs__ = MetaArray.__neg__
MetaArray.__invert__ = MetaArray.__neg__
MetaArray.__hash__ = object.__hash__


# ---- shape and dtype rules -------------------------------------------------------------------
_dtype_cache: dict = {}


def _probe(x):
    """A one-element stand-in with ``x``'s dtype, for asking NumPy about result dtypes."""
    if isinstance(x, MetaArray):
        return _np.zeros((), x.dtype)
    if isinstance(x, _np.ndarray):
        return _np.zeros((), x.dtype)
    return x  # Python scalars stay weak, as in the real op


def _ufunc_dtype(ufunc, inputs, dtype=None):
    key = (ufunc, dtype, tuple(x.dtype if hasattr(x, "dtype") else type(x) for x in inputs))
    r = _dtype_cache.get(key)
    if r is None:
        with _np.errstate(all="ignore"):
            res = ufunc(*[_probe(x) for x in inputs], **({"dtype": dtype} if dtype else {}))
        r = (
            tuple(_np.asarray(o).dtype for o in res)
            if isinstance(res, tuple)
            else _np.asarray(res).dtype
        )
        _dtype_cache[key] = r
    return r


def _shape_of(x):
    return x.shape if hasattr(x, "shape") else ()


def broadcast_shapes(*shapes):
    try:
        return _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(
            f"shapes {', '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together"
        ) from None


def _ufunc_call(ufunc, inputs, kwargs):
    dtype = kwargs.get("dtype")
    if ufunc is _np.matmul:
        a, b = inputs
        # matmul's core dims reject 0-d dtype probes; its dtype is the operands' result type
        return MetaArray(
            _matmul_shape(_shape_of(a), _shape_of(b)), _np.result_type(_probe(a), _probe(b))
        )
    shape = broadcast_shapes(*[_shape_of(x) for x in inputs])
    dt = _ufunc_dtype(ufunc, inputs, dtype)
    if isinstance(dt, tuple):
        return tuple(MetaArray(shape, d) for d in dt)
    return MetaArray(shape, dt)


def _matmul_shape(a, b):
    if not a or not b:
        raise ValueError("matmul: both operands must have at least one dimension")
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(
            f"mat1 and mat2 shapes cannot be multiplied ({a2[-2]}x{a2[-1]} and {b2[-2]}x{b2[-1]})"
        )
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    out = (*batch, a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


def _norm_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(operator.index(a) % ndim if ndim else 0 for a in axis)


def _reduced_shape(shape, axis, keepdims):
    axes = _norm_axes(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _ufunc_reduce(ufunc, inputs, kwargs):
    x = inputs[0]
    axis = kwargs.get("axis", 0)
    dt = _ufunc_dtype(ufunc, (x, x), kwargs.get("dtype"))
    return MetaArray(_reduced_shape(x.shape, axis, kwargs.get("keepdims", False)), dt)


def _reshape_shape(old, new):
    new = tuple(operator.index(s) for s in new)
    n = math.prod(old)
    if new.count(-1) > 1:
        raise ValueError("only one dimension can be inferred")
    if -1 in new:
        known = math.prod(s for s in new if s != -1)
        if known == 0 or n % known:
            raise ValueError(f"cannot reshape array of size {n} into shape {new}")
        new = tuple(n // known if s == -1 else s for s in new)
    if math.prod(new) != n:
        raise ValueError(f"cannot reshape array of size {n} into shape {new}")
    return new


def _index(x, index):
    """Result shape of ``x[index]``, worked out on a zero-strided stand-in (no allocation for
    basic indexing; index arrays that are meta stand in as zeros of their shape)."""
    stand_in = _np.lib.stride_tricks.as_strided(_np.zeros(1, _np.bool_), x.shape, (0,) * x.ndim)
    if not isinstance(index, tuple):
        index = (index,)
    conv = []
    for i in index:
        if isinstance(i, MetaArray):
            if i.dtype == _np.bool_:
                raise NotImplementedError(
                    "boolean-mask indexing of a meta tensor: the result shape depends on data"
                )
            i = _np.lib.stride_tricks.as_strided(_np.zeros(1, _np.intp), i.shape, (0,) * i.ndim)
        conv.append(i)
    r = stand_in[tuple(conv)]
    return MetaArray(r.shape, x.dtype)


# ---- creation (these take no array, so NumPy would not dispatch them) -------------------------
def empty(shape, dtype=float, **kwargs):
    if isinstance(shape, int):
        shape = (shape,)
    return MetaArray(shape, dtype)


zeros = ones = empty


def full(shape, fill_value, dtype=None, **kwargs):
    return empty(shape, dtype if dtype is not None else _np.asarray(fill_value).dtype)


def eye(n, m=None, k=0, dtype=float, **kwargs):
    return MetaArray((n, n if m is None else m), dtype)


def asarray(obj, dtype=None, **kwargs):
    if isinstance(obj, MetaArray):
        return obj if dtype is None else obj.astype(dtype)
    a = _np.asarray(obj)
    return MetaArray(a.shape, a.dtype if dtype is None else dtype)


def ascontiguousarray(a, dtype=None, **kwargs):
    # NumPy does not dispatch it (only through like=), so the namespace needs its own
    return asarray(a, dtype)


def from_numpy(array):
    return MetaArray(array.shape, array.dtype)


def to_numpy(array):
    raise RuntimeError("a meta array holds no data: it cannot be converted to NumPy")


def copy(a, **kwargs):
    return MetaArray(a.shape, a.dtype)


def add_at(target, index, values):
    pass


def is_contiguous(a):
    return True


def strides_of(a):
    st, acc = [], 1
    for s in reversed(a.shape):
        st.append(acc)
        acc *= s if s > 1 else 1  # (``max`` here is NumPy's: numpy_names above)
    return tuple(reversed(st))


def storage_offset(a):
    return 0


def data_ptr(a):
    return 0


def erf(x):
    return MetaArray(x.shape, x.dtype)


erfc = erfinv = erf
lgamma = digamma = erf


def polygamma(n, x):
    return MetaArray(x.shape, x.dtype)


def gammainc(a, x):
    return MetaArray(
        broadcast_shapes(_shape_of(a), _shape_of(x)), _np.result_type(_probe(a), _probe(x))
    )


gammaincc = standard_gamma_grad = gammainc


def special(name, *args):
    """``torch.special`` functions (backend/_special.py): broadcast shape, first arg's dtype."""
    return MetaArray(broadcast_shapes(*[_shape_of(a) for a in args]), _probe(args[0]).dtype)


# ---- __array_function__ rules -----------------------------------------------------------------
_RULES: dict = {}


def rule(*funcs):
    def deco(fn):
        for f in funcs:
            _RULES[f] = fn
        return fn

    return deco


def _reduction(dtype_fn):
    def r(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return MetaArray(_reduced_shape(a.shape, axis, keepdims), dtype_fn(a, dtype))

    return r


_sum_dtype = lambda a, dtype: dtype or _ufunc_dtype(_np.add, (a, a))  # noqa: E731
_same_dtype = lambda a, dtype: dtype or a.dtype  # noqa: E731
_float_dtype = lambda a, dtype: (
    dtype
    or (  # noqa: E731
        a.dtype if a.dtype.kind == "f" else _np.dtype(_np.float64)
    )
)
_bool_dtype = lambda a, dtype: _np.dtype(_np.bool_)  # noqa: E731
_index_dtype = lambda a, dtype: _np.dtype(_np.intp)  # noqa: E731

_RULES[_np.sum] = _RULES[_np.prod] = _reduction(_sum_dtype)
_RULES[_np.max] = _RULES[_np.min] = _RULES[_np.amax] = _RULES[_np.amin] = _reduction(_same_dtype)
_RULES[_np.mean] = _RULES[_np.var] = _RULES[_np.std] = _reduction(_float_dtype)
_RULES[_np.any] = _RULES[_np.all] = _reduction(_bool_dtype)
_RULES[_np.count_nonzero] = _reduction(_index_dtype)


@rule(_np.argmax, _np.argmin)
def _argred(a, axis=None, out=None, keepdims=False):
    return MetaArray(_reduced_shape(a.shape, axis, keepdims), _np.intp)


@rule(_np.reshape)
def _reshape(a, shape=None, order="C", newshape=None, copy=None):
    return a.reshape(shape if shape is not None else newshape)


@rule(_np.transpose)
def _transpose(a, axes=None):
    return a.transpose(axes) if axes is not None else a.transpose()


@rule(_np.broadcast_to)
def _broadcast_to(array, shape, subok=False):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    broadcast_shapes(array.shape, shape)
    return MetaArray(shape, array.dtype)


@rule(_np.copy, _np.ascontiguousarray, _np.negative)
def _same(a, *args, **kwargs):
    return MetaArray(a.shape, a.dtype)


@rule(_np.where)
def _where(cond, x=None, y=None):
    if x is None:
        raise NotImplementedError("where(cond) on a meta array: the result shape depends on data")
    shape = broadcast_shapes(_shape_of(cond), _shape_of(x), _shape_of(y))
    return MetaArray(shape, _np.result_type(_probe(x), _probe(y)))


@rule(_np.matmul)
def _matmul(a, b, **kwargs):
    return _ufunc_call(_np.matmul, (a, b), {})


def as_strided(array, shape, strides, offset=0):
    """The meta form of ``cpu.as_strided`` (a strided view of a contiguous array)."""
    return MetaArray(shape, array.dtype)


# Shape rules of each op family live beside this file, one file per family.
from ember.backend import (  # noqa: E402,F401
    _meta_activation,
    _meta_linalg,
    _meta_math,
    _meta_reduction,
    _meta_shape,
)
from ember.backend._meta_fft import fft_c2c, fft_c2r, fft_r2c  # noqa: E402,F401
from ember.backend._meta_linalg_decomp import (  # noqa: E402,F401
    geqrf,
    householder_product,
    linalg_eig,
    linalg_eigh,
    linalg_lstsq,
    linalg_qr,
    linalg_svd,
    ormqr,
)
from ember.backend._meta_linalg_solve import (  # noqa: E402,F401
    linalg_cholesky_ex,
    linalg_expm,
    linalg_ldl_factor,
    linalg_ldl_solve,
    linalg_lu_factor,
    linalg_lu_solve,
    linalg_pivots_to_perm,
    linalg_singular_info,
    linalg_solve_triangular,
)
