"""Indexing: ``Tensor.__getitem__``/``__setitem__`` and the index ops (``gather``, ``scatter``,
``index_select``, ``index_add``, ``masked_select``, ``take``, ``put``, ``nonzero``, ``unique``...).

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
from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.ops.pointwise import _name, inplace
from ember.ops.shape import (
    _FULL,
    _Alias,
    _BasicView,
    _Select,
    _UnsqueezeView,
    _view_op,
    _ViewScatter,
)
from ember.tensor import Tensor, _wrap, _wrap_dim

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
_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
              "valid indices (got {})")
_SEQ_WARN = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
             "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this "
             "will be interpreted as tensor index, x[torch.tensor(seq)], which will result either "
             "in an error or a different result")


def _as_items(index) -> tuple:
    if isinstance(index, tuple):
        return tuple(index)
    if isinstance(index, list) and len(index) < 32:
        for i in index:
            if isinstance(i, (Tensor, list, tuple, slice, backend.ndarray)) or i is None or \
                    i is Ellipsis:
                # NOTE: matches torch (and old NumPy): such a list is read as a tuple, with a
                # deprecation warning
                warnings.warn(_SEQ_WARN, UserWarning, stacklevel=3)
                return tuple(index)
    return (index,)


def _index_array(it, xp):
    """An index object (tensor, list, NumPy array) as a backend array of valid dtype."""
    if isinstance(it, Tensor):
        arr = it._data
    elif isinstance(it, (list, tuple, backend.ndarray)):
        arr = backend.cpu.asarray(it)
        if arr.size == 0 and arr.dtype.kind == "f":
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
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                      "torch.bool instead.", UserWarning, stacklevel=4)
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
                    raise NotImplementedError("indexing with a boolean meta tensor: the result "
                                              "shape depends on the data")
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
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
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
                    f"index {it} is out of bounds for dimension {dim} with size {size}")
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
                        f"shape of the indexed tensor {list(shape)} at index {dim + j}")
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


def _check_bounds(idx, size: int, dim: int, exc=RuntimeError, negative: bool = False,
                  message: str | None = None) -> None:
    if idx.size == 0 or xp_of(idx).device_type == "meta":
        return
    lo, hi = int(idx.min()), int(idx.max())
    if hi >= size or lo < (-size if negative else 0):
        bad = hi if hi >= size else lo
        raise exc((message or "index {bad} is out of bounds for dimension {dim} with size "
                   "{size}").format(bad=bad, dim=dim, size=size))


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
    record = _gm.state.enabled and (
        self._requires_grad or isinstance(value, Tensor) and value._requires_grad)
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
        raise RuntimeError(("a view of a leaf Variable" if adv is None else "a leaf Variable") +
                           " that requires grad is being used in an in-place operation.")
    # the grad_fn PyTorch gives: copy_ on the tensor itself, on a view of it, or index_put_
    put = _CopyAll if cls is _Alias and adv is None else _IndexPut if basic is None else \
        _CopySlices
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
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dt.name]} without "
                               "overflow")
        return xp.asarray(int(v)).astype(dt)
    return xp.asarray(value).astype(dt)


_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
            "int64": "int64_t"}


def _raise_shape_mismatch(key: _Key, data, v):
    try:
        want = list(key.get(data).shape)
    except Exception:  # noqa: BLE001  (an error path: report what we can)
        want = "?"
    raise RuntimeError(f"shape mismatch: value tensor of shape {list(getattr(v, 'shape', ()))} "
                       f"cannot be broadcast to indexing result of shape {want}") from None


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
            "single memory location. Please clone() the tensor before performing the operation.")


def _mutate_guarded(mutate, key, out, *args) -> None:
    """Run a raw in-place write into ``out``, with PyTorch's errors for what NumPy refuses."""
    try:
        mutate(out, *args)
    except ValueError as e:
        if "read-only" in str(e):
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to "
                "a single memory location. Please clone() the tensor before performing the "
                "operation.") from None
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
            "operation.")


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


# ---- gather / scatter -------------------------------------------------------------------------
def _grid(xp, idx, dim: int) -> tuple:
    """The advanced key that sends element ``p`` of ``idx`` to ``p`` with ``p[dim] = idx[p]``."""
    n = idx.ndim
    key = []
    for d in range(n):
        if d == dim:
            key.append(idx)
        else:
            sh = [1] * n
            sh[d] = idx.shape[d]
            key.append(xp.arange(idx.shape[d]).reshape(sh))
    return tuple(key)


def _at_least_1d(out, idx, src):
    """Scatter into a 0-d ``out`` (or with a 0-d index) as into 1-element 1-D ones."""
    if out.ndim == 0:
        out = out.reshape(1)
    if idx.ndim == 0:
        idx = idx.reshape(1)
    if backend.is_array(src) and src.ndim == 0:
        src = src.reshape(1)
    return out, idx, src


def _part(src, shape):
    """The leading ``shape`` block of ``src`` (scatter reads only that much of it)."""
    if tuple(src.shape) == tuple(shape):
        return src
    return src[tuple(slice(0, s) for s in shape)]


def _pad_to(g: Tensor, shape) -> Tensor:
    """``g`` in the leading block of zeros of ``shape`` (the gradient of ``_part``)."""
    if tuple(g.shape) == tuple(shape):
        return g
    key = tuple(slice(0, s) for s in g.shape) + (Ellipsis,)
    return _ViewScatter.apply(g, key, tuple(shape))


class Gather(Function):
    _array_forward = True
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, idx, dim):
        ctx.dim, ctx.shape = dim, a.shape
        ctx.save_for_backward(idx)
        if a.ndim == 0 or idx.ndim == 0:  # as 1-element 1-D tensors
            return a.reshape(-1)[_grid(xp_of(a), idx.reshape(-1), 0)].reshape(idx.shape)
        return a[_grid(xp_of(a), idx, dim)]

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        zeros = _wrap(xp_of(g._data).zeros(ctx.shape, dtype=g._data.dtype))
        return ScatterAdd.apply(zeros, idx, g, ctx.dim), None, None


class Scatter(Function):
    _array_forward = True
    _node_name = "ScatterBackward0"

    @staticmethod
    def _mutate(out, idx, src, dim):
        out, idx, src = _at_least_1d(out, idx, src)
        out[_grid(xp_of(out), idx, dim)] = _part(src, idx.shape)

    @staticmethod
    def forward(ctx, a, idx, src, dim):
        ctx.dim, ctx.src_shape = dim, src.shape
        ctx.save_for_backward(idx)
        return _copy_and(Scatter._mutate, a, idx, src, dim)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_a, _, need_s = ctx.needs_input_grad[:3]
        ga = ScatterValue.apply(g, idx, 0, ctx.dim) if need_a else None
        gs = _pad_to(gather(g, ctx.dim, idx), ctx.src_shape) if need_s else None
        return ga, None, gs, None


class _FillAt(Function):
    """Fill with a number the positions ``_mutate`` selects; the gradient of the input is the
    incoming gradient with those positions filled with 0 (one body for scatter and index_fill)."""

    _array_forward = True

    @classmethod
    def forward(cls, ctx, a, idx, value, dim):
        ctx.dim = dim
        ctx.save_for_backward(idx)
        return _copy_and(cls._mutate, a, idx, value, dim)

    @classmethod
    def backward(cls, ctx, g):
        (idx,) = ctx.saved_tensors
        return cls.apply(g, idx, 0, ctx.dim), None, None, None


class ScatterValue(_FillAt):
    _array_forward = True
    _node_name = "ScatterBackward1"

    @staticmethod
    def _mutate(out, idx, value, dim):
        out, idx, _ = _at_least_1d(out, idx, None)
        out[_grid(xp_of(out), idx, dim)] = value



class ScatterAdd(Function):
    _array_forward = True
    _node_name = "ScatterAddBackward0"

    @staticmethod
    def _mutate(out, idx, src, dim):
        out, idx, src = _at_least_1d(out, idx, src)
        xp_of(out).add_at(out, _grid(xp_of(out), idx, dim), _part(src, idx.shape))

    @staticmethod
    def forward(ctx, a, idx, src, dim):
        ctx.dim, ctx.src_shape = dim, src.shape
        ctx.save_for_backward(idx)
        return _copy_and(ScatterAdd._mutate, a, idx, src, dim)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_s = ctx.needs_input_grad[2]
        gs = _pad_to(gather(g, ctx.dim, idx), ctx.src_shape) if need_s else None
        return g, None, gs, None


class _ScatterReduce(Function):
    """``scatter(..., reduce="add" | "multiply")``: no derivative, as in PyTorch."""

    _array_forward = True
    _node_name = "NotImplemented"

    @staticmethod
    def _mutate(out, idx, src, dim, reduce):
        out, idx, src = _at_least_1d(out, idx, src)
        xp = xp_of(out)
        key = _grid(xp, idx, dim)
        src = _part(src, idx.shape) if backend.is_array(src) else src
        if reduce == "add":
            xp.add_at(out, key, src)
        else:
            xp.multiply.at(out, key, src)

    @staticmethod
    def forward(ctx, a, idx, src, dim, reduce):
        return _copy_and(_ScatterReduce._mutate, a, idx, src, dim, reduce)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::scatter is not implemented")


def _int_index(index, op: str, what: str = "dtype int32/int64 for index"):
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._data.dtype.kind not in "iu" or index._data.dtype.itemsize < 4:
        raise RuntimeError(f"{op}(): Expected {what}")
    return index


def _prep_gather(input: Tensor, dim: int, index: Tensor):
    _int_index(index, "gather")
    a, i = input._data, index._data
    n = max(a.ndim, 1)
    if max(i.ndim, 1) != n:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    d = _wrap_dim(dim, a.ndim)
    ashape = a.shape or (1,)
    ishape = i.shape or (1,)
    for k in range(n):
        if k != d and ishape[k] > ashape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(i.shape)} to be no "
                f"larger than self {list(a.shape)} apart from dimension {d}")
    _check_bounds(i, ashape[d], d)
    return d


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False,
           out=None) -> Tensor:
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on): values along ``dim`` at
    ``index``; the result has ``index``'s shape.

    Example:
        >>> ember.tensor([[1, 2], [3, 4]]).gather(1, ember.tensor([[1], [0]]))
        tensor([[2],
                [3]])
    """
    d = _prep_gather(input, dim, index)
    return _maybe_out(Gather.apply(input, index, d), out)


def _maybe_out(result: Tensor, out) -> Tensor:
    if out is None:
        return result
    from ember.ops.pointwise import _out

    return _out(result, out)


def _prep_scatter(input: Tensor, dim: int, index: Tensor, src=None, value=None, *,
                  reduce=None, op="scatter"):
    if src is not None and value is not None:
        raise TypeError(f"{op}() got both 'src' and 'value'")
    if src is None:
        src = value
    if src is None:
        raise TypeError(f"{op}() missing 1 required positional argument: 'src' or 'value'")
    _int_index(index, op)
    a, i = input._data, index._data
    if i.ndim != a.ndim and not (a.ndim <= 1 and i.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    d = _wrap_dim(dim, a.ndim)
    is_tensor = isinstance(src, Tensor)
    if is_tensor:
        if src._data.dtype != a.dtype:
            raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype")
        if src._data.ndim != i.ndim and not (src._data.ndim <= 1 and i.ndim <= 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
    ashape, ishape = a.shape or (1,), i.shape or (1,)
    sshape = (src._data.shape or (1,)) if is_tensor else None
    for k in range(len(ishape)):
        if k != d and ishape[k] > ashape[k] or is_tensor and ishape[k] > sshape[k]:
            extra = f" and to be no larger size than src {list(src.shape)}" if is_tensor else ""
            raise RuntimeError(
                f"Expected index {list(i.shape)} to be no larger than self {list(a.shape)} apart "
                f"from dimension {d}{extra}")
    _check_bounds(i, ashape[d], d)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if is_tensor:
            warnings.warn(
                "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
                "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
                "reduction options.", UserWarning, stacklevel=4)
        return _ScatterReduce, (input, index, src, d, reduce)
    if op == "scatter_add":
        return ScatterAdd, (input, index, src, d)
    if is_tensor:
        return Scatter, (input, index, src, d)
    return ScatterValue, (input, index, _number(src, "value"), d)


def _number(v, what: str):
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, backend.generic):
        return v.item()
    raise TypeError(f"{what} must be a number or a Tensor, got {type(v).__name__}")


def scatter(input: Tensor, dim: int, index: Tensor, src=None, value=None, *,
            reduce=None) -> Tensor:
    """A copy of ``input`` with ``src`` (a tensor, or a number ``value``) written at ``index``
    along ``dim``: ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``.

    Example:
        >>> ember.zeros(3).scatter(0, ember.tensor([2]), 5.0)
        tensor([0., 0., 5.])
    """
    cls, args = _prep_scatter(input, dim, index, src, value, reduce=reduce)
    return cls.apply(*args)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` added at ``index`` along ``dim`` (repeats accumulate).

    Example:
        >>> ember.zeros(2).scatter_add(0, ember.tensor([1, 1]), ember.ones(2))
        tensor([0., 2.])
    """
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' must be Tensor, not {type(src).__name__}")
    cls, args = _prep_scatter(input, dim, index, src, op="scatter_add")
    return cls.apply(*args)


def _prep_scatter_add_m(self, dim, index, src):
    return _prep_scatter(self, dim, index, src, op="scatter_add")


def take_along_dim(input: Tensor, indices: Tensor, dim=None, *, out=None) -> Tensor:
    """Values of ``input`` at ``indices`` along ``dim`` (the flattened input when ``dim`` is
    None); ``input`` and ``indices`` broadcast except along ``dim``.

    Example:
        >>> x = ember.tensor([[10, 30, 20]])
        >>> ember.take_along_dim(x, x.argsort(1), 1)
        tensor([[10, 20, 30]])
    """
    if dim is None:
        return _maybe_out(gather(input.reshape(-1), 0, indices.reshape(-1)), out)
    if input.ndim != indices.ndim:
        raise RuntimeError(
            f"torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices")
    d = _wrap_dim(dim, input.ndim)
    from ember.ops.shape import _broadcast_pair

    a, i = list(input.shape), list(indices.shape)
    a[d] = i[d] = 1
    shape = list(_broadcast_pair(tuple(a), tuple(i)))
    ia, ii = list(shape), list(shape)
    ia[d], ii[d] = input.shape[d], indices.shape[d]
    return _maybe_out(gather(input.expand(ia), d, indices.expand(ii)), out)


# ---- index_select / index_add / index_copy / index_fill ---------------------------------------
def _dim_key(idx, dim: int) -> tuple:
    return (_FULL,) * dim + (idx,)


def _prep_index(input: Tensor, dim: int, index: Tensor, op: str, bounds_exc=IndexError):
    _int_index(index, op, "dtype int32/int64 for index" + (
        "" if op == "index_select" else f" but got: {_name(index._data.dtype)}"))
    if index._data.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector" + (
            "" if op == "index_select" else
            f", but got dim: {index.ndim} with type: {_name(index._data.dtype)} and size: "
            f"{list(index.shape)}"))
    n = input._data.ndim
    d = _wrap_dim(dim, n)
    size = input._data.shape[d] if n else 1
    _check_bounds(index._data, size, d, bounds_exc,
                  message=None if op != "index_select" else
                  "index_select(): index {bad} is out of bounds for dimension {dim} with size "
                  "{size}")
    return d


class IndexSelect(Function):
    _array_forward = True
    _node_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, a, idx, dim):
        ctx.dim, ctx.shape = dim, a.shape
        ctx.save_for_backward(idx)
        if a.ndim == 0:
            return a.reshape(1)[idx.reshape(-1)].reshape(())
        return a[_dim_key(idx.reshape(-1), dim)]

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        zeros = _wrap(xp_of(g._data).zeros(ctx.shape, dtype=g._data.dtype))
        return IndexAdd.apply(zeros, idx, g, ctx.dim, 1), None, None


def index_select(input: Tensor, dim: int, index: Tensor, *, out=None) -> Tensor:
    """The slices of ``input`` at ``index`` (1-D) along ``dim`` (a copy).

    Example:
        >>> ember.tensor([[1, 2], [3, 4]]).index_select(1, ember.tensor([1, 1]))
        tensor([[2, 2],
                [4, 4]])
    """
    d = _prep_index(input, dim, index, "index_select", RuntimeError)
    if input._data.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{index.numel()} value(s)")
    return _maybe_out(IndexSelect.apply(input, index, d), out)


def _source_checks(input, index, source, d, op):
    s, a = source._data.shape, input._data.shape
    if source._data.dtype != input._data.dtype:
        if op == "index_add_":
            raise RuntimeError(f"index_add_(): self ({_name(input._data.dtype)}) and source "
                               f"({_name(source._data.dtype)}) must have the same scalar type")
        raise RuntimeError(f"{op}(): self and source expected to have the same dtype, but got "
                           f"(self) {_name(input._data.dtype)} and (source) "
                           f"{_name(source._data.dtype)}")
    sn = s if s else (1,)
    an = a if a else (1,)
    if len(sn) != len(an) or any(
            x != y for k, (x, y) in enumerate(zip(sn, an, strict=True)) if k != d):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(a)} source.shape = {list(s)}")
    if index.numel() != sn[d]:
        raise RuntimeError(f"{op}(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({sn[d]}), for dim: {d}")


class IndexAdd(Function):
    _array_forward = True
    _node_name = "IndexAddBackward0"

    @staticmethod
    def _mutate(out, idx, src, dim, alpha):
        if out.ndim == 0:
            out = out.reshape(1)
        src = src.reshape(out.shape[:dim] + (idx.size,) + out.shape[dim + 1:])
        xp_of(out).add_at(out, _dim_key(idx.reshape(-1), dim), src if alpha == 1 else
                          src * alpha)

    @staticmethod
    def forward(ctx, a, idx, src, dim, alpha):
        ctx.dim, ctx.alpha, ctx.src_shape = dim, alpha, src.shape
        ctx.save_for_backward(idx)
        return _copy_and(IndexAdd._mutate, a, idx, src, dim, alpha)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        gs = None
        if ctx.needs_input_grad[2]:
            gs = index_select(g.reshape(-1) if g.ndim == 0 else g, ctx.dim, idx)
            gs = (gs if ctx.alpha == 1 else gs * ctx.alpha).reshape(ctx.src_shape)
        return g, None, gs, None, None


def _prep_index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1):
    d = _prep_index(input, dim, index, "index_add_", RuntimeError)
    _source_checks(input, index, source, d, "index_add_")
    return IndexAdd, (input, index, source, d, alpha)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """A copy of ``input`` with ``alpha * source`` added at ``index`` along ``dim`` (repeated
    indices accumulate).

    Example:
        >>> ember.zeros(3).index_add(0, ember.tensor([0, 0]), ember.ones(2))
        tensor([2., 0., 0.])
    """
    cls, args = _prep_index_add(input, dim, index, source, alpha=alpha)
    return cls.apply(*args)


class IndexCopy(Function):
    _array_forward = True
    _node_name = "IndexCopyBackward0"

    @staticmethod
    def _mutate(out, idx, src, dim):
        if out.ndim == 0:
            out = out.reshape(1)
        out[_dim_key(idx.reshape(-1), dim)] = src.reshape(
            out.shape[:dim] + (idx.size,) + out.shape[dim + 1:])

    @staticmethod
    def forward(ctx, a, idx, src, dim):
        ctx.dim, ctx.src_shape = dim, src.shape
        ctx.save_for_backward(idx)
        return _copy_and(IndexCopy._mutate, a, idx, src, dim)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_a, _, need_s = ctx.needs_input_grad[:3]
        g1 = g.reshape(-1) if g.ndim == 0 else g
        ga = IndexFill.apply(g, idx, 0, ctx.dim) if need_a else None
        gs = index_select(g1, ctx.dim, idx).reshape(ctx.src_shape) if need_s else None
        return ga, None, gs, None


def _prep_index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor):
    d = _prep_index(input, dim, index, "index_copy_")
    _source_checks(input, index, source, d, "index_copy_")
    return IndexCopy, (input, index, source, d)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with the slices of ``source`` written at ``index`` along ``dim``.

    Example:
        >>> ember.zeros(3).index_copy(0, ember.tensor([2]), ember.ones(1))
        tensor([0., 0., 1.])
    """
    cls, args = _prep_index_copy(input, dim, index, source)
    return cls.apply(*args)


class IndexFill(_FillAt):
    _array_forward = True
    _node_name = "IndexFillBackward0"

    @staticmethod
    def _mutate(out, idx, value, dim):
        if out.ndim == 0:
            out = out.reshape(1)
        out[_dim_key(idx.reshape(-1), dim)] = value



class IndexFillTensor(IndexFill):
    _node_name = "IndexFillBackward1"

    @staticmethod
    def forward(ctx, a, idx, value, dim):
        ctx.dim = dim
        ctx.save_for_backward(idx)
        return _copy_and(IndexFill._mutate, a, idx, value.astype(a.dtype), dim)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_a, _, need_v = ctx.needs_input_grad[:3]
        ga = IndexFill.apply(g, idx, 0, ctx.dim) if need_a else None
        gv = None
        if need_v:  # every filled element once, however often its index repeats
            u = _wrap(xp_of(idx._data).unique(idx._data.reshape(-1)))
            gv = index_select(g.reshape(-1) if g.ndim == 0 else g, ctx.dim, u).sum()
        return ga, None, gv, None


def _prep_index_fill(input: Tensor, dim: int, index: Tensor, value):
    d = _prep_index(input, dim, index, "index_fill_")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        return IndexFillTensor, (input, index, value, d)
    return IndexFill, (input, index, _number(value, "value"), d)


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """A copy of ``input`` with the slices at ``index`` along ``dim`` set to ``value``.

    Example:
        >>> ember.zeros(3).index_fill(0, ember.tensor([1]), 7.0)
        tensor([0., 7., 0.])
    """
    cls, args = _prep_index_fill(input, dim, index, value)
    return cls.apply(*args)


# ---- masks ------------------------------------------------------------------------------------
def _bool_mask(mask, op: str, msg: str | None = None):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{op}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype.kind != "b":
        raise RuntimeError(msg or f"{op}: expected BoolTensor for mask")
    return mask


def _data_dependent(op: str, arr) -> None:
    if xp_of(arr).device_type == "meta":
        raise NotImplementedError(f"{op} on a meta tensor: the result shape depends on the data, "
                                  "which a meta tensor does not have")


class MaskedSelect(Function):
    _array_forward = True
    _node_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, a, m, shape):
        xp = xp_of(a)
        ctx.shape = shape
        ctx.save_for_backward(m)
        mb = xp.broadcast_to(m, shape)
        return xp.broadcast_to(a, shape)[mb]

    @staticmethod
    def backward(ctx, g):
        (m,) = ctx.saved_tensors
        key = _Key(None, (xp_of(m._data).broadcast_to(m._data, ctx.shape),))
        return _IndexInto.apply(g, key, ctx.shape, False), None, None


def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """The elements of ``input`` where ``mask`` is True, as a 1-D tensor (they broadcast).

    Example:
        >>> ember.tensor([1, 2, 3]).masked_select(ember.tensor([True, False, True]))
        tensor([1, 3])
    """
    _bool_mask(mask, "masked_select")
    _data_dependent("masked_select", input._data)
    _data_dependent("masked_select", mask._data)
    from ember.ops.shape import _broadcast_pair

    shape = _broadcast_pair(input._data.shape, mask._data.shape)
    return _maybe_out(MaskedSelect.apply(input, mask, shape), out)


class MaskedScatter(Function):
    _array_forward = True
    _node_name = "MaskedScatterBackward0"

    @staticmethod
    def _mutate(out, m, src):
        xp = xp_of(out)
        if xp.device_type == "meta":
            return
        mb = xp.broadcast_to(m, out.shape)
        n = int(xp.count_nonzero(mb))
        if src.size < n:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        out[mb] = src.reshape(-1)[:n]

    @staticmethod
    def forward(ctx, a, m, src, shape):
        xp = xp_of(a)
        ctx.shape, ctx.src_shape = shape, src.shape
        ctx.save_for_backward(m)
        out = xp.broadcast_to(a, shape).copy()
        MaskedScatter._mutate(out, m, src)
        return out

    @staticmethod
    def backward(ctx, g):
        (m,) = ctx.saved_tensors
        need_a, _, need_s = ctx.needs_input_grad[:3]
        key = _Key(None, (xp_of(m._data).broadcast_to(m._data, ctx.shape),))
        ga = _IndexPut.apply(g, 0, key, False) if need_a else None
        gs = None
        if need_s:
            vals = unary(_Index, g, key)
            numel = 1
            for s in ctx.src_shape:
                numel *= s
            gs = _pad_to(vals, (numel,)).reshape(ctx.src_shape)
        return ga, None, gs, None


def _prep_masked_scatter(input: Tensor, mask: Tensor, source: Tensor, inplace_: bool = False):
    _bool_mask(mask, "masked_scatter_", "masked_scatter_ only supports boolean masks, but got "
               f"mask with dtype {_name(mask._data.dtype) if isinstance(mask, Tensor) else ''}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got {_name(input._data.dtype)} and {_name(source._data.dtype)}")
    from ember.ops.shape import _broadcast_pair

    if inplace_:
        shape = input._data.shape
        if _broadcast_pair(shape, mask._data.shape) != shape:
            raise RuntimeError(f"masked_scatter_: the mask of shape {list(mask.shape)} does not "
                               f"broadcast to self of shape {list(shape)}")
    else:
        shape = _broadcast_pair(input._data.shape, mask._data.shape)
    return MaskedScatter, (input, mask, source, shape)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``input`` with the True positions of ``mask`` filled, in order, from the first
    elements of ``source``.

    Example:
        >>> ember.zeros(3).masked_scatter(ember.tensor([True, False, True]), ember.ones(2) * 5)
        tensor([5., 0., 5.])
    """
    cls, args = _prep_masked_scatter(input, mask, source)
    return cls.apply(*args)


def _prep_masked_scatter_m(self, mask, source):
    cls, (a, m, s, shape) = _prep_masked_scatter(self, mask, source, True)
    return _MaskedScatterSelf, (a, m, s)


class _MaskedScatterSelf(MaskedScatter):
    """``masked_scatter`` with the output of ``self``'s shape (the in-place form)."""

    _node_name = "MaskedScatterBackward0"

    @staticmethod
    def forward(ctx, a, m, src):
        return MaskedScatter.forward(ctx, a, m, src, a.shape)

    @staticmethod
    def backward(ctx, g):
        return MaskedScatter.backward(ctx, g)[:3]


# ---- take / put -------------------------------------------------------------------------------
def _take_bounds(idx, numel: int) -> None:
    _check_bounds(idx, numel, 0, IndexError, negative=True,
                  message="out of range: tried to access index {bad} on a tensor of {size} "
                  "elements.")


class Take(Function):
    _array_forward = True
    _node_name = "TakeBackward0"

    @staticmethod
    def forward(ctx, a, idx):
        ctx.shape = a.shape
        ctx.save_for_backward(idx)
        return a.reshape(-1)[idx]

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        numel = 1
        for s in ctx.shape:
            numel *= s
        flat = _IndexInto.apply(g, _Key(None, (idx._data,)), (numel,), True)
        return flat.reshape(ctx.shape), None


def take(input: Tensor, index: Tensor) -> Tensor:
    """Elements of the flattened ``input`` at ``index`` (negative counts from the end); the
    result has ``index``'s shape.

    Example:
        >>> ember.tensor([[1, 2], [3, 4]]).take(ember.tensor([0, -1]))
        tensor([1, 4])
    """
    _int_index(index, "take", "dtype int64 for index")
    _take_bounds(index._data, input.numel())
    return Take.apply(input, index)


class Put(Function):
    _array_forward = True
    _node_name = "PutBackward0"

    @staticmethod
    def _mutate(out, idx, src, accumulate):
        flat = out.reshape(-1)
        v = src.reshape(-1) if backend.is_array(src) else src
        _Key(None, (idx.reshape(-1),)).put(flat, v, accumulate)
        if not xp_of(out).is_contiguous(out):  # reshape had to copy: write back
            out[...] = flat.reshape(out.shape)

    @staticmethod
    def forward(ctx, a, idx, src, accumulate):
        ctx.acc = accumulate
        ctx.src_shape = src.shape if backend.is_array(src) else None
        ctx.save_for_backward(idx)
        return _copy_and(Put._mutate, a, idx, src, accumulate)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        need_a, _, need_s = ctx.needs_input_grad[:3]
        ga = gs = None
        if need_a:
            ga = g if ctx.acc else Put.apply(g, idx, 0, False)
        if need_s:
            gs = take(g, idx).reshape(ctx.src_shape)
        return ga, None, gs, None


def _prep_put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False):
    _int_index(index, "put_", "dtype int64 for index")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_name(input._data.dtype)} and source.dtype = "
                           f"{_name(source._data.dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, index.numel() = "
                         f"{index.numel()}")
    _take_bounds(index._data, input.numel())
    return Put, (input, index, source, bool(accumulate))


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source`` written (or added, with ``accumulate``) at the flat
    positions ``index``.

    Example:
        >>> ember.zeros(2, 2).put(ember.tensor([3]), ember.ones(1))
        tensor([[0., 0.],
                [0., 1.]])
    """
    cls, args = _prep_put(input, index, source, accumulate)
    return cls.apply(*args)


# ---- index_put, select_scatter, slice_scatter -------------------------------------------------
def _prep_index_put(input: Tensor, indices, values, accumulate: bool = False):
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' must be tuple of Tensors")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                            f"{type(t).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' must be Tensor, not "
                        f"{type(values).__name__}")
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_name(input._data.dtype)} for the destination and "
                           f"{_name(values._data.dtype)} for the source.")
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
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(want)}")
    return cls.apply(input, src.to(input.dtype), _Key(key, None), False)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` written at ``input.select(dim, index)``."""
    n = input._data.ndim
    d = _wrap_dim(dim, n)
    index = operator.index(index)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    return _scatter_like(input, src, (_FULL,) * d + (index, Ellipsis), _SelectScatter)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None,
                  step: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written at ``input[..., start:end:step, ...]`` (in
    ``dim``)."""
    d = _wrap_dim(dim, input._data.ndim)
    key = (_FULL,) * d + (_slice(slice(start, end, step)), Ellipsis)
    return _scatter_like(input, src, key, _SliceScatter)


# ---- data-dependent results: nonzero, argwhere, unique ----------------------------------------
def nonzero(input: Tensor, *, out=None, as_tuple: bool = False):
    """Indices of the non-zero elements: an ``(n, ndim)`` int64 tensor, or with ``as_tuple`` one
    1-D tensor per dim.

    Example:
        >>> ember.tensor([[0, 1], [2, 0]]).nonzero()
        tensor([[0, 1],
                [1, 0]])
    """
    a = input._data
    _data_dependent("nonzero", a)
    xp = xp_of(a)
    if as_tuple:
        res = xp.nonzero(a.reshape(1) if a.ndim == 0 else a)
        return tuple(_wrap(r.astype(_INT64, copy=False)) for r in res)
    r = _wrap(xp.argwhere(a).astype(_INT64, copy=False))
    return _maybe_out(r, out)


def argwhere(input: Tensor) -> Tensor:
    """``nonzero(input)``: the ``(n, ndim)`` indices of the non-zero elements."""
    return nonzero(input)


class _Unique(Function):
    _array_forward = True
    _node_name = "Unique2Backward0"

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        vals, inv, counts = xp.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        return vals, inv.reshape(a.shape).astype(_INT64), counts.astype(_INT64)

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("the derivative for '_unique2' is not implemented.")


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim=None):
    """The distinct values of ``input`` (sorted), with optionally the index of each element in
    them (``return_inverse``, input's shape) and how often each occurs (``return_counts``).

    Example:
        >>> ember.unique(ember.tensor([3, 1, 3]), return_counts=True)
        (tensor([1, 3]), tensor([1, 2]))
    """
    if dim is not None:
        raise NotImplementedError("ember: unique(dim=...) is not supported yet; use dim=None")
    _data_dependent("unique", input._data)
    # NOTE: matches torch on CPU: the values come back sorted even with sorted=False
    vals, inv, counts = _Unique.apply(input)
    if return_inverse and return_counts:
        return vals, inv, counts
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, counts
    return vals


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim=None):
    """Collapse runs of equal consecutive values (of the flattened input) to one each."""
    if dim is not None:
        raise NotImplementedError("ember: unique_consecutive(dim=...) is not supported yet")
    a = input._data
    _data_dependent("unique_consecutive", a)
    xp = xp_of(a)
    flat = a.reshape(-1)
    start = xp.ones(flat.shape, dtype=bool)
    if flat.size:
        start[1:] = flat[1:] != flat[:-1]
    vals = _wrap(flat[start])
    inv = _wrap((xp.cumsum(start) - 1).reshape(a.shape).astype(_INT64))
    firsts = xp.flatnonzero(start)
    counts = _wrap(xp.diff(xp.concatenate([firsts, xp.asarray([flat.size])])).astype(_INT64))
    if return_inverse and return_counts:
        return vals, inv, counts
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, counts
    return vals


__all__ = [
    "gather", "scatter", "scatter_add", "take_along_dim", "index_select", "index_add",
    "index_copy", "index_fill", "masked_select", "masked_scatter", "take", "put", "index_put",
    "select_scatter", "slice_scatter", "nonzero", "argwhere", "unique", "unique_consecutive",
]

Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem
Tensor.gather = gather
Tensor.scatter = scatter
Tensor.scatter_ = _inplace_method(_prep_scatter, "scatter")
Tensor.scatter_add = scatter_add
Tensor.scatter_add_ = _inplace_method(_prep_scatter_add_m, "scatter_add")
Tensor.take_along_dim = take_along_dim
Tensor.index_select = index_select
Tensor.index_add = index_add
Tensor.index_add_ = _inplace_method(_prep_index_add, "index_add")
Tensor.index_copy = index_copy
Tensor.index_copy_ = _inplace_method(_prep_index_copy, "index_copy")
Tensor.index_fill = index_fill
Tensor.index_fill_ = _inplace_method(_prep_index_fill, "index_fill")
Tensor.masked_select = masked_select
Tensor.masked_scatter = masked_scatter
Tensor.masked_scatter_ = _inplace_method(_prep_masked_scatter_m, "masked_scatter")
Tensor.take = take
Tensor.put = put
Tensor.put_ = _inplace_method(_prep_put, "put")
Tensor.index_put = index_put
Tensor.index_put_ = _inplace_method(_prep_index_put, "index_put")
Tensor.select_scatter = select_scatter
Tensor.slice_scatter = slice_scatter
Tensor.nonzero = nonzero
Tensor.argwhere = argwhere
Tensor.unique = unique
Tensor.unique_consecutive = unique_consecutive
