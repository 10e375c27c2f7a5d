"""The linear algebra MultivariateNormal needs beyond ``ember.linalg``'s ``cholesky`` and
``solve_triangular``: the inverse from a Cholesky factor, and the checks of the positive-definite
constraints. Private to the distributions package."""

from __future__ import annotations

from ember.linalg import solve_triangular
from ember.ops._dispatch import xp_of
from ember.tensor import Tensor, _wrap


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
