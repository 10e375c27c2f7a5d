"""Shape views: the view machinery (``_as_view``, ``_view_op``) and the ops that give the same data
a new shape or dim order: reshape, view, flatten, unflatten, squeeze, unsqueeze, permute,
transpose, movedim, and the ``T``, ``mT``, ``H``, ``mH`` properties.

View ops (``view``, ``reshape`` when the layout allows, ``narrow``, ``select``, ``split``,
``diagonal``, ``expand``, ``permute``...) return tensors that share memory and the version
counter with their input (``_base`` points at the viewed tensor), as PyTorch's views do; the
others copy. The other shape ops live beside this file: broadcast.py (expand, broadcasting,
meshgrid), slicing.py (narrow, select, split, chunk; the basic-index views of
``Tensor.__getitem__``), joining.py (cat, stack), rearrange.py (flip, roll, repeat) and
diagonal.py (tril, triu, diagonal, diag).
"""

from __future__ import annotations

import math
import operator
import warnings

from ember._dtype import SCALAR_NAMES
from ember._dtype import dtype as _dt
from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.tensor import Tensor, _wrap, _wrap_dim


def _as_view(out: Tensor, base: Tensor, fn=None) -> Tensor:
    """Mark ``out`` as a view of ``base``: same memory, same version counter.

    ``fn(t)`` recomputes the view from a tensor like ``base`` (with autograd history); it is
    composed into ``out._view_fn``, which recreates the view from the root base, so in-place ops
    on views can be recorded (see ``inplace`` in pointwise.py).
    """
    out._vc = base._vc
    root = base._base
    if root is None:
        out._base = base
        if fn is not None:
            out._view_fn = fn
    else:
        out._base = root
        inner = base._view_fn
        if fn is not None and inner is not None:
            out._view_fn = lambda r: fn(inner(r))
    out._view_version = base._vc[0]
    return out


def _view_op(cls, input: Tensor, *args) -> Tensor:
    """Apply the view Function ``cls`` and mark the result as a view that ``cls`` recreates."""
    return _as_view(unary(cls, input, *args), input, lambda b: unary(cls, b, *args))


def _keyword_size(args: tuple, kwargs: dict, name: str, fn: str) -> tuple:
    """``fn(*name)`` called as ``fn(name=...)``: torch takes a size (dims) either way. Only
    called when ``kwargs`` is not empty, so the positional form costs one test of a dict."""
    unknown = [k for k in kwargs if k != name]
    if unknown:
        raise TypeError(f"{fn}() got an unexpected keyword argument '{unknown[0]}'")
    if args:
        # NOTE: matches torch: given both ways, it is refused rather than merged
        raise TypeError(f"{fn}() got multiple values for argument '{name}'")
    return (kwargs[name],)


def _size_args(shape) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all give ``(2, 3)``."""
    if (
        len(shape) == 1
        and not isinstance(shape[0], int)
        and not (isinstance(shape[0], Tensor) and shape[0].ndim == 0)
    ):
        shape = tuple(shape[0])
    return tuple(operator.index(s) for s in shape)


def _dims_arg(dims, ndim: int) -> tuple:
    """Normalize a dim list (varargs or one sequence), refusing repeats as PyTorch does."""
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = tuple(dims[0])
    out = []
    for d in dims:
        w = _wrap_dim(operator.index(d), ndim)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out)


def _infer_shape(shape, numel: int) -> tuple:
    """Resolve one ``-1`` in a target shape for ``numel`` elements, with PyTorch's errors."""
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    if neg:
        rest = math.prod(s for s in shape if s != -1)
        if rest == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {shape} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous"
                )
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        if numel % rest:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // rest
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


def _viewable(a, shape) -> bool:
    """Whether ``a`` can take ``shape`` without a copy (PyTorch's ``view`` condition)."""
    if xp_of(a).device_type == "meta" or a.flags.c_contiguous:
        return True
    try:
        a.reshape(shape, copy=False)
    except ValueError:
        return False
    return True


# ---- reshape family: same data, new shape ---------------------------------------------------
class Reshape(Function):
    _array_forward = True
    _node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return a.reshape(shape)

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.shape), None


class _UnsafeView(Reshape):
    _node_name = "UnsafeViewBackward0"  # reshape that had to copy


class _Squeeze0(Reshape):
    _node_name = "SqueezeBackward0"


class _Squeeze1(Reshape):
    _node_name = "SqueezeBackward1"


class _Squeeze2(Reshape):
    _node_name = "SqueezeBackward2"


class _Unsqueeze(Reshape):
    _node_name = "UnsqueezeBackward0"


def reshape(input: Tensor, *shape, **kwargs) -> Tensor:
    """Same data with a new shape: a view when the memory layout allows, else a copy.

    Example:
        >>> ember.arange(6).reshape(2, -1).shape
        ember.Size([2, 3])
    """
    if kwargs:
        shape = _keyword_size(shape, kwargs, "shape", "reshape")
    shape = _infer_shape(_size_args(shape), input._data.size)
    if _viewable(input._data, shape):
        return _view_op(Reshape, input, shape)
    return unary(_UnsafeView, input, shape)


def _view_dtype(input: Tensor, dtype) -> Tensor:
    """``Tensor.view(dtype)``: the same bytes read as ``dtype``. With a different element size the
    last dim (which must be contiguous) scales by the size ratio, as in torch."""
    a = input._data
    xp = xp_of(a)
    nd = dtype._np
    old_size, new_size = a.dtype.itemsize, nd.itemsize
    shape = a.shape
    if old_size != new_size:
        what = f"{SCALAR_NAMES[input.dtype.name]} as {SCALAR_NAMES[dtype.name]}"
        what = f"to view {what} (different element sizes)"
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        strides = input.stride()
        if a.size == 0 and not any(strides):
            # a new empty NumPy array has all strides 0 where torch's are contiguous ones
            strides, acc = [], 1
            for n in reversed(shape):
                strides.insert(0, acc)
                acc *= max(n, 1)
        if old_size > new_size:
            if strides[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
            shape = shape[:-1] + (shape[-1] * (old_size // new_size),)
        else:
            ratio = new_size // old_size
            if shape[-1] % ratio:
                raise RuntimeError(
                    f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}"
                )
            offset = input.storage_offset()
            if offset % ratio:
                raise RuntimeError(
                    f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}"
                )
            if strides[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
            for i, st in enumerate(strides[:-1]):
                if st % ratio:
                    raise RuntimeError(
                        f"self.stride({i}) must be divisible by {ratio} {what}, but got {st}"
                    )
            shape = shape[:-1] + (shape[-1] // ratio,)
    if xp.device_type == "meta":
        out = xp.empty(shape, dtype=nd)
    else:
        try:
            out = a.view(nd)
        except ValueError:  # an empty array NumPy will not reinterpret: nothing to share
            out = xp.empty(shape, dtype=nd)
    t = _wrap(out)
    # NOTE: matches torch: the result shares memory and the version counter, but is no view for
    # autograd (no ``_base``) and never requires grad, whatever the dtypes.
    t._vc = input._vc
    return t


def view(input: Tensor, *shape, dtype=None, **kwargs) -> Tensor:
    """Same data with a new shape; the memory layout must allow it (else use ``reshape``).
    ``view(dtype)`` reads the same bytes as another dtype (the last dim scales when the element
    sizes differ).

    Example:
        >>> ember.zeros(4, 3).view(-1).shape
        ember.Size([12])
        >>> ember.tensor([1.0]).view(ember.int32)
        tensor([1065353216], dtype=ember.int32)
    """
    if kwargs:
        shape = _keyword_size(shape, kwargs, "size", "view")
    if dtype is not None and not shape:
        if not isinstance(dtype, _dt):
            raise TypeError(
                f"view(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}"
            )
        return _view_dtype(input, dtype)
    if len(shape) == 1 and isinstance(shape[0], _dt):
        return _view_dtype(input, shape[0])
    shape = _infer_shape(_size_args(shape), input._data.size)
    if not _viewable(input._data, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead. "
            f"(shape {list(input.shape)} with strides {list(input.stride())} -> {list(shape)})"
        )
    return _view_op(Reshape, input, shape)


def ravel(input: Tensor) -> Tensor:
    """The elements as a 1-D tensor (a view when contiguous)."""
    return view(input.contiguous(), -1)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one (a view when the layout allows).

    Example:
        >>> ember.zeros(2, 3, 4).flatten(1).shape
        ember.Size([2, 12])
    """
    n = input._data.ndim
    if n == 0:
        return reshape(input, 1)
    s, e = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input  # NOTE: matches torch: flattening one dim returns the input itself
    shape = input._data.shape
    return reshape(input, shape[:s] + (math.prod(shape[s : e + 1]),) + shape[e + 1 :])


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (one may be -1); a view.

    Example:
        >>> ember.zeros(2, 12).unflatten(1, (3, -1)).shape
        ember.Size([2, 3, 4])
    """
    shape = input._data.shape
    d = _wrap_dim(dim, len(shape))
    sizes = tuple(operator.index(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = shape[d] if shape else 1
    try:
        new = _infer_shape(sizes, size)
    except RuntimeError as e:
        if "only one dimension" in str(e):
            raise
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({size}) in the input tensor"
        ) from None
    return view(input, shape[:d] + new + shape[d + 1 :])


def squeeze(input: Tensor, dim=None) -> Tensor:
    """Remove size-1 dimensions (all, or those in ``dim``); a view.

    Example:
        >>> ember.zeros(2, 1, 3).squeeze().shape
        ember.Size([2, 3])
    """
    shape = input._data.shape
    n = len(shape)
    if dim is None:
        cls, dims = _Squeeze0, range(n)
    elif isinstance(dim, (int, Tensor)):
        cls, dims = _Squeeze1, (_wrap_dim(operator.index(dim), n),)
    else:
        cls, dims = _Squeeze2, _dims_arg((dim,), n)
    new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return _view_op(cls, input, new)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dimension at ``dim``; a view.

    Example:
        >>> ember.zeros(3).unsqueeze(0).shape
        ember.Size([1, 3])
    """
    n = input._data.ndim
    d = _wrap_dim(dim, n + 1)
    shape = list(input._data.shape)
    shape.insert(d, 1)
    return _view_op(_Unsqueeze, input, tuple(shape))


# ---- permutations -----------------------------------------------------------------------------
class Permute(Function):
    _array_forward = True
    _node_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return a.transpose(dims)

    @staticmethod
    def backward(ctx, g):
        inv = [0] * len(ctx.dims)
        for i, d in enumerate(ctx.dims):
            inv[d] = i
        return g.permute(inv), None


class _Transpose(Permute):
    _node_name = "TransposeBackward0"


class _T(Permute):
    _node_name = "TBackward0"


def permute(input: Tensor, *dims, **kwargs) -> Tensor:
    """Reorder dimensions (a view).

    Example:
        >>> ember.zeros(2, 3, 4).permute(2, 0, 1).shape
        ember.Size([4, 2, 3])
    """
    if kwargs:
        dims = _keyword_size(dims, kwargs, "dims", "permute")
    dims = _size_args(dims)
    n = input._data.ndim
    if len(dims) != n:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    dims = tuple(_wrap_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view_op(Permute, input, dims)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions (a view).

    Example:
        >>> ember.zeros(2, 3).transpose(0, 1).shape
        ember.Size([3, 2])
    """
    n = input._data.ndim
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    if n == 0:
        return _view_op(_Transpose, input, ())
    p = list(range(n))
    p[d0], p[d1] = p[d1], p[d0]
    return _view_op(_Transpose, input, tuple(p))


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose a tensor of at most 2 dims (0-d and 1-d tensors come back as views)."""
    n = input._data.ndim
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return _view_op(_T, input, (1, 0) if n == 2 else tuple(range(n)))


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (``mT`` of a real tensor).

    Example:
        >>> ember.tensor([[1 + 2j, 3j]]).adjoint()
        tensor([[1.-2.j],
                [0.-3.j]])
    """
    # NOTE: deliberate difference from torch: complex conj is materialized, not a lazy view
    return _conj_c(_mT(input, "tensor.adjoint()"))


def _T_prop(self: Tensor) -> Tensor:
    n = self._data.ndim
    if n == 0:
        warnings.warn(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
            UserWarning,
            stacklevel=2,
        )
    elif n != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=2,
        )
    return permute(self, tuple(range(n))[::-1])


def _mT(self: Tensor, name: str = "tensor.mT") -> Tensor:
    n = self._data.ndim
    if n < 2:
        raise RuntimeError(
            f"{name} is only supported on matrices or batches of matrices. Got {n}-D tensor."
        )
    return transpose(self, -2, -1)


def _conj_c(r: Tensor) -> Tensor:
    return r.conj() if r._data.dtype.kind == "c" else r


def _H_prop(self: Tensor) -> Tensor:
    n = self._data.ndim
    if n == 0:
        warnings.warn(
            "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
            UserWarning,
            stacklevel=2,
        )
        return _conj_c(permute(self, ()))
    if n != 2:
        hint = " For batches of matrices, consider using tensor.mH" if n > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{hint}"
        )
    return _conj_c(transpose(self, 0, 1))


def movedim(input: Tensor, source, destination) -> Tensor:
    """Move dims ``source`` to positions ``destination`` (ints or sequences); a view.

    Example:
        >>> ember.zeros(2, 3, 4).movedim(0, -1).shape
        ember.Size([3, 4, 2])
    """
    if isinstance(source, int) != isinstance(destination, int):
        raise TypeError(
            "movedim() received an invalid combination of arguments: source and destination "
            f"must both be ints or both be sequences of ints, got ({type(source).__name__}, "
            f"{type(destination).__name__})"
        )
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    n = input._data.ndim
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    ws = [_wrap_dim(d, n) for d in src]
    wd = [_wrap_dim(d, n) for d in dst]
    if len(set(ws)) != len(ws):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(wd)) != len(wd):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    order = [-1] * n
    for s, d in zip(ws, wd, strict=False):
        order[d] = s
    rest_src = iter(i for i in range(n) if i not in ws)
    for i in range(n):
        if order[i] == -1:
            order[i] = next(rest_src)
    return permute(input, tuple(order))


moveaxis = movedim


__all__ = [
    "reshape",
    "ravel",
    "flatten",
    "unflatten",
    "squeeze",
    "unsqueeze",
    "permute",
    "transpose",
    "swapaxes",
    "swapdims",
    "t",
    "adjoint",
    "movedim",
    "moveaxis",
]

Tensor.reshape = reshape
Tensor.view = view
Tensor.ravel = ravel
Tensor.flatten = flatten
Tensor.unflatten = unflatten
Tensor.permute = permute
Tensor.transpose = transpose
Tensor.swapaxes = Tensor.swapdims = transpose
Tensor.t = t
Tensor.adjoint = adjoint
Tensor.squeeze = squeeze
Tensor.unsqueeze = unsqueeze
Tensor.movedim = Tensor.moveaxis = movedim
Tensor.T = property(_T_prop)
Tensor.mT = property(_mT)
Tensor.H = property(_H_prop)
Tensor.mH = property(lambda self: _conj_c(_mT(self, "tensor.mH")))
Tensor.view_as = lambda self, other: view(self, other.shape)
Tensor.reshape_as = lambda self, other: reshape(self, other.shape)
