"""Optimizer hooks and the rest of the base class against torch.optim: step pre/post hooks (per
optimizer and global, on every optimizer class), state_dict and load_state_dict hooks with
prepend, load_state_dict edge cases, zero_grad, add_param_group errors, named parameters."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import ember
import ember.optim
from ember.optim import optimizer as eopt

try:
    import torch
    from torch.optim import optimizer as topt
except ImportError:  # pragma: no cover - CI installs torch
    torch = topt = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _lib(name):
    return (ember, ember.optim, eopt) if name == "ember" else (torch, torch.optim, topt)


def _param(lib, values=(1.0, -2.0)):
    p = lib.nn.Parameter(lib.tensor(list(values), dtype=lib.float64))
    p.grad = lib.tensor([0.5] * len(values), dtype=lib.float64)
    return p


def _describe(obj, opt):
    """A framework-free picture of hook arguments (the optimizer itself shown as "opt")."""
    if obj is opt:
        return "opt"
    if isinstance(obj, tuple):
        return tuple(_describe(o, opt) for o in obj)
    if isinstance(obj, dict):
        return {k: _describe(v, opt) for k, v in obj.items()}
    if callable(obj):
        return "callable"
    return obj


def _step_hook_log(name):
    lib, optim, mod = _lib(name)
    opt = optim.SGD([_param(lib)], lr=0.1)
    log = []

    def hook(tag):
        return lambda o, args, kwargs: log.append(
            (tag, _describe(args, o), kwargs and _describe(kwargs, o))
        )

    handles = [
        mod.register_optimizer_step_pre_hook(hook("global pre")),
        mod.register_optimizer_step_post_hook(hook("global post")),
        opt.register_step_post_hook(hook("post 1")),
        opt.register_step_pre_hook(hook("pre 1")),
        opt.register_step_pre_hook(hook("pre 2")),
    ]
    try:
        opt.step()
        opt.step(closure=lambda: 1.0)
        opt.step(lambda: 2.0)
        handles[3].remove()
        with handles[4]:
            pass  # a handle is a context manager that removes its hook on exit
        opt.step()
    finally:
        for h in handles:
            h.remove()
    opt.step()  # every hook removed: nothing logged
    return log


@needs_torch
def test_step_hooks_order_and_arguments_match_torch():
    ours, ref = _step_hook_log("ember"), _step_hook_log("torch")
    assert ours == ref
    assert ref[0] == ("global pre", ("opt",), {})


@needs_torch
@pytest.mark.parametrize("name", ["ember", "torch"])
def test_pre_hook_replaces_arguments(name):
    lib, optim, _ = _lib(name)
    p = _param(lib)
    opt = optim.SGD([p], lr=0.1)
    opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: 42.0}))
    seen = []
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append(sorted(kwargs)))
    assert opt.step() == 42.0
    assert seen == [["closure"]]


@needs_torch
@pytest.mark.parametrize("bad", [5, (1, 2, 3), [(), {}]])
def test_pre_hook_bad_return_raises_as_torch(bad):
    messages = []
    for name in ("ember", "torch"):
        lib, optim, _ = _lib(name)
        opt = optim.SGD([_param(lib)], lr=0.1)
        opt.register_step_pre_hook(lambda o, a, k: bad)
        with pytest.raises(RuntimeError) as info:
            opt.step()
        messages.append(str(info.value).split(" must ")[1])
    assert messages[0] == messages[1]
    assert messages[0].endswith(f"but got {bad}.")


def _optimizer_classes():
    return [
        getattr(ember.optim, n)
        for n in ember.optim.__all__
        if n != "Optimizer"
        and isinstance(getattr(ember.optim, n), type)
        and issubclass(getattr(ember.optim, n), ember.optim.Optimizer)
    ]


@pytest.mark.parametrize("cls", _optimizer_classes(), ids=lambda c: c.__name__)
def test_every_optimizer_runs_step_hooks(cls):
    p = ember.nn.Parameter(ember.tensor([1.0, -2.0], dtype=ember.float64))
    if cls is ember.optim.Muon:  # it takes matrices only
        p = ember.nn.Parameter(ember.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=ember.float64))
    opt = cls([p], lr=0.01)
    log = []
    opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: log.append("post"))
    handle = eopt.register_optimizer_step_post_hook(lambda o, a, k: log.append("global"))

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        if cls is ember.optim.SparseAdam:  # it takes sparse gradients only
            p.grad = p.grad.to_sparse()
        return loss

    try:
        closure()
        opt.step(closure)
    finally:
        handle.remove()
    assert log == ["pre", "post", "global"]
    assert getattr(type(opt).step, "hooked", False)


def test_subclass_step_calling_super_runs_hooks_once():
    class Scaled(ember.optim.SGD):
        def step(self, closure=None):
            self.calls = getattr(self, "calls", 0) + 1
            return super().step(closure)

    p = _param(ember)
    opt = Scaled([p], lr=0.1)
    log = []
    opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: log.append("post"))
    opt.step()
    assert log == ["pre", "post"] and opt.calls == 1
    np.testing.assert_allclose(p.detach().numpy(), [0.95, -2.05])
    # the flag that stops the inner hooks is gone after the step (also after an error)
    opt.register_step_pre_hook(lambda o, a, k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        opt.step()
    assert "_in_hooked_step" not in opt.__dict__


def _state_dict_hook_log(name):
    lib, optim, _ = _lib(name)
    opt = optim.SGD([_param(lib)], lr=0.1, momentum=0.9)
    opt.step()
    log = []
    opt.register_state_dict_pre_hook(lambda o: log.append("pre a"))
    opt.register_state_dict_pre_hook(lambda o: log.append("pre b"), prepend=True)

    def post_edit(o, sd):
        log.append("post edit")
        sd["param_groups"][0]["note"] = "edited"

    def post_replace(o, sd):
        log.append("post replace")
        return {**sd, "extra": sorted(sd)}

    opt.register_state_dict_post_hook(post_edit)
    opt.register_state_dict_post_hook(post_replace, prepend=True)
    sd = opt.state_dict()
    return log, sd["extra"], sd["param_groups"][0].get("note"), "note" in opt.param_groups[0]


@needs_torch
def test_state_dict_hooks_match_torch():
    ours, ref = _state_dict_hook_log("ember"), _state_dict_hook_log("torch")
    assert ours == ref
    assert ref[0] == ["pre b", "pre a", "post replace", "post edit"]


def _load_hook_log(name):
    lib, optim, _ = _lib(name)
    opt = optim.SGD([_param(lib)], lr=0.1, momentum=0.9)
    opt.step()
    saved = opt.state_dict()
    log = []

    def pre_edit(o, sd):
        log.append(("pre edit", sorted(sd)))
        sd["param_groups"] = [{**g, "lr": 0.5} for g in sd["param_groups"]]
        sd["added"] = True  # the caller's dict is a shallow copy away: it stays unchanged

    def pre_replace(o, sd):
        log.append(("pre replace", sd["param_groups"][0]["lr"]))
        return {**sd, "param_groups": [{**g, "momentum": 0.5} for g in sd["param_groups"]]}

    opt.register_load_state_dict_pre_hook(pre_replace)
    opt.register_load_state_dict_pre_hook(pre_edit, prepend=True)
    opt.register_load_state_dict_post_hook(
        lambda o: log.append(("post a", o.param_groups[0]["lr"]))
    )
    opt.register_load_state_dict_post_hook(lambda o: log.append(("post b",)), prepend=True)
    opt.load_state_dict(saved)
    group = opt.param_groups[0]
    return log, group["lr"], group["momentum"], "added" in saved, saved["param_groups"][0]["lr"]


@needs_torch
def test_load_state_dict_hooks_match_torch():
    ours, ref = _load_hook_log("ember"), _load_hook_log("torch")
    assert ours == ref
    assert ref[1:] == (0.5, 0.5, False, 0.1)


@needs_torch
@pytest.mark.parametrize("name", ["ember", "torch"])
def test_global_hooks_reach_every_optimizer(name):
    lib, optim, mod = _lib(name)
    seen = []
    handle = mod.register_optimizer_step_pre_hook(lambda o, a, k: seen.append(type(o).__name__))
    try:
        optim.SGD([_param(lib)], lr=0.1).step()
        optim.Adam([_param(lib)], lr=0.1).step()
    finally:
        handle.remove()
    optim.SGD([_param(lib)], lr=0.1).step()
    assert seen == ["SGD", "Adam"]


def test_hooks_are_not_pickled():
    p = _param(ember)
    opt = ember.optim.SGD([p], lr=0.1)
    opt.register_step_pre_hook(print)
    opt.register_state_dict_post_hook(print)
    state = opt.__getstate__()
    assert set(state) == {"defaults", "state", "param_groups"}
    clone = ember.optim.SGD.__new__(ember.optim.SGD)
    clone.__setstate__(pickle.loads(pickle.dumps(state)))
    assert not clone._optimizer_step_pre_hooks and not clone._optimizer_state_dict_post_hooks
    clone.step()  # a restored optimizer steps (its hook dicts exist)


def _outcome(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e).__name__, str(e)
    return None


LOAD_CASES = {
    "no param_groups": lambda sd: {"state": sd["state"]},
    "no state": lambda sd: {"param_groups": sd["param_groups"]},
    "not a dict": lambda sd: 5,
    "group count": lambda sd: {**sd, "param_groups": sd["param_groups"] * 2},
    "group size": lambda sd: {**sd, "param_groups": [{**sd["param_groups"][0], "params": [0, 1]}]},
}


@needs_torch
@pytest.mark.parametrize("case", sorted(LOAD_CASES))
def test_load_state_dict_errors_match_torch(case):
    results = []
    for name in ("ember", "torch"):
        lib, optim, _ = _lib(name)
        opt = optim.Adam([_param(lib)], lr=0.1)
        opt.step()
        results.append(_outcome(opt.load_state_dict, LOAD_CASES[case](opt.state_dict())))
    assert results[0] == results[1]
    assert results[1] is not None


@needs_torch
def test_load_state_dict_extra_and_missing_group_keys_match_torch():
    groups = []
    for name in ("ember", "torch"):
        lib, optim, _ = _lib(name)
        p = _param(lib)
        opt = optim.Adam([p], lr=0.1)
        # an extra key is kept; a missing key the optimizer knows a default for comes back,
        # others stay missing; state of an index with no parameter is kept as it is
        opt.load_state_dict(
            {
                "state": {7: {"note": 1}},
                "param_groups": [
                    {
                        "params": [0],
                        "lr": 0.3,
                        "extra": "x",
                        "betas": (0.8, 0.9),
                        "eps": 1e-8,
                        "weight_decay": 0,
                    }
                ],
            }
        )
        group = {k: v for k, v in opt.param_groups[0].items() if k != "params"}
        groups.append((group, dict(opt.state), opt.defaults.get("differentiable")))
    assert groups[0] == groups[1]


@needs_torch
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_matches_torch(set_to_none):
    results = []
    for name in ("ember", "torch"):
        lib, optim, _ = _lib(name)
        a, b = _param(lib), _param(lib)
        x = lib.nn.Parameter(lib.tensor([1.0, 2.0], dtype=lib.float64))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's note on the cycle create_graph makes
            (x**3).sum().backward(create_graph=True)  # a grad with history
        c = lib.nn.Parameter(lib.zeros(2, dtype=lib.float64))  # no grad at all
        opt = optim.SGD([a, b, x, c], lr=0.1)
        grad = x.grad
        opt.zero_grad(set_to_none=set_to_none)
        results.append(
            [
                None
                if q.grad is None
                else (q.grad.tolist(), q.grad.requires_grad, q.grad.grad_fn is None)
                for q in (a, b, x, c)
            ]
            + [x.grad is grad if x.grad is not None else None]
        )
    assert results[0] == results[1]


ADD_GROUP_CASES = {
    "not a dict": lambda lib, p, q: 5,
    "no params": lambda lib, p, q: {"lr": 0.1},
    "a set": lambda lib, p, q: {"params": {q}},
    "a number": lambda lib, p, q: {"params": [q, 3]},
    "repeated": lambda lib, p, q: {"params": [p]},
    "non-leaf": lambda lib, p, q: {"params": [q * 2]},
    "names mixed": lambda lib, p, q: {"params": [("q", q)]},
    "names partly": lambda lib, p, q: {"params": [("q", q), q]},
}


@needs_torch
@pytest.mark.parametrize("case", sorted(ADD_GROUP_CASES))
def test_add_param_group_errors_match_torch(case):
    results = []
    for name in ("ember", "torch"):
        lib, optim, _ = _lib(name)
        p, q = _param(lib), _param(lib)
        opt = optim.SGD([p], lr=0.1)
        results.append(_outcome(opt.add_param_group, ADD_GROUP_CASES[case](lib, p, q)))
    assert results[1] is not None
    assert results[0] == results[1]


@needs_torch
def test_constructor_errors_match_torch():
    cases = [
        lambda lib: [],
        lambda lib: lib.ones(2),
        lambda lib: {_param(lib)},
        lambda lib: [_param(lib), {"params": [_param(lib)]}],
    ]
    for make in cases:
        ours = _outcome(ember.optim.SGD, make(ember), 0.1)
        ref = _outcome(torch.optim.SGD, make(torch), 0.1)
        assert ours == ref
        assert ours is None or ours[0] in ("ValueError", "TypeError")


@needs_torch
def test_named_parameters_match_torch():
    out = []
    for name in ("ember", "torch"):
        lib, optim, _ = _lib(name)
        lin = lib.nn.Linear(2, 3)
        opt = optim.SGD(lin.named_parameters(), lr=0.1, momentum=0.9)
        lin(lib.ones(1, 2)).sum().backward()
        opt.step()
        sd = opt.state_dict()
        out.append((sd["param_groups"], sorted(sd["state"]), repr(opt)))
        opt.load_state_dict(sd)
        assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert out[0] == out[1]


@needs_torch
def test_state_dict_indices_with_a_repeated_parameter_match_torch():
    out = []
    for name in ("ember", "torch"):
        lib, optim, _ = _lib(name)
        p, q = _param(lib), _param(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt = optim.SGD([p, p, q], lr=0.1)
        out.append(opt.state_dict()["param_groups"][0]["params"])
    assert out[0] == out[1] == [1, 1, 2]
