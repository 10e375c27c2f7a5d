"""Module core, part 2: traversal (parameters, buffers, children, modules and their named
forms), dotted-path access, apply, train/eval, requires_grad_, zero_grad and conversion
(``_apply`` and everything built on it)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn import Parameter


class Leaf(nn.Module):
    def __init__(self, n: int = 2, m: int = 3):
        super().__init__()
        self.weight = Parameter(ember.arange(float(n * m)).reshape(n, m) / 10)
        self.bias = Parameter(ember.zeros(n))
        self.register_buffer("count", ember.tensor(0))
        self.register_buffer("tmp", ember.zeros(1), persistent=False)

    def forward(self, x):
        return x @ self.weight.t() + self.bias


class Tree(nn.Module):
    """root -> a (Leaf), b -> (inner Leaf, shared = a), tied parameter, an empty slot."""

    def __init__(self):
        super().__init__()
        self.a = Leaf(2, 3)
        self.b = nn.Module()
        self.b.inner = Leaf(3, 2)
        self.b.shared = self.a
        self.scale = Parameter(ember.ones(1))
        self.b.tied = self.scale
        self.register_buffer("steps", ember.zeros(2))
        self.add_module("empty", None)

    def forward(self, x):
        return self.b.inner(self.a(x)) * self.scale


def names(pairs):
    return [n for n, _ in pairs]


# ---- traversal --------------------------------------------------------------------------------
def test_named_parameters_dedups_shared_and_tied():
    t = Tree()
    assert names(t.named_parameters()) == [
        "scale",
        "a.weight",
        "a.bias",
        "b.inner.weight",
        "b.inner.bias",
    ]
    assert names(t.named_parameters(remove_duplicate=False)) == [
        "scale",
        "a.weight",
        "a.bias",
        "b.tied",
        "b.inner.weight",
        "b.inner.bias",
        "b.shared.weight",
        "b.shared.bias",
    ]
    assert [p for p in t.parameters()] == [v for _, v in t.named_parameters()]
    assert len(list(t.parameters())) == 5


def test_named_parameters_prefix_and_recurse():
    t = Tree()
    assert names(t.named_parameters(prefix="m")) == [
        "m.scale",
        "m.a.weight",
        "m.a.bias",
        "m.b.inner.weight",
        "m.b.inner.bias",
    ]
    assert names(t.named_parameters(recurse=False)) == ["scale"]
    assert names(t.named_parameters(prefix="p", recurse=False)) == ["p.scale"]
    assert names(t.b.named_parameters(recurse=False)) == ["tied"]
    assert list(t.a.parameters(recurse=False)) == [t.a.weight, t.a.bias]


def test_named_buffers():
    t = Tree()
    assert names(t.named_buffers()) == ["steps", "a.count", "a.tmp", "b.inner.count", "b.inner.tmp"]
    assert names(t.named_buffers(prefix="x", remove_duplicate=False)) == [
        "x.steps",
        "x.a.count",
        "x.a.tmp",
        "x.b.inner.count",
        "x.b.inner.tmp",
        "x.b.shared.count",
        "x.b.shared.tmp",
    ]
    assert names(t.named_buffers(recurse=False)) == ["steps"]
    assert list(t.buffers(recurse=False)) == [t.steps]


def test_none_entries_are_skipped():
    m = nn.Module()
    m.register_parameter("p", None)
    m.register_buffer("b", None)
    m.add_module("c", None)
    assert list(m.named_parameters()) == [] and list(m.named_buffers()) == []
    assert list(m.named_children()) == [] and names(m.named_modules()) == [""]


def test_children_and_named_children():
    t = Tree()
    assert names(t.named_children()) == ["a", "b"]
    assert list(t.children()) == [t.a, t.b]
    assert names(t.b.named_children()) == ["inner", "shared"]
    t.c = t.a  # the same module twice among the children is listed once
    assert names(t.named_children()) == ["a", "b"]


def test_named_modules_order_prefix_and_duplicates():
    t = Tree()
    assert names(t.named_modules()) == ["", "a", "b", "b.inner"]
    assert names(t.named_modules(prefix="r")) == ["r", "r.a", "r.b", "r.b.inner"]
    assert names(t.named_modules(remove_duplicate=False)) == ["", "a", "b", "b.inner", "b.shared"]
    assert list(t.modules()) == [t, t.a, t.b, t.b.inner]
    assert len(list(t.modules(remove_duplicate=False))) == 5
    memo = {t.a}
    assert names(t.named_modules(memo=memo)) == ["", "b", "b.inner"]


def test_traversal_is_lazy():
    t = Tree()
    it = t.named_parameters()
    assert next(it) == ("scale", t.scale)
    assert not isinstance(t.parameters(), list)


def test_shared_parameter_is_trained_once():
    t = Tree()
    t(ember.ones(1, 3)).sum().backward()
    grads = {n: p.grad for n, p in t.named_parameters()}
    assert all(g is not None for g in grads.values())
    assert t.b.tied.grad is t.scale.grad


# ---- dotted-path access -----------------------------------------------------------------------
def test_get_submodule():
    t = Tree()
    assert t.get_submodule("") is t
    assert t.get_submodule("b.inner") is t.b.inner
    assert t.get_submodule("b.shared") is t.a
    with pytest.raises(AttributeError) as info:
        t.get_submodule("b.zz")
    assert info.value.args[0] == "Module has no attribute `zz`"
    with pytest.raises(AttributeError) as info:
        t.get_submodule("a.weight")
    assert info.value.args[0] == "`weight` is not an nn.Module"
    with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
        t.get_submodule("a.weight.x")


def test_get_parameter_and_get_buffer():
    t = Tree()
    assert t.get_parameter("a.weight") is t.a.weight
    assert t.get_parameter("scale") is t.scale
    assert t.get_buffer("b.inner.count") is t.b.inner.count
    assert t.get_buffer("a.tmp") is t.a.tmp  # non-persistent buffers too
    with pytest.raises(AttributeError) as info:
        t.get_parameter("a.nope")
    assert info.value.args[0] == "Leaf has no attribute `nope`"
    with pytest.raises(AttributeError) as info:
        t.get_parameter("a.count")
    assert info.value.args[0] == "`count` is not an nn.Parameter"
    with pytest.raises(AttributeError, match="`a` is not an nn.Parameter"):
        t.get_parameter("a")
    with pytest.raises(AttributeError, match="Tree has no attribute `nope`"):
        t.get_parameter("nope.weight")
    with pytest.raises(AttributeError) as info:
        t.get_buffer("a.weight")
    assert info.value.args[0] == "`weight` is not a buffer"
    with pytest.raises(AttributeError, match="Leaf has no attribute `zz`"):
        t.get_buffer("a.zz")


def test_set_submodule():
    t = Tree()
    new = Leaf()
    t.set_submodule("b.inner", new)
    assert t.b.inner is new
    t.set_submodule("b.extra", Leaf())  # a new name, not strict
    assert names(t.b.named_children()) == ["inner", "shared", "extra"]
    with pytest.raises(AttributeError, match="Module has no attribute `other`"):
        t.set_submodule("b.other", Leaf(), strict=True)
    with pytest.raises(ValueError, match="Cannot set the submodule without a target name!"):
        t.set_submodule("", Leaf())
    with pytest.raises(ValueError, match="`module` is not an nn.Module"):
        t.set_submodule("a", 3)
    with pytest.raises(AttributeError, match="`scale` is not an nn.Module"):
        t.set_submodule("scale", Leaf())
    with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
        t.set_submodule("a.weight.x", Leaf())
    with pytest.raises(AttributeError, match="Tree has no attribute `nope`"):
        t.set_submodule("nope.x", Leaf())


# ---- apply, modes -----------------------------------------------------------------------------
def test_apply_visits_children_first_and_returns_self():
    t = Tree()
    seen = []
    assert t.apply(lambda m: seen.append(m)) is t
    # Children before parents. NOTE: matches torch: a module shared under two names is
    # visited once per name (apply walks children(), which dedups only among siblings).
    assert seen == [t.a, t.b.inner, t.a, t.b, t]
    single = Leaf()
    assert single.apply(lambda m: seen.append(m)) is single and seen[-1] is single


def test_apply_for_initialization():
    t = Tree()

    @ember.no_grad()
    def init(m):
        if isinstance(m, Leaf):
            m.weight.fill_(0.5)
            m.bias.zero_()

    t.apply(init)
    for n, p in t.named_parameters():
        if n.endswith("weight"):
            assert set(p.flatten().tolist()) == {0.5}
    assert t.a.weight.requires_grad and t.a.weight.is_leaf


def test_train_eval_propagate():
    t = Tree()
    assert all(m.training for m in t.modules())
    assert t.eval() is t
    assert not any(m.training for m in t.modules())
    t.b.train()  # reaches b, b.inner, and b.shared, which is a
    assert [m.training for m in t.modules()] == [False, True, True, True]
    t.eval()
    t.b.inner.train()
    assert [m.training for m in t.modules()] == [False, False, False, True]
    assert t.train() is t and all(m.training for m in t.modules())
    t.train(False)
    assert not t.a.training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        t.train("yes")


def test_requires_grad_():
    t = Tree()
    assert t.requires_grad_(False) is t
    assert not any(p.requires_grad for p in t.parameters())
    assert not any(b.requires_grad for b in t.buffers())
    t.a.requires_grad_()
    assert [p.requires_grad for p in t.parameters()] == [False, True, True, False, False]


def test_zero_grad_to_none_and_to_zeros():
    t = Tree()
    t(ember.ones(2, 3)).sum().backward()
    g = t.a.weight.grad
    t.zero_grad(set_to_none=False)
    assert t.a.weight.grad is g and g.abs().sum().item() == 0
    assert all(p.grad is not None for p in t.parameters())
    t.zero_grad()
    assert all(p.grad is None for p in t.parameters())
    t.zero_grad(set_to_none=False)  # no grads: nothing to do
    assert all(p.grad is None for p in t.parameters())


def test_zero_grad_detaches_a_grad_with_history():
    m = Leaf()
    x = ember.ones(1, 3)
    (m(x) ** 2).sum().backward(create_graph=True)
    assert m.weight.grad.grad_fn is not None
    m.zero_grad(set_to_none=False)
    assert m.weight.grad.grad_fn is None and not m.weight.grad.requires_grad
    assert m.weight.grad.abs().sum().item() == 0


# ---- conversion -------------------------------------------------------------------------------
def dtypes(m):
    return {k: v.dtype for k, v in m.state_dict().items()}


def test_double_keeps_parameter_identity_and_converts_grad():
    t = Tree()
    w = t.a.weight
    w.grad = ember.ones(2, 3)
    g = w.grad
    assert t.double() is t
    assert t.a.weight is w and w.dtype == ember.float64
    assert w.grad is g and g.dtype == ember.float64 and g.sum().item() == 6.0
    assert t.a.count.dtype == ember.int64  # integer buffers keep their dtype
    assert t.b.shared.weight is w and t.b.tied is t.scale


@pytest.mark.parametrize(
    "convert,dtype",
    [
        (lambda m: m.double(), ember.float64),
        (lambda m: m.half(), ember.float16),
        (lambda m: m.double().float(), ember.float32),
        (lambda m: m.to(ember.float64), ember.float64),
        (lambda m: m.to(dtype=ember.float16), ember.float16),
        (lambda m: m.to("cpu", ember.float64), ember.float64),
        (lambda m: m.to(ember.zeros(1, dtype=ember.float64)), ember.float64),
        (lambda m: m.to(device="cpu"), ember.float32),
    ],
)
def test_float_conversions(convert, dtype):
    t = Tree()
    assert convert(t) is t
    for k, d in dtypes(t).items():
        assert d == (ember.int64 if k.endswith("count") else dtype), k
    assert t.a.tmp.dtype == dtype  # non-persistent buffers are converted too


def test_type_converts_every_tensor():
    t = Tree()
    assert t.type(ember.float64) is t
    assert set(dtypes(t).values()) == {ember.float64}  # integer buffers included
    t.type("torch.FloatTensor")
    assert set(dtypes(t).values()) == {ember.float32}


@pytest.mark.parametrize("dtype", [ember.int64, ember.int32, ember.bool])
def test_to_integer_dtype_raises(dtype):
    t = Tree()
    with pytest.raises(TypeError) as info:
        t.to(dtype)
    assert info.value.args[0] == (
        f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
    )
    assert t.a.weight.dtype == ember.float32


def test_to_meta_and_to_empty():
    t = Tree()
    w = t.a.weight
    w.grad = ember.ones(2, 3)
    t.to("meta")
    assert all(v.device.type == "meta" for v in t.state_dict().values())
    assert t.a.tmp.device.type == "meta" and w.grad.device.type == "meta"
    # ember keeps the Parameter object across every conversion (PyTorch replaces it on meta).
    assert t.a.weight is w
    assert t.to_empty(device="cpu") is t
    for v in t.state_dict().values():
        assert v.device.type == "cpu"
    assert t.a.weight.shape == (2, 3) and t.a.weight.requires_grad
    assert isinstance(t.a.weight, Parameter)


def test_to_empty_recurse_false():
    t = Tree().to("meta")
    t.to_empty(device="cpu", recurse=False)
    assert t.scale.device.type == "cpu" and t.steps.device.type == "cpu"
    assert t.a.weight.device.type == "meta"


def test_to_empty_device_is_keyword_only():
    with pytest.raises(TypeError):
        Tree().to_empty("cpu")


def test_module_built_on_meta_device():
    with ember.device("meta"):
        t = Tree()
    assert all(p.device.type == "meta" for p in t.parameters())
    t.to_empty(device="cpu")
    assert all(p.device.type == "cpu" for p in t.parameters())


def test_cpu_and_share_memory_return_self():
    t = Tree()
    w = t.a.weight
    assert t.cpu() is t and t.share_memory() is t
    assert t.a.weight is w and t.a.weight.device.type == "cpu"


def test_share_memory_keeps_values():
    t = Tree()
    before = {k: v.clone() for k, v in t.state_dict().items()}
    t.share_memory()
    for k, v in t.state_dict().items():
        assert (v == before[k]).all().item(), k


def test_apply_fn_must_return_a_tensor():
    with pytest.raises(TypeError, match="expected a Tensor"):
        Tree()._apply(lambda t: None)


def test_apply_does_not_record_history():
    m = Leaf()
    w = m.weight
    m._apply(lambda x: x * 2 if x.is_floating_point() else x)
    assert m.weight is w and w.is_leaf and w.requires_grad and w.grad_fn is None
    np.testing.assert_allclose(w.detach().numpy(), [[0.0, 0.2, 0.4], [0.6, 0.8, 1.0]], rtol=1e-6)


def test_apply_reaches_shared_tensors_once_per_owner():
    # NOTE: matches torch: _apply converts each module's own dicts, so a Parameter shared by
    # two modules gets fn twice (harmless for conversions, which are idempotent).
    t = Tree()
    t._apply(lambda x: x * 2 if x.is_floating_point() else x)
    assert t.scale.tolist() == [4.0]
    t.double().double()
    assert t.scale.dtype == ember.float64


def test_bfloat16_casts_the_floating_tensors_only():
    t = Tree().bfloat16()
    assert t.scale.dtype == ember.bfloat16
    assert all(p.dtype == ember.bfloat16 for p in t.parameters())
    assert all(b.dtype in (ember.bfloat16, ember.int64) for b in t.buffers())
