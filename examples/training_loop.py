"""A complete training loop, as in the "Optimizing Model Parameters" basics tutorial: a Dataset,
DataLoaders, a model, a loss, an optimizer and a learning-rate scheduler, with train_loop and
test_loop functions, plus gradient clipping and keeping the best checkpoint in memory.

Synthetic data (two interleaved spirals) keeps it offline and fast.
Run: python examples/training_loop.py
"""

import copy
import math

import ember as torch
from ember import nn
from ember.utils.data import DataLoader, Dataset, random_split

torch.manual_seed(0)


class Spirals(Dataset):
    """Points on two interleaved spirals, labelled by spiral: not linearly separable."""

    def __init__(self, n):
        t = torch.rand(n) * 3 * math.pi
        label = torch.randint(0, 2, (n,))
        angle = t + label * math.pi
        radius = t / (3 * math.pi)
        self.x = torch.stack([radius * torch.cos(angle), radius * torch.sin(angle)], dim=1)
        self.x += 0.02 * torch.randn(n, 2)
        self.y = label

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


dataset = Spirals(1200)
training_data, test_data = random_split(dataset, [1000, 200])
print("train / test sizes:", len(training_data), len(test_data))

batch_size = 64
train_dataloader = DataLoader(training_data, batch_size=batch_size, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=batch_size)
X, y = next(iter(train_dataloader))
print(f"Shape of X [N, F]: {X.shape}, y: {y.shape} {y.dtype}")

model = nn.Sequential(
    nn.Linear(2, 64),
    nn.ReLU(),
    nn.Linear(64, 64),
    nn.ReLU(),
    nn.Linear(64, 2),
)

learning_rate = 1e-2
epochs = 15
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)


def train_loop(dataloader, model, loss_fn, optimizer):
    model.train()  # matters for dropout / batch norm layers
    total = 0.0
    for X, y in dataloader:
        pred = model(X)
        loss = loss_fn(pred, y)

        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad()
        total += loss.item() * len(X)
    return total / len(dataloader.dataset)


def test_loop(dataloader, model, loss_fn):
    model.eval()
    test_loss, correct = 0.0, 0
    # No gradients needed for evaluation: saves memory and time.
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item() * len(X)
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    n = len(dataloader.dataset)
    return test_loss / n, correct / n


best_accuracy, best_state = -1.0, None
for t in range(epochs):
    train_loss = train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loss, accuracy = test_loop(test_dataloader, model, loss_fn)
    lr = scheduler.get_last_lr()[0]
    scheduler.step()  # once per epoch, after the optimizer steps
    if accuracy > best_accuracy:
        best_accuracy, best_state = accuracy, copy.deepcopy(model.state_dict())
    if t % 3 == 2 or t == epochs - 1:
        print(
            f"epoch {t + 1:2d}  lr {lr:.5f}  train loss {train_loss:.4f}  "
            f"test loss {test_loss:.4f}  accuracy {100 * accuracy:.1f}%"
        )

model.load_state_dict(best_state)
print(f"best test accuracy: {100 * best_accuracy:.1f}%")
print("final lr:", scheduler.get_last_lr())
