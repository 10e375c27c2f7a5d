"""ember.optim.swa_utils against torch.optim.swa_utils: AveragedModel's averaged weights over a
short float64 training loop (SWA, EMA, per-tensor and list averaging functions, buffers), update_bn
on models with BatchNorm, SWALR's lr sequences and state dicts, and the errors torch gives."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.optim
from ember.optim import swa_utils as S

try:
    import torch
    from torch.optim import swa_utils as TS
except ImportError:  # pragma: no cover - CI installs torch
    torch = TS = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _model(lib, conv=False):
    nn = lib.nn
    if conv:
        return nn.Sequential(
            nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(12, 2)
        ).double()
    return nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5), nn.Tanh(), nn.Linear(5, 2)).double()


def _pair(conv=False):
    """The same float64 model in ember and torch (weights copied through a state dict)."""
    tm = _model(torch, conv)
    em = _model(ember, conv)
    em.load_state_dict(
        {k: ember.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()}
    )
    return em, tm


def _assert_state_equal(e_sd, t_sd, rtol=1e-12):
    assert list(e_sd) == list(t_sd)
    for k in t_sd:
        e, t = e_sd[k].numpy(), t_sd[k].numpy()
        assert e.dtype == t.dtype, k
        np.testing.assert_allclose(e, t, rtol=rtol, atol=1e-14, err_msg=k)


def _batches(n, conv=False, seed=0):
    rng = np.random.default_rng(seed)
    shape = (6, 2, 4, 4) if conv else (6, 4)
    return [(rng.standard_normal(shape), rng.standard_normal((6, 2))) for _ in range(n)]


def _train(model, averaged, lib, batches, start=2):
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for i, (x, y) in enumerate(batches):
        out = model(lib.from_numpy(x.copy()))
        loss = ((out - lib.from_numpy(y.copy())) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i >= start:
            averaged.update_parameters(model)


AVERAGERS = {
    "swa": lambda M: {},
    "ema_avg_fn": lambda M: {"avg_fn": M.get_ema_avg_fn(0.9)},
    "swa_avg_fn": lambda M: {"avg_fn": M.get_swa_avg_fn()},
    "ema_multi": lambda M: {"multi_avg_fn": M.get_ema_multi_avg_fn(0.8)},
    "swa_multi": lambda M: {"multi_avg_fn": M.get_swa_multi_avg_fn()},
    "custom_avg_fn": lambda M: {"avg_fn": lambda a, m, n: 0.5 * a + 0.5 * m + 0.0 * n},
}


# ---- AveragedModel ---------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("name", list(AVERAGERS))
def test_averaged_model_matches_torch(name, use_buffers):
    if name == "swa_multi" and use_buffers:
        pytest.skip("integer buffers make torch raise: test_swa_multi_with_int_buffers_raises")
    em, tm = _pair()
    ea = S.AveragedModel(em, use_buffers=use_buffers, **AVERAGERS[name](S))
    ta = TS.AveragedModel(tm, use_buffers=use_buffers, **AVERAGERS[name](TS))
    batches = _batches(8)
    _train(em, ea, ember, batches)
    _train(tm, ta, torch, batches)
    # lerp-based averages: torch's CPU lerp rounds through a fused multiply-add
    _assert_state_equal(ea.state_dict(), ta.state_dict(), rtol=1e-11)
    assert int(ea.n_averaged) == int(ta.n_averaged) == 6
    assert ea.n_averaged.dtype == ember.int64
    x = np.random.default_rng(1).standard_normal((3, 4))
    ea.eval()
    ta.eval()
    np.testing.assert_allclose(
        ea(ember.from_numpy(x)).detach().numpy(),
        ta(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-10,
    )
    # the model's own weights are not touched by averaging
    _assert_state_equal(em.state_dict(), tm.state_dict(), rtol=1e-10)


@needs_torch
def test_swa_default_is_the_mean_of_the_snapshots():
    em, _ = _pair()
    ea = S.AveragedModel(em)
    snapshots = []
    for x, _ in _batches(5):
        with ember.no_grad():
            for p in em.parameters():
                p.add_(ember.from_numpy(np.full(tuple(p.shape), float(x[0, 0]))))
        snapshots.append([p.detach().numpy().copy() for p in em.parameters()])
        ea.update_parameters(em)
    for i, p in enumerate(ea.module.parameters()):
        np.testing.assert_allclose(
            p.detach().numpy(), np.mean([s[i] for s in snapshots], 0), rtol=1e-13
        )
    # buffers follow the model when they are not averaged
    em.train()
    em(ember.randn(6, 4, dtype=ember.float64))
    ea.update_parameters(em)
    for b_avg, b in zip(ea.module.buffers(), em.buffers()):
        assert np.array_equal(b_avg.numpy(), b.numpy())


@needs_torch
def test_swa_multi_with_int_buffers_raises_as_torch():
    errors = []
    for lib, M in [(ember, S), (torch, TS)]:
        model = _model(lib)
        avg = M.AveragedModel(model, use_buffers=True, multi_avg_fn=M.get_swa_multi_avg_fn())
        avg.update_parameters(model)
        with pytest.raises(RuntimeError) as info:
            avg.update_parameters(model)
        errors.append(str(info.value).split(",")[0])
    assert errors[0] == errors[1] == "Integer division with addcdiv is no longer supported"


@needs_torch
@pytest.mark.parametrize("count", [3, "tensor"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_multi_avg_fns_match_torch(count, dtype):
    rng = np.random.default_rng(0)
    avg0 = [rng.standard_normal((3, 4)) * 10, rng.standard_normal(5) * 10]
    cur0 = [rng.standard_normal((3, 4)) * 10, rng.standard_normal(5) * 10]
    results = []
    for lib, M in [(ember, S), (torch, TS)]:
        for fn in [M.get_swa_multi_avg_fn(), M.get_ema_multi_avg_fn(0.7)]:
            avg = [lib.from_numpy(a.astype(dtype)) for a in avg0]
            cur = [lib.from_numpy(c.astype(dtype)) for c in cur0]
            n = lib.tensor(3) if count == "tensor" else 3
            try:
                fn(avg, cur, n)
                results.append([a.numpy() for a in avg])
            except RuntimeError:
                results.append(RuntimeError)  # integer tensors: torch's add_/addcdiv_ refuse
    for e, t in zip(results[:2], results[2:]):
        if t is RuntimeError:
            assert e is RuntimeError
        else:
            for a, b in zip(e, t):
                assert a.dtype == b.dtype
                np.testing.assert_allclose(a, b, rtol=1e-6 if dtype == "float32" else 1e-14)


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_per_tensor_avg_fns_match_torch_exactly(dtype):
    rng = np.random.default_rng(0)
    a, c = rng.standard_normal(7).astype(dtype), rng.standard_normal(7).astype(dtype)
    for name, args in [("get_swa_avg_fn", ()), ("get_ema_avg_fn", (0.93,))]:
        e = getattr(S, name)(*args)(ember.from_numpy(a), ember.from_numpy(c), ember.tensor(4))
        t = getattr(TS, name)(*args)(torch.from_numpy(a), torch.from_numpy(c), torch.tensor(4))
        assert e.dtype == getattr(ember, dtype)
        assert np.array_equal(e.numpy(), t.numpy())


@needs_torch
def test_state_dict_crosses_to_torch():
    em, tm = _pair()
    ea = S.AveragedModel(em, multi_avg_fn=S.get_ema_multi_avg_fn())
    ta = TS.AveragedModel(tm, multi_avg_fn=TS.get_ema_multi_avg_fn())
    _train(em, ea, ember, _batches(4), start=0)
    ta.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in ea.state_dict().items()})
    assert int(ta.n_averaged) == 4
    _assert_state_equal(ea.state_dict(), ta.state_dict(), rtol=0)


@needs_torch
@pytest.mark.parametrize("decay", [-0.1, 1.5])
def test_decay_errors_match_torch(decay):
    for fn in ["get_ema_avg_fn", "get_ema_multi_avg_fn"]:
        with pytest.raises(ValueError) as e_info:
            getattr(S, fn)(decay)
        with pytest.raises(ValueError) as t_info:
            getattr(TS, fn)(decay)
        assert str(e_info.value) == str(t_info.value)
        assert str(decay) in str(e_info.value)


def test_avg_fn_and_multi_avg_fn_exclude_each_other():
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        S.AveragedModel(
            _model(ember), avg_fn=S.get_swa_avg_fn(), multi_avg_fn=S.get_swa_multi_avg_fn()
        )


def test_averaged_model_is_a_copy_with_torch_keys():
    model = _model(ember)
    avg = S.AveragedModel(model)
    assert avg.module is not model
    assert list(avg.state_dict())[:2] == ["n_averaged", "module.0.weight"]
    assert avg.module[0].weight is not model[0].weight


# ---- update_bn -------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("conv", [False, True])
@pytest.mark.parametrize("form", ["tuples", "tensors", "lists"])
def test_update_bn_matches_torch(conv, form):
    em, tm = _pair(conv)
    ea, ta = S.AveragedModel(em), TS.AveragedModel(tm)
    batches = _batches(6, conv)
    _train(em, ea, ember, batches, start=0)
    _train(tm, ta, torch, batches, start=0)

    def loader(lib):
        for x, y in _batches(5, conv, seed=7):
            x, y = lib.from_numpy(x), lib.from_numpy(y)
            yield {"tuples": (x, y), "tensors": x, "lists": [x, y]}[form]

    ea.eval()
    ta.eval()
    S.update_bn(loader(ember), ea)
    TS.update_bn(loader(torch), ta)
    _assert_state_equal(ea.state_dict(), ta.state_dict(), rtol=1e-10)
    bn = ea.module[1]
    assert not ea.training and bn.momentum == 0.1 and int(bn.num_batches_tracked) == 5


@needs_torch
def test_update_bn_is_the_plain_average_of_batch_statistics():
    model = ember.nn.BatchNorm1d(3).double()
    xs = [np.random.default_rng(i).standard_normal((10, 3)) for i in range(4)]
    S.update_bn([ember.from_numpy(x) for x in xs], model, device="cpu")
    np.testing.assert_allclose(
        model.running_mean.numpy(), np.mean([x.mean(0) for x in xs], 0), rtol=1e-12
    )
    np.testing.assert_allclose(
        model.running_var.numpy(), np.mean([x.var(0, ddof=1) for x in xs], 0), rtol=1e-12
    )
    assert model.training


def test_update_bn_without_batchnorm_does_nothing():
    model = ember.nn.Linear(2, 2)
    model.eval()
    S.update_bn(iter(()), model)
    assert not model.training


# ---- SWALR -----------------------------------------------------------------------------------
def _opt(lib, kind="sgd"):
    params = [lib.nn.Parameter(lib.ones(2, dtype=lib.float64)) for _ in range(2)]
    groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.02}]
    if kind == "adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def _lrs(sched, opt, steps):
    out = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr() + [g["lr"] for g in opt.param_groups])
    return out


SWALR_CASES = [
    {"swa_lr": 0.05},
    {"swa_lr": 0.05, "anneal_epochs": 3, "anneal_strategy": "linear"},
    {"swa_lr": [0.01, 0.3], "anneal_epochs": 5},
    {"swa_lr": 0.05, "anneal_epochs": 0},
    {"swa_lr": 0.05, "anneal_epochs": 1, "anneal_strategy": "linear"},
]


@needs_torch
@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("kwargs", SWALR_CASES)
def test_swalr_matches_torch(kwargs, kind):
    eo, to = _opt(ember, kind), _opt(torch, kind)
    es, ts = S.SWALR(eo, **kwargs), TS.SWALR(to, **kwargs)
    assert _lrs(es, eo, 14) == _lrs(ts, to, 14)
    assert es.state_dict() == ts.state_dict()
    assert [g["swa_lr"] for g in eo.param_groups] == [g["swa_lr"] for g in to.param_groups]


@needs_torch
def test_swalr_after_cosine_annealing_matches_torch():
    seqs = []
    for lib, L, M in [(ember, ember.optim.lr_scheduler, S), (torch, torch.optim.lr_scheduler, TS)]:
        opt = _opt(lib)
        cosine = L.CosineAnnealingLR(opt, T_max=10)
        swa = M.SWALR(opt, swa_lr=0.03, anneal_epochs=4)
        seq = []
        for epoch in range(16):
            opt.step()
            (cosine if epoch < 6 else swa).step()
            seq.append([g["lr"] for g in opt.param_groups])
        seqs.append(seq)
    assert seqs[0] == seqs[1]


@needs_torch
def test_swalr_state_dict_resume_and_cross():
    eo, to = _opt(ember), _opt(torch)
    es = S.SWALR(eo, swa_lr=0.05, anneal_epochs=6, anneal_strategy="linear")
    ts = TS.SWALR(to, swa_lr=0.05, anneal_epochs=6, anneal_strategy="linear")
    _lrs(es, eo, 3)
    _lrs(ts, to, 3)
    sd = ts.state_dict()
    assert "anneal_func" not in sd and sd["_anneal_strategy"] == "linear"
    # a cos scheduler loading a linear one's state anneals linearly from there
    eo2 = _opt(ember)
    es2 = S.SWALR(eo2, swa_lr=0.05, anneal_epochs=6)
    for d, s in zip(eo2.param_groups, to.param_groups):
        d.update({k: v for k, v in s.items() if k != "params"})
    es2.load_state_dict(dict(sd))
    assert es2.anneal_func(0.25) == 0.25
    assert _lrs(es2, eo2, 6) == _lrs(ts, to, 6)


@needs_torch
@pytest.mark.parametrize(
    "kwargs",
    [
        {"swa_lr": 0.1, "anneal_strategy": "step"},
        {"swa_lr": 0.1, "anneal_epochs": -1},
        {"swa_lr": 0.1, "anneal_epochs": 2.0},
        {"swa_lr": [0.1]},
    ],
)
def test_swalr_errors_match_torch(kwargs):
    with pytest.raises(ValueError) as e_info:
        S.SWALR(_opt(ember), **kwargs)
    with pytest.raises(ValueError) as t_info:
        TS.SWALR(_opt(torch), **kwargs)
    assert str(e_info.value) == str(t_info.value)


@needs_torch
def test_swalr_get_lr_outside_step_warns():
    for lib, M in [(ember, S), (torch, TS)]:
        sched = M.SWALR(_opt(lib), swa_lr=0.05)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            sched.get_lr()
