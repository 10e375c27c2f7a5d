"""Versioned default initialization (ember/nn/_default_init.py): version 1 is PyTorch's defaults
and the default; version 2 is opt-in through set_default_version or the default_version context;
an unknown version is a ValueError naming the known ones. Also nn.Bilinear against torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember import nn

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


@pytest.fixture(autouse=True)
def _restore_version():
    yield
    nn.init.set_default_version(1)


def test_version_1_is_the_default():
    assert nn.init.get_default_version() == 1


@pytest.mark.parametrize("bad", [0, 3, "2", 2.0, True, None])
def test_unknown_version_is_a_value_error_listing_the_known(bad):
    with pytest.raises(ValueError, match="known versions are 1, 2"):
        nn.init.set_default_version(bad)
    with pytest.raises(ValueError, match="known versions are 1, 2"):
        with nn.init.default_version(bad):
            pass
    assert nn.init.get_default_version() == 1


def test_context_restores_the_previous_version_even_on_error():
    nn.init.set_default_version(2)
    with pytest.raises(KeyError):
        with nn.init.default_version(1):
            assert nn.init.get_default_version() == 1
            raise KeyError("boom")
    assert nn.init.get_default_version() == 2


def test_version_1_linear_is_pytorchs_uniform():
    ember.manual_seed(0)
    m = nn.Linear(64, 500)
    bound = 1 / math.sqrt(64)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.5 * bound


# the std of a standard normal truncated to [-2, 2] (JAX's lecun_normal divides by it)
_TRUNC_STD = 0.87962566103423978


def test_the_truncation_constant_is_the_truncated_std():
    # Var of N(0, 1) truncated to [-a, a] is 1 - 2 a pdf(a) / (2 cdf(a) - 1)
    a = 2.0
    pdf = math.exp(-a * a / 2) / math.sqrt(2 * math.pi)
    z = math.erf(a / math.sqrt(2))
    assert math.sqrt(1 - 2 * a * pdf / z) == pytest.approx(_TRUNC_STD, rel=1e-12)


@pytest.mark.parametrize(
    "make, fan_in",
    [
        (lambda: nn.Linear(400, 1000), 400),
        (lambda: nn.Conv2d(16, 400, 5), 16 * 5 * 5),
        (lambda: nn.Conv1d(40, 400, 10), 400),
        (lambda: nn.ConvTranspose2d(400, 16, 5), 16 * 5 * 5),
        (lambda: nn.Bilinear(20, 20, 1000), 400),
    ],
    ids=["linear", "conv2d", "conv1d", "conv_transpose2d", "bilinear"],
)
def test_version_2_values_have_variance_one_over_fan_in(make, fan_in):
    # The intent (LeCun normal, as JAX's): the values drawn have std 1/sqrt(fan_in) after the
    # truncation, not the narrower 0.88/sqrt(fan_in) of a normal of that std cut at 2 std.
    ember.manual_seed(0)
    with nn.init.default_version(2):
        m = make()
    target = 1 / math.sqrt(fan_in)
    w = m.weight.detach().numpy()
    assert abs(w.std() - target) < 0.05 * target
    # cut at 2 std of the underlying normal, which is wider than 1/sqrt(fan_in)
    sigma = target / _TRUNC_STD
    assert np.abs(w).max() <= 2 * sigma + 1e-7
    assert np.abs(w).max() > 1.9 * sigma
    assert not m.bias.detach().numpy().any()


def test_version_2_linear_is_truncated_normal_with_zero_bias():
    ember.manual_seed(0)
    with nn.init.default_version(2):
        m = nn.Linear(100, 400)
    target = 1 / math.sqrt(100)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= 2 * target / _TRUNC_STD + 1e-7
    assert abs(w.std() - target) < 0.02 * target
    assert abs(w.mean()) < 0.01 * target * 10
    assert not m.bias.detach().numpy().any()
    assert nn.init.get_default_version() == 1


def test_version_2_is_read_when_reset_parameters_runs():
    m = nn.Linear(10, 10)
    assert m.bias.detach().numpy().any()
    nn.init.set_default_version(2)
    m.reset_parameters()
    assert not m.bias.detach().numpy().any()


def test_version_2_bilinear_uses_both_fan_ins():
    ember.manual_seed(1)
    with nn.init.default_version(2):
        m = nn.Bilinear(20, 30, 50)
    target = 1 / math.sqrt(20 * 30)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= 2 * target / _TRUNC_STD + 1e-7
    assert abs(w.std() - target) < 0.03 * target
    assert not m.bias.detach().numpy().any()


def test_version_1_bilinear_bound_is_one_over_sqrt_in1():
    ember.manual_seed(2)
    m = nn.Bilinear(16, 3, 40)
    bound = 1 / math.sqrt(16)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound


def test_versions_on_meta_allocate_nothing():
    with nn.init.default_version(2):
        m = nn.Linear(4096, 4096, device="meta")
    assert m.weight.is_meta and m.bias.is_meta


# ---- Bilinear ---------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("lead", [(5,), (2, 3), ()])
def test_bilinear_matches_torch(bias, lead):
    m = nn.Bilinear(3, 4, 6, bias=bias, dtype=ember.float64)
    t = torch.nn.Bilinear(3, 4, 6, bias=bias, dtype=torch.float64)
    t.load_state_dict(
        {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in m.state_dict().items()}
    )
    assert list(m.state_dict()) == list(t.state_dict())
    assert repr(m) == repr(t)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(lead + (3,)), rng.standard_normal(lead + (4,))
    ea, eb = ember.tensor(a, requires_grad=True), ember.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    y, z = m(ea, eb), t(ta, tb)
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(z.shape)
    y.backward(ember.tensor(g))
    z.backward(torch.tensor(g))
    for ours, theirs in [(ea.grad, ta.grad), (eb.grad, tb.grad), (m.weight.grad, t.weight.grad)]:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)
    if bias:
        np.testing.assert_allclose(m.bias.grad.numpy(), t.bias.grad.numpy(), rtol=1e-10)


@needs_torch
@pytest.mark.parametrize("shapes", [((2, 3), (2, 5)), ((2, 3), (3, 4)), ((2, 3), (4,))])
def test_bilinear_shape_errors_are_runtime_errors(shapes):
    m = nn.Bilinear(3, 4, 6)
    t = torch.nn.Bilinear(3, 4, 6)
    with pytest.raises(RuntimeError):
        t(torch.ones(shapes[0]), torch.ones(shapes[1]))
    with pytest.raises(RuntimeError, match="bilinear"):
        m(ember.ones(shapes[0]), ember.ones(shapes[1]))


def test_bilinear_gradcheck():
    rng = np.random.default_rng(3)
    args = [
        ember.tensor(rng.standard_normal(s), requires_grad=True)
        for s in [(2, 3), (2, 4), (5, 3, 4), (5,)]
    ]
    assert ember.autograd.gradcheck(nn.functional.bilinear, args)
