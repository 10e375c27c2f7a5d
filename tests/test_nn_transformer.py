"""Transformer, TransformerEncoder/Decoder and their layers: parity with torch in float64
(weights through state_dict, outputs, input and parameter gradients over masks, layouts,
norm_first, activations), the causal mask helper and its detection, repr, meta and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
if torch is not None:
    # tiny tensors: torch's intra-op threads only spin against each other on a shared machine
    # (its backward took 0.2 s a call with 2 threads here)
    torch.set_num_threads(1)
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

TOL = 1e-9
D, H, FF = 8, 2, 16


def _np(t):
    return None if t is None else t.detach().numpy()


def _close(a, b, what=""):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, (what, a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=TOL, atol=TOL, err_msg=what)


def _load(e, t):
    sd = t.state_dict()
    assert list(e.state_dict()) == list(sd)
    e.load_state_dict({k: ember.tensor(v.detach().numpy().copy()) for k, v in sd.items()})


def _check_grads(e, t, pairs, what):
    for (n1, pt), (n2, pe) in zip(t.named_parameters(), e.named_parameters()):
        assert n1 == n2
        _close(pe.grad, pt.grad, f"{what} grad {n1}")
    for a, b, n in pairs:
        _close(a.grad, b.grad, f"{what} grad {n}")


def _act(name, lib):
    if name == "callable":  # any function of a tensor
        return lambda x: x.tanh() * 2
    return name


ACTS = ["relu", "gelu", "callable"]


def _needs_gelu(act):
    if act == "gelu" and not hasattr(ember.nn.functional, "gelu"):
        pytest.skip("F.gelu is not written yet (activations family)")


@needs_torch
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("act", ACTS)
def test_encoder_layer_matches_torch(norm_first, batch_first, act):
    _needs_gelu(act)
    rng = np.random.default_rng(0)
    kw = dict(dim_feedforward=FF, dropout=0.0, norm_first=norm_first, batch_first=batch_first)
    t = torch.nn.TransformerEncoderLayer(
        D, H, activation=_act(act, torch), dtype=torch.float64, **kw
    )
    e = ember.nn.TransformerEncoderLayer(
        D, H, activation=_act(act, ember), dtype=ember.float64, **kw
    )
    _load(e, t)
    S, N = 5, 3
    x = rng.standard_normal((N, S, D) if batch_first else (S, N, D))
    causal = np.triu(np.full((S, S), -np.inf), 1)
    for mask, kpm, is_causal in (
        (None, None, False),
        (causal, None, True),
        (causal, None, False),
        (rng.random((S, S)) > 0.8, None, False),
        (None, rng.random((N, S)) > 0.7, False),
        (causal, np.where(rng.random((N, S)) > 0.7, -np.inf, 0.0), True),
    ):
        tx = torch.tensor(x, requires_grad=True)
        ex = ember.tensor(x, requires_grad=True)

        def f(a, lib):
            return None if a is None else lib.tensor(a)

        to = t(tx, src_mask=f(mask, torch), src_key_padding_mask=f(kpm, torch), is_causal=is_causal)
        eo = e(ex, src_mask=f(mask, ember), src_key_padding_mask=f(kpm, ember), is_causal=is_causal)
        what = f"mask={mask is not None} kpm={kpm is not None} causal={is_causal}"
        _close(eo, to, what)
        g = rng.standard_normal(tuple(to.shape))
        to.backward(torch.tensor(g))
        eo.backward(ember.tensor(g))
        _check_grads(e, t, [(ex, tx, "src")], what)
        t.zero_grad()
        e.zero_grad()


@needs_torch
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_decoder_layer_matches_torch(norm_first, batch_first):
    rng = np.random.default_rng(1)
    kw = dict(dim_feedforward=FF, dropout=0.0, norm_first=norm_first, batch_first=batch_first)
    t = torch.nn.TransformerDecoderLayer(D, H, dtype=torch.float64, **kw)
    e = ember.nn.TransformerDecoderLayer(D, H, dtype=ember.float64, **kw)
    _load(e, t)
    T, S, N = 4, 6, 2
    shp = (lambda n: (N, n, D)) if batch_first else (lambda n: (n, N, D))
    tgt, mem = rng.standard_normal(shp(T)), rng.standard_normal(shp(S))
    causal = np.triu(np.full((T, T), -np.inf), 1)
    for masks in (
        {},
        {"tgt_mask": causal, "tgt_is_causal": True},
        {"tgt_mask": causal, "memory_mask": rng.random((T, S)) > 0.8},
        {
            "tgt_key_padding_mask": rng.random((N, T)) > 0.7,
            "memory_key_padding_mask": rng.random((N, S)) > 0.7,
        },
    ):
        tt, tm = torch.tensor(tgt, requires_grad=True), torch.tensor(mem, requires_grad=True)
        et, em = ember.tensor(tgt, requires_grad=True), ember.tensor(mem, requires_grad=True)
        to = t(
            tt,
            tm,
            **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in masks.items()},
        )
        eo = e(
            et,
            em,
            **{k: ember.tensor(v) if isinstance(v, np.ndarray) else v for k, v in masks.items()},
        )
        what = str(sorted(masks))
        _close(eo, to, what)
        g = rng.standard_normal(tuple(to.shape))
        to.backward(torch.tensor(g))
        eo.backward(ember.tensor(g))
        _check_grads(e, t, [(et, tt, "tgt"), (em, tm, "memory")], what)
        t.zero_grad()
        e.zero_grad()


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_matches_torch(batch_first, norm_first):
    rng = np.random.default_rng(2)
    kw = dict(
        d_model=D,
        nhead=H,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=FF,
        dropout=0.0,
        batch_first=batch_first,
        norm_first=norm_first,
    )
    with warnings.catch_warnings():  # torch's note that its nested-tensor path is off
        warnings.simplefilter("ignore")
        t = torch.nn.Transformer(dtype=torch.float64, **kw)
    e = ember.nn.Transformer(dtype=ember.float64, **kw)
    _load(e, t)
    S, T, N = 5, 4, 2
    shp = (lambda n: (N, n, D)) if batch_first else (lambda n: (n, N, D))
    src, tgt = rng.standard_normal(shp(S)), rng.standard_normal(shp(T))
    tmask = ember.nn.Transformer.generate_square_subsequent_mask(T, dtype=ember.float64)
    ts, tt = torch.tensor(src, requires_grad=True), torch.tensor(tgt, requires_grad=True)
    es, et = ember.tensor(src, requires_grad=True), ember.tensor(tgt, requires_grad=True)
    skpm = rng.random((N, S)) > 0.7
    to = t(
        ts,
        tt,
        tgt_mask=torch.tensor(_np(tmask)),
        src_key_padding_mask=torch.tensor(skpm),
        memory_key_padding_mask=torch.tensor(skpm),
    )
    eo = e(
        es,
        et,
        tgt_mask=tmask,
        src_key_padding_mask=ember.tensor(skpm),
        memory_key_padding_mask=ember.tensor(skpm),
    )
    _close(eo, to, "output")
    g = rng.standard_normal(tuple(to.shape))
    to.backward(torch.tensor(g))
    eo.backward(ember.tensor(g))
    _check_grads(e, t, [(es, ts, "src"), (et, tt, "tgt")], "transformer")


@needs_torch
def test_encoder_stack_with_norm_and_unbatched_input():
    rng = np.random.default_rng(3)
    tl = torch.nn.TransformerEncoderLayer(D, H, FF, 0.0, dtype=torch.float64)
    el = ember.nn.TransformerEncoderLayer(D, H, FF, 0.0, dtype=ember.float64)
    t = torch.nn.TransformerEncoder(
        tl, 3, torch.nn.LayerNorm(D, dtype=torch.float64), enable_nested_tensor=False
    )
    e = ember.nn.TransformerEncoder(
        el, 3, ember.nn.LayerNorm(D, dtype=ember.float64), enable_nested_tensor=False
    )
    assert len(e.layers) == 3 and e.layers[0] is not e.layers[1]
    _load(e, t)
    x = rng.standard_normal((5, D))  # unbatched (S, E)
    mask = np.triu(np.full((5, 5), -np.inf), 1)
    for m in (None, mask):
        to = t(torch.tensor(x), mask=None if m is None else torch.tensor(m))
        eo = e(ember.tensor(x), mask=None if m is None else ember.tensor(m))
        _close(eo, to)
    dl = torch.nn.TransformerDecoderLayer(D, H, FF, 0.0, dtype=torch.float64)
    t = torch.nn.TransformerDecoder(dl, 2)
    e = ember.nn.TransformerDecoder(
        ember.nn.TransformerDecoderLayer(D, H, FF, 0.0, dtype=ember.float64), 2
    )
    _load(e, t)
    y = rng.standard_normal((4, D))
    _close(e(ember.tensor(y), ember.tensor(x)), t(torch.tensor(y), torch.tensor(x)))


class _Doubler(ember.nn.Module):
    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        return src * 2


def test_custom_encoder_and_decoder():
    enc = _Doubler()
    dec = ember.nn.TransformerDecoder(ember.nn.TransformerDecoderLayer(D, H, FF, 0.0), 1)
    m = ember.nn.Transformer(D, H, custom_encoder=enc, custom_decoder=dec)
    assert m.encoder is enc and m.decoder is dec
    src, tgt = ember.randn(5, 2, D), ember.randn(3, 2, D)
    np.testing.assert_allclose(_np(m(src, tgt)), _np(dec(tgt, src * 2)), rtol=1e-6)


@needs_torch
def test_generate_square_subsequent_mask_and_detection():
    from ember.nn.modules.transformer import _detect_is_causal_mask

    for n in (1, 4):
        a = ember.nn.Transformer.generate_square_subsequent_mask(n)
        b = torch.nn.Transformer.generate_square_subsequent_mask(n)
        assert a.dtype == ember.float32
        np.testing.assert_array_equal(_np(a), b.numpy())
    a = ember.nn.Transformer.generate_square_subsequent_mask(3, dtype=ember.float64)
    assert a.dtype == ember.float64 and float(a[0, 1]) == -math.inf and float(a[1, 0]) == 0
    assert _detect_is_causal_mask(a) is True
    assert _detect_is_causal_mask(a, is_causal=False) is False
    assert _detect_is_causal_mask(a, size=4) is False
    assert _detect_is_causal_mask(ember.zeros(3, 3)) is False
    assert _detect_is_causal_mask(None, is_causal=True) is True


@needs_torch
def test_repr_constants_and_state_dict_keys():
    for name, args in (
        ("TransformerEncoderLayer", (D, H, FF)),
        ("TransformerDecoderLayer", (D, H, FF)),
    ):
        t, e = getattr(torch.nn, name)(*args), getattr(ember.nn, name)(*args)
        assert repr(e) == repr(t)
        assert list(e.state_dict()) == list(t.state_dict())
        assert type(e).__constants__ == ["norm_first"]
    with warnings.catch_warnings():  # torch's note that its nested-tensor path is off
        warnings.simplefilter("ignore")
        t = torch.nn.Transformer(D, H, 1, 2, FF, bias=False)
    e = ember.nn.Transformer(D, H, 1, 2, FF, bias=False)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert ember.nn.TransformerEncoder.__constants__ == ["norm"]
    assert e.d_model == D and e.nhead == H and e.batch_first is False
    assert e.encoder.enable_nested_tensor is True and e.encoder.mask_check is True
    layer = ember.nn.TransformerEncoderLayer(D, H, FF, activation="relu")
    assert layer.activation is ember.nn.functional.relu and layer.activation_relu_or_gelu == 1


def test_transformer_init_is_xavier_and_meta_allocates_nothing():
    ember.manual_seed(0)
    m = ember.nn.Transformer(64, 4, 1, 1, 256)
    w = _np(m.encoder.layers[0].linear1.weight)
    bound = math.sqrt(6 / (64 + 256))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert float(m.encoder.layers[0].self_attn.in_proj_bias.abs().sum()) == 0
    big = ember.nn.Transformer(1024, 8, 2, 2, 4096, device="meta")
    assert all(p.is_meta for p in big.parameters())
    out = big(ember.empty(7, 2, 1024, device="meta"), ember.empty(5, 2, 1024, device="meta"))
    assert out.is_meta and out.shape == (5, 2, 1024)


def test_dropout_in_training_and_eval():
    layer = ember.nn.TransformerEncoderLayer(D, H, FF, dropout=0.5, dtype=ember.float64)
    x = ember.randn(5, 2, D, dtype=ember.float64)
    layer.eval()
    np.testing.assert_array_equal(_np(layer(x)), _np(layer(x)))
    layer.train()
    assert not np.allclose(_np(layer(x)), _np(layer(x)))


@needs_torch
@pytest.mark.parametrize("case", ["activation", "batch", "features"])
def test_errors_match_torch(case):
    def run(lib):
        if case == "activation":
            return lib.nn.TransformerEncoderLayer(D, H, activation="tanh")
        with warnings.catch_warnings():  # torch's note that its nested-tensor path is off
            warnings.simplefilter("ignore")
            m = lib.nn.Transformer(D, H, 1, 1, FF)
        if case == "batch":
            return m(lib.zeros(5, 2, D), lib.zeros(4, 3, D))
        return m(lib.zeros(5, 2, D), lib.zeros(4, 2, D + 1))

    with pytest.raises(Exception) as te:
        run(torch)
    with pytest.raises(Exception) as ee:
        run(ember)
    assert type(ee.value) is type(te.value)
    assert str(ee.value) == str(te.value)


@needs_torch
@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype stage")
def test_encoder_inference_zeroes_padded_positions_as_torchs_nested_path():
    """torch runs an eval-mode, no-grad, right-padded batch_first encoder as nested tensors and
    pads the result back with zeros (before ``norm``); every other call takes the regular path."""
    rng = np.random.default_rng(5)

    def build(lib, batch_first=True, norm_first=False, nhead=H, mask_check=True):
        layer = lib.nn.TransformerEncoderLayer(
            D, nhead, FF, 0.0, batch_first=batch_first, norm_first=norm_first, dtype=lib.float64
        )
        with warnings.catch_warnings():  # torch's note when the layer rules the path out
            warnings.simplefilter("ignore")
            norm = lib.nn.LayerNorm(D, dtype=lib.float64)
            return lib.nn.TransformerEncoder(layer, 2, norm, mask_check=mask_check)

    for kw in ({}, {"batch_first": False}, {"norm_first": True}, {"nhead": 1}):
        assert build(ember, **kw).use_nested_tensor == build(torch, **kw).use_nested_tensor, kw
    assert build(ember).use_nested_tensor is True

    e, t = build(ember), build(torch)
    _load(e, t)
    with torch.no_grad():
        t.norm.bias.uniform_()  # the padded rows come out as norm(0) = bias
    e.norm.bias.data.copy_(ember.tensor(t.norm.bias.detach().numpy()))
    x = rng.standard_normal((3, 6, D))
    right = np.zeros((3, 6), bool)
    right[0, 4:], right[2, 1:] = True, True
    left = right[:, ::-1].copy()
    causal = np.triu(np.full((6, 6), -np.inf), 1)

    def both(train, grad, pad, mask=None, pad_dtype=None):
        outs = []
        for lib, m in ((ember, e), (torch, t)):
            m.train(train)
            p = lib.tensor(pad)
            if pad_dtype == "float":
                p = lib.zeros(pad.shape, dtype=lib.float64).masked_fill(p, -math.inf)
            with lib.set_grad_enabled(grad):
                outs.append(m(lib.tensor(x), None if mask is None else lib.tensor(mask), p))
        _close(*outs, f"train={train} grad={grad}")
        return _np(outs[0])

    bias = _np(e.norm.bias)
    out = both(False, False, right)
    np.testing.assert_array_equal(out[right], np.broadcast_to(bias, out[right].shape))
    out = both(False, False, right, pad_dtype="float")
    np.testing.assert_array_equal(out[right], np.broadcast_to(bias, out[right].shape))
    # the regular path: training, grad through the weights, left padding, an attention mask
    for out in (
        both(True, False, right),
        both(False, True, right),
        both(False, False, left),
        both(False, False, right, causal, pad_dtype="float"),
    ):
        assert not np.allclose(out[0, 5], bias)
