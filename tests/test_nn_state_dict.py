"""state_dict and load_state_dict: key names and order, keep_vars, prefix, destination,
metadata, hooks, extra state; the gathered strict errors and ember's transaction (a load that
raises leaves the module unchanged); assign; old-format conversion in _load_from_state_dict;
pickling and deep copies of whole modules."""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import pytest

import ember
import ember.nn as nn
from ember.nn import Parameter


class Leaf(nn.Module):
    def __init__(self, n: int = 2, m: int = 3):
        super().__init__()
        self.weight = Parameter(ember.arange(float(n * m)).reshape(n, m))
        self.bias = Parameter(ember.zeros(n))
        self.register_buffer("count", ember.tensor(0))
        self.register_buffer("tmp", ember.zeros(1), persistent=False)


class WithExtra(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = Parameter(ember.ones(2))
        self.config = {"k": 0}

    def get_extra_state(self):
        return self.config

    def set_extra_state(self, state):
        self.config.update(state)  # in place, as real modules often do


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = Parameter(ember.ones(1))
        self.register_buffer("steps", ember.zeros(2))
        self.a = Leaf(2, 3)
        self.e = WithExtra()
        self.b = nn.Module()
        self.b.inner = Leaf(3, 2)
        self.b.tied = self.scale
        self.add_module("empty", None)


KEYS = [
    "scale",
    "steps",
    "a.weight",
    "a.bias",
    "a.count",
    "e.w",
    "e._extra_state",
    "b.tied",
    "b.inner.weight",
    "b.inner.bias",
    "b.inner.count",
]


def snapshot(m):
    """Every value and every tensor object of the module, to compare after a failed load."""
    values = {
        k: (v.detach().numpy().copy().tolist() if isinstance(v, ember.Tensor) else copy.deepcopy(v))
        for k, v in m.state_dict().items()
    }
    objects = [id(t) for t in m.parameters()] + [id(t) for t in m.buffers()]
    return values, objects, {n: b.tolist() for n, b in m.named_buffers()}


def changed_state(net=None):
    sd = (net or Net()).state_dict()
    out = OrderedDict()
    for k, v in sd.items():
        out[k] = v + 5 if isinstance(v, ember.Tensor) else {"k": 9}
    out._metadata = sd._metadata
    return out


# ---- state_dict -------------------------------------------------------------------------------
def test_keys_order_params_buffers_extra_then_children():
    sd = Net().state_dict()
    assert list(sd) == KEYS
    assert isinstance(sd, OrderedDict)


def test_values_are_detached_and_share_memory():
    net = Net()
    sd = net.state_dict()
    assert type(sd["a.weight"]) is ember.Tensor and not sd["a.weight"].requires_grad
    sd["a.weight"][0, 0] = 7.0
    assert net.a.weight[0, 0].item() == 7.0
    assert sd["e._extra_state"] is net.e.config


def test_keep_vars_returns_the_parameters_themselves():
    net = Net()
    sd = net.state_dict(keep_vars=True)
    assert sd["a.weight"] is net.a.weight and sd["b.tied"] is net.scale
    assert sd["a.count"] is net.a.count


def test_prefix_and_destination():
    net = Net()
    assert list(net.state_dict(prefix="model."))[:2] == ["model.scale", "model.steps"]
    dest = OrderedDict()
    out = net.a.state_dict(destination=dest, prefix="x.")
    assert out is dest and list(dest) == ["x.weight", "x.bias", "x.count"]
    plain = {}
    assert net.a.state_dict(destination=plain) is plain and not hasattr(plain, "_metadata")


def test_positional_arguments_warn_but_work():
    net = Net()
    with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
        sd = net.a.state_dict(None, "p.")
    assert list(sd) == ["p.weight", "p.bias", "p.count"]


def test_metadata_versions():
    class V(nn.Module):
        _version = 3

        def __init__(self):
            super().__init__()
            self.child = Leaf()

    sd = V().state_dict()
    assert dict(sd._metadata) == {"": {"version": 3}, "child": {"version": 1}}
    sd = V().state_dict(prefix="m.")
    assert dict(sd._metadata) == {"m": {"version": 3}, "m.child": {"version": 1}}


def test_state_dict_hooks():
    net = Net()
    events = []
    net.a.register_state_dict_pre_hook(
        lambda m, prefix, keep_vars: events.append(("pre", prefix, keep_vars))
    )

    def post(m, sd, prefix, local_metadata):
        events.append(("post", prefix, local_metadata))
        sd[prefix + "added"] = ember.ones(1)

    net.a.register_state_dict_post_hook(post)
    sd = net.state_dict(keep_vars=True)
    assert events == [("pre", "a.", True), ("post", "a.", {"version": 1})]
    assert list(sd)[2:6] == ["a.weight", "a.bias", "a.count", "a.added"]


def test_state_dict_post_hook_must_return_none():
    net = Net()
    net.register_state_dict_post_hook(lambda *a: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        net.state_dict()


def test_private_state_dict_hook_may_replace_the_dict():
    net = Net()
    net._register_state_dict_hook(lambda m, sd, prefix, meta: OrderedDict(x=ember.ones(1)))
    assert list(net.state_dict()) == ["x"]


def test_extra_state_round_trip():
    src = Net()
    src.e.config = {"k": 2, "name": "run"}
    dst = Net()
    result = dst.load_state_dict(src.state_dict())
    assert (
        dst.e.config == {"k": 2, "name": "run"}
        and repr(result) == "<All keys matched successfully>"
    )


def test_default_get_and_set_extra_state_raise():
    with pytest.raises(RuntimeError, match="should never be called"):
        nn.Module().get_extra_state()
    with pytest.raises(RuntimeError, match="should never be called"):
        nn.Module().set_extra_state(1)


# ---- load_state_dict: results and errors ------------------------------------------------------
def test_load_copies_values_in_place():
    net = Net()
    w, c = net.a.weight, net.a.count
    result = net.load_state_dict(changed_state())
    assert net.a.weight is w and net.a.count is c
    assert net.a.weight.tolist() == [[5.0, 6.0, 7.0], [8.0, 9.0, 10.0]]
    assert net.a.count.item() == 5 and net.a.tmp.tolist() == [0.0]
    assert net.e.config == {"k": 9}
    assert type(result).__name__ == "_IncompatibleKeys"
    assert repr(result) == str(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert net.a.weight.requires_grad and net.a.weight.is_leaf


def test_incompatible_keys_repr_when_not_matched():
    net = Leaf()
    result = net.load_state_dict({"weight": ember.zeros(2, 3), "junk": ember.ones(1)}, strict=False)
    assert result.missing_keys == ["bias", "count"] and result.unexpected_keys == ["junk"]
    assert repr(result) == (
        "_IncompatibleKeys(missing_keys=['bias', 'count'], unexpected_keys=['junk'])"
    )
    missing, unexpected = result
    assert missing == ["bias", "count"]


def test_strict_errors_are_gathered_into_one_message():
    net = Net()
    sd = changed_state()
    del sd["a.weight"], sd["e._extra_state"]
    sd["extra"] = ember.ones(1)
    sd["b.zz"] = ember.ones(1)
    sd["b.inner.bias"] = ember.ones(5)
    sd["a.bias"] = ember.ones(2, 1)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    assert str(info.value) == (
        "Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "a.weight", "e._extra_state". \n'
        '\tUnexpected key(s) in state_dict: "extra", "b.zz". \n'
        "\tsize mismatch for a.bias: copying a param with shape ember.Size([2, 1]) from "
        "checkpoint, the shape in current model is ember.Size([2]).\n"
        "\tsize mismatch for b.inner.bias: copying a param with shape ember.Size([5]) from "
        "checkpoint, the shape in current model is ember.Size([3])."
    )


def test_strict_false_reports_keys_but_still_raises_on_size_mismatch():
    net = Leaf()
    result = net.load_state_dict({"weight": ember.ones(2, 3)}, strict=False)
    assert result.missing_keys == ["bias", "count"] and net.weight.sum().item() == 6.0
    net = Leaf()
    before = snapshot(net)
    with pytest.raises(RuntimeError, match="size mismatch for bias"):
        net.load_state_dict({"weight": ember.ones(2, 3) * 4, "bias": ember.ones(5)}, strict=False)
    assert snapshot(net) == before


def test_non_tensor_value_is_an_error():
    with pytest.raises(
        RuntimeError,
        match='While copying the parameter named "bias", expected '
        "torch.Tensor or Tensor-like object from checkpoint "
        "but received <class 'list'>",
    ):
        Leaf().load_state_dict(
            {"weight": ember.ones(2, 3), "bias": [1, 2], "count": ember.tensor(0)}
        )


def test_state_dict_must_be_a_mapping():
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>"):
        Leaf().load_state_dict([("weight", ember.ones(2, 3))])


def test_non_persistent_buffer_key_is_unexpected():
    m = Leaf()
    sd = m.state_dict()
    sd["tmp"] = ember.ones(1)
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "tmp"'):
        m.load_state_dict(sd)


def test_extra_state_key_without_set_extra_state_is_unexpected():
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "_extra_state"'):
        Leaf().load_state_dict({**Leaf().state_dict(), "_extra_state": 1})


def test_one_element_checkpoint_value_loads_into_a_scalar():
    m = nn.Module()
    m.register_buffer("s", ember.tensor(1.0))
    m.load_state_dict({"s": ember.tensor([5.0])})
    assert m.s.shape == () and m.s.item() == 5.0


def test_load_casts_to_the_module_dtype():
    m = Leaf()
    src = Leaf().double()
    src.weight.data.fill_(2.5)
    m.load_state_dict(src.state_dict())
    assert m.weight.dtype == ember.float32 and m.weight[0, 0].item() == 2.5


def test_similar_prefixes_are_not_confused():
    class A(nn.Module):
        def __init__(self):
            super().__init__()
            self.l = nn.Module()
            self.l.w = Parameter(ember.zeros(1))
            self.ll = nn.Module()
            self.ll.w = Parameter(ember.zeros(1))

    a = A()
    a.load_state_dict({"l.w": ember.ones(1), "ll.w": ember.full((1,), 2.0)})
    assert (a.l.w.item(), a.ll.w.item()) == (1.0, 2.0)


def test_tied_parameter_takes_the_last_value_loaded():
    net = Net()
    sd = changed_state()
    sd["b.tied"] = sd["b.tied"] + 10
    net.load_state_dict(sd)
    assert net.scale.item() == 16.0 and net.b.tied is net.scale


# ---- the transaction (ember): a failed load changes nothing -----------------------------------
def test_failed_strict_load_leaves_the_module_unchanged():
    net = Net()
    before = snapshot(net)
    sd = changed_state()
    sd["b.inner.bias"] = ember.ones(5)  # one bad entry, after many good ones
    with pytest.raises(RuntimeError, match="size mismatch for b.inner.bias"):
        net.load_state_dict(sd)
    assert snapshot(net) == before


@pytest.mark.parametrize("problem", ["missing", "unexpected", "size", "meta source"])
@pytest.mark.parametrize("assign", [False, True])
def test_every_kind_of_failure_is_transactional(problem, assign):
    net = Net()
    before = snapshot(net)
    sd = changed_state()
    if problem == "missing":
        del sd["b.inner.count"]
    elif problem == "unexpected":
        sd["b.inner.junk"] = ember.ones(1)
    elif problem == "size":
        sd["a.weight"] = ember.ones(3, 2)
    else:
        sd["a.weight"] = ember.empty(2, 3, device="meta")
    with pytest.raises(RuntimeError, match="Error\\(s\\) in loading state_dict for Net"):
        net.load_state_dict(sd, assign=assign)
    assert snapshot(net) == before


@pytest.mark.parametrize("assign", [False, True])
def test_failed_load_with_a_post_hook_is_undone(assign):
    net = Net()
    before = snapshot(net)
    calls = []
    net.b.register_load_state_dict_post_hook(lambda m, inc: calls.append(list(inc.unexpected_keys)))
    sd = changed_state()
    sd["junk"] = ember.ones(1)
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "junk"'):
        net.load_state_dict(sd, assign=assign)
    assert calls == [["junk"]]  # the hook ran on the written state, then it was undone
    assert snapshot(net) == before
    assert net.e.config == {"k": 0}  # extra state restored too


def test_post_hook_that_raises_undoes_the_load():
    net = Net()
    before = snapshot(net)

    def boom(m, inc):
        raise ValueError("hook failed")

    net.a.register_load_state_dict_post_hook(boom)
    with pytest.raises(ValueError, match="hook failed"):
        net.load_state_dict(changed_state())
    assert snapshot(net) == before


def test_post_hook_may_clear_keys_that_strict_would_reject():
    net = Net()
    events = []

    def forgive(m, inc):
        events.append(("b", list(inc.unexpected_keys)))
        inc.unexpected_keys.clear()

    net.b.register_load_state_dict_post_hook(forgive)
    net.register_load_state_dict_post_hook(
        lambda m, inc: events.append(("root", list(inc.unexpected_keys)))
    )
    sd = changed_state()
    sd["b.old_name"] = ember.ones(1)
    result = net.load_state_dict(sd)
    assert repr(result) == "<All keys matched successfully>"
    assert events == [("b", ["b.old_name"]), ("root", [])]  # children's hooks first
    assert net.a.count.item() == 5


def test_post_hook_must_return_none():
    net = Leaf()
    before = snapshot(net)
    net.register_load_state_dict_post_hook(lambda m, inc: 1)
    with pytest.raises(AssertionError, match="are not expected to return new values"):
        net.load_state_dict(changed_state(Leaf()))
    assert snapshot(net) == before


def test_load_pre_hook_sees_arguments_and_may_rename():
    net = Net()
    events = []

    def pre(module, sd, prefix, local_metadata, strict, missing, unexpected, errors):
        events.append((module, prefix, local_metadata, strict))
        if prefix + "old_weight" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "old_weight")

    net.a.register_load_state_dict_pre_hook(pre)
    sd = changed_state()
    sd["a.old_weight"] = sd.pop("a.weight") * 2
    assert repr(net.load_state_dict(sd)) == "<All keys matched successfully>"
    assert events == [(net.a, "a.", {"version": 1}, True)]
    assert net.a.weight[0, 0].item() == 10.0


def test_private_load_pre_hook_without_module():
    m = Leaf()
    seen = []
    m._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: seen.append(prefix))
    m.load_state_dict(Leaf().state_dict())
    assert seen == [""]


# ---- assign -----------------------------------------------------------------------------------
def test_assign_fills_a_meta_module_keeping_requires_grad():
    with ember.device("meta"):
        m = Leaf()
    m.weight.requires_grad_(False)
    src = Leaf()
    src.weight.data.add_(1)
    result = m.load_state_dict(src.state_dict(), assign=True)
    assert repr(result) == "<All keys matched successfully>"
    assert isinstance(m.weight, Parameter) and m.weight.device.type == "cpu"
    assert not m.weight.requires_grad and m.bias.requires_grad
    assert m.weight.tolist() == src.weight.tolist() and m.count.item() == 0
    assert m.tmp.device.type == "meta"  # non-persistent buffers are not in the state_dict
    assert m.weight.data_ptr() == src.weight.data_ptr()  # assigned, not copied


def test_assign_with_keep_vars_parameters_keeps_the_objects():
    m = Leaf()
    w = m.weight
    src = Leaf()
    m.load_state_dict(src.state_dict(keep_vars=True), assign=True)
    assert m.weight is src.weight and m.weight is not w and m.count is src.count


def test_loading_into_meta_without_assign_warns_and_does_nothing():
    with ember.device("meta"):
        m = Leaf()
    with pytest.warns(
        UserWarning,
        match="copying from a non-meta parameter in the checkpoint "
        "to a meta parameter in the current model, which is "
        "a no-op",
    ):
        m.load_state_dict(Leaf().state_dict())
    assert m.weight.device.type == "meta"


def test_metadata_reaches_load_from_state_dict():
    seen = []

    class V(nn.Module):
        _version = 3

        def _load_from_state_dict(self, sd, prefix, local_metadata, *rest):
            seen.append((prefix, dict(local_metadata)))

    class W(nn.Module):
        def __init__(self):
            super().__init__()
            self.v = V()

    w = W()
    sd = w.state_dict()
    w.load_state_dict(sd)
    w.load_state_dict({}, strict=False)
    w.load_state_dict(sd, assign=True)
    assert seen == [
        ("v.", {"version": 3}),
        ("v.", {}),
        ("v.", {"version": 3, "assign_to_params_buffers": True}),
    ]


# ---- a custom _load_from_state_dict ported from PyTorch -----------------------------------------
class Renamed(nn.Module):
    """Version 2 renamed the parameter ``w`` to ``weight``; old checkpoints still load."""

    _version = 2

    def __init__(self):
        super().__init__()
        self.weight = Parameter(ember.zeros(2))

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            old = prefix + "w"
            if old in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(old)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.old = Renamed()


def test_custom_load_from_state_dict_converts_old_checkpoints():
    old = OrderedDict([("old.w", ember.ones(2))])
    old._metadata = OrderedDict([("", {"version": 1}), ("old", {"version": 1})])
    h = Holder()
    assert repr(h.load_state_dict(old)) == "<All keys matched successfully>"
    assert h.old.weight.tolist() == [1.0, 1.0]
    h2 = Holder()  # no metadata at all: treated as old
    h2.load_state_dict({"old.w": ember.full((2,), 3.0)})
    assert h2.old.weight.tolist() == [3.0, 3.0]
    assert h.state_dict()._metadata["old"] == {"version": 2}
    h3 = Holder()  # a current checkpoint
    h3.load_state_dict(h2.state_dict())
    assert h3.old.weight.tolist() == [3.0, 3.0]


def test_custom_load_failure_is_still_transactional():
    h = Holder()
    with pytest.raises(RuntimeError, match="size mismatch for old.weight"):
        h.load_state_dict({"old.w": ember.ones(3)})
    assert h.old.weight.tolist() == [0.0, 0.0]


def test_load_from_state_dict_outside_load_state_dict_writes_immediately():
    m = Leaf()
    missing, unexpected, errors = [], [], []
    m._load_from_state_dict({"weight": ember.ones(2, 3)}, "", {}, True, missing, unexpected, errors)
    assert m.weight.sum().item() == 6.0 and missing == ["bias", "count"] and errors == []


# ---- pickling and deep copies ------------------------------------------------------------------
def test_pickle_round_trip_keeps_structure_and_sharing():
    net = Net()
    net.e.config = {"k": 4}
    net2 = pickle.loads(pickle.dumps(net))
    assert type(net2) is Net and repr(net2) == repr(net)
    assert list(net2.state_dict()) == KEYS
    assert net2.b.tied is net2.scale and isinstance(net2.scale, Parameter)
    assert net2.a.weight.tolist() == net.a.weight.tolist() and net2.e.config == {"k": 4}
    assert net2.a._non_persistent_buffers_set == {"tmp"}
    assert net2.a.weight.requires_grad


def test_deepcopy_is_independent_and_keeps_sharing():
    net = Net()
    net.a.weight.grad = ember.ones(2, 3)
    net2 = copy.deepcopy(net)
    assert net2.a.weight is not net.a.weight and net2.b.tied is net2.scale
    assert net2.a.weight.grad is None  # NOTE: matches torch: Parameter.__deepcopy__
    net2.a.weight.data.fill_(9.0)
    assert net.a.weight[0, 0].item() == 0.0
    assert net2.a.weight.requires_grad and net2.training


def test_deepcopy_copies_hooks_and_training_mode():
    net = Leaf().eval()
    net.register_forward_hook(lambda *a: None)
    net2 = copy.deepcopy(net)
    assert len(net2._forward_hooks) == 1 and not net2.training


def test_setstate_fills_dicts_missing_from_old_pickles():
    m = Leaf()
    state = m.__getstate__()
    for name in (
        "_forward_pre_hooks_with_kwargs",
        "_state_dict_pre_hooks",
        "_backward_pre_hooks",
        "_non_persistent_buffers_set",
    ):
        state.pop(name)
    fresh = Leaf.__new__(Leaf)
    fresh.__setstate__(state)
    assert fresh._state_dict_pre_hooks == OrderedDict() and fresh._backward_pre_hooks == {}
    assert list(fresh.state_dict()) == ["weight", "bias", "count", "tmp"]
