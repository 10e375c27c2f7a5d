"""Tests of ember/nn/modules/container.py and ember/nn/parallel: Sequential, ModuleList,
ModuleDict, ParameterList, ParameterDict and DataParallel.

Behaviour tests need only ember; the parity tests at the end build the same container trees
in ember and PyTorch (from small leaf modules defined identically for both) and compare reprs
character for character, parameter and state_dict key order, and outputs.
"""

from __future__ import annotations

import copy
import types
import warnings
from collections import OrderedDict

import pytest

import ember
from ember.nn import Module, Parameter, RegistrationWarning
from ember.nn.modules.container import (
    Container,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from ember.nn.parallel import DataParallel, data_parallel


# ---- leaf modules, defined the same way for ember and for torch ---------------------------------
def _leaves(lib):
    nn = lib.nn

    class Affine(nn.Module):
        def __init__(self, n, scale=1.0):
            super().__init__()
            self.n = n
            self.weight = nn.Parameter(lib.ones(n) * scale)
            self.bias = nn.Parameter(lib.zeros(n))

        def forward(self, x):
            return x * self.weight + self.bias

        def extra_repr(self):
            return f"n={self.n}"

    class Scaled(nn.Module):
        def __init__(self, factor):
            super().__init__()
            self.register_buffer("factor", lib.tensor(float(factor)))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)

        def forward(self, x):
            return x * self.factor

    class Id(nn.Module):
        def forward(self, x):
            return x

    class Gap(nn.Module):
        # A multi-line extra_repr with a blank line: Module and ModuleList indent it
        # differently in PyTorch.
        def extra_repr(self):
            return "a=1\n\nb=2"

    return types.SimpleNamespace(Affine=Affine, Scaled=Scaled, Id=Id, Gap=Gap)


L = _leaves(ember)
Affine, Scaled, Id, Gap = L.Affine, L.Scaled, L.Id, L.Gap


def _names(module):
    return [n for n, _ in module.named_parameters()]


# ---- no registration warnings ------------------------------------------------------------------
def test_containers_never_emit_registration_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seq = Sequential(Affine(2), Id())
        del seq[0]
        seq.insert(0, Affine(2))
        seq += Sequential(Id())
        seq *= 2
        ml = ModuleList([Affine(2), Id()])
        del ml[0:1]
        ml.insert(0, Id())
        md = ModuleDict({"a": Id()})
        md.update([("b", Id())])
        # entries that are themselves plain lists of Parameters/Modules are kept as objects
        pl = ParameterList([ember.zeros(2), [Parameter(ember.zeros(1))], {"m": Id()}])
        pl[1] = [Id()]
        pd = ParameterDict({"a": ember.zeros(2), "b": [Parameter(ember.zeros(1))]})
        pd["c"] = {"m": Id()}
        DataParallel(seq)
    assert len(pl) == 3 and len(pd) == 3 and len(ml) == 2


def test_plain_list_still_warns():
    # The diagnostics the containers avoid are still on for user code (so the test above means
    # something).
    m = Module()
    with pytest.warns(RegistrationWarning, match="ModuleList"):
        m.layers = [Id()]


# ---- Sequential ---------------------------------------------------------------------------------
def test_sequential_registration_and_forward():
    a, b = Affine(2, 2.0), Scaled(3)
    seq = Sequential(a, Id(), b)
    assert list(seq._modules) == ["0", "1", "2"]
    assert _names(seq) == ["0.weight", "0.bias"]
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.factor"]
    out = seq(ember.ones(2))
    assert out.tolist() == [6.0, 6.0]
    out.sum().backward()
    assert a.weight.grad.tolist() == [3.0, 3.0]


def test_sequential_from_ordered_dict():
    seq = Sequential(OrderedDict([("first", Affine(2)), ("act", Id())]))
    assert list(seq._modules) == ["first", "act"]
    assert seq.first is seq[0]
    assert _names(seq) == ["first.weight", "first.bias"]


def test_sequential_rejects_non_modules():
    with pytest.raises(TypeError, match="is not a Module subclass"):
        Sequential(Id(), 3)
    with pytest.raises(TypeError, match="is not a Module subclass"):
        Sequential({"a": Id()})  # only an OrderedDict is read as names -> modules


def test_sequential_indexing():
    mods = [Affine(1), Affine(2), Affine(3)]
    seq = Sequential(*mods)
    assert seq[0] is mods[0] and seq[-1] is mods[2] and seq[-3] is mods[0]
    for bad in (3, -4):
        with pytest.raises(IndexError, match=f"index {bad} is out of range"):
            seq[bad]
    with pytest.raises(TypeError):
        seq["0"]
    assert len(seq) == 3
    assert list(seq) == mods


def test_sequential_slice_keeps_class_and_names():
    class MySeq(Sequential):
        pass

    mods = [Affine(1), Affine(2), Affine(3)]
    seq = MySeq(*mods)
    tail = seq[1:]
    assert type(tail) is MySeq
    assert list(tail._modules) == ["1", "2"]  # NOTE: matches torch: not renumbered
    assert list(tail) == mods[1:]
    assert list(seq[::-1]) == mods[::-1]
    assert len(seq[5:]) == 0


def test_sequential_setitem():
    seq = Sequential(Affine(1), Affine(2))
    new = Affine(5)
    seq[-1] = new
    assert seq[1] is new and list(seq._modules) == ["0", "1"]
    with pytest.raises(TypeError, match="cannot assign 'int' as child module '0'"):
        seq[0] = 1
    with pytest.raises(IndexError):
        seq[2] = Id()


def test_sequential_delitem_renumbers():
    mods = [Affine(i + 1) for i in range(5)]
    seq = Sequential(*mods)
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2", "3"]
    assert list(seq) == [mods[0], *mods[2:]]
    del seq[-1]
    assert list(seq) == [mods[0], mods[2], mods[3]]
    del seq[::2]
    assert list(seq._modules) == ["0"] and seq[0] is mods[2]
    with pytest.raises(IndexError):
        del seq[1]


def test_sequential_delitem_renames_ordered_dict_names():
    seq = Sequential(OrderedDict([("a", Id()), ("b", Affine(2)), ("c", Id())]))
    b = seq.b
    del seq[0]
    assert list(seq._modules) == ["0", "1"]  # NOTE: matches torch
    assert seq[0] is b and _names(seq) == ["0.weight", "0.bias"]


def test_sequential_delitem_keeps_the_modules_dict_object():
    seq = Sequential(Id(), Id(), Id())
    d = seq._modules
    del seq[0]
    assert seq._modules is d and list(d) == ["0", "1"]


def test_sequential_append_insert_extend_pop():
    a, b, c, d = Affine(1), Affine(2), Affine(3), Affine(4)
    seq = Sequential(a)
    assert seq.append(b) is seq
    assert list(seq) == [a, b]
    assert seq.insert(0, c) is seq
    assert list(seq) == [c, a, b] and list(seq._modules) == ["0", "1", "2"]
    seq.insert(-1, d)
    assert list(seq) == [c, a, d, b]
    seq.insert(4, Id())
    assert len(seq) == 5 and list(seq._modules) == ["0", "1", "2", "3", "4"]
    with pytest.raises(IndexError, match="Index out of range: 6"):
        seq.insert(6, Id())
    with pytest.raises(IndexError, match="Index out of range: -6"):
        seq.insert(-6, Id())
    with pytest.raises(AssertionError, match="module should be of type"):
        seq.insert(0, 3)
    assert seq.extend([Id(), Id()]) is seq and len(seq) == 7
    assert seq.pop(0) is c
    assert list(seq)[:3] == [a, d, b]
    popped = seq.pop(slice(0, 2))
    assert type(popped) is Sequential and list(popped) == [a, d]
    assert list(seq._modules) == [str(i) for i in range(len(seq))]


def test_sequential_insert_into_named():
    seq = Sequential(OrderedDict([("a", Id()), ("b", Id())]))
    new = Affine(2)
    seq.insert(1, new)  # torch raises KeyError here; ember renumbers
    assert list(seq._modules) == ["0", "1", "2"] and seq[1] is new
    named = Sequential(OrderedDict([("a", Id())]))
    named.insert(1, new)
    assert list(named._modules) == ["a", "1"]


def test_sequential_add_and_iadd():
    a, b, c = Affine(1), Affine(2), Affine(3)

    class MySeq(Sequential):
        pass

    left, right = MySeq(a, b), Sequential(c)
    total = left + right
    assert type(total) is Sequential  # NOTE: matches torch: always the base class
    assert list(total) == [a, b, c] and list(total._modules) == ["0", "1", "2"]
    assert list(left) == [a, b]
    same = left
    left += right
    assert left is same and list(left) == [a, b, c]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential"):
        left + [Id()]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential"):
        left += ModuleList([Id()])


def test_sequential_mul():
    a, b = Affine(1), Affine(2)
    seq = Sequential(a, b)
    twice = seq * 2
    assert type(twice) is Sequential
    assert list(twice) == [a, b, a, b] and list(twice._modules) == ["0", "1", "2", "3"]
    assert list(3 * seq) == [a, b] * 3
    # shared modules: parameters are reported once
    assert _names(twice) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    for bad, err in ((0, ValueError), (-1, ValueError), (1.5, TypeError), ("2", TypeError)):
        with pytest.raises(err):
            seq * bad
    same = seq
    seq *= 3
    assert seq is same and list(seq) == [a, b] * 3
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        seq *= 0
    named = Sequential(OrderedDict([("x", a)]))
    named *= 2  # torch raises KeyError here; ember repeats by position
    assert list(named) == [a, a] and list(named._modules) == ["x", "1"]


def test_sequential_dir_hides_numeric_names():
    seq = Sequential(OrderedDict([("head", Id()), ("0", Id())]))
    names = dir(seq)
    assert "head" in names and "0" not in names and "append" in names


def test_sequential_repr():
    seq = Sequential(Affine(2), Sequential(Id(), Scaled(2)))
    assert repr(seq) == (
        "Sequential(\n"
        "  (0): Affine(n=2)\n"
        "  (1): Sequential(\n"
        "    (0): Id()\n"
        "    (1): Scaled()\n"
        "  )\n"
        ")"
    )
    assert repr(Sequential()) == "Sequential()"


def test_sequential_empty_forward_is_identity():
    x = ember.ones(2)
    assert Sequential()(x) is x


# ---- ModuleList ---------------------------------------------------------------------------------
def test_modulelist_basics():
    mods = [Affine(1), Id(), Affine(3)]
    ml = ModuleList(mods)
    assert len(ml) == 3 and list(ml) == mods
    assert ml[-1] is mods[2]
    assert _names(ml) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(ModuleList()) == 0
    with pytest.raises(IndexError, match="index 3 is out of range"):
        ml[3]
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        ml(ember.ones(1))


def test_modulelist_slice_and_setitem():
    class MyList(ModuleList):
        pass

    mods = [Affine(i + 1) for i in range(4)]
    ml = MyList(mods)
    part = ml[1:3]
    assert type(part) is MyList and list(part) == mods[1:3]
    assert list(part._modules) == ["0", "1"]
    new = Id()
    ml[-2] = new
    assert ml[2] is new
    with pytest.raises(IndexError):
        ml[4] = Id()
    with pytest.raises(TypeError, match="cannot assign 'str' as child module '0'"):
        ml[0] = "x"


def test_modulelist_delitem_and_pop():
    mods = [Affine(i + 1) for i in range(6)]
    ml = ModuleList(mods)
    del ml[0]
    assert list(ml) == mods[1:] and list(ml._modules) == ["0", "1", "2", "3", "4"]
    del ml[1::2]
    assert list(ml) == [mods[1], mods[3], mods[5]]
    assert ml.pop(-1) is mods[5]
    popped = ml.pop(slice(None))
    assert type(popped) is ModuleList and list(popped) == [mods[1], mods[3]]
    assert len(ml) == 0
    with pytest.raises(IndexError):
        ml.pop(0)


def test_modulelist_append_extend_insert():
    a, b, c, d = Affine(1), Affine(2), Affine(3), Affine(4)
    ml = ModuleList()
    assert ml.append(a) is ml
    assert ml.extend((b, c)) is ml
    assert list(ml) == [a, b, c]
    ml.insert(1, d)
    assert list(ml) == [a, d, b, c] and list(ml._modules) == ["0", "1", "2", "3"]
    # list.insert semantics for negative and out-of-range positions
    e, f, g = Id(), Id(), Id()
    ml.insert(-1, e)
    assert list(ml) == [a, d, b, e, c]
    ml.insert(100, f)
    assert ml[-1] is f
    ml.insert(-100, g)
    assert ml[0] is g
    assert list(ml._modules) == [str(i) for i in range(len(ml))]
    with pytest.raises(TypeError, match="is not a Module subclass"):
        ml.insert(0, 3)
    with pytest.raises(
        TypeError, match="ModuleList.extend should be called with an iterable, but got int"
    ):
        ml.extend(3)
    with pytest.raises(TypeError, match="is not a Module subclass"):
        ml.append([a])


def test_modulelist_add_and_iadd():
    a, b, c = Affine(1), Affine(2), Affine(3)
    ml = ModuleList([a])
    total = ml + [b, c]
    assert type(total) is ModuleList and list(total) == [a, b, c]
    assert list(ml) == [a]
    same = ml
    ml += ModuleList([b])
    ml += (c,)
    assert ml is same and list(ml) == [a, b, c]


def test_modulelist_shared_module_reported_once():
    a = Affine(2)
    ml = ModuleList([a, a])
    assert _names(ml) == ["0.weight", "0.bias"]
    assert [n for n, _ in ml.named_parameters(remove_duplicate=False)] == [
        "0.weight",
        "0.bias",
        "1.weight",
        "1.bias",
    ]


def test_modulelist_repr_groups_repeats():
    ml = ModuleList([Affine(2), Affine(2), Affine(2), Id(), Affine(2), Affine(3), Affine(3)])
    assert repr(ml) == (
        "ModuleList(\n"
        "  (0-2): 3 x Affine(n=2)\n"
        "  (3): Id()\n"
        "  (4): Affine(n=2)\n"
        "  (5-6): 2 x Affine(n=3)\n"
        ")"
    )
    assert repr(ModuleList()) == "ModuleList()"


def test_modulelist_repr_nested_and_blank_lines():
    ml = ModuleList([Sequential(Id(), Id()), Sequential(Id(), Id()), Gap()])
    # NOTE: matches torch: inside ModuleList even the blank line of Gap's repr is indented,
    # while Sequential's (Module's) repr leaves it empty.
    assert repr(ml) == (
        "ModuleList(\n"
        "  (0-1): 2 x Sequential(\n"
        "    (0): Id()\n"
        "    (1): Id()\n"
        "  )\n"
        "  (2): Gap(\n"
        "    a=1\n"
        "    \n"
        "    b=2\n"
        "  )\n"
        ")"
    )
    assert repr(Sequential(Gap())) == "Sequential(\n  (0): Gap(\n    a=1\n\n    b=2\n  )\n)"


def test_modulelist_in_a_module_registers_everything():
    class Net(Module):
        def __init__(self):
            super().__init__()
            self.layers = ModuleList([Affine(2), Affine(2)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    net = Net().double()
    assert _names(net) == ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
    assert all(p.dtype == ember.float64 for p in net.parameters())
    assert net.eval().layers[1].training is False


# ---- ModuleDict ---------------------------------------------------------------------------------
def test_moduledict_construction_orders():
    a, b, c = Affine(1), Affine(2), Affine(3)
    # NOTE: matches torch: a plain dict keeps its order here (only ParameterDict sorts)
    assert list(ModuleDict({"z": a, "a": b})) == ["z", "a"]
    assert list(ModuleDict(OrderedDict([("z", a), ("a", b)]))) == ["z", "a"]
    assert list(ModuleDict([("z", a), ["a", b]])) == ["z", "a"]
    md = ModuleDict({"z": a, "a": b})
    assert list(ModuleDict(md)) == ["z", "a"]
    assert list(ModuleDict()) == []
    md.update({"m": c, "z": Id()})
    assert list(md) == ["z", "a", "m"]  # a replaced key keeps its place
    assert md["m"] is c


def test_moduledict_mapping_protocol():
    a, b = Affine(1), Affine(2)
    md = ModuleDict({"a": a, "b": b})
    assert md["a"] is a and "a" in md and "x" not in md and len(md) == 2
    assert list(md.keys()) == ["a", "b"]
    assert list(md.values()) == [a, b]
    assert list(md.items()) == [("a", a), ("b", b)]
    assert _names(md) == ["a.weight", "a.bias", "b.weight", "b.bias"]
    assert md.a is a
    assert md.pop("a") is a and list(md) == ["b"]
    del md["b"]
    assert len(md) == 0
    md["c"] = a
    md.clear()
    assert len(md) == 0 and list(md.parameters()) == []
    with pytest.raises(KeyError):
        md["nope"]
    with pytest.raises(KeyError):
        del md["nope"]
    with pytest.raises(NotImplementedError):
        md(1)


def test_moduledict_errors():
    md = ModuleDict()
    with pytest.raises(TypeError, match="is not a Module subclass"):
        md["a"] = 1
    with pytest.raises(KeyError, match="attribute 'keys' already exists"):
        md["keys"] = Id()
    with pytest.raises(KeyError, match='contain "."'):
        md["a.b"] = Id()
    with pytest.raises(
        TypeError,
        match="ModuleDict.update should be called with an iterable of key/value pairs, but got int",
    ):
        md.update(1)
    with pytest.raises(TypeError, match="element #1 should be Iterable; is int"):
        md.update([("a", Id()), 5])
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        md.update([("a", Id(), 1)])


# ---- ParameterList ------------------------------------------------------------------------------
def test_parameterlist_wraps_tensors():
    t = ember.ones(2, 3)
    p = Parameter(ember.zeros(1))
    pl = ParameterList([t, p])
    assert isinstance(pl[0], Parameter) and pl[0].requires_grad
    assert pl[0]._data is t._data  # shares memory
    assert pl[1] is p
    assert _names(pl) == ["0", "1"]
    assert list(pl.state_dict()) == ["0", "1"]
    frozen = ParameterList([ember.zeros(1).requires_grad_(False)])
    assert frozen[0].requires_grad  # NOTE: matches torch: Parameter(t) requires grad


def test_parameterlist_keeps_other_objects():
    m = Affine(1)
    pl = ParameterList([1, "x", None, m])
    assert [pl[0], pl[1], pl[2]] == [1, "x", None] and pl[3] is m
    assert list(pl._parameters) == [] and list(pl._modules) == ["3"]
    assert _names(pl) == ["3.weight", "3.bias"]


def test_parameterlist_sequence_protocol():
    ps = [Parameter(ember.zeros(i + 1)) for i in range(4)]
    pl = ParameterList(ps)
    assert len(pl) == 4 and list(pl) == ps and pl[-1] is ps[3]
    part = pl[1::2]
    assert type(part) is ParameterList and list(part) == [ps[1], ps[3]]
    assert _names(part) == ["0", "1"]
    with pytest.raises(IndexError, match="index 4 is out of range"):
        pl[4]
    with pytest.raises(IndexError):
        pl[-5] = ember.zeros(1)
    assert pl.append(ember.zeros(9)) is pl and pl[4].shape == (9,)
    assert pl.extend([ember.zeros(1)]) is pl and len(pl) == 6
    same = pl
    pl += (ember.zeros(2),)
    assert pl is same and len(pl) == 7
    with pytest.raises(
        TypeError, match="ParameterList.extend should be called with an iterable, but got Tensor"
    ):
        pl.extend(ember.zeros(3))
    with pytest.raises(TypeError, match="but got int"):
        pl.extend(3)
    with pytest.raises(AttributeError, match="__delitem__"):
        del pl[0]  # NOTE: matches torch: ParameterList has no deletion


def test_parameterlist_setitem():
    pl = ParameterList([ember.zeros(1), 5])
    new = ember.ones(2)
    pl[0] = new
    assert isinstance(pl[0], Parameter) and pl[0].shape == (2,)
    assert list(pl._parameters) == ["0"]
    pl[1] = ember.ones(3)  # an object slot becomes a parameter
    assert list(pl._parameters) == ["0", "1"] and "1" not in pl.__dict__
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter '0'"):
        pl[0] = 3
    pl[0] = None
    assert pl[0] is None and _names(pl) == ["1"]


def test_parameterlist_append_that_fails_leaves_length():
    pl = ParameterList([ember.zeros(1)])

    class Bad:
        pass

    # a Module registration hook that rejects the entry makes append fail
    from ember.nn.modules import module as module_mod

    def reject(mod, name, value):
        raise RuntimeError("rejected")

    handle = module_mod.register_module_module_registration_hook(reject)
    try:
        with pytest.raises(RuntimeError, match="rejected"):
            pl.append(Id())
    finally:
        handle.remove()
    assert len(pl) == 1 and list(pl) == [pl[0]]


def test_parameterlist_cannot_be_called():
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        ParameterList()(1)


def test_parameterlist_conversion_and_copy():
    pl = ParameterList([ember.ones(2)])
    p = pl[0]
    pl.double()
    assert pl[0] is p and p.dtype == ember.float64
    clone = copy.deepcopy(pl)
    assert len(clone) == 1 and clone[0] is not p and clone[0].tolist() == [1.0, 1.0]
    clone.append(ember.zeros(1))
    assert len(pl) == 1


def test_parameterlist_repr():
    pl = ParameterList(
        [ember.zeros(2, 3), ember.zeros(4, dtype=ember.float64), ember.tensor(1.0), "s", Id()]
    )
    # NOTE: the dtype prints as PyTorch prints it, "torch.float32".
    assert repr(pl) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [torch.float32 of size 2x3]\n"
        "    (1): Parameter containing: [torch.float64 of size 4]\n"
        "    (2): Parameter containing: [torch.float32 of size ]\n"
        "    (3): Object of type: str\n"
        "    (4): Object of type: Id\n"
        "  (4): Id()\n"
        ")"
    )
    assert repr(ParameterList()) == "ParameterList()"


# ---- ParameterDict ------------------------------------------------------------------------------
def test_parameterdict_ordering_rules():
    vals = {k: ember.zeros(1) for k in "cab"}
    # NOTE: matches torch: a plain dict (any Mapping but OrderedDict/ParameterDict) is sorted
    assert list(ParameterDict(vals)) == ["a", "b", "c"]
    assert list(ParameterDict(OrderedDict(vals.items()))) == ["c", "a", "b"]
    assert list(ParameterDict(list(vals.items()))) == ["c", "a", "b"]
    assert list(ParameterDict((k, v) for k, v in vals.items())) == ["c", "a", "b"]
    ordered = ParameterDict(OrderedDict(vals.items()))
    assert list(ParameterDict(ordered)) == ["c", "a", "b"]
    pd = ParameterDict(OrderedDict([("z", ember.zeros(1))]))
    pd.update({"y": ember.zeros(1), "x": ember.zeros(1)})
    assert list(pd) == ["z", "x", "y"]
    assert _names(pd) == ["z", "x", "y"]


def test_parameterdict_wraps_and_keeps():
    t = ember.ones(2)
    pd = ParameterDict({"t": t, "n": None, "o": "obj", "m": Id()})
    assert isinstance(pd["t"], Parameter) and pd["t"]._data is t._data
    assert pd["n"] is None and pd["o"] == "obj" and isinstance(pd["m"], Id)
    assert list(pd) == ["m", "n", "o", "t"]
    assert _names(pd) == ["t"]
    assert list(pd.state_dict()) == ["t"]


def test_parameterdict_mapping_protocol():
    a, b = Parameter(ember.zeros(1)), Parameter(ember.zeros(2))
    pd = ParameterDict(OrderedDict([("a", a), ("b", b)]))
    assert len(pd) == 2 and "a" in pd and "x" not in pd
    assert list(pd.keys()) == ["a", "b"]
    assert list(pd.values()) == [a, b]
    assert list(pd.items()) == [("a", a), ("b", b)]
    assert list(reversed(pd)) == ["b", "a"]
    assert pd.get("a") is a and pd.get("x") is None and pd.get("x", 3) == 3
    assert pd.setdefault("a", 5) is a
    assert pd.setdefault("c") is None and list(pd) == ["a", "b", "c"]
    assert pd.popitem() == ("c", None)
    assert pd.pop("a") is a and list(pd) == ["b"] and _names(pd) == ["b"]
    del pd["b"]
    assert len(pd) == 0 and list(pd.parameters()) == []
    with pytest.raises(KeyError):
        del pd["b"]
    with pytest.raises(KeyError, match="popitem"):
        pd.popitem()
    with pytest.raises(AttributeError):
        pd["missing"]  # NOTE: matches torch (entries are attributes)
    pd.update([("x", ember.zeros(1)), ("y", ember.zeros(1))])
    pd.clear()
    assert len(pd) == 0 and not pd._parameters


def test_parameterdict_replace_keeps_position():
    pd = ParameterDict(OrderedDict([("a", ember.zeros(1)), ("b", ember.zeros(1))]))
    pd["a"] = ember.ones(3)
    assert list(pd) == ["a", "b"] and pd["a"].shape == (3,)
    assert _names(pd) == ["a", "b"]
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'a'"):
        pd["a"] = 1


def test_parameterdict_copy_or_fromkeys():
    a, b = Parameter(ember.zeros(1)), Parameter(ember.zeros(1))
    pd = ParameterDict(OrderedDict([("b", b), ("a", a)]))
    cp = pd.copy()
    assert type(cp) is ParameterDict and list(cp) == ["b", "a"] and cp["a"] is a
    merged = pd | ParameterDict(OrderedDict([("c", a)]))
    assert list(merged) == ["b", "a", "c"] and list(pd) == ["b", "a"]
    merged = ParameterDict(OrderedDict([("c", a)])) | pd
    assert list(merged) == ["c", "b", "a"]
    same = pd
    pd |= OrderedDict([("z", b)])
    assert pd is same and list(pd) == ["b", "a", "z"]
    fk = pd.fromkeys(["x", "y"], ember.ones(1))
    assert list(fk) == ["x", "y"] and isinstance(fk["x"], Parameter)
    assert fk["x"] is not fk["y"]  # each entry wraps the tensor separately
    assert list(pd.fromkeys("pq")) == ["p", "q"]


def test_parameterdict_errors_leave_no_trace():
    pd = ParameterDict()
    with pytest.raises(TypeError, match="not a string \\(type is 'int'\\)"):
        pd[1] = ember.zeros(1)
    with pytest.raises(KeyError, match="attribute 'update' already exists"):
        pd["update"] = ember.zeros(1)
    with pytest.raises(KeyError, match='contain "."'):
        pd["a.b"] = ember.zeros(1)
    assert len(pd) == 0 and list(pd) == []  # unlike torch, rejected keys are not recorded
    with pytest.raises(
        TypeError,
        match="ParametersDict.update should be called with an "
        "iterable of key/value pairs, but got int",
    ):
        pd.update(3)
    with pytest.raises(TypeError, match="element #0 should be Iterable; is int"):
        pd.update([3])
    with pytest.raises(ValueError, match="element #0 has length 1; 2 is required"):
        pd.update(["a"])
    with pytest.raises(RuntimeError, match="ParameterDict should not be called."):
        pd(1)


def test_parameterdict_repr():
    pd = ParameterDict(
        {
            "w": ember.zeros(2, 3),
            "d": ember.zeros(4, dtype=ember.float64),
            "s": ember.tensor(1.0),
            "o": 3,
        }
    )
    assert repr(pd) == (
        "ParameterDict(\n"
        "    (d): Parameter containing: [torch.DoubleTensor of size 4]\n"
        "    (o): Object of type: int\n"
        "    (s): Parameter containing: [torch.FloatTensor of size ]\n"
        "    (w): Parameter containing: [torch.FloatTensor of size 2x3]\n"
        ")"
    )


def test_parameter_containers_load_state_dict():
    src = ParameterDict({"a": ember.ones(2), "b": ember.ones(1) * 3})
    dst = ParameterDict({"a": ember.zeros(2), "b": ember.zeros(1)})
    dst.load_state_dict(src.state_dict())
    assert dst["a"].tolist() == [1.0, 1.0] and dst["b"].tolist() == [3.0]
    pl = ParameterList([ember.zeros(2)])
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "1"'):
        pl.load_state_dict({"0": ember.ones(2), "1": ember.ones(1)})
    assert pl[0].tolist() == [0.0, 0.0]


# ---- Container (deprecated) -------------------------------------------------------------------
def test_container_is_deprecated():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = Container(a=Id())
    assert list(c._modules) == ["a"]


# ---- DataParallel -------------------------------------------------------------------------------
def test_data_parallel_forwards_without_accelerators():
    inner = Sequential(Affine(2, 2.0), Scaled(3))
    dp = DataParallel(inner, device_ids=[0, 1], output_device=0, dim=1)
    assert dp.module is inner and dp.device_ids == []
    assert dp(ember.ones(2)).tolist() == [6.0, 6.0]
    assert list(dp.state_dict()) == ["module.0.weight", "module.0.bias", "module.1.factor"]
    assert _names(dp) == ["module.0.weight", "module.0.bias"]
    assert repr(dp) == (
        "DataParallel(\n  (module): Sequential(\n    (0): Affine(n=2)\n    (1): Scaled()\n  )\n)"
    )


def test_data_parallel_passes_kwargs_and_is_generic():
    class Two(Module):
        def forward(self, x, *, y):
            return x + y

    assert DataParallel(Two())(1, y=2) == 3
    assert DataParallel[Two] is not None  # Generic, as in torch
    assert isinstance(ember.nn.parallel.DataParallel(Id()), Module)


def test_data_parallel_function_needs_an_accelerator():
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        data_parallel(Id(), ember.ones(1))


def test_replicate_for_data_parallel_does_not_warn():
    seq = Sequential(Affine(2), Scaled(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        replica = seq._replicate_for_data_parallel()
    assert replica._is_replica and replica._parameters == {}
    assert list(replica) == list(seq) and replica._modules is not seq._modules
    assert replica._buffers is not seq._buffers


# ---- parity with torch --------------------------------------------------------------------------
def _ns(lib, parallel):
    nn = lib.nn
    return types.SimpleNamespace(
        lib=lib,
        L=_leaves(lib),
        Sequential=nn.Sequential if lib is not ember else Sequential,
        ModuleList=nn.ModuleList if lib is not ember else ModuleList,
        ModuleDict=nn.ModuleDict if lib is not ember else ModuleDict,
        ParameterList=nn.ParameterList if lib is not ember else ParameterList,
        ParameterDict=nn.ParameterDict if lib is not ember else ParameterDict,
        DataParallel=parallel,
    )


def _seq(ns, n=4):
    return ns.Sequential(*[ns.L.Affine(i + 1) for i in range(n)])


def _del(container, idx):
    del container[idx]
    return container


def _iadd(a, b):
    a += b
    return a


def _imul(a, k):
    a *= k
    return a


def _ior(a, b):
    a |= b
    return a


def _update(d, other):
    d.update(other)
    return d


def _set(c, k, v):
    c[k] = v
    return c


def _popped(c, k):
    c.pop(k)
    return c


SCENARIOS = {
    "seq": lambda ns: ns.Sequential(ns.L.Affine(2), ns.L.Id(), ns.L.Scaled(2), ns.L.Gap()),
    "seq_empty": lambda ns: ns.Sequential(),
    "seq_named": lambda ns: ns.Sequential(
        OrderedDict([("enc", ns.L.Affine(3)), ("act", ns.L.Id()), ("dec", ns.L.Affine(3))])
    ),
    "seq_slice": lambda ns: _seq(ns)[1:3],
    "seq_slice_reversed": lambda ns: _seq(ns)[::-1],
    "seq_named_slice": lambda ns: ns.Sequential(
        OrderedDict([("a", ns.L.Affine(1)), ("b", ns.L.Affine(2))])
    )[1:],
    "seq_del": lambda ns: _del(_seq(ns), -2),
    "seq_del_slice": lambda ns: _del(_seq(ns, 6), slice(1, None, 2)),
    "seq_named_del": lambda ns: _del(
        ns.Sequential(
            OrderedDict([("a", ns.L.Affine(1)), ("b", ns.L.Affine(2)), ("c", ns.L.Id())])
        ),
        0,
    ),
    "seq_setitem": lambda ns: _set(_seq(ns), -1, ns.L.Scaled(5)),
    "seq_append": lambda ns: _seq(ns).append(ns.L.Affine(9)),
    "seq_insert_front": lambda ns: _seq(ns).insert(0, ns.L.Affine(9)),
    "seq_insert_negative": lambda ns: _seq(ns).insert(-1, ns.L.Affine(9)),
    "seq_insert_end": lambda ns: _seq(ns).insert(4, ns.L.Affine(9)),
    "seq_extend": lambda ns: _seq(ns, 2).extend(_seq(ns, 2)),
    "seq_pop": lambda ns: _popped(_seq(ns), 1),
    "seq_pop_slice": lambda ns: _popped(_seq(ns), slice(0, 2)),
    "seq_add": lambda ns: _seq(ns, 2) + _seq(ns, 3),
    "seq_iadd": lambda ns: _iadd(_seq(ns, 2), _seq(ns, 1)),
    "seq_mul": lambda ns: _seq(ns, 2) * 3,
    "seq_rmul": lambda ns: 2 * _seq(ns, 2),
    "seq_imul": lambda ns: _imul(_seq(ns, 2), 2),
    "ml": lambda ns: ns.ModuleList(
        [
            ns.L.Affine(2),
            ns.L.Affine(2),
            ns.L.Affine(2),
            ns.L.Id(),
            ns.L.Affine(2),
            ns.L.Affine(3),
            ns.L.Affine(3),
        ]
    ),
    "ml_empty": lambda ns: ns.ModuleList(),
    "ml_one": lambda ns: ns.ModuleList([ns.L.Id()]),
    "ml_nested": lambda ns: ns.ModuleList(
        [ns.Sequential(ns.L.Id(), ns.L.Affine(2)) for _ in range(3)]
        + [ns.ModuleList([ns.L.Gap(), ns.L.Gap()]), ns.L.Gap()]
    ),
    "ml_shared": lambda ns: (lambda a: ns.ModuleList([a, ns.L.Id(), a]))(ns.L.Affine(2)),
    "ml_slice": lambda ns: ns.ModuleList(list(_seq(ns, 5)))[::2],
    "ml_del": lambda ns: _del(ns.ModuleList(list(_seq(ns, 5))), slice(1, 3)),
    "ml_setitem": lambda ns: _set(ns.ModuleList(list(_seq(ns, 3))), -3, ns.L.Id()),
    "ml_insert": lambda ns: (lambda m: m.insert(1, ns.L.Id()) or m)(
        ns.ModuleList(list(_seq(ns, 3)))
    ),
    "ml_insert_end": lambda ns: (lambda m: m.insert(3, ns.L.Id()) or m)(
        ns.ModuleList(list(_seq(ns, 3)))
    ),
    "ml_insert_front": lambda ns: (lambda m: m.insert(0, ns.L.Id()) or m)(
        ns.ModuleList(list(_seq(ns, 3)))
    ),
    "ml_append_extend": lambda ns: (
        ns.ModuleList([ns.L.Id()]).append(ns.L.Affine(1)).extend([ns.L.Affine(1), ns.L.Affine(2)])
    ),
    "ml_pop": lambda ns: _popped(ns.ModuleList(list(_seq(ns, 3))), 0),
    "ml_add": lambda ns: ns.ModuleList([ns.L.Id()]) + [ns.L.Affine(2), ns.L.Affine(2)],
    "md": lambda ns: ns.ModuleDict({"z": ns.L.Affine(2), "a": ns.L.Id(), "m": ns.L.Gap()}),
    "md_pairs": lambda ns: ns.ModuleDict([("z", ns.L.Affine(2)), ["a", ns.L.Scaled(1)]]),
    "md_update": lambda ns: _update(
        ns.ModuleDict({"z": ns.L.Affine(2), "a": ns.L.Id()}),
        OrderedDict([("q", ns.L.Affine(1)), ("z", ns.L.Id())]),
    ),
    "md_pop": lambda ns: _popped(ns.ModuleDict({"z": ns.L.Affine(2), "a": ns.L.Id()}), "z"),
    "pl": lambda ns: ns.ParameterList(
        [
            ns.lib.zeros(2, 3),
            ns.lib.zeros(4, dtype=ns.lib.float64),
            ns.lib.tensor(1.0),
            None,
            "s",
            3,
            ns.L.Affine(2),
        ]
    ),
    "pl_empty": lambda ns: ns.ParameterList(),
    "pl_slice": lambda ns: ns.ParameterList([ns.lib.zeros(i + 1) for i in range(5)])[1::2],
    "pl_setitem": lambda ns: _set(ns.ParameterList([ns.lib.zeros(1), 4]), 1, ns.lib.zeros(2)),
    "pl_extend": lambda ns: _iadd(
        ns.ParameterList([ns.lib.zeros(1)]).append(ns.lib.ones(2)).extend([ns.lib.ones(3)]),
        (ns.lib.ones(4),),
    ),
    "pd_dict_sorted": lambda ns: ns.ParameterDict(
        {
            "w": ns.lib.zeros(2, 3),
            "d": ns.lib.zeros(4, dtype=ns.lib.float64),
            "s": ns.lib.tensor(1.0),
            "o": 3,
            "n": None,
            "m": ns.L.Affine(2),
        }
    ),
    "pd_ordered": lambda ns: ns.ParameterDict(
        OrderedDict([("w", ns.lib.zeros(2)), ("b", ns.lib.zeros(1)), ("a", ns.lib.zeros(3))])
    ),
    "pd_pairs": lambda ns: ns.ParameterDict(
        [("w", ns.lib.zeros(2)), ("b", ns.lib.zeros(1)), ("a", ns.lib.zeros(3))]
    ),
    "pd_from_pd": lambda ns: ns.ParameterDict(
        ns.ParameterDict(OrderedDict([("w", ns.lib.zeros(2)), ("b", ns.lib.zeros(1))]))
    ),
    "pd_update_dict": lambda ns: _update(
        ns.ParameterDict(OrderedDict([("z", ns.lib.zeros(1))])),
        {"y": ns.lib.zeros(2), "a": ns.lib.zeros(3)},
    ),
    "pd_update_pairs": lambda ns: _update(
        ns.ParameterDict(OrderedDict([("z", ns.lib.zeros(1))])),
        [("y", ns.lib.zeros(2)), ("a", ns.lib.zeros(3))],
    ),
    "pd_or": lambda ns: (
        ns.ParameterDict({"b": ns.lib.zeros(1)}) | ns.ParameterDict({"a": ns.lib.zeros(2)})
    ),
    "pd_ior": lambda ns: _ior(
        ns.ParameterDict({"b": ns.lib.zeros(1)}), {"z": ns.lib.zeros(2), "c": ns.lib.zeros(1)}
    ),
    "pd_replace": lambda ns: _set(
        ns.ParameterDict({"b": ns.lib.zeros(1), "a": 3}), "a", ns.lib.zeros(2)
    ),
    "pd_popitem": lambda ns: (lambda d: d.popitem() and d)(
        ns.ParameterDict({"b": ns.lib.zeros(1), "a": ns.lib.zeros(2), "c": ns.lib.zeros(3)})
    ),
    "pd_fromkeys": lambda ns: ns.ParameterDict().fromkeys("zya", ns.lib.zeros(1)),
    "dp": lambda ns: ns.DataParallel(ns.Sequential(ns.L.Affine(2), ns.L.Scaled(2))),
    "tree": lambda ns: ns.Sequential(
        OrderedDict(
            [
                (
                    "blocks",
                    ns.ModuleList([ns.Sequential(ns.L.Affine(2), ns.L.Id()) for _ in range(2)]),
                ),
                ("heads", ns.ModuleDict({"b": ns.L.Affine(2), "a": ns.L.Affine(2)})),
                ("extra", ns.ParameterList([ns.lib.zeros(2)])),
                ("table", ns.ParameterDict({"y": ns.lib.zeros(1), "x": ns.lib.zeros(1)})),
            ]
        )
    ),
}


@pytest.fixture(scope="module")
def torch_ns():
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")
    return _ns(torch, torch.nn.DataParallel)


def _describe(module):
    return dict(
        repr=repr(module),
        params=[(n, tuple(p.shape)) for n, p in module.named_parameters()],
        params_all=[n for n, _ in module.named_parameters(remove_duplicate=False)],
        state=list(module.state_dict()),
        modules=[(n, type(m).__name__) for n, m in module.named_modules()],
        children=[n for n, _ in module.named_children()],
        length=len(module) if hasattr(type(module), "__len__") else None,
        keys=list(module) if hasattr(type(module), "keys") else None,
    )


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_parity_with_torch(name, torch_ns):
    build = SCENARIOS[name]
    with warnings.catch_warnings():
        # torch's own internals may warn (e.g. about devices); only ember is under test here
        warnings.simplefilter("ignore")
        expected = _describe(build(torch_ns))
    got = _describe(build(_ns(ember, DataParallel)))
    for key in expected:
        assert got[key] == expected[key], f"{name}: {key} differs\n{got[key]}\n!=\n{expected[key]}"


@pytest.mark.parametrize(
    "name, width", [("seq_named", 3), ("seq_mul", 2), ("seq_rmul", 2), ("seq_iadd", 2), ("dp", 2)]
)
def test_forward_parity_with_torch(name, width, torch_ns):
    torch = torch_ns.lib
    torch.manual_seed(0)
    t_net = SCENARIOS[name](torch_ns)
    with torch.no_grad():
        for p in t_net.parameters():
            p.uniform_(-1, 1)
    e_net = SCENARIOS[name](_ns(ember, DataParallel))
    # copy weights through state_dict (which also proves the keys match)
    e_net.load_state_dict({k: ember.tensor(v.tolist()) for k, v in t_net.state_dict().items()})
    xs = [[0.5, -1.0, 2.0][:width], [1.5, 0.25, -3.0][:width]]
    t_out = t_net(torch.tensor(xs))
    e_out = e_net(ember.tensor(xs))
    assert e_out.flatten().tolist() == pytest.approx(t_out.flatten().tolist())
    t_out.sum().backward()
    e_out.sum().backward()
    for (tn, tp), (en, ep) in zip(t_net.named_parameters(), e_net.named_parameters(), strict=True):
        assert tn == en
        assert ep.grad.tolist() == pytest.approx(tp.grad.tolist())


def test_parity_with_torch_linear_layers(torch_ns):
    linear = pytest.importorskip(
        "ember.nn.modules.linear", reason="ember.nn.modules.linear is not available"
    )
    torch = torch_ns.lib

    def build(nn_linear, nn_identity, ns):
        return ns.Sequential(
            OrderedDict(
                [
                    ("stem", nn_linear(4, 8)),
                    (
                        "blocks",
                        ns.ModuleList(
                            [nn_linear(8, 8) for _ in range(3)]
                            + [nn_identity(), nn_linear(8, 2, bias=False)]
                        ),
                    ),
                ]
            )
        )

    t_net = build(torch.nn.Linear, torch.nn.Identity, torch_ns)
    e_net = build(linear.Linear, linear.Identity, _ns(ember, DataParallel))
    assert repr(e_net) == repr(t_net)
    assert "(0-2): 3 x Linear(in_features=8, out_features=8, bias=True)" in repr(e_net)
    assert list(e_net.state_dict()) == list(t_net.state_dict())
    e_net.load_state_dict({k: ember.tensor(v.tolist()) for k, v in t_net.state_dict().items()})
    x = [[0.5, -1.0, 2.0, 0.25]]
    t_out, e_out = t_net.stem(torch.tensor(x)), e_net.stem(ember.tensor(x))
    for t_layer, e_layer in zip(t_net.blocks, e_net.blocks, strict=True):
        t_out, e_out = t_layer(t_out), e_layer(e_out)
    assert e_out.flatten().tolist() == pytest.approx(t_out.flatten().tolist(), rel=1e-5)
