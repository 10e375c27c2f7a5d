"""The rest of the Tensor surface: strided views (``unfold``, ``as_strided``), the in-place
forms of the shape views (``squeeze_``, ``t_``...), ``resize_``/``set_``, the ``*_copy`` ops,
and the small queries (``is_signed``, ``is_same_size``, ``is_set_to``...).

A strided view is a NumPy view of the tensor's *storage* (the array that owns the memory), so
``as_strided``'s ``storage_offset`` counts from the start of that storage as PyTorch's does.
Its gradient scatters into a storage-sized buffer (``index_add``) and gathers the input's
elements from it (``take``): both are ember ops, so double backward comes for free.
"""

from __future__ import annotations

import math
import operator

from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.autograd.function import NOGRAD_CTX, Function, check_inference_write
from ember.ops._dispatch import unary, xp_of
from ember.ops.pointwise import inplace
from ember.ops.shape import _as_view, _keyword_size, _size_args
from ember.tensor import Tensor, _wrap, _wrap_dim

__all__ = [
    "alias_copy",
    "as_strided",
    "as_strided_",
    "as_strided_copy",
    "as_strided_scatter",
    "detach",
    "detach_",
    "detach_copy",
    "diagonal_copy",
    "expand_copy",
    "fill",
    "fill_",
    "index_put_",
    "is_same_size",
    "is_signed",
    "narrow_copy",
    "neg_",
    "negative_",
    "nonzero_static",
    "permute_copy",
    "resize_as_",
    "select_copy",
    "slice_copy",
    "slice_inverse",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "unbind_copy",
    "unfold_copy",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
    "unsqueeze_copy",
    "view_copy",
    "zero_",
]


# ---- strided views ----------------------------------------------------------------------------
def _strided(a, shape, strides, offset):
    """A view of ``a``'s storage with ``shape``, ``strides`` and absolute ``offset`` (elements)."""
    xp = xp_of(a)
    if xp.device_type == "meta":
        return xp.as_strided(a, shape, strides)
    return xp.as_strided(xp._root(a), shape, strides, offset)


def _scatter_gather(g: Tensor, numel, out_geom, in_geom) -> Tensor:
    """The gradient of a strided view: ``g`` added into a storage of ``numel`` elements at the
    view's places (overlaps accumulate), then read back at the input's places."""
    xp = xp_of(g._data)
    storage = xp.arange(numel)
    out_idx = _wrap(xp.ascontiguousarray(xp.as_strided(storage, *out_geom)).reshape(-1))
    in_idx = _wrap(xp.ascontiguousarray(xp.as_strided(storage, *in_geom)))
    buf = g.new_zeros(numel).index_add(0, out_idx, g.reshape(-1))
    return buf.take(in_idx)


def _geom(a):
    xp = xp_of(a)
    return (tuple(a.shape), xp.strides_of(a), xp.storage_offset(a))


class AsStrided(Function):
    _array_forward = True
    _node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, a, size, stride, offset):
        xp = xp_of(a)
        if xp.device_type == "meta":
            return xp.as_strided(a, size, stride)
        root = xp._root(a)
        if ctx is not NOGRAD_CTX:  # the geometry the gradient needs
            ctx.numel = root.nbytes // a.itemsize
            ctx.in_geom = _geom(a)
            ctx.out_geom = (size, stride, offset)
        return xp.as_strided(root, size, stride, offset)

    @staticmethod
    def backward(ctx, g):
        return _scatter_gather(g, ctx.numel, ctx.out_geom, ctx.in_geom), None, None, None


def _check_strided(a, size, stride, offset) -> None:
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(size)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    xp = xp_of(a)
    if xp.device_type == "meta" or 0 in size:
        return
    isz = a.itemsize
    need = (offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1) * isz
    have = xp._root(a).nbytes
    if need > have:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {isz} requiring a storage size of {need} are out of bounds for "
            f"storage of size {have}"
        )


def _strided_args(input, size, stride, storage_offset):
    size = tuple(operator.index(s) for s in size)
    stride = tuple(operator.index(s) for s in stride)
    off = input.storage_offset() if storage_offset is None else operator.index(storage_offset)
    _check_strided(input._data, size, stride, off)
    return size, stride, off


def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """A view of ``input``'s storage with the given ``size``, ``stride`` and ``storage_offset``
    (default: ``input``'s own offset), all in elements.

    Example:
        >>> ember.arange(6.).as_strided((2, 2), (1, 2), 1)
        tensor([[1., 3.],
                [2., 4.]])
    """
    args = _strided_args(input, size, stride, storage_offset)
    out = unary(AsStrided, input, *args)
    return _as_view(out, input, lambda b: unary(AsStrided, b, *args))


def as_strided_copy(input: Tensor, size, stride, storage_offset=None, *, out=None) -> Tensor:
    """``as_strided`` followed by a copy (no memory shared with ``input``).

    Example:
        >>> ember.as_strided_copy(ember.arange(4.), (2,), (2,))
        tensor([0., 2.])
    """
    return _copy_out(as_strided(input, size, stride, storage_offset), out)


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset=None) -> Tensor:
    """A copy of ``input`` (contiguous) with ``src`` written at the places that
    ``as_strided(size, stride, storage_offset)`` of that copy views.

    Example:
        >>> ember.as_strided_scatter(ember.zeros(4), ember.ones(2), (2,), (2,))
        tensor([1., 0., 1., 0.])
    """
    out = input.clone()
    if input._data.size:
        # NOTE: matches torch: offsets count from input's own start (the copy starts there)
        off = 0 if storage_offset is None else storage_offset - input.storage_offset()
        target = as_strided(out, size, stride, off)
        if tuple(target.shape) != tuple(src.shape):
            raise RuntimeError(
                f"expected src to have a size equal to the slice of self. src size = "
                f"{list(src.shape)}, slice size = {list(target.shape)}"
            )
        target.copy_(src)
    return out


class Unfold(Function):
    _array_forward = True
    _node_name = "UnfoldBackward0"

    @staticmethod
    def forward(ctx, a, dim, size, step):
        ctx.args = (a.shape, dim, size, step)
        xp = xp_of(a)
        n = a.shape[dim]
        shape = list(a.shape)
        shape[dim] = (n - size) // step + 1
        shape.append(size)
        if xp.device_type == "meta":
            return xp.as_strided(a, tuple(shape), ())
        st = list(xp.strides_of(a))
        st.append(st[dim])
        st[dim] *= step
        return _strided(a, tuple(shape), tuple(st), xp.storage_offset(a))

    @staticmethod
    def backward(ctx, g):
        shape, dim, size, step = ctx.args
        return UnfoldBackward.apply(g, shape, dim, size, step), None, None, None


class UnfoldBackward(Function):
    """The gradient of ``unfold``: each window element added back to the input element it
    views, one strided add per position in the window (``size`` adds, no index arrays)."""

    _array_forward = True
    _node_name = "UnfoldBackwardBackward0"

    @staticmethod
    def forward(ctx, g, shape, dim, size, step):
        ctx.args = (dim, size, step)
        xp = xp_of(g)
        out = xp.zeros(shape, dtype=g.dtype)
        nwin = g.shape[dim]
        lead = (slice(None),) * dim
        for k in range(size):
            out[lead + (slice(k, k + step * (nwin - 1) + 1, step),)] += g[..., k]
        return out

    @staticmethod
    def backward(ctx, gg):
        dim, size, step = ctx.args
        return _unfold(gg, dim, size, step), None, None, None, None


def _unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Windows of ``size`` elements every ``step`` along ``dimension``, as a new last dim (a
    view of the same memory).

    Example:
        >>> ember.arange(5.).unfold(0, 2, 2)
        tensor([[0., 1.],
                [2., 3.]])
    """
    a = self._data
    nd = a.ndim
    d = _wrap_dim(dimension, nd)
    n = a.shape[d] if nd else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if nd == 0:  # NOTE: matches torch: a 0-d tensor unfolds to shape (size,)
        return self.reshape(size)
    args = (d, size, step)
    out = unary(Unfold, self, *args)
    return _as_view(out, self, lambda b: unary(Unfold, b, *args))


Tensor.unfold = _unfold


def unfold_copy(input: Tensor, dimension: int, size: int, step: int, *, out=None) -> Tensor:
    """``input.unfold(dimension, size, step)`` as a copy.

    Example:
        >>> ember.unfold_copy(ember.arange(4.), 0, 2, 2)
        tensor([[0., 1.],
                [2., 3.]])
    """
    return _copy_out(_unfold(input, dimension, size, step), out)


# ---- in-place shape views: the same Python object takes the view's shape ---------------------
def _metadata_inplace(self: Tensor, view_fn, name: str) -> Tensor:
    """Make ``self`` itself look like ``view_fn(self)`` (shape, strides, history)."""
    check_inference_write(self)
    if self._requires_grad and self._grad_fn is None and _gm.state.enabled:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    out = view_fn(self)
    self._data = out._data
    if out._grad_fn is not None:
        self._grad_fn = out._grad_fn
        self._output_nr = out._output_nr
    if self._base is not None:  # still a view of the same base, now through one more op
        self._view_fn = out._view_fn
        self._view_version = out._view_version
    self._vc[0] += 1
    return self


def _squeeze_(self: Tensor, dim=None) -> Tensor:
    """In-place :meth:`squeeze`: this tensor loses its size-1 dims."""
    return _metadata_inplace(self, lambda t: t.squeeze() if dim is None else t.squeeze(dim), "")


def _unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """In-place :meth:`unsqueeze`."""
    return _metadata_inplace(self, lambda t: t.unsqueeze(dim), "")


def _t_(self: Tensor) -> Tensor:
    """In-place :meth:`t`."""
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _metadata_inplace(self, lambda t: t.t(), "")


def _transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """In-place :meth:`transpose`."""
    return _metadata_inplace(self, lambda t: t.transpose(dim0, dim1), "")


def as_strided_(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """In-place :func:`as_strided`: ``input`` becomes the strided view of its own storage.

    Example:
        >>> x = ember.arange(4.)
        >>> ember.as_strided_(x, (2,), (2,)) is x
        True
    """
    return _metadata_inplace(input, lambda t: as_strided(t, size, stride, storage_offset), "")


Tensor.squeeze_ = _squeeze_
Tensor.unsqueeze_ = _unsqueeze_
Tensor.t_ = _t_
Tensor.transpose_ = _transpose_
Tensor.swapaxes_ = Tensor.swapdims_ = _transpose_
Tensor.as_strided = as_strided
Tensor.as_strided_ = as_strided_
Tensor.as_strided_scatter = as_strided_scatter


# ---- resize_ and set_: replace a tensor's memory ----------------------------------------------
def _resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    """Give the tensor ``sizes``, keeping its first elements (new ones are uninitialized).

    Example:
        >>> ember.arange(6.).resize_(2, 2)
        tensor([[0., 1.],
                [2., 3.]])
    """
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    check_inference_write(self)
    shape = _size_args(sizes)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
    a = self._data
    xp = xp_of(a)
    if tuple(a.shape) != shape:
        n = math.prod(shape)
        if xp.device_type == "meta":
            self._data = xp.empty(shape, dtype=a.dtype)
        elif n <= a.size and a.flags.c_contiguous:  # the same memory, as torch keeps storage
            self._data = a.reshape(-1)[:n].reshape(shape)
        else:
            new = xp.zeros(n, dtype=a.dtype)
            k = min(n, a.size)
            new[:k] = a.reshape(-1)[:k]
            self._data = new.reshape(shape)
    self._vc[0] += 1
    return self


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """Resize ``input`` to ``the_template``'s shape (see ``Tensor.resize_``).

    Example:
        >>> ember.resize_as_(ember.zeros(4), ember.zeros(2, 2)).shape
        ember.Size([2, 2])
    """
    return _resize_(input, the_template.shape)


def _set_(self: Tensor, source=None, storage_offset=0, size=None, stride=None) -> Tensor:
    """Make this tensor use ``source``'s memory (a tensor or a storage); no source: empty.

    Example:
        >>> y = ember.zeros(2)
        >>> x = ember.arange(3.)
        >>> y.set_(x).is_set_to(x)
        True
    """
    check_inference_write(self)
    if self._requires_grad and self._grad_fn is None and _gm.state.enabled:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    a = self._data
    xp = xp_of(a)
    if source is None:
        data = xp.empty((0,), dtype=a.dtype)
    else:
        if isinstance(source, Tensor):
            data = source._data
        else:
            from ember.storage import _storage_array

            data = _storage_array(source, a.dtype)
        if data.dtype != a.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {_ctype(data.dtype)} to a tensor of type "
                f"{_ctype(a.dtype)}"
            )
        if size is not None:
            size = tuple(size)
            stride = _contiguous_strides(size) if stride is None else tuple(stride)
            _check_strided(data, size, stride, storage_offset)
            data = _strided(data, size, stride, storage_offset)
    self._data = data
    self._vc[0] += 1
    return self


_CTYPES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def _ctype(np_dtype) -> str:
    """PyTorch's C++ name of a dtype, as its storage errors print it."""
    name = _dtype._FROM_NP[np_dtype].name
    return _CTYPES.get(name, name)


def _contiguous_strides(size) -> tuple:
    st, acc = [], 1
    for s in reversed(size):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


def _is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether both tensors view the same memory with the same sizes and strides."""
    a, b = self._data, tensor._data
    xp = xp_of(a)
    if xp is not xp_of(b) or xp.device_type == "meta":
        return a is b
    return (
        xp._root(a) is xp._root(b)
        and a.shape == b.shape
        and a.strides == b.strides
        and xp.data_ptr(a) == xp.data_ptr(b)
    )


Tensor.resize_ = _resize_
Tensor.resize_as_ = resize_as_
Tensor.set_ = _set_
Tensor.is_set_to = _is_set_to


# ---- copies of views ---------------------------------------------------------------------------
def _copy_out(view: Tensor, out):
    from ember.ops.pointwise import _out

    return _out(view.clone(), out)


def _copy_op(method: str, doc_example: str):
    def fn(input: Tensor, *args, out=None, **kwargs) -> Tensor:
        return _copy_out(getattr(input, method)(*args, **kwargs), out)

    fn.__name__ = f"{method}_copy"
    fn.__qualname__ = fn.__name__
    fn.__doc__ = (
        f"``input.{method}(...)`` as a new tensor that shares no memory with ``input``.\n\n"
        f"Example:\n    >>> {doc_example}\n"
    )
    return fn


expand_copy = _copy_op(
    "expand", "ember.expand_copy(ember.ones(1), (2,)).shape\n    ember.Size([2])"
)
permute_copy = _copy_op(
    "permute", "ember.permute_copy(ember.zeros(2, 3), (1, 0)).shape\n    ember.Size([3, 2])"
)
select_copy = _copy_op("select", "ember.select_copy(ember.arange(3.), 0, 1)\n    tensor(1.)")
squeeze_copy = _copy_op(
    "squeeze", "ember.squeeze_copy(ember.zeros(1, 2)).shape\n    ember.Size([2])"
)
unsqueeze_copy = _copy_op(
    "unsqueeze", "ember.unsqueeze_copy(ember.zeros(2), 0).shape\n    ember.Size([1, 2])"
)
t_copy = _copy_op("t", "ember.t_copy(ember.zeros(2, 3)).shape\n    ember.Size([3, 2])")
transpose_copy = _copy_op(
    "transpose", "ember.transpose_copy(ember.zeros(2, 3), 0, 1).shape\n    ember.Size([3, 2])"
)
view_copy = _copy_op("view", "ember.view_copy(ember.zeros(2, 3), -1).shape\n    ember.Size([6])")
diagonal_copy = _copy_op("diagonal", "ember.diagonal_copy(ember.eye(2))\n    tensor([1., 1.])")
narrow_copy = _copy_op(
    "narrow", "ember.narrow_copy(ember.arange(4.), 0, 1, 2)\n    tensor([1., 2.])"
)
Tensor.narrow_copy = narrow_copy


def alias_copy(input: Tensor, *, out=None) -> Tensor:
    """A copy of ``input`` (the copy form of an alias).

    Example:
        >>> ember.alias_copy(ember.ones(2))
        tensor([1., 1.])
    """
    return _copy_out(input, out)


def detach_copy(input: Tensor, *, out=None) -> Tensor:
    """A detached copy of ``input``.

    Example:
        >>> ember.detach_copy(ember.ones(2, requires_grad=True)).requires_grad
        False
    """
    return _copy_out(input.detach(), out)


def slice_copy(
    input: Tensor, dim: int = 0, start=None, end=None, step: int = 1, *, out=None
) -> Tensor:
    """``input[..., start:end:step, ...]`` along ``dim``, as a copy.

    Example:
        >>> ember.slice_copy(ember.arange(5.), 0, 1, 4, 2)
        tensor([1., 3.])
    """
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = _wrap_dim(dim, input.ndim)
    return _copy_out(input[(slice(None),) * d + (slice(start, end, step),)], out)


def _copies(parts) -> list:
    return [p.clone() for p in parts]


def split_copy(tensor: Tensor, split_size, dim: int = 0, *, out=None) -> list:
    """``split`` whose parts are copies.

    Example:
        >>> [p.shape[0] for p in ember.split_copy(ember.arange(5.), 2)]
        [2, 2, 1]
    """
    return _copies(tensor.split(split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0, *, out=None) -> list:
    """``split_with_sizes`` whose parts are copies.

    Example:
        >>> [p.shape[0] for p in ember.split_with_sizes_copy(ember.arange(5.), [1, 4])]
        [1, 4]
    """
    return _copies(input.split(list(split_sizes), dim))


def unbind_copy(input: Tensor, dim: int = 0, *, out=None) -> tuple:
    """``unbind`` whose parts are copies.

    Example:
        >>> len(ember.unbind_copy(ember.zeros(3, 2)))
        3
    """
    return tuple(_copies(input.unbind(dim)))


def unsafe_split(tensor: Tensor, split_size, dim: int = 0) -> tuple:
    """``split`` (the parts are not tracked as views by torch; here they are ordinary views).

    Example:
        >>> len(ember.unsafe_split(ember.arange(4.), 2))
        2
    """
    return tuple(tensor.split(split_size, dim))


def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``split_with_sizes`` (see :func:`unsafe_split`).

    Example:
        >>> [p.numel() for p in ember.unsafe_split_with_sizes(ember.arange(4.), [1, 3])]
        [1, 3]
    """
    return tuple(input.split(list(split_sizes), dim))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """``chunk`` (see :func:`unsafe_split`).

    Example:
        >>> len(ember.unsafe_chunk(ember.arange(4.), 2))
        2
    """
    return tuple(input.chunk(chunks, dim))


Tensor.unsafe_split = unsafe_split
Tensor.unsafe_split_with_sizes = unsafe_split_with_sizes
Tensor.unsafe_chunk = unsafe_chunk


def slice_inverse(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step=1):
    """The tensor that ``input`` was sliced from: ``input``'s storage seen with ``src``'s
    sizes, strides and offset (``dim``, ``start``, ``end``, ``step`` name the slice).

    Example:
        >>> base = ember.arange(6.)
        >>> ember.slice_inverse(base[1:3], base, 0, 1, 3)
        tensor([0., 1., 2., 3., 4., 5.])
    """
    # NOTE: matches torch: the result views the whole storage, so its gradient reaches the
    # base that ``input`` was sliced from, not only ``input``'s part of it
    whole = input if input._base is None else input._base
    return as_strided(whole, tuple(src.shape), src.stride(), src.storage_offset())


Tensor.slice_inverse = slice_inverse


# ---- small in-place ops and top-level aliases of methods ---------------------------------------
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero(input)`` padded with ``fill_value`` (or cut) to exactly ``size`` rows.

    Example:
        >>> ember.nonzero_static(ember.tensor([0, 1, 0, 2]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    nz = input.nonzero()
    k = nz.shape[0]
    if k >= size:
        return nz[:size].clone()
    pad = nz.new_full((size - k, input.ndim), fill_value)
    from ember.ops.joining import cat

    return cat([nz, pad], 0)


Tensor.nonzero_static = nonzero_static


def _fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (of a 2-D or an all-equal-sides tensor) with ``fill_value``;
    ``wrap=True`` restarts the diagonal below a tall matrix every ``cols + 1`` rows.

    Example:
        >>> ember.zeros(2, 2).fill_diagonal_(5.)
        tensor([[5., 0.],
                [0., 5.]])
    """
    nd = self.ndim
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(self.shape)
    if nd > 2 and any(s != shape[0] for s in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    xp = xp_of(self._data)
    if nd == 2:
        rows, cols = shape
        n = rows * cols
        limit = n if wrap and rows > cols else min(rows, cols) * cols
        flat = xp.arange(0, limit, cols + 1)
        idx = tuple(xp.divmod(flat, cols))
    else:
        r = xp.arange(shape[0])
        idx = (r,) * nd
    mask = xp.zeros(shape, dtype=bool)
    mask[idx] = True
    return self.masked_fill_(_wrap(mask), fill_value)


Tensor.fill_diagonal_ = _fill_diagonal_


def _sum_to_size(self: Tensor, *size, **kwargs) -> Tensor:
    """Sum this tensor down to ``size`` (which must broadcast to its shape).

    Example:
        >>> ember.ones(2, 3).sum_to_size(1, 3)
        tensor([[2., 2., 2.]])
    """
    if kwargs:
        size = _keyword_size(size, kwargs, "size", "sum_to_size")
    size = _size_args(size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    ok = lead >= 0 and all(s == 1 or s == shape[lead + i] for i, s in enumerate(size))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    out = self
    if lead:
        out = out.sum(tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1)
    if dims:
        out = out.sum(dims, keepdim=True)
    return out


Tensor.sum_to_size = _sum_to_size


def _tril_fn(t, diagonal=0):
    return t.tril(diagonal)


def _triu_fn(t, diagonal=0):
    return t.triu(diagonal)


_tril_fn.__name__, _triu_fn.__name__ = "tril", "triu"
Tensor.tril_ = inplace(_tril_fn)
Tensor.triu_ = inplace(_triu_fn)


def detach(input: Tensor) -> Tensor:
    """``input.detach()``.

    Example:
        >>> ember.detach(ember.ones(1, requires_grad=True)).requires_grad
        False
    """
    return input.detach()


def detach_(input: Tensor) -> Tensor:
    """``input.detach_()``.

    Example:
        >>> ember.detach_(ember.ones(1, requires_grad=True)).requires_grad
        False
    """
    return input.detach_()


def fill(input: Tensor, value) -> Tensor:
    """A tensor like ``input`` filled with ``value`` (a number or a 0-d tensor).

    Example:
        >>> ember.fill(ember.zeros(2), 3.)
        tensor([3., 3.])
    """
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
            "dimensions."
        )
    return input.clone().fill_(value) if not input._requires_grad else _fill_graph(input, value)


def _fill_graph(input, value):
    from ember.ops.conversion import _fill_fn

    if isinstance(value, Tensor):
        return value.expand(input.shape).to(input.dtype).clone()
    return _fill_fn(input, value)


def fill_(input: Tensor, value) -> Tensor:
    """``input.fill_(value)``.

    Example:
        >>> ember.fill_(ember.zeros(2), 1.)
        tensor([1., 1.])
    """
    return input.fill_(value)


def zero_(input: Tensor) -> Tensor:
    """``input.zero_()``.

    Example:
        >>> ember.zero_(ember.ones(2))
        tensor([0., 0.])
    """
    return input.zero_()


def neg_(input: Tensor) -> Tensor:
    """``input.neg_()``.

    Example:
        >>> ember.neg_(ember.ones(2))
        tensor([-1., -1.])
    """
    return input.neg_()


negative_ = neg_


def index_put_(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """``input.index_put_(indices, values, accumulate)``.

    Example:
        >>> ember.index_put_(ember.zeros(3), (ember.tensor([1]),), ember.tensor(2.))
        tensor([0., 2., 0.])
    """
    return input.index_put_(indices, values, accumulate)


# ---- queries -------------------------------------------------------------------------------------
def is_signed(input: Tensor) -> bool:
    """Whether the dtype is signed (everything but ``uint8`` and ``bool``).

    Example:
        >>> ember.is_signed(ember.tensor([1], dtype=ember.uint8))
        False
    """
    return input._data.dtype.kind not in "ub"


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two shapes are equal.

    Example:
        >>> ember.is_same_size(ember.zeros(2), ember.zeros(2, 1))
        False
    """
    return tuple(input.shape) == tuple(other.shape)


def _is_nonzero(self: Tensor) -> bool:
    if self._data.size != 1:
        what = "no values" if self._data.size == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
    return self.__bool__()


Tensor.is_signed = is_signed
Tensor.is_same_size = is_same_size
Tensor.is_nonzero = _is_nonzero
