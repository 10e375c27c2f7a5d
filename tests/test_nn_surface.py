"""The rest of torch.nn's surface: Fold/Unfold, AdaptiveLogSoftmaxWithLoss, CrossMapLRN2d,
NLLLoss2d and SyncBatchNorm against torch (values, input and parameter gradients, reprs,
state_dicts, errors), and a census: every public class of torch.nn and function of
torch.nn.functional exists in ember, but for an explicit allow-list."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as EF

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = TF = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

RNG = np.random.default_rng(0)


def _rand(*shape):
    return RNG.standard_normal(shape)


def _copy(em, tm):
    """torch's state_dict into the ember module (a NumPy round trip: the keys must match)."""
    sd = tm.state_dict()
    assert list(em.state_dict()) == list(sd)
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in sd.items()})


def _close(a, b, tol=1e-9):
    a = a.detach().numpy() if isinstance(a, ember.Tensor) else a
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else b
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * 1e-3)


def _param_grads(em, tm, tol=1e-9):
    tg = dict(tm.named_parameters())
    for name, p in em.named_parameters():
        assert (p.grad is None) == (tg[name].grad is None), name
        if p.grad is not None:
            _close(p.grad, tg[name].grad, tol)


# ---- Fold / Unfold ----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "kw,shape",
    [
        ({"output_size": (4, 5), "kernel_size": 2}, (2, 3 * 4, 12)),
        (
            {
                "output_size": 5,
                "kernel_size": (2, 3),
                "dilation": (1, 2),
                "padding": 1,
                "stride": (2, 1),
            },
            (2, 2 * 6, 3 * 3),
        ),
        ({"output_size": [6, 4], "kernel_size": 3, "stride": 3}, (3 * 9, 2)),  # unbatched
    ],
)
def test_fold_module_matches_torch(kw, shape):
    em, tm = enn.Fold(**kw), torch.nn.Fold(**kw)
    assert repr(em) == repr(tm)
    assert enn.Fold.__constants__ == torch.nn.Fold.__constants__
    x = _rand(*shape)
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ey, ty = em(ex), tm(tx)
    _close(ey, ty, 1e-12)
    g = _rand(*ty.shape)
    ey.backward(ember.tensor(g))
    ty.backward(torch.tensor(g))
    _close(ex.grad, tx.grad, 1e-12)


@needs_torch
@pytest.mark.parametrize(
    "kw,shape",
    [
        ({"kernel_size": (2, 3)}, (2, 5, 3, 4)),
        ({"kernel_size": 2, "dilation": 2, "padding": (1, 0), "stride": 2}, (2, 3, 6, 7)),
        ({"kernel_size": [3, 1], "stride": (1, 2)}, (4, 5, 6)),  # unbatched
    ],
)
def test_unfold_module_matches_torch(kw, shape):
    em, tm = enn.Unfold(**kw), torch.nn.Unfold(**kw)
    assert repr(em) == repr(tm)
    assert enn.Unfold.__constants__ == torch.nn.Unfold.__constants__
    x = _rand(*shape)
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ey, ty = em(ex), tm(tx)
    _close(ey, ty, 1e-12)
    g = _rand(*ty.shape)
    ey.backward(ember.tensor(g))
    ty.backward(torch.tensor(g))
    _close(ex.grad, tx.grad, 1e-12)


def test_fold_of_unfold_counts_block_overlaps():
    x = ember.ones(1, 2, 4, 5)
    cols = enn.Unfold(kernel_size=2)(x)
    y = enn.Fold(output_size=(4, 5), kernel_size=2)(cols)
    counts = np.array([[1, 2, 2, 2, 1], [2, 4, 4, 4, 2], [2, 4, 4, 4, 2], [1, 2, 2, 2, 1]])
    np.testing.assert_array_equal(y.numpy()[0, 1], counts)


@needs_torch
def test_fold_module_errors_match_torch():
    for mod, x in (
        (lambda m: m.Fold(3, 2), np.zeros((1, 5, 4))),
        (lambda m: m.Unfold(2), np.zeros((2, 3))),
    ):
        with pytest.raises(Exception) as expected:
            mod(torch.nn)(torch.tensor(x))
        with pytest.raises(expected.type):
            mod(enn)(ember.tensor(x))


# ---- AdaptiveLogSoftmaxWithLoss ---------------------------------------------------------------
def _asm_pair(in_features=64, n_classes=20, cutoffs=(4, 9, 15), **kw):
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, list(cutoffs), **kw).double()
    em = enn.AdaptiveLogSoftmaxWithLoss(
        in_features, n_classes, list(cutoffs), **kw, dtype=ember.float64
    )
    _copy(em, tm)
    return em, tm


@needs_torch
@pytest.mark.parametrize("kw", [{}, {"div_value": 2.0, "head_bias": True}, {"div_value": 1.0}])
@pytest.mark.parametrize(
    "target", [[0, 3, 5, 19, 12, 8, 1], [1, 2, 3, 0, 2], [19, 18, 15, 16], [9]]
)
def test_adaptive_log_softmax_matches_torch(kw, target):
    em, tm = _asm_pair(**kw)
    assert repr(em) == repr(tm)
    assert em.cutoffs == tm.cutoffs and em.head_size == tm.head_size
    assert (em.shortlist_size, em.n_clusters) == (tm.shortlist_size, tm.n_clusters)
    x = _rand(len(target), 64)
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    eo = em(ex, ember.tensor(target))
    to = tm(tx, torch.tensor(target))
    assert type(eo).__name__ == "_ASMoutput" and eo._fields == ("output", "loss")
    _close(eo.output, to.output)
    _close(eo.loss, to.loss)
    (eo.loss + (eo.output**2).sum()).backward()
    (to.loss + (to.output**2).sum()).backward()
    _close(ex.grad, tx.grad)
    _param_grads(em, tm)
    _close(em.log_prob(ex), tm.log_prob(tx))
    np.testing.assert_array_equal(em.predict(ex).numpy(), tm.predict(tx).numpy())


@needs_torch
def test_adaptive_log_softmax_predict_paths_and_unbatched():
    em, tm = _asm_pair()
    with torch.no_grad():  # head biased towards the clusters: some rows leave the shortlist
        tm.head.weight[4:] *= 6
    _copy(em, tm)
    x = _rand(40, 64)
    pe, pt = em.predict(ember.tensor(x)), tm.predict(torch.tensor(x))
    assert (pt >= 4).any() and (pt < 4).any()
    np.testing.assert_array_equal(pe.numpy(), pt.numpy())
    np.testing.assert_array_equal(em.log_prob(ember.tensor(x)).argmax(1).numpy(), pt.numpy())
    out = tm.head(torch.tensor(x)).argmax(1) >= 4
    np.testing.assert_array_equal(
        em.predict(ember.tensor(x[out.numpy()])).numpy(),
        tm.predict(torch.tensor(x[out.numpy()])).numpy(),
    )
    eo = em(ember.tensor(x[0]), ember.tensor(17))
    to = tm(torch.tensor(x[0]), torch.tensor(17))
    assert eo.output.shape == () and eo.loss.shape == ()
    _close(eo.output, to.output)
    _close(eo.loss, to.loss)


def test_adaptive_log_softmax_log_prob_is_a_distribution():
    m = enn.AdaptiveLogSoftmaxWithLoss(32, 10, [3, 6], dtype=ember.float64)
    lp = m.log_prob(ember.randn(5, 32, dtype=ember.float64))
    np.testing.assert_allclose(lp.exp().sum(1).detach().numpy(), np.ones(5), rtol=1e-12)


@needs_torch
def test_adaptive_log_softmax_parameters_meta_and_reset():
    m = enn.AdaptiveLogSoftmaxWithLoss(64, 1000, [10, 100], div_value=4.0, device="meta")
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(64, 1000, [10, 100], div_value=4.0, device="meta")
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in t.named_parameters()
    ]
    assert all(p.device.type == "meta" for p in m.parameters())
    m = enn.AdaptiveLogSoftmaxWithLoss(32, 10, [3, 6])
    before = [p.detach().clone() for p in m.parameters()]
    m.reset_parameters()
    assert all(
        not np.array_equal(a.detach().numpy(), p.detach().numpy())
        for a, p in zip(before, m.parameters())
    )


@needs_torch
@pytest.mark.parametrize(
    "args",
    [
        (16, 20, []),
        (16, 20, [5, 4]),
        (16, 20, [0, 4]),
        (16, 20, [4, 20]),
        (16, 20, [4, 4]),
        (16, 20, [4.5]),
    ],
)
def test_adaptive_log_softmax_cutoff_errors(args):
    with pytest.raises(ValueError) as expected:
        torch.nn.AdaptiveLogSoftmaxWithLoss(*args)
    with pytest.raises(ValueError) as got:
        enn.AdaptiveLogSoftmaxWithLoss(*args)
    assert str(got.value).startswith(str(expected.value).rstrip())


@needs_torch
@pytest.mark.parametrize(
    "xs,target",
    [
        ((3, 64), [0, 1]),
        ((3, 4, 64), [0, 1, 2]),
        ((64,), [[1]]),
        ((2, 64), 3),
        ((2, 64), [0, 20]),
        ((2, 64), [-1, 2]),
    ],
)
def test_adaptive_log_softmax_forward_errors(xs, target):
    em, tm = _asm_pair()
    with pytest.raises(Exception) as expected:
        tm(torch.zeros(xs, dtype=torch.float64), torch.tensor(target))
    with pytest.raises(expected.type) as got:
        em(ember.zeros(xs, dtype=ember.float64), ember.tensor(target))
    assert str(got.value).startswith(str(expected.value).replace("torch.", "ember.")[:40])


# ---- CrossMapLRN2d ----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("size", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("channels", [1, 3, 8])
def test_cross_map_lrn2d_matches_torch(size, channels):
    kw = {"alpha": 0.1, "beta": 0.75, "k": 1.5}
    em, tm = enn.CrossMapLRN2d(size, **kw), torch.nn.CrossMapLRN2d(size, **kw)
    assert repr(em) == repr(tm)
    x = _rand(2, channels, 3, 4)
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ey, ty = em(ex), tm(tx)
    _close(ey, ty, 1e-12)
    g = _rand(*x.shape)
    ey.backward(ember.tensor(g))
    ty.backward(torch.tensor(g))
    # torch's hand-written gradient (not the derivative of its forward): matched as is
    _close(ex.grad, tx.grad, 1e-12)


@needs_torch
def test_cross_map_lrn2d_errors_and_defaults():
    em, tm = enn.CrossMapLRN2d(3), torch.nn.CrossMapLRN2d(3)
    assert repr(em) == repr(tm) == "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"
    for shape in ((2, 3, 4), (1, 2, 3, 4, 5)):
        with pytest.raises(ValueError) as expected:
            tm(torch.zeros(shape))
        with pytest.raises(ValueError) as got:
            em(ember.zeros(shape))
        assert str(got.value) == str(expected.value)
    x = _rand(1, 3, 2, 2)
    ty = torch.nn.CrossMapLRN2d(1)(torch.tensor(x, requires_grad=True))
    ey = enn.CrossMapLRN2d(1)(ember.tensor(x, requires_grad=True))
    _close(ey, ty, 1e-12)
    with pytest.raises(RuntimeError) as expected:
        ty.sum().backward()
    with pytest.raises(RuntimeError) as got:
        ey.sum().backward()
    assert str(got.value) == str(expected.value)


# ---- NLLLoss2d --------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "kw", [{}, {"reduction": "sum", "ignore_index": 1}, {"weight": np.array([0.2, 1.0, 3.0])}]
)
def test_nll_loss2d_is_a_deprecated_nll_loss(kw):
    tkw = {k: torch.tensor(v) if k == "weight" else v for k, v in kw.items()}
    ekw = {k: ember.tensor(v) if k == "weight" else v for k, v in kw.items()}
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated") as rec:
        em = enn.NLLLoss2d(**ekw)
    assert rec[0].filename == __file__
    with pytest.warns(FutureWarning):
        tm = torch.nn.NLLLoss2d(**tkw)
    assert isinstance(em, enn.NLLLoss) and repr(em) == repr(tm)
    x = _rand(2, 3, 4, 5)
    t = RNG.integers(0, 3, (2, 4, 5))
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    el, tl = em(ex, ember.tensor(t)), tm(tx, torch.tensor(t))
    _close(el, tl, 1e-12)
    el.backward()
    tl.backward()
    _close(ex.grad, tx.grad, 1e-12)


# ---- SyncBatchNorm ----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"momentum": None},
        {"affine": False},
        {"track_running_stats": False},
        {"bias": False, "eps": 1e-3},
    ],
)
def test_sync_batch_norm_is_local_batch_norm_as_torch_without_process_group(kw):
    em = enn.SyncBatchNorm(3, **kw, dtype=ember.float64)
    tm = torch.nn.SyncBatchNorm(3, **kw).double()
    assert repr(em) == repr(tm)
    assert isinstance(em, enn.modules.batchnorm._BatchNorm) and em.process_group is None
    if kw.get("affine", True):
        with torch.no_grad():
            tm.weight.uniform_(0.5, 1.5)
            if tm.bias is not None:
                tm.bias.uniform_(-1, 1)
    _copy(em, tm)
    for training, shape in (
        (True, (4, 3)),
        (True, (4, 3, 5)),
        (True, (2, 3, 2, 2, 2)),
        (False, (4, 3, 5)),
    ):
        em.train(training)
        tm.train(training)
        x = _rand(*shape)
        ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ey, ty = em(ex), tm(tx)
        _close(ey, ty)
        g = _rand(*shape)
        ey.backward(ember.tensor(g))
        ty.backward(torch.tensor(g))
        _close(ex.grad, tx.grad)
        _param_grads(em, tm)
        for (_, b), (_, c) in zip(em.named_buffers(), tm.named_buffers()):
            _close(b, c.numpy(), 1e-12)


@needs_torch
def test_sync_batch_norm_errors_and_meta():
    for shape in ((4,), (4, 0)):
        with pytest.raises(ValueError) as expected:
            torch.nn.SyncBatchNorm(3)(torch.zeros(shape))
        with pytest.raises(ValueError) as got:
            enn.SyncBatchNorm(3)(ember.zeros(shape))
        assert str(got.value) == str(expected.value)
    m = enn.SyncBatchNorm(5, device="meta", process_group="group")
    assert m.weight.device.type == "meta" and m.running_mean.shape == (5,)
    assert m.process_group == "group"


@needs_torch
def test_convert_sync_batchnorm_shares_parameters_and_buffers():
    net = enn.Sequential(
        enn.Conv2d(2, 4, 3),
        enn.BatchNorm2d(4, momentum=0.3),
        enn.Sequential(enn.ReLU(), enn.BatchNorm1d(4, affine=False)),
    )
    net[1].eval()
    bn, inner = net[1], net[2][1]
    out = enn.SyncBatchNorm.convert_sync_batchnorm(net, process_group="pg")
    assert out is net
    assert type(net[1]) is enn.SyncBatchNorm and type(net[2][1]) is enn.SyncBatchNorm
    assert net[1].weight is bn.weight and net[1].running_var is bn.running_var
    assert net[1].num_batches_tracked is bn.num_batches_tracked
    assert net[1].momentum == 0.3 and not net[1].training and net[1].process_group == "pg"
    assert net[2][1].weight is None and net[2][1].running_mean is inner.running_mean
    single = enn.SyncBatchNorm.convert_sync_batchnorm(enn.BatchNorm1d(3))
    assert type(single) is enn.SyncBatchNorm
    tnet = torch.nn.Sequential(torch.nn.BatchNorm1d(3, bias=False))
    enet = enn.Sequential(enn.BatchNorm1d(3, bias=False))
    assert repr(enn.SyncBatchNorm.convert_sync_batchnorm(enet)) == repr(
        torch.nn.SyncBatchNorm.convert_sync_batchnorm(tnet)
    )


# ---- census of torch.nn's public surface ------------------------------------------------------
# Names of torch.nn.functional that are typing aliases or torch's dispatch helpers, not API.
_F_HELPERS = {
    "Callable",
    "Optional",
    "Tensor",
    "DType",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "boolean_dispatch",
    "assert_int_or_pair",
}

# What ember deliberately lacks, and why.
# Empty: grouped_mm, scaled_mm, scaled_grouped_mm and their enums have landed
# (ember/nn/functional/lowp_mm.py).
_ALLOWED_MISSING: set[str] = set()

# Public API that ember should have but does not yet: empty now that linear_cross_entropy,
# LinearCrossEntropyLoss, LinearCrossEntropyOptions and conv_tbc have landed. Add a name here
# when a new torch lacks it in ember; remove it when it lands (the test fails while a listed name
# exists).
_NOT_YET: set[str] = set()


def _torch_surface():
    classes = {
        n for n in dir(torch.nn) if not n.startswith("_") and inspect.isclass(getattr(torch.nn, n))
    }
    functions = {
        n
        for n in dir(TF)
        if not n.startswith("_")
        and n not in _F_HELPERS
        and callable(getattr(TF, n))
        and not inspect.ismodule(getattr(TF, n))
    }
    return classes, functions


@needs_torch
def test_every_public_torch_nn_name_exists_in_ember():
    classes, functions = _torch_surface()
    assert len(classes) > 150 and len(functions) > 120  # the census itself works
    missing = sorted(
        {n for n in classes if not hasattr(enn, n)} | {n for n in functions if not hasattr(EF, n)}
    )
    unexpected = [n for n in missing if n not in _ALLOWED_MISSING | _NOT_YET]
    assert not unexpected, f"ember.nn / ember.nn.functional lack: {unexpected}"


@needs_torch
def test_census_allow_lists_are_current():
    classes, functions = _torch_surface()
    listed = _ALLOWED_MISSING | _NOT_YET
    # every listed name is still in torch, and still absent from ember
    assert listed <= classes | functions | {"ScalingType", "SwizzleType"}
    present = [n for n in sorted(listed) if hasattr(enn, n) or hasattr(EF, n)]
    assert not present, f"now in ember, remove from the allow-lists: {present}"
    for n in ("ScalingType", "SwizzleType"):
        assert inspect.isclass(getattr(TF, n))


def test_new_names_are_exported_where_torch_has_them():
    for name in (
        "Fold",
        "Unfold",
        "AdaptiveLogSoftmaxWithLoss",
        "CrossMapLRN2d",
        "NLLLoss2d",
        "SyncBatchNorm",
        "FractionalMaxPool2d",
        "FractionalMaxPool3d",
    ):
        assert getattr(enn, name) is getattr(enn.modules, name)
    for name in (
        "grid_sample",
        "affine_grid",
        "fractional_max_pool2d",
        "fractional_max_pool3d_with_indices",
    ):
        assert callable(getattr(EF, name))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enn.Fold(2, 1)  # constructing the non-deprecated layers warns nothing


@needs_torch
def test_each_layer_lives_in_the_file_torch_keeps_it_in():
    # STYLE: file names follow torch/nn/modules/*, so a reader goes from torch's docs to ours
    moved = {"MultiheadAttention": "attention"}  # torch: activation.py (re-exported there too)
    wrong = []
    for name in dir(torch.nn):
        theirs = getattr(torch.nn, name)
        if not inspect.isclass(theirs) or not hasattr(enn, name):
            continue
        ours = getattr(enn, name).__module__.rsplit(".", 1)[-1]
        expected = moved.get(name, theirs.__module__.rsplit(".", 1)[-1])
        if ours != expected:
            wrong.append((name, ours, expected))
    assert not wrong
