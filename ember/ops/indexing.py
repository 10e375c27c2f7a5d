"""Indexing: ``Tensor.__getitem__``/``__setitem__``, ``index_put``, ``select_scatter`` and
``slice_scatter``, and what the index ops share: the parsed index (``_Key``), the index
Functions, and the in-place methods (``_inplace_method``). The other index ops are its siblings:
gather_scatter.py (``gather``, ``scatter``, ``take``, ``put``...), index_dim.py
(``index_select``, ``index_add``...), masked.py and nonzero_unique.py.

``x[index]`` runs in two stages, as in PyTorch: the basic part (ints, slices, None, ``...``)
gives a view (``_BasicView`` in shape.py), then the advanced part (integer and boolean tensors,
lists) gathers a copy (``_Index``), with NumPy's placement rules applied to the view, which are
PyTorch's once the ints are gone. A parsed index is a ``_Key``: the same object serves reading,
writing (``__setitem__``, ``index_put``) and the gradients of both, so repeated indices
accumulate in backward (``xp.add_at``).
"""

from __future__ import annotations

import operator
import warnings

from ember import backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function, check_inference_write
from ember.ops._dispatch import unary, xp_of
from ember.ops.pointwise import _name, inplace
from ember.ops.shape import _view_op
from ember.ops.slicing import _FULL, _Alias, _BasicView, _Select, _UnsqueezeView
from ember.tensor import Tensor, _wrap_dim

_INT64 = backend.np_dtype("int64")


class _Key:
    """A parsed index: ``basic`` (a NumPy basic key ending in ``...``, or None) is applied first
    and gives a view; ``adv`` (a tuple of full slices and index arrays, or None) is applied to
    that view."""

    __slots__ = ("basic", "adv")

    def __init__(self, basic, adv):
        self.basic = basic
        self.adv = adv

    def get(self, a):
        if self.basic is not None:
            a = a[self.basic]
        return a[self.adv] if self.adv is not None else a

    def put(self, out, v, accumulate: bool = False) -> None:
        """Write (or, with ``accumulate``, add) ``v`` at this key of ``out``, in place."""
        t = out[self.basic] if self.basic is not None else out
        if self.adv is None:
            if accumulate:
                t += v
            else:
                t[...] = v
        elif accumulate:
            xp_of(out).add_at(t, self.adv, v)
        else:
            t[self.adv] = v


# ---- the index Functions ----------------------------------------------------------------------
class _Index(Function):
    """``a[key]`` for an advanced key: a copy."""

    _array_forward = True
    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, key):
        ctx.key = key
        ctx.shape = a.shape
        r = key.get(a)
        return r if key.adv is not None else r.copy()

    @staticmethod
    def backward(ctx, g):
        # repeated indices each send their gradient to the same element: accumulate
        return _IndexInto.apply(g, ctx.key, ctx.shape, True), None


class _IndexInto(Function):
    """Zeros of ``shape`` with ``v`` written (or accumulated) at ``key``."""

    _array_forward = True
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, v, key, shape, accumulate):
        ctx.key = key
        out = xp_of(v).zeros(shape, dtype=v.dtype)
        key.put(out, v, accumulate)
        return out

    @staticmethod
    def backward(ctx, gg):
        return unary(_Index, gg, ctx.key), None, None, None


class _IndexPut(Function):
    """A copy of ``a`` with ``v`` (an array or a number) written or accumulated at ``key``."""

    _array_forward = True
    _node_name = "IndexPutBackward0"

    @staticmethod
    def _mutate(out, v, key, accumulate):
        if backend.is_array(v) and v.dtype != out.dtype:
            v = v.astype(out.dtype)
        key.put(out, v, accumulate)

    @staticmethod
    def forward(ctx, a, v, key, accumulate):
        ctx.key, ctx.acc = key, accumulate
        ctx.vndim = v.ndim if backend.is_array(v) else 0
        out = a.copy()
        _IndexPut._mutate(out, v, key, accumulate)
        return out

    @staticmethod
    def backward(ctx, g):
        need_a, need_v = ctx.needs_input_grad[:2]
        ga = gv = None
        if need_a:
            ga = g if ctx.acc else _IndexPut.apply(g, 0, ctx.key, False)
        if need_v:
            gv = unary(_Index, g, ctx.key)
            if ctx.vndim > gv.ndim:  # NOTE: matches torch: values may carry extra leading 1s
                gv = gv.reshape((1,) * (ctx.vndim - gv.ndim) + tuple(gv.shape))
        return ga, gv, None, None


class _CopySlices(_IndexPut):
    _node_name = "CopySlices"


class _CopyAll(_IndexPut):
    _node_name = "CopyBackwards"


class _SelectScatter(_IndexPut):
    _node_name = "SelectScatterBackward0"


class _SliceScatter(_IndexPut):
    _node_name = "SliceScatterBackward0"


# ---- parsing an index -------------------------------------------------------------------------
_BAD_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
    "valid indices (got {})"
)
_SEQ_WARN = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this "
    "will be interpreted as tensor index, x[torch.tensor(seq)], which will result either "
    "in an error or a different result"
)


def _as_items(index) -> tuple:
    if isinstance(index, tuple):
        return tuple(index)
    if isinstance(index, list) and len(index) < 32:
        for i in index:
            if (
                isinstance(i, (Tensor, list, tuple, slice, backend.ndarray))
                or i is None
                or i is Ellipsis
            ):
                # NOTE: matches torch (and old NumPy): such a list is read as a tuple, with a
                # deprecation warning
                warnings.warn(_SEQ_WARN, UserWarning, stacklevel=3)
                return tuple(index)
    return (index,)


def _index_array(it, xp):
    """An index object (tensor, list, NumPy array) as a backend array of valid dtype."""
    if isinstance(it, Tensor):
        arr = it._data
    elif isinstance(it, (list, tuple, range, backend.ndarray)):
        arr = backend.cpu.asarray(it)
        if arr.size == 0 and arr.dtype.kind in "fV":
            arr = arr.astype(_INT64)  # x[[]]: an empty list is an empty integer index
        if xp.device_type not in ("cpu", "meta"):
            arr = xp.asarray(arr)
    else:
        raise IndexError(_BAD_INDEX.format(type(it).__name__))
    kind = arr.dtype.kind
    if arr.ndim == 0 and kind in "iu":
        return arr  # a 0-d integer index acts as an int (select)
    if kind == "b":
        return arr
    if arr.dtype == backend.np_dtype("uint8"):
        warnings.warn(
            "indexing with dtype torch.uint8 is now deprecated, please use a dtype "
            "torch.bool instead.",
            UserWarning,
            stacklevel=4,
        )
        return arr.astype(bool)
    if kind not in "iu" or arr.dtype.itemsize < 4 or kind == "u":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr


def _parse(t: Tensor, index, copy_arrays: bool = False):
    """Split ``index`` into the basic key, the class of its view node, and the advanced key."""
    data = t._data
    shape = data.shape
    ndim = len(shape)
    xp = xp_of(data)
    meta = xp.device_type == "meta"
    items = []
    consumed = 0
    for it in _as_items(index):
        if it is None or it is Ellipsis or it is True or it is False:
            items.append(it)
            continue
        if isinstance(it, (int, slice)):
            items.append(it)
            consumed += 1
            continue
        if isinstance(it, float):
            raise IndexError(_BAD_INDEX.format("float"))
        if not isinstance(it, (Tensor, list, tuple, backend.ndarray)) and hasattr(it, "__index__"):
            items.append(operator.index(it))  # NumPy integer scalars
            consumed += 1
            continue
        arr = _index_array(it, xp)
        if arr.ndim == 0:
            if meta or xp_of(arr).device_type == "meta":
                if arr.dtype.kind == "b":
                    raise NotImplementedError(
                        "indexing with a boolean meta tensor: the result shape depends on the data"
                    )
                items.append(arr)
                consumed += 1
                continue
            v = arr.item()
            items.append(bool(v) if arr.dtype.kind == "b" else int(v))
            consumed += arr.dtype.kind != "b"
            continue
        if copy_arrays and (isinstance(it, Tensor) or isinstance(it, backend.ndarray)):
            # NOTE: deliberate difference: torch's backward raises if the index tensor is then
            # changed in place; ember keeps the indices the forward used
            arr = arr.copy()
        items.append(arr)
        consumed += arr.ndim if arr.dtype.kind == "b" else 1
    if consumed > ndim:
        if ndim == 0:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        raise IndexError(f"too many indices for tensor of dimension {ndim}")

    basic, adv = [], []
    has_adv, trivial = False, True  # trivial: the basic key leaves the tensor as it is
    last = None  # the view class of the last basic op (its grad_fn name)
    dim = 0
    n_ell = ndim - consumed
    for it in items:
        if it is None:
            basic.append(None)
            adv.append(_FULL)
            last, trivial = _UnsqueezeView, False
        elif it is Ellipsis:
            basic.extend((_FULL,) * n_ell)
            adv.extend((_FULL,) * n_ell)
            dim += n_ell
            n_ell = 0  # NOTE: matches torch: a second ``...`` adds no dims
        elif it is True or it is False:
            # NOTE: matches torch: a bool is a new dim of size 1 (or 0), indexed advanced-style
            basic.append(None)
            adv.append(xp.zeros(1 if it else 0, dtype=_INT64))
            has_adv, trivial = True, False
        elif isinstance(it, int):
            size = shape[dim]
            if not -size <= it < size:
                raise IndexError(
                    f"index {it} is out of bounds for dimension {dim} with size {size}"
                )
            basic.append(it)
            dim += 1
            last, trivial = _Select, False
        elif isinstance(it, slice):
            basic.append(_slice(it))
            adv.append(_FULL)
            dim += 1
            last = _BasicView
            if basic[-1] != _FULL:
                trivial = False
        elif it.dtype.kind == "b":
            k = it.ndim
            for j in range(k):
                if it.shape[j] != shape[dim + j]:
                    raise IndexError(
                        f"The shape of the mask {list(it.shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {list(shape)} at index {dim + j}"
                    )
            basic.extend((_FULL,) * k)
            adv.append(it)
            dim += k
            has_adv = True
        else:
            if it.ndim:
                _check_bounds(it, shape[dim], dim, IndexError, negative=True)
            basic.append(_FULL)
            adv.append(it)
            dim += 1
            has_adv = True
    basic.append(Ellipsis)
    basic = None if has_adv and trivial else tuple(basic)
    if not has_adv:
        return basic, last or _Alias, None
    while adv and adv[-1] is _FULL:
        adv.pop()
    return basic, last or _Alias, tuple(adv)


def _slice(s: slice) -> slice:
    step = None if s.step is None else operator.index(s.step)
    if step is not None and step <= 0:
        if step == 0:
            raise ValueError("slice step cannot be zero")
        raise ValueError("step must be greater than zero")
    start = None if s.start is None else operator.index(s.start)
    stop = None if s.stop is None else operator.index(s.stop)
    return slice(start, stop, step)


def _check_bounds(
    idx, size: int, dim: int, exc=RuntimeError, negative: bool = False, message: str | None = None
) -> None:
    if idx.size == 0 or xp_of(idx).device_type == "meta":
        return
    lo, hi = int(idx.min()), int(idx.max())
    if hi >= size or lo < (-size if negative else 0):
        bad = hi if hi >= size else lo
        raise exc(
            (message or "index {bad} is out of bounds for dimension {dim} with size {size}").format(
                bad=bad, dim=dim, size=size
            )
        )


# ---- __getitem__ / __setitem__ ----------------------------------------------------------------
def _getitem(self: Tensor, index) -> Tensor:
    """``x[index]``: basic indexing gives a view, advanced indexing a copy (as in PyTorch)."""
    if index.__class__ is int and self._data.ndim:  # the common x[i]
        size = self._data.shape[0]
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size {size}")
        return _view_op(_Select, self, (index, Ellipsis))
    record = self._requires_grad and _gm.state.enabled
    basic, cls, adv = _parse(self, index, record)
    out = self
    if basic is not None:
        out = _view_op(cls, self, basic)
    if adv is not None:
        out = unary(_Index, out, _Key(None, adv))
    return out


def _setitem(self: Tensor, index, value) -> None:
    """``x[index] = value``: write in place (a number or a tensor, broadcast and cast to x's
    dtype); recorded by autograd as an in-place op."""
    check_inference_write(self)
    record = _gm.state.enabled and (
        self._requires_grad or isinstance(value, Tensor) and value._requires_grad
    )
    basic, cls, adv = _parse(self, index, record)
    key = _Key(basic, adv)
    data = self._data
    xp = xp_of(data)
    _check_writable(data)
    if isinstance(value, Tensor):
        v = value._data
        if xp.device_type != "meta":
            _check_overlap(xp, key, data, v)
    elif isinstance(value, (int, float)) or isinstance(value, backend.generic):
        v = value = _scalar_as(xp, value, data.dtype)
    else:
        raise TypeError(f"can't assign a {_type_name(value)} to a ember.{_legacy(self)}")
    if not record:
        _mutate_guarded(_IndexPut._mutate, key, data, v, key, False)
        self._vc[0] += 1
        return
    if self._grad_fn is None and self._requires_grad:
        raise RuntimeError(
            ("a view of a leaf Variable" if adv is None else "a leaf Variable")
            + " that requires grad is being used in an in-place operation."
        )
    # the grad_fn PyTorch gives: copy_ on the tensor itself, on a view of it, or index_put_
    put = _CopyAll if cls is _Alias and adv is None else _IndexPut if basic is None else _CopySlices
    try:
        _setitem_inplace(self, put, key, value)
    except ValueError:
        _raise_shape_mismatch(key, data, v)


def _setitem_fn(t, put, key, value):
    return put.apply(t, value, key, False)


_setitem_fn.__name__ = "index_put"
_setitem_inplace = inplace(_setitem_fn)


def _scalar_as(xp, value, dt):
    """A Python number as a 0-d array of dtype ``dt``, refusing what PyTorch refuses."""
    if dt.kind in "iu":
        v = value.item() if isinstance(value, backend.generic) else value
        info = xp.iinfo(dt)
        # NOTE: matches torch: unsigned types also take the negative values of their signed
        # counterpart, wrapping (-1 -> 255); anything else out of range is refused
        lo = -(1 << (8 * dt.itemsize - 1)) if dt.kind == "u" else info.min
        if not (v == v and abs(v) != float("inf") and lo <= v <= info.max):
            raise RuntimeError(
                f"value cannot be converted to type {_C_NAMES[dt.name]} without overflow"
            )
        return xp.asarray(int(v)).astype(dt)
    return xp.asarray(backend.scalar_for(value, dt)).astype(dt)


_C_NAMES = {
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
}


def _raise_shape_mismatch(key: _Key, data, v):
    try:
        want = list(key.get(data).shape)
    except Exception:  # noqa: BLE001  (an error path: report what we can)
        want = "?"
    raise RuntimeError(
        f"shape mismatch: value tensor of shape {list(getattr(v, 'shape', ()))} "
        f"cannot be broadcast to indexing result of shape {want}"
    ) from None


def _type_name(v) -> str:
    m = type(v).__module__
    return type(v).__name__ if m == "builtins" else f"{m}.{type(v).__name__}"


def _legacy(t: Tensor) -> str:
    return f"{_name(t._data.dtype)}Tensor"


def _check_writable(data) -> None:
    flags = getattr(data, "flags", None)
    if flags is not None and not flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def _mutate_guarded(mutate, key, out, *args) -> None:
    """Run a raw in-place write into ``out``, with PyTorch's errors for what NumPy refuses."""
    try:
        mutate(out, *args)
    except ValueError as e:
        if "read-only" in str(e):
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to "
                "a single memory location. Please clone() the tensor before performing the "
                "operation."
            ) from None
        if key is None:
            raise
        _raise_shape_mismatch(key, out, args[0])


def _write_errors(key, fn, *args):
    try:
        return fn(*args)
    except ValueError:
        _raise_shape_mismatch(key, args[0]._data, args[1]._data)


def _check_overlap(xp, key: _Key, dst, src) -> None:
    # NOTE: matches torch: writing a tensor into memory it partly overlaps is refused (only
    # checked, as in torch, when both are dense; exact self-assignment x[:] = x is allowed).
    if not (xp.is_contiguous(dst) and xp.is_contiguous(src)) or not src.size:
        return
    t = dst[key.basic] if key.basic is not None else dst
    if key.adv is None and not xp.is_contiguous(t):
        return
    a0, b0 = xp.data_ptr(t if key.adv is None else dst), xp.data_ptr(src)
    a1 = a0 + (t if key.adv is None else dst).nbytes
    b1 = b0 + src.nbytes
    if a0 < b1 and b0 < a1:
        if key.adv is None and a0 == b0 and a1 == b1:
            return
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )


# ---- in-place variants: a fast path that writes directly when nothing is recorded ------------
def _inplace_method(prep, name: str):
    """``t.op_(...)`` for an op given as ``prep(t, ...) -> (Function, args)``: without
    recording, the Function's ``_mutate`` writes into ``t``; with recording, ``inplace``."""

    def op(self, *args, **kwargs):
        cls, fargs = prep(self, *args, **kwargs)
        return cls.apply(*fargs)

    op.__name__ = name
    slow = inplace(op)

    def method(self, *args, **kwargs):
        check_inference_write(self)
        cls, fargs = prep(self, *args, **kwargs)
        _check_writable(self._data)
        if _gm.state.enabled and any(isinstance(a, Tensor) and a._requires_grad for a in fargs):
            return slow(self, *args, **kwargs)
        raw = [a._data if isinstance(a, Tensor) else a for a in fargs]
        key = raw[2] if cls is _IndexPut else None
        _mutate_guarded(cls._mutate, key, *raw)
        self._vc[0] += 1
        return self

    method.__name__ = name + "_"
    method.__doc__ = f"In-place version of :func:`{name}`."
    return method


def _copy_and(mutate, a, *rest):
    """The out-of-place form of an in-place ``mutate``: a copy of ``a``, changed."""
    out = a.copy()
    mutate(out, *rest)
    return out


# ---- index_put, select_scatter, slice_scatter -------------------------------------------------
def _prep_index_put(input: Tensor, indices, values, accumulate: bool = False):
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' must be tuple of Tensors")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 1, but got {type(t).__name__}"
            )
    if not isinstance(values, Tensor):
        raise TypeError(
            f"index_put(): argument 'values' must be Tensor, not {type(values).__name__}"
        )
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{_name(input._data.dtype)} for the destination and "
            f"{_name(values._data.dtype)} for the source."
        )
    basic, _, adv = _parse(input, tuple(indices), _gm.state.enabled)
    return _IndexPut, (input, values, _Key(basic, adv), bool(accumulate))


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``values`` written (or added) at ``input[indices]``.

    Example:
        >>> ember.zeros(3).index_put((ember.tensor([0, 0]),), ember.ones(2), accumulate=True)
        tensor([2., 0., 0.])
    """
    cls, args = _prep_index_put(input, indices, values, accumulate)
    return _write_errors(args[2], cls.apply, *args)


def _scatter_like(input: Tensor, src: Tensor, key: tuple, cls):
    want = input._data[key].shape
    if tuple(src.shape) != tuple(want):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(want)}"
        )
    return cls.apply(input, src.to(input.dtype), _Key(key, None), False)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` written at ``input.select(dim, index)``."""
    n = input._data.ndim
    d = _wrap_dim(dim, n)
    index = operator.index(index)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{list(input.shape)} at dimension {d}"
        )
    return _scatter_like(input, src, (_FULL,) * d + (index, Ellipsis), _SelectScatter)


def slice_scatter(
    input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1
) -> Tensor:
    """A copy of ``input`` with ``src`` written at ``input[..., start:end:step, ...]`` (in
    ``dim``)."""
    d = _wrap_dim(dim, input._data.ndim)
    key = (_FULL,) * d + (_slice(slice(start, end, step)), Ellipsis)
    return _scatter_like(input, src, key, _SliceScatter)


__all__ = ["index_put", "select_scatter", "slice_scatter"]

Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem
Tensor.index_put = index_put
Tensor.index_put_ = _inplace_method(_prep_index_put, "index_put")
Tensor.select_scatter = select_scatter
Tensor.slice_scatter = slice_scatter
