"""Quantized tensors (ember/ops/quantized.py, ops/_quantized_array.py) and fake quantization
(ops/fake_quantize.py), compared with torch: integer values bit for bit, parameters, repr,
errors, gradients, checkpoints both ways."""

import warnings

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is the oracle for these tests")
# torch 2.13 warns that its quantized tensor creation is deprecated; ember does not
pytestmark = pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")

QDTYPES = ["quint8", "qint8", "qint32"]
RANGES = {"quint8": (0, 255), "qint8": (-128, 127), "qint32": (-1000, 1000)}


def _data(seed, shape, scale):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 40 * scale).astype(np.float32)
    flat = x.reshape(-1)
    n = flat.size // 3
    # exact ties: x / scale = k + 0.5
    flat[:n] = ((rng.integers(-200, 200, n) + 0.5) * np.float32(scale)).astype(np.float32)
    return x


def _t(mod, x):
    return mod.from_numpy(np.ascontiguousarray(x))


@needs_torch
@pytest.mark.parametrize("name", QDTYPES + ["quint4x2", "quint2x4"])
@pytest.mark.parametrize("scale", [0.1, 0.2, 1 / 3, 0.0137])
@pytest.mark.parametrize("n", [7, 1000])
def test_quantize_per_tensor_matches_torch(name, scale, n):
    lo, hi = RANGES.get(name, (0, 15 if name == "quint4x2" else 3))
    for zp in (lo, (lo + hi) // 2 + 1, hi):
        x = _data(n, (n,), scale)
        qt = torch.quantize_per_tensor(_t(torch, x), scale, zp, getattr(torch, name))
        qe = ember.quantize_per_tensor(_t(ember, x), scale, zp, getattr(ember, name))
        assert qe.dtype is getattr(ember, name) and qe.is_quantized
        np.testing.assert_array_equal(qe.int_repr().numpy(), qt.int_repr().numpy())
        np.testing.assert_array_equal(qe.dequantize().numpy(), qt.dequantize().numpy())
        assert qe.q_scale() == qt.q_scale() and qe.q_zero_point() == qt.q_zero_point()


@needs_torch
@pytest.mark.parametrize("name", QDTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_quantize_per_channel_matches_torch(name, axis):
    shape = (3, 4, 37)
    c = shape[axis]
    rng = np.random.default_rng(axis)
    scales = rng.choice([0.1, 0.2, 0.25, 1 / 3, 0.07], c)
    lo, hi = RANGES[name]
    zps = rng.integers(lo, hi + 1, c)
    x = _data(axis, shape, 0.1)
    qt = torch.quantize_per_channel(
        _t(torch, x), torch.from_numpy(scales), torch.from_numpy(zps), axis, getattr(torch, name)
    )
    qe = ember.quantize_per_channel(
        _t(ember, x), ember.from_numpy(scales), ember.from_numpy(zps), axis, getattr(ember, name)
    )
    np.testing.assert_array_equal(qe.int_repr().numpy(), qt.int_repr().numpy())
    np.testing.assert_array_equal(qe.dequantize().numpy(), qt.dequantize().numpy())
    np.testing.assert_array_equal(
        qe.q_per_channel_scales().numpy(), qt.q_per_channel_scales().numpy()
    )
    np.testing.assert_array_equal(
        qe.q_per_channel_zero_points().numpy(), qt.q_per_channel_zero_points().numpy()
    )
    assert qe.q_per_channel_axis() == axis and qe.qscheme() is ember.per_channel_affine


@needs_torch
def test_per_channel_float_qparams_matches_torch():
    x = _data(5, (3, 50), 0.1)
    s, z = np.array([0.1, 0.2, 0.3], np.float32), np.array([0.5, 1.25, 2.0], np.float32)
    qt = torch.quantize_per_channel(
        _t(torch, x), torch.from_numpy(s), torch.from_numpy(z), 0, torch.quint8
    )
    qe = ember.quantize_per_channel(
        _t(ember, x), ember.from_numpy(s), ember.from_numpy(z), 0, ember.quint8
    )
    assert qe.qscheme() is ember.per_channel_affine_float_qparams
    np.testing.assert_array_equal(qe.int_repr().numpy(), qt.int_repr().numpy())
    np.testing.assert_array_equal(qe.dequantize().numpy(), qt.dequantize().numpy())
    assert repr(qe).replace("ember.", "torch.") == repr(qt)


def test_rounding_ties_to_even_and_clamping():
    # x / scale = 0.5, 1.5, 2.5, -0.5: ties go to even; far values clamp to the dtype's range
    x = ember.tensor([0.5, 1.5, 2.5, -0.5, 1000.0, -1000.0])
    q = ember.quantize_per_tensor(x, 1.0, 0, ember.qint8)
    assert q.int_repr().tolist() == [0, 2, 2, 0, 127, -128]
    q = ember.quantize_per_tensor(x, 1.0, 0, ember.quint8)
    assert q.int_repr().tolist() == [0, 2, 2, 0, 255, 0]


@needs_torch
def test_repr_matches_torch():
    x = np.array([[0.05, 0.15, 0.25], [-0.35, 100.0, -100.0]], np.float32)
    cases = [
        lambda m, t: m.quantize_per_tensor(t, 0.1, 10, m.quint8),
        lambda m, t: m.quantize_per_tensor(t[0, 0], 0.1, 10, m.qint8),
        lambda m, t: m.quantize_per_tensor(t[:0], 0.1, 10, m.qint32),
        lambda m, t: m.quantize_per_tensor(t, m.tensor(0.1), m.tensor(10), m.quint4x2),
        lambda m, t: m.quantize_per_channel(t, m.tensor([0.1, 0.2]), m.tensor([0, 3]), 0, m.qint8),
    ]
    for case in cases:
        want = repr(case(torch, _t(torch, x)))
        assert repr(case(ember, _t(ember, x))).replace("ember.", "torch.") == want


@needs_torch
def test_views_and_indexing_match_torch():
    x = _data(3, (2, 3, 4), 0.1)
    qt = torch.quantize_per_tensor(_t(torch, x), 0.1, 3, torch.qint8)
    qe = ember.quantize_per_tensor(_t(ember, x), 0.1, 3, ember.qint8)
    ops = [
        lambda q: q.reshape(6, 4),
        lambda q: q.view(-1),
        lambda q: q.permute(2, 0, 1),
        lambda q: q.transpose(0, 1).contiguous(),
        lambda q: q.flatten(),
        lambda q: q.clone(),
        lambda q: q[1],
        lambda q: q[:, 1:, ::2],
        lambda q: q[None, ..., 2],
        lambda q: q.unsqueeze(1).squeeze(1),
        lambda q: q.detach(),
    ]
    for op in ops:
        a, b = op(qt), op(qe)
        assert tuple(b.shape) == tuple(a.shape) and b.dtype is ember.qint8
        np.testing.assert_array_equal(b.int_repr().numpy(), a.int_repr().numpy())
        assert b.q_scale() == a.q_scale() and b.q_zero_point() == a.q_zero_point()


@needs_torch
def test_per_channel_indexing_matches_torch():
    x = _data(4, (2, 3, 4), 0.1)
    s, z = [0.1, 0.2, 0.3], [0, 1, 2]
    qt = torch.quantize_per_channel(_t(torch, x), torch.tensor(s), torch.tensor(z), 1, torch.quint8)
    qe = ember.quantize_per_channel(_t(ember, x), ember.tensor(s), ember.tensor(z), 1, ember.quint8)
    for op in (lambda q: q[0], lambda q: q[:, 1:], lambda q: q.reshape(2, 3, 2, 2)):
        a, b = op(qt), op(qe)
        np.testing.assert_array_equal(b.int_repr().numpy(), a.int_repr().numpy())
        assert b.q_per_channel_axis() == a.q_per_channel_axis()
        assert b.q_per_channel_scales().tolist() == a.q_per_channel_scales().tolist()
    a, b = qt[:, 1], qe[:, 1]  # one channel left: per tensor
    assert b.qscheme() is ember.per_tensor_affine and b.q_scale() == a.q_scale()
    with pytest.raises(RuntimeError, match="uniformly quantized"):
        qe.permute(2, 0, 1)


@needs_torch
@pytest.mark.parametrize(
    "op",
    [
        lambda q, m: q + 1,
        lambda q, m: q * 2,
        lambda q, m: q - 1,
        lambda q, m: q + q,
        lambda q, m: q * q,
        lambda q, m: q.sum(),
        lambda q, m: q.exp(),
        lambda q, m: -q,
        lambda q, m: q.requires_grad_(),
        lambda q, m: q.q_per_channel_scales(),
        lambda q, m: m.ones(2).q_scale(),
        lambda q, m: m.ones(2).int_repr(),
        lambda q, m: m.quantize_per_tensor(m.ones(2, dtype=m.float64), 0.1, 0, m.quint8),
        lambda q, m: m.quantize_per_tensor(m.ones(2), 0.1, 0, m.float32),
        lambda q, m: m.quantize_per_tensor(m.ones(2), 0.1, 300, m.quint8),
        lambda q, m: m.quantize_per_tensor(m.ones(2), 0.1, -1, m.quint8),
        lambda q, m: m.quantize_per_channel(m.ones(2, 3), m.ones(2), m.zeros(2).long(), 2, m.qint8),
        lambda q, m: m.quantize_per_channel(m.ones(2, 3), m.ones(3), m.zeros(3).long(), 0, m.qint8),
        lambda q, m: m.quantize_per_tensor_dynamic(m.ones(2), m.qint32, False),
    ],
)
def test_errors_match_torch_types(op):
    def run(m):
        q = m.quantize_per_tensor(m.tensor([0.1, 0.2]), 0.1, 2, m.quint8)
        try:
            op(q, m)
        except Exception as e:  # noqa: BLE001 (the type is what is compared)
            return type(e)
        return None

    want = run(torch)
    assert want is not None and run(ember) is want


@needs_torch
@pytest.mark.parametrize(
    "name, reduce_range", [("quint8", False), ("qint8", True), ("quint8", True)]
)
def test_quantize_per_tensor_dynamic_matches_torch(name, reduce_range):
    x = _data(9, (50,), 0.1)
    qt = torch.quantize_per_tensor_dynamic(_t(torch, x), getattr(torch, name), reduce_range)
    qe = ember.quantize_per_tensor_dynamic(_t(ember, x), getattr(ember, name), reduce_range)
    assert qe.q_scale() == qt.q_scale() and qe.q_zero_point() == qt.q_zero_point()
    np.testing.assert_array_equal(qe.int_repr().numpy(), qt.int_repr().numpy())


@needs_torch
def test_empty_and_make_quantized_and_choose_qparams_optimized():
    e = ember._empty_affine_quantized([2, 3], scale=0.5, zero_point=2, dtype=ember.qint8)
    assert e.shape == (2, 3) and e.q_scale() == 0.5 and e.q_zero_point() == 2
    assert ember.empty_quantized([4], e).dtype is ember.qint8
    with pytest.raises(RuntimeError, match="quantized dtype"):
        ember._empty_affine_quantized([2], dtype=ember.float32)
    m = ember._make_per_tensor_quantized_tensor(ember.tensor([1, 2], dtype=ember.uint8), 0.5, 1)
    assert m.dequantize().tolist() == [0.0, 0.5]
    x = _data(2, (300,), 0.1)
    want = torch.choose_qparams_optimized(_t(torch, x), 300, 200, 0.16, 8)
    got = ember.choose_qparams_optimized(_t(ember, x), 300, 200, 0.16, 8)
    for a, b in zip(want, got):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)


@needs_torch
def test_quantized_max_pool_and_batch_norm_match_torch():
    x = _data(6, (2, 3, 6, 6), 0.1)
    qt = torch.quantize_per_tensor(_t(torch, x), 0.1, 3, torch.quint8)
    qe = ember.quantize_per_tensor(_t(ember, x), 0.1, 3, ember.quint8)
    a = torch.quantized_max_pool2d(qt, [3, 3], [2, 2], [1, 1])
    b = ember.quantized_max_pool2d(qe, [3, 3], [2, 2], [1, 1])
    np.testing.assert_array_equal(b.int_repr().numpy(), a.int_repr().numpy())
    w, bias, mean, var = (np.linspace(0.5, 1.5, 3).astype(np.float32) + i for i in range(4))
    args_t = [torch.from_numpy(v) for v in (w, bias, mean, var)]
    args_e = [ember.from_numpy(v) for v in (w, bias, mean, var)]
    a = torch.quantized_batch_norm(qt, *args_t, 1e-5, 0.2, 10)
    b = ember.quantized_batch_norm(qe, *args_e, 1e-5, 0.2, 10)
    assert np.abs(b.int_repr().numpy().astype(int) - a.int_repr().numpy()).max() <= 1


@needs_torch
@pytest.mark.parametrize("qmin, qmax", [(0, 255), (-128, 127), (0, 15)])
@pytest.mark.parametrize("tensor_qparams", [False, True])
def test_fake_quantize_per_tensor_forward_and_grad_match_torch(qmin, qmax, tensor_qparams):
    x = _data(1, (500,), 0.1)
    zp = (qmin + qmax) // 2 + 1
    outs = []
    for m in (torch, ember):
        t = _t(m, x.copy()).requires_grad_()
        s, z = (m.tensor(0.1), m.tensor(zp)) if tensor_qparams else (0.1, zp)
        y = m.fake_quantize_per_tensor_affine(t, s, z, qmin, qmax)
        (y * m.arange(500.0)).sum().backward()
        outs.append((y.detach().numpy(), t.grad.numpy(), type(y.grad_fn).__name__))
    np.testing.assert_array_equal(outs[1][0], outs[0][0])
    np.testing.assert_array_equal(outs[1][1], outs[0][1])
    assert outs[1][2] == outs[0][2]


@needs_torch
@pytest.mark.parametrize("float_zp", [False, True])
def test_fake_quantize_per_channel_forward_and_grad_match_torch(float_zp):
    x = _data(2, (3, 200), 0.1)
    outs = []
    for m in (torch, ember):
        t = _t(m, x.copy()).requires_grad_()
        z = m.tensor([1.5, 2.0, 3.25]) if float_zp else m.tensor([1, 2, 3], dtype=m.int32)
        y = m.fake_quantize_per_channel_affine(t, m.tensor([0.1, 0.2, 0.3]), z, 0, 0, 255)
        y.sum().backward()
        outs.append((y.detach().numpy(), t.grad.numpy()))
    np.testing.assert_array_equal(outs[1][0], outs[0][0])
    np.testing.assert_array_equal(outs[1][1], outs[0][1])


def test_fake_quantize_checks_ranges():
    x = ember.ones(3)
    with pytest.raises(RuntimeError, match="zero_point"):
        ember.fake_quantize_per_tensor_affine(x, 0.1, 300, 0, 255)
    with pytest.raises(RuntimeError, match="quant_min"):
        ember.fake_quantize_per_tensor_affine(x, 0.1, 0, 10, 5)
    with pytest.raises(RuntimeError, match="Zero-point must be Int32"):
        ember.fake_quantize_per_channel_affine(x, ember.ones(3), ember.zeros(3).long(), 0, 0, 9)


def _quantized_state(m):
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    t = m.from_numpy(x)
    return {
        "a": m.quantize_per_tensor(t, 0.05, 7, m.quint8),
        "b": m.quantize_per_channel(t, m.tensor([0.1, 0.2, 0.3]), m.tensor([1, -2, 3]), 0, m.qint8),
        "c": m.quantize_per_tensor(t, 0.001, -5, m.qint32).t(),
        "d": m.quantize_per_channel(
            t, m.tensor([0.1, 0.2, 0.3, 0.4]), m.tensor([1.0, 2.0, 3.0, 0.5]), 1, m.quint8
        ),
    }


def _same(e, t):
    assert e.dtype.name == str(t.dtype).split(".")[1]
    assert repr(e.qscheme()).split(".")[1] == str(t.qscheme()).split(".")[1]
    np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy())
    np.testing.assert_array_equal(e.dequantize().numpy(), t.dequantize().numpy())


@needs_torch
def test_torch_checkpoint_loads_in_ember(tmp_path):
    ref = _quantized_state(torch)
    torch.save(ref, tmp_path / "t.pt")
    got = ember.load(tmp_path / "t.pt")
    for k in ref:
        _same(got[k], ref[k])


@needs_torch
def test_ember_checkpoint_loads_in_torch(tmp_path):
    ours = _quantized_state(ember)
    ember.save(ours, tmp_path / "e.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = torch.load(tmp_path / "e.pt")
    for k in ours:
        _same(ours[k], back[k])
        assert back[k].stride() == ours[k].stride()


def test_state_dict_with_quantized_buffer_round_trips(tmp_path):
    m = ember.nn.Module()
    m.register_buffer(
        "w", ember.quantize_per_tensor(ember.tensor([0.5, -1.0]), 0.25, 3, ember.qint8)
    )
    ember.save(m.state_dict(), tmp_path / "m.pt")
    sd = ember.load(tmp_path / "m.pt")
    assert sd["w"].int_repr().tolist() == [5, -1] and sd["w"].q_scale() == 0.25
    assert m.w.is_quantized and not ember.ones(1).is_quantized


def test_dtype_flags_match_torch():
    for d in (ember.quint8, ember.qint8, ember.qint32, ember.quint4x2, ember.quint2x4):
        assert d.is_floating_point is False and d.is_complex is False
        with pytest.raises(RuntimeError, match="quantized"):
            d.is_signed  # noqa: B018
    assert ember.qint32.itemsize == 4 and repr(ember.quint8) == "ember.quint8"
    assert repr(ember.per_channel_affine_float_qparams) == "ember.per_channel_affine_float_qparams"
    assert isinstance(ember.per_tensor_affine, ember.qscheme)
