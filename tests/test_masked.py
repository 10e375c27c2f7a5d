"""ember.masked (masked reductions/normalizations and MaskedTensor) against torch.masked."""

import warnings

import numpy as np
import pytest

import ember
import ember.masked as M

try:
    import torch
    import torch.masked as TM
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5))
MASK = RNG.random((3, 4, 5)) > 0.4
MASK[0, 1, :] = False  # a fully masked-out slice along dim 2
MASK_B = RNG.random((4, 5)) > 0.3  # broadcast over dim 0
XI = RNG.integers(-5, 5, (3, 4))
MI = RNG.random((3, 4)) > 0.3

REDUCTIONS = ["sum", "prod", "amax", "amin", "mean", "norm", "var", "std", "logsumexp"]
NORMALIZATIONS = ["softmax", "log_softmax", "softmin", "cumsum", "cumprod"]


def _dt(d):
    return str(d).rsplit(".", 1)[-1]


def _check(e, t, rtol=1e-9, atol=1e-12):
    assert _dt(e.dtype) == _dt(t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(
        np.asarray(e.detach().numpy()), t.detach().numpy(), rtol=rtol, atol=atol
    )


def _mask(which):
    return {"full": MASK, "broadcast": MASK_B, "none": None}[which]


def _both(op, x, *args, mask=None, **kw):
    """(ember result, torch result) of the same masked op, with float64 data."""
    em = None if mask is None else ember.tensor(mask)
    tm = None if mask is None else torch.tensor(mask)
    ekw = {k: getattr(ember, _dt(v)) if k == "dtype" else v for k, v in kw.items()}
    return (
        getattr(M, op)(ember.tensor(x), *args, mask=em, **ekw),
        getattr(TM, op)(torch.tensor(x), *args, mask=tm, **kw),
    )


# ---- values ------------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("op", REDUCTIONS)
@pytest.mark.parametrize("dim", [None, 1, (0, 2), -1])
@pytest.mark.parametrize("which", ["full", "broadcast", "none"])
def test_reductions_match_torch(op, dim, which):
    args = (2.0,) if op == "norm" else ()
    for keepdim in (False, True):
        _check(*_both(op, X, *args, dim, keepdim=keepdim, mask=_mask(which)))


@needs_torch
@pytest.mark.parametrize("op", ["argmax", "argmin", "median"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_reductions_match_torch(op, dim):
    for keepdim in (False, True):
        _check(*_both(op, X, dim, keepdim=keepdim, mask=MASK))
    if op != "median":  # the flattened form; index in input's dtype, as torch's
        e, t = _both(op, X, mask=MASK)
        _check(e, t)
        assert e.dtype == ember.float64


@needs_torch
@pytest.mark.parametrize("op", NORMALIZATIONS)
@pytest.mark.parametrize("dim", [0, 2, -1])
def test_normalizations_match_torch(op, dim):
    _check(*_both(op, X, dim, mask=MASK))
    _check(*_both(op, X, dim, mask=MASK, dtype=torch.float32), rtol=1e-6, atol=1e-6)


@needs_torch
@pytest.mark.parametrize("ord", [1.0, 2.0, 0.5, float("inf"), float("-inf")])
def test_norm_and_normalize_orders(ord):
    _check(*_both("norm", X, ord, 1, mask=MASK))
    _check(*_both("normalize", X, ord, 1, mask=MASK))
    _check(*_both("normalize", X, ord, 2, mask=MASK, eps=0.5))


@needs_torch
def test_logaddexp_two_masks():
    other = X[::-1].copy()
    e = M.logaddexp(
        ember.tensor(X),
        ember.tensor(other),
        input_mask=ember.tensor(MASK),
        other_mask=ember.tensor(MASK_B),
    )
    t = TM.logaddexp(
        torch.tensor(X),
        torch.tensor(other),
        input_mask=torch.tensor(MASK),
        other_mask=torch.tensor(MASK_B),
    )
    _check(e, t)


@needs_torch
@pytest.mark.parametrize(
    "op", ["sum", "prod", "amax", "amin", "argmax", "argmin", "var", "std", "median", "cumsum"]
)
def test_integer_inputs_and_dtype(op):
    # fill values per dtype (iinfo bounds for amax/amin), int64 accumulation, float32 var
    _check(*_both(op, XI, 1, mask=MI))
    _check(*_both(op, XI, 1, mask=MI, dtype=torch.float64))
    if op not in ("median", "cumsum"):
        _check(*_both(op, XI, mask=MI))


@needs_torch
@pytest.mark.parametrize("correction", [0, 1, 2, 2.5])
def test_var_corrections(correction):
    _check(*_both("var", X, 1, correction=correction, mask=MASK))
    _check(*_both("std", X, (1, 2), correction=correction, keepdim=True, mask=MASK))
    _check(*_both("var", X, 2, False, mask=MASK))


@needs_torch
def test_special_inputs():
    xb = RNG.random((3, 4)) > 0.5
    _check(*_both("sum", xb, 1, mask=MI))  # bool sums to int64
    _check(*_both("sum", X, 1, mask=MASK.astype(np.int64)))  # a non-bool mask is cast
    for op in ("sum", "amax", "mean", "prod"):
        e = getattr(M, op)(ember.tensor(2.5), mask=ember.tensor(False))
        t = getattr(TM, op)(torch.tensor(2.5), mask=torch.tensor(False))
        _check(e, t)
    _check(*_both("mean", X, 0, mask=MASK, dtype=torch.float32), rtol=1e-6)


# ---- gradients ---------------------------------------------------------------------------------
GRAD_CASES = [
    ("sum", (1,), {}),
    ("prod", ((0, 2),), {}),
    ("amax", (2,), {}),
    ("amin", (None,), {}),
    ("mean", (1,), {"keepdim": True}),
    ("norm", (2.0, 2), {}),
    ("var", (2,), {}),
    ("std", ((1, 2),), {}),
    ("logsumexp", (1,), {}),
    ("median", (1,), {}),
    ("softmax", (2,), {}),
    ("log_softmax", (1,), {}),
    ("softmin", (0,), {}),
    ("normalize", (2.0, 2), {}),
    ("cumsum", (1,), {}),
    ("cumprod", (2,), {}),
]


@needs_torch
@pytest.mark.parametrize("op,args,kw", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_torch(op, args, kw):
    mask = MASK.copy()
    mask[0, 1, :] = True  # keep every slice non-empty: nan/inf outputs make no gradient test
    mask[:, :, 0] = True
    ex = ember.tensor(X, requires_grad=True)
    tx = torch.tensor(X, requires_grad=True)
    w = RNG.standard_normal(1)[0] + 1.0
    eo = getattr(M, op)(ex, *args, mask=ember.tensor(mask), **kw)
    to = getattr(TM, op)(tx, *args, mask=torch.tensor(mask), **kw)
    _check(eo, to)
    fin = np.isfinite(to.detach().numpy())  # log_softmax's masked-out -inf
    (eo[ember.tensor(fin)] * w).sum().backward()
    (to[torch.tensor(fin)] * w).sum().backward()
    _check(ex.grad, tx.grad)
    assert not np.any(ex.grad.numpy()[~mask])  # nothing reaches a masked-out element


@pytest.mark.parametrize(
    "op,args", [("sum", (1,)), ("softmax", (1,)), ("var", (1,)), ("normalize", (2.0, 1))]
)
def test_gradcheck_and_gradgradcheck(op, args):
    x = ember.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    mask = ember.tensor([[True, False, True, True], [True, True, False, True], [True] * 4])

    def f(v):
        return getattr(M, op)(v, *args, mask=mask)

    assert ember.autograd.gradcheck(f, (x,))
    assert ember.autograd.gradgradcheck(f, (x,))


# ---- errors ------------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "call",
    [
        lambda L, x, m, xi, mi: L.sum(x, (1, 1), mask=m),
        lambda L, x, m, xi, mi: L.sum(x, 5, mask=m),
        lambda L, x, m, xi, mi: L.amax(x[0], mask=m),
        lambda L, x, m, xi, mi: L.mean(xi, mask=mi),
        lambda L, x, m, xi, mi: L.mean(x, mask=m, dtype=L is TM and torch.int32 or ember.int32),
        lambda L, x, m, xi, mi: L.var(x, 1, True, correction=1, mask=m),
        lambda L, x, m, xi, mi: L.median(xi, 1, mask=mi & (mi.sum(1, keepdim=True) > 99)),
    ],
    ids=["dup_dim", "dim_range", "mask_ndim", "mean_int", "mean_int_dtype", "var_both", "median"],
)
def test_errors_match_torch(call):
    with pytest.raises(Exception) as te:
        call(TM, torch.tensor(X), torch.tensor(MASK), torch.tensor(XI), torch.tensor(MI))
    with pytest.raises(Exception) as ee:
        call(M, ember.tensor(X), ember.tensor(MASK), ember.tensor(XI), ember.tensor(MI))
    assert type(ee.value) is type(te.value)
    assert str(ee.value).replace("ember.", "torch.") == str(te.value)


def test_sparse_input_is_refused_clearly():
    x = ember.tensor([[1.0, 0.0], [0.0, 2.0]]).to_sparse()
    with pytest.raises(NotImplementedError, match="masked sum: .*sparse"):
        M.sum(x, mask=ember.tensor([[True, True], [False, True]]))


# ---- MaskedTensor ------------------------------------------------------------------------------
# torch warns on every MaskedTensor it makes (results included); ember on the user's constructions
PROTOTYPE = pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors:UserWarning")
D = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
DM = [[True, False, True], [False, False, True]]


def _mts(requires_grad=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        e = M.masked_tensor(ember.tensor(D), ember.tensor(DM), requires_grad=requires_grad)
        t = TM.masked_tensor(torch.tensor(D), torch.tensor(DM), requires_grad=requires_grad)
    return e, t


MT_OPS = {
    "repr": lambda x: x,
    "sum_all": lambda x: x.sum(),
    "sum_dim": lambda x: x.sum(1),
    "sum_keepdim": lambda x: x.sum(1, keepdim=True),
    "amax": lambda x: x.amax(1),
    "amin_all": lambda x: x.amin(),
    "mean_all": lambda x: x.mean(),
    "mean_dim": lambda x: x.mean(0),
    "argmax": lambda x: x.argmax(1),
    "prod": lambda x: x.prod(0),
    "var": lambda x: x.var(),
    "std": lambda x: x.std(1),
    "all": lambda x: (x > 2).all(),
    "add": lambda x: x + 1,
    "sub": lambda x: x - 2,
    "mul_self": lambda x: x * x,
    "div_self": lambda x: x / x,
    "exp": lambda x: x.exp(),
    "neg": lambda x: -x,
    "gt": lambda x: x > 2,
    "index": lambda x: x[0],
    "t": lambda x: x.t(),
    "softmax": lambda x: x.softmax(1),
    "softmax_0": lambda x: x.softmax(0),
}


@needs_torch
@PROTOTYPE
@pytest.mark.parametrize("name", list(MT_OPS))
def test_masked_tensor_matches_torch(name):
    e, t = _mts()
    # the repr shows data and mask (masked-out as --), so equal reprs mean equal results
    assert repr(MT_OPS[name](e)).replace("ember", "torch") == repr(MT_OPS[name](t))


@needs_torch
@PROTOTYPE
def test_masked_tensor_members_and_to_tensor():
    e, t = _mts()
    assert M.is_masked_tensor(e) and not M.is_masked_tensor(ember.ones(1))
    np.testing.assert_array_equal(e.get_data().numpy(), t.get_data().numpy())
    np.testing.assert_array_equal(e.get_mask().numpy(), t.get_mask().numpy())
    np.testing.assert_array_equal(e.to_tensor(-1.0).numpy(), t.to_tensor(-1.0).numpy())
    assert tuple(e.shape) == (2, 3) and e.dim() == 2 and e.dtype == ember.float32
    # masked ops take a MaskedTensor and use its mask (mean's count quirk included)
    for op in ("sum", "mean", "var", "amax"):
        _check(getattr(M, op)(e), getattr(TM, op)(t), rtol=1e-6)
    _check(M.softmax(e, 1), TM.softmax(t, 1), rtol=1e-6)


@needs_torch
@PROTOTYPE
@pytest.mark.filterwarnings("ignore:It is not recommended to create a MaskedTensor:UserWarning")
def test_masked_tensor_gradients():
    e, t = _mts(requires_grad=True)
    w = [[0.5, -1.0, 2.0], [3.0, 1.0, -2.0]]
    ((e.softmax(1) * ember.tensor(w)).sum(1) * e.sum(1)).sum().backward()
    ((t.softmax(1) * torch.tensor(w)).sum(1) * t.sum(1)).sum().backward()
    assert M.is_masked_tensor(e.grad)
    assert repr(e.grad) == repr(t.grad)
    # masked-in values only: what lies under torch's masked-out elements is unspecified
    np.testing.assert_allclose(
        np.where(DM, e.grad.get_data().numpy(), 0),
        np.where(DM, t.grad.get_data().numpy(), 0),
        rtol=1e-6,
    )
    # as_masked_tensor is differentiable back into its data
    x = ember.tensor(D, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        (M.as_masked_tensor(x, ember.tensor(DM)) * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(DM, 3.0, 0.0))


def test_masked_tensor_warns_like_torch():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        M.MaskedTensor(ember.ones(2), ember.tensor([True, False]))
        M.masked_tensor(ember.ones(2, requires_grad=True), ember.tensor([True, False]))
    messages = [str(w.message) for w in seen]
    assert all(w.category is UserWarning for w in seen) and len(messages) == 3
    assert messages[0] == messages[1] and "MaskedTensors is in prototype stage" in messages[0]
    assert "not recommended to create a MaskedTensor with a tensor" in messages[2]


@needs_torch
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_masked_tensor_errors_match_torch():
    cases = [
        lambda L, lib: L.masked_tensor([1.0], lib.tensor([True])),
        lambda L, lib: L.masked_tensor(lib.ones(2), lib.ones(2)),
        lambda L, lib: L.masked_tensor(lib.ones(2), lib.ones(3, dtype=lib.bool)),
        lambda L, lib: L.masked_tensor(lib.ones(2, 1), lib.ones(2, dtype=lib.bool)),
        lambda L, lib: L.masked_tensor(lib.ones(2, dtype=lib.uint8), lib.ones(2, dtype=lib.bool)),
        lambda L, lib: (
            L.masked_tensor(lib.ones(2), lib.tensor([True, False]))
            + L.masked_tensor(lib.ones(2), lib.tensor([False, True]))
        ),
    ]
    for case in cases:
        with pytest.raises(Exception) as te:
            case(TM, torch)
        with pytest.raises(Exception) as ee:
            case(M, ember)
        assert type(ee.value) is type(te.value)
        assert str(ee.value).replace("ember.", "torch.") == str(te.value)
