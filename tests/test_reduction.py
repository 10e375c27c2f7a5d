"""Behaviour tests for reductions, scans, selections and norms (ember/ops/reduction.py,
ember/linalg.py): return types, dtype rules, errors, empty inputs, gradient semantics at ties
and zeros, double backward, meta tensors, and parity with torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ember

NAN = float("nan")
INF = float("inf")


def _t(values, dtype=ember.float64, requires_grad=False):
    return ember.tensor(values, dtype=dtype, requires_grad=requires_grad)


def _grad(fn, values, dtype=ember.float64):
    x = _t(values, dtype, requires_grad=True)
    out = fn(x)
    out.sum().backward()
    return x.grad.numpy()


def _torch():
    return pytest.importorskip("torch", reason="torch is the reference (pip install torch)")


def _torch_grad(torch, fn, values):
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    fn(x).sum().backward()
    return x.grad.numpy()


def _close(a, b, tol=1e-10):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


# ---- return types --------------------------------------------------------------------------
X = [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]


@pytest.mark.parametrize(
    "name,call,dim,reduces",
    [
        ("max", lambda x: ember.max(x, 1), 1, True),
        ("min", lambda x: x.min(dim=0), 0, True),
        ("sort", lambda x: x.sort(), -1, False),
        ("topk", lambda x: x.topk(2), -1, False),
        ("kthvalue", lambda x: x.kthvalue(2), -1, True),
        ("median", lambda x: x.median(1), 1, True),
        ("nanmedian", lambda x: x.nanmedian(1), 1, True),
        ("mode", lambda x: x.mode(), -1, True),
        ("cummax", lambda x: x.cummax(1), 1, False),
        ("cummin", lambda x: ember.cummin(x, 0), 0, False),
    ],
)
def test_values_indices_named_tuple(name, call, dim, reduces):
    r = call(_t(X))
    assert isinstance(r, tuple) and type(r).__name__ == name
    values, indices = r
    assert values is r.values and indices is r.indices
    assert r.indices.dtype == ember.int64 and r.values.dtype == ember.float64
    idx = r.indices.numpy()
    idx = np.expand_dims(idx, dim) if reduces else idx
    picked = np.take_along_axis(np.array(X), idx, dim)
    np.testing.assert_array_equal(picked.reshape(r.values.shape), r.values.numpy())


def test_aminmax_fields():
    r = ember.aminmax(_t(X), dim=1)
    assert type(r).__name__ == "aminmax"
    np.testing.assert_array_equal(r.min.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(r.max.numpy(), [5.0, 6.0])
    assert r[0] is r.min


def test_full_reductions_are_0d():
    x = _t(X)
    for r in (
        x.max(),
        x.min(),
        x.median(),
        x.nanmedian(),
        x.sum(),
        x.prod(),
        x.amax(),
        x.logsumexp((0, 1)),
        x.norm(),
        x.var(),
        x.argmax(),
    ):
        assert r.shape == ()


def test_var_mean_is_a_plain_tuple():
    r = ember.var_mean(_t(X), 1)
    assert type(r) is tuple and len(r) == 2
    _close(r[0], np.var(X, axis=1, ddof=1))
    _close(r[1], np.mean(X, axis=1))


# ---- dtype rules ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [ember.bool, ember.uint8, ember.int8, ember.int32, ember.int64])
@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.sum(),
        lambda x: x.sum(0),
        lambda x: ember.nansum(x),
        lambda x: x.prod(),
        lambda x: x.prod(0),
        lambda x: x.cumsum(0),
        lambda x: x.cumprod(0),
    ],
)
def test_integer_accumulation_is_int64(op, dtype):
    x = ember.tensor([[1, 0, 1], [1, 1, 1]], dtype=dtype)
    assert op(x).dtype == ember.int64


def test_sum_and_cumsum_dtype_argument():
    x = ember.tensor([1, 2, 3], dtype=ember.int32)
    assert x.sum(dtype=ember.float32).dtype == ember.float32
    assert x.cumsum(0, dtype=ember.float64).dtype == ember.float64
    assert ember.ones(3).sum(dtype=ember.int64).item() == 3
    assert ember.ones(3).prod(dtype=ember.float64).dtype == ember.float64


def test_mean_of_integers_raises_like_torch():
    x = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype.*Long"):
        x.mean()
    with pytest.raises(RuntimeError, match="Optional dtype"):
        ember.ones(2).mean(dtype=ember.int64)
    assert x.mean(dtype=ember.float32).item() == 1.5
    with pytest.raises(RuntimeError, match="nanmean"):
        ember.nanmean(x)


@pytest.mark.parametrize("op", [ember.var, ember.std, ember.var_mean, ember.std_mean])
def test_var_of_integers_raises(op):
    with pytest.raises(RuntimeError, match="floating point"):
        op(ember.tensor([1, 2, 3]))


def test_dtype_preserving_ops():
    x = ember.tensor([[3, 1], [2, 5]], dtype=ember.int32)
    assert x.max().dtype == ember.int32
    assert x.amin(0).dtype == ember.int32
    assert x.sort().values.dtype == ember.int32
    assert x.median().dtype == ember.int32
    assert x.cummax(1).values.dtype == ember.int32
    assert x.argmax().dtype == ember.int64
    assert x.argsort().dtype == ember.int64
    assert ember.count_nonzero(x).dtype == ember.int64
    assert ember.ones(3, dtype=ember.float16).sum().dtype == ember.float16


def test_all_any_dtypes():
    assert ember.tensor([1.0, 2.0]).all().dtype == ember.bool
    assert ember.tensor([0, 2]).any(0).dtype == ember.bool
    # NOTE: torch quirk: uint8 in, uint8 out
    r = ember.tensor([1, 2], dtype=ember.uint8).all()
    assert r.dtype == ember.uint8 and r.item() == 1
    assert ember.tensor([NAN]).all().item() is True  # NaN is nonzero


def test_logsumexp_of_integers_gives_default_float():
    assert ember.logsumexp(ember.tensor([1, 2]), 0).dtype == ember.float32
    _close(ember.logsumexp(ember.tensor([1, 2]), 0).double(), np.log(np.e + np.e**2), 1e-6)


def test_half_sums_accumulate_in_float32():
    torch = _torch()
    x = np.full(20000, 0.1, np.float16)
    ours = ember.tensor(x).sum()
    theirs = torch.tensor(x).sum()
    assert ours.dtype == ember.float16
    assert ours.item() == theirs.item()
    assert ember.tensor(x).mean().item() == torch.tensor(x).mean().item()


# ---- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.sum(2),
        lambda x: x.mean(-3),
        lambda x: x.amax(2),
        lambda x: x.max(2),
        lambda x: x.argmax(5),
        lambda x: x.cumsum(2),
        lambda x: x.sort(2),
        lambda x: x.var(2),
        lambda x: x.logsumexp(2),
        lambda x: x.topk(1, 2),
        lambda x: x.median(-3),
        lambda x: x.all(2),
        lambda x: x.count_nonzero(2),
        lambda x: x.norm(dim=2),
        lambda x: x.prod(2),
        lambda x: x.cummax(2),
        lambda x: x.mode(2),
    ],
)
def test_dim_out_of_range_is_index_error(call):
    with pytest.raises(
        IndexError,
        match=r"Dimension out of range \(expected to be in range "
        r"of \[-2, 1\], but got -?\d\)",
    ):
        call(_t(X))


def test_repeated_dims():
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        _t(X).sum((0, -2))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        _t(X).amax((1, 1))


def test_empty_reduction_errors_match_torch():
    e = ember.zeros(0, 3)
    with pytest.raises(
        RuntimeError,
        match=r"max\(\): Expected reduction dim to be specified "
        r"for input.numel\(\) == 0",
    ):
        e.max()
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero"):
        e.max(0)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 0 to have non-zero"):
        e.amax(0)
    with pytest.raises(RuntimeError, match=r"amin\(\): Expected reduction dim to be specified"):
        e.amin()
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        e.argmax()
    with pytest.raises(IndexError, match=r"median\(\): Expected reduction dim 0"):
        e.median(0)
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 0"):
        e.mode(0)
    with pytest.raises(RuntimeError, match=r"aminmax\(\): cannot compute aminmax over an empty"):
        ember.aminmax(e)


def test_k_out_of_range():
    x = ember.ones(3)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        x.topk(4)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        x.topk(-1)
    with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range"):
        x.kthvalue(0)
    with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range"):
        x.kthvalue(4)


def test_signature_errors():
    with pytest.raises(TypeError, match="prod"):
        ember.ones(2, 2).prod((0, 1))
    with pytest.raises(TypeError):
        ember.logsumexp(ember.ones(2))  # dim is required, as in torch
    with pytest.raises(TypeError, match="argmax"):
        ember.ones(2, 2).argmax((0,))
    with pytest.raises(TypeError, match="unbiased or correction"):
        ember.ones(3).var(0, True, correction=0)


def test_norm_errors():
    with pytest.raises(RuntimeError, match="linalg.vector_norm: Expected a floating point"):
        ember.tensor([1, 2]).norm()
    with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
        ember.linalg.vector_norm(ember.zeros(0), INF)
    with pytest.raises(RuntimeError, match="cannot compute the -1 norm on the dimension 0"):
        ember.linalg.vector_norm(ember.zeros(0, 2), -1, dim=(0,))
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        ember.linalg.matrix_norm(ember.ones(3))
    with pytest.raises(RuntimeError, match="Order 3 not supported"):
        ember.linalg.matrix_norm(ember.ones(3, 3), 3)
    with pytest.raises(RuntimeError, match="dims must be different"):
        ember.linalg.matrix_norm(ember.ones(3, 3), dim=(0, -2))
    with pytest.raises(RuntimeError, match="the input must be 1D or 2D. Got 3D"):
        ember.linalg.norm(ember.ones(2, 2, 2), 2)
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
        ember.linalg.matrix_norm(ember.ones(3, 3, dtype=ember.float16), "nuc")
    with pytest.raises(RuntimeError, match="without narrowing"):
        ember.linalg.vector_norm(ember.ones(3, dtype=ember.float64), dtype=ember.float32)


# ---- empty inputs --------------------------------------------------------------------------
def test_empty_reductions_have_identities():
    e = ember.zeros(0, 3)
    np.testing.assert_array_equal(e.sum(0).numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(e.prod(0).numpy(), [1.0, 1.0, 1.0])
    assert math.isnan(e.mean().item())  # NaN, and no NumPy warning (warnings are errors)
    assert ember.logsumexp(e, 0).numpy().tolist() == [-INF] * 3
    assert e.all().item() is True and e.any().item() is False
    assert ember.count_nonzero(e).item() == 0
    assert e.amax(1).shape == (0,)
    assert e.max(1).values.shape == (0,)
    assert e.sort(0).values.shape == (0, 3)
    assert e.cummax(0).indices.shape == (0, 3)
    assert ember.linalg.vector_norm(e).item() == 0.0
    assert math.isnan(ember.zeros(0).median().item())


def test_var_with_no_degrees_of_freedom_warns_like_torch():
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
        r = ember.tensor([1.0]).var()
    assert math.isnan(r.item())
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
        r = ember.tensor([1.0, 2.0]).std(correction=3)
    assert r.item() == INF


# ---- argument forms ------------------------------------------------------------------------
def test_var_signatures():
    x = _t([[1.0, 2.0, 4.0], [3.0, 3.0, 9.0]])
    a = np.array(x.numpy())
    _close(x.var(), np.var(a, ddof=1))
    _close(x.var(False), np.var(a))  # old positional "unbiased"
    _close(x.var(1, False, True), np.var(a, axis=1, keepdims=True))
    _close(x.var(dim=0, correction=0, keepdim=True), np.var(a, axis=0, keepdims=True))
    _close(x.std(1, unbiased=True), np.std(a, axis=1, ddof=1))
    _close(x.var((0, 1), correction=2), np.var(a, ddof=2))


def test_all_any_empty_dim_tuple_reduces_nothing():
    # NOTE: torch quirk: sum(dim=()) reduces all, all(dim=()) reduces nothing
    x = ember.tensor([[1.0, 0.0], [2.0, 3.0]])
    assert x.all(()).shape == (2, 2)
    assert x.sum(()).shape == ()
    assert ember.count_nonzero(x, ()).item() == 3


def test_keepdim_shapes():
    x = ember.ones(2, 3, 4)
    assert x.sum((0, 2), keepdim=True).shape == (1, 3, 1)
    assert x.mean(keepdim=True).shape == (1, 1, 1)
    assert x.max(1, keepdim=True).indices.shape == (2, 1, 4)
    assert x.argmax(keepdim=True).shape == (1, 1, 1)
    assert x.std(-1, keepdim=True).shape == (2, 3, 1)
    assert x.logsumexp((1, 2), keepdim=True).shape == (2, 1, 1)
    assert x.norm(dim=(0, 1), keepdim=True).shape == (1, 1, 4)
    assert ember.linalg.matrix_norm(x, "nuc", keepdim=True).shape == (2, 1, 1)
    assert ember.linalg.matrix_norm(x, 2, dim=(2, 0), keepdim=True).shape == (1, 3, 1)


def test_max_of_two_tensors_is_maximum():
    a, b = _t([1.0, 5.0]), _t([3.0, 2.0])
    np.testing.assert_array_equal(ember.max(a, b).numpy(), [3.0, 5.0])
    np.testing.assert_array_equal(a.min(b).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(ember.max(a, other=b).numpy(), [3.0, 5.0])


def test_out_arguments():
    x = _t(X)
    out = ember.empty(0, dtype=ember.float64)
    r = ember.sum(x, 1, out=out)
    assert r is out and out.numpy().tolist() == [9.0, 12.0]
    v, i = ember.empty(2, dtype=ember.float64), ember.empty(2, dtype=ember.int64)
    r = ember.max(x, 1, out=(v, i))
    assert r.values is v and r.indices is i and i.numpy().tolist() == [1, 2]


def test_cumsum_inplace():
    x = ember.tensor([[1, 2], [3, 4]])
    y = x.cumsum_(0)
    assert y is x and x.numpy().tolist() == [[1, 2], [4, 6]]


def test_indices_and_bool_results_are_not_differentiable():
    x = _t(X, requires_grad=True)
    assert not x.max(1).indices.requires_grad
    assert not x.argmax().requires_grad
    assert not x.all().requires_grad
    assert x.max(1).values.requires_grad


def test_modified_indices_are_caught_in_backward():
    x = _t([3.0, 1.0, 2.0], requires_grad=True)
    values, indices = x.sort()
    indices.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        values.sum().backward()


def test_argmax_of_bool_raises_like_torch():
    with pytest.raises(RuntimeError, match=r"argmax\(\): does not support bool input"):
        ember.tensor([True, False]).argmax()


# ---- selection semantics -------------------------------------------------------------------
def test_sort_is_stable_and_orders_nan_like_torch():
    x = ember.tensor([1.0, 0.0, 1.0, 0.0, 1.0])
    assert x.sort(descending=True).indices.tolist() == [0, 2, 4, 1, 3]
    assert x.sort().indices.tolist() == [1, 3, 0, 2, 4]
    y = ember.tensor([1.0, NAN, 0.0])
    assert y.sort().indices.tolist() == [2, 0, 1]
    assert y.sort(descending=True).indices.tolist() == [1, 0, 2]
    assert y.argsort(descending=True).tolist() == [1, 0, 2]


def test_topk_partition_path_matches_full_sort():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 500))
    x = ember.tensor(a)
    for k in (1, 7, 499, 500):
        for largest in (True, False):
            v, i = x.topk(k, largest=largest)
            want = np.sort(a, axis=1)[:, ::-1][:, :k] if largest else np.sort(a, axis=1)[:, :k]
            np.testing.assert_array_equal(v.numpy(), want)
            np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), 1), want)
    v, _ = x.topk(5, sorted=False)
    np.testing.assert_array_equal(np.sort(v.numpy(), 1), np.sort(a, 1)[:, -5:])


def test_median_and_mode_conventions():
    assert ember.tensor([1.0, 2.0, 3.0, 4.0]).median().item() == 2.0  # lower median
    assert math.isnan(ember.tensor([1.0, NAN, 2.0]).median().item())
    assert ember.tensor([1.0, NAN, 2.0, 3.0]).nanmedian().item() == 2.0
    values = ember.tensor([[NAN, NAN], [1.0, NAN]]).nanmedian(1).values.tolist()
    assert math.isnan(values[0]) and values[1] == 1.0
    m = ember.tensor([2, 2, 1, 1, 3, 3, 2, 1]).mode()
    assert (m.values.item(), m.indices.item()) == (1, 7)  # smallest most-frequent, last index


def test_cummax_indices_follow_latest_tie_and_nan():
    r = ember.tensor([1.0, 3.0, 3.0, 2.0, NAN, 5.0, NAN, 1.0]).cummax(0)
    assert r.indices.tolist() == [0, 1, 2, 2, 4, 4, 6, 6]
    assert ember.tensor([3.0, 1.0, 1.0, 2.0]).cummin(0).indices.tolist() == [0, 1, 2, 2]


def test_logsumexp_is_stable():
    r = ember.logsumexp(_t([[1000.0, 1000.0], [-INF, -INF], [INF, 1.0]]), 1)
    np.testing.assert_allclose(r.numpy(), [1000.0 + math.log(2.0), -INF, INF])


# ---- gradient semantics --------------------------------------------------------------------
def test_max_gradients_ties():
    v = [1.0, 3.0, 3.0, 2.0]
    np.testing.assert_array_equal(_grad(lambda x: x.max(), v), [0.0, 0.5, 0.5, 0.0])
    np.testing.assert_array_equal(_grad(lambda x: x.amax(), v), [0.0, 0.5, 0.5, 0.0])
    np.testing.assert_array_equal(_grad(lambda x: x.max(0).values, v), [0.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(
        _grad(lambda x: x.median(), [1.0, 2.0, 2.0, 3.0]), [0.0, 0.5, 0.5, 0.0]
    )
    # NaN counts as a tie of the NaN result for max() (torch's evenly_distribute_backward)
    np.testing.assert_array_equal(_grad(lambda x: x.max(), [1.0, NAN, NAN]), [0.0, 0.5, 0.5])


def test_amax_ties_split_per_slice():
    g = _grad(lambda x: x.amax(1), [[1.0, 4.0, 4.0], [2.0, 2.0, 2.0]])
    np.testing.assert_allclose(g, [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])


@pytest.mark.parametrize(
    "values",
    [
        [2.0, 0.0, 3.0, 4.0],
        [0.0, 0.0, 3.0, 4.0],
        [0.0, 0.0, 0.0, 2.0],
        [1.5, 2.0, 3.0, 4.0],
    ],
)
@pytest.mark.parametrize("op", ["prod", "prod_dim", "cumprod"])
def test_prod_cumprod_gradients_with_zeros_match_torch(values, op):
    torch = _torch()

    def f(lib_x):
        if op == "prod":
            return lib_x.prod()
        if op == "prod_dim":
            return lib_x.reshape(2, 2).prod(1)
        return lib_x.cumprod(0)

    x = _t(values, requires_grad=True)
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    (g,) = ember.autograd.grad(f(x).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(f(tx).sum(), tx, create_graph=True)
    _close(g, tg)
    w = [0.5, -1.0, 2.0, 1.5]
    (gg,) = ember.autograd.grad((g * _t(w)).sum(), x)
    (tgg,) = torch.autograd.grad((tg * torch.tensor(w, dtype=torch.float64)).sum(), tx)
    _close(gg, tgg)
    # and without create_graph (the O(n) array path)
    _close(_grad(f, values), _torch_grad(torch, f, values))


def test_std_and_norm_gradients_at_zero():
    np.testing.assert_array_equal(_grad(lambda x: x.std(), [1.0, 1.0, 1.0]), [0.0, 0.0, 0.0])
    for p in (2, 3, 1.5, 0.5, 1, INF):
        g = _grad(lambda x, p=p: ember.linalg.vector_norm(x, p), [0.0, 0.0])
        np.testing.assert_array_equal(g, [0.0, 0.0])
    g = _grad(lambda x: ember.linalg.vector_norm(x, 0.5), [0.0, 4.0])
    assert g[0] == 0.0 and g[1] > 0


def test_cummax_gradient_accumulates_repeated_indices():
    np.testing.assert_array_equal(
        _grad(lambda x: x.cummax(0).values, [1.0, 3.0, 2.0, 2.5]), [1.0, 3.0, 0.0, 0.0]
    )


def test_scatter_gradients_have_double_backward():
    x = _t([[3.0, 1.0, 2.0], [0.5, 4.0, 6.0]], requires_grad=True)
    w = _t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    (g,) = ember.autograd.grad((x.sort(1).values * w).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [[3.0, 1.0, 2.0], [4.0, 5.0, 6.0]])
    (gw,) = ember.autograd.grad((g * g).sum(), w)
    # g is w scattered back by the sort permutation: d sum(g^2) / dw = 2 w
    np.testing.assert_array_equal(gw.numpy(), 2 * w.detach().numpy())


def test_svd_norms_are_twice_differentiable_as_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 3))
    for ord in ("nuc", 2, -2):
        x = ember.tensor(a, requires_grad=True)
        tx = torch.tensor(a, requires_grad=True)
        (g,) = ember.autograd.grad(ember.linalg.matrix_norm(x, ord), x, create_graph=True)
        (tg,) = torch.autograd.grad(torch.linalg.matrix_norm(tx, ord), tx, create_graph=True)
        _close(g, tg, 1e-9)
        (gg,) = ember.autograd.grad(g.square().sum(), x)
        (tgg,) = torch.autograd.grad(tg.square().sum(), tx)
        _close(gg, tgg, 1e-8)


GRAD_FN_CASES = [
    ("sum_all", lambda x: x.sum()),
    ("sum_dim", lambda x: x.sum(0)),
    ("mean_all", lambda x: x.mean()),
    ("mean_dim", lambda x: x.mean(1)),
    ("nansum", lambda x: x.nansum()),
    ("prod_all", lambda x: x.prod()),
    ("prod_dim", lambda x: x.prod(1)),
    ("max_all", lambda x: x.max()),
    ("max_dim", lambda x: x.max(0).values),
    ("min_all", lambda x: x.min()),
    ("min_dim", lambda x: x.min(1).values),
    ("amax", lambda x: x.amax(0)),
    ("amin", lambda x: x.amin()),
    ("var", lambda x: x.var()),
    ("std", lambda x: x.std(1)),
    ("logsumexp", lambda x: x.logsumexp(1)),
    ("cumsum", lambda x: x.cumsum(0)),
    ("cumprod", lambda x: x.cumprod(1)),
    ("cummax", lambda x: x.cummax(0).values),
    ("cummin", lambda x: x.cummin(0).values),
    ("sort", lambda x: x.sort().values),
    ("topk", lambda x: x.topk(1).values),
    ("kthvalue", lambda x: x.kthvalue(1).values),
    ("median_all", lambda x: x.median()),
    ("median_dim", lambda x: x.median(0).values),
    ("nanmedian_all", lambda x: x.nanmedian()),
    ("nanmedian_dim", lambda x: x.nanmedian(1).values),
    ("mode", lambda x: x.mode().values),
    ("norm", lambda x: x.norm()),
    ("vector_norm", lambda x: x.norm(p=3, dim=1)),
]


@pytest.mark.parametrize("name,fn", GRAD_FN_CASES, ids=[c[0] for c in GRAD_FN_CASES])
def test_grad_fn_names_match_torch(name, fn):
    torch = _torch()
    ours = fn(_t(X, requires_grad=True)).grad_fn.name()
    theirs = fn(torch.tensor(X, requires_grad=True)).grad_fn.name()
    assert ours == theirs


# ---- meta tensors --------------------------------------------------------------------------
META_CASES = [
    lambda lib, x: x.prod(1),
    lambda lib, x: x.cumprod(0),
    lambda lib, x: x.cumsum(-1),
    lambda lib, x: x.sort(0, descending=True),
    lambda lib, x: x.topk(2, largest=False),
    lambda lib, x: x.median(),
    lambda lib, x: x.nanmedian(1, keepdim=True),
    lambda lib, x: x.mode(0),
    lambda lib, x: x.cummax(1),
    lambda lib, x: x.var_mean(1) if hasattr(x, "var_mean") else lib.var_mean(x, 1),
    lambda lib, x: lib.linalg.matrix_norm(x, "nuc"),
    lambda lib, x: lib.linalg.svdvals(x),
    lambda lib, x: lib.norm(x, 0.5, 1),
    lambda lib, x: lib.logsumexp(x, (0, 1)),
    lambda lib, x: x.argmax(),
    lambda lib, x: lib.count_nonzero(x, 1),
    lambda lib, x: x.all(1),
    lambda lib, x: lib.aminmax(x, dim=0),
]


@pytest.mark.parametrize("case", range(len(META_CASES)))
def test_meta_results_have_cpu_shapes_and_dtypes(case):
    fn = META_CASES[case]
    cpu = fn(ember, ember.ones(3, 4))
    meta = fn(ember, ember.ones(3, 4, device="meta"))
    cpu = cpu if isinstance(cpu, tuple) else (cpu,)
    meta = meta if isinstance(meta, tuple) else (meta,)
    for c, m in zip(cpu, meta, strict=True):
        assert m.device.type == "meta"
        assert (m.shape, m.dtype) == (c.shape, c.dtype)


def test_meta_backward():
    x = ember.ones(3, 4, device="meta", requires_grad=True)
    (x.sort(1).values.sum() + x.prod(0).sum() + x.cumprod(1).sum() + x.std()).backward()
    assert x.grad.shape == (3, 4) and x.grad.device.type == "meta"


# ---- parity with torch ---------------------------------------------------------------------
PARITY = [
    ("nansum_nan", lambda lib, x: lib.nansum(x, 1), [[1.0, NAN], [NAN, NAN]]),
    ("nanmean_nan", lambda lib, x: lib.nanmean(x, 0), [[1.0, NAN], [3.0, 2.0]]),
    ("logsumexp_neginf", lambda lib, x: lib.logsumexp(x, 1), [[-INF, 0.0], [1.0, 2.0]]),
    ("norm_fro_dim", lambda lib, x: lib.norm(x, "fro", (0, 1)), X),
    ("norm_nuc", lambda lib, x: lib.norm(x, "nuc"), X),
    ("norm_neg", lambda lib, x: lib.norm(x, -2, 1), X),
    ("linalg_norm_matrix_inf", lambda lib, x: lib.linalg.norm(x, INF), X),
    ("linalg_norm_vector", lambda lib, x: lib.linalg.norm(x, 3, 1), X),
    ("matrix_norm_m1", lambda lib, x: lib.linalg.matrix_norm(x, -1), X),
    ("std_keepdim", lambda lib, x: x.std(0, keepdim=True), X),
    ("kthvalue_keepdim", lambda lib, x: x.kthvalue(2, 1, True), X),
    ("median_dim", lambda lib, x: x.median(1), X),
]


@pytest.mark.parametrize("name,fn,values", PARITY, ids=[p[0] for p in PARITY])
def test_parity_with_torch(name, fn, values):
    torch = _torch()
    x = _t(values, requires_grad=True)
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    ours, theirs = fn(ember, x), fn(torch, tx)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for o, t in zip(ours, theirs, strict=True):
        _close(o, t)
    o, t = ours[0], theirs[0]
    if not t.requires_grad:
        return
    rng = np.random.default_rng(0)
    gout = rng.standard_normal(t.shape)
    (g,) = ember.autograd.grad(o, x, ember.tensor(gout))
    (tg,) = torch.autograd.grad(t, tx, torch.from_numpy(gout))
    _close(g, tg)


@pytest.mark.parametrize("dtype", ["float32", "complex64", "float16", "bfloat16"])
def test_cumsum_cumprod_accumulate_as_torch_bit_for_bit(dtype):
    """torch's CPU scans carry the running value in double for float32 (complex128 for
    complex64, float32 for half types) and round each output: over 3000 terms a float32 running
    sum would differ from torch's in most outputs."""
    torch = _torch()
    rng = np.random.default_rng(0)
    x = rng.random((3, 3000))
    if dtype == "complex64":
        x = x + 1j * rng.random((3, 3000))
    ours = ember.tensor(x).to(getattr(ember, dtype))
    theirs = torch.tensor(x).to(getattr(torch, dtype))
    wide = "complex128" if dtype == "complex64" else "float64"
    for fn in (lambda t: t.cumsum(-1), lambda t: (1 + t / 3000).cumprod(-1)):
        a, b = fn(ours), fn(theirs)
        assert a.dtype == getattr(ember, dtype)
        a, b = a.to(getattr(ember, wide)).numpy(), b.to(getattr(torch, wide)).numpy()
        np.testing.assert_array_equal(a, b)
    # the gradient of cumsum is a reversed cumsum: the same accumulation
    xe = ember.tensor(x.real[0, :500], dtype=ember.float32, requires_grad=True)
    xt = torch.tensor(x.real[0, :500], dtype=torch.float32, requires_grad=True)
    xe.cumsum(0).pow(2).sum().backward()
    xt.cumsum(0).pow(2).sum().backward()
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


@pytest.mark.parametrize(
    "shape,axis", [((37, 50), 1), ((37, 50), 0), ((5, 37, 9), 2), ((1000,), 0)]
)
def test_cumsum_cumprod_blocked_wide_carry_matches_torch(monkeypatch, shape, axis):
    """The float64 carry runs block by block across another axis; small blocks here so every
    path (full blocks, a ragged last block, no other axis) runs on small arrays."""
    import ember.ops.cumulative as cumulative

    torch = _torch()
    monkeypatch.setattr(cumulative, "_BLOCK_BYTES", 4096)
    x = np.random.default_rng(1).random(shape)
    for dtype, wide in (("float32", "float64"), ("complex64", "complex128")):
        v = x + 1j * x[::-1] if dtype == "complex64" else x
        ours = ember.tensor(v).to(getattr(ember, dtype))
        theirs = torch.tensor(v).to(getattr(torch, dtype))
        for fn in (lambda t: t.cumsum(axis), lambda t: (0.5 + t).cumprod(axis)):
            a = fn(ours).to(getattr(ember, wide)).numpy()
            np.testing.assert_array_equal(a, fn(theirs).to(getattr(torch, wide)).numpy())
