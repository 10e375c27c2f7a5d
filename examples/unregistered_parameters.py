"""The module that trains silently wrong: parameters kept in a plain Python list (or a tensor
that is not an nn.Parameter) are not registered, so parameters(), the optimizer, .to() and
state_dict() never see them. PyTorch accepts this without a word; ember runs the same code but
warns (a RegistrationWarning on stderr) at the line that made the mistake.

Run: python examples/unregistered_parameters.py
"""

import ember as torch
import ember.nn.functional as F
from ember import nn

torch.manual_seed(0)


class BrokenMLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        # Bug: a plain list. The layers work in forward, but are invisible to the module.
        self.layers = [nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]
        # Bug: a tensor that requires grad is not a parameter either.
        self.scale = torch.ones(1, requires_grad=True)

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = F.relu(layer(x))
        return self.layers[-1](x) * self.scale


class FixedMLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        # ModuleList (and ParameterList / ModuleDict / ParameterDict) register their contents.
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = F.relu(layer(x))
        return self.layers[-1](x) * self.scale


x = torch.randn(256, 4)
y = x.sum(dim=1, keepdim=True)  # an easy target

for cls in (BrokenMLP, FixedMLP):
    model = cls([4, 16, 1])
    params = list(model.parameters())
    print(f"{cls.__name__}: {len(params)} parameters, state_dict keys {list(model.state_dict())}")
    first = model(x)
    if not params:
        # torch.optim.SGD([]) raises "optimizer got an empty parameter list": the lucky case.
        print("  nothing to optimize: the model can never learn")
        continue
    optimizer = torch.optim.SGD(params, lr=0.05)
    for _ in range(100):
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"  loss {F.mse_loss(first, y).item():.3f} -> {loss.item():.3f}")


# The subtle case: one layer registered, one not. Training runs, the loss goes down a little,
# and the unregistered layer keeps its random weights forever. It is not saved either.
class HalfBroken(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(4, 16)
        self.heads = [nn.Linear(16, 1)]  # Bug: should be nn.ModuleList([...])

    def forward(self, x):
        return self.heads[0](F.relu(self.encoder(x)))


model = HalfBroken()
head_before = model.heads[0].weight.clone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for _ in range(100):
    loss = F.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("HalfBroken: head trained?", not torch.equal(model.heads[0].weight, head_before))
print("HalfBroken: state_dict keys", list(model.state_dict()))
