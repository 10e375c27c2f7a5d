"""Linear algebra on complex128 against torch: values, and gradients of real-valued losses
(torch's conjugate Wirtinger convention), with gradcheck/gradgradcheck on the gauge-invariant
functions of the decompositions."""

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")

rng = np.random.default_rng(0)


def _z(*s):
    return rng.standard_normal(s) + 1j * rng.standard_normal(s)


A = _z(3, 3) + 3 * np.eye(3)  # well conditioned
AB = _z(2, 3, 3) + 3 * np.eye(3)  # a batch
B = _z(3, 2)
HB = _z(3, 3)
H = HB @ HB.conj().T + 3 * np.eye(3)  # Hermitian positive definite
R = _z(4, 3)
W3 = _z(3, 3)


def _eigh_proj(L, a):
    w, v = L.linalg.eigh(a)
    return v @ L.diag(w).to(a.dtype) @ v.mH  # independent of each eigenvector's phase


def _svd_rebuild(L, a):
    u, s, vh = L.linalg.svd(a, full_matrices=False)
    return u @ L.diag(s).to(a.dtype) @ vh


CASES = {
    "solve": (lambda L, a, b: L.linalg.solve(a, b), [A, B]),
    "solve_batched": (lambda L, a, b: L.linalg.solve(a, b), [AB, B]),
    "solve_left_false": (lambda L, a, b: L.linalg.solve(a, b.mT, left=False), [A, B]),
    "solve_vector": (lambda L, a, b: L.linalg.solve(a, b[:, 0]), [A, B]),
    "inv": (lambda L, a: L.linalg.inv(a), [A]),
    "inv_batched": (lambda L, a: L.linalg.inv(a), [AB]),
    "inv_ex": (lambda L, a: L.linalg.inv_ex(a)[0], [A]),
    "inverse": (lambda L, a: L.inverse(a), [A]),
    "det": (lambda L, a: L.linalg.det(a), [A]),
    "det_batched": (lambda L, a: L.linalg.det(a), [AB]),
    "torch_det": (lambda L, a: L.det(a), [A]),
    "slogdet_sign": (lambda L, a: L.linalg.slogdet(a)[0], [A]),
    "slogdet_logabsdet": (lambda L, a: L.linalg.slogdet(a)[1], [A]),
    "slogdet_both": (lambda L, a: L.linalg.slogdet(a)[0] * L.linalg.slogdet(a)[1], [AB]),
    "logdet": (lambda L, a: L.logdet(a), [A]),
    "lu_factor": (lambda L, a: L.linalg.lu_factor(a)[0], [A]),
    "lu_L": (lambda L, a: L.linalg.lu(a)[1], [A]),
    "lu_U": (lambda L, a: L.linalg.lu(a)[2], [A]),
    "lu_solve": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), [A, B]),
    "cholesky": (lambda L, a: L.linalg.cholesky(a), [H]),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(a, upper=True), [H]),
    "cholesky_solve": (lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a)), [H, B]),
    "cholesky_inverse": (lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)), [H]),
    "solve_triangular": (
        lambda L, a, b: L.linalg.solve_triangular(a.triu(), b, upper=True),
        [A, B],
    ),
    "solve_triangular_lower_right": (
        lambda L, a, b: L.linalg.solve_triangular(a.tril(), b.mT, upper=False, left=False),
        [A, B],
    ),
    "eigh_values": (lambda L, a: L.linalg.eigh(a)[0], [H]),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a), [H]),
    "eigh_vector_moduli": (lambda L, a: L.linalg.eigh(a)[1].abs(), [H]),
    "eigh_projection": (_eigh_proj, [H]),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), [R]),
    "svd_S": (lambda L, a: L.linalg.svd(a, full_matrices=False)[1], [R]),
    "svd_rebuild": (_svd_rebuild, [R]),
    "svd_U_projector": (
        lambda L, a: (lambda u: u[:, :2] @ u[:, :2].mH)(L.linalg.svd(a, full_matrices=False)[0]),
        [R],
    ),
    "qr_Q": (lambda L, a: L.linalg.qr(a)[0], [R]),
    "qr_R": (lambda L, a: L.linalg.qr(a)[1], [R]),
    "pinv": (lambda L, a: L.linalg.pinv(a), [R]),
    "matrix_power": (lambda L, a: L.linalg.matrix_power(a, 3), [A]),
    "matrix_power_negative": (lambda L, a: L.linalg.matrix_power(a, -2), [A]),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a * 0.3), [A]),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b).solution, [R, _z(4, 2)]),
    "eigvals_moduli": (lambda L, a: L.linalg.eigvals(a).abs(), [A]),
    "cond": (lambda L, a: L.linalg.cond(a), [A]),
    "matrix_norm_nuc": (lambda L, a: L.linalg.matrix_norm(a, "nuc"), [R]),
    "norm_2": (lambda L, a: L.linalg.norm(a, 2), [R]),
    "mm": (lambda L, a, b: a @ b, [A, B]),
    "bmm": (lambda L, a, b: L.bmm(a, b.expand(2, 3, 2)), [AB, B]),
    "einsum": (lambda L, a, b: L.einsum("bij,jk->bik", a, b), [AB, B]),
    "tensordot": (lambda L, a, b: L.tensordot(a, b, dims=([1], [0])), [A, B]),
    "multi_dot": (lambda L, a, b: L.linalg.multi_dot([a, a, b]), [A, B]),
    "vecdot": (lambda L, a, b: L.linalg.vecdot(a, b), [A, W3]),
    "adjoint_product": (lambda L, a, b: a.mH @ b, [A, B]),
    "kron": (lambda L, a, b: L.kron(a, b), [A, B]),
    "trace": (lambda L, a: L.trace(a), [A]),
}


def _herm(L, x):
    """A Hermitian positive-definite matrix built from any ``x``: the decompositions that read
    one triangle (or assume symmetry) are checked on that manifold, as torch's tests do."""
    return x @ x.mH + 3 * L.eye(x.shape[-1], dtype=x.dtype)


CASES["cholesky_of_herm"] = (lambda L, x: L.linalg.cholesky(_herm(L, x)), [HB])
CASES["eigh_values_of_herm"] = (lambda L, x: L.linalg.eigh(_herm(L, x))[0], [HB])
CASES["eigh_projection_of_herm"] = (lambda L, x: _eigh_proj(L, _herm(L, x)), [HB])


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_values_and_grads_match_torch(name):
    f, args = CASES[name]
    ta = [torch.tensor(a, requires_grad=True) for a in args]
    to = f(torch, *ta)
    r = np.random.default_rng(1)
    w = r.standard_normal(to.shape) + (1j * r.standard_normal(to.shape) if to.is_complex() else 0)
    # a real-valued loss, (out * W).real.sum(): its gradient is the conjugate convention's
    tg = torch.autograd.grad((to * torch.tensor(w)).real.sum(), ta)
    ea = [ember.tensor(a, requires_grad=True) for a in args]
    eo = f(ember, *ea)
    assert str(eo.dtype).split(".")[1] == str(to.dtype).split(".")[1]
    tv = to.detach().resolve_conj().numpy()
    np.testing.assert_allclose(eo.detach().numpy(), tv, rtol=1e-9, atol=1e-12)
    eg = ember.autograd.grad((eo * ember.tensor(w)).real.sum(), ea)
    for e, t in zip(eg, tg, strict=True):
        np.testing.assert_allclose(e.numpy(), t.resolve_conj().numpy(), rtol=1e-8, atol=1e-11)


GRADCHECK = [
    "solve",
    "inv",
    "det",
    "slogdet_both",
    "logdet",
    "lu_solve",
    "cholesky_of_herm",
    "solve_triangular",
    "eigh_values_of_herm",
    "eigh_projection_of_herm",
    "svd_rebuild",
    "qr_Q",
    "matrix_exp",
]
GRADGRADCHECK = {
    "solve",
    "inv",
    "det",
    "cholesky_of_herm",
    "solve_triangular",
    "eigh_values_of_herm",
}


@pytest.mark.parametrize("name", GRADCHECK)
def test_gradcheck(name):
    f, args = CASES[name]
    ea = tuple(ember.tensor(a, requires_grad=True) for a in args)
    fn = lambda *t: f(ember, *t)  # noqa: E731
    assert ember.autograd.gradcheck(fn, ea)
    if name in GRADGRADCHECK:
        assert ember.autograd.gradgradcheck(fn, ea)


def test_adjoint_conjugates():
    a = ember.tensor(A)
    np.testing.assert_array_equal(a.mH.numpy(), A.conj().swapaxes(-1, -2))
    np.testing.assert_array_equal(a.adjoint().numpy(), A.conj().T)
    np.testing.assert_array_equal(a.H.numpy(), A.conj().T)
    np.testing.assert_array_equal(a.mT.numpy(), A.T)
    real = ember.tensor(A.real)
    assert real.mH._base is real  # real: still a view


def test_complex_cholesky_errors_name_the_minor():
    bad = ember.tensor(-np.eye(2) + 0j)
    with pytest.raises(ember.linalg.LinAlgError, match="leading minor of order 1"):
        ember.linalg.cholesky(bad)
