"""The rest of the Tensor surface against torch: in-place shape views, resize_/set_, storages,
legacy typed tensors, memory formats, strided allocation, frombuffer, DLPack, per-element
callbacks, and the torch-level aliases of nn.functional (values, gradients, errors)."""

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


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _same(a, b, rtol=1e-9, atol=1e-12):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, rtol, atol)
        return
    if isinstance(a, ember.Tensor):
        assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol)
    elif isinstance(a, (ember.dtype, ember.Size)):
        assert repr(a).replace("ember", "torch") == repr(b), (a, b)
    else:
        assert a == b, (a, b)


def _outcome(fn, lib):
    try:
        return "ok", fn(lib)
    except Exception as e:  # noqa: BLE001  (the error type and message are what we compare)
        return type(e), str(e)


def _check(fn, message=True):
    """``fn(lib)`` gives the same value, or the same error type (and message), on both."""
    got, want = _outcome(fn, ember), _outcome(fn, torch)
    if got[0] == "ok" or want[0] == "ok":
        assert got[0] == want[0] == "ok", (got, want)
        _same(got[1], want[1])
    else:
        assert got[0].__name__ == want[0].__name__, (got, want)
        if message:
            assert got[1].replace("ember", "torch") == want[1], (got[1], want[1])


# ---- in-place shape views --------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.squeeze_(),
        lambda t: t.squeeze_(1),
        lambda t: t.unsqueeze_(0),
        lambda t: t.t_(),
        lambda t: t.transpose_(0, 1),
        lambda t: t.swapaxes_(1, 0),
        lambda t: t.swapdims_(0, -1),
        lambda t: t.as_strided_((3,), (2,), 1),
    ],
)
def test_inplace_views_keep_the_object_and_the_graph(op):
    def run(lib):
        a = lib.arange(6.0, dtype=lib.float64).reshape(2, 1, 3).requires_grad_()
        b = (a * 2).reshape(3, 1, 2) if False else (a * 2).reshape(2, 3)
        c = op(b)
        assert c is b
        w = lib.arange(float(b.numel()), dtype=lib.float64).reshape(b.shape)
        (b * w).sum().backward()
        return b, b.stride(), b._version, a.grad

    _check(run)


@needs_torch
def test_inplace_view_on_a_view_rebases_its_base():
    def run(lib):
        a = lib.arange(6.0, dtype=lib.float64).requires_grad_()
        base = a * 1
        v = base[2:]
        v.unsqueeze_(0)
        v.mul_(3)
        base.sum().backward()
        return v, v._base is base, base, a.grad

    _check(run)


@needs_torch
def test_inplace_view_errors():
    _check(lambda lib: lib.zeros(2, 1, requires_grad=True).squeeze_())
    _check(lambda lib: lib.zeros(2, 3).transpose_(0, 2), message=False)
    _check(lambda lib: lib.zeros(2, 3, 4).t_())


# ---- unfold and as_strided -----------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "args", [(0, 2, 1), (1, 3, 2), (-1, 1, 1), (0, 7, 1), (0, 2, 0), (0, -1, 1), (3, 1, 1)]
)
def test_unfold_values_and_errors(args):
    _check(lambda lib: lib.arange(24.0).reshape(6, 4).unfold(*args))


@needs_torch
def test_unfold_is_a_view_sharing_memory():
    x = ember.arange(6.0)
    u = x.unfold(0, 2, 2)
    assert u._base is x and u.data_ptr() == x.data_ptr()
    x.add_(1)
    assert u.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert u._version == x._version


@needs_torch
@pytest.mark.parametrize(
    "size,stride,offset",
    [
        ((2, 2), (1, 2), 1),
        ((2,), (2,), None),
        ((2, 2), (1, 2), 10),
        ((2,), (-1,), 0),
        ((2, 2), (1,), 0),
        ((0, 3), (1, 1), 0),
    ],
)
def test_as_strided_values_and_errors(size, stride, offset):
    _check(lambda lib: lib.arange(6.0)[1:].as_strided(size, stride, offset))


@needs_torch
def test_as_strided_gradient_accumulates_overlaps():
    def run(lib):
        x = lib.arange(6.0, dtype=lib.float64, requires_grad=True)
        y = lib.as_strided(x[1:], (3, 2), (1, 1))
        (y * lib.arange(6.0, dtype=lib.float64).reshape(3, 2)).sum().backward()
        return y, x.grad

    _check(run)


@needs_torch
def test_as_strided_on_meta_gives_shape():
    y = ember.zeros(6, device="meta").as_strided((2, 2), (1, 2))
    assert y.shape == (2, 2) and y.is_meta
    assert ember.zeros(4, 5, device="meta").unfold(1, 2, 1).shape == (4, 4, 2)


# ---- resize_ / set_ ------------------------------------------------------------------------------
@needs_torch
def test_resize_keeps_leading_elements_and_bumps_version():
    def run(lib):
        x = lib.arange(6.0)
        v = x._version
        x.resize_(2, 2)
        y = lib.arange(3.0)
        y.resize_as_(lib.zeros(2, 3))
        return x, x._version - v, y.shape, y[0, :3]

    _check(run)
    _check(lambda lib: lib.zeros(2, requires_grad=True).resize_(3))
    _check(lambda lib: lib.zeros(2).resize_(-1), message=False)


@needs_torch
def test_set_shares_memory():
    def run(lib):
        y, z = lib.zeros(3), lib.arange(5.0)
        y.set_(z)
        z[0] = 9
        w = lib.zeros(1).set_(z, 1, (2, 2), (1, 2))
        return y, y.is_set_to(z), z.is_set_to(y), w, lib.zeros(2).set_().shape

    _check(run)
    _check(lambda lib: lib.zeros(2, dtype=lib.long).set_(lib.zeros(3)))
    _check(lambda lib: lib.zeros(2, requires_grad=True).set_(lib.zeros(3)))


# ---- small queries and top-level aliases of methods ---------------------------------------------
@needs_torch
def test_queries():
    _check(lambda lib: lib.zeros(1).is_nonzero())
    _check(lambda lib: lib.is_nonzero(lib.tensor([2])))
    _check(lambda lib: lib.zeros(0).is_nonzero())
    _check(lambda lib: lib.zeros(2).is_nonzero())
    _check(lambda lib: lib.zeros(2, 3).is_same_size(lib.zeros(2, 3)))
    _check(lambda lib: [lib.tensor([1], dtype=d).is_signed() for d in (lib.uint8, lib.int8)])
    _check(lambda lib: lib.zeros(3, 3).fill_diagonal_(1, True))
    _check(lambda lib: lib.zeros(3).fill_diagonal_(1))
    _check(lambda lib: lib.zeros(3, 4, 5).fill_diagonal_(1))
    _check(lambda lib: lib.ones(2, 3).sum_to_size(2))
    _check(lambda lib: lib.arange(9.0).reshape(3, 3).triu_(1))
    _check(lambda lib: lib.fill(lib.zeros(2), lib.tensor([3.0])))
    _check(lambda lib: lib.nonzero_static(lib.tensor([0, 1]), size=-1), message=False)


# ---- storages ------------------------------------------------------------------------------------
@needs_torch
def test_storages_view_the_tensor_memory():
    def run(lib):
        x = lib.arange(4.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch: TypedStorage is deprecated
            s = x[1:].storage()
            s[0] = 9
            typed = (s.size(), len(s), s.tolist(), s.element_size(), s.nbytes(), s[1])
            legacy = (isinstance(s, lib.FloatStorage), isinstance(s, lib.LongStorage))
            made = lib.FloatStorage([1, 2]).tolist(), lib.DoubleStorage(3).size()
        u = x.untyped_storage()
        raw = (u.size(), u.nbytes(), u[3], u.tolist()[:8], u.data_ptr() == x.data_ptr())
        return x, typed, legacy, made, raw, lib.is_storage(u), lib.is_storage(x)

    _check(run)
    _check(lambda lib: lib.zeros(2, dtype=lib.long).storage_type().__name__)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(lambda lib: lib.zeros(2).set_(lib.FloatStorage([1, 2, 3]), 1, (2,), (1,)))


def test_meta_storage_has_a_size_and_no_data():
    u = ember.zeros(3, device="meta").untyped_storage()
    assert u.nbytes() == 12 and u.device.type == "meta"
    with pytest.raises(NotImplementedError, match="meta storage"):
        u.tolist()


# ---- legacy typed tensors and Tensor.new -----------------------------------------------------
@needs_torch
def test_legacy_typed_tensors():
    _check(lambda lib: lib.FloatTensor(2, 3).shape)
    _check(lambda lib: lib.LongTensor([1, 2]))
    _check(lambda lib: lib.DoubleTensor(size=(2,)).dtype)
    _check(lambda lib: (isinstance(lib.zeros(2), lib.FloatTensor), lib.FloatTensor.dtype))
    _check(lambda lib: isinstance(lib.zeros(2, dtype=lib.long), lib.FloatTensor))
    _check(lambda lib: lib.FloatTensor(lib.zeros(2, dtype=lib.long)), message=False)
    _check(lambda lib: lib.zeros(2).type(lib.DoubleTensor).dtype)
    _check(lambda lib: (lib.typename(lib.zeros(2, dtype=lib.int32)), lib.typename(1.0)))
    _check(lambda lib: lib.zeros(2, dtype=lib.long).new([1, 2]))
    _check(lambda lib: (lib.zeros(2).new(2, 3).shape, lib.zeros(2).new().shape))
    _check(lambda lib: lib.zeros(2).new(2, dtype=lib.long), message=False)
    assert ember.typename(ember.nn.Linear(1, 1)) == "ember.nn.modules.linear.Linear"


# ---- memory formats and strided allocation -------------------------------------------------------
@needs_torch
def test_channels_last_layout():
    def run(lib):
        x = lib.arange(120.0, dtype=lib.float64).reshape(2, 3, 4, 5)
        cl = x.contiguous(memory_format=lib.channels_last)
        y = cl * 2 + 1
        return (
            cl.stride(),
            cl.is_contiguous(),
            cl.is_contiguous(memory_format=lib.channels_last),
            y.stride(),
            cl.dim_order(),
            y,
            x.contiguous(memory_format=lib.channels_last) is x,
        )

    _check(run)
    _check(lambda lib: lib.zeros(2, 3, 4).contiguous(memory_format=lib.channels_last))
    _check(
        lambda lib: lib.zeros(1, 2, 2, 2, 2).contiguous(memory_format=lib.channels_last_3d).stride()
    )
    _check(lambda lib: lib.zeros(2, 1).dim_order(ambiguity_check=True))
    _check(lambda lib: lib.legacy_contiguous_format is lib.contiguous_format)


@needs_torch
def test_channels_last_gradient_passes_through():
    x = ember.randn(2, 3, 2, 2, dtype=ember.float64, requires_grad=True)
    (x.contiguous(memory_format=ember.channels_last) * 3).sum().backward()
    assert np.all(x.grad.numpy() == 3)


@needs_torch
def test_strided_and_permuted_empties():
    _check(lambda lib: lib.empty_strided((2, 3), (1, 2)).stride())
    _check(lambda lib: lib.empty_strided((2, 3), (1,)), message=False)
    _check(lambda lib: lib.empty_permuted((2, 3, 4), (0, 2, 1)).stride())
    _check(lambda lib: lib.zeros(1, dtype=lib.int16).new_empty_strided((2, 3), (3, 1)).dtype)
    assert ember.empty_strided((2, 3), (1, 2), device="meta").shape == (2, 3)


# ---- foreign memory ------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize(
    "buf,kw",
    [
        (b"\x01\x00\x02\x00", {}),
        (b"\x01\x00\x02\x00", {"count": 1, "offset": 2}),
        (b"", {}),
        (b"\x01\x00\x02", {}),
        (b"\x01\x00\x02\x00", {"count": 3}),
        (b"\x01\x00\x02\x00", {"offset": 4}),
    ],
)
def test_frombuffer(buf, kw):
    _check(lambda lib: lib.frombuffer(bytearray(buf), dtype=lib.int16, **kw))


def test_frombuffer_shares_memory():
    b = bytearray(b"\x01\x00\x02\x00")
    t = ember.frombuffer(b, dtype=ember.int16)
    t[0] = 7
    assert b[0] == 7


@needs_torch
def test_dlpack_round_trips():
    a = np.arange(3.0)
    t = ember.from_dlpack(a)
    t[0] = 5
    assert a[0] == 5  # shared memory
    back = np.from_dlpack(ember.arange(3.0))
    assert back.tolist() == [0.0, 1.0, 2.0]
    assert ember.from_dlpack(torch.arange(3.0)).tolist() == [0.0, 1.0, 2.0]
    assert torch.from_dlpack(ember.arange(3.0)).tolist() == [0.0, 1.0, 2.0]
    assert type(ember.to_dlpack(ember.zeros(2))).__name__ == "PyCapsule"
    _check(lambda lib: lib.zeros(2, requires_grad=True).__dlpack__())
    with pytest.raises(TypeError, match="__dlpack__"):
        ember.from_dlpack([1, 2])


# ---- per-element callbacks, pinning, sharing -------------------------------------------------
@needs_torch
def test_callbacks_and_memory_queries():
    _check(lambda lib: lib.tensor([1.0, 2.0]).apply_(lambda v: v * 10))
    _check(lambda lib: lib.zeros(2, requires_grad=True).apply_(lambda v: v))
    _check(lambda lib: lib.zeros(2, 3).map_(lib.ones(3), lambda a, b: a + b + 1))
    _check(lambda lib: lib.zeros(2).map2_(lib.ones(2), lib.ones(2), lambda a, b, c: a + b + c))
    _check(lambda lib: lib.zeros(2).is_pinned())
    _check(lambda lib: lib.zeros(2).pin_memory())
    _check(lambda lib: (lib.zeros(2).is_shared(), lib.zeros(2).share_memory_().is_shared()))
    _check(lambda lib: (lib.get_device(lib.zeros(1)), lib.zeros(1).get_device()))


# ---- torch-level aliases of nn.functional ------------------------------------------------------
def _t(lib, *shape, seed=0, positive=False):
    a = np.random.default_rng(seed + sum(shape)).standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.1
    return lib.tensor(a, dtype=lib.float64, requires_grad=True)


ALIASES = {
    "conv1d": lambda L: L.conv1d(_t(L, 2, 3, 7), _t(L, 4, 3, 3), _t(L, 4), 2, 1),
    "conv2d": lambda L: L.conv2d(_t(L, 1, 2, 5, 5), _t(L, 2, 1, 3, 3), None, 1, 1, 1, 2),
    "conv3d": lambda L: L.conv3d(_t(L, 1, 1, 3, 3, 3), _t(L, 2, 1, 2, 2, 2)),
    "conv_transpose1d": lambda L: L.conv_transpose1d(_t(L, 1, 2, 4), _t(L, 2, 3, 3), None, 2),
    "conv_transpose2d": lambda L: L.conv_transpose2d(_t(L, 1, 2, 3, 3), _t(L, 2, 1, 2, 2)),
    "conv_transpose3d": lambda L: L.conv_transpose3d(_t(L, 1, 1, 2, 2, 2), _t(L, 1, 1, 2, 2, 2)),
    "convolution": lambda L: L.convolution(
        _t(L, 1, 2, 5), _t(L, 3, 2, 2), _t(L, 3), [1], [1], [1], False, [0], 1
    ),
    "convolution_t": lambda L: L.convolution(
        _t(L, 1, 2, 5), _t(L, 2, 3, 2), None, [2], [0], [1], True, [1], 1
    ),
    "conv_tbc": lambda L: L.conv_tbc(_t(L, 5, 2, 3), _t(L, 3, 3, 4), _t(L, 4), 1),
    "batch_norm": lambda L: L.batch_norm(
        _t(L, 4, 3, 2), _t(L, 3), _t(L, 3, seed=1), None, None, True, 0.1, 1e-5, False
    ),
    "instance_norm": lambda L: L.instance_norm(
        _t(L, 2, 3, 4), None, None, None, None, True, 0.1, 1e-5, False
    ),
    "layer_norm": lambda L: L.layer_norm(_t(L, 2, 3, 4), [4], _t(L, 4), None),
    "group_norm": lambda L: L.group_norm(_t(L, 2, 4, 3), 2, _t(L, 4), _t(L, 4, seed=2)),
    "rms_norm": lambda L: L.rms_norm(_t(L, 2, 5), [5], _t(L, 5)),
    "native_layer_norm": lambda L: L.native_layer_norm(_t(L, 2, 3, 4), [3, 4], None, None, 1e-5),
    "native_batch_norm": lambda L: L.native_batch_norm(
        _t(L, 4, 3, 2), None, None, None, None, True, 0.1, 1e-5
    ),
    "native_batch_norm_eval": lambda L: L.native_batch_norm(
        _t(L, 4, 3),
        None,
        None,
        L.zeros(3, dtype=L.float64),
        L.ones(3, dtype=L.float64),
        False,
        0.1,
        1e-5,
    ),
    # ember's saved statistics carry no gradient: compare the values
    "native_group_norm": lambda L: [
        o.detach() for o in L.native_group_norm(_t(L, 2, 4, 3), None, None, 2, 4, 3, 2, 1e-5)
    ],
    "dropout_eval": lambda L: L.dropout(_t(L, 3), 0.5, False),
    "alpha_dropout_eval": lambda L: L.alpha_dropout(_t(L, 3), 0.5, False),
    "feature_dropout_eval": lambda L: L.feature_dropout(_t(L, 2, 3, 2), 0.5, False),
    "feature_alpha_dropout_eval": lambda L: L.feature_alpha_dropout(_t(L, 2, 3, 2), 0.5, False),
    "native_dropout_eval": lambda L: L.native_dropout(_t(L, 3), 0.5, False),
    "embedding": lambda L: L.embedding(_t(L, 5, 3), L.tensor([[0, 4], [2, 2]])),
    "embedding_pad": lambda L: L.embedding(_t(L, 5, 3), L.tensor([0, 4, 1]), 1),
    "embedding_bag_mean": lambda L: L.embedding_bag(
        _t(L, 6, 2), L.tensor([0, 1, 2, 4, 5]), L.tensor([0, 2]), False, 1
    )[:3],
    "embedding_bag_sum": lambda L: L.embedding_bag(
        _t(L, 6, 2), L.tensor([0, 1, 2, 4, 5]), L.tensor([0, 2]), False, 0
    )[0],
    "bilinear": lambda L: L.bilinear(_t(L, 2, 3), _t(L, 2, 4), _t(L, 5, 3, 4), _t(L, 5)),
    "cosine_similarity": lambda L: L.cosine_similarity(_t(L, 3, 4), _t(L, 3, 4, seed=1), 0),
    "pairwise_distance": lambda L: L.pairwise_distance(_t(L, 3, 4), _t(L, 3, 4, seed=1), 1.5),
    "pixel_shuffle": lambda L: L.pixel_shuffle(_t(L, 1, 4, 2, 3), 2),
    "pixel_unshuffle": lambda L: L.pixel_unshuffle(_t(L, 1, 1, 4, 2), 2),
    "channel_shuffle": lambda L: L.channel_shuffle(_t(L, 1, 6, 2), 3),
    # torch has no derivative for native_channel_shuffle
    "native_channel_shuffle": lambda L: L.native_channel_shuffle(_t(L, 1, 6, 2).detach(), 2),
    "prelu": lambda L: L.prelu(_t(L, 2, 3), _t(L, 3, seed=4)),
    "prelu_method": lambda L: _t(L, 2, 3).prelu(_t(L, 1, seed=4)),
    "rrelu_eval": lambda L: L.rrelu(_t(L, 5), 0.1, 0.3, False),
    "selu": lambda L: L.selu(_t(L, 5)),
    "celu": lambda L: L.celu(_t(L, 5), 0.7),
    "threshold": lambda L: L.threshold(_t(L, 5), 0.1, -2.0),
    "hardshrink": lambda L: L.hardshrink(_t(L, 5), 0.3),
    "hardshrink_method": lambda L: _t(L, 5).hardshrink(),
    "kl_div": lambda L: L.kl_div(_t(L, 4), _t(L, 4, seed=1, positive=True)),
    "kl_div_log_target": lambda L: L.kl_div(_t(L, 4), _t(L, 4, seed=1), 2, log_target=True),
    "margin_ranking_loss": lambda L: L.margin_ranking_loss(
        _t(L, 4), _t(L, 4, seed=1), L.tensor([1.0, -1, 1, -1], dtype=L.float64), 0.2, 0
    ),
    "hinge_embedding_loss": lambda L: L.hinge_embedding_loss(
        _t(L, 4), L.tensor([1.0, -1, 1, -1], dtype=L.float64), 0.5, 2
    ),
    "cosine_embedding_loss": lambda L: L.cosine_embedding_loss(
        _t(L, 2, 3), _t(L, 2, 3, seed=1), L.tensor([1.0, -1], dtype=L.float64)
    ),
    "triplet_margin_loss": lambda L: L.triplet_margin_loss(
        _t(L, 2, 3), _t(L, 2, 3, seed=1), _t(L, 2, 3, seed=2), 1.0, 2.0, 1e-6, True, 1
    ),
    "poisson_nll_loss": lambda L: L.poisson_nll_loss(
        _t(L, 4), _t(L, 4, seed=1, positive=True), True, True, 1e-8, 1
    ),
    "ctc_loss": lambda L: L.ctc_loss(
        _t(L, 5, 2, 4).log_softmax(2), L.tensor([[1, 2], [3, 3]]), [5, 4], [2, 2]
    ),
    "binary_cross_entropy_with_logits": lambda L: L.binary_cross_entropy_with_logits(
        _t(L, 4),
        _t(L, 4, seed=1, positive=True).clamp(0, 1),
        None,
        _t(L, 4, positive=True).detach(),
    ),
    "adaptive_avg_pool1d": lambda L: L.adaptive_avg_pool1d(_t(L, 1, 2, 7), 3),
    "adaptive_max_pool1d": lambda L: L.adaptive_max_pool1d(_t(L, 1, 2, 7), 3),
    "avg_pool1d": lambda L: L.avg_pool1d(_t(L, 1, 2, 7), 3, 2, 1, True, False),
    "max_pool1d": lambda L: L.max_pool1d(_t(L, 1, 2, 7), 3, 2),
    "max_pool2d": lambda L: L.max_pool2d(_t(L, 1, 2, 5, 5), 2, (), 1),
    "max_pool3d": lambda L: L.max_pool3d(_t(L, 1, 1, 4, 4, 4), 2),
    "max_pool1d_with_indices": lambda L: L.max_pool1d_with_indices(_t(L, 1, 2, 7), 2),
    "constant_pad_nd": lambda L: L.constant_pad_nd(_t(L, 2, 3), [1, 2, 0, 1], 0.5),
    "affine_grid_generator": lambda L: L.affine_grid_generator(_t(L, 1, 2, 3), [1, 1, 3, 4], False),
    "grid_sampler": lambda L: L.grid_sampler(
        _t(L, 1, 2, 4, 4), _t(L, 1, 3, 3, 2).tanh(), 0, 1, False
    ),
    "grid_sampler_2d_nearest": lambda L: L.grid_sampler_2d(
        _t(L, 1, 2, 4, 4), _t(L, 1, 3, 3, 2).tanh(), 1, 0, True
    ),
    "grid_sampler_3d": lambda L: L.grid_sampler_3d(
        _t(L, 1, 1, 3, 3, 3), _t(L, 1, 2, 2, 2, 3).tanh(), 0, 2, False
    ),
    "gru_cell": lambda L: L.gru_cell(
        _t(L, 2, 3), _t(L, 2, 4), _t(L, 12, 3), _t(L, 12, 4), _t(L, 12), _t(L, 12, seed=1)
    ),
    "lstm_cell": lambda L: L.lstm_cell(
        _t(L, 2, 3),
        (_t(L, 2, 4), _t(L, 2, 4, seed=1)),
        _t(L, 16, 3),
        _t(L, 16, 4),
        _t(L, 16),
        _t(L, 16, seed=1),
    ),
    "rnn_tanh_cell": lambda L: L.rnn_tanh_cell(_t(L, 2, 3), _t(L, 2, 4), _t(L, 4, 3), _t(L, 4, 4)),
    "rnn_relu_cell": lambda L: L.rnn_relu_cell(
        _t(L, 2, 3), _t(L, 2, 4), _t(L, 4, 3), _t(L, 4, 4), _t(L, 4), _t(L, 4, seed=1)
    ),
    "norm_except_dim": lambda L: L.norm_except_dim(_t(L, 3, 4, 2), 2, 1),
    "norm_except_dim_all": lambda L: L.norm_except_dim(_t(L, 3, 4), 3, -1),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(ALIASES))
def test_alias_matches_torch_values_and_gradients(name):
    fn = ALIASES[name]

    def run(lib):
        out = fn(lib)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        floats = [o for o in outs if o.dtype == lib.float64 and o.requires_grad]
        leaves = []
        if floats:
            loss = sum((o * o).sum() for o in floats)
            leaves = [p for p in _leaves(loss) if p.grad is None]
            loss.backward()
        return outs, [p.grad for p in leaves]

    got, want = run(ember), run(torch)
    _same(got[0], want[0], rtol=1e-7, atol=1e-10)
    _same(got[1], want[1], rtol=1e-7, atol=1e-10)


def _leaves(t):
    """The leaf tensors under ``t`` (to read their gradients), in a fixed order."""
    seen, out, stack = set(), [], [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        for nxt, _ in fn.next_functions:
            if nxt is None:
                continue
            var = getattr(nxt, "variable", None)
            if var is not None:
                if all(var is not o for o in out):
                    out.append(var)
            else:
                stack.append(nxt)
    return sorted(out, key=lambda v: (tuple(v.shape), float(v.detach().sum())))


@needs_torch
def test_alias_errors_and_warnings():
    _check(lambda lib: lib.kl_div(lib.zeros(2), lib.ones(2), 3))
    _check(lambda lib: lib.kl_div(lib.zeros(2), lib.ones(2)))
    with pytest.warns(UserWarning, match="frobenius_norm is deprecated"):
        got = ember.frobenius_norm(ember.ones(2, 3), [0, 1])
    assert abs(got.item() - 6**0.5) < 1e-6
    with pytest.warns(UserWarning, match="nuclear_norm is deprecated"):
        got = ember.nuclear_norm(ember.eye(3, dtype=ember.float64))
    assert got.item() == pytest.approx(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(lambda lib: lib.frobenius_norm(lib.zeros(2, 2, 2), [0, 1, 2]))


@needs_torch
def test_embedding_renorm_():
    _check(lambda lib: lib.embedding_renorm_(lib.ones(4, 2) * 3, lib.tensor([0, 2, 2]), 1.0, 2.0))
    _check(lambda lib: lib.embedding_renorm_(lib.ones(3, 2), lib.tensor([[0, 1]]), 5.0, 1.0))


@needs_torch
def test_from_file(tmp_path):
    path = tmp_path / "w.bin"
    path.write_bytes(b"\x01\x00\x00\x00\x02\x00\x00\x00")
    p = str(path)
    _check(lambda lib: lib.from_file(p, size=2, dtype=lib.int32))
    _check(lambda lib: lib.from_file(p, dtype=lib.int32))
    got = _outcome(lambda lib: lib.from_file(p, size=3, dtype=lib.int32), ember)
    assert got[0] is RuntimeError and "smaller than the required mapping size <12>" in got[1]
    t = ember.from_file(p, False, 2, dtype=ember.int32)
    t[0] = 7
    assert path.read_bytes()[0] == 1  # private copy
    t = ember.from_file(p, True, 2, dtype=ember.int32)
    t[0] = 9
    del t
    assert path.read_bytes()[0] == 9  # shared: written through


@needs_torch
def test_deprecated_resize_subclass_and_default_type():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(lambda lib: lib.arange(4.0).resize(2, 2))
        _check(lambda lib: lib.arange(4.0).resize(5))
        _check(lambda lib: lib.arange(4.0).resize_as(lib.zeros(2, 2)))
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        ember.arange(4.0).resize(4)

    class Mine(ember.Tensor):
        pass

    y = ember.ones(2, requires_grad=True) * 2
    z = y.as_subclass(Mine)
    assert type(z) is Mine and z.requires_grad and z._base is y
    z.sum().backward()
    with pytest.warns(UserWarning, match="set_default_tensor_type"):
        ember.set_default_tensor_type(ember.DoubleTensor)
    try:
        assert ember.get_default_dtype() is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
    x = ember.zeros(2)
    assert x.const_data_ptr() == x.data_ptr()


@needs_torch
def test_dropout_aliases_train_mode():
    x = ember.ones(200, 10)
    for fn in (ember.dropout, ember.feature_dropout):
        y = fn(x, 0.5, True)
        kept = y.numpy() != 0
        assert 0.3 < kept.mean() < 0.7 and np.all(y.numpy()[kept] == 2.0)
    out, mask = ember.native_dropout(x, 0.25, True)
    assert mask.dtype == ember.bool and np.allclose(out.numpy(), mask.numpy() / 0.75)
    y = ember.feature_dropout(ember.ones(4, 50, 3), 0.5, True).numpy()
    assert np.all(y == y[:, :, :1])  # whole channels
    z = ember.ones(3)
    assert ember.dropout_(z, 0.0, True) is z
