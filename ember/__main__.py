"""``python -m ember``: a short tour: define a network, train it, look at its state.

The fuller demo, a convolutional network trained on real handwritten digits with a progress
bar, a checkpoint and pictures, is ``python -m ember.demo``.
"""

import ember as torch
from ember import nn


class MLP(nn.Module):
    def __init__(self, hidden: int = 8):
        super().__init__()
        self.fc1 = nn.Linear(2, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def main() -> None:
    torch.manual_seed(0)
    # XOR: not linearly separable, so the hidden layer has to learn something.
    x = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
    model = MLP()
    print(model)
    for step in range(301):
        loss = ((model(x) - y) ** 2).mean()
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.2 * p.grad
        if step % 100 == 0:
            print(f"step {step:3d}  loss {loss.item():.2e}")
    with torch.no_grad():
        print("predictions:", [round(v, 2) for v in model(x).flatten().tolist()])
    print("state_dict:", {k: tuple(v.shape) for k, v in model.state_dict().items()})
    print("next: python -m ember.demo trains a CNN on handwritten digits (--help for its flags)")


if __name__ == "__main__":
    main()
