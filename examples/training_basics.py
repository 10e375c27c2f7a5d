"""Neural network training with modules: an optimizer, a training loop, and the training /
evaluation modes (the "Neural Network Training with Modules" section of PyTorch's "Modules"
note).

Run: python examples/training_basics.py
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


# Create the network and an optimizer over its parameters.
net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=1e-4, weight_decay=1e-2, momentum=0.9)

# A training loop that "teaches" the network to output the constant zero function.
# (The note runs 10000 steps; 1000 show the same trend in a fraction of the time.)
print("l1.weight before:", net.l1.weight.abs().max().item() > 0.01)
for _ in range(1000):
    input = torch.randn(4)
    output = net(input)
    loss = torch.abs(output)
    net.zero_grad()
    loss.backward()
    optimizer.step()

# Weight decay pulls the last layer's weights toward zero.
print(net.l1.weight)

# After training, switch to eval mode for inference.
net.eval()
print("training:", net.training, "| l0 training:", net.l0.training)


# A module may behave differently in training and evaluation mode.
class ModalModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if self.training:
            # Add a constant only in training mode.
            return x + 1.0
        else:
            return x


m = ModalModule()
x = torch.ones(4)
print(f"training mode output: {m(x)}")
m.eval()
print(f"evaluation mode output: {m(x)}")
