"""The linear algebra MultivariateNormal needs, which ``ember.linalg`` does not have yet:
``cholesky`` and ``solve_triangular`` as differentiable primitives (forward on raw arrays, backward
in Tensor ops so it can be differentiated again), and the checks of the positive-definite
constraints. Private to the distributions package."""

from __future__ import annotations

from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.diagonal import diag_embed
from ember.tensor import Tensor, _wrap


class Cholesky(Function):
    _array_forward = True
    _node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = xp_of(a)
        try:
            low = xp.linalg.cholesky(a)
        except xp.linalg.LinAlgError:
            raise RuntimeError(
                "linalg.cholesky: The factorization could not be completed because the input "
                "is not positive-definite."
            ) from None
        ctx.save_for_backward(low)
        return low

    @staticmethod
    def backward(ctx, g):
        (low,) = ctx.saved_tensors
        # A = L L^T: dA = L^-T Phi(L^T dL) L^-1, symmetrized; Phi = lower triangle, half diagonal
        p = low.mT @ g
        p = p.tril() - 0.5 * diag_embed(p.diagonal(dim1=-2, dim2=-1))
        x = solve_triangular(low.mT, p, upper=True)
        ga = solve_triangular(low.mT, x.mT, upper=True).mT
        return 0.5 * (ga + ga.mT)


class SolveTriangular(Function):
    _array_forward = True
    _node_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx, a, b, upper):
        xp = xp_of(a)
        # NOTE: matches torch: only the triangle named by ``upper`` of ``a`` is read
        tri = xp.triu(a) if upper else xp.tril(a)
        x = xp.linalg.solve(tri, b)
        ctx.upper = upper
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        upper = ctx.upper
        gb = solve_triangular(a.mT, g, upper=not upper)
        ga = None
        if need_a:
            ga = -(gb @ x.mT)
            ga = ga.triu() if upper else ga.tril()
        return ga, (gb if need_b else None), None


def cholesky(a: Tensor) -> Tensor:
    """The lower Cholesky factor ``L`` of ``a = L L^T`` (batched)."""
    return Cholesky.apply(a)


def solve_triangular(a: Tensor, b: Tensor, *, upper: bool) -> Tensor:
    """``X`` with ``tri(a) X = b`` (``torch.linalg.solve_triangular(a, b, upper=upper)``); the
    batch dimensions broadcast."""
    return SolveTriangular.apply(a, b, upper)


def cholesky_inverse(low: Tensor) -> Tensor:
    """``(L L^T)^-1`` from the lower factor ``L``."""
    n = low.shape[-1]
    eye = _wrap(xp_of(low._data).eye(n, dtype=low._data.dtype))
    linv = solve_triangular(low, eye, upper=False)
    return linv.mT @ linv


def eigvalsh(a: Tensor) -> Tensor:
    """The eigenvalues of symmetric matrices (ascending), without gradient."""
    return _wrap(xp_of(a._data).linalg.eigvalsh(a._data))


def cholesky_ok(a: Tensor) -> Tensor:
    """Per matrix of the batch, whether the Cholesky factorization succeeds."""
    xp = xp_of(a._data)
    try:
        xp.linalg.cholesky(a._data)
        return _wrap(xp.ones(a.shape[:-2], dtype=bool))
    except xp.linalg.LinAlgError:
        pass
    flat = a._data.reshape((-1,) + a.shape[-2:])
    ok = xp.empty(flat.shape[0], dtype=bool)
    for i, m in enumerate(flat):
        try:
            xp.linalg.cholesky(m)
            ok[i] = True
        except xp.linalg.LinAlgError:
            ok[i] = False
    return _wrap(ok.reshape(a.shape[:-2]))
