"""Gaps found auditing issue 3 (the Module system) against torch 2.13: the load_state_dict
transaction under every kind of failure, what load post-hooks see, ``Module.to``'s refusal of
``copy``, names reached the ``import ember as torch`` way, forward-hook and state_dict-hook
order, conversions, errors before ``super().__init__()``, the remaining registration
diagnostics and a 10-billion-parameter meta model built both ways."""

from __future__ import annotations

import copy
import inspect
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.modules import module as module_mod

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def both(fn):
    """fn(lib) for torch and for ember."""
    return fn(torch), fn(ember)


def spelled_as_torch(value):
    """``repr`` of ``value`` with ember's names spelled as torch's (same names otherwise)."""
    return repr(value).replace("ember.", "torch.")


# ---- the load transaction: every kind of failure leaves the module as it was -----------------
class WithExtra(nn.Module):
    """Extra state that refuses negative values, after it has started to change (a setter
    that fails midway)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(ember.ones(2))
        self.config = {"k": 0}

    def get_extra_state(self):
        return self.config

    def set_extra_state(self, state):
        if state["k"] < 0:
            raise ValueError("negative k")
        self.config.update(state)


class DirectLoader(nn.Module):
    """A loader ported from PyTorch that writes into its own tensors itself, not through
    ``super()``: it converts ``old_scale`` in place and replaces ``steps``."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(ember.ones(2))
        self.register_buffer("steps", ember.zeros(1))

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        old = prefix + "old_scale"
        if old in state_dict:
            with ember.no_grad():
                self.scale.copy_(state_dict.pop(old))
            self.steps = ember.full((1,), 7.0)
        if prefix + "boom" in state_dict:
            raise ValueError("custom loader failed midway")
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class RaisesAfterSuper(nn.Linear):
    """Loads its entries through ``super()`` (queued), then fails."""

    def _load_from_state_dict(self, state_dict, prefix, *args):
        super()._load_from_state_dict(state_dict, prefix, *args)
        if prefix + "boom" in state_dict:
            raise ValueError("failed after super()")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(2, 2)
        self.extra = WithExtra()
        self.direct = DirectLoader()
        self.after = RaisesAfterSuper(2, 2)
        self.extra2 = WithExtra()
        self.last = nn.Linear(2, 3)


def snapshot(m):
    """Every value of the module's state and every tensor object, to compare after a load."""
    values = {
        k: (v.detach().numpy().tolist() if isinstance(v, ember.Tensor) else copy.deepcopy(v))
        for k, v in m.state_dict().items()
    }
    objects = [(n, id(t)) for n, t in m.named_parameters()]
    objects += [(n, id(t)) for n, t in m.named_buffers()]
    return values, objects


def full_state(k=9):
    """A clean state_dict for Net with every value changed."""
    sd = OrderedDict()
    for key, v in Net().state_dict().items():
        sd[key] = v + 5 if isinstance(v, ember.Tensor) else {"k": k}
    return sd


def raising_pre_hook(module, *args):
    raise ValueError("pre-hook failed")


FAILURES = {
    # name: (edit the state dict / module, expected exception, message)
    "size mismatch": (
        lambda sd, net: sd.update({"last.bias": ember.ones(5)}),
        RuntimeError,
        "size mismatch for last.bias",
    ),
    "load pre-hook raises": (
        lambda sd, net: net.last.register_load_state_dict_pre_hook(raising_pre_hook),
        ValueError,
        "pre-hook failed",
    ),
    "custom loader raises after super()": (
        lambda sd, net: sd.update({"after.boom": 1}),
        ValueError,
        "failed after super",
    ),
    "custom loader raises after writing itself": (
        lambda sd, net: sd.update({"direct.old_scale": ember.full((2,), 3.0), "direct.boom": 1}),
        ValueError,
        "failed midway",
    ),
    "direct writes, then a later size mismatch": (
        lambda sd, net: sd.update(
            {"direct.old_scale": ember.full((2,), 3.0), "last.weight": ember.ones(2, 2)}
        ),
        RuntimeError,
        "size mismatch for last.weight",
    ),
    "set_extra_state raises (last)": (
        lambda sd, net: sd.update({"extra2._extra_state": {"k": -1}}),
        ValueError,
        "negative k",
    ),
    "set_extra_state raises (before another)": (
        lambda sd, net: sd.update({"extra._extra_state": {"k": -1}}),
        ValueError,
        "negative k",
    ),
    "load post-hook raises": (
        lambda sd, net: net.first.register_load_state_dict_post_hook(raising_pre_hook),
        ValueError,
        "pre-hook failed",
    ),
}


@pytest.mark.parametrize("assign", [False, True])
@pytest.mark.parametrize("kind", list(FAILURES))
def test_a_failed_load_leaves_the_module_as_it_was(kind, assign):
    edit, exc, match = FAILURES[kind]
    net = Net()
    sd = full_state()
    edit(sd, net)
    before = snapshot(net)
    with pytest.raises(exc, match=match):
        net.load_state_dict(sd, strict=False, assign=assign)
    assert snapshot(net) == before
    assert net.extra.config == {"k": 0} and net.extra2.config == {"k": 0}


@pytest.mark.parametrize("with_post_hook", [False, True])
def test_failed_set_extra_state_undoes_the_writes_before_it(with_post_hook):
    # The writes before the failing set_extra_state (parameters, and the first module's extra
    # state) are done by then: they must be undone, with or without post hooks.
    net = Net()
    if with_post_hook:
        net.register_load_state_dict_post_hook(lambda m, inc: None)
    sd = full_state()
    sd["extra2._extra_state"] = {"k": -1}
    before = snapshot(net)
    with pytest.raises(ValueError, match="negative k"):
        net.load_state_dict(sd)
    assert snapshot(net) == before
    assert net.first.weight.tolist() == before[0]["first.weight"]
    assert net.extra.config == {"k": 0}


def test_direct_writes_of_a_custom_loader_stay_when_the_load_succeeds():
    net = Net()
    scale, steps = net.direct.scale, net.direct.steps
    sd = full_state()
    del sd["direct.scale"]
    sd["direct.old_scale"] = ember.full((2,), 3.0)
    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["direct.scale"] and result.unexpected_keys == []
    assert net.direct.scale is scale and net.direct.scale.tolist() == [3.0, 3.0]
    # replaced by the loader, then given the file's value by super()
    assert net.direct.steps is not steps and net.direct.steps.tolist() == [5.0]
    assert net.extra2.config == {"k": 9} and net.last.bias.tolist() == sd["last.bias"].tolist()


def test_successful_load_with_extra_state_writes_everything():
    net = Net()
    sd = full_state(k=4)
    assert repr(net.load_state_dict(sd)) == "<All keys matched successfully>"
    assert net.extra.config == {"k": 4} and net.extra2.config == {"k": 4}
    assert net.first.weight.tolist() == sd["first.weight"].tolist()


# ---- what load post-hooks see ----------------------------------------------------------------
def post_hook_run(lib, clear_in):
    """Post hooks on every module of a tree record the incompatible keys they see; the one in
    ``clear_in`` clears them. Returns the records and the outcome."""
    nn_ = lib.nn

    class Tree(nn_.Module):
        def __init__(self):
            super().__init__()
            self.a = nn_.Linear(1, 1)
            self.b = nn_.Linear(1, 1)
            self.c = nn_.Sequential(nn_.Linear(1, 1))

    net = Tree()
    seen = []
    for name, mod in net.named_modules():

        def hook(m, incompatible, name=name):
            seen.append((name, list(incompatible.missing_keys), list(incompatible.unexpected_keys)))
            if name == clear_in:
                incompatible.missing_keys.clear()
                incompatible.unexpected_keys.clear()

        mod.register_load_state_dict_post_hook(hook)
    sd = net.state_dict()
    del sd["a.bias"], sd["c.0.weight"]
    sd["junk"] = lib.ones(1)
    sd["b.junk"] = lib.ones(1)
    try:
        outcome = repr(net.load_state_dict(sd, strict=clear_in is not None))
    except RuntimeError as e:
        outcome = str(e)
    return seen, outcome


def test_a_post_hook_sees_only_the_keys_gathered_so_far():
    seen, _ = post_hook_run(ember, None)
    assert seen == [
        ("a", ["a.bias"], ["junk"]),
        ("b", ["a.bias"], ["junk", "b.junk"]),
        ("c.0", ["a.bias", "c.0.weight"], ["junk", "b.junk"]),
        ("c", ["a.bias", "c.0.weight"], ["junk", "b.junk"]),
        ("", ["a.bias", "c.0.weight"], ["junk", "b.junk"]),
    ]


def test_a_child_post_hook_cannot_forgive_a_later_sibling():
    net_seen, outcome = post_hook_run(ember, "a")
    assert net_seen[1] == ("b", [], ["b.junk"])
    assert outcome.startswith("Error(s) in loading state_dict for Tree:")
    assert '"c.0.weight"' in outcome and '"b.junk"' in outcome and '"junk"' not in outcome


@needs_torch
@pytest.mark.parametrize("clear_in", [None, "a", "c", ""])
def test_post_hook_view_and_outcome_match_torch(clear_in):
    t, e = both(lambda lib: post_hook_run(lib, clear_in))
    assert e == t


# ---- Module.to refuses copy, as torch ----------------------------------------------------------
TO_CALLS = [
    ("copy=True", lambda lib, m: m.to(lib.float64, copy=True)),
    ("copy=False", lambda lib, m: m.to(lib.float64, copy=False)),
    ("device and copy", lambda lib, m: m.to("cpu", copy=True)),
    ("positional copy", lambda lib, m: m.to(lib.float64, False, True)),
    (
        "positional copy after device and dtype",
        lambda lib, m: m.to("cpu", lib.float64, False, False),
    ),
    ("positional non_blocking only", lambda lib, m: m.to("cpu", lib.float64, True)),
    ("non_blocking keyword", lambda lib, m: m.to(lib.float64, non_blocking=True)),
]


def to_outcome(lib, call):
    m = lib.nn.Linear(2, 2)
    try:
        out = call(lib, m)
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e)
    return out is m, str(m.weight.dtype).replace("ember.", "torch.")


@pytest.mark.parametrize("name,call", TO_CALLS, ids=[c[0] for c in TO_CALLS])
def test_module_to_refuses_copy(name, call):
    out = to_outcome(ember, call)
    if "copy" in name:
        assert out == ("RuntimeError", ".to() does not accept copy argument")
    else:
        assert out == (True, "torch.float64")


@needs_torch
@pytest.mark.parametrize("name,call", TO_CALLS, ids=[c[0] for c in TO_CALLS])
def test_module_to_arguments_match_torch(name, call):
    t, e = both(lambda lib: to_outcome(lib, call))
    assert e == t


# ---- `import ember as torch`: the same dotted names reach the same objects --------------------
PATHS = [
    "nn.Module",
    "nn.modules.Module",
    "nn.modules.module.Module",
    "nn.modules.module.register_module_forward_pre_hook",
    "nn.modules.module.register_module_forward_hook",
    "nn.modules.module.register_module_full_backward_pre_hook",
    "nn.modules.module.register_module_full_backward_hook",
    "nn.modules.module.register_module_backward_hook",
    "nn.modules.module.register_module_buffer_registration_hook",
    "nn.modules.module.register_module_module_registration_hook",
    "nn.modules.module.register_module_parameter_registration_hook",
    "nn.modules.module._IncompatibleKeys",
    "nn.modules.module._addindent",
    "nn.Parameter",
    "nn.parameter.Parameter",
    "nn.Buffer",
    "nn.parameter.Buffer",
    "nn.UninitializedParameter",
    "nn.parameter.UninitializedParameter",
    "nn.UninitializedBuffer",
    "nn.parameter.UninitializedBuffer",
    "nn.parameter.is_lazy",
    "nn.modules.lazy.LazyModuleMixin",
    "nn.LazyLinear",
    "nn.modules.LazyLinear",
    "nn.modules.linear.LazyLinear",
    "nn.Linear",
    "nn.modules.linear.Linear",
    "nn.Identity",
    "nn.modules.linear.Identity",
    "nn.Sequential",
    "nn.modules.container.Sequential",
    "nn.ModuleList",
    "nn.modules.container.ModuleList",
    "nn.ModuleDict",
    "nn.modules.container.ModuleDict",
    "nn.ParameterList",
    "nn.modules.container.ParameterList",
    "nn.ParameterDict",
    "nn.modules.container.ParameterDict",
    "nn.DataParallel",
    "nn.parallel.DataParallel",
    "nn.parallel.data_parallel",
    "nn.utils.stateless.functional_call",
    "func.functional_call",
]


def resolve(lib, path):
    obj = lib
    for attr in path.split("."):
        obj = getattr(obj, attr)
    return obj


@pytest.mark.parametrize("path", PATHS)
def test_dotted_name_resolves_in_ember(path):
    assert resolve(ember, path) is not None


def test_aliases_are_the_same_objects():
    t = ember  # as after `import ember as torch`
    assert t.nn.modules.module.Module is t.nn.Module is t.nn.modules.Module
    assert t.nn.parameter.UninitializedParameter is t.nn.UninitializedParameter
    assert t.nn.modules.LazyLinear is t.nn.LazyLinear is t.nn.modules.linear.LazyLinear
    assert t.nn.parallel.DataParallel is t.nn.DataParallel
    assert t.nn.modules.module.register_module_forward_hook is (
        module_mod.register_module_forward_hook
    )


@needs_torch
def test_module_file_exports_what_torch_exports_with_the_same_signatures():
    def params(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    for name in torch.nn.modules.module.__all__:
        ours = getattr(ember.nn.modules.module, name)
        assert name in ember.nn.modules.module.__all__
        if name != "Module":
            assert params(ours) == params(getattr(torch.nn.modules.module, name)), name


@pytest.fixture
def reset_global_backward_kind():
    yield
    module_mod._global_is_full_backward_hook = None


def test_global_hooks_registered_by_dotted_name_fire(reset_global_backward_kind):
    t = ember  # as after `import ember as torch`
    mm = t.nn.modules.module
    lin = t.nn.Linear(2, 1, dtype=t.float64)
    events = []
    handles = [
        mm.register_module_forward_pre_hook(lambda m, a: events.append("pre")),
        mm.register_module_forward_hook(lambda m, a, o: events.append("fwd")),
        mm.register_module_full_backward_pre_hook(lambda m, go: events.append("bw_pre")),
        mm.register_module_full_backward_hook(lambda m, gi, go: events.append("bw")),
    ]
    try:
        lin(t.ones(1, 2, dtype=t.float64, requires_grad=True)).sum().backward()
    finally:
        for h in handles:
            h.remove()
    assert events == ["pre", "fwd", "bw_pre", "bw"]
    events.clear()
    lin(t.ones(1, 2, dtype=t.float64, requires_grad=True)).sum().backward()
    assert events == []  # removed through the handles


def test_registration_hooks_by_dotted_name_fire():
    mm = ember.nn.modules.module
    seen = []
    handles = [
        mm.register_module_parameter_registration_hook(lambda m, n, p: seen.append(("p", n))),
        mm.register_module_buffer_registration_hook(lambda m, n, b: seen.append(("b", n))),
        mm.register_module_module_registration_hook(lambda m, n, s: seen.append(("m", n))),
    ]
    try:
        m = ember.nn.Module()
        m.w = ember.nn.Parameter(ember.ones(1))
        m.register_buffer("s", ember.zeros(1))
        m.child = ember.nn.Identity()
    finally:
        for h in handles:
            h.remove()
    assert seen == [("p", "w"), ("b", "s"), ("m", "child")]


# ---- hook order with prepend, with_kwargs and always_call -------------------------------------
def forward_hook_run(lib):
    events = []

    class K(lib.nn.Module):
        def forward(self, x, y=1):
            events.append(("forward", x, y))
            if y < 0:
                raise ValueError("negative")
            return x + y

    m = K()
    handles = [
        m.register_forward_pre_hook(lambda mod, a: events.append(("pre", a))),
        m.register_forward_pre_hook(
            lambda mod, a, kw: (
                events.append(("pre_kw", a, dict(kw))),
                ((a[0] + 10,), {**kw, "y": kw.get("y", 1) * 2}),
            )[1],
            with_kwargs=True,
            prepend=True,
        ),
        m.register_forward_pre_hook(lambda mod, a: a[0] * 3),  # not a tuple: wrapped
        m.register_forward_hook(lambda mod, a, o: (events.append(("fwd", a, o)), o + 100)[1]),
        m.register_forward_hook(
            lambda mod, a, kw, o: events.append(("fwd_kw", a, dict(kw), o)),
            with_kwargs=True,
            prepend=True,
        ),
        m.register_forward_hook(
            lambda mod, a, o: events.append(("always", a, o)), always_call=True
        ),
        m.register_forward_hook(
            lambda mod, a, kw, o: events.append(("always_kw", a, dict(kw), o)),
            always_call=True,
            with_kwargs=True,
            prepend=True,
        ),
    ]
    events.append(("result", m(1, y=2)))
    try:
        m(1, y=-1)
    except ValueError as e:
        events.append(("raised", str(e)))
    handles[1].remove()
    handles[4].remove()
    events.append(("after remove", m(1, y=2)))
    events.append(("direct forward skips hooks", m.forward(1)))
    return events


def test_forward_hook_order_with_prepend_kwargs_and_always_call():
    events = forward_hook_run(ember)
    assert events[:8] == [
        ("pre_kw", (1,), {"y": 2}),
        ("pre", (11,)),
        ("forward", 33, 4),
        ("always_kw", (33,), {"y": 4}, 37),
        ("fwd_kw", (33,), {"y": 4}, 37),
        ("fwd", (33,), 37),
        ("always", (33,), 137),
        ("result", 137),
    ]
    # forward raised: only the always_call hooks run, with output None
    assert events[8:14] == [
        ("pre_kw", (1,), {"y": -1}),
        ("pre", (11,)),
        ("forward", 33, -2),
        ("always_kw", (33,), {"y": -2}, None),
        ("always", (33,), None),
        ("raised", "negative"),
    ]


@needs_torch
def test_forward_hook_order_matches_torch():
    t, e = both(forward_hook_run)
    assert e == t


# ---- state_dict hooks --------------------------------------------------------------------------
def state_dict_hook_run(lib):
    nn_ = lib.nn
    events = []
    net = nn_.Sequential(nn_.Linear(1, 1), nn_.Sequential(nn_.Linear(1, 1)))
    for name, m in net.named_modules():
        m.register_state_dict_pre_hook(
            lambda mod, prefix, keep_vars, name=name: events.append(
                ("pre", name, prefix, keep_vars)
            )
        )
        m.register_state_dict_post_hook(
            lambda mod, sd, prefix, md, name=name: events.append(
                ("post", name, prefix, list(sd), dict(md))
            )
        )
    sd = net.state_dict(prefix="p.", keep_vars=True)
    events.append(list(sd._metadata.items()))
    events.append([type(v).__name__ for v in sd.values()])
    replaced = nn_.Linear(1, 1)
    replaced._register_state_dict_hook(lambda mod, sd, prefix, md: {"x": 1})
    events.append(replaced.state_dict())
    public = nn_.Linear(1, 1)

    def returns_a_dict(mod, sd, prefix, md):
        return {}

    public.register_state_dict_post_hook(returns_a_dict)
    for call in (public.state_dict, lambda: public._register_state_dict_hook(returns_a_dict)):
        try:
            call()
        except RuntimeError as e:
            events.append(str(e))
    return events


def test_state_dict_hooks_order_and_arguments():
    events = state_dict_hook_run(ember)
    assert [e[:3] for e in events[:8]] == [
        ("pre", "", "p."),
        ("pre", "0", "p.0."),
        ("post", "0", "p.0."),
        ("pre", "1", "p.1."),
        ("pre", "1.0", "p.1.0."),
        ("post", "1.0", "p.1.0."),
        ("post", "1", "p.1."),
        ("post", "", "p."),
    ]
    assert events[-2:] == [
        "state_dict post-hook must return None",
        "Cannot register the same function as the state dict post hook that was previously "
        "registered via register_state_dict_post_hook",
    ]


@needs_torch
def test_state_dict_hooks_match_torch():
    t, e = both(state_dict_hook_run)
    assert e == t


# ---- conversions -------------------------------------------------------------------------------
def conversion_run(lib):
    nn_ = lib.nn
    m = nn_.Linear(2, 3)
    m.register_buffer("i", lib.tensor([1, 2]))
    m.register_buffer("f", lib.tensor([1.0, 2.0]), persistent=False)
    w = m.weight
    m.weight.grad = lib.ones(3, 2)
    g = m.weight.grad
    steps = []

    def record(label):
        steps.append(
            (
                label,
                m.weight is w,
                m.weight.grad is g,
                str(m.weight.dtype),
                str(m.weight.grad.dtype),
                str(m.i.dtype),
                str(m.f.dtype),
            )
        )

    for label, convert in [
        ("double", lambda: m.double()),
        ("to(tensor)", lambda: m.to(lib.ones(1))),
        ("half", lambda: m.half()),
        ("float", lambda: m.float()),
        ("type", lambda: m.type(lib.float64)),
        ("to(device, dtype)", lambda: m.to("cpu", lib.float32)),
        ("to(dtype=)", lambda: m.to(dtype=lib.float64)),
        ("cpu", lambda: m.cpu()),
    ]:
        assert convert() is m
        record(label)
    return [tuple(str(x).replace("ember.", "torch.") for x in s) for s in steps]


def test_conversions_keep_objects_and_convert_grads_and_float_buffers():
    steps = conversion_run(ember)
    assert all(s[1] == s[2] == "True" for s in steps)
    assert steps[0][3:] == ("torch.float64", "torch.float64", "torch.int64", "torch.float64")
    assert steps[4][3:] == ("torch.float64", "torch.float64", "torch.float64", "torch.float64")


@needs_torch
def test_conversions_match_torch():
    t, e = both(conversion_run)
    assert e == t


# ---- assigning before super().__init__() -------------------------------------------------------
EARLY = [
    ("parameter", lambda lib: lib.nn.Parameter(lib.ones(1))),
    ("module", lambda lib: lib.nn.Identity()),
    ("buffer", lambda lib: lib.nn.Buffer(lib.ones(1))),
]


def early_errors(lib):
    out = []
    for _, make in EARLY:

        class Early(lib.nn.Module):
            def __init__(self, make=make):
                self.x = make(lib)
                super().__init__()

        out.append(early_message(Early))
    for call in (
        lambda self: self.register_buffer("x", lib.ones(1)),
        lambda self: self.register_parameter("x", None),
    ):

        class EarlyCall(lib.nn.Module):
            def __init__(self, call=call):
                call(self)

        out.append(early_message(EarlyCall))
    return out


def early_message(cls):
    try:
        cls()
    except AttributeError as e:
        return str(e)
    return None


def test_assigning_before_super_init_tells_to_call_init_first():
    assert early_errors(ember) == [
        "cannot assign parameters before Module.__init__() call",
        "cannot assign module before Module.__init__() call",
        "cannot assign buffer before Module.__init__() call",
        "cannot assign buffer before Module.__init__() call",
        "cannot assign parameter before Module.__init__() call",
    ]


@needs_torch
def test_assigning_before_super_init_matches_torch():
    t, e = both(early_errors)
    assert e == t


# ---- registration diagnostics: the remaining container kinds ---------------------------------
@pytest.mark.parametrize(
    "make,kind,fix",
    [
        (lambda: OrderedDict(a=nn.Identity()), "OrderedDict", "nn.ModuleDict"),
        (lambda: frozenset([nn.Identity()]), "frozenset", "nn.ModuleList"),
        (lambda: OrderedDict(w=nn.Parameter(ember.ones(1))), "OrderedDict", "nn.ParameterDict"),
        (lambda: (nn.Parameter(ember.ones(1)),), "tuple", "nn.ParameterList"),
    ],
)
def test_other_container_kinds_warn_and_register_nothing(make, kind, fix):
    m = nn.Module()
    value = make()
    with pytest.warns(nn.RegistrationWarning) as record:
        m.stuff = value
    msg = str(record[0].message)
    assert msg.startswith(f"Module.stuff is a plain {kind} holding")
    assert f"Use {fix} instead" in msg
    assert m.stuff is value and list(m.parameters()) == [] and list(m.children()) == []


def test_registration_switch_silences_and_restores():
    m = nn.Module()
    nn.set_registration_warnings(False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            m.a = [nn.Identity()]
            m.b = ember.ones(1, requires_grad=True)
    finally:
        nn.set_registration_warnings(True)
    with pytest.warns(nn.RegistrationWarning):
        m.c = [nn.Identity()]


# ---- meta: a 10-billion-parameter model (its build time is bench/'s `construct`) -----------
class Stack(nn.Module):
    def __init__(self, depth, width, **factory_kwargs):
        super().__init__()
        for i in range(depth):
            self.add_module(f"fc{i}", nn.Linear(width, width, **factory_kwargs))


@pytest.mark.parametrize("how", ["device=", "with ember.device"])
def test_ten_billion_parameter_meta_model_builds_either_way(how):
    if how == "device=":
        model = Stack(100, 10_000, device="meta")
    else:
        with ember.device("meta"):
            model = Stack(100, 10_000)
    assert sum(p.numel() for p in model.parameters()) == 100 * (10_000 * 10_000 + 10_000)
    assert all(p.is_meta for p in model.parameters())


def test_meta_model_gradients_are_meta_too():
    model = nn.Sequential(nn.Linear(4, 5, device="meta"), nn.Linear(5, 2, device="meta"))
    x = ember.empty(3, 4, device="meta", requires_grad=True)
    model(x).sum().backward()
    assert model[0].weight.grad.is_meta and model[0].weight.grad.shape == (5, 4)
    assert x.grad.is_meta and x.grad.shape == (3, 4)


def test_transaction_values_are_numpy_equal_after_success():
    # The undo machinery keeps copies only; a successful load must still share nothing with
    # the state dict it was given (copy semantics), as before.
    net = Net()
    sd = full_state()
    net.load_state_dict(sd)
    sd["first.weight"].add_(100)
    assert not np.array_equal(net.first.weight.detach().numpy(), sd["first.weight"].numpy())
