"""Scans along one axis: ``cumsum``, ``cumprod``, and the selections ``cummax`` and
``cummin`` (running extrema and their indices, on ``_selection._Selection``).

``cumprod``'s gradient is exact with zeros in the input, at every order.
"""

from __future__ import annotations

from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import cj, unary, xp_of
from ember.ops._elementwise import _complex_unsupported
from ember.ops._selection import _rt, _Selection
from ember.ops.pointwise import _out, inplace
from ember.ops.reduction import (
    _acc_dtype,
    _exclusive_eye,
    _from_last,
    _out_tuple,
    _sum_dtype,
    _to_last,
)
from ember.tensor import Tensor, _wrap, _wrap_dim

_F64, _C128 = _dtype.float64._np, _dtype.complex128._np


# ---- cumsum, cumprod, cummax, cummin ---------------------------------------------------------
def _scan_acc_dtype(npd):
    # NOTE: matches torch: its CPU scans carry the running value in the CPU accumulate type,
    # double for float32 and complex128 for complex64 (float32 for half types), rounding each
    # output once; a float32 running sum drifts from torch's after a few hundred terms.
    if npd.char == "f":
        return _F64
    if npd.char == "F":
        return _C128
    return _acc_dtype(npd)


_BLOCK_BYTES = 1 << 19  # a wide running block this size stays in cache while it is rounded


def _scan(xp, fn, a, axis, npd):
    """``fn`` (``xp.cumsum``/``xp.cumprod``) along ``axis`` carried in the accumulate type,
    returned as ``npd``. A wide carry is done block by block across another axis: one whole-array
    pass in float64 and a second to round it back cost twice the float32 scan; blocks that stay
    in cache cost about 1.3x (1000x1000 float32)."""
    acc = _scan_acc_dtype(npd)
    if acc == npd:
        return fn(a, axis=axis, dtype=acc)
    others = [d for d in range(a.ndim) if d != axis]
    if not others or xp.device_type != "cpu":
        return fn(a, axis=axis, dtype=acc).astype(npd)
    b = max(others, key=lambda d: a.shape[d])
    row_bytes = acc.itemsize * (a.size // max(a.shape[b], 1))
    blk = max(1, _BLOCK_BYTES // max(row_bytes, 1))
    if blk >= a.shape[b]:
        return fn(a, axis=axis, dtype=acc).astype(npd)
    out = xp.empty(a.shape, dtype=npd)
    shape = list(a.shape)
    shape[b] = blk
    tmp = xp.empty(tuple(shape), dtype=acc)
    index = [slice(None)] * a.ndim
    for i in range(0, a.shape[b], blk):
        n = min(blk, a.shape[b] - i)
        index[b] = slice(i, i + n)
        part = (
            tmp
            if n == blk
            else tmp[tuple(slice(0, n) if d == b else slice(None) for d in range(a.ndim))]
        )
        fn(a[tuple(index)], axis=axis, dtype=acc, out=part)
        out[tuple(index)] = part
    return out


def _cumsum(xp, a, axis, npd):
    if a.ndim == 0:
        return a.astype(npd)
    return _scan(xp, xp.cumsum, a, axis, npd)


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
            r = _scan(xp, xp.cumprod, a, axis, npd)
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
            return _RevCumsum.apply(g * cj(out), ctx.axis) / cj(x), None, None
        axis = ctx.axis
        if _gm.state.enabled:
            # create_graph: F[i, k] = prod_{j <= k, j != i} x_j by a cumprod over the rows of
            # the exclusive matrix; grad_i = sum_{k >= i} g_k F[i, k] (O(n^2), this path only)
            xt, gt = _to_last(x, axis), _to_last(g, axis)
            n = xt.shape[-1]
            f = cumprod(_exclusive_eye(xt), -1)
            upper = _wrap(xp.triu(xp.ones((n, n), dtype=xd.dtype)))
            gx = (gt.unsqueeze(-2) * cj(f) * upper).sum(-1)
            return _from_last(gx, xd.shape, axis), None, None
        gx = _cumprod_grad_zeros(xp, xd.conj(), out._data.conj(), g._data, axis)
        return _wrap(gx), None, None


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
        if a.dtype.kind in "fV":
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
    if input._data.dtype.kind == "c":
        _complex_unsupported("cummax_cpu", input._data.dtype)
    axis = _wrap_dim(dim, input._data.ndim)
    return _out_tuple(_rt["cummax"](*Cummax.apply(input, axis if input.ndim else 0, False)), out)


def cummin(input: Tensor, dim: int, *, out=None):
    """Running minimum along ``dim`` and the index where each running value was taken.

    Example:
        >>> ember.tensor([3.0, 1.0, 2.0]).cummin(0)
        cummin(values=tensor([3., 1., 1.]), indices=tensor([0, 1, 1]))
    """
    if input._data.dtype.kind == "c":
        _complex_unsupported("cummin_cpu", input._data.dtype)
    axis = _wrap_dim(dim, input._data.ndim)
    return _out_tuple(_rt["cummin"](*Cummin.apply(input, axis if input.ndim else 0, False)), out)


__all__ = [
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
]

Tensor.cumsum = cumsum
Tensor.cumprod = cumprod
Tensor.cumsum_ = inplace(cumsum)
Tensor.cumprod_ = inplace(cumprod)
Tensor.cummax = cummax
Tensor.cummin = cummin
