"""torch.linalg's LU, LDL and Cholesky factorizations, the solves from their factors and the
old top-level names (ember/ops/linalg_lu.py), and linalg.solve_triangular (ember/linalg.py),
against torch: values and gradients in float64, gradcheck/gradgradcheck, errors, meta shapes,
complex values. Shared inputs and helpers come from tests/test_linalg_solve.py."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from tests.test_linalg_solve import (
    A1,
    CA,
    CB,
    SING,
    WC,
    A,
    B,
    S,
    _quiet,
    _run,
    _wc,
    complex_parity,
    needs_torch,
    torch,
)

# (name, fn(lib, *tensors), arrays, differentiable)
CASES = [
    ("lu_factor", lambda L, a: L.linalg.lu_factor(a), (A,), True),
    ("lu_factor_wide", lambda L, a: L.linalg.lu_factor(a), (A[..., :3, :],), True),
    ("lu_factor_tall", lambda L, a: L.linalg.lu_factor(a), (A[..., :3],), True),
    ("lu_factor_ex", lambda L, a: L.linalg.lu_factor_ex(a), (A,), True),
    ("lu", lambda L, a: L.linalg.lu(a), (A,), True),
    ("lu_wide", lambda L, a: L.linalg.lu(a), (A[..., :3, :],), True),
    ("lu_tall", lambda L, a: L.linalg.lu(a), (A[..., :3],), True),
    ("torch_lu", lambda L, a: _quiet(L.lu, a, get_infos=True), (A,), True),
    ("lu_solve", lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), (A, B), True),
    (
        "lu_solve_adjoint",
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
        (A, B),
        True,
    ),
    (
        "lu_solve_right",
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT, left=False),
        (A, B),
        True,
    ),
    (
        "lu_solve_right_adjoint",
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT, left=False, adjoint=True),
        (A, B),
        True,
    ),
    ("lu_solve_bcast", lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), (A1, B), True),
    ("torch_lu_solve", lambda L, a, b: _quiet(L.lu_solve, b, *L.linalg.lu_factor(a)), (A, B), True),
    ("lu_unpack", lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)), (A,), True),
    (
        "lu_unpack_flags",
        lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a), unpack_data=False)[0],
        (A[..., :3],),
        False,
    ),
    ("ldl_factor", lambda L, a: L.linalg.ldl_factor(a), (S - 6 * np.eye(4),), False),
    ("ldl_factor_ex", lambda L, a: L.linalg.ldl_factor_ex(a, hermitian=True), (S,), False),
    (
        "ldl_solve",
        lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a), b),
        (S - 6 * np.eye(4), B),
        False,
    ),
    ("cholesky_ex", lambda L, a: L.linalg.cholesky_ex(a), (S,), True),
    ("cholesky_ex_upper", lambda L, a: L.linalg.cholesky_ex(a, upper=True), (S,), True),
    ("cholesky_ex_fail", lambda L, a: L.linalg.cholesky_ex(a), (S - 8 * np.eye(4),), False),
    (
        "cholesky_solve",
        lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a)),
        (S, B),
        True,
    ),
    (
        "cholesky_solve_upper",
        lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a, upper=True), upper=True),
        (S, B),
        True,
    ),
    ("cholesky_inverse", lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)), (S,), True),
    ("triangular_solve", lambda L, a, b: _quiet(L.triangular_solve, b, a), (WC, B), True),
    (
        "triangular_solve_t",
        lambda L, a, b: _quiet(L.triangular_solve, b, a, upper=False, transpose=True),
        (WC, B),
        True,
    ),
    (
        "triangular_solve_bcast",
        lambda L, a, b: _quiet(L.triangular_solve, b, a, unitriangular=True),
        (A1, B),
        True,
    ),
    (
        "solve_triangular_2d_A",
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False),
        (WC[0], B),
        True,
    ),
    (
        "solve_triangular_unit",
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True, unitriangular=True),
        (A, B),
        True,
    ),
    (
        "solve_triangular_right",
        lambda L, a, b: L.linalg.solve_triangular(a, b.mT, upper=True, left=False),
        (WC[:1], B),
        True,
    ),
]


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
    assert ember.return_types.linalg_lu._fields == ("P", "L", "U")
    assert ember.return_types.triangular_solve._fields == ("solution", "cloned_coefficient")


# ---- gradcheck and gradgradcheck (ember alone) ------------------------------------------------
GRAD = [
    ("lu_factor", lambda a: ember.linalg.lu_factor(_wc(ember, a)).LU, ((2, 3, 3),)),
    ("lu_factor_wide", lambda a: ember.linalg.lu_factor(a).LU, ((2, 4),)),
    ("lu_factor_tall", lambda a: ember.linalg.lu_factor(a).LU, ((4, 2),)),
    ("lu", lambda a: ember.linalg.lu(a)[1:], ((3, 3),)),
    (
        "lu_solve",
        lambda a, b: ember.linalg.lu_solve(*ember.linalg.lu_factor(_wc(ember, a)), b, adjoint=True),
        ((3, 3), (2, 3, 2)),
    ),
    (
        "cholesky_solve",
        lambda a, b: ember.cholesky_solve(
            b, ember.linalg.cholesky(a @ a.mT + 3 * ember.eye(3, dtype=a.dtype))
        ),  # fmt: skip
        ((3, 3), (3, 2)),
    ),
    (
        "solve_triangular_2d_A",
        lambda a, b: ember.linalg.solve_triangular(_wc(ember, a), b, upper=True),
        ((3, 3), (2, 3, 2)),
    ),
]


@pytest.mark.parametrize("name,fn,shapes", GRAD, ids=[g[0] for g in GRAD])
def test_gradcheck_and_gradgradcheck(name, fn, shapes):
    rng = np.random.default_rng(len(name))
    xs = tuple(
        ember.tensor(rng.uniform(-1, 1, s)).requires_grad_(True) for s in shapes
    )  # fmt: skip
    assert ember.autograd.gradcheck(fn, xs, atol=1e-6, rtol=1e-4)
    assert ember.autograd.gradgradcheck(fn, xs, atol=1e-5, rtol=1e-3)


def test_ldl_has_no_derivative():
    a = ember.tensor(S[0]).requires_grad_(True)
    LD, _ = ember.linalg.ldl_factor(a)
    with pytest.raises(RuntimeError, match="derivative for 'linalg_ldl_factor_ex' is not"):
        LD.sum().backward()


# ---- singular and failing input ---------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "fn",
    [
        lambda L, a: L.linalg.lu_factor_ex(a),
        lambda L, a: L.linalg.ldl_factor_ex(a),
        lambda L, a: L.linalg.cholesky_ex(a),
        lambda L, a: L.linalg.cholesky_ex(a, upper=True),
        lambda L, a: _quiet(L.lu, a[1]),
        # NOTE: matches torch: a zero on the diagonal gives inf/nan, not an error
        lambda L, a: L.linalg.solve_triangular(a, L.ones(2, 2, 1, dtype=a.dtype), upper=False),
        lambda L, a: L.linalg.solve_triangular(a[1] - 1, L.ones(2, 3, dtype=a.dtype), upper=True),
    ],
)
def test_singular_results_match_torch(fn):
    e = fn(ember, ember.tensor(SING))
    t = fn(torch, torch.from_numpy(SING.copy()))
    for x, y in zip(e if isinstance(e, tuple) else (e,), t if isinstance(t, tuple) else (t,)):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


ERRORS = [
    lambda L: L.linalg.lu_factor(L.from_numpy(SING)),
    lambda L: L.linalg.lu_factor(L.from_numpy(SING[1])),
    lambda L: L.linalg.lu_factor_ex(L.from_numpy(SING), check_errors=True),
    lambda L: L.linalg.lu_factor(L.zeros(3)),
    lambda L: L.linalg.lu_factor(L.eye(2), pivot=False),
    lambda L: L.linalg.lu_factor(L.eye(2, dtype=L.int64)),
    lambda L: L.linalg.lu(L.zeros(3)),
    lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(2)), L.ones(3, 1)),
    lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(2)), L.ones(1, 3), left=False),
    lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(2)), L.ones(2)),
    lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(2)), L.ones(2, 1, dtype=L.float64)),
    lambda L: L.linalg.ldl_factor(L.zeros(2, 3)),
    lambda L: L.linalg.ldl_factor(L.eye(2, dtype=L.int64)),
    lambda L: L.linalg.ldl_solve(*L.linalg.ldl_factor(L.eye(2)), L.ones(3, 1)),
    lambda L: L.linalg.cholesky_ex(L.from_numpy(-SING), check_errors=True),
    lambda L: L.linalg.cholesky_ex(L.zeros(2, 3)),
    lambda L: L.cholesky_solve(L.ones(2), L.eye(2)),
    lambda L: L.cholesky_solve(L.ones(3, 1), L.eye(2)),
    lambda L: L.cholesky_solve(L.ones(2, 1, dtype=L.float64), L.eye(2)),
    lambda L: L.cholesky_inverse(L.zeros(2, 3)),
    lambda L: L.cholesky_inverse(L.zeros(3)),
    lambda L: _quiet(L.triangular_solve, L.ones(2), L.eye(2)),
    lambda L: _quiet(L.triangular_solve, L.ones(3, 1), L.eye(2)),
    lambda L: L.linalg.solve_triangular(L.eye(2).half(), L.ones(2, 1).half(), upper=True),
    lambda L: L.linalg.solve_triangular(L.eye(2, dtype=L.int64), L.ones(2, 1), upper=True),
    lambda L: L.linalg.solve_triangular(L.eye(2), L.ones(3, 1), upper=True),
    lambda L: L.linalg.solve_triangular(L.eye(2), L.ones(2), upper=True),
    lambda L: L.linalg.solve_triangular(L.eye(2), L.ones(2, 3), upper=True, left=False),
    lambda L: L.linalg.solve_triangular(L.ones(2, 3, dtype=L.int64), L.ones(2, 1), upper=True),
    lambda L: L.linalg.solve_triangular(L.eye(2, dtype=L.bool), L.ones(2, 1), upper=True),
    lambda L: L.linalg.solve_triangular(L.eye(2).bfloat16(), L.ones(2, 1), upper=True),
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


@pytest.mark.parametrize(
    "fn,message",
    [
        (lambda: ember.lu(ember.eye(2)), "torch.lu is deprecated"),
        (lambda: ember.eye(2).lu(), "torch.lu is deprecated"),
        (
            lambda: ember.lu_solve(ember.ones(2, 1), *ember.linalg.lu_factor(ember.eye(2))),
            "torch.lu_solve is deprecated",
        ),  # fmt: skip
        (
            lambda: ember.triangular_solve(ember.ones(2, 1), ember.eye(2)),
            "torch.triangular_solve is deprecated",
        ),  # fmt: skip
    ],
)
def test_deprecated_names_warn(fn, message):
    with pytest.warns(UserWarning, match=message):
        fn()


# ---- meta shapes -------------------------------------------------------------------------------
META = [
    lambda L, a, b: L.linalg.lu_factor_ex(a),
    lambda L, a, b: L.linalg.lu_factor_ex(a[..., :3]),
    lambda L, a, b: L.linalg.ldl_factor_ex(a),
    lambda L, a, b: L.linalg.ldl_solve(*L.linalg.ldl_factor(a), b),
    lambda L, a, b: L.linalg.cholesky_ex(a),
    lambda L, a, b: L.cholesky_solve(b, a),
    lambda L, a, b: L.lu_unpack(*L.linalg.lu_factor(a)),
    lambda L, a, b: L.linalg.lu(a[..., :3]),
    lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
    lambda L, a, b: L.linalg.solve_triangular(a[0], b, upper=True),
    lambda L, a, b: L.linalg.solve_triangular(a, b[0], upper=False, unitriangular=True),
    lambda L, a, b: L.linalg.solve_triangular(a, b.abs().int().mT, upper=False, left=False),
]


@pytest.mark.parametrize("dtype", [ember.float64, ember.complex128])
@pytest.mark.parametrize("fn", META, ids=[str(i) for i in range(len(META))])
def test_meta_shapes(fn, dtype):
    a, b = ember.tensor(S).to(dtype), ember.tensor(B).to(dtype)
    want = fn(ember, a, b)
    got = fn(ember, a.to("meta"), b.to("meta"))
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, want):
        assert g.device.type == "meta"
        assert (g.shape, g.dtype) == (w.shape, w.dtype)


# ---- complex values ---------------------------------------------------------------------------
CH = CA @ CA.conj().swapaxes(-1, -2) + 4 * np.eye(4)  # Hermitian positive-definite
CS = CA + CA.swapaxes(-1, -2)  # complex symmetric (not Hermitian)


def _lu(L, a):
    return L.linalg.lu_factor(a)


COMPLEX = [
    ("lu_factor", lambda L, a, b, h, s: L.linalg.lu_factor(a)),
    ("lu_factor_ex", lambda L, a, b, h, s: L.linalg.lu_factor_ex(a)),
    ("lu", lambda L, a, b, h, s: L.linalg.lu(a)),
    ("lu_wide", lambda L, a, b, h, s: L.linalg.lu(a[..., :3, :])),
    ("top_lu", lambda L, a, b, h, s: _quiet(L.lu, a, get_infos=True)),
    ("lu_unpack", lambda L, a, b, h, s: L.lu_unpack(*_lu(L, a))),
    ("lu_solve", lambda L, a, b, h, s: L.linalg.lu_solve(*_lu(L, a), b)),
    ("lu_solve_adjoint", lambda L, a, b, h, s: L.linalg.lu_solve(*_lu(L, a), b, adjoint=True)),
    ("lu_solve_right", lambda L, a, b, h, s: L.linalg.lu_solve(*_lu(L, a), b.mT, left=False)),
    (
        "lu_solve_right_adjoint",
        lambda L, a, b, h, s: L.linalg.lu_solve(*_lu(L, a), b.mT, left=False, adjoint=True),
    ),
    ("top_lu_solve", lambda L, a, b, h, s: _quiet(L.lu_solve, b, *_lu(L, a))),
    ("ldl_factor", lambda L, a, b, h, s: L.linalg.ldl_factor(s)),
    ("ldl_factor_hermitian", lambda L, a, b, h, s: L.linalg.ldl_factor(h, hermitian=True)),
    ("ldl_factor_ex", lambda L, a, b, h, s: L.linalg.ldl_factor_ex(s)),
    ("ldl_solve", lambda L, a, b, h, s: L.linalg.ldl_solve(*L.linalg.ldl_factor(s), b)),
    (
        "ldl_solve_hermitian",
        lambda L, a, b, h, s: L.linalg.ldl_solve(
            *L.linalg.ldl_factor(h, hermitian=True), b, hermitian=True
        ),  # fmt: skip
    ),
    ("cholesky", lambda L, a, b, h, s: L.linalg.cholesky(h)),
    ("cholesky_upper", lambda L, a, b, h, s: L.linalg.cholesky(h, upper=True)),
    ("cholesky_ex_upper", lambda L, a, b, h, s: L.linalg.cholesky_ex(h, upper=True)),
    (
        "cholesky_ex_fail_upper",
        lambda L, a, b, h, s: L.linalg.cholesky_ex(h - 30 * L.eye(4, dtype=h.dtype), upper=True),
    ),
    ("cholesky_solve", lambda L, a, b, h, s: L.cholesky_solve(b, L.linalg.cholesky(h))),
    (
        "cholesky_solve_upper",
        lambda L, a, b, h, s: L.cholesky_solve(b, L.linalg.cholesky(h, upper=True), upper=True),
    ),
    ("cholesky_inverse", lambda L, a, b, h, s: L.cholesky_inverse(L.linalg.cholesky(h))),
    ("triangular_solve", lambda L, a, b, h, s: _quiet(L.triangular_solve, b, a)),
    (
        "triangular_solve_t",
        lambda L, a, b, h, s: _quiet(L.triangular_solve, b, a, upper=False, transpose=True),
    ),
    ("solve_triangular", lambda L, a, b, h, s: L.linalg.solve_triangular(a, b, upper=True)),
    (
        "solve_triangular_right_unit",
        lambda L, a, b, h, s: L.linalg.solve_triangular(
            a, b.mT, upper=False, left=False, unitriangular=True
        ),  # fmt: skip
    ),
    (
        "solve_triangular_2d_A",
        lambda L, a, b, h, s: L.linalg.solve_triangular(a[0], b, upper=False),
    ),
]


@needs_torch
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("name,fn", COMPLEX, ids=[c[0] for c in COMPLEX])
def test_complex_values_match_torch(name, fn, dtype):
    complex_parity(fn, (CA, CB, CH, CS), dtype)
