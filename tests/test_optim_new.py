"""Adafactor and Muon (issue 12): trajectories step by step against torch.optim, flags, state
dict round trips with torch, and torch's argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.optim

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _pair(shapes, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    ep = [ember.nn.Parameter(ember.tensor(a)) for a in arrays]
    tp = [torch.nn.Parameter(torch.tensor(a)) for a in arrays]
    return ep, tp


def _run(ep, tp, eo, to, steps, rtol=1e-12, atol=0.0, seed=1):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        for e, t in zip(ep, tp):
            g = rng.standard_normal(tuple(e.shape)).astype(str(e.dtype).split(".")[1])
            e.grad, t.grad = ember.tensor(g), torch.tensor(g)
        eo.step()
        to.step()
        for e, t in zip(ep, tp):
            np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def _to_torch(v):
    return torch.tensor(v.numpy()) if isinstance(v, ember.Tensor) else v


def _to_ember(v):
    return ember.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v


def _convert(sd, f):
    return {
        "state": {k: {n: f(v) for n, v in st.items()} for k, st in sd["state"].items()},
        "param_groups": [dict(g) for g in sd["param_groups"]],
    }


# ---- Adafactor ---------------------------------------------------------------------------------
ADAFACTOR_SHAPES = [(3, 4), (5,), (2, 3, 4), ()]
ADAFACTOR_CASES = [
    {},
    {"lr": 0.5, "weight_decay": 0.1},
    {"maximize": True, "lr": 0.05},
    {"eps": (1e-20, 1e-2), "d": 1.5, "beta2_decay": -0.5},
    {"foreach": True, "weight_decay": 0.05},
    {"foreach": False, "maximize": True, "weight_decay": 0.2, "lr": 0.3},
]


@needs_torch
@pytest.mark.parametrize("kwargs", ADAFACTOR_CASES)
def test_adafactor_trajectory_matches_torch(kwargs):
    ep, tp = _pair(ADAFACTOR_SHAPES)
    eo, to = ember.optim.Adafactor(ep, **kwargs), torch.optim.Adafactor(tp, **kwargs)
    assert sorted(eo.param_groups[0]) == sorted(to.param_groups[0])
    _run(ep, tp, eo, to, 6)


@needs_torch
def test_adafactor_float32_matches_torch():
    ep, tp = _pair([(6, 5), (7,)], "float32")
    eo, to = ember.optim.Adafactor(ep, lr=0.1), torch.optim.Adafactor(tp, lr=0.1)
    _run(ep, tp, eo, to, 5, rtol=1e-5, atol=1e-6)


@needs_torch
def test_adafactor_state_dict_round_trip_with_torch():
    ep, tp = _pair(ADAFACTOR_SHAPES)
    eo = ember.optim.Adafactor(ep, lr=0.2, weight_decay=0.1)
    to = torch.optim.Adafactor(tp, lr=0.2, weight_decay=0.1)
    _run(ep, tp, eo, to, 3)
    sd = eo.state_dict()
    assert sorted(sd["state"][0]) == sorted(to.state_dict()["state"][0])
    assert sorted(sd["state"][3]) == ["step", "variance"]
    # torch resumes from ember's state and ember from torch's: both continue identically
    to2 = torch.optim.Adafactor(tp, lr=1.0)
    to2.load_state_dict(_convert(sd, _to_torch))
    eo2 = ember.optim.Adafactor(ep, lr=1.0)
    eo2.load_state_dict(_convert(to.state_dict(), _to_ember))
    assert eo2.param_groups[0]["lr"] == 0.2
    _run(ep, tp, eo2, to2, 3)


@needs_torch
@pytest.mark.parametrize(
    "kwargs",
    [
        {"lr": -1.0},
        {"beta2_decay": 0.5},
        {"eps": (-1.0, 1e-3)},
        {"eps": (None, -1.0)},
        {"d": 0.5},
        {"weight_decay": -0.1},
    ],
)
def test_adafactor_argument_errors_match_torch(kwargs):
    with pytest.raises(ValueError) as want:
        torch.optim.Adafactor([torch.zeros(2, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError) as got:
        ember.optim.Adafactor([ember.zeros(2, requires_grad=True)], **kwargs)
    assert str(got.value) == str(want.value)


@needs_torch
def test_adafactor_refuses_complex_as_torch():
    e = ember.zeros(2, dtype=ember.complex64, requires_grad=True)
    e.grad = ember.ones(2, dtype=ember.complex64)
    t = torch.zeros(2, dtype=torch.complex64, requires_grad=True)
    t.grad = torch.ones(2, dtype=torch.complex64)
    with pytest.raises(RuntimeError) as want:
        torch.optim.Adafactor([t]).step()
    with pytest.raises(RuntimeError) as got:
        ember.optim.Adafactor([e]).step()
    assert str(got.value) == str(want.value)


# ---- Muon --------------------------------------------------------------------------------------
MUON_CASES = [
    {},
    {"lr": 0.05, "weight_decay": 0.3, "nesterov": False, "momentum": 0.8},
    {"adjust_lr_fn": "match_rms_adamw", "ns_steps": 3, "eps": 1e-3},
    {"adjust_lr_fn": "original", "ns_coefficients": (3.0, -3.2, 1.2), "weight_decay": 0.0},
]


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kwargs", MUON_CASES)
def test_muon_trajectory_matches_torch_bit_for_bit(kwargs, dtype):
    # small matrices: every bfloat16 product sums few terms, so the rounding is torch's exactly
    ep, tp = _pair([(3, 4), (6, 3), (5, 5)], dtype)
    eo, to = ember.optim.Muon(ep, **kwargs), torch.optim.Muon(tp, **kwargs)
    assert sorted(eo.param_groups[0]) == sorted(to.param_groups[0])
    _run(ep, tp, eo, to, 6, rtol=0.0)


@needs_torch
def test_muon_large_matrices_within_a_bfloat16_rounding():
    # torch's bfloat16 GEMM sums long rows in its own blocked order; a float32 partial sum
    # that lands on a bfloat16 rounding boundary can round the other way, so large
    # matrices agree to the update's bfloat16 resolution (lr * 2^-8), not bit for bit
    ep, tp = _pair([(64, 48), (40, 90)])
    eo, to = ember.optim.Muon(ep, lr=0.02), torch.optim.Muon(tp, lr=0.02)
    _run(ep, tp, eo, to, 4, rtol=0.0, atol=0.02 * 2**-7)


@needs_torch
def test_muon_state_dict_round_trip_with_torch():
    ep, tp = _pair([(3, 4), (4, 2)])
    eo, to = ember.optim.Muon(ep, lr=0.1), torch.optim.Muon(tp, lr=0.1)
    _run(ep, tp, eo, to, 2, rtol=0.0)
    to2 = torch.optim.Muon(tp, lr=1.0)
    to2.load_state_dict(_convert(eo.state_dict(), _to_torch))
    eo2 = ember.optim.Muon(ep, lr=1.0)
    eo2.load_state_dict(_convert(to.state_dict(), _to_ember))
    assert sorted(eo2.state_dict()["state"][0]) == ["momentum_buffer"]
    _run(ep, tp, eo2, to2, 2, rtol=0.0)


@needs_torch
@pytest.mark.parametrize(
    "kwargs,params",
    [
        ({"lr": -1.0}, [(2, 2)]),
        ({"momentum": -1.0}, [(2, 2)]),
        ({"weight_decay": -1.0}, [(2, 2)]),
        ({"adjust_lr_fn": "nope"}, [(2, 2)]),
        ({}, [(2, 2), (3,)]),
    ],
)
def test_muon_argument_errors_match_torch(kwargs, params):
    with pytest.raises(ValueError) as want:
        torch.optim.Muon([torch.zeros(s, requires_grad=True) for s in params], **kwargs)
    with pytest.raises(ValueError) as got:
        ember.optim.Muon([ember.zeros(s, requires_grad=True) for s in params], **kwargs)
    assert str(got.value).replace("ember.Size", "torch.Size") == str(want.value)


@needs_torch
@pytest.mark.parametrize("kwargs", [{"ns_steps": 100}, {"ns_coefficients": (1.0, 2.0)}])
def test_muon_newton_schulz_errors_match_torch(kwargs):
    e = ember.zeros(2, 2, requires_grad=True)
    e.grad = ember.ones(2, 2)
    t = torch.zeros(2, 2, requires_grad=True)
    t.grad = torch.ones(2, 2)
    with pytest.raises(ValueError) as want:
        torch.optim.Muon([t], **kwargs).step()
    with pytest.raises(ValueError) as got:
        ember.optim.Muon([e], **kwargs).step()
    assert str(got.value) == str(want.value)


# ---- swap_in_optimizer_params_and_state ---------------------------------------------------------
def _swap_story(mod):
    """Train a live Adam 2 steps, then step copies inside the context; return what changed."""
    rng = np.random.default_rng(4)
    w0, b0 = rng.standard_normal((3, 2)), rng.standard_normal(3)
    w, b = (mod.nn.Parameter(mod.tensor(a)) for a in (w0, b0))
    opt = mod.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1)
    for _ in range(2):
        w.grad, b.grad = mod.tensor(np.ones((3, 2))), mod.tensor(np.full(3, 0.5))
        opt.step()
    sd = opt.state_dict()
    trial_state = {
        "state": {k: {n: v.clone() for n, v in st.items()} for k, st in sd["state"].items()},
        "param_groups": [dict(g, lr=0.5) for g in sd["param_groups"]],
    }
    tw, tb = w.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    tw.grad, tb.grad = mod.tensor(np.full((3, 2), 2.0)), mod.tensor(np.full(3, -1.0))
    with mod.optim.swap_in_optimizer_params_and_state(opt, {"w": tw, "b": tb}, trial_state):
        inside_lr = [g["lr"] for g in opt.param_groups]
        opt.step()
    return {
        "inside_lr": inside_lr,
        "after_lr": [g["lr"] for g in opt.param_groups],
        "live": [w.detach().numpy().tolist(), b.detach().numpy().tolist()],
        "trial": [tw.detach().numpy().tolist(), tb.detach().numpy().tolist()],
        "trial_steps": [float(st["step"]) for st in trial_state["state"].values()],
        "trial_avg": trial_state["state"][0]["exp_avg"].numpy().tolist(),
        "live_steps": [float(opt.state[p]["step"]) for p in (w, b)],
        "params_restored": opt.param_groups[0]["params"][0] is w,
    }


@needs_torch
def test_swap_in_optimizer_params_and_state_matches_torch():
    ours, theirs = _swap_story(ember), _swap_story(torch)
    for key in theirs:
        if key in ("live", "trial"):
            for a, b in zip(ours[key], theirs[key]):
                np.testing.assert_allclose(a, b, rtol=1e-12)
        elif key == "trial_avg":
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-12)
        else:
            assert ours[key] == theirs[key], key


@needs_torch
@pytest.mark.parametrize(
    "mutate",
    [
        lambda sd: sd.update(state=[]),
        lambda sd: sd.update(param_groups={}),
        lambda sd: sd["param_groups"].append({}),
        lambda sd: sd["param_groups"][0].update(params=["a"]),
        lambda sd: sd["param_groups"][0].update(extra=1),
        lambda sd: sd["state"].update({7: {}}),
        lambda sd: sd["state"].update({0: 1}),
    ],
)
def test_swap_in_errors_match_torch(mutate):
    messages = []
    for mod in (torch, ember):
        w = mod.nn.Parameter(mod.ones(2))
        opt = mod.optim.SGD([w], lr=0.1, momentum=0.9)
        w.grad = mod.ones(2)
        opt.step()
        sd = opt.state_dict()
        sd = {"state": dict(sd["state"]), "param_groups": [dict(g) for g in sd["param_groups"]]}
        mutate(sd)
        with pytest.raises(RuntimeError) as err:
            with mod.optim.swap_in_optimizer_params_and_state(opt, {"w": w}, sd):
                pass
        messages.append(str(err.value))
    assert messages[1] == messages[0]


@needs_torch
def test_swap_in_needs_initialized_state_as_torch():
    messages = []
    for mod in (torch, ember):
        opt = mod.optim.SGD([mod.nn.Parameter(mod.ones(2))], lr=0.1)
        with pytest.raises(RuntimeError) as err:
            with mod.optim.swap_in_optimizer_params_and_state(opt, {}, opt.state_dict()):
                pass
        messages.append(str(err.value))
    assert messages[1] == messages[0]
