"""``ember.nn.functional``: Distances: cosine_similarity, pairwise_distance, pdist.

Composed from Tensor ops (``norm``, products, sums): each is a few whole-array NumPy calls and
the gradients, double backward included, come from those ops.
"""

from __future__ import annotations

from ember import _dtype
from ember.autograd.grad_mode import no_grad
from ember.ops._elementwise import _check
from ember.ops.broadcast import broadcast_tensors
from ember.ops.creation import arange
from ember.tensor import Tensor, _wrap_dim

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def _tensors(op: str, **named) -> None:
    for pos, (name, t) in enumerate(named.items(), 1):
        _check(t, op, name, pos)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim``, after
    broadcasting ``x1`` and ``x2`` together.

    Example:
        >>> a = ember.tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> ember.nn.functional.cosine_similarity(a, ember.tensor([1.0, 0.0]), dim=1)
        tensor([1.0000, 0.7071])
    """
    _tensors("cosine_similarity", x1=x1, x2=x2)
    dt = _dtype.promote_types(x1.dtype, x2.dtype)
    if not dt.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is "
            f"{_SHORT.get(dt.__repr__().split('.')[-1], dt)}"
        )
    a, b = broadcast_tensors(x1.to(dt), x2.to(dt))
    d = _wrap_dim(dim, a.dim())
    # NOTE: matches torch: each norm is clamped to eps separately, and the clamp is invisible
    # to autograd (the gradient is that of the unclamped norm, at the clamped value)
    na = a.norm(2, dim=d, keepdim=True)
    nb = b.norm(2, dim=d, keepdim=True)
    with no_grad():
        ca = na.clamp_min(eps) - na
        cb = nb.clamp_min(eps) - nb
    return ((a / (na + ca)) * (b / (nb + cb))).sum(d)


_SHORT = _dtype.SCALAR_NAMES


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dim (inputs broadcast together).

    Example:
        >>> ember.nn.functional.pairwise_distance(ember.ones(2, 3), ember.zeros(2, 3), eps=0.0)
        tensor([1.7321, 1.7321])
    """
    _tensors("pairwise_distance", x1=x1, x2=x2)
    ndim = max(x1.dim(), x2.dim())
    # NOTE: matches torch: eps is added to the difference (it keeps the norm's gradient finite)
    return (x1 - x2 + eps).norm(p, dim=ndim - 1 if ndim else None, keepdim=keepdim)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm distance between each pair of rows of an ``(N, M)`` input: the upper
    triangle of the distance matrix, row by row (``N * (N - 1) / 2`` values).

    Example:
        >>> ember.nn.functional.pdist(ember.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]))
        tensor([5., 0., 5.])
    """
    _tensors("pdist", input=input)
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    # row indices (i, j), i < j, in row-major order of the upper triangle
    rows = arange(n).unsqueeze(1).expand(n, n)
    cols = arange(n).unsqueeze(0).expand(n, n)
    upper = cols > rows
    i, j = rows[upper], cols[upper]
    return (input[i] - input[j]).norm(p, dim=1)
