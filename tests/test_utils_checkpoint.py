"""ember.utils.checkpoint against torch.utils.checkpoint: same outputs and gradients, the
recomputation really happens in backward, RNG preserved, torch's errors and warnings."""

import numpy as np
import pytest

import ember
from ember.utils import checkpoint as ck

try:
    import torch
    import torch.utils.checkpoint as tck
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def _block_pair(seed=0):
    rng = np.random.default_rng(seed)
    e = ember.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    e = e.double()
    sd = {k: rng.standard_normal(tuple(v.shape)) * 0.3 for k, v in e.state_dict().items()}
    e.load_state_dict({k: ember.tensor(v) for k, v in sd.items()})
    t = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).double()
    t.load_state_dict({k: torch.tensor(v) for k, v in sd.items()})
    return e, t


@needs_torch
@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpointed_transformer_blocks_match_torch(reentrant):
    e1, t1 = _block_pair(0)
    e2, t2 = _block_pair(1)
    x = np.random.default_rng(2).standard_normal((2, 5, 8))
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ey = ck.checkpoint(e2, ck.checkpoint(e1, ex, use_reentrant=reentrant), use_reentrant=reentrant)
    ty = tck.checkpoint(
        t2, tck.checkpoint(t1, tx, use_reentrant=reentrant), use_reentrant=reentrant
    )
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-9, atol=1e-12)
    (ey**2).sum().backward()
    (ty**2).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    for (n, p), (_, q) in zip(
        list(e1.named_parameters()) + list(e2.named_parameters()),
        list(t1.named_parameters()) + list(t2.named_parameters()),
    ):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=n)


@pytest.mark.parametrize("reentrant", [True, False])
def test_recomputation_happens_in_backward_and_keeps_no_activations(reentrant):
    calls = []
    lin = ember.nn.Linear(3, 3)

    def f(x):
        calls.append(ember.is_grad_enabled())
        return lin(x).tanh()

    x = ember.randn(2, 3, requires_grad=True)
    y = ck.checkpoint(f, x * 1, use_reentrant=reentrant)
    assert len(calls) == 1
    # the graph of y does not reach f's tanh/linear nodes: one checkpoint node
    names = {type(y.grad_fn).__name__}
    assert not names & {"TanhBackward0", "AddmmBackward0", "LinearBackward0"}
    y.sum().backward()
    assert len(calls) == 2 and calls[1] is True
    ref_w = lin.weight.grad.clone()
    lin.zero_grad()
    x2 = x.detach().requires_grad_(True)
    f(x2).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), ref_w.numpy(), rtol=1e-6)


@pytest.mark.parametrize("reentrant", [True, False])
def test_preserve_rng_state_recomputes_the_same_dropout(reentrant):
    net = ember.nn.Sequential(ember.nn.Linear(6, 6), ember.nn.Dropout(0.5), ember.nn.Linear(6, 2))
    x = ember.randn(4, 6, requires_grad=True)
    ember.manual_seed(3)
    y = ck.checkpoint(net, x, use_reentrant=reentrant)
    after = ember.get_rng_state()
    y.sum().backward()
    # backward's recomputation leaves the generator where forward left it
    assert bool((ember.get_rng_state() == after).all())
    g = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    ember.manual_seed(3)
    net(x).sum().backward()
    for a, p in zip(g, net.parameters()):
        np.testing.assert_allclose(a.numpy(), p.grad.numpy(), rtol=1e-6)


def test_non_reentrant_grad_kwargs_nested_and_no_input_grad():
    lin = ember.nn.Linear(3, 2)

    def f(x, *, scale):
        h = lin(x) * scale
        return {"a": h, "b": (h.sum(), 7)}

    x = ember.randn(4, 3)  # needs no grad: parameters still get gradients (torch's behaviour)
    out = ck.checkpoint(f, x, scale=2.0, use_reentrant=False)
    assert out["b"][1] == 7
    (gw,) = ember.autograd.grad(out["a"].sum() + out["b"][0], [lin.weight])
    np.testing.assert_allclose(gw.numpy(), 4.0 * x.sum(0).expand(2, 3).numpy(), rtol=1e-6)


def test_non_reentrant_double_backward():
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    y = ck.checkpoint(lambda t: (t**3).sum(), x, use_reentrant=False)
    (g,) = ember.autograd.grad(y, x, create_graph=True)
    (gg,) = ember.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * x.detach().numpy(), rtol=1e-12)


def test_determinism_check_raises_checkpoint_error():
    state = {"n": 3}

    def f(x):
        state["n"] += 1
        return x[: state["n"]] * 2

    x = ember.randn(6, requires_grad=True)
    y = ck.checkpoint(f, x, use_reentrant=False)
    with pytest.raises(ck.CheckpointError, match="different metadata"):
        y.sum().backward()
    state["n"] = 3
    y = ck.checkpoint(f, x, use_reentrant=False, determinism_check="none")
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        ck.checkpoint(f, x, use_reentrant=False, determinism_check="foo")


def test_context_fn_runs_around_forward_and_recomputation():
    log = []

    class Ctx:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            log.append(self.name)

        def __exit__(self, *a):
            return False

    x = ember.randn(3, requires_grad=True)
    y = ck.checkpoint(
        lambda t: t.exp(), x, use_reentrant=False, context_fn=lambda: (Ctx("f"), Ctx("r"))
    )
    y.sum().backward()
    assert log == ["f", "r"]


@needs_torch
def test_errors_and_warnings_as_torch():
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        ck.checkpoint(lambda t: t, x, use_reentrant=True, context_fn=lambda: None)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: y"):
        ck.checkpoint(lambda t, y=1: t, x, use_reentrant=True, y=2)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        ck.checkpoint(lambda t: t * 2, x)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = ck.checkpoint(lambda t: t * 2, ember.ones(2), use_reentrant=True)
    assert not y.requires_grad
    assert sorted(ck.__all__) == sorted(
        n
        for n in tck.__all__
        if n
        not in (
            "CheckpointPolicy",
            "SelectiveCheckpointContext",
            "create_selective_checkpoint_contexts",
            "SAC_IGNORED_OPS",
            "GraphExecGroup",
        )
    )


@needs_torch
@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_sequential_matches_torch(reentrant):
    rng = np.random.default_rng(0)
    layers = [(8, 8), (8, 8), (8, 8), (8, 4)]
    e = ember.nn.Sequential(
        *[m for a, b in layers for m in (ember.nn.Linear(a, b), ember.nn.GELU())]
    )
    t = torch.nn.Sequential(
        *[m for a, b in layers for m in (torch.nn.Linear(a, b), torch.nn.GELU())]
    )
    e, t = e.double(), t.double()
    sd = {k: rng.standard_normal(tuple(v.shape)) for k, v in e.state_dict().items()}
    e.load_state_dict({k: ember.tensor(v) for k, v in sd.items()})
    t.load_state_dict({k: torch.tensor(v) for k, v in sd.items()})
    x = rng.standard_normal((3, 8))
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ey = ck.checkpoint_sequential(e, 3, ex, use_reentrant=reentrant)
    ty = tck.checkpoint_sequential(t, 3, tx, use_reentrant=reentrant)
    ey.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-9)
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-9)
    for p, q in zip(e.parameters(), t.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_non_reentrant_identity_and_captured_tensor():
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    h = x * 2  # made before the call and captured by the closure, not passed
    y = ck.checkpoint(lambda t: (t, (t * h).sum()), x * 1, use_reentrant=False)
    (y[0].sum() + y[1]).backward()
    # d/dx [sum(x) + sum(x * 2x)] = 1 + 4x
    np.testing.assert_allclose(x.grad.numpy(), 1 + 4 * x.detach().numpy(), rtol=1e-12)
    x.grad = None
    y = ck.checkpoint(lambda t: t, x, use_reentrant=False)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones(3))


def test_no_grad_and_nothing_requiring_grad_give_plain_outputs():
    x = ember.randn(3, requires_grad=True)
    with ember.no_grad():
        assert not ck.checkpoint(lambda t: t * 2, x, use_reentrant=False).requires_grad
    assert not ck.checkpoint(lambda t: t * 2, ember.ones(3), use_reentrant=False).requires_grad


@pytest.mark.parametrize("reentrant", [True, False])
def test_activations_are_freed_after_forward(reentrant):
    import gc
    import weakref

    lin = ember.nn.Linear(4, 4)
    refs = []

    def f(x):
        h = lin(x)
        refs.append(weakref.ref(h))
        return h.relu() * 2

    x = ember.randn(3, 4, requires_grad=True)
    y = ck.checkpoint(f, x * 1, use_reentrant=reentrant)
    gc.collect()
    assert refs[0]() is None  # the intermediate is gone: only inputs are kept
    y.sum().backward()
    assert lin.weight.grad is not None


def test_reentrant_refuses_autograd_grad_and_backward_inputs_as_torch():
    x = ember.ones(2, requires_grad=True)
    y = ck.checkpoint(lambda t: t * 2, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="incompatible with .grad"):
        ember.autograd.grad(y.sum(), x)
    y = ck.checkpoint(lambda t: t * 2, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="incompatible with .grad"):
        y.sum().backward(inputs=[x])
    # nested reentrant checkpoints: the inner backward is a plain one
    y = ck.checkpoint(
        lambda t: ck.checkpoint(lambda u: u * 3, t, use_reentrant=True), x, use_reentrant=True
    )
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
