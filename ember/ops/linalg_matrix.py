"""torch.linalg's matrix functions and helpers (matrix_power, matrix_exp, tensorinv,
tensorsolve, vander, vecdot, diagonal) and the top-level matrix_power, matrix_exp and trace.

One primitive, ``MatrixExp`` (SciPy's batched scaling and squaring; its backward is the matrix
exponential of a block matrix, so it is differentiable to any order); the rest are composites of
products, ``inv`` and ``solve``. ``matrix_power``'s argument is ``A`` in ``torch.linalg`` and
``input`` at the top level: the module attribute is the ``torch.linalg`` form (``LINALG_ALL``)
and ``_TOP`` holds the top-level one, bound in ``ember/__init__.py``.
"""

from __future__ import annotations

import math

from ember import _autocast as _ac
from ember.autograd.function import Function
from ember.ops._dispatch import cj, xp_of
from ember.ops.linalg_solve import _eye_like, _float, _square, inv, solve
from ember.ops.pointwise import _out
from ember.ops.reduction import _tname
from ember.tensor import Tensor

__all__ = ["matrix_power", "matrix_exp", "trace"]
LINALG_ALL = (
    "matrix_power",
    "matrix_exp",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "diagonal",
)


class MatrixExp(Function):
    _array_forward = True
    _node_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = xp_of(a)
        if a.dtype.itemsize == 2:  # SciPy has no half kernels: compute in float32
            return xp.linalg_expm(a.astype(xp.float32)).astype(a.dtype)
        return xp.linalg_expm(a)

    @staticmethod
    def backward(ctx, g):
        from ember.ops.joining import cat

        (a,) = ctx.saved_tensors
        n = a.shape[-1]
        # the Frechet derivative: exp([[A^H, G], [0, A^H]]) holds it in its upper right block
        ah = a.mH
        top = cat([ah, g], -1)
        bottom = cat([g * 0, ah], -1)
        return matrix_exp(cat([top, bottom], -2))[..., :n, n:]


# ---- matrix functions --------------------------------------------------------------------------
def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    """``A`` to the integer power ``n`` by repeated squaring (``n < 0``: of ``inv(A)``; 0: the
    identity). Integer matrices are allowed for ``n >= 0``.

    Example:
        >>> ember.linalg.matrix_power(ember.tensor([[1, 1], [0, 1]]), 3)
        tensor([[1, 3],
                [0, 1]])
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(
            f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}"
        )
    _square(A, "linalg.matrix_power")
    if n == 0:
        return _out(_eye_like(A, A.shape[-1]).expand(*A.shape).clone(), out)
    if n < 0:
        A, n = inv(A), -n
    result = None
    z = A
    while True:  # binary powering: about log2(n) products
        if n & 1:
            result = z if result is None else result @ z
        n >>= 1
        if not n:
            break
        z = z @ z
    return _out(result.clone() if result is A else result, out)


def _top_matrix_power(input: Tensor, n: int, *, out=None) -> Tensor:
    """``torch.matrix_power``: the same as ``linalg.matrix_power``.

    Example:
        >>> ember.matrix_power(ember.tensor([[2.0, 0.0], [0.0, 3.0]]), 2)
        tensor([[4., 0.],
                [0., 9.]])
    """
    return matrix_power(input, n, out=out)


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential ``sum_k A^k / k!`` of a square matrix (or batch), by SciPy's
    scaling and squaring; differentiable to any order.

    Example:
        >>> ember.linalg.matrix_exp(ember.tensor([[0.0, 0.0], [0.0, 1.0]]))
        tensor([[1.0000, 0.0000],
                [0.0000, 2.7183]])
    """
    _square(A, "linalg.matrix_exp")
    _float(A, "linalg.matrix_exp")
    return MatrixExp.apply(A)


def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    """The inverse of ``A`` seen as a linear map from its first ``ind`` dims to the rest:
    ``tensordot(tensorinv(A, ind), A, ind)`` is the identity.

    Example:
        >>> ember.linalg.tensorinv(2 * ember.eye(4).reshape(4, 2, 2), ind=1).shape
        ember.Size([2, 2, 4])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(tensorinv, A, ind)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    rows, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {cols} != {rows}"
        )
    return _out(inv(A.reshape(rows, cols)).reshape(*shape[ind:], *shape[:ind]), out)


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) = B``: ``A``'s leading ``B.ndim`` dims meet ``B``
    (``dims``: dims of ``A`` moved to the end first).

    Example:
        >>> ember.linalg.tensorsolve(ember.eye(6).reshape(6, 2, 3), ember.ones(6)).shape
        ember.Size([2, 3])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(tensorsolve, A, B, dims)
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))
    shape = tuple(A.shape)
    lead, rest = math.prod(shape[: B.ndim]), math.prod(shape[B.ndim :])
    if rest != B.numel() or lead != rest:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {rest} != {B.numel()}"
        )
    x = solve(A.reshape(lead, rest), B.reshape(lead))
    return _out(x.reshape(shape[B.ndim :]), out)


def vander(x: Tensor, N=None) -> Tensor:
    """The Vandermonde matrix of ``x`` (..., n): column ``j`` is ``x ** j``, ``j < N``
    (``N`` defaults to ``n``).

    Example:
        >>> ember.linalg.vander(ember.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [1, 2, 4],
                [1, 3, 9]])
    """
    from ember.ops.joining import cat

    if x._data.dtype.kind == "b":
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got Bool"
        )
    n = x.shape[-1] if x.ndim else 1
    N = n if N is None else N
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x._data.dtype.kind in "iu":  # NOTE: matches torch: integer powers are int64
        x = x.long()
    col = x.unsqueeze(-1)
    # cumulative products, not pow: exact for integers and no 0 ** -1 in the gradient
    powers = col.expand(*col.shape[:-1], N - 1).cumprod(-1)
    return cat([col * 0 + 1, powers], -1)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """The dot product ``sum(conj(x) * y)`` along ``dim``, with broadcasting.

    Example:
        >>> ember.linalg.vecdot(ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))
        tensor(11.)
    """
    if _ac.on and out is None:  # autocast's lower-precision list
        x, y = _ac.low(x, y)
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{_tname(x._data.dtype)} and y of type {_tname(y._data.dtype)} instead"
        )
    _float(x, "linalg.vecdot")
    return _out((cj(x) * y).sum(dim), out)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``torch.diagonal`` with the last two dims as the default matrix dims.

    Example:
        >>> ember.linalg.diagonal(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([1., 4.])
    """
    from ember.ops.diagonal import diagonal as _diagonal

    return _diagonal(A, offset, dim1, dim2)


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a 2-D tensor (integers sum to int64, as ``sum``).

    Example:
        >>> ember.trace(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor(5.)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(trace, input)
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return input.diagonal().sum()


# torch.<name> for each name of __all__: ember/__init__.py binds these over the star import, since
# matrix_power here is the torch.linalg form
_TOP = {n: globals()[n] for n in __all__}
_TOP.update(matrix_power=_top_matrix_power)

Tensor.matrix_power = _top_matrix_power
Tensor.matrix_exp = matrix_exp
Tensor.trace = trace
