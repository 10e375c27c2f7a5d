"""Whole programs that use the tensor library (tests/programs/tensorlib_sources.py) run on ember
unchanged but for ``import torch`` resolving to ember, and give torch's numbers: sparse graph
convolutions, a Fourier neural operator with complex weights, a script's device/backend preamble,
a bfloat16 GPT checkpoint and autocast training, an STFT audio classifier, Gaussian-process
regression, orthogonality penalties, Glow's invertible convolutions, count likelihoods with
lgamma/digamma and torch.distributions, and sparse embedding gradients with SparseAdam.

The harness is tests/test_programs.py's: the same source text runs against both frameworks,
torch's weights are copied into ember's model through ``state_dict`` and losses, gradients and a
few optimizer steps are compared, in float64 where the program allows."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from tests.programs import tensorlib_sources as src
from tests.test_programs import close, close_grads, close_state, copy_weights, e, load, pair, t

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
pytestmark = [
    pytest.mark.skipif(torch is None, reason="torch is the reference (pip install torch)"),
    # torch's note, once per process, that it does not check sparse invariants by default
    pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled"),
    pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype stage"),
]

rng = np.random.default_rng(12)


@pytest.fixture(autouse=True)
def _same_data_whatever_runs_first():
    global rng
    rng = np.random.default_rng(12)


def steps(ne, nt, me, mt, n, step, *data, what="loss", rtol=1e-8, atol=1e-10):
    """``n`` calls of the program's own training step on both; losses and gradients compared."""
    oe, ot = ne["make_optimizer"](me), nt["make_optimizer"](mt)
    for i in range(n):
        le = ne[step](me, oe, *(e(d) for d in data))
        lt = nt[step](mt, ot, *(t(d) for d in data))
        close(le, lt, f"{what}, step {i}", rtol, atol)
        close_grads(me, mt, rtol, atol)
    close_state(me, mt, rtol, atol)


def pair_own_dtype(source, factory="make_model", *args):
    """``pair`` for a program that must keep its own (float32) dtype."""
    nt, ne = load(source, torch), load(source, ember)
    torch.manual_seed(0)
    mt, me = nt[factory](*args), ne[factory](*args)
    if not isinstance(mt, tuple):
        copy_weights(mt, me)
        return ne, nt, (me, mt)
    for a, b in zip(me, mt, strict=True):
        copy_weights(b, a)
    return ne, nt, tuple(zip(me, mt))


# ---- 1. GCN --------------------------------------------------------------------------------------
def graph(n=10, m=14, nfeat=12):
    edge_index = rng.integers(0, n, (2, m))
    features = rng.standard_normal((n, nfeat))
    labels = rng.integers(0, 3, n)
    return edge_index, features, labels


def test_gcn_sparse_adjacency_adam():
    ne, nt, (me, mt) = pair(src.GCN)
    me.dropout = mt.dropout = 0.0  # pygcn's F.dropout(x, self.dropout): off, as the harness does
    edge_index, features, labels = graph()
    adj_e = ne["normalize_adj"](e(edge_index), 10, ember.float64)
    adj_t = nt["normalize_adj"](t(edge_index), 10, torch.float64)
    assert adj_e.is_sparse and adj_e.is_coalesced()
    close(adj_e.to_dense(), adj_t.to_dense(), "normalized adjacency")
    close(adj_e.indices(), adj_t.indices(), "indices")
    idx = np.arange(7)
    oe, ot = ne["make_optimizer"](me), nt["make_optimizer"](mt)
    for step in range(3):
        le, acc_e = ne["train"](me, oe, e(features), adj_e, e(labels), e(idx))
        lt, acc_t = nt["train"](mt, ot, t(features), adj_t, t(labels), t(idx))
        close(le, lt, f"loss, step {step}")
        close(acc_e, acc_t, "accuracy")
        close_grads(me, mt)
    close_state(me, mt)
    # the same layer on a dense, row-normalized adjacency turned sparse with .to_sparse()
    dense = np.zeros((10, 10))
    dense[edge_index[0], edge_index[1]] = 1.0
    adj_e, adj_t = ne["normalize_dense"](e(dense)), nt["normalize_dense"](t(dense))
    assert adj_e.layout == ember.sparse_coo
    close(adj_e.to_dense(), adj_t.to_dense(), "row-normalized adjacency")
    le, _ = ne["train"](me, oe, e(features), adj_e, e(labels), e(idx))
    lt, _ = nt["train"](mt, ot, t(features), adj_t, t(labels), t(idx))
    close(le, lt, "loss, row-normalized")
    close_grads(me, mt)
    # pygcn's preprocessing: scipy.sparse, then indices and values through torch.from_numpy
    edges = np.ascontiguousarray(edge_index.T)
    adj_e, adj_t = ne["load_adjacency"](edges, 10), nt["load_adjacency"](edges, 10)
    assert not adj_e.is_coalesced() and adj_e.dtype == ember.float64
    close(adj_e.to_dense(), adj_t.to_dense(), "pygcn adjacency")
    le, _ = ne["train"](me, oe, e(features), adj_e, e(labels), e(idx))
    lt, _ = nt["train"](mt, ot, t(features), adj_t, t(labels), t(idx))
    close(le, lt, "loss, pygcn adjacency")
    close_grads(me, mt)
    close_state(me, mt)


def test_sparse_graph_attention():
    ne, nt, (me, mt) = pair(src.GCN, "make_gat")
    edge_index, features, labels = graph()
    adj_e = ne["normalize_adj"](e(edge_index), 10, ember.float64)
    adj_t = nt["normalize_adj"](t(edge_index), 10, torch.float64)
    oe = ember.optim.Adam(me.parameters(), lr=0.01)
    ot = torch.optim.Adam(mt.parameters(), lr=0.01)
    for step in range(2):
        oute, outt = (
            ne["gat_forward"](me, e(features), adj_e),
            nt["gat_forward"](mt, t(features), adj_t),
        )
        close(oute, outt, f"log-probabilities, step {step}")
        le = ember.nn.functional.nll_loss(oute, e(labels))
        lt = torch.nn.functional.nll_loss(outt, t(labels))
        le.backward()
        lt.backward()
        close_grads(me, mt)
        oe.step()
        ot.step()
        oe.zero_grad()
        ot.zero_grad()
    close_state(me, mt)


# ---- 2. Fourier neural operator ------------------------------------------------------------------
def test_fno2d_complex_weights_adam():
    # float32, the program's own dtype: its cfloat spectra meet cfloat weights in einsum, which
    # (in torch as in ember) refuses a complex128 operand next to a complex64 one
    ne, nt, (me, mt) = pair_own_dtype(src.FNO2D)
    assert me.conv0.weights1.dtype == ember.complex64
    assert me.fc0.weight.dtype == ember.float32
    x = rng.standard_normal((2, 12, 12, 1)).astype(np.float32)
    y = rng.standard_normal((2, 12, 12)).astype(np.float32)
    steps(ne, nt, me, mt, 3, "train_step", x, y, what="relative L2", rtol=1e-4, atol=1e-5)


def test_fno1d_real_weights_viewed_as_complex():
    ne, nt, (me, mt) = pair(src.FNO2D, "make_model_1d")
    x = rng.standard_normal((3, 16, 1))
    y = rng.standard_normal((3, 16))
    oe = ember.optim.Adam(me.parameters(), lr=1e-2)
    ot = torch.optim.Adam(mt.parameters(), lr=1e-2)
    for step in range(3):
        le = ne["myloss"](me(e(x)).squeeze(-1), e(y))
        lt = nt["myloss"](mt(t(x)).squeeze(-1), t(y))
        close(le, lt, f"relative L2, step {step}")
        for loss, opt in ((le, oe), (lt, ot)):
            opt.zero_grad()
            loss.backward()
            opt.step()
        close_grads(me, mt)
    close_state(me, mt)


# ---- 3. a script's preamble ----------------------------------------------------------------------
@pytest.fixture
def restore_globals():
    """Scripts set process-wide state (threads, flags, default dtype); put it back afterwards."""
    saved = [
        (lib, lib.get_default_dtype(), lib.get_num_threads(), lib.get_float32_matmul_precision(),
         lib.are_deterministic_algorithms_enabled(), lib.backends.cudnn.benchmark,
         lib.backends.cudnn.deterministic, lib.backends.cuda.matmul.allow_tf32,
         lib.backends.cudnn.allow_tf32)
        for lib in (torch, ember)
    ]  # fmt: skip
    yield
    for lib, dtype, threads, precision, deterministic, bench, cudnn_det, tf32, cudnn_tf32 in saved:
        lib.set_default_dtype(dtype)
        lib.set_num_threads(threads)
        lib.set_float32_matmul_precision(precision)
        lib.use_deterministic_algorithms(deterministic)
        lib.backends.cudnn.benchmark = bench
        lib.backends.cudnn.deterministic = cudnn_det
        lib.backends.cuda.matmul.allow_tf32 = tf32
        lib.backends.cudnn.allow_tf32 = cudnn_tf32


def test_script_preamble(restore_globals, capsys):
    ne, nt, (me, mt) = pair(src.PREAMBLE)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == out[1] == "Using cpu device, 1 thread(s), 0 GPUs"
    assert ne["device"] == ember.device("cpu") and str(ne["device"]) == "cpu"
    assert ember.backends.cudnn.benchmark is True
    assert ember.backends.cuda.matmul.allow_tf32 is True
    assert ember.get_float32_matmul_precision() == "high"
    assert ember.are_deterministic_algorithms_enabled()
    assert ember.get_num_threads() == 1
    assert next(me.parameters()).device == ember.device("cpu")
    assert ne["dtype"] == "float32" and not ne["scaler"].is_enabled()
    X = rng.standard_normal((20, 8, 8))
    y = rng.integers(0, 10, 20)
    le = ne["train"](ne["make_loader"](e(X), e(y)), me, ne["loss_fn"], ne["make_optimizer"](me))
    lt = nt["train"](nt["make_loader"](t(X), t(y)), mt, nt["loss_fn"], nt["make_optimizer"](mt))
    assert len(le) == 3
    close(le, lt, "losses")
    close_state(me, mt)
    te = ne["test"](ne["make_loader"](e(X), e(y)), me, ne["loss_fn"])
    tt = nt["test"](nt["make_loader"](t(X), t(y)), mt, nt["loss_fn"])
    close(te, tt, "test loss, accuracy")


# ---- 4. bfloat16 GPT -----------------------------------------------------------------------------
def test_bfloat16_checkpoint_generation(tmp_path):
    nt, ne = load(src.BF16_GPT, torch), load(src.BF16_GPT, ember)
    torch.manual_seed(0)
    mt = nt["make_model"]()
    path = tmp_path / "ckpt.pt"
    nt["save_checkpoint"](mt, path)  # torch writes bfloat16 tensors
    mt.eval()
    me = ne["load_checkpoint"](path)
    assert me.transformer.wte.weight is me.lm_head.weight
    for (k, pe), pt in zip(me.state_dict().items(), mt.state_dict().values(), strict=True):
        assert pe.dtype == ember.bfloat16, k
        np.testing.assert_array_equal(pe.float().numpy(), pt.float().numpy(), err_msg=k)
    idx = rng.integers(0, 48, (3, 10))
    lo_e, lo_t = ne["bf16_logits"](me, e(idx)), nt["bf16_logits"](mt, t(idx))
    assert lo_e.dtype == ember.bfloat16
    # two bfloat16 ulps (2^-8 relative each): room for a BLAS that sums in another order
    close(lo_e.float(), lo_t.float(), "bfloat16 logits", rtol=8e-3, atol=4e-3)
    ge, gt = me.generate(e(idx[:, :4]), 6), mt.generate(t(idx[:, :4]), 6)
    np.testing.assert_array_equal(ge.numpy(), gt.numpy())
    # and back: ember writes the checkpoint, torch's copy of the program reads it
    ne["save_checkpoint"](me, tmp_path / "ember.pt")
    back = nt["load_checkpoint"](tmp_path / "ember.pt")
    for k, v in mt.state_dict().items():
        assert torch.equal(back.state_dict()[k], v), k
    assert back.state_dict()["lm_head.weight"].dtype == torch.bfloat16


def test_autocast_bfloat16_training():
    nt, ne = load(src.BF16_GPT, torch), load(src.BF16_GPT, ember)
    torch.manual_seed(0)
    mt, me = nt["make_model"](), ne["make_model"]()
    copy_weights(mt, me)  # float32 weights, bfloat16 compute inside autocast
    oe, ot = ne["make_optimizer"](me), nt["make_optimizer"](mt)
    grads = {}
    for lib, model, opt in ((ember, me, oe), (torch, mt, ot)):
        # the clipped gradients each step applies, seen through the optimizer's pre-step hook
        def snapshot(opt, args, kwargs, lib=lib, model=model):
            grads[lib] = {k: p.grad.clone() for k, p in model.named_parameters()}

        opt.register_step_pre_hook(snapshot)
    X, Y = rng.integers(0, 48, (4, 16)), rng.integers(0, 48, (4, 16))
    n = me.config.n_embd
    for step in range(2):
        (lo_e, le), (lo_t, lt) = (
            ne["train_step_autocast"](me, oe, e(X), e(Y)),
            nt["train_step_autocast"](mt, ot, t(X), t(Y)),
        )
        assert lo_e.dtype == ember.bfloat16 and le.dtype == ember.float32
        close(le, lt, f"autocast loss, step {step}", rtol=5e-3, atol=0)
        # after a step, Adam has scaled bfloat16 noise in tiny gradients up to +-lr
        close(lo_e.float(), lo_t.float(), "autocast logits", rtol=8e-3, atol=4e-3 + 1e-2 * step)
        for k, gt in grads[torch].items():
            ge, gt = grads[ember][k].numpy(), gt.numpy()
            assert ge.dtype == np.float32, k
            if k.endswith("c_attn.bias"):
                # softmax is blind to the key bias (q.b_k shifts a whole row of scores): its
                # gradient is bfloat16 rounding noise in either framework
                ge, gt = np.delete(ge, np.s_[n : 2 * n]), np.delete(gt, np.s_[n : 2 * n])
            scale = np.abs(gt).max()
            np.testing.assert_allclose(ge, gt, rtol=0, atol=0.03 * scale, err_msg=k)
    assert me.lm_head.weight.dtype == ember.float32


def test_padded_transformer_classifier_inference():
    ne, nt, (me, mt) = pair(src.TRANSFORMER_CLASSIFIER)
    tokens = rng.integers(1, 40, (4, 9))
    tokens[0, 6:], tokens[2, 3:] = 0, 0  # right-padded with pad_idx 0
    labels = rng.integers(0, 3, 4)
    steps(ne, nt, me, mt, 2, "train_step", tokens, labels)
    # eval + inference_mode: torch runs the encoder as nested tensors, whose padded positions
    # come back as zeros and so weigh in the (naive) mean pooling
    close(ne["predict"](me, e(tokens)), nt["predict"](mt, t(tokens)), "logits, probs, labels")
    # in bfloat16, as a served model
    me.to(ember.bfloat16)
    mt.to(torch.bfloat16)
    lo_e, lo_t = ne["predict"](me, e(tokens))[0], nt["predict"](mt, t(tokens))[0]
    close(lo_e.float(), lo_t.float(), "bfloat16 logits", rtol=8e-3, atol=8e-3)


# ---- 5. STFT audio classifier --------------------------------------------------------------------
def test_stft_audio_classifier():
    ne, nt, (me, mt) = pair(src.AUDIO)
    tt = np.arange(800) / 8000
    wav = np.stack([np.sin(2 * np.pi * f * tt) for f in (300, 1200, 2500)])
    wav += 0.1 * rng.standard_normal(wav.shape)
    labels = np.array([0, 1, 3])
    steps(ne, nt, me, mt, 3, "train_step", wav, labels, rtol=1e-7, atol=1e-9)
    assert me.preemphasis.grad is not None  # through the STFT
    we, wt = e(wav).requires_grad_(), t(wav).requires_grad_()
    se, st = me.spectrogram(we), mt.spectrogram(wt)
    close(se, st, "log-mel spectrogram", rtol=1e-7, atol=1e-9)
    se.sum().backward()
    st.sum().backward()
    close(we.grad, wt.grad, "d log-mel / d waveform", rtol=1e-7, atol=1e-9)
    # stft -> istft with a Hann window at 1/4 hop reconstructs the signal
    back = me.resynthesize(e(wav))
    close(back, mt.resynthesize(t(wav)), "istft(stft(x))", rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(back.numpy(), wav, atol=1e-12)


# ---- 6. linear algebra ---------------------------------------------------------------------------
def test_gaussian_process_regression():
    ne, nt, (me, mt) = pair(src.GP)
    x = rng.uniform(-2, 2, (20, 2))
    y = np.sin(2 * x[:, 0]) * np.cos(x[:, 1]) + 0.1 * rng.standard_normal(20)
    close(ne["fit"](me, e(x), e(y), 6), nt["fit"](mt, t(x), t(y), 6), "negative log ML")
    close_grads(me, mt)
    close_state(me, mt)
    xs = rng.uniform(-2, 2, (7, 2))
    close(me.predict(e(x), e(y), e(xs)), mt.predict(t(x), t(y), t(xs)), "mean, variance, logdet")
    # the same likelihood through torch.distributions.MultivariateNormal
    ours, theirs = me.neg_mll_mvn(e(x), e(y)), mt.neg_mll_mvn(t(x), t(y))
    close(ours, theirs, "MultivariateNormal likelihood")
    close(ours, me.neg_mll(e(x), e(y)), "MultivariateNormal vs cholesky_solve")
    # gpytorch's jitter loop: a singular kernel (duplicated inputs, no noise) gets jitter added
    ne_chol, nt_chol = ne["psd_safe_cholesky"], nt["psd_safe_cholesky"]
    k = np.ones((4, 4))
    close(ne_chol(e(k)), nt_chol(t(k)), "jittered Cholesky factor")
    with pytest.raises(ValueError, match="not positive definite after repeatedly adding jitter"):
        ne_chol(e(-np.eye(3)))


def test_orthogonality_regularization():
    ne, nt, (me, mt) = pair(src.ORTHO)
    x, y = rng.standard_normal((16, 10)), rng.integers(0, 3, 16)
    close(ne["orthogonality_penalty"](me), nt["orthogonality_penalty"](mt), "penalty")
    oe = ember.optim.SGD(me.parameters(), lr=0.05, momentum=0.9)
    ot = torch.optim.SGD(mt.parameters(), lr=0.05, momentum=0.9)
    for step in range(3):
        le, lt = ne["train_step"](me, oe, e(x), e(y)), nt["train_step"](mt, ot, t(x), t(y))
        close(le, lt, f"loss, step {step}")
        close_grads(me, mt)
    close_state(me, mt)
    w = me.orth.weight().detach().numpy()
    np.testing.assert_allclose(w.T @ w, np.eye(16), atol=1e-12)


@pytest.mark.parametrize("conv_lu", [True, False])
def test_glow_invertible_convolutions(conv_lu):
    ne, nt, (me, mt) = pair(src.GLOW, "make_model", conv_lu)
    image = rng.uniform(-0.5, 0.5, (2, 4, 8, 8))
    oe = ember.optim.Adam(me.parameters(), lr=1e-3)
    ot = torch.optim.Adam(mt.parameters(), lr=1e-3)
    # the plain 1x1 convolution's log-determinant goes through float32 (.double() ... .float())
    tol = {"rtol": 1e-8 if conv_lu else 1e-6, "atol": 1e-10 if conv_lu else 1e-7}
    for step in range(2):
        (le, ze), (lt, zt) = ne["train_step"](me, oe, e(image)), nt["train_step"](mt, ot, t(image))
        close(le, lt, f"bits per dim, step {step}", **tol)
        close(ze, zt, "z", **tol)
        close_grads(me, mt, **tol)
    close_state(me, mt, **tol)
    with ember.no_grad():
        z, _, _ = me(e(image))
        back = me.reverse(z)
    np.testing.assert_allclose(back.numpy(), image, atol=1e-10)
    with torch.no_grad():
        close(back, mt.reverse(mt(t(image))[0]), "reverse")


# ---- 7. count likelihoods ------------------------------------------------------------------------
def test_count_regression_lgamma_digamma_distributions():
    ne, nt, (me, mt) = pair(src.COUNTS)
    x = rng.standard_normal((8, 6))
    counts = rng.poisson(3.0, (8, 5)).astype(np.float64)
    events = rng.poisson(2.0, 8).astype(np.float64)
    frac = rng.uniform(0.05, 0.95, 8)
    oe, ot = ne["make_optimizer"](me), nt["make_optimizer"](mt)
    for step in range(3):
        (le, parts_e), (lt, parts_t) = (
            ne["loss_fn"](me, e(x), e(counts), e(events), e(frac)),
            nt["loss_fn"](mt, t(x), t(counts), t(events), t(frac)),
        )
        close(le, lt, f"loss, step {step}")
        what = "nb, NegativeBinomial, poisson, poisson_nll_loss, beta, beta by hand, kl, entropy"
        close(parts_e, parts_t, what)
        np.testing.assert_allclose(parts_e[0].item(), parts_e[1].item(), rtol=1e-6)
        np.testing.assert_allclose(parts_e[4].item(), parts_e[5].item(), rtol=1e-12)
        oe.zero_grad()
        ot.zero_grad()
        le.backward()
        lt.backward()
        close_grads(me, mt)
        oe.step()
        ot.step()
    close_state(me, mt)


# ---- 8. sparse embedding gradients ---------------------------------------------------------------
def test_sparse_embeddings_sparse_adam():
    ne, nt, (me, mt) = pair(src.SPARSE_BOW)
    data = [(int(rng.integers(0, 4)), rng.integers(1, 30, int(rng.integers(2, 7))).tolist())
            for _ in range(6)]  # fmt: skip
    be, bt = ne["collate_batch"](data), nt["collate_batch"](data)
    close(be, bt, "label, text, offsets, padded")
    oe, ot = ne["make_optimizers"](me), nt["make_optimizers"](mt)
    for step in range(3):
        le, lt = ne["train_step"](me, oe, *be), nt["train_step"](mt, ot, *bt)
        close(le, lt, f"loss, step {step}")
        for name, p in mt.named_parameters():
            q = dict(me.named_parameters())[name]
            assert q.grad.is_sparse == p.grad.is_sparse, name
            close(q.grad.to_dense(), p.grad.to_dense(), f"grad of {name}")
        close_state(me, mt)
    assert ot[0].state and len(oe[0].state) == len(ot[0].state)
    re_, rt = ne["tfidf_attention"](be[1], be[2], 30), nt["tfidf_attention"](bt[1], bt[2], 30)
    close(re_[:2], rt[:2], "document lengths, total")
    assert re_[2].is_sparse
    close(re_[2].to_dense(), rt[2].to_dense(), "sparse softmax")


# ---- 9-11. autograd.grad with create_graph and L-BFGS; torch.func; scatter message passing
def test_pinn_autograd_derivatives_lbfgs(restore_globals):
    ne, nt, (me, mt) = pair(src.PINN)
    assert ember.get_default_dtype() == ember.float64  # the program's first line
    assert me.linears[0].weight.dtype == ember.float64
    x_f, t_f = rng.uniform(-1, 1, (30, 1)), rng.uniform(0, 1, (30, 1))
    x_u, t_u = rng.uniform(-1, 1, (10, 1)), np.zeros((10, 1))
    u = -np.sin(np.pi * x_u)
    le = ne["fit"](me, *(e(a) for a in (x_f, t_f, x_u, t_u, u)))
    lt = nt["fit"](mt, *(t(a) for a in (x_f, t_f, x_u, t_u, u)))
    close(le, lt, "L-BFGS closure losses", rtol=1e-7, atol=1e-12)
    assert len(le) > 6 and float(le[-1]) < float(le[0])
    close_state(me, mt, rtol=1e-7, atol=1e-10)


# torch.func.hessian (jacfwd) goes through torch.jit.script internally, which torch now deprecates
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")
def test_per_sample_gradients_with_torch_func():
    ne, nt, (me, mt) = pair(src.PER_SAMPLE)
    data, targets = rng.standard_normal((5, 1, 8, 8)), rng.integers(0, 10, 5)
    ge = ne["per_sample_grads"](me, e(data), e(targets))
    gt = nt["per_sample_grads"](mt, t(data), t(targets))
    assert list(ge) == list(gt)
    for k in gt:
        close(ge[k], gt[k], f"per-sample grad of {k}")
    loop = ne["loop_grads"](me, e(data), e(targets))
    for k, g in zip(ge, loop, strict=True):
        close(ge[k], g, f"vmap vs loop, {k}")
    close(
        ne["head_hessian"](me, e(data), e(targets)),
        nt["head_hessian"](mt, t(data), t(targets)),
        "Hessian",
    )


def test_point_cloud_message_passing():
    ne, nt, (me, mt) = pair(src.MESSAGE_PASSING)
    pos = rng.standard_normal((16, 3))
    batch = np.repeat([0, 1], 8)
    y = np.array([1, 3])
    edges_e, edges_t = ne["knn_graph"](e(pos), 4), nt["knn_graph"](t(pos), 4)
    close(edges_e, edges_t, "k-nearest-neighbour graph")
    steps(ne, nt, me, mt, 3, "train_step", pos, batch, y)


def test_nerf_volume_rendering_hierarchical_sampling(restore_globals):
    # The harness runs NeRF in float64 through the default dtype (its torch.Tensor([1e10]),
    # torch.ones and torch.linspace follow it): in float32, sample_pdf divides cdf differences
    # as small as 1e-5, so rounding alone moves the fine samples by 1e-3 in either framework.
    torch.set_default_dtype(torch.float64)
    ember.set_default_dtype(ember.float64)
    ne, nt, ((ce, ct), (fe, ft)) = pair(src.NERF, "make_models")
    me, mt = ember.nn.ModuleList([ce, fe]), torch.nn.ModuleList([ct, ft])
    rays_o = rng.standard_normal((6, 3)) * 0.1
    rays_d = rng.standard_normal((6, 3)) + [0, 0, 2]
    target = rng.uniform(0, 1, (6, 3))
    oe, ot = ne["make_optimizer"](me), nt["make_optimizer"](mt)
    for step in range(3):
        out_e = ne["train_step"](me, oe, e(rays_o), e(rays_d), e(target))
        out_t = nt["train_step"](mt, ot, t(rays_o), t(rays_d), t(target))
        close(out_e, out_t, f"loss, psnr, fine samples, disparity, step {step}")
        close_grads(me, mt)
    close_state(me, mt)
