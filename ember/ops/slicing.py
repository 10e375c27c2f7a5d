"""Slicing into views: the basic-index view Functions (``_BasicView`` and its kin, the first
stage of ``Tensor.__getitem__`` in indexing.py), ``narrow``, ``select``, ``unbind``, ``split``,
``split_with_sizes``, ``chunk``, ``tensor_split``, ``hsplit``, ``vsplit``, ``dsplit``."""

from __future__ import annotations

import operator

from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.ops.shape import _as_view, _view_op
from ember.tensor import Tensor, _wrap_dim

_FULL = slice(None)


# ---- basic-index views: narrow, select, slices (and Tensor.__getitem__'s first stage) ---------
class _BasicView(Function):
    """``a[key]`` for a basic NumPy key (ints, slices, None; ending in ``...``): a view."""

    _array_forward = True
    _node_name = "SliceBackward0"

    @staticmethod
    def forward(ctx, a, key):
        ctx.shape = a.shape
        ctx.key = key
        return a[key]

    @staticmethod
    def backward(ctx, g):
        return _ViewScatter.apply(g, ctx.key, ctx.shape), None


class _Select(_BasicView):
    _node_name = "SelectBackward0"


class _UnsqueezeView(_BasicView):
    _node_name = "UnsqueezeBackward0"


class _Alias(_BasicView):
    _node_name = "AliasBackward0"


class _ViewScatter(Function):
    """Zeros of ``shape`` with ``g`` written at the basic ``key``: the gradient of a view."""

    _array_forward = True
    _node_name = "SliceBackwardBackward0"

    @staticmethod
    def forward(ctx, g, key, shape):
        ctx.key = key
        out = xp_of(g).zeros(shape, dtype=g.dtype)
        out[key] = g
        return out

    @staticmethod
    def backward(ctx, gg):
        return unary(_BasicView, gg, ctx.key), None, None


def _view(input: Tensor, key: tuple, cls=_BasicView) -> Tensor:
    return _view_op(cls, input, key)


def narrow(input: Tensor, dim: int, start, length: int) -> Tensor:
    """``length`` elements of dim ``dim`` from ``start`` (a view).

    Example:
        >>> ember.arange(6).narrow(0, 2, 3)
        tensor([2, 3, 4])
    """
    n = input._data.ndim
    if n == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, n)
    start, length = operator.index(start), operator.index(length)
    size = input._data.shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _view(input, (_FULL,) * d + (slice(start, start + length), Ellipsis))


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` of dim ``dim``, with that dim removed (a view).

    Example:
        >>> ember.arange(6).reshape(2, 3).select(1, -1)
        tensor([2, 5])
    """
    n = input._data.ndim
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, n)
    index = operator.index(index)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
            f"dimension {d}"
        )
    return _view(input, (_FULL,) * d + (index, Ellipsis), _Select)


class _Unbind(Function):
    _array_forward = True
    _node_name = "UnbindBackward0"

    @staticmethod
    def forward(ctx, a, d):
        ctx.d = d
        pre = (_FULL,) * d
        return tuple(a[pre + (i, Ellipsis)] for i in range(a.shape[d]))

    @staticmethod
    def backward(ctx, *grads):
        return stack(grads, ctx.d), None


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices along ``dim``, each with that dim removed (views).

    Example:
        >>> ember.arange(4).reshape(2, 2).unbind(1)
        (tensor([0, 2]), tensor([1, 3]))
    """
    n = input._data.ndim
    if n == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, n)
    if input._data.shape[d] == 0:
        return ()
    return tuple(_as_view(o, input) for o in _Unbind.apply(input, d))


class _SplitWithSizes(Function):
    _array_forward = True
    _node_name = "SplitWithSizesBackward0"

    @staticmethod
    def forward(ctx, a, sizes, d):
        ctx.d = d
        pre = (_FULL,) * d
        out, off = [], 0
        for s in sizes:
            out.append(a[pre + (slice(off, off + s), Ellipsis)])
            off += s
        return tuple(out)

    @staticmethod
    def backward(ctx, *grads):
        return cat(grads, ctx.d), None, None


class _Split(_SplitWithSizes):
    _node_name = "SplitBackward0"


def _split_sizes(input: Tensor, split_size_or_sections, d: int):
    size = input._data.shape[d]
    if isinstance(split_size_or_sections, (int, Tensor)) and not (
        isinstance(split_size_or_sections, Tensor) and split_size_or_sections.ndim
    ):
        ss = operator.index(split_size_or_sections)
        if ss < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={ss}")
        if ss == 0 and size != 0:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
            )
        n = max((size + ss - 1) // ss, 1) if ss else 1
        return _Split, tuple([ss] * (n - 1) + [size - ss * (n - 1)])
    sizes = tuple(operator.index(s) for s in split_size_or_sections)
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative "
            f"entries, but got split_sizes={list(sizes)}"
        )
    if sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
            f"at dimension {d}), but got split_sizes={list(sizes)}"
        )
    return _SplitWithSizes, sizes


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Split into pieces of ``split_size`` (the last may be smaller) or of the given sizes
    (views).

    Example:
        >>> [t.tolist() for t in ember.arange(5).split(2)]
        [[0, 1], [2, 3], [4]]
    """
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, tensor._data.ndim)
    cls, sizes = _split_sizes(tensor, split_size_or_sections, d)
    return tuple(_as_view(o, tensor) for o in cls.apply(tensor, sizes, d))


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``split`` with a list of sizes."""
    return split(input, list(split_sizes), dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Split into at most ``chunks`` pieces of equal size (the last may be smaller; views).

    Example:
        >>> [t.tolist() for t in ember.arange(5).chunk(3)]
        [[0, 1], [2, 3], [4]]
    """
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    chunks = operator.index(chunks)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    ss = (size + chunks - 1) // chunks
    if ss == 0 and size == 0:
        return split(input, [0] * chunks, d)
    return split(input, ss, d)


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """Split into ``n`` nearly equal pieces (the first ``size % n`` one longer) or at the given
    indices (views).

    Example:
        >>> [t.tolist() for t in ember.arange(5).tensor_split(3)]
        [[0, 1], [2, 3], [4]]
    """
    n = input._data.ndim
    if n == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrap_dim(dim, n)
    size = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype.kind not in "iu":
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have "
                f"integer dtype, but got {ios.dtype}"
            )
        if ios.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a "
                f"zero-dimensional or one-dimensional tensor, but got a tensor "
                f"with {ios.ndim} dims"
            )
        ios = ios.item() if ios.ndim == 0 else ios.tolist()
    pre = (_FULL,) * d
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(size, ios)
        bounds = [0]
        for i in range(ios):
            bounds.append(bounds[-1] + q + (1 if i < r else 0))
        keys = [slice(bounds[i], bounds[i + 1]) for i in range(ios)]
    else:
        idx = [operator.index(i) for i in ios]
        starts = [0] + idx
        stops = idx + [None]
        keys = [slice(s, e) for s, e in zip(starts, stops, strict=False)]
    return tuple(_view(input, pre + (k, Ellipsis)) for k in keys)


def _split_along(name, dim, min_ndim):
    def fn(input: Tensor, indices_or_sections) -> tuple:
        if input._data.ndim < min_ndim:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a "
                f"tensor with {input._data.ndim} dimensions!"
            )
        d = 0 if name == "hsplit" and input._data.ndim == 1 else dim
        if isinstance(indices_or_sections, int) and input._data.shape[d] % indices_or_sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {d}, but the size of the "
                f"dimension {input._data.shape[d]} is not divisible by the split_size "
                f"{indices_or_sections}!"
            )
        return tensor_split(input, indices_or_sections, d)

    fn.__name__ = name
    fn.__doc__ = f"``tensor_split`` along dim {dim} (numpy's ``{name}``)."
    return fn


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


__all__ = [
    "narrow",
    "select",
    "unbind",
    "split",
    "split_with_sizes",
    "chunk",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
]

Tensor.narrow = narrow
Tensor.select = select
Tensor.unbind = unbind
Tensor.split = split
Tensor.split_with_sizes = split_with_sizes
Tensor.chunk = chunk
Tensor.tensor_split = tensor_split
Tensor.hsplit, Tensor.vsplit, Tensor.dsplit = hsplit, vsplit, dsplit


# At the bottom: the backward formulas of unbind and split use joining's stack and cat, and
# joining's stack uses unbind, so each file imports the other after its own definitions.
from ember.ops.joining import cat, stack  # noqa: E402
