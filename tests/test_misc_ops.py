"""Parity with torch for the rest of torch's top-level surface (issue 12): range, conj_physical_,
view_as_*_copy, binomial, hash_tensor, segment_reduce, native_norm, quasirandom.SobolEngine,
signal.windows, cholesky, lobpcg, svd_lowrank/pca_lowrank, the functional RNN ops, and
nn.functional's grouped/scaled matmuls, nn.grad and small helpers."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="parity tests need torch")


def E(a, grad=False):
    t = ember.tensor(np.asarray(a))
    return t.requires_grad_() if grad else t


def T(a, grad=False):
    t = torch.tensor(np.asarray(a))
    return t.requires_grad_() if grad else t


def close(a, b, rtol=1e-9, atol=1e-12):
    a = a.detach().float().numpy() if hasattr(a, "detach") and a.dtype in _LOW else a
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol)


def _np(x):
    if hasattr(x, "detach"):
        x = x.detach()
        try:
            return x.numpy()
        except TypeError:  # torch bfloat16
            return x.float().numpy()
    return np.asarray(x)


_LOW = ()


def errors_alike(fe, ft):
    with pytest.raises(Exception) as te:
        ft()
    with pytest.raises(type(te.value)) as ee:
        fe()
    return str(ee.value), str(te.value)


def _runtime_errors(fe, ft):
    # torch's linalg errors are its own RuntimeError subclass (torch._C._LinAlgError)
    with pytest.raises(RuntimeError) as te:
        ft()
    with pytest.raises(RuntimeError) as ee:
        fe()
    return str(ee.value), str(te.value)


# ---- range, conj_physical_, view_as_*_copy -------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "args,kw",
    [
        ((0, 3), {}),
        ((0, 1, 0.3), {}),
        ((1, 4), {"dtype": "int64"}),
        ((0.5, 3.2), {"dtype": "int64"}),
        ((5, 1, -1.5), {"dtype": "float64"}),
        ((2, 2), {}),
    ],
)
def test_range_matches_torch(args, kw):
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        e = ember.range(*args, **{k: getattr(ember, v) for k, v in kw.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.range(*args, **{k: getattr(torch, v) for k, v in kw.items()})
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@needs_torch
def test_range_errors_and_grad():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in [(0, 1, 0), (0, 1, -1), (0, float("inf"))]:
            me, mt = errors_alike(lambda a=args: ember.range(*a), lambda a=args: torch.range(*a))
            assert me == mt
        with pytest.raises(TypeError, match="end"):
            ember.range(3)
        r = ember.range(0, 2, requires_grad=True)
        assert r.requires_grad and r.is_leaf


def test_conj_physical_in_place():
    x = ember.tensor([1 + 2j, 3 - 1j])
    assert ember.conj_physical_(x) is x
    np.testing.assert_array_equal(x.numpy(), [1 - 2j, 3 + 1j])
    r = ember.tensor([1.0, -2.0])
    assert ember.conj_physical_(r) is r and r.tolist() == [1.0, -2.0]


@needs_torch
def test_view_copies_are_copies_and_errors_match():
    z = ember.tensor([1 + 2j, 3 - 1j])
    r = ember.view_as_real_copy(z)
    r[0, 0] = 9.0
    assert z[0].real.item() == 1.0  # a copy, not a view
    np.testing.assert_array_equal(r.numpy()[1], [3.0, -1.0])
    c = ember.view_as_complex_copy(ember.tensor([[1.0, 2.0]]))
    assert c.tolist() == [1 + 2j]
    for fe, ft in [
        (lambda: ember.view_as_real_copy(E([1.0])), lambda: torch.view_as_real_copy(T([1.0]))),
        (
            lambda: ember.view_as_complex_copy(E([[1.0, 2.0, 3.0]])),
            lambda: torch.view_as_complex_copy(T([[1.0, 2.0, 3.0]])),
        ),
        (
            lambda: ember.view_as_complex_copy(E([[1.0, 2.0]], grad=True)),
            lambda: torch.view_as_complex_copy(T([[1.0, 2.0]], grad=True)),
        ),
    ]:
        me, mt = errors_alike(fe, ft)
        assert me.split(".")[0] == mt.split(".")[0]
    x = E(np.random.default_rng(0).standard_normal((3, 2)), grad=True)
    assert ember.autograd.gradcheck(
        lambda t: ember.view_as_real_copy(ember.complex(t, 2 * t) * (1 + 2j)), (x,)
    )


# ---- binomial ------------------------------------------------------------------------------------
def test_binomial_distribution():
    gen = ember.Generator().manual_seed(0)
    n = ember.full((200_000,), 10.0, dtype=ember.float64)
    p = ember.full((200_000,), 0.3, dtype=ember.float64)
    s = ember.binomial(n, p, generator=gen).numpy()
    assert s.dtype == np.float64 and set(np.unique(s)) <= set(range(11))
    assert abs(s.mean() - 3.0) < 0.02 and abs(s.var() - 2.1) < 0.04
    # the probability of each count against the binomial pmf
    pmf = np.array([math.comb(10, k) * 0.3**k * 0.7 ** (10 - k) for k in range(11)])
    freq = np.bincount(s.astype(int), minlength=11) / s.size
    assert np.abs(freq - pmf).max() < 0.005
    a = ember.binomial(n[:10], p[:10], generator=ember.Generator().manual_seed(3))
    b = ember.binomial(n[:10], p[:10], generator=ember.Generator().manual_seed(3))
    assert a.tolist() == b.tolist()  # the generator decides the stream


@needs_torch
def test_binomial_edges_and_errors():
    c = ember.tensor([5.0, 10.0, -1.0, 4.0])
    out = ember.binomial(c, ember.tensor([1.0, 0.0, 0.5, 1.5]))
    assert out.tolist() == [5.0, 0.0, 0.0, 4.0]  # p clipped, negative count -> 0
    assert ember.binomial(c, ember.tensor([1.0])).tolist() == [5.0, 10.0, 0.0, 4.0]  # broadcast
    x = ember.tensor([5.0], requires_grad=True)
    assert not ember.binomial(x, ember.tensor([0.5])).requires_grad
    for ce, pe in [("int64", "int64"), ("float64", "float32"), ("float16", "float16")]:
        me, mt = errors_alike(
            lambda a=ce, b=pe: ember.binomial(
                ember.ones(2, dtype=getattr(ember, a)), ember.ones(2, dtype=getattr(ember, b))
            ),
            lambda a=ce, b=pe: torch.binomial(
                torch.ones(2, dtype=getattr(torch, a)), torch.ones(2, dtype=getattr(torch, b))
            ),
        )
        assert me == mt


# ---- hash_tensor ---------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "dtype", ["float32", "float64", "float16", "bfloat16", "int8", "int32", "int64", "bool"]
)
def test_hash_tensor_bit_exact(dtype):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 5)) * 50
    a[0, 0, 0], a[1, 1, 1] = np.nan, -0.0
    if dtype == "bfloat16":
        a[0, 0, 0] = 1.0  # torch's vectorized float->bfloat16 cast makes NaN 0xFFFF, ember 0x7FC0
    t = torch.tensor(a).to(getattr(torch, dtype))
    e = ember.tensor(a).to(getattr(ember, dtype))
    for kw in [{}, {"dim": 1}, {"dim": (0, 2)}, {"dim": -1, "keepdim": True}, {"dim": []}]:
        te, tt = ember.hash_tensor(e, **kw), torch.hash_tensor(t, **kw)
        assert te.dtype == ember.uint64 and te.shape == tuple(tt.shape)
        np.testing.assert_array_equal(te.numpy(), tt.numpy())
    np.testing.assert_array_equal(e.hash_tensor(0).numpy(), t.hash_tensor(0).numpy())


@needs_torch
def test_hash_tensor_errors():
    cases = [
        (lambda m: m.hash_tensor(m.zeros(0)), RuntimeError),
        (lambda m: m.hash_tensor(m.zeros(2, 0), 1), IndexError),
        (lambda m: m.hash_tensor(m.ones(2), mode=1), RuntimeError),
        (lambda m: m.hash_tensor(m.ones(2, dtype=m.complex64)), NotImplementedError),
        (lambda m: m.hash_tensor(m.ones(2, dtype=m.uint64)), NotImplementedError),
    ]
    for f, kind in cases:
        me, mt = errors_alike(lambda f=f: f(ember), lambda f=f: f(torch))
        assert me == mt, kind


# ---- segment_reduce ------------------------------------------------------------------------------
REDUCES = ["sum", "mean", "max", "min", "prod"]


@needs_torch
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("initial", [None, 0.0, 2.5])
def test_segment_reduce_1d_values_and_grads(reduce, initial):
    x = np.array([3.0, 3.0, 1.0, 0.0, 0.0, 2.0, 2.0, -1.5, 0.0, 4.0])  # ties and zeros
    lengths = np.array([3, 0, 2, 2, 3])
    te, tt = E(x, True), T(x, True)
    ye = ember.segment_reduce(te, reduce, lengths=E(lengths), initial=initial)
    yt = torch.segment_reduce(tt, reduce, lengths=T(lengths), initial=initial)
    close(ye, yt)
    g = np.arange(1.0, 6.0)
    (ge,) = ember.autograd.grad(ye, te, E(g))
    (gt,) = torch.autograd.grad(yt, tt, T(g))
    close(ge, gt)


@needs_torch
@pytest.mark.parametrize("reduce", REDUCES)
def test_segment_reduce_nd_axis_offsets(reduce):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 7, 3))
    lengths = np.array([[2, 0, 5], [3, 3, 1]])
    offsets = np.concatenate([np.zeros((2, 1), np.int64), np.cumsum(lengths, 1)], 1)
    te, tt = E(x, True), T(x, True)
    ye = ember.segment_reduce(te, reduce, lengths=E(lengths), axis=1)
    yt = torch.segment_reduce(tt, reduce, lengths=T(lengths), axis=1)
    close(ye, yt)
    yo = ember.segment_reduce(te, reduce, offsets=E(offsets), axis=-2)
    close(yo, yt)
    g = rng.standard_normal(tuple(yt.shape))
    close(ember.autograd.grad(ye, te, E(g))[0], torch.autograd.grad(yt, tt, T(g))[0])
    # ember's backward is in Tensor ops: second order too (torch has none)
    d = E(rng.standard_normal(6) + 2.0, True)
    assert ember.autograd.gradgradcheck(
        lambda t: ember.segment_reduce(t * t, reduce, lengths=E([2, 1, 3])), (d,)
    )


@needs_torch
def test_segment_reduce_errors_and_meta():
    d = [1.0, 2.0, 3.0]
    cases = [
        lambda m: m.segment_reduce(m.tensor(d), "foo", lengths=m.tensor([3])),
        lambda m: m.segment_reduce(m.tensor(d), "sum"),
        lambda m: m.segment_reduce(m.tensor(d), "sum", indices=m.tensor([0, 0, 1])),
        lambda m: m.segment_reduce(m.tensor(d), "sum", lengths=m.tensor([1, 1])),
        lambda m: m.segment_reduce(m.tensor(d), "sum", lengths=m.tensor([4, -1])),
        lambda m: m.segment_reduce(m.tensor([1, 2]), "sum", lengths=m.tensor([2])),
        lambda m: m.segment_reduce(m.ones(2, 3), "sum", lengths=m.tensor([3]), axis=1),
    ]
    for f in cases:
        me, mt = errors_alike(lambda f=f: f(ember), lambda f=f: f(torch))
        assert me == mt
    y = ember.segment_reduce(
        ember.ones(2, 6, 3, device="meta"),
        "sum",
        lengths=ember.ones(2, 2, dtype=ember.int64) * 3,
        axis=1,
    )
    assert y.device.type == "meta" and y.shape == (2, 2, 3)
    amax = ember.segment_reduce(ember.tensor(d), "amax", lengths=ember.tensor([1, 2]))
    assert amax.tolist() == [1.0, 3.0]


# ---- native_norm ---------------------------------------------------------------------------------
@needs_torch
def test_native_norm_sparse_only():
    a = np.array([[0.0, 3.0], [4.0, 0.0]])
    for args in [(), (1,), (3.0, [0, 1], False, None)]:
        close(
            ember.native_norm(E(a).to_sparse(), *args), torch.native_norm(T(a).to_sparse(), *args)
        )
    with pytest.raises(NotImplementedError, match="native_norm"):
        ember.native_norm(E(a))
    me, mt = errors_alike(
        lambda: ember.native_norm(E(a).to_sparse(), 2, [1], False, None),
        lambda: torch.native_norm(T(a).to_sparse(), 2, [1], False, None),
    )
    assert me == mt


# ---- SobolEngine ---------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("dim", [1, 2, 7, 300])
def test_sobol_unscrambled_equals_torch(dim):
    e, t = ember.quasirandom.SobolEngine(dim), torch.quasirandom.SobolEngine(dim)
    assert repr(e) == repr(t)
    np.testing.assert_array_equal(e.sobolstate.numpy(), t.sobolstate.numpy())
    for op, n in [("draw", 1), ("draw", 6), ("ff", 5), ("draw", 3), ("base2", 4), ("draw", 20)]:
        if op == "draw":
            np.testing.assert_array_equal(
                e.draw(n, dtype=ember.float64).numpy(), t.draw(n, dtype=torch.float64).numpy()
            )
        elif op == "ff":
            e.fast_forward(n)
            t.fast_forward(n)
        else:
            me, mt = errors_alike(lambda n=n: e.draw_base2(n), lambda n=n: t.draw_base2(n))
            assert me == mt
        assert e.num_generated == t.num_generated
    e.reset()
    t.reset()
    a, b = e.draw_base2(5), t.draw_base2(5)
    assert a.dtype == ember.float32
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    e2 = ember.quasirandom.SobolEngine(dim).fast_forward(9)
    t2 = torch.quasirandom.SobolEngine(dim).fast_forward(9)
    np.testing.assert_array_equal(e2.draw(4).numpy(), t2.draw(4).numpy())
    out = ember.empty(0)
    assert e2.draw(2, out=out) is out and out.shape == (2, dim)


def test_sobol_scrambled_keeps_balance():
    e = ember.quasirandom.SobolEngine(6, scramble=True, seed=7)
    assert repr(e) == "SobolEngine(dimension=6, scramble=True, seed=7)"
    x = e.draw_base2(8, dtype=ember.float64).numpy()
    plain = ember.quasirandom.SobolEngine(6).draw_base2(8, dtype=ember.float64).numpy()
    assert not np.array_equal(x, plain) and (x >= 0).all() and (x < 1).all()
    # a (t, m, s)-net property: every elementary interval of volume 2^-8 holds one point
    for j in range(6):
        assert len(np.unique(np.floor(x[:, j] * 256))) == 256
    boxes = np.floor(x[:, :2] * [16, 16]).astype(int)
    assert len({tuple(b) for b in boxes}) == 256
    again = ember.quasirandom.SobolEngine(6, scramble=True, seed=7).draw_base2(8)
    np.testing.assert_array_equal(again.numpy(), x.astype(np.float32))
    other = ember.quasirandom.SobolEngine(6, scramble=True, seed=8).draw_base2(8)
    assert not np.array_equal(other.numpy(), again.numpy())
    with pytest.raises(ValueError, match=r"\[1, 21201\]"):
        ember.quasirandom.SobolEngine(0)


# ---- signal.windows ------------------------------------------------------------------------------
WINDOWS = [
    ("bartlett", {}),
    ("blackman", {}),
    ("cosine", {}),
    ("exponential", {"tau": 2.5}),
    ("gaussian", {"std": 0.7}),
    ("general_cosine", {"a": [0.46, 0.3, 0.24]}),
    ("general_hamming", {"alpha": 0.6}),
    ("hamming", {}),
    ("hann", {}),
    ("kaiser", {"beta": 4.0}),
    ("nuttall", {}),
]


@needs_torch
@pytest.mark.parametrize("name,kw", WINDOWS, ids=[w[0] for w in WINDOWS])
def test_windows_equal_torch(name, kw):
    import torch.signal.windows as TW

    for M in (0, 1, 2, 5, 16):
        for sym in (True, False):
            for dt in ("float32", "float64"):
                e = getattr(ember.signal.windows, name)(M, sym=sym, dtype=getattr(ember, dt), **kw)
                t = getattr(TW, name)(M, sym=sym, dtype=getattr(torch, dt), **kw)
                assert e.dtype == getattr(ember, dt) and e.shape == tuple(t.shape)
                f64 = dt == "float64"
                np.testing.assert_allclose(
                    e.numpy(), t.numpy(), rtol=1e-14 if f64 else 1e-5, atol=1e-15 if f64 else 1e-7
                )
    e = getattr(ember.windows, name)(4, requires_grad=True, **kw)
    t = getattr(torch.windows, name)(4, requires_grad=True, **kw)
    assert e.requires_grad == t.requires_grad and e.is_leaf == t.is_leaf


@needs_torch
def test_window_errors_and_namespace():
    import torch.signal.windows as TW

    assert ember.windows is ember.signal.windows
    assert ember.signal.windows.__all__ == TW.__all__
    e = ember.signal.windows.exponential(5, center=1.0, sym=False, dtype=ember.float64)
    close(e, TW.exponential(5, center=1.0, sym=False, dtype=torch.float64))
    cases = [
        lambda m: m.signal.windows.hann(-1),
        lambda m: m.signal.windows.hann(3, dtype=m.float16),
        lambda m: m.signal.windows.exponential(3, tau=0),
        lambda m: m.signal.windows.exponential(3, center=1.0),
        lambda m: m.signal.windows.gaussian(3, std=0),
        lambda m: m.signal.windows.kaiser(3, beta=-1),
        lambda m: m.signal.windows.general_cosine(3, a=[]),
        lambda m: m.signal.windows.general_cosine(3, a=1.0),
    ]
    for f in cases:
        me, mt = errors_alike(lambda f=f: f(ember), lambda f=f: f(torch))
        assert me.replace("ember", "torch") == mt


# ---- cholesky, lobpcg, low-rank SVD --------------------------------------------------------------
def _spd(n, seed=0, batch=()):
    rng = np.random.default_rng(seed)
    m = rng.standard_normal(batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


@needs_torch
def test_cholesky_deprecated():
    a = _spd(4)
    with pytest.warns(UserWarning, match="torch.cholesky is deprecated"):
        lo = ember.cholesky(E(a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(lo, torch.cholesky(T(a)))
        close(E(a).cholesky(upper=True), T(a).cholesky(upper=True))
        for bad in (-np.eye(2), np.ones((2, 3))):
            me, mt = _runtime_errors(
                lambda b=bad: ember.cholesky(E(b)), lambda b=bad: torch.cholesky(T(b))
            )
            assert me == mt
        me, mt = errors_alike(lambda: ember.solve(E(a), E(a)), lambda: torch.solve(T(a), T(a)))
        assert me == mt


@needs_torch
@pytest.mark.parametrize(
    "kw", [{"k": 3}, {"k": 2, "largest": False}, {"k": 2, "B": True}, {"n": 3, "k": 2}]
)
def test_lobpcg_values_match_torch(kw):
    size = 12 if kw.get("largest") is False else 20  # torch's smallest-end search is slow
    a, b = _spd(size, 1), _spd(size, 2)
    ke, kt = dict(kw), dict(kw)
    if kw.get("B"):
        ke["B"], kt["B"] = E(b), T(b)
    Ee, Xe = ember.lobpcg(E(a), **ke)
    Et, Xt = torch.lobpcg(T(a), **kt)
    close(Ee, Et, rtol=1e-7)
    np.testing.assert_allclose(np.abs(Xe.numpy()), np.abs(Xt.numpy()), atol=1e-5)
    Bm = b if kw.get("B") else np.eye(size)
    np.testing.assert_allclose(a @ Xe.numpy(), Bm @ Xe.numpy() * Ee.numpy(), atol=1e-8)


@needs_torch
def test_lobpcg_batch_grad_and_errors():
    a = _spd(12, 3, (2,))
    Ee, _ = ember.lobpcg(E(a), k=2)
    Et, _ = torch.lobpcg(T(a), k=2)
    close(Ee, Et, rtol=1e-7)
    ae, at = E(a[0], True), T(a[0], True)
    ye, yt = ember.lobpcg(ae, k=2)[0], torch.lobpcg(at, k=2)[0]
    close(ember.autograd.grad(ye.sum(), ae)[0], torch.autograd.grad(yt.sum(), at)[0], rtol=1e-5)
    cases = [
        lambda m, x=a[0]: m.lobpcg(m.tensor(x), k=5),
        lambda m, x=a[0]: (
            m.lobpcg(m.tensor(x), k=2, B=m.tensor(np.eye(12)).requires_grad_())[0].sum().backward()
        ),
    ]
    for f in cases:
        me, mt = errors_alike(lambda f=f: f(ember), lambda f=f: f(torch))
        assert me == mt


@needs_torch
def test_svd_lowrank_exact_at_full_rank_and_good_below():
    rng = np.random.default_rng(4)
    for shape in ((9, 5), (5, 9), (2, 6, 4)):
        a = rng.standard_normal(shape)
        q = min(shape[-2:])
        U, S, V = ember.svd_lowrank(E(a), q=q)
        close(S, np.linalg.svd(a, compute_uv=False), rtol=1e-10)
        close(U @ ember.diag_embed(S) @ V.mT, a, atol=1e-10)
        np.testing.assert_allclose(
            (U.mT @ U).numpy(), np.broadcast_to(np.eye(q), U.mT.shape[:-2] + (q, q)), atol=1e-10
        )
    low = rng.standard_normal((40, 3)) @ rng.standard_normal((3, 30))
    noisy = low + 1e-3 * rng.standard_normal(low.shape)
    U, S, V = ember.svd_lowrank(E(noisy), q=5, niter=2)
    rec = (U[:, :3] @ ember.diag(S[:3]) @ V[:, :3].T).numpy()
    assert np.linalg.norm(rec - low) / np.linalg.norm(low) < 1e-3
    M = rng.standard_normal((1, 30))
    U, S, V = ember.svd_lowrank(E(low + M), q=3, M=E(M))
    close(U @ ember.diag(S) @ V.T, low, atol=1e-9)


@needs_torch
def test_pca_lowrank():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((30, 4)) @ np.diag([5.0, 2.0, 1.0, 0.5])
    U, S, V = ember.pca_lowrank(E(a), q=4)
    c = a - a.mean(0)
    close(S, np.linalg.svd(c, compute_uv=False), rtol=1e-10)
    Ut, St, Vt = torch.pca_lowrank(T(a), q=4)
    close(S, St, rtol=1e-10)
    np.testing.assert_allclose(np.abs(V.numpy()), np.abs(Vt.numpy()), atol=1e-8)
    U, S, V = ember.pca_lowrank(E(a), center=False)
    assert U.shape == (30, 4) and S.shape == (4,)
    for kw in ({"q": 7}, {"niter": -1}):
        me, mt = errors_alike(
            lambda k=kw: ember.pca_lowrank(E(a), **k), lambda k=kw: torch.pca_lowrank(T(a), **k)
        )
        assert me == mt


# ---- functional recurrent ops --------------------------------------------------------------------
def _rnn_pair(mode, bidirectional, batch_first, proj=0):
    kw = dict(num_layers=2, bidirectional=bidirectional, batch_first=batch_first)
    if mode == "lstm":
        return torch.nn.LSTM(3, 4, proj_size=proj, **kw).double()
    if mode == "gru":
        return torch.nn.GRU(3, 4, **kw).double()
    return torch.nn.RNN(3, 4, nonlinearity=mode[4:], **kw).double()


@needs_torch
@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("bidirectional,batch_first", [(False, False), (True, True)])
def test_functional_rnn_padded(mode, bidirectional, batch_first):
    torch.manual_seed(0)
    proj = 2 if mode == "lstm" and bidirectional else 0
    m = _rnn_pair(mode, bidirectional, batch_first, proj)
    d = 2 if bidirectional else 1
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 5, 3) if batch_first else (5, 2, 3))
    h0 = rng.standard_normal((2 * d, 2, proj or 4))
    c0 = rng.standard_normal((2 * d, 2, 4))
    ws = [w.detach().numpy() for w in m._flat_weights]
    ins_e = [E(x, True), E(h0, True), E(c0, True)] + [E(w, True) for w in ws]
    ins_t = [T(x, True), T(h0, True), T(c0, True)] + [T(w, True) for w in ws]

    def call(lib, ins):
        hx = (ins[1], ins[2]) if mode == "lstm" else ins[1]
        return getattr(lib, mode)(
            ins[0], hx, ins[3:], True, 2, 0.0, False, bidirectional, batch_first
        )

    re, rt = call(ember, ins_e), call(torch, ins_t)
    assert len(re) == len(rt)
    for a, b in zip(re, rt):
        close(a, b, rtol=1e-10)
    used = ins_e if mode == "lstm" else ins_e[:2] + ins_e[3:]
    used_t = ins_t if mode == "lstm" else ins_t[:2] + ins_t[3:]
    ge = ember.autograd.grad(sum((r * r).sum() for r in re), used)
    gt = torch.autograd.grad(sum((r * r).sum() for r in rt), used_t)
    for a, b in zip(ge, gt):
        close(a, b, rtol=1e-9, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh"])
def test_functional_rnn_packed_and_errors(mode):
    torch.manual_seed(1)
    m = _rnn_pair(mode, True, False)
    x = torch.randn(5, 3, 3, dtype=torch.float64)
    pk = torch.nn.utils.rnn.pack_padded_sequence(x, [5, 4, 2])
    h = torch.randn(4, 3, 4, dtype=torch.float64)
    hx = (h, h) if mode == "lstm" else h
    ehx = (E(h.numpy()), E(h.numpy())) if mode == "lstm" else E(h.numpy())
    ws = [E(w.detach().numpy()) for w in m._flat_weights]
    rt = getattr(torch, mode)(
        pk.data, pk.batch_sizes, hx, m._flat_weights, True, 2, 0.0, False, True
    )
    re = getattr(ember, mode)(
        E(pk.data.numpy()), E(pk.batch_sizes.numpy()), ehx, ws, True, 2, 0.0, False, True
    )
    for a, b in zip(re, rt):
        close(a, b, rtol=1e-10)
    me, mt = errors_alike(
        lambda: getattr(ember, mode)(E(x.numpy()), ehx, ws[:3], True, 2, 0.0, False, True, False),
        lambda: getattr(torch, mode)(x, hx, m._flat_weights[:3], True, 2, 0.0, False, True, False),
    )
    assert me == mt
    # dropout between layers only in training
    out1 = getattr(ember, mode)(E(x.numpy()), ehx, ws, True, 2, 0.9, False, True, False)[0]
    out2 = getattr(ember, mode)(E(x.numpy()), ehx, ws, True, 2, 0.0, False, True, False)[0]
    close(out1, out2, rtol=0)
    ember.manual_seed(0)
    out3 = getattr(ember, mode)(E(x.numpy()), ehx, ws, True, 2, 0.9, True, True, False)[0]
    assert not np.allclose(out3.detach().numpy(), out2.detach().numpy())


# ---- nn.functional: grouped/scaled matmuls, nn.grad, helpers -------------------------------------
@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_grouped_mm_matches_torch(dtype):
    rng = np.random.default_rng(7)
    i32 = np.int32
    cases = [
        ((12, 8), (3, 8, 16), np.array([2, 4, 12], i32)),  # groups of rows
        ((16, 8), (8, 16), np.array([4, 8], i32)),  # groups of the contraction
        ((2, 8, 8), (8, 16), np.array([4, 16], i32)),  # groups of columns
        ((3, 4, 8), (3, 8, 16), None),  # batched
    ]
    for sa, sb, offs in cases:
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        te, tt = E(a).to(getattr(ember, dtype)), T(a).to(getattr(torch, dtype))
        be, bt = E(b).to(getattr(ember, dtype)), T(b).to(getattr(torch, dtype))
        kwe = {} if offs is None else {"offs": E(offs)}
        kwt = {} if offs is None else {"offs": T(offs)}
        re, rt = EF.grouped_mm(te, be, **kwe), TF.grouped_mm(tt, bt, **kwt)
        assert str(re.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
        tol = 1e-5 if dtype == "float32" else 1e-2
        np.testing.assert_allclose(_np(re.float()), _np(rt.float()), rtol=tol, atol=tol)


@needs_torch
def test_grouped_mm_grad_and_errors():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((12, 8)).astype(np.float32)
    b = rng.standard_normal((3, 8, 16)).astype(np.float32)
    offs = np.array([2, 4, 12], np.int32)
    ae, be, at, bt = E(a, True), E(b, True), T(a, True), T(b, True)
    g = rng.standard_normal((12, 16)).astype(np.float32)
    ge = ember.autograd.grad(EF.grouped_mm(ae, be, offs=E(offs)), (ae, be), E(g))
    gt = torch.autograd.grad(TF.grouped_mm(at, bt, offs=T(offs)), (at, bt), T(g))
    for x, y in zip(ge, gt):
        close(x, y, rtol=1e-5, atol=1e-5)
    tail = EF.grouped_mm(E(a), E(b), offs=E(np.array([2, 4, 10], np.int32)))
    assert (tail[10:].numpy() == 0).all()  # rows past the last offset: zeros (torch: garbage)

    def gm(m, F, dtype="float32", offs="int32", **kw):
        o = {} if offs is None else {"offs": m.tensor([2, 4, 12], dtype=getattr(m, offs))}
        dt = getattr(m, dtype)
        return F.grouped_mm(m.ones(12, 8, dtype=dt), m.ones(3, 8, 16, dtype=dt), **o, **kw)

    cases = [
        lambda m, F: gm(m, F, dtype="float64"),
        lambda m, F: gm(m, F, offs=None),
        lambda m, F: gm(m, F, offs="int64"),
        lambda m, F: gm(m, F, bias=m.ones(3, 16)),
        lambda m, F: gm(m, F, out_dtype=m.float16),
    ]
    for f in cases:
        me, mt = errors_alike(lambda f=f: f(ember, EF), lambda f=f: f(torch, TF))
        assert me == mt


@needs_torch
def test_scaled_mm_matches_torch():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    w = rng.standard_normal((32, 16)).astype(np.float32)
    xt, xe = T(x).to(torch.float8_e4m3fn), E(x).to(ember.float8_e4m3fn)
    wt = T(w).t().contiguous().to(torch.float8_e4m3fn).t()
    we = E(w).to(ember.float8_e4m3fn)
    np.testing.assert_array_equal(_np(xe.float()), _np(xt.float()))
    TW_, EW_ = TF.ScalingType.TensorWise, EF.ScalingType.TensorWise
    for od in (None, "float32", "float16"):
        kt = {} if od is None else {"output_dtype": getattr(torch, od)}
        ke = {} if od is None else {"output_dtype": getattr(ember, od)}
        rt = TF.scaled_mm(xt, wt, T(np.float32(2.0)), TW_, T(np.float32(0.5)), TW_, **kt)
        re = EF.scaled_mm(xe, we, E(np.float32(2.0)), EW_, E(np.float32(0.5)), EW_, **ke)
        assert str(re.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(re.float()), _np(rt.float()), rtol=1e-6, atol=1e-5)
    sa = rng.random((16, 1)).astype(np.float32)
    sb = rng.random((1, 16)).astype(np.float32)
    RW_t, RW_e = TF.ScalingType.RowWise, EF.ScalingType.RowWise
    rt = TF.scaled_mm(xt, wt, T(sa), RW_t, T(sb), RW_t, output_dtype=torch.float32)
    re = EF.scaled_mm(xe, we, E(sa), RW_e, E(sb), RW_e, output_dtype=ember.float32)
    close(re, rt, rtol=1e-5, atol=1e-5)
    me, mt = errors_alike(
        lambda: EF.scaled_mm(E(x), E(w), E(np.float32(1)), EW_, E(np.float32(1)), EW_),
        lambda: TF.scaled_mm(T(x), T(w), T(np.float32(1)), TW_, T(np.float32(1)), TW_),
    )
    assert me.split("\nGot")[0] == mt.split("\nGot")[0]
    me, mt = errors_alike(
        lambda: EF.scaled_mm(xe, xe, E(np.float32(1)), EW_, E(np.float32(1)), EW_),
        lambda: TF.scaled_mm(xt, xt, T(np.float32(1)), TW_, T(np.float32(1)), TW_),
    )
    assert me == mt
    # enums: torch's names, values and reprs
    for e_enum, t_enum in ((EF.ScalingType, TF.ScalingType), (EF.SwizzleType, TF.SwizzleType)):
        assert list(e_enum.__members__) == list(t_enum.__members__)
        for name in t_enum.__members__:
            assert int(getattr(e_enum, name)) == int(getattr(t_enum, name))
            assert repr(getattr(e_enum, name)) == repr(getattr(t_enum, name))


def test_scaled_grouped_mm_is_scaled_grouped_product():
    rng = np.random.default_rng(10)
    a = E(rng.standard_normal((12, 8)).astype(np.float32)).to(ember.float8_e4m3fn)
    b = E(rng.standard_normal((3, 8, 16)).astype(np.float32)).to(ember.float8_e4m3fn)
    sa, sb = E(rng.random(12).astype(np.float32)), E(rng.random((3, 16)).astype(np.float32))
    offs = E(np.array([2, 4, 12], np.int32))
    RW = EF.ScalingType.RowWise
    got = EF.scaled_grouped_mm(a, b, sa, RW, sb, RW, offs=offs, output_dtype=ember.float32)
    af, bf = a.float().numpy() * sa.numpy()[:, None], b.float().numpy() * sb.numpy()[:, None, :]
    want = np.concatenate([af[:2] @ bf[0], af[2:4] @ bf[1], af[4:] @ bf[2]])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    assert EF.scaled_grouped_mm(a, b, sa, RW, sb, RW, offs=offs).dtype == ember.bfloat16
    with pytest.raises(ValueError, match="float8"):
        EF.scaled_grouped_mm(a.float(), b, sa, RW, sb, RW, offs=offs)


@needs_torch
@pytest.mark.parametrize("dim", [1, 2, 3])
@pytest.mark.parametrize(
    "stride,padding,dilation,groups", [(1, 0, 1, 1), (2, 1, 2, 2), (3, 2, 1, 1)]
)
def test_nn_grad_matches_torch(dim, stride, padding, dilation, groups):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 4) + (8,) * dim)
    w = rng.standard_normal((6, 4 // groups) + (3,) * dim)
    args = (stride, padding, dilation, groups)
    y = getattr(TF, f"conv{dim}d")(T(x), T(w), None, *args)
    go = rng.standard_normal(tuple(y.shape))
    gi_t = getattr(torch.nn.grad, f"conv{dim}d_input")(x.shape, T(w), T(go), *args)
    gi_e = getattr(ember.nn.grad, f"conv{dim}d_input")(x.shape, E(w), E(go), *args)
    close(gi_e, gi_t, rtol=1e-10)
    gw_t = getattr(torch.nn.grad, f"conv{dim}d_weight")(T(x), w.shape, T(go), *args)
    gw_e = getattr(EF.grad, f"conv{dim}d_weight")(E(x), w.shape, E(go), *args)
    close(gw_e, gw_t, rtol=1e-10)
    # differentiable, as torch's
    we = E(w, True)
    gi = getattr(ember.nn.grad, f"conv{dim}d_input")(x.shape, we, E(go), *args)
    assert (
        gi.requires_grad
        and not EF.grad.conv1d_input(
            (1, 1, 4), E(np.ones((1, 1, 2))), E(np.ones((1, 1, 3)))
        ).requires_grad
    )


@needs_torch
def test_functional_helpers():
    assert EF.GRID_SAMPLE_INTERPOLATION_MODES == TF.GRID_SAMPLE_INTERPOLATION_MODES
    assert EF.GRID_SAMPLE_PADDING_MODES == TF.GRID_SAMPLE_PADDING_MODES
    assert EF.grad is ember.nn.grad and sorted(ember.nn.grad.__all__) == sorted(
        n for n in dir(torch.nn.grad) if n.startswith("conv")
    )
    EF.assert_int_or_pair(3, "k", "{} bad")
    EF.assert_int_or_pair((1, 2), "k", "{} bad")
    with pytest.raises(AssertionError, match="^k bad$"):
        EF.assert_int_or_pair((1, 2, 3), "k", "{} bad")
