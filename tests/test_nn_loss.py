"""The losses (ember.nn.functional and the ember.nn loss modules) against torch: values and
gradients in float64 at 1e-9 for every loss, reduction and option; errors, warnings, module
attributes and reprs; the fused cross-entropy against its composite; gradcheck.
CTC has its own file (test_nn_loss_ctc.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF
from ember.autograd import gradcheck, gradgradcheck

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

RTOL, ATOL = 1e-9, 1e-12
REDUCTIONS = ["none", "mean", "sum"]


def _rng(seed=0):
    return np.random.default_rng(seed)


def _probs(rng, shape, axis=1):
    p = rng.random(shape) + 0.05
    return p / p.sum(axis, keepdims=True)


# ---- the case table: name -> (function name, arrays, differentiable indices, kwargs) ----------
def _cases():
    r = _rng(1)
    x = r.standard_normal((4, 5))
    t = np.array([0, 4, 2, 2])
    t_ign = np.array([0, -100, 2, 2])
    w = r.random(5) + 0.1
    x4 = r.standard_normal((2, 5, 3, 2))
    t4 = r.integers(0, 5, (2, 3, 2))
    t4[0, 0, 0] = 3
    t4[1, 2, 1] = 3
    x3 = r.standard_normal((2, 5, 3))
    t3 = r.integers(0, 5, (2, 3))
    y = r.standard_normal((4, 5))
    sgn = np.sign(r.standard_normal((4, 5)))
    cases = {
        "ce": ("cross_entropy", [x, t], (0,), {}),
        "ce_weight": ("cross_entropy", [x, t], (0,), {"weight": w}),
        "ce_ignore": ("cross_entropy", [x, t_ign], (0,), {}),
        "ce_ignore_custom": ("cross_entropy", [x, t], (0,), {"ignore_index": 2, "weight": w}),
        "ce_smooth": ("cross_entropy", [x, t], (0,), {"label_smoothing": 0.2}),
        "ce_smooth_weight_ignore": (
            "cross_entropy",
            [x, t_ign],
            (0,),
            {"label_smoothing": 0.3, "weight": w},
        ),
        "ce_4d": ("cross_entropy", [x4, t4], (0,), {"weight": w, "ignore_index": 3}),
        "ce_4d_smooth": (
            "cross_entropy",
            [x4, t4],
            (0,),
            {"ignore_index": 3, "label_smoothing": 0.1},
        ),
        "ce_3d": ("cross_entropy", [x3, t3], (0,), {}),
        "ce_unbatched": ("cross_entropy", [x[0], np.array(3)], (0,), {}),
        "ce_probs": ("cross_entropy", [x, _probs(r, (4, 5))], (0, 1), {}),
        "ce_probs_smooth_weight": (
            "cross_entropy",
            [x, _probs(r, (4, 5))],
            (0, 1),
            {"label_smoothing": 0.25, "weight": w},
        ),
        "ce_probs_3d": ("cross_entropy", [x3, _probs(r, (2, 5, 3))], (0, 1), {"weight": w}),
        "ce_probs_unbatched": ("cross_entropy", [x[0], _probs(r, (5,), 0)], (0, 1), {}),
        "nll": ("nll_loss", [x, t], (0,), {}),
        "nll_weight_ignore": ("nll_loss", [x, t_ign], (0,), {"weight": w}),
        "nll_4d": ("nll_loss", [x4, t4], (0,), {"weight": w, "ignore_index": 3}),
        "nll_3d": ("nll_loss", [x3, t3], (0,), {"weight": w}),
        "nll_unbatched": ("nll_loss", [x[0], np.array(1)], (0,), {}),
        "bce": ("binary_cross_entropy", [r.random((3, 4)), r.random((3, 4))], (0, 1), {}),
        "bce_weight": (
            "binary_cross_entropy",
            [r.random((3, 4)), r.random((3, 4))],
            (0, 1),
            {"weight": r.random(4)},
        ),
        "bce_edges": (
            "binary_cross_entropy",
            [np.array([0.0, 1.0, 1e-300, 0.5]), np.array([1.0, 0.0, 0.3, 0.5])],
            (0, 1),
            {},
        ),
        "bcel": ("binary_cross_entropy_with_logits", [5 * y, r.random((4, 5))], (0, 1), {}),
        "bcel_weights": (
            "binary_cross_entropy_with_logits",
            [5 * y, r.random((4, 5))],
            (0, 1),
            {"weight": r.random(5), "pos_weight": r.random(5) * 3},
        ),
        "bcel_large": (
            "binary_cross_entropy_with_logits",
            [np.array([-800.0, 800.0, 1e4, -1e4, 0.0]), np.array([1.0, 0.0, 1.0, 0.0, 0.5])],
            (0,),
            {},
        ),
        "mse": ("mse_loss", [x, y], (0, 1), {}),
        "mse_weight": ("mse_loss", [x, y], (0, 1), {"weight": r.random((4, 5))}),
        "l1": ("l1_loss", [x, y], (0, 1), {}),
        "l1_weight": ("l1_loss", [x, y], (0, 1), {"weight": r.random((4, 5))}),
        "smooth_l1": ("smooth_l1_loss", [x, y], (0, 1), {"beta": 0.7}),
        "smooth_l1_beta0": ("smooth_l1_loss", [x, y], (0, 1), {"beta": 0.0}),
        "huber": ("huber_loss", [x, y], (0, 1), {"delta": 0.6}),
        "huber_weight": ("huber_loss", [x, y], (0, 1), {"weight": r.random((4, 5))}),
        "kl": ("kl_div", [x, r.random((4, 5))], (0, 1), {}),
        "kl_log_target": ("kl_div", [x, y], (0, 1), {"log_target": True}),
        "poisson": ("poisson_nll_loss", [x, 3 * r.random((4, 5))], (0, 1), {}),
        "poisson_full": (
            "poisson_nll_loss",
            [x, 3 * r.random((4, 5)) + 1.1],
            (0, 1),
            {"full": True},
        ),
        "poisson_linear": (
            "poisson_nll_loss",
            [np.abs(x), 3 * r.random((4, 5))],
            (0, 1),
            {"log_input": False, "eps": 1e-3},
        ),
        "gauss": ("gaussian_nll_loss", [x, y, r.random((4, 5))], (0, 1, 2), {}),
        "gauss_full_eps": (
            "gaussian_nll_loss",
            [x, y, r.random((4, 5)) * 0.5],
            (0, 1, 2),
            {"full": True, "eps": 0.2},
        ),
        "gauss_row_var": ("gaussian_nll_loss", [x, y, r.random(4)], (0, 1, 2), {}),
        "gauss_col1_var": ("gaussian_nll_loss", [x, y, r.random((4, 1))], (0, 1, 2), {}),
        "gauss_bcast_var": (
            "gaussian_nll_loss",
            [x4, x4 * 0.5, r.random((2, 1, 3, 2))],
            (0, 1, 2),
            {},
        ),
        "cosine": (
            "cosine_embedding_loss",
            [x, y, np.array([1.0, -1, 1, -1])],
            (0, 1),
            {"margin": -0.3},
        ),
        "cosine_1d": ("cosine_embedding_loss", [x[0], y[0], np.array(-1.0)], (0, 1), {}),
        "margin_ranking": (
            "margin_ranking_loss",
            [x[:, 0], y[:, 0], np.array([1.0, -1, 1, -1])],
            (0, 1),
            {"margin": 0.2},
        ),
        "hinge": ("hinge_embedding_loss", [x, sgn], (0,), {"margin": 0.5}),
        "soft_margin": ("soft_margin_loss", [x, sgn], (0,), {}),
        "multilabel_soft": (
            "multilabel_soft_margin_loss",
            [x, (r.random((4, 5)) > 0.5) * 1.0],
            (0, 1),
            {"weight": r.random(5)},
        ),
        "multi_margin": ("multi_margin_loss", [x, t], (0,), {}),
        "multi_margin_p2": (
            "multi_margin_loss",
            [x, t],
            (0,),
            {"p": 2, "margin": 0.6, "weight": w},
        ),
        "multi_margin_1d": ("multi_margin_loss", [x[0], np.array(2)], (0,), {}),
        "multilabel_margin": (
            "multilabel_margin_loss",
            [x, np.array([[3, 0, -1, 1, 1], [1, 1, 2, -1, 0], [0, 1, 2, 3, 4], [-1, 0, 0, 0, 0]])],
            (0,),
            {},
        ),
        "multilabel_margin_1d": (
            "multilabel_margin_loss",
            [x[0], np.array([4, 1, -1, 2, 2])],
            (0,),
            {},
        ),
        "triplet": ("triplet_margin_loss", [x, y, r.standard_normal((4, 5))], (0, 1, 2), {}),
        "triplet_swap_p": (
            "triplet_margin_loss",
            [x, y, x + 0.1 * y],
            (0, 1, 2),
            {"swap": True, "p": 1.5, "margin": 0.7, "eps": 1e-3},
        ),
        "triplet_1d": ("triplet_margin_loss", [x[0], y[0], x[1]], (0, 1, 2), {}),
        "triplet_dist": (
            "triplet_margin_with_distance_loss",
            [x, y, x + 0.2 * y],
            (0, 1, 2),
            {"swap": True, "margin": 0.5},
        ),
    }
    return cases


CASES = _cases()
_NO_REDUCTION_ARG = {"gaussian_nll_loss"}  # reduction is checked as for the others


def _run(lib, fname, arrays, grads, kwargs, reduction, int_dtype):
    """Call ``lib.<fname>`` on tensors made from ``arrays`` (int arrays as ``int_dtype``)."""
    mod = ember if lib == "ember" else torch
    F = EF if lib == "ember" else TF
    ts = []
    for i, a in enumerate(arrays):
        if a.dtype.kind == "i":
            ts.append(mod.tensor(a, dtype=int_dtype[lib]))
        else:
            ts.append(mod.tensor(a, dtype=mod.float64, requires_grad=i in grads))
    kw = {
        k: (mod.tensor(v, dtype=mod.float64) if isinstance(v, np.ndarray) else v)
        for k, v in kwargs.items()
    }
    if reduction is not None:
        kw["reduction"] = reduction
    out = getattr(F, fname)(*ts, **kw)
    return ts, out


def _compare(name, reduction):
    fname, arrays, grads, kwargs = CASES[name]
    ints = {"ember": ember.int64, "torch": torch.int64}
    te, oe = _run("ember", fname, arrays, grads, kwargs, reduction, ints)
    tt, ot = _run("torch", fname, arrays, grads, kwargs, reduction, ints)
    np.testing.assert_allclose(oe.detach().numpy(), ot.detach().numpy(), rtol=RTOL, atol=ATOL)
    assert tuple(oe.shape) == tuple(ot.shape)
    r = _rng(7).standard_normal(tuple(ot.shape))  # a non-uniform output gradient
    ge = ember.autograd.grad(oe, [te[i] for i in grads], ember.tensor(r))
    gt = torch.autograd.grad(ot, [tt[i] for i in grads], torch.tensor(r))
    for a, b in zip(ge, gt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=RTOL, atol=ATOL)


@needs_torch
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_parity_values_and_gradients(name, reduction):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kl_div's 'mean' warning is tested on its own
        _compare(name, reduction)


@needs_torch
@pytest.mark.parametrize("name", ["kl", "kl_log_target"])
def test_kl_div_batchmean(name):
    _compare(name, "batchmean")


# ---- cross entropy numerics and speed path -------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("scale", [1e3, 1e4, 1e8, 1e300])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_extreme_logits(scale, smoothing):
    x = _rng(3).standard_normal((6, 7)) * scale
    t = np.array([0, 1, 2, 3, 4, int(np.argmax(x[5]))])
    xe = ember.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    le = EF.cross_entropy(xe, ember.tensor(t), label_smoothing=smoothing)
    lt = TF.cross_entropy(xt, torch.tensor(t), label_smoothing=smoothing)
    assert np.isfinite(le.item())
    np.testing.assert_allclose(le.item(), lt.item(), rtol=RTOL)
    le.backward()
    lt.backward()
    assert np.isfinite(xe.grad.numpy()).all()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=RTOL, atol=ATOL)
    ls_e = ember.log_softmax(ember.tensor(x), 1).numpy()
    np.testing.assert_array_equal(ls_e, torch.log_softmax(torch.tensor(x), 1).numpy())


def _composite_ce(x, t, weight, ignore_index, reduction):
    return EF.nll_loss(
        ember.log_softmax(x, 1), t, weight=weight, ignore_index=ignore_index, reduction=reduction
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(8, 5), (3, 4, 2, 3)])
def test_fused_cross_entropy_equals_log_softmax_then_nll(reduction, shape):
    r = _rng(5)
    x = r.standard_normal(shape)
    t = r.integers(0, shape[1], (shape[0],) + shape[2:])
    t.reshape(-1)[::3] = 1
    w = ember.tensor(r.random(shape[1]))
    xa = ember.tensor(x, requires_grad=True)
    xb = ember.tensor(x, requires_grad=True)
    a = EF.cross_entropy(xa, ember.tensor(t), weight=w, ignore_index=1, reduction=reduction)
    b = _composite_ce(xb, ember.tensor(t), w, 1, reduction)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    a.sum().backward()
    b.sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), xb.grad.numpy(), rtol=1e-12, atol=1e-14)
    assert type(a.grad_fn).__name__ == "NllLossBackward0"


def test_cross_entropy_float32_and_no_grad():
    x = ember.randn(32, 10)
    t = ember.randint(0, 10, (32,))
    out = EF.cross_entropy(x, t)
    assert out.dtype == ember.float32 and out.shape == () and out.grad_fn is None
    ref = EF.nll_loss(ember.log_softmax(x.double(), 1), t)
    assert abs(out.item() - ref.item()) < 1e-5


@needs_torch
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_second_backward_with_retain_graph(smoothing):
    # the first backward turns the kept exponentials into the gradient in place; a second one
    # must recompute them
    x = _rng(8).standard_normal((5, 4))
    t = [0, 3, 1, 1, 2]
    xe = ember.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    le = EF.cross_entropy(xe, ember.tensor(t), label_smoothing=smoothing, reduction="none")
    lt = TF.cross_entropy(xt, torch.tensor(t), label_smoothing=smoothing, reduction="none")
    for k in range(3):
        ge = ember.tensor(_rng(k).standard_normal(5))
        le.backward(ge, retain_graph=True)
        lt.backward(torch.tensor(ge.numpy()), retain_graph=True)
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=RTOL, atol=ATOL)


def test_cross_entropy_float16_computes_in_float32():
    x = ember.randn(6, 5)
    t = ember.tensor([0, 1, 2, 3, 4, 0])
    xh = x.half().requires_grad_()
    out = EF.cross_entropy(xh, t)
    assert out.dtype == ember.float16
    assert abs(out.item() - EF.cross_entropy(x.half().float(), t).item()) < 1e-3
    out.backward()
    assert xh.grad.dtype == ember.float16


def test_all_ignored_mean_is_nan():
    x = ember.randn(3, 4, dtype=ember.float64)
    t = ember.tensor([-100, -100, -100])
    assert np.isnan(EF.cross_entropy(x, t).item())
    assert np.isnan(EF.nll_loss(x, t).item())
    assert EF.cross_entropy(x, t, reduction="sum").item() == 0.0


# ---- double backward ----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "name",
    [
        "ce",
        "ce_weight",
        "ce_smooth_weight_ignore",
        "ce_4d_smooth",
        "nll_weight_ignore",
        "bce",
        "bcel_weights",
        "bcel",
        "smooth_l1",
        "huber",
    ],
)
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_double_backward_matches_torch(name, reduction):
    fname, arrays, grads, kwargs = CASES[name]
    ints = {"ember": ember.int64, "torch": torch.int64}
    res = []
    for lib, mod in (("ember", ember), ("torch", torch)):
        ts, out = _run(lib, fname, arrays, grads, kwargs, reduction, ints)
        x = ts[0]
        gout = mod.tensor(_rng(2).standard_normal(tuple(out.shape)), requires_grad=True)
        (g,) = (ember.autograd.grad if lib == "ember" else torch.autograd.grad)(
            out, [x], gout, create_graph=True
        )
        v = mod.tensor(_rng(4).standard_normal(tuple(x.shape)))
        gg = (ember.autograd.grad if lib == "ember" else torch.autograd.grad)(
            (g * v).sum(), [x, gout], allow_unused=True
        )
        res.append([None if a is None else a.detach().numpy() for a in gg])
    for a, b in zip(*res):
        if b is None or a is None:  # torch's second derivative w.r.t. x may be absent (0)
            assert a is None or np.abs(a).max() < 1e-12 or b is not None
            continue
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


# ---- gradcheck ---------------------------------------------------------------------------------
def _gc_inputs(name):
    fname, arrays, grads, kwargs = CASES[name]
    ts = [
        ember.tensor(a)
        if a.dtype.kind == "i"
        else ember.tensor(a, dtype=ember.float64, requires_grad=i in grads)
        for i, a in enumerate(arrays)
    ]
    kw = {
        k: (ember.tensor(v, dtype=ember.float64) if isinstance(v, np.ndarray) else v)
        for k, v in kwargs.items()
    }
    return getattr(EF, fname), ts, kw, grads


# the cases whose loss is smooth at the sampled points (hinges are checked by parity)
GC_CASES = [
    "ce_smooth_weight_ignore",
    "ce_4d",
    "ce_probs_smooth_weight",
    "nll_weight_ignore",
    "bce_weight",
    "bcel_weights",
    "mse",
    "smooth_l1",
    "huber",
    "kl",
    "kl_log_target",
    "poisson_full",
    "poisson_linear",
    "gauss_row_var",
    "cosine",
    "soft_margin",
    "multilabel_soft",
    "multi_margin_p2",
    "triplet_swap_p",
]


@pytest.mark.parametrize("name", GC_CASES)
def test_gradcheck(name):
    f, ts, kw, grads = _gc_inputs(name)

    def fn(*diff):
        args = list(ts)
        for i, d in zip(grads, diff):
            args[i] = d
        return f(*args, reduction="sum", **kw)

    assert gradcheck(fn, [ts[i] for i in grads], eps=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "name", ["ce_smooth_weight_ignore", "ce_probs", "bce", "bcel_weights", "smooth_l1", "huber"]
)
def test_gradgradcheck(name):
    f, ts, kw, grads = _gc_inputs(name)

    def fn(x):
        return f(x, *ts[1:], reduction="none", **kw)

    assert gradgradcheck(fn, [ts[0]], eps=1e-6, atol=1e-6)


# ---- errors -------------------------------------------------------------------------------------
def _err_cases():
    f64 = "float64"
    return [
        ("ce_target_oob", "cross_entropy", [((3, 5), f64), ([0, 5, 1], "int64")], {}),
        ("ce_target_negative", "cross_entropy", [((3, 5), f64), ([0, -1, 1], "int64")], {}),
        (
            "ce_kd_target_oob",
            "cross_entropy",
            [((2, 3, 4), f64), ([[0, 1, 2, 3]] * 2, "int64")],
            {},
        ),
        ("nll_target_oob", "nll_loss", [((3, 5), f64), ([0, 5, 1], "int64")], {}),
        ("nll_int32_target", "nll_loss", [((3, 5), f64), ([0, 1, 1], "int32")], {}),
        ("nll_float_target", "nll_loss", [((3, 5), f64), ([0.0, 1.0, 1.0], f64)], {}),
        ("ce_int32_target", "cross_entropy", [((3, 5), f64), ([0, 1, 1], "int32")], {}),
        ("ce_batch_mismatch", "cross_entropy", [((3, 5), f64), ([0, 1], "int64")], {}),
        ("nll_batch_mismatch", "nll_loss", [((3, 5), f64), ([0, 1], "int64")], {}),
        ("nll_kd_mismatch", "nll_loss", [((2, 3, 4), f64), (np.zeros((2, 5), int), "int64")], {}),
        (
            "nll_4d_mismatch",
            "nll_loss",
            [((2, 3, 4, 4), f64), (np.zeros((2, 4, 5), int), "int64")],
            {},
        ),
        (
            "nll_4d_target_dims",
            "nll_loss",
            [((2, 3, 4, 4), f64), (np.zeros((2, 4), int), "int64")],
            {},
        ),
        ("nll_2d_target", "nll_loss", [((3, 5), f64), (np.zeros((3, 1), int), "int64")], {}),
        ("nll_1d_input_2_targets", "nll_loss", [((5,), f64), ([2, 1], "int64")], {}),
        ("nll_0d", "nll_loss", [((), f64), (0, "int64")], {}),
        (
            "ce_weight_size",
            "cross_entropy",
            [((3, 5), f64), ([0, 1, 1], "int64")],
            {"weight": (4,)},
        ),
        ("ce_probs_ignore", "cross_entropy", [((3, 5), f64), ((3, 5), f64)], {"ignore_index": 1}),
        ("ce_probs_int", "cross_entropy", [((), f64), (0, "int64")], {}),
        (
            "ce_smoothing_range",
            "cross_entropy",
            [((3, 5), f64), ([0, 1, 1], "int64")],
            {"label_smoothing": 1.5},
        ),
        (
            "ce_bad_reduction",
            "cross_entropy",
            [((3, 5), f64), ([0, 1, 1], "int64")],
            {"reduction": "foo"},
        ),
        ("mse_bad_reduction", "mse_loss", [((3, 5), f64), ((3, 5), f64)], {"reduction": "avg"}),
        ("mse_size_mismatch", "mse_loss", [((3, 5), f64), ((4,), f64)], {}),
        ("mse_int", "mse_loss", [([1, 2], "int64"), ([1, 2], "int64")], {}),
        ("ce_int_input", "cross_entropy", [([[1, 2]], "int64"), ([0], "int64")], {}),
        ("nll_int_input", "nll_loss", [([[1, 2]], "int64"), ([0], "int64")], {}),
        ("mse_weight_size", "mse_loss", [((3, 5), f64), ((3, 5), f64)], {"weight": (5,)}),
        ("bce_size", "binary_cross_entropy", [((3, 5), "rand"), ((5,), "rand")], {}),
        ("bce_range", "binary_cross_entropy", [([1.5], f64), ([1.0], f64)], {}),
        ("bcel_size", "binary_cross_entropy_with_logits", [((3, 5), f64), ((5,), f64)], {}),
        ("smooth_l1_beta", "smooth_l1_loss", [((3,), f64), ((3,), f64)], {"beta": -1.0}),
        ("huber_delta", "huber_loss", [((3,), f64), ((3,), f64)], {"delta": 0.0}),
        (
            "gauss_var_size",
            "gaussian_nll_loss",
            [((3, 5), f64), ((3, 5), f64), ((3, 4), "rand")],
            {},
        ),
        (
            "gauss_var_negative",
            "gaussian_nll_loss",
            [((3, 5), f64), ((3, 5), f64), ([-1.0] * 5, f64)],
            {},
        ),
        (
            "gauss_reduction",
            "gaussian_nll_loss",
            [((3, 5), f64), ((3, 5), f64), ((3, 5), "rand")],
            {"reduction": "avg"},
        ),
        ("cosine_size", "cosine_embedding_loss", [((3, 5), f64), ((3, 4), f64), ((3,), f64)], {}),
        (
            "cosine_target_dims",
            "cosine_embedding_loss",
            [((2, 3, 4), f64), ((2, 3, 4), f64), ((2, 3), f64)],
            {},
        ),
        ("cosine_input_dims", "cosine_embedding_loss", [((4,), f64), ((4,), f64), ((1,), f64)], {}),
        (
            "margin_ranking_dims",
            "margin_ranking_loss",
            [((3,), f64), ((3, 1), f64), ((3,), f64)],
            {},
        ),
        ("multi_margin_p", "multi_margin_loss", [((3, 5), f64), ([0, 1, 1], "int64")], {"p": 3}),
        ("multi_margin_target_oob", "multi_margin_loss", [((3, 5), f64), ([0, 5, 1], "int64")], {}),
        ("multi_margin_target_size", "multi_margin_loss", [((3, 5), f64), ([0, 1], "int64")], {}),
        (
            "multi_margin_weight_size",
            "multi_margin_loss",
            [((3, 5), f64), ([0, 1, 1], "int64")],
            {"weight": (4,)},
        ),
        ("multi_margin_3d", "multi_margin_loss", [((2, 3, 4), f64), ([0, 1], "int64")], {}),
        (
            "multilabel_margin_oob",
            "multilabel_margin_loss",
            [((3, 5), f64), ([[0, 5, -1, 0, 0]] * 3, "int64")],
            {},
        ),
        (
            "multilabel_margin_size",
            "multilabel_margin_loss",
            [((3, 5), f64), ([[0, 1]] * 3, "int64")],
            {},
        ),
        ("triplet_dims", "triplet_margin_loss", [((5,), f64), ((5,), f64), ((3, 5), f64)], {}),
        ("triplet_margin", "triplet_margin_loss", [((3, 5), f64)] * 3, {"margin": -1.0}),
        (
            "triplet_dist_reduction",
            "triplet_margin_with_distance_loss",
            [((3, 5), f64)] * 3,
            {"reduction": "avg"},
        ),
    ]


ERR_CASES = _err_cases()


def _make(mod, spec, seed):
    data, kind = spec
    r = _rng(seed)
    if kind == "rand":
        return mod.tensor(r.random(data), dtype=mod.float64)
    if isinstance(data, tuple):
        return mod.tensor(r.standard_normal(data), dtype=mod.float64)
    return mod.tensor(np.asarray(data), dtype=getattr(mod, kind))


def _call(mod, F, fname, specs, kwargs):
    args = [_make(mod, s, i) for i, s in enumerate(specs)]
    kw = {k: (_make(mod, (v, "rand"), 9) if isinstance(v, tuple) else v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(F, fname)(*args, **kw)


@needs_torch
@pytest.mark.parametrize("case", ERR_CASES, ids=[c[0] for c in ERR_CASES])
def test_errors_match_torch(case):
    _, fname, specs, kwargs = case
    with pytest.raises(Exception) as te:
        _call(torch, TF, fname, specs, kwargs)
    with pytest.raises(Exception) as ee:
        _call(ember, EF, fname, specs, kwargs)
    assert type(ee.value) is type(te.value)
    # same message, up to the name of the Size class
    assert str(ee.value) == str(te.value).replace("torch.Size", "ember.Size")


@needs_torch
@pytest.mark.parametrize(
    "fname,arg",
    [
        ("cross_entropy", "weight"),
        ("nll_loss", "weight"),
        ("binary_cross_entropy", "weight"),
        ("binary_cross_entropy_with_logits", "pos_weight"),
    ],
)
def test_weight_requiring_grad_is_refused(fname, arg):
    errs = []
    for mod, F in ((torch, TF), (ember, EF)):
        x = mod.tensor(_rng(0).random((3, 5)), dtype=mod.float64, requires_grad=True)
        t = (
            mod.tensor([0, 1, 2])
            if fname in ("cross_entropy", "nll_loss")
            else mod.tensor(_rng(1).random((3, 5)), dtype=mod.float64)
        )
        w = mod.ones(5, dtype=mod.float64, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            getattr(F, fname)(x, t, **{arg: w})
        errs.append(str(e.value))
    assert errs[0] == errs[1]


# ---- warnings ---------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("fname", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_broadcast_size_warning(fname):
    x = np.random.default_rng(0).standard_normal((3, 5))
    y = x[0] * 0.5
    msgs = []
    for mod, F in ((torch, TF), (ember, EF)):
        with pytest.warns(UserWarning) as rec:
            out = getattr(F, fname)(mod.tensor(x), mod.tensor(y))
        msgs.append(str(rec[0].message).replace("torch.Size", "ember.Size"))
        msgs.append(out.item())
    assert msgs[0] == msgs[2]
    np.testing.assert_allclose(msgs[3], msgs[1], rtol=RTOL)


@needs_torch
@pytest.mark.parametrize(
    "size_average,reduce", [(False, None), (None, False), (True, True), (False, True)]
)
@pytest.mark.parametrize(
    "fname",
    [
        "mse_loss",
        "cross_entropy",
        "nll_loss",
        "kl_div",
        "binary_cross_entropy",
        "multi_margin_loss",
    ],
)
def test_legacy_size_average_reduce(fname, size_average, reduce):
    r = _rng(0)
    x = r.random((3, 4)) * 0.9 + 0.05
    y = (
        np.array([0, 3, 1])
        if fname in ("cross_entropy", "nll_loss", "multi_margin_loss")
        else r.random((3, 4))
    )
    outs, msgs = [], []
    for mod, F in ((torch, TF), (ember, EF)):
        with pytest.warns(UserWarning) as rec:
            out = getattr(F, fname)(
                mod.tensor(x), mod.tensor(y), size_average=size_average, reduce=reduce
            )
        outs.append(out.numpy())
        msgs.append([str(w.message) for w in rec])
    np.testing.assert_allclose(outs[1], outs[0], rtol=RTOL)
    assert msgs[0] == msgs[1]


@needs_torch
def test_kl_div_mean_warning():
    msgs = []
    for mod, F in ((torch, TF), (ember, EF)):
        with pytest.warns(UserWarning) as rec:
            F.kl_div(mod.zeros(2, 3), mod.ones(2, 3))
        msgs.append(str(rec[0].message))
    assert msgs[0] == msgs[1]


@needs_torch
def test_module_legacy_arguments():
    for reduce, size_average, want in ((False, None, "none"), (None, False, "sum")):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            m = ember.nn.MSELoss(size_average=size_average, reduce=reduce)
        with pytest.warns(UserWarning):
            mt = torch.nn.MSELoss(size_average=size_average, reduce=reduce)
        assert m.reduction == mt.reduction == want


# ---- modules ----------------------------------------------------------------------------------
def _module_cases():
    r = _rng(3)
    x = r.standard_normal((4, 5))
    y = r.standard_normal((4, 5))
    t = np.array([1, 0, 4, 2])
    w = r.random(5) + 0.2
    pos = r.random((4, 5))
    return [
        ("L1Loss", {}, [x, y]),
        ("MSELoss", {"reduction": "sum"}, [x, y]),
        ("SmoothL1Loss", {"beta": 0.5}, [x, y]),
        ("HuberLoss", {"delta": 0.5, "reduction": "none"}, [x, y]),
        ("CrossEntropyLoss", {"weight": w, "ignore_index": 2, "label_smoothing": 0.1}, [x, t]),
        ("NLLLoss", {"weight": w, "reduction": "sum"}, [x, t]),
        ("BCELoss", {"weight": w}, [pos, r.random((4, 5))]),
        ("BCEWithLogitsLoss", {"weight": w, "pos_weight": w * 2}, [x, pos]),
        ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, [x, y]),
        (
            "PoissonNLLLoss",
            {"log_input": False, "full": True, "eps": 1e-4},
            [np.abs(x), pos * 3 + 0.5],
        ),
        ("GaussianNLLLoss", {"full": True, "eps": 1e-3}, [x, y, pos]),
        ("CosineEmbeddingLoss", {"margin": 0.1}, [x, y, np.array([1.0, -1, -1, 1])]),
        ("MarginRankingLoss", {"margin": 0.3}, [x[:, 0], y[:, 0], np.array([1.0, -1, -1, 1])]),
        ("HingeEmbeddingLoss", {"margin": 2.0}, [x, np.sign(y)]),
        ("SoftMarginLoss", {}, [x, np.sign(y)]),
        ("MultiLabelSoftMarginLoss", {"weight": w}, [x, (pos > 0.5) * 1.0]),
        ("MultiMarginLoss", {"p": 2, "margin": 0.5, "weight": w}, [x, t]),
        ("MultiLabelMarginLoss", {}, [x, np.array([[1, 2, -1, 0, 0]] * 4)]),
        ("TripletMarginLoss", {"margin": 0.5, "p": 1.0, "swap": True}, [x, y, x * 0.5]),
        ("TripletMarginWithDistanceLoss", {"margin": 0.5, "swap": True}, [x, y, x * 0.5]),
    ]


MODULE_CASES = _module_cases()


@needs_torch
@pytest.mark.parametrize("case", MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_module_parity(case):
    name, kwargs, arrays = case
    built = []
    for mod in (torch, ember):
        kw = {k: (mod.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        built.append(getattr(mod.nn, name)(**kw))
    mt, me = built
    # buffers: the same keys, loadable from torch's state_dict through NumPy
    sd = {k: ember.tensor(v.numpy()) for k, v in mt.state_dict().items()}
    assert list(me.state_dict()) == list(sd)
    me.load_state_dict(sd)
    assert [n for n, _ in me.named_buffers()] == [n for n, _ in mt.named_buffers()]
    assert list(me._buffers) == list(mt._buffers)
    assert repr(me) == repr(mt) or name == "TripletMarginWithDistanceLoss"
    assert getattr(type(me), "__constants__", None) == getattr(type(mt), "__constants__", None)
    for attr in (
        "reduction",
        "margin",
        "p",
        "eps",
        "swap",
        "beta",
        "delta",
        "log_target",
        "log_input",
        "full",
        "ignore_index",
        "label_smoothing",
        "blank",
        "zero_infinity",
    ):
        assert getattr(me, attr, None) == getattr(mt, attr, None), attr
    ins = []
    for mod in (torch, ember):
        ins.append(
            [
                mod.tensor(a, requires_grad=a.dtype.kind == "f" and i == 0)
                for i, a in enumerate(arrays)
            ]
        )
    ot, oe = mt(*ins[0]), me(*ins[1])
    np.testing.assert_allclose(oe.detach().numpy(), ot.detach().numpy(), rtol=RTOL, atol=ATOL)
    ot.sum().backward()
    oe.sum().backward()
    np.testing.assert_allclose(ins[1][0].grad.numpy(), ins[0][0].grad.numpy(), rtol=RTOL, atol=ATOL)


@needs_torch
def test_module_defaults_and_reprs():
    names = [
        "L1Loss",
        "MSELoss",
        "SmoothL1Loss",
        "HuberLoss",
        "CrossEntropyLoss",
        "NLLLoss",
        "BCELoss",
        "BCEWithLogitsLoss",
        "KLDivLoss",
        "PoissonNLLLoss",
        "GaussianNLLLoss",
        "CosineEmbeddingLoss",
        "MarginRankingLoss",
        "HingeEmbeddingLoss",
        "SoftMarginLoss",
        "MultiLabelSoftMarginLoss",
        "MultiMarginLoss",
        "MultiLabelMarginLoss",
        "TripletMarginLoss",
        "CTCLoss",
    ]
    for name in names:
        me, mt = getattr(ember.nn, name)(), getattr(torch.nn, name)()
        assert repr(me) == repr(mt)
        assert {k: v for k, v in vars(me).items() if not k.startswith("_")} == {
            k: v for k, v in vars(mt).items() if not k.startswith("_")
        }, name
        assert list(me._buffers) == list(mt._buffers)
        assert me.state_dict() == {} or all(v is None for v in me._buffers.values())


@needs_torch
def test_module_constructor_errors():
    for mod in (torch, ember):
        with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
            mod.nn.MultiMarginLoss(p=3)
        with pytest.raises(ValueError, match="expected margin to be greater than 0"):
            mod.nn.TripletMarginLoss(margin=0.0)
        with pytest.raises(TypeError, match="delta must be a float or int"):
            mod.nn.HuberLoss(delta="1")


def test_weight_buffer_moves_with_module():
    m = ember.nn.CrossEntropyLoss(weight=ember.ones(3))
    m.double()
    assert m.weight.dtype == ember.float64
    assert "weight" in m.state_dict()
    m2 = ember.nn.BCEWithLogitsLoss(pos_weight=ember.ones(3))
    assert list(m2.state_dict()) == ["pos_weight"]


def test_meta_inputs_give_shapes():
    # loss modules hold no parameters; a weight buffer on meta allocates nothing
    m = ember.nn.NLLLoss(weight=ember.empty(10, device="meta"))
    assert m.weight.device.type == "meta" and m.weight.shape == (10,)
