"""ember.optim.LBFGS against torch.optim.LBFGS in float64: trajectories (fixed step and
strong-Wolfe line search, several history sizes), evaluation counts, tolerance exits, the state
dict layout and round trips with torch, errors."""

from __future__ import annotations

import pickle

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

RNG = np.random.default_rng(7)
X = RNG.standard_normal((24, 3))
Y_REG = X @ np.array([0.5, -1.0, 2.0]) + 0.3 + 0.1 * RNG.standard_normal(24)
Y_CLS = np.sign(X @ np.array([1.0, -0.5, 0.25]) + 0.2 * RNG.standard_normal(24))


def _rosenbrock(lib, params, _data):
    (x,) = params
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def _least_squares(lib, params, data):
    w, b = params
    x, y = data
    return ((x @ w + b - y) ** 2).mean()


def _logistic(lib, params, data):
    w, b = params
    x, y = data
    # log(1 + exp(-y z)) with an L2 term so the minimum is finite
    return (-(y * (x @ w + b))).exp().log1p().mean() + 0.01 * (w * w).sum()


PROBLEMS = {
    "rosenbrock": (_rosenbrock, lambda: [np.array([-1.2, 1.0, 0.4, -0.5])], None),
    "least_squares": (_least_squares, lambda: [np.zeros(3), np.array(0.0)], (X, Y_REG)),
    "logistic": (_logistic, lambda: [np.array([0.1, 0.2, -0.1]), np.array(0.0)], (X, Y_CLS)),
}

CONFIGS = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"history_size": 1},
    {"history_size": 3, "line_search_fn": "strong_wolfe"},
    {"lr": 0.1, "history_size": 2, "max_iter": 7},
    {"lr": 0.5, "max_iter": 4, "max_eval": 6, "line_search_fn": "strong_wolfe"},
    {"max_iter": 3},
    # first trials far too long / too short: the line search zooms / extrapolates
    {"lr": 30.0, "history_size": 5, "line_search_fn": "strong_wolfe"},
    {"lr": 0.02, "history_size": 5, "line_search_fn": "strong_wolfe"},
]


def _config_id(kwargs):
    return ",".join(f"{k}={v}" for k, v in kwargs.items()) or "default"


def _tensor(lib, a):
    return lib.from_numpy(np.array(a, dtype=np.float64))


def _setup(lib, mod, problem, kwargs, dtype=np.float64):
    fn, init, data = PROBLEMS[problem]
    params = [lib.nn.Parameter(lib.from_numpy(a.astype(dtype))) for a in init()]
    tdata = None if data is None else [lib.from_numpy(d.astype(dtype)) for d in data]
    opt = mod.LBFGS(params, **kwargs)

    def closure():
        opt.zero_grad()
        loss = fn(lib, params, tdata)
        loss.backward()
        return loss

    return params, opt, closure


def _run(lib, mod, problem, kwargs, steps, dtype=np.float64):
    params, opt, closure = _setup(lib, mod, problem, kwargs, dtype)
    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        st = opt.state[params[0]]
        out.append(
            (
                loss.item(),
                [p.detach().numpy().copy() for p in params],
                st["func_evals"],
                st["n_iter"],
            )
        )
    return out


def _to_torch(v):
    if isinstance(v, ember.Tensor):
        return torch.from_numpy(np.array(v.numpy()))
    if isinstance(v, list):
        return [_to_torch(x) for x in v]
    return v


def _to_ember(v):
    if isinstance(v, torch.Tensor):
        return ember.from_numpy(np.array(v.numpy()))
    if isinstance(v, list):
        return [_to_ember(x) for x in v]
    return v


def _convert(sd, fn):
    return {
        "state": {i: {k: fn(v) for k, v in s.items()} for i, s in sd["state"].items()},
        "param_groups": [dict(g) for g in sd["param_groups"]],
    }


@needs_torch
@pytest.mark.parametrize("problem", sorted(PROBLEMS))
@pytest.mark.parametrize("kwargs", CONFIGS, ids=_config_id)
def test_trajectory_matches_torch(problem, kwargs):
    ours = _run(ember, ember.optim, problem, kwargs, steps=4)
    ref = _run(torch, torch.optim, problem, kwargs, steps=4)
    for (le, pe, fe, ne), (lt, pt, ft, nt) in zip(ours, ref):
        assert (fe, ne) == (ft, nt)  # the same number of evaluations and iterations
        np.testing.assert_allclose(le, lt, rtol=1e-9, atol=1e-12)
        for a, b in zip(pe, pt):
            # Rosenbrock is badly conditioned: last-bit differences of BLAS dots grow a little
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


@needs_torch
def test_float32_follows_torch():
    # float32 scalars promote as torch's 0-d tensors (they stay float32)
    kwargs = {"line_search_fn": "strong_wolfe", "history_size": 5}
    ours = _run(ember, ember.optim, "least_squares", kwargs, steps=2, dtype=np.float32)
    ref = _run(torch, torch.optim, "least_squares", kwargs, steps=2, dtype=np.float32)
    for (le, pe, *_), (lt, pt, *_) in zip(ours, ref):
        np.testing.assert_allclose(le, lt, rtol=1e-4)
        for a, b in zip(pe, pt):
            assert a.dtype == np.float32
            np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)


def _kinds(v):
    if isinstance(v, (ember.Tensor, torch.Tensor)):
        return ("tensor", tuple(v.shape))
    if isinstance(v, list):
        return [_kinds(x) for x in v]
    return type(v).__name__


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"line_search_fn": "strong_wolfe", "history_size": 2}])
def test_state_dict_layout_matches_torch(kwargs):
    pe, oe, ce = _setup(ember, ember.optim, "logistic", kwargs)
    pt, ot, ct = _setup(torch, torch.optim, "logistic", kwargs)
    for _ in range(2):
        oe.step(ce)
        ot.step(ct)
    se, st = oe.state_dict(), ot.state_dict()
    assert se["param_groups"] == st["param_groups"]
    assert list(se["state"]) == list(st["state"]) == [0]
    assert list(se["state"][0]) == list(st["state"][0])
    for key, value in st["state"][0].items():
        mine = se["state"][0][key]
        assert _kinds(mine) == _kinds(value), key
        flat_t = value if isinstance(value, list) else [value]
        flat_e = mine if isinstance(mine, list) else [mine]
        for a, b in zip(flat_e, flat_t):
            if isinstance(b, torch.Tensor):
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-12)
            elif b is not None:
                assert a == pytest.approx(b, rel=1e-9)


@needs_torch
@pytest.mark.parametrize("direction", ["torch_to_ember", "ember_to_torch"])
def test_state_dict_round_trip_with_torch(direction):
    kwargs = {"line_search_fn": "strong_wolfe", "history_size": 4, "max_iter": 3}
    pe, oe, ce = _setup(ember, ember.optim, "logistic", kwargs)
    pt, ot, ct = _setup(torch, torch.optim, "logistic", kwargs)
    if direction == "torch_to_ember":
        for _ in range(2):
            ot.step(ct)
        for e, t in zip(pe, pt):
            e.data = _to_ember(t.detach())
        oe.load_state_dict(_convert(ot.state_dict(), _to_ember))
    else:
        for _ in range(2):
            oe.step(ce)
        with torch.no_grad():
            for e, t in zip(pe, pt):
                t.copy_(_to_torch(e.detach()))
        ot.load_state_dict(_convert(oe.state_dict(), _to_torch))
    for _ in range(2):
        le, lt = oe.step(ce), ot.step(ct)
        np.testing.assert_allclose(le.item(), lt.item(), rtol=1e-10)
        for e, t in zip(pe, pt):
            np.testing.assert_allclose(
                e.detach().numpy(), t.detach().numpy(), rtol=1e-9, atol=1e-12
            )
    assert oe.state[pe[0]]["func_evals"] == ot.state[pt[0]]["func_evals"]


@needs_torch
@pytest.mark.parametrize(
    "kwargs",
    [
        {"tolerance_grad": 1e3},  # already optimal: one evaluation, no iteration
        {"tolerance_change": 1e3},  # the loss change is below tolerance after one iteration
        {"tolerance_change": 1e3, "line_search_fn": "strong_wolfe"},
        {"max_eval": 2},
        {"max_iter": 1},
    ],
)
def test_tolerance_exits_match_torch(kwargs):
    ours = _run(ember, ember.optim, "least_squares", kwargs, steps=2)
    ref = _run(torch, torch.optim, "least_squares", kwargs, steps=2)
    for (le, pe, fe, ne), (lt, pt, ft, nt) in zip(ours, ref):
        assert (fe, ne) == (ft, nt)
        np.testing.assert_allclose(le, lt, rtol=1e-12)
        for a, b in zip(pe, pt):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_optimal_start_keeps_only_counters():
    x = ember.nn.Parameter(ember.ones(3, dtype=ember.float64))
    opt = ember.optim.LBFGS([x], tolerance_grad=1.0)
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (x * 0.1).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == pytest.approx(0.3)
    assert len(calls) == 1
    assert opt.state[x] == {"func_evals": 1, "n_iter": 0}
    assert x.tolist() == [1.0, 1.0, 1.0]


@needs_torch
def test_parameter_without_grad_matches_torch():
    # the unused parameter's gradient is None: it counts as zeros in the flat gradient
    def run(lib, mod):
        a = lib.nn.Parameter(_tensor(lib, [1.5, -0.5]))
        unused = lib.nn.Parameter(_tensor(lib, [2.0]))
        opt = mod.LBFGS([unused, a], line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = ((a - 3) ** 4).sum()
            loss.backward()
            return loss

        opt.step(closure)
        return a.detach().numpy().copy(), unused.detach().numpy().copy()

    (ae, ue), (at, ut) = run(ember, ember.optim), run(torch, torch.optim)
    np.testing.assert_allclose(ae, at, rtol=1e-10)
    assert ue.tolist() == ut.tolist() == [2.0]


def test_closure_runs_with_grad_enabled_and_version_bumps():
    x = ember.nn.Parameter(ember.tensor([2.0, -1.0], dtype=ember.float64))
    opt = ember.optim.LBFGS([x], max_iter=2)
    modes = []

    def closure():
        modes.append(ember.is_grad_enabled())
        opt.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        return loss

    version = x._version
    with ember.no_grad():
        opt.step(closure)
    assert modes and all(modes)
    assert x._version > version


@needs_torch
def test_tensor_lr_matches_torch():
    kwargs = {"history_size": 3}
    ours = _run(ember, ember.optim, "least_squares", {**kwargs, "lr": ember.tensor([0.5])}, 2)
    ref = _run(torch, torch.optim, "least_squares", {**kwargs, "lr": torch.tensor([0.5])}, 2)
    for (le, pe, *_), (lt, pt, *_) in zip(ours, ref):
        np.testing.assert_allclose(le, lt, rtol=1e-7)
        for a, b in zip(pe, pt):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def _error(make):
    try:
        make()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e)
    return None


@needs_torch
@pytest.mark.parametrize(
    "case", ["lr", "lr_tensor", "groups", "no_closure", "line_search", "added_group"]
)
def test_errors_match_torch(case):
    def make(lib, mod):
        x = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
        y = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))

        def closure():
            loss = (x * x).sum()
            loss.backward()
            return loss

        if case == "lr":
            return lambda: mod.LBFGS([x], lr=-1.0)
        if case == "lr_tensor":
            return lambda: mod.LBFGS([x], lr=lib.ones(2))
        if case == "groups":
            return lambda: mod.LBFGS([{"params": [x]}, {"params": [y], "lr": 0.1}])
        opt = mod.LBFGS([x], line_search_fn="wolfe" if case == "line_search" else None)
        if case == "no_closure":
            return opt.step
        if case == "added_group":
            opt.add_param_group({"params": [y]})
        return lambda: opt.step(closure)

    ours, ref = _error(make(ember, ember.optim)), _error(make(torch, torch.optim))
    assert ref is not None
    assert ours == ref


@needs_torch
def test_defaults_and_repr_match_torch():
    x = ember.nn.Parameter(ember.ones(2))
    t = torch.nn.Parameter(torch.ones(2))
    assert repr(ember.optim.LBFGS([x], max_iter=8)) == repr(torch.optim.LBFGS([t], max_iter=8))
    assert ember.optim.LBFGS([x]).defaults == torch.optim.LBFGS([t]).defaults


def test_pickled_optimizer_continues_the_trajectory():
    kwargs = {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 4}
    params, opt, closure = _setup(ember, ember.optim, "logistic", kwargs)
    opt.step(closure)
    # one pickle keeps the optimizer's state keyed by (copies of) its parameters
    params2, opt2 = pickle.loads(pickle.dumps((params, opt)))
    data = [ember.from_numpy(X), ember.from_numpy(Y_CLS)]

    def closure2():
        opt2.zero_grad()
        loss = _logistic(ember, params2, data)
        loss.backward()
        return loss

    assert opt.step(closure).item() == opt2.step(closure2).item()
    for p, q in zip(params, params2):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
