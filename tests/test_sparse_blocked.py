"""BSR/BSC tensors, sparse_compressed_tensor, the *_copy accessors, sspaddmm and its aliases,
resize_as_sparse_, spsolve and the legacy sparse types, against torch: values, reprs, errors,
gradients."""

# ruff: noqa: B023  (the lambdas built in loops are called at once, inside the iteration)

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

# block (0, 0) full, (1, 1) and (1, 2) partly zero: explicit zeros inside stored blocks
X = np.array(
    [
        [1.0, 2, 0, 0, 0, 0],
        [3, 4, 0, 0, 0, 0],
        [0, 0, 0, 5, 0, 3],
        [0, 0, 6, 0, 1, 0],
    ]
)
RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _quiet_torch():
    # torch warns that BSR/BSC support is beta and that its invariant checks are off
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _both(x=X, dtype="float64"):
    return ember.tensor(x, dtype=getattr(ember, dtype)), torch.tensor(
        x, dtype=getattr(torch, dtype)
    )


def _same_repr(e, t):
    assert repr(e) == repr(t).replace("torch.", "ember.")


def _same_error(fe, ft, prefix_only=False):
    with pytest.raises(Exception) as te:
        ft()
    with pytest.raises(type(te.value)) as ee:
        fe()
    msg_t, msg_e = str(te.value), str(ee.value)
    if prefix_only:  # torch's message goes on with its dispatcher's list of backends
        msg_t = msg_t.split(" This could be")[0]
        msg_e = msg_e.split(" This could be")[0]
    assert msg_e == msg_t


def _dense(t):
    t = t.detach()
    return (t.to_dense() if t.layout not in (ember.strided, torch.strided) else t).numpy()


# ---- construction and repr ---------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("layout", ["bsr", "bsc"])
@pytest.mark.parametrize("blocksize", [(2, 2), (1, 3), (2, 3), 2, [4, 1]])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
def test_dense_to_blocked_repr_and_back(layout, blocksize, dtype):
    e, t = _both(X, dtype)
    es = getattr(e, f"to_sparse_{layout}")(blocksize)
    ts = getattr(t, f"to_sparse_{layout}")(blocksize)
    _same_repr(es, ts)
    assert es.layout is getattr(ember, f"sparse_{layout}")
    assert (es._nnz(), es.sparse_dim(), es.dense_dim()) == (ts._nnz(), 2, 0)
    assert es.is_sparse is False and es.is_sparse_csr is False
    np.testing.assert_array_equal(_dense(es), X.astype(dtype))
    _same_repr(es.to_dense(), ts.to_dense())


@needs_torch
@pytest.mark.parametrize("layout", ["bsr", "bsc"])
def test_empty_and_nan_blocks(layout):
    x = np.zeros((4, 4))
    x[3, 0] = np.nan  # a NaN counts as a stored value
    for arr in (np.zeros((4, 4)), x):
        e, t = _both(arr)
        _same_repr(
            getattr(e, f"to_sparse_{layout}")((2, 2)), getattr(t, f"to_sparse_{layout}")((2, 2))
        )


@needs_torch
@pytest.mark.parametrize("name", ["bsr", "bsc"])
def test_constructor_matches_torch(name):
    for args, kwargs in [
        (([0, 1, 2], [0, 2], np.ones((2, 2, 3))), {}),  # size inferred
        (([0, 1, 2], [0, 1], np.arange(8.0).reshape(2, 2, 2), (4, 4)), {}),
        (([0, 2, 2], [0, 1], np.arange(8.0).reshape(2, 2, 2), (4, 4)), {"dtype": "float32"}),
        (([0, 0, 0], [], np.zeros((0, 1, 2))), {}),
        (([0, 1, 2], [1, 0], [[[1, 2]], [[3, 4]]], (2, 4)), {"requires_grad": False}),
    ]:
        te_args = [ember.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        tt_args = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        if not args[1]:  # an empty index list needs its dtype
            te_args[1] = ember.zeros(0, dtype=ember.int64)
            tt_args[1] = torch.zeros(0, dtype=torch.int64)
        ke = {k: getattr(ember, v) if k == "dtype" else v for k, v in kwargs.items()}
        kt = {k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
        e = getattr(ember, f"sparse_{name}_tensor")(*te_args, **ke)
        t = getattr(torch, f"sparse_{name}_tensor")(*tt_args, **kt)
        _same_repr(e, t)
        np.testing.assert_array_equal(_dense(e), _dense(t))
        c = ember.sparse_compressed_tensor(*te_args, layout=getattr(ember, f"sparse_{name}"), **ke)
        _same_repr(c, t)


@needs_torch
@pytest.mark.parametrize("name", ["bsr", "bsc"])
@pytest.mark.parametrize(
    "comp,plain,nnz,size",
    [
        ([0, 1, 2], [0, 1], 2, (4, 5)),  # not divisible by the blocksize
        ([0, 1, 2], [0, 1], 2, (5, 4)),
        ([0, 1, 2], [0, 3], 2, (4, 4)),  # plain index out of range
        ([0, 1, 2], [0, -1], 2, (4, 4)),
        ([0, 2, 1], [0, 1], 2, (4, 4)),  # last compressed index is not nnz
        ([0, 1, 2, 2], [0, 1], 2, (4, 4)),  # too many compressed indices
        ([1, 1, 2], [0, 1], 2, (4, 4)),  # first is not 0
        ([0, 1, 2], [0, 1], 3, (4, 4)),  # values' nnz differs
        ([0, 2, 2], [1, 0], 2, (4, 4)),  # unsorted in a block row
        ([0, 2, 2], [1, 1], 2, (4, 4)),  # duplicate
        ([0, 1, 2], [0, 1], 2, (1, 4, 4)),  # 3-D size
        ([0, 1, 2], [0, 1], 2, (4,)),
    ],
)
def test_constructor_invariant_errors(name, comp, plain, nnz, size):
    # ember checks by default; torch when asked
    v = np.ones((nnz, 2, 2))
    _same_error(
        lambda: getattr(ember, f"sparse_{name}_tensor")(comp, plain, ember.tensor(v), size),
        lambda: getattr(torch, f"sparse_{name}_tensor")(
            comp, plain, torch.tensor(v), size, check_invariants=True
        ),
    )
    if len(size) != 2:  # ember refuses a size of another dimensionality even unchecked
        return
    # unchecked, as torch's default
    s = getattr(ember, f"sparse_{name}_tensor")(
        comp, plain, ember.tensor(v), size, check_invariants=False
    )
    assert s.shape == tuple(size)


@needs_torch
def test_constructor_argument_errors():
    for vshape in [(2,), (2, 2)]:
        _same_error(
            lambda: ember.sparse_bsr_tensor([0, 1, 2], [0, 1], ember.ones(*vshape)),
            lambda: torch.sparse_bsr_tensor([0, 1, 2], [0, 1], torch.ones(*vshape)),
        )
    _same_error(
        lambda: ember.sparse_bsc_tensor([[0, 1, 2]], [0, 1], ember.ones(2, 1, 1)),
        lambda: torch.sparse_bsc_tensor([[0, 1, 2]], [0, 1], torch.ones(2, 1, 1)),
    )
    _same_error(
        lambda: ember.sparse_bsr_tensor(
            [0, 1, 2], [0, 1], ember.ones(2, 1, 1), (2, 2), layout=ember.sparse_csr
        ),
        lambda: torch.sparse_bsr_tensor(
            [0, 1, 2], [0, 1], torch.ones(2, 1, 1), (2, 2), layout=torch.sparse_csr
        ),
    )
    _same_error(
        lambda: ember.sparse_csr_tensor([0, 1, 2], [0, 1], ember.ones(2), layout=ember.sparse_bsr),
        lambda: torch.sparse_csr_tensor([0, 1, 2], [0, 1], torch.ones(2), layout=torch.sparse_bsr),
    )
    for le, lt in [
        (None, None),
        (ember.strided, torch.strided),
        (ember.sparse_coo, torch.sparse_coo),
    ]:
        _same_error(
            lambda: ember.sparse_compressed_tensor([0, 1], [0], ember.ones(1), layout=le),
            lambda: torch.sparse_compressed_tensor([0, 1], [0], torch.ones(1), layout=lt),
        )
    with pytest.raises(NotImplementedError, match="batch or dense dims"):
        ember.sparse_bsr_tensor([0, 1], [0], ember.ones(1, 1, 1, 3))


@needs_torch
@pytest.mark.parametrize("layout", ["csr", "csc"])
def test_sparse_compressed_tensor_non_block(layout):
    e = ember.sparse_compressed_tensor(
        [0, 2, 3], [0, 1, 1], [1.0, 2.0, 3.0], (2, 2), layout=getattr(ember, f"sparse_{layout}")
    )
    t = torch.sparse_compressed_tensor(
        [0, 2, 3], [0, 1, 1], [1.0, 2.0, 3.0], (2, 2), layout=getattr(torch, f"sparse_{layout}")
    )
    _same_repr(e, t)


# ---- conversions -------------------------------------------------------------------------------
def _sources(lib, x):
    u = lib.sparse_coo_tensor([[1, 0, 1, 3], [0, 1, 0, 5]], [1.0, 2.0, 3.0, 4.0], (4, 6))
    return {
        "coo": x.to_sparse(),
        "uncoalesced": u.double(),
        "csr": x.to_sparse_csr(),
        "csc": x.to_sparse_csc(),
        "bsr": x.to_sparse_bsr((2, 2)),
        "bsc": x.to_sparse_bsc((2, 2)),
    }


@needs_torch
@pytest.mark.parametrize("src", ["coo", "uncoalesced", "csr", "csc", "bsr", "bsc"])
@pytest.mark.parametrize("layout", ["bsr", "bsc"])
def test_sparse_to_blocked(src, layout):
    e, t = _both()
    es = getattr(_sources(ember, e)[src], f"to_sparse_{layout}")((2, 2))
    ts = getattr(_sources(torch, t)[src], f"to_sparse_{layout}")((2, 2))
    _same_repr(es, ts)
    es = _sources(ember, e)[src].to_sparse(layout=getattr(ember, f"sparse_{layout}"), blocksize=2)
    ts = _sources(torch, t)[src].to_sparse(layout=getattr(torch, f"sparse_{layout}"), blocksize=2)
    _same_repr(es, ts)


@needs_torch
@pytest.mark.parametrize("layout", ["bsr", "bsc"])
def test_blocked_to_coo_and_back(layout):
    e, t = _both()
    es = getattr(e, f"to_sparse_{layout}")((2, 3))
    ts = getattr(t, f"to_sparse_{layout}")((2, 3))
    ec, tc = es.to_sparse_coo(), ts.to_sparse_coo()
    _same_repr(ec, tc)
    assert ec.is_coalesced() is tc.is_coalesced() is False
    _same_repr(es.to_sparse(), ts.to_sparse())
    _same_repr(es.to_sparse(layout=ember.strided), ts.to_sparse(layout=torch.strided))
    assert getattr(es, f"to_sparse_{layout}")((2, 3)) is es
    _same_repr(es.t(), ts.t())
    _same_repr(es.transpose(0, 1), ts.transpose(0, 1))
    _same_repr(es.mT.t(), ts.mT.t())
    np.testing.assert_array_equal(_dense(es.t()), X.T)


@needs_torch
def test_conversion_errors():
    e, t = _both()
    cases = [
        lambda m: m.to_sparse_bsr((3, 2)),
        lambda m: m.to_sparse().to_sparse_bsr((3, 2)),
        lambda m: m.to_sparse_csr().to_sparse_bsc((3, 2)),
        lambda m: m.to_sparse_bsr((2, 2)).to_sparse_bsr((1, 1)),
        lambda m: m.to_sparse_bsr((2, 2)).to_sparse_bsc((1, 1)),
        lambda m: m.to_sparse_bsr((2, 2)).to_sparse_bsr((2, 2), 0),
        lambda m: m.to_sparse_bsr((2, 2)).to_sparse_csr(),
        lambda m: m.to_sparse_bsc((2, 2)).to_sparse_csc(),
        lambda m: m.to_sparse(layout=m.to_sparse_bsr(2).layout),
        lambda m: m.to_sparse_bsr((2, 2)).ccol_indices(),
        lambda m: m.to_sparse_bsc((2, 2)).crow_indices(),
        lambda m: m.to_sparse_bsr((2, 2)).indices(),
        lambda m: m.to_sparse_bsr((2, 2)).coalesce(),
        lambda m: m[0].to_sparse_bsr((1, 1)),
        lambda m: m.reshape(2, 2, 6).to_sparse().to_sparse_bsr((1, 1)),
        lambda m: m.to_sparse_bsr((2, 2)).type(),
    ]
    for case in cases:
        _same_error(lambda: case(e), lambda: case(t))


@needs_torch
@pytest.mark.parametrize("layout", ["bsr", "bsc"])
def test_value_methods(layout):
    e, t = _both()
    es = getattr(e, f"to_sparse_{layout}")((2, 2))
    ts = getattr(t, f"to_sparse_{layout}")((2, 2))
    for f in (
        lambda s: s * 2,
        lambda s: -s,
        lambda s: s.abs(),
        lambda s: s.float(),
        lambda s: s.clone(),
        lambda s: s + s,
        lambda s: s.detach(),
        lambda s: s.clone().zero_(),
        lambda s: s.clone().mul_(3),
    ):
        _same_repr(f(es), f(ts))
    assert float(es.sum()) == float(ts.sum())
    idx = "crow" if layout == "bsr" else "ccol"
    plain = "col" if layout == "bsr" else "row"
    _same_repr(getattr(es, f"{idx}_indices")(), getattr(ts, f"{idx}_indices")())
    _same_repr(getattr(es, f"{plain}_indices")(), getattr(ts, f"{plain}_indices")())
    _same_repr(es.values(), ts.values())
    assert (es.numel(), len(es), es.dim()) == (ts.numel(), len(ts), ts.dim())


# ---- products ----------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("blocksize", [(2, 2), (1, 1), (1, 3), (4, 6)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bsr_matmul(blocksize, dtype):
    # NOTE: a deliberate difference: torch's MKL kernel refuses non-square blocks; SciPy's
    # takes them (compared with the dense product there)
    e, t = _both(X, dtype)
    d = RNG.standard_normal((6, 3))
    de, dt = ember.tensor(d, dtype=e.dtype), torch.tensor(d, dtype=t.dtype)
    es, ts = e.to_sparse_bsr(blocksize), t.to_sparse_bsr(blocksize)
    tol = 1e-12 if dtype == "float64" else 1e-5
    if blocksize[0] != blocksize[1]:
        ref = X @ d
        np.testing.assert_allclose((es @ de).numpy(), ref, rtol=tol)
        np.testing.assert_allclose((es @ de[:, 0]).numpy(), ref[:, 0], rtol=tol)
        return
    for f in (
        lambda s, m, lib: s @ m,
        lambda s, m, lib: s @ m[:, 0],
        lambda s, m, lib: s.mm(m),
        lambda s, m, lib: lib.mm(s, m),
        lambda s, m, lib: lib.addmm(lib.ones(4, 3, dtype=m.dtype), s, m, beta=0.5, alpha=2),
        lambda s, m, lib: lib.sparse.mm(s, m),
        lambda s, m, lib: lib.dsmm(s, m),
    ):
        np.testing.assert_allclose(f(es, de, ember).numpy(), f(ts, dt, torch).numpy(), rtol=tol)


@needs_torch
def test_product_errors():
    e, t = _both()
    for f in (
        lambda s, lib: s.to_sparse_bsr(2) @ lib.ones(5, 2, dtype=s.dtype),
        lambda s, lib: s.to_sparse_bsr(2) @ lib.ones(6, 2),
        lambda s, lib: s.to_sparse_bsr(2) @ lib.ones(2, 6, 2, dtype=s.dtype),
        lambda s, lib: s.to_sparse_bsr(2).mm(lib.ones(6, dtype=s.dtype)),
        lambda s, lib: s.to_sparse_bsc(2) @ lib.ones(6, 1, dtype=s.dtype),
        lambda s, lib: lib.ones(2, 4, dtype=s.dtype) @ s.to_sparse_bsr(2),
        lambda s, lib: lib.mm(lib.ones(2, 4, dtype=s.dtype), s.to_sparse_bsr(2)),
        lambda s, lib: s.to_sparse_bsr(2) @ s.t().to_sparse_bsr(2),
    ):
        _same_error(lambda: f(e, ember), lambda: f(t, torch))


@needs_torch
def test_gradients_through_to_sparse_bsr_match_torch():
    w = RNG.standard_normal((6, 2))
    out = {}
    for lib in (ember, torch):
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        m = lib.tensor(w)  # (torch has no BSR backward for m: BSC @ dense)
        y = x.to_sparse_bsr((2, 2)) @ m
        (y * lib.arange(8.0, dtype=lib.float64).reshape(4, 2)).sum().backward()
        g1, gm = x.grad.numpy().copy(), y.detach().numpy()
        x.grad = None
        z = x.to_sparse_bsr((2, 2)).to_dense() * lib.arange(24.0, dtype=lib.float64).reshape(4, 6)
        z.sum().backward()
        out[lib] = (g1, gm, x.grad.numpy())
    for a, b in zip(out[ember], out[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_bsr_values_gradcheck():
    # torch has no backward for BSR @ dense on the CPU; ember's is checked numerically
    s = ember.tensor(X).to_sparse_bsr((2, 2))
    v = s.values().clone().requires_grad_()
    m = ember.tensor(RNG.standard_normal((6, 2)), requires_grad=True)
    crow, col = s.crow_indices(), s.col_indices()

    def f(v, m):
        return ember.sparse_bsr_tensor(crow, col, v, (4, 6)) @ m

    def g(v):
        b = ember.sparse_bsr_tensor(crow, col, v, (4, 6))
        return b.t().to_dense().t() * 2 + b.to_sparse_coo().to_dense()

    assert gradcheck(f, (v, m))
    assert gradgradcheck(f, (v, m))
    assert gradcheck(g, (v,))
    leaf = ember.sparse_bsr_tensor(crow, col, v.detach(), (4, 6)).requires_grad_()
    (leaf @ m).sum().backward()
    assert leaf.grad.layout is ember.strided  # a leaf gets torch.mm's dense gradient
    np.testing.assert_allclose(leaf.grad.numpy(), np.ones((4, 2)) @ m.detach().numpy().T)


def test_bsr_product_large():
    # 2000 blocks through SciPy's CSR kernel, against NumPy's dense product
    x = np.kron(np.eye(500), RNG.standard_normal((4, 4)))
    s = ember.tensor(x).to_sparse_bsr((4, 4))
    d = RNG.standard_normal((2000, 16))
    np.testing.assert_allclose((s @ ember.tensor(d)).numpy(), x @ d, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(
        (s.t().to_sparse_coo() @ ember.tensor(d)).numpy(), x.T @ d, rtol=1e-10, atol=1e-14
    )


# ---- the *_copy accessors ----------------------------------------------------------------------
@needs_torch
def test_copy_accessors():
    e, t = _both(X[:2, :3])
    srcs = {
        "csr": (e.to_sparse_csr(), t.to_sparse_csr()),
        "csc": (e.to_sparse_csc(), t.to_sparse_csc()),
        "bsr": (e.to_sparse_bsr(1), t.to_sparse_bsr(1)),
        "bsc": (e.to_sparse_bsc(1), t.to_sparse_bsc(1)),
        "coo": (e.to_sparse(), t.to_sparse()),
        "dense": (e, t),
    }
    for name in ("crow_indices", "col_indices", "ccol_indices", "row_indices", "values"):
        for se, st in srcs.values():
            fe, ft = getattr(ember, f"{name}_copy"), getattr(torch, f"{name}_copy")
            try:
                rt = ft(st)
            except Exception:
                _same_error(lambda: fe(se), lambda: ft(st), prefix_only=True)
                continue
            re_ = fe(se)
            _same_repr(re_, rt)
            if name != "values":  # a copy, not the stored array
                assert not np.shares_memory(re_.numpy(), getattr(se, name)().numpy())
    for se, st in srcs.values():
        _same_error(lambda: ember.indices_copy(se), lambda: torch.indices_copy(st), True)
    out = ember.empty(0, dtype=ember.int64)
    assert ember.crow_indices_copy(srcs["csr"][0], out=out) is out
    assert out.tolist() == [0, 2, 4]


@needs_torch
def test_values_copy_gradient():
    w = np.array([1.0, 2.0, 3.0, 4.0])
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(X[:2, :3], requires_grad=True)
        (lib.values_copy(x.to_sparse_csr()) * lib.tensor(w)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


# ---- sspaddmm, smm and the aliases -------------------------------------------------------------
def _sspaddmm_args(lib, dtype="float64"):
    dt = getattr(lib, dtype)
    s_in = lib.sparse_coo_tensor([[0, 1, 1], [1, 0, 0]], [10.0, 20.0, 5.0], (2, 2), dtype=dt)
    m1 = lib.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1.0, 2.0, 3.0], (2, 3), dtype=dt)
    m2 = lib.arange(6.0, dtype=dt).reshape(3, 2)
    return s_in, m1, m2


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_sspaddmm(dtype):
    e, t = _sspaddmm_args(ember, dtype), _sspaddmm_args(torch, dtype)
    for f in (
        lambda lib, a, b, c: lib.sspaddmm(a, b, c),
        lambda lib, a, b, c: lib.sspaddmm(a, b, c, beta=2, alpha=3),
        lambda lib, a, b, c: lib.saddmm(a, b, c, beta=0),
        lambda lib, a, b, c: a.sspaddmm(b, c, alpha=0),
        lambda lib, a, b, c: lib.smm(b, c),
        lambda lib, a, b, c: b.smm(c),
        lambda lib, a, b, c: lib.hsmm(b, c),
        lambda lib, a, b, c: lib.dsmm(b, c),
    ):
        re_, rt = f(ember, *e), f(torch, *t)
        _same_repr(re_, rt)
        if re_.layout is ember.sparse_coo:
            assert re_.is_coalesced() is rt.is_coalesced()


@needs_torch
def test_sspaddmm_errors():
    e, t = _sspaddmm_args(ember), _sspaddmm_args(torch)
    for f in (
        lambda lib, a, b, c: lib.sspaddmm(a, b.to_dense(), c),
        lambda lib, a, b, c: lib.sspaddmm(a, b, lib.ones(3, dtype=c.dtype)),
        lambda lib, a, b, c: lib.sspaddmm(a, lib.ones(2, 3, 1, dtype=c.dtype).to_sparse(), c),
        lambda lib, a, b, c: lib.sspaddmm(a, b, lib.ones(2, 2, dtype=c.dtype)),
        lambda lib, a, b, c: lib.sspaddmm(lib.ones(3, 3, dtype=c.dtype).to_sparse(), b, c),
        lambda lib, a, b, c: lib.sspaddmm(a, b, c.float()),
        lambda lib, a, b, c: lib.sspaddmm(a.float(), b, c),
        lambda lib, a, b, c: c.smm(c),
    ):
        _same_error(lambda: f(ember, *e), lambda: f(torch, *t))
    _same_error(
        lambda: ember.sspaddmm(e[0], e[1].to_sparse_csr(), e[2]),
        lambda: torch.sspaddmm(t[0], t[1].to_sparse_csr(), t[2]),
        prefix_only=True,
    )
    _same_error(
        lambda: ember.hsmm(e[1].to_sparse_csr(), e[2]),
        lambda: torch.hsmm(t[1].to_sparse_csr(), t[2]),
        True,
    )


def test_sspaddmm_gradcheck():
    # NOTE: a deliberate difference: torch has no derivative for sspaddmm; ember's is checked
    s_in, m1, m2 = _sspaddmm_args(ember)
    vi = s_in._values().clone().requires_grad_()
    v1 = m1._values().clone().requires_grad_()
    m2 = m2.clone().requires_grad_()

    def f(vi, v1, m2):
        a = ember.sparse_coo_tensor(s_in._indices(), vi, (2, 2))
        b = ember.sparse_coo_tensor(m1._indices(), v1, (2, 3))
        return ember.sspaddmm(a, b, m2, beta=0.5, alpha=2).to_dense()

    assert gradcheck(f, (vi, v1, m2))


# ---- resize_as_sparse_ -------------------------------------------------------------------------
@needs_torch
def test_resize_as_sparse_():
    def cases(lib):
        def a():
            return lib.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))

        def empty():
            return lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.int64), lib.zeros(0), (2, 2))

        tmpl = lib.sparse_coo_tensor([[0], [3]], [1.0], (3, 4))
        return [
            lambda: a().resize_as_sparse_(tmpl),
            lambda: lib.resize_as_sparse_(a(), tmpl.double()),
            lambda: empty().resize_as_sparse_(lib.ones(2, 2, 3).to_sparse(2)),
            lambda: empty().resize_as_sparse_(lib.ones(2, 2, 3).to_sparse()),
        ], [
            lambda: lib.resize_as_sparse_(a(), lib.sparse_coo_tensor([[0], [0]], [1.0], (1, 1))),
            lambda: a().resize_as_sparse_(lib.ones(2, 2)),
            lambda: a().resize_as_sparse_(tmpl.to_sparse_csr()),
            lambda: tmpl.to_sparse_csr().resize_as_sparse_(tmpl),
            lambda: a().requires_grad_().resize_as_sparse_(tmpl),
        ]

    (oke, bade), (okt, badt) = cases(ember), cases(torch)
    for fe, ft in zip(oke, okt):
        _same_repr(fe(), ft())
    for fe, ft in zip(bade, badt):
        with pytest.raises(RuntimeError) as te:
            ft()
        with pytest.raises(RuntimeError) as ee:
            fe()
        assert str(ee.value) == str(te.value).split("\n")[0]  # torch adds hints on more lines
    s = ember.sparse_coo_tensor([[0], [1]], [1.0], (2, 2))
    v = s._version
    assert s.resize_as_sparse_(ember.zeros(3, 3).to_sparse()) is s and s._version == v + 1


# ---- spsolve ---------------------------------------------------------------------------------
@needs_torch
def test_spsolve_has_no_cpu_kernel_as_torch():
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    for make in (lambda lib: lib.tensor(a).to_sparse_csr(), lambda lib: lib.tensor(a)):
        _same_error(
            lambda: ember.sparse.spsolve(make(ember), ember.ones(2, dtype=ember.float64)),
            lambda: torch.sparse.spsolve(make(torch), torch.ones(2, dtype=torch.float64)),
            prefix_only=True,
        )


# ---- the legacy sparse types -----------------------------------------------------------------
NAMES = "BFloat16 Byte Char Double Float Half Int Long Short".split()


@needs_torch
@pytest.mark.parametrize("name", NAMES)
def test_legacy_types(name):
    E, T = getattr(ember.sparse, f"{name}Tensor"), getattr(torch.sparse, f"{name}Tensor")
    assert E.dtype.name == str(T.dtype).split(".")[1]
    assert (E.is_sparse, E.is_cuda, E.layout) == (True, False, ember.sparse_coo)
    assert E.__name__ == T.__name__ and E.__module__ == "ember.sparse"
    for args in [(), (2, 3), (ember.Size([2, 3]),), (4,)]:
        targs = tuple(torch.Size(a) if isinstance(a, ember.Size) else a for a in args)
        _same_repr(E(*args), T(*targs))
    for vals in ([1.0, 2.0], [1, 2]):
        for size in ((), ((3,),), ((1,),)):  # (1,): unchecked, as torch's
            _same_repr(
                E(ember.tensor([[0, 1]]), ember.tensor(vals), *size),
                T(torch.tensor([[0, 1]]), torch.tensor(vals), *size),
            )
    se, st = E(2).to_dense().to_sparse(), T(2).to_dense().to_sparse()
    assert isinstance(se, E) is isinstance(st, T) is True
    assert isinstance(se.to_dense(), E) is isinstance(st.to_dense(), T) is False
    assert isinstance(se.to_dense().to_sparse_csr() if False else se, ember.sparse.FloatTensor) is (
        name == "Float"
    )
    assert se.type() == st.type()


@needs_torch
def test_legacy_type_conversions_and_errors():
    e, t = ember.ones(2).to_sparse(), torch.ones(2).to_sparse()
    _same_repr(e.type(ember.sparse.DoubleTensor), t.type(torch.sparse.DoubleTensor))
    _same_repr(e.type("torch.sparse.IntTensor"), t.type("torch.sparse.IntTensor"))
    _same_repr(e.type(ember.DoubleTensor), t.type(torch.DoubleTensor))
    _same_repr(
        ember.ones(2).type(ember.sparse.DoubleTensor), torch.ones(2).type(torch.sparse.DoubleTensor)
    )
    for args in ([1.0, 2.0], 2.5, ember.ones(2)):
        targs = torch.ones(2) if isinstance(args, ember.Tensor) else args
        with pytest.raises(TypeError) as te:
            torch.sparse.FloatTensor(targs)
        with pytest.raises(TypeError) as ee:
            ember.sparse.FloatTensor(args)
        assert str(ee.value) == str(te.value)
    _same_error(
        lambda: ember.sparse.FloatTensor(ember.tensor([[0.0, 1.0]]), ember.ones(2), (3,)),
        lambda: torch.sparse.FloatTensor(torch.tensor([[0.0, 1.0]]), torch.ones(2), (3,)),
    )
    with pytest.raises(RuntimeError):
        ember.sparse.FloatTensor(-1)


@needs_torch
def test_sparse_tensors_are_no_legacy_dense_type_and_mm_checks_as_torch():
    for lib in (ember, torch):
        s = lib.ones(2, 2).to_sparse()
        assert not isinstance(s, lib.FloatTensor) and isinstance(lib.ones(2), lib.FloatTensor)
        assert isinstance(s, lib.sparse.FloatTensor)
        with pytest.raises(IndexError, match="Dimension out of range"):
            lib.mm(s, lib.ones(2))
