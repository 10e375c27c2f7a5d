"""The rest of torch.distributions against torch: the distributions added with the transforms
(log_prob, entropy, moments, cdf/icdf, reprs, gradients in float64 at 1e-9), every transform
(forward, inverse, log-Jacobian, shapes, caching), biject_to/transform_to, the KL pairs torch
registers for them, samples checked by their moments, rsample gradients by gradcheck, expand,
and validation errors with torch's messages."""

import math
import warnings

import numpy as np
import pytest

import ember
import ember.distributions as ED
from ember.distributions import constraints as EC
from ember.distributions import transforms as ETR

try:
    import torch
    import torch.distributions as TD
    from torch.distributions import constraints as TC
    from torch.distributions import transforms as TTR
except ImportError:  # pragma: no cover - CI installs torch
    torch = TD = TC = TTR = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed (pip install torch)")

RTOL, ATOL = 1e-9, 1e-11
RNG = np.random.default_rng(11)


def _pos(*shape, lo=0.3, hi=3.0):
    return RNG.uniform(lo, hi, shape)


def _simplex(*shape):
    p = RNG.uniform(0.05, 1.0, shape)
    return p / p.sum(-1, keepdims=True)


def _spd(*batch, n=3):
    m = RNG.normal(size=batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _lkj_values(s):
    torch.manual_seed(int(RNG.integers(1 << 30)))
    v = TD.LKJCholesky(s[-1], 1.5).sample(s[:-2]).double().numpy()
    # renormalize the float32 rows so that they pass the float64 unit-norm check
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _wishart_values(s):
    return np.linalg.inv(_spd(*s[:-2], n=s[-1])) * 5


# name -> (parameters: arrays become float64 tensors, other values pass as they are;
#          a value sampler given batch_shape + event_shape)
CASES = {
    "Binomial": (
        lambda: {"total_count": np.full((4, 3), 10.0), "probs": RNG.uniform(0.05, 0.95, (4, 3))},
        lambda s: RNG.integers(0, 11, s).astype(float),
    ),
    "Binomial_logits": (
        lambda: {"total_count": np.full((3,), 7.0), "logits": RNG.normal(size=(2, 3))},
        lambda s: RNG.integers(0, 8, s).astype(float),
    ),
    "Cauchy": (
        lambda: {"loc": RNG.normal(size=(4, 3)), "scale": _pos(3)},
        lambda s: RNG.normal(size=s) * 3,
    ),
    "Chi2": (lambda: {"df": _pos(4, 3, hi=8)}, lambda s: _pos(*s, lo=0.05, hi=6)),
    "ContinuousBernoulli": (
        lambda: {"probs": np.array([[0.05, 0.3, 0.4995], [0.5, 0.5008, 0.9]])},
        lambda s: RNG.uniform(0.01, 0.99, s),
    ),
    "ContinuousBernoulli_logits": (
        lambda: {"logits": RNG.normal(size=(2, 3)) * 2},
        lambda s: RNG.uniform(0.01, 0.99, s),
    ),
    "FisherSnedecor": (
        lambda: {"df1": _pos(4, 3, hi=8), "df2": _pos(4, 3, lo=1, hi=9)},
        lambda s: _pos(*s, lo=0.05, hi=4),
    ),
    "Geometric": (
        lambda: {"probs": RNG.uniform(0.05, 0.95, (4, 3))},
        lambda s: RNG.integers(0, 6, s).astype(float),
    ),
    "Geometric_logits": (
        lambda: {"logits": RNG.normal(size=(4, 3))},
        lambda s: RNG.integers(0, 6, s).astype(float),
    ),
    "Gumbel": (
        lambda: {"loc": RNG.normal(size=(4, 3)), "scale": _pos(4, 3)},
        lambda s: RNG.normal(size=s),
    ),
    "HalfCauchy": (lambda: {"scale": _pos(4, 3)}, lambda s: _pos(*s, lo=0.0, hi=5)),
    "HalfNormal": (lambda: {"scale": _pos(4, 3)}, lambda s: _pos(*s, lo=0.0, hi=5)),
    "InverseGamma": (
        lambda: {"concentration": _pos(4, 3, hi=5), "rate": _pos(3)},
        lambda s: _pos(*s, lo=0.05, hi=5),
    ),
    "Kumaraswamy": (
        lambda: {"concentration1": _pos(4, 3), "concentration0": _pos(4, 3)},
        lambda s: RNG.uniform(0.02, 0.98, s),
    ),
    "LKJCholesky": (lambda: {"dim": 3, "concentration": _pos(4)}, _lkj_values),
    "LogNormal": (
        lambda: {"loc": RNG.normal(size=(4, 3)), "scale": _pos(3)},
        lambda s: _pos(*s, lo=0.05, hi=5),
    ),
    "LogisticNormal": (
        lambda: {"loc": RNG.normal(size=(2, 3)), "scale": _pos(2, 3)},
        lambda s: _simplex(*s),
    ),
    "LowRankMultivariateNormal": (
        lambda: {
            "loc": RNG.normal(size=(2, 4)),
            "cov_factor": RNG.normal(size=(2, 4, 2)),
            "cov_diag": _pos(4),
        },
        lambda s: RNG.normal(size=s),
    ),
    "Multinomial": (
        lambda: {"total_count": 6, "probs": _simplex(2, 4)},
        lambda s: RNG.multinomial(6, np.full(s[-1], 1 / s[-1]), s[:-1]).astype(float),
    ),
    "Multinomial_logits": (
        lambda: {"total_count": 3, "logits": RNG.normal(size=(3,))},
        lambda s: RNG.multinomial(3, np.full(s[-1], 1 / s[-1]), s[:-1]).astype(float),
    ),
    "OneHotCategoricalStraightThrough": (
        lambda: {"logits": RNG.normal(size=(3, 4))},
        lambda s: np.eye(4)[RNG.integers(0, 4, s[:-1])],
    ),
    "Pareto": (
        lambda: {"scale": _pos(4, 3, lo=0.2, hi=1.0), "alpha": _pos(4, 3, lo=0.5, hi=4)},
        lambda s: _pos(*s, lo=1.05, hi=6),
    ),
    "RelaxedBernoulli": (
        lambda: {"temperature": np.array(0.7), "probs": RNG.uniform(0.05, 0.95, (4, 3))},
        lambda s: RNG.uniform(0.02, 0.98, s),
    ),
    "RelaxedOneHotCategorical": (
        lambda: {"temperature": np.array(0.6), "logits": RNG.normal(size=(3, 4))},
        lambda s: _simplex(*s),
    ),
    "StudentT": (
        lambda: {"df": _pos(4, 3, lo=0.5, hi=6), "loc": RNG.normal(size=(3,)), "scale": _pos(3)},
        lambda s: RNG.normal(size=s) * 2,
    ),
    "VonMises": (
        lambda: {"loc": RNG.uniform(-3, 3, (4, 3)), "concentration": _pos(4, 3, lo=0.1, hi=8)},
        lambda s: RNG.uniform(-math.pi, math.pi, s),
    ),
    "Weibull": (
        lambda: {"scale": _pos(4, 3), "concentration": _pos(4, 3, lo=0.5, hi=4)},
        lambda s: _pos(*s, lo=0.05, hi=4),
    ),
    "Wishart": (
        lambda: {"df": _pos(2, lo=3.5, hi=8), "covariance_matrix": _spd(2)},
        _wishart_values,
    ),
    "Wishart_tril": (
        lambda: {"df": np.array(4.5), "scale_tril": np.linalg.cholesky(_spd(2))},
        _wishart_values,
    ),
    "InverseGamma_scalar": (
        lambda: {"concentration": 2.5, "rate": 1.5},
        lambda s: _pos(*s, lo=0.05, hi=5),
    ),
}
CDF_CASES = [
    "Cauchy",
    "ContinuousBernoulli",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "LogNormal",
    "Weibull",
    "Pareto",
    "Kumaraswamy",
    "InverseGamma",
]
ICDF_CASES = ["Cauchy", "ContinuousBernoulli", "Gumbel", "HalfCauchy", "HalfNormal", "LogNormal"]


def _cls(name):
    return name.split("_")[0]


def _tensors(lib, params, requires_grad=False):
    out = {}
    for k, v in params.items():
        if isinstance(v, np.ndarray):
            t = lib.tensor(v, dtype=lib.float64)
            if requires_grad:
                t.requires_grad_(True)
            out[k] = t
        else:
            out[k] = v
    return out


def _make(lib_d, lib, name, params, requires_grad=False):
    ts = _tensors(lib, params, requires_grad)
    return getattr(lib_d, _cls(name))(**ts), {
        k: v for k, v in ts.items() if hasattr(v, "requires_grad") and v.requires_grad
    }


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _close(a, b, rtol=RTOL, atol=ATOL, what=""):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    np.testing.assert_allclose(
        a.astype(float), b.astype(float), rtol=rtol, atol=atol, equal_nan=True, err_msg=what
    )


def _value(name, d):
    shape = tuple(d.batch_shape) + tuple(d.event_shape)
    return np.stack([CASES[name][1](shape), CASES[name][1](shape)])


def _both(fn_e, fn_t):
    """Both results, or both NotImplementedError (then None)."""
    try:
        want = fn_t()
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            fn_e()
        return None, None
    return fn_e(), want


# ---- deterministic quantities at parity ------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_entropy_moments_match_torch(name):
    params = CASES[name][0]()
    ed, _ = _make(ED, ember, name, params)
    td, _ = _make(TD, torch, name, params)
    assert tuple(ed.batch_shape) == tuple(td.batch_shape)
    assert tuple(ed.event_shape) == tuple(td.event_shape)
    assert ed.has_rsample == td.has_rsample
    assert ed.has_enumerate_support == td.has_enumerate_support
    v = _value(name, td)
    # number parameters give float32 distributions: compare at float32's precision
    tol = {} if ed.batch_shape or name == "Wishart_tril" else {"rtol": 2e-6, "atol": 1e-6}
    _close(ed.log_prob(ember.tensor(v)), td.log_prob(torch.tensor(v)), **tol, what="log_prob")
    a, b = _both(ed.entropy, td.entropy)
    if b is not None:
        _close(a, b, **tol, what="entropy")
    for attr in ("mean", "variance", "stddev", "mode"):
        a, b = _both(lambda attr=attr: getattr(ed, attr), lambda attr=attr: getattr(td, attr))
        if b is not None:
            _close(a, b, **tol, what=attr)
    assert repr(ed) == repr(td).replace("torch.Size", "ember.Size")
    assert repr(ed.support) == repr(td.support).replace("torch.", "ember.")
    assert {k: repr(c) for k, c in ed.arg_constraints.items()} == {
        k: repr(c) for k, c in td.arg_constraints.items()
    }


@needs_torch
@pytest.mark.parametrize("name", CDF_CASES)
def test_cdf_icdf_match_torch(name):
    params = CASES[name][0]()
    ed, _ = _make(ED, ember, name, params)
    td, _ = _make(TD, torch, name, params)
    v = _value(name, td)
    _close(ed.cdf(ember.tensor(v)), td.cdf(torch.tensor(v)), what="cdf")
    if name in ICDF_CASES:
        u = RNG.uniform(0.01, 0.99, v.shape)
        _close(ed.icdf(ember.tensor(u)), td.icdf(torch.tensor(u)), what="icdf")


@needs_torch
def test_generalized_pareto_matches_torch():
    # torch's log_prob/cdf compare with a float32 zero and fail for float64 parameters, so the
    # density is compared in float32; everything else in float64
    loc, scale = RNG.normal(size=(3,)), _pos(3)
    conc = np.array([0.0, 0.4, -0.3])
    v = loc + _pos(2, 3, lo=0.01, hi=1.0)
    e = ED.GeneralizedPareto(*(ember.tensor(a, dtype=ember.float32) for a in (loc, scale, conc)))
    t = TD.GeneralizedPareto(*(torch.tensor(a, dtype=torch.float32) for a in (loc, scale, conc)))
    for m in ("log_prob", "cdf", "log_cdf", "log_survival_function"):
        a = getattr(e, m)(ember.tensor(v, dtype=ember.float32))
        b = getattr(t, m)(torch.tensor(v, dtype=torch.float32))
        _close(a, b, rtol=2e-6, atol=1e-6, what=m)
    e = ED.GeneralizedPareto(*(ember.tensor(a) for a in (loc, scale, conc)))
    t = TD.GeneralizedPareto(*(torch.tensor(a) for a in (loc, scale, conc)))
    u = RNG.uniform(0.01, 0.99, (2, 3))
    _close(e.icdf(ember.tensor(u)), t.icdf(torch.tensor(u)), what="icdf")
    for attr in ("mean", "variance", "mode"):
        _close(getattr(e, attr), getattr(t, attr), what=attr)
    _close(e.entropy(), t.entropy())
    assert repr(e.support) == repr(t.support).replace("torch.", "ember.")
    _close(e.log_prob(ember.tensor(v)), e.log_prob(ember.tensor(v, dtype=ember.float32)), 1e-6)


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_and_entropy_gradients_match_torch(name):
    params = CASES[name][0]()
    ed, eps = _make(ED, ember, name, params, requires_grad=True)
    td, tps = _make(TD, torch, name, params, requires_grad=True)
    if not eps:
        pytest.skip("no tensor parameters")
    v = _value(name, td)
    eo, to = ed.log_prob(ember.tensor(v)).sum(), td.log_prob(torch.tensor(v)).sum()
    try:
        to = to + td.entropy().sum()
        eo = eo + ed.entropy().sum()
    except NotImplementedError:
        pass
    names = [k for k in tps if tps[k].requires_grad]
    eg = ember.autograd.grad(eo, [eps[k] for k in names], allow_unused=True)
    tg = torch.autograd.grad(to, [tps[k] for k in names], allow_unused=True)
    # digamma's derivative (trigamma) in torch is accurate to ~1e-9 only
    tol = {"rtol": 3e-8, "atol": 3e-9}
    for k, a, b in zip(names, eg, tg):
        if b is None:
            assert a is None or not np.any(_np(a)), k
            continue
        if k == "scale_tril":
            # NOTE: torch's cholesky_solve also sends gradient to the unused upper triangle;
            # ember's triangular solves do not, so the read (lower) part is compared
            a, b = np.tril(_np(a)), np.tril(_np(b))
        _close(a, b, **tol, what=f"grad {k}")


# ---- transforms --------------------------------------------------------------------------------
def _transform_cases():
    return {
        "Exp": (lambda M: M.ExpTransform(), (4, 3), "real"),
        "Power": (lambda M, lib=None: M.PowerTransform(2.5), (4, 3), "pos"),
        "Sigmoid": (lambda M: M.SigmoidTransform(), (4, 3), "real"),
        "Tanh": (lambda M: M.TanhTransform(), (4, 3), "small"),
        "Softplus": (lambda M: M.SoftplusTransform(), (4, 3), "real"),
        "Abs": (lambda M: M.AbsTransform(), (4, 3), "pos"),
        "Affine": (lambda M: M.AffineTransform(0.5, -2.0), (4, 3), "real"),
        "Affine_event": (lambda M: M.AffineTransform(1.0, 3.0, event_dim=1), (4, 3), "real"),
        "StickBreaking": (lambda M: M.StickBreakingTransform(), (4, 3), "real"),
        "Softmax": (lambda M: M.SoftmaxTransform(), (4, 3), "real"),
        "LowerCholesky": (lambda M: M.LowerCholeskyTransform(), (2, 3, 3), "real"),
        "PositiveDefinite": (lambda M: M.PositiveDefiniteTransform(), (2, 3, 3), "real"),
        "CorrCholesky": (lambda M: M.CorrCholeskyTransform(), (2, 6), "small"),
        "Reshape": (lambda M: M.ReshapeTransform((2, 3), (3, 2)), (4, 2, 3), "real"),
        "Independent": (lambda M: M.IndependentTransform(M.ExpTransform(), 1), (4, 3), "real"),
        "Compose": (
            lambda M: M.ComposeTransform([M.ExpTransform(), M.AffineTransform(1.0, 2.0)]),
            (4, 3),
            "real",
        ),
        "Cat": (
            lambda M: M.CatTransform([M.ExpTransform(), M.identity_transform], 1, [1, 2]),
            (4, 3),
            "real",
        ),
        "Stack": (
            lambda M: M.StackTransform([M.ExpTransform(), M.SigmoidTransform()], dim=1),
            (4, 2),
            "real",
        ),
        "Inverse": (lambda M: M.ExpTransform().inv, (4, 3), "pos"),
    }


TRANSFORMS = _transform_cases()


def _tvalues(kind, shape):
    if kind == "pos":
        return _pos(*shape)
    if kind == "small":
        return RNG.uniform(-1.5, 1.5, shape)
    return RNG.normal(size=shape)


@needs_torch
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_matches_torch(name):
    make, shape, kind = TRANSFORMS[name]
    et, tt = make(ETR), make(TTR)
    x = _tvalues(kind, shape)
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ey, ty = et(ex), tt(tx)
    _close(ey, ty, what="forward")
    _close(et.inv(ey), tt.inv(ty), what="inverse")
    a, b = _both(lambda: et.log_abs_det_jacobian(ex, ey), lambda: tt.log_abs_det_jacobian(tx, ty))
    if b is not None:
        _close(a, b, what="log_abs_det_jacobian")
    if b is not None and b.requires_grad:
        (ga,) = ember.autograd.grad(a.sum(), [ex])
        (gb,) = torch.autograd.grad(b.sum(), [tx])
        _close(ga, gb, what="grad of log_abs_det_jacobian")
    assert repr(et) == repr(tt)
    assert repr(et.domain) == repr(tt.domain) and repr(et.codomain) == repr(tt.codomain)
    assert et.domain.event_dim == tt.domain.event_dim
    assert et.codomain.event_dim == tt.codomain.event_dim
    assert et.bijective == tt.bijective
    a, b = _both(lambda: et.sign, lambda: tt.sign)
    if b is not None:
        assert np.all(_np(a) == _np(b)) if hasattr(b, "shape") else a == b
    for s in (shape, (5,) + shape):
        a, b = _both(lambda s=s: et.forward_shape(s), lambda s=s: tt.forward_shape(s))
        assert tuple(a or ()) == tuple(b or ())
        ys = tuple(ty.shape) if len(s) == len(shape) else (5,) + tuple(ty.shape)
        a, b = _both(lambda ys=ys: et.inverse_shape(ys), lambda ys=ys: tt.inverse_shape(ys))
        assert tuple(a or ()) == tuple(b or ())
    assert et.inv.inv is et
    assert (et == make(ETR)) == (tt == make(TTR))


@needs_torch
def test_transform_cache_equality_and_errors():
    t = ETR.ExpTransform(cache_size=1)
    x = ember.tensor([0.5, 1.0])
    y = t(x)
    assert t(x) is y and t.inv(y) is x  # the cached pair
    assert ETR.ExpTransform().with_cache(1)._cache_size == 1
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        ETR.ExpTransform(cache_size=2)
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        TTR.ExpTransform(cache_size=2)
    assert ETR.AffineTransform(1.0, 2.0) == ETR.AffineTransform(1.0, 2.0)
    assert ETR.AffineTransform(1.0, 2.0) != ETR.AffineTransform(1.0, 3.0)
    assert ETR.PowerTransform(ember.tensor(2.0)) == ETR.PowerTransform(2.0)
    assert ETR.ExpTransform().inv == ETR.ExpTransform().inv
    assert ETR.identity_transform(x) is x
    with pytest.raises(ValueError, match="different numbers of elements"):
        ETR.ReshapeTransform((2, 3), (5,))
    for M in (ETR, TTR):
        with pytest.raises(ValueError, match="Please use either .domain.event_dim"):
            _ = M.CorrCholeskyTransform().event_dim
        with pytest.raises(ValueError, match="Too few dimensions on input"):
            M.SoftmaxTransform().forward_shape(())
        with pytest.raises(ValueError, match="flattened lower-diagonal"):
            M.CorrCholeskyTransform().forward_shape((4,))
    # CumulativeDistributionTransform: a distribution's cdf, with its log density as Jacobian
    en, tn = ED.Normal(0.5, 2.0), TD.Normal(0.5, 2.0)
    v = RNG.normal(size=(3,))
    ec = ETR.CumulativeDistributionTransform(en)
    tc = TTR.CumulativeDistributionTransform(tn)
    _close(ec(ember.tensor(v)), tc(torch.tensor(v)))
    _close(
        ec.log_abs_det_jacobian(ember.tensor(v), None),
        tc.log_abs_det_jacobian(torch.tensor(v), None),
    )
    _close(ec.inv(ec(ember.tensor(v))), v)


# ---- constraint registry --------------------------------------------------------------------
def _constraints(C):
    return [
        C.real,
        C.positive,
        C.nonnegative,
        C.greater_than(1.5),
        C.greater_than_eq(-1.0),
        C.less_than(2.0),
        C.unit_interval,
        C.interval(-1.0, 3.0),
        C.half_open_interval(0.0, 2.0),
        C.simplex,
        C.real_vector,
        C.independent(C.positive, 1),
        C.lower_cholesky,
        C.positive_definite,
        C.corr_cholesky,
        C.cat([C.positive, C.real], 0, [1, 2]),
        C.stack([C.positive, C.unit_interval], 0),
    ]


@needs_torch
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_constraint_registry_matches_torch(registry):
    e_reg, t_reg = getattr(ED, registry), getattr(TD, registry)
    for ec, tc in zip(_constraints(EC), _constraints(TC)):
        a, b = _both(lambda ec=ec: e_reg(ec), lambda tc=tc: t_reg(tc))
        if b is None:
            continue
        assert repr(a) == repr(b), repr(tc)
        shape = {2: (2, 3, 3)}.get(tc.event_dim, (2, 3))
        if isinstance(tc, (type(TC.corr_cholesky), type(TC.stack([TC.real], 0)))):
            shape = (2, 3)
        elif isinstance(tc, type(TC.cat([TC.real], 0))):
            shape = (3, 2)
        x = RNG.normal(size=shape)
        y, yt = a(ember.tensor(x)), b(torch.tensor(x))
        _close(y, yt, what=repr(tc))
        assert bool(ec.check(y).all())
    for reg in (e_reg, t_reg):
        with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
            reg(EC.boolean if reg is e_reg else TC.boolean)
        with pytest.raises(TypeError, match="Expected constraint to be either"):
            reg.register(3, lambda c: None)


# ---- KL divergences ----------------------------------------------------------------------------
KL_MAKERS = {
    "Bernoulli": lambda: {"probs": RNG.uniform(0.05, 0.95, (4, 3))},
    "Beta": lambda: {"concentration1": _pos(4, 3), "concentration0": _pos(4, 3)},
    "Binomial": lambda: {
        "total_count": np.full((4, 3), 8.0),
        "probs": RNG.uniform(0.1, 0.9, (4, 3)),
    },
    "Cauchy": lambda: {"loc": RNG.normal(size=(4, 3)), "scale": _pos(4, 3)},
    "ContinuousBernoulli": lambda: {"probs": RNG.uniform(0.05, 0.95, (4, 3))},
    "Exponential": lambda: {"rate": _pos(4, 3)},
    "Gamma": lambda: {"concentration": _pos(4, 3), "rate": _pos(4, 3)},
    "Geometric": lambda: {"probs": RNG.uniform(0.05, 0.95, (4, 3))},
    "Gumbel": lambda: {"loc": RNG.normal(size=(4, 3)), "scale": _pos(4, 3)},
    "HalfNormal": lambda: {"scale": _pos(4, 3)},
    "Laplace": lambda: {"loc": RNG.normal(size=(4, 3)), "scale": _pos(4, 3)},
    "LowRankMultivariateNormal": lambda: {
        "loc": RNG.normal(size=(4, 3)),
        "cov_factor": RNG.normal(size=(4, 3, 2)),
        "cov_diag": _pos(4, 3),
    },
    "MultivariateNormal": lambda: {"loc": RNG.normal(size=(4, 3)), "covariance_matrix": _spd(4)},
    "Normal": lambda: {"loc": RNG.normal(size=(4, 3)), "scale": _pos(4, 3)},
    "Pareto": lambda: {"scale": _pos(4, 3, lo=0.5, hi=1.5), "alpha": _pos(4, 3, lo=0.5, hi=5)},
    "Poisson": lambda: {"rate": _pos(4, 3)},
    "Uniform": lambda: {
        "low": RNG.uniform(0.05, 0.3, (4, 3)),
        "high": RNG.uniform(0.6, 0.95, (4, 3)),
    },
    "Uniform_wide": lambda: {
        "low": RNG.uniform(-1, 0.3, (4, 3)),
        "high": RNG.uniform(0.6, 4, (4, 3)),
    },
    "Uniform_pos": lambda: {
        "low": RNG.uniform(0.8, 1.5, (4, 3)),
        "high": RNG.uniform(2, 4, (4, 3)),
    },
}


def _new_kl_pairs():
    import torch.distributions.kl as tk

    old = {
        "Bernoulli",
        "Beta",
        "Categorical",
        "Dirichlet",
        "Exponential",
        "ExponentialFamily",
        "Gamma",
        "Independent",
        "Laplace",
        "MultivariateNormal",
        "Normal",
        "OneHotCategorical",
        "Poisson",
        "Uniform",
    }
    pairs = sorted(
        (p.__name__, q.__name__)
        for p, q in tk._KL_REGISTRY
        if not (p.__name__ in old and q.__name__ in old)
        or (p.__name__, q.__name__) == ("Bernoulli", "Poisson")
    )
    return [pq for pq in pairs if pq != ("TransformedDistribution", "TransformedDistribution")]


KL_PAIRS = _new_kl_pairs() if torch is not None else []
# q parameters for which the closed form is finite where p puts its mass
_Q_VARIANT = {
    ("Uniform", "Pareto"): "Uniform_pos",
    ("ContinuousBernoulli", "Uniform"): "Uniform_wide",
}
_P_VARIANT = {("Uniform", "Pareto"): "Uniform_pos"}


@needs_torch
@pytest.mark.parametrize("pn,qn", KL_PAIRS, ids=[f"{p}-{q}" for p, q in KL_PAIRS])
def test_kl_divergence_matches_torch(pn, qn):
    pk = _P_VARIANT.get((pn, qn), pn)
    qk = _Q_VARIANT.get((pn, qn), qn)
    pp, qp = KL_MAKERS[pk](), KL_MAKERS[qk]()
    ep, eps = _make(ED, ember, pk, pp, requires_grad=True)
    eq, _ = _make(ED, ember, qk, qp)
    tp, tps = _make(TD, torch, pk, pp, requires_grad=True)
    tq, _ = _make(TD, torch, qk, qp)
    ek, tk = ED.kl_divergence(ep, eq), TD.kl_divergence(tp, tq)
    _close(ek, tk, rtol=1e-8, what="kl")
    finite = np.isfinite(_np(tk))
    if finite.any() and eps:
        names = [k for k in tps if tps[k].requires_grad]
        w = np.where(finite, 1.0, 0.0)
        eg = ember.autograd.grad(
            ember.where(ember.tensor(finite), ek, 0.0).mul(ember.tensor(w)).sum(),
            [eps[k] for k in names],
            allow_unused=True,
        )
        tg = torch.autograd.grad(
            torch.where(torch.tensor(finite), tk, 0.0).mul(torch.tensor(w)).sum(),
            [tps[k] for k in names],
            allow_unused=True,
        )
        for a, b in zip(eg, tg):
            if b is not None:
                _close(a, b, rtol=3e-8, atol=3e-9, what="kl grad")


@needs_torch
def test_kl_transformed_and_binomial_errors():
    loc, scale = RNG.normal(size=3), _pos(3)
    ep, tp = (
        ED.LogNormal(ember.tensor(loc), ember.tensor(scale)),
        TD.LogNormal(torch.tensor(loc), torch.tensor(scale)),
    )
    eq, tq = ED.LogNormal(ember.tensor(scale), 1.5), TD.LogNormal(torch.tensor(scale), 1.5)
    _close(ED.kl_divergence(ep, eq), TD.kl_divergence(tp, tq))
    _close(
        ED.kl_divergence(ED.HalfNormal(ember.tensor(scale)), ED.HalfNormal(2.0)),
        TD.kl_divergence(TD.HalfNormal(torch.tensor(scale)), TD.HalfNormal(2.0)),
    )
    with pytest.raises(NotImplementedError):
        ED.kl_divergence(ED.LogNormal(0.0, 1.0), ED.Gumbel(0.0, 1.0).expand(()))
    for D, lib in ((ED, ember), (TD, torch)):
        with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
            D.kl_divergence(D.Binomial(3, lib.tensor(0.5)), D.Binomial(5, lib.tensor(0.5)))
    _close(
        ED.kl_divergence(ED.Binomial(5, ember.tensor(0.5)), ED.Binomial(3, ember.tensor(0.5))),
        TD.kl_divergence(TD.Binomial(5, torch.tensor(0.5)), TD.Binomial(3, torch.tensor(0.5))),
    )


# ---- composite distributions ---------------------------------------------------------------------
def _mixture(D, lib, logits, loc, scale, independent=False):
    comp = D.Normal(lib.tensor(loc), lib.tensor(scale))
    if independent:
        comp = D.Independent(comp, 1)
    return D.MixtureSameFamily(D.Categorical(logits=lib.tensor(logits)), comp)


@needs_torch
@pytest.mark.parametrize("independent", [False, True])
def test_mixture_same_family_matches_torch(independent):
    if independent:
        logits, loc, scale = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3, 4)), _pos(2, 3, 4)
        v = RNG.normal(size=(5, 2, 4))
    else:
        logits, loc, scale = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3)), _pos(2, 3)
        v = RNG.normal(size=(5, 2))
        # a mixture batch broadcast against the components': same density; both libraries'
        # sample refuse it the same way (their gather needs equal ranks)
        e = _mixture(ED, ember, logits[0], loc, scale)
        t = _mixture(TD, torch, logits[0], loc, scale)
        _close(e.log_prob(ember.tensor(v)), t.log_prob(torch.tensor(v)))
        _close(e.mean, t.mean)
        for d in (e, t):
            with pytest.raises(RuntimeError, match="same number of dimensions"):
                d.sample((3,))
    e = _mixture(ED, ember, logits, loc, scale, independent)
    t = _mixture(TD, torch, logits, loc, scale, independent)
    assert tuple(e.batch_shape) == tuple(t.batch_shape)
    assert tuple(e.event_shape) == tuple(t.event_shape)
    _close(e.log_prob(ember.tensor(v)), t.log_prob(torch.tensor(v)))
    _close(e.mean, t.mean)
    _close(e.variance, t.variance)
    if not independent:
        _close(e.cdf(ember.tensor(v)), t.cdf(torch.tensor(v)))
    assert repr(e) == repr(t).replace("torch.Size", "ember.Size")
    assert repr(e.support) == repr(t.support)
    assert e.sample((7,)).shape == t.sample((7,)).shape
    ex = e.expand((4,) + tuple(e.batch_shape))
    tx = t.expand((4,) + tuple(t.batch_shape))
    _close(ex.log_prob(ember.tensor(v[:1])), tx.log_prob(torch.tensor(v[:1])))
    # samples: the mixture's moments
    ember.manual_seed(3)
    s = _np(e.sample((40000,)))
    sd = np.sqrt(_np(t.variance))
    assert np.all(np.abs(s.mean(0) - _np(t.mean)) < 6 * sd / 200)
    # errors as torch's
    for D, lib in ((ED, ember), (TD, torch)):
        with pytest.raises(ValueError, match="does not equal"):
            D.MixtureSameFamily(D.Categorical(logits=lib.zeros(2)), D.Normal(lib.zeros(3), 1.0))
        with pytest.raises(ValueError, match="needs to be an  instance"):
            D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(lib.zeros(3), 1.0))


@needs_torch
def test_transformed_distribution_matches_torch():
    loc, scale = RNG.normal(size=(2, 3)), _pos(2, 3)
    v = RNG.uniform(-0.9, 0.9, (4, 2, 3))

    def build(D, M, lib):
        base = D.Normal(lib.tensor(loc), lib.tensor(scale))
        return D.TransformedDistribution(
            base, [M.AffineTransform(0.3, -2.0), M.TanhTransform(), M.AffineTransform(0.0, 0.5)]
        )

    e, t = build(ED, ETR, ember), build(TD, TTR, torch)
    _close(e.log_prob(ember.tensor(v * 0.5)), t.log_prob(torch.tensor(v * 0.5)))
    _close(e.cdf(ember.tensor(v * 0.5)), t.cdf(torch.tensor(v * 0.5)))
    u = RNG.uniform(0.05, 0.95, (2, 3))
    _close(e.icdf(ember.tensor(u)), t.icdf(torch.tensor(u)))
    assert repr(e.support) == repr(t.support)
    assert e.rsample((5,)).shape == t.rsample((5,)).shape
    # a vector-event transform over a scalar base: the base becomes Independent
    e2 = ED.TransformedDistribution(ED.Normal(ember.tensor(loc), 1.0), ETR.StickBreakingTransform())
    t2 = TD.TransformedDistribution(TD.Normal(torch.tensor(loc), 1.0), TTR.StickBreakingTransform())
    assert tuple(e2.event_shape) == tuple(t2.event_shape) == (4,)
    w = _simplex(2, 4)
    _close(e2.log_prob(ember.tensor(w)), t2.log_prob(torch.tensor(w)))
    e3, t3 = e2.expand((5, 2)), t2.expand((5, 2))
    assert tuple(e3.batch_shape) == tuple(t3.batch_shape)
    _close(e3.log_prob(ember.tensor(w)), t3.log_prob(torch.tensor(w)))
    for D, M in ((ED, ETR), (TD, TTR)):
        with pytest.raises(ValueError, match="transforms must be a Transform or list"):
            D.TransformedDistribution(D.Normal(0.0, 1.0), 3)
        with pytest.raises(ValueError, match="needs to have shape with size at least 1"):
            D.TransformedDistribution(D.Normal(0.0, 1.0), M.StickBreakingTransform())


# ---- samples ---------------------------------------------------------------------------------
STATS = [
    ("Binomial", {"total_count": np.array([5.0, 20.0]), "probs": np.array([0.3, 0.8])}),
    ("Chi2", {"df": np.array([0.7, 5.0])}),
    ("ContinuousBernoulli", {"probs": np.array([0.2, 0.5, 0.9])}),
    ("FisherSnedecor", {"df1": np.array([3.0, 8.0]), "df2": np.array([9.0, 12.0])}),
    ("Geometric", {"probs": np.array([0.2, 0.7])}),
    ("Gumbel", {"loc": np.array([0.0, 2.0]), "scale": np.array([1.0, 0.5])}),
    ("HalfNormal", {"scale": np.array([0.5, 2.0])}),
    ("InverseGamma", {"concentration": np.array([5.0, 7.0]), "rate": np.array([1.0, 3.0])}),
    (
        "Kumaraswamy",
        {"concentration1": np.array([0.5, 3.0]), "concentration0": np.array([2.0, 1.0])},
    ),
    ("LogNormal", {"loc": np.array([0.0, 1.0]), "scale": np.array([0.3, 0.5])}),
    (
        "LowRankMultivariateNormal",
        {
            "loc": np.array([0.0, 1.0, -1.0]),
            "cov_factor": np.array([[1.0], [0.5], [-0.3]]),
            "cov_diag": np.array([0.5, 1.0, 0.2]),
        },
    ),
    ("Multinomial", {"total_count": 7, "probs": np.array([0.2, 0.3, 0.5])}),
    ("OneHotCategoricalStraightThrough", {"probs": np.array([0.2, 0.3, 0.5])}),
    ("Pareto", {"scale": np.array([1.0, 2.0]), "alpha": np.array([5.0, 6.0])}),
    (
        "StudentT",
        {"df": np.array([5.0, 9.0]), "loc": np.array([0.0, 1.0]), "scale": np.array([1.0, 2.0])},
    ),
    ("Weibull", {"scale": np.array([1.0, 2.0]), "concentration": np.array([0.8, 3.0])}),
    ("Wishart", {"df": np.array(5.0), "covariance_matrix": np.array([[2.0, 0.3], [0.3, 1.0]])}),
    ("InverseGamma_scalar", {"concentration": 6.0, "rate": 2.0}),
]


@needs_torch
@pytest.mark.parametrize("name,params", STATS, ids=[s[0] for s in STATS])
def test_sample_moments(name, params):
    e, _ = _make(ED, ember, name, params)
    t, _ = _make(TD, torch, name, params)
    ember.manual_seed(5)
    n = 40000
    s = _np(e.rsample((n,)) if e.has_rsample else e.sample((n,)))
    assert s.shape == (n,) + tuple(t.batch_shape) + tuple(t.event_shape)
    assert bool(t.support.check(torch.tensor(s)).all())
    mean, sd = _np(t.mean), _np(t.stddev)
    assert np.all(np.abs(s.mean(0) - mean) < 6 * sd / math.sqrt(n) + 1e-12), (s.mean(0), mean)
    # the variance within a loose band (heavier tails need more draws for a tight one)
    np.testing.assert_allclose(s.var(0), sd**2, rtol=0.15, atol=1e-9)


@needs_torch
def test_sample_quantiles_of_heavy_tailed_and_circular_laws():
    ember.manual_seed(9)
    n = 40000
    for name, params in [
        ("Cauchy", {"loc": np.array([0.0, 2.0]), "scale": np.array([1.0, 3.0])}),
        ("HalfCauchy", {"scale": np.array([1.0, 3.0])}),
        (
            "GeneralizedPareto",
            {
                "loc": np.array([0.0, 1.0]),
                "scale": np.array([1.0, 2.0]),
                "concentration": np.array([0.3, -0.2]),
            },
        ),
        ("Gumbel", {"loc": np.array([0.0, 1.0]), "scale": np.array([1.0, 2.0])}),
    ]:
        e, _ = _make(ED, ember, name, params)
        t, _ = _make(TD, torch, name, params)
        s = _np(e.sample((n,)))
        for q in (0.25, 0.5, 0.75):
            frac = (s < _np(t.icdf(torch.tensor(q, dtype=torch.float64)))).mean(0)
            assert np.all(np.abs(frac - q) < 0.012), (name, q, frac)
    # von Mises: the circular mean resultant length is 1 - circular variance
    e = ED.VonMises(ember.tensor([0.5, -2.0, 3.0]), ember.tensor([0.3, 2.0, 10.0]))
    t = TD.VonMises(torch.tensor([0.5, -2.0, 3.0]), torch.tensor([0.3, 2.0, 10.0]))
    s = _np(e.sample((n,)))
    assert s.shape == (n, 3) and s.dtype == np.float32
    assert np.all((s >= -math.pi) & (s < math.pi))
    c = np.cos(s - np.array([0.5, -2.0, 3.0])).mean(0)
    np.testing.assert_allclose(c, 1 - _np(t.variance), atol=0.015)
    # LKJ: Cholesky factors of correlation matrices with off-diagonal variance 1 / (2 eta + d - 1)
    e = ED.LKJCholesky(3, ember.tensor([0.5, 4.0], dtype=ember.float64))
    s = _np(e.sample((n,)))
    assert bool(TC.corr_cholesky.check(torch.tensor(s)).all())
    corr = s @ np.swapaxes(s, -1, -2)
    np.testing.assert_allclose(
        corr[..., 1, 0].var(0), 1 / (2 * np.array([0.5, 4.0]) + 2), rtol=0.05
    )
    # relaxed laws: on the simplex / unit interval, near one-hot at low temperature
    r = ED.RelaxedOneHotCategorical(ember.tensor(0.05), probs=ember.tensor([0.2, 0.8]))
    s = _np(r.sample((n,)))
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-5)
    assert abs((s[:, 1] > 0.5).mean() - 0.8) < 0.012
    rb = ED.RelaxedBernoulli(ember.tensor(0.05), probs=ember.tensor([0.3]))
    s = _np(rb.sample((n,)))
    assert np.all((s > 0) & (s < 1)) and abs((s > 0.5).mean() - 0.3) < 0.012
    ln = ED.LogisticNormal(ember.zeros(2), ember.ones(2))
    s = _np(ln.sample((n,)))
    assert s.shape == (n, 3)
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-5)


# ---- rsample gradients ---------------------------------------------------------------------------
RSAMPLE = {
    "Cauchy": lambda p: ED.Cauchy(p[0], p[1].exp()),
    "Gumbel": lambda p: ED.Gumbel(p[0], p[1].exp()),
    "HalfNormal": lambda p: ED.HalfNormal(p[1].exp()),
    "HalfCauchy": lambda p: ED.HalfCauchy(p[1].exp()),
    "LogNormal": lambda p: ED.LogNormal(p[0], p[1].exp()),
    "Weibull": lambda p: ED.Weibull(p[1].exp(), p[0].exp()),
    "Pareto": lambda p: ED.Pareto(p[1].exp(), p[0].exp() + 1),
    "Kumaraswamy": lambda p: ED.Kumaraswamy(p[0].exp(), p[1].exp()),
    "LogisticNormal": lambda p: ED.LogisticNormal(p[0], p[1].exp()),
    "RelaxedBernoulli": lambda p: ED.RelaxedBernoulli(p[1].exp(), logits=p[0]),
    "RelaxedOneHotCategorical": lambda p: ED.RelaxedOneHotCategorical(p[1].exp()[0], logits=p[0]),
    "ContinuousBernoulli": lambda p: ED.ContinuousBernoulli(logits=p[0]),
    "GeneralizedPareto": lambda p: ED.GeneralizedPareto(p[0], p[1].exp(), ember.tensor(0.2)),
    "LowRankMultivariateNormal": lambda p: ED.LowRankMultivariateNormal(
        p[0], p[1].unsqueeze(-1), p[1].exp()
    ),
}


@pytest.mark.parametrize("name", list(RSAMPLE))
def test_rsample_gradcheck(name):
    a = ember.tensor(RNG.normal(size=3) * 0.5, dtype=ember.float64, requires_grad=True)
    b = ember.tensor(RNG.normal(size=3) * 0.3, dtype=ember.float64, requires_grad=True)

    def f(a, b):
        ember.manual_seed(1)  # the same noise at every evaluation
        return RSAMPLE[name]((a, b)).rsample((2,))

    assert ember.autograd.gradcheck(f, (a, b), eps=1e-6, atol=1e-5)


@needs_torch
@pytest.mark.parametrize("name", ["StudentT", "FisherSnedecor", "InverseGamma", "Chi2", "Wishart"])
def test_gamma_based_rsample_gradients_are_unbiased(name):
    # the implicit Gamma gradient is not a pathwise one at fixed noise (gradcheck does not apply),
    # so check d/dtheta E[x] by Monte Carlo against torch's analytic d mean / d theta
    params = dict(STATS)[name] if name in dict(STATS) else {"df": np.array([3.0, 6.0])}
    e, eps = _make(ED, ember, name, params, requires_grad=True)
    t, tps = _make(TD, torch, name, params, requires_grad=True)
    ember.manual_seed(2)
    n = 40000
    eg = ember.autograd.grad(e.rsample((n,)).sum() / n, list(eps.values()))
    tg = torch.autograd.grad(t.mean.sum(), list(tps.values()), allow_unused=True)
    for a, b, p in zip(eg, tg, tps.values()):
        b = np.zeros(p.shape) if b is None else _np(b)
        np.testing.assert_allclose(_np(a), b, rtol=0.08, atol=0.03)


# ---- expand, shapes, validation --------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("name", [n for n in CASES if not n.endswith("_scalar")])
def test_expand_matches_torch(name):
    params = CASES[name][0]()
    ed, _ = _make(ED, ember, name, params)
    td, _ = _make(TD, torch, name, params)
    shape = (2,) + tuple(td.batch_shape)
    ex, tx = ed.expand(shape), td.expand(shape)
    assert type(ex) is type(ed)
    assert tuple(ex.batch_shape) == tuple(tx.batch_shape)
    assert tuple(ex.event_shape) == tuple(tx.event_shape)
    v = CASES[name][1](tuple(tx.batch_shape) + tuple(tx.event_shape))
    _close(ex.log_prob(ember.tensor(v)), tx.log_prob(torch.tensor(v)), what="expanded log_prob")
    with warnings.catch_warnings():
        # torch 2.13's Wishart warns "Singular sample detected." on every draw (an inverted test)
        warnings.simplefilter("ignore", UserWarning)
        assert tuple(ex.sample().shape) == tuple(tx.sample().shape)


def _err(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - comparing the type and message
        return type(exc), str(exc).replace("torch.", "ember.")
    return None, None


VALIDATION = {
    "Cauchy scale": lambda lib, D: D.Cauchy(lib.tensor([0.0]), lib.tensor([-1.0])),
    "StudentT df": lambda lib, D: D.StudentT(lib.tensor([-2.0, 1.0])),
    "HalfNormal scale": lambda lib, D: D.HalfNormal(lib.tensor([0.0])),
    "LogNormal value": lambda lib, D: D.LogNormal(0.0, 1.0).log_prob(lib.tensor([-1.0])),
    "Gumbel scale": lambda lib, D: D.Gumbel(lib.tensor([0.0]), lib.tensor([-1.0])),
    "Weibull conc": lambda lib, D: D.Weibull(lib.tensor([1.0]), lib.tensor([0.0])),
    "Pareto value": lambda lib, D: D.Pareto(lib.tensor([2.0]), lib.tensor([1.0])).log_prob(
        lib.tensor([1.0])
    ),
    "Binomial probs": lambda lib, D: D.Binomial(3, lib.tensor([1.5])),
    "Binomial both": lambda lib, D: D.Binomial(3, lib.tensor([0.5]), lib.tensor([0.5])),
    "Binomial value": lambda lib, D: D.Binomial(3, lib.tensor([0.5])).log_prob(lib.tensor([4.0])),
    "Geometric zero": lambda lib, D: D.Geometric(lib.tensor([0.0, 0.5])),
    "Geometric none": lambda lib, D: D.Geometric(),
    "Multinomial count": lambda lib, D: D.Multinomial(lib.tensor(3), lib.tensor([0.5, 0.5])),
    "Multinomial value": lambda lib, D: D.Multinomial(2, lib.tensor([0.5, 0.5])).log_prob(
        lib.tensor([2.0, 1.0])
    ),
    "ContinuousBernoulli probs": lambda lib, D: D.ContinuousBernoulli(
        lib.tensor([1.5]), validate_args=True
    ),
    "VonMises conc": lambda lib, D: D.VonMises(lib.tensor([0.0]), lib.tensor([-1.0])),
    "LKJ dim": lambda lib, D: D.LKJCholesky(1, 1.0),
    "LKJ value": lambda lib, D: D.LKJCholesky(2, 1.0).log_prob(lib.eye(2) * 2),
    "LowRank loc": lambda lib, D: D.LowRankMultivariateNormal(
        lib.tensor(0.0), lib.ones(1, 1), lib.ones(1)
    ),
    "LowRank factor": lambda lib, D: D.LowRankMultivariateNormal(
        lib.zeros(2), lib.ones(3, 1), lib.ones(2)
    ),
    "LowRank diag": lambda lib, D: D.LowRankMultivariateNormal(
        lib.zeros(2), lib.ones(2, 1), lib.ones(3)
    ),
    "Wishart two": lambda lib, D: D.Wishart(3.0, lib.eye(2), scale_tril=lib.eye(2)),
    "Wishart df": lambda lib, D: D.Wishart(lib.tensor(0.5), lib.eye(2)),
    "Kumaraswamy c1": lambda lib, D: D.Kumaraswamy(lib.tensor([-1.0]), lib.tensor([1.0])),
    "RelaxedBernoulli both": lambda lib, D: D.RelaxedBernoulli(
        lib.tensor(0.5), lib.tensor([0.5]), lib.tensor([0.5])
    ),
    "InverseGamma rate": lambda lib, D: D.InverseGamma(lib.tensor([1.0]), lib.tensor([-1.0])),
    "FisherSnedecor df": lambda lib, D: D.FisherSnedecor(lib.tensor([1.0]), lib.tensor([-1.0])),
    "GeneralizedPareto scale": lambda lib, D: D.GeneralizedPareto(
        lib.tensor([0.0]), lib.tensor([-1.0]), lib.tensor([0.1])
    ),
    "HalfCauchy value": lambda lib, D: D.HalfCauchy(lib.tensor([1.0])).log_prob(lib.tensor([-1.0])),
    "Chi2 df": lambda lib, D: D.Chi2(lib.tensor([-1.0])),
}


@needs_torch
@pytest.mark.parametrize("what", list(VALIDATION))
def test_validation_errors_match_torch(what):
    fn = VALIDATION[what]
    et, em = _err(lambda: fn(ember, ED))
    tt, tm = _err(lambda: fn(torch, TD))
    assert tt is not None, f"torch raised nothing for {what}"
    assert et is tt, f"{what}: ember raised {et} ({em}), torch {tt} ({tm})"
    assert em == tm


@needs_torch
def test_binomial_enumerate_support_and_wishart_warning():
    e, t = ED.Binomial(3, ember.tensor([0.2, 0.6])), TD.Binomial(3, torch.tensor([0.2, 0.6]))
    _close(e.enumerate_support(), t.enumerate_support())
    _close(e.enumerate_support(False), t.enumerate_support(False))
    for D, lib in ((ED, ember), (TD, torch)):
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
            D.Binomial(lib.tensor([2.0, 3.0]), lib.tensor([0.5, 0.5])).entropy()
        with pytest.warns(UserWarning, match="Low df values detected"):
            D.Wishart(lib.tensor(1.5), lib.eye(2))
    # ember's Wishart redraws only singular samples: no warning for well-conditioned ones
    ED.Wishart(ember.tensor(6.0), ember.eye(2)).rsample((3,))
    # the straight-through one-hot sample passes probs' gradient through
    logits = ember.zeros(3, requires_grad=True)
    x = ED.OneHotCategoricalStraightThrough(logits=logits).rsample()
    (g,) = ember.autograd.grad((x * ember.tensor([1.0, 2.0, 3.0])).sum(), [logits])
    p = np.full(3, 1 / 3)
    _close(g, p * (np.array([1.0, 2.0, 3.0]) - (p * [1.0, 2.0, 3.0]).sum()), rtol=1e-6)


def test_public_names_match_torch():
    names = [n for n in dir(TD) if not n.startswith("_")] if TD is not None else []
    missing = [n for n in names if not hasattr(ED, n)]
    assert not missing
    if TD is not None:
        assert set(TD.__all__) <= set(ED.__all__)
        assert set(TTR.__all__) == set(ETR.__all__)


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_float32_dtypes_and_values_match_torch(name):
    params = {
        k: (v.astype(np.float32) if isinstance(v, np.ndarray) else v)
        for k, v in CASES[name][0]().items()
    }

    def build(lib, D):
        ts = {k: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in params.items()}
        return getattr(D, _cls(name))(**ts)

    e, t = build(ember, ED), build(torch, TD)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch's Wishart warns on every draw
        es, ts = e.sample((2,)), t.sample((2,))
    assert str(es.dtype).split(".")[-1] == str(ts.dtype).split(".")[-1]
    assert tuple(es.shape) == tuple(ts.shape)
    v = _value(name, t).astype(np.float32)
    el, tl = e.log_prob(ember.tensor(v)), t.log_prob(torch.tensor(v))
    assert str(el.dtype).split(".")[-1] == str(tl.dtype).split(".")[-1]
    _close(el, tl, rtol=2e-4, atol=2e-4, what="float32 log_prob")


@pytest.mark.parametrize(
    "make",
    [
        lambda a, b: ED.StudentT(b.exp() + 1, a, b.exp()),
        lambda a, b: ED.Gumbel(a, b.exp()),
        lambda a, b: ED.LogNormal(a, b.exp()),
        lambda a, b: ED.VonMises(a, b.exp()),
        lambda a, b: ED.Kumaraswamy(a.exp(), b.exp()),
        lambda a, b: ED.LowRankMultivariateNormal(a, b.unsqueeze(-1), b.exp()),
    ],
    ids=["StudentT", "Gumbel", "LogNormal", "VonMises", "Kumaraswamy", "LowRankMVN"],
)
def test_log_prob_gradgradcheck(make):
    a = ember.tensor(RNG.normal(size=3) * 0.3, dtype=ember.float64, requires_grad=True)
    b = ember.tensor(RNG.normal(size=3) * 0.3, dtype=ember.float64, requires_grad=True)
    v = ember.tensor(RNG.uniform(0.2, 0.8, size=(2, 3)), dtype=ember.float64)

    def f(a, b):
        return make(a, b).log_prob(v)

    assert ember.autograd.gradcheck(f, (a, b))
    assert ember.autograd.gradgradcheck(f, (a, b))


SCALAR = {
    "Cauchy": (0.0, 1.0),
    "Chi2": (3.0,),
    "ContinuousBernoulli": (0.3,),
    "FisherSnedecor": (3.0, 4.0),
    "GeneralizedPareto": (0.0, 1.0, 0.2),
    "Geometric": (0.3,),
    "Gumbel": (0.0, 1.0),
    "HalfCauchy": (1.0,),
    "HalfNormal": (1.0,),
    "InverseGamma": (3.0, 4.0),
    "Kumaraswamy": (1.0, 2.0),
    "LogNormal": (0.0, 1.0),
    "LogisticNormal": (0.0, 1.0),
    "Pareto": (1.0, 2.0),
    "StudentT": (3.0,),
    "VonMises": (0.0, 1.0),
    "Weibull": (1.0, 2.0),
}


@needs_torch
@pytest.mark.parametrize("name", list(SCALAR))
def test_number_parameters_sample_as_torch(name):
    e, t = getattr(ED, name)(*SCALAR[name]), getattr(TD, name)(*SCALAR[name])
    for shape in ((), (3,)):
        es = e.rsample(shape) if e.has_rsample else e.sample(shape)
        ts = t.rsample(shape) if t.has_rsample else t.sample(shape)
        assert tuple(es.shape) == tuple(ts.shape) and str(es.dtype)[-7:] == str(ts.dtype)[-7:]


@needs_torch
def test_wishart_kl_by_the_exponential_family_fallback_matches_torch():
    s1, s2 = _spd(2), _spd(2)
    out = []
    for lib, D in ((ember, ED), (torch, TD)):
        p = D.Wishart(lib.tensor([4.0, 6.0], dtype=lib.float64), lib.tensor(s1))
        q = D.Wishart(lib.tensor([5.0, 7.0], dtype=lib.float64), lib.tensor(s2))
        out.append(D.kl_divergence(p, q))
    _close(out[0], out[1], rtol=1e-8)
