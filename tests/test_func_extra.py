"""ember.func's stack_module_state (model ensembling), functionalize, linearize,
replace_all_batch_norm_modules_ and debug_unwrap, against torch.func."""

import numpy as np
import pytest

import ember
import ember.nn as enn
from ember.func import (
    debug_unwrap,
    functional_call,
    functionalize,
    linearize,
    replace_all_batch_norm_modules_,
    stack_module_state,
    vmap,
)

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _mlp(nn):
    """The model of torch's "model ensembling" tutorial (smaller), in ember or torch."""

    class SimpleMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(12, 16)
            self.fc2 = nn.Linear(16, 8)
            self.fc3 = nn.Linear(8, 5)

        def forward(self, x):
            x = x.flatten(1)
            x = nn.functional.relu(self.fc1(x))
            x = nn.functional.relu(self.fc2(x))
            return self.fc3(x)

    return SimpleMLP


def _ensemble_pair(num_models=4, with_bn=False):
    rng = np.random.default_rng(0)
    Emlp, Tmlp = _mlp(ember.nn), _mlp(torch.nn)
    emodels, tmodels = [], []
    for _ in range(num_models):
        t = Tmlp().double()
        if with_bn:
            t.bn = torch.nn.BatchNorm1d(5).double()
        e = Emlp().to(ember.float64)
        if with_bn:
            e.bn = enn.BatchNorm1d(5).to(ember.float64)
        for p in t.parameters():
            p.data = torch.tensor(rng.standard_normal(tuple(p.shape)))
        e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
        emodels.append(e)
        tmodels.append(t)
    return emodels, tmodels


def _np(t):
    return t.detach().numpy()


@needs_torch
@pytest.mark.parametrize("same_minibatch", [False, True])
def test_model_ensembling_tutorial(same_minibatch):
    # torch's tutorial: stack_module_state + vmap(functional_call) == looping over the models
    emodels, tmodels = _ensemble_pair()
    rng = np.random.default_rng(1)
    shape = (8, 3, 4) if same_minibatch else (4, 8, 3, 4)
    data = rng.standard_normal(shape)

    tparams, tbuffers = torch.func.stack_module_state(tmodels)
    eparams, ebuffers = stack_module_state(emodels)
    assert (
        list(eparams)
        == list(tparams)
        == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias"]
    )
    assert ebuffers == {} and tbuffers == {}
    for k in tparams:
        assert tuple(eparams[k].shape) == tuple(tparams[k].shape)
        assert eparams[k].is_leaf and eparams[k].requires_grad
        np.testing.assert_allclose(_np(eparams[k]), _np(tparams[k]), rtol=1e-12)

    tmeta, emeta = tmodels[0], emodels[0]  # the modules whose forward runs each member

    def tcall(p, b, x):
        return torch.func.functional_call(tmeta, (p, b), (x,))

    def ecall(p, b, x):
        return functional_call(emeta, (p, b), (x,))

    dims = (0, 0, None) if same_minibatch else (0, 0, 0)
    tout = torch.vmap(tcall, in_dims=dims)(tparams, tbuffers, torch.tensor(data))
    eout = vmap(ecall, in_dims=dims)(eparams, ebuffers, ember.tensor(data))
    assert tuple(eout.shape) == tuple(tout.shape) == (4, 8, 5)
    np.testing.assert_allclose(_np(eout), _np(tout), rtol=1e-10, atol=1e-12)
    # and the same as running each model on its own
    for i, m in enumerate(emodels):
        x = ember.tensor(data if same_minibatch else data[i])
        np.testing.assert_allclose(_np(eout[i]), _np(m(x)), rtol=1e-12, atol=1e-12)

    # gradients reach the stacked leaves (what an optimizer over the ensemble needs)
    tout.square().sum().backward()
    eout.square().sum().backward()
    for k in tparams:
        np.testing.assert_allclose(
            _np(eparams[k].grad), _np(tparams[k].grad), rtol=1e-9, atol=1e-12
        )
    # the models' own parameters are untouched and got no gradient
    assert all(p.grad is None for m in emodels for p in m.parameters())


@needs_torch
def test_stack_module_state_buffers_and_no_grad():
    emodels, tmodels = _ensemble_pair(3, with_bn=True)
    for e, t in zip(emodels, tmodels, strict=True):
        e.fc1.bias.requires_grad_(False)
        t.fc1.bias.requires_grad_(False)
    ep, eb = stack_module_state(emodels)
    tp, tb = torch.func.stack_module_state(tmodels)
    assert list(eb) == list(tb) == ["bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]
    for k in tb:
        assert str(eb[k].dtype).split(".")[-1] == str(tb[k].dtype).split(".")[-1]
        assert tuple(eb[k].shape) == tuple(tb[k].shape)
        assert not eb[k].requires_grad
    assert not ep["fc1.bias"].requires_grad and ep["fc1.weight"].requires_grad


def test_stack_module_state_errors():
    with pytest.raises(RuntimeError, match="Expected at least one model, got 0"):
        stack_module_state([])
    a, b = enn.Linear(2, 2), enn.Linear(2, 2)
    b.eval()
    with pytest.raises(RuntimeError, match="same training/eval mode"):
        stack_module_state([a, b])
    with pytest.raises(RuntimeError, match="same class"):
        stack_module_state([a, enn.Bilinear(2, 2, 2)])
    c = enn.Linear(2, 2)
    c.bias.requires_grad_(False)
    with pytest.raises(RuntimeError, match="Expected bias from each model to have the same"):
        stack_module_state([a, c])
    if torch is not None:
        with pytest.raises(RuntimeError, match="Expected weight from each model to have the same"):
            torch.func.stack_module_state(
                [torch.nn.Linear(2, 2), torch.nn.Linear(2, 2).requires_grad_(False)]
            )


@needs_torch
def test_functionalize_matches_torch():
    def f(x):
        y = x.view(-1)
        y.add_(1)
        z = x * 2
        z.mul_(3)
        return y, z, x

    ta, ea = torch.ones(2, 2, dtype=torch.float64), ember.ones(2, 2, dtype=ember.float64)
    tout = torch.func.functionalize(f)(ta)
    eout = functionalize(f, remove="mutations_and_views")(ea)
    np.testing.assert_array_equal(_np(ea), _np(ta))  # the input mutation is kept
    for e, t in zip(eout, tout, strict=True):
        np.testing.assert_array_equal(_np(e), _np(t))
        assert e._base is None and e is not ea  # fresh tensors, as torch's
    ea.add_(5)
    assert float(eout[0][0]) == 2.0

    # gradients flow through as through the function itself
    x = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    functionalize(lambda v: (v.clone().mul_(v)).sum())(x).backward()
    np.testing.assert_array_equal(_np(x.grad), [2.0, 4.0])
    assert functionalize(f).__name__ == "f"


def test_functionalize_bad_remove():
    with pytest.raises(RuntimeError, match="received invalid argument for remove=views"):
        functionalize(lambda x: x, remove="views")
    if torch is not None:
        with pytest.raises(RuntimeError, match="received invalid argument for remove=views"):
            torch.func.functionalize(lambda x: x, remove="views")


_TORCH_TRACE_WARNS = pytest.mark.filterwarnings(
    "ignore::DeprecationWarning",
    "ignore::UserWarning",  # torch's linearize traces with fx
)


@needs_torch
@_TORCH_TRACE_WARNS
def test_linearize_matches_torch():
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal(4)
    t1, t2 = rng.standard_normal((3, 4)), rng.standard_normal(4)

    def make(lib):
        def f(a, b):
            return lib.sin(a) * b, (a @ b).exp()

        return f

    # torch.func.jvp is the oracle: torch's linearize gives its numbers, after seconds of tracing
    tprimals = (torch.tensor(x), torch.tensor(y))
    tout, tt = torch.func.jvp(make(torch), tprimals, (torch.tensor(t1), torch.tensor(t2)))
    eout, ej = linearize(make(ember), ember.tensor(x), ember.tensor(y))
    for e, t in zip(eout, tout, strict=True):
        np.testing.assert_allclose(_np(e), _np(t), rtol=1e-12)
    for _ in range(2):  # jvp_fn is reusable
        et = ej(ember.tensor(t1), ember.tensor(t2))
        for e, t in zip(et, tt, strict=True):
            np.testing.assert_allclose(_np(e), _np(t), rtol=1e-10)


def test_linearize_errors():
    # torch's messages (torch.func.linearize(torch.sin, torch.zeros(3)) takes seconds to trace,
    # so its wording is spelled out here)
    _, ej = linearize(ember.sin, ember.zeros(3))
    with pytest.raises(RuntimeError) as e:
        ej(ember.ones(2))
    assert str(e.value) == (
        "tangent:0 with shape ember.Size([2]) in flattened pytree doesn't match the shape "
        "ember.Size([3]) of the corresponding primal."
    )
    with pytest.raises(RuntimeError) as e:
        ej(ember.ones(3, dtype=ember.float64))
    assert str(e.value) == (
        "tangent:0 with dtype ember.float64 in flattened pytree doesn't match the dtype "
        "ember.float32 of the corresponding primal."
    )
    with pytest.raises(RuntimeError, match="Expected the tangents .* same argspec as the primals"):
        ej(ember.ones(3), ember.ones(3))


@needs_torch
def test_replace_all_batch_norm_modules_():
    def build(nn):
        return nn.Sequential(
            nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Sequential(nn.BatchNorm1d(4)), nn.ReLU()
        )

    enet, tnet = build(enn), build(torch.nn)
    assert replace_all_batch_norm_modules_(enet) is enet
    torch.func.replace_all_batch_norm_modules_(tnet)
    for e, t in zip(enet.modules(), tnet.modules(), strict=True):
        if isinstance(t, torch.nn.BatchNorm1d):
            assert e.running_mean is None and e.running_var is None
            assert e.num_batches_tracked is None and e.track_running_stats is False
    assert list(enet.state_dict()) == list(tnet.state_dict())
    # eval mode now normalizes with batch statistics, as torch's
    enet.eval()
    tnet.eval()
    x = np.random.default_rng(3).standard_normal((5, 3))
    tnet.load_state_dict({k: torch.tensor(v.numpy()) for k, v in enet.state_dict().items()})
    np.testing.assert_allclose(
        _np(enet(ember.tensor(x, dtype=ember.float32))),
        _np(tnet(torch.tensor(x, dtype=torch.float32))),
        rtol=1e-5,
        atol=1e-6,
    )
    # the root itself may be a BatchNorm
    bn = enn.BatchNorm2d(3)
    replace_all_batch_norm_modules_(bn)
    assert bn.running_mean is None and not bn.track_running_stats


def test_debug_unwrap_is_identity():
    x = ember.ones(2)
    assert debug_unwrap(x) is x and debug_unwrap(x, recurse=False) is x
    seen = []
    vmap(lambda r: seen.append(debug_unwrap(r)) or r)(ember.ones(2, 3))
    assert all(tuple(s.shape) == (3,) for s in seen)
