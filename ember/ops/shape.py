"""Shape and view ops: reshaping, slicing into views, joining, splitting, flipping, repeating,
triangles and diagonals, broadcasting.

View ops (``view``, ``reshape`` when the layout allows, ``narrow``, ``select``, ``split``,
``diagonal``, ``expand``, ``permute``...) return tensors that share memory and the version
counter with their input (``_base`` points at the viewed tensor), as PyTorch's views do; the
others copy. ``Tensor.__getitem__`` (ember/ops/indexing.py) builds its basic-index views from
``_BasicView`` below.
"""

from __future__ import annotations

import math
import operator
import warnings

from ember import backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import promote, unary, xp_of
from ember.tensor import Size, Tensor, _wrap, _wrap_dim

_FULL = slice(None)
_state = _gm.state
_ARRAY_TYPES = backend._BY_TYPE


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


def _size_args(shape) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all give ``(2, 3)``."""
    if len(shape) == 1 and not isinstance(shape[0], int) and not (
            isinstance(shape[0], Tensor) and shape[0].ndim == 0):
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


def reshape(input: Tensor, *shape) -> Tensor:
    """Same data with a new shape: a view when the memory layout allows, else a copy.

    Example:
        >>> ember.arange(6).reshape(2, -1).shape
        ember.Size([2, 3])
    """
    shape = _infer_shape(_size_args(shape), input._data.size)
    if _viewable(input._data, shape):
        return _view_op(Reshape, input, shape)
    return unary(_UnsafeView, input, shape)


def view(input: Tensor, *shape) -> Tensor:
    """Same data with a new shape; the memory layout must allow it (else use ``reshape``).

    Example:
        >>> ember.zeros(4, 3).view(-1).shape
        ember.Size([12])
    """
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Size, Tensor)):
        from ember._dtype import dtype as _dt

        if isinstance(shape[0], _dt):
            raise NotImplementedError("Tensor.view(dtype) is not supported by ember")
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
    return reshape(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


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
    return view(input, shape[:d] + new + shape[d + 1:])


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


# ---- expand and broadcasting ------------------------------------------------------------------
class Expand(Function):
    _array_forward = True
    _node_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return xp_of(a).broadcast_to(a, shape)

    @staticmethod
    def backward(ctx, g):
        shape = ctx.shape
        lead = g.ndim - len(shape)
        dims = list(range(lead)) + [lead + i for i, s in enumerate(shape)
                                    if s == 1 and g.shape[lead + i] != 1]
        if dims:
            g = g.sum(dims, keepdim=True)
        return g.reshape(shape) if g.shape != shape else g, None


def _legacy_type(t: Tensor) -> str:
    from ember.ops.pointwise import _name

    return f"{_name(t._data.dtype)}Tensor"


def expand(input: Tensor, *sizes) -> Tensor:
    """Broadcast size-1 dims to ``sizes`` without copying (``-1`` keeps a dim); a view.

    Example:
        >>> ember.zeros(3, 1).expand(3, 4).shape
        ember.Size([3, 4])
    """
    sizes = _size_args(sizes)
    old = input._data.shape
    if len(sizes) < len(old):
        raise RuntimeError(
            f"expand(ember.{_legacy_type(input)}{{{list(old)}}}, size={list(sizes)}): the "
            f"number of sizes provided ({len(sizes)}) must be greater or equal to the number "
            f"of dimensions in the tensor ({len(old)})"
        )
    lead = len(sizes) - len(old)
    shape = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            shape.append(s)
            continue
        o = old[i - lead]
        if s == -1:
            s = o
        elif o != s and o != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({o}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(old)}"
            )
        elif s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(sizes)}")
        shape.append(s)
    return _view_op(Expand, input, tuple(shape))


def expand_to(input: Tensor, shape: tuple) -> Tensor:
    """``input.expand(shape)`` for a ``shape`` known to be valid (a tuple), as a backward
    formula has it: skips ``expand``'s argument parsing and checks, which cost more than
    making the view."""
    if input._base is None and not (input._requires_grad and _state.enabled):
        # The usual case, a gradient in a backward without create_graph: the view that
        # ``_view_op`` makes, built directly (the generic path costs more than the view).
        d = input._data
        out = _wrap(_ARRAY_TYPES[d.__class__].broadcast_to(d, shape))
        out._vc = input._vc
        out._base = input
        out._view_fn = lambda b: unary(Expand, b, shape)
        out._view_version = input._vc[0]
        return out
    return _view_op(Expand, input, shape)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.expand(other.shape)``."""
    return expand(input, other.shape)


def broadcast_to(input: Tensor, size) -> Tensor:
    """``input`` expanded to ``size`` (a view).

    Example:
        >>> ember.broadcast_to(ember.zeros(3), (2, 3)).shape
        ember.Size([2, 3])
    """
    return expand(input, tuple(size))


def _broadcast_pair(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
        out.append(y if x == 1 else x)
    return tuple(out)


def broadcast_shapes(*shapes) -> Size:
    """The shape that ``shapes`` broadcast to (ints count as 1-D shapes).

    Example:
        >>> ember.broadcast_shapes((3, 1), (1, 4))
        ember.Size([3, 4])
    """
    norm = [(operator.index(s),) if isinstance(s, int) else tuple(operator.index(x) for x in s)
            for s in shapes]
    n = max((len(s) for s in norm), default=0)
    out = [1] * n
    for i, s in enumerate(norm):
        for k in range(1, len(s) + 1):
            v = s[-k]
            if v < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {v}: "
                                   f"{list(s)}")
            if v != 1 and out[-k] != 1 and v != out[-k]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {v} at {-k}! Mismatching "
                    f"argument at index {i} had {s}; but expected shape should be "
                    f"broadcastable to {out}"
                )
            if v != 1:
                out[-k] = v
            elif out[-k] == 1 and v == 1:
                out[-k] = 1
    # NOTE: matches torch: a size-0 dim against size 1 gives 0, handled by the rules above.
    return Size(out)


def broadcast_tensors(*tensors) -> tuple:
    """Expand every tensor to their common broadcast shape (views; an input already of that
    shape is returned as is).

    Example:
        >>> [t.shape for t in ember.broadcast_tensors(ember.zeros(3, 1), ember.zeros(4))]
        [ember.Size([3, 4]), ember.Size([3, 4])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = ()
    for t in tensors:
        shape = _broadcast_pair(shape, t._data.shape)
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


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


def permute(input: Tensor, *dims) -> Tensor:
    """Reorder dimensions (a view).

    Example:
        >>> ember.zeros(2, 3, 4).permute(2, 0, 1).shape
        ember.Size([4, 2, 3])
    """
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
    """The conjugate transpose of the last two dims (ember is real: ``mT``)."""
    return _mT(input, "tensor.adjoint()")


def _T_prop(self: Tensor) -> Tensor:
    n = self._data.ndim
    if n == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in "
                      "these cases.", UserWarning, stacklevel=2)
    elif n != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.", UserWarning, stacklevel=2)
    return permute(self, tuple(range(n))[::-1])


def _mT(self: Tensor, name: str = "tensor.mT") -> Tensor:
    n = self._data.ndim
    if n < 2:
        raise RuntimeError(
            f"{name} is only supported on matrices or batches of matrices. Got {n}-D tensor.")
    return transpose(self, -2, -1)


def _H_prop(self: Tensor) -> Tensor:
    n = self._data.ndim
    if n == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=2)
        return permute(self, ())
    if n != 2:
        hint = " For batches of matrices, consider using tensor.mH" if n > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{hint}")
    return transpose(self, 0, 1)


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
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
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
            isinstance(split_size_or_sections, Tensor) and split_size_or_sections.ndim):
        ss = operator.index(split_size_or_sections)
        if ss < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={ss}")
        if ss == 0 and size != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {size}")
        n = max((size + ss - 1) // ss, 1) if ss else 1
        return _Split, tuple([ss] * (n - 1) + [size - ss * (n - 1)])
    sizes = tuple(operator.index(s) for s in split_size_or_sections)
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={list(sizes)}")
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
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _wrap_dim(dim, n)
    size = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype.kind not in "iu":
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have "
                               f"integer dtype, but got {ios.dtype}")
        if ios.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {ios.ndim} dims")
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
                f"tensor with {input._data.ndim} dimensions!")
        d = 0 if name == "hsplit" and input._data.ndim == 1 else dim
        if isinstance(indices_or_sections, int) and input._data.shape[d] % indices_or_sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {d}, but the size of the "
                f"dimension {input._data.shape[d]} is not divisible by the split_size "
                f"{indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)

    fn.__name__ = name
    fn.__doc__ = f"``tensor_split`` along dim {dim} (numpy's ``{name}``)."
    return fn


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


# ---- joining ----------------------------------------------------------------------------------
def _is_legacy_empty(a) -> bool:
    return a.ndim == 1 and a.shape[0] == 0


class Cat(Function):
    _array_forward = True
    _node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, d, dt, *arrays):
        keep = [a for a in arrays if not _is_legacy_empty(a)] or list(arrays)
        ctx.d = d
        ctx.sizes = [None if _is_legacy_empty(a) else a.shape[d] for a in arrays]
        xp = xp_of(keep[0])
        return xp.concatenate([a.astype(dt, copy=False) for a in keep], axis=d)

    @staticmethod
    def backward(ctx, g):
        out, off = [], 0
        for s in ctx.sizes:
            if s is None:  # a legacy empty input: its gradient is empty too
                out.append(g.reshape(-1).narrow(0, 0, 0))
            else:
                out.append(g.narrow(ctx.d, off, s))
                off += s
        return (None, None, *out)


def _tensor_list(tensors, op: str) -> list:
    if isinstance(tensors, Tensor):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        "Tensor")
    ts = list(tensors)
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return ts


def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Concatenate along an existing dim, promoting dtypes as PyTorch does.

    Example:
        >>> ember.cat([ember.zeros(2, 3), ember.ones(1, 3)]).shape
        ember.Size([3, 3])
    """
    ts = _tensor_list(tensors, "cat")
    if not ts:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(ts):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    dt = promote(*ts)
    # NOTE: matches torch: 1-D empty tensors (shape (0,)) are skipped whatever the others' shape
    # (a legacy rule), though their dtype still takes part in promotion.
    kept = [t for t in ts if not _is_legacy_empty(t._data)]
    if kept:
        ref = kept[0]._data.shape
        d = _wrap_dim(dim, len(ref))
        for j, t in enumerate(ts):
            s = t._data.shape
            if _is_legacy_empty(t._data):
                continue
            if len(s) != len(ref):
                raise RuntimeError(f"Tensors must have same number of dimensions: got "
                                   f"{len(ref)} and {len(s)}")
            for k in range(len(ref)):
                if k != d and s[k] != ref[k]:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {d}. Expected size "
                        f"{ref[k]} but got size {s[k]} for tensor number {j} in the list.")
    else:
        d = 0
    result = Cat.apply(d, dt, *ts)
    if out is not None:
        from ember.ops.pointwise import _out

        return _out(result, out)
    return result


concat = concatenate = cat


class Stack(Function):
    _array_forward = True
    _node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, d, dt, *arrays):
        ctx.d = d
        return xp_of(arrays[0]).stack([a.astype(dt, copy=False) for a in arrays], axis=d)

    @staticmethod
    def backward(ctx, g):
        return (None, None, *unbind(g, ctx.d))


def stack(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Join equal-shaped tensors along a new dim ``dim``.

    Example:
        >>> ember.stack([ember.zeros(3), ember.ones(3)], 1).shape
        ember.Size([3, 2])
    """
    ts = _tensor_list(tensors, "stack")
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    s0 = ts[0]._data.shape
    for i, t in enumerate(ts):
        if t._data.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(s0)} at entry 0 and {list(t._data.shape)} at entry {i}")
    d = _wrap_dim(dim, len(s0) + 1)
    result = Stack.apply(d, promote(*ts), *ts)
    if out is not None:
        from ember.ops.pointwise import _out

        return _out(result, out)
    return result


def _atleast(n: int):
    def one(t: Tensor) -> Tensor:
        k = t._data.ndim
        if k >= n:
            return t
        if k == 0:
            return reshape(t, (1,) * n)
        if n == 2 or k == 2:  # (m,) -> (1, m); (m, k) -> (m, k, 1)
            return unsqueeze(t, 0 if n == 2 else -1)
        return unsqueeze(unsqueeze(t, 0), -1)  # (m,) -> (1, m, 1)

    def fn(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return one(tensors[0])
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        return tuple(one(t) for t in tensors)

    fn.__name__ = f"atleast_{n}d"
    fn.__doc__ = (f"View each tensor with at least {n} dims (one tensor in, one out; several or a "
                  "list in, a tuple out).")
    return fn


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def hstack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 1 (dim 0 for 1-D tensors)."""
    ts = atleast_1d(_tensor_list(tensors, "hstack"))
    if not ts:
        raise RuntimeError("hstack expects a non-empty TensorList")
    return cat(ts, 0 if ts[0].ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 0, after making 1-D tensors rows."""
    ts = atleast_2d(_tensor_list(tensors, "vstack"))
    if not ts:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return cat(ts, 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 2, after making every tensor at least 3-D."""
    ts = atleast_3d(_tensor_list(tensors, "dstack"))
    if not ts:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat(ts, 2, out=out)


def column_stack(tensors, *, out=None) -> Tensor:
    """Concatenate along dim 1, after making 0-D and 1-D tensors columns."""
    ts = _tensor_list(tensors, "column_stack")
    if not ts:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    ts = [reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in ts]
    return cat(ts, 1, out=out)


# ---- flip, roll, repeat -----------------------------------------------------------------------
class Flip(Function):
    _array_forward = True
    _node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        if a.ndim == 0:
            return a.copy()
        key = tuple(slice(None, None, -1) if i in dims else _FULL for i in range(a.ndim))
        return a[key].copy()

    @staticmethod
    def backward(ctx, g):
        return flip(g, ctx.dims), None


def flip(input: Tensor, *dims) -> Tensor:
    """Reverse the order of elements along ``dims`` (a copy, as in PyTorch).

    Example:
        >>> ember.arange(3).flip(0)
        tensor([2, 1, 0])
    """
    return unary(Flip, input, _dims_arg(dims, input._data.ndim))


def fliplr(input: Tensor) -> Tensor:
    """Flip dim 1 (left/right) of a tensor with at least 2 dims."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    """Flip dim 0 (up/down) of a tensor with at least 1 dim."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class Roll(Function):
    _array_forward = True
    _node_name = "RollBackward0"

    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        if a.ndim == 0:
            return a.copy()
        return xp_of(a).roll(a, shifts, dims)

    @staticmethod
    def backward(ctx, g):
        return roll(g, tuple(-s for s in ctx.shifts), ctx.dims), None, None


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Shift elements cyclically along ``dims`` (all elements, flattened, when ``dims`` is None).

    Example:
        >>> ember.arange(4).roll(1)
        tensor([3, 0, 1, 2])
    """
    shifts = (operator.index(shifts),) if isinstance(shifts, (int, Tensor)) else tuple(
        operator.index(s) for s in shifts)
    n = input._data.ndim
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return unary(Roll, input, shifts, None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if n == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return unary(Roll, input, shifts, tuple(_wrap_dim(d, n) for d in dims))


class Repeat(Function):
    _array_forward = True
    _node_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, a, reps):
        shape = (1,) * (len(reps) - a.ndim) + a.shape
        ctx.shape = a.shape
        ctx.reps = reps
        ctx.inner = shape
        # tile by broadcasting an interleaved (1, s0, 1, s1, ...) view to (r0, s0, r1, s1, ...)
        inter = tuple(x for s in shape for x in (1, s))
        big = tuple(x for r, s in zip(reps, shape, strict=False) for x in (r, s))
        xp = xp_of(a)
        out = xp.empty(tuple(r * s for r, s in zip(reps, shape, strict=False)), dtype=a.dtype)
        out.reshape(big)[...] = xp.broadcast_to(a.reshape(inter), big)  # always a fresh copy
        return out

    @staticmethod
    def backward(ctx, g):
        big = tuple(x for r, s in zip(ctx.reps, ctx.inner, strict=False) for x in (r, s))
        g = g.reshape(big)
        if big:
            g = g.sum(tuple(range(0, len(big), 2)))
        return g.reshape(ctx.shape), None


def repeat(input: Tensor, *sizes) -> Tensor:
    """Tile the tensor ``sizes[i]`` times along each dim (a copy).

    Example:
        >>> ember.tensor([1, 2]).repeat(2)
        tensor([1, 2, 1, 2])
    """
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    reps = _size_args(sizes)
    if len(reps) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    for r in reps:
        if r < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {r}: "
                               f"{list(reps)}")
    return unary(Repeat, input, reps)


def tile(input: Tensor, dims) -> Tensor:
    """``repeat`` with ``dims`` padded by leading ones to the tensor's rank."""
    dims = _size_args((dims,)) if not isinstance(dims, int) else (dims,)
    dims = (1,) * (input._data.ndim - len(dims)) + dims
    return repeat(input, dims)


def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element ``repeats`` times (an int or one count per element) along ``dim``
    (the flattened input when ``dim`` is None). ``repeat_interleave(counts)`` gives the indices
    ``[0]*counts[0] + [1]*counts[1] + ...``.

    Example:
        >>> ember.tensor([1, 2]).repeat_interleave(2)
        tensor([1, 1, 2, 2])
    """
    if repeats is None:  # repeat_interleave(repeats): indices 0..n-1 repeated
        return _interleave_index(input)
    if dim is None:
        input = reshape(input, -1)
        dim = 0
    d = _wrap_dim(dim, input._data.ndim)
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        size = input._data.shape[d] if input._data.ndim else 1
        if repeats.numel() == 1:
            repeats = repeats.reshape(1).expand(size)
        if repeats.shape[0] != size:
            raise RuntimeError(
                f"repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {repeats.shape[0]} and input.size({d}) = {size}")
        from ember.ops.index_dim import index_select

        idx = _interleave_index(repeats)
        if output_size is not None and idx.shape[0] != output_size:
            raise RuntimeError(f"repeat_interleave: output_size {output_size} does not match "
                               f"the sum of repeats {idx.shape[0]}")
        return index_select(input, d, idx)
    r = operator.index(repeats.reshape(()) if isinstance(repeats, Tensor) else repeats)
    if r < 0:
        raise RuntimeError("Repeats must be non-negative")
    if input._data.ndim == 0:
        input = reshape(input, 1)
    shape = input._data.shape
    e = expand(unsqueeze(input, d + 1), shape[:d + 1] + (r,) + shape[d + 1:])
    from ember.ops.conversion import clone

    return view(clone(e), shape[:d] + (shape[d] * r,) + shape[d + 1:])


def _interleave_index(repeats: Tensor) -> Tensor:
    a = repeats._data
    xp = xp_of(a)
    if xp.device_type == "meta":
        raise NotImplementedError("repeat_interleave with tensor repeats on a meta tensor: the "
                                  "result size depends on the data")
    if a.ndim > 1 or a.dtype.kind not in "iu":
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    a = a.reshape(-1)
    if a.size and int(a.min()) < 0:
        raise RuntimeError("repeats can not be negative")
    return _wrap(xp.repeat(xp.arange(a.shape[0], dtype=a.dtype), a).astype("int64"))


# ---- triangles and diagonals ------------------------------------------------------------------
def _tri(a, k, upper):
    xp = xp_of(a)
    n, m = a.shape[-2:]
    keep = ~xp.tri(n, m, k - 1, dtype=bool) if upper else xp.tri(n, m, k, dtype=bool)
    return xp.where(keep, a, xp.zeros((), dtype=a.dtype))


class Tril(Function):
    _array_forward = True
    _node_name = "TrilBackward0"

    @staticmethod
    def forward(ctx, a, k):
        ctx.k = k
        return _tri(a, k, False)

    @staticmethod
    def backward(ctx, g):
        return tril(g, ctx.k), None


class Triu(Function):
    _array_forward = True
    _node_name = "TriuBackward0"

    @staticmethod
    def forward(ctx, a, k):
        ctx.k = k
        return _tri(a, k, True)

    @staticmethod
    def backward(ctx, g):
        return triu(g, ctx.k), None


def tril(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """Zero the elements above the ``diagonal``-th diagonal of the last two dims.

    Example:
        >>> ember.ones(2, 2).tril()
        tensor([[1., 0.],
                [1., 1.]])
    """
    if input._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return _maybe_out(unary(Tril, input, operator.index(diagonal)), out)


def triu(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """Zero the elements below the ``diagonal``-th diagonal of the last two dims."""
    if input._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return _maybe_out(unary(Triu, input, operator.index(diagonal)), out)


def _maybe_out(result: Tensor, out) -> Tensor:
    if out is None:
        return result
    from ember.ops.pointwise import _out

    return _out(result, out)


def _diag_view(a, offset, d1, d2):
    """The (writable) view of the ``offset`` diagonal of dims ``d1``, ``d2``, last."""
    d = xp_of(a).diagonal(a, offset, d1, d2)
    flags = getattr(d, "flags", None)
    if flags is not None and not flags.writeable and a.flags.writeable:
        d.setflags(write=True)  # NumPy hands out read-only diagonals; PyTorch's are writable
    return d


class _Diagonal(Function):
    _array_forward = True
    _node_name = "DiagonalBackward0"

    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        ctx.args = (a.shape, offset, d1, d2)
        return _diag_view(a, offset, d1, d2)

    @staticmethod
    def backward(ctx, g):
        return _DiagInto.apply(g, *ctx.args), None, None, None


class _DiagonalCopy(_Diagonal):
    _node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx, a, offset, d1, d2):
        return _Diagonal.forward(ctx, a, offset, d1, d2).copy()


class _DiagInto(Function):
    """Zeros of ``shape`` with ``v`` on the ``offset`` diagonal of dims ``d1``, ``d2``."""

    _array_forward = True
    _node_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx, v, shape, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        out = xp_of(v).zeros(shape, dtype=v.dtype)
        _diag_view(out, offset, d1, d2)[...] = v
        return out

    @staticmethod
    def backward(ctx, g):
        return unary(_Diagonal, g, *ctx.args), None, None, None, None


class DiagonalScatter(Function):
    _array_forward = True
    _node_name = "DiagonalScatterBackward0"

    @staticmethod
    def forward(ctx, a, src, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        out = a.copy()
        _diag_view(out, offset, d1, d2)[...] = src
        return out

    @staticmethod
    def backward(ctx, g):
        ga = gs = None
        if ctx.needs_input_grad[0]:
            ga = DiagonalScatter.apply(g, 0, *ctx.args)
        if ctx.needs_input_grad[1]:
            gs = unary(_Diagonal, g, *ctx.args)
        return ga, gs, None, None, None


def _diag_dims(n, dim1, dim2):
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset`` diagonal of dims ``dim1``, ``dim2``, as the last dim (a view).

    Example:
        >>> ember.arange(4).reshape(2, 2).diagonal()
        tensor([0, 3])
    """
    d1, d2 = _diag_dims(input._data.ndim, dim1, dim2)
    return _view_op(_Diagonal, input, operator.index(offset), d1, d2)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written on its ``offset`` diagonal of ``dim1``, ``dim2``.
    """
    d1, d2 = _diag_dims(input._data.ndim, dim1, dim2)
    offset = operator.index(offset)
    want = xp_of(input._data).diagonal(input._data, offset, d1, d2).shape
    if tuple(src.shape) != tuple(want):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(want)}")
    return DiagonalScatter.apply(input, src.to(input.dtype), offset, d1, d2)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims ``dim1``, ``dim2`` of the result) with the last dim of ``input`` on their
    ``offset`` diagonal.

    Example:
        >>> ember.diag_embed(ember.ones(2)).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    n = input._data.ndim + 1
    d1, d2 = _diag_dims(n, dim1, dim2)
    offset = operator.index(offset)
    shape = input._data.shape
    m = shape[-1] + abs(offset)
    rest = iter(shape[:-1])
    out_shape = tuple(m if i in (d1, d2) else next(rest) for i in range(n))
    return _DiagInto.apply(input, out_shape, offset, d1, d2)


def diag(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """A 1-D tensor as the ``diagonal``-th diagonal of a square matrix, or the ``diagonal``-th
    diagonal of a 2-D tensor (a copy).

    Example:
        >>> ember.diag(ember.tensor([1, 2]))
        tensor([[1, 0],
                [0, 2]])
    """
    n = input._data.ndim
    k = operator.index(diagonal)
    if n == 1:
        m = input._data.shape[0] + abs(k)
        result = _DiagInto.apply(input, (m, m), k, 0, 1)
    elif n == 2:
        result = unary(_DiagonalCopy, input, k, 0, 1)
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")
    return _maybe_out(result, out)


# ---- grids ------------------------------------------------------------------------------------
def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids from 1-D tensors: output ``i`` varies along dim ``i`` (``"ij"``), or with
    the first two dims swapped (``"xy"``). The outputs are expanded views.

    Example:
        >>> [g.shape for g in ember.meshgrid(ember.zeros(2), ember.zeros(3), indexing="ij")]
        [ember.Size([2, 3]), ember.Size([2, 3])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        # NOTE: matches torch: it warns, then uses "ij"
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    ts = list(tensors)
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got a tensor of shape {list(t.shape)}")
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    n = len(ts)
    grids = [expand(view(t, tuple(-1 if i == j else 1 for j in range(n))), shape)
             for i, t in enumerate(ts)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


__all__ = [
    "reshape", "ravel", "flatten", "unflatten", "squeeze", "unsqueeze", "broadcast_to",
    "broadcast_shapes", "broadcast_tensors", "permute", "transpose", "swapaxes", "swapdims", "t",
    "adjoint", "movedim", "moveaxis", "narrow", "select", "unbind", "split", "split_with_sizes",
    "chunk", "tensor_split", "hsplit", "vsplit", "dsplit", "cat", "concat", "concatenate",
    "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack", "atleast_1d",
    "atleast_2d", "atleast_3d", "flip", "fliplr", "flipud", "roll", "tile", "repeat_interleave",
    "tril", "triu", "diagonal", "diagonal_scatter", "diag_embed", "diag", "meshgrid",
]

Tensor.reshape = reshape
Tensor.view = view
Tensor.ravel = ravel
Tensor.flatten = flatten
Tensor.unflatten = unflatten
Tensor.expand = expand
Tensor.expand_as = expand_as
Tensor.broadcast_to = broadcast_to
Tensor.permute = permute
Tensor.transpose = transpose
Tensor.swapaxes = Tensor.swapdims = transpose
Tensor.t = t
Tensor.adjoint = adjoint
Tensor.squeeze = squeeze
Tensor.unsqueeze = unsqueeze
Tensor.movedim = Tensor.moveaxis = movedim
Tensor.narrow = narrow
Tensor.select = select
Tensor.unbind = unbind
Tensor.split = split
Tensor.split_with_sizes = split_with_sizes
Tensor.chunk = chunk
Tensor.tensor_split = tensor_split
Tensor.hsplit, Tensor.vsplit, Tensor.dsplit = hsplit, vsplit, dsplit
Tensor.flip = flip
Tensor.fliplr = fliplr
Tensor.flipud = flipud
Tensor.roll = roll
Tensor.repeat = repeat
Tensor.tile = tile
Tensor.repeat_interleave = repeat_interleave
Tensor.tril = tril
Tensor.triu = triu
Tensor.diagonal = diagonal
Tensor.diagonal_scatter = diagonal_scatter
Tensor.diag_embed = diag_embed
Tensor.diag = diag
Tensor.T = property(_T_prop)
Tensor.mT = property(_mT)
Tensor.H = property(_H_prop)
Tensor.mH = property(lambda self: _mT(self, "tensor.mH"))
Tensor.view_as = lambda self, other: view(self, other.shape)
Tensor.reshape_as = lambda self, other: reshape(self, other.shape)
