"""Freezing parameters: fine-tune only the head of a model. requires_grad_(False) stops
gradients for the frozen part, and only the trainable parameters go to the optimizer.

Run: python examples/freezing.py
"""

import ember as torch
import ember.nn.functional as F
from ember import nn

torch.manual_seed(0)

# A "pretrained" feature extractor and a new classification head.
backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
head = nn.Linear(16, 3)
model = nn.Sequential(backbone, head)

# Freeze the backbone: its parameters get no gradient and are not updated.
backbone.requires_grad_(False)

trainable = [p for p in model.parameters() if p.requires_grad]
n_trainable = sum(p.numel() for p in trainable)
n_total = sum(p.numel() for p in model.parameters())
print(f"trainable parameters: {n_trainable} of {n_total}")
for name, p in model.named_parameters():
    print(f"  {name:12s} requires_grad={p.requires_grad}")

# Give the optimizer only what is trained.
optimizer = torch.optim.Adam(trainable, lr=1e-2)

x = torch.randn(64, 10)
y = torch.randint(0, 3, (64,))
frozen_before = backbone[0].weight.clone()
head_before = head.weight.clone()

# Frozen layers that contain dropout or batch norm should also stay in eval mode.
backbone.eval()
for step in range(50):
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(f"step {step:2d}  loss {loss.item():.4f}")

print("backbone unchanged:", torch.equal(backbone[0].weight, frozen_before))
print("backbone grad:", backbone[0].weight.grad)
print("head changed:", not torch.equal(head.weight, head_before))

# Unfreeze later (e.g. for a second, full fine-tuning phase) with a smaller learning rate.
backbone.requires_grad_(True)
optimizer.add_param_group({"params": backbone.parameters(), "lr": 1e-4})
print("param groups:", [(len(g["params"]), g["lr"]) for g in optimizer.param_groups])
