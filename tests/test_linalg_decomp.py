"""The linalg decompositions (ember/ops/linalg_decomp.py) against torch: values, gradients
(through gauge-invariant functions of the factors), gradcheck/gradgradcheck, errors, meta shapes.

svd/eigh vectors are compared directly only where LAPACK is deterministic; elsewhere through
invariants (reconstruction, |U|, projectors U U^T). QR is compared factor by factor: torch and
NumPy both give geqrf's signs."""

# ruff: noqa: E501  (the case table reads best one case a line)
from __future__ import annotations

import math

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

RNG = np.random.default_rng(12)
pytestmark = pytest.mark.filterwarnings("ignore:torch.qr is deprecated")


def _arr(*shape, sym=False, dtype=np.float64):
    a = RNG.standard_normal(shape)
    if sym:
        a = a + np.swapaxes(a, -1, -2)
    return a.astype(dtype)


def _pair(a, requires_grad=False):
    e = ember.tensor(a, requires_grad=requires_grad)
    t = torch.from_numpy(a.copy()).requires_grad_(requires_grad) if torch else None
    return e, t


def _np(x):
    return x.detach().numpy()


# each case: name -> fn(lib, *tensors) giving gauge-invariant outputs, and input arrays
def _svd_inv(L, A, full=False):
    U, S, Vh = L.linalg.svd(A, full_matrices=full)
    k = S.shape[-1]
    U, Vh = U[..., :, :k], Vh[..., :k, :]
    # U diag(S) Vh, S, and the sign-invariant U S^2 U^T... plus a phase-free vector product
    return (U * S.unsqueeze(-2)) @ Vh, S, (U * S.unsqueeze(-2)) @ U.mT, Vh.mT @ Vh


def _eigh_inv(L, A, uplo="L"):
    w, V = L.linalg.eigh(A, UPLO=uplo)
    return w, (V * w.unsqueeze(-2)) @ V.mT, V[..., :, -1:] @ V[..., :, -1:].mT


def _qr(L, A, mode="reduced"):
    return tuple(L.linalg.qr(A, mode=mode))


CASES = [
    ("svd_tall", _svd_inv, [(5, 3)]),
    ("svd_wide", _svd_inv, [(2, 3, 5)]),
    ("svd_square", _svd_inv, [(4, 4)]),
    ("svd_full_tall", lambda L, A: _svd_inv(L, A, True), [(5, 3)]),
    (
        "svd_old",
        lambda L, A: (lambda r: ((r.U * r.S.unsqueeze(-2)) @ r.V.mT, r.S))(L.svd(A)),
        [(4, 3)],
    ),
    (
        "svd_old_some_false",
        lambda L, A: (lambda r: ((r.U[..., :3] * r.S.unsqueeze(-2)) @ r.V.mT, r.S))(
            L.svd(A, some=False)
        ),
        [(4, 3)],
    ),
    ("svdvals", lambda L, A: L.linalg.svdvals(A), [(2, 4, 3)]),
    ("eigh", _eigh_inv, [("sym", 2, 4, 4)]),
    ("eigh_upper", lambda L, A: _eigh_inv(L, A, "U"), [(4, 4)]),
    ("eigvalsh", lambda L, A: L.linalg.eigvalsh(A), [("sym", 3, 3)]),
    ("eigvalsh_U", lambda L, A: L.linalg.eigvalsh(A, UPLO="U"), [(3, 3)]),
    ("qr_tall", _qr, [(2, 5, 3)]),
    ("qr_square", _qr, [(4, 4)]),
    ("qr_wide", _qr, [(3, 5)]),
    ("qr_complete_wide", lambda L, A: _qr(L, A, "complete"), [(3, 5)]),
    ("qr_complete_square", lambda L, A: _qr(L, A, "complete"), [(3, 3)]),
    ("qr_old", lambda L, A: tuple(L.qr(A)), [(4, 3)]),
    ("pinv_tall", lambda L, A: L.linalg.pinv(A), [(2, 5, 3)]),
    ("pinv_wide", lambda L, A: L.linalg.pinv(A), [(3, 5)]),
    ("pinv_hermitian", lambda L, A: L.linalg.pinv(A, hermitian=True), [("sym", 4, 4)]),
    ("pinv_rtol", lambda L, A: L.linalg.pinv(A, rtol=0.3), [(4, 4)]),
    ("pinv_atol", lambda L, A: L.linalg.pinv(A, atol=0.5), [(4, 3)]),
    ("pinverse", lambda L, A: L.pinverse(A, rcond=0.1), [(3, 4)]),
    ("cond_2", lambda L, A: L.linalg.cond(A), [(2, 4, 3)]),
    ("cond_m2", lambda L, A: L.linalg.cond(A, -2), [(3, 4)]),
    ("householder", lambda L, A, t: L.linalg.householder_product(A, t), [(2, 5, 3), (2, 2)]),
    ("orgqr", lambda L, A, t: L.orgqr(A, t), [(4, 4), (4,)]),
    ("ormqr_left", lambda L, A, t, C: L.ormqr(A, t, C), [(4, 3), (3,), (4, 2)]),
    ("ormqr_left_T", lambda L, A, t, C: L.ormqr(A, t, C, transpose=True), [(4, 3), (3,), (4, 2)]),
    (
        "ormqr_right",
        lambda L, A, t, C: L.ormqr(A, t, C, left=False),
        [(2, 4, 3), (2, 3), (2, 2, 4)],
    ),
    ("ormqr_right_T", lambda L, A, t, C: L.ormqr(A, t, C, False, True), [(4, 3), (3,), (2, 4)]),
    ("lstsq_tall", lambda L, A, B: L.linalg.lstsq(A, B)[0], [(5, 3), (5, 2)]),
    (
        "lstsq_gelsd",
        lambda L, A, B: tuple(L.linalg.lstsq(A, B, driver="gelsd"))[:2],
        [(2, 5, 3), (2, 5, 2)],
    ),
    (
        "lstsq_gels_res",
        lambda L, A, B: tuple(L.linalg.lstsq(A, B, driver="gels"))[:2],
        [(5, 3), (5, 2)],
    ),
    ("lstsq_wide_vec", lambda L, A, B: L.linalg.lstsq(A, B, driver="gelss")[0], [(3, 5), (3,)]),
    ("lstsq_bcast", lambda L, A, B: L.linalg.lstsq(A, B)[0], [(2, 4, 3), (1, 4, 2)]),
]


def _inputs(spec):
    out = []
    for s in spec:
        sym = s[0] == "sym"
        out.append(_arr(*(s[1:] if sym else s), sym=sym))
    return out


def _flat(r):
    return list(r) if isinstance(r, tuple) else [r]


@needs_torch
@pytest.mark.parametrize("name,fn,spec", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(name, fn, spec):
    arrs = _inputs(spec)
    pairs = [_pair(a, requires_grad=True) for a in arrs]
    got = _flat(fn(ember, *[p[0] for p in pairs]))
    want = _flat(fn(torch, *[p[1] for p in pairs]))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape), name
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-9, atol=1e-10, err_msg=name)
    outs = [(g, w) for g, w in zip(got, want) if w.requires_grad]
    seeds = [RNG.standard_normal(tuple(w.shape)) for _, w in outs]
    eg = ember.autograd.grad(
        [g for g, _ in outs],
        [p[0] for p in pairs],
        [ember.tensor(s) for s in seeds],
        allow_unused=True,
    )
    tg = torch.autograd.grad(
        [w for _, w in outs],
        [p[1] for p in pairs],
        [torch.from_numpy(s) for s in seeds],
        allow_unused=True,
    )
    for a, b in zip(eg, tg):
        if b is None:
            assert a is None or not np.any(_np(a))
            continue
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-8, atol=1e-9, err_msg=name)


# eigh reads one triangle: finite differences need symmetric perturbations (as torch's own
# gradcheck of eigh symmetrizes its input)
SYM = {"eigh", "eigh_upper", "eigvalsh", "eigvalsh_U", "pinv_hermitian"}
# torch's pinv gradient is its own formula, not the derivative of the truncation (pinv_rtol)
SKIP = ("cond", "lstsq_gels_res", "pinv_rtol")
GRAD_CASES = [c for c in CASES if not c[0].startswith(SKIP)]


@pytest.mark.parametrize("name,fn,spec", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_and_gradgradcheck(name, fn, spec):
    leaves = [ember.tensor(a, requires_grad=True) for a in _inputs(spec)]

    def f(*xs):
        if name in SYM:
            xs = (xs[0] + xs[0].mT,) + xs[1:]
        return fn(ember, *xs)

    assert ember.autograd.gradcheck(f, tuple(leaves), atol=1e-6, rtol=1e-4)
    assert ember.autograd.gradgradcheck(f, tuple(leaves), atol=1e-5, rtol=1e-3)


@needs_torch
def test_qr_and_geqrf_factors_match_torch_exactly():
    a = _arr(3, 5, 4)
    e, t = _pair(a)
    for mode in ("reduced", "complete", "r"):
        for x, y in zip(ember.linalg.qr(e, mode), torch.linalg.qr(t, mode)):
            assert tuple(x.shape) == tuple(y.shape)
            np.testing.assert_allclose(_np(x), _np(y), rtol=1e-12, atol=1e-13)
    for x, y in zip(ember.geqrf(e), torch.geqrf(t)):
        np.testing.assert_allclose(_np(x), _np(y), rtol=1e-12, atol=1e-13)


@needs_torch
def test_svd_eigh_vectors_match_torch_up_to_sign():
    a = _arr(4, 6, 5)
    e, t = _pair(a)
    for x, y in zip(ember.linalg.svd(e), torch.linalg.svd(t)):
        np.testing.assert_allclose(np.abs(_np(x)), np.abs(_np(y)), rtol=1e-9, atol=1e-10)
    s = _arr(3, 5, 5, sym=True)
    e, t = _pair(s)
    for x, y in zip(ember.linalg.eigh(e), torch.linalg.eigh(t)):
        np.testing.assert_allclose(np.abs(_np(x)), np.abs(_np(y)), rtol=1e-9, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("p", [None, "fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2])
def test_cond_every_norm(p):
    a = _arr(2, 4, 4)
    e, t = _pair(a)
    if not hasattr(ember.linalg, "inv_ex") and p not in (None, 2, -2):
        pytest.skip("cond needs linalg.inv_ex (linalg_solve)")
    np.testing.assert_allclose(
        _np(ember.linalg.cond(e, p)), _np(torch.linalg.cond(t, p)), rtol=1e-9
    )
    if p in (1, "fro"):
        z = np.zeros((2, 2))
        assert _np(ember.linalg.cond(ember.tensor(z), p)) == np.inf


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"atol": 0.5},
        {"rtol": 0.2},
        {"tol": 0.5},
        {"hermitian": True},
        {"atol": 0.1, "rtol": 0.1},
    ],
)
def test_matrix_rank(kw):
    a = _arr(3, 4, 4, sym=True)
    a[0] = np.outer(a[0, 0], a[0, 0])
    e, t = _pair(a)
    args = (kw.pop("tol"),) if "tol" in kw else ()
    got = ember.linalg.matrix_rank(e, *args, **kw)
    want = torch.linalg.matrix_rank(t, *args, **kw)
    assert got.dtype == ember.int64
    np.testing.assert_array_equal(_np(got), _np(want))


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 5, 3)])
def test_lstsq_gels_round_off_rank_deficiency_raises_on_every_cpu(shape):
    # a dependent column or row: the triangular factor's last entry is zero up to round-off,
    # exactly zero only with some BLAS kernels; gels refuses it whatever the kernel gives
    a = np.random.default_rng(3).standard_normal(shape)
    if shape[-2] >= shape[-1]:
        a[..., -1] = a[..., 0] + a[..., 1]
    else:
        a[..., -1, :] = a[..., 0, :] - 2 * a[..., 1, :]
    b = np.ones(shape[:-1] + (2,))
    with pytest.raises(ember.linalg.LinAlgError, match="does not have full rank"):
        ember.linalg.lstsq(ember.tensor(a), ember.tensor(b), driver="gels")
    # the other drivers report the rank instead
    assert (ember.linalg.lstsq(ember.tensor(a), ember.tensor(b), driver="gelsd").rank == 2).all()


@needs_torch
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), "rankdef"])
def test_lstsq_outputs_per_driver(driver, shape):
    if shape == "rankdef":
        if driver == "gels":
            return
        a = np.ones((5, 3))
    else:
        a = _arr(*shape)
    b = _arr(*a.shape[:-1], 2)
    ea, ta = _pair(a)
    eb, tb = _pair(b)
    got = ember.linalg.lstsq(ea, eb, driver=driver)
    want = torch.linalg.lstsq(ta, tb, driver=driver)
    assert type(got).__name__ == "linalg_lstsq"
    for x, y in zip(got, want):
        assert tuple(x.shape) == tuple(y.shape)
        assert str(x.dtype).split(".")[-1] == str(y.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(x), _np(y), rtol=1e-9, atol=1e-10)


@needs_torch
def test_float32_and_named_tuples():
    a = _arr(3, 4, 4, dtype=np.float32)
    e, t = _pair(a)
    r = ember.linalg.svd(e)
    assert type(r).__name__ == "linalg_svd" and r._fields == ("U", "S", "Vh")
    assert r.S.dtype == ember.float32
    np.testing.assert_allclose(_np(r.S), _np(torch.linalg.svdvals(t)), rtol=1e-5)
    assert ember.svd(e)._fields == ("U", "S", "V")
    assert ember.linalg.eigh(e)._fields == ("eigenvalues", "eigenvectors")
    assert ember.qr(e)._fields == ember.linalg.qr(e)._fields == ("Q", "R")
    assert ember.geqrf(e)._fields == ("a", "tau")
    np.testing.assert_allclose(_np(ember.linalg.qr(e).R), _np(torch.linalg.qr(t).R), atol=1e-5)
    np.testing.assert_allclose(
        _np(ember.linalg.pinv(e)), _np(torch.linalg.pinv(t)), rtol=1e-3, atol=1e-4
    )


@needs_torch
def test_svd_compute_uv_false_and_tensor_methods():
    a = _arr(3, 5)
    e, t = _pair(a)
    r, w = ember.svd(e, compute_uv=False), torch.svd(t, compute_uv=False)
    for x, y in zip(r, w):
        assert tuple(x.shape) == tuple(y.shape)
    assert not np.any(_np(r.U)) and not np.any(_np(r.V))
    np.testing.assert_allclose(_np(e.pinverse()), _np(t.pinverse()), rtol=1e-9)
    h, tau = e.T.geqrf()
    np.testing.assert_allclose(_np(h.orgqr(tau)), _np(torch.linalg.qr(t.T).Q), atol=1e-12)
    np.testing.assert_allclose(
        _np(h.ormqr(tau, e.T)), _np(t.T.geqrf()[0].ormqr(t.T.geqrf()[1], t.T)), atol=1e-12
    )


def _errs(fn, lib):
    try:
        fn(lib)
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return type(exc).__name__.lstrip("_"), str(exc)
    return None, None


ERRORS = {
    "eigh_nonsquare": lambda L: L.linalg.eigh(L.ones(2, 3, dtype=L.float64)),
    "eigh_1d": lambda L: L.linalg.eigh(L.ones(3)),
    "eigh_int": lambda L: L.linalg.eigh(L.ones(3, 3, dtype=L.int64)),
    "eigh_half": lambda L: L.linalg.eigh(L.ones(3, 3, dtype=L.float16)),
    "eigh_uplo": lambda L: L.linalg.eigh(L.eye(3), UPLO="X"),
    "eigvalsh_nonsquare": lambda L: L.linalg.eigvalsh(L.ones(3, 2)),
    "svd_int": lambda L: L.linalg.svd(L.ones(3, 3, dtype=L.int64)),
    "svd_half": lambda L: L.linalg.svd(L.ones(3, 3, dtype=L.float16)),
    "svd_1d": lambda L: L.linalg.svd(L.ones(3)),
    "svd_driver": lambda L: L.linalg.svd(L.ones(3, 3), driver="gesvd"),
    "svd_nan": lambda L: L.linalg.svd(L.full((3, 3), float("nan"), dtype=L.float64)),
    "svd_nan_batch": lambda L: L.linalg.svd(L.full((2, 3, 3), float("nan"), dtype=L.float64)),
    "qr_int": lambda L: L.linalg.qr(L.ones(3, 3, dtype=L.int64)),
    "qr_half": lambda L: L.linalg.qr(L.ones(3, 3, dtype=L.float16)),
    "qr_mode": lambda L: L.linalg.qr(L.ones(3, 3), mode="bad"),
    "qr_1d": lambda L: L.linalg.qr(L.ones(3)),
    "pinv_1d": lambda L: L.linalg.pinv(L.ones(3)),
    "pinv_int": lambda L: L.linalg.pinv(L.ones(3, 3, dtype=L.int64)),
    "rank_1d": lambda L: L.linalg.matrix_rank(L.ones(3)),
    "rank_half": lambda L: L.linalg.matrix_rank(L.ones(3, 3, dtype=L.float16)),
    "cond_p": lambda L: L.linalg.cond(L.ones(3, 3), 3),
    "cond_str": lambda L: L.linalg.cond(L.ones(3, 3), "bad"),
    "cond_nonsquare": lambda L: L.linalg.cond(L.ones(2, 3), "fro"),
    "cond_nonsquare_inf": lambda L: L.linalg.cond(L.ones(2, 3), math.inf),
    "cond_1d": lambda L: L.linalg.cond(L.ones(3)),
    "lstsq_rows": lambda L: L.linalg.lstsq(L.ones(3, 2), L.ones(2, 2)),
    "lstsq_driver": lambda L: L.linalg.lstsq(L.ones(3, 2), L.ones(3, 2), driver="x"),
    "lstsq_dtype": lambda L: L.linalg.lstsq(L.ones(3, 2), L.ones(3, 2, dtype=L.float64)),
    "lstsq_dims": lambda L: L.linalg.lstsq(L.ones(2, 3, 2), L.ones(3)),
    "lstsq_1d": lambda L: L.linalg.lstsq(L.ones(3), L.ones(3)),
    "lstsq_half": lambda L: L.linalg.lstsq(
        L.ones(3, 2, dtype=L.float16), L.ones(3, 2, dtype=L.float16)
    ),
    "lstsq_gels_rankdef": lambda L: L.linalg.lstsq(
        L.ones(3, 2, dtype=L.float64), L.ones(3, 2, dtype=L.float64), driver="gels"
    ),
    "hp_tau_ndim": lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(2, 2)),
    "hp_wide": lambda L: L.linalg.householder_product(L.ones(2, 3), L.ones(2)),
    "hp_tau_long": lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(3)),
    "hp_dtype": lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(2, dtype=L.float64)),
    "ormqr_other": lambda L: L.ormqr(L.ones(3, 2), L.ones(2), L.ones(4, 3)),
    "ormqr_ndim": lambda L: L.ormqr(L.ones(2, 3, 2), L.ones(2, 2), L.ones(3, 3)),
    "geqrf_1d": lambda L: L.geqrf(L.ones(3)),
    "geqrf_grad": lambda L: L.geqrf(L.ones(3, 2, requires_grad=True))[0].sum().backward(),
    "qr_r_grad": lambda L: (
        L.linalg.qr(L.ones(3, 2, requires_grad=True), mode="r")[1].sum().backward()
    ),
    "qr_complete_grad": lambda L: (
        L.linalg.qr(L.randn(3, 2, requires_grad=True), "complete")[0].sum().backward()
    ),
    "lstsq_removed": lambda L: L.lstsq(L.ones(2, 2), L.ones(2, 2)),
    "symeig_removed": lambda L: L.symeig(L.ones(2, 2)),
}


@needs_torch
@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    et, em = _errs(ERRORS[name], ember)
    tt, tm = _errs(ERRORS[name], torch)
    assert tt is not None
    assert et == tt, f"{name}: {et} vs torch {tt}: {em}"
    assert em.split("\n")[0] == tm.split("\n")[0], name


def test_meta_shapes():
    m = ember.empty(2, 5, 3, device="meta")
    U, S, Vh = ember.linalg.svd(m)
    assert (U.shape, S.shape, Vh.shape) == ((2, 5, 5), (2, 3), (2, 3, 3))
    assert U.device.type == "meta"
    Q, R = ember.linalg.qr(m)
    assert (Q.shape, R.shape) == ((2, 5, 3), (2, 3, 3))
    w, V = ember.linalg.eigh(ember.empty(4, 4, device="meta"))
    assert (w.shape, V.shape) == ((4,), (4, 4))
    assert ember.linalg.pinv(m).shape == (2, 3, 5)
    a, tau = ember.geqrf(m)
    assert a.shape == (2, 5, 3) and tau.shape == (2, 3)
    assert ember.linalg.householder_product(a, tau).shape == (2, 5, 3)


def test_double_backward_through_svd_and_eigh_repeated_values_stay_finite():
    # svdvals of the identity (repeated singular values): no gradient through U/V, no 0/0
    x = ember.eye(3, dtype=ember.float64).requires_grad_()
    (g,) = ember.autograd.grad(ember.linalg.cond(x), x, create_graph=True)
    assert np.isfinite(_np(g)).all()
    w = ember.linalg.eigvalsh(x)
    (g,) = ember.autograd.grad(w.sum(), x)
    np.testing.assert_allclose(_np(g), np.eye(3))


# ---- eig / eigvals --------------------------------------------------------------------------------
def _match(w_got, w_want):
    """The permutation taking torch's eigenvalue order to ember's: LAPACK's order in both, but
    NumPy's OpenBLAS and torch's MKL geev may list conjugate pairs differently."""
    idx = np.abs(w_want[..., :, None] - w_got[..., None, :]).argmin(-1)
    assert all(len(set(r)) == r.size for r in idx.reshape(-1, idx.shape[-1])), "ambiguous match"
    return idx


def _eig_input(kind, *shape):
    a = RNG.standard_normal(shape)
    if kind == "complex128":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(kind)


@needs_torch
@pytest.mark.parametrize("kind", ["float32", "float64", "complex128"])
def test_eig_values_and_vectors_match_torch(kind):
    a = _eig_input(kind, 3, 5, 5)
    e, t = _pair(a)
    w, V = ember.linalg.eig(e)
    tw, tV = torch.linalg.eig(t)
    assert type(ember.linalg.eig(e)).__name__ == "linalg_eig"
    assert str(w.dtype) == str(tw.dtype).replace("torch", "ember")
    assert V.dtype == w.dtype and tuple(V.shape) == tuple(tV.shape)
    tol = 1e-4 if kind == "float32" else 1e-10
    idx = _match(_np(w), _np(tw))
    got_w = np.take_along_axis(_np(w), idx, -1)
    np.testing.assert_allclose(got_w, _np(tw), rtol=tol, atol=tol)
    # each eigenvector up to its phase: |v| entrywise, and the unit norm torch gives
    got_V = np.take_along_axis(_np(V), idx[..., None, :], -1)
    np.testing.assert_allclose(np.abs(got_V), np.abs(_np(tV)), rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(np.linalg.norm(_np(V), axis=-2), 1, rtol=tol)
    np.testing.assert_allclose(_np(ember.linalg.eigvals(e)), _np(w), rtol=tol, atol=tol)
    if kind == "float64":  # both call geev: same order here
        np.testing.assert_allclose(_np(w), _np(tw), rtol=1e-10, atol=1e-12)


EIG_LOSSES = {
    "abs_L": lambda L, A: L.linalg.eig(A)[0].abs().sum(),
    "re_im_L": lambda L, A: (lambda w: (w.real * w.imag).sum())(L.linalg.eig(A)[0]),
    "abs_V": lambda L, A: (L.linalg.eig(A)[1].abs() ** 2 * A.real).sum(),
    "L_and_V": lambda L, A: (lambda w, v: v.abs().sum() + (w * w).real.sum())(*L.linalg.eig(A)),
    "eigvals": lambda L, A: L.linalg.eigvals(A).abs().sum(),
}


@needs_torch
@pytest.mark.parametrize("kind", ["float64", "complex128"])
@pytest.mark.parametrize("loss", list(EIG_LOSSES))
def test_eig_gradients_match_torch(kind, loss):
    a = _eig_input(kind, 2, 4, 4)
    e, t = _pair(a, requires_grad=True)
    le, lt = EIG_LOSSES[loss](ember, e), EIG_LOSSES[loss](torch, t)
    np.testing.assert_allclose(le.item(), lt.item(), rtol=1e-10)
    (ge,) = ember.autograd.grad(le, e)
    (gt,) = torch.autograd.grad(lt, t)
    assert ge.dtype == e.dtype
    np.testing.assert_allclose(_np(ge), _np(gt), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("kind", ["float64", "complex128"])
def test_eig_gradcheck_and_gradgradcheck(kind):
    a = ember.tensor(_eig_input(kind, 2, 3, 3), requires_grad=True)

    def f(A):
        w, v = ember.linalg.eig(A)
        return w.abs(), v.abs() ** 2, ember.linalg.eigvals(A).real

    assert ember.autograd.gradcheck(f, (a,), atol=1e-6, rtol=1e-4)
    assert ember.autograd.gradgradcheck(f, (a,), atol=1e-5, rtol=1e-3)


EIG_ERRORS = {
    "eig_int": lambda L: L.linalg.eig(L.ones(3, 3, dtype=L.int64)),
    "eig_bool": lambda L: L.linalg.eig(L.ones(3, 3, dtype=L.bool)),
    "eig_half": lambda L: L.linalg.eig(L.ones(3, 3, dtype=L.float16)),
    "eig_1d": lambda L: L.linalg.eig(L.ones(3)),
    "eig_nonsquare": lambda L: L.linalg.eig(L.ones(3, 2, dtype=L.float64)),
    "eigvals_nonsquare": lambda L: L.linalg.eigvals(L.ones(2, 3)),
    "eigvals_int": lambda L: L.linalg.eigvals(L.ones(3, 3, dtype=L.int64)),
    "eig_nan": lambda L: L.linalg.eig(L.full((2, 3, 3), float("nan"), dtype=L.float64)),
    "eig_out_dtype": lambda L: L.linalg.eig(
        L.eye(3, dtype=L.float64), out=(L.empty(0, dtype=L.complex128), L.empty(0))
    ),
    "eigvals_out_dtype": lambda L: L.linalg.eigvals(
        L.eye(3, dtype=L.float64), out=L.empty(0, dtype=L.float64)
    ),
    "eig_phase_loss": lambda L: (
        L.linalg.eig(L.tensor([[1.0, -2.0], [3.0, 0.0]], requires_grad=True))[1]
        .real.sum()
        .backward()
    ),
}


@needs_torch
@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize("name", list(EIG_ERRORS))
def test_eig_errors_match_torch(name):
    et, em = _errs(EIG_ERRORS[name], ember)
    tt, tm = _errs(EIG_ERRORS[name], torch)
    assert tt is not None
    assert (et, em) == (tt, tm), name


@needs_torch
def test_eig_edge_cases():
    for shape in [(0, 0), (2, 0, 0)]:
        w, V = ember.linalg.eig(ember.ones(*shape))
        tw, tV = torch.linalg.eig(torch.ones(*shape))
        assert (tuple(w.shape), tuple(V.shape)) == (tuple(tw.shape), tuple(tV.shape))
        assert w.dtype == ember.complex64
    # NOTE: torch gives NaN eigenvalues (no error) for a non-finite matrix in eigvals
    a = np.stack([np.eye(2), np.full((2, 2), np.nan)])
    w = _np(ember.linalg.eigvals(ember.tensor(a)))
    np.testing.assert_allclose(w[0], [1, 1])
    assert np.isnan(w[1]).all()
    # out= takes a complex64 tensor for a complex128 result (a same-kind cast)
    o = ember.empty(0, dtype=ember.complex64)
    ember.linalg.eigvals(ember.eye(2, dtype=ember.float64), out=o)
    assert o.dtype == ember.complex64 and tuple(o.shape) == (2,)
    m = ember.empty(2, 4, 4, device="meta")
    w, V = ember.linalg.eig(m)
    assert (w.shape, V.shape, w.dtype, w.device.type) == (
        (2, 4),
        (2, 4, 4),
        ember.complex64,
        "meta",
    )
    assert ember.linalg.eigvals(m).shape == (2, 4)


# ---- complex input -----------------------------------------------------------------------------
CRNG = np.random.default_rng(13)  # its own stream: the table below draws at import time


def _c(*shape, herm=False):
    a = CRNG.standard_normal(shape) + 1j * CRNG.standard_normal(shape)
    return a + np.conj(np.swapaxes(a, -1, -2)) if herm else a


def _abs_svd(L, A):
    U, S, Vh = L.linalg.svd(A, full_matrices=False)
    return S, (U * S.unsqueeze(-2).to(U.dtype)) @ Vh, U.abs(), Vh.abs()


def _abs_eigh(L, A, uplo="L"):
    w, V = L.linalg.eigh(A, UPLO=uplo)
    return w, V.abs()


# name -> fn(lib, A) with phase-invariant outputs, input; compared value by value with torch
COMPLEX = [
    ("svd_tall", _abs_svd, _c(2, 5, 3)),
    ("svd_wide", _abs_svd, _c(3, 5)),
    ("svdvals", lambda L, A: L.linalg.svdvals(A), _c(2, 3, 4)),
    (
        "svd_old",  # torch.svd's V is Vh's conjugate transpose
        lambda L, A: (lambda r: ((r.U * r.S.unsqueeze(-2).to(r.U.dtype)) @ r.V.mH, r.S))(L.svd(A)),
        _c(4, 3),
    ),
    ("eigh", _abs_eigh, _c(2, 4, 4, herm=True)),
    ("eigh_U", lambda L, A: _abs_eigh(L, A, "U"), _c(4, 4)),
    ("eigvalsh", lambda L, A: L.linalg.eigvalsh(A), _c(3, 3, herm=True)),
    ("qr", lambda L, A: tuple(L.linalg.qr(A)), _c(2, 5, 3)),
    ("qr_wide", lambda L, A: tuple(L.linalg.qr(A)), _c(3, 5)),
    ("pinv", lambda L, A: L.linalg.pinv(A), _c(2, 4, 3)),
    ("pinv_hermitian", lambda L, A: L.linalg.pinv(A, hermitian=True), _c(4, 4, herm=True)),
    ("cond", lambda L, A: L.linalg.cond(A), _c(2, 4, 3)),
    ("cond_m2", lambda L, A: L.linalg.cond(A, -2), _c(3, 4)),
    ("eig", lambda L, A: (lambda w, V: (w.abs(), V.abs()))(*L.linalg.eig(A)), _c(2, 3, 3)),
    ("lstsq", lambda L, A: L.linalg.lstsq(A, A[..., :2] * 2 + 1).solution, _c(5, 3)),
    ("householder", lambda L, A: L.linalg.householder_product(A, A[..., 0, :2]), _c(4, 3)),
]


def _complex_loss(outs):
    """A real, phase-invariant scalar of the outputs: sum of |x|^1.5 with output weights."""
    return sum((i + 1) * (o.abs() ** 1.5).sum() for i, o in enumerate(outs))


@needs_torch
@pytest.mark.parametrize("name,fn,a", COMPLEX, ids=[c[0] for c in COMPLEX])
def test_complex_values_and_gradients_match_torch(name, fn, a):
    e, t = _pair(a, requires_grad=True)
    got, want = _flat(fn(ember, e)), _flat(fn(torch, t))
    for g, w in zip(got, want, strict=True):
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1], name
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-9, atol=1e-10, err_msg=name)
    (ge,) = ember.autograd.grad(_complex_loss(got), e)
    (gt,) = torch.autograd.grad(_complex_loss(want), t)
    assert ge.dtype == ember.complex128
    np.testing.assert_allclose(_np(ge), _np(gt), rtol=1e-8, atol=1e-9, err_msg=name)


COMPLEX_GRAD = [c for c in COMPLEX if c[0] not in ("cond_m2", "svd_tall", "eigh")]


@pytest.mark.parametrize("name,fn,a", COMPLEX_GRAD, ids=[c[0] for c in COMPLEX_GRAD])
def test_complex_gradcheck_and_gradgradcheck(name, fn, a):
    x = ember.tensor(a[0] if a.ndim > 2 else a, requires_grad=True)
    herm = name in ("eigh_U", "eigvalsh", "pinv_hermitian")

    def f(A):
        return fn(ember, A + A.mT.conj() if herm else A)

    assert ember.autograd.gradcheck(f, (x,), atol=1e-6, rtol=1e-4)
    assert ember.autograd.gradgradcheck(f, (x,), atol=1e-5, rtol=1e-3)


@needs_torch
def test_complex_rank_cond_and_phase_errors():
    a = _c(3, 4, 4, herm=True)
    a[0] = np.outer(a[0, 0], np.conj(a[0, 0]))
    e, t = _pair(a)
    for kw in ({}, {"hermitian": True}, {"atol": 1.0}):
        got, want = ember.linalg.matrix_rank(e, **kw), torch.linalg.matrix_rank(t, **kw)
        np.testing.assert_array_equal(_np(got), _np(want))
    np.testing.assert_allclose(
        _np(ember.linalg.cond(e[1:], "fro")), _np(torch.linalg.cond(t[1:], "fro")), rtol=1e-9
    )
    assert ember.linalg.svdvals(e).dtype == ember.float64
    # a loss that depends on the vectors' phases has no derivative: torch's errors
    cases = {
        "svd": lambda L, A: L.linalg.svd(A)[0].real.sum(),
        "eigh": lambda L, A: L.linalg.eigh(A)[1].imag.sum(),
        "eig": lambda L, A: L.linalg.eig(A)[1].sum().abs(),
    }
    for name, f in cases.items():
        x, y = _pair(_c(3, 3, herm=name == "eigh"), requires_grad=True)
        pairs = ((ember, x), (torch, y))
        msgs = [_errs(lambda L, z=z, f=f: f(L, z).backward(), L) for L, z in pairs]
        assert msgs[1][0] == "RuntimeError" and msgs[0] == msgs[1], name


@needs_torch
@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_matrix_norm_through_svdvals_twice_differentiable(ord):
    # linalg.matrix_norm's singular-value norms go through svdvals: second order vs torch
    a = _arr(2, 4, 3)
    e, t = _pair(a, requires_grad=True)
    (ge,) = ember.autograd.grad(ember.linalg.matrix_norm(e, ord).sum(), e, create_graph=True)
    (gt,) = torch.autograd.grad(torch.linalg.matrix_norm(t, ord).sum(), t, create_graph=True)
    (gge,) = ember.autograd.grad((ge**2).sum(), e)
    (ggt,) = torch.autograd.grad((gt**2).sum(), t)
    np.testing.assert_allclose(_np(gge), _np(ggt), rtol=1e-8, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("p", [None, "fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2])
def test_complex_cond_every_norm(p):
    a = _c(2, 3, 3)
    e, t = _pair(a, requires_grad=True)
    ce, ct = ember.linalg.cond(e, p), torch.linalg.cond(t, p)
    assert ce.dtype == ember.float64
    np.testing.assert_allclose(_np(ce), _np(ct), rtol=1e-9)
    if p in (None, "nuc", 2, -2):
        (ge,) = ember.autograd.grad(ce.sum(), e)
        (gt,) = torch.autograd.grad(ct.sum(), t)
        np.testing.assert_allclose(_np(ge), _np(gt), rtol=1e-8, atol=1e-10)
    else:  # NOTE: torch 2.13's complex backward here fails (inv_ex's output modified in place)
        x = ember.tensor(a[0], requires_grad=True)
        assert ember.autograd.gradcheck(lambda A: ember.linalg.cond(A, p), (x,), atol=1e-6)
