"""F.embedding, F.embedding_bag, F.one_hot, nn.Embedding and nn.EmbeddingBag: parity with
torch in float64 (outputs, weight and per-sample-weight gradients, in-place max_norm renorm),
errors, reprs, from_pretrained, meta construction, gradcheck."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import ember
import ember.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

TOL = 1e-12
RNG = np.random.default_rng(0)
W = RNG.standard_normal((7, 4)) * 2
IDX2 = np.array([[1, 1, 3, 0, 6], [2, 1, 5, 5, 4], [0, 0, 6, 1, 2]])
IDX1 = np.array([1, 2, 1, 3, 1, 5, 6, 1, 2, 0])
OFF = np.array([0, 3, 3, 7])


def _close(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=TOL, atol=TOL)


def _both(fn_t, fn_e, idx, **kw):
    """Run torch's and ember's function; compare output, weight (renorm), gradients."""
    wt, we = torch.tensor(W, requires_grad=True), ember.tensor(W, requires_grad=True)
    kt, ke = {}, {}
    for k, v in kw.items():
        if isinstance(v, np.ndarray):
            grad = v.dtype.kind == "f"
            kt[k] = torch.tensor(v, requires_grad=grad)
            ke[k] = ember.tensor(v, requires_grad=grad)
        else:
            kt[k] = ke[k] = v
    yt = fn_t(torch.tensor(idx), wt, **kt)
    ye = fn_e(ember.tensor(idx), we, **ke)
    _close(ye, yt)
    g = RNG.standard_normal(tuple(yt.shape))
    (yt * torch.tensor(g)).sum().backward()
    (ye * ember.tensor(g)).sum().backward()
    _close(we.grad, wt.grad)
    _close(we, wt)  # max_norm rescales rows in place
    for k in kw:
        if getattr(kt[k], "requires_grad", False):
            _close(ke[k].grad, kt[k].grad)


@needs_torch
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"padding_idx": 2},
        {"padding_idx": -1},
        {"scale_grad_by_freq": True},
        {"padding_idx": 0, "scale_grad_by_freq": True},
        {"max_norm": 1.0},
        {"max_norm": 1.5, "norm_type": 1.0},
        {"max_norm": 2.0, "norm_type": float("inf")},
    ],
)
def test_embedding_parity(kw):
    _both(TF.embedding, F.embedding, IDX2, **kw)
    _both(TF.embedding, F.embedding, IDX1, **kw)


@needs_torch
def test_embedding_int32_indices_and_scalar_index():
    _both(TF.embedding, F.embedding, IDX2.astype(np.int32))
    _both(TF.embedding, F.embedding, np.array(3))


@needs_torch
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize(
    "kw",
    [
        {"offsets": OFF},
        {"offsets": OFF, "padding_idx": 1},
        {"offsets": OFF, "include_last_offset": True},
        {"offsets": np.array([0, 2, 2, 9]), "include_last_offset": True, "padding_idx": -2},
        {"offsets": OFF, "max_norm": 1.0},
        {},
        {"padding_idx": 0},
    ],
)
def test_embedding_bag_parity(mode, kw):
    idx = IDX1 if "offsets" in kw else IDX2
    _both(TF.embedding_bag, F.embedding_bag, idx, mode=mode, **kw)


@needs_torch
def test_embedding_bag_per_sample_weights():
    psw = RNG.standard_normal(IDX1.shape)
    _both(TF.embedding_bag, F.embedding_bag, IDX1, offsets=OFF, mode="sum", per_sample_weights=psw)
    _both(
        TF.embedding_bag,
        F.embedding_bag,
        IDX1,
        offsets=OFF,
        mode="sum",
        per_sample_weights=psw,
        padding_idx=1,
    )
    _both(
        TF.embedding_bag,
        F.embedding_bag,
        IDX2,
        mode="sum",
        per_sample_weights=RNG.standard_normal(IDX2.shape),
    )


def test_embedding_bag_scale_grad_by_freq_divides_by_each_index_count():
    # a deliberate difference: torch's CPU kernel scales these gradients inconsistently; ember
    # divides by each index's count in the input, as F.embedding does
    w = ember.tensor(W, requires_grad=True)
    F.embedding_bag(
        ember.tensor(IDX1), w, ember.tensor(OFF), mode="sum", scale_grad_by_freq=True
    ).sum().backward()
    present = np.isin(np.arange(7), IDX1)
    np.testing.assert_allclose(w.grad.numpy()[:, 0], present.astype(float))


def test_embedding_bag_max_tie_and_empty_bag():
    w = ember.tensor([[1.0, 5.0], [1.0, 2.0], [0.0, 7.0]], requires_grad=True)
    y = F.embedding_bag(ember.tensor([1, 0, 2]), w, ember.tensor([0, 2, 2]), mode="max")
    np.testing.assert_array_equal(y.detach().numpy(), [[1, 5], [0, 0], [0, 7]])
    y.sum().backward()
    # the first of the tied rows (1 then 0) wins column 0
    np.testing.assert_array_equal(w.grad.numpy(), [[0, 1], [1, 0], [1, 1]])


@needs_torch
@pytest.mark.parametrize(
    "case",
    [
        (np.array([1, 2]), 3),
        (np.array([[0, 4], [2, 1]]), -1),
        (np.array(2), 3),
        (np.zeros(0, np.int64), 3),
    ],
)
def test_one_hot_parity(case):
    x, n = case
    yt = TF.one_hot(torch.tensor(x), n)
    ye = F.one_hot(ember.tensor(x), n)
    assert ye.dtype == ember.int64 and ye.shape == tuple(yt.shape)
    np.testing.assert_array_equal(ye.numpy(), yt.numpy())


def _same_error(fn_t, fn_e, exact=True):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(Exception) as ee:
        fn_e()
    assert type(ee.value) is type(et.value), (ee.value, et.value)
    if exact:
        assert str(ee.value) == str(et.value)
    return str(ee.value)


@needs_torch
@pytest.mark.parametrize("args", [([1, 2], 2), ([1, -1], 3), ([], -1), ([1], -2)])
def test_one_hot_errors_match_torch(args):
    x, n = args
    _same_error(
        lambda: TF.one_hot(torch.tensor(x, dtype=torch.int64), n),
        lambda: F.one_hot(ember.tensor(x, dtype=ember.int64), n),
    )
    _same_error(
        lambda: TF.one_hot(torch.tensor([1.0]), 3), lambda: F.one_hot(ember.tensor([1.0]), 3)
    )


@needs_torch
def test_embedding_errors_match_torch():
    wt, we = torch.tensor(W), ember.tensor(W)
    msg = _same_error(
        lambda: TF.embedding(torch.tensor([7]), wt),
        lambda: F.embedding(ember.tensor([7]), we),
        exact=False,
    )
    assert msg.startswith("index out of range in self")
    _same_error(
        lambda: TF.embedding(torch.tensor([-1]), wt),
        lambda: F.embedding(ember.tensor([-1]), we),
        exact=False,
    )
    _same_error(
        lambda: TF.embedding(torch.tensor([1.0]), wt),
        lambda: F.embedding(ember.tensor([1.0]), we),
        exact=False,
    )
    _same_error(
        lambda: TF.embedding(torch.tensor([1]), wt[0]),
        lambda: F.embedding(ember.tensor([1]), we[0]),
        exact=False,
    )
    _same_error(
        lambda: TF.embedding(torch.tensor([1]), wt, padding_idx=7),
        lambda: F.embedding(ember.tensor([1]), we, padding_idx=7),
    )


@needs_torch
@pytest.mark.parametrize(
    "call",
    [
        lambda lib, w, f: f(lib.tensor([1, 2, 7]), w, lib.tensor([0, 2])),
        lambda lib, w, f: f(lib.tensor([1, 2, 4]), w, lib.tensor([1, 2])),
        lambda lib, w, f: f(lib.tensor([1, 2, 4]), w, lib.tensor([0, 5])),
        lambda lib, w, f: f(lib.tensor([1, 2, 4]), w, None),
        lambda lib, w, f: f(lib.tensor([[1, 2]]), w, lib.tensor([0])),
        lambda lib, w, f: f(lib.tensor([1, 2]), w, lib.tensor([0]), mode="foo"),
        lambda lib, w, f: f(
            lib.tensor([1, 2]), w, lib.tensor([0]), mode="max", scale_grad_by_freq=True
        ),
        lambda lib, w, f: f(
            lib.tensor([1, 2]),
            w,
            lib.tensor([0]),
            mode="mean",
            per_sample_weights=lib.ones(2, dtype=w.dtype),
        ),
        lambda lib, w, f: f(lib.tensor([[[1]]]), w),
        lambda lib, w, f: f(lib.tensor([1]), w[0], lib.tensor([0])),
    ],
)
def test_embedding_bag_errors_match_torch(call):
    msg = _same_error(
        lambda: call(torch, torch.tensor(W), TF.embedding_bag),
        lambda: call(ember, ember.tensor(W), F.embedding_bag),
        exact=False,
    )
    assert (
        "embedding_bag" in msg
        or "offsets" in msg
        or "mode" in msg
        or "input" in msg
        or "weight" in msg
    )


def test_embedding_gradcheck():
    w = ember.tensor(W[:5, :3], requires_grad=True)
    idx = ember.tensor([[0, 2, 2], [4, 1, 0]])
    # (not scale_grad_by_freq: it deliberately departs from the true gradient)
    assert ember.autograd.gradcheck(lambda w: F.embedding(idx, w), (w,))
    assert ember.autograd.gradgradcheck(lambda w: F.embedding(idx, w).square(), (w,))
    offs = ember.tensor([0, 2, 4])
    idx1 = ember.tensor([0, 2, 2, 4, 1, 0])
    psw = ember.tensor(RNG.standard_normal(6), requires_grad=True)
    for mode in ("sum", "mean", "max"):
        assert ember.autograd.gradcheck(
            lambda w, mode=mode: F.embedding_bag(idx1, w, offs, mode=mode, padding_idx=4), (w,)
        )
    assert ember.autograd.gradcheck(
        lambda w, p: F.embedding_bag(idx1, w, offs, mode="sum", per_sample_weights=p), (w, psw)
    )
    assert ember.autograd.gradgradcheck(
        lambda w, p: F.embedding_bag(idx1, w, offs, mode="sum", per_sample_weights=p), (w, psw)
    )


# ---- modules -----------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "cls_name,args,kwargs",
    [
        ("Embedding", (5, 3), {}),
        (
            "Embedding",
            (5, 3),
            {
                "padding_idx": -1,
                "max_norm": 1.0,
                "norm_type": 1.0,
                "scale_grad_by_freq": True,
                "sparse": True,
            },
        ),
        ("EmbeddingBag", (5, 3), {"mode": "sum", "padding_idx": 1}),
        ("EmbeddingBag", (5, 3), {"max_norm": 2.0, "norm_type": 3}),
    ],
)
def test_module_repr_state_dict_constants(cls_name, args, kwargs):
    tm = getattr(torch.nn, cls_name)(*args, **kwargs)
    em = getattr(ember.nn, cls_name)(*args, **kwargs)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert em.padding_idx == tm.padding_idx
    assert getattr(ember.nn, cls_name).__constants__ == getattr(torch.nn, cls_name).__constants__


@needs_torch
@pytest.mark.parametrize(
    "cls_name,fwd_args",
    [
        ("Embedding", lambda lib: (lib.tensor(IDX2),)),
        ("EmbeddingBag", lambda lib: (lib.tensor(IDX1), lib.tensor(OFF))),
    ],
)
def test_module_parity_through_state_dict(cls_name, fwd_args):
    tm = getattr(torch.nn, cls_name)(7, 4, padding_idx=1, max_norm=1.2).double()
    em = getattr(ember.nn, cls_name)(7, 4, padding_idx=1, max_norm=1.2, dtype=ember.float64)
    em.load_state_dict({k: ember.tensor(v.numpy().copy()) for k, v in tm.state_dict().items()})
    yt, ye = tm(*fwd_args(torch)), em(*fwd_args(ember))
    _close(ye, yt)
    yt.square().sum().backward()
    ye.square().sum().backward()
    _close(em.weight.grad, tm.weight.grad)
    _close(em.weight, tm.weight)


def test_default_init_padding_row_and_freeze():
    ember.manual_seed(0)
    m = ember.nn.Embedding(100, 50, padding_idx=3)
    w = m.weight.detach().numpy()
    assert np.all(w[3] == 0) and abs(w.std() - 1) < 0.05
    assert m.weight.requires_grad
    m2 = ember.nn.Embedding(4, 2, _freeze=True)
    assert not m2.weight.requires_grad
    y = m(ember.tensor([3, 4]))
    y.sum().backward()
    assert np.all(m.weight.grad.numpy()[3] == 0) and np.all(m.weight.grad.numpy()[4] == 1)


def test_from_pretrained():
    e = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    m = ember.nn.Embedding.from_pretrained(e)
    assert not m.weight.requires_grad
    np.testing.assert_array_equal(m(ember.tensor([1])).numpy(), [[3, 4]])
    m = ember.nn.Embedding.from_pretrained(e, freeze=False, padding_idx=0)
    assert m.weight.requires_grad and m.padding_idx == 0
    b = ember.nn.EmbeddingBag.from_pretrained(e, mode="sum")
    assert not b.weight.requires_grad
    np.testing.assert_array_equal(b(ember.tensor([[0, 1]])).numpy(), [[4, 6]])
    with pytest.raises(AssertionError, match="2-dimensional"):
        ember.nn.Embedding.from_pretrained(ember.ones(3))
    with pytest.raises(AssertionError, match="Shape of weight"):
        ember.nn.Embedding(3, 2, _weight=ember.ones(2, 2))
    with pytest.raises(AssertionError, match="Padding_idx must be within"):
        ember.nn.Embedding(3, 2, padding_idx=-4)


def test_meta_construction_allocates_nothing():
    tracemalloc.start()
    try:
        m = ember.nn.Embedding(1_000_000, 1024, device="meta")
        b = ember.nn.EmbeddingBag(1_000_000, 1024, padding_idx=0, device="meta")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    assert m.weight.is_meta and m.weight.shape == (1_000_000, 1024)
    assert b.weight.is_meta and b.weight.shape == (1_000_000, 1024)
