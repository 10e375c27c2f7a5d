"""PyTorch's "Modules" note (https://pytorch.org/docs/stable/notes/modules.html), its examples
rewritten as tests: the code is the note's, with ``import ember as torch``; the printed outputs
the note shows become assertions. Random values differ from PyTorch's (ember's streams are its
own), so values are checked by their relations, not their digits. Sections that need pieces
ember does not have yet are skipped with the reason."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import ember as torch
from ember import nn

F = torch.nn.functional


def _container(name):
    cls = getattr(nn, name, None)
    if cls is None:
        container = pytest.importorskip(
            "ember.nn.modules.container", reason="ember's containers are not written yet"
        )
        cls = getattr(container, name, None)
    if cls is None:
        pytest.skip(f"nn.{name} is not written yet")
    return cls


def _activation(name):
    """nn.ReLU / nn.LeakyReLU, or a stand-in with the same forward while ember lacks them."""
    cls = getattr(nn, name, None)
    if cls is not None:
        return cls
    slope = 0.01 if name == "LeakyReLU" else 0.0

    class Activation(nn.Module):
        def forward(self, x):
            return torch.where(x > 0, x, x * slope)

    Activation.__name__ = Activation.__qualname__ = name
    return Activation


def save_load(obj):
    """torch.save / torch.load of the note, through an in-memory round trip."""
    if hasattr(torch, "save") and hasattr(torch, "load"):
        import io

        buf = io.BytesIO()
        torch.save(obj, buf)
        buf.seek(0)
        return torch.load(buf)
    return pickle.loads(pickle.dumps(obj))


# ---- "A Simple Custom Module" -----------------------------------------------------------------
class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


def test_simple_custom_module():
    m = MyLinear(4, 3)
    sample_input = torch.randn(4)
    out = m(sample_input)
    assert out.shape == (3,) and out.grad_fn is not None  # tensor([...], grad_fn=<AddBackward0>)
    assert type(out.grad_fn).__name__ == "AddBackward0"
    expected = sample_input.numpy() @ m.weight.detach().numpy() + m.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5)
    params = list(m.named_parameters())
    assert [n for n, _ in params] == ["weight", "bias"]
    assert repr(params[0][1]).startswith("Parameter containing:\ntensor([[")
    assert repr(params[0][1]).endswith("requires_grad=True)")


def test_modules_as_callables_run_forward():
    m = MyLinear(4, 3)
    x = torch.randn(4)
    np.testing.assert_array_equal(m(x).detach().numpy(), m.forward(x).detach().numpy())


# ---- "Modules as Building Blocks" -------------------------------------------------------------
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l0 = MyLinear(4, 3)
        self.l1 = MyLinear(3, 1)

    def forward(self, x):
        x = self.l0(x)
        x = F.relu(x)
        x = self.l1(x)
        return x


class BigNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = MyLinear(5, 4)
        self.net = Net()

    def forward(self, x):
        return self.net(self.l1(x))


def test_net_repr_and_children():
    net = Net()
    assert repr(net) == "Net(\n  (l0): MyLinear()\n  (l1): MyLinear()\n)"
    children = list(net.named_children())
    assert [(n, repr(c)) for n, c in children] == [("l0", "MyLinear()"), ("l1", "MyLinear()")]
    assert net(torch.randn(4)).shape == (1,)


def test_sequential_of_the_note():
    Sequential = _container("Sequential")
    net = Sequential(MyLinear(4, 3), _activation("ReLU")(), MyLinear(3, 1))
    sample_input = torch.randn(4)
    assert net(sample_input).shape == (1,)


def test_big_net_named_modules():
    big_net = BigNet()
    modules = list(big_net.named_modules())
    assert [n for n, _ in modules] == ["", "l1", "net", "net.l0", "net.l1"]
    assert repr(modules[0][1]) == (
        "BigNet(\n  (l1): MyLinear()\n  (net): Net(\n"
        "    (l0): MyLinear()\n    (l1): MyLinear()\n  )\n)"
    )
    assert repr(modules[2][1]) == "Net(\n  (l0): MyLinear()\n  (l1): MyLinear()\n)"
    assert big_net(torch.randn(5)).shape == (1,)


def make_dynamic_net():
    ModuleList = _container("ModuleList")
    ModuleDict = _container("ModuleDict")
    ReLU, LeakyReLU = _activation("ReLU"), _activation("LeakyReLU")

    class DynamicNet(nn.Module):
        def __init__(self, num_layers):
            super().__init__()
            self.linears = ModuleList([MyLinear(4, 4) for _ in range(num_layers)])
            self.activations = ModuleDict(
                {
                    "relu": ReLU(),
                    "lrelu": LeakyReLU(),
                }
            )
            self.final = MyLinear(4, 1)

        def forward(self, x, act):
            for linear in self.linears:
                x = linear(x)
                x = self.activations[act](x)
            x = self.final(x)
            return x

    return DynamicNet


def test_dynamic_net_registers_container_members():
    dynamic_net = make_dynamic_net()(3)
    sample_input = torch.randn(4)
    output = dynamic_net(sample_input, "relu")
    assert output.shape == (1,)
    assert [n for n, _ in dynamic_net.named_parameters()] == [
        "linears.0.weight",
        "linears.0.bias",
        "linears.1.weight",
        "linears.1.bias",
        "linears.2.weight",
        "linears.2.bias",
        "final.weight",
        "final.bias",
    ]
    assert [n for n, _ in dynamic_net.named_children()] == ["linears", "activations", "final"]
    # All parameters are reached by backward.
    dynamic_net(sample_input, "lrelu").sum().backward()
    assert all(p.grad is not None for p in dynamic_net.parameters())


def test_dynamic_net_moves_with_to():
    dynamic_net = make_dynamic_net()(2)
    dynamic_net.to(dtype=torch.float64)
    assert {p.dtype for p in dynamic_net.parameters()} == {torch.float64}
    dynamic_net.to(device="cpu")
    assert {p.device.type for p in dynamic_net.parameters()} == {"cpu"}
    assert dynamic_net(torch.randn(4, dtype=torch.float64), "relu").dtype == torch.float64


def test_dynamic_net_with_a_plain_list_warns_in_ember():
    # The mistake the note's DynamicNet avoids by using ModuleList: ember says so.
    class Wrong(nn.Module):
        def __init__(self):
            super().__init__()
            self.linears = [MyLinear(4, 4) for _ in range(2)]

    with pytest.warns(nn.RegistrationWarning, match="Use nn.ModuleList instead"):
        wrong = Wrong()
    assert list(wrong.parameters()) == []


# ---- "Neural Network Training with Modules" ---------------------------------------------------
def test_training_loop_drives_the_output_to_zero():
    torch.manual_seed(0)
    net = Net()
    lr = 1e-2
    inputs = [torch.randn(4) for _ in range(20)]
    start = sum(float(torch.abs(net(x)).sum()) for x in inputs)
    for _ in range(100):
        for x in inputs:
            output = net(x)
            loss = torch.abs(output).sum()
            net.zero_grad()
            loss.backward()
            with torch.no_grad():  # the note uses torch.optim.SGD; this is its plain step
                for p in net.parameters():
                    p -= lr * p.grad
    end = sum(float(torch.abs(net(x)).sum()) for x in inputs)
    assert end < 0.5 * start


def test_training_loop_with_optim_sgd():
    optim = pytest.importorskip("ember.optim", reason="ember.optim is not written yet")
    torch.manual_seed(0)
    net = Net()
    optimizer = optim.SGD(net.parameters(), lr=1e-4, weight_decay=1e-2, momentum=0.9)
    w = net.l1.weight.detach().clone()
    for _ in range(10):
        input = torch.randn(4)
        output = net(input)
        loss = torch.abs(output).sum()
        net.zero_grad()
        loss.backward()
        optimizer.step()
    assert not np.array_equal(w.numpy(), net.l1.weight.detach().numpy())


class ModalModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if self.training:
            # Add a constant only in training mode.
            return x + 1.0
        else:
            return x


def test_training_and_evaluation_modes():
    m = ModalModule()
    x = torch.randn(4)
    np.testing.assert_array_equal(m(x).numpy(), x.numpy() + 1.0)  # training mode output
    m.eval()
    np.testing.assert_array_equal(m(x).numpy(), x.numpy())  # evaluation mode output
    m.train()
    assert m.training


# ---- "Module State" ---------------------------------------------------------------------------
class RunningMean(nn.Module):
    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(num_features))

    def forward(self, x):
        self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
        return self.mean


def test_running_mean_buffer():
    m = RunningMean(4)
    inputs = [torch.randn(4) for _ in range(10)]
    for input in inputs:
        m(input)
    assert repr(m) == "RunningMean()"
    expected = np.zeros(4, dtype=np.float32)
    for x in inputs:
        expected = 0.9 * expected + 0.1 * x.numpy()
    np.testing.assert_allclose(m.mean.numpy(), expected, rtol=1e-5)
    assert list(m.named_parameters()) == [] and [n for n, _ in m.named_buffers()] == ["mean"]
    # Serialized form will contain the 'mean' tensor.
    state = save_load(m.state_dict())
    assert list(state) == ["mean"]
    m_loaded = RunningMean(4)
    m_loaded.load_state_dict(state)
    assert torch.all(m.mean == m_loaded.mean)


def test_non_persistent_buffer_is_moved_but_not_saved():
    class RunningMeanExtra(RunningMean):
        def __init__(self, num_features, momentum=0.9):
            super().__init__(num_features, momentum)
            self.register_buffer("unserialized_thing", torch.randn(5), persistent=False)

    m = RunningMeanExtra(4)
    assert list(m.state_dict()) == ["mean"]
    # Both persistent and non-persistent buffers are affected by model-wide device / dtype
    # changes.
    m.to(device="cpu", dtype=torch.float64)
    assert [(n, b.dtype) for n, b in m.named_buffers()] == [
        ("mean", torch.float64),
        ("unserialized_thing", torch.float64),
    ]


def make_stateful_module():
    ParameterList = _container("ParameterList")
    ParameterDict = _container("ParameterDict")

    class StatefulModule(nn.Module):
        def __init__(self):
            super().__init__()
            # Setting a nn.Parameter as an attribute of the module automatically registers
            # the tensor as a parameter of the module.
            self.param1 = nn.Parameter(torch.randn(2))
            # Alternative string-based way to register a parameter.
            self.register_parameter("param2", nn.Parameter(torch.randn(3)))
            # Reserves the "param3" attribute as a parameter, preventing it from being set to
            # anything except a parameter. "None" entries like this will not be present in the
            # module's state_dict.
            self.register_parameter("param3", None)
            # Registers a list of parameters.
            self.param_list = ParameterList([nn.Parameter(torch.randn(2)) for i in range(3)])
            # Registers a dictionary of parameters.
            self.param_dict = ParameterDict(
                {
                    "foo": nn.Parameter(torch.randn(3)),
                    "bar": nn.Parameter(torch.randn(4)),
                }
            )
            # Registers a persistent buffer (one that appears in the module's state_dict).
            self.register_buffer("buffer1", torch.randn(4), persistent=True)
            # Registers a non-persistent buffer (one that does not appear in the module's
            # state_dict).
            self.register_buffer("buffer2", torch.randn(5), persistent=False)
            # Reserves the "buffer3" attribute as a buffer, preventing it from being set to
            # anything except a buffer. "None" entries like this will not be present in the
            # module's state_dict.
            self.register_buffer("buffer3", None)
            # Adding a submodule registers its parameters as parameters of the module.
            self.linear = nn.Linear(2, 3)

    return StatefulModule


def test_stateful_module_of_the_note():
    StatefulModule = make_stateful_module()
    m = StatefulModule()
    state = save_load(m.state_dict())
    m_loaded = StatefulModule()
    assert repr(m_loaded.load_state_dict(state)) == "<All keys matched successfully>"
    # Non-persistent "buffer2" and the reserved "param3" and "buffer3" are not in it.
    # NOTE: matches torch: ParameterDict sorts the keys of a plain dict.
    assert list(m_loaded.state_dict()) == [
        "param1",
        "param2",
        "buffer1",
        "param_list.0",
        "param_list.1",
        "param_list.2",
        "param_dict.bar",
        "param_dict.foo",
        "linear.weight",
        "linear.bias",
    ]
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(m_loaded.state_dict()[k].numpy(), v.numpy())
    with pytest.raises(TypeError):
        m.param3 = torch.zeros(1)  # reserved for a Parameter
    with pytest.raises(TypeError):
        m.buffer3 = 3  # reserved for a tensor


# ---- "Module Initialization" ------------------------------------------------------------------
def test_factory_kwargs_and_meta_initialization():
    # Initialize module with 16-bit floating point parameters.
    m = nn.Linear(5, 3, dtype=torch.half)
    assert m.weight.dtype == torch.float16
    # Initialize module on the meta device: shapes only, no memory.
    m = nn.Linear(5, 3, device="meta")
    assert m.weight.device.type == "meta" and m.weight.shape == (3, 5)
    with torch.device("meta"):
        big = nn.Linear(5000, 5000)
    assert big.weight.is_meta
    # Skip default parameter initialization and perform custom (e.g. orthogonal)
    # initialization: what torch.nn.utils.skip_init does, spelled out.
    m = nn.Linear(5, 3, device="meta").to_empty(device="cpu")
    nn.init.orthogonal_(m.weight)
    w = m.weight.detach().numpy()
    np.testing.assert_allclose(w @ w.T, np.eye(3), atol=1e-5)


def test_apply_for_custom_initialization():
    @torch.no_grad()
    def init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_normal_(m.weight)
            m.bias.fill_(0.0)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 8)
            self.b = nn.Linear(8, 2)
            self.c = MyLinear(2, 2)

    net = Model()
    c_weight = net.c.weight.detach().clone()
    assert net.apply(init_weights) is net
    assert net.a.bias.abs().sum().item() == 0 and net.b.bias.abs().sum().item() == 0
    np.testing.assert_array_equal(net.c.weight.detach().numpy(), c_weight.numpy())
    assert net.a.weight.requires_grad and net.a.weight.is_leaf


# ---- "Module Hooks" ---------------------------------------------------------------------------
def forward_pre_hook(m, inputs):
    # Allows for examination and modification of the input before the forward pass.
    # Note that inputs are always wrapped in a tuple.
    input = inputs[0]
    return input + 1.0


def forward_hook(m, inputs, output):
    # Allows for examination of inputs / outputs and modification of the outputs
    # after the forward pass. Note that inputs are always wrapped in a tuple while outputs
    # are passed as-is.

    # Residual computation a la ResNet.
    return output + inputs[0]


def backward_hook(m, grad_inputs, grad_outputs):
    # Allows for examination of grad_inputs / grad_outputs and modification of
    # grad_inputs used in the rest of the backwards pass. Note that grad_inputs and
    # grad_outputs are always wrapped in tuples.
    new_grad_inputs = [torch.ones_like(gi) * 42.0 for gi in grad_inputs]
    return new_grad_inputs


def test_module_hooks_example():
    torch.manual_seed(1)
    # Create sample module & input.
    m = nn.Linear(3, 3)
    x = torch.randn(2, 3, requires_grad=True)

    # ==== Demonstrate forward hooks. ====
    # Run input through module before and after adding hooks.
    no_hooks = m(x).detach().numpy()

    # Note that the modified input results in a different output.
    forward_pre_hook_handle = m.register_forward_pre_hook(forward_pre_hook)
    with_pre = m(x).detach().numpy()
    np.testing.assert_allclose(with_pre, m.forward(x + 1.0).detach().numpy(), rtol=1e-6)

    # Note the modified output.
    forward_hook_handle = m.register_forward_hook(forward_hook)
    with_both = m(x).detach().numpy()
    np.testing.assert_allclose(with_both, with_pre + x.detach().numpy() + 1.0, rtol=1e-6)

    # Remove hooks; note that the output here matches the output before adding hooks.
    forward_pre_hook_handle.remove()
    forward_hook_handle.remove()
    np.testing.assert_array_equal(m(x).detach().numpy(), no_hooks)

    # ==== Demonstrate backward hooks. ====
    m(x).sum().backward()
    no_hook_grad = x.grad.detach().clone()
    np.testing.assert_allclose(
        no_hook_grad.numpy(), np.tile(m.weight.detach().numpy().sum(0), (2, 1)), rtol=1e-6
    )

    # Clear gradients before running backward pass again.
    m.zero_grad()
    x.grad.zero_()

    m.register_full_backward_hook(backward_hook)
    m(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 42.0, dtype=np.float32))
