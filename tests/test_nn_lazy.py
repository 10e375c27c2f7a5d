"""Lazy modules: LazyModuleMixin and LazyLinear. Behaviour before and after the first call,
state_dict saving and loading into uninitialized modules, dtype/device conversion before
initialization, copies, and parity with torch (types, keys, errors, outputs, gradients)."""

from __future__ import annotations

import copy
import math
import pickle
import warnings

import numpy as np
import pytest

import ember
from ember.nn.modules.lazy import LazyModuleMixin
from ember.nn.modules.linear import LazyLinear, Linear
from ember.nn.modules.module import Module
from ember.nn.parameter import (
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
    is_lazy,
)

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}


def _np(t):
    return t.detach().numpy()


# ---- LazyLinear before the first call -----------------------------------------------------------
def test_uninitialized_lazy_linear():
    m = LazyLinear(3)
    assert isinstance(m, LazyModuleMixin) and isinstance(m, Linear)
    assert LazyLinear.cls_to_become is Linear and LazyModuleMixin.cls_to_become is None
    assert (m.in_features, m.out_features) == (0, 3)
    for p in (m.weight, m.bias):
        assert type(p) is UninitializedParameter and isinstance(p, Parameter) and is_lazy(p)
        assert repr(p) == "<UninitializedParameter>"
        assert p.requires_grad and p.grad is None
        assert p.dtype == ember.float32 and p.device.type == "cpu"
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert m.has_uninitialized_params()


def test_lazy_linear_without_bias():
    m = LazyLinear(3, bias=False)
    assert m.bias is None and m._parameters["bias"] is None
    assert list(m.state_dict()) == ["weight"]
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=False)"
    m(ember.ones(2, 4))
    assert type(m) is Linear and m.bias is None and m.weight.shape == (3, 4)


def test_constructor_arguments_and_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch 2.13 no longer warns on construction
        m = LazyLinear(5, False, None, ember.float64)
    assert m.bias is None and m.weight.dtype == ember.float64
    m = LazyLinear(out_features=2, bias=True, device="cpu", dtype=ember.float64)
    assert m.bias.dtype == ember.float64


def test_use_before_initialization_raises():
    m = LazyLinear(3)
    with pytest.raises(ValueError, match="uninitialized parameter"):
        m.weight + 1  # noqa: B018
    with pytest.raises(ValueError, match="uninitialized parameter"):
        ember.nn.functional.linear(ember.ones(2, 4), m.weight)
    with pytest.raises(ValueError, match="uninitialized parameter"):
        m.weight.detach()
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        m.weight.shape  # noqa: B018
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        m.weight.size()
    with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized"):
        m.share_memory()
    with pytest.raises(RuntimeError, match="can't be used with `DataParallel`"):
        m._replicate_for_data_parallel()


# ---- the first call ------------------------------------------------------------------------------
def test_first_call_infers_in_features_and_becomes_linear():
    m = LazyLinear(3)
    w, b = m.weight, m.bias
    y = m(ember.randn(5, 7))
    assert y.shape == (5, 3)
    assert type(m) is Linear and not isinstance(m, LazyModuleMixin)
    assert m.in_features == 7 and repr(m) == "Linear(in_features=7, out_features=3, bias=True)"
    # materialize turns the very same objects into Parameters (references stay valid)
    assert m.weight is w and m.bias is b
    assert type(w) is Parameter and type(b) is Parameter
    assert w.shape == (3, 7) and b.shape == (3,) and w.requires_grad
    bound = 1 / math.sqrt(7)
    assert np.abs(_np(w)).max() <= bound and np.abs(_np(b)).max() <= bound
    assert np.abs(_np(w)).max() > 0  # initialized, not left as empty memory
    # the hooks are gone: later calls take Module's no-hook path
    assert not m._forward_pre_hooks and not m._forward_pre_hooks_with_kwargs
    assert not m._load_state_dict_pre_hooks
    assert not hasattr(m, "_initialize_hook") and not hasattr(m, "_load_hook")
    assert m(ember.randn(2, 4, 7)).shape == (2, 4, 3)
    with pytest.raises(RuntimeError):
        m(ember.randn(2, 8))


def test_initialization_draws_like_linear():
    x = ember.randn(4, 6)
    ember.manual_seed(7)
    lazy = LazyLinear(3)
    lazy(x)
    ember.manual_seed(7)
    eager = Linear(6, 3)
    np.testing.assert_array_equal(_np(lazy.weight), _np(eager.weight))
    np.testing.assert_array_equal(_np(lazy.bias), _np(eager.bias))


def test_first_call_is_differentiable():
    m = LazyLinear(2)
    x = ember.randn(4, 3, requires_grad=True)
    m(x).sum().backward()
    assert x.grad.shape == (4, 3) and m.weight.grad.shape == (2, 3)
    np.testing.assert_allclose(m.bias.grad.numpy(), [4.0, 4.0])


def test_lazy_modules_inside_a_model():
    class MLP(Module):
        def __init__(self):
            super().__init__()
            self.fc1 = LazyLinear(10)
            self.fc2 = LazyLinear(1)

        def forward(self, x):
            return self.fc2(self.fc1(x).relu())

    net = MLP()
    assert list(net.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert all(repr(v) == "<UninitializedParameter>" for v in net.state_dict().values())
    assert net(ember.ones(4, 5)).shape == (4, 1)
    assert type(net.fc1) is Linear and type(net.fc2) is Linear
    assert (net.fc1.in_features, net.fc2.in_features) == (5, 10)
    assert [p.shape for p in net.parameters()] == [(10, 5), (10,), (1, 10), (1,)]


# ---- state_dict ----------------------------------------------------------------------------------
def test_state_dict_before_and_after_initialization():
    m = LazyLinear(3)
    for keep_vars in (False, True):
        sd = m.state_dict(keep_vars=keep_vars)
        assert list(sd) == ["weight", "bias"]
        assert sd["weight"] is m.weight and sd["bias"] is m.bias  # kept as they are
    m(ember.ones(1, 2))
    sd = m.state_dict()
    assert type(sd["weight"]) is ember.Tensor and not sd["weight"].requires_grad
    assert sd["weight"].shape == (3, 2)
    sd["weight"][0, 0] = 5.0  # shares memory, as for any module
    assert m.weight[0, 0].item() == 5.0


def test_load_state_dict_into_uninitialized_takes_the_shapes():
    src = Linear(4, 3)
    m = LazyLinear(3)
    w = m.weight
    result = m.load_state_dict(src.state_dict())
    assert not result.missing_keys and not result.unexpected_keys
    assert m.weight is w and type(w) is Parameter and w.shape == (3, 4)
    np.testing.assert_array_equal(_np(m.weight), _np(src.weight))
    np.testing.assert_array_equal(_np(m.bias), _np(src.bias))
    assert not m.has_uninitialized_params()
    # NOTE: as in torch, the module stays a LazyLinear with in_features=0 until its first call,
    # which checks the input against the loaded weight and keeps the loaded values.
    assert type(m) is LazyLinear and m.in_features == 0
    with pytest.raises(AssertionError, match="in_features inferred from input: 5 is not equal"):
        m(ember.ones(2, 5))
    x = ember.randn(2, 4)
    np.testing.assert_allclose(_np(m(x)), _np(src(x)), rtol=1e-6)
    assert type(m) is Linear and m.in_features == 4
    np.testing.assert_array_equal(_np(m.weight), _np(src.weight))


def test_load_state_dict_with_post_hook_and_assign():
    src = Linear(4, 3)
    m = LazyLinear(3)
    seen = []
    m.register_load_state_dict_post_hook(lambda mod, keys: seen.append(list(keys.missing_keys)))
    m.load_state_dict(src.state_dict())
    assert seen == [[]] and m.weight.shape == (3, 4)
    np.testing.assert_array_equal(_np(m.bias), _np(src.bias))
    m = LazyLinear(3)
    m.load_state_dict(src.state_dict(), assign=True)
    assert type(m.weight) is Parameter and m.weight.requires_grad
    np.testing.assert_array_equal(_np(m.weight), _np(src.weight))


def test_failed_load_reports_and_keeps_values():
    m = LazyLinear(3, bias=False)
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "bias"'):
        m.load_state_dict(Linear(4, 3).state_dict())
    # NOTE: matches torch: the load pre-hook has already given the weight its shape; no value
    # was copied (ember's load is transactional otherwise, see nn/MODULE.md).
    assert m.weight.shape == (3, 4) and type(m) is LazyLinear


def test_initialized_module_cannot_load_uninitialized_state():
    m = Linear(4, 3)
    before = _np(m.weight).copy()
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        m.load_state_dict(LazyLinear(3).state_dict())
    np.testing.assert_array_equal(_np(m.weight), before)


def test_uninitialized_state_into_uninitialized_module_is_a_no_op():
    m = LazyLinear(3, dtype=ember.float64)
    w = m.weight
    m.load_state_dict(LazyLinear(3).state_dict())
    assert m.weight is w and is_lazy(w) and w.dtype == ember.float64


def test_lazy_module_keeps_extra_state():
    # NOTE: differs from torch, whose lazy _save_to_state_dict drops _extra_state.
    class WithExtra(LazyLinear):
        cls_to_become = None  # stays WithExtra after its first call

        def get_extra_state(self):
            return {"step": 3}

        def set_extra_state(self, state):
            self.loaded = state

    m = WithExtra(2)
    assert list(m.state_dict()) == ["weight", "bias", "_extra_state"]
    m(ember.ones(1, 4))
    assert type(m) is WithExtra and list(m.state_dict()) == ["weight", "bias", "_extra_state"]
    n = WithExtra(2)
    n.load_state_dict(m.state_dict())
    assert n.loaded == {"step": 3} and n.weight.shape == (2, 4)


# ---- dtype and device before the first call ------------------------------------------------------
def test_dtype_float64():
    m = LazyLinear(3, dtype=ember.float64)
    y = m(ember.randn(2, 4, dtype=ember.float64))
    assert y.dtype == ember.float64 and m.weight.dtype == ember.float64
    assert m.bias.dtype == ember.float64


@pytest.mark.parametrize(
    "convert",
    [
        lambda m: m.to(ember.float64),
        lambda m: m.double(),
        lambda m: m.to(dtype=ember.float64),
        lambda m: m.to("cpu", ember.float64),
    ],
    ids=["to_dtype", "double", "to_kw", "to_device_dtype"],
)
def test_conversion_before_initialization(convert):
    m = LazyLinear(3)
    w, b = m.weight, m.bias
    assert convert(m) is m
    # Module._apply keeps each Parameter's identity; the entries stay uninitialized
    assert m.weight is w and m.bias is b and is_lazy(w) and is_lazy(b)
    assert w.dtype == ember.float64 and b.dtype == ember.float64
    y = m(ember.randn(2, 4, dtype=ember.float64))
    assert y.dtype == ember.float64 and w.dtype == ember.float64 and w.shape == (3, 4)


def test_half_then_float_before_initialization():
    m = LazyLinear(3).half()
    assert m.weight.dtype == ember.float16 and is_lazy(m.weight)
    m.float()
    assert m.weight.dtype == ember.float32
    assert m(ember.ones(1, 2)).dtype == ember.float32


def test_meta_device():
    m = LazyLinear(3, device="meta")
    assert m.weight.is_meta and m.weight.device.type == "meta" and is_lazy(m.weight)
    y = m(ember.randn(2, 4, device="meta"))
    assert y.is_meta and y.shape == (2, 3)
    assert type(m) is Linear and m.weight.is_meta and m.weight.shape == (3, 4)
    assert m.bias.is_meta and m.bias.shape == (3,)


def test_meta_default_device_context():
    with ember.device("meta"):
        m = LazyLinear(3)
    assert m.weight.is_meta and m.bias.is_meta


def test_to_meta_before_initialization():
    # NOTE: differs from torch 2.13, where .to("meta") turns the uninitialized parameters into
    # ordinary empty ones and the first call then fails; ember keeps them uninitialized.
    m = LazyLinear(3).to("meta")
    assert is_lazy(m.weight) and m.weight.is_meta
    m(ember.randn(2, 4, device="meta"))
    assert m.weight.is_meta and m.weight.shape == (3, 4) and type(m) is Linear


# ---- copies --------------------------------------------------------------------------------------
def _copies():
    return [("deepcopy", copy.deepcopy), ("pickle", lambda m: pickle.loads(pickle.dumps(m)))]


@pytest.mark.parametrize("name,clone", _copies(), ids=[n for n, _ in _copies()])
def test_copy_of_uninitialized_module(name, clone):
    m = LazyLinear(3, dtype=ember.float64)
    c = clone(m)
    assert type(c) is LazyLinear and c.in_features == 0
    assert is_lazy(c.weight) and c.weight is not m.weight and c.weight.dtype == ember.float64
    assert repr(c.weight) == "<UninitializedParameter>"
    # the copy's hooks and handles belong to the copy
    assert c._initialize_hook.hooks_dict_ref() is c._forward_pre_hooks
    assert c._load_hook.hooks_dict_ref() is c._load_state_dict_pre_hooks
    c(ember.ones(2, 4, dtype=ember.float64))
    assert type(c) is Linear and c.weight.shape == (3, 4)
    # the original is untouched and still initializes on its own call
    assert type(m) is LazyLinear and m.has_uninitialized_params()
    assert len(m._forward_pre_hooks) == 1 and len(m._load_state_dict_pre_hooks) == 1
    m(ember.ones(2, 6, dtype=ember.float64))
    assert type(m) is Linear and m.in_features == 6


@pytest.mark.parametrize("name,clone", _copies(), ids=[n for n, _ in _copies()])
def test_copy_of_loaded_module(name, clone):
    m = LazyLinear(3)
    m.load_state_dict(Linear(4, 3).state_dict())
    c = clone(m)
    assert type(c) is LazyLinear and c.weight.shape == (3, 4)
    np.testing.assert_array_equal(_np(c.weight), _np(m.weight))
    c(ember.ones(1, 4))
    assert type(c) is Linear and type(m) is LazyLinear


# ---- LazyModuleMixin on a custom module ----------------------------------------------------------
class _Scale(LazyModuleMixin, Module):
    """Multiplies by a learned vector and adds a buffer, both sized by the last dimension."""

    def __init__(self):
        super().__init__()
        self.scale = UninitializedParameter()
        self.register_buffer("shift", UninitializedBuffer())
        self.register_buffer("scratch", UninitializedBuffer(), persistent=False)

    def initialize_parameters(self, x, *, offset=0.0):
        n = x.shape[-1]
        with ember.no_grad():
            self.scale.materialize((n,))
            self.shift.materialize((n,))
            self.scratch.materialize((n,))
            self.scale.fill_(1.0)
            self.shift.fill_(offset)
            self.scratch.zero_()

    def forward(self, x, *, offset=0.0):
        return x * self.scale + self.shift


def test_mixin_without_initialize_parameters():
    class Bare(LazyModuleMixin, Module):
        def __init__(self):
            super().__init__()
            self.w = UninitializedParameter()

        def forward(self, x):
            return x

    with pytest.raises(
        NotImplementedError, match="initialize_parameters is not implemented for Bare"
    ):
        Bare()(ember.ones(1))


def test_mixin_not_fully_initialized():
    class Half(_Scale):
        def initialize_parameters(self, x, *, offset=0.0):
            self.scale.materialize((x.shape[-1],))

    m = Half()
    with pytest.raises(RuntimeError, match="module Half has not been fully initialized"):
        m(ember.ones(2))
    assert m.has_uninitialized_params()  # a buffer is still uninitialized
    assert isinstance(m, LazyModuleMixin) and len(m._forward_pre_hooks) == 1


def test_mixin_passes_keyword_arguments_and_keeps_class_without_cls_to_become():
    m = _Scale()
    assert m.has_uninitialized_params()
    assert list(m.state_dict()) == ["scale", "shift"]  # the non-persistent buffer is left out
    assert type(m.state_dict()["shift"]) is UninitializedBuffer
    y = m(ember.ones(2, 3), offset=2.0)
    np.testing.assert_array_equal(_np(y), np.full((2, 3), 3.0))
    assert type(m) is _Scale and not m.has_uninitialized_params()
    assert not m._forward_pre_hooks and not m._forward_pre_hooks_with_kwargs
    assert type(m.shift) is ember.Tensor and type(m.scale) is Parameter


def test_mixin_loads_buffers_into_uninitialized_module():
    src = _Scale()
    src(ember.ones(4), offset=-1.0)
    m = _Scale()
    m.load_state_dict(src.state_dict())
    assert m.shift.shape == (4,) and not is_lazy(m.shift)
    np.testing.assert_array_equal(_np(m.shift), np.full(4, -1.0))
    assert is_lazy(m.scratch)  # not in the state_dict: still uninitialized
    assert m.has_uninitialized_params()


# ---- parity with torch ---------------------------------------------------------------------------
def _to_torch(sd):
    return {k: torch.tensor(_np(v)) for k, v in sd.items()}


def _to_ember(sd):
    return {k: ember.tensor(v.detach().numpy()) for k, v in sd.items()}


def _snapshot(m):
    """What a user sees of a module: its type name, repr, the state_dict keys and how each
    value prints when uninitialized (or its shape otherwise)."""
    sd = m.state_dict()
    return (
        type(m).__name__,
        repr(m),
        [
            (k, repr(v) if type(v).__name__.startswith("Uninitialized") else tuple(v.shape))
            for k, v in sd.items()
        ],
    )


@needs_torch
@pytest.mark.parametrize("bias", [True, False])
def test_sequence_of_types_and_keys_matches_torch(bias):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = torch.nn.LazyLinear(3, bias=bias)
    e = LazyLinear(3, bias=bias)
    assert _snapshot(e) == _snapshot(t)
    assert e.has_uninitialized_params() == t.has_uninitialized_params()
    e(ember.ones(2, 5))
    t(torch.ones(2, 5))
    assert _snapshot(e) == _snapshot(t)
    # a second pair that is loaded first, then called
    t2, e2 = torch.nn.LazyLinear(3, bias=bias), LazyLinear(3, bias=bias)
    t2.load_state_dict(t.state_dict())
    e2.load_state_dict(e.state_dict())
    assert _snapshot(e2) == _snapshot(t2)
    assert e2.has_uninitialized_params() == t2.has_uninitialized_params()
    e2(ember.ones(2, 5))
    t2(torch.ones(2, 5))
    assert _snapshot(e2) == _snapshot(t2)


@needs_torch
def test_errors_match_torch():
    e, t = LazyLinear(3), torch.nn.LazyLinear(3)
    for obj in (e, t):
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
            obj.weight + 1  # noqa: B018
    msgs = []
    for obj in (e, t):
        with pytest.raises(RuntimeError) as info:
            obj.weight.shape  # noqa: B018
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    msgs = []
    for obj in (e, t):
        with pytest.raises(RuntimeError) as info:
            obj._replicate_for_data_parallel()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    src = torch.nn.Linear(4, 3)
    e.load_state_dict(_to_ember(src.state_dict()))
    t.load_state_dict(src.state_dict())
    msgs = []
    for obj, x in ((e, ember.ones(1, 6)), (t, torch.ones(1, 6))):
        with pytest.raises(AssertionError) as info:
            obj(x)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 7), (2, 3, 7)], ids=lambda s: f"{len(s)}d")
def test_forward_backward_parity(shape, bias, dtype):
    rng = np.random.default_rng(len(shape) + 10 * bias)
    x = rng.standard_normal(shape).astype(dtype)
    g = rng.standard_normal(shape[:-1] + (4,)).astype(dtype)
    e = LazyLinear(4, bias=bias, dtype=getattr(ember, dtype))
    t = torch.nn.LazyLinear(4, bias=bias, dtype=getattr(torch, dtype))
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    e(ex)  # initializes ember's module with ember's own draws
    t(tx)
    t.load_state_dict(_to_torch(e.state_dict()))
    ey, ty = e(ex), t(tx)
    rtol, atol = TOL[dtype]
    assert str(ey.dtype) == str(ty.dtype).replace("torch", "ember")
    np.testing.assert_allclose(_np(ey), ty.detach().numpy(), rtol=rtol, atol=atol)
    ey.backward(ember.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=rtol, atol=atol)
    np.testing.assert_allclose(e.weight.grad.numpy(), t.weight.grad.numpy(), rtol=rtol, atol=atol)
    if bias:
        np.testing.assert_allclose(e.bias.grad.numpy(), t.bias.grad.numpy(), rtol=rtol, atol=atol)


@needs_torch
def test_loading_torch_weights_into_uninitialized_module():
    t = torch.nn.Linear(6, 2, dtype=torch.float64)
    e = LazyLinear(2).double()
    e.load_state_dict(_to_ember(t.state_dict()))
    x = np.random.default_rng(0).standard_normal((3, 6))
    np.testing.assert_allclose(
        _np(e(ember.tensor(x))), t(torch.tensor(x)).detach().numpy(), rtol=1e-12
    )
    assert type(e) is Linear and e.in_features == 6
