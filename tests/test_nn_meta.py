"""Construction on the meta device: no memory, shape inference, then materialization."""

import gc

import pytest

import ember
from ember import nn


class Stack(nn.Module):
    """``depth`` Linear(width, width) + ReLU layers, registered by name (no containers)."""

    def __init__(self, depth, width, **factory_kwargs):
        super().__init__()
        for i in range(depth):
            self.add_module(f"fc{i}", nn.Linear(width, width, **factory_kwargs))

    def forward(self, x):
        for layer in self._modules.values():
            x = layer(x).relu()
        return x


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    raise OSError("no VmRSS")


def test_ten_billion_parameters_on_meta_take_no_memory():
    try:
        _rss_mb()
    except OSError:
        pytest.skip("resident memory is read from /proc/self/status (Linux only)")
    gc.collect()
    before = _rss_mb()
    model = Stack(100, 10_000, device="meta")
    grown = _rss_mb() - before
    n = sum(p.numel() for p in model.parameters())
    assert n == 100 * (10_000 * 10_000 + 10_000)  # 10.001 billion
    assert grown < 50, f"building a 10B-parameter meta model added {grown:.1f} MB"
    assert all(p.is_meta for p in model.parameters())


def test_default_device_context_builds_on_meta():
    with ember.device("meta"):
        m = Stack(2, 8)
    assert all(p.device.type == "meta" for p in m.parameters())
    assert ember.get_default_device().type == "cpu"


def test_meta_forward_infers_shapes_without_computing():
    m = Stack(3, 4096, device="meta")
    out = m(ember.empty(5, 7, 4096, device="meta"))
    assert out.is_meta and out.shape == (5, 7, 4096)
    with pytest.raises(RuntimeError):
        m(ember.empty(5, 100, device="meta"))  # wrong width is caught on meta too


def test_meta_module_keeps_dtype_and_requires_grad():
    lin = nn.Linear(3, 2, device="meta", dtype=ember.float64)
    assert lin.weight.dtype is ember.float64 and lin.weight.requires_grad
    assert isinstance(lin.weight, nn.Parameter)


def test_to_empty_then_reset_parameters_materializes():
    m = Stack(2, 6, device="meta")
    params = list(m.parameters())
    assert m.to_empty(device="cpu") is m
    assert [p for p in m.parameters()] == params  # the same Parameter objects
    assert all(p.device.type == "cpu" and not p.is_meta for p in params)
    ember.manual_seed(0)
    for layer in m.children():
        layer.reset_parameters()
    bound = 1 / 6**0.5
    for p in params:
        assert float(p.abs().max()) <= bound
    out = m(ember.ones(1, 6))
    assert out.shape == (1, 6) and not out.is_meta


def test_load_state_dict_assign_fills_a_meta_module():
    ember.manual_seed(0)
    src = Stack(2, 5)
    dst = Stack(2, 5, device="meta")
    keys = dst.load_state_dict(src.state_dict(), assign=True)
    assert repr(keys) == "<All keys matched successfully>"
    for (n, p), (_, q) in zip(dst.named_parameters(), src.named_parameters()):
        assert isinstance(p, nn.Parameter) and p.requires_grad and not p.is_meta, n
        assert ember.equal(p, q)
    x = ember.randn(3, 5)
    assert ember.allclose(dst(x), src(x))


def test_copying_into_meta_without_assign_warns_and_does_nothing():
    src = nn.Linear(2, 2)
    dst = nn.Linear(2, 2, device="meta")
    with pytest.warns(UserWarning, match="Did you mean to pass `assign=True`"):
        dst.load_state_dict(src.state_dict())
    assert dst.weight.is_meta


def test_meta_checkpoint_cannot_fill_a_real_module():
    dst = nn.Linear(2, 2)
    before = dst.weight.detach().clone()
    with pytest.raises(RuntimeError, match="Cannot copy out of meta tensor"):
        dst.load_state_dict(nn.Linear(2, 2, device="meta").state_dict())
    assert ember.equal(dst.weight, before)
