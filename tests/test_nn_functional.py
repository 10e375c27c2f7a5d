"""ember.nn.functional: linear's paths, errors and node names against torch, and the activation
entry points (signatures, implicit softmax dim, dtype and inplace arguments)."""

from __future__ import annotations

import inspect
import warnings

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


def test_linear_is_not_a_top_level_op():
    # NOTE: matches torch: there is no torch.linear, only torch.nn.functional.linear
    assert not hasattr(ember, "linear")
    assert F.linear is ember.ops.linear.linear


def test_linear_keyword_arguments_and_default_bias():
    x, w = ember.ones(2, 3), ember.ones(4, 3)
    y = F.linear(input=x, weight=w)
    assert y.shape == (2, 4) and bool((y == 3).all())
    assert list(inspect.signature(F.linear).parameters) == ["input", "weight", "bias"]


def test_linear_meta():
    x = ember.empty(2, 3, 4, device="meta")
    y = F.linear(x, ember.empty(5, 4, device="meta"), ember.empty(5, device="meta"))
    assert y.is_meta and y.shape == (2, 3, 5)
    y = F.linear(
        ember.empty(4, device="meta", dtype=ember.float16),
        ember.empty(5, 4, device="meta", dtype=ember.float16),
    )
    assert y.is_meta and y.shape == (5,) and y.dtype == ember.float16


def test_linear_without_grad_records_nothing():
    w = ember.randn(5, 4, requires_grad=True)
    with ember.no_grad():
        y = F.linear(ember.randn(3, 4), w)
    assert y.grad_fn is None and not y.requires_grad


def test_linear_bias_only_gradient():
    b = ember.zeros(5, requires_grad=True)
    F.linear(ember.ones(3, 4), ember.ones(5, 4), b).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), np.full(5, 3.0, np.float32))


def test_linear_fused_bias_adds_per_flattened_row():
    # A (M, 1) bias on a 3-D input is added along PyTorch's flattened rows.
    x = ember.zeros(5, 1, 2)
    y = F.linear(x, ember.zeros(3, 2), ember.arange(5.0).reshape(5, 1))
    assert y.shape == (5, 1, 3)
    np.testing.assert_array_equal(y.numpy()[:, 0, 0], np.arange(5.0))


# (input shape, weight shape, bias shape or None, dtypes (x, w, b)) -> torch's result or error
F32 = ("float32", "float32", "float32")
CASES = [
    ((3, 4), (5, 4), (5,), F32),
    ((3, 4), (5, 4), None, F32),
    ((4,), (5, 4), (5,), F32),
    ((4,), (5, 4), None, F32),
    ((2, 3, 4), (5, 4), (5,), F32),
    ((2, 3, 4), (5, 4), None, F32),
    ((2, 3, 2, 4), (5, 4), (5,), F32),
    ((2, 3, 2, 4), (5, 4), (1, 5), F32),
    ((2, 3, 2, 4), (5, 4), (), F32),
    ((2, 3, 4), (5, 4), (3, 5), F32),
    ((2, 3, 4), (5, 4), (2, 3, 1), F32),
    ((2, 3, 4), (5, 4), (1, 5), F32),
    ((3, 4), (5, 4), (3, 1), F32),
    ((3, 4), (5, 4), (), F32),
    ((4,), (5, 4), (1, 5), F32),
    ((4,), (5, 4), (), F32),
    ((3, 4), (4,), None, F32),
    ((2, 3, 4), (4,), None, F32),
    ((4,), (4,), None, F32),
    ((2, 3, 4), (4,), (2, 3), F32),
    ((0, 4), (5, 4), (5,), F32),
    ((3, 0), (5, 0), (5,), F32),
    ((2, 3, 4), (5, 4), (3, 5), ("float32", "float32", "float64")),
    ((2, 3, 4), (5, 4), (3, 5), ("float32", "float32", "float16")),
    ((3, 4), (5, 4), (5,), ("float16", "float16", "float16")),
    ((2, 3, 4), (5, 4), (5,), ("int64", "int64", "int64")),
    # errors
    ((), (5, 4), None, F32),
    ((4,), (), None, F32),
    ((3, 4), (4, 4, 4), None, F32),
    ((3, 6), (5, 4), (5,), F32),
    ((3, 6), (5, 4), None, F32),
    ((6,), (5, 4), None, F32),
    ((2, 3, 6), (5, 4), None, F32),
    ((2, 3, 6), (5, 4), (5,), F32),
    ((3, 4), (5, 4), (3,), F32),
    ((3, 4), (5, 4), (2, 3, 5), F32),
    ((3, 4), (5, 4), (4, 1), F32),
    ((4,), (5, 4), (3,), F32),
    ((4,), (5, 4), (2, 5), F32),
    ((2, 3, 4), (5, 4), (1, 1, 5), F32),
    ((2, 3, 4), (5, 4), (3, 4), F32),
    ((2, 3, 4), (5, 4), (4, 2, 3, 5), F32),
    ((2, 3, 2, 4), (5, 4), (7,), F32),
    ((3, 4), (4,), (3,), F32),
    ((2, 3, 6), (5,), None, F32),
    ((3, 6), (5,), None, F32),
    ((6,), (5,), None, F32),
    ((3, 4), (5, 4), (5,), ("float64", "float32", "float32")),
    ((3, 4), (5, 4), (5,), ("float32", "float64", "float32")),
    ((3, 4), (5, 4), (5,), ("float32", "float32", "float64")),
    ((3, 6), (5, 4), (5,), ("float64", "float32", "float32")),
    ((3, 6), (5, 4), (5,), ("float32", "float32", "float64")),
    ((2, 3, 6), (5, 4), (5,), ("float32", "float32", "float64")),
    ((3, 4), (5, 4), (7,), ("bool", "bool", "bool")),
    ((3, 4), (5, 4), None, ("float64", "float32", None)),
    ((3, 6), (5, 4), None, ("float64", "float32", None)),
    ((2, 3, 4), (5, 4), None, ("float64", "float32", None)),
    ((2, 3, 4), (5, 4), (5,), ("float64", "float32", "float32")),
    ((2, 3, 4), (5, 4), (3, 5), ("int64", "int64", "float32")),
    ((3, 4), (5, 4), (5,), ("bool", "bool", "bool")),
    ((3, 4), (5, 4), None, ("bool", "bool", None)),
]


def _make(lib, shape, dtype, rng, requires_grad):
    if dtype == "bool":
        a = rng.random(shape) < 0.5
    elif dtype.startswith("int"):
        a = rng.integers(-3, 4, size=shape).astype(dtype)
    else:
        a = rng.standard_normal(shape).astype(dtype)
    t = lib.tensor(a) if lib is ember else torch.from_numpy(np.array(a))
    if requires_grad and dtype.startswith("float"):
        t.requires_grad_(True)
    return t


def _call(lib, case):
    xs, ws, bs, (dx, dw, db) = case
    rng = np.random.default_rng(0)
    func = F.linear if lib is ember else TF.linear
    x = _make(lib, xs, dx, rng, True)
    w = _make(lib, ws, dw, rng, True)
    b = None if bs is None else _make(lib, bs, db, rng, True)
    try:
        return func(x, w, b), None
    except Exception as e:  # noqa: BLE001 - the error itself is what is compared
        return None, e


def _first_sentence(msg: str) -> str:
    # ember may add a hint after PyTorch's message and prints tensors as ember's types
    return msg.split("; ")[0].split(" (")[0].split("expand(")[0]


@needs_torch
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3][0]}" for c in CASES])
def test_linear_matches_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's zero-size warnings
        ty, terr = _call(torch, case)
        ey, eerr = _call(ember, case)
    if terr is not None:
        assert eerr is not None, f"torch raises {terr!r}, ember returned {ey}"
        assert type(eerr) is type(terr), f"{eerr!r} vs torch {terr!r}"
        assert str(eerr).startswith(_first_sentence(str(terr))), f"{eerr} vs torch {terr}"
        return
    assert eerr is None, f"ember raises {eerr!r}, torch gives shape {tuple(ty.shape)}"
    assert tuple(ey.shape) == tuple(ty.shape)
    assert str(ey.dtype).split(".")[-1] == str(ty.dtype).split(".")[-1]
    tol = 2e-3 if ty.dtype == torch.float16 else 1e-5
    np.testing.assert_allclose(
        ey.detach().numpy().astype(np.float64),
        ty.detach().numpy().astype(np.float64),
        rtol=tol,
        atol=tol,
    )
    if ty.grad_fn is not None:
        assert ey.grad_fn.name() == ty.grad_fn.name()
    else:
        assert ey.grad_fn is None


# ---- activations ---------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "softmax", "log_softmax"])
def test_signatures_match_torch(name):
    ours = inspect.signature(getattr(F, name))
    theirs = inspect.signature(getattr(TF, name))
    assert [(p.name, p.default) for p in ours.parameters.values()] == [
        (p.name, p.default) for p in theirs.parameters.values()
    ]


def test_relu_inplace():
    x = ember.tensor([-1.0, 2.0])
    assert F.relu(x, inplace=True) is x
    np.testing.assert_array_equal(x.numpy(), [0.0, 2.0])
    y = ember.tensor([-3.0, 1.0])
    assert F.relu_(y) is y and y.tolist() == [0.0, 1.0]
    z = ember.tensor([-3.0, 1.0])
    assert F.relu(z) is not z and z.tolist() == [-3.0, 1.0]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize(
    "shape,dim", [((), 0), ((3,), 0), ((2, 3), 1), ((2, 3, 4), 0), ((2, 3, 4, 5), 1)]
)
def test_softmax_implicit_dim_warns_and_picks_torchs_dim(name, shape, dim):
    fn = getattr(F, name)
    x = ember.randn(*shape)
    with pytest.warns(
        UserWarning, match=f"Implicit dimension choice for {name} has been deprecated"
    ) as rec:
        y = fn(x)
    assert rec[0].filename == __file__  # _stacklevel=3 points at the caller
    np.testing.assert_allclose(y.numpy(), fn(x, dim).numpy())


def test_softmax_stacklevel_argument():
    def wrapper(x):
        return F.softmax(x, _stacklevel=4)

    with pytest.warns(UserWarning) as rec:
        wrapper(ember.randn(2, 2))
    assert rec[0].filename == __file__


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_dtype_argument(name):
    x = ember.randn(2, 3)
    y = getattr(F, name)(x, dim=1, dtype=ember.float64)
    assert y.dtype == ember.float64
    y = getattr(F, name)(ember.tensor([[1, 2]]), -1, 3, ember.float32)
    assert y.dtype == ember.float32


@needs_torch
@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "softmax", "log_softmax"])
def test_activation_values_and_gradients_match_torch(name):
    x = np.random.default_rng(1).standard_normal((3, 4))
    kw = {"dim": -1} if "softmax" in name else {}
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ey, ty = getattr(F, name)(ex, **kw), getattr(TF, name)(tx, **kw)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(2).standard_normal((3, 4))
    ey.backward(ember.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert ey.grad_fn.name() == ty.grad_fn.name()
