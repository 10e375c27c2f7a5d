"""nn.Identity and nn.Linear: construction, default init, meta, repr, and parity with torch
(weights copied through state_dict and NumPy, outputs and gradients compared)."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

import ember
from ember.nn.modules.linear import Identity, Linear, NonDynamicallyQuantizableLinear

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}


# ---- behaviour -----------------------------------------------------------------------------------
def test_linear_attributes_and_registration():
    m = Linear(3, 4)
    assert (m.in_features, m.out_features) == (3, 4)
    assert isinstance(m.weight, ember.nn.Parameter) and isinstance(m.bias, ember.nn.Parameter)
    assert m.weight.shape == (4, 3) and m.bias.shape == (4,)
    assert m.weight.dtype == ember.float32 and m.weight.requires_grad
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert list(m.state_dict()) == ["weight", "bias"]
    assert Linear.__constants__ == ["in_features", "out_features"]


def test_linear_without_bias_registers_none():
    m = Linear(3, 4, bias=False)
    assert m.bias is None
    assert "bias" in m._parameters and m._parameters["bias"] is None
    assert list(m.state_dict()) == ["weight"]
    assert m(ember.ones(2, 3)).shape == (2, 4)


def test_linear_positional_and_keyword_arguments():
    m = Linear(2, 5, False, None, ember.float64)
    assert m.bias is None and m.weight.dtype == ember.float64
    m = Linear(in_features=2, out_features=5, bias=True, device="cpu", dtype=ember.float64)
    assert m.bias.dtype == ember.float64 and m.weight.device.type == "cpu"


def test_default_init_bounds_and_spread():
    ember.manual_seed(0)
    m = Linear(50, 200)
    bound = 1 / math.sqrt(50)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # U(-bound, bound): std bound / sqrt(3); 10000 samples put it within a few percent
    assert abs(w.std() - bound / math.sqrt(3)) < 0.03 * bound
    assert np.abs(w).max() > 0.95 * bound


def test_default_init_is_deterministic_under_manual_seed():
    ember.manual_seed(123)
    a = Linear(4, 3)
    ember.manual_seed(123)
    b = Linear(4, 3)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    np.testing.assert_array_equal(a.bias.detach().numpy(), b.bias.detach().numpy())
    c = Linear(4, 3)
    assert not np.array_equal(a.weight.detach().numpy(), c.weight.detach().numpy())


def test_reset_parameters_redraws_in_place():
    m = Linear(4, 3)
    w, b = m.weight, m.bias
    before = w.detach().numpy().copy()
    m.reset_parameters()
    assert m.weight is w and m.bias is b  # same Parameters (optimizers keep them)
    assert not np.array_equal(before, w.detach().numpy())
    assert w.grad_fn is None and w.requires_grad


def test_zero_in_features_warns_like_torch():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        m = Linear(0, 3)
    np.testing.assert_array_equal(
        m(ember.ones(2, 0)).detach().numpy(), m.bias.detach().numpy() * np.ones((2, 1), np.float32)
    )


def test_forward_shapes():
    m = Linear(4, 3)
    assert m(ember.ones(4)).shape == (3,)
    assert m(ember.ones(2, 4)).shape == (2, 3)
    assert m(ember.ones(5, 2, 4)).shape == (5, 2, 3)
    assert m(ember.ones(0, 4)).shape == (0, 3)


def test_forward_wrong_features_raises():
    msg = r"mat1 and mat2 shapes cannot be multiplied \(2x5 and 4x3\)"
    with pytest.raises(RuntimeError, match=msg):
        Linear(4, 3)(ember.ones(2, 5))


def test_forward_is_differentiable_twice():
    m = Linear(3, 2, dtype=ember.float64)
    x = ember.randn(4, 3, dtype=ember.float64, requires_grad=True)
    (gx,) = ember.autograd.grad(m(x).tanh().sum(), x, create_graph=True)
    (gw,) = ember.autograd.grad(gx.square().sum(), m.weight)
    assert gw.shape == (2, 3) and bool(gw.abs().sum() > 0)


def test_meta_device_allocates_nothing():
    tracemalloc.start()
    try:
        m = Linear(100_000, 100_000, device="meta")  # 40 GB of float32 if it were real
        y = m(ember.empty(8, 100_000, device="meta"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    assert m.weight.is_meta and m.bias.is_meta
    assert m.weight.shape == (100_000, 100_000)
    assert y.is_meta and y.shape == (8, 100_000) and y.dtype == ember.float32


def test_meta_runs_on_meta_input_of_any_rank():
    m = Linear(4, 3, device="meta", dtype=ember.float64)
    for shape, out in (((4,), (3,)), ((2, 4), (2, 3)), ((5, 2, 4), (5, 2, 3))):
        y = m(ember.empty(*shape, device="meta", dtype=ember.float64))
        assert y.is_meta and y.shape == out and y.dtype == ember.float64
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        m(ember.empty(2, 5, device="meta", dtype=ember.float64))


def test_meta_module_with_default_device_context():
    with ember.device("meta"):
        m = Linear(6, 7)
    assert m.weight.is_meta and m.bias.is_meta


def test_dtype_float64():
    m = Linear(3, 2, dtype=ember.float64)
    assert m.weight.dtype == m.bias.dtype == ember.float64
    assert m(ember.ones(1, 3, dtype=ember.float64)).dtype == ember.float64
    with pytest.raises(RuntimeError, match="same dtype"):
        m(ember.ones(1, 3))


def test_double_converts_parameters_in_place():
    m = Linear(3, 2)
    w = m.weight
    m.double()
    assert m.weight is w and w.dtype == ember.float64
    assert m(ember.ones(3, dtype=ember.float64)).dtype == ember.float64


def test_identity_ignores_arguments_and_returns_input():
    m = Identity(54, unused_argument1=0.1, unused_argument2=False)
    x = ember.randn(3)
    assert m(x) is x
    assert list(m.parameters()) == []
    assert repr(m) == "Identity()"


def test_non_dynamically_quantizable_linear_is_a_linear():
    m = NonDynamicallyQuantizableLinear(3, 2, bias=False)
    assert isinstance(m, Linear) and m.bias is None
    assert repr(m) == "NonDynamicallyQuantizableLinear(in_features=3, out_features=2, bias=False)"


def test_extra_repr():
    assert Linear(3, 4).extra_repr() == "in_features=3, out_features=4, bias=True"
    assert Linear(3, 4, bias=False).extra_repr() == "in_features=3, out_features=4, bias=False"


# ---- parity with torch ---------------------------------------------------------------------------
def _pair(in_f, out_f, bias, dtype):
    """An ember Linear and a torch Linear with the same weights (through state_dict)."""
    t = torch.nn.Linear(in_f, out_f, bias=bias, dtype=getattr(torch, dtype))
    e = Linear(in_f, out_f, bias=bias, dtype=getattr(ember, dtype))
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return e, t


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize(
    "shape", [(5,), (3, 5), (2, 3, 5), (2, 1, 3, 5)], ids=lambda s: f"{len(s)}d"
)
def test_forward_backward_parity(shape, bias, dtype):
    e, t = _pair(5, 4, bias, dtype)
    rng = np.random.default_rng(len(shape) + 10 * bias)
    x = rng.standard_normal(shape).astype(dtype)
    g = rng.standard_normal(shape[:-1] + (4,)).astype(dtype)
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ey, ty = e(ex), t(tx)
    rtol, atol = TOL[dtype]
    assert str(ey.dtype) == str(ty.dtype).replace("torch", "ember")
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
    assert ey.grad_fn.name() == ty.grad_fn.name()
    ey.backward(ember.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=rtol, atol=atol)
    np.testing.assert_allclose(e.weight.grad.numpy(), t.weight.grad.numpy(), rtol=rtol, atol=atol)
    if bias:
        np.testing.assert_allclose(e.bias.grad.numpy(), t.bias.grad.numpy(), rtol=rtol, atol=atol)
    else:
        assert e.bias is None and t.bias is None


@needs_torch
def test_training_steps_match_torch():
    e, t = _pair(6, 3, True, "float64")
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.standard_normal((8, 6))
        e.zero_grad()
        t.zero_grad()
        e(ember.tensor(x)).square().mean().backward()
        t(torch.tensor(x)).square().mean().backward()
        with ember.no_grad():
            for p in e.parameters():
                p.sub_(0.1 * p.grad)
        with torch.no_grad():
            for p in t.parameters():
                p.sub_(0.1 * p.grad)
    for k, v in t.state_dict().items():
        np.testing.assert_allclose(e.state_dict()[k].numpy(), v.numpy(), rtol=1e-12, atol=1e-12)


@needs_torch
@pytest.mark.parametrize(
    "args",
    [(3, 4), (3, 4, False), (0, 1), (1, 0, False)],
    ids=["bias", "nobias", "zero_in", "zero_out"],
)
def test_repr_matches_torch(args):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zero-element init warnings (both libraries)
        assert repr(Linear(*args)) == repr(torch.nn.Linear(*args))
    assert repr(Identity(*args)) == repr(torch.nn.Identity(*args))


@needs_torch
def test_state_dict_loads_into_torch():
    e = Linear(4, 2)
    t = torch.nn.Linear(4, 2)
    t.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in e.state_dict().items()})
    x = np.ones((1, 4), np.float32)
    np.testing.assert_allclose(
        e(ember.tensor(x)).detach().numpy(),
        t(torch.tensor(x)).detach().numpy(),
        rtol=1e-6,
        atol=1e-6,
    )


@needs_torch
def test_default_init_distribution_matches_torch():
    # Not the same numbers (ember's generators are its own): the same distribution.
    ember.manual_seed(0)
    torch.manual_seed(0)
    ew = np.concatenate([Linear(64, 64).weight.detach().numpy().ravel() for _ in range(5)])
    tw = np.concatenate([torch.nn.Linear(64, 64).weight.detach().numpy().ravel() for _ in range(5)])
    assert abs(ew.max() - tw.max()) < 0.01 and abs(ew.min() - tw.min()) < 0.01
    assert abs(ew.std() - tw.std()) < 0.01 * tw.std() * 10
    np.testing.assert_allclose(
        np.quantile(ew, [0.1, 0.5, 0.9]), np.quantile(tw, [0.1, 0.5, 0.9]), atol=0.01
    )
