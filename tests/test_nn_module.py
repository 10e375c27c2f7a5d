"""Module core, part 1: Parameter, Buffer, registration (names, types, messages), the attribute
protocol (``__setattr__`` / ``__getattr__`` / ``__delattr__`` / ``__dir__``) and ember's
registration diagnostics. Traversal and conversion are in test_nn_module_traversal.py, hooks in
test_nn_hooks.py, state_dict in test_nn_state_dict.py."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn import Buffer, Parameter, RegistrationWarning
from ember.nn.modules import module as module_mod


class Plain(nn.Module):
    def forward(self, x):
        return x


@pytest.fixture
def no_diagnostics():
    nn.set_registration_warnings(False)
    try:
        yield
    finally:
        nn.set_registration_warnings(True)


# ---- Parameter ---------------------------------------------------------------------------------
def test_parameter_repr_matches_torch_layout():
    p = Parameter(ember.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    q = Parameter(ember.tensor([1, 2]), requires_grad=False)
    assert repr(q) == "Parameter containing:\ntensor([1, 2])"
    assert repr(Parameter()) == "Parameter containing:\ntensor([], requires_grad=True)"


def test_parameter_is_a_leaf_that_requires_grad_even_under_no_grad():
    with ember.no_grad():
        p = Parameter(ember.zeros(3))
    assert isinstance(p, ember.Tensor) and isinstance(p, Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None


def test_parameter_shares_memory_with_its_data():
    t = ember.tensor([1.0, 2.0])
    p = Parameter(t)
    p.data[0] = 5.0
    assert t.tolist() == [5.0, 2.0]
    t[1] = 7.0
    assert p.tolist() == [5.0, 7.0]


def test_parameter_of_a_non_leaf_is_a_leaf():
    x = ember.ones(2, requires_grad=True)
    p = Parameter(x * 2)
    assert p.is_leaf and p.requires_grad and p.tolist() == [2.0, 2.0]


def test_results_of_ops_on_parameters_are_plain_tensors():
    p = Parameter(ember.ones(2))
    for out in (p * 2, p.detach(), p.clone(), p + p):
        assert type(out) is ember.Tensor


@pytest.mark.parametrize("dtype", [ember.int64, ember.int32, ember.bool])
def test_integer_parameter_requiring_grad_raises(dtype):
    with pytest.raises(RuntimeError, match="floating point"):
        Parameter(ember.zeros(2, dtype=dtype))
    p = Parameter(ember.zeros(2, dtype=dtype), requires_grad=False)
    assert not p.requires_grad and p.dtype == dtype


def test_parameter_rejects_non_tensor_data():
    with pytest.raises(TypeError):
        Parameter([1.0, 2.0])


def test_parameter_pickles_as_parameter():
    p = Parameter(ember.tensor([1.0, -2.0]))
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is Parameter and q.requires_grad and q.tolist() == [1.0, -2.0]
    r = pickle.loads(pickle.dumps(Parameter(ember.ones(1), requires_grad=False)))
    assert type(r) is Parameter and not r.requires_grad


def test_parameter_shares_the_version_counter_and_pickles_its_attributes():
    t = ember.zeros(2)
    p = Parameter(t)
    t.add_(1)
    assert p._version == t._version == 1
    p.tag = "encoder"
    assert pickle.loads(pickle.dumps(p)).tag == "encoder"


def test_parameter_deepcopy_is_a_fresh_parameter_without_grad():
    p = Parameter(ember.tensor([1.0, 2.0]))
    p.grad = ember.ones(2)
    q = copy.deepcopy(p)
    assert type(q) is Parameter and q is not p and q.requires_grad
    assert q.tolist() == [1.0, 2.0] and q.grad is None  # NOTE: matches torch
    q.data[0] = 9.0
    assert p.tolist() == [1.0, 2.0]
    memo = {}
    assert copy.deepcopy(p, memo) is copy.deepcopy(p, memo)


# ---- Buffer ------------------------------------------------------------------------------------
def test_buffer_marks_a_detached_tensor():
    t = ember.zeros(2, requires_grad=True)
    b = Buffer(t)
    assert type(b) is ember.Tensor and isinstance(b, Buffer) and b.persistent
    assert b.is_leaf and b.requires_grad
    assert not isinstance(ember.zeros(1), Buffer)
    assert not Buffer(ember.zeros(1), persistent=False).persistent


def test_assigning_buffer_registers_it_with_its_persistence():
    m = Plain()
    m.a = Buffer(ember.zeros(1))
    m.b = Buffer(ember.ones(1), persistent=False)
    assert list(m._buffers) == ["a", "b"] and m._non_persistent_buffers_set == {"b"}
    assert list(m.state_dict()) == ["a"]
    m.b = ember.full((2,), 3.0)  # plain tensor into a buffer slot: stays non-persistent
    assert m.b.tolist() == [3.0, 3.0] and m._non_persistent_buffers_set == {"b"}
    m.b = Buffer(ember.zeros(1))  # a Buffer mark says persistent
    assert m._non_persistent_buffers_set == set() and list(m.state_dict()) == ["a", "b"]


def test_register_buffer_follows_its_persistent_argument():
    # NOTE: matches torch: an explicit register_buffer ignores a Buffer's own mark.
    m = Plain()
    m.register_buffer("a", Buffer(ember.zeros(1), persistent=False))
    assert list(m.state_dict()) == ["a"]
    m.register_buffer("a", ember.zeros(1), persistent=False)
    assert list(m.state_dict()) == []
    m.register_buffer("a", None)
    assert m.a is None and list(m.state_dict()) == [] and "a" in m._buffers


# ---- registration: names and types -------------------------------------------------------------
NAME_ERRORS = [
    ("register_buffer", "a.b", KeyError, 'buffer name can\'t contain "."'),
    ("register_buffer", "", KeyError, 'buffer name can\'t be empty string ""'),
    ("register_buffer", 1, TypeError, "buffer name should be a string. Got int"),
    ("register_parameter", "a.b", KeyError, 'parameter name can\'t contain "."'),
    ("register_parameter", "", KeyError, 'parameter name can\'t be empty string ""'),
    ("register_parameter", 1, TypeError, "parameter name should be a string. Got int"),
    ("add_module", "a.b", KeyError, 'module name can\'t contain ".", got: a.b'),
    ("add_module", "", KeyError, 'module name can\'t be empty string ""'),
    ("add_module", 1, TypeError, "module name should be a string. Got int"),
    ("register_module", "a.b", KeyError, 'module name can\'t contain ".", got: a.b'),
]


def _value_for(method):
    return {
        "register_buffer": ember.zeros(1),
        "register_parameter": None,
        "add_module": Plain(),
        "register_module": Plain(),
    }[method]


@pytest.mark.parametrize("method,name,exc,msg", NAME_ERRORS)
def test_registration_name_errors(method, name, exc, msg):
    m = Plain()
    with pytest.raises(exc) as info:
        getattr(m, method)(name, _value_for(method))
    assert info.value.args[0] == msg
    assert not m._parameters and not m._buffers and not m._modules


@pytest.mark.parametrize("method", ["register_buffer", "register_parameter", "add_module"])
@pytest.mark.parametrize("existing", ["plain", "method"])
def test_registration_clash_with_existing_attribute(method, existing):
    m = Plain()
    name = "train" if existing == "method" else "x"
    if existing == "plain":
        m.x = 3
    with pytest.raises(KeyError) as info:
        getattr(m, method)(name, _value_for(method))
    assert info.value.args[0] == f"attribute '{name}' already exists"


def test_registering_again_under_the_same_kind_is_allowed():
    m = Plain()
    m.register_buffer("b", ember.zeros(1))
    m.register_buffer("b", ember.ones(1))
    m.register_parameter("p", None)
    m.register_parameter("p", Parameter(ember.ones(1)))
    m.add_module("c", None)
    m.add_module("c", Plain())
    assert m.b.tolist() == [1.0] and isinstance(m.p, Parameter) and isinstance(m.c, Plain)


def test_registering_across_kinds_clashes():
    m = Plain()
    m.p = Parameter(ember.ones(1))
    with pytest.raises(KeyError, match="attribute 'p' already exists"):
        m.register_buffer("p", ember.zeros(1))
    with pytest.raises(KeyError, match="attribute 'p' already exists"):
        m.add_module("p", Plain())


def test_registration_value_type_errors():
    m = Plain()
    with pytest.raises(TypeError) as info:
        m.register_buffer("x", [1])
    assert info.value.args[0] == (
        "cannot assign 'list' object to buffer 'x' (torch Tensor or None required)"
    )
    with pytest.raises(TypeError) as info:
        m.register_parameter("x", ember.zeros(1))
    assert info.value.args[0] == (
        "cannot assign 'torch.FloatTensor' object to parameter 'x' "
        "(torch.nn.Parameter or None required)"
    )
    with pytest.raises(TypeError) as info:
        m.add_module("x", 3)
    assert info.value.args[0] == "int is not a Module subclass"


def test_register_parameter_rejects_non_leaf_parameter():
    p = Parameter(ember.ones(2))
    fake = p * 2
    fake.__class__ = Parameter  # a Parameter that carries history
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        Plain().register_parameter("w", fake)


def test_register_module_is_add_module():
    m = Plain()
    child = Plain()
    m.register_module("c", child)
    assert m.c is child and list(m._modules) == ["c"]


def test_add_module_none_keeps_an_empty_slot():
    m = Plain()
    m.add_module("c", None)
    assert m.c is None and list(m._modules) == ["c"] and list(m.children()) == []
    assert repr(m) == "Plain(\n  (c): None\n)"


@pytest.mark.parametrize(
    "body",
    [
        lambda self: setattr(self, "w", Parameter(ember.zeros(1))),
        lambda self: setattr(self, "c", Plain()),
        lambda self: setattr(self, "b", Buffer(ember.zeros(1))),
        lambda self: self.register_buffer("b", ember.zeros(1)),
        lambda self: self.register_parameter("w", None),
    ],
)
def test_assigning_before_super_init_raises(body):
    class Early(nn.Module):
        def __init__(self):
            body(self)
            super().__init__()

    with pytest.raises(AttributeError, match=r"before Module.__init__\(\) call"):
        Early()


def test_plain_attribute_before_super_init_is_fine():
    class Early(nn.Module):
        def __init__(self):
            self.size = 3
            super().__init__()

    assert Early().size == 3


def test_module_init_rejects_arguments_unless_call_super_init():
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        nn.Module(foo=1)
    with pytest.raises(TypeError, match="takes 1 positional argument but 3 were given"):
        nn.Module(1, 2)


def test_call_super_init_forwards_arguments_to_the_next_class():
    class Mixin:
        def __init__(self, *args, **kwargs):
            self.got = (args, kwargs)

    class M(nn.Module, Mixin):
        call_super_init = True

    m = M(1, k=2)
    assert m.got == ((1,), {"k": 2}) and m.training


def test_forward_missing_raises():
    with pytest.raises(
        NotImplementedError,
        match=r"Module \[Module\] is missing the required "
        r'"forward" function',
    ):
        nn.Module()(1)


# ---- attribute routing --------------------------------------------------------------------------
def test_setattr_routes_each_kind_to_its_dict():
    m = Plain()
    m.w = Parameter(ember.ones(1))
    m.c = Plain()
    m.b = Buffer(ember.zeros(1))
    m.n = 3
    assert list(m._parameters) == ["w"] and list(m._modules) == ["c"]
    assert list(m._buffers) == ["b"] and m.__dict__["n"] == 3
    for name in ("w", "c", "b"):
        assert name not in m.__dict__
    assert m.w is m._parameters["w"] and m.c is m._modules["c"] and m.b is m._buffers["b"]


def test_plain_tensor_cannot_replace_a_parameter():
    m = Plain()
    p = Parameter(ember.ones(1))
    m.w = p
    with pytest.raises(TypeError) as info:
        m.w = ember.zeros(1)
    assert info.value.args[0] == (
        "cannot assign 'torch.FloatTensor' as parameter 'w' (torch.nn.Parameter or None expected)"
    )
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'w'"):
        m.w = 3
    assert m.w is p


def test_none_keeps_the_parameter_slot():
    m = Plain()
    m.w = Parameter(ember.ones(1))
    m.w = None
    assert m.w is None and "w" in m._parameters
    assert list(m.parameters()) == [] and list(m.state_dict()) == []
    with pytest.raises(TypeError):
        m.w = ember.zeros(1)  # still a parameter slot
    m.w = Parameter(ember.zeros(2))
    assert m.w.shape == (2,)


def test_module_slot_rules():
    m = Plain()
    m.c = Plain()
    with pytest.raises(TypeError) as info:
        m.c = ember.zeros(1)
    assert info.value.args[0] == (
        "cannot assign 'torch.FloatTensor' as child module 'c' (torch.nn.Module or None expected)"
    )
    m.c = None
    assert m.c is None and list(m._modules) == ["c"]


def test_buffer_slot_rules():
    m = Plain()
    m.register_buffer("b", ember.zeros(1))
    with pytest.raises(TypeError) as info:
        m.b = 3
    assert info.value.args[0] == (
        "cannot assign 'int' as buffer 'b' (torch.nn.Buffer, torch.Tensor or None expected)"
    )
    m.b = ember.ones(2)
    assert m.b.tolist() == [1.0, 1.0] and "b" not in m.__dict__
    m.b = None
    assert m.b is None and "b" in m._buffers and list(m.state_dict()) == []


def test_reassigning_across_kinds_moves_the_name():
    m = Plain()
    m.register_buffer("x", ember.zeros(1), persistent=False)
    m.x = Plain()  # a Module replaces a buffer
    assert list(m._buffers) == [] and list(m._modules) == ["x"]
    assert m._non_persistent_buffers_set == set()
    m.x = Parameter(ember.ones(1))  # a Parameter replaces a Module
    assert list(m._parameters) == ["x"] and list(m._modules) == []
    with pytest.raises(TypeError) as info:  # NOTE: matches torch: not the other way round
        m.x = Plain()
    assert info.value.args[0] == (
        "cannot assign 'tests.test_nn_module.Plain' as parameter 'x' "
        "(torch.nn.Parameter or None expected)"
    )
    m.register_buffer("y", ember.zeros(1), persistent=False)
    m.y = Parameter(ember.zeros(1))  # Parameter replaces a buffer (and its persistence flag)
    assert "y" in m._parameters and "y" not in m._buffers
    assert m._non_persistent_buffers_set == set()
    m.z = 5
    m.z = Plain()  # a registered kind replaces a plain attribute
    assert "z" not in m.__dict__ and "z" in m._modules


def test_buffer_cannot_replace_a_parameter():
    m = Plain()
    m.w = Parameter(ember.ones(1))
    with pytest.raises(TypeError, match="as parameter 'w'"):
        m.w = Buffer(ember.zeros(1))


def test_getattr_missing_names_the_class():
    class Foo(nn.Module):
        pass

    with pytest.raises(AttributeError) as info:
        Foo().nope  # noqa: B018
    assert info.value.args[0] == "'Foo' object has no attribute 'nope'"


def test_property_raising_attribute_error_falls_through_to_getattr():
    # NOTE: matches torch: Python retries a failing property through __getattr__, so the
    # error names the property, not the attribute it was missing.
    class P(nn.Module):
        @property
        def broken(self):
            return self.missing_inner

    with pytest.raises(AttributeError) as info:
        P().broken  # noqa: B018
    assert info.value.args[0] == "'P' object has no attribute 'broken'"


def test_delattr_removes_from_the_right_dict():
    m = Plain()
    m.w = Parameter(ember.ones(1))
    m.register_buffer("b", ember.zeros(1), persistent=False)
    m.c = Plain()
    m.n = 1
    del m.w, m.b, m.c, m.n
    assert not m._parameters and not m._buffers and not m._modules
    assert m._non_persistent_buffers_set == set() and "n" not in m.__dict__
    with pytest.raises(AttributeError):
        del m.nope


def test_dir_lists_registered_names_methods_and_no_digits():
    m = Plain()
    m.w = Parameter(ember.ones(1))
    m.register_buffer("b", None)
    m.c = Plain()
    m.add_module("0", Plain())
    m.n = 1
    d = dir(m)
    for name in ("w", "b", "c", "n", "train", "forward", "state_dict", "_parameters"):
        assert name in d, name
    assert "0" not in d and d == sorted(d)


def test_registration_hooks_run_and_may_replace():
    seen = []
    handles = [
        module_mod.register_module_parameter_registration_hook(
            lambda m, n, p: seen.append(("param", n))
        ),
        module_mod.register_module_buffer_registration_hook(
            lambda m, n, b: None if b is None else b * 2
        ),
        module_mod.register_module_module_registration_hook(
            lambda m, n, s: seen.append(("module", n, s is None))
        ),
    ]
    try:
        m = Plain()
        m.register_parameter("a", Parameter(ember.ones(1)))
        m.b = Parameter(ember.ones(1))
        m.register_parameter("none", None)  # None skips the parameter hooks (as torch)
        m.register_buffer("x", ember.ones(1))
        m.y = Buffer(ember.ones(1))
        m.c = Plain()
        m.c = None
        m.add_module("d", Plain())
    finally:
        for h in handles:
            h.remove()
    assert seen == [
        ("param", "a"),
        ("param", "b"),
        ("module", "c", False),
        ("module", "c", True),
        ("module", "d", False),
    ]
    assert m.x.tolist() == [2.0] and m.y.tolist() == [2.0]
    m.z = Parameter(ember.ones(1))  # removed: no longer called
    assert len(seen) == 5


def test_module_registration_hook_replaces_submodule():
    other = Plain()
    h = module_mod.register_module_module_registration_hook(lambda m, n, s: other)
    try:
        m = Plain()
        m.c = Plain()
    finally:
        h.remove()
    assert m.c is other


# ---- registration diagnostics (ember only) -------------------------------------------------------
DIAGNOSED = [
    ("list of modules", lambda: [Plain(), Plain()], "list", "Modules", "nn.ModuleList"),
    ("tuple of modules", lambda: (Plain(),), "tuple", "Modules", "nn.ModuleList"),
    ("set of modules", lambda: {Plain()}, "set", "Modules", "nn.ModuleList"),
    ("dict of modules", lambda: {"a": Plain()}, "dict", "Modules", "nn.ModuleDict"),
    (
        "list of params",
        lambda: [Parameter(ember.ones(1))],
        "list",
        "Parameters",
        "nn.ParameterList",
    ),
    (
        "dict of params",
        lambda: {"w": Parameter(ember.ones(1))},
        "dict",
        "Parameters",
        "nn.ParameterDict",
    ),
    (
        "mixed list",
        lambda: [Plain(), Parameter(ember.ones(1)), 3],
        "list",
        "Modules and Parameters",
        "nn.ModuleList / nn.ParameterList",
    ),
]


@pytest.mark.parametrize("case,make,kind,what,fix", DIAGNOSED, ids=[d[0] for d in DIAGNOSED])
def test_containers_of_modules_or_parameters_warn(case, make, kind, what, fix):
    m = Plain()
    value = make()
    with pytest.warns(RegistrationWarning) as record:
        m.layers = value
    assert len(record) == 1
    msg = str(record[0].message)
    assert msg.startswith(f"Plain.layers is a plain {kind} holding {what};")
    assert f"Use {fix} instead" in msg and "set_registration_warnings(False)" in msg
    assert record[0].filename == __file__  # points at the assignment
    # Behaviour unchanged: a plain attribute, nothing registered.
    assert m.__dict__["layers"] is value
    assert not m._parameters and not m._modules and list(m.parameters()) == []


def test_requires_grad_leaf_tensor_warns():
    m = Plain()
    t = ember.zeros(2, requires_grad=True)
    with pytest.warns(RegistrationWarning) as record:
        m.w = t
    msg = str(record[0].message)
    assert msg.startswith("Plain.w is a tensor with requires_grad=True but not an nn.Parameter")
    assert "nn.Parameter(...)" in msg and "register_buffer('w', tensor)" in msg
    assert m.__dict__["w"] is t and list(m.parameters()) == [] and list(m.buffers()) == []


def test_registration_warning_is_a_user_warning():
    assert issubclass(RegistrationWarning, UserWarning)
    assert nn.RegistrationWarning is module_mod.RegistrationWarning


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(lambda: ember.ones(2, requires_grad=True) * 2, id="non-leaf activation"),
        pytest.param(lambda: ember.zeros(2), id="tensor without grad"),
        pytest.param(lambda: [1, 2, 3], id="list of ints"),
        pytest.param(lambda: [ember.zeros(1)], id="list of tensors"),
        pytest.param(lambda: {"a": 1}, id="dict of ints"),
        pytest.param(lambda: [], id="empty list"),
        pytest.param(lambda: "text", id="str"),
        pytest.param(lambda: Parameter(ember.ones(1)), id="Parameter"),
        pytest.param(lambda: Buffer(ember.ones(1, requires_grad=True)), id="Buffer"),
        pytest.param(lambda: Plain(), id="Module"),
    ],
)
def test_things_that_do_not_warn(value):
    m = Plain()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.x = value()


def test_tensor_into_existing_buffer_slot_does_not_warn():
    m = Plain()
    m.register_buffer("b", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.b = ember.zeros(2, requires_grad=True)
    assert "b" in m._buffers


def test_set_registration_warnings_false_silences(no_diagnostics):
    m = Plain()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.layers = [Plain()]
        m.w = ember.ones(1, requires_grad=True)
    assert list(m.parameters()) == [] and not m._modules


def test_registration_warnings_can_be_filtered_by_category():
    m = Plain()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=RegistrationWarning)
        m.layers = [Plain()]


def test_fixture_restores_the_switch():
    # Runs after the test above in file order; the switch is on again.
    assert module_mod._registration_warnings is True


def test_diagnostic_in_a_user_init_points_to_the_user_line():
    class Bad(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [Plain(), Plain()]

    with pytest.warns(
        RegistrationWarning,
        match=r"Bad\.blocks is a plain list holding "
        r"Modules",
    ) as record:
        bad = Bad()
    assert record[0].filename == __file__
    assert list(bad.named_modules()) == [("", bad)]  # the silent PyTorch behaviour, kept


def test_diagnostics_do_not_run_for_names_registered_otherwise():
    m = Plain()
    m.w = Parameter(ember.ones(1))
    with pytest.raises(TypeError):
        m.w = ember.ones(1, requires_grad=True)  # the parameter-slot rule wins, no warning


def test_parameter_values_survive_diagnostics_unchanged():
    m = Plain()
    with pytest.warns(RegistrationWarning):
        m.d = {"w": Parameter(ember.tensor([1.5]))}
    np.testing.assert_array_equal(m.d["w"].detach().numpy(), [1.5])


def test_accelerators_raise_what_their_tensor_methods_raise():
    m = nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="Torch not compiled with XPU enabled"):
        m.xpu()
    for method in ("ipu", "mtia"):
        with pytest.raises(NotImplementedError, match="ember is CPU-only"):
            getattr(m, method)()


def test_compile_is_a_no_op_that_keeps_the_module():
    m = nn.Linear(2, 2)
    before = {k: v.clone() for k, v in m.state_dict().items()}
    assert m.compile(mode="max-autotune") is None
    assert type(m) is nn.Linear and list(m.state_dict()) == list(before)
    x = ember.ones(1, 2)
    assert ember.equal(m(x), nn.functional.linear(x, before["weight"], before["bias"]))


def test_to_a_complex_dtype_warns_and_casts_floating_and_complex_tensors():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    with pytest.warns(UserWarning, match="Complex modules are a new feature"):
        m.to(ember.cfloat)
    dtypes = {k: v.dtype for k, v in m.state_dict().items()}
    assert dtypes["0.weight"] == dtypes["1.running_var"] == ember.complex64
    assert dtypes["1.num_batches_tracked"] == ember.int64
    m.double()  # NOTE: matches torch: float()/double()/half() leave complex tensors alone
    assert m[0].weight.dtype == ember.complex64
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        m.to(ember.float64)
    assert m[0].weight.dtype == ember.float64
    with pytest.raises(TypeError, match="only accepts floating point or complex dtypes"):
        m.to(ember.int32)
