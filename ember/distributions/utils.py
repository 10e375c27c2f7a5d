"""Helpers shared by the distributions (``torch.distributions.utils``): broadcasting parameters,
converting between probabilities and logits, and ``lazy_property``."""

from __future__ import annotations

from functools import update_wrapper

import ember
from ember import backend
from ember.autograd import grad_mode as _gm
from ember.ops._dispatch import xp_of
from ember.tensor import Size, Tensor

__all__ = [
    "broadcast_all",
    "logits_to_probs",
    "clamp_probs",
    "probs_to_logits",
    "lazy_property",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.5772156649015329  # Euler-Mascheroni constant
_NUMBER = (int, float, backend.generic)
_EMPTY_SIZE = Size()  # the default sample_shape


def _finfo(t: Tensor):
    """NumPy's finfo of a floating tensor's dtype (eps, tiny, min, max)."""
    return xp_of(t._data).finfo(t._data.dtype)


def broadcast_all(*values) -> tuple:
    """Broadcast tensors and numbers together; numbers become tensors of the first tensor's dtype
    (the default dtype when all are numbers).

    Example:
        >>> loc, scale = broadcast_all(ember.zeros(2, 1), 1.0)
        >>> tuple(scale.shape)
        (2, 1)
    """
    if not all(isinstance(v, (Tensor, *_NUMBER)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or "
            "objects implementing __torch_function__."
        )
    if not all(isinstance(v, Tensor) for v in values):
        dtype = ember.get_default_dtype()
        for v in values:
            if isinstance(v, Tensor):
                dtype = v.dtype
                break
        values = [v if isinstance(v, Tensor) else ember.tensor(v, dtype=dtype) for v in values]
    return tuple(ember.broadcast_tensors(*values))


def probs_or_logits(dist, probs, logits) -> Size:
    """Set ``dist.probs`` or ``dist.logits`` (exactly one must be given, as torch requires) to
    the argument as a tensor, and ``dist._param`` to it; returns the batch shape (empty for a
    Python number)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    given = probs if probs is not None else logits
    (param,) = broadcast_all(given)
    setattr(dist, "probs" if probs is not None else "logits", param)
    dist._param = param
    return Size() if isinstance(given, _NUMBER) else param.size()


def _standard_normal(shape, dtype) -> Tensor:
    return ember.randn(shape, dtype=dtype)


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: the sigmoid (binary) or the softmax over the last dimension.

    Example:
        >>> logits_to_probs(ember.tensor([0.0]), is_binary=True)
        tensor([0.5000])
    """
    if is_binary:
        return ember.sigmoid(logits)
    return ember.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Clamp probabilities into ``[eps, 1 - eps]`` for the dtype's machine epsilon.

    Example:
        >>> clamp_probs(ember.tensor([0.0, 0.5, 1.0]))
        tensor([1.1921e-07, 5.0000e-01, 1.0000e+00])
    """
    eps = float(_finfo(probs).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities (clamped first): log-odds (binary) or log-probabilities.

    Example:
        >>> probs_to_logits(ember.tensor([0.5]), is_binary=True)
        tensor([0.])
    """
    ps = clamp_probs(probs)
    if is_binary:
        return ember.log(ps) - ember.log1p(-ps)
    return ember.log(ps)


class lazy_property:  # noqa: N801  (PyTorch's name)
    """A property computed on first access (with grad enabled) and then stored on the instance.

    Example:
        >>> class A:
        ...     @lazy_property
        ...     def x(self):
        ...         return 3
        >>> a = A()
        >>> a.x, "x" in a.__dict__
        (3, True)
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with _gm.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _tril_index(n: int, diag: int):
    """Row and column indices of the ``diag``-offset lower triangle, row by row."""
    return ember.tril_indices(n, n, diag)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (from offset ``diag``) of the last two dimensions, row by row.

    Example:
        >>> tril_matrix_to_vec(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([1., 3., 4.])
    """
    rows, cols = _tril_index(mat.shape[-1], diag)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The square matrix whose ``diag``-offset lower triangle holds ``vec`` row by row, zeros
    elsewhere; inverse of :func:`tril_matrix_to_vec`.

    Example:
        >>> vec_to_tril_matrix(ember.tensor([1.0, 3.0, 4.0]))
        tensor([[1., 0.],
                [3., 4.]])
    """
    m = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > float(ember.finfo(vec.dtype).eps):
        raise ValueError(
            f"The size of last dimension is {m} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    rows, cols = _tril_index(n, diag)
    mat[..., rows, cols] = vec
    return mat
