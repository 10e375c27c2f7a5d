"""Sparse COO/CSR tensors (ember.sparse) against torch: values, gradients, reprs, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

RNG = np.random.default_rng(0)
IDX = np.array([[0, 1, 1, 0], [2, 0, 2, 2]])  # (0, 2) twice: uncoalesced
V = RNG.standard_normal(4)
D = RNG.standard_normal((3, 4))
M = RNG.standard_normal((2, 3))


@pytest.fixture(autouse=True)
def _quiet_torch():
    # torch warns that its sparse invariant checks are off and that CSR is beta
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _np(t):
    t = t.detach()
    if t.layout is not (ember.strided if isinstance(t, ember.Tensor) else torch.strided):
        t = t.to_dense()
    return t.numpy()


def _close(a, b):
    if a is None or b is None:
        assert a is None and b is None
        return
    rtol = 1e-9 if b.dtype is torch.float64 else 1e-6
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=1e-12)


# ---- forward and gradients through the values -------------------------------------------------
CASES = {
    "sparse.mm": lambda L, s, d: L.sparse.mm(s, d),
    "matmul_op": lambda L, s, d: s @ d,
    "mm": lambda L, s, d: L.mm(s, d),
    "Tensor.mm": lambda L, s, d: s.mm(d),
    "matmul_vec": lambda L, s, d: s @ d[:, 0],
    "spmm": lambda L, s, d: L.spmm(s, d),
    "addmm": lambda L, s, d: L.addmm(L.tensor(M[:, :2]).repeat(1, 2), s, d, beta=0.5, alpha=2),
    "sparse.addmm": lambda L, s, d: L.sparse.addmm(
        L.tensor(M[:, :2]).repeat(1, 2), s, d, beta=0.5, alpha=2
    ),
    "to_dense": lambda L, s, d: s.to_dense() * L.tensor(M),
    "sum_all": lambda L, s, d: L.sparse.sum(s) * 2,
    "sum_dim": lambda L, s, d: (
        L.sparse.sum(s, 1).to_dense() * L.tensor([1.0, 2.0], dtype=L.float64)
    ),
    "sum_method": lambda L, s, d: s.sum() * 2,
    "softmax": lambda L, s, d: L.sparse.softmax(s, 1).to_dense() * L.tensor(M),
    "log_softmax": lambda L, s, d: L.sparse.log_softmax(s, 0).to_dense() * L.tensor(M),
    "mul_add": lambda L, s, d: (s * 3 + s - s / 2).to_dense() ** 2,
    "rmul_neg": lambda L, s, d: (2 * (-s)).to_dense(),
    "t": lambda L, s, d: s.t().coalesce() @ L.tensor(D[:2]),
    "transpose": lambda L, s, d: s.transpose(0, 1).to_dense() * L.tensor(M.T),
    "csr_mm": lambda L, s, d: s.coalesce().to_sparse_csr() @ d,
    "csr_to_dense": lambda L, s, d: s.to_sparse_csr().to_dense() * L.tensor(M),
    "mul_sparse": lambda L, s, d: (s * (s * 2)).to_dense(),
    "mul_dense": lambda L, s, d: (s * L.tensor(M)).to_dense(),
    "dense_add": lambda L, s, d: L.tensor(M) + s,
    "dense_sub": lambda L, s, d: L.tensor(M) - s,
    "mixed_grads": lambda L, s, d: L.sparse.mm(s, d) + L.mm(s, d),
    "values": lambda L, s, d: s.coalesce().values() * L.arange(3.0, dtype=L.float64),
    "clone_to": lambda L, s, d: s.clone().to(L.float32).double().to_dense(),
}


def _run(L, name):
    v = L.tensor(V, requires_grad=True)
    d = L.tensor(D, requires_grad=True)
    s = L.sparse_coo_tensor(L.tensor(IDX), v, (2, 3))
    y = CASES[name](L, s, d)
    (y.to_dense() if y.layout is not L.strided else y).pow(2).sum().backward()
    return y, v.grad, d.grad


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    for a, b in zip(_run(ember, name), _run(torch, name)):
        _close(a, b)


@needs_torch
@pytest.mark.parametrize("api", ["sparse.mm", "matmul_op", "to_dense", "sum"])
def test_sparse_leaf_grad_matches_torch(api):
    # torch: sparse.mm and to_dense give a sparse .grad (the coalesced pattern), @ a dense one
    def run(L):
        s = L.sparse_coo_tensor(L.tensor(IDX), L.tensor(V), (2, 3), requires_grad=True)
        d = L.tensor(D)
        for _ in range(2):  # twice: accumulation
            y = {
                "sparse.mm": lambda: L.sparse.mm(s, d),
                "matmul_op": lambda: s @ d,
                "to_dense": lambda: s.to_dense() * L.tensor(M),
                "sum": lambda: L.sparse.sum(s, 0).to_dense(),
            }[api]()
            (y**2).sum().backward()
        return s.grad

    ge, gt = run(ember), run(torch)
    assert ge.is_sparse == gt.is_sparse
    if gt.is_sparse:
        gt = gt.coalesce()
        ge = ge.coalesce()
        np.testing.assert_array_equal(ge.indices().numpy(), gt.indices().numpy())
    _close(ge, gt)


def _make(v, d):
    return ember.sparse.mm(ember.sparse_coo_tensor(ember.tensor(IDX), v, (2, 3)), d)


def test_gradcheck_and_gradgradcheck():
    v = ember.tensor(V, requires_grad=True)
    d = ember.tensor(D, requires_grad=True)
    assert gradcheck(_make, (v, d))
    assert gradgradcheck(_make, (v, d))
    assert gradgradcheck(
        lambda v, d: ember.sparse_coo_tensor(ember.tensor(IDX), v, (2, 3)) @ d, (v, d)
    )

    def soft(v):
        s = ember.sparse_coo_tensor(ember.tensor(IDX), v, (2, 3))
        return ember.sparse.log_softmax(s, 1).to_dense()

    assert gradcheck(soft, (v,))
    csr = lambda v, d: ember.sparse_csr_tensor([0, 1, 3], [2, 0, 2], v[:3], (2, 3)) @ d  # noqa: E731
    assert gradcheck(csr, (v, d))


# ---- construction, conversion, repr ------------------------------------------------------------
REPRS = {
    "coo": lambda L: L.sparse_coo_tensor(L.tensor(IDX), L.tensor([1.0, 2.0, 3.0, 4.0]), (2, 3)),
    "coalesced_f64": lambda L: L.sparse_coo_tensor(L.tensor(IDX), L.tensor(V), (2, 3)).coalesce(),
    "int": lambda L: L.sparse_coo_tensor([[0, 1], [1, 5]], [1, 2]),
    "empty": lambda L: L.zeros(2, 2).to_sparse(),
    "hybrid": lambda L: L.tensor([[0.0, 0.0], [1.5, 2.0]]).to_sparse(1),
    "requires_grad": lambda L: L.sparse_coo_tensor([[0], [1]], [1.0], (2, 2), requires_grad=True),
    "grad_fn": lambda L: L.sparse_coo_tensor([[0], [1]], L.ones(1, requires_grad=True), (2, 2)),
    "csr": lambda L: L.tensor([[0.0, 3.0], [4.0, 5.0]]).to_sparse_csr(),
    "csr_f64": lambda L: L.sparse_csr_tensor(
        [0, 1, 3], [2, 0, 2], L.tensor([3.0, 4.0, 5.0], dtype=L.float64), (2, 3)
    ),
    "wide": lambda L: L.arange(40.0).reshape(2, 20).to_sparse(),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(REPRS))
def test_repr_matches_torch(name):
    e, t = REPRS[name](ember), REPRS[name](torch)
    expect = repr(t).replace("torch.", "ember.")
    # ember's own node name for a tensor built from tracked values
    expect = expect.replace("<SparseCooTensorWithDimsAndTensorsBackward0>", "<X>")
    got = repr(e).replace("<SparseCooTensorWithDimsAndTensorsBackward0>", "<X>")
    assert got == expect


@needs_torch
@pytest.mark.parametrize(
    "expr",
    [
        "x.to_sparse()",
        "x.to_sparse(1)",
        "x.to_sparse(layout=L.sparse_csr)",
        "x.to_sparse_csr().to_sparse_coo()",
        "x.to_sparse_csr().to_sparse()",
        "x.to_sparse().to_sparse_csr()",
        "x.to_sparse().to_sparse(layout=L.strided)",
        "L.sparse_coo_tensor(L.tensor(IDX), L.tensor(V)).coalesce()",
        "L.sparse_coo_tensor(L.tensor(IDX), L.tensor(V), (3, 4)).coalesce()",
        "L.sparse_coo_tensor(L.tensor(IDX), L.tensor(V)).t().coalesce()",
        "L.sparse_coo_tensor(L.tensor(IDX), L.tensor(V))"
        " + L.sparse_coo_tensor([[0], [0]], [1.0], (2, 3))",
        "L.sparse.sum(x.to_sparse(), (0, 1))",
        "L.sparse.sum(x.to_sparse(1), 1)",
        "L.sparse.softmax(x.to_sparse(1), 1)",
        "L.sparse.softmax(x.to_sparse(), -1, dtype=L.float32)",
        "L.sparse_csr_tensor(L.tensor([0, 1, 3]), L.tensor([2, 0, 2]), L.tensor([1.0, 2, 3]))",
        "L.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]], (3, 2)) * 2",
    ],
)
def test_conversions_match_torch(expr):
    x0 = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]])
    out = []
    for L in (ember, torch):
        x = L.tensor(x0)  # noqa: F841 (read by eval)
        out.append(eval(expr, {"L": L, "x": x, "IDX": IDX, "V": V}))
    e, t = out
    assert e.layout is getattr(ember, str(t.layout).split(".")[1])
    assert e.shape == tuple(t.shape) and str(e.dtype) == str(t.dtype).replace("torch", "ember")
    if t.layout is torch.sparse_coo:
        assert e.is_coalesced() == t.is_coalesced()
        assert e.sparse_dim() == t.sparse_dim() and e.dense_dim() == t.dense_dim()
        if t.is_coalesced():
            np.testing.assert_array_equal(e.indices().numpy(), t.indices().numpy())
            rtol = 1e-9 if t.dtype is torch.float64 else 1e-6
            np.testing.assert_allclose(e.values().numpy(), t.values().numpy(), rtol=rtol)
    if t.layout is torch.sparse_csr:
        np.testing.assert_array_equal(e.crow_indices().numpy(), t.crow_indices().numpy())
        np.testing.assert_array_equal(e.col_indices().numpy(), t.col_indices().numpy())
    assert e._nnz() == t._nnz() if t.layout is not torch.strided else True
    _close(e, t)


def test_layout_and_flags():
    x = ember.ones(2, 2)
    assert x.layout is ember.strided and not x.is_sparse and not x.is_sparse_csr
    assert x.to_dense() is x and x.sparse_dim() == 0 and x.dense_dim() == 2
    s = x.to_sparse()
    assert isinstance(s, ember.Tensor) and s.is_sparse and s.layout is ember.sparse_coo
    assert s.to_sparse_csr().is_sparse_csr and not s.to_sparse_csr().is_sparse
    assert repr(ember.sparse_coo) == "ember.sparse_coo" and repr(ember.jagged) == "ember.jagged"
    assert s.detach().is_sparse and s.data.is_sparse and s.shape == (2, 2) and s.numel() == 4
    assert sorted(ember.sparse.__all__) == [
        "addmm",
        "check_sparse_tensor_invariants",
        "log_softmax",
        "mm",
        "sampled_addmm",
        "softmax",
        "spdiags",
        "sum",
    ]


# ---- errors --------------------------------------------------------------------------------------
ERRORS = [
    "L.sparse_coo_tensor(L.tensor([[0, 3], [1, 1]]), L.tensor([1.0, 2.0]), (2, 2),"
    " check_invariants=True)",
    "L.sparse_coo_tensor(L.tensor([[0, -1], [1, 1]]), L.tensor([1.0, 2.0]), (2, 2),"
    " check_invariants=True)",
    "L.sparse_coo_tensor(L.tensor([[0, 1], [1, 1]]), L.tensor([1.0, 2.0, 3.0]), (2, 2))",
    "L.sparse_coo_tensor(L.tensor([0, 1]), L.tensor([1.0, 2.0]), (2, 2))",
    "L.sparse_coo_tensor(L.tensor([[0, 1], [1, 1]]), L.tensor([1.0, 2.0]), (2,))",
    "L.sparse_csr_tensor(L.tensor([0, 1, 4]), L.tensor([2, 0, 2]), L.tensor([3.0, 4, 5]), (2, 3),"
    " check_invariants=True)",
    "L.sparse_csr_tensor(L.tensor([0, 1, 3]), L.tensor([2, 0, 3]), L.tensor([3.0, 4, 5]), (2, 3),"
    " check_invariants=True)",
    "L.ones(2, 3).indices()",
    "L.ones(2, 3).values()",
    "L.ones(2, 3).coalesce()",
    "L.ones(2, 3).crow_indices()",
    "s.crow_indices()",
    "s.to_sparse_csr().indices()",
    "s.values()",
    "s.indices()",
    "s + L.sparse_coo_tensor([[0], [0]], [1.0], (2, 4))",
    "s @ L.ones(4, 2)",
    "L.sparse.mm(s, L.ones(3))",
    "L.sparse.sum(s, 2)",
    "s.numpy()",
    "s.to_sparse(1)",
]


@needs_torch
@pytest.mark.parametrize("expr", ERRORS)
def test_errors_match_torch(expr):
    caught = []
    for L in (ember, torch):
        s = L.sparse_coo_tensor(L.tensor(IDX), L.tensor(V), (2, 3))  # noqa: F841 (read by eval)
        with pytest.raises(Exception) as info:
            eval(expr, {"L": L, "s": s})
        caught.append(info.value)
    e, t = caught
    assert type(e) is type(t), (e, t)
    assert str(e).split("\n")[0] == str(t).split("\n")[0]


@pytest.mark.parametrize(
    "expr", ["ember.exp(s)", "s.view(6)", "s[0]", "s == s", "s.relu()", "s.cumsum(0)"]
)
def test_dense_ops_on_sparse_raise(expr):
    s = ember.sparse_coo_tensor(ember.tensor(IDX), ember.tensor(V), (2, 3))  # noqa: F841
    with pytest.raises(NotImplementedError, match="SparseCPU"):
        eval(expr)


def test_out_of_bounds_checked_by_default_and_save_refused(tmp_path):
    # NOTE: a deliberate difference: torch checks bounds only with check_invariants=True
    with pytest.raises(RuntimeError, match="for dim 1, size is 3 but found index 7"):
        ember.sparse_coo_tensor([[0], [7]], [1.0], (2, 3))
    s = ember.sparse_coo_tensor([[0], [7]], [1.0], (2, 3), check_invariants=False)
    assert s._nnz() == 1
    with pytest.raises(NotImplementedError, match="to_dense"):
        ember.save(ember.eye(2).to_sparse(), tmp_path / "s.pt")


def test_large_product_runs_in_scipy():
    # 1k x 1k with 10k entries: a Python loop over entries would take seconds
    n, e = 1000, 10_000
    idx = RNG.integers(0, n, size=(2, e))
    v = ember.tensor(RNG.random(e), requires_grad=True)
    x = ember.tensor(RNG.standard_normal((n, 8)), requires_grad=True)
    s = ember.sparse_coo_tensor(idx, v, (n, n))
    y = ember.sparse.mm(s, x)
    dense = np.zeros((n, n))
    np.add.at(dense, tuple(idx), v.detach().numpy())
    np.testing.assert_allclose(y.detach().numpy(), dense @ x.detach().numpy(), rtol=1e-10)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), dense.T @ np.ones((n, 8)), rtol=1e-10)
    ref = x.detach().numpy().sum(1)[idx[1]]
    np.testing.assert_allclose(v.grad.numpy(), ref, rtol=1e-10)


def test_sparse_plus_dense_is_dense():
    # NOTE: a deliberate difference: torch refuses add(sparse, dense)
    s = ember.sparse_coo_tensor(ember.tensor(IDX), ember.tensor(V), (2, 3))
    m = ember.tensor(M)
    np.testing.assert_allclose((s + m).numpy(), (m + s).numpy())
    assert (s + m).layout is ember.strided


@needs_torch
@pytest.mark.parametrize("dtype", ["complex128", "float16", "bfloat16", "int64"])
def test_other_dtypes_match_torch(dtype):
    vals = V + 1j * V[::-1] if dtype.startswith("complex") else np.array([1.5, -2.0, 0.25, 4.0])
    dense = D + 1j * D[::-1] if dtype.startswith("complex") else np.array(D).round()
    grad = dtype.startswith("complex")
    out = []
    for L in (ember, torch):
        dt = getattr(L, dtype)
        v = L.tensor(vals).to(dt).requires_grad_(grad)
        d = L.tensor(dense).to(dt).requires_grad_(grad)
        y = L.sparse.mm(L.sparse_coo_tensor(L.tensor(IDX), v, (2, 3)), d)
        if grad:
            (y * y.conj()).real.sum().backward()
            out.append([y, v.grad, d.grad])
        else:
            out.append([y.float()])
    for a, b in zip(*out):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9)


@needs_torch
@pytest.mark.parametrize("name", ["hspmm", "smm"])
def test_row_products_match_torch(name):
    # torch has no derivative for these (ember's are differentiable): forward only
    out = []
    for L in (ember, torch):
        s = L.sparse_coo_tensor(L.tensor(IDX), L.tensor(V), (2, 3))
        y = getattr(L, name)(s, L.tensor(D))
        out.append(y)
    e, t = out
    assert e.sparse_dim() == t.sparse_dim() and e._nnz() == t._nnz()
    np.testing.assert_array_equal(e._indices().numpy(), t._indices().numpy())
    _close(e, t)
