"""Dropout family: F.dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout and their
modules. Masks come from ember's generator (not torch's numbers), so training-mode behaviour is
tested statistically and through gradients; parity with torch in eval mode and at p=0 / p=1."""

from __future__ import annotations

import math
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

FUNCS = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]
MODULES = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
# an input rank each form accepts without a warning
RANK = {
    "dropout": 2,
    "dropout1d": 3,
    "dropout2d": 4,
    "dropout3d": 5,
    "alpha_dropout": 2,
    "feature_alpha_dropout": 4,
}
FEATURE = {"dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout"}


def _x(shape, dtype=ember.float64, requires_grad=False):
    return ember.tensor(
        np.random.default_rng(0).standard_normal(shape), dtype=dtype, requires_grad=requires_grad
    )


# ---- inverted dropout: statistics and gradients -------------------------------------------------
@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_keeps_fraction_and_scales(p):
    ember.manual_seed(0)
    y = F.dropout(ember.ones(200_000), p).numpy()
    kept = y != 0
    # binomial: 5 standard deviations of the kept fraction
    assert abs(kept.mean() - (1 - p)) < 5 * math.sqrt(p * (1 - p) / y.size)
    np.testing.assert_allclose(y[kept], 1 / (1 - p), rtol=1e-6)
    assert abs(y.mean() - 1) < 0.02  # unbiased: E[y] = x


@pytest.mark.parametrize("dtype", [ember.float16, ember.float32, ember.float64])
def test_dropout_gradient_flows_through_kept_elements_scaled(dtype):
    ember.manual_seed(1)
    x = _x((64, 50), dtype, requires_grad=True)
    y = F.dropout(x, 0.3)
    assert y.dtype == dtype and y.grad_fn.name() == "MulBackward0"
    g = _x((64, 50), dtype)
    y.backward(g)
    kept = y.detach().numpy() != 0
    expect = np.where(kept, g.numpy().astype(np.float64) / 0.7, 0)
    np.testing.assert_allclose(
        x.grad.numpy().astype(np.float64), expect, rtol=2e-3 if dtype == ember.float16 else 1e-6
    )
    # the output is x scaled where kept
    np.testing.assert_allclose(
        y.detach().numpy()[kept].astype(np.float64),
        x.detach().numpy()[kept].astype(np.float64) / 0.7,
        rtol=2e-3 if dtype == ember.float16 else 1e-6,
    )


def test_dropout_is_reproducible_under_manual_seed():
    ember.manual_seed(5)
    a = F.dropout(ember.ones(100)).numpy()
    ember.manual_seed(5)
    b = F.dropout(ember.ones(100)).numpy()
    c = F.dropout(ember.ones(100)).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize(
    "fn,shape",
    [
        ("dropout1d", (8, 16, 30)),
        ("dropout1d", (16, 30)),
        ("dropout2d", (8, 16, 5, 6)),
        ("dropout3d", (4, 16, 3, 4, 5)),
        ("dropout3d", (16, 3, 4, 5)),
    ],
)
def test_feature_dropout_drops_whole_channels(fn, shape):
    ember.manual_seed(2)
    x = ember.ones(*shape, requires_grad=True)
    y = getattr(F, fn)(x, 0.5)
    assert y.shape == shape
    v = y.detach().numpy()
    lead = 2 if len(shape) == RANK[fn] else 1
    per_channel = v.reshape(math.prod(shape[:lead]), -1)
    # every channel is all zeros or all 2
    assert np.all((per_channel == 0).all(1) | (per_channel == 2).all(1))
    assert 0 < (per_channel[:, 0] == 0).mean() < 1
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), v)


def test_alpha_dropout_keeps_mean_and_variance():
    ember.manual_seed(3)
    x = ember.randn(400_000, dtype=ember.float64)
    for p in (0.2, 0.5):
        y = F.alpha_dropout(x, p, training=True).numpy()
        assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
        # dropped elements all go to one value: alpha' * a + b = -alpha*scale*a + b
        vals, counts = np.unique(y, return_counts=True)
        assert abs(counts.max() / y.size - p) < 0.01


def test_alpha_dropout_gradient_is_the_scale_on_kept_elements():
    ember.manual_seed(4)
    x = _x((100, 40), requires_grad=True)
    p = 0.25
    y = F.alpha_dropout(x, p, training=True)
    y.sum().backward()
    a = 1 / math.sqrt((1.7580993408473766**2 * p + 1) * (1 - p))
    g = x.grad.numpy()
    assert set(np.round(np.unique(g), 12)) == {0.0, round(a, 12)}
    kept = g != 0
    np.testing.assert_allclose(
        y.detach().numpy()[kept],
        a * x.detach().numpy()[kept] + 1.7580993408473766 * a * p,
        rtol=1e-12,
    )


def test_feature_alpha_dropout_channels_share_a_draw():
    ember.manual_seed(6)
    x = ember.zeros(50, 20, 7, dtype=ember.float64, requires_grad=True)
    y = F.feature_alpha_dropout(x, 0.5, training=True)
    y.sum().backward()
    g = x.grad.numpy()
    assert np.all(g == g[:, :, :1])  # one draw per (n, c)
    assert 0 < (g[:, :, 0] == 0).mean() < 1


def test_inplace_dropout_writes_into_input():
    ember.manual_seed(7)
    x = ember.ones(1000)
    y = F.dropout(x, 0.5, inplace=True)
    assert y is x
    assert set(np.unique(x.numpy())) == {0.0, 2.0}
    a = ember.ones(10, 6, 4)
    b = F.dropout1d(a[0], 0.5, inplace=True)  # unbatched: unsqueeze_/squeeze_ on the view
    assert b.shape == (6, 4)
    leaf = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        F.dropout(leaf, 0.5, inplace=True)


def test_inplace_dropout_on_an_intermediate_backpropagates():
    ember.manual_seed(8)
    x = ember.ones(500, requires_grad=True)
    h = x * 3
    F.dropout(h, 0.5, inplace=True)
    h.sum().backward()
    # d(3x * mask)/dx = 3 * mask, which is h itself here (mask is 0 or 2)
    np.testing.assert_array_equal(x.grad.numpy(), h.detach().numpy())
    assert set(np.unique(h.detach().numpy())) == {0.0, 6.0}


def test_double_backward_through_dropout():
    ember.manual_seed(9)
    x = _x((30,), requires_grad=True)
    y = F.dropout(x, 0.5)
    (gx,) = ember.autograd.grad((y * y).sum(), x, create_graph=True)
    (ggx,) = ember.autograd.grad(gx.sum(), x)
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(ggx.numpy(), np.where(kept, 2 * 4.0, 0.0))


def test_meta_dropout_allocates_nothing():
    x = ember.empty(1000, 1000, device="meta")
    for fn in ("dropout", "alpha_dropout", "feature_alpha_dropout"):
        y = getattr(F, fn)(x, 0.5, training=True)
        assert y.is_meta and y.shape == (1000, 1000)
    assert ember.nn.Dropout2d()(ember.empty(2, 3, 4, 5, device="meta")).is_meta


# ---- parity with torch: identities, errors, warnings, repr ---------------------------------------
@needs_torch
@pytest.mark.parametrize("fn", FUNCS)
def test_eval_and_p0_return_input_itself(fn):
    shape = (2, 3, 4, 5, 6)[: RANK[fn]]
    x = _x(shape, requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    for kw in ({"training": False}, {"p": 0.0, "training": True}):
        assert getattr(F, fn)(x, **kw) is x
        assert getattr(TF, fn)(tx, **kw) is tx


@needs_torch
@pytest.mark.parametrize("fn", FUNCS)
def test_p1_zeroes_everything_with_a_zero_gradient(fn):
    shape = (2, 3, 4, 5, 6)[: RANK[fn]]
    x = _x(shape, requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    y, ty = getattr(F, fn)(x, 1.0, True), getattr(TF, fn)(tx, 1.0, True)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    assert y.grad_fn.name() == ty.grad_fn.name()
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@needs_torch
@pytest.mark.parametrize("fn", FUNCS)
@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_p_out_of_range_raises_value_error(fn, p):
    x = _x((2, 3, 4, 5, 6)[: RANK[fn]])
    with pytest.raises(ValueError) as e:
        getattr(F, fn)(x, p)
    with pytest.raises(ValueError) as t:
        getattr(TF, fn)(torch.tensor(x.numpy()), p)
    assert str(e.value) == str(t.value)


@needs_torch
@pytest.mark.parametrize("fn", ["dropout1d", "dropout2d", "dropout3d"])
@pytest.mark.parametrize("rank", range(1, 7))
def test_channel_dropout_rank_warnings_and_errors_match_torch(fn, rank):
    shape = (2,) * rank

    def run(mod, make):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                out = getattr(mod, fn)(make(np.ones(shape)), 0.5, True)
                result = ("ok", tuple(out.shape))
            except Exception as exc:  # noqa: BLE001 - compared with torch's
                result = (type(exc).__name__, str(exc))
        return result, [(x.category, str(x.message)) for x in w]

    assert run(F, ember.tensor) == run(TF, torch.tensor)


@needs_torch
@pytest.mark.parametrize("name", MODULES)
def test_modules_repr_constants_and_eval_identity(name):
    e, t = getattr(ember.nn, name)(), getattr(torch.nn, name)()
    assert repr(e) == repr(t) == f"{name}(p=0.5, inplace=False)"
    e2, t2 = getattr(ember.nn, name)(0.2, True), getattr(torch.nn, name)(0.2, True)
    assert repr(e2) == repr(t2)
    assert type(e).__constants__ == type(t).__constants__
    assert list(e.state_dict()) == [] and list(e.parameters()) == []
    x = _x(
        (2, 3, 4, 5, 6)[
            : RANK[
                name.lower()
                .replace("featurealpha", "feature_alpha_")
                .replace("alphadropout", "alpha_dropout")
            ]
        ]
    )
    e.eval()
    assert e(x) is x
    with pytest.raises(ValueError) as ee:
        getattr(ember.nn, name)(1.5)
    with pytest.raises(ValueError) as te:
        getattr(torch.nn, name)(1.5)
    assert str(ee.value) == str(te.value)


def test_module_train_mode_drops_and_eval_does_not():
    ember.manual_seed(10)
    m = ember.nn.Dropout(0.5)
    x = ember.ones(1000)
    assert (m(x).numpy() == 0).any()
    m.eval()
    np.testing.assert_array_equal(m(x).numpy(), x.numpy())
    m.train()
    m.inplace = True
    y = m(x)
    assert y is x and (x.numpy() == 0).any()


def test_alpha_modules_pass_training_flag():
    ember.manual_seed(11)
    x = _x((100, 8, 3))
    assert not np.array_equal(ember.nn.AlphaDropout(0.5)(x).numpy(), x.numpy())
    assert not np.array_equal(ember.nn.FeatureAlphaDropout(0.5)(x).numpy(), x.numpy())


def test_functional_all_lists_the_family():
    for fn in FUNCS:
        assert fn in F.__all__ and callable(getattr(F, fn))
    for name in MODULES:
        assert name in ember.nn.modules.dropout.__all__


@pytest.mark.parametrize("fn", FUNCS)
def test_gradcheck_with_a_fixed_mask(fn):
    # reseeding inside makes every evaluation draw the same mask
    def f(x):
        ember.manual_seed(0)
        return getattr(F, fn)(x, 0.4, True)

    x = _x((3, 4, 2, 2, 2)[: RANK[fn]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ember.autograd.gradcheck(f, (x,))
        assert ember.autograd.gradgradcheck(f, (x,))


@needs_torch
@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
@pytest.mark.parametrize("p", [0.5, 1.0])
def test_integer_inputs_as_torch(dtype, p):
    def run(lib):
        try:
            y = lib.nn.functional.dropout(lib.ones(3, 4, dtype=getattr(lib, dtype)), p, True)
            return ("ok", str(y.dtype).split(".")[-1], y.tolist())
        except Exception as exc:  # noqa: BLE001 - compared with torch's
            return (type(exc).__name__, str(exc))

    assert run(ember) == run(torch)
