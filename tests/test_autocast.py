"""CPU autocast and ``ember.amp`` against torch: the op policy (output dtypes of each op in a
region), the region's state machinery, the getters/setters, ``GradScaler`` and a whole
mixed-precision training program step for step."""

from __future__ import annotations

import pickle
import threading
import warnings

import numpy as np
import pytest

import ember
from ember import _autocast

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _r(L, *shape):
    return L.tensor(np.random.RandomState(sum(shape) + len(shape)).randn(*shape).astype("f"))


def _cases(L):
    """(name, thunk) pairs run inside ``autocast("cpu")``: every policy and the ops around it."""
    F = L.nn.functional
    r = lambda *s: _r(L, *s)  # noqa: E731
    x, w, b = r(4, 8), r(3, 8), r(3)
    y = F.linear(x, w, b)  # bfloat16 inside the region
    t = L.tensor([0, 1, 2, 0])
    img, ker = r(1, 2, 5, 5), r(3, 2, 3, 3)
    vol, ker3 = r(1, 2, 4, 4, 4), r(3, 2, 2, 2, 2)
    q = x[:, None]
    spd = L.mm(w, w.t()) + L.eye(3)  # bfloat16 inside the region
    return [
        # lower precision
        ("linear", lambda: F.linear(x, w, b)),
        ("linear_nobias", lambda: F.linear(x, w)),
        ("linear_3d", lambda: F.linear(r(2, 4, 8), w, b)),
        ("linear_bf16_input", lambda: F.linear(x.bfloat16(), w)),
        ("linear_half_input", lambda: F.linear(x.half(), w)),
        ("linear_float64", lambda: F.linear(x.double(), w.double())),
        ("matmul", lambda: x @ w.t()),
        ("matmul_1d", lambda: x[0] @ x[1]),
        ("matmul_mv", lambda: x @ x[0]),
        ("matmul_batched", lambda: r(2, 4, 8) @ r(8, 3)),
        ("matmul_int", lambda: L.ones(2, 2, dtype=L.long) @ L.ones(2, 2, dtype=L.long)),
        ("mm", lambda: L.mm(x, w.t())),
        ("mm_out", lambda: L.mm(x, w.t(), out=L.empty(4, 3))),
        ("bmm", lambda: L.bmm(r(2, 4, 8), r(2, 8, 3))),
        ("addmm", lambda: L.addmm(b, x, w.t())),
        ("baddbmm", lambda: L.baddbmm(r(4, 3), r(2, 4, 8), r(2, 8, 3))),
        ("addbmm", lambda: L.addbmm(r(4, 3), r(2, 4, 8), r(2, 8, 3))),
        ("einsum_contract", lambda: L.einsum("ij,kj->ik", x, w)),
        ("einsum_three", lambda: L.einsum("ij,jk,kl->il", x, w.t(), w)),
        ("einsum_outer", lambda: L.einsum("i,j->ij", x[0], w[0])),
        ("einsum_one", lambda: L.einsum("ij->ji", x)),
        ("tensordot", lambda: L.tensordot(x, w.t(), 1)),
        ("inner", lambda: L.inner(x, w)),
        ("inner_1d", lambda: L.inner(x[0], x[1])),
        ("multi_dot", lambda: L.linalg.multi_dot([x, w.t(), w])),
        ("conv1d", lambda: F.conv1d(r(1, 2, 5), r(3, 2, 3), r(3))),
        ("conv2d", lambda: F.conv2d(img, ker, padding=1)),
        ("conv3d", lambda: F.conv3d(vol, ker3)),
        ("conv_transpose2d", lambda: F.conv_transpose2d(img, r(2, 3, 3, 3))),
        ("conv_tbc", lambda: L.conv_tbc(r(5, 2, 3), r(2, 3, 4), r(4))),
        ("prelu", lambda: F.prelu(x, L.ones(1))),
        ("sdpa", lambda: F.scaled_dot_product_attention(r(1, 4, 8), r(1, 4, 8), r(1, 4, 8))),
        ("mha", lambda: L.nn.MultiheadAttention(8, 2)(q, q, q)[0]),
        ("mha_weights", lambda: L.nn.MultiheadAttention(8, 2)(q, q, q)[1]),
        # not covered: the inputs' dtype
        ("mv", lambda: L.mv(x, x[0])),
        ("dot", lambda: L.dot(x[0], x[1])),
        ("addmv", lambda: L.addmv(b, w, x[0])),
        ("bilinear", lambda: F.bilinear(x, x, r(2, 8, 8))),
        ("softmax", lambda: L.softmax(y, -1)),
        ("log_softmax", lambda: F.log_softmax(y, -1)),
        ("relu", lambda: F.relu(y)),
        ("layer_norm", lambda: F.layer_norm(y, (3,))),
        ("group_norm", lambda: F.group_norm(y.view(4, 3, 1), 1)),
        ("batch_norm", lambda: F.batch_norm(y, None, None, training=True)),
        ("sum", lambda: y.sum()),
        ("add_mixed", lambda: y + x[:, :3]),
        ("avg_pool2d", lambda: F.avg_pool2d(F.conv2d(img, ker), 2)),
        ("pad_constant", lambda: F.pad(F.conv1d(r(1, 2, 5), r(3, 2, 3)), (1, 1))),
        ("cosine_similarity", lambda: F.cosine_similarity(y, y)),
        ("gaussian_nll", lambda: F.gaussian_nll_loss(y, y, L.ones(4, 3))),
        # float32
        ("cross_entropy", lambda: F.cross_entropy(y, t)),
        ("nll_loss", lambda: F.nll_loss(y, t)),
        ("mse_loss", lambda: F.mse_loss(y, y)),
        ("l1_loss", lambda: F.l1_loss(y, y)),
        ("smooth_l1_loss", lambda: F.smooth_l1_loss(y, y)),
        ("huber_loss", lambda: F.huber_loss(y, y)),
        ("bce", lambda: F.binary_cross_entropy(L.sigmoid(y), L.sigmoid(y))),
        ("bce_with_logits", lambda: F.binary_cross_entropy_with_logits(y, L.sigmoid(y))),
        ("kl_div", lambda: F.kl_div(y, y, reduction="batchmean", log_target=True)),
        ("poisson_nll", lambda: F.poisson_nll_loss(y, L.ones(4, 3))),
        ("cosine_embedding", lambda: F.cosine_embedding_loss(y, y, L.ones(4))),
        ("hinge_embedding", lambda: F.hinge_embedding_loss(y, L.ones(4, 3))),
        ("margin_ranking", lambda: F.margin_ranking_loss(y[:, 0], y[:, 1], L.ones(4))),
        ("soft_margin", lambda: F.soft_margin_loss(y, L.ones(4, 3))),
        ("triplet_margin", lambda: F.triplet_margin_loss(y, y, y)),
        ("multi_margin", lambda: F.multi_margin_loss(y, t)),
        ("multilabel_margin", lambda: F.multilabel_margin_loss(y, L.zeros(4, 3, dtype=L.long))),
        ("prod", lambda: L.prod(y)),
        ("cdist", lambda: L.cdist(y[None], y[None])),
        ("trace", lambda: L.trace(y[:3])),
        ("quantile", lambda: L.quantile(y, 0.5)),
        ("nanquantile", lambda: L.nanquantile(y, 0.5)),
        ("avg_pool3d", lambda: F.avg_pool3d(F.conv3d(vol, ker3), 2)),
        ("max_pool3d", lambda: F.max_pool3d(F.conv3d(vol, ker3), 2)),
        ("adaptive_avg_pool3d", lambda: F.adaptive_avg_pool3d(F.conv3d(vol, ker3), 1)),
        ("adaptive_max_pool3d", lambda: F.adaptive_max_pool3d(F.conv3d(vol, ker3), 1)),
        ("pad_reflect", lambda: F.pad(F.conv1d(r(1, 2, 5), r(3, 2, 3)), (1, 1), mode="reflect")),
        ("pad_replicate", lambda: F.pad(F.conv2d(img, ker), (1, 1, 1, 1), mode="replicate")),
        ("grid_sample", lambda: F.grid_sample(F.conv2d(img, ker), L.zeros(1, 2, 2, 2))),
        ("fft", lambda: L.fft.fft(y)),
        ("rfft", lambda: L.fft.rfft(y)),
        ("irfft", lambda: L.fft.irfft(L.fft.rfft(y))),
        ("inv", lambda: L.linalg.inv(spd)),
        ("inverse", lambda: L.inverse(spd)),
        ("solve", lambda: L.linalg.solve(spd, y.t())),
        ("svdvals", lambda: L.linalg.svdvals(y)),
        ("qr", lambda: L.linalg.qr(y)[0]),
        ("eigh", lambda: L.linalg.eigh(spd)[0]),
        ("pinverse", lambda: L.pinverse(y)),
        ("polar", lambda: L.polar(L.abs(y), y)),
        ("stft", lambda: L.stft(L.mv(r(64, 8), x[0]).bfloat16(), 16, return_complex=True)),
        # promote
        ("cat_mixed", lambda: L.cat([y, x[:, :3]])),
        ("cat_same", lambda: L.cat([y, y])),
        ("cat_float64", lambda: L.cat([y, x[:, :3].double()])),
        ("stack_mixed", lambda: L.stack([y, x[:, :3]])),
        ("index_copy", lambda: y.index_copy(0, L.tensor([1]), L.ones(1, 3))),
    ]


def _dtypes(L, dtype_name="bfloat16"):
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # grid_sample's align_corners notice
        with L.autocast("cpu", dtype=getattr(L, dtype_name)):
            for name, thunk in _cases(L):
                res = thunk()
                out[name] = str(res.dtype).split(".")[-1]
    return out


@needs_torch
@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_every_op_gives_torchs_dtype_in_the_region(dtype_name):
    theirs, ours = _dtypes(torch, dtype_name), _dtypes(ember, dtype_name)
    wrong = {n: (theirs[n], ours[n]) for n in theirs if theirs[n] != ours[n]}
    assert not wrong, f"(torch, ember) dtypes differ: {wrong}"
    assert theirs["linear"] == dtype_name and theirs["mse_loss"] == "float32"  # the test bites


@needs_torch
def test_values_and_gradients_match_torch():
    x = np.random.RandomState(0).randn(6, 8).astype("f")
    w = np.random.RandomState(1).randn(5, 8).astype("f")
    res = []
    for L in (torch, ember):
        xt, wt = L.tensor(x), L.tensor(w, requires_grad=True)
        with L.autocast("cpu"):
            y = L.nn.functional.linear(xt, wt)
            z = y @ wt  # the weight used twice: one cached cast
            loss = L.nn.functional.mse_loss(z, L.zeros(6, 8))
        loss.backward()
        res.append((y.float().detach().numpy(), loss.item(), wt.grad.numpy(), wt.grad.dtype))
    (y0, l0, g0, d0), (y1, l1, g1, d1) = res
    np.testing.assert_array_equal(y0, y1)  # one bf16 GEMM, float32 accumulation, rounded once
    np.testing.assert_allclose(l0, l1, rtol=1e-2)
    np.testing.assert_allclose(g0, g1, rtol=2e-2, atol=1e-2)
    assert str(d1) == "ember.float32"


def test_weight_cache_lives_for_the_outermost_region():
    w = ember.ones(3, 3, requires_grad=True)
    x = ember.ones(2, 3)
    with ember.autocast("cpu"):
        a = ember.nn.functional.linear(x, w)
        with ember.autocast("cpu"):
            b = ember.nn.functional.linear(x, w)
        assert id(w) in _autocast._cache  # an inner exit keeps the cache
        assert a.dtype is b.dtype is ember.bfloat16
    assert not _autocast._cache
    with ember.autocast("cpu", cache_enabled=False):
        ember.nn.functional.linear(x, w)
        assert not _autocast._cache


def test_not_cast_float64_ints_meta_and_out():
    with ember.autocast("cpu"):
        d = ember.ones(2, 2, dtype=ember.float64)
        assert (d @ d).dtype is ember.float64
        with pytest.raises(RuntimeError, match="double != c10::BFloat16"):
            d @ ember.ones(2, 2)  # NOTE: matches torch: the float32 operand became bfloat16
        m = ember.ones(2, 3, device="meta") @ ember.ones(3, 4, device="meta")
        assert m.dtype is ember.float32 and m.device.type == "meta"
        out = ember.empty(2, 2)
        ember.mm(ember.ones(2, 2), ember.ones(2, 2), out=out)
        assert out.dtype is ember.float32


def test_state_nesting_decorator_and_restore():
    assert not ember.is_autocast_enabled("cpu") and not _autocast.on
    with ember.autocast("cpu", dtype=ember.float16):
        assert ember.is_autocast_enabled("cpu") and _autocast.on
        assert ember.get_autocast_dtype("cpu") is ember.float16
        with ember.autocast("cpu", enabled=False):
            assert not ember.is_autocast_enabled("cpu")
            assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype is ember.float32
        assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype is ember.float16
    assert not ember.is_autocast_enabled("cpu") and not _autocast.on
    assert ember.get_autocast_dtype("cpu") is ember.bfloat16

    @ember.autocast("cpu")
    def f(a):
        return a @ a

    assert f(ember.ones(2, 2)).dtype is ember.bfloat16
    assert not ember.is_autocast_enabled("cpu")
    with pytest.raises(RuntimeError):
        with ember.amp.autocast("cpu"):
            raise RuntimeError("boom")
    assert not ember.is_autocast_enabled("cpu") and not _autocast.on


def test_state_is_per_thread():
    seen = {}

    def other():
        seen["enabled"] = ember.is_autocast_enabled("cpu")
        seen["dtype"] = (ember.ones(2, 2) @ ember.ones(2, 2)).dtype
        with ember.autocast("cpu"):
            seen["inner"] = (ember.ones(2, 2) @ ember.ones(2, 2)).dtype

    with ember.autocast("cpu"):
        th = threading.Thread(target=other)
        th.start()
        th.join()
    assert seen == {"enabled": False, "dtype": ember.float32, "inner": ember.bfloat16}
    assert not _autocast.on


@needs_torch
def test_getters_setters_as_torch():
    for L in (torch, ember):
        assert L.get_autocast_dtype("cpu") == L.bfloat16
        assert L.get_autocast_dtype("cuda") == L.float16
        assert L.is_autocast_cache_enabled() and not L.is_autocast_enabled()
        assert (L.autocast_increment_nesting(), L.autocast_decrement_nesting()) == (1, 0)
        for old, args in [
            ("is_autocast_cpu_enabled", ()),
            ("get_autocast_cpu_dtype", ()),
            ("get_autocast_gpu_dtype", ()),
        ]:
            with pytest.warns(DeprecationWarning, match=f"torch.{old}.. is deprecated"):
                getattr(L, old)(*args)
        with pytest.warns(DeprecationWarning, match="set_autocast_cpu_dtype"):
            L.set_autocast_cpu_dtype(L.float16)
        assert L.get_autocast_dtype("cpu") == L.float16
        with pytest.warns(DeprecationWarning, match="set_autocast_cpu_enabled"):
            L.set_autocast_cpu_enabled(True)
        assert L.is_autocast_enabled("cpu")
        L.set_autocast_enabled("cpu", False)
        L.set_autocast_dtype("cpu", L.bfloat16)
        L.set_autocast_enabled(True)  # the legacy one-argument form is CUDA's
        assert L.is_autocast_enabled() and L.is_autocast_enabled("cuda")
        L.set_autocast_enabled(False)
        L.set_autocast_cache_enabled(False)
        assert not L.is_autocast_cache_enabled()
        L.set_autocast_cache_enabled(True)
        L.clear_autocast_cache()
        kinds = ["cpu", "cuda", "xpu", "mps", "hpu", "xla", "ipu", "mtia", "meta", "lazy"]
        assert [L.amp.is_autocast_available(k) for k in kinds] == [True] * 8 + [False] * 2
    for call in [
        lambda L: L.get_autocast_dtype("foo"),
        lambda L: L.get_autocast_dtype("meta"),
        lambda L: L.autocast("meta"),
    ]:
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        with pytest.raises(RuntimeError) as ours:
            call(ember)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match="must be str, not int"):
        ember.is_autocast_enabled(1)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.autocast(1)
    with pytest.raises(TypeError, match="requires a callable, but got int"):
        ember.autocast("cpu")(3)


def test_construction_warnings_as_torch():
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported"):
        ac = ember.autocast(device_type="cuda")
    with ac:
        assert not ember.is_autocast_enabled("cuda")
        assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype is ember.float32
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported"):
        ac = ember.autocast("cpu", dtype=ember.float32)
    with ac:
        assert not ember.is_autocast_enabled("cpu")
    with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
        ac = ember.cpu.amp.autocast()
    with ac:
        assert ember.is_autocast_enabled("cpu")
    with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available"):
        assert not ember.amp.GradScaler().is_enabled()
    with pytest.warns(FutureWarning, match="torch.cpu.amp.GradScaler"):
        assert ember.cpu.amp.GradScaler().is_enabled()
    assert ember.autocast is ember.amp.autocast and ember.GradScaler is ember.amp.GradScaler


@needs_torch
def test_custom_fwd_bwd_as_torch():
    def make(L):
        class Scale(L.autograd.Function):
            @staticmethod
            @L.amp.custom_fwd(device_type="cpu", cast_inputs=L.float32)
            def forward(ctx, x, w):
                ctx.save_for_backward(x, w)
                ctx.inside = L.is_autocast_enabled("cpu")
                return x @ w

            @staticmethod
            @L.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                x, w = ctx.saved_tensors
                ctx.back = L.is_autocast_enabled("cpu")
                return g @ w.t(), x.t() @ g

        return Scale

    res = []
    for L in (torch, ember):
        x = L.ones(2, 3, dtype=L.bfloat16, requires_grad=True)
        w = L.ones(3, 2, requires_grad=True)
        with L.autocast("cpu"):
            y = make(L).apply(x, w)
        y.sum().backward()
        res.append((str(y.dtype), y.grad_fn.inside, y.grad_fn.back, str(x.grad.dtype)))
    assert [r[0].split(".")[1] for r in res] == ["float32"] * 2
    assert [r[1:3] for r in res] == [(False, False)] * 2
    assert res[0][3].split(".")[1] == res[1][3].split(".")[1]
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.amp.custom_fwd(device_type=None)


# ---- GradScaler ------------------------------------------------------------------------------
def _scaled_step(L, grads, init_scale=8.0, **kw):
    ps = [L.ones(*g.shape, dtype=getattr(L, d), requires_grad=True) for g, d in grads]
    opt = L.optim.SGD(ps, lr=0.5)
    scaler = L.amp.GradScaler("cpu", init_scale=init_scale, **kw)
    loss = sum((p.float() * L.tensor(g)).sum() for p, (g, _) in zip(ps, grads))
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    unscaled = [p.grad.float().numpy().copy() for p in ps]
    scaler.step(opt)
    scaler.update()
    return unscaled, [p.detach().float().numpy() for p in ps], scaler.state_dict()


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
def test_scaler_unscale_and_step_as_torch(dtype):
    g = np.random.RandomState(0).randn(5, 3).astype("f") / 7
    a = _scaled_step(torch, [(g, dtype)], init_scale=3.0)
    b = _scaled_step(ember, [(g, dtype)], init_scale=3.0)
    for x, y in zip(a[0] + a[1], b[0] + b[1]):
        np.testing.assert_array_equal(x, y)
    assert a[2] == b[2]


@needs_torch
def test_scaler_skips_a_step_with_inf_and_backs_off():
    g = np.ones((2, 2), "f")
    bad = g.copy()
    bad[0, 0] = np.inf
    for L in (torch, ember):
        _, params, state = _scaled_step(L, [(g, "float32"), (bad, "float32")], growth_interval=1)
        assert all((p == 1).all() for p in params)  # skipped
        assert state["scale"] == 4.0 and state["_growth_tracker"] == 0
        _, params, state = _scaled_step(L, [(g, "float32")], growth_interval=1)
        assert state["scale"] == 16.0 and (params[0] == 0.5).all()


@needs_torch
def test_scaler_growth_state_dict_and_errors():
    for L in (torch, ember):
        s = L.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
        p = L.ones(2, requires_grad=True)
        opt = L.optim.SGD([p], lr=0.1)
        track = []
        for _ in range(5):
            opt.zero_grad()
            s.scale(p.sum()).backward()
            s.step(opt)
            s.update()
            track.append((s.get_scale(), s._get_growth_tracker()))
        assert track == [(4.0, 1), (8.0, 0), (8.0, 1), (16.0, 0), (16.0, 1)]
        s2 = L.amp.GradScaler("cpu")
        s2.load_state_dict(s.state_dict())
        assert s2.state_dict() == s.state_dict()
        s3 = pickle.loads(pickle.dumps(s))
        assert s3.get_scale() == 16.0
        s.update(2.0)
        assert s.get_scale() == 2.0
        opt.zero_grad()
        s.scale(p.sum()).backward()
        s.unscale_(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
            s.unscale_(opt)
        s.step(opt)
        with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
            s.step(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
            s.unscale_(opt)
        with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
            s.step(opt, closure=lambda: 0)
        with pytest.raises(AssertionError, match="The growth factor must be > 1.0"):
            L.amp.GradScaler("cpu", growth_factor=1.0)
        with pytest.raises(RuntimeError, match="The source state dict is empty"):
            s2.load_state_dict({})
        off = L.amp.GradScaler("cpu", enabled=False)
        t = L.ones(2)
        assert off.scale(t) is t and off.state_dict() == {} and off.get_scale() == 1.0
        assert [x.item() for x in s2.scale([L.ones(1), (L.ones(1),)])[1]] == [16.0]


# ---- a whole mixed-precision training program ------------------------------------------------
def _model(L, state=None):
    nn = L.nn
    m = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(4 * 4 * 4, 16),
        nn.LayerNorm(16),
        nn.GELU(),
        nn.Linear(16, 3),
    )
    if state is not None:
        m.load_state_dict({k: L.tensor(v.numpy()) for k, v in state.items()})
    return m


def _train(L, m, X, Y):
    opt = L.optim.AdamW(m.parameters(), lr=1e-2)
    scaler = L.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=3)
    losses, dtypes, scales = [], [], []
    for xb, yb in zip(X, Y):
        rec = []
        hooks = [
            mod.register_forward_hook(
                lambda mod, a, o, rec=rec: rec.append(str(o.dtype).split(".")[1])
            )
            for mod in m
        ]
        with L.autocast("cpu", dtype=L.bfloat16):
            loss = L.nn.functional.cross_entropy(m(L.tensor(xb)), L.tensor(yb))
        for h in hooks:
            h.remove()
        rec.append(str(loss.dtype).split(".")[1])
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        L.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
        dtypes.append(rec)
        scales.append(scaler.get_scale())
    grads = [str(p.grad.dtype).split(".")[1] for p in m.parameters()]
    return np.array(losses), dtypes, scales, grads


@needs_torch
def test_training_program_matches_torch_step_for_step():
    rs = np.random.RandomState(0)
    X = rs.randn(10, 8, 1, 8, 8).astype("f")
    Y = rs.randint(0, 3, (10, 8))
    torch.manual_seed(0)
    tm = _model(torch)
    em = _model(ember, tm.state_dict())
    a, b = _train(torch, tm, X, Y), _train(ember, em, X, Y)
    np.testing.assert_allclose(b[0], a[0], rtol=1e-2)
    assert b[1] == a[1]  # each layer's output dtype, and the loss's
    assert a[1][0] == ["bfloat16"] * 8 + ["float32"]
    assert b[2] == a[2] and b[3] == a[3] == ["float32"] * 8
