"""ember.optim (Optimizer, SGD, Adam, AdamW): trajectories step by step against torch.optim in
float64, parameter groups, state_dict round trips with torch, errors and zero_grad."""

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

SHAPES = [(3, 4), (4,), ()]
SGD_CASES = [
    {"lr": 0.1},
    {"lr": 0.1, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "dampening": 0.3},
    {"lr": 0.1, "momentum": 0.8, "nesterov": True},
    {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1},
    {"lr": 0.1, "weight_decay": 0.2, "maximize": True},
    {"lr": 0.1, "momentum": 0.5, "nesterov": True, "weight_decay": 0.1, "maximize": True},
]
ADAM_CASES = [
    {},
    {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-6},
    {"lr": 0.05, "weight_decay": 0.1},
    {"lr": 0.05, "amsgrad": True},
    {"lr": 0.05, "maximize": True, "weight_decay": 0.1, "amsgrad": True},
]
CASES = (
    [("SGD", kw) for kw in SGD_CASES]
    + [("Adam", kw) for kw in ADAM_CASES]
    + [("AdamW", kw) for kw in ADAM_CASES]
)


def _to_torch(x):
    if isinstance(x, ember.Tensor):
        return torch.from_numpy(np.array(x.numpy()))
    return x


def _to_ember(x):
    if isinstance(x, torch.Tensor):
        return ember.from_numpy(np.array(x.numpy()))
    return x


def _convert(sd, fn):
    return {
        "state": {i: {k: fn(v) for k, v in s.items()} for i, s in sd["state"].items()},
        "param_groups": [dict(g) for g in sd["param_groups"]],
    }


def _pair(seed=0, shapes=SHAPES):
    """One float64 parameter per shape in each library, with the same values."""
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s) for s in shapes]
    ep = [ember.nn.Parameter(ember.from_numpy(a.copy())) for a in init]
    tp = [torch.nn.Parameter(torch.from_numpy(a.copy())) for a in init]
    return ep, tp


def _groups(params, grouped, lr=0.01):
    if not grouped:
        return params
    return [{"params": params[:2]}, {"params": params[2:], "lr": lr}]


def _feed_grads(ep, tp, rng):
    for e, t in zip(ep, tp):
        g = rng.standard_normal(tuple(e.shape))
        e.grad = ember.from_numpy(g.copy())
        t.grad = torch.from_numpy(g.copy())


def _dtype_name(x):
    return str(x.dtype).split(".")[1]


def _assert_same(ep, tp, eo, to, rtol=1e-10):
    """Parameters and every state buffer equal (keys, order, dtype, shape, values to rtol)."""
    assert len(eo.state) == len(to.state)
    names, ours, theirs = [], [], []
    for i, (e, t) in enumerate(zip(ep, tp)):
        names.append(f"param {i}")
        ours.append(e._data)
        theirs.append(t.detach().numpy())
        es, ts = eo.state.get(e, {}), to.state.get(t, {})
        assert list(es) == list(ts)
        for k, tv in ts.items():
            ev = es[k]
            assert _dtype_name(ev) == _dtype_name(tv) and tuple(ev.shape) == tuple(tv.shape), k
            names.append(f"param {i} {k}")
            ours.append(ev._data)
            theirs.append(tv.numpy())
    # one comparison of everything (per-array assert_allclose calls dominate the test's time)
    a = np.concatenate([np.ravel(x).astype(np.float64) for x in ours])
    b = np.concatenate([np.ravel(x).astype(np.float64) for x in theirs])
    if not np.allclose(a, b, rtol=rtol, atol=1e-13):
        for n, x, y in zip(names, ours, theirs):
            np.testing.assert_allclose(
                np.asarray(x, dtype=np.float64),
                y.astype(np.float64),
                rtol=rtol,
                atol=1e-13,
                err_msg=n,
            )


def _assert_same_error(make):
    """``make(lib, parameter)`` raises in ember the exception torch raises: type and message."""
    with pytest.raises(Exception) as texc:
        make(torch, torch.nn.Parameter(torch.ones(2)))
    with pytest.raises(type(texc.value)) as eexc:
        make(ember, ember.nn.Parameter(ember.ones(2)))
    assert str(eexc.value) == str(texc.value)


def _run(ep, tp, eo, to, rng, steps, feed=_feed_grads, check=True):
    """``steps`` steps of both optimizers on the same fresh gradients (from ``feed``), compared
    after each one when ``check``."""
    for _ in range(steps):
        feed(ep, tp, rng)
        eo.step()
        to.step()
        if check:
            _assert_same(ep, tp, eo, to)


@needs_torch
@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_trajectory_matches_torch(name, kwargs, grouped):
    ep, tp = _pair()
    eo = getattr(ember.optim, name)(_groups(ep, grouped), **kwargs)
    to = getattr(torch.optim, name)(_groups(tp, grouped), **kwargs)
    assert [sorted(g) for g in eo.param_groups] == [sorted(g) for g in to.param_groups]
    _run(ep, tp, eo, to, np.random.default_rng(1), 5)


@needs_torch
@pytest.mark.parametrize("direction", ["torch_to_ember", "ember_to_torch"])
@pytest.mark.parametrize("name,kwargs", [CASES[1], CASES[3], CASES[len(SGD_CASES) + 3], CASES[-1]])
def test_state_dict_round_trip_with_torch(name, kwargs, direction):
    ep, tp = _pair()
    eo = getattr(ember.optim, name)(_groups(ep, True), **kwargs)
    to = getattr(torch.optim, name)(_groups(tp, True), **kwargs)
    rng = np.random.default_rng(2)
    # both train the same 3 steps, then one side resumes from the other's dict
    _run(ep, tp, eo, to, rng, 3, check=False)
    if direction == "torch_to_ember":
        ep2, _ = _pair()
        for a, b in zip(ep2, tp):
            a.data = ember.from_numpy(b.detach().numpy().copy())
        eo = getattr(ember.optim, name)(_groups(ep2, True), lr=123.0)
        eo.load_state_dict(_convert(to.state_dict(), _to_ember))
        ep = ep2
    else:
        _, tp2 = _pair()
        with torch.no_grad():
            for a, b in zip(tp2, ep):
                a.copy_(torch.from_numpy(b.detach().numpy().copy()))
        to = getattr(torch.optim, name)(_groups(tp2, True), lr=123.0)
        to.load_state_dict(_convert(eo.state_dict(), _to_torch))
        tp = tp2
    assert eo.param_groups[1]["lr"] == to.param_groups[1]["lr"] == 0.01
    _run(ep, tp, eo, to, rng, 2)


@needs_torch
def test_state_dict_layout_matches_torch():
    ep, tp = _pair()
    eo = ember.optim.Adam(_groups(ep, True), amsgrad=True)
    to = torch.optim.Adam(_groups(tp, True), amsgrad=True)
    _feed_grads(ep, tp, np.random.default_rng(0))
    eo.step()
    to.step()
    esd, tsd = eo.state_dict(), to.state_dict()
    assert esd["param_groups"] == tsd["param_groups"]
    assert {i: sorted(s) for i, s in esd["state"].items()} == {
        i: sorted(s) for i, s in tsd["state"].items()
    }
    assert float(esd["state"][0]["step"]) == 1.0


def test_load_state_dict_copies_buffers():
    p = ember.nn.Parameter(ember.ones(3, dtype=ember.float64))
    opt = ember.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = ember.ones(3, dtype=ember.float64)
    opt.step()
    sd = opt.state_dict()
    opt2 = ember.optim.SGD([p], lr=0.1, momentum=0.9)
    opt2.load_state_dict(sd)
    opt2.step()
    assert sd["state"][0]["momentum_buffer"].tolist() == [1.0, 1.0, 1.0]
    assert opt2.state[p]["momentum_buffer"].tolist() == [1.9, 1.9, 1.9]


@needs_torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib, p: lib.optim.SGD([p], lr=-1),
        lambda lib, p: lib.optim.SGD([p], lr=0.1, momentum=-0.5),
        lambda lib, p: lib.optim.SGD([p], lr=0.1, weight_decay=-1),
        lambda lib, p: lib.optim.SGD([p], lr=0.1, nesterov=True),
        lambda lib, p: lib.optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
        lambda lib, p: lib.optim.Adam([p], lr=-1),
        lambda lib, p: lib.optim.Adam([p], eps=-1),
        lambda lib, p: lib.optim.Adam([p], betas=(1.0, 0.9)),
        lambda lib, p: lib.optim.Adam([p], betas=(0.9, -0.1)),
        lambda lib, p: lib.optim.AdamW([p], weight_decay=-1),
        lambda lib, p: lib.optim.SGD(p, lr=0.1),
        lambda lib, p: lib.optim.SGD([], lr=0.1),
        lambda lib, p: lib.optim.SGD([p * 2], lr=0.1),
        lambda lib, p: lib.optim.SGD([1], lr=0.1),
        lambda lib, p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1),
        lambda lib, p: lib.optim.SGD([p]).add_param_group([p]),
        lambda lib, p: lib.optim.SGD([p]).load_state_dict({"state": {}, "param_groups": []}),
        lambda lib, p: lib.optim.SGD([p]).load_state_dict(
            {"state": {}, "param_groups": [{"params": [0, 1]}]}
        ),
    ],
)
def test_errors_match_torch(make):
    _assert_same_error(make)


def test_duplicate_parameter_warns():
    p = ember.nn.Parameter(ember.ones(2))
    with pytest.warns(UserWarning, match="duplicate parameters"):
        ember.optim.SGD([p, p], lr=0.1)


def test_defaults_fill_groups_and_required():
    a, b = ember.nn.Parameter(ember.ones(1)), ember.nn.Parameter(ember.ones(1))
    opt = ember.optim.SGD([{"params": a}, {"params": [b], "momentum": 0.5}], lr=0.2)
    assert [g["lr"] for g in opt.param_groups] == [0.2, 0.2]
    assert [g["momentum"] for g in opt.param_groups] == [0, 0.5]
    assert opt.param_groups[0]["params"] == [a]

    class Custom(ember.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": ember.optim.optimizer.required})

    with pytest.raises(ValueError, match="required optimization parameter lr"):
        Custom([a])


@needs_torch
def test_repr_matches_torch():
    e = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=0.1, momentum=0.9)
    t = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1, momentum=0.9)
    assert repr(e) == repr(t)


def test_zero_grad_and_skips_missing_grads():
    a, b = ember.nn.Parameter(ember.ones(2)), ember.nn.Parameter(ember.ones(2))
    opt = ember.optim.SGD([a, b], lr=0.5, momentum=0.9)
    (a * 3).sum().backward()
    assert b.grad is None
    opt.step()  # b has no grad: untouched, no state
    assert a.tolist() == [-0.5, -0.5] and b.tolist() == [1.0, 1.0]
    assert b not in opt.state and "momentum_buffer" in opt.state[a]
    g = a.grad
    opt.zero_grad(set_to_none=False)
    assert a.grad is g and a.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None


def test_step_with_closure_and_version_counter():
    w = ember.nn.Parameter(ember.tensor([2.0]))
    opt = ember.optim.Adam([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    v = w._version
    with ember.no_grad():  # the closure still records: step turns grad mode on for it
        loss = opt.step(closure)
    assert loss.item() == 4.0 and w._version == v + 1
    assert abs(w.item() - 1.9) < 1e-6


@needs_torch
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_step_count_follows_the_default_dtype(name):
    for lib in (ember, torch):
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            w = lib.nn.Parameter(lib.ones(2))
            opt = getattr(lib.optim, name)([w])
            w.sum().backward()
            opt.step()
            assert str(opt.state[w]["step"].dtype).endswith("float64"), lib.__name__
        finally:
            lib.set_default_dtype(old)
