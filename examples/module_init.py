"""Module initialization: dtype and device at construction, skipping the default
initialization, the device / dtype convention for your own modules, and custom initialization
of a whole model with apply().

The "Module Initialization" section of PyTorch's "Modules" note.
Run: python examples/module_init.py
"""

import ember as torch
from ember import nn

torch.manual_seed(0)

# Initialize a module with 16-bit floating point parameters.
m = nn.Linear(5, 3, dtype=torch.half)
print(m.weight.dtype, m.bias.dtype)

# Skip the default initialization and initialize another way (here: orthogonal).
m = torch.nn.utils.skip_init(nn.Linear, 5, 3)
nn.init.orthogonal_(m.weight)
# Orthogonal rows: W @ W.T is the identity.
print(torch.allclose(m.weight @ m.weight.T, torch.eye(3), atol=1e-5))

# device and dtype apply to floating-point buffers too.
m = nn.BatchNorm2d(3, dtype=torch.half)
print(m.running_mean)
print(m.num_batches_tracked.dtype)  # integer buffers keep their dtype


# Your own modules follow the same convention: device and dtype keyword arguments passed to
# every parameter and buffer, and all initialization done in reset_parameters().
class ScaledLinear(nn.Module):
    def __init__(self, in_features, out_features, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.empty(out_features, in_features, **factory_kwargs))
        self.register_buffer("scale", torch.empty(out_features, **factory_kwargs))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=5**0.5)
        nn.init.ones_(self.scale)

    def forward(self, x):
        return (x @ self.weight.T) * self.scale


m = ScaledLinear(4, 2, dtype=torch.float64)
print(m.weight.dtype, m.scale.dtype, m(torch.ones(1, 4, dtype=torch.float64)).shape)
# skip_init works for it because it takes a device argument.
m = torch.nn.utils.skip_init(ScaledLinear, 4, 2)
print(type(m).__name__, m.weight.device, m.weight.shape)


# Custom initialization of a whole model: apply() visits every submodule.
model = nn.Sequential(
    nn.Conv2d(1, 8, 3),
    nn.BatchNorm2d(8),
    nn.ReLU(),
    nn.Flatten(),
    nn.Linear(8 * 6 * 6, 10),
)


@torch.no_grad()
def init_weights(m):
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


model.apply(init_weights)
for name, p in model.named_parameters():
    print(f"{name:10s} {str(tuple(p.shape)):14s} std={p.std().item():.2f}")
print(model(torch.randn(2, 1, 8, 8)).shape)
