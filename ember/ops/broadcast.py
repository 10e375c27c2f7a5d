"""Expand and broadcasting: ``expand`` (and ``expand_to``, the fast form backward formulas use),
``expand_as``, ``broadcast_to``, ``broadcast_shapes``, ``broadcast_tensors``, and ``meshgrid``,
whose grids are expanded views."""

from __future__ import annotations

import operator
import warnings

from ember import backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.ops.shape import _keyword_size, _size_args, _view_op, view
from ember.tensor import Size, Tensor, _wrap

_state = _gm.state
_ARRAY_TYPES = backend._BY_TYPE


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
        dims = list(range(lead)) + [
            lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1
        ]
        if dims:
            g = g.sum(dims, keepdim=True)
        return g.reshape(shape) if g.shape != shape else g, None


def _legacy_type(t: Tensor) -> str:
    from ember.ops.pointwise import _name

    return f"{_name(t._data.dtype)}Tensor"


def expand(input: Tensor, *size, implicit: bool = False, **kwargs) -> Tensor:
    """Broadcast size-1 dims to ``sizes`` without copying (``-1`` keeps a dim); a view.

    Example:
        >>> ember.zeros(3, 1).expand(3, 4).shape
        ember.Size([3, 4])
    """
    if kwargs:
        size = _keyword_size(size, kwargs, "size", "expand")
    sizes = _size_args(size)
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
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(sizes)}"
            )
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
    norm = [
        (operator.index(s),) if isinstance(s, int) else tuple(operator.index(x) for x in s)
        for s in shapes
    ]
    n = max((len(s) for s in norm), default=0)
    out = [1] * n
    for i, s in enumerate(norm):
        for k in range(1, len(s) + 1):
            v = s[-k]
            if v < 0:
                raise RuntimeError(
                    f"Trying to create tensor with negative dimension {v}: {list(s)}"
                )
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
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the "
            "indexing argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    ts = list(tensors)
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t._data.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                f"got a tensor of shape {list(t.shape)}"
            )
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    n = len(ts)
    grids = [
        expand(view(t, tuple(-1 if i == j else 1 for j in range(n))), shape)
        for i, t in enumerate(ts)
    ]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


__all__ = [
    "broadcast_to",
    "broadcast_shapes",
    "broadcast_tensors",
    "meshgrid",
]

Tensor.expand = expand
Tensor.expand_as = expand_as
Tensor.broadcast_to = broadcast_to
