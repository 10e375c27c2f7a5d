"""torch's top-level linear algebra outside ``torch.linalg``: the deprecated ``cholesky``,
``lobpcg``, and the randomized ``svd_lowrank`` / ``pca_lowrank``.

All are composed from ``ember.linalg`` ops (Cholesky, eigh, QR, SVD, triangular solves), so
autograd comes from those.

``lobpcg`` returns the ``k`` extreme eigenpairs of a symmetric (or generalized symmetric-
definite) problem. torch iterates LOBPCG to its tolerance; ember computes the same eigenpairs
with the dense symmetric eigensolver, the point LOBPCG converges to, so values agree to torch's
tolerance and the gradients are the exact ones. ``X``, ``iK``, ``niter``, ``tol``, ``method``
and the ``ortho_*`` parameters only steer torch's iteration; ember checks them and has no use
for them.
"""

from __future__ import annotations

import warnings

from ember.autograd import grad_mode as _gm
from ember.tensor import Tensor

_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
    "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs."
)


def cholesky(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """Deprecated: the Cholesky factor of symmetric positive-definite matrices, lower (or
    upper with ``upper=True``). Use ``ember.linalg.cholesky``.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ember.cholesky(ember.tensor([[4.0, 2.0], [2.0, 5.0]]), upper=True)
        tensor([[2., 1.],
                [0., 2.]])
    """
    from ember import linalg

    warnings.warn(_CHOLESKY_DEPRECATED, UserWarning, stacklevel=2)
    if input.dim() >= 2 and input.shape[-1] != input.shape[-2]:
        raise RuntimeError(
            "cholesky: A must be batches of square matrices, but they are "
            f"{input.shape[-2]} by {input.shape[-1]} matrices"
        )
    try:
        return linalg.cholesky(input, upper=upper, out=out)
    except RuntimeError as e:  # name this function, as torch's message does
        msg = str(e).replace("linalg.cholesky", "cholesky")
        raise type(e)(msg) from None


# ---- lobpcg --------------------------------------------------------------------------------------
def lobpcg(
    A: Tensor,
    k: int | None = None,
    B: Tensor | None = None,
    X: Tensor | None = None,
    n: int | None = None,
    iK: Tensor | None = None,
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker: None = None,
    ortho_iparams: dict | None = None,
    ortho_fparams: dict | None = None,
    ortho_bparams: dict | None = None,
) -> tuple[Tensor, Tensor]:
    """The ``k`` largest (or smallest, ``largest=False``) eigenpairs of the symmetric
    positive-definite generalized problem ``A X = B X diag(E)`` (``B`` the identity by
    default), batched: ``(E, X)`` with ``E`` ``(..., k)`` in order from the extreme end and
    ``X`` ``(..., m, k)`` (``B``-orthonormal columns).

    Example:
        >>> A = ember.diag(ember.arange(1.0, 7.0))
        >>> E, X = ember.lobpcg(A, k=2)
        >>> E
        tensor([6., 5.])
    """
    from ember import linalg

    if A.is_sparse:
        A = A.to_dense()
    if B is not None and B.is_sparse:
        B = B.to_dense()
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"A must be a square matrix or a batch of them, got {list(A.shape)}")
    if B is not None and B.shape != A.shape:
        raise ValueError(f"A and B must have the same shape, got {list(A.shape)}, {list(B.shape)}")
    m = A.shape[-1]
    if X is None:
        k = 1 if k is None else k
        n = k if n is None else n
    else:
        if X.shape[-2] != m:
            raise ValueError(f"X must have {m} rows, got {list(X.shape)}")
        k = X.shape[-1] if k is None else k
        n = X.shape[-1] if n is None else n
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
            f"than 3 x the number of requested eigenpairs (={n})"
        )
    largest = True if largest is None else largest
    grad = _gm.state.enabled and (A.requires_grad or (B is not None and B.requires_grad))
    if grad and B is not None:
        raise ValueError("lobpcg.backward does not support backward with B != I yet.")
    if B is None:
        w, V = linalg.eigh(A)
    else:
        # reduce to a standard problem with B = L L^T: C = L^-1 A L^-T, X = L^-T Y
        low = linalg.cholesky(B)
        half = linalg.solve_triangular(low, A, upper=False)
        C = linalg.solve_triangular(low, half.mT, upper=False)
        w, Y = linalg.eigh(C)
        V = linalg.solve_triangular(low.mT, Y, upper=True)
    if largest:
        return w[..., m - k :].flip(-1), V[..., m - k :].flip(-1)
    return w[..., :k], V[..., :k]


# ---- randomized low-rank SVD ---------------------------------------------------------------------
def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """Halko et al.'s randomized range finder: an orthonormal ``(m, q)`` basis whose span
    approximates the range of ``A - M``, with ``niter`` power (subspace) iterations."""
    from ember import linalg
    from ember.random import randn

    R = randn(A.shape[-1], q, dtype=A.dtype, device=A.device)
    X = A @ R
    if M is not None:
        X = X - M @ R
    Q = linalg.qr(X).Q
    for _ in range(niter):
        X = A.mH @ Q
        if M is not None:
            X = X - M.mH @ Q
        Q = linalg.qr(X).Q
        X = A @ Q
        if M is not None:
            X = X - M @ Q
        Q = linalg.qr(X).Q
    return Q


def svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """An approximate rank-``q`` SVD of ``A - M`` by random projection: ``(U, S, V)`` with
    ``A - M ~= U diag(S) V^H`` (``U`` ``(..., m, q)``, ``V`` ``(..., n, q)``). Exact when
    ``q`` reaches the rank. Draws from ember's global generator.

    Example:
        >>> A = ember.randn(5, 2) @ ember.randn(2, 4)
        >>> U, S, V = ember.svd_lowrank(A, q=2)
        >>> bool(ember.allclose(U @ ember.diag(S) @ V.mT, A, atol=1e-4))
        True
    """
    from ember import linalg

    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    if A.is_sparse:
        A = A.to_dense()
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:  # work on the tall orientation
        A = A.mH
        M = M.mH if M is not None else None
    Q = _approximate_basis(A, q, niter, M)
    Bq = Q.mH @ A
    if M is not None:
        Bq = Bq - Q.mH @ M
    U, S, Vh = linalg.svd(Bq, full_matrices=False)
    V = Vh.mH
    U = Q @ U
    if m < n:
        U, V = V, U
    return U, S, V


def pca_lowrank(
    A: Tensor, q: int | None = None, center: bool = True, niter: int = 2
) -> tuple[Tensor, Tensor, Tensor]:
    """Principal component analysis of the rows of ``A`` by ``svd_lowrank`` of the centered
    data (``center=True``): ``(U, S, V)``, ``V``'s columns the principal directions and
    ``S**2 / (m - 1)`` the variances. ``q`` defaults to ``min(6, m, n)``.

    Example:
        >>> U, S, V = ember.pca_lowrank(ember.randn(20, 3), q=3)
        >>> V.shape
        ember.Size([3, 3])
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if A.is_sparse:
        A = A.to_dense()
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)


__all__ = ["cholesky", "lobpcg", "svd_lowrank", "pca_lowrank"]
# (torch.solve, the removed stub, lives in ember/_runtime.py)

Tensor.cholesky = cholesky
