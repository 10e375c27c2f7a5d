"""Reductions, scans and selections: ``sum``, ``mean``, ``prod``, ``max``, ``var``,
``logsumexp``, ``cumsum``, ``sort``, ``topk``, ``median``... (norms live in ``ember.linalg``).

Three kinds of ``Function`` here:
- reductions over a set of axes (``Sum``, ``Prod``, ``Amax``, ``Var``...): backward broadcasts
  the gradient back over the reduced axes;
- scans along one axis (``Cumsum``, ``Cumprod``);
- selections along one axis (``_Selection``: max/min with ``dim``, sort, topk, kthvalue,
  median, mode, cummax/cummin): forward picks indices, the values are the input at those
  indices, and backward scatters the gradient back to them (``_Scatter``, whose backward is a
  gather, ``_Gather``, and back: so every order of derivative works).

Masks in backward (ties, zeros, NaNs) are computed from the saved arrays and enter as constant
tensors: they are piecewise constant, so their derivative is zero, as in PyTorch.
"""

from __future__ import annotations

import builtins
import math
import warnings
from collections import namedtuple

from ember import _dtype, backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import unary, wrap_dims, xp_of
from ember.ops.pointwise import _out, inplace
from ember.ops.shape import expand_to
from ember.tensor import Tensor, _wrap, _wrap_dim

_ARRAY_TYPES = backend._BY_TYPE
_F16 = _dtype.float16._np
_F32 = _dtype.float32._np
_I64 = _dtype.int64._np
_U8 = _dtype.uint8._np
_TORCH_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                "int32": "Int", "int64": "Long", "float16": "Half", "float32": "Float",
                "float64": "Double"}


# ---- return types (PyTorch's torch.return_types: named tuples) --------------------------------
def _return_type(name, fields=("values", "indices")):
    cls = namedtuple(name, fields)
    cls.__module__ = "ember.return_types"
    return cls


_rt = {n: _return_type(n) for n in ("max", "min", "sort", "topk", "kthvalue", "median",
                                     "nanmedian", "mode", "cummax", "cummin")}
_rt["aminmax"] = _return_type("aminmax", ("min", "max"))


# ---- helpers ---------------------------------------------------------------------------------
def _tname(np_dtype) -> str:
    return _TORCH_NAMES[_dtype.from_np(np_dtype).name]


def _axes(input: Tensor, dim):
    """``dim`` (None, int or sequence) as a tuple of axes, or None for "all axes".

    NOTE: matches torch: an empty dim list reduces every dim, and a 0-d tensor accepts dim 0/-1.
    """
    nd = input._data.ndim
    axes = wrap_dims(dim, nd)
    if axes is None or nd == 0 or (not axes and not isinstance(dim, int)):
        return None
    return axes


def _numel_reduced(shape, axes) -> int:
    return math.prod(s for i, s in enumerate(shape) if axes is None or i in axes)


def _keep_shape(shape, axes):
    """The shape of a reduction over ``axes`` with ``keepdim=True``."""
    return tuple(1 if axes is None or i in axes else s for i, s in enumerate(shape))


def _expand_back(g, shape, axes, keepdim):
    """Broadcast a reduced gradient back to the input ``shape``."""
    if not keepdim and (axes is not None or g.ndim):  # a 0-d total expands as it is
        g = g.reshape(_keep_shape(shape, axes))
    return expand_to(g, shape)


def _keep(t, shape, axes, keepdim):
    """A reduced tensor reshaped to the keepdim shape (so it broadcasts against the input)."""
    return t if keepdim else t.reshape(_keep_shape(shape, axes))


def _acc_dtype(npd):
    # NOTE: matches torch: half-precision reductions accumulate in float32
    return _F32 if npd == _F16 else npd


def _sum(xp, a, axes, keepdim, npd):
    if npd == _F16:  # as _acc_dtype, spelled out: this runs for every sum
        return xp.add.reduce(a, axis=axes, dtype=_F32, keepdims=keepdim).astype(npd)
    # ``add.reduce`` is what ``a.sum`` calls, after a Python wrapper
    return xp.add.reduce(a, axis=axes, dtype=npd, keepdims=keepdim)


def _check_nonempty(input: Tensor, axes, op: str, error=IndexError):
    """PyTorch's errors for reductions without an identity (max, argmax...) on empty input."""
    shape = input._data.shape
    if axes is None:
        if input._data.size == 0:
            if error is IndexError:
                raise IndexError(
                    f"{op}(): Expected reduction dim to be specified for input.numel() == 0."
                )
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return
    for d in axes:
        if shape and shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _out_tuple(result, out):
    if out is None:
        return result
    for o, r in zip(out, result, strict=True):
        _out(r, o)
    return type(result)(*out)


def _const(array, like):
    """A constant tensor (no graph) holding ``array`` cast to ``like``'s dtype."""
    return _wrap(array.astype(like.dtype) if array.dtype != like.dtype else array)


# ---- gather / scatter along an axis: the backward pair of every selection ---------------------
def _along(xp, idx, axis):
    """The fancy index that addresses ``idx`` along ``axis`` (for scatter-add)."""
    ix = []
    for d, s in enumerate(idx.shape):
        if d == axis:
            ix.append(idx)
        else:
            shape = [1] * idx.ndim
            shape[d] = s
            ix.append(xp.arange(s).reshape(shape))
    return tuple(ix)


class _Gather(Function):
    _array_forward = True
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, idx, axis, accumulate):
        ctx.idx, ctx.axis, ctx.shape, ctx.accumulate = idx, axis, a.shape, accumulate
        return xp_of(a).take_along_axis(a, idx, axis)

    @staticmethod
    def backward(ctx, g):
        return _Scatter.apply(g, ctx.idx, ctx.axis, ctx.shape, ctx.accumulate), None, None, None


class _Scatter(Function):
    """``zeros(shape)`` with ``g`` written (``accumulate``: added) at ``idx`` along ``axis``."""

    _array_forward = True
    _node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, g, idx, axis, shape, accumulate):
        ctx.idx, ctx.axis, ctx.accumulate = idx, axis, accumulate
        xp = xp_of(g)
        out = xp.zeros(shape, dtype=g.dtype)
        if accumulate:
            xp.add_at(out, _along(xp, idx, axis), g)
        else:  # indices distinct within each slice: a plain write
            xp.put_along_axis(out, idx, g, axis)
        return out

    @staticmethod
    def backward(ctx, g):
        return _Gather.apply(g, ctx.idx, ctx.axis, ctx.accumulate), None, None, None, None


# ---- sum, nansum, mean, nanmean --------------------------------------------------------------
class Sum(Function):
    _array_forward = True
    _node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, axes, keepdim, npd):
        ctx.shape, ctx.axes, ctx.keepdim = a.shape, axes, keepdim
        return _sum(xp_of(a), a, axes, keepdim, npd)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx.shape, ctx.axes, ctx.keepdim), None, None, None


class SumAll(Function):
    """The sum of every element, ``x.sum()``: the usual last step of a loss, so it has its own
    Function without ``Sum``'s per-axis handling (and PyTorch's node name for it)."""

    _array_forward = True
    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a, keepdim, npd):
        ctx.shape = a.shape
        xp = _ARRAY_TYPES[a.__class__]
        if npd == _F16:
            return _sum(xp, a, None, keepdim, npd)
        # into a fresh 0-d (or all-ones) array: NumPy would return a scalar, to be wrapped again
        out = xp.empty((1,) * a.ndim if keepdim else (), npd)
        return xp.add.reduce(a, None, npd, out, keepdim)

    @staticmethod
    def backward(ctx, g):
        # g is 0-d, or all ones in shape with keepdim: it broadcasts to the input as it is
        return expand_to(g, ctx.shape), None, None


class NanSum(Function):
    _array_forward = True
    _node_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, a, axes, keepdim, npd):
        ctx.axes, ctx.keepdim = axes, keepdim
        xp = xp_of(a)
        if a.dtype.kind == "f":
            ctx.save_for_backward(a)
            a = xp.where(xp.isnan(a), 0, a)
        return _sum(xp, a, axes, keepdim, npd)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = x._data
        keep = _const(~xp_of(xd).isnan(xd), xd)
        return _keep(g, xd.shape, ctx.axes, ctx.keepdim) * keep, None, None, None


def _sum_dtype(a: Tensor, dtype):
    if dtype is not None:
        return _dtype.to_np(dtype)
    # NOTE: matches torch: integer and bool sums accumulate in int64
    if a._data.dtype.kind in "biu":
        return _I64
    return a._data.dtype


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:  # noqa: A001
    """Sum over ``dim`` (an int, a sequence of ints, or every dim when omitted).

    Integer and bool inputs sum in int64 unless ``dtype`` says otherwise.

    Example:
        >>> ember.ones(2, 3).sum(1)
        tensor([3., 3.])
    """
    if dim is None:
        if dtype is None and out is None and input._data.dtype.kind == "f":
            return unary(SumAll, input, keepdim, input._data.dtype)  # ``loss.sum()``
        return _out(unary(SumAll, input, keepdim, _sum_dtype(input, dtype)), out)
    axes = _axes(input, dim)
    return _out(unary(Sum, input, axes, keepdim, _sum_dtype(input, dtype)), out)


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Sum over ``dim`` treating NaNs as zero.

    Example:
        >>> ember.nansum(ember.tensor([1.0, float("nan"), 2.0]))
        tensor(3.)
    """
    return _out(unary(NanSum, input, _axes(input, dim), keepdim, _sum_dtype(input, dtype)), out)


class Mean(Function):
    _array_forward = True
    _node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, axes, keepdim, npd):
        n = _numel_reduced(a.shape, axes)
        ctx.shape, ctx.axes, ctx.keepdim, ctx.n = a.shape, axes, keepdim, n
        acc = _acc_dtype(npd)
        # sum / n rather than xp.mean: an empty mean is NaN without NumPy's warning
        r = xp_of(a).sum(a, axis=axes, keepdims=keepdim, dtype=acc) / acc.type(n)
        return r.astype(npd) if acc != npd else r

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g / ctx.n, ctx.shape, ctx.axes, ctx.keepdim), None, None, None


class MeanAll(Mean):
    _node_name = "MeanBackward0"


def _float_dtype_for(input: Tensor, dtype, op: str):
    npd = input._data.dtype if dtype is None else _dtype.to_np(dtype)
    if npd.kind != "f":
        what = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            f"{op}(): could not infer output dtype. {what} dtype must be either a floating point "
            f"or complex dtype. Got: {_tname(npd)}"
        )
    return npd


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Mean over ``dim`` (all dims when omitted); floating inputs only, as in PyTorch.

    Example:
        >>> ember.tensor([[1.0, 2.0], [3.0, 4.0]]).mean(0)
        tensor([2., 3.])
    """
    npd = _float_dtype_for(input, dtype, "mean")
    cls = MeanAll if dim is None else Mean
    return _out(unary(cls, input, _axes(input, dim), keepdim, npd), out)


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Mean over ``dim`` of the non-NaN elements.

    Example:
        >>> ember.nanmean(ember.tensor([1.0, float("nan"), 3.0]))
        tensor(2.)
    """
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{_tname(input._data.dtype)}"
        )
    xd = input._data
    xp = xp_of(xd)
    axes = _axes(input, dim)
    count = xp.sum(~xp.isnan(xd), axis=axes, keepdims=keepdim, dtype=_I64)
    # NOTE: matches torch: nanmean is nansum / count (its grad_fn is DivBackward0)
    return _out(nansum(input, dim, keepdim, dtype=dtype) / _wrap(xp.asarray(count)), out)


# ---- prod ------------------------------------------------------------------------------------
def _to_last(t: Tensor, axis):
    """``t`` with the reduced axis last (``axis`` None: flattened)."""
    if axis is None:
        return t.reshape(-1)
    return t.transpose(axis, -1) if t.ndim else t.reshape(1)


def _from_last(t: Tensor, shape, axis):
    if axis is None or not shape:
        return t.reshape(shape)
    return t.transpose(axis, -1)


def _exclusive_eye(xt: Tensor):
    """``E[..., i, j] = x_j`` for ``j != i`` and 1 on the diagonal: row ``i`` holds the factors
    of "everything but ``x_i``", so products over rows are polynomials in x (exact at zeros)."""
    xp = xp_of(xt._data)
    n = xt.shape[-1]
    eye = xp.eye(n, dtype=xt._data.dtype)
    return xt.unsqueeze(-2) * _wrap(1 - eye) + _wrap(eye)


class Prod(Function):
    _array_forward = True
    _node_name = "ProdBackward1"

    @staticmethod
    def forward(ctx, a, axis, keepdim, npd):
        ctx.axis, ctx.keepdim = axis, keepdim
        acc = _acc_dtype(npd)
        xp = xp_of(a)
        r = xp.asarray(xp.prod(a, axis=axis, keepdims=keepdim, dtype=acc))
        r = r.astype(npd) if acc != npd else r
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        xd = x._data
        xp = xp_of(xd)
        axes = None if ctx.axis is None else (ctx.axis,)
        g = _keep(g, xd.shape, axes, ctx.keepdim)
        if xp.device_type == "meta" or not xp.any(xd == 0):
            return g * (_keep(out, xd.shape, axes, ctx.keepdim) / x), None, None, None
        return g * _prod_others(x, ctx.axis), None, None, None


def _prod_others(x: Tensor, axis):
    """``prod_{j != i} x_j`` along ``axis`` (all elements if None), exact with zeros."""
    xt = _to_last(x, axis)
    if _gm.state.enabled:
        # create_graph: a polynomial formula, so the next derivative is right at zeros too
        # (O(n^2) memory per slice, only on this path, as PyTorch's double-backward path).
        others = prod(_exclusive_eye(xt), -1)
    else:
        d = xt._data
        xp = xp_of(d)
        zero = d == 0
        nz = zero.sum(axis=-1, keepdims=True)
        p_nonzero = xp.prod(xp.where(zero, 1, d), axis=-1, keepdims=True)
        with_safe = xp.where(zero, 1, d)
        # no zero: prod / x_i; one zero: prod of the others at the zero, 0 elsewhere; more: 0
        r = xp.where(nz == 0, p_nonzero / with_safe, xp.where(zero & (nz == 1), p_nonzero, 0))
        others = _wrap(r.astype(d.dtype))
    return _from_last(others, x.shape, axis)


class ProdAll(Prod):
    _node_name = "ProdBackward0"


def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Product of all elements, or over the single dimension ``dim``.

    Integer and bool inputs multiply in int64. The gradient is exact with zeros in the input.

    Example:
        >>> ember.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(1)
        tensor([ 2., 12.])
    """
    if dim is not None and not isinstance(dim, int):
        raise TypeError(
            f"prod(): argument 'dim' must be int, not {type(dim).__name__} (PyTorch's prod "
            "reduces one dim or all of them)"
        )
    npd = _sum_dtype(input, dtype)
    if dim is None:
        return _out(unary(ProdAll, input, None, False, npd), out)
    axis = _wrap_dim(dim, input._data.ndim)
    return _out(unary(Prod, input, axis if input._data.ndim else None, keepdim, npd), out)


# ---- max, min, amax, amin, argmax, argmin, aminmax -------------------------------------------
class Amax(Function):
    _array_forward = True
    _node_name = "AmaxBackward0"
    _is_max = True
    # max()/min()/median() over everything spread the gradient over ties counting NaN == NaN
    # (PyTorch's evenly_distribute_backward); amax/amin compare with == only.
    _nan_ties = False

    @classmethod
    def forward(cls, ctx, a, axes, keepdim):
        ctx.axes, ctx.keepdim = axes, keepdim
        xp = xp_of(a)
        r = xp.asarray((xp.max if cls._is_max else xp.min)(a, axis=axes, keepdims=keepdim))
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        return _spread_evenly(ctx, g), None, None


def _spread_evenly(ctx, g):
    """``g`` split evenly among the input elements equal to the result (ties share)."""
    x, out = ctx.saved_tensors
    xd, od = x._data, out._data
    xp = xp_of(xd)
    shape = xd.shape
    od = od.reshape(_keep_shape(shape, ctx.axes))
    mask = xd == od
    if ctx._function._nan_ties and xd.dtype.kind == "f":
        mask = mask | (xp.isnan(xd) & xp.isnan(od))
    count = xp.sum(mask, axis=ctx.axes, keepdims=True)
    g = _keep(g, shape, ctx.axes, ctx.keepdim)
    return g / _const(count, xd) * _const(mask, xd)


class Amin(Amax):
    _node_name = "AminBackward0"
    _is_max = False


class MaxAll(Amax):
    _node_name = "MaxBackward1"
    _nan_ties = True


class MinAll(Amin):
    _node_name = "MinBackward1"
    _nan_ties = True


class _Selection(Function):
    """Picks indices along ``axis`` (``_pick``) and returns ``(input[indices], indices)``."""

    _array_forward = True
    _reduces = False  # one index per slice: drop the axis unless keepdim
    _unique = True  # indices are distinct within a slice (else backward accumulates)

    @classmethod
    def forward(cls, ctx, a, axis, keepdim, *args):
        shape = a.shape
        if a.ndim == 0:
            a = a.reshape(1)
        xp = xp_of(a)
        idx = cls._pick(xp, a, axis, *args).astype(_I64, copy=False)
        values = xp.take_along_axis(a, idx, axis)
        if not shape:
            out_shape = ()
        elif cls._reduces and not keepdim:
            out_shape = idx.shape[:axis] + idx.shape[axis + 1:]
        else:
            out_shape = idx.shape
        indices = idx.reshape(out_shape)
        # saved as an output: an in-place change to the returned indices is caught in backward
        ctx.save_for_backward(indices)
        ctx.idx_shape, ctx.axis, ctx.shape, ctx.work_shape = idx.shape, axis, shape, a.shape
        ctx.nargs = 3 + len(args)
        return values.reshape(out_shape), indices

    @staticmethod
    def backward(ctx, g, g_indices=None):
        (indices,) = ctx.saved_tensors
        idx = indices._data.reshape(ctx.idx_shape)
        g = g.reshape(ctx.idx_shape)
        gx = _Scatter.apply(g, idx, ctx.axis, ctx.work_shape, not ctx._function._unique)
        return (gx.reshape(ctx.shape),) + (None,) * (ctx.nargs - 1)


def _argext(xp, a, axis, is_max):
    return (xp.argmax if is_max else xp.argmin)(a, axis=axis, keepdims=True)


class MaxDim(_Selection):
    _node_name = "MaxBackward0"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis):
        return _argext(xp, a, axis, True)


class MinDim(MaxDim):
    _node_name = "MinBackward0"

    @staticmethod
    def _pick(xp, a, axis):
        return _argext(xp, a, axis, False)


def _binary_extremum(name, input, other, out):
    import ember  # the math family's maximum/minimum (imported late: it sits above this file)

    return getattr(ember, name)(input, other, out=out) if out is not None else \
        getattr(ember, name)(input, other)


def _max_min(input, dim, keepdim, other, out, is_max):
    name = "max" if is_max else "min"
    if isinstance(dim, Tensor) or other is not None:
        return _binary_extremum("maximum" if is_max else "minimum",
                                input, dim if other is None else other, out)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}(): keepdim=True needs a dim (use amax/amin to keep dims)")
        _check_nonempty(input, None, name, RuntimeError)
        return _out(unary(MaxAll if is_max else MinAll, input, None, False), out)
    axis = _wrap_dim(dim, input._data.ndim)
    _check_nonempty(input, (axis,), name)
    r = _rt[name](*(MaxDim if is_max else MinDim).apply(input, axis if input.ndim else 0,
                                                         keepdim))
    return _out_tuple(r, out)


def max(input: Tensor, dim=None, keepdim: bool = False, *, other=None, out=None):  # noqa: A001
    """Largest element (0-d), or ``(values, indices)`` along ``dim``, or the element-wise
    maximum of two tensors (``max(a, b)``, as ``ember.maximum``).

    The gradient of ``max(x)`` is shared evenly among ties; with ``dim`` it goes to the
    returned index.

    Example:
        >>> ember.tensor([[1.0, 5.0], [4.0, 2.0]]).max(1)
        max(values=tensor([5., 4.]), indices=tensor([1, 0]))
    """
    return _max_min(input, dim, keepdim, other, out, True)


def min(input: Tensor, dim=None, keepdim: bool = False, *, other=None, out=None):  # noqa: A001
    """Smallest element (0-d), or ``(values, indices)`` along ``dim``, or the element-wise
    minimum of two tensors (``min(a, b)``).

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).min()
        tensor(1.)
    """
    return _max_min(input, dim, keepdim, other, out, False)


def amax(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    """Maximum over ``dim`` (an int or a tuple; every dim by default). Ties share the gradient
    evenly.

    Example:
        >>> ember.tensor([[1.0, 5.0], [4.0, 2.0]]).amax(0)
        tensor([4., 5.])
    """
    axes = _axes(input, dim)
    _check_nonempty(input, axes, "amax", RuntimeError)
    return _out(unary(Amax, input, axes, keepdim), out)


def amin(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    """Minimum over ``dim`` (an int or a tuple; every dim by default).

    Example:
        >>> ember.tensor([[1.0, 5.0], [4.0, 2.0]]).amin(1)
        tensor([1., 2.])
    """
    axes = _axes(input, dim)
    _check_nonempty(input, axes, "amin", RuntimeError)
    return _out(unary(Amin, input, axes, keepdim), out)


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False, out=None):
    """``(min, max)`` over ``dim`` (every dim when None), as a named tuple.

    Example:
        >>> ember.aminmax(ember.tensor([3.0, 1.0, 2.0]))
        aminmax(min=tensor(1.), max=tensor(3.))
    """
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    axes = _axes(input, () if dim is None else dim)
    shape = input._data.shape
    if input._data.size == 0 and (axes is None or builtins.any(shape[d] == 0 for d in axes)):
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity."
        )
    r = _rt["aminmax"](unary(Amin, input, axes, keepdim), unary(Amax, input, axes, keepdim))
    return _out_tuple(r, out)


def _argext_public(input, dim, keepdim, is_max):
    name = "argmax" if is_max else "argmin"
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    a = input._data
    xp = xp_of(a)
    if a.dtype.kind == "b":
        raise RuntimeError(f"{name}(): does not support bool input (convert it with .int())")
    if dim is None:
        _check_nonempty(input, None, name)
        r = (xp.argmax if is_max else xp.argmin)(a.reshape(-1))
        r = xp.asarray(r, dtype=_I64)
        return _wrap(r.reshape((1,) * a.ndim) if keepdim else r)
    axis = _wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return _wrap(xp.zeros((), dtype=_I64))
    _check_nonempty(input, (axis,), name)
    r = (xp.argmax if is_max else xp.argmin)(a, axis=axis, keepdims=keepdim)
    return _wrap(xp.asarray(r, dtype=_I64))


def argmax(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """Index of the largest element (of the flattened input when ``dim`` is None), int64.

    Example:
        >>> ember.tensor([[1.0, 5.0], [4.0, 2.0]]).argmax(1)
        tensor([1, 0])
    """
    return _out(_argext_public(input, dim, keepdim, True), out)


def argmin(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """Index of the smallest element (of the flattened input when ``dim`` is None), int64.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).argmin()
        tensor(1)
    """
    return _out(_argext_public(input, dim, keepdim, False), out)


# ---- var, std, var_mean, std_mean ------------------------------------------------------------
def _dof_check(n, correction, op):
    if n - correction <= 0:
        # NOTE: matches torch: a warning, and inf/NaN in the result
        warnings.warn(
            f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=4,
        )


class Var(Function):
    _array_forward = True
    _node_name = "VarBackward0"

    @staticmethod
    def forward(ctx, a, axes, correction, keepdim):
        ctx.axes, ctx.correction, ctx.keepdim = axes, correction, keepdim
        ctx.save_for_backward(a)
        return _var(a, axes, correction, keepdim)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return _var_backward(ctx, g, x), None, None, None


def _var(a, axes, correction, keepdim):
    xp = xp_of(a)
    n = _numel_reduced(a.shape, axes)
    acc = _acc_dtype(a.dtype)
    a2 = a.astype(acc, copy=False)
    # two passes (mean, then squared deviations): NumPy's own algorithm, without its warnings
    m = xp.sum(a2, axis=axes, keepdims=True) / acc.type(n)
    d = a2 - m
    v = xp.sum(d * d, axis=axes, keepdims=keepdim) / acc.type(builtins.max(0, n - correction))
    return v.astype(a.dtype) if acc != a.dtype else v


def _var_backward(ctx, g, x):
    shape = x._data.shape
    dof = _numel_reduced(shape, ctx.axes) - ctx.correction
    scale = 2.0 / dof if dof != 0 else math.inf
    g = _keep(g, shape, ctx.axes, ctx.keepdim)
    # d var / dx = 2 (x - mean) / (n - correction)
    return g * scale * (x - x.mean(ctx.axes, keepdim=True))


class Std(Function):
    _array_forward = True
    _node_name = "StdBackward0"

    @staticmethod
    def forward(ctx, a, axes, correction, keepdim):
        ctx.axes, ctx.correction, ctx.keepdim = axes, correction, keepdim
        xp = xp_of(a)
        r = xp.asarray(xp.sqrt(_var(a, axes, correction, keepdim)))
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        od = out._data
        zero = od == 0
        # d std = d var / (2 std); NOTE: matches torch: 0 where std == 0 (a safe denominator
        # keeps 0/0 out of the graph)
        safe = out + _const(zero, od)
        gv = g / (2 * safe) * _const(~zero, od)
        return _var_backward(ctx, gv, x), None, None, None


def _var_args(input, dim, unbiased, keepdim, correction, op):
    # NOTE: matches torch: var(x, True) and var(x, dim, False) are the old "unbiased" forms
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError(f"{op}(): got unbiased twice (positionally as dim and as unbiased)")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}(): pass either unbiased or correction, not both")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            f"std and var only support floating point and complex dtypes (got "
            f"{_tname(input._data.dtype)} in {op})"
        )
    axes = _axes(input, dim)
    _dof_check(_numel_reduced(input._data.shape, axes), correction, op)
    return axes, correction


def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None,
        out=None) -> Tensor:
    """Variance over ``dim`` with Bessel's ``correction`` (default 1; ``unbiased=False`` is 0).

    Example:
        >>> ember.tensor([1.0, 2.0, 3.0, 4.0]).var()
        tensor(1.6667)
    """
    axes, correction = _var_args(input, dim, unbiased, keepdim, correction, "var")
    return _out(unary(Var, input, axes, correction, keepdim), out)


def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None,
        out=None) -> Tensor:
    """Standard deviation over ``dim`` (see ``var`` for ``correction``).

    Example:
        >>> ember.tensor([1.0, 3.0]).std()
        tensor(1.4142)
    """
    axes, correction = _var_args(input, dim, unbiased, keepdim, correction, "std")
    return _out(unary(Std, input, axes, correction, keepdim), out)


def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *,
             correction=None):
    """``(var, mean)`` over ``dim`` (a plain tuple, as in PyTorch).

    Example:
        >>> ember.var_mean(ember.tensor([1.0, 3.0]))
        (tensor(2.), tensor(2.))
    """
    axes, correction = _var_args(input, dim, unbiased, keepdim, correction, "var_mean")
    return unary(Var, input, axes, correction, keepdim), \
        unary(Mean, input, axes, keepdim, input._data.dtype)


def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *,
             correction=None):
    """``(std, mean)`` over ``dim`` (a plain tuple, as in PyTorch).

    Example:
        >>> ember.std_mean(ember.tensor([1.0, 3.0]))
        (tensor(1.4142), tensor(2.))
    """
    axes, correction = _var_args(input, dim, unbiased, keepdim, correction, "std_mean")
    return unary(Std, input, axes, correction, keepdim), \
        unary(Mean, input, axes, keepdim, input._data.dtype)


# ---- logsumexp -------------------------------------------------------------------------------
class LogSumExp(Function):
    _array_forward = True
    _node_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        ctx.axes, ctx.keepdim = axes, keepdim
        xp = xp_of(a)
        acc = _acc_dtype(a.dtype)
        a2 = a.astype(acc, copy=False)
        if _numel_reduced(a.shape, axes) == 0:
            r = xp.sum(a2, axis=axes, keepdims=keepdim) - acc.type(math.inf)  # log(0)
        else:
            # shift by the max so exp cannot overflow; an infinite max shifts by 0 instead
            m = xp.max(a2, axis=axes, keepdims=True)
            m = xp.where(xp.isfinite(m), m, 0).astype(acc, copy=False)
            r = xp.log(xp.sum(xp.exp(a2 - m), axis=axes, keepdims=True)) + m
            if not keepdim:
                r = r.reshape([s for i, s in enumerate(a.shape) if axes is not None
                               and i not in axes])
        r = xp.asarray(r.astype(a.dtype) if acc != a.dtype else r)
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        shape = x._data.shape
        out = _keep(out, shape, ctx.axes, ctx.keepdim)
        # d lse / dx = exp(x - lse), the softmax
        return _keep(g, shape, ctx.axes, ctx.keepdim) * (x - out).exp(), None, None


def logsumexp(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """``log(sum(exp(input)))`` over ``dim``, computed without overflow.

    Integer inputs give the default float dtype.

    Example:
        >>> ember.logsumexp(ember.tensor([0.0, 0.0]), 0)
        tensor(0.6931)
    """
    if input._data.dtype.kind != "f":
        input = input.to(_dtype.get_default_dtype())
    return _out(unary(LogSumExp, input, _axes(input, dim), keepdim), out)


# ---- all, any, count_nonzero -----------------------------------------------------------------
def _logical(input, dim, keepdim, is_all):
    a = input._data
    xp = xp_of(a)
    # NOTE: matches torch: all/any with dim=() reduce nothing (unlike sum, which reduces all)
    if dim is None:
        axes = None
    elif isinstance(dim, int):
        axes = (_wrap_dim(dim, a.ndim),) if a.ndim else None
    else:
        axes = wrap_dims(dim, a.ndim) if a.ndim else ()
    r = xp.asarray((xp.all if is_all else xp.any)(a, axis=axes, keepdims=keepdim))
    # NOTE: matches torch: uint8 input gives uint8 output (other dtypes give bool)
    return _wrap(r.astype(_U8) if a.dtype == _U8 else r)


def all(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:  # noqa: A001
    """Whether every element (over ``dim``) is nonzero; a bool tensor.

    Example:
        >>> ember.tensor([[1, 0], [1, 1]]).all(1)
        tensor([False,  True])
    """
    return _out(_logical(input, dim, keepdim, True), out)


def any(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:  # noqa: A001
    """Whether some element (over ``dim``) is nonzero; a bool tensor.

    Example:
        >>> ember.tensor([0.0, 2.0]).any()
        tensor(True)
    """
    return _out(_logical(input, dim, keepdim, False), out)


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """Number of nonzero elements over ``dim`` (all dims when None), int64.

    Example:
        >>> ember.count_nonzero(ember.tensor([[0, 1], [2, 3]]), 0)
        tensor([1, 2])
    """
    a = input._data
    xp = xp_of(a)
    return _wrap(xp.asarray(xp.sum(a != 0, axis=_axes(input, dim), dtype=_I64)))


# ---- cumsum, cumprod, cummax, cummin ---------------------------------------------------------
def _cumsum(xp, a, axis, npd):
    if a.ndim == 0:
        return a.astype(npd)
    acc = _acc_dtype(npd)
    r = xp.cumsum(a, axis=axis, dtype=acc)
    return r.astype(npd) if acc != npd else r


class Cumsum(Function):
    _array_forward = True
    _node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, a, axis, npd):
        ctx.axis = axis
        return _cumsum(xp_of(a), a, axis, npd)

    @staticmethod
    def backward(ctx, g):
        return _RevCumsum.apply(g, ctx.axis), None, None


class _RevCumsum(Function):
    """Cumulative sum from the end: the adjoint of ``cumsum`` (and the other way round)."""

    _array_forward = True
    _node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, g, axis):
        ctx.axis = axis
        if g.ndim == 0:
            return g.copy()
        xp = xp_of(g)
        return xp.flip(_cumsum(xp, xp.flip(g, axis), axis, g.dtype), axis)

    @staticmethod
    def backward(ctx, g):
        return Cumsum.apply(g, ctx.axis, g._data.dtype), None


class Cumprod(Function):
    _array_forward = True
    _node_name = "CumprodBackward0"

    @staticmethod
    def forward(ctx, a, axis, npd):
        ctx.axis = axis
        xp = xp_of(a)
        if a.ndim == 0:
            r = a.astype(npd)
        else:
            acc = _acc_dtype(npd)
            r = xp.cumprod(a, axis=axis, dtype=acc)
            r = r.astype(npd) if acc != npd else r
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        xd = x._data
        xp = xp_of(xd)
        if xd.ndim == 0:
            return g, None, None
        if xp.device_type == "meta" or not xp.any(xd == 0):
            # d y_k / d x_i = y_k / x_i for k >= i
            return _RevCumsum.apply(g * out, ctx.axis) / x, None, None
        axis = ctx.axis
        if _gm.state.enabled:
            # create_graph: F[i, k] = prod_{j <= k, j != i} x_j by a cumprod over the rows of
            # the exclusive matrix; grad_i = sum_{k >= i} g_k F[i, k] (O(n^2), this path only)
            xt, gt = _to_last(x, axis), _to_last(g, axis)
            n = xt.shape[-1]
            f = cumprod(_exclusive_eye(xt), -1)
            upper = _wrap(xp.triu(xp.ones((n, n), dtype=xd.dtype)))
            return _from_last((gt.unsqueeze(-2) * f * upper).sum(-1), xd.shape, axis), None, None
        return _wrap(_cumprod_grad_zeros(xp, xd, out._data, g._data, axis)), None, None


def _cumprod_grad_zeros(xp, x, y, g, axis):
    """First-order cumprod gradient when ``x`` has zeros, O(n) per slice: with ``z`` the first
    zero of a slice, ``i < z`` takes the usual formula, ``i == z`` the product before it times
    ``sum_{k >= z} g_k prod_{z < j <= k} x_j``, and ``i > z`` nothing."""
    x, y, g = (xp.moveaxis(t, axis, -1) for t in (x, y, g))
    n = x.shape[-1]
    pos = xp.arange(n)
    zero = x == 0
    z = xp.where(zero.any(axis=-1, keepdims=True), xp.argmax(zero, axis=-1, keepdims=True), n)
    before = pos < z
    rev = xp.flip(xp.cumsum(xp.flip(g * y, -1), axis=-1), -1)
    grad = xp.where(before, rev / xp.where(before, x, 1), 0)
    q = xp.cumprod(xp.where(pos > z, x, 1), axis=-1)
    s = xp.sum(xp.where(pos >= z, g * q, 0), axis=-1, keepdims=True)
    p_before = xp.prod(xp.where(before, x, 1), axis=-1, keepdims=True)
    grad = grad + xp.where(pos == z, p_before * s, 0)
    return xp.moveaxis(grad.astype(x.dtype, copy=False), -1, axis)


def cumsum(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    """Cumulative sum along ``dim``; integer and bool inputs accumulate in int64.

    Example:
        >>> ember.tensor([1.0, 2.0, 3.0]).cumsum(0)
        tensor([1., 3., 6.])
    """
    axis = _wrap_dim(dim, input._data.ndim)
    return _out(unary(Cumsum, input, axis, _sum_dtype(input, dtype)), out)


def cumprod(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    """Cumulative product along ``dim``; the gradient is exact with zeros in the input.

    Example:
        >>> ember.tensor([1.0, 2.0, 3.0]).cumprod(0)
        tensor([1., 2., 6.])
    """
    axis = _wrap_dim(dim, input._data.ndim)
    return _out(unary(Cumprod, input, axis, _sum_dtype(input, dtype)), out)


def _accumulate(xp, ufunc, a, axis):
    """``ufunc.accumulate`` along ``axis`` (same shape and dtype as ``a`` for max/min)."""
    return ufunc.accumulate(a, axis=axis)


class Cummax(_Selection):
    _node_name = "CummaxBackward0"
    _unique = False  # a running max points at the same element many times
    _is_max = True

    @classmethod
    def _pick(cls, xp, a, axis):
        run = _accumulate(xp, xp.maximum if cls._is_max else xp.minimum, a, axis)
        hit = a == run
        if a.dtype.kind == "f":
            # NOTE: matches torch: after a NaN the index follows the latest NaN
            hit = hit | xp.isnan(a)
        shape = [1] * a.ndim
        shape[axis] = a.shape[axis]
        pos = xp.arange(a.shape[axis]).reshape(shape)
        # NOTE: matches torch: ties point at the latest equal element
        return _accumulate(xp, xp.maximum, xp.where(hit, pos, 0), axis)


class Cummin(Cummax):
    _node_name = "CumminBackward0"
    _is_max = False


def cummax(input: Tensor, dim: int, *, out=None):
    """Running maximum along ``dim`` and the index where each running value was taken.

    Example:
        >>> ember.tensor([1.0, 3.0, 2.0]).cummax(0)
        cummax(values=tensor([1., 3., 3.]), indices=tensor([0, 1, 1]))
    """
    axis = _wrap_dim(dim, input._data.ndim)
    return _out_tuple(_rt["cummax"](*Cummax.apply(input, axis if input.ndim else 0, False)),
                      out)


def cummin(input: Tensor, dim: int, *, out=None):
    """Running minimum along ``dim`` and the index where each running value was taken.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).cummin(0)
        cummin(values=tensor([3., 1., 1.]), indices=tensor([0, 1, 1]))
    """
    axis = _wrap_dim(dim, input._data.ndim)
    return _out_tuple(_rt["cummin"](*Cummin.apply(input, axis if input.ndim else 0, False)),
                      out)


# ---- sort, argsort, topk, kthvalue, median, nanmedian, mode ----------------------------------
def _argsort(xp, a, axis, descending):
    """Stable argsort; NaN sorts as the largest value (last ascending, first descending)."""
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable")
    # stable descending: sort the reversed input ascending and reverse back, so equal
    # elements keep their input order
    n = a.shape[axis]
    return (n - 1) - xp.flip(xp.argsort(xp.flip(a, axis), axis=axis, kind="stable"), axis)


def _slice(a, axis, start, stop):
    return a[(slice(None),) * axis + (slice(start, stop),)]


class Sort(_Selection):
    _node_name = "SortBackward0"

    @staticmethod
    def _pick(xp, a, axis, descending):
        return _argsort(xp, a, axis, descending)


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *,
         out=None):
    """Sort along ``dim``: ``(values, indices)``. ember's sort is always stable.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).sort(descending=True)
        sort(values=tensor([3., 2., 1.]), indices=tensor([0, 2, 1]))
    """
    axis = _wrap_dim(dim, input._data.ndim)
    r = _rt["sort"](*Sort.apply(input, axis if input.ndim else 0, False, bool(descending)))
    return _out_tuple(r, out)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
            ) -> Tensor:
    """Indices that sort ``input`` along ``dim`` (stable), int64.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).argsort()
        tensor([1, 2, 0])
    """
    a = input._data
    axis = _wrap_dim(dim, a.ndim)
    xp = xp_of(a)
    if a.ndim == 0:
        return _wrap(xp.zeros((), dtype=_I64))
    return _wrap(_argsort(xp, a, axis, descending).astype(_I64, copy=False))


class Topk(_Selection):
    _node_name = "TopkBackward0"

    @staticmethod
    def _pick(xp, a, axis, k, largest, sorted_):
        n = a.shape[axis]
        if k == 0:
            return xp.zeros(a.shape[:axis] + (0,) + a.shape[axis + 1:], dtype=_I64)
        if k < n:  # partition first: O(n), then order only the k picked
            if largest:
                idx = _slice(xp.argpartition(a, n - k, axis=axis), axis, n - k, n)
            else:
                idx = _slice(xp.argpartition(a, k - 1, axis=axis), axis, 0, k)
            if not sorted_:
                return idx
            order = _argsort(xp, xp.take_along_axis(a, idx, axis), axis, largest)
            return xp.take_along_axis(idx, order, axis)
        return _argsort(xp, a, axis, largest)


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *,  # noqa: A002
         out=None):
    """The ``k`` largest (``largest=False``: smallest) elements along ``dim`` and their
    indices, ordered when ``sorted``.

    Example:
        >>> ember.tensor([1.0, 5.0, 3.0]).topk(2)
        topk(values=tensor([5., 3.]), indices=tensor([1, 2]))
    """
    a = input._data
    axis = _wrap_dim(dim, a.ndim)
    n = a.shape[axis] if a.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError(
            f"selected index k out of range (topk: k={k} for dimension {dim} of size {n})"
        )
    r = Topk.apply(input, axis if a.ndim else 0, False, int(k), bool(largest), bool(sorted))
    return _out_tuple(_rt["topk"](*r), out)


class Kthvalue(_Selection):
    _node_name = "KthvalueBackward0"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis, k):
        # NaN counts as the largest value, as in PyTorch
        return _slice(xp.argpartition(a, k - 1, axis=axis), axis, k - 1, k)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    """The ``k``-th smallest element (1-based) along ``dim`` and its index.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).kthvalue(2)
        kthvalue(values=tensor(2.), indices=tensor(2))
    """
    a = input._data
    axis = _wrap_dim(dim, a.ndim)
    n = a.shape[axis] if a.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(
            f"kthvalue(): selected number k out of range for dimension {axis} (k={k}, size {n})"
        )
    r = Kthvalue.apply(input, axis if a.ndim else 0, keepdim, int(k))
    return _out_tuple(_rt["kthvalue"](*r), out)


class MedianDim(_Selection):
    _node_name = "MedianBackward1"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis):
        k = (a.shape[axis] - 1) // 2
        idx = _slice(xp.argpartition(a, k, axis=axis), axis, k, k + 1)
        if a.dtype.kind == "f":
            # NOTE: matches torch: a slice holding NaN has median NaN (at its first NaN)
            isnan = xp.isnan(a)
            idx = xp.where(xp.any(isnan, axis=axis, keepdims=True),
                           xp.argmax(isnan, axis=axis, keepdims=True), idx)
        return idx


class NanmedianDim(_Selection):
    _node_name = "NanmedianBackward1"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis):
        order = xp.argsort(a, axis=axis, kind="stable")  # NaNs last
        if a.dtype.kind != "f":
            return _slice(order, axis, (a.shape[axis] - 1) // 2, (a.shape[axis] + 1) // 2)
        count = xp.sum(~xp.isnan(a), axis=axis, keepdims=True)
        # lower median of the non-NaN values; an all-NaN slice gives its first element (NaN)
        return xp.take_along_axis(order, xp.maximum((count - 1) // 2, 0), axis)


class MedianAll(Amax):
    _node_name = "MedianBackward0"
    _nan_ties = True
    _ignore_nan = False

    @classmethod
    def forward(cls, ctx, a, axes, keepdim):
        ctx.axes, ctx.keepdim = None, False
        xp = xp_of(a)
        flat = a.reshape(-1)
        n = flat.shape[0]
        if n == 0:
            r = xp.full((), math.nan, dtype=a.dtype)
        elif cls._ignore_nan and a.dtype.kind == "f":
            k = xp.sum(~xp.isnan(flat), keepdims=True)
            r = xp.take_along_axis(xp.sort(flat), xp.maximum((k - 1) // 2, 0), 0)
        else:
            k = (n - 1) // 2
            r = xp.partition(flat, k)[k:k + 1]
            if a.dtype.kind == "f":
                r = xp.where(xp.any(xp.isnan(flat), keepdims=True), a.dtype.type(math.nan), r)
        r = xp.asarray(r).reshape(())
        ctx.save_for_backward(a, r)
        return r


class NanmedianAll(MedianAll):
    _node_name = "NanmedianBackward0"
    _ignore_nan = True


def _median(input, dim, keepdim, out, ignore_nan):
    name = "nanmedian" if ignore_nan else "median"
    if dim is None:
        if input._data.dtype.kind != "f" and input._data.size == 0:
            raise IndexError(f"{name}(): cannot compute the median of an empty integer tensor")
        return _out(unary(NanmedianAll if ignore_nan else MedianAll, input, None, False), out)
    axis = _wrap_dim(dim, input._data.ndim)
    _check_nonempty(input, (axis,), name)
    cls = NanmedianDim if ignore_nan else MedianDim
    return _out_tuple(_rt[name](*cls.apply(input, axis if input.ndim else 0, keepdim)), out)


def median(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """Lower median of all elements (0-d; the gradient is shared among ties), or
    ``(values, indices)`` along ``dim``. NaN anywhere in a slice gives NaN.

    Example:
        >>> ember.tensor([1.0, 4.0, 2.0, 3.0]).median()
        tensor(2.)
    """
    return _median(input, dim, keepdim, out, False)


def nanmedian(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """``median`` ignoring NaNs (NaN only where a slice is all NaN).

    Example:
        >>> ember.tensor([1.0, float("nan"), 3.0]).nanmedian()
        tensor(1.)
    """
    return _median(input, dim, keepdim, out, True)


class Mode(_Selection):
    _node_name = "ModeBackward0"
    _reduces = True

    @staticmethod
    def _pick(xp, a, axis):
        x = a.swapaxes(axis, -1)
        order = xp.argsort(x, axis=-1, kind="stable")
        s = xp.take_along_axis(x, order, -1)
        n = s.shape[-1]
        pos = xp.arange(n)
        start = xp.ones(s.shape, dtype=bool)  # where a run of equal values starts
        start[..., 1:] = s[..., 1:] != s[..., :-1]
        end = xp.ones(s.shape, dtype=bool)
        end[..., :-1] = start[..., 1:]
        first = _accumulate(xp, xp.maximum, xp.where(start, pos, 0), -1)
        length = xp.where(end, pos - first + 1, 0)
        # NOTE: matches torch: the most frequent value, the smallest among equally frequent
        # ones, at the index of its last occurrence (the end of its run in a stable sort)
        best = xp.argmax(length, axis=-1, keepdims=True)
        return xp.take_along_axis(order, best, -1).swapaxes(axis, -1)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out=None):
    """Most frequent value along ``dim`` (the smallest of equally frequent ones) and the index
    of its last occurrence.

    Example:
        >>> ember.tensor([1.0, 2.0, 2.0, 3.0]).mode()
        mode(values=tensor(2.), indices=tensor(2))
    """
    axis = _wrap_dim(dim, input._data.ndim)
    _check_nonempty(input, (axis,) if input.ndim else None, "mode")
    return _out_tuple(_rt["mode"](*Mode.apply(input, axis if input.ndim else 0, keepdim)), out)


# ---- norm (torch.norm: delegates to ember.linalg, as PyTorch does) ---------------------------
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None
         ) -> Tensor:
    """Vector or matrix norm (PyTorch's ``torch.norm``): ``p`` a number (incl. ``inf``, ``-inf``
    and 0) gives a vector norm over ``dim`` (all dims when None); ``'fro'`` the 2-norm over up
    to two dims; ``'nuc'`` the nuclear norm over two dims.

    Example:
        >>> ember.tensor([3.0, 4.0]).norm()
        tensor(5.)
    """
    from ember import linalg  # the norms live in ember.linalg (which imports this file)

    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _out(linalg.vector_norm(input, 2, dims, keepdim, dtype=dtype), out)
        if dims is None:
            dims = list(range(input.ndim))
        return _out(linalg.matrix_norm(input, p, dims, keepdim, dtype=dtype), out)
    return _out(linalg.vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype),
                out)


__all__ = [
    "sum", "nansum", "mean", "nanmean", "prod",
    "max", "min", "amax", "amin", "aminmax", "argmax", "argmin",
    "var", "std", "var_mean", "std_mean", "logsumexp",
    "all", "any", "count_nonzero",
    "cumsum", "cumprod", "cummax", "cummin",
    "sort", "argsort", "topk", "kthvalue", "median", "nanmedian", "mode",
    "norm",
]

Tensor.sum = sum
Tensor.nansum = nansum
Tensor.mean = mean
Tensor.nanmean = nanmean
Tensor.prod = prod
Tensor.max = max
Tensor.min = min
Tensor.amax = amax
Tensor.amin = amin
Tensor.aminmax = aminmax
Tensor.argmax = argmax
Tensor.argmin = argmin
Tensor.var = var
Tensor.std = std
Tensor.logsumexp = logsumexp
Tensor.all = all
Tensor.any = any
Tensor.count_nonzero = count_nonzero
Tensor.cumsum = cumsum
Tensor.cumprod = cumprod
Tensor.cumsum_ = inplace(cumsum)
Tensor.cumprod_ = inplace(cumprod)
Tensor.cummax = cummax
Tensor.cummin = cummin
Tensor.sort = sort
Tensor.argsort = argsort
Tensor.topk = topk
Tensor.kthvalue = kthvalue
Tensor.median = median
Tensor.nanmedian = nanmedian
Tensor.mode = mode
Tensor.norm = norm
