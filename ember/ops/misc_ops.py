"""Odds and ends of torch's top-level namespace: ``range`` (deprecated, inclusive end),
``conj_physical_``, ``binomial``, ``hash_tensor``, ``segment_reduce`` and the copying forms
``view_as_real_copy`` / ``view_as_complex_copy``.

``segment_reduce`` is one primitive: the segments of all rows are reduced in one call over
the flattened data (sums as one sparse segment-matrix product, the others one
``ufunc.reduceat``; empty segments are filled afterwards); its backward is written in Tensor
ops (a gather of the output gradient by segment id), so it is differentiable to any order.
"""

from __future__ import annotations

import builtins
import math
import warnings

from ember import _dtype
from ember import backend as _backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.complex import view_as_complex, view_as_real
from ember.ops.creation import _finish, _xp
from ember.ops.pointwise import _out
from ember.tensor import Tensor, _wrap, _wrap_dim

_cpu = _backend.cpu


# ---- range ---------------------------------------------------------------------------------------
def range(  # noqa: A001  (torch's name)
    start=0,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
) -> Tensor:
    """Deprecated: values from ``start`` to ``end`` *inclusive* by ``step``
    (``floor((end - start) / step) + 1`` of them), in the default float dtype unless ``dtype``
    says otherwise. Use ``arange`` (exclusive end).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ember.range(1, 4)
        tensor([1., 2., 3., 4.])
    """
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior "
        "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
        "values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        # NOTE: matches torch: one positional bound is not accepted (end is required)
        raise TypeError('range() missing 1 required positional arguments: "end"')
    vals = []
    for v in (start, end, step):
        vals.append(v.item() if isinstance(v, Tensor) else v)
    start, end, step = vals
    npd = _dtype.get_default_dtype()._np if dtype is None else _dtype.to_np(dtype)
    if npd.kind in "iub":
        # NOTE: matches torch: integer ranges cast their bounds to integers first
        start, end, step = builtins.int(start), builtins.int(end), builtins.int(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = builtins.int(math.floor((end - start) / step)) + 1
    xp = _xp(device)
    if xp.device_type == "meta":
        data = xp.empty((n,), dtype=npd)
    elif npd.kind in "iub":
        data = xp.asarray(_cpu.arange(n, dtype=_cpu.int64) * step + start).astype(npd)
    else:
        # computed in double, then cast, as torch's kernel accumulates
        data = xp.asarray(_cpu.arange(n, dtype=_cpu.float64) * step + start).astype(npd)
    return _out(_finish(data, requires_grad), out)


# ---- conj_physical_ ------------------------------------------------------------------------------
def conj_physical_(input: Tensor) -> Tensor:
    """Conjugates ``input`` in place (a no-op on real tensors) and returns it.

    Example:
        >>> x = ember.tensor([1 + 2j])
        >>> ember.conj_physical_(x)
        tensor([1.-2.j])
    """
    return input.conj_physical_()


# ---- view_as_*_copy ------------------------------------------------------------------------------
def view_as_real_copy(input: Tensor, *, out=None) -> Tensor:
    """``view_as_real(input)`` in new memory: a real tensor with a trailing dimension of size 2.

    Example:
        >>> ember.view_as_real_copy(ember.tensor([1 + 2j]))
        tensor([[1., 2.]])
    """
    return _out(view_as_real(input).clone(), out)


def view_as_complex_copy(input: Tensor, *, out=None) -> Tensor:
    """``view_as_complex(input)`` in new memory.

    Example:
        >>> ember.view_as_complex_copy(ember.tensor([[1.0, 2.0]]))
        tensor([1.+2.j])
    """
    if input.requires_grad and _gm.state.enabled:
        # NOTE: matches torch: this copy op has no complex-output derivative there
        raise RuntimeError(
            "view_as_complex_copy does not support automatic differentiation for outputs with "
            "complex dtype."
        )
    return _out(view_as_complex(input).clone(), out)


# ---- binomial ------------------------------------------------------------------------------------
def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Samples from Binomial(``count``, ``prob``) elementwise (broadcast), in ``count``'s float
    dtype. Negative counts give 0 and probabilities are clipped to [0, 1], as in torch.

    Example:
        >>> ember.binomial(ember.tensor([5.0, 3.0]), ember.tensor([1.0, 0.0]))
        tensor([5., 0.])
    """
    from ember.random._helpers import _gen

    cd, pd = count._data.dtype, prob._data.dtype
    if cd.kind not in "fV":
        name = _dtype.SCALAR_NAMES[_dtype.from_np(cd).name]
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {name}")
    if pd != cd:
        want = _dtype.SCALAR_NAMES[_dtype.from_np(cd).name]
        got = _dtype.SCALAR_NAMES[_dtype.from_np(pd).name]
        raise RuntimeError(f"Found dtype {got} but expected {want}")
    if cd.itemsize == 2:
        name = _dtype.SCALAR_NAMES[_dtype.from_np(cd).name]
        raise NotImplementedError(f"\"binomial_cpu\" not implemented for '{name}'")
    gen = _gen(generator)
    xp = xp_of(count._data)
    shape = tuple(_cpu.broadcast_shapes(count.shape, prob.shape))
    if xp.device_type == "meta":
        return _wrap(xp.empty(shape, dtype=cd))
    n = _cpu.floor(_cpu.maximum(count._data.astype(_cpu.float64), 0.0))
    p = _cpu.clip(prob._data.astype(_cpu.float64), 0.0, 1.0)
    n, p = _cpu.broadcast_arrays(n, p)
    # NOTE: torch's binomial has no derivative; the sample is a constant to autograd
    draw = _cpu.asarray(gen._rng.binomial(n.astype(_cpu.int64), p))
    return _wrap(draw.astype(cd).reshape(shape))


# ---- hash_tensor ---------------------------------------------------------------------------------
_HASH_BITS = {"f": "float64", "i": "int64", "u": "int64", "b": "int64", "V": "float64"}


def hash_tensor(input: Tensor, dim=None, *, keepdim: bool = False, mode: int = 0) -> Tensor:
    """A uint64 hash of ``input``'s elements (over ``dim``, or all): each element upcast to its
    64-bit float or integer form, its bits read as uint64, and the words XOR-reduced
    (``mode=0``, the only mode).

    Example:
        >>> ember.hash_tensor(ember.tensor([1, 2, 3]))
        tensor(0, dtype=ember.uint64)
    """
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    d = input._data
    kind = d.dtype.kind
    if kind not in _HASH_BITS or d.dtype == _cpu.dtype("uint64"):
        name = _dtype.SCALAR_NAMES[_dtype.from_np(d.dtype).name]
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{name}'")
    ndim = d.ndim
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        if d.size == 0:
            raise RuntimeError(
                "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        dims = tuple(builtins.range(ndim))
    else:
        dims = (dim,) if isinstance(dim, builtins.int) else tuple(dim)
        dims = tuple(_wrap_dim(k, ndim) for k in dims)
        for k in dims:
            if ndim and d.shape[k] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {k} to have non-zero size.")
    xp = xp_of(d)
    u64 = _cpu.dtype("uint64")
    if xp.device_type == "meta":
        shape = tuple((1 if keepdim else None) if i in dims else s for i, s in enumerate(d.shape))
        return _wrap(xp.empty(tuple(s for s in shape if s is not None), dtype=u64))
    words = d.astype(_HASH_BITS[kind]).view(u64)
    res = _cpu.bitwise_xor.reduce(words, axis=dims if ndim else None, keepdims=keepdim)
    return _wrap(_cpu.asarray(res, dtype=u64))


# ---- segment_reduce ------------------------------------------------------------------------------
_REDUCE_UFUNC = {
    "sum": "add",
    "mean": "add",
    "prod": "multiply",
    "max": "maximum",
    "min": "minimum",
}
_EMPTY = {"sum": 0.0, "prod": 1.0, "max": -math.inf, "min": math.inf, "mean": math.nan}


def _segment_forward(xp, data, lengths, reduce, initial):
    """``data`` (B, N, R), ``lengths`` (B, S) -> ``(out (B, S, R), seg_id (B*N,))``."""
    from ember.backend import _segment

    b, n, r = data.shape
    s = lengths.shape[1]
    flat = data.reshape(b * n, r)
    if reduce in ("sum", "mean") and xp is _cpu and data.dtype.char in "fd":
        out = _segment.segment_sum(flat, lengths.reshape(-1))
    else:
        ends = _cpu.cumsum(lengths, axis=1) + (_cpu.arange(b) * n)[:, None]
        starts = (ends - lengths).reshape(-1)
        out = _segment.segment_reduceat(getattr(xp, _REDUCE_UFUNC[reduce]), flat, starts)
    empty = (lengths.reshape(-1) == 0)[:, None]
    cnt = lengths.reshape(-1, 1).astype(data.dtype)
    if initial is not None:
        out = getattr(xp, _REDUCE_UFUNC[reduce])(out, xp.asarray(initial, dtype=data.dtype))
        fill = initial
    else:
        fill = _EMPTY[reduce]
    if reduce == "mean":
        out = out / xp.where(cnt == 0, 1, cnt)
    out = xp.where(empty, xp.asarray(fill, dtype=data.dtype), out)
    seg_id = _cpu.repeat(_cpu.arange(b * s), lengths.reshape(-1))
    return out.reshape(b, s, r), seg_id


class SegmentReduce(Function):
    _array_forward = True
    _node_name = "SegmentReduceBackward0"

    @staticmethod
    def forward(ctx, data, lengths, reduce, initial, axis):
        lead, n, trail = data.shape[:axis], data.shape[axis], data.shape[axis + 1 :]
        b = math.prod(lead)
        s = lengths.shape[-1]
        r = math.prod(trail)
        ls = _cpu.asarray(lengths, dtype=_cpu.int64).reshape(b, s)
        out, seg_id = _segment_forward(xp_of(data), data.reshape(b, n, r), ls, reduce, initial)
        ctx.reduce, ctx.initial, ctx.seg_id = reduce, initial, seg_id
        ctx.dims = (b, n, r, s)
        out = out.reshape(lead + (s,) + trail)
        ctx.save_for_backward(data, out, lengths)
        return out

    @staticmethod
    def backward(ctx, g):
        data, out, lengths = ctx.saved_tensors
        b, n, r, s = ctx.dims
        reduce, initial = ctx.reduce, ctx.initial
        seg = _wrap(xp_of(g._data).asarray(ctx.seg_id))
        ge = g.reshape(b * s, r).index_select(0, seg)  # each element's segment gradient
        x = data.reshape(b * n, r)
        if reduce == "sum":
            gx = ge
        elif reduce == "mean":
            cnt = lengths.reshape(b * s, 1).to(g.dtype).index_select(0, seg)
            gx = ge / cnt
        elif reduce in ("max", "min"):
            oe = out.reshape(b * s, r).index_select(0, seg)
            hit = (x == oe).to(g.dtype)
            # NOTE: matches torch: ties share the gradient equally (initial does not count)
            ties = _segment_sum(hit, seg, b * s).index_select(0, seg)
            gx = ge * hit / ties.clamp(min=1)
        else:  # prod: the product of the segment's other elements (zeros handled exactly)
            gx = ge * _prod_others(x, seg, b * s, initial)
        return gx.reshape(data.shape), None, None, None, None


def _segment_sum(t: Tensor, seg: Tensor, nseg: int) -> Tensor:
    """Sums the rows of ``t`` (E, R) into ``nseg`` rows by segment id."""
    from ember.ops.creation import zeros

    return zeros(nseg, t.shape[1], dtype=t.dtype, device=t.device).index_add(0, seg, t)


def _prod_others(x: Tensor, seg: Tensor, nseg: int, initial) -> Tensor:
    """For each element, the product of the other elements of its segment (times
    ``initial``), without dividing by a zero."""
    from ember.ops.ternary import where

    zero = x == 0
    nz = where(zero, 1.0, x)
    # products of the non-zero elements per segment, in log-free form through index_reduce
    from ember.ops.creation import ones

    prod_nz = ones(nseg, x.shape[1], dtype=x.dtype, device=x.device).index_reduce(
        0, seg, nz, "prod"
    )
    nzero = _segment_sum(zero.to(x.dtype), seg, nseg)
    pe, ze = prod_nz.index_select(0, seg), nzero.index_select(0, seg)
    others = where(zero, where(ze == 1, pe, 0.0), where(ze == 0, pe / nz, 0.0))
    return others if initial is None else others * initial


def segment_reduce(
    data: Tensor,
    reduce: str,
    *,
    lengths: Tensor | None = None,
    indices: Tensor | None = None,
    offsets: Tensor | None = None,
    axis: int = 0,
    unsafe: bool = False,
    initial=None,
) -> Tensor:
    """Reduces consecutive segments of ``data`` along ``axis`` (``'sum'``, ``'mean'``,
    ``'max'``, ``'min'``, ``'prod'``), the segments given by ``lengths`` or ``offsets`` (shape
    ``data.shape[:axis] + (S,)``, resp. ``(S + 1,)``). ``initial`` joins every reduction and
    fills empty segments (otherwise 0, nan, -inf, inf, 1 by reduction).

    Example:
        >>> data = ember.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
        >>> ember.segment_reduce(data, "sum", lengths=ember.tensor([2, 0, 3]))
        tensor([ 3.,  0., 12.])
    """
    red = {"amax": "max", "amin": "min"}.get(reduce, reduce)
    if red not in _REDUCE_UFUNC:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    dk = data._data.dtype.kind
    if dk not in "fV":
        name = _dtype.SCALAR_NAMES[_dtype.from_np(data._data.dtype).name]
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for '{name}'")
    if lengths is not None:
        seg = lengths
    else:
        seg = offsets.diff(dim=-1)
    if seg._data.dtype.kind not in "iu":
        name = _dtype.SCALAR_NAMES[_dtype.from_np(seg._data.dtype).name]
        raise NotImplementedError(
            f"\"_segment_reduce_lengths_cpu_kernel1\" not implemented for '{name}'"
        )
    axis = _wrap_dim(axis, data.dim())
    if axis != seg.dim() - 1:
        raise RuntimeError(
            f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}."
        )
    if tuple(seg.shape[:-1]) != tuple(data.shape[:axis]):
        raise RuntimeError(
            f"segment_reduce(): Expected lengths of shape {list(data.shape[:axis]) + ['S']}, "
            f"got {list(seg.shape)}"
        )
    ls = seg._data
    if xp_of(ls).device_type != "meta" and xp_of(data._data).device_type != "meta":
        ls = _cpu.asarray(ls)
        if (ls < 0).any():
            raise RuntimeError("lengths contains negative value!")
        if not unsafe and (ls.sum(axis=-1) != data.shape[axis]).any():
            raise RuntimeError(
                "segment_reduce(): Expected all rows of lengths along axis to sum to "
                "data.size(lengths.dim()-1) when !unsafe."
            )
    else:
        shape = tuple(data.shape[:axis]) + (seg.shape[-1],) + tuple(data.shape[axis + 1 :])
        return _wrap(xp_of(data._data).empty(shape, dtype=data._data.dtype))
    return SegmentReduce.apply(data, _wrap(ls), red, initial, axis)


# ---- native_norm ---------------------------------------------------------------------------------
def native_norm(input: Tensor, p=2, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The ``p``-norm of all elements of a sparse COO tensor (torch's sparse-only kernel
    behind ``norm`` of sparse tensors): the norm of its coalesced values. Only full reductions.

    Example:
        >>> x = ember.tensor([[0.0, 3.0], [4.0, 0.0]]).to_sparse()
        >>> ember.native_norm(x)
        tensor(5.)
    """
    if not getattr(input, "is_sparse", False):
        # NOTE: matches torch: there is no dense kernel
        raise NotImplementedError(
            "Could not run 'aten::native_norm' with arguments from the 'CPU' backend: it is "
            "implemented for sparse COO tensors only (use torch.linalg.vector_norm)"
        )
    if (
        dim is not None
        and len(dim)
        and sorted(_wrap_dim(d, input.dim()) for d in dim) != list(builtins.range(input.dim()))
    ):
        raise RuntimeError(
            "norm_sparse currently only supports full reductions, so 'dim' must either be empty "
            "or contain all dimensions of the input"
        )
    from ember.linalg import vector_norm

    values = input.coalesce().values().detach()  # NOTE: matches torch: no derivative
    if dtype is not None:
        values = values.to(dtype)
    out = vector_norm(values, 2 if p is None else p)
    if keepdim and dim is not None and len(dim):
        out = out.reshape((1,) * input.dim())
    return out


__all__ = [
    "native_norm",
    "range",
    "conj_physical_",
    "view_as_real_copy",
    "view_as_complex_copy",
    "binomial",
    "hash_tensor",
    "segment_reduce",
]

Tensor.hash_tensor = hash_tensor
