"""Joining: ``cat`` (``concat``, ``concatenate``), ``stack``, ``hstack``, ``vstack``
(``row_stack``), ``dstack``, ``column_stack``, and ``atleast_1d``/``2d``/``3d``."""

from __future__ import annotations

from ember.autograd.function import Function
from ember.ops._dispatch import promote, xp_of
from ember.ops.shape import reshape, unsqueeze
from ember.tensor import Tensor, _wrap_dim


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
        raise TypeError(
            f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    ts = list(tensors)
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
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
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
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
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {len(ref)} and {len(s)}"
                )
            for k in range(len(ref)):
                if k != d and s[k] != ref[k]:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {d}. Expected size "
                        f"{ref[k]} but got size {s[k]} for tensor number {j} in the list."
                    )
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
        arrays = [a if a.dtype == dt else a.astype(dt) for a in arrays]
        first = arrays[0]
        xp = xp_of(first)
        if d < first.ndim:
            # the joined axis d split in two: (tensor, d) is stacking at d, without the new-axis
            # view per input that xp.stack makes (three times faster for many small tensors)
            shape = first.shape
            return xp.concatenate(arrays, axis=d).reshape(shape[:d] + (len(arrays),) + shape[d:])
        return xp.stack(arrays, axis=d)

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
    s0, dt0 = ts[0]._data.shape, ts[0]._data.dtype
    same_dtype = True
    for i, t in enumerate(ts):
        if t._data.shape != s0:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"{list(s0)} at entry 0 and {list(t._data.shape)} at entry {i}"
            )
        same_dtype = same_dtype and t._data.dtype == dt0
    d = _wrap_dim(dim, len(s0) + 1)
    result = Stack.apply(d, dt0 if same_dtype else promote(*ts), *ts)
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
    fn.__doc__ = (
        f"View each tensor with at least {n} dims (one tensor in, one out; several or a "
        "list in, a tuple out)."
    )
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


__all__ = [
    "cat",
    "concat",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "row_stack",
    "dstack",
    "column_stack",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
]


# At the bottom: stack's backward uses slicing's unbind, and slicing's backward formulas use
# cat and stack, so each file imports the other after its own definitions.
from ember.ops.slicing import unbind  # noqa: E402
