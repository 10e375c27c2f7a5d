"""ember.optim.lr_scheduler against torch.optim.lr_scheduler: the exact lr (and momentum/betas)
sequences of every scheduler over enough steps to cross milestones, restarts and cycles, with two
parameter groups on SGD(momentum) and Adam(betas); the deprecated closed form; state dicts (same
keys and values as torch's, resuming mid-schedule, crossing between ember and torch); the
warnings and errors torch gives."""

from __future__ import annotations

import copy
import math
import re
import warnings
from functools import partial

import pytest

import ember
import ember.optim
from ember.optim import lr_scheduler as E

try:
    import torch
    from torch.optim import lr_scheduler as T
except ImportError:  # pragma: no cover - CI installs torch
    torch = T = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


# ---- building the same setup on both sides ---------------------------------------------------
def _optimizer(lib, kind="sgd", groups=2):
    """An optimizer of ``lib`` (ember or torch) with ``groups`` groups of different lrs."""
    params = [lib.nn.Parameter(lib.ones(2, dtype=lib.float64)) for _ in range(groups)]
    spec = [{"params": [params[0]]}] + [
        {"params": [p], "lr": 0.05 / (i + 1)} for i, p in enumerate(params[1:])
    ]
    if kind == "sgd":
        return lib.optim.SGD(spec, lr=0.1, momentum=0.9)
    if kind == "adam":
        return lib.optim.Adam(spec, lr=0.1, betas=(0.9, 0.99))
    raise AssertionError(kind)


def _snapshot(opt):
    """Every scheduled value of every group: lr, and momentum or beta1 where present."""
    out = []
    for g in opt.param_groups:
        out.append(float(g["lr"]))
        if "betas" in g:
            out.append(tuple(g["betas"]))
        elif "momentum" in g:
            out.append(g["momentum"])
    return out


def _run(sched, opt, steps, metrics=None):
    seq = [_snapshot(opt) + list(sched.get_last_lr())]
    for i in range(steps):
        opt.step()
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[i])
        seq.append(_snapshot(opt) + list(sched.get_last_lr()))
    return seq


def _both(make, kind="sgd", groups=2):
    """(ember scheduler, ember optimizer), (torch scheduler, torch optimizer)."""
    eo, to = _optimizer(ember, kind, groups), _optimizer(torch, kind, groups)
    return (make(E, eo), eo), (make(T, to), to)


class Decay:
    """A callable object: its state (``__dict__``) goes into the state dict, as in torch."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate**epoch


CASES = {
    "lambda": (lambda L, o: L.LambdaLR(o, lambda e: 0.95**e), 12),
    "lambda_per_group": (lambda L, o: L.LambdaLR(o, [lambda e: 1 / (e + 1), Decay(0.8)]), 12),
    "multiplicative": (lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 0.97), 12),
    "step": (lambda L, o: L.StepLR(o, step_size=3, gamma=0.5), 14),
    "step_default_gamma": (lambda L, o: L.StepLR(o, 4), 14),
    "multistep": (lambda L, o: L.MultiStepLR(o, [2, 5, 5, 9], gamma=0.3), 14),
    "constant": (lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=4), 8),
    "constant_default": (lambda L, o: L.ConstantLR(o), 8),
    "linear": (lambda L, o: L.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=6), 10),
    "linear_default": (lambda L, o: L.LinearLR(o), 8),
    "exponential": (lambda L, o: L.ExponentialLR(o, gamma=0.9), 12),
    "polynomial": (lambda L, o: L.PolynomialLR(o, total_iters=6, power=2.0), 10),
    "polynomial_sqrt": (lambda L, o: L.PolynomialLR(o, total_iters=7, power=0.5), 10),
    "cosine": (lambda L, o: L.CosineAnnealingLR(o, T_max=5, eta_min=0.001), 32),
    "cosine_odd": (lambda L, o: L.CosineAnnealingLR(o, T_max=7), 32),
    "warm_restarts": (
        lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
        30,
    ),
    "warm_restarts_t1": (lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=4), 20),
    "cyclic": (lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3), 20),
    "cyclic_down": (
        lambda L, o: L.CyclicLR(
            o,
            [0.01, 0.02],
            [0.1, 0.3],
            step_size_up=2,
            step_size_down=5,
            base_momentum=[0.7, 0.8],
            max_momentum=0.95,
        ),
        30,
    ),
    "cyclic_triangular2": (
        lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="triangular2"),
        25,
    ),
    "cyclic_exp_range": (
        lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9),
        25,
    ),
    "cyclic_scale_fn": (
        lambda L, o: L.CyclicLR(
            o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1 / (1 + x), scale_mode="iterations"
        ),
        15,
    ),
    "cyclic_scale_fn_cycle": (
        lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=Decay(0.7)),
        15,
    ),
    "cyclic_no_momentum": (
        lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2, cycle_momentum=False),
        10,
    ),
    "onecycle": (lambda L, o: L.OneCycleLR(o, max_lr=0.5, total_steps=20), 20),
    "onecycle_linear": (
        lambda L, o: L.OneCycleLR(
            o,
            max_lr=[0.5, 0.2],
            epochs=4,
            steps_per_epoch=5,
            anneal_strategy="linear",
            pct_start=0.25,
        ),
        20,
    ),
    "onecycle_three_phase": (
        lambda L, o: L.OneCycleLR(
            o, max_lr=0.4, total_steps=23, three_phase=True, div_factor=10.0, final_div_factor=100.0
        ),
        23,
    ),
    "onecycle_momenta": (
        lambda L, o: L.OneCycleLR(
            o,
            0.3,
            total_steps=15,
            pct_start=0.4,
            base_momentum=[0.8, 0.7],
            max_momentum=[0.9, 0.99],
        ),
        15,
    ),
    "onecycle_no_momentum": (
        lambda L, o: L.OneCycleLR(o, 0.3, total_steps=10, cycle_momentum=False),
        10,
    ),
    "sequential": (
        lambda L, o: L.SequentialLR(
            o, [L.ConstantLR(o, factor=0.2, total_iters=5), L.ExponentialLR(o, gamma=0.8)], [3]
        ),
        12,
    ),
    "sequential3": (
        lambda L, o: L.SequentialLR(
            o,
            [
                L.LinearLR(o, 0.1, total_iters=4),
                L.StepLR(o, 2, 0.5),
                L.CosineAnnealingLR(o, T_max=4),
            ],
            milestones=[4, 9],
        ),
        20,
    ),
    "chained": (
        lambda L, o: L.ChainedScheduler(
            [L.ConstantLR(o, factor=0.5, total_iters=3), L.ExponentialLR(o, gamma=0.9)]
        ),
        10,
    ),
    "chained3": (
        lambda L, o: L.ChainedScheduler(
            [
                L.LinearLR(o, 0.2, total_iters=5),
                L.MultiStepLR(o, [3, 6]),
                L.CosineAnnealingLR(o, T_max=4),
            ],
            o,
        ),
        14,
    ),
}


# ---- lr sequences ----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("name", list(CASES))
def test_sequence_matches_torch(name, kind):
    make, steps = CASES[name]
    (es, eo), (ts, to) = _both(make, kind)
    assert _run(es, eo, steps) == _run(ts, to, steps)
    assert getattr(es, "last_epoch", None) == getattr(ts, "last_epoch", None)
    assert [g.get("initial_lr") for g in eo.param_groups] == [
        g.get("initial_lr") for g in to.param_groups
    ]
    if hasattr(ts, "base_lrs"):
        assert es.base_lrs == ts.base_lrs


@needs_torch
@pytest.mark.parametrize("name", ["cosine", "warm_restarts", "cyclic", "onecycle", "step"])
def test_sequence_one_group(name):
    make, steps = CASES[name]
    (es, eo), (ts, to) = _both(make, "sgd", groups=1)
    assert _run(es, eo, steps) == _run(ts, to, steps)


@needs_torch
def test_sequential_of_a_chained_scheduler_matches_torch():
    def make(L, o):
        chained = L.ChainedScheduler([L.ExponentialLR(o, 0.9), L.StepLR(o, 2)])
        # NOTE: torch too: re-taking the chained scheduler's initial step steps its children
        # before any optimizer step, which warns
        with pytest.warns(UserWarning, match=STEP_ORDER):
            return L.SequentialLR(o, [chained, L.ConstantLR(o, 0.5, 3)], [4])

    (es, eo), (ts, to) = _both(make)
    assert _run(es, eo, 10) == _run(ts, to, 10)
    assert es.state_dict() == ts.state_dict()


PLATEAU_METRICS = [
    5.0,
    4.0,
    4.0,
    3.99995,
    4.1,
    4.0,
    3.0,
    3.0,
    3.0,
    3.0,
    3.0,
    2.0,
    2.0,
    2.0,
    2.0,
    2.0,
    2.0,
    1.0,
    1.0,
    1.0,
    1.0,
    1.0,
    1.0,
    1.0,
    1.0,
    1.0,
]


@needs_torch
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"patience": 1},
        {"patience": 2, "factor": 0.5, "cooldown": 2},
        {"mode": "max", "patience": 1, "factor": 0.3},
        {"threshold_mode": "abs", "threshold": 0.5, "patience": 1},
        {"mode": "max", "threshold_mode": "abs", "threshold": 0.5, "patience": 0},
        {"patience": 0, "min_lr": [0.02, 0.001], "factor": 0.5},
        {"patience": 0, "min_lr": 0.03},
        {"patience": 0, "factor": 0.9, "eps": 0.01},
    ],
)
def test_reduce_on_plateau_matches_torch(kwargs):
    (es, eo), (ts, to) = _both(lambda L, o: L.ReduceLROnPlateau(o, **kwargs))
    metrics = PLATEAU_METRICS if kwargs.get("mode") != "max" else [-m for m in PLATEAU_METRICS]
    assert _run(es, eo, len(metrics), metrics) == _run(ts, to, len(metrics), metrics)
    assert es.state_dict() == ts.state_dict()


@needs_torch
def test_reduce_on_plateau_takes_a_tensor_metric():
    (es, eo), (ts, to) = _both(lambda L, o: L.ReduceLROnPlateau(o, patience=0))
    for m in [1.0, 2.0, 3.0]:
        es.step(ember.tensor(m))
        ts.step(torch.tensor(m))
    assert es.get_last_lr() == ts.get_last_lr()


@needs_torch
@pytest.mark.parametrize(
    "name",
    ["lambda", "step", "multistep", "constant", "linear", "exponential", "polynomial", "cosine"],
)
def test_closed_form_with_epoch_matches_torch(name):
    make, steps = CASES[name]
    (es, eo), (ts, to) = _both(make)
    for epoch in [1, 2, 5, 3, 9, 0, 4, 7]:
        eo.step()
        to.step()
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
            es.step(epoch)
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
            ts.step(epoch)
        assert es.get_last_lr() == ts.get_last_lr()
        assert es.last_epoch == ts.last_epoch == epoch


@needs_torch
@pytest.mark.parametrize("T_mult", [1, 2, 3])
def test_warm_restarts_fractional_epochs(T_mult):
    (es, eo), (ts, to) = _both(lambda L, o: L.CosineAnnealingWarmRestarts(o, 3, T_mult, 0.001))
    iters = 4
    for epoch in range(12):
        for i in range(iters):
            eo.step()
            to.step()
            es.step(epoch + i / iters)  # NOTE: no deprecation warning here, as in torch
            ts.step(epoch + i / iters)
            assert es.get_last_lr() == ts.get_last_lr()
            assert (es.T_cur, es.T_i, es.last_epoch) == (ts.T_cur, ts.T_i, ts.last_epoch)
    for jump in [0, 40, 2.5, 17.25]:
        es.step(jump)
        ts.step(jump)
        assert es.get_last_lr() == ts.get_last_lr()


@needs_torch
def test_onecycle_momentum_follows_betas_with_adam():
    (es, eo), (ts, to) = _both(lambda L, o: L.OneCycleLR(o, 0.1, total_steps=12), "adam")
    assert eo.param_groups[0]["betas"] == (0.95, 0.99)
    seq = _run(es, eo, 12)
    assert seq == _run(ts, to, 12)
    assert {s[1][1] for s in seq} == {0.99}  # beta2 untouched


@needs_torch
def test_onecycle_steps_past_the_end_raise():
    for L, lib in [(E, ember), (T, torch)]:
        opt = _optimizer(lib)
        sched = L.OneCycleLR(opt, 0.1, total_steps=3)
        for _ in range(3):
            opt.step()
            sched.step()
        opt.step()
        with pytest.raises(
            ValueError, match="Tried to step 4 times. The specified number of total steps is 3"
        ):
            sched.step()


RESUME_CASES = {
    "cosine": lambda L, o, last: L.CosineAnnealingLR(o, T_max=5, eta_min=0.001, last_epoch=last),
    "exponential": lambda L, o, last: L.ExponentialLR(o, 0.9, last_epoch=last),
    "step": lambda L, o, last: L.StepLR(o, 3, 0.5, last_epoch=last),
    "polynomial": lambda L, o, last: L.PolynomialLR(o, 8, 2.0, last_epoch=last),
    "linear": lambda L, o, last: L.LinearLR(o, 0.2, total_iters=8, last_epoch=last),
    "multiplicative": lambda L, o, last: L.MultiplicativeLR(o, lambda e: 0.9, last_epoch=last),
    "cyclic": lambda L, o, last: L.CyclicLR(o, 0.01, 0.1, 3, last_epoch=last),
    "onecycle": lambda L, o, last: L.OneCycleLR(o, 0.1, total_steps=20, last_epoch=last),
}


@needs_torch
@pytest.mark.parametrize("name", list(RESUME_CASES))
def test_resume_with_last_epoch_matches_torch(name):
    # a scheduler built with last_epoch >= 0 over groups that already hold 'initial_lr' (as
    # after loading an optimizer checkpoint) continues from there, as torch's does
    make = RESUME_CASES[name]
    (es, eo), (ts, to) = _both(lambda L, o: make(L, o, -1))
    assert _run(es, eo, 4) == _run(ts, to, 4)
    assert _run(make(E, eo, 6), eo, 8) == _run(make(T, to, 6), to, 8)


# ---- state dicts -----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_state_dict_has_torch_keys_and_values(name):
    make, steps = CASES[name]
    (es, eo), (ts, to) = _both(make)
    _run(es, eo, steps // 2)
    _run(ts, to, steps // 2)
    esd, tsd = es.state_dict(), ts.state_dict()
    assert list(esd) == list(tsd)
    assert esd == tsd


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_state_dict_resume_mid_schedule(name):
    make, steps = CASES[name]
    (es, eo), _ = _both(make)
    half = steps // 2
    _run(es, eo, half)
    saved_sched = copy.deepcopy(es.state_dict())
    saved_opt = copy.deepcopy(eo.state_dict())
    rest = _run(es, eo, steps - half)
    # a fresh optimizer and scheduler, then the checkpoint loaded into both
    (es2, eo2), _ = _both(make)
    eo2.load_state_dict(saved_opt)
    es2.load_state_dict(saved_sched)
    assert _run(es2, eo2, steps - half) == rest


@needs_torch
@pytest.mark.parametrize(
    "name",
    [
        "step",
        "multistep",
        "cosine",
        "warm_restarts",
        "cyclic_down",
        "onecycle_three_phase",
        "sequential3",
        "chained3",
        "lambda",
        "polynomial",
        "linear",
    ],
)
@pytest.mark.parametrize("direction", ["torch_to_ember", "ember_to_torch"])
def test_state_dict_crosses_between_ember_and_torch(name, direction):
    make, steps = CASES[name]
    half = steps // 2
    (es, eo), (ts, to) = _both(make)
    src, dst = ((ts, to), (es, eo)) if direction == "torch_to_ember" else ((es, eo), (ts, to))
    _run(*src, half)
    # what a checkpoint carries: the groups' hyper-parameters and the scheduler's state
    for d, s in zip(dst[1].param_groups, src[1].param_groups):
        d.update({k: v for k, v in s.items() if k != "params"})
    dst[0].load_state_dict(copy.deepcopy(src[0].state_dict()))
    assert _run(*dst, steps - half) == _run(*src, steps - half)


@needs_torch
def test_lambda_state_dict_saves_callable_objects_only():
    (es, eo), (ts, to) = _both(CASES["lambda_per_group"][0])
    _run(es, eo, 3)
    _run(ts, to, 3)
    esd = es.state_dict()
    assert esd["lr_lambdas"] == [None, {"rate": 0.8}] == ts.state_dict()["lr_lambdas"]
    # loading restores a callable object's state and leaves the caller's dict as it was
    esd["lr_lambdas"][1] = {"rate": 0.5}
    es.load_state_dict(esd)
    assert es.lr_lambdas[1].rate == 0.5 and "lr_lambdas" in esd


@needs_torch
def test_cyclic_state_dict_saves_scale_fn_object():
    make = CASES["cyclic_scale_fn_cycle"][0]
    (es, eo), (ts, to) = _both(make)
    assert (
        es.state_dict()["_scale_fn_custom"] == {"rate": 0.7} == ts.state_dict()["_scale_fn_custom"]
    )
    sd = es.state_dict()
    sd["_scale_fn_custom"] = {"rate": 0.1}
    es.load_state_dict(sd)
    assert es._scale_fn_custom.rate == 0.1 and "_scale_fn_custom" in sd
    # a built-in mode's scale function is rebuilt on load (it is not in the state dict)
    (es, eo), _ = _both(CASES["cyclic_exp_range"][0])
    sd = es.state_dict()
    assert "_scale_fn_ref" not in sd and sd["_scale_fn_custom"] is None
    es.load_state_dict(sd)
    assert es.scale_fn(2) == pytest.approx(0.81)


# ---- tensors as learning rates ---------------------------------------------------------------
@needs_torch
def test_tensor_lr_is_written_in_place():
    seqs = []
    for L, lib in [(E, ember), (T, torch)]:
        lr = lib.tensor(0.1, dtype=lib.float64)
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2, dtype=lib.float64))], lr=lr)
        sched = L.ExponentialLR(opt, 0.5)
        seq = []
        for _ in range(3):
            opt.step()
            sched.step()
            assert opt.param_groups[0]["lr"] is lr
            seq.append((float(lr), float(sched.get_last_lr()[0])))
        seqs.append(seq)
    assert seqs[0] == seqs[1]


# ---- warnings --------------------------------------------------------------------------------
STEP_ORDER = re.escape("Detected call of `lr_scheduler.step()` before `optimizer.step()`.")


@needs_torch
@pytest.mark.parametrize("L,lib", [("E", "ember"), ("T", "torch")])
def test_warns_when_scheduler_steps_before_optimizer(L, lib):
    L, lib = {"E": E, "T": T}[L], {"ember": ember, "torch": torch}[lib]
    opt = _optimizer(lib)
    sched = L.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=STEP_ORDER):
        sched.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()  # only the first call is checked
    # stepping the optimizer first: no warning
    opt = _optimizer(lib)
    sched = L.CosineAnnealingLR(opt, 3)
    opt.step()
    sched.step()
    # the optimizer's step is wrapped once, however many schedulers attach
    opt = _optimizer(lib)
    L.StepLR(opt, 2)
    wrapped = opt.step
    L.ExponentialLR(opt, 0.5)
    assert opt.step is wrapped and wrapped._wrapped_by_lr_sched


@needs_torch
@pytest.mark.parametrize("which", ["ember", "torch"])
def test_warns_when_optimizer_step_is_replaced(which):
    L, lib = (E, ember) if which == "ember" else (T, torch)
    opt = _optimizer(lib)
    sched = L.ExponentialLR(opt, 0.5)
    opt.step = lambda: None
    with pytest.warns(
        UserWarning,
        match=re.escape(
            "Seems like `optimizer.step()` has been overridden after learning rate scheduler"
        ),
    ):
        sched.step()


@needs_torch
@pytest.mark.parametrize(
    "name", ["step", "cosine", "onecycle", "cyclic", "warm_restarts", "lambda", "multiplicative"]
)
def test_get_lr_outside_step_warns(name):
    make, _ = CASES[name]
    (es, eo), (ts, to) = _both(make)
    match = re.escape(
        "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."
    )
    with pytest.warns(UserWarning, match=match):
        elrs = es.get_lr()
    with pytest.warns(UserWarning, match=match):
        tlrs = ts.get_lr()
    assert elrs == tlrs


@needs_torch
def test_no_verbose_argument_as_in_torch_2_13():
    for L, lib in [(E, ember), (T, torch)]:
        with pytest.raises(TypeError, match="verbose"):
            L.StepLR(_optimizer(lib), 2, verbose=True)


def test_plateau_epoch_argument_is_deprecated():
    opt = _optimizer(ember)
    sched = E.ReduceLROnPlateau(opt)
    with pytest.warns(UserWarning, match="The epoch parameter"):
        sched.step(1.0, epoch=5)
    assert sched.last_epoch == 5


def test_legacy_name_and_base_class():
    assert issubclass(E._LRScheduler, E.LRScheduler)
    assert E._LRScheduler.__name__ == "_LRScheduler"
    opt = _optimizer(ember)
    with pytest.raises(NotImplementedError):
        E.LRScheduler(opt)


@needs_torch
def test_exports_match_torch():
    assert sorted(E.__all__) == sorted(T.__all__)


# ---- errors ----------------------------------------------------------------------------------
def _plain_optimizer(lib):
    """An optimizer of ``lib`` with neither momentum nor betas among its defaults."""

    class Plain(lib.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, {"lr": lr})

        def step(self, closure=None):
            return None

    return Plain([lib.nn.Parameter(lib.ones(1))])


ERROR_CASES = {
    "not_optimizer": lambda L, o: L.StepLR(object(), 2),
    "constant_factor": lambda L, o: L.ConstantLR(o, factor=1.5),
    "constant_factor_neg": lambda L, o: L.ConstantLR(o, factor=-0.1),
    "linear_start": lambda L, o: L.LinearLR(o, start_factor=0),
    "linear_end": lambda L, o: L.LinearLR(o, end_factor=2.0),
    "lambda_count": lambda L, o: L.LambdaLR(o, [lambda e: 1.0]),
    "mult_count": lambda L, o: L.MultiplicativeLR(o, [lambda e: 1.0] * 3),
    "mult_not_callable": lambda L, o: L.MultiplicativeLR(o, 0.5),
    "resume_without_initial_lr": lambda L, o: L.StepLR(o, 2, last_epoch=3),
    "wr_T0": lambda L, o: L.CosineAnnealingWarmRestarts(o, 0),
    "wr_T0_float": lambda L, o: L.CosineAnnealingWarmRestarts(o, 2.0),
    "wr_Tmult": lambda L, o: L.CosineAnnealingWarmRestarts(o, 2, T_mult=0),
    "wr_eta_min": lambda L, o: L.CosineAnnealingWarmRestarts(o, 2, eta_min="0"),
    "wr_negative_epoch": lambda L, o: L.CosineAnnealingWarmRestarts(o, 2).step(-1),
    "cyclic_mode": lambda L, o: L.CyclicLR(o, 0.1, 1.0, mode="square"),
    "cyclic_max_lr_count": lambda L, o: L.CyclicLR(o, 0.1, [1.0, 2.0, 3.0]),
    "cyclic_base_momentum_count": lambda L, o: L.CyclicLR(o, 0.1, 1.0, base_momentum=[0.8]),
    "onecycle_nothing": lambda L, o: L.OneCycleLR(o, 0.1),
    "onecycle_total_steps": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=0),
    "onecycle_total_steps_float": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10.0),
    "onecycle_epochs": lambda L, o: L.OneCycleLR(o, 0.1, epochs=-1, steps_per_epoch=3),
    "onecycle_steps_per_epoch": lambda L, o: L.OneCycleLR(o, 0.1, epochs=2, steps_per_epoch=0),
    "onecycle_pct": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10, pct_start=1.5),
    "onecycle_pct_int": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10, pct_start=1),
    "onecycle_anneal": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="exp"),
    "onecycle_max_lr_count": lambda L, o: L.OneCycleLR(o, [0.1], total_steps=10),
    "sequential_empty": lambda L, o: L.SequentialLR(o, [], []),
    "sequential_milestones": lambda L, o: L.SequentialLR(o, [L.StepLR(o, 2)], [3]),
    "sequential_plateau": lambda L, o: L.SequentialLR(o, [L.ReduceLROnPlateau(o)], []),
    "sequential_no_optimizer": lambda L, o: L.SequentialLR(o, [object()], []),
    "chained_empty": lambda L, o: L.ChainedScheduler([]),
    "chained_plateau": lambda L, o: L.ChainedScheduler([L.StepLR(o, 2), L.ReduceLROnPlateau(o)]),
    "plateau_factor": lambda L, o: L.ReduceLROnPlateau(o, factor=1.0),
    "plateau_mode": lambda L, o: L.ReduceLROnPlateau(o, mode="up"),
    "plateau_threshold_mode": lambda L, o: L.ReduceLROnPlateau(o, threshold_mode="log"),
    "plateau_min_lr_count": lambda L, o: L.ReduceLROnPlateau(o, min_lr=[0.1]),
    "plateau_not_optimizer": lambda L, o: L.ReduceLROnPlateau(object()),
}


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error itself is what is compared
        return type(e), str(e)
    raise AssertionError("no error")


@needs_torch
@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_match_torch(name):
    fn = ERROR_CASES[name]
    eo, to = _optimizer(ember), _optimizer(torch)
    assert _error(lambda: fn(E, eo)) == _error(lambda: fn(T, to))


@needs_torch
@pytest.mark.parametrize("cls", ["CyclicLR", "OneCycleLR"])
def test_cycle_momentum_needs_momentum_or_betas(cls):
    args = {"CyclicLR": (0.1, 1.0), "OneCycleLR": (0.1, 10)}[cls]
    errors = [
        _error(lambda L=L, lib=lib: getattr(L, cls)(_plain_optimizer(lib), *args))
        for L, lib in [(E, ember), (T, torch)]
    ]
    assert errors[0] == errors[1]
    assert errors[0][0] is ValueError and "cycle_momentum" in errors[0][1]
    # without cycle_momentum such an optimizer is fine
    opt = _plain_optimizer(ember)
    getattr(E, cls)(opt, *args, cycle_momentum=False)


@needs_torch
@pytest.mark.parametrize("which", ["sequential", "chained"])
def test_schedulers_of_another_optimizer_are_refused(which):
    msgs = []
    for L, lib in [(E, ember), (T, torch)]:
        o1, o2 = _optimizer(lib), _optimizer(lib)
        children = [L.StepLR(o1, 2), L.StepLR(o2, 2)]
        if which == "sequential":
            err = _error(partial(L.SequentialLR, o1, children, [2]))
        else:
            err = _error(partial(L.ChainedScheduler, children))
        msgs.append((err[0], err[1].split(" has ")[0], err[1].endswith("different from SGD.")))
    assert msgs[0] == msgs[1]
    assert msgs[0][0] is ValueError and msgs[0][2]


@needs_torch
def test_plateau_min_lrs_must_follow_new_groups():
    errs = []
    for L, lib in [(E, ember), (T, torch)]:
        opt = _optimizer(lib)
        sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0, 0.0])
        opt.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))], "lr": 0.3})
        sched.step(1.0)
        errs.append(_error(partial(sched.step, 2.0)))
        # a single min_lr is extended to the new group
        opt = _optimizer(lib)
        sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=0.01)
        opt.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))], "lr": 0.3})
        sched.step(1.0)
        sched.step(2.0)
        errs.append((sched.min_lrs, sched.get_last_lr()))
    assert errs[:2] == errs[2:]
    assert errs[0][0] is RuntimeError and errs[1][0] == [0.01] * 3


# ---- attached to ember optimizers in a training loop -----------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "kind,make",
    [
        ("sgd", lambda L, o: L.OneCycleLR(o, 0.2, total_steps=25)),
        ("adam", lambda L, o: L.CyclicLR(o, 0.001, 0.05, step_size_up=4, mode="triangular2")),
        ("sgd", lambda L, o: L.CosineAnnealingWarmRestarts(o, 3, 2)),
        (
            "adam",
            lambda L, o: L.SequentialLR(
                o, [L.LinearLR(o, 0.1, total_iters=5), L.CosineAnnealingLR(o, 20)], [5]
            ),
        ),
    ],
)
def test_training_trajectory_matches_torch(kind, make):
    import numpy as np

    rng = np.random.default_rng(0)
    (es, eo), (ts, to) = _both(make, kind)
    eparams = [p for g in eo.param_groups for p in g["params"]]
    tparams = [p for g in to.param_groups for p in g["params"]]
    for _ in range(25):
        for e, t in zip(eparams, tparams):
            g = rng.standard_normal(2)
            e.grad = ember.from_numpy(g.copy())
            t.grad = torch.from_numpy(g.copy())
        eo.step()
        to.step()
        es.step()
        ts.step()
        assert _snapshot(eo) == _snapshot(to)
    for e, t in zip(eparams, tparams):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-12)


def test_cosine_recursion_stays_close_to_the_closed_form():
    # the recursive form drifts from the closed form only by rounding
    opt = _optimizer(ember, groups=1)
    sched = E.CosineAnnealingLR(opt, T_max=10, eta_min=0.01)
    for epoch in range(1, 60):
        opt.step()
        sched.step()
        want = 0.01 + (0.1 - 0.01) * (1 + math.cos(math.pi * epoch / 10)) / 2
        assert sched.get_last_lr()[0] == pytest.approx(want, rel=1e-9, abs=1e-15)


@needs_torch
@pytest.mark.parametrize("kind", ["SequentialLR", "ChainedScheduler"])
def test_loading_more_child_schedulers_than_exist_raises_and_changes_nothing(kind):
    def build(lib):
        p = [lib.nn.Parameter(lib.ones(1))]
        o = lib.optim.SGD(p, lr=1.0)
        kids = [lib.optim.lr_scheduler.ConstantLR(o), lib.optim.lr_scheduler.ExponentialLR(o, 0.9)]
        if kind == "SequentialLR":
            return getattr(lib.optim.lr_scheduler, kind)(o, kids, [2])
        return getattr(lib.optim.lr_scheduler, kind)(kids)

    for lib in (torch, ember):
        sd = build(lib).state_dict()
        sd["_schedulers"].append(dict(sd["_schedulers"][0]))
        sd["last_epoch"] = 99
        target = build(lib)
        before = target.state_dict()
        with pytest.raises(IndexError):
            target.load_state_dict(sd)
    assert target.state_dict() == before  # ember's: nothing changed
