"""Modules as building blocks: Sequential, a custom Net, children and modules, ModuleList and
ModuleDict (DynamicNet), moving with .to() and custom initialization with .apply().

The code of the "Modules as Building Blocks" section of PyTorch's "Modules" note.
Run: python examples/building_blocks.py
"""

import ember as torch
import ember.nn.functional as F
from ember import nn

torch.manual_seed(0)


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


# Sequential feeds each module's output to the next one.
net = nn.Sequential(
    MyLinear(4, 3),
    nn.ReLU(),
    MyLinear(3, 1),
)
sample_input = torch.randn(4)
print(net(sample_input))
print(net)


# A custom module gives full control over how its submodules are used.
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


net = Net()
print("-- named_children:")
for child in net.named_children():
    print(child)


class BigNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = MyLinear(5, 4)
        self.net = Net()

    def forward(self, x):
        return self.net(self.l1(x))


big_net = BigNet()
print("-- named_modules (recursive):")
for module in big_net.named_modules():
    print(module)


# ModuleList and ModuleDict register submodules built at run time.
class DynamicNet(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.linears = nn.ModuleList([MyLinear(4, 4) for _ in range(num_layers)])
        self.activations = nn.ModuleDict(
            {
                "relu": nn.ReLU(),
                "lrelu": nn.LeakyReLU(),
            }
        )
        self.final = MyLinear(4, 1)

    def forward(self, x, act):
        for linear in self.linears:
            x = linear(x)
        x = self.activations[act](x)
        x = self.final(x)
        return x


dynamic_net = DynamicNet(3)
sample_input = torch.randn(4)
output = dynamic_net(sample_input, "relu")
print("DynamicNet output shape:", output.shape)

# parameters() recurses into every submodule: one call gives the optimizer everything.
print("-- named_parameters:")
for name, parameter in dynamic_net.named_parameters():
    print(name, tuple(parameter.shape))

# Change the precision of all parameters at once.
dynamic_net.to(dtype=torch.float64)
print(dynamic_net(torch.randn(5, 4, dtype=torch.float64), "lrelu").dtype)


# apply() runs a function on every submodule, e.g. for custom initialization.
# no_grad() keeps the in-place initialization out of the autograd graph.
@torch.no_grad()
def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_normal_(m.weight)
        m.bias.fill_(0.0)


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model.apply(init_weights)
print("biases after init_weights:", [m.bias.tolist() for m in model if isinstance(m, nn.Linear)])
