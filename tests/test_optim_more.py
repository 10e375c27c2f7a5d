"""ember.optim's element-wise optimizers beyond SGD/Adam (Adamax, NAdam, RAdam, RMSprop, Adagrad,
Adadelta, Rprop, ASGD): trajectories step by step against torch.optim in float64 for every
option, state dicts (keys, buffers, dtypes, shapes), resuming across libraries both ways,
signatures, errors, __setstate__ and repr."""

from __future__ import annotations

import copy
import inspect

import numpy as np
import pytest

import ember
import ember.optim
from tests import test_optim as base
from tests.test_optim import (
    _assert_same,
    _assert_same_error,
    _convert,
    _dtype_name,
    _run,
    _to_ember,
    _to_torch,
    needs_torch,
    torch,
)

NAMES = ["Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta", "Rprop", "ASGD"]
SHAPES = [(3, 4), (5,), (), (2, 1, 3)]
STEPS = 60
RESUMED_STEPS = 25
# Every option that changes the update, alone and combined; betas/alpha on both sides of 1/2
# reach both formulas of lerp.
CASES = [
    ("Adamax", {}),
    ("Adamax", {"lr": 0.05, "betas": (0.3, 0.8), "eps": 1e-3}),
    ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.05, "betas": (0.3, 0.9), "momentum_decay": 0.05, "eps": 1e-4}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {}),
    ("RAdam", {"lr": 0.05, "betas": (0.3, 0.5)}),  # rho_t > 5 from step 1... and never above
    ("RAdam", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-3}),  # switches to rectified at t=6
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.3, "eps": 1e-3}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    (
        "RMSprop",
        {
            "lr": 0.01,
            "centered": True,
            "alpha": 0.4,
            "momentum": 0.5,
            "weight_decay": 0.1,
            "maximize": True,
        },
    ),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.3}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "eps": 1e-3, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.3, "eps": 1e-3}),
    ("Adadelta", {"lr": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}),
    ("Rprop", {"lr": 0.05, "maximize": True}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 10}),
    ("ASGD", {"lr": 0.05, "t0": 0, "weight_decay": 0.1, "maximize": True}),
]


def _pair(seed=0):
    """Four float64 parameters per library (the last never gets a gradient)."""
    return base._pair(seed, SHAPES)


def _groups(params, grouped):
    return base._groups(params, grouped, lr=0.003)


def _feed_grads(ep, tp, rng):
    """The gradient of a quadratic plus noise, with exact zeros (Rprop's third case), for every
    parameter but the last."""
    for e, t in zip(ep[:-1], tp[:-1]):
        shape = tuple(e.shape)
        g = t.detach().numpy() + 0.7 * rng.standard_normal(shape)
        g = np.where(rng.random(shape) < 0.15, 0.0, g)
        e.grad = ember.from_numpy(g.copy())
        t.grad = torch.from_numpy(g.copy())


def _make(lib, name, params, **kwargs):
    return getattr(lib.optim, name)(params, **kwargs)


# Every case with two groups (different lr); each optimizer's defaults also with one group.
TRAJECTORIES = [(n, kw, True) for n, kw in CASES] + [(n, {}, False) for n in NAMES]


@needs_torch
@pytest.mark.parametrize("name,kwargs,grouped", TRAJECTORIES)
def test_trajectory_matches_torch(name, kwargs, grouped):
    ep, tp = _pair()
    eo = _make(ember, name, _groups(ep, grouped), **kwargs)
    to = _make(torch, name, _groups(tp, grouped), **kwargs)
    assert eo.state_dict()["param_groups"] == to.state_dict()["param_groups"]
    rng = np.random.default_rng(1)
    for _ in range(STEPS):
        _feed_grads(ep, tp, rng)
        grads = [e.grad.numpy().copy() for e in ep[:-1]]
        eo.step()
        to.step()
        _assert_same(ep, tp, eo, to)
    # the step wrote neither into .grad nor a state for the parameter without a gradient
    assert all((e.grad.numpy() == g).all() for e, g in zip(ep, grads))
    assert ep[-1].tolist() == tp[-1].tolist()
    assert name == "Adagrad" or ep[-1] not in eo.state


@needs_torch
@pytest.mark.parametrize("name,kwargs", [c for c in CASES if c[1]])
def test_state_dict_matches_torch(name, kwargs):
    ep, tp = _pair()
    eo = _make(ember, name, _groups(ep, True), **kwargs)
    to = _make(torch, name, _groups(tp, True), **kwargs)
    _run(ep, tp, eo, to, np.random.default_rng(3), 4, _feed_grads, check=False)
    esd, tsd = eo.state_dict(), to.state_dict()
    assert esd["param_groups"] == tsd["param_groups"]
    assert list(esd["state"]) == list(tsd["state"])
    for i, ts in tsd["state"].items():
        es = esd["state"][i]
        assert list(es) == list(ts)
        for k, tv in ts.items():
            assert isinstance(es[k], ember.Tensor)
            assert _dtype_name(es[k]) == _dtype_name(tv) and tuple(es[k].shape) == tuple(tv.shape)
            np.testing.assert_allclose(es[k].numpy(), tv.numpy(), rtol=1e-12, atol=0)
    assert float(esd["state"][0]["step"]) == 4.0


@needs_torch
@pytest.mark.parametrize("direction", ["torch_to_ember", "ember_to_torch"])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_resume_across_libraries(name, kwargs, direction):
    """k steps on both, then each library restarts from one side's state dict (converted for the
    other) on fresh parameters and optimizers, and both continue."""
    ep, tp = _pair()
    eo = _make(ember, name, _groups(ep, True), **kwargs)
    to = _make(torch, name, _groups(tp, True), **kwargs)
    rng = np.random.default_rng(2)
    _run(ep, tp, eo, to, rng, 7, _feed_grads, check=False)
    # NOTE: loading casts float scalar state but `step` (NAdam's mu_product, ASGD's eta and mu)
    # to the parameter's dtype in both libraries, so both sides must load to stay equal.
    sd = to.state_dict() if direction == "torch_to_ember" else eo.state_dict()
    saved_steps = [float(st["step"]) for st in sd["state"].values()]
    esd = _convert(sd, _to_ember) if direction == "torch_to_ember" else sd
    tsd = sd if direction == "torch_to_ember" else _convert(sd, _to_torch)
    ep2, tp2 = _pair(seed=5)
    for a, b in zip(ep2, ep):
        a.data = ember.from_numpy(b.detach().numpy().copy())
    with torch.no_grad():
        for a, b in zip(tp2, tp):
            a.copy_(b)
    eo = _make(ember, name, _groups(ep2, True), lr=123.0)
    to = _make(torch, name, _groups(tp2, True), lr=123.0)
    eo.load_state_dict(esd)
    to.load_state_dict(tsd)
    ep, tp = ep2, tp2
    assert eo.param_groups[1]["lr"] == to.param_groups[1]["lr"] == 0.003
    _assert_same(ep, tp, eo, to)
    _run(ep, tp, eo, to, rng, RESUMED_STEPS, _feed_grads)
    if direction == "ember_to_torch":  # loading copied the buffers: the saved dict is intact
        assert [float(st["step"]) for st in sd["state"].values()] == saved_steps


@needs_torch
@pytest.mark.parametrize("name", NAMES)
def test_float64_default_dtype_makes_float64_scalar_state(name):
    kwargs = {"t0": 2} if name == "ASGD" else {}
    old_e, old_t = ember.get_default_dtype(), torch.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        ep, tp = _pair()
        eo, to = _make(ember, name, ep, **kwargs), _make(torch, name, tp, **kwargs)
        _run(ep, tp, eo, to, np.random.default_rng(4), 10, _feed_grads)
        assert eo.state[ep[0]]["step"].dtype == ember.float64
    finally:
        ember.set_default_dtype(old_e)
        torch.set_default_dtype(old_t)


@needs_torch
@pytest.mark.parametrize("name", NAMES)
def test_float32_parameters_match_torch(name):
    rng = np.random.default_rng(6)
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    ep = [ember.nn.Parameter(ember.from_numpy(a.copy())) for a in init]
    tp = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in init]
    kwargs = {"t0": 3} if name == "ASGD" else {"lr": 0.05} if name == "Adadelta" else {}
    eo, to = _make(ember, name, ep, **kwargs), _make(torch, name, tp, **kwargs)
    for _ in range(20):
        for e, t in zip(ep[:-1], tp[:-1]):
            g = np.asarray(t.detach().numpy() + rng.standard_normal(tuple(t.shape)), np.float32)
            e.grad, t.grad = ember.from_numpy(g.copy()), torch.from_numpy(g.copy())
        eo.step()
        to.step()
        _assert_same(ep, tp, eo, to, rtol=2e-5)


@needs_torch
@pytest.mark.parametrize("name", NAMES)
def test_signature_matches_torch(name):
    def described(cls):
        return [
            (p.name, p.kind, p.default) for p in inspect.signature(cls.__init__).parameters.values()
        ]

    assert described(getattr(ember.optim, name)) == described(getattr(torch.optim, name))


@needs_torch
@pytest.mark.parametrize("name", NAMES)
def test_repr_matches_torch(name):
    e = _make(ember, name, [ember.nn.Parameter(ember.ones(1))], lr=0.5)
    t = _make(torch, name, [torch.nn.Parameter(torch.ones(1))], lr=0.5)
    assert repr(e) == repr(t)


@needs_torch
def test_repr_of_two_groups_matches_torch():
    e = ember.optim.Adamax(
        [
            {"params": [ember.nn.Parameter(ember.ones(1))]},
            {"params": [ember.nn.Parameter(ember.ones(1))], "lr": 0.5},
        ]
    )
    t = torch.optim.Adamax(
        [
            {"params": [torch.nn.Parameter(torch.ones(1))]},
            {"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.5},
        ]
    )
    assert repr(e) == repr(t)


# Bad hyper-parameter values: torch's exception and exact message.
ARGUMENT_ERRORS = [
    ("Adamax", {"lr": -1}),
    ("Adamax", {"eps": -1}),
    ("Adamax", {"betas": (1.0, 0.9)}),
    ("Adamax", {"betas": (0.9, -0.1)}),
    ("Adamax", {"weight_decay": -1}),
    ("NAdam", {"lr": -0.5}),
    ("NAdam", {"eps": -1e-8}),
    ("NAdam", {"betas": (-0.1, 0.9)}),
    ("NAdam", {"betas": (0.9, 1.0)}),
    ("NAdam", {"weight_decay": -1}),
    ("NAdam", {"momentum_decay": -1}),
    ("RAdam", {"lr": -1}),
    ("RAdam", {"eps": -1}),
    ("RAdam", {"betas": (1.5, 0.9)}),
    ("RAdam", {"betas": (0.9, 1.5)}),
    ("RAdam", {"weight_decay": -0.1}),
    ("RMSprop", {"lr": -1}),
    ("RMSprop", {"eps": -1}),
    ("RMSprop", {"momentum": -1}),
    ("RMSprop", {"weight_decay": -1}),
    ("RMSprop", {"alpha": -1}),
    ("Adagrad", {"lr": -1}),
    ("Adagrad", {"lr_decay": -1}),
    ("Adagrad", {"weight_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}),
    ("Adagrad", {"eps": -1}),
    ("Adadelta", {"lr": -1}),
    ("Adadelta", {"rho": 1.5}),
    ("Adadelta", {"rho": -0.5}),
    ("Adadelta", {"eps": -1}),
    ("Adadelta", {"weight_decay": -1}),
    ("Rprop", {"lr": -1}),
    ("Rprop", {"etas": (0.0, 1.2)}),
    ("Rprop", {"etas": (0.5, 1.0)}),
    ("Rprop", {"etas": (1.0, 1.2)}),
    ("ASGD", {"lr": -1}),
    ("ASGD", {"weight_decay": -1}),
    # several bad values: the first in torch's order is reported
    ("RMSprop", {"alpha": -1, "eps": -1}),
    ("Adagrad", {"eps": -1, "lr_decay": -1}),
    ("NAdam", {"momentum_decay": -1, "betas": (0.9, 2.0)}),
]


@needs_torch
@pytest.mark.parametrize("name,kwargs", ARGUMENT_ERRORS)
def test_argument_errors_match_torch(name, kwargs):
    _assert_same_error(lambda lib, p: getattr(lib.optim, name)([p], **kwargs))


@needs_torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib, p: lib.optim.Adamax([p], lr=lib.tensor([0.1, 0.2])),
        lambda lib, p: lib.optim.Adamax([p], 0.1, (0.9, 0.99), 1e-8, 0, None, 1),
        lambda lib, p: lib.optim.NAdam(p),
        lambda lib, p: lib.optim.Rprop([]),
    ],
)
def test_errors_match_torch(make):
    _assert_same_error(make)


@pytest.mark.parametrize(
    "name,flags",
    [
        ("Adamax", {"capturable": True}),
        ("Adamax", {"differentiable": True}),
        ("NAdam", {"capturable": True}),
        ("RAdam", {"differentiable": True}),
        ("RMSprop", {"capturable": True}),
        ("Adagrad", {"fused": True}),
        ("Adagrad", {"differentiable": True}),
        ("Adadelta", {"capturable": True}),
        ("Rprop", {"differentiable": True}),
        ("ASGD", {"capturable": True}),
        ("SGD", {"fused": True}),
        ("SGD", {"differentiable": True}),
        ("Adam", {"capturable": True}),
        ("AdamW", {"fused": True}),
    ],
)
def test_implementation_flags_as_torch(name, flags):
    """The flags ember once refused: construction succeeds and the step runs or raises as
    torch's (tests/test_cpu_gaps.py compares every optimizer and flag in detail)."""
    if torch is None:
        pytest.skip("torch is the reference for this test")
    ep, tp = ember.nn.Parameter(ember.ones(2)), torch.nn.Parameter(torch.ones(2))
    eo, to = _make(ember, name, [ep], **flags), _make(torch, name, [tp], **flags)
    ep.grad, tp.grad = ember.ones(2), torch.ones(2)
    try:
        to.step()
    except Exception as texc:
        with pytest.raises(type(texc)) as eexc:
            eo.step()
        assert str(eexc.value) == str(texc)
    else:
        eo.step()
        np.testing.assert_allclose(ep._data, tp.detach().numpy(), rtol=1e-6)


@needs_torch
@pytest.mark.parametrize("name", NAMES)
def test_setstate_fills_missing_flags_and_tensorizes_scalars(name):
    """An optimizer pickled by an older version: flags missing from the groups, scalar state
    saved as Python numbers. __setstate__ repairs both exactly as torch does."""
    ep, tp = _pair()
    kwargs = {"t0": 1} if name == "ASGD" else {}
    eo, to = _make(ember, name, ep, **kwargs), _make(torch, name, tp, **kwargs)
    _run(ep, tp, eo, to, np.random.default_rng(8), 3, _feed_grads, check=False)
    scalars = {"NAdam": ("step", "mu_product"), "ASGD": ("step", "eta", "mu")}.get(name, ("step",))
    restored = []
    for opt in (eo, to):
        state = copy.copy(opt.__getstate__())
        state["param_groups"] = [
            {
                k: v
                for k, v in g.items()
                if k
                not in (
                    "foreach",
                    "maximize",
                    "differentiable",
                    "capturable",
                    "fused",
                    "decoupled_weight_decay",
                    "momentum",
                    "centered",
                )
            }
            for g in opt.param_groups
        ]
        for st in state["state"].values():
            for k in scalars:
                st[k] = float(st[k])
        fresh = object.__new__(type(opt))
        fresh.__setstate__(state)
        restored.append(fresh)
    enew, tnew = restored
    assert [{k: v for k, v in g.items() if k != "params"} for g in enew.param_groups] == [
        {k: v for k, v in g.items() if k != "params"} for g in tnew.param_groups
    ]
    for e, t in zip(ep[:-1], tp[:-1]):
        for k in scalars:
            assert isinstance(enew.state[e][k], ember.Tensor)
            assert _dtype_name(enew.state[e][k]) == _dtype_name(tnew.state[t][k])
            assert float(enew.state[e][k]) == float(tnew.state[t][k])


@needs_torch
def test_adagrad_state_exists_from_construction_like_torch():
    ep, tp = _pair()
    eo = ember.optim.Adagrad(_groups(ep, True), initial_accumulator_value=0.25)
    to = torch.optim.Adagrad(_groups(tp, True), initial_accumulator_value=0.25)
    _assert_same(ep, tp, eo, to, rtol=0)
    # NOTE: a group added later starts from the optimizer's default accumulator value in both.
    e_extra = ember.nn.Parameter(ember.from_numpy(np.ones(3)))
    t_extra = torch.nn.Parameter(torch.ones(3, dtype=torch.float64))
    eo.add_param_group({"params": [e_extra], "initial_accumulator_value": 5.0})
    to.add_param_group({"params": [t_extra], "initial_accumulator_value": 5.0})
    assert e_extra not in eo.state and t_extra not in to.state
    e_extra.grad = ember.from_numpy(np.full(3, 0.5))
    t_extra.grad = torch.full((3,), 0.5, dtype=torch.float64)
    eo.step()
    to.step()
    np.testing.assert_allclose(
        eo.state[e_extra]["sum"].numpy(), to.state[t_extra]["sum"].numpy(), rtol=0
    )
    np.testing.assert_allclose(e_extra.detach().numpy(), t_extra.detach().numpy(), rtol=1e-15)


@needs_torch
def test_rprop_step_sizes_start_from_the_lr_of_the_first_step():
    ep, tp = _pair()
    eo, to = ember.optim.Rprop(ep, lr=0.1), torch.optim.Rprop(tp, lr=0.1)
    rng = np.random.default_rng(9)
    for i in range(12):
        if i == 3:  # a scheduler's change reaches step sizes only of states created afterwards
            for opt in (eo, to):
                opt.param_groups[0]["lr"] = 0.02
        _feed_grads(ep, tp, rng)
        if i < 5:
            ep[1].grad = tp[1].grad = None
        eo.step()
        to.step()
        _assert_same(ep, tp, eo, to)


def test_step_bumps_version_and_records_nothing():
    for name in NAMES:
        w = ember.nn.Parameter(ember.tensor([2.0, -1.0]))
        opt = _make(ember, name, [w])
        (w * w).sum().backward()
        v = w._version
        opt.step()
        assert w._version == v + 1, name
        assert w.grad_fn is None and all(s.grad_fn is None for s in opt.state[w].values())
        assert w.grad.tolist() == [4.0, -2.0], name


@needs_torch
@pytest.mark.parametrize("name", NAMES)
def test_tensor_lr_matches_torch(name):
    ep, tp = _pair()
    kwargs = {"t0": 2} if name == "ASGD" else {}
    eo = _make(ember, name, ep, lr=ember.tensor(0.03), **kwargs)
    to = _make(torch, name, tp, lr=torch.tensor(0.03), **kwargs)
    _run(ep, tp, eo, to, np.random.default_rng(10), 10, _feed_grads)


@needs_torch
@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("Adamax", {"weight_decay": 0.1}),
        ("NAdam", {"maximize": True}),
        ("RAdam", {}),
        ("RMSprop", {"centered": True, "momentum": 0.9}),
        ("RMSprop", {}),
        ("Adagrad", {}),
        ("Adadelta", {}),
        ("Rprop", {}),
        ("ASGD", {"t0": 2}),
    ],
)
def test_large_parameters_updated_in_blocks_match_torch(name, kwargs):
    """Parameters larger than one block (updated block by block), one with a non-contiguous
    gradient (updated whole)."""
    rng = np.random.default_rng(11)
    shapes = [(300, 257), (257, 300)]
    init = [rng.standard_normal(s) for s in shapes]
    ep = [ember.nn.Parameter(ember.from_numpy(a.copy())) for a in init]
    tp = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in init]
    eo, to = _make(ember, name, ep, **kwargs), _make(torch, name, tp, **kwargs)
    for _ in range(6):
        for i, (e, t) in enumerate(zip(ep, tp)):
            g = t.detach().numpy() + rng.standard_normal(tuple(t.shape))
            g = np.where(rng.random(g.shape) < 0.1, 0.0, g)
            e.grad = ember.from_numpy(np.ascontiguousarray(g.T).T if i else g.copy())
            t.grad = torch.from_numpy(g.copy())
        assert ep[0].grad._data.flags.c_contiguous and not ep[1].grad._data.flags.c_contiguous
        eo.step()
        to.step()
        _assert_same(ep, tp, eo, to)
