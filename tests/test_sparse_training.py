"""Training with sparse gradients against torch: Embedding/EmbeddingBag(sparse=True) weight
gradients (layout, accumulation, zero_grad), the sparse paths of SGD and Adagrad, SparseAdam,
the optimizers that refuse sparse gradients, and a whole bag-of-words classifier."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


@pytest.fixture(autouse=True)
def _quiet_torch():
    # torch warns that its sparse invariant checks are off
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


W = np.random.default_rng(0).standard_normal((6, 3))
X = [[0, 2, 0], [5, 2, 1]]


def _leaf(lib):
    return lib.tensor(W, dtype=lib.float64).requires_grad_()


def _layout(g):
    """(indices, values, is_coalesced) of a sparse gradient, as NumPy."""
    return g._indices().numpy(), g._values().detach().numpy(), g.is_coalesced()


def _same_grad(ge, gt):
    assert ge.layout == ember.sparse_coo and gt.layout == torch.sparse_coo
    ie, ve, ce = _layout(ge)
    it, vt, ct = _layout(gt)
    np.testing.assert_array_equal(ie, it)
    np.testing.assert_allclose(ve, vt, rtol=1e-12, atol=0)
    assert ce == ct
    np.testing.assert_allclose(ge.to_dense().numpy(), gt.to_dense().numpy(), rtol=1e-12)


# ---- the weight gradient --------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"max_norm": 1.0}])
def test_embedding_sparse_grad_layout(kwargs):
    ge = []
    for lib in (ember, torch):
        w = _leaf(lib)
        y = lib.nn.functional.embedding(lib.tensor(X), w, sparse=True, **kwargs)
        (y * lib.arange(18.0, dtype=lib.float64).reshape(2, 3, 3)).sum().backward()
        ge.append(w.grad)
    _same_grad(*ge)
    assert type(ge[0]).__name__ == "SparseTensor" and ge[0].is_sparse


@needs_torch
def test_embedding_sparse_one_index_is_coalesced_and_padding_only_is_empty():
    for idx, pad in (([1], None), ([1, 1], 1)):
        ge = []
        for lib in (ember, torch):
            w = _leaf(lib)
            lib.nn.functional.embedding(
                lib.tensor(idx), w, sparse=True, padding_idx=pad
            ).sum().backward()
            ge.append(w.grad)
        _same_grad(*ge)


@needs_torch
def test_embedding_sparse_grad_accumulates_over_two_backwards():
    ge = []
    for lib in (ember, torch):
        w = _leaf(lib)
        F = lib.nn.functional
        F.embedding(lib.tensor(X), w, sparse=True).sum().backward()
        (F.embedding(lib.tensor([1, 3]), w, sparse=True) * 100).sum().backward()
        ge.append(w.grad)
    # NOTE: the entry order of two uncoalesced gradients added differs (see add_entries);
    # the tensor, its coalesced form and the flag are torch's
    e, t = ge
    assert not e.is_coalesced() and not t.is_coalesced()
    np.testing.assert_allclose(e.to_dense().numpy(), t.to_dense().numpy(), rtol=1e-12)
    ec, tc = e.coalesce(), t.coalesce()
    np.testing.assert_array_equal(ec.indices().numpy(), tc.indices().numpy())
    np.testing.assert_allclose(ec.values().numpy(), tc.values().numpy(), rtol=1e-12)


@needs_torch
def test_coalesced_sparse_grads_add_as_torch_sorted_union():
    ge = []
    for lib in (ember, torch):
        w = _leaf(lib)
        w.grad = lib.sparse_coo_tensor([[0, 4]], lib.ones(2, 3, dtype=lib.float64), (6, 3))
        w.grad = w.grad.coalesce()
        g2 = lib.sparse_coo_tensor([[1, 4]], lib.full((2, 3), 2.0, dtype=lib.float64), (6, 3))
        w.grad.add_(g2.coalesce(), alpha=3)
        ge.append(w.grad)
    _same_grad(*ge)


@needs_torch
@pytest.mark.parametrize("order", ["dense_then_sparse", "sparse_then_dense", "one_graph"])
def test_sparse_and_dense_grads_of_one_weight_sum_densely(order):
    out = []
    for lib in (ember, torch):
        w = _leaf(lib)
        F = lib.nn.functional
        x = lib.tensor(X)
        if order == "one_graph":
            (F.embedding(x, w, sparse=True).sum() + (w * w).sum()).backward()
        else:
            for sparse in (False, True) if order == "dense_then_sparse" else (True, False):
                F.embedding(x, w, sparse=sparse).sum().backward()
        assert w.grad.layout == lib.strided
        out.append(w.grad.numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-12)


@needs_torch
def test_non_leaf_weight_gets_the_sparse_grad_through_mul():
    ge = []
    for lib in (ember, torch):
        w = _leaf(lib)
        lib.nn.functional.embedding(lib.tensor(X), w * 2, sparse=True).sum().backward()
        ge.append(w.grad)
    _same_grad(*ge)


@needs_torch
@pytest.mark.parametrize(
    "kwargs",
    [
        {"mode": "sum"},
        {"mode": "mean", "padding_idx": 4},
        {"mode": "sum", "per_sample_weights": True},
        {"mode": "mean", "include_last_offset": True},
    ],
)
def test_embedding_bag_sparse_grad_layout(kwargs):
    ge = []
    for lib in (ember, torch):
        w = _leaf(lib)
        kw = dict(kwargs)
        if kw.pop("per_sample_weights", False):
            kw["per_sample_weights"] = lib.arange(1.0, 7.0, dtype=lib.float64)
        y = lib.nn.functional.embedding_bag(
            lib.tensor([0, 2, 0, 4, 2, 1]), w, lib.tensor([0, 2, 2]), sparse=True, **kw
        )
        (y * lib.arange(1.0, 1.0 + y.numel(), dtype=lib.float64).reshape(y.shape)).sum().backward()
        ge.append(w.grad)
    _same_grad(*ge)


@needs_torch
def test_embedding_bag_module_2d_input_sparse_grad():
    ge = []
    for lib in (ember, torch):
        bag = lib.nn.EmbeddingBag(6, 3, mode="sum", sparse=True).double()
        with lib.no_grad():
            bag.weight.copy_(lib.tensor(W))
        bag(lib.tensor(X)).pow(2).sum().backward()
        ge.append(bag.weight.grad)
    _same_grad(*ge)


@needs_torch
def test_sparse_grad_errors_match_torch():
    for lib in (ember, torch):
        w = _leaf(lib)
        y = lib.nn.functional.embedding(lib.tensor(X), w, sparse=True, scale_grad_by_freq=True)
        with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse"):
            y.sum().backward()
        with pytest.raises(ValueError, match="max mode does not support sparse weights"):
            lib.nn.functional.embedding_bag(lib.tensor(X), w, mode="max", sparse=True)


@needs_torch
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_of_a_sparse_grad(set_to_none):
    ge = []
    for lib in (ember, torch):
        emb = lib.nn.Embedding(6, 3, sparse=True).double()
        opt = lib.optim.SGD(emb.parameters(), lr=0.1)
        emb(lib.tensor(X)).sum().backward()
        opt.zero_grad(set_to_none=set_to_none)
        if set_to_none:
            assert emb.weight.grad is None
        else:
            g = emb.weight.grad
            assert g.layout == lib.sparse_coo and g._nnz() == 0 and g.is_coalesced()
        emb(lib.tensor([[3, 1]])).sum().backward()
        emb.zero_grad(set_to_none=False)
        emb(lib.tensor(X)).sum().backward()
        ge.append(emb.weight.grad)
    _same_grad(*ge)


@needs_torch
def test_clip_grad_refuses_sparse_grads_as_torch():
    for lib in (ember, torch):
        w = _leaf(lib)
        lib.nn.functional.embedding(lib.tensor(X), w, sparse=True).sum().backward()
        with pytest.raises(NotImplementedError, match="SparseCPU"):
            lib.nn.utils.clip_grad_norm_([w], 0.5)
        with pytest.raises(NotImplementedError, match="SparseCPU"):
            lib.nn.utils.clip_grad_value_([w], 0.5)


# ---- optimizers -----------------------------------------------------------------------------
def _trajectory(lib, name, kwargs, steps=20, seed=0):
    rng = np.random.default_rng(seed)
    w = lib.tensor(rng.standard_normal((7, 3)), dtype=lib.float64).requires_grad_()
    opt = getattr(lib.optim, name)([w], **kwargs)
    out = []
    for _ in range(steps):
        idx = lib.tensor(rng.integers(0, 7, (4, 2)))
        tgt = lib.tensor(rng.standard_normal((4, 2, 3)))
        opt.zero_grad()
        ((lib.nn.functional.embedding(idx, w, sparse=True) - tgt) ** 2).sum().backward()
        opt.step()
        out.append(w.detach().numpy().copy())
    return np.array(out), opt


@needs_torch
@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("SGD", {"lr": 0.1}),
        ("SGD", {"lr": 0.1, "maximize": True}),
        ("SGD", {"lr": 0.05, "momentum": 0.9}),
        ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}),
        ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
        ("Adagrad", {"lr": 0.1}),
        ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "initial_accumulator_value": 0.2}),
        ("Adagrad", {"lr": 0.1, "eps": 1e-3, "maximize": True}),
        ("SparseAdam", {"lr": 0.1}),
        ("SparseAdam", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-6, "maximize": True}),
    ],
)
def test_sparse_grad_trajectories_match_torch(name, kwargs):
    e, oe = _trajectory(ember, name, kwargs)
    t, ot = _trajectory(torch, name, kwargs)
    np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)
    # the state has torch's keys and layouts
    assert len(oe.state) == len(ot.state)
    se, st = next(iter(oe.state.values()), {}), next(iter(ot.state.values()), {})
    assert list(se) == list(st)
    for k in st:
        if isinstance(st[k], torch.Tensor):
            assert str(se[k].layout).split(".")[-1] == str(st[k].layout).split(".")[-1], k
            np.testing.assert_allclose(
                se[k].to_dense().numpy() if se[k].layout == ember.sparse_coo else se[k].numpy(),
                st[k].to_dense().numpy(),
                rtol=1e-10,
                atol=1e-12,
            )
        else:
            assert se[k] == st[k] and type(se[k]) is type(st[k])


@needs_torch
def test_sparse_adam_touches_only_the_looked_up_rows():
    e, _ = _trajectory(ember, "SparseAdam", {"lr": 0.1}, steps=1, seed=3)
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((7, 3))
    rows = np.unique(rng.integers(0, 7, (4, 2)))
    moved = np.flatnonzero((e[0] != w0).any(1))
    np.testing.assert_array_equal(moved, rows)


@needs_torch
@pytest.mark.parametrize(
    "name,kwargs,exc",
    [
        ("SGD", {"lr": 0.1, "weight_decay": 0.1}, RuntimeError),
        ("Adagrad", {"weight_decay": 0.1}, RuntimeError),
        ("Adam", {}, RuntimeError),
        ("AdamW", {}, RuntimeError),
        ("RMSprop", {}, RuntimeError),
        ("Adadelta", {}, RuntimeError),
        ("Adamax", {}, RuntimeError),
        ("NAdam", {}, RuntimeError),
        ("RAdam", {}, RuntimeError),
        ("Rprop", {}, RuntimeError),
        ("ASGD", {}, RuntimeError),
    ],
)
def test_optimizers_refuse_sparse_grads_as_torch(name, kwargs, exc):
    msgs = []
    for lib in (ember, torch):
        w = _leaf(lib)
        lib.nn.functional.embedding(lib.tensor(X), w, sparse=True).sum().backward()
        with pytest.raises(exc) as info:
            getattr(lib.optim, name)([w], **kwargs).step()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


@needs_torch
def test_sparse_adam_errors_and_defaults_match_torch():
    def both(fn):
        out = []
        for lib in (ember, torch):
            with pytest.raises(Exception) as info:
                fn(lib)
            out.append((type(info.value), str(info.value)))
        assert out[0] == out[1], out

    def dense_grad(lib):
        w = lib.zeros(3, requires_grad=True)
        w.grad = lib.ones(3)
        lib.optim.SparseAdam([w]).step()

    both(dense_grad)
    for kw in (
        {"lr": 0.0},
        {"lr": -1.0},
        {"eps": 0.0},
        {"betas": (1.0, 0.9)},
        {"betas": (0.9, -0.1)},
    ):
        both(lambda lib, kw=kw: lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], **kw))
    both(
        lambda lib: lib.optim.SparseAdam(
            [lib.sparse_coo_tensor([[0]], [1.0], (2,), requires_grad=True)]
        )
    )
    both(lambda lib: lib.optim.SparseAdam([lib.zeros(2, dtype=lib.complex64, requires_grad=True)]))
    oe = ember.optim.SparseAdam([ember.zeros(2, requires_grad=True)])
    ot = torch.optim.SparseAdam([torch.zeros(2, requires_grad=True)])
    assert oe.defaults == ot.defaults
    assert oe.state_dict() == ot.state_dict()


# ---- a whole program ------------------------------------------------------------------------
def _bag_of_words(lib, steps=20):
    rng = np.random.default_rng(7)
    vocab, dim, classes = 50, 8, 3
    tokens = rng.integers(0, vocab, 60)
    offsets = np.sort(rng.choice(np.arange(1, 60), 11, replace=False))
    offsets = np.concatenate([[0], offsets])
    labels = rng.integers(0, classes, offsets.shape[0])
    lib.manual_seed(0)
    bag = lib.nn.EmbeddingBag(vocab, dim, mode="mean", sparse=True).double()
    head = lib.nn.Linear(dim, classes).double()
    with lib.no_grad():  # the same start for both libraries
        bag.weight.copy_(lib.tensor(rng.standard_normal((vocab, dim))))
        head.weight.copy_(lib.tensor(rng.standard_normal((classes, dim)) * 0.3))
        head.bias.copy_(lib.tensor(rng.standard_normal(classes) * 0.1))
    sparse_opt = lib.optim.SparseAdam(list(bag.parameters()), lr=0.05)
    dense_opt = lib.optim.Adam(head.parameters(), lr=0.01)
    x, off, y = lib.tensor(tokens), lib.tensor(offsets), lib.tensor(labels)
    losses = []
    for _ in range(steps):
        sparse_opt.zero_grad()
        dense_opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(head(bag(x, off)), y)
        loss.backward()
        sparse_opt.step()
        dense_opt.step()
        losses.append(loss.item())
    return np.array(losses), bag.weight.detach().numpy().copy()


@needs_torch
def test_bag_of_words_classifier_trains_as_torch():
    le, we = _bag_of_words(ember)
    lt, wt = _bag_of_words(torch)
    np.testing.assert_allclose(le, lt, rtol=1e-10)
    np.testing.assert_allclose(we, wt, rtol=1e-10, atol=1e-12)
    assert le[-1] < le[0]  # it learns


@needs_torch
@pytest.mark.parametrize(
    "name,kwargs,same_rows",
    [
        ("SGD", {"lr": 0.1}, False),
        ("SGD", {"lr": 0.05, "momentum": 0.9}, True),
        ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}, False),
        ("Adagrad", {"lr": 0.1}, False),
        ("SparseAdam", {"lr": 0.1}, False),
    ],
)
def test_large_sparse_grads_match_torch(name, kwargs, same_rows):
    # thousands of looked-up rows: the SciPy paths of coalesce and of dense += sparse
    out = []
    for lib in (ember, torch):
        rng = np.random.default_rng(5)
        w = lib.tensor(rng.standard_normal((300, 4)), dtype=lib.float64).requires_grad_()
        opt = getattr(lib.optim, name)([w], **kwargs)
        idx = lib.tensor(rng.integers(0, 300, (512, 8)))
        for _ in range(3):
            if not same_rows:
                idx = lib.tensor(rng.integers(0, 300, (512, 8)))
            opt.zero_grad()
            lib.nn.functional.embedding(idx, w, sparse=True).pow(2).sum().backward()
            opt.step()
        buf = opt.state[w].get("momentum_buffer") if opt.state else None
        out.append((w.detach().numpy().copy(), None if buf is None else buf._nnz()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-10, atol=1e-12)
    if same_rows:  # equal entry lists add pairwise: the buffer keeps torch's size
        assert out[0][1] == out[1][1] == 4096


@needs_torch
def test_hand_written_sgd_adds_a_sparse_grad_into_the_dense_weight():
    out = []
    for lib in (ember, torch):
        w = _leaf(lib)
        lib.nn.functional.embedding(lib.tensor(X), w, sparse=True).pow(2).sum().backward()
        with lib.no_grad():
            w.add_(w.grad, alpha=-0.1)  # the classic manual update
            w -= 0.1 * w.grad
        w.data.sub_(w.grad)
        d = lib.ones(6, 3, dtype=lib.float64)
        out.append([w.detach().numpy(), (d + w.grad).numpy(), lib.add(d, w.grad, alpha=2).numpy()])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@needs_torch
def test_sparse_grad_under_create_graph_matches_torch():
    ge = []
    for lib in (ember, torch):
        w = _leaf(lib)
        lib.nn.functional.embedding(lib.tensor(X), w, sparse=True).sum().backward(create_graph=True)
        g = lib.autograd.grad(
            lib.nn.functional.embedding(lib.tensor(X), w, sparse=True).sum(), w, create_graph=True
        )[0]
        assert not g.requires_grad and g.layout == lib.sparse_coo
        ge.append(w.grad)
    _same_grad(*ge)
