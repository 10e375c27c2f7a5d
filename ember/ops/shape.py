"""Shape and view ops: ``reshape``, ``view``, ``expand``, ``permute``, ``transpose``,
``squeeze``, ``unsqueeze`` (more in this file as they land).

View ops return tensors that share memory and the version counter with their input
(``_base`` points at the viewed tensor), as PyTorch's views do.
"""

from __future__ import annotations

import math

from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.tensor import Size, Tensor, _wrap_dim


def _as_view(out: Tensor, base: Tensor) -> Tensor:
    """Mark ``out`` as a view of ``base``: same memory, same version counter."""
    out._vc = base._vc
    out._base = base if base._base is None else base._base
    return out


def _size_args(shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _infer_shape(shape, numel, op, src_shape):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if neg:
        rest = math.prod(s for s in shape if s != -1)
        if rest == 0 or numel % rest:
            raise RuntimeError(
                f"shape '{list(shape)}' is invalid for input of size {numel}"
            )
        shape[neg[0]] = numel // rest
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


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


def reshape(input: Tensor, *shape) -> Tensor:
    """Same data with a new shape (a view when the memory layout allows)."""
    shape = _infer_shape(_size_args(shape), input._data.size, "reshape", input.shape)
    if shape == input._data.shape:
        out = unary(Reshape, input, shape)
    else:
        out = unary(Reshape, input, shape)
    if _shares(out._data, input._data):
        _as_view(out, input)
    return out


def _shares(a, b) -> bool:
    base = getattr(a, "base", None)
    return base is not None and (base is b or base is getattr(b, "base", None))


def view(input: Tensor, *shape) -> Tensor:
    """Same data with a new shape; the memory layout must allow it (else use reshape)."""
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Size)):
        from ember._dtype import dtype as _dt

        if isinstance(shape[0], _dt):
            raise NotImplementedError("Tensor.view(dtype) is not supported by ember")
    shape = _infer_shape(_size_args(shape), input._data.size, "view", input.shape)
    xp = xp_of(input._data)
    if not xp.is_contiguous(input._data) and input._data.size > 1:
        try:
            new = input._data.view()
            new.shape = shape
        except (AttributeError, ValueError):
            raise RuntimeError(
                f"view size is not compatible with input tensor's size and stride (at least "
                f"one dimension spans across two contiguous subspaces); shape "
                f"{tuple(input.shape)} -> {shape}. Use .reshape(...) instead."
            ) from None
    return _as_view(unary(Reshape, input, shape), input)


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


def expand(input: Tensor, *sizes) -> Tensor:
    """Broadcast size-1 dims to ``sizes`` without copying (``-1`` keeps a dim)."""
    sizes = _size_args(sizes)
    old = input._data.shape
    if len(sizes) < len(old):
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({len(old)})"
        )
    lead = len(sizes) - len(old)
    shape = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(
                    f"expand: -1 is not allowed in a leading, non-existing dimension {i}"
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
        shape.append(s)
    shape = tuple(shape)
    return _as_view(unary(Expand, input, shape), input)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other.shape)


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


def permute(input: Tensor, *dims) -> Tensor:
    """Reorder dimensions (a view)."""
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
        raise RuntimeError(f"permute(): duplicate dims are not allowed: {dims}")
    return _as_view(unary(Permute, input, dims), input)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions (a view)."""
    n = input._data.ndim
    if n == 0:
        return _as_view(unary(Permute, input, ()), input)
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    p = list(range(n))
    p[d0], p[d1] = p[d1], p[d0]
    out = unary(Permute, input, tuple(p))
    if out._grad_fn is not None:
        pass
    return _as_view(out, input)


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose a tensor of at most 2 dims."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return transpose(input, 0, 1) if input._data.ndim == 2 else input.view(input.shape)


def squeeze(input: Tensor, dim=None) -> Tensor:
    """Remove size-1 dimensions (all, or those in ``dim``)."""
    shape = input._data.shape
    n = len(shape)
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = {_wrap_dim(d, n) for d in dims} if n else set()
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return _as_view(unary(Reshape, input, new), input)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dimension at ``dim``."""
    n = input._data.ndim
    d = _wrap_dim(dim, n + 1)
    shape = list(input._data.shape)
    shape.insert(d, 1)
    return _as_view(unary(Reshape, input, tuple(shape)), input)


__all__ = ["reshape", "permute", "transpose", "swapaxes", "swapdims", "t", "squeeze", "unsqueeze"]

Tensor.reshape = reshape
Tensor.view = view
Tensor.expand = expand
Tensor.expand_as = expand_as
Tensor.permute = permute
Tensor.transpose = transpose
Tensor.swapaxes = Tensor.swapdims = transpose
Tensor.t = t
Tensor.squeeze = squeeze
Tensor.unsqueeze = unsqueeze
Tensor.T = property(lambda self: permute(self, tuple(range(self.ndim))[::-1]))
Tensor.mT = property(lambda self: transpose(self, -2, -1))
Tensor.view_as = lambda self, other: view(self, other.shape)
Tensor.reshape_as = lambda self, other: reshape(self, other.shape)
