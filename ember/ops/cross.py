"""The cross product ``cross`` of 3-vectors along a dim (``ember.linalg.cross`` shares its
checks, ``_cross``).

One primitive, ``Cross``, whose backward is two cross products (so it has higher derivatives).
"""

from __future__ import annotations

import warnings

from ember.autograd.function import Function
from ember.ops._dispatch import cj, xp_of
from ember.ops.linalg import _check_batch, _check_tensor, _dname, _no_bool
from ember.ops.pointwise import _out
from ember.tensor import Tensor, _wrap_dim


# ---- cross product ---------------------------------------------------------------------------
class Cross(Function):
    _array_forward = True
    _node_name = "LinalgCrossBackward0"

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.dim = dim
        ctx.save_for_backward(a, b)
        return xp_of(a).cross(a, b, axis=dim)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        # g . (a x b) = a . (b x g) = b . (g x a)
        ga = Cross.apply(cj(b), g, ctx.dim) if need_a else None  # cj: complex gradients
        gb = Cross.apply(g, cj(a), ctx.dim) if need_b else None
        return ga, gb, None


def cross(input: Tensor, other: Tensor, dim=None, *, out=None) -> Tensor:
    """Cross product of 3-vectors along ``dim`` (shapes broadcast; same number of dims).

    Without ``dim`` the first dimension of size 3 is used (deprecated, as in PyTorch: pass
    ``dim`` or use ``ember.linalg.cross``).

    Example:
        >>> ember.cross(ember.tensor([1.0, 0.0, 0.0]), ember.tensor([0.0, 1.0, 0.0]), dim=0)
        tensor([0., 0., 1.])
    """
    _check_tensor("cross", "input", 1, input)
    _check_tensor("cross", "other", 2, other)
    sa = input._data.shape
    if dim is None:
        # NOTE: matches torch: deprecated, with its warning, and the first size-3 dim of input.
        warnings.warn(
            "Using ember.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use ember.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
        dim = next((i for i, s in enumerate(sa) if s == 3), None)
        if dim is None:
            raise RuntimeError(
                f"no dimension of size 3 in input (shape {list(sa)}); pass dim= explicitly"
            )
    return _out(_cross(input, other, dim), out)


def _cross(input: Tensor, other: Tensor, dim: int) -> Tensor:
    sa, sb = input._data.shape, other._data.shape
    if len(sa) != len(sb):
        raise RuntimeError(
            f"linalg.cross: inputs must have the same number of dimensions (got shapes "
            f"{list(sa)} and {list(sb)})."
        )
    d = _wrap_dim(dim, len(sa))
    if len(sa) == 0 or sa[d] != 3 or sb[d] != 3:
        got = (sa[d], sb[d]) if sa else (1, 1)
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {got[0]} and {got[1]}"
        )
    _check_batch(sa, sb)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            f"expected scalar type {_dname(input)} but found {_dname(other)} (cross of "
            f"{input.dtype} and {other.dtype}: both must have the same dtype)"
        )
    _no_bool("cross", input)
    return Cross.apply(input, other, d)


__all__ = ["cross"]

Tensor.cross = cross
