"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions against
torch 2.13: values and input/weight/bias gradients in float64 on the reference path and the
chunked path (every option), K-dimensional and probability targets, the fallback warning, the
module's parameters, init, repr and errors, and the options' validation and resolution."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest

import ember
import ember.nn as enn
import ember.nn.functional as EF

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

RNG = np.random.default_rng(0)
TOL = 1e-9
N, D, C = 9, 4, 10


def _rand(*shape):
    return RNG.standard_normal(shape)


def _close(a, b, tol=TOL):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _opts(mod, opt):
    if opt is None:
        return None
    opt = dict(opt)
    if "acc_dtype" in opt:
        opt["acc_dtype"] = getattr(mod, opt["acc_dtype"])
    return mod.nn.LinearCrossEntropyOptions(**opt)


def _run(mod, x, w, t, b=None, cw=None, opt=None, grad_seed=1, **kw):
    """Loss and the gradients of (loss * fixed weights).sum() for input, weight, bias."""
    xx = mod.tensor(x, requires_grad=True)
    ww = mod.tensor(w, requires_grad=True)
    bb = mod.tensor(b, requires_grad=True) if b is not None else None
    if cw is not None:
        kw["weight"] = mod.tensor(cw)
    loss = mod.nn.functional.linear_cross_entropy(
        xx, ww, mod.tensor(t), linear_bias=bb, options=_opts(mod, opt), **kw
    )
    g = np.random.default_rng(grad_seed).standard_normal(tuple(loss.shape))
    (loss * mod.tensor(g)).sum().backward()
    return [loss] + [a.grad if a is not None else None for a in (xx, ww, bb)]


def _compare(x, w, t, b=None, cw=None, opt=None, tol=TOL, **kw):
    got = _run(ember, x, w, t, b, cw, opt, **kw)
    want = _run(torch, x, w, t, b, cw, opt, **kw)
    for e, tt in zip(got, want):
        assert (e is None) == (tt is None)
        if e is not None:
            _close(e, tt, tol)
    return got


def _targets(ignore=-100):
    t = RNG.integers(0, C, N)
    t[2] = ignore
    return t


OPTIONS = [
    None,
    {},
    {"batch_chunk_size": 2},
    {"batch_chunk_size": 4, "allow_retain_graph": True},
    {"chunking_method": None},
    {"chunking_method": "aspect_ratio:1"},
    {"batch_chunk_size": 1, "acc_policy": "accurate"},
    {"acc_dtype": "float64"},
]


# ---- the functional: reference and chunked paths -------------------------------------------------
@needs_torch
@pytest.mark.parametrize("opt", OPTIONS)
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"reduction": "sum"},
        {"reduction": "none"},
        {"ignore_index": 5},
        {"weighted": True},
        {"weighted": True, "reduction": "none", "ignore_index": 7},
        {"weighted": True, "reduction": "sum"},
    ],
)
@pytest.mark.parametrize("bias", [True, False])
def test_linear_cross_entropy_matches_torch(opt, kw, bias):
    kw = dict(kw)
    cw = RNG.random(C) + 0.1 if kw.pop("weighted", False) else None
    t = _targets(kw.get("ignore_index", -100))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # these configurations take the chunked path: no warning
        _compare(_rand(N, D), _rand(C, D), t, _rand(C) if bias else None, cw, opt, **kw)


@needs_torch
@pytest.mark.parametrize("opt", [None, {}, {"batch_chunk_size": 1}])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_unbatched_input_matches_torch(opt, reduction):
    # (a (1,) target is left out: torch's reference backward fails on it with a size mismatch)
    got = _compare(_rand(D), _rand(C, D), np.array(3), _rand(C), None, opt, reduction=reduction)
    assert got[0].shape == ()


@needs_torch
@pytest.mark.parametrize("opt", [None, {"batch_chunk_size": 2}])
def test_all_targets_ignored_and_empty_batch_match_torch(opt):
    for n in (N, 0):
        t = np.full(n, -100)
        for reduction in ("mean", "sum", "none"):
            x = _rand(n, D)
            el = EF.linear_cross_entropy(
                ember.tensor(x),
                ember.tensor(_rand(C, D)),
                ember.tensor(t),
                reduction=reduction,
                options=_opts(ember, opt),
            )
            tl = torch.nn.functional.linear_cross_entropy(
                torch.tensor(x),
                torch.tensor(_rand(C, D)),
                torch.tensor(t),
                reduction=reduction,
                options=_opts(torch, opt),
            )
            np.testing.assert_array_equal(el.numpy(), tl.numpy())  # nan, 0 and zeros alike


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"reduction": "none"},
        {"reduction": "sum"},
        {"label_smoothing": 0.2},
        {"ignore_index": 1},
        {"weighted": True, "label_smoothing": 0.1},
    ],
)
@pytest.mark.parametrize("out_features", [(3,), (2, 3)])
def test_k_dimensional_class_index_targets_match_torch(kw, out_features):
    kw = dict(kw)
    cw = RNG.random(C) + 0.1 if kw.pop("weighted", False) else None
    w = _rand(C, *out_features, D)
    t = RNG.integers(0, C, (N, *out_features))
    t.reshape(-1)[:3] = kw.get("ignore_index", -100)
    _compare(_rand(N, D), w, t, _rand(C, *out_features), cw, **kw)


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [{}, {"reduction": "none"}, {"reduction": "sum"}, {"label_smoothing": 0.3}, {"weighted": True}],
)
@pytest.mark.parametrize("out_features", [(), (3,)])
def test_probability_targets_match_torch(kw, out_features):
    kw = dict(kw)
    cw = RNG.random(C) + 0.1 if kw.pop("weighted", False) else None
    p = RNG.random((N, C, *out_features))
    p /= p.sum(1, keepdims=True)
    _compare(_rand(N, D), _rand(C, *out_features, D), p, _rand(C, *out_features), cw, **kw)
    if not out_features:  # unbatched: input (in,), target (C,)
        _compare(_rand(D), _rand(C, D), p[0], _rand(C), cw, **kw)


@needs_torch
@pytest.mark.parametrize("case", ["kdim", "smoothing", "probs", "int32", "reduction"])
def test_options_fall_back_to_the_reference_path_with_torchs_warning(case):
    x, w, b = _rand(N, D), _rand(C, D), _rand(C)
    t = RNG.integers(0, C, N)
    kw = {}
    if case == "kdim":
        w, b, t = _rand(C, 2, D), _rand(C, 2), RNG.integers(0, C, (N, 2))
    elif case == "smoothing":
        kw["label_smoothing"] = 0.25
    elif case == "probs":
        t = RNG.random((N, C))
    elif case == "int32":
        t = t.astype(np.int32)
    else:
        kw["reduction"] = "elementwise_mean"
    msgs = []
    for mod in (torch, ember):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            if case == "int32":  # the reference cross_entropy then refuses int32 targets
                with pytest.raises(RuntimeError, match="expected target dtype to be Long"):
                    _run(mod, x, w, t, b, opt={})
            else:
                _run(mod, x, w, t, b, opt={}, **kw)
        msgs.append([str(r.message) for r in rec if "options`` ignored" in str(r.message)])
        assert all(r.filename == __file__ for r in rec if "options`` ignored" in str(r.message))
    assert len(msgs[1]) == 1 and msgs[1] == [m.replace("torch.", "ember.") for m in msgs[0]]
    if case not in ("int32", "reduction"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _compare(x, w, t, b, opt={}, **kw)


@needs_torch
def test_float32_and_float16_match_torch():
    x, w, b = _rand(N, D), _rand(C, D), _rand(C)
    t = _targets()
    for dt, tol in (("float32", 1e-5), ("float16", 2e-2)):
        for opt in (None, {}, {"batch_chunk_size": 3}):
            xs, ws, bs = (a.astype(dt) for a in (x, w, b))
            got = _run(ember, xs, ws, t, bs, opt=opt)
            want = _run(torch, xs, ws, t, bs, opt=opt)
            for e, tt in zip(got, want):
                assert str(e.dtype).split(".")[1] == str(tt.dtype).split(".")[1] == dt
                _close(e.float(), tt.float(), tol)


@needs_torch
def test_chunked_path_casts_bias_and_class_weight_as_torch():
    x, w, b, cw = _rand(N, D), _rand(C, D), _rand(C).astype(np.float32), RNG.random(C)
    t = RNG.integers(0, C, N)
    _compare(x, w, t, b, cw.astype(np.float32), {}, tol=1e-6)


# ---- gradients: finite differences, double backward, retained graphs -----------------------------
@pytest.mark.parametrize("opt", [None, {"batch_chunk_size": 2}])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_gradcheck_and_gradgradcheck(opt, reduction):
    x, w, b = (ember.tensor(_rand(*s), requires_grad=True) for s in ((5, 3), (4, 3), (4,)))
    t = ember.tensor([0, 3, -100, 2, 1])
    cw = ember.tensor(RNG.random(4) + 0.5)
    o = _opts(ember, opt)

    def f(x, w, b):
        return EF.linear_cross_entropy(
            x, w, t, linear_bias=b, weight=cw, reduction=reduction, options=o
        )

    assert ember.autograd.gradcheck(f, (x, w, b))
    assert ember.autograd.gradgradcheck(f, (x, w, b))


def test_chunked_double_backward_equals_the_reference_one():
    x, w, b = _rand(N, D), _rand(C, D), _rand(C)
    t = ember.tensor(_targets())
    res = []
    for opt in (None, enn.LinearCrossEntropyOptions(batch_chunk_size=2)):
        xx, ww, bb = (ember.tensor(a, requires_grad=True) for a in (x, w, b))
        loss = EF.linear_cross_entropy(xx, ww, t, linear_bias=bb, options=opt)
        gx, gw = ember.autograd.grad(loss, (xx, ww), create_graph=True)
        ((gx**2).sum() + (gw**3).sum()).backward()
        res.append((xx.grad, ww.grad, bb.grad))
    for a, c in zip(*res):
        _close(a, c, 1e-12)


@pytest.mark.parametrize("allow", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_chunked_backward_twice_gives_the_same_gradients(allow, reduction):
    # NOTE: differs from torch: without allow_retain_graph torch raises on a second backward;
    # ember recomputes the gradients it used up in place
    x = ember.tensor(_rand(N, D), requires_grad=True)
    w = ember.tensor(_rand(C, D), requires_grad=True)
    opt = enn.LinearCrossEntropyOptions(batch_chunk_size=3, allow_retain_graph=allow)
    loss = EF.linear_cross_entropy(
        x, w, ember.tensor(_targets()), options=opt, reduction=reduction
    ).sum()
    loss.backward(retain_graph=True)
    first = (x.grad.clone(), w.grad.clone())
    loss.backward()
    _close(x.grad, 2 * first[0], 1e-12)
    _close(w.grad, 2 * first[1], 1e-12)


def test_chunked_path_never_holds_the_full_logits():
    n, d, c = 256, 8, 4000  # logits: 8 MB in float64; a block of 8 rows: 256 KB
    x = ember.tensor(_rand(n, d), requires_grad=True)
    w = ember.tensor(_rand(c, d) * 0.1, requires_grad=True)
    t = ember.tensor(RNG.integers(0, c, n))
    peaks = []
    for opt in (None, enn.LinearCrossEntropyOptions(batch_chunk_size=8)):
        tracemalloc.start()
        EF.linear_cross_entropy(x, w, t, options=opt).backward()
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[0] > n * c * 8 and peaks[1] < n * c * 8 / 4, peaks


def test_no_gradient_work_without_recording():
    x, w = ember.tensor(_rand(N, D)), ember.tensor(_rand(C, D))
    t = ember.tensor(_targets())
    opt = enn.LinearCrossEntropyOptions(batch_chunk_size=2)
    with ember.no_grad():
        a = EF.linear_cross_entropy(x, w, t, options=opt)
    assert a.grad_fn is None
    _close(a, EF.cross_entropy(EF.linear(x, w), t), 1e-12)


# ---- errors ------------------------------------------------------------------------------------
def _err_args(x=(N, D), w=(C, D), t=(N,), b=None, tdt=np.int64, xdt=np.float64):
    args = [np.zeros(x, xdt), np.zeros(w), RNG.integers(0, C, t).astype(tdt) if t else np.array(1)]
    return args, ({} if b is None else {"linear_bias": np.zeros(b)})


ERRORS = [
    (_err_args(x=(2, N, D)), {}),
    (_err_args(x=()), {}),
    (_err_args(w=(C * D,)), {}),
    (_err_args(w=(C, D + 1)), {}),
    (_err_args(b=(C + 1,)), {}),
    (_err_args(w=(C, 2, D), b=(C,)), {}),
    (_err_args(x=(D,), w=(C, 2, D)), {}),
    (_err_args(t=(N, C)), {"ignore_index": 1}),
    (_err_args(t=(N + 1,)), {}),
    (_err_args(t=(N, 2)), {}),
    (_err_args(x=(D,), t=(2,)), {}),
    (_err_args(), {"reduction": "average"}),
    (_err_args(), {"label_smoothing": 1.5}),
    (_err_args(), {"weight": np.ones(3)}),
    (_err_args(xdt=np.float32), {}),
]


@needs_torch
@pytest.mark.parametrize("opt", [None, {}])
@pytest.mark.parametrize("case", ERRORS)
def test_errors_match_torchs_reference_path(case, opt):
    (args, extra), kw = case
    kw = {**extra, **kw}

    def call(mod):
        kws = {k: mod.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        return mod.nn.functional.linear_cross_entropy(
            *(mod.tensor(a) for a in args), options=_opts(mod, opt), **kws
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback warning, for the options that need it
        with pytest.raises(Exception) as expected:
            call(torch) if opt is None else torch.nn.functional.linear_cross_entropy(
                *(torch.tensor(a) for a in args),
                **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()},
            )
        with pytest.raises(expected.type) as got:
            call(ember)
    if opt is None:
        msg = str(expected.value).replace("torch.", "ember.")
        assert str(got.value)[:30] == msg[:30]


@needs_torch
def test_chunked_path_errors_match_torch():
    x, w = torch.zeros(N, D), torch.zeros(C, D, dtype=torch.float64)
    t = torch.zeros(N, dtype=torch.long)
    opts = torch.nn.LinearCrossEntropyOptions
    cases = [
        ((x, w, t), {"options": opts()}),  # input and weight dtypes differ
        ((x.double(), w, t), {"options": opts(acc_dtype=torch.float32)}),
        ((x, w.float(), t), {"options": opts(acc_dtype=torch.float64)}),
        ((x.double(), w, t), {"options": opts(batch_chunk_size=3, chunking_method="aspect_ratio")}),
    ]
    for args, kw in cases:
        with pytest.raises(Exception) as expected:
            torch.nn.functional.linear_cross_entropy(*args, **kw)
        ekw = {"options": _to_ember_options(kw["options"])}
        with pytest.raises(expected.type) as got:
            EF.linear_cross_entropy(*(ember.tensor(a.numpy()) for a in args), **ekw)
        assert str(got.value) == str(expected.value).replace("torch.", "ember.")
    # out-of-range targets: the reference path's IndexError (torch's chunked path raises
    # RuntimeError or IndexError depending on the class weight)
    with pytest.raises(IndexError, match="Target 10 is out of bounds"):
        EF.linear_cross_entropy(
            ember.zeros(2, D),
            ember.zeros(C, D),
            ember.tensor([0, 10]),
            options=enn.LinearCrossEntropyOptions(),
        )
    with pytest.raises(RuntimeError, match="not differentiable"):
        EF.linear_cross_entropy(
            ember.zeros(2, D),
            ember.zeros(C, D),
            ember.tensor([0, 1]),
            weight=ember.ones(C, requires_grad=True),
            options=enn.LinearCrossEntropyOptions(),
        )


def _to_ember_options(o):
    kw = {
        f: getattr(o, f)
        for f in (
            "allow_retain_graph",
            "batch_chunk_size",
            "chunking_method",
            "acc_policy",
            "acc_dtype",
        )
    }
    if kw["acc_dtype"] is not None:
        kw["acc_dtype"] = getattr(ember, str(kw["acc_dtype"]).split(".")[1])
    return enn.LinearCrossEntropyOptions(**kw)


# ---- the options ---------------------------------------------------------------------------------
@needs_torch
def test_options_fields_repr_equality_and_frozenness():
    import dataclasses

    fields = [f.name for f in dataclasses.fields(enn.LinearCrossEntropyOptions)]
    assert fields == [f.name for f in dataclasses.fields(torch.nn.LinearCrossEntropyOptions)]
    for kw in (
        {},
        {"batch_chunk_size": 16, "allow_retain_graph": True},
        {"chunking_method": "aspect_ratio:4", "acc_policy": "compact"},
    ):
        e, t = enn.LinearCrossEntropyOptions(**kw), torch.nn.LinearCrossEntropyOptions(**kw)
        assert repr(e) == repr(t)
        assert e == enn.LinearCrossEntropyOptions(**kw) and hash(e) == hash(
            enn.LinearCrossEntropyOptions(**kw)
        )
    assert repr(enn.LinearCrossEntropyOptions(acc_dtype=ember.float32)) == repr(
        torch.nn.LinearCrossEntropyOptions(acc_dtype=torch.float32)
    ).replace("torch.", "ember.")
    with pytest.raises(dataclasses.FrozenInstanceError):
        enn.LinearCrossEntropyOptions().batch_chunk_size = 3
    assert not hasattr(enn.LinearCrossEntropyOptions(), "__dict__")  # slots, as torch's


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        {"acc_policy": "fast"},
        {"chunking_method": "aspect_ratio:0"},
        {"chunking_method": "foo"},
        {"chunking_method": "aspect_ratio:x"},
        {"chunking_method": ""},
        {"batch_chunk_size": 0},
        {"batch_chunk_size": 2.0},
        {"batch_chunk_size": -3},
        {"acc_dtype": "int64"},
        {"acc_dtype": "float32_str"},
        {"chunking_method": 3},
    ],
)
def test_options_validation_matches_torch(kw):
    def conv(mod):
        out = dict(kw)
        if out.get("acc_dtype") == "int64":
            out["acc_dtype"] = mod.int64
        elif out.get("acc_dtype") == "float32_str":
            out["acc_dtype"] = "float32"
        return out

    with pytest.raises(Exception) as expected:
        torch.nn.LinearCrossEntropyOptions(**conv(torch))
    with pytest.raises(expected.type) as got:
        enn.LinearCrossEntropyOptions(**conv(ember))
    if expected.type is ValueError:
        want = str(expected.value).replace("torch.", "ember.")
        if "acc_dtype" in kw:  # ember has no bfloat16: its list of allowed dtypes is shorter
            assert str(got.value).startswith("acc_dtype must be one of {None, ember.float16")
            assert str(got.value).endswith(want.split("}")[1])
        else:
            assert str(got.value) == want


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"batch_chunk_size": 5},
        {"batch_chunk_size": 100},
        {"chunking_method": None},
        {"chunking_method": "aspect_ratio"},
        {"chunking_method": "aspect_ratio:8", "acc_policy": "balanced"},
        {"acc_dtype": "float32"},
    ],
)
@pytest.mark.parametrize(
    "shape", [(7, 4, 10), (1000, 64, 50000), (33, 16, 16), (0, 4, 10), (512, 128, 100)]
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_options_resolve_as_torch(kw, shape, dtype):
    te, tt = getattr(ember, dtype), getattr(torch, dtype)
    ekw, tkw = dict(kw), dict(kw)
    if "acc_dtype" in kw:
        ekw["acc_dtype"], tkw["acc_dtype"] = ember.float32, torch.float32
    for device in ("cpu", None):
        n, d, c = shape
        t = torch.nn.LinearCrossEntropyOptions(**tkw)._adjust(
            n, d, c, tt, torch.device(device) if device else None
        )
        e = enn.LinearCrossEntropyOptions(**ekw)._adjust(
            n, d, c, te, ember.device(device) if device else None
        )
        assert repr(e) == repr(t).replace("torch.", "ember.")


# ---- the module ----------------------------------------------------------------------------------
def _pair(in_features=D, num_classes=C, **kw):
    tkw, ekw = dict(kw), dict(kw)
    if "weight" in kw:
        tkw["weight"], ekw["weight"] = torch.tensor(kw["weight"]), ember.tensor(kw["weight"])
    if "options" in kw:
        tkw["options"] = torch.nn.LinearCrossEntropyOptions(**kw["options"])
        ekw["options"] = enn.LinearCrossEntropyOptions(**kw["options"])
    tm = torch.nn.LinearCrossEntropyLoss(in_features, num_classes, **tkw).double()
    em = enn.LinearCrossEntropyLoss(in_features, num_classes, **ekw, dtype=ember.float64)
    sd = {k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    em.load_state_dict(sd)  # strict: proves the keys match
    return em, tm


MODULE_CASES = [
    {},
    {"bias": True},
    {"bias": True, "out_features": (2, 3)},
    {"reduction": "sum", "ignore_index": 3, "weight": RNG.random(C) + 0.1},
    {"reduction": "none", "label_smoothing": 0.2, "bias": True},
    {"options": {"batch_chunk_size": 2}, "bias": True},
    {"options": {}, "reduction": "none", "weight": RNG.random(C) + 0.1},
]


@needs_torch
@pytest.mark.parametrize("kw", MODULE_CASES)
def test_module_matches_torch(kw):
    em, tm = _pair(**kw)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [(n, tuple(p.shape)) for n, p in em.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in tm.named_parameters()
    ]
    of = kw.get("out_features", ())
    x = _rand(N, D)
    t = RNG.integers(0, C, (N, *of))
    if "ignore_index" in kw:
        t.reshape(-1)[:2] = kw["ignore_index"]
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    el, tl = em(ex, ember.tensor(t)), tm(tx, torch.tensor(t))
    _close(el, tl)
    g = _rand(*tl.shape)
    (el * ember.tensor(g)).sum().backward()
    (tl * torch.tensor(g)).sum().backward()
    _close(ex.grad, tx.grad)
    for p, q in zip(em.parameters(), tm.parameters()):
        _close(p.grad, q.grad)
    if not of:  # probabilities and an unbatched input through the module
        p = RNG.random((N, C))
        p /= p.sum(1, keepdims=True)
        if kw.get("ignore_index") is None:
            with warnings.catch_warnings():
                # with options: the fallback warning (probabilities take the reference path)
                warnings.simplefilter("ignore")
                _close(em(ember.tensor(x), ember.tensor(p)), tm(torch.tensor(x), torch.tensor(p)))
        _close(
            em(ember.tensor(x[0]), ember.tensor(t[0])), tm(torch.tensor(x[0]), torch.tensor(t[0]))
        )


@needs_torch
def test_module_attributes_constants_and_default_init():
    assert enn.LinearCrossEntropyLoss.__constants__ == torch.nn.LinearCrossEntropyLoss.__constants__
    m = enn.LinearCrossEntropyLoss(64, 100, out_features=(3,), bias=True, ignore_index=7)
    assert (
        m.num_classes,
        m.out_features,
        m.ignore_index,
        m.label_smoothing,
        m.options,
        m.reduction,
        m.weight,
    ) == (100, (3,), 7, 0.0, None, "mean", None)
    assert isinstance(m.linear, enn.Linear) and m.linear.weight.shape == (300, 64)
    bound = 1 / 8  # Linear's default: U(-1/sqrt(in_features), 1/sqrt(in_features))
    w, b = m.linear.weight.detach().numpy(), m.linear.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.05 * bound
    with enn.init.default_version(2):  # the versioned init reaches the head, as any Linear
        m2 = enn.LinearCrossEntropyLoss(64, 100, bias=True)
    assert np.all(m2.linear.bias.detach().numpy() == 0)
    m = enn.LinearCrossEntropyLoss(64, 1000, bias=True, device="meta")
    t = torch.nn.LinearCrossEntropyLoss(64, 1000, bias=True, device="meta")
    assert all(p.device.type == "meta" for p in m.parameters())
    assert [tuple(p.shape) for p in m.parameters()] == [tuple(p.shape) for p in t.parameters()]
    assert m.linear.weight.dtype == ember.float32
    assert (
        enn.LinearCrossEntropyLoss(4, 5, dtype=ember.float64).linear.weight.dtype == ember.float64
    )


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        {"weight": np.ones(3)},
        {"weight": np.ones((C, 1))},
        {"label_smoothing": -0.1},
        {"label_smoothing": 1.5},
    ],
)
def test_module_constructor_errors_match_torch(kw):
    with pytest.raises(Exception) as expected:
        torch.nn.LinearCrossEntropyLoss(
            D, C, **{k: torch.tensor(v) if k == "weight" else v for k, v in kw.items()}
        )
    with pytest.raises(expected.type) as got:
        enn.LinearCrossEntropyLoss(
            D, C, **{k: ember.tensor(v) if k == "weight" else v for k, v in kw.items()}
        )
    assert str(got.value) == str(expected.value)
