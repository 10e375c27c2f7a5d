"""Deferred construction: build a model on the meta device (shapes only, no memory, no
compute), materialize it with to_empty() and reset_parameters(), and let lazy modules
(LazyLinear) infer their input size from the first batch.

Run: python examples/meta_and_lazy.py
"""

import ember as torch
from ember import nn

torch.manual_seed(0)

# ==== The meta device ====
# Parameters on "meta" have a shape and dtype but no data: even a huge model costs nothing.
with torch.device("meta"):
    big = nn.Sequential(*[nn.Linear(8192, 8192) for _ in range(64)])
n_params = sum(p.numel() for p in big.parameters())
print(f"meta model: {n_params / 1e9:.2f} B parameters, device {big[0].weight.device}")
print(big[0].weight)

# Shapes propagate through a meta forward pass.
print(big(torch.empty(16, 8192, device="meta")).shape)

# The same on a small model we then materialize: to_empty() allocates uninitialized storage
# on the target device, and reset_parameters() runs each layer's default initialization.
with torch.device("meta"):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model.to_empty(device="cpu")
for module in model.modules():
    if hasattr(module, "reset_parameters"):
        module.reset_parameters()
print(model[0].weight.device, model(torch.randn(3, 4)).shape)
# Default init of Linear: uniform in [-1/sqrt(in), 1/sqrt(in)].
print("weights within bound:", bool(model[0].weight.abs().max() <= 4**-0.5))

# Or materialize directly from a checkpoint: load_state_dict(assign=True) keeps the loaded
# tensors themselves instead of copying into the meta parameters.
state = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).state_dict()
with torch.device("meta"):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model.load_state_dict(state, assign=True)
print(model[2].bias.device, torch.equal(model[2].bias, state["2.bias"]))

# ==== Lazy modules ====
# LazyLinear needs only out_features; in_features comes from the first input.
lazy = nn.Sequential(nn.LazyLinear(16), nn.ReLU(), nn.LazyLinear(3))
print(lazy)
print(lazy[0].weight)  # an UninitializedParameter until the first forward
print(lazy(torch.randn(5, 12)).shape)
print(lazy)  # the modules are now plain Linear layers
print(type(lazy[0]).__name__, tuple(lazy[0].weight.shape))

# Build the optimizer after a first (dry-run) forward, so that it holds the materialized
# parameters.
optimizer = torch.optim.SGD(lazy.parameters(), lr=0.1)
print(sum(p.numel() for p in lazy.parameters()))
