"""The progression of PyTorch's "What is torch.nn really?" tutorial: a classifier written from
scratch with tensors and autograd, then refactored step by step with torch.nn.functional,
nn.Module, nn.Linear, torch.optim, Dataset, DataLoader, validation, and finally a CNN built
with nn.Sequential.

The tutorial downloads MNIST; to run offline in seconds this uses synthetic 8x8 "digits"
(a noisy prototype image per class), so the numbers differ but every step is the tutorial's.
Run: python examples/what_is_torch_nn.py
"""

import math

import numpy as np

import ember as torch
import ember.nn.functional as F
from ember import nn, optim
from ember.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

# ---- Data: 10 classes of 8x8 images, flattened to 64 features ----
side, n_features, n_classes = 8, 64, 10
prototypes = torch.rand(n_classes, n_features)
y_train = torch.randint(0, n_classes, (2000,))
y_valid = torch.randint(0, n_classes, (500,))
x_train = prototypes[y_train] + 0.5 * torch.randn(2000, n_features)
x_valid = prototypes[y_valid] + 0.5 * torch.randn(500, n_features)
n, c = x_train.shape
print(x_train.shape, y_train.min().item(), y_train.max().item())

# ---- 1. Neural net from scratch: only tensor operations and autograd ----
weights = torch.randn(n_features, n_classes) / math.sqrt(n_features)
weights.requires_grad_()
bias = torch.zeros(n_classes, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


bs = 64
xb, yb = x_train[0:bs], y_train[0:bs]
print(
    f"from scratch, before: loss {loss_func(model(xb), yb).item():.3f}, "
    f"accuracy {accuracy(model(xb), yb).item():.3f}"
)

lr = 0.5
epochs = 2
for _ in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()

print(
    f"from scratch, after:  loss {loss_func(model(xb), yb).item():.3f}, "
    f"accuracy {accuracy(model(xb), yb).item():.3f}"
)

# ---- 2. torch.nn.functional: log_softmax + nll in one call ----
loss_func = F.cross_entropy


def model(xb):
    return xb @ weights + bias


print(f"F.cross_entropy gives the same loss: {loss_func(model(xb), yb).item():.3f}")


# ---- 3. nn.Module: the parameters live in the model ----
class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(n_features, n_classes) / math.sqrt(n_features))
        self.bias = nn.Parameter(torch.zeros(n_classes))

    def forward(self, xb):
        return xb @ self.weights + self.bias


def fit():
    for _ in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)

            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()


model = Mnist_Logistic()
fit()
print(f"nn.Module: loss {loss_func(model(xb), yb).item():.3f}")


# ---- 4. nn.Linear instead of hand-made weights and bias ----
class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(n_features, n_classes)

    def forward(self, xb):
        return self.lin(xb)


model = Mnist_Logistic()
fit()
print(f"nn.Linear: loss {loss_func(model(xb), yb).item():.3f}")


# ---- 5. torch.optim does the update ----
def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)


model, opt = get_model()
for _ in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        opt.step()
        opt.zero_grad()
print(f"optim.SGD: loss {loss_func(model(xb), yb).item():.3f}")

# ---- 6. Dataset: index x and y together ----
train_ds = TensorDataset(x_train, y_train)
model, opt = get_model()
for _ in range(epochs):
    for i in range((n - 1) // bs + 1):
        xb, yb = train_ds[i * bs : i * bs + bs]
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        opt.step()
        opt.zero_grad()
print(f"TensorDataset: loss {loss_func(model(xb), yb).item():.3f}")

# ---- 7. DataLoader: minibatches (shuffled) without index arithmetic ----
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)
model, opt = get_model()
for _ in range(epochs):
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        opt.step()
        opt.zero_grad()
print(f"DataLoader: loss {loss_func(model(xb), yb).item():.3f}")

# ---- 8. Validation, and the fit / get_data / loss_batch refactoring ----
valid_ds = TensorDataset(x_valid, y_valid)


def get_data(train_ds, valid_ds, bs):
    return (
        DataLoader(train_ds, batch_size=bs, shuffle=True),
        DataLoader(valid_ds, batch_size=bs * 2),
    )


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)

    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()

    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)

        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)

        print(f"  epoch {epoch}  validation loss {val_loss:.4f}")


print("logistic regression with validation:")
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
fit(epochs, model, loss_func, opt, train_dl, valid_dl)


# ---- 9. A CNN, written with nn.Sequential and a Lambda layer ----
class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, side, side)


model = nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
print("CNN with validation:")
fit(epochs, model, loss_func, opt, train_dl, valid_dl)

with torch.no_grad():
    acc = accuracy(model(x_valid), y_valid).item()
print(f"CNN validation accuracy: {acc:.3f}")
