"""functional_call and MAML: run a module with parameters other than its own, and use that for
meta-learning (Model-Agnostic Meta-Learning on sine-wave regression). The inner loop adapts a
copy of the parameters with torch.autograd.grad(create_graph=True); the outer loop
backpropagates through that adaptation into the module's real parameters.

Run: python examples/maml.py
"""

import math

import ember as torch
import ember.nn.functional as F
from ember import nn
from ember.func import functional_call

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1))

# ==== functional_call ====
# The same module, called with a dict of replacement tensors: nothing is modified in place.
params = dict(model.named_parameters())
x = torch.randn(3, 1)
zeros = {name: torch.zeros_like(p) for name, p in params.items()}
print("own parameters: ", model(x).shape)
print("zero parameters:", functional_call(model, zeros, (x,)))
print("model untouched:", torch.equal(model[0].weight, params["0.weight"]))


# ==== MAML ====
def sample_task():
    """A sine wave with random amplitude and phase; returns a sampler of (x, y) points."""
    amplitude = torch.empty(1).uniform_(0.1, 5.0)
    phase = torch.empty(1).uniform_(0.0, math.pi)

    def sample(n):
        x = torch.empty(n, 1).uniform_(-5.0, 5.0)
        return x, amplitude * torch.sin(x + phase)

    return sample


def adapt(params, x, y, inner_lr=0.01, steps=1):
    """The inner loop: a few SGD steps on a task's support set, differentiable."""
    for _ in range(steps):
        loss = F.mse_loss(functional_call(model, params, (x,)), y)
        # create_graph=True keeps the graph of the gradients, so the outer loss can be
        # differentiated through this update (second-order MAML).
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
        params = {name: p - inner_lr * g for (name, p), g in zip(params.items(), grads)}
    return params


meta_optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
tasks_per_batch, k_shot = 4, 10
running = 0.0
for iteration in range(120):
    meta_optimizer.zero_grad()
    meta_loss = 0.0
    for _ in range(tasks_per_batch):
        sample = sample_task()
        x_support, y_support = sample(k_shot)
        x_query, y_query = sample(k_shot)
        fast_params = adapt(dict(model.named_parameters()), x_support, y_support)
        meta_loss = meta_loss + F.mse_loss(functional_call(model, fast_params, (x_query,)), y_query)
    meta_loss = meta_loss / tasks_per_batch
    # The outer update: gradients flow through the inner steps into model's parameters.
    meta_loss.backward()
    meta_optimizer.step()
    running += meta_loss.item()
    if iteration % 40 == 39:
        print(f"iterations {iteration - 39:3d}-{iteration:3d}  mean meta loss {running / 40:.3f}")
        running = 0.0

# At test time, a few steps on 10 points of a new wave adapt the meta-learned model.
before = after = 0.0
for _ in range(10):
    sample = sample_task()
    x_support, y_support = sample(k_shot)
    x_test, y_test = sample(100)
    fast_params = adapt(dict(model.named_parameters()), x_support, y_support, steps=5)
    with torch.no_grad():
        before += F.mse_loss(model(x_test), y_test).item() / 10
        after += F.mse_loss(functional_call(model, fast_params, (x_test,)), y_test).item() / 10
print(f"10 new tasks: mean loss {before:.3f} before adaptation, {after:.3f} after 5 steps")
print("second-order gradients reached the model:", model[0].weight.grad is not None)
