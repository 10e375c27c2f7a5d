"""nn.RNN / LSTM / GRU, their cells and nn.utils.rnn: parity with torch in float64 (outputs,
final states, input/state gradients and every parameter gradient, weights copied through
state_dict), packed sequences, options, reprs, errors, meta construction, double backward."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import ember
from ember.nn.utils import rnn as eru
from ember.ops.rnn import RecurrentLayer, _composite, uniform_plan

try:
    import torch
    from torch.nn.utils import rnn as tru
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

TOL = 1e-9


def _close(a, b, tol=TOL):
    a = a.detach().numpy() if not isinstance(a, np.ndarray) else a
    b = b.detach().numpy() if not isinstance(b, np.ndarray) else b
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _pair(cls_name, *args, **kwargs):
    """The torch layer and the ember layer with the same weights (float64)."""
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls_name)(*args, **kwargs).double()
    em = getattr(ember.nn, cls_name)(*args, **kwargs).double()
    assert list(em.state_dict()) == list(tm.state_dict())
    em.load_state_dict(
        {k: ember.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()}
    )
    return tm, em


def _leaf(a):
    return torch.tensor(a, requires_grad=True), ember.tensor(a, requires_grad=True)


def _flat(out):
    """The tensors of a layer's result ``(output, h)`` or ``(output, (h, c))``."""
    y, s = out
    if isinstance(y, (tru.PackedSequence, eru.PackedSequence)):
        y = y.data
    return [y] + (list(s) if isinstance(s, tuple) else [s])


def _check_step(tm, em, t_args, e_args, leaves):
    """Run both, compare results, backprop the same random cotangents, compare gradients."""
    rt, re = _flat(tm(*t_args)), _flat(em(*e_args))
    rng = np.random.default_rng(1)
    lt = le = 0
    for a, b in zip(rt, re):
        _close(b, a)
        g = rng.standard_normal(tuple(a.shape))
        lt = lt + (a * torch.tensor(g)).sum()
        le = le + (b * ember.tensor(g)).sum()
    lt.backward()
    le.backward()
    for a, b in leaves:
        _close(b.grad, a.grad)
    for (n1, p1), (n2, p2) in zip(tm.named_parameters(), em.named_parameters()):
        assert n1 == n2
        _close(p2.grad, p1.grad)


OPTIONS = [
    {},
    {"num_layers": 2},
    {"bidirectional": True},
    {"batch_first": True},
    {"bias": False},
    {"num_layers": 3, "bidirectional": True, "batch_first": True},
    {"num_layers": 2, "dropout": 0.5},  # eval mode: no dropout
]


@needs_torch
@pytest.mark.parametrize(
    "cls_name,extra",
    [
        ("RNN", {}),
        ("RNN", {"nonlinearity": "relu"}),
        ("LSTM", {}),
        ("GRU", {}),
        ("LSTM", {"proj_size": 3}),
    ],
)
@pytest.mark.parametrize("opts", OPTIONS)
@pytest.mark.parametrize("with_state", [False, True])
def test_parity_padded(cls_name, extra, opts, with_state):
    tm, em = _pair(cls_name, 4, 5, **extra, **opts)
    tm.eval()
    em.eval()
    rng = np.random.default_rng(0)
    T, B = 6, 3
    xt, xe = _leaf(rng.standard_normal((B, T, 4) if opts.get("batch_first") else (T, B, 4)))
    leaves = [(xt, xe)]
    t_args, e_args = [xt], [xe]
    if with_state:
        d = (2 if opts.get("bidirectional") else 1) * opts.get("num_layers", 1)
        ht, he = _leaf(rng.standard_normal((d, B, extra.get("proj_size") or 5)))
        leaves.append((ht, he))
        if cls_name == "LSTM":
            ct, ce = _leaf(rng.standard_normal((d, B, 5)))
            leaves.append((ct, ce))
            t_args.append((ht, ct))
            e_args.append((he, ce))
        else:
            t_args.append(ht)
            e_args.append(he)
    _check_step(tm, em, t_args, e_args, leaves)


@needs_torch
@pytest.mark.parametrize(
    "cls_name,extra", [("RNN", {}), ("LSTM", {}), ("GRU", {}), ("LSTM", {"proj_size": 2})]
)
@pytest.mark.parametrize("with_state", [False, True])
def test_parity_packed_unsorted(cls_name, extra, with_state):
    tm, em = _pair(cls_name, 3, 4, num_layers=2, bidirectional=True, **extra)
    rng = np.random.default_rng(2)
    lengths = [3, 5, 1, 5, 2]
    xt, xe = _leaf(rng.standard_normal((5, 5, 3)))
    pt = tru.pack_padded_sequence(xt, lengths, enforce_sorted=False)
    pe = eru.pack_padded_sequence(xe, lengths, enforce_sorted=False)
    _close(pe.data, pt.data)
    assert pe.batch_sizes.tolist() == pt.batch_sizes.tolist()
    assert pe.sorted_indices.tolist() == pt.sorted_indices.tolist()
    leaves = [(xt, xe)]
    t_args, e_args = [pt], [pe]
    if with_state:
        ht, he = _leaf(rng.standard_normal((4, 5, extra.get("proj_size") or 4)))
        leaves.append((ht, he))
        if cls_name == "LSTM":
            ct, ce = _leaf(rng.standard_normal((4, 5, 4)))
            leaves.append((ct, ce))
            t_args.append((ht, ct))
            e_args.append((he, ce))
        else:
            t_args.append(ht)
            e_args.append(he)
    out_t, out_e = tm(*t_args), em(*e_args)
    assert isinstance(out_e[0], eru.PackedSequence)
    # the padded view of the output, and the final states at each sequence's true last step
    pad_t, len_t = tru.pad_packed_sequence(out_t[0], batch_first=True)
    pad_e, len_e = eru.pad_packed_sequence(out_e[0], batch_first=True)
    _close(pad_e, pad_t)
    assert len_e.tolist() == len_t.tolist() == lengths
    _check_step(tm, em, t_args, e_args, leaves)


@needs_torch
@pytest.mark.parametrize("cls_name", ["RNN", "LSTM", "GRU"])
def test_parity_unbatched(cls_name):
    tm, em = _pair(cls_name, 3, 4, num_layers=2)
    rng = np.random.default_rng(3)
    xt, xe = _leaf(rng.standard_normal((5, 3)))
    ht, he = _leaf(rng.standard_normal((2, 4)))
    if cls_name == "LSTM":
        ct, ce = _leaf(rng.standard_normal((2, 4)))
        _check_step(tm, em, [xt, (ht, ct)], [xe, (he, ce)], [(xt, xe), (ht, he), (ct, ce)])
    else:
        _check_step(tm, em, [xt, ht], [xe, he], [(xt, xe), (ht, he)])
    y, _ = em(xe)
    assert y.shape == (5, 4)


@needs_torch
@pytest.mark.parametrize(
    "cls_name,extra",
    [
        ("RNNCell", {}),
        ("RNNCell", {"nonlinearity": "relu"}),
        ("LSTMCell", {}),
        ("GRUCell", {}),
        ("GRUCell", {"bias": False}),
    ],
)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [False, True])
def test_cell_parity(cls_name, extra, batched, with_state):
    tm, em = _pair(cls_name, 3, 4, **extra)
    rng = np.random.default_rng(4)
    lead = (2,) if batched else ()
    xt, xe = _leaf(rng.standard_normal(lead + (3,)))
    leaves = [(xt, xe)]
    t_args, e_args = [xt], [xe]
    if with_state:
        ht, he = _leaf(rng.standard_normal(lead + (4,)))
        leaves.append((ht, he))
        if cls_name == "LSTMCell":
            ct, ce = _leaf(rng.standard_normal(lead + (4,)))
            leaves.append((ct, ce))
            t_args.append((ht, ct))
            e_args.append((he, ce))
        else:
            t_args.append(ht)
            e_args.append(he)
    rt, re = tm(*t_args), em(*e_args)
    rt = list(rt) if isinstance(rt, tuple) else [rt]
    re = list(re) if isinstance(re, tuple) else [re]
    lt = le = 0
    for a, b in zip(rt, re):
        _close(b, a)
        g = rng.standard_normal(tuple(a.shape))
        lt, le = lt + (a * torch.tensor(g)).sum(), le + (b * ember.tensor(g)).sum()
    lt.backward()
    le.backward()
    for a, b in leaves:
        _close(b.grad, a.grad)
    for (_, p1), (_, p2) in zip(tm.named_parameters(), em.named_parameters()):
        _close(p2.grad, p1.grad)


def test_dropout_between_layers_in_training_only():
    ember.manual_seed(0)
    m = ember.nn.GRU(3, 8, num_layers=2, dropout=0.5, dtype=ember.float64)
    x = ember.randn(4, 2, 3, dtype=ember.float64)
    m.eval()
    y_eval, _ = m(x)
    y_eval2, _ = m(x)
    np.testing.assert_array_equal(y_eval.detach().numpy(), y_eval2.detach().numpy())
    m.train()
    y_train, h_train = m(x)
    assert not np.allclose(y_train.detach().numpy(), y_eval.detach().numpy())
    # the first layer's final state is computed before any dropout
    _, h_eval = m.eval()(x)
    np.testing.assert_allclose(h_train[0].detach().numpy(), h_eval[0].detach().numpy())


@needs_torch
def test_dropout_warning_with_one_layer_matches_torch():
    with pytest.warns(UserWarning) as rec_t:
        torch.nn.LSTM(3, 4, dropout=0.2)
    with pytest.warns(UserWarning) as rec_e:
        ember.nn.LSTM(3, 4, dropout=0.2)
    assert str(rec_e[0].message) == str(rec_t[0].message)


@needs_torch
@pytest.mark.parametrize(
    "cls_name,args,kwargs",
    [
        ("LSTM", (10, 20), {"num_layers": 2, "batch_first": True}),
        (
            "LSTM",
            (10, 20),
            {
                "num_layers": 2,
                "bias": False,
                "batch_first": True,
                "dropout": 0.5,
                "bidirectional": True,
                "proj_size": 5,
            },
        ),
        ("GRU", (3, 4), {}),
        ("RNN", (3, 4), {"nonlinearity": "relu"}),
        ("RNN", (3, 4, 2, "relu"), {}),
        ("RNNCell", (3, 4), {"bias": False, "nonlinearity": "relu"}),
        ("LSTMCell", (3, 4), {}),
        ("GRUCell", (3, 4), {"bias": False}),
    ],
)
def test_repr_and_state_dict_match_torch(cls_name, args, kwargs):
    tm = getattr(torch.nn, cls_name)(*args, **kwargs)
    em = getattr(ember.nn, cls_name)(*args, **kwargs)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [tuple(p.shape) for p in em.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    if hasattr(tm, "_flat_weights_names"):
        assert em._flat_weights_names == tm._flat_weights_names
        assert em._all_weights == tm._all_weights
        assert all(w is getattr(em, n) for w, n in zip(em._flat_weights, em._flat_weights_names))
        assert [[tuple(w.shape) for w in ws] for ws in em.all_weights] == [
            [tuple(w.shape) for w in ws] for ws in tm.all_weights
        ]
        assert em.flatten_parameters() is None


def test_flat_weights_follow_replaced_parameters():
    m = ember.nn.LSTM(2, 3)
    new = ember.nn.Parameter(ember.zeros(12, 3))
    m.weight_hh_l0 = new
    assert m._flat_weights[1] is new
    assert m.all_weights[0][1] is new


def test_default_init_range_and_versions():
    ember.manual_seed(0)
    m = ember.nn.LSTM(8, 16, num_layers=2)
    bound = 1 / 16**0.5
    for p in m.parameters():
        a = p.detach().numpy()
        assert np.abs(a).max() <= bound and np.abs(a).max() > 0.8 * bound
    with ember.nn.init.default_version(2):
        m2 = ember.nn.LSTM(8, 16)
        c2 = ember.nn.GRUCell(4, 6)
    # version 2: zero biases but the LSTM's forget gate (bias_ih), orthogonal blocks
    b = m2.bias_ih_l0.detach().numpy()
    assert (
        np.all(b[16:32] == 1)
        and np.all(b[:16] == 0)
        and np.all(m2.bias_hh_l0.detach().numpy() == 0)
    )
    blk = m2.weight_hh_l0.detach().numpy()[:16]
    np.testing.assert_allclose(blk @ blk.T, np.eye(16), atol=1e-5)
    assert np.all(c2.bias_ih.detach().numpy() == 0)


def test_meta_construction_allocates_nothing():
    tracemalloc.start()
    try:
        m = ember.nn.LSTM(4096, 4096, num_layers=4, bidirectional=True, device="meta")
        c = ember.nn.GRUCell(8192, 8192, device="meta")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000
    assert m.weight_ih_l1_reverse.is_meta and m.weight_ih_l1_reverse.shape == (16384, 8192)
    assert c.weight_hh.is_meta and c.weight_hh.shape == (24576, 8192)


def test_dtype_and_device_kwargs():
    m = ember.nn.GRU(3, 4, dtype=ember.float64)
    assert all(p.dtype == ember.float64 for p in m.parameters())
    y, h = m(ember.randn(2, 1, 3, dtype=ember.float64))
    assert y.dtype == ember.float64 and h.shape == (1, 1, 4)


# ---- errors, against torch's types and messages ------------------------------------------
def _same_error(fn_t, fn_e):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(Exception) as ee:
        fn_e()
    assert type(ee.value) is type(et.value)
    return str(et.value), str(ee.value)


@needs_torch
@pytest.mark.parametrize(
    "case", ["input_size", "hidden", "ndim", "hx_dim", "dtype", "cell_hidden", "lstm_hx_dim"]
)
def test_forward_errors_match_torch(case):
    ms = {
        "input_size": "LSTM",
        "hidden": "GRU",
        "ndim": "RNN",
        "hx_dim": "GRU",
        "dtype": "LSTM",
        "cell_hidden": "LSTM",
        "lstm_hx_dim": "LSTM",
    }[case]
    tm, em = getattr(torch.nn, ms)(3, 4), getattr(ember.nn, ms)(3, 4)
    args = {
        "input_size": lambda lib: (lib.zeros(2, 1, 5),),
        "hidden": lambda lib: (lib.zeros(2, 1, 3), lib.zeros(1, 2, 4)),
        "ndim": lambda lib: (lib.zeros(2, 1, 1, 3),),
        "hx_dim": lambda lib: (lib.zeros(2, 1, 3), lib.zeros(1, 4)),
        "dtype": lambda lib: (lib.zeros(2, 1, 3, dtype=lib.float64),),
        "cell_hidden": lambda lib: (lib.zeros(2, 1, 3), (lib.zeros(1, 1, 4), lib.zeros(1, 1, 5))),
        "lstm_hx_dim": lambda lib: (lib.zeros(2, 1, 3), (lib.zeros(1, 4), lib.zeros(1, 4))),
    }[case]
    msg_t, msg_e = _same_error(lambda: tm(*args(torch)), lambda: em(*args(ember)))
    if case != "dtype":  # the dtype names differ (torch.float64 / ember.float64)
        assert msg_e == msg_t
    else:
        assert msg_e == msg_t.replace("torch.", "ember.")


@needs_torch
@pytest.mark.parametrize(
    "cls_name,args,kwargs",
    [
        ("GRU", (3, 4), {"proj_size": 2}),
        ("LSTM", (3, 4), {"proj_size": 4}),
        ("LSTM", (3, 4), {"proj_size": -1}),
        ("LSTM", (3, 4), {"dropout": 1.5}),
        ("LSTM", (3, 4), {"dropout": True}),
        ("LSTM", (3, 0), {}),
        ("LSTM", (3, 4), {"num_layers": 0}),
        ("LSTM", (3.0, 4), {}),
        ("LSTM", (3, 4), {"bias": 1}),
        ("RNN", (3, 4), {"nonlinearity": "sigmoid"}),
    ],
)
def test_constructor_errors_match_torch(cls_name, args, kwargs):
    msg_t, msg_e = _same_error(
        lambda: getattr(torch.nn, cls_name)(*args, **kwargs),
        lambda: getattr(ember.nn, cls_name)(*args, **kwargs),
    )
    assert msg_e == msg_t


@needs_torch
@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_input_dim_errors_match_torch(name):
    msg_t, msg_e = _same_error(
        lambda: getattr(torch.nn, name)(3, 4)(torch.zeros(1, 1, 3)),
        lambda: getattr(ember.nn, name)(3, 4)(ember.zeros(1, 1, 3)),
    )
    assert msg_e == msg_t


# ---- the primitive ---------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
def test_primitive_gradcheck_and_composite(mode):
    rng = np.random.default_rng(5)
    g = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    h, b = 3, 2

    def t(*shape):
        return ember.tensor(rng.standard_normal(shape) * 0.7, requires_grad=True)

    x, h0, wi, w, bi = t(3 * b, 2), t(b, h), t(g * h, 2), t(g * h, h), t(g * h)
    c0 = t(b, h) if mode == "LSTM" else None
    bh = t(g * h) if mode == "GRU" else None
    pl = uniform_plan(3, b, True)

    def f(x, h0, wi, w, bi, *rest):
        c = rest[0] if mode == "LSTM" else None
        bb = rest[0] if mode == "GRU" else None
        return RecurrentLayer.apply(x, h0, c, wi, w, bi, bb, None, mode, pl)

    extra = [c0] if c0 is not None else ([bh] if bh is not None else [])
    args = (x, h0, wi, w, bi, *extra)
    assert ember.autograd.gradcheck(f, args)
    # the Tensor-op composite (used for double backward) computes the same values
    ref = _composite(mode, x, h0, c0, wi, w, bi, bh, None, pl)
    for a, b_ in zip(f(*args), ref):
        _close(a, b_, 1e-12)
    assert ember.autograd.gradgradcheck(f, args)


@needs_torch
@pytest.mark.parametrize("cls_name", ["RNN", "LSTM", "GRU"])
def test_empty_sequence_and_empty_batch_match_torch(cls_name):
    msg_t, msg_e = _same_error(
        lambda: getattr(torch.nn, cls_name)(2, 3)(torch.zeros(0, 1, 2)),
        lambda: getattr(ember.nn, cls_name)(2, 3)(ember.zeros(0, 1, 2)),
    )
    assert msg_e == msg_t
    m = getattr(ember.nn, cls_name)(2, 3, bidirectional=True)
    x = ember.zeros(2, 0, 2, requires_grad=True)
    y, hs = m(x)
    h = hs[0] if cls_name == "LSTM" else hs
    (y.sum() + h.sum()).backward()
    assert y.shape == (2, 0, 6) and h.shape == (2, 0, 3) and x.grad.shape == (2, 0, 2)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("proj", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_lstm_feature_major_path_matches_composite(reverse, proj, bias):
    # the padded LSTM runs its own (feature-major) kernels; the Tensor-op composite is the
    # reference for values and for every gradient
    rng = np.random.default_rng(9)
    t, b, i, h = 4, 3, 2, 5
    p = 2 if proj else h

    def leaf(*shape):
        return ember.tensor(rng.standard_normal(shape) * 0.7, requires_grad=True)

    args = [
        leaf(t * b, i),
        leaf(b, p),
        leaf(b, h),
        leaf(4 * h, i),
        leaf(4 * h, p),
        leaf(4 * h) if bias else None,
        None,
        leaf(p, h) if proj else None,
    ]
    pl = uniform_plan(t, b, reverse)
    assert pl.uniform
    got = RecurrentLayer.apply(*args, "LSTM", pl)
    ref = _composite("LSTM", *args, pl)
    cot = [ember.tensor(rng.standard_normal(tuple(o.shape))) for o in ref]
    leaves = [a for a in args if a is not None]
    g_got = ember.autograd.grad(got, leaves, cot)
    g_ref = ember.autograd.grad(ref, leaves, cot)
    for a, b_ in zip(list(got) + list(g_got), list(ref) + list(g_ref)):
        _close(a, b_, 1e-12)


@needs_torch
def test_double_backward_matches_torch():
    tm, em = _pair("LSTM", 3, 4)
    rng = np.random.default_rng(6)
    xt, xe = _leaf(rng.standard_normal((4, 2, 3)))
    (gt,) = torch.autograd.grad(tm(xt)[0].tanh().sum(), xt, create_graph=True)
    (ge,) = ember.autograd.grad(em(xe)[0].tanh().sum(), xe, create_graph=True)
    _close(ge, gt)
    (gwt,) = torch.autograd.grad((gt**2).sum(), tm.weight_hh_l0)
    (gwe,) = ember.autograd.grad((ge**2).sum(), em.weight_hh_l0)
    _close(gwe, gwt)


# ---- nn.utils.rnn ----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, side):
    rng = np.random.default_rng(7)
    seqs = [rng.standard_normal((n, 2)) for n in (3, 1, 4)]
    yt = tru.pad_sequence([torch.tensor(s) for s in seqs], batch_first, -1.5, side)
    es = [ember.tensor(s, requires_grad=True) for s in seqs]
    ye = eru.pad_sequence(es, batch_first=batch_first, padding_value=-1.5, padding_side=side)
    _close(ye, yt)
    ye.sum().backward()
    assert all(float(e.grad.sum()) == e.numel() for e in es)


@needs_torch
def test_pack_pad_roundtrip_and_errors_match_torch():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 4, 2))
    lengths = [2, 4, 1]
    pt = tru.pack_padded_sequence(torch.tensor(x), lengths, batch_first=True, enforce_sorted=False)
    pe = eru.pack_padded_sequence(
        ember.tensor(x), ember.tensor(lengths), batch_first=True, enforce_sorted=False
    )
    _close(pe.data, pt.data)
    assert pe.unsorted_indices.tolist() == pt.unsorted_indices.tolist()
    for bf in (False, True):
        yt, lt = tru.pad_packed_sequence(pt, batch_first=bf, padding_value=9.0, total_length=6)
        ye, le = eru.pad_packed_sequence(pe, batch_first=bf, padding_value=9.0, total_length=6)
        _close(ye, yt)
        assert le.tolist() == lt.tolist() and le.dtype == ember.int64
    for a, b in zip(eru.unpack_sequence(pe), tru.unpack_sequence(pt)):
        _close(a, b)
    ue = eru.unpad_sequence(ember.tensor(x).transpose(0, 1), ember.tensor(lengths))
    ut = tru.unpad_sequence(torch.tensor(x).transpose(0, 1), torch.tensor(lengths))
    for a, b in zip(ue, ut):
        _close(a, b)
    seqs = [rng.standard_normal((n, 2)) for n in (2, 3)]
    qe = eru.pack_sequence([ember.tensor(s) for s in seqs], enforce_sorted=False)
    qt = tru.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    _close(qe.data, qt.data)
    for a, b in zip(qe[1:], qt[1:]):
        assert a.tolist() == b.tolist()
    for fn_t, fn_e in [
        (
            lambda: tru.pack_padded_sequence(torch.zeros(3, 2), [1, 2]),
            lambda: eru.pack_padded_sequence(ember.zeros(3, 2), [1, 2]),
        ),
        (
            lambda: tru.pack_padded_sequence(torch.zeros(3, 2), [2, 0]),
            lambda: eru.pack_padded_sequence(ember.zeros(3, 2), [2, 0]),
        ),
        (
            lambda: tru.pack_padded_sequence(torch.zeros(3, 2), [2]),
            lambda: eru.pack_padded_sequence(ember.zeros(3, 2), [2]),
        ),
        (
            lambda: tru.pad_packed_sequence(pt, total_length=2),
            lambda: eru.pad_packed_sequence(pe, total_length=2),
        ),
        (lambda: tru.pad_sequence([]), lambda: eru.pad_sequence([])),
        (
            lambda: tru.pad_sequence([torch.zeros(2)], padding_side="up"),
            lambda: eru.pad_sequence([ember.zeros(2)], padding_side="up"),
        ),
    ]:
        msg_t, msg_e = _same_error(fn_t, fn_e)
        assert msg_e == msg_t


def test_packed_sequence_is_a_named_tuple_with_to():
    p = eru.pack_sequence([ember.ones(3, 2), ember.ones(2, 2)])
    data, sizes, s, u = p
    assert data is p.data and sizes.tolist() == [2, 2, 1] and s is None and u is None
    assert p.to(ember.float32) is p
    q = p.to(ember.float64)
    assert isinstance(q, eru.PackedSequence) and q.data.dtype == ember.float64
    assert q.batch_sizes is p.batch_sizes and p.double().data.dtype == ember.float64
    assert eru.invert_permutation(ember.tensor([2, 0, 1])).tolist() == [1, 2, 0]


def test_packing_is_differentiable():
    x = ember.randn(4, 2, 3, dtype=ember.float64, requires_grad=True)
    p = eru.pack_padded_sequence(x, [4, 2])
    y, _ = eru.pad_packed_sequence(p)
    y.sum().backward()
    expected = np.zeros((4, 2, 3))
    expected[:4, 0] = 1
    expected[:2, 1] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)
