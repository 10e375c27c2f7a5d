"""ember.nn.utils.check (ember/nn/utils/check.py): each kind of finding on a small model that has
exactly that mistake, and none once it is fixed; a clean model (conv, batchnorm, LSTM,
Transformer encoder, with its optimizer and inputs) reports nothing; and the user's model (its
state, grads, modes) and the random state are the same after the check."""

from __future__ import annotations

import copy
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember
from ember import nn
from ember.nn.utils import check


def _kinds(report):
    return [f.kind for f in report]


def _one(report, kind):
    found = [f for f in report if f.kind == kind]
    assert len(found) == 1, f"expected one {kind}, got {report!r}:\n{report}"
    return found[0]


def _quiet(make):
    # build a model whose construction warns RegistrationWarning (the mistake under test)
    with pytest.warns(nn.RegistrationWarning):
        return make()


# ---- a clean model -------------------------------------------------------------------------------
class Clean(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.lstm = nn.LSTM(4, 8, batch_first=True)
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        y = self.bn(self.conv(x)).flatten(2).transpose(1, 2)
        y, _ = self.lstm(y)
        return self.fc(self.drop(self.encoder(y).mean(1)))


def test_a_clean_model_with_optimizer_and_inputs_reports_nothing():
    ember.manual_seed(0)
    m = Clean()
    report = check(m, ember.optim.AdamW(m.parameters()), ember.randn(2, 3, 4, 4))
    assert len(report) == 0 and not report and list(report) == [] and report.findings == []
    assert str(report) == "ember.nn.utils.check: no findings"


@pytest.mark.parametrize(
    "make, inputs",
    [
        (lambda: nn.Linear(4, 3), (3, 4)),
        (lambda: nn.Sequential(nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3), nn.ReLU()), (2, 2, 8)),
        (lambda: nn.LSTM(3, 4, num_layers=2, dropout=0.1), (5, 2, 3)),
        (lambda: nn.GRU(3, 4), (5, 2, 3)),
        (lambda: nn.TransformerEncoderLayer(8, 2, 16), (3, 2, 8)),
        (lambda: nn.Embedding(10, 4), None),
        (lambda: nn.ReLU(), (3,)),  # no parameters: nothing can lack a gradient
    ],
)
def test_library_layers_are_clean(make, inputs):
    ember.manual_seed(0)
    m = make()
    x = ember.randint(0, 10, (3, 2)) if inputs is None else ember.randn(*inputs)
    report = check(m, ember.optim.SGD(m.parameters(), lr=0.1) if list(m.parameters()) else None, x)
    assert not report, str(report)


def test_the_users_model_and_random_state_are_unchanged():
    ember.manual_seed(0)
    m = Clean()
    m.encoder.layers[1].eval()  # a mixed mode, kept as it is
    x = ember.randn(2, 3, 4, 4, requires_grad=True)
    m(x).sum().backward()  # the model has grads already
    x.grad = None
    state = {k: v.detach().clone() for k, v in m.state_dict().items()}
    grads = {k: p.grad.clone() for k, p in m.named_parameters()}
    modes = {k: sub.training for k, sub in m.named_modules()}
    rng = ember.get_rng_state()
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    report = check(m, opt, x)
    assert _kinds(report) == ["eval_submodule"]
    assert ember.equal(ember.get_rng_state(), rng)
    assert {k: sub.training for k, sub in m.named_modules()} == modes
    after = m.state_dict()
    assert list(after) == list(state)
    for k, v in state.items():
        assert ember.equal(after[k], v), k  # BatchNorm's running stats included
    for k, p in m.named_parameters():
        assert ember.equal(p.grad, grads[k]), k
    assert x.grad is None  # the inputs were copied too
    assert opt.state == {} or all(not s for s in opt.state.values())


# ---- registration --------------------------------------------------------------------------------
class ListOfLayers(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        layers = [nn.Linear(4, 4) for _ in range(3)]
        self.layers = nn.ModuleList(layers) if fixed else layers

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_a_plain_list_of_modules():
    report = check(_quiet(ListOfLayers), inputs=ember.randn(2, 4))
    f = _one(report, "unregistered_module")
    assert (f.module, f.attribute, f.severity) == ("", "layers", "warning")
    assert f.fix == "wrap it: self.layers = nn.ModuleList([...])"
    assert (
        "ListOfLayers.layers is a plain list holding 3 Modules (layers[0], layers[1]" in f.message
    )
    assert f.where == "layers"
    assert not check(ListOfLayers(fixed=True), inputs=ember.randn(2, 4))


class Nested(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        if fixed:
            self.stages = nn.ModuleList([nn.ModuleList([nn.Linear(2, 2)]) for _ in range(2)])
        else:
            self.stages = [[nn.Linear(2, 2)] for _ in range(2)]  # no warning: nested


def test_nested_containers_which_the_assignment_warning_does_not_see():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = Nested()
    f = _one(check(m), "unregistered_module")
    assert "stages[0][0], stages[1][0]" in f.message
    assert f.fix == "wrap it: self.stages = nn.ModuleList([nn.ModuleList([...]), ...])"
    assert not check(Nested(fixed=True))


class DictOfParams(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        params = {"a": nn.Parameter(ember.ones(2)), "b": nn.Parameter(ember.zeros(2))}
        self.scales = nn.ParameterDict(params) if fixed else params


def test_a_plain_dict_of_parameters():
    f = _one(check(_quiet(DictOfParams)), "unregistered_parameter")
    assert f.attribute == "scales" and f.fix == "wrap it: self.scales = nn.ParameterDict({...})"
    assert "scales['a'], scales['b']" in f.message
    assert not check(DictOfParams(fixed=True))


class Config:
    def __init__(self):
        self.width = 4
        self.head = nn.Linear(4, 2)


class WithConfig(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        self.cfg = Config()
        if fixed:
            self.head = self.cfg.head  # registered: the config now only refers to it


def test_a_module_inside_a_plain_object():
    f = _one(check(WithConfig()), "unregistered_module")
    assert (f.module, f.attribute) == ("", "cfg")
    assert "cfg.head" in f.message and "plain object Config" in f.message
    assert f.fix.startswith("make Config an nn.Module")
    assert not check(WithConfig(fixed=True))


class TensorAttr(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        w = ember.ones(3, requires_grad=True)
        self.scale = nn.Parameter(w) if fixed else w

    def forward(self, x):
        return x * self.scale


def test_a_tensor_that_requires_grad_is_not_a_parameter():
    m = _quiet(TensorAttr)
    opt = ember.optim.SGD([m.scale], lr=0.1)  # the user may even train it by hand
    report = check(m, inputs=ember.ones(3))
    f = _one(report, "tensor_requires_grad")
    assert f.fix == "self.scale = nn.Parameter(tensor)" and f.attribute == "scale"
    assert "Wrap it in nn.Parameter(...)" in f.message  # the warning's own advice
    assert "not_a_model_parameter" in _kinds(check(m, opt))
    fixed = TensorAttr(fixed=True)
    assert not check(fixed, ember.optim.SGD(fixed.parameters(), lr=0.1), ember.ones(3))


class StateAttr(nn.Module):
    def __init__(self, fixed=False, private=False):
        super().__init__()
        mean = ember.zeros(3)
        if fixed:
            self.register_buffer("mean", mean)
        elif private:
            self._mean = mean  # a cache, by convention
        else:
            self.mean = mean
        self.anchors = [] if fixed or private else [ember.ones(2), ember.ones(2)]

    def forward(self, x):
        return x - (self._mean if "_mean" in vars(self) else self.mean)


def test_plain_tensor_state_should_be_a_buffer():
    report = check(StateAttr(), inputs=ember.ones(3))
    assert sorted(_kinds(report)) == ["tensor_not_buffer", "tensor_not_buffer"]
    attr = next(f for f in report if f.attribute == "mean")
    assert attr.fix.startswith("self.register_buffer('mean', tensor)")
    lst = next(f for f in report if f.attribute == "anchors")
    assert "anchors[0], anchors[1]" in lst.message and "register_buffer" in lst.fix
    assert not check(StateAttr(fixed=True), inputs=ember.ones(3))
    assert not check(StateAttr(private=True), inputs=ember.ones(3))


class Bypass(nn.Module):
    def __init__(self):
        super().__init__()
        object.__setattr__(self, "head", nn.Linear(2, 2))
        self.__dict__["w"] = nn.Parameter(ember.ones(2))


def test_members_stored_past_setattr():
    report = check(Bypass())
    assert _one(report, "unregistered_module").fix == "self.add_module('head', module)"
    assert _one(report, "unregistered_parameter").fix == "self.register_parameter('w', param)"


class Child(nn.Module):
    def __init__(self, parent):
        super().__init__()
        self._parent = [parent]  # a back reference, kept out of the registry on purpose
        self.lin = nn.Linear(2, 2)


class References(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.child = Child(self)
        self.by_name = {"a": self.a}  # a reference to a registered module
        self.tensors = [self.a.weight]  # and to a registered parameter
        self.hidden = None

    def forward(self, x):
        self.hidden = self.a(x)  # an activation kept on the module (a non-leaf)
        return self.child.lin(self.hidden)


def test_references_activations_and_private_back_links_are_not_findings():
    m = _quiet(References)
    m(ember.ones(2))
    assert not check(m, ember.optim.SGD(m.parameters(), lr=0.1), ember.ones(2))


def test_hook_based_weight_norm_and_spectral_norm_are_not_findings():
    with pytest.warns(FutureWarning):
        wn = nn.utils.weight_norm(nn.Linear(3, 3))
    sn = nn.utils.spectral_norm(nn.Linear(3, 3))  # its weight is a plain attribute
    for m in (wn, sn):
        assert not check(m, ember.optim.SGD(m.parameters(), lr=0.1), ember.ones(2, 3))


@pytest.mark.parametrize(
    "value, kind",
    [
        (lambda: [nn.Linear(2, 2)], "unregistered_module"),
        (lambda: (nn.ReLU(),), "unregistered_module"),
        (lambda: {nn.Parameter(ember.ones(1))}, "unregistered_parameter"),
        (lambda: {"p": nn.Parameter(ember.ones(1))}, "unregistered_parameter"),
        (lambda: ember.ones(2, requires_grad=True), "tensor_requires_grad"),
    ],
)
def test_check_finds_what_the_assignment_warning_warns_and_ignores_its_opt_out(value, kind):
    m = nn.Module()
    with pytest.warns(nn.RegistrationWarning):
        m.thing = value()
    assert _kinds(check(m)) == [kind]
    nn.set_registration_warnings(False)
    try:
        m2 = nn.Module()
        m2.thing = value()
        assert _kinds(check(m2)) == [kind]  # the check is asked for: the opt-out is for warnings
    finally:
        nn.set_registration_warnings(True)


# ---- sharing -------------------------------------------------------------------------------------
class Tied(nn.Module):
    def __init__(self, tie=True):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.out = nn.Linear(4, 10, bias=False)
        if tie:
            self.out.weight = self.embed.weight

    def forward(self, idx):
        return self.out(self.embed(idx))


def test_tied_weights_are_an_info_finding_naming_both_paths():
    m = Tied()
    f = _one(check(m, ember.optim.SGD(m.parameters(), lr=0.1), ember.tensor([1, 2])),
             "shared_parameter")  # fmt: skip
    assert f.severity == "info" and (f.module, f.attribute) == ("embed", "weight")
    assert "'embed.weight' and 'out.weight'" in f.message
    assert not check(Tied(tie=False))


def test_a_module_used_twice_is_one_info_finding():
    block = nn.Linear(3, 3)
    m = nn.Sequential(block, nn.ReLU(), block)
    report = check(m, ember.optim.SGD(m.parameters(), lr=0.1), ember.ones(2, 3))
    f = _one(report, "shared_module")
    assert f.severity == "info" and "'0' and '2'" in f.message
    assert _kinds(report) == ["shared_module"]  # not once more per parameter
    fixed = nn.Sequential(block, nn.ReLU(), copy.deepcopy(block))
    assert not check(fixed, ember.optim.SGD(fixed.parameters(), lr=0.1), ember.ones(2, 3))


# ---- modes ---------------------------------------------------------------------------------------
def test_a_submodule_left_in_eval():
    m = nn.Sequential(nn.Linear(3, 3), nn.Sequential(nn.Dropout(0.5), nn.Linear(3, 3)))
    m[1].eval()
    f = _one(check(m), "eval_submodule")
    assert (f.module, f.severity) == ("1", "warning") and "1.0" in f.message
    assert f.fix.startswith("model.1.train()")
    m.train()
    assert not check(m)


def test_an_eval_submodule_without_mode_dependent_layers_is_info():
    m = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3))
    m[0].eval()
    assert _one(check(m), "eval_submodule").severity == "info"


def test_the_whole_model_in_eval_matters_only_with_an_optimizer():
    m = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).eval()
    assert not check(m)
    f = _one(check(m, ember.optim.SGD(m.parameters(), lr=0.1)), "model_in_eval")
    assert f.fix == "model.train()" and f.severity == "warning" and "1" in f.message
    assert not check(m.train(), ember.optim.SGD(m.parameters(), lr=0.1))


# ---- the optimizer -------------------------------------------------------------------------------
def test_a_layer_added_after_the_optimizer():
    m = nn.Sequential(nn.Linear(3, 3))
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    m.append(nn.Linear(3, 2))
    report = check(m, opt)
    assert _kinds(report) == ["param_not_in_optimizer"] * 2
    assert [(f.module, f.attribute) for f in report] == [("1", "weight"), ("1", "bias")]
    assert "add_param_group" in report[0].fix
    opt.add_param_group({"params": list(m[1].parameters())})
    assert not check(m, opt)


def test_frozen_parameters_in_the_optimizer():
    m = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2))
    m[0].requires_grad_(False)
    report = check(m, ember.optim.SGD(m.parameters(), lr=0.1))
    assert _kinds(report) == ["frozen_param_in_optimizer"] * 2
    assert report[0].where == "0.weight"
    trainable = [p for p in m.parameters() if p.requires_grad]
    assert not check(m, ember.optim.SGD(trainable, lr=0.1))


def test_an_optimizer_of_another_model():
    m, other = nn.Linear(3, 3), nn.Linear(3, 3)
    report = check(m, ember.optim.Adam(other.parameters()))
    assert sorted(_kinds(report)) == ["not_a_model_parameter"] + ["param_not_in_optimizer"] * 2
    f = _one(report, "not_a_model_parameter")
    assert "2 tensor(s)" in f.message and "shape (3, 3)" in f.message
    assert not check(m, ember.optim.Adam(m.parameters()))


def test_the_same_parameter_in_two_groups_and_twice_in_one():
    m = nn.Linear(3, 3)
    opt = ember.optim.SGD([{"params": [m.weight]}, {"params": [m.bias]}], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [m.weight]})  # as torch, at construction
    opt.param_groups[1]["params"].append(m.weight)  # what the check still catches
    f = _one(check(m, opt), "param_in_two_groups")
    assert (f.module, f.attribute) == ("", "weight") and "[0, 1]" in f.message
    opt.param_groups[1]["params"].pop()
    assert not check(m, opt)
    opt.param_groups[0]["params"].append(m.weight)
    assert _kinds(check(m, opt)) == ["duplicate_param_in_group"]
    opt.param_groups[0]["params"].pop()
    assert not check(m, opt)


def test_the_optimizer_must_have_param_groups():
    with pytest.raises(TypeError, match="param_groups"):
        check(nn.Linear(2, 2), optimizer=object())
    with pytest.raises(TypeError, match="must be an nn.Module"):
        check([nn.Linear(2, 2)])


# ---- one forward and backward --------------------------------------------------------------------
class TwoHeads(nn.Module):
    def __init__(self, use_aux=False):
        super().__init__()
        self.body = nn.Linear(3, 3)
        self.head = nn.Linear(3, 2)
        self.aux = nn.Linear(3, 2)
        self.use_aux = use_aux

    def forward(self, x, scale=1.0):
        h = self.body(x) * scale
        out = self.head(h)
        if self.use_aux:
            return out, {"aux": [self.aux(h)], "n": 3, "ids": ember.tensor([1, 2])}
        return out


def test_a_parameter_that_gets_no_gradient():
    report = check(TwoHeads(), inputs=ember.ones(2, 3))
    assert [f.where for f in report] == ["aux.weight", "aux.bias"]
    assert _kinds(report) == ["no_gradient"] * 2
    assert "p.requires_grad_(False)" in report[0].fix
    # nested outputs (a tuple holding a dict holding a list) all count; ints and tensors that
    # are not floating are left out of the sum
    assert not check(TwoHeads(use_aux=True), inputs=ember.ones(2, 3))
    frozen = TwoHeads()
    frozen.aux.requires_grad_(False)
    assert not check(frozen, inputs=ember.ones(2, 3))


@pytest.mark.parametrize(
    "inputs",
    [ember.ones(2, 3), (ember.ones(2, 3),), (ember.ones(2, 3), 2.0), {"x": ember.ones(2, 3)}],
)
def test_the_input_forms(inputs):
    m = TwoHeads(use_aux=True)
    assert not check(m, inputs=inputs)


class Buffers(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.register_buffer("pe", ember.randn(3))  # a constant table, read by forward
        self.register_buffer("mask", ember.ones(3), persistent=False)  # a cache
        self.register_buffer("steps", ember.tensor(0))  # an integer counter
        self.register_buffer("running", ember.zeros(3))
        self.fixed = fixed

    def forward(self, x):
        y = self.lin(x) + self.pe
        if self.training and self.fixed:
            with ember.no_grad():
                self.running.mul_(0.9).add_(0.1 * y.mean(0))
        return y


def test_a_buffer_the_forward_never_uses():
    report = check(Buffers(), inputs=ember.ones(2, 3))
    f = _one(report, "unused_buffer")
    assert (f.module, f.attribute) == ("", "running") and len(report) == 1
    assert not check(Buffers(fixed=True), inputs=ember.ones(2, 3))


def test_buffers_are_judged_by_a_training_mode_forward_even_from_eval():
    m = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).eval()
    assert not check(m, inputs=ember.randn(4, 3))
    # updated only in training: a forward in eval mode would neither read nor change it
    assert not check(Buffers(fixed=True).eval(), inputs=ember.ones(2, 3))


def test_grads_the_model_already_has_do_not_hide_an_unused_parameter():
    m = TwoHeads(use_aux=True)
    out, extra = m(ember.ones(2, 3))
    (out.sum() + extra["aux"][0].sum()).backward()
    m.use_aux = False
    assert m.aux.weight.grad is not None
    assert _kinds(check(m, inputs=ember.ones(2, 3))) == ["no_gradient"] * 2


def test_inputs_with_history_are_copied_as_values():
    encoder = nn.Linear(3, 3)
    x = encoder(ember.ones(2, 3))  # a non-leaf input, as from another network
    assert not check(TwoHeads(use_aux=True), inputs=(x,))
    assert encoder.weight.grad is None  # backward stayed inside the copy


class Detached(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.fixed = fixed

    def forward(self, x):
        y = self.lin(x)
        return (y if self.fixed else y.detach()), 7


def test_a_detached_output():
    report = check(Detached(), inputs=ember.ones(2))
    assert _kinds(report) == ["output_not_differentiable"]
    assert not check(Detached(fixed=True), inputs=ember.ones(2))


def test_an_error_in_forward_says_it_came_from_the_check():
    with pytest.raises(RuntimeError) as info:
        check(nn.Linear(3, 2), inputs=ember.ones(2, 4))
    assert any("ember.nn.utils.check" in n for n in info.value.__notes__)


# ---- the report ----------------------------------------------------------------------------------
def test_the_report_prints_each_finding_with_its_fix():
    report = check(_quiet(ListOfLayers))
    text = str(report)
    assert text.startswith("ember.nn.utils.check: 1 finding\n")
    assert "[warning] unregistered_module at layers:" in text
    assert "fix: wrap it: self.layers = nn.ModuleList([...])" in text
    assert bool(report) and len(report) == 1 and report[0] is report.findings[0]
    assert repr(report) == "CheckReport(['unregistered_module'])"
    f = report[0]
    assert str(f).splitlines()[-1].strip() == "fix: " + f.fix


def test_the_finding_path_of_a_nested_module():
    m = nn.Sequential(nn.Sequential(nn.Linear(2, 2)))
    with pytest.warns(nn.RegistrationWarning):
        m[0][0].extra = [nn.Linear(2, 2)]
    f = _one(check(m), "unregistered_module")
    assert (f.module, f.attribute, f.where) == ("0.0", "extra", "0.0.extra")


def test_the_name_is_the_function_even_after_importing_the_submodule():
    code = (
        "import ember.nn.utils.check, ember; from ember import nn; "
        "r = ember.nn.utils.check(nn.Linear(2, 2)); from ember.nn.utils import check; "
        "print(len(r), len(check(nn.Linear(2, 2))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "0"]
    assert "check" in ember.nn.utils.__all__ and "check" in dir(ember.nn.utils)


def test_large_plain_data_is_cheap_to_walk():
    m = nn.Linear(2, 2)
    m.vocab = list(range(200_000))
    m.table = np.zeros(3)  # not a container ember looks into
    assert not check(m)
