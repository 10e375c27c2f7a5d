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
        "as_sparse_gradcheck",
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


# ---- products with a sparse second operand ---------------------------------------------------
def _coo(L, idx, vals, size, **kw):
    return L.sparse_coo_tensor(idx, L.tensor(vals, dtype=L.float64), size, **kw)


S_IDX, S_VAL = [[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0]  # (2, 3)
B_IDX, B_VAL = [[0, 2, 2], [1, 0, 0]], [1.0, 2.0, 3.0]  # (3, 2), (2, 0) twice
DENSE_SPARSE = {
    "mm": lambda L, d, s: L.mm(d, s),
    "matmul_op": lambda L, d, s: d @ s,
    "Tensor.mm": lambda L, d, s: d.mm(s),
    "matmul_vec": lambda L, d, s: L.matmul(d[1], s),
    "sparse.mm": lambda L, d, s: L.sparse.mm(d, s),
}


def _layout_name(t):
    return str(t.layout).split(".")[-1]


@needs_torch
@pytest.mark.parametrize("name", sorted(DENSE_SPARSE))
def test_dense_at_sparse_matches_torch(name):
    out = []
    for L in (ember, torch):
        s = _coo(L, S_IDX, S_VAL, (2, 3), requires_grad=True)
        d = L.tensor(D[:, :2] + 1.0, dtype=L.float64).requires_grad_()
        y = DENSE_SPARSE[name](L, d, s)
        (y * y).sum().backward()
        out.append((y, s.grad, d.grad, _layout_name(y), _layout_name(s.grad)))
    for a, b in zip(out[0][:3], out[1][:3]):
        _close(a, b)
    assert out[0][3:] == out[1][3:]


@needs_torch
def test_dense_at_sparse_gradcheck_and_errors():
    s = _coo(ember, S_IDX, S_VAL, (2, 3))
    d = ember.tensor(D[:, :2], dtype=ember.float64).requires_grad_()
    assert gradcheck(lambda d: ember.mm(d, s), (d,))
    assert gradgradcheck(lambda d: d @ s, (d,))
    for L in (ember, torch):
        s = _coo(L, S_IDX, S_VAL, (2, 3))
        with pytest.raises(RuntimeError, match="Expected dim 0 size 2, got 3"):
            L.mm(L.ones(4, 3, dtype=L.float64), s)
        with pytest.raises(RuntimeError, match="expected scalar type"):
            L.mm(L.ones(4, 2), s)


SPARSE_SPARSE = {
    "mm": lambda L, a, b: L.mm(a, b),
    "matmul_op": lambda L, a, b: a @ b,
    "sparse.mm": lambda L, a, b: L.sparse.mm(a, b),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(SPARSE_SPARSE))
def test_sparse_at_sparse_matches_torch(name):
    out = []
    for L in (ember, torch):
        a = _coo(L, S_IDX, S_VAL, (2, 3), requires_grad=True)
        b = _coo(L, B_IDX, B_VAL, (3, 2), requires_grad=True)
        y = SPARSE_SPARSE[name](L, a, b)
        assert y.layout == L.sparse_coo and y.is_coalesced()
        L.sparse.sum(y * y).backward()
        out.append((y, a.grad, b.grad))
    ye, yt = out[0][0], out[1][0]
    np.testing.assert_array_equal(ye._indices().numpy(), yt._indices().numpy())
    for x, y in zip(out[0], out[1]):
        assert _layout_name(x) == _layout_name(y)
        _close(x, y)


@needs_torch
def test_csr_at_csr_and_mixed_layouts():
    out = []
    for L in (ember, torch):
        a = _coo(L, [[1, 0, 1], [2, 0, 2]], S_VAL, (2, 3)).to_sparse_csr()
        b = _coo(L, B_IDX, B_VAL, (3, 2)).to_sparse_csr()
        y = L.sparse.mm(a, b)
        out.append([y.crow_indices(), y.col_indices(), y.values(), _layout_name(y)])
        with pytest.raises(RuntimeError, match="not implemented for Sparse \\+ SparseCsr @ Sparse"):
            L.sparse.mm(a, _coo(L, B_IDX, B_VAL, (3, 2)))
        with pytest.raises(RuntimeError, match="does not match mat2 dtype"):
            L.sparse.mm(_coo(L, S_IDX, S_VAL, (2, 3)), _coo(L, B_IDX, B_VAL, (3, 2)).float())
    assert out[0][3] == out[1][3] == "sparse_csr"
    for x, y in zip(out[0][:3], out[1][:3]):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


@needs_torch
def test_sampled_addmm_matches_torch():
    out = []
    for L in (ember, torch):
        inp = L.sparse_csr_tensor(
            [0, 2, 3], [0, 2, 1], L.tensor([1.0, 2.0, 3.0], dtype=L.float64), (2, 3)
        ).requires_grad_()
        m1 = L.tensor(M[:, :2], dtype=L.float64).requires_grad_()
        m2 = L.tensor(D[:2, :3], dtype=L.float64).requires_grad_()
        y = L.sparse.sampled_addmm(inp, m1, m2, beta=0.5, alpha=2.0)
        assert y.layout == L.sparse_csr
        (y.values() ** 2).sum().backward()
        out.append((y.values(), m1.grad, m2.grad, inp.grad.to_dense()))
        with pytest.raises(RuntimeError, match="shapes cannot be multiplied \\(2x2 and 3x2\\)"):
            L.sparse.sampled_addmm(inp.detach(), m1.detach(), m2.detach().T)
        with pytest.raises(RuntimeError, match="same dtype, but got Float and Double"):
            L.sparse.sampled_addmm(inp.detach(), m1.detach().float(), m2.detach())
        with pytest.raises(NotImplementedError, match="SparseCPU"):
            L.sparse.sampled_addmm(inp.detach().to_sparse_coo(), m1.detach(), m2.detach())
    for x, y in zip(*out):
        _close(x, y)


@needs_torch
@pytest.mark.parametrize(
    "diags,offsets,shape,layout",
    [
        ((3, 3), [0, -1, 1], (3, 3), None),
        ((2, 4), [0, 2], (3, 5), None),
        ((2, 4), [0, 2], (3, 5), "sparse_csr"),
        ((2, 5), [-2, 1], (4, 2), "sparse_coo"),
    ],
)
def test_spdiags_matches_torch(diags, offsets, shape, layout):
    out = []
    for L in (ember, torch):
        d = L.arange(1.0, 1.0 + diags[0] * diags[1], dtype=L.float64).reshape(diags)
        lay = None if layout is None else getattr(L, layout)
        y = L.sparse.spdiags(d, L.tensor(offsets), shape, layout=lay)
        if y.layout == L.sparse_coo:
            parts = [y._indices(), y._values(), y.is_coalesced()]
        else:
            parts = [y.crow_indices(), y.col_indices(), y.values()]
        out.append([p.numpy() if hasattr(p, "numpy") else p for p in parts])
    for x, y in zip(*out):
        np.testing.assert_array_equal(x, y)


@needs_torch
def test_spdiags_errors_and_gradient():
    for L in (ember, torch):
        one = L.ones(2, 3)
        with pytest.raises(RuntimeError, match="Offset tensor contains duplicate values"):
            L.sparse.spdiags(one, L.tensor([0, 0]), (3, 3))
        with pytest.raises(RuntimeError, match="Number of diagonals \\(2\\) does not match"):
            L.sparse.spdiags(one, L.tensor([0]), (3, 3))
        with pytest.raises(RuntimeError, match="Output shape must be 2d"):
            L.sparse.spdiags(one[:1], L.tensor([0]), (3, 3, 3))
        with pytest.raises(RuntimeError, match="got Strided"):
            L.sparse.spdiags(one[:1], L.tensor([0]), (3, 3), layout=L.strided)
    d = ember.tensor(D[:2], dtype=ember.float64).requires_grad_()
    assert gradcheck(
        lambda d: ember.sparse.spdiags(d, ember.tensor([0, 1]), (3, 4)).to_dense(), (d,)
    )


@needs_torch
def test_check_sparse_tensor_invariants_switch():
    for L in (ember, torch):
        c = L.sparse.check_sparse_tensor_invariants
        assert not c.is_enabled()
        with c():
            assert c.is_enabled()
            with pytest.raises(RuntimeError, match="size is inconsistent with indices"):
                L.sparse_coo_tensor([[5]], [1.0], (2,))
            with c(enable=False):
                assert not c.is_enabled()
            assert c.is_enabled()
        assert not c.is_enabled()
        c.enable()
        assert c.is_enabled()
        c.disable()
        assert not c.is_enabled()
        assert c()(c.is_enabled)()
        assert not c.is_enabled()


# ---- in place -----------------------------------------------------------------------------------
def _parts(t):
    t = t.detach()
    return t._indices().numpy(), t._values().numpy(), t.is_coalesced(), tuple(t.shape)


def _same_parts(e, t, order=True):
    pe, pt = _parts(e), _parts(t)
    assert pe[2:] == pt[2:]
    if order:
        np.testing.assert_array_equal(pe[0], pt[0])
        np.testing.assert_allclose(pe[1], pt[1], rtol=1e-12)
    np.testing.assert_allclose(_np(e), _np(t), rtol=1e-12)


INPLACE = {
    "add_coalesced": (lambda L, a, b: a.coalesce().add_(b.coalesce(), alpha=2), True),
    "add_uncoalesced": (lambda L, a, b: a.add_(b), False),
    "sub_": (lambda L, a, b: a.sub_(b), False),
    "add_empty": (lambda L, a, b: a.add_(b.sparse_resize_and_clear_((2, 3), 2, 0)), True),
    "add_to_empty": (lambda L, a, b: a.zero_().add_(b, alpha=3), True),
    "mul_scalar": (lambda L, a, b: a.mul_(2.5), True),
    "mul_0d": (lambda L, a, b: a.mul_(L.tensor(2.0, dtype=L.float64)), True),
    "div_": (lambda L, a, b: a.div_(4), True),
    "neg_": (lambda L, a, b: a.neg_(), True),
    "zero_": (lambda L, a, b: a.zero_(), True),
    "copy_": (lambda L, a, b: a.copy_(b), True),
    "copy_float": (lambda L, a, b: a.copy_(b.float()), True),
    "mul_coalesced": (lambda L, a, b: a.coalesce().mul_(b.coalesce()), True),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_ops_match_torch(name):
    fn, order = INPLACE[name]
    out = []
    for L in (ember, torch):
        a = _coo(L, [[1, 0, 1], [2, 0, 2]], S_VAL, (2, 3))
        b = _coo(L, [[0, 1], [1, 0]], [1.0, 2.0], (2, 3))
        r = fn(L, a, b)
        assert r is a or name.endswith("coalesced")  # in place, returns self
        out.append(r)
    _same_parts(*out, order=order)


@needs_torch
def test_inplace_errors_match_torch():
    for L in (ember, torch):
        a = _coo(L, [[1, 0, 1], [2, 0, 2]], S_VAL, (2, 3))
        with pytest.raises(RuntimeError, match="add\\(sparse, dense\\) is not supported"):
            a.add_(L.ones(2, 3, dtype=L.float64))
        with pytest.raises(RuntimeError, match="expected sizes of 'self' and 'other' to match"):
            a.add_(_coo(L, [[0], [0]], [1.0], (3, 3)))
        with pytest.raises(RuntimeError, match="copy_\\(\\) between dense and sparse Tensors"):
            a.copy_(L.ones(2, 3))
        with pytest.raises(RuntimeError, match="changing the number of sparse dimensions"):
            a.copy_(L.sparse_coo_tensor([[0]], [1.0], (4,)))
        leaf = _coo(L, [[0], [0]], [1.0], (2, 3), requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            leaf.mul_(2)


# ---- selection, shape, masks, resizes ----------------------------------------------------------
SELECT = {
    "index_select0": lambda L, s: s.index_select(0, L.tensor([1, 1, 0])),
    "index_select1": lambda L, s: s.index_select(1, L.tensor([2, 0])),
    "index_select_neg_dim": lambda L, s: s.index_select(-1, L.tensor([2, 2])),
    "index_select_coalesced": lambda L, s: s.coalesce().index_select(1, L.tensor([2, 0])),
    "index_select_one": lambda L, s: s.index_select(0, L.tensor([0])),
    "index_select_none": lambda L, s: s.index_select(1, L.tensor([1])),
    "unsqueeze0": lambda L, s: s.unsqueeze(0),
    "unsqueeze1": lambda L, s: s.unsqueeze(1),
    "unsqueeze-1": lambda L, s: s.unsqueeze(-1),
    "unsqueeze_coalesced": lambda L, s: s.coalesce().unsqueeze(0),
    "sparse_mask": lambda L, s: L.tensor(D[:2, :3], dtype=L.float64).sparse_mask(s),
    "sparse_mask_coalesced": lambda L, s: L.tensor(D[:2, :3], dtype=L.float64).sparse_mask(
        s.coalesce()
    ),
    "sparse_mask_sparse_self": lambda L, s: (
        _coo(L, [[0, 1], [2, 0]], [7.0, 8.0], (2, 3)).coalesce().sparse_mask(s)
    ),
    "sparse_resize_": lambda L, s: s.sparse_resize_((3, 4), 2, 0),
    "sparse_resize_and_clear_": lambda L, s: s.sparse_resize_and_clear_((3, 4), 2, 0),
    "sparse_resize_and_clear_dims": lambda L, s: s.sparse_resize_and_clear_((3, 4, 5), 1, 2),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(SELECT))
def test_selection_and_shape_match_torch(name):
    out = []
    for L in (ember, torch):
        s = _coo(L, [[1, 0, 1], [2, 0, 2]], S_VAL, (2, 3))
        out.append(SELECT[name](L, s))
    _same_parts(*out)


HYBRID = {
    "index_select_dense_dim": lambda L, h: h.index_select(1, L.tensor([1])),
    # NOTE: a deliberate difference: when the index is much longer than nnz, torch walks the
    # entries instead and lists each entry's copies together; ember always groups them by
    # index position (the same tensor, entries in another order)
    "index_select_sparse_dim": lambda L, h: h.index_select(0, L.tensor([0, 1, 0])),
    "unsqueeze_sparse": lambda L, h: h.unsqueeze(1),
    "unsqueeze_dense": lambda L, h: h.unsqueeze(2),
    "sparse_mask_hybrid": lambda L, h: L.tensor(D[:2, :2], dtype=L.float64).sparse_mask(h),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(HYBRID))
def test_hybrid_selection_matches_torch(name):
    out = []
    for L in (ember, torch):
        h = L.sparse_coo_tensor(
            [[1, 0]], L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64), (2, 2)
        )
        out.append(HYBRID[name](L, h))
    _same_parts(*out, order=name != "index_select_sparse_dim")


@needs_torch
def test_selection_gradients():
    out = []
    for L in (ember, torch):
        v = L.tensor(S_VAL, dtype=L.float64).requires_grad_()
        s = L.sparse_coo_tensor(L.tensor(S_IDX), v, (2, 3))
        d = L.tensor(D[:2, :3], dtype=L.float64).requires_grad_()
        (d.sparse_mask(s.coalesce()).to_dense() ** 2).sum().backward()
        out.append(d.grad)
    _close(*out)
    # torch 2.13 has no backward for index_select/unsqueeze of a sparse tensor; ember's go
    # through the values, checked numerically
    idx = ember.tensor(S_IDX)

    def f(v):
        s = ember.sparse_coo_tensor(idx, v, (2, 3))
        a = s.index_select(1, ember.tensor([2, 0, 2])).to_dense()
        return a.sum(0) * 2 + (s.unsqueeze(0).to_dense() ** 3).sum()

    assert gradcheck(f, (ember.tensor(S_VAL, dtype=ember.float64).requires_grad_(),))


@needs_torch
def test_selection_and_resize_errors_match_torch():
    for L in (ember, torch):
        s = _coo(L, [[1, 0, 1], [2, 0, 2]], S_VAL, (2, 3))
        with pytest.raises(IndexError, match="index contains 2 that is out of range"):
            s.index_select(0, L.tensor([2]))
        with pytest.raises(IndexError, match="must be 1-D strided \\(non-sparse\\) long-tensor"):
            s.index_select(0, L.tensor([0.0]))
        with pytest.raises(IndexError, match="Dimension out of range"):
            s.unsqueeze(3)
        with pytest.raises(RuntimeError, match="operands have incompatible sizes"):
            L.ones(3, 3).sparse_mask(s)
        with pytest.raises(NotImplementedError, match="sparse_mask"):
            L.ones(2, 3).sparse_mask(L.ones(2, 3))
        with pytest.raises(RuntimeError, match="shrinking the size of sparse dimensions"):
            s.sparse_resize_((2, 2), 2, 0)
        with pytest.raises(RuntimeError, match="changing the number of dense dimensions"):
            s.sparse_resize_((2, 3, 4), 2, 1)
        with pytest.raises(RuntimeError, match="changing the number of sparse dimensions"):
            s.sparse_resize_((2, 3, 4), 3, 0)
        with pytest.raises(NotImplementedError, match="sparse_resize_"):
            L.ones(2, 3).sparse_resize_((3, 4), 2, 0)


@needs_torch
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("name", ["to_csr", "sparse_mm", "square_dense", "csr_input", "sum_values"])
def test_as_sparse_gradcheck_matches_torch(name, masked):
    fns = {
        "to_csr": lambda L, s: s.to_sparse_csr(),
        "sparse_mm": lambda L, s: L.sparse.mm(s, L.ones(2, 3, dtype=L.float64)),
        "square_dense": lambda L, s: s.to_dense() ** 2,
        "csr_input": lambda L, s: s.to_dense() * 3,
        "sum_values": lambda L, s: L.sparse.sum(s * s),
    }
    out = []
    for L in (ember, torch):
        x = L.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=L.float64)
        s = x.to_sparse_csr() if name == "csr_input" else x.to_sparse()
        check = L.sparse.as_sparse_gradcheck(L.autograd.gradcheck)
        out.append(check(lambda s, L=L: fns[name](L, s), s.requires_grad_(), masked=masked))
    assert out[0] is out[1] is True


def test_as_sparse_gradcheck_sees_a_wrong_gradient():
    class Wrong(ember.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return v * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3  # should be 2

    def f(s):
        v = Wrong.apply(s.coalesce().values())
        return ember.sparse_coo_tensor(s.coalesce().indices(), v, s.shape)

    s = ember.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=ember.float64).to_sparse().requires_grad_()
    check = ember.sparse.as_sparse_gradcheck(ember.autograd.gradcheck)
    assert check(f, s, raise_exception=False) is False


# ---- CSC ----------------------------------------------------------------------------------------
CSC = {
    "from_dense": lambda L: L.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]]).to_sparse_csc(),
    "from_coo": lambda L: _coo(L, [[1, 0, 1], [2, 1, 0]], [4.0, 2.0, 3.0], (2, 3)).to_sparse_csc(),
    "from_uncoalesced": lambda L: _coo(
        L, [[1, 0, 1], [2, 1, 2]], [4.0, 2.0, 3.0], (2, 3)
    ).to_sparse_csc(),
    "from_csr": lambda L: _coo(L, S_IDX, S_VAL, (2, 3)).to_sparse_csr().to_sparse_csc(),
    "to_sparse_layout": lambda L: L.eye(3).to_sparse(layout=L.sparse_csc),
    "csr_t": lambda L: _coo(L, S_IDX, S_VAL, (2, 3)).to_sparse_csr().t(),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(CSC))
def test_csc_matches_torch(name):
    out = []
    for L in (ember, torch):
        c = CSC[name](L)
        assert c.layout == L.sparse_csc and not c.is_sparse and not c.is_sparse_csr
        coo = c.to_sparse_coo()
        csr = c.to_sparse_csr()
        out.append(
            [
                c.ccol_indices(),
                c.row_indices(),
                c.values(),
                c.to_dense(),
                coo._indices(),
                coo._values(),
                csr.crow_indices(),
                csr.col_indices(),
                csr.values(),
                c @ L.ones(c.shape[1], 2, dtype=c.dtype),
                c.t().crow_indices(),
                c.t().col_indices(),
            ]
        )
        assert not coo.is_coalesced() or c._nnz() < 2
        assert c.t().layout == L.sparse_csr and c.t().t().layout == L.sparse_csc
    re = repr(CSC[name](ember)).replace("ember.", "torch.")
    assert re == repr(CSC[name](torch))
    for a, b in zip(*out):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12)


@needs_torch
def test_csc_errors_and_gradients():
    for L in (ember, torch):
        with pytest.raises(RuntimeError, match="expected sparse column compressed tensor layout"):
            L.ones(2, 2).ccol_indices()
        with pytest.raises(RuntimeError, match="but got SparseCsc"):
            L.eye(2).to_sparse_csc().crow_indices()
    # torch 2.13 has no backward through CSC tensors; ember's go through the values
    x = ember.tensor(D[:2, :3], dtype=ember.float64).requires_grad_()
    assert gradcheck(lambda x: x.to_sparse_csc().t() @ ember.ones(2, 1, dtype=x.dtype), (x,))


@needs_torch
def test_sparse_csc_tensor_matches_torch():
    out = []
    for L in (ember, torch):
        c = L.sparse_csc_tensor([0, 1, 1, 3], [1, 0, 1], L.tensor([1.0, 2.0, 3.0]), (2, 3))
        d = L.sparse_csc_tensor([0, 1, 2, 3], [1, 0, 1], [1.0, 2.0, 3.0])  # size inferred
        out.append([c.to_dense(), d.to_dense(), tuple(d.shape), repr(c).split("layout")[0]])
        for bad in (([0, 1, 3], [1, 0, 2]), ([0, 1, 2, 3], [1, 0, 2])):
            with pytest.raises(RuntimeError):
                L.sparse_csc_tensor(*bad, [1.0, 2.0, 3.0], (2, 3), check_invariants=True)
    with pytest.raises(RuntimeError, match="`0 <= row_indices < nrows` is not satisfied"):
        ember.sparse_csc_tensor([0, 1, 2, 3], [1, 0, 2], [1.0, 2.0, 3.0], (2, 3))
    (a, b, sa, ra), (c, d, sc, rc) = out
    assert sa == sc and ra == rc
    np.testing.assert_array_equal(_np(a), _np(c))
    np.testing.assert_array_equal(_np(b), _np(d))
