"""A simple custom module: the first example of PyTorch's "Modules" note.

A module packages state (parameters) and computation (``forward``) together.
Run: python examples/custom_module.py
"""

import ember as torch
from ember import nn

torch.manual_seed(0)


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        # Assigning an nn.Parameter registers it: parameters() and state_dict() see it.
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


m = MyLinear(4, 3)
sample_input = torch.randn(4)
# Calling the module runs forward(); autograd records how the output was made.
print(m(sample_input))

for parameter in m.named_parameters():
    print(parameter)

# The backward pass comes for free: no backward() to write.
m(sample_input).sum().backward()
print("weight.grad shape:", m.weight.grad.shape)
print("bias.grad:", m.bias.grad)
