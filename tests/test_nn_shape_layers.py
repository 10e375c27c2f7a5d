"""Shape, padding, resampling and distance layers (Flatten, Unflatten, PixelShuffle, Upsample,
*Pad*, ChannelShuffle, CosineSimilarity, PairwiseDistance) and the functionals behind the
last three: attributes, reprs, outputs and gradients against torch in float64."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - CI installs torch
    torch = TF = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# (class name, constructor args, kwargs, input shapes)
LAYERS = [
    ("Flatten", (), {}, [(2, 3, 4, 5)]),
    ("Flatten", (0, 2), {}, [(2, 3, 4, 5)]),
    ("Unflatten", (1, (2, 3)), {}, [(4, 6, 5)]),
    ("Unflatten", (-1, [2, -1]), {}, [(4, 6)]),
    ("PixelShuffle", (2,), {}, [(2, 8, 3, 4)]),
    ("PixelUnshuffle", (2,), {}, [(2, 2, 4, 6)]),
    ("Upsample", (), {"scale_factor": 2}, [(2, 3, 4, 5)]),
    ("Upsample", (), {"size": (5, 7), "mode": "bilinear", "align_corners": True}, [(2, 3, 4, 5)]),
    (
        "Upsample",
        (),
        {"scale_factor": (1.5, 2.5), "mode": "bicubic", "recompute_scale_factor": True},
        [(2, 3, 4, 5)],
    ),
    ("Upsample", (), {"scale_factor": 1.7, "mode": "linear"}, [(2, 3, 5)]),
    ("Upsample", (), {"size": 3, "mode": "trilinear"}, [(1, 2, 4, 5, 3)]),
    ("UpsamplingNearest2d", (), {"scale_factor": 2}, [(2, 3, 4, 5)]),
    ("UpsamplingBilinear2d", (), {"size": 7}, [(2, 3, 4, 5)]),
    ("ZeroPad1d", (2,), {}, [(2, 3, 4)]),
    ("ZeroPad2d", ((1, 2, 3, 4),), {}, [(2, 3, 4, 5)]),
    ("ZeroPad3d", (1,), {}, [(2, 3, 4, 5)]),
    ("ConstantPad1d", (2, 3.5), {}, [(3, 4)]),
    ("ConstantPad2d", ((1, 0, 2, 1), 1), {}, [(2, 3, 4, 5)]),
    ("ConstantPad3d", (1, -2.0), {}, [(1, 2, 3, 4, 5)]),
    ("ReflectionPad1d", (3,), {}, [(2, 3, 4)]),
    ("ReflectionPad2d", ((1, 2, 3, 0),), {}, [(2, 3, 4, 5)]),
    ("ReflectionPad3d", (1,), {}, [(2, 2, 3, 4)]),
    ("ReplicationPad1d", ((5, 1),), {}, [(2, 3, 4)]),
    ("ReplicationPad2d", (2,), {}, [(3, 4, 5)]),
    ("ReplicationPad3d", ((1, 2, 0, 1, 2, 0),), {}, [(1, 2, 3, 4, 5)]),
    ("CircularPad1d", (2,), {}, [(2, 3, 4)]),
    ("CircularPad2d", ((1, 2, 3, 0),), {}, [(3, 4, 5)]),
    ("CircularPad3d", (1,), {}, [(1, 2, 3, 4, 5)]),
    ("ChannelShuffle", (3,), {}, [(2, 6, 4)]),
    ("CosineSimilarity", (), {}, [(4, 5), (4, 5)]),
    ("CosineSimilarity", (), {"dim": 0, "eps": 0.5}, [(4, 5), (1, 5)]),
    ("PairwiseDistance", (), {}, [(4, 5), (4, 5)]),
    ("PairwiseDistance", (), {"p": 1.0, "eps": 0.0, "keepdim": True}, [(4, 5), (5,)]),
]


@needs_torch
@pytest.mark.parametrize(
    "name,args,kwargs,shapes", LAYERS, ids=[f"{c[0]}-{i}" for i, c in enumerate(LAYERS)]
)
def test_layer_matches_torch(name, args, kwargs, shapes):
    em, tm = getattr(ember.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(em) == repr(tm)
    assert type(em).__constants__ == type(tm).__constants__
    for attr in type(tm).__constants__:
        assert getattr(em, attr) == getattr(tm, attr), attr
    assert list(em.state_dict()) == list(tm.state_dict()) == []
    xs = [_rand(*s, seed=i) for i, s in enumerate(shapes)]
    exs = [ember.tensor(x, requires_grad=True) for x in xs]
    txs = [torch.tensor(x, requires_grad=True) for x in xs]
    ey, ty = em(*exs), tm(*txs)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = _rand(*ty.shape, seed=9)
    ey.backward(ember.tensor(g))
    ty.backward(torch.tensor(g))
    for e, t in zip(exs, txs):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("name,args", [("Unflatten", (1, 5)), ("Unflatten", (1, (2.0, 3)))])
def test_unflatten_rejects_non_int_sizes(name, args):
    with pytest.raises(TypeError) as expected:
        getattr(torch.nn, name)(*args)
    with pytest.raises(TypeError, match=str(expected.value)):
        getattr(ember.nn, name)(*args)


@needs_torch
@pytest.mark.parametrize(
    "name,rank", [("CircularPad1d", 4), ("CircularPad2d", 2), ("CircularPad3d", 6)]
)
def test_circular_pad_checks_rank(name, rank):
    with pytest.raises(ValueError) as expected:
        getattr(torch.nn, name)(1)(torch.zeros((2,) * rank))
    with pytest.raises(
        ValueError, match=str(expected.value).replace("(", r"\(").replace(")", r"\)")
    ):
        getattr(ember.nn, name)(1)(ember.zeros((2,) * rank))


def test_upsample_scale_factor_is_stored_as_float_or_none():
    assert ember.nn.Upsample(scale_factor=2).scale_factor == 2.0
    assert isinstance(ember.nn.Upsample(scale_factor=2).scale_factor, float)
    assert ember.nn.Upsample(scale_factor=(2, 3)).scale_factor == (2.0, 3.0)
    assert ember.nn.Upsample(size=3).scale_factor is None
    assert ember.nn.Upsample(size=3).name == "Upsample"
    assert ember.nn.UpsamplingBilinear2d(size=3).align_corners is True


def test_layers_on_meta_give_shapes():
    x = ember.empty(2, 8, 6, 6, device="meta")
    assert ember.nn.PixelShuffle(2)(x).shape == (2, 2, 12, 12)
    assert ember.nn.ReflectionPad2d(2)(x).shape == (2, 8, 10, 10)
    assert ember.nn.Upsample(scale_factor=2, mode="bilinear")(x).shape == (2, 8, 12, 12)
    assert ember.nn.Flatten()(x).shape == (2, 288)


# ---- functionals ----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "fn,shape,arg",
    [
        ("pixel_shuffle", (2, 8, 3, 4), 2),
        ("pixel_shuffle", (8, 3, 4), 2),
        ("pixel_shuffle", (1, 2, 18, 3, 3), 3),
        ("pixel_unshuffle", (2, 2, 6, 4), 2),
        ("pixel_unshuffle", (1, 2, 2, 6, 9), 3),
        ("pixel_unshuffle", (2, 2, 6, 5), 1),
        ("channel_shuffle", (2, 6, 3, 3), 3),
        ("channel_shuffle", (2, 6, 3), 2),
        ("native_channel_shuffle", (2, 6, 3), 2),
    ],
)
def test_rearrangements_match_torch(fn, shape, arg):
    x = _rand(*shape)
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ey, ty = getattr(F, fn)(ex, arg), getattr(TF, fn)(tx, arg)
    np.testing.assert_array_equal(ey.detach().numpy(), ty.detach().numpy())
    g = _rand(*ty.shape, seed=1)
    ey.backward(ember.tensor(g))
    if fn != "native_channel_shuffle":  # torch has no gradient for the native kernel
        ty.backward(torch.tensor(g))
        np.testing.assert_array_equal(ex.grad.numpy(), tx.grad.numpy())


@needs_torch
@pytest.mark.parametrize(
    "fn,shape,arg",
    [
        ("pixel_shuffle", (3, 3), 2),
        ("pixel_shuffle", (5, 3, 3), 2),
        ("pixel_shuffle", (4, 3, 3), 0),
        ("pixel_shuffle", (4, 3, 3), -2),
        ("pixel_shuffle", (4, 3, 3), 2.0),
        ("pixel_unshuffle", (4, 3, 3), 0),
        ("pixel_unshuffle", (3, 3), 3),
        ("pixel_unshuffle", (2, 5, 4), 2),
        ("pixel_unshuffle", (2, 6, 5), 2),
        ("channel_shuffle", (2, 8, 3), 3),
        ("channel_shuffle", (4, 4), 2),
        ("channel_shuffle", (2, 8, 3), 0),
        ("channel_shuffle", (2, 8, 3), -1),
    ],
)
def test_rearrangement_errors_match_torch(fn, shape, arg):
    x = _rand(*shape)
    with pytest.raises(Exception) as expected:
        getattr(TF, fn)(torch.tensor(x), arg)
    with pytest.raises(expected.type) as got:
        getattr(F, fn)(ember.tensor(x), arg)
    assert str(got.value) == str(expected.value)


def _distance_parity(fn, xs, **kw):
    exs = [ember.tensor(x, requires_grad=True) for x in xs]
    txs = [torch.tensor(x, requires_grad=True) for x in xs]
    ey, ty = getattr(F, fn)(*exs, **kw), getattr(TF, fn)(*txs, **kw)
    assert tuple(ey.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = _rand(*ty.shape, seed=7)
    ey.backward(ember.tensor(g))
    ty.backward(torch.tensor(g))
    for e, t in zip(exs, txs):
        expected = np.zeros(e.shape) if t.grad is None else t.grad.numpy()  # torch: None for p=0
        np.testing.assert_allclose(e.grad.numpy(), expected, rtol=1e-9, atol=1e-12)


@needs_torch
@pytest.mark.parametrize(
    "shapes,kw",
    [
        (((3, 5), (3, 5)), {}),
        (((3, 5), (5,)), {"dim": -1}),
        (((2, 3, 5), (1, 3, 5)), {"dim": 0}),
        (((3, 5), (3, 5)), {"eps": 0.5}),
    ],
)
def test_cosine_similarity_matches_torch(shapes, kw):
    _distance_parity("cosine_similarity", [_rand(*s, seed=i) for i, s in enumerate(shapes)], **kw)


@needs_torch
def test_cosine_similarity_clamps_each_norm_outside_autograd():
    # a near-zero x1: torch's gradient is that of the unclamped norm at the clamped value
    _distance_parity("cosine_similarity", [_rand(3, 5) * 1e-10, _rand(3, 5, seed=1)], dim=1)


@needs_torch
@pytest.mark.parametrize("p", [2.0, 1.0, 3.5, float("inf"), 0.0])
@pytest.mark.parametrize(
    "shapes,keepdim", [(((3, 5), (3, 5)), False), (((3, 5), (5,)), True), (((5,), (5,)), False)]
)
def test_pairwise_distance_matches_torch(p, shapes, keepdim):
    _distance_parity(
        "pairwise_distance", [_rand(*s, seed=i) for i, s in enumerate(shapes)], p=p, keepdim=keepdim
    )


@needs_torch
@pytest.mark.parametrize("p", [2.0, 1.0, 3.5, float("inf")])
def test_pdist_matches_torch(p):
    x = _rand(5, 3)
    x[3] = x[1] + 1e-3 * _rand(3, seed=5)  # close rows (no ties: see the report on inf)
    _distance_parity("pdist", [x], p=p)
    _distance_parity("pdist", [_rand(1, 3)], p=p)


@needs_torch
@pytest.mark.parametrize(
    "fn,args",
    [
        ("cosine_similarity", ((3, 4), (5,))),
        ("pairwise_distance", ((3, 4), (5,))),
        ("pdist", ((3, 4, 2),)),
    ],
)
def test_distance_errors_match_torch(fn, args):
    xs = [_rand(*s) for s in args]
    with pytest.raises(Exception) as expected:
        getattr(TF, fn)(*[torch.tensor(x) for x in xs])
    with pytest.raises(expected.type):
        getattr(F, fn)(*[ember.tensor(x) for x in xs])


@needs_torch
def test_distance_dtype_errors_match_torch():
    a = np.ones((2, 3), np.int32)
    with pytest.raises(RuntimeError, match="common dtype is Int"):
        F.cosine_similarity(ember.tensor(a), ember.tensor(a))
    with pytest.raises(RuntimeError, match="non-negative p"):
        F.pdist(ember.ones(3, 2), p=-1)


@pytest.mark.parametrize("fn,n", [("cosine_similarity", 2), ("pairwise_distance", 2), ("pdist", 1)])
def test_distance_gradcheck(fn, n):
    xs = tuple(ember.tensor(_rand(4, 3, seed=i), requires_grad=True) for i in range(n))
    assert ember.autograd.gradcheck(getattr(F, fn), xs)
    assert ember.autograd.gradgradcheck(getattr(F, fn), xs)


@pytest.mark.parametrize(
    "fn,arg,shape",
    [
        ("pixel_shuffle", 2, (1, 8, 2, 3)),
        ("pixel_unshuffle", 2, (1, 2, 4, 2)),
        ("channel_shuffle", 2, (1, 4, 3)),
    ],
)
def test_rearrangement_gradcheck(fn, arg, shape):
    x = ember.tensor(_rand(*shape), requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: getattr(F, fn)(t, arg), (x,))
