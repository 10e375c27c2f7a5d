"""nn activations: every functional against torch (values, input gradients and second
derivatives in float64 with extreme inputs, float32 and float16), gradcheck/gradgradcheck, the
in-place forms, errors, rrelu's randomness, gumbel_softmax, and the layers (repr, options,
PReLU's parameter through state_dict, meta construction)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.ops import activation as A

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

# (name, function name in both libraries, positional args, keyword args)
CASES = [
    ("relu", "relu", (), {}),
    ("relu6", "relu6", (), {}),
    ("leaky_relu", "leaky_relu", (), {}),
    ("leaky_relu_0.2", "leaky_relu", (0.2,), {}),
    ("leaky_relu_neg", "leaky_relu", (-0.3,), {}),
    ("leaky_relu_steep", "leaky_relu", (2.5,), {}),
    ("elu", "elu", (), {}),
    ("elu_1.3", "elu", (1.3,), {}),
    ("selu", "selu", (), {}),
    ("celu_0.7", "celu", (0.7,), {}),
    ("gelu", "gelu", (), {}),
    ("gelu_tanh", "gelu", (), {"approximate": "tanh"}),
    ("silu", "silu", (), {}),
    ("mish", "mish", (), {}),
    ("softplus", "softplus", (), {}),
    ("softplus_2_5", "softplus", (2.0, 5.0), {}),
    ("softplus_neg_beta", "softplus", (-0.5, 3.0), {}),
    ("softsign", "softsign", (), {}),
    ("hardtanh", "hardtanh", (), {}),
    ("hardtanh_-0.5_2", "hardtanh", (-0.5, 2.0), {}),
    ("hardsigmoid", "hardsigmoid", (), {}),
    ("hardswish", "hardswish", (), {}),
    ("logsigmoid", "logsigmoid", (), {}),
    ("tanhshrink", "tanhshrink", (), {}),
    ("softshrink", "softshrink", (), {}),
    ("softshrink_1", "softshrink", (1.0,), {}),
    ("hardshrink", "hardshrink", (), {}),
    ("threshold", "threshold", (0.5, -2.0), {}),
    ("rrelu_eval", "rrelu", (0.1, 0.3), {}),
    ("sigmoid", "sigmoid", (), {}),
    ("tanh", "tanh", (), {}),
]
IDS = [c[0] for c in CASES]

_RNG = np.random.default_rng(0)
# random values plus the corners and tails where the formulas switch or overflow
EDGES = [
    0.0,
    -0.0,
    1e3,
    -1e3,
    30.0,
    -30.0,
    20.0,
    19.99,
    20.01,
    3.0,
    -3.0,
    6.0,
    -1.0,
    1.0,
    0.5,
    -0.5,
    1e-300,
    -1e-300,
    1e-8,
    -1e-8,
    88.0,
    -88.0,
    40.0,
    -40.0,
]
X64 = np.concatenate([_RNG.standard_normal(60) * 3, EDGES])


def _pair(name, dtype, data=X64):
    xe = ember.tensor(data.astype(dtype), requires_grad=True)
    xt = torch.tensor(data.astype(dtype), requires_grad=True)
    return xe, xt


def _call(lib_f, fname, x, args, kwargs):
    return getattr(lib_f, fname)(x, *args, **kwargs)


def _close(a, b, rtol, atol):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


# ---- values and gradients against torch ---------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_float64_values_and_gradients_match_torch(case):
    _, fname, args, kwargs = case
    xe, xt = _pair(fname, "float64")
    ye, yt = _call(F, fname, xe, args, kwargs), _call(TF, fname, xt, args, kwargs)
    _close(ye.detach().numpy(), yt.detach().numpy(), 1e-10, 1e-12)
    ge = ember.autograd.grad(ye, xe, ember.ones_like(ye) * 0.7)[0]
    gt = torch.autograd.grad(yt, xt, torch.ones_like(yt) * 0.7)[0]
    _close(ge.numpy(), gt.numpy(), 1e-10, 1e-12)


# second derivatives compared where torch's are finite (mish: torch's composite formula gives
# nan at x = 1e3, where the true value is 0)
SECOND = [
    "elu_1.3",
    "selu",
    "celu_0.7",
    "gelu",
    "gelu_tanh",
    "silu",
    "mish",
    "softplus",
    "softplus_2_5",
    "logsigmoid",
    "hardswish",
    "softsign",
    "tanhshrink",
    "sigmoid",
]


@needs_torch
@pytest.mark.parametrize("name", SECOND)
def test_second_derivatives_match_torch(name):
    _, fname, args, kwargs = CASES[IDS.index(name)]
    data = X64[np.abs(X64) < 500] if name == "mish" else X64
    xe, xt = _pair(fname, "float64", data)
    ye, yt = _call(F, fname, xe, args, kwargs), _call(TF, fname, xt, args, kwargs)
    ge = ember.autograd.grad(ye, xe, ember.ones_like(ye) * 0.7, create_graph=True)[0]
    gt = torch.autograd.grad(yt, xt, torch.ones_like(yt) * 0.7, create_graph=True)[0]
    _close(ge.detach().numpy(), gt.detach().numpy(), 1e-10, 1e-12)
    gge = ember.autograd.grad(ge.sum(), xe)[0]
    ggt = torch.autograd.grad(gt.sum(), xt)[0]
    _close(gge.numpy(), ggt.numpy(), 1e-8, 1e-10)


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_float32_values_and_gradients_match_torch(case):
    _, fname, args, kwargs = case
    data = np.concatenate([_RNG.standard_normal(2000) * 4, np.linspace(-12, 12, 241), EDGES])
    xe, xt = _pair(fname, "float32", data)
    ye, yt = _call(F, fname, xe, args, kwargs), _call(TF, fname, xt, args, kwargs)
    assert ye.dtype == ember.float32
    _close(ye.detach().numpy(), yt.detach().numpy(), 2e-6, 2e-6)
    ye.backward(ember.ones_like(ye))
    yt.backward(torch.ones_like(yt))
    _close(xe.grad.numpy(), xt.grad.numpy(), 2e-6, 2e-6)


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_float16_computes_in_float32_and_keeps_the_dtype(case):
    _, fname, args, kwargs = case
    data = np.linspace(-6, 6, 97).astype(np.float16)
    ye = _call(F, fname, ember.tensor(data), args, kwargs)
    yt = _call(TF, fname, torch.tensor(data), args, kwargs)
    assert ye.dtype == ember.float16
    _close(ye.numpy().astype(np.float32), yt.numpy().astype(np.float32), 2e-3, 2e-3)


@needs_torch
@pytest.mark.parametrize("fname", ["relu6", "hardtanh", "threshold"])
def test_integer_inputs_keep_their_dtype(fname):
    data = np.arange(-8, 9)
    args = (1, 5) if fname == "threshold" else ()
    ye = getattr(F, fname)(ember.tensor(data), *args)
    yt = getattr(TF, fname)(torch.tensor(data), *args)
    assert ye.dtype == ember.int64
    assert ye.tolist() == yt.tolist()


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_node_names_match_torch(case):
    _, fname, args, kwargs = case
    xe, xt = _pair(fname, "float64", X64[:5])
    ne = type(_call(F, fname, xe, args, kwargs).grad_fn).__name__
    nt = _call(TF, fname, xt, args, kwargs).grad_fn.name()
    if fname == "rrelu":  # NOTE: ember's eval rrelu is leaky_relu itself
        assert ne == "LeakyReluBackward0"
    else:
        assert ne == nt


# ---- finite differences -------------------------------------------------------------------------
def _away_from_kinks(n=7, seed=1):
    # finite differences need points away from the kinks at 0, +-0.5, +-1, +-3, 6 and 20
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4, 4, n)
    for k in (0.0, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0):
        x[np.abs(x - k) < 0.05] += 0.1
    return ember.tensor(x, requires_grad=True)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck(case):
    _, fname, args, kwargs = case
    f = getattr(F, fname)
    assert ember.autograd.gradcheck(lambda t: f(t, *args, **kwargs), (_away_from_kinks(),))


@pytest.mark.parametrize(
    "name",
    [
        "gelu",
        "gelu_tanh",
        "silu",
        "mish",
        "elu_1.3",
        "selu",
        "celu_0.7",
        "softplus_2_5",
        "logsigmoid",
        "hardswish",
        "leaky_relu_0.2",
        "relu",
    ],
)
def test_gradgradcheck(name):
    _, fname, args, kwargs = CASES[IDS.index(name)]
    f = getattr(F, fname)
    assert ember.autograd.gradgradcheck(lambda t: f(t, *args, **kwargs), (_away_from_kinks(),))


def test_gradcheck_prelu_glu_softmin():
    x = _away_from_kinks(12).reshape(2, 3, 2)
    w = ember.tensor([0.1, -0.3, 0.7], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(F.prelu, (x, w))
    assert ember.autograd.gradgradcheck(F.prelu, (x, w))
    w1 = ember.tensor([0.2], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(F.prelu, (x, w1))
    assert ember.autograd.gradcheck(lambda t: F.glu(t, 1), (_away_from_kinks(8).reshape(2, 4),))
    assert ember.autograd.gradcheck(lambda t: F.softmin(t, 0), (_away_from_kinks(),))


# ---- primitives against their compositions ------------------------------------------------------
COMPOSITES = {
    "gelu": lambda x: 0.5 * x * (1 + (x / 2**0.5).erf()),
    "gelu_tanh": lambda x: 0.5 * x * (1 + ((2 / np.pi) ** 0.5 * (x + 0.044715 * x**3)).tanh()),
    "silu": lambda x: x * x.sigmoid(),
    "mish": lambda x: x * (x.exp().log1p()).tanh(),
    "elu": lambda x: ember.where(x > 0, x, x.expm1()),
    "softplus": lambda x: x.exp().log1p(),
    "logsigmoid": lambda x: x.sigmoid().log(),
    "leaky_relu": lambda x: ember.where(x > 0, x, 0.01 * x),
}


@pytest.mark.parametrize("name", list(COMPOSITES))
def test_primitive_equals_the_composition(name):
    # moderate inputs, where the naive compositions are accurate
    data = np.linspace(-8, 8, 161)
    _, fname, args, kwargs = CASES[IDS.index(name)]
    xp = ember.tensor(data, requires_grad=True)
    xc = ember.tensor(data, requires_grad=True)
    yp = getattr(F, fname)(xp, *args, **kwargs)
    yc = COMPOSITES[name](xc)
    _close(yp.detach().numpy(), yc.detach().numpy(), 1e-12, 1e-14)
    yp.sum().backward()
    yc.sum().backward()
    _close(xp.grad.numpy(), xc.grad.numpy(), 1e-11, 1e-13)


# ---- in-place forms -----------------------------------------------------------------------------
INPLACE = [
    ("relu", (), F.relu_),
    ("relu6", (), None),
    ("leaky_relu", (0.2,), F.leaky_relu_),
    ("elu", (0.8,), F.elu_),
    ("selu", (), F.selu_),
    ("celu", (1.5,), F.celu_),
    ("silu", (), None),
    ("mish", (), None),
    ("hardtanh", (-0.5, 0.5), F.hardtanh_),
    ("hardsigmoid", (), None),
    ("hardswish", (), None),
    ("threshold", (0.1, 2.0), F.threshold_),
]


@needs_torch
@pytest.mark.parametrize("fname,args,under", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_writes_the_input_and_backpropagates_like_torch(fname, args, under):
    data = np.linspace(-4, 4, 17)
    grads = []
    for lib, fmod in ((ember, F), (torch, TF)):
        leaf = lib.tensor(data, requires_grad=True)
        h = leaf * 1.5
        out = getattr(fmod, fname)(h, *args, inplace=True)
        assert out is h
        (h * h).sum().backward()
        grads.append((h.detach().numpy().copy(), leaf.grad.numpy().copy()))
    _close(grads[0][0], grads[1][0], 1e-12, 1e-12)
    _close(grads[0][1], grads[1][1], 1e-12, 1e-12)
    if under is not None:  # the trailing-underscore form does the same
        x = ember.tensor(data)
        assert under(x, *args) is x
        _close(x.numpy(), getattr(TF, fname)(torch.tensor(data), *args).numpy(), 1e-12, 1e-12)


def test_inplace_on_a_leaf_that_requires_grad_raises():
    x = ember.ones(3, requires_grad=True)
    for f in (
        lambda t: F.gelu(t) if False else F.elu(t, inplace=True),
        lambda t: F.leaky_relu(t, inplace=True),
        lambda t: F.hardtanh_(t),
    ):
        with pytest.raises(RuntimeError, match="leaf"):
            f(x)


@needs_torch
def test_inplace_with_a_negative_slope_cannot_be_differentiated():
    for f, tf in ((F.leaky_relu_, TF.leaky_relu_), (F.elu_, TF.elu_)):
        with pytest.raises(RuntimeError, match="negative slope") as ee:
            f(ember.ones(3, requires_grad=True) * 1, -0.1).sum().backward()
        with pytest.raises(RuntimeError) as et:
            tf(torch.ones(3, requires_grad=True) * 1, -0.1).sum().backward()
        assert type(ee.value) is type(et.value)
    # without grad recording the negative slope is fine
    x = ember.tensor([-1.0, 2.0])
    assert F.leaky_relu_(x, -0.5).tolist() == [0.5, 2.0]


# ---- errors -------------------------------------------------------------------------------------
ERRORS = [
    ("glu", lambda m: m.glu(m_arange(m, 9).reshape(3, 3), 1)),
    ("glu_scalar", lambda m: m.glu(m_tensor(m, 1.0))),
    ("glu_dim", lambda m: m.glu(m_arange(m, 12).reshape(3, 4), 2)),
    ("gelu_approx", lambda m: m.gelu(m_arange(m, 3), approximate="foo")),
    ("gelu_int", lambda m: m.gelu(m_int(m))),
    ("elu_int", lambda m: m.elu(m_int(m))),
    ("silu_int", lambda m: m.silu(m_int(m))),
    ("softplus_int", lambda m: m.softplus(m_int(m))),
    ("leaky_int", lambda m: m.leaky_relu(m_int(m))),
    ("hardtanh_bounds", lambda m: m.hardtanh(m_arange(m, 3), 2.0, 1.0)),
    ("softshrink_lambd", lambda m: m.softshrink(m_arange(m, 3), -1.0)),
    ("rrelu_bounds", lambda m: m.rrelu(m_arange(m, 3), 0.5, 0.1, training=True)),
    ("prelu_channels", lambda m: m.prelu(m_arange(m, 24).reshape(2, 3, 4), m_arange(m, 4))),
    (
        "prelu_ndim",
        lambda m: m.prelu(m_arange(m, 24).reshape(2, 3, 4), m_arange(m, 3).reshape(3, 1)),
    ),
    ("celu_alpha", lambda m: m.celu(m_arange(m, 3), 0.0)),
    ("relu_type", lambda m: m.gelu([1.0, 2.0])),
]


def m_arange(m, n):
    lib = ember if m is F else torch
    return lib.arange(n, dtype=lib.float32) - n / 2


def m_tensor(m, v):
    return (ember if m is F else torch).tensor(v)


def m_int(m):
    return (ember if m is F else torch).arange(-3, 3)


@needs_torch
@pytest.mark.parametrize("name,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch_types_and_messages(name, call):
    with pytest.raises(Exception) as et:
        call(TF)
    with pytest.raises(type(et.value)) as ee:
        call(F)
    # torch's message leads ember's (ember's may add what to do instead)
    first = str(et.value).split("\n")[0]
    if name not in ("relu_type",):
        assert str(ee.value).startswith(first[:40]), (str(ee.value), first)


# ---- rrelu --------------------------------------------------------------------------------------
def test_rrelu_training_draws_slopes_in_range_and_backpropagates_them():
    ember.manual_seed(0)
    x = ember.tensor(
        np.r_[np.linspace(-5, -0.1, 500), 0.0, np.linspace(0.1, 5, 50)], requires_grad=True
    )
    y = F.rrelu(x, 0.1, 0.3, training=True)
    y.sum().backward()
    xn, yn, g = x.detach().numpy(), y.detach().numpy(), x.grad.numpy()
    neg = xn < 0
    slopes = yn[neg] / xn[neg]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    np.testing.assert_allclose(g[neg], slopes, rtol=1e-12)
    assert (g[xn > 0] == 1).all() and (yn[xn > 0] == xn[xn > 0]).all()
    assert 0.1 <= g[500] <= 0.3  # NOTE: matches torch: x == 0 gets a random slope too
    assert type(y.grad_fn).__name__ == "RreluWithNoiseBackward0"
    ember.manual_seed(0)
    y2 = F.rrelu(x.detach(), 0.1, 0.3, training=True)
    assert np.array_equal(y2.numpy(), yn)  # seeded: reproducible


def test_rrelu_module_follows_train_and_eval():
    m = nn.RReLU(0.1, 0.3)
    x = -ember.ones(1000)
    assert m(x).numpy().std() > 0.03
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), -0.2)
    x2 = -ember.ones(4)
    assert nn.RReLU(0.2, 0.4, inplace=True).eval()(x2) is x2
    np.testing.assert_allclose(x2.numpy(), -0.3)


# ---- gumbel_softmax -----------------------------------------------------------------------------
def test_gumbel_softmax_soft_hard_and_straight_through_gradient():
    ember.manual_seed(0)
    logits = ember.tensor(np.log([[0.7, 0.2, 0.1]] * 2000), requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(y.sum(-1).detach().numpy(), 1.0, rtol=1e-6)
    h = F.gumbel_softmax(logits, hard=True)
    hn = h.detach().numpy()
    assert set(np.unique(hn)) == {0.0, 1.0} and (hn.sum(-1) == 1).all()
    # the argmax of Gumbel-perturbed logits samples the categorical distribution
    np.testing.assert_allclose(hn.mean(0), [0.7, 0.2, 0.1], atol=0.04)
    (h * ember.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0
    g = F.gumbel_softmax(logits.detach(), dim=0)
    np.testing.assert_allclose(g.sum(0).numpy(), 1.0, rtol=1e-6)


# ---- softmin / Softmax2d ------------------------------------------------------------------------
@needs_torch
def test_softmin_and_softmax_modules_match_torch():
    data = _RNG.standard_normal((2, 3, 4, 5))
    for em, tm in (
        (nn.Softmin(1), torch.nn.Softmin(1)),
        (nn.Softmax(-1), torch.nn.Softmax(-1)),
        (nn.LogSoftmax(2), torch.nn.LogSoftmax(2)),
        (nn.Softmax2d(), torch.nn.Softmax2d()),
    ):
        _close(em(ember.tensor(data)).numpy(), tm(torch.tensor(data)).numpy(), 1e-12, 1e-14)
    _close(
        F.softmin(ember.tensor(data), 1, dtype=ember.float32).numpy(),
        TF.softmin(torch.tensor(data), 1, dtype=torch.float32).numpy(),
        1e-6,
        1e-7,
    )
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D"):
        nn.Softmax2d()(ember.ones(2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        F.softmin(ember.ones(2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        nn.Softmax()(ember.ones(2, 3))


# ---- layers -------------------------------------------------------------------------------------
def _modules(lib):
    n = lib.nn
    return [
        n.ReLU(),
        n.ReLU(True),
        n.ReLU6(),
        n.ReLU6(True),
        n.LeakyReLU(),
        n.LeakyReLU(0.2, True),
        n.PReLU(),
        n.PReLU(4, 0.1),
        n.RReLU(),
        n.RReLU(0.1, 0.3, True),
        n.ELU(),
        n.ELU(0.5, True),
        n.SELU(),
        n.SELU(True),
        n.CELU(),
        n.CELU(2.0, True),
        n.GELU(),
        n.GELU("tanh"),
        n.SiLU(),
        n.SiLU(True),
        n.Mish(),
        n.Mish(True),
        n.Softplus(),
        n.Softplus(2, 10),
        n.Softsign(),
        n.Hardtanh(),
        n.Hardtanh(-2, 2, True),
        n.Hardtanh(0.0, 6.0),
        n.Hardsigmoid(),
        n.Hardsigmoid(True),
        n.Hardswish(),
        n.Hardswish(True),
        n.Sigmoid(),
        n.Tanh(),
        n.LogSigmoid(),
        n.Tanhshrink(),
        n.Softshrink(),
        n.Hardshrink(0.3),
        n.Threshold(0.1, 20),
        n.Threshold(0.1, 20, True),
        n.GLU(),
        n.GLU(1),
        n.Softmax(),
        n.Softmax(1),
        n.LogSoftmax(1),
        n.Softmin(0),
        n.Softmax2d(),
    ]


@needs_torch
def test_reprs_and_constants_match_torch():
    for em, tm in zip(_modules(ember), _modules(torch), strict=True):
        assert repr(em) == repr(tm)
        assert getattr(type(em), "__constants__", None) == getattr(
            type(tm), "__constants__", None
        ), type(em)
        assert [k for k in vars(tm) if not k.startswith("_") and k != "training"] == [
            k for k in vars(em) if not k.startswith("_") and k != "training"
        ], type(em)


@needs_torch
@pytest.mark.parametrize("i", range(47))
def test_layer_forward_and_backward_match_torch(i):
    em, tm = _modules(ember)[i], _modules(torch)[i]
    if isinstance(em, nn.RReLU):
        em.eval()
        tm.eval()
    tm.double()
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    em.double()
    data = _RNG.standard_normal((2, 4, 3, 6)) * 3
    xe, xt = ember.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Softmax() without dim: tested elsewhere
        ye, yt = em(xe * 1), tm(xt * 1)  # through a non-leaf: in-place layers write into it
    _close(ye.detach().numpy(), yt.detach().numpy(), 1e-10, 1e-12)
    ye.backward(ember.ones_like(ye) * 0.3)
    yt.backward(torch.ones_like(yt) * 0.3)
    _close(xe.grad.numpy(), xt.grad.numpy(), 1e-10, 1e-12)
    for (ne, pe), (nt, pt) in zip(em.named_parameters(), tm.named_parameters(), strict=True):
        assert ne == nt
        _close(pe.grad.numpy(), pt.grad.numpy(), 1e-10, 1e-12)


def test_prelu_parameter_reset_dtype_and_meta():
    m = nn.PReLU(4, init=0.1, dtype=ember.float64)
    assert list(m.state_dict()) == ["weight"] and m.weight.dtype == ember.float64
    assert m.weight.tolist() == [0.1] * 4 and m.num_parameters == 4 and m.init == 0.1
    with ember.no_grad():
        m.weight.fill_(3.0)
    w = m.weight
    m.reset_parameters()
    assert m.weight is w and m.weight.tolist() == [0.1] * 4
    meta = nn.PReLU(5, device="meta")
    assert meta.weight.device.type == "meta" and meta.weight.shape == (5,)
    y = meta(ember.empty(2, 5, 7, device="meta"))
    assert y.shape == (2, 5, 7) and y.device.type == "meta"


def test_every_functional_runs_on_meta():
    x = ember.empty(2, 4, 3, device="meta", requires_grad=True)
    for case in CASES:
        _, fname, args, kwargs = case
        y = getattr(F, fname)(x, *args, **kwargs)
        assert y.shape == (2, 4, 3) and y.device.type == "meta"
        y.sum().backward()
        assert x.grad.shape == (2, 4, 3)
    assert F.glu(x, 1).shape == (2, 2, 3)
    assert F.prelu(x, ember.empty(4, device="meta")).shape == (2, 4, 3)
    assert F.rrelu(x, training=True).shape == (2, 4, 3)


def test_hardtanh_deprecated_keywords_and_bounds():
    with pytest.warns(FutureWarning, match="min_value"):
        m = nn.Hardtanh(min_value=-2.0)
    assert m.min_val == -2.0
    with pytest.raises(AssertionError, match="max_val"):
        nn.Hardtanh(1.0, 1.0)


def test_relu_backward_is_one_primitive_and_double_backward_works():
    x = ember.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    g = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (gx,) = ember.autograd.grad(F.relu(x), x, g, create_graph=True)
    assert gx.tolist() == [0.0, 0.0, 3.0]  # relu'(0) = 0
    assert type(gx.grad_fn).__name__ == "ThresholdBackwardBackward0"
    (gg,) = ember.autograd.grad(gx.sum(), g)
    assert gg.tolist() == [0.0, 0.0, 1.0]
    assert isinstance(A.relu_grad(ember.ones(2), ember.tensor([0.0, 1.0])), ember.Tensor)
