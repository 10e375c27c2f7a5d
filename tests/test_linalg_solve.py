"""torch.linalg's solvers and their old top-level names (ember/ops/linalg_solve.py) against
torch: values and gradients in float64, gradcheck/gradgradcheck, errors, meta shapes, complex
values, singular input (det's double backward, inv_ex/solve_ex gradients). The LU, LDL and
Cholesky family (ember/ops/linalg_lu.py) is tested in tests/test_linalg_lu.py with these
helpers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed (pip install torch)")

RNG = np.random.default_rng(12)
A = RNG.standard_normal((3, 4, 4))
A1 = RNG.standard_normal((4, 4))
B = RNG.standard_normal((3, 4, 2))
S = A @ A.swapaxes(-1, -2) + 4 * np.eye(4)
WC = A + 4 * np.eye(4)  # well conditioned, for gradcheck


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# (name, fn(lib, *tensors), arrays, differentiable)
CASES = [
    ("inv", lambda L, a: L.linalg.inv(a), (A,), True),
    ("inv_ex", lambda L, a: L.linalg.inv_ex(a), (A,), True),
    ("det", lambda L, a: L.linalg.det(a), (A,), True),
    ("slogdet", lambda L, a: L.linalg.slogdet(a), (A,), True),
    ("logdet", lambda L, a: L.logdet(a), (S,), True),
    ("solve", lambda L, a, b: L.linalg.solve(a, b), (A, B), True),
    ("solve_bcast", lambda L, a, b: L.linalg.solve(a, b), (A1, B), True),
    ("solve_vec", lambda L, a, b: L.linalg.solve(a, b), (A, B[..., 0]), True),
    ("solve_vec1", lambda L, a, b: L.linalg.solve(a, b), (A, B[0, :, 0]), True),
    ("solve_left", lambda L, a, b: L.linalg.solve(a, b, left=False), (A, B.swapaxes(-1, -2)), True),
    ("solve_ex", lambda L, a, b: L.linalg.solve_ex(a, b), (A, B), True),
    ("matrix_power_5", lambda L, a: L.linalg.matrix_power(a, 5), (A,), True),
    ("matrix_power_neg", lambda L, a: L.matrix_power(a, -3), (WC,), True),
    ("matrix_power_0", lambda L, a: L.linalg.matrix_power(a, 0), (A,), False),
    ("matrix_power_1", lambda L, a: L.linalg.matrix_power(a, 1), (A,), True),
    ("matrix_exp", lambda L, a: L.linalg.matrix_exp(a), (A,), True),
    ("matrix_exp_big", lambda L, a: L.linalg.matrix_exp(a), (5 * A,), True),
    ("tensorinv", lambda L, a: L.linalg.tensorinv(a.reshape(4, 2, 2), ind=1), (A1,), True),
    (
        "tensorsolve",
        lambda L, a, b: L.linalg.tensorsolve(a.reshape(2, 2, 2, 2), b.reshape(2, 2)),
        (A1, B[0, :, 0]),
        True,
    ),
    (
        "tensorsolve_dims",
        lambda L, a, b: L.linalg.tensorsolve(a.reshape(2, 2, 4), b.reshape(4), dims=(0, 1)),
        (A1, B[0, :, 0]),
        True,
    ),
    ("vander", lambda L, a: L.linalg.vander(a[0], N=5), (A,), True),
    ("vecdot", lambda L, a, b: L.linalg.vecdot(a, b[:, None, :, 0], dim=-1), (A, B), True),
    ("vecdot_dim", lambda L, a, b: L.linalg.vecdot(a, b[..., :1], dim=-2), (A, B), True),
    ("diagonal", lambda L, a: L.linalg.diagonal(a, offset=1), (A,), True),
    ("diagonal_dims", lambda L, a: L.linalg.diagonal(a, dim1=0, dim2=2), (A,), True),
    ("trace", lambda L, a: L.trace(a), (A1,), True),
    (
        "methods",
        lambda L, a: (
            a.inverse(),
            a.det(),
            a.logdet(),
            a.slogdet()[1],
            a.matrix_power(2),
            a.matrix_exp(),
            a.trace(),
        ),  # fmt: skip
        (S[0],),
        True,
    ),
]


def _tensor(lib, a, grad):
    t = ember.tensor(a) if lib is ember else torch.from_numpy(np.array(a))
    return t.requires_grad_(True) if grad and a.dtype.kind == "f" else t


def _run(lib, fn, arrays, grad):
    args = [_tensor(lib, a, grad) for a in arrays]
    out = fn(lib, *args)
    outs = list(out) if isinstance(out, tuple) else [out]
    vals = [o.detach().numpy() for o in outs]
    grads = []
    if grad:
        diff = [o for o in outs if o.requires_grad]
        weights = [np.cos(np.arange(o.numel()).reshape(tuple(o.shape))) for o in diff]
        loss = sum((o * _tensor(lib, w, False)).sum() for o, w in zip(diff, weights))
        autograd = ember.autograd if lib is ember else torch.autograd
        grads = [g.numpy() for g in autograd.grad(loss, args)]
    return outs, vals, grads


@needs_torch
@pytest.mark.parametrize("name,fn,arrays,grad", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, fn, arrays, grad):
    eo, ev, eg = _run(ember, fn, arrays, grad)
    to, tv, tg = _run(torch, fn, arrays, grad)
    assert len(ev) == len(tv)
    for e, t, x, y in zip(eo, to, ev, tv):
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], name
        assert x.shape == y.shape, name
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-11, err_msg=name)
    for x, y in zip(eg, tg):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-11, err_msg=f"{name} grad")


def test_return_types_and_pivot_dtypes():
    LU, piv = ember.linalg.lu_factor(ember.tensor(A))
    assert type(ember.linalg.lu_factor(ember.tensor(A))).__name__ == "linalg_lu_factor"
    assert piv.dtype == ember.int32 and piv.shape == (3, 4)
    r = ember.linalg.inv_ex(ember.tensor(A))
    assert (r.inverse.shape, r.info.dtype, r.info.shape) == ((3, 4, 4), ember.int32, (3,))
    assert type(ember.slogdet(ember.tensor(A1))).__name__ == "slogdet"
    assert type(ember.linalg.slogdet(ember.tensor(A1))).__name__ == "linalg_slogdet"
    assert ember.return_types.linalg_lu._fields == ("P", "L", "U")
    assert ember.return_types.triangular_solve._fields == ("solution", "cloned_coefficient")


# ---- gradcheck and gradgradcheck (ember alone) ------------------------------------------------
def _wc(lib, x):
    return x + 3 * lib.eye(x.shape[-1], dtype=x.dtype)


GRAD = [
    ("inv", lambda a: ember.linalg.inv(_wc(ember, a)), ((2, 3, 3),)),
    ("det", lambda a: ember.linalg.det(a), ((2, 3, 3),)),
    ("slogdet", lambda a: ember.linalg.slogdet(_wc(ember, a)).logabsdet, ((2, 3, 3),)),
    ("solve", lambda a, b: ember.linalg.solve(_wc(ember, a), b), ((2, 3, 3), (3, 2))),
    (
        "solve_right",
        lambda a, b: ember.linalg.solve(_wc(ember, a), b, left=False),
        ((3, 3), (2, 2, 3)),
    ),
    ("matrix_exp", lambda a: ember.linalg.matrix_exp(a), ((2, 3, 3),)),
    ("matrix_power", lambda a: ember.linalg.matrix_power(_wc(ember, a), -2), ((3, 3),)),
    (
        "tensorinv",
        lambda a: ember.linalg.tensorinv(_wc(ember, a).reshape(2, 2, 4), ind=2),
        ((4, 4),),
    ),
    ("vander", lambda x: ember.linalg.vander(x, N=4), ((2, 3),)),
    ("vecdot", lambda x, y: ember.linalg.vecdot(x, y), ((2, 3), (3,))),
]


@pytest.mark.parametrize("name,fn,shapes", GRAD, ids=[g[0] for g in GRAD])
def test_gradcheck_and_gradgradcheck(name, fn, shapes):
    rng = np.random.default_rng(len(name))
    xs = tuple(
        ember.tensor(rng.uniform(-1, 1, s)).requires_grad_(True) for s in shapes
    )  # fmt: skip
    assert ember.autograd.gradcheck(fn, xs, atol=1e-6, rtol=1e-4)
    assert ember.autograd.gradgradcheck(fn, xs, atol=1e-5, rtol=1e-3)


# ---- singular and failing input ---------------------------------------------------------------
SING = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])


@needs_torch
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a: L.linalg.inv_ex(a),
        lambda L, a: L.linalg.solve_ex(a, L.ones(2, 2, dtype=a.dtype)),
        lambda L, a: L.linalg.slogdet(a),
        lambda L, a: L.linalg.det(a),
    ],
)
def test_singular_results_match_torch(fn):
    e = fn(ember, ember.tensor(SING))
    t = fn(torch, torch.from_numpy(SING.copy()))
    for x, y in zip(e if isinstance(e, tuple) else (e,), t if isinstance(t, tuple) else (t,)):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


@needs_torch
def test_det_gradient_at_singular_matrix():
    for a in (np.zeros((2, 3, 3)), np.ones((3, 3))):
        e = ember.tensor(a).requires_grad_(True)
        t = torch.from_numpy(a.copy()).requires_grad_(True)
        ember.linalg.det(e).sum().backward()
        torch.linalg.det(t).sum().backward()
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), atol=1e-12)


def test_det_gradient_at_rank_deficient_matrix_is_the_cofactor_matrix():
    # NOTE: deliberate difference: torch 2.13 gives 0 here and fails its own gradcheck; the
    # derivative of det at a rank n-1 matrix is its cofactor matrix
    a = ember.tensor(SING).requires_grad_(True)
    ember.linalg.det(a).sum().backward()
    np.testing.assert_allclose(a.grad.numpy()[1], [[4.0, -2.0], [-2.0, 1.0]], rtol=1e-12)
    assert ember.autograd.gradcheck(ember.linalg.det, (ember.tensor(SING[1]).requires_grad_(),))


def _i(a):
    return np.asarray(a, dtype=np.int64)


ERRORS = [
    lambda L: L.linalg.inv(L.from_numpy(SING)),
    lambda L: L.linalg.inv(L.from_numpy(SING[1])),
    lambda L: L.inverse(L.from_numpy(SING[1])),
    lambda L: L.linalg.inv(L.zeros(2, 3)),
    lambda L: L.linalg.inv(L.zeros(3)),
    lambda L: L.linalg.inv(L.from_numpy(_i(SING))),
    lambda L: L.linalg.inv(L.eye(2).half()),
    lambda L: L.linalg.inv_ex(L.from_numpy(SING), check_errors=True),
    lambda L: L.linalg.solve(L.from_numpy(SING), L.ones(2, 2, dtype=L.float64)),
    lambda L: L.linalg.solve(L.from_numpy(SING[1]), L.ones(2, dtype=L.float64)),
    lambda L: L.linalg.solve(L.eye(2), L.ones(3)),
    lambda L: L.linalg.solve(L.eye(2), L.ones(3, 2)),
    lambda L: L.linalg.solve(L.eye(2), L.ones(2, 3), left=False),
    lambda L: L.linalg.solve(L.eye(2), L.ones(2, dtype=L.float64)),
    lambda L: L.linalg.solve(L.zeros(2, 3), L.ones(2)),
    lambda L: L.linalg.solve(L.eye(2, dtype=L.int64), L.ones(2, dtype=L.int64)),
    lambda L: L.linalg.solve(L.eye(2).expand(3, 2, 2), L.ones(4, 2, 1)),
    lambda L: L.linalg.solve_ex(
        L.from_numpy(SING), L.ones(2, 1, dtype=L.float64), check_errors=True
    ),
    lambda L: L.linalg.det(L.zeros(2, 3)),
    lambda L: L.det(L.zeros(2, 2, dtype=L.int64)),
    lambda L: L.linalg.slogdet(L.zeros(2, 3)),
    lambda L: L.logdet(L.zeros(2, 3)),
    lambda L: L.linalg.matrix_power(L.zeros(2, 3), 2),
    lambda L: L.linalg.matrix_power(L.eye(2), 2.0),
    lambda L: L.linalg.matrix_power(L.eye(2, dtype=L.int64), -1),
    lambda L: L.linalg.matrix_exp(L.zeros(2, 3)),
    lambda L: L.linalg.matrix_exp(L.eye(2, dtype=L.int64)),
    lambda L: L.linalg.matrix_exp(L.zeros(3)),
    lambda L: L.linalg.tensorinv(L.eye(4), ind=0),
    lambda L: L.linalg.tensorinv(L.ones(4, 3), ind=1),
    lambda L: L.linalg.tensorsolve(L.eye(6).reshape(2, 3, 6), L.ones(2, 3), dims=(0,)),
    lambda L: L.linalg.vander(L.tensor([True, False])),
    lambda L: L.linalg.vander(L.tensor([1.0, 2.0]), N=1),
    lambda L: L.linalg.vecdot(L.ones(2, 3), L.ones(3, dtype=L.float64)),
    lambda L: L.linalg.vecdot(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    lambda L: L.trace(L.ones(2, 3, 4)),
    lambda L: L.trace(L.ones(2, dtype=L.bool)),
]


@needs_torch
@pytest.mark.parametrize("fn", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_match_torch(fn):
    with pytest.raises(Exception) as t:
        fn(torch)
    with pytest.raises(Exception) as e:
        fn(ember)
    assert type(e.value).__name__.lstrip("_") == type(t.value).__name__.lstrip("_")
    assert isinstance(e.value, RuntimeError) == isinstance(t.value, RuntimeError)
    assert str(e.value) == str(t.value)


def test_linalg_error_is_ember_linalgerror():
    with pytest.raises(ember.linalg.LinAlgError, match=r"\(Batch element 1\): The diagonal"):
        ember.linalg.inv(ember.tensor(SING))


# ---- meta shapes -------------------------------------------------------------------------------
META = [
    lambda L, a, b: L.linalg.inv(a),
    lambda L, a, b: L.linalg.inv_ex(a),
    lambda L, a, b: L.linalg.det(a),
    lambda L, a, b: L.linalg.slogdet(a),
    lambda L, a, b: L.logdet(a),
    lambda L, a, b: L.linalg.solve(a, b),
    lambda L, a, b: L.linalg.solve(a, b[..., 0]),
    lambda L, a, b: L.linalg.solve_ex(a, b),
    lambda L, a, b: L.linalg.matrix_exp(a),
    lambda L, a, b: L.linalg.matrix_power(a, 3),
    lambda L, a, b: L.linalg.vecdot(a, b[..., :1], dim=-2),
    lambda L, a, b: L.linalg.vander(b, N=3),
]


@pytest.mark.parametrize("fn", META, ids=[str(i) for i in range(len(META))])
def test_meta_shapes(fn):
    want = fn(ember, ember.tensor(S), ember.tensor(B))
    got = fn(ember, ember.tensor(S, device="meta"), ember.tensor(B, device="meta"))
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, want):
        assert g.device.type == "meta"
        assert (g.shape, g.dtype) == (w.shape, w.dtype)


@pytest.mark.parametrize("dtype", [ember.float64, ember.complex128])
def test_meta_shapes_slogdet_and_inverse(dtype):
    a = ember.tensor(S).to(dtype)
    for fn in (ember.linalg.slogdet, ember.linalg.inv_ex, ember.logdet):
        want = fn(a)
        got = fn(a.to("meta"))
        got, want = (x if isinstance(x, tuple) else (x,) for x in (got, want))
        for g, w in zip(got, want):
            assert (g.device.type, g.shape, g.dtype) == ("meta", w.shape, w.dtype)


# ---- singular input: graphs and second derivatives, as torch ----------------------------------
def _both():
    return ((ember, ember.tensor), (torch, lambda x: torch.from_numpy(np.array(x))))


@needs_torch
@pytest.mark.parametrize("which", ["inv_ex", "solve_ex", "solve_ex_right"])
def test_ex_gradients_with_a_singular_batch_element_match_torch(which):
    # NOTE: matches torch: a singular element keeps its graph (its gradient is inf/nan)
    res = []
    for L, conv in _both():
        a = conv(SING).requires_grad_(True)
        if which == "inv_ex":
            r = L.linalg.inv_ex(a).inverse
        elif which == "solve_ex":
            r = L.linalg.solve_ex(a, L.ones(2, 2, 1, dtype=a.dtype)).result
        else:
            r = L.linalg.solve_ex(a, L.ones(2, 3, 2, dtype=a.dtype), left=False).result
        assert r.requires_grad
        (g,) = L.autograd.grad((r * conv(np.cos(np.arange(r.numel())).reshape(r.shape))).sum(), a)
        res.append((r.detach().numpy(), g.numpy()))
    (er, eg), (tr, tg) = res
    np.testing.assert_array_equal(er, tr)
    np.testing.assert_allclose(eg, tg, rtol=1e-12)


DET_SINGULAR = [
    ("rank1_2x2", SING[1]),
    ("rank2_3x3", np.arange(1.0, 10.0).reshape(3, 3)),
    ("batch_with_identity", SING),
    ("zeros_rank0", np.zeros((3, 3))),  # nan second derivative, as torch (repeated zero s)
]


@needs_torch
@pytest.mark.parametrize("name,a", DET_SINGULAR, ids=[d[0] for d in DET_SINGULAR])
def test_det_double_backward_at_singular_matrix_matches_torch(name, a):
    res = []
    for L, conv in _both():
        x = conv(a).requires_grad_(True)
        (g,) = L.autograd.grad(L.linalg.det(x).sum(), x, create_graph=True)
        w = conv(np.cos(np.arange(a.size)).reshape(a.shape))
        (gg,) = L.autograd.grad((g * w).sum(), x)
        res.append((g.detach().numpy(), gg.numpy()))
    (eg, egg), (tg, tgg) = res
    np.testing.assert_allclose(eg, tg, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(egg, tgg, rtol=1e-9, atol=1e-12)


def test_det_gradgradcheck_at_singular_matrix():
    a = ember.tensor(np.arange(1.0, 10.0).reshape(3, 3)).requires_grad_(True)
    assert ember.autograd.gradgradcheck(ember.linalg.det, (a,))


# ---- complex values ---------------------------------------------------------------------------
def _c(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


CA = _c((2, 4, 4), 1) + 3 * np.eye(4)
CB = _c((2, 4, 2), 2)
CV = _c((2, 4), 3)
COMPLEX = [
    ("inv", lambda L, a, b, v: L.linalg.inv(a)),
    ("inverse", lambda L, a, b, v: L.inverse(a)),
    ("inv_ex", lambda L, a, b, v: L.linalg.inv_ex(a)),
    ("det", lambda L, a, b, v: L.linalg.det(a)),
    ("top_det", lambda L, a, b, v: L.det(a)),
    ("slogdet", lambda L, a, b, v: L.linalg.slogdet(a)),
    ("top_slogdet", lambda L, a, b, v: L.slogdet(a)),
    ("logdet", lambda L, a, b, v: L.logdet(a)),
    ("solve", lambda L, a, b, v: L.linalg.solve(a, b)),
    ("solve_right", lambda L, a, b, v: L.linalg.solve(a, b.mT, left=False)),
    ("solve_vec", lambda L, a, b, v: L.linalg.solve(a, v)),
    ("solve_ex", lambda L, a, b, v: L.linalg.solve_ex(a, b)),
    ("matrix_power", lambda L, a, b, v: L.linalg.matrix_power(a, 3)),
    ("matrix_power_neg", lambda L, a, b, v: L.matrix_power(a, -2)),
    ("matrix_power_0", lambda L, a, b, v: L.linalg.matrix_power(a, 0)),
    ("matrix_exp", lambda L, a, b, v: L.linalg.matrix_exp(a)),
    ("tensorinv", lambda L, a, b, v: L.linalg.tensorinv(a[0].reshape(4, 2, 2), ind=1)),
    (
        "tensorsolve",
        lambda L, a, b, v: L.linalg.tensorsolve(a[0].reshape(2, 2, 4), v[0].reshape(2, 2)),
    ),
    ("vander", lambda L, a, b, v: L.linalg.vander(v, N=3)),
    ("vecdot", lambda L, a, b, v: L.linalg.vecdot(v, v[0])),
    ("diagonal", lambda L, a, b, v: L.linalg.diagonal(a)),
    ("trace", lambda L, a, b, v: L.trace(a[0])),
    (
        "methods",
        lambda L, a, b, v: (
            a[0].inverse(),
            a[0].det(),
            a[0].logdet(),
            a[0].slogdet()[1],
            a[0].matrix_power(2),
            a[0].matrix_exp(),
            a[0].trace(),
        ),  # fmt: skip
    ),
]


def complex_parity(fn, arrays, dtype):
    """Values, dtypes and shapes of ``fn(lib, *tensors)`` for complex inputs, ember vs torch."""
    res = []
    for L, conv in _both():
        out = fn(L, *[conv(x.astype(dtype)) for x in arrays])
        res.append(out if isinstance(out, tuple) else (out,))
    tol = 1e-9 if dtype == np.complex128 else 1e-4
    assert len(res[0]) == len(res[1])
    for e, t in zip(*res):
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(e.numpy(), t.resolve_conj().numpy(), rtol=tol, atol=tol)


@needs_torch
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("name,fn", COMPLEX, ids=[c[0] for c in COMPLEX])
def test_complex_values_match_torch(name, fn, dtype):
    complex_parity(fn, (CA, CB, CV), dtype)
