"""F.scaled_dot_product_attention, F.multi_head_attention_forward and nn.MultiheadAttention:
parity with torch in float64 (outputs, weights, input and parameter gradients over the mask
kinds, layouts and options), gradcheck, the two backward bodies against each other, dropout,
meta construction, repr, state_dict keys and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember
from ember.nn import functional as EF
from ember.ops.attention import Attention

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = TF = None
if torch is not None:
    # tiny tensors: torch's intra-op threads only spin against each other on a shared machine
    # (its backward took 0.2 s a call with 2 threads here)
    torch.set_num_threads(1)
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

TOL = 1e-9


def _np(t):
    return None if t is None else t.detach().numpy()


def _close(a, b, what=""):
    a, b = _np(a), _np(b)
    if a is None or b is None:
        assert a is None and b is None, what
        return
    assert a.shape == b.shape, (what, a.shape, b.shape)
    assert np.array_equal(np.isnan(a), np.isnan(b)), what
    np.testing.assert_allclose(np.nan_to_num(a), np.nan_to_num(b), rtol=TOL, atol=TOL, err_msg=what)


def _pair(rng, *shape, grad=True):
    a = rng.standard_normal(shape)
    return (
        ember.tensor(a, requires_grad=grad),
        torch.tensor(a, requires_grad=grad) if torch is not None else None,
    )


# ---- scaled_dot_product_attention --------------------------------------------------------------
SDPA_CASES = [
    ("plain", (2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7), None, {}),
    ("causal", (2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7), None, {"is_causal": True}),
    ("causal square", (2, 4, 4), (2, 4, 4), (2, 4, 3), None, {"is_causal": True}),
    ("bool mask", (2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7), "bool", {}),
    ("bool mask, rows all masked", (2, 5, 4), (2, 6, 4), (2, 6, 3), "dead", {}),
    ("float mask", (2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7), "float", {}),
    ("float mask with -inf rows", (2, 5, 4), (2, 6, 4), (2, 6, 3), "float-dead", {}),
    ("scale", (2, 5, 4), (2, 6, 4), (2, 6, 3), None, {"scale": 0.3}),
    ("unbatched 2-D", (5, 4), (6, 4), (6, 3), "float", {}),
    ("extra batch dims", (2, 1, 3, 5, 4), (2, 1, 3, 6, 4), (2, 1, 3, 6, 2), "bool", {}),
    ("gqa", (2, 4, 5, 4), (2, 2, 6, 4), (2, 2, 6, 3), None, {"enable_gqa": True}),
]


@needs_torch
@pytest.mark.parametrize("name,qs,ks,vs,mask,kw", SDPA_CASES, ids=[c[0] for c in SDPA_CASES])
def test_sdpa_matches_torch(name, qs, ks, vs, mask, kw):
    rng = np.random.default_rng(0)
    eq, tq = _pair(rng, *qs)
    ek, tk = _pair(rng, *ks)
    ev, tv = _pair(rng, *vs)
    L, S = qs[-2], ks[-2]
    em = tm = None
    if mask in ("bool", "dead"):
        m = rng.random((L, S)) > 0.4
        if mask == "dead":
            m[1] = False
        em, tm = ember.tensor(m), torch.tensor(m)
    elif mask in ("float", "float-dead"):
        em, tm = _pair(rng, *(qs[:-2] + (L, S)))
        if mask == "float-dead":
            with ember.no_grad(), torch.no_grad():
                em[..., 2, :] = -math.inf
                tm[..., 2, :] = -math.inf
    eo = EF.scaled_dot_product_attention(eq, ek, ev, em, **kw)
    to = TF.scaled_dot_product_attention(tq, tk, tv, tm, **kw)
    _close(eo, to, "output")
    g = rng.standard_normal(tuple(to.shape))
    eo.backward(ember.tensor(g))
    to.backward(torch.tensor(g))
    for e, t, n in ((eq, tq, "q"), (ek, tk, "k"), (ev, tv, "v"), (em, tm, "mask")):
        if t is not None and t.requires_grad:
            _close(e.grad, t.grad, "grad " + n)


def test_sdpa_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(1)
    q, k, v = (
        ember.tensor(rng.standard_normal(s), requires_grad=True)
        for s in ((2, 3, 4), (2, 5, 4), (2, 5, 2))
    )
    m = ember.tensor(rng.standard_normal((3, 5)), requires_grad=True)
    bm = ember.tensor(rng.random((3, 5)) > 0.3)
    for fn in (
        lambda q, k, v: EF.scaled_dot_product_attention(q, k, v),
        lambda q, k, v: EF.scaled_dot_product_attention(q, k, v, is_causal=True),
        lambda q, k, v: EF.scaled_dot_product_attention(q, k, v, bm, scale=0.7),
        lambda q, k, v, m: EF.scaled_dot_product_attention(q, k, v, m),
    ):
        args = (q, k, v, m) if fn.__code__.co_argcount == 4 else (q, k, v)
        assert ember.autograd.gradcheck(fn, args)
        assert ember.autograd.gradgradcheck(fn, args)


def test_attention_weights_output_gradgradcheck():
    # the weights are a second output; their gradient flows through the same node
    rng = np.random.default_rng(2)
    q, k, v = (
        ember.tensor(rng.standard_normal(s), requires_grad=True)
        for s in ((2, 3, 4), (2, 5, 4), (2, 5, 2))
    )

    def fn(q, k, v):
        out, w = Attention.apply(q, k, v, None, 0.5, False, None, False)
        return out.sum(-1) + w.square().sum(-1)[..., :1]

    assert ember.autograd.gradcheck(fn, (q, k, v))
    assert ember.autograd.gradgradcheck(fn, (q, k, v))


@pytest.mark.parametrize("mask", [None, "float", "bool"])
@pytest.mark.parametrize("dropout", [False, True])
def test_backward_bodies_agree(mask, dropout):
    """The raw-array backward (plain ``backward()``) equals the Tensor-op one (``create_graph``)."""
    rng = np.random.default_rng(3)
    shapes = ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3))
    arrays = [rng.standard_normal(s) for s in shapes]
    m = None
    if mask == "float":
        m = ember.tensor(rng.standard_normal((3, 5)), requires_grad=True)
    elif mask == "bool":
        m = ember.tensor(rng.random((3, 5)) > 0.3)
    keep = None
    if dropout:
        keep = (rng.random((2, 2, 3, 5)) > 0.3) / 0.7
    g_out = ember.tensor(rng.standard_normal((2, 2, 3, 3)))
    g_w = ember.tensor(rng.standard_normal((2, 2, 3, 5)))
    grads = []
    for create_graph in (False, True):
        ts = [ember.tensor(a, requires_grad=True) for a in arrays]
        out, w = Attention.apply(*ts, m, 0.5, False, keep, True)
        inputs = ts + ([m] if mask == "float" else [])
        grads.append(ember.autograd.grad((out, w), inputs, (g_out, g_w), create_graph=create_graph))
    for a, b in zip(*grads):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-12)


def test_sdpa_dropout():
    ember.manual_seed(0)
    q = ember.randn(4, 2, 16, 8, dtype=ember.float64)
    v = ember.randn(4, 2, 16, 8, dtype=ember.float64)
    ref = EF.scaled_dot_product_attention(q, q, v)
    # p=1 drops everything
    assert float(EF.scaled_dot_product_attention(q, q, v, dropout_p=1.0).abs().sum()) == 0
    # same seed, same draw; E[dropped output] = output
    ember.manual_seed(1)
    a = EF.scaled_dot_product_attention(q, q, v, dropout_p=0.3)
    ember.manual_seed(1)
    b = EF.scaled_dot_product_attention(q, q, v, dropout_p=0.3)
    np.testing.assert_array_equal(_np(a), _np(b))
    assert not np.allclose(_np(a), _np(ref))
    mean = sum(_np(EF.scaled_dot_product_attention(q, q, v, dropout_p=0.3)) for _ in range(300))
    # unbiased: the average over draws approaches the output without dropout
    assert np.abs(mean / 300 - _np(ref)).mean() < 0.03 * np.abs(_np(ref)).mean() + 0.01
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
        EF.scaled_dot_product_attention(q, q, v, dropout_p=1.5)


def test_sdpa_float32_stays_float32_and_meta():
    q = ember.randn(2, 3, 4)
    assert EF.scaled_dot_product_attention(q, q, q, dropout_p=0.2).dtype == ember.float32
    qm = ember.empty(2, 3, 5, 4, device="meta")
    vm = ember.empty(2, 3, 6, 7, device="meta")
    out = EF.scaled_dot_product_attention(qm, vm[..., :4], vm, is_causal=True)
    assert out.is_meta and out.shape == (2, 3, 5, 7)


@needs_torch
@pytest.mark.parametrize(
    "case", ["ndim", "dtype", "mask dtype", "causal and mask", "sizes", "gqa heads", "type"]
)
def test_sdpa_errors_match_torch(case):
    def run(lib, F):
        q = lib.zeros(2, 4, 3, 4, dtype=lib.float64)
        k = lib.zeros(2, 4, 5, 4, dtype=lib.float64)
        if case == "ndim":
            return F.scaled_dot_product_attention(q[0, 0, 0], k[0, 0], k[0, 0])
        if case == "dtype":
            return F.scaled_dot_product_attention(q.float(), k, k)
        if case == "mask dtype":
            return F.scaled_dot_product_attention(
                q, k, k, attn_mask=lib.zeros(3, 5, dtype=lib.int64)
            )
        if case == "causal and mask":
            # 3-D: torch's 4-D CPU flash kernel accepts both (ember raises for every shape)
            return F.scaled_dot_product_attention(
                q[0], k[0], k[0], lib.ones(3, 5, dtype=lib.bool), is_causal=True
            )
        if case == "sizes":
            return F.scaled_dot_product_attention(q, k[..., :3], k)
        if case == "gqa heads":
            return F.scaled_dot_product_attention(q, k[:, :3], k[:, :3], enable_gqa=True)
        return F.scaled_dot_product_attention(q.numpy(), k, k)

    with pytest.raises(Exception) as te:
        run(torch, TF)
    with pytest.raises(Exception) as ee:
        run(ember, EF)
    assert type(ee.value) is type(te.value)
    if case in ("ndim", "dtype", "mask dtype", "causal and mask"):
        assert str(ee.value) == str(te.value)


# ---- MultiheadAttention --------------------------------------------------------------------------
def _load(e, t):
    e.load_state_dict(
        {k: ember.tensor(v.detach().numpy().copy()) for k, v in t.state_dict().items()}
    )


def _mha_inputs(rng, bf, kv, mode, E, L, S, N, H):
    shp = (lambda n, d: (N, n, d)) if bf else (lambda n, d: (n, N, d))
    q = rng.standard_normal(shp(L, E))
    if mode == "self":
        return q, q, q, L
    if mode == "kv same":
        kk = rng.standard_normal(shp(S, kv[0] if kv else E))
        return q, kk, kk if not kv or kv[0] == kv[1] else rng.standard_normal(shp(S, kv[1])), S
    return (
        q,
        rng.standard_normal(shp(S, kv[0] if kv else E)),
        rng.standard_normal(shp(S, kv[1] if kv else E)),
        S,
    )


# batch_first, (kdim, vdim), (add_bias_kv, add_zero_attn), bias: each option on and off
MHA_GRID = [
    (False, None, (False, False), True),
    (True, None, (False, False), True),
    (False, (5, 7), (False, False), True),
    (True, (5, 7), (True, True), False),
    (False, None, (True, False), True),
    (True, None, (False, True), True),
    (False, None, (True, True), False),
    (True, (5, 7), (True, False), True),
]
MASK_CASES = [
    (None, True, True),
    ("bool", True, False),
    ("float3d", False, True),
    ("kpm", True, True),
    ("kpm float", False, True),
    ("both", True, True),
    ("causal", False, True),
    ("causal", True, True),
    ("causal kpm", False, True),
]


@needs_torch
@pytest.mark.parametrize("bf,kv,extra,bias", MHA_GRID)
def test_multihead_attention_matches_torch(bf, kv, extra, bias):
    E, H, L, S, N = 8, 2, 5, 6, 3
    rng = np.random.default_rng(hash((bf, kv, extra, bias)) % 2**32)
    kw = dict(
        bias=bias,
        add_bias_kv=extra[0],
        add_zero_attn=extra[1],
        kdim=kv and kv[0],
        vdim=kv and kv[1],
        batch_first=bf,
    )
    t = torch.nn.MultiheadAttention(E, H, dtype=torch.float64, **kw)
    e = ember.nn.MultiheadAttention(E, H, dtype=ember.float64, **kw)
    assert list(e.state_dict()) == list(t.state_dict())
    _load(e, t)
    modes = ["other", "kv same"] + ([] if kv else ["self"])
    # half the mask cases per configuration (each case meets half the configurations), with
    # the input identities (self, key is value, distinct) in turn
    half = MHA_GRID.index((bf, kv, extra, bias)) % 2
    for i, (mask, nw, avg) in enumerate(MASK_CASES):
        if i % 2 != half:
            continue
        mode = modes[(i // 2) % len(modes)]
        q, k, v, Sx = _mha_inputs(
            rng,
            bf,
            kv,
            "self" if mask and "causal" in mask and not kv else mode,
            E,
            L,
            S if not (mask and "causal" in mask) else L,
            N,
            H,
        )
        Sx = k.shape[1] if bf else k.shape[0]
        am = kpm = None
        causal = False
        if mask in ("bool", "both"):
            am = rng.random((L, Sx)) > 0.7
        elif mask == "float3d":
            am = rng.standard_normal((N * H, L, Sx))
        elif mask and "causal" in mask:
            am = np.triu(np.full((L, Sx), -np.inf), 1)
            causal = True
        if mask in ("kpm", "both"):
            kpm = rng.random((N, Sx)) > 0.7
        elif mask in ("kpm float", "causal kpm"):  # a float kpm with a float mask: no warning
            kpm = np.where(rng.random((N, Sx)) > 0.7, -np.inf, 0.0)
        tq = torch.tensor(q, requires_grad=True)
        eq = ember.tensor(q, requires_grad=True)
        tk, tv, ek, ev = tq, tq, eq, eq
        if k is not q:
            tk, ek = torch.tensor(k, requires_grad=True), ember.tensor(k, requires_grad=True)
            tv, ev = tk, ek
            if v is not k:
                tv, ev = torch.tensor(v, requires_grad=True), ember.tensor(v, requires_grad=True)

        def f(x, lib):
            return None if x is None else lib.tensor(x)

        to, tw = t(
            tq,
            tk,
            tv,
            key_padding_mask=f(kpm, torch),
            need_weights=nw,
            attn_mask=f(am, torch),
            average_attn_weights=avg,
            is_causal=causal,
        )
        eo, ew = e(
            eq,
            ek,
            ev,
            key_padding_mask=f(kpm, ember),
            need_weights=nw,
            attn_mask=f(am, ember),
            average_attn_weights=avg,
            is_causal=causal,
        )
        what = f"mask={mask} need_weights={nw} avg={avg} inputs={mode}"
        _close(eo, to, what + " output")
        _close(ew, tw, what + " weights")
        g = rng.standard_normal(tuple(to.shape))
        lt = (to * torch.tensor(g)).nansum() + (0 if tw is None else tw.nan_to_num().sum())
        le = (eo * ember.tensor(g)).nansum() + (0 if ew is None else ew.nan_to_num().sum())
        lt.backward()
        le.backward()
        for (n1, pt), (n2, pe) in zip(t.named_parameters(), e.named_parameters()):
            assert n1 == n2
            _close(pe.grad, pt.grad, what + " grad " + n1)
        for a, b, n in ((eq, tq, "query"), (ek, tk, "key"), (ev, tv, "value")):
            _close(a.grad, b.grad, what + " grad " + n)
        t.zero_grad()
        e.zero_grad()


@needs_torch
@pytest.mark.parametrize("bf", [False, True])
def test_multihead_attention_unbatched(bf):
    rng = np.random.default_rng(4)
    t = torch.nn.MultiheadAttention(8, 2, batch_first=bf, dtype=torch.float64)
    e = ember.nn.MultiheadAttention(8, 2, batch_first=bf, dtype=ember.float64)
    _load(e, t)
    x = rng.standard_normal((5, 8))
    m = rng.standard_normal((2, 5, 5))
    kpm = np.array([False, True, False, False, True])
    for kw in ({}, {"attn_mask": m}, {"key_padding_mask": kpm, "need_weights": False}):
        to, tw = t(
            *[torch.tensor(x)] * 3,
            **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()},
        )
        eo, ew = e(
            *[ember.tensor(x)] * 3,
            **{k: ember.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()},
        )
        _close(eo, to, str(kw))
        _close(ew, tw, str(kw))


@needs_torch
def test_multi_head_attention_forward_functional_and_static_kv():
    rng = np.random.default_rng(5)
    E, H, L, N = 8, 2, 4, 3
    arrays = {
        "x": rng.standard_normal((L, N, E)),
        "w": rng.standard_normal((3 * E, E)),
        "b": rng.standard_normal(3 * E),
        "ow": rng.standard_normal((E, E)),
        "ob": rng.standard_normal(E),
        "sk": rng.standard_normal((N * H, 6, E // H)),
        "sv": rng.standard_normal((N * H, 6, E // H)),
    }
    results = []
    for lib, F in ((torch, TF), (ember, EF)):
        a = {k: lib.tensor(v, requires_grad=True) for k, v in arrays.items()}
        out, w = F.multi_head_attention_forward(
            a["x"],
            a["x"],
            a["x"],
            E,
            H,
            a["w"],
            a["b"],
            None,
            None,
            False,
            0.0,
            a["ow"],
            a["ob"],
            static_k=a["sk"],
            static_v=a["sv"],
            average_attn_weights=False,
        )
        (out.sum() + w.square().sum()).backward()
        results.append([out, w] + [a[k].grad for k in arrays])
    for e, t in zip(results[1], results[0]):
        _close(e, t)


def test_multi_head_attention_forward_gradcheck():
    rng = np.random.default_rng(6)
    E, H, L, N = 4, 2, 3, 2
    x, w, ow = (
        ember.tensor(rng.standard_normal(s), requires_grad=True)
        for s in ((L, N, E), (3 * E, E), (E, E))
    )
    kpm = ember.tensor(np.array([[False, False, True], [False, False, False]]))

    def fn(x, w, ow):
        out, attn = EF.multi_head_attention_forward(
            x, x, x, E, H, w, None, None, None, False, 0.0, ow, None, key_padding_mask=kpm
        )
        return out.sum(-1).T + attn.sum(-1)

    assert ember.autograd.gradcheck(fn, (x, w, ow))
    assert ember.autograd.gradgradcheck(fn, (x, w, ow))


@needs_torch
def test_multihead_attention_repr_init_and_meta():
    t = torch.nn.MultiheadAttention(8, 2, add_bias_kv=True, kdim=3, vdim=5)
    e = ember.nn.MultiheadAttention(8, 2, add_bias_kv=True, kdim=3, vdim=5)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert e.in_proj_weight is None and e.q_proj_weight.shape == (8, 8)
    assert e.k_proj_weight.shape == (8, 3) and e.v_proj_weight.shape == (8, 5)
    assert type(e.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(e.out_proj, ember.nn.Linear)
    assert float(e.in_proj_bias.abs().sum()) == 0 and float(e.out_proj.bias.abs().sum()) == 0
    ember.manual_seed(0)
    big = ember.nn.MultiheadAttention(256, 4)
    w = _np(big.in_proj_weight)
    bound = math.sqrt(6 / (256 + 768))  # xavier_uniform_ over (768, 256)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    m = ember.nn.MultiheadAttention(4096, 8, add_bias_kv=True, device="meta")
    assert m.in_proj_weight.is_meta and m.in_proj_weight.shape == (3 * 4096, 4096)
    assert m.bias_k.is_meta and m.out_proj.weight.is_meta
    x = ember.empty(3, 2, 4096, device="meta")
    out, attn = m(x, x, x)
    assert out.is_meta and out.shape == (3, 2, 4096) and attn.shape == (2, 3, 4)
    assert ember.nn.MultiheadAttention.__constants__ == ["batch_first"]


@needs_torch
def test_multihead_attention_dropout_train_and_eval():
    e = ember.nn.MultiheadAttention(8, 2, dropout=0.5, dtype=ember.float64)
    x = ember.randn(5, 3, 8, dtype=ember.float64)
    e.eval()
    a, _ = e(x, x, x)
    b, _ = e(x, x, x)
    np.testing.assert_array_equal(_np(a), _np(b))
    e.train()
    c, w = e(x, x, x, average_attn_weights=False)
    assert not np.allclose(_np(a), _np(c))
    # NOTE: matches torch: returned weights are the dropped ones (zeros or scaled by 2)
    ww = _np(w)
    assert (ww == 0).any() and ww.max() > 1.0 - 1e-12 or (ww == 0).mean() > 0.3


@needs_torch
@pytest.mark.parametrize(
    "case",
    [
        "embed",
        "heads",
        "divisible",
        "query dim",
        "mask dim",
        "mask 2d shape",
        "mask 3d shape",
        "kpm shape",
        "causal hint",
        "mask dtype",
        "kv shape",
    ],
)
def test_multihead_attention_errors_match_torch(case):
    def run(lib):
        if case == "embed":
            return lib.nn.MultiheadAttention(0, 2)
        if case == "heads":
            return lib.nn.MultiheadAttention(8, 0)
        if case == "divisible":
            return lib.nn.MultiheadAttention(8, 3)
        m = lib.nn.MultiheadAttention(8, 2)
        x = lib.zeros(4, 3, 8)
        if case == "query dim":
            return m(x[None], x[None], x[None])
        if case == "mask dim":
            return m(x, x, x, attn_mask=lib.zeros(1, 1, 4, 4))
        if case == "mask 2d shape":
            return m(x, x, x, attn_mask=lib.zeros(4, 5))
        if case == "mask 3d shape":
            return m(x, x, x, attn_mask=lib.zeros(5, 4, 4))
        if case == "kpm shape":
            return m(x, x, x, key_padding_mask=lib.zeros(2, 4, dtype=lib.bool))
        if case == "causal hint":
            return m(x, x, x, is_causal=True)
        if case == "mask dtype":
            return m(x, x, x, attn_mask=lib.zeros(4, 4, dtype=lib.int64))
        return m(x, x[:2], x)

    with pytest.raises(Exception) as te:
        run(torch)
    with pytest.raises(Exception) as ee:
        run(ember)
    assert type(ee.value) is type(te.value), (ee.value, te.value)
    if case not in ("mask 2d shape", "mask 3d shape", "kv shape"):  # torch prints torch.Size
        assert str(ee.value) == str(te.value)


def test_mismatched_mask_types_warn_as_torch():
    m = ember.nn.MultiheadAttention(8, 2)
    x = ember.zeros(4, 3, 8)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask"):
        m(
            x,
            x,
            x,
            key_padding_mask=ember.zeros(3, 4, dtype=ember.bool),
            attn_mask=ember.zeros(4, 4),
        )
