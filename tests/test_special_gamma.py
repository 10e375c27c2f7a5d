"""The gamma-function family (ember/ops/special_gamma.py, kernels in ember/backend/_gamma.py):
accuracy over wide ranges against torch and mpmath, special values, errors, and the implicit
reparameterization gradient of Gamma samples."""

import numpy as np
import pytest

import ember
from ember.backend import _gamma

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed (pip install torch)")

RNG = np.random.default_rng(1234)
# positive values over 24 decades, the zeros of lgamma, and negative non-integers
WIDE = np.concatenate(
    [
        np.exp(RNG.uniform(-25, 12, 3000)),
        RNG.uniform(1e-6, 4, 2000),
        1 + RNG.uniform(-1e-6, 1e-6, 50),
        2 + RNG.uniform(-1e-6, 1e-6, 50),
        RNG.uniform(-40, 0, 2000),
    ]
)
WIDE = WIDE[WIDE != np.round(WIDE)]


def _mp():
    return pytest.importorskip("mpmath")


@needs_torch
@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_matches_torch_over_a_wide_range(name):
    got = getattr(ember, name)(ember.tensor(WIDE)).numpy()
    want = getattr(torch, name)(torch.from_numpy(WIDE)).numpy()
    # relative 1e-13, with an absolute floor at the zeros of the functions (there both libraries
    # have absolute errors of a few ulps of the terms that cancel)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_accuracy_against_mpmath(name):
    mp = _mp()
    mp.mp.dps = 30
    xs = WIDE[::25]
    ref = mp.loggamma if name == "lgamma" else mp.digamma
    want = np.array([float(mp.re(ref(mp.mpf(float(v))))) for v in xs])
    if name == "lgamma":  # mp.loggamma is log Gamma on the principal branch: take log|Gamma|
        want = np.array([float(mp.log(abs(mp.gamma(mp.mpf(float(v)))))) for v in xs])
    got = getattr(ember, name)(ember.tensor(xs)).numpy()
    near_zero = np.abs(want) < 1e-3
    err = np.abs(got - want) / np.abs(want)
    # away from the negative-axis zeros the relative error is a few ulps; at x = 1 and 2 too
    assert np.max(err[~near_zero | (xs > 0)]) < 1e-13


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_polygamma_against_mpmath(n):
    mp = _mp()
    xs = np.concatenate([RNG.uniform(0.01, 60, 100), RNG.uniform(-8, 0, 100)])
    xs = xs[np.abs(xs - np.round(xs)) > 1e-3]
    want = np.array([float(mp.polygamma(n, float(v))) for v in xs])
    got = ember.polygamma(n, ember.tensor(xs)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("n", [1, 2, 4])
def test_polygamma_matches_torch(n):
    xs = np.concatenate([RNG.uniform(0.01, 60, 300), RNG.uniform(-8, 0, 300)])
    xs = xs[np.abs(xs - np.round(xs)) > 1e-3]
    got = ember.polygamma(n, ember.tensor(xs)).numpy()
    want = torch.polygamma(n, torch.from_numpy(xs)).numpy()
    # torch's trigamma truncates its asymptotic series (~1e-9); its zeta-based n >= 2 is exact
    np.testing.assert_allclose(got, want, rtol=1e-8 if n == 1 else 1e-12)


@needs_torch
def test_special_values_match_torch():
    v = [0.0, -0.0, -1.0, -2.0, -2.5, np.inf, -np.inf, np.nan, 1e-300, 1e306, 3e305, 1.0, 2.0]
    x = np.array(v)
    for name in ("lgamma", "digamma"):
        got = getattr(ember, name)(ember.tensor(x)).numpy()
        want = getattr(torch, name)(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-13, err_msg=name)  # inf/nan exactly
    x = np.array([0.0, 1.0, 2.5, 1e-300, np.inf, 3.5, -2.5])
    got = ember.polygamma(1, ember.tensor(x)).numpy()
    want = torch.polygamma(1, torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-8)


@needs_torch
def test_igamma_matches_torch_and_mpmath():
    a = np.exp(RNG.uniform(-3, 5, 2000))
    x = a * np.exp(RNG.normal(0, 0.7, 2000))
    for name, tname in (("igamma", "gammainc"), ("igammac", "gammaincc")):
        got = getattr(ember, name)(ember.tensor(a), ember.tensor(x)).numpy()
        want = getattr(torch.special, tname)(torch.from_numpy(a), torch.from_numpy(x)).numpy()
        # torch's own error here is ~2e-9 (against mpmath)
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-300)
    mp = _mp()
    want = np.array(
        [
            float(mp.gammainc(float(s), 0, float(t), regularized=True))
            for s, t in zip(a[:200], x[:200])
        ]
    )
    np.testing.assert_allclose(
        ember.igamma(ember.tensor(a[:200]), ember.tensor(x[:200])).numpy(), want, rtol=1e-12
    )
    # limits: P(a, 0) = 0, P(0, x) = 1, P(a, inf) = 1, negative arguments give nan
    sa = np.array([0.0, 0.0, 1.0, 1.0, -1.0, 2.0, np.inf, 2.0])
    sx = np.array([0.0, 1.0, 0.0, np.inf, 1.0, -1.0, 1.0, np.nan])
    for name in ("igamma", "igammac"):
        got = getattr(ember, name)(ember.tensor(sa), ember.tensor(sx)).numpy()
        want = getattr(torch, name)(torch.from_numpy(sa), torch.from_numpy(sx)).numpy()
        np.testing.assert_array_equal(got, want, err_msg=name)


@needs_torch
def test_dtypes_and_integer_inputs_match_torch():
    for dt in ("float32", "float16"):
        x = RNG.uniform(0.1, 8, 50).astype(dt)
        for name in ("lgamma", "digamma"):
            got = getattr(ember, name)(ember.tensor(x))
            want = getattr(torch, name)(torch.from_numpy(x))
            assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
            tol = 1e-5 if dt == "float32" else 2e-3
            np.testing.assert_allclose(
                got.numpy().astype(float), want.numpy().astype(float), rtol=tol, atol=tol
            )
    assert ember.lgamma(ember.tensor([3])).dtype == ember.float32
    assert ember.digamma(ember.tensor([True])).dtype == ember.float32


@needs_torch
def test_mvlgamma_and_backward_match_torch():
    x = RNG.uniform(2.0, 6.0, (4, 3))
    e = ember.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    for p in (1, 2, 5):
        (ge,) = ember.autograd.grad(ember.mvlgamma(e, p).sum(), e)
        (gt,) = torch.autograd.grad(torch.mvlgamma(t, p).sum(), t)
        np.testing.assert_allclose(
            ember.mvlgamma(e, p).detach().numpy(), torch.mvlgamma(t, p).detach().numpy(), rtol=1e-13
        )
        np.testing.assert_allclose(ge.numpy(), gt.numpy(), rtol=1e-12)


@needs_torch
def test_errors_match_torch():
    x = ember.tensor([1.0])
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n\."):
        ember.polygamma(-1, x)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        ember.mvlgamma(x, 0)
    a = ember.tensor([2.0], requires_grad=True)
    y = ember.igamma(a, ember.tensor([1.0]))
    assert type(y.grad_fn).__name__ == "IgammaBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input' is not"):
        y.backward()
    with pytest.raises(NotImplementedError, match="'igammac: input'"):
        ember.igammac(a, ember.tensor([1.0])).backward()


def test_methods_and_inplace_forms():
    x = ember.tensor([0.5, 3.0])
    np.testing.assert_allclose(x.lgamma().numpy(), ember.lgamma(x).numpy())
    np.testing.assert_allclose(x.polygamma(2).numpy(), ember.polygamma(2, x).numpy())
    y = x.clone()
    y.digamma_()
    np.testing.assert_allclose(y.numpy(), ember.digamma(x).numpy())
    y = x.clone()
    y.polygamma_(1)
    np.testing.assert_allclose(y.numpy(), ember.polygamma(1, x).numpy())
    y = x.clone()
    y.igamma_(ember.tensor([1.0, 1.0]))
    np.testing.assert_allclose(y.numpy(), ember.igamma(x, ember.tensor([1.0, 1.0])).numpy())


def test_meta_shapes():
    m = ember.empty(3, 1, device="meta")
    assert ember.lgamma(m).shape == (3, 1) and ember.polygamma(2, m).device.type == "meta"
    assert ember.igamma(m, ember.empty(4, device="meta")).shape == (3, 4)


# ---- the implicit reparameterization gradient of Gamma samples ---------------------------------
def _quantile(a, u):
    """x with P(a, x) = u: Newton steps on log x (float64 arrays)."""
    lx = np.log(a)
    for _ in range(100):
        x = np.exp(lx)
        p = _gamma.gammainc(a, x)
        dlog = np.exp(a * lx - x - _gamma.lgamma(a))  # dP / dlog x
        step = np.clip((p - u) / dlog, -2.0, 2.0)
        lx = lx - step
        if np.max(np.abs(step)) < 1e-13:
            break
    return np.exp(lx)


@pytest.mark.parametrize("alpha", [0.1, 0.5, 1.0, 2.5, 10.0, 100.0, 1000.0])
def test_standard_gamma_grad_is_the_quantile_derivative(alpha):
    # at fixed uniforms u, x(a) = F^-1(u; a); the gradient must be dx/da (central differences)
    u = np.linspace(0.02, 0.98, 25)
    a = np.full_like(u, alpha)
    x = _quantile(a, u)
    h = alpha * 1e-5
    fd = (_quantile(a + h, u) - _quantile(a - h, u)) / (2 * h)
    np.testing.assert_allclose(_gamma.standard_gamma_grad(a, x), fd, rtol=2e-6)


def test_standard_gamma_grad_at_a_equals_one():
    # a = 1 (the exponential), where x = -log(1 - u): tight central differences of the quantile
    u = np.array([0.1, 0.5, 0.9])
    x = -np.log1p(-u)
    h = 1e-6
    fd = (_quantile(np.full(3, 1 + h), u) - _quantile(np.full(3, 1 - h), u)) / (2 * h)
    np.testing.assert_allclose(_gamma.standard_gamma_grad(np.ones(3), x), fd, rtol=1e-6)


@needs_torch
def test_standard_gamma_grad_close_to_torch():
    # torch's gradient is an approximation (a few 1e-4 relative); ember's is exact to ~1e-9
    a = np.repeat([0.3, 1.0, 4.0, 50.0], 50)
    x = RNG.standard_gamma(a)
    got = _gamma.standard_gamma_grad(a, x)
    want = torch._standard_gamma_grad(torch.from_numpy(a), torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-3)
