"""LoRA-style adapters: wrap a frozen Linear layer and train only a low-rank update
W + (alpha / r) * B @ A, then merge the update into the base weight for inference.

Run: python examples/lora.py
"""

import math

import ember as torch
import ember.nn.functional as F
from ember import nn

torch.manual_seed(0)


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int = 4, alpha: float = 8.0):
        super().__init__()
        self.base = base
        self.base.requires_grad_(False)  # the pretrained layer stays frozen
        self.scaling = alpha / r
        # A starts random and B at zero, so the adapter starts as an exact no-op.
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.T @ self.lora_B.T) * self.scaling

    @torch.no_grad()
    def merged(self) -> nn.Linear:
        """A plain Linear with the adapter folded into its weight."""
        out = nn.Linear(self.base.in_features, self.base.out_features)
        out.weight.copy_(self.base.weight + self.scaling * self.lora_B @ self.lora_A)
        out.bias.copy_(self.base.bias)
        return out

    def extra_repr(self):
        return f"r={self.lora_A.shape[0]}, scaling={self.scaling}"


# A "pretrained" model; replace its Linear layers with adapters.
model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 4))
for i, layer in enumerate(model):
    if isinstance(layer, nn.Linear):
        model[i] = LoRALinear(layer)
print(model)

x = torch.randn(128, 16)
target = torch.randn(128, 4)
with torch.no_grad():
    print(
        "adapter starts as a no-op:",
        torch.equal(model(x), model[2].base(torch.tanh(model[0].base(x)))),
    )

trainable = {n: p for n, p in model.named_parameters() if p.requires_grad}
print("trainable:", list(trainable))
print(
    "trainable parameters:",
    sum(p.numel() for p in trainable.values()),
    "of",
    sum(p.numel() for p in model.parameters()),
)

optimizer = torch.optim.AdamW(trainable.values(), lr=1e-2)
frozen = model[0].base.weight.clone()
for step in range(100):
    loss = F.mse_loss(model(x), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 25 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")
print("base weight unchanged:", torch.equal(model[0].base.weight, frozen))

# Only the adapter weights need saving: a small state_dict.
adapter_state = {k: v for k, v in model.state_dict().items() if "lora_" in k}
print("adapter checkpoint:", {k: tuple(v.shape) for k, v in adapter_state.items()})

# Merge for inference: plain Linear layers, same outputs.
merged = nn.Sequential(model[0].merged(), nn.Tanh(), model[2].merged())
with torch.no_grad():
    print("merged model matches:", torch.allclose(merged(x), model(x), atol=1e-5))
