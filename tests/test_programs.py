"""Whole programs written for PyTorch (tests/programs/sources.py) run on ember unchanged but for
``import torch`` resolving to ember, and give torch's numbers: each model is built in both
frameworks from the same source text, torch's weights are copied into ember's model through
``state_dict`` (which proves the keys match), and outputs, losses, every parameter gradient and a
few SGD steps are compared in float64.

The harness (not the programs) turns dropout off, since the two frameworks draw different random
masks, and hands the VAE one fixed noise tensor for ``torch.randn_like``."""

from __future__ import annotations

import builtins
import linecache
import types

import numpy as np
import pytest

import ember
from tests.programs import sources

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
pytestmark = pytest.mark.skipif(
    torch is None, reason="torch is the reference for these tests (pip install torch)"
)

RTOL, ATOL = 1e-8, 1e-10


# ---- the harness ------------------------------------------------------------------------------
class _Lib(types.ModuleType):
    """``lib`` with some attributes replaced (the VAE's noise)."""

    def __init__(self, lib, overrides):
        super().__init__(lib.__name__)
        self._lib, self._overrides = lib, overrides

    def __getattr__(self, name):
        if name in self._overrides:
            return self._overrides[name]
        return getattr(self._lib, name)


def load(source: str, lib, **overrides) -> dict:
    """Execute a program's text with ``import torch`` and every ``torch.*`` bound to ``lib``."""
    top = _Lib(lib, overrides) if overrides else lib

    def resolve(name):  # "torch.utils.data" -> lib.utils.data
        module = top
        for part in name.split(".")[1:]:
            module = getattr(module, part)
        return module

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "torch" or name.startswith("torch."):
            return resolve(name) if fromlist else top
        return builtins.__import__(name, globals, locals, fromlist, level)

    ns = {
        "__name__": f"program_{lib.__name__}",
        "__builtins__": {**builtins.__dict__, "__import__": _import},
    }
    filename = f"<program on {lib.__name__}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    # dont_inherit: the program gets no __future__ flags from this file (annotations stay real)
    exec(compile(source, filename, "exec", dont_inherit=True), ns)
    return ns


def no_dropout(model):
    for m in model.modules():
        if type(m).__name__.startswith(("Dropout", "AlphaDropout")):
            m.p = 0.0
        if type(m).__name__ == "MultiheadAttention":
            m.dropout = 0.0
    return model


def copy_weights(src, dst):
    """torch model -> ember model, through state_dict and NumPy."""
    dst.load_state_dict(
        {k: ember.from_numpy(v.detach().numpy().copy()) for k, v in src.state_dict().items()}
    )


def e(a):
    return ember.from_numpy(np.array(a))


def t(a):
    return torch.from_numpy(np.array(a))


def close(ours, theirs, what, rtol=RTOL, atol=ATOL):
    if isinstance(theirs, (tuple, list)):
        for i, (o, th) in enumerate(zip(ours, theirs, strict=True)):
            close(o, th, f"{what}[{i}]", rtol, atol)
        return
    if isinstance(theirs, (int, float)):
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=what)
        return
    assert tuple(ours.shape) == tuple(theirs.shape), (what, ours.shape, theirs.shape)
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol, err_msg=what
    )


def close_grads(me, mt, rtol=RTOL, atol=ATOL):
    ours = dict(me.named_parameters())
    theirs = dict(mt.named_parameters())
    assert list(ours) == list(theirs)
    for name, p in theirs.items():
        if p.grad is None:
            assert ours[name].grad is None, name
        else:
            close(ours[name].grad, p.grad, f"grad of {name}", rtol, atol)


def close_state(me, mt, rtol=RTOL, atol=ATOL):
    ours, theirs = me.state_dict(), mt.state_dict()
    assert list(ours) == list(theirs)
    for k, v in theirs.items():
        close(ours[k], v, f"state {k}", rtol, atol)


def sgd(lib, model, lr):
    with lib.no_grad():
        for p in model.parameters():
            if p.grad is not None:
                p.sub_(lr * p.grad)
            p.grad = None


def pair(source, factory="make_model", *args, **overrides):
    """Both frameworks' namespaces and models, in float64, ember's with torch's weights."""
    nt = load(source, torch, **overrides.get("torch", {}))
    ne = load(source, ember, **overrides.get("ember", {}))
    torch.manual_seed(0)
    mt = nt[factory](*args)
    me = ne[factory](*args)
    models = (me, mt) if not isinstance(mt, tuple) else tuple(zip(me, mt))
    for a, b in [models] if not isinstance(mt, tuple) else models:
        no_dropout(b.double())
        no_dropout(a.double())
        copy_weights(b, a)
    return ne, nt, models


rng = np.random.default_rng(0)


# ---- the programs -----------------------------------------------------------------------------
def test_mnist_cnn():
    ne, nt, (me, mt) = pair(sources.MNIST_CNN)
    x = rng.standard_normal((4, 1, 28, 28))
    y = rng.integers(0, 10, 4)
    for step in range(3):
        le, lt = ne["loss_fn"](me, e(x), e(y)), nt["loss_fn"](mt, t(x), t(y))
        close(le, lt, f"loss, step {step}")
        le.backward()
        lt.backward()
        close_grads(me, mt)
        sgd(ember, me, 0.1)
        sgd(torch, mt, 0.1)
    close_state(me, mt)
    assert ne["accuracy"](me, e(x), e(y)) == pytest.approx(nt["accuracy"](mt, t(x), t(y)))
    assert me.training


@pytest.mark.parametrize("rnn_type", ["LSTM", "GRU", "RNN_TANH"])
def test_word_language_model(rnn_type):
    ne, nt, (me, mt) = pair(sources.WORD_LSTM, "make_model", rnn_type)
    assert me.decoder.weight is me.encoder.weight  # tied
    corpus = rng.integers(0, 50, 200)
    bsz, bptt = 4, 7
    data_e, data_t = ne["batchify"](e(corpus), bsz), nt["batchify"](t(corpus), bsz)
    close(data_e, data_t, "batchify")
    he, ht = me.init_hidden(bsz), mt.init_hidden(bsz)
    for i in range(0, 3 * bptt, bptt):
        xe, ye = ne["get_batch"](data_e, i, bptt)
        xt, yt = nt["get_batch"](data_t, i, bptt)
        he, ht = ne["repackage_hidden"](he), nt["repackage_hidden"](ht)
        me.zero_grad()
        mt.zero_grad()
        oe, he = me(xe, he)
        ot, ht = mt(xt, ht)
        close(oe, ot, "log-probabilities")
        close(he, ht, "hidden")
        le, lt = ne["criterion"](oe, ye), nt["criterion"](ot, yt)
        close(le, lt, "loss")
        le.backward()
        lt.backward()
        close_grads(me, mt)
        sgd(ember, me, 0.5)
        sgd(torch, mt, 0.5)
    close_state(me, mt)


def test_dcgan():
    ne, nt, ((ge, gt), (de, dt)) = pair(sources.DCGAN, "make_models")
    real = np.tanh(rng.standard_normal((4, 3, 64, 64)))
    noise = rng.standard_normal((4, ne["nz"], 1, 1))
    for _step in range(2):
        errD_e, fake_e, *stats_e = ne["d_step"](ge, de, e(real), e(noise))
        errD_t, fake_t, *stats_t = nt["d_step"](gt, dt, t(real), t(noise))
        close(fake_e, fake_t, "G(z)")
        close(errD_e, errD_t, "D loss")
        close(stats_e, stats_t, "D(x), D(G(z))")
        close_grads(de, dt)
        sgd(ember, de, 0.01)
        sgd(torch, dt, 0.01)
        # (2) update G: maximize log(D(G(z)))
        ge.zero_grad()
        gt.zero_grad()
        errG_e, errG_t = ne["g_loss"](de, fake_e), nt["g_loss"](dt, fake_t)
        close(errG_e, errG_t, "G loss")
        errG_e.backward()
        errG_t.backward()
        close_grads(ge, gt)
        sgd(ember, ge, 0.01)
        sgd(torch, gt, 0.01)
    close_state(ge, gt)  # BatchNorm running statistics included
    close_state(de, dt)
    ge.eval()
    gt.eval()
    close(ge(e(noise)), gt(t(noise)), "G(z) in eval mode")


def test_vae():
    noise = rng.standard_normal((4, 20))
    fixed = {
        "ember": {"randn_like": lambda std: e(noise)},
        "torch": {"randn_like": lambda std: t(noise)},
    }
    ne, nt, (me, mt) = pair(sources.VAE, "make_model", **fixed)
    x = 1 / (1 + np.exp(-rng.standard_normal((4, 1, 28, 28))))
    for step in range(3):
        le, lt = ne["loss_fn"](me, e(x)), nt["loss_fn"](mt, t(x))
        close(le, lt, f"loss, step {step}")
        le.backward()
        lt.backward()
        close_grads(me, mt)
        sgd(ember, me, 1e-3)
        sgd(torch, mt, 1e-3)


# torch's hint that its nested-tensor inference path is off for batch_first=False layers
@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
def test_transformer_language_model():
    ne, nt, (me, mt) = pair(sources.TRANSFORMER_LM)
    src = rng.integers(0, 50, (9, 3))  # (seq, batch), as the example's batchify
    target = rng.integers(0, 50, 27)
    crit_e, crit_t = ember.nn.NLLLoss(), torch.nn.NLLLoss()
    for _step in range(2):
        oe, ot = me(e(src)), mt(t(src))
        close(oe, ot, "log-probabilities")
        le = crit_e(oe.view(-1, 50), e(target))
        lt = crit_t(ot.view(-1, 50), t(target))
        close(le, lt, "loss")
        le.backward()
        lt.backward()
        close_grads(me, mt)
        sgd(ember, me, 0.1)
        sgd(torch, mt, 0.1)
    close(me(e(src), has_mask=False), mt(t(src), has_mask=False), "without the mask")


@pytest.mark.parametrize("flash", [True, False])
def test_nanogpt(flash):
    ne, nt, (me, mt) = pair(sources.NANOGPT, "make_model", flash)
    assert me.transformer.wte.weight is me.lm_head.weight
    assert me.get_num_params() == mt.get_num_params()
    idx = rng.integers(0, 40, (3, 16))
    targets = rng.integers(0, 40, (3, 16))
    targets[0, :4] = -1  # ignore_index
    for _step in range(2):
        (lo_e, le), (lo_t, lt) = me(e(idx), e(targets)), mt(t(idx), t(targets))
        close(lo_e, lo_t, "logits")
        close(le, lt, "loss")
        le.backward()
        lt.backward()
        close_grads(me, mt)
        sgd(ember, me, 0.1)
        sgd(torch, mt, 0.1)
    me.eval()
    mt.eval()
    ge = me.generate(e(idx[:, :4]), 5)
    gt = mt.generate(t(idx[:, :4]), 5)
    np.testing.assert_array_equal(ge.numpy(), gt.numpy())


def test_super_resolution():
    ne, nt, (me, mt) = pair(sources.SUPER_RESOLUTION)
    x = rng.standard_normal((2, 1, 8, 8))
    y = rng.standard_normal((2, 1, 24, 24))
    for _step in range(2):
        oe, ot = me(e(x)), mt(t(x))
        close(oe, ot, "upscaled")
        le, lt = ne["criterion"](oe, e(y)), nt["criterion"](ot, t(y))
        le.backward()
        lt.backward()
        close_grads(me, mt)
        sgd(ember, me, 0.01)
        sgd(torch, mt, 0.01)


def test_super_resolution_init_is_orthogonal():
    ne = load(sources.SUPER_RESOLUTION, ember)
    m = ne["make_model"]()
    w = m.conv4.weight.detach().numpy().reshape(9, -1)
    np.testing.assert_allclose(w @ w.T, np.eye(9), atol=1e-5)


def test_fast_neural_style():
    ne, nt, (me, mt) = pair(sources.STYLE_TRANSFER)
    x = rng.standard_normal((2, 3, 32, 32))
    for _step in range(2):
        ye, yt = me(e(x)), mt(t(x))
        close(ye, yt, "stylized", rtol=1e-7, atol=1e-9)
        ge, gt = ne["gram_matrix"](ye), nt["gram_matrix"](yt)
        le = ne["mse_loss"](ye, e(x)) + ne["mse_loss"](ge, ne["gram_matrix"](e(x)))
        lt = nt["mse_loss"](yt, t(x)) + nt["mse_loss"](gt, nt["gram_matrix"](t(x)))
        close(le, lt, "content + style loss")
        le.backward()
        lt.backward()
        close_grads(me, mt, rtol=1e-7, atol=1e-9)
        sgd(ember, me, 0.01)
        sgd(torch, mt, 0.01)
