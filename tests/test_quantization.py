"""ember.ao.quantization's observers and fake quantizers against torch's: the same data gives
the same scales and zero points (bit for bit), fake-quantized values and gradients."""

import numpy as np
import pytest

import ember
from ember.ao.quantization import fake_quantize as efq
from ember.ao.quantization import observer as eobs

try:
    import torch
    import torch.ao.quantization.fake_quantize as tfq
    import torch.ao.quantization.observer as tobs
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="parity tests need torch as the oracle")

_RNG = np.random.RandomState(0)
BATCHES = [
    (_RNG.randn(4, 3, 5, 5) * s + o).astype("float32")
    for s, o in [(1, 0), (2, 0.5), (0.5, -1), (3, 2)]
]


def _observe(make_e, make_t):
    e, t = make_e(), make_t()
    for x in BATCHES:
        e(ember.tensor(x))
        t(torch.tensor(x))
    (se, ze), (st, zt) = e.calculate_qparams(), t.calculate_qparams()
    np.testing.assert_array_equal(se.numpy(), st.numpy())
    np.testing.assert_array_equal(ze.numpy(), zt.numpy())
    assert str(ze.dtype).split(".")[-1] == str(zt.dtype).split(".")[-1]
    assert sorted(e.state_dict()) == sorted(t.state_dict())
    for k, v in t.state_dict().items():
        np.testing.assert_array_equal(e.state_dict()[k].numpy(), v.numpy())


PER_TENSOR = [
    (qs, dt, rr)
    for qs in ("per_tensor_affine", "per_tensor_symmetric")
    for dt in ("quint8", "qint8")
    for rr in (False, True)
    if not (qs == "per_tensor_symmetric" and rr and dt == "quint8")
]


@needs_torch
@pytest.mark.filterwarnings("ignore:Please use quant_min")
@pytest.mark.parametrize(
    "name", ["MinMaxObserver", "MovingAverageMinMaxObserver", "HistogramObserver"]
)
@pytest.mark.parametrize("qscheme,dtype,reduce_range", PER_TENSOR)
def test_per_tensor_observers_match_torch(name, qscheme, dtype, reduce_range):
    def make(mod, lib):
        kw = dict(
            qscheme=getattr(lib, qscheme), dtype=getattr(lib, dtype), reduce_range=reduce_range
        )
        return lambda: getattr(mod, name)(**kw)

    _observe(make(eobs, ember), make(tobs, torch))


@needs_torch
@pytest.mark.parametrize(
    "name", ["PerChannelMinMaxObserver", "MovingAveragePerChannelMinMaxObserver"]
)
@pytest.mark.parametrize(
    "qscheme", ["per_channel_affine", "per_channel_symmetric", "per_channel_affine_float_qparams"]
)
@pytest.mark.parametrize("ch_axis", [0, 1])
@pytest.mark.parametrize("dtype", ["quint8", "qint8"])
def test_per_channel_observers_match_torch(name, qscheme, ch_axis, dtype):
    def make(mod, lib):
        kw = dict(qscheme=getattr(lib, qscheme), dtype=getattr(lib, dtype), ch_axis=ch_axis)
        return lambda: getattr(mod, name)(**kw)

    _observe(make(eobs, ember), make(tobs, torch))


@needs_torch
@pytest.mark.parametrize("quant_min,quant_max", [(0, 127), (0, 15), (-8, 7)])
def test_custom_range_matches_torch(quant_min, quant_max):
    dtype = "qint8" if quant_min < 0 else "quint8"
    for qs in ("per_tensor_affine", "per_tensor_symmetric"):

        def make(mod, lib, qs=qs):
            kw = dict(
                qscheme=getattr(lib, qs),
                dtype=getattr(lib, dtype),
                quant_min=quant_min,
                quant_max=quant_max,
            )
            return lambda: mod.MinMaxObserver(**kw)

        _observe(make(eobs, ember), make(tobs, torch))


def test_unobserved_observer_warns_and_gives_defaults():
    obs = eobs.MinMaxObserver()
    with pytest.warns(UserWarning, match="must run observer"):
        scale, zp = obs.calculate_qparams()
    assert scale.tolist() == [1.0] and zp.tolist() == [0]


def test_with_args_builds_fresh_instances():
    make = eobs.MinMaxObserver.with_args(dtype=ember.qint8).with_args(quant_min=-4, quant_max=3)
    a, b = make(), make()
    assert a is not b and a.dtype is ember.qint8 and (a.quant_min, a.quant_max) == (-4, 3)


def test_reduce_range_warns_as_torch():
    with pytest.warns(UserWarning, match="reduce_range will be deprecated"):
        eobs.MinMaxObserver(reduce_range=True)


FAKE_QUANTS = [
    "default_fake_quant",
    "default_weight_fake_quant",
    "default_per_channel_weight_fake_quant",
    "default_fused_act_fake_quant",
    "default_fused_wt_fake_quant",
    "default_fused_per_channel_wt_fake_quant",
    "default_histogram_fake_quant",
]


@needs_torch
@pytest.mark.filterwarnings("ignore:Please use quant_min")
@pytest.mark.parametrize("name", FAKE_QUANTS)
def test_fake_quantize_forward_backward_match_torch(name):
    e, t = getattr(efq, name)(), getattr(tfq, name)()
    for i, x in enumerate(BATCHES):
        x = x.reshape(4, 3, -1)[:, :, :7].copy() if i % 2 else x
        xe = ember.tensor(x, requires_grad=True)
        xt = torch.tensor(x, requires_grad=True)
        ye, yt = e(xe), t(xt)
        (ye * ember.tensor(x)).sum().backward()
        (yt * torch.tensor(x)).sum().backward()
        np.testing.assert_array_equal(ye.detach().numpy(), yt.detach().numpy())
        np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())
        np.testing.assert_array_equal(e.scale.numpy(), t.scale.numpy())
        np.testing.assert_array_equal(e.zero_point.numpy(), t.zero_point.numpy())
    assert sorted(e.state_dict()) == sorted(t.state_dict())


@pytest.mark.filterwarnings("ignore:Please use quant_min")
def test_disable_observer_freezes_qparams():
    fq = efq.default_fake_quant()
    fq(ember.tensor([0.0, 1.0]))
    scale = fq.scale.clone()
    fq.apply(efq.disable_observer)
    fq(ember.tensor([0.0, 10.0]))
    assert fq.scale.tolist() == scale.tolist()
    fq.apply(efq.disable_fake_quant)
    x = ember.tensor([0.123])
    assert fq(x).tolist() == x.tolist()
