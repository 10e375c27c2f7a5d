"""Module hooks: the forward pre-hook, forward hook and full backward hook example of PyTorch's
"Modules" note, then hooks used to inspect a model (activation and gradient shapes).

Run: python examples/hooks.py
"""

import ember as torch
from ember import nn

torch.manual_seed(1)


def forward_pre_hook(m, inputs):
    # Examine or modify the input before forward. Inputs are always wrapped in a tuple.
    input = inputs[0]
    return input + 1.0


def forward_hook(m, inputs, output):
    # Examine the inputs / output after forward, and modify the output:
    # here a residual connection a la ResNet.
    return output + inputs[0]


def backward_hook(m, grad_inputs, grad_outputs):
    # Examine grad_inputs / grad_outputs and replace grad_inputs for the rest of backward.
    new_grad_inputs = [torch.ones_like(gi) * 42.0 for gi in grad_inputs]
    return new_grad_inputs


# A sample module and input. Fixed weights so the printed numbers are reproducible.
m = nn.Linear(3, 3)
with torch.no_grad():
    m.weight.copy_(torch.tensor([[0.5, -0.2, 0.1], [0.3, 0.8, -0.6], [-0.4, 0.2, 0.9]]))
    m.bias.copy_(torch.tensor([0.1, 0.0, 0.2]))
x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], requires_grad=True)

# ==== Forward hooks ====
print(f"output with no forward hooks: {m(x)}")

# The modified input gives a different output.
forward_pre_hook_handle = m.register_forward_pre_hook(forward_pre_hook)
print(f"output with forward pre hook: {m(x)}")

# The modified output.
forward_hook_handle = m.register_forward_hook(forward_hook)
print(f"output with both forward hooks: {m(x)}")

# Removing the hooks restores the original output.
forward_pre_hook_handle.remove()
forward_hook_handle.remove()
print(f"output after removing forward hooks: {m(x)}")

# ==== Backward hooks ====
m(x).sum().backward()
print(f"x.grad with no backwards hook: {x.grad}")

# Clear the gradients before running backward again.
m.zero_grad()
x.grad.zero_()

m.register_full_backward_hook(backward_hook)
m(x).sum().backward()
print(f"x.grad with backwards hook: {x.grad}")


# ==== Hooks for inspection ====
# Print every layer's input and output shapes on the way forward, and gradient shapes on the
# way back, without touching the model's code.
model = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(4 * 4 * 4, 10),
)


def shapes(ts):
    return [tuple(t.shape) if t is not None else None for t in ts]


def make_hooks(name):
    def pre(module, inputs):
        print(f"pre      {name:12s} in={shapes(inputs)}")

    def post(module, inputs, output):
        print(f"forward  {name:12s} out={tuple(output.shape)}")

    def backward_pre(module, grad_output):
        print(f"bwd pre  {name:12s} grad_out={shapes(grad_output)}")

    def backward(module, grad_input, grad_output):
        print(f"backward {name:12s} grad_in={shapes(grad_input)}")

    return pre, post, backward_pre, backward


handles = []
for name, layer in model.named_children():
    pre, post, backward_pre, backward = make_hooks(f"{name}:{type(layer).__name__}")
    handles.append(layer.register_forward_pre_hook(pre))
    handles.append(layer.register_forward_hook(post))
    handles.append(layer.register_full_backward_pre_hook(backward_pre))
    handles.append(layer.register_full_backward_hook(backward))

images = torch.randn(2, 1, 8, 8, requires_grad=True)
model(images).sum().backward()

# Hooks are removed through their handles.
for h in handles:
    h.remove()
print("hooks left:", sum(len(layer._forward_hooks) for layer in model))

# A forward hook that keeps activations, e.g. for visualization or feature extraction.
activations = {}
handle = model[1].register_forward_hook(
    lambda module, inputs, output: activations.__setitem__("relu", output.detach())
)
with torch.no_grad():
    model(images)
handle.remove()
print(
    "kept activation:",
    tuple(activations["relu"].shape),
    "min >= 0:",
    bool(activations["relu"].min() >= 0),
)
