# ruff: noqa: E501, UP008  (the programs are kept as their authors write them)
"""Whole training programs written for PyTorch, as source text that starts with ``import torch``:
data loading, optimizers, learning-rate schedules, gradient clipping and checkpoints, in the
shapes of the pytorch/examples scripts, the PyTorch tutorials' checkpoint recipe and nanoGPT's
``train.py``. tests/test_training_programs.py runs each text on PyTorch and, with ``import torch``
resolving to ember, on ember, and compares every number. Only the sizes are small."""

CLASSIFIER = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, n_in=8, hidden=32, n_classes=3):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.bn1 = nn.BatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(0.2)
        self.fc3 = nn.Linear(hidden, n_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.fc1(x)))
        x = self.dropout(F.relu(self.fc2(x)))
        return self.fc3(x)


def make_model():
    return Net()


def make_training(model, lr=1e-2):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
    return optimizer, scheduler


def train_epoch(model, loader, optimizer):
    model.train()
    total, seen = 0.0, 0
    for batch_idx, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        total += loss.item() * data.size(0)
        seen += len(data)
    return total / seen


def evaluate(model, loader):
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in loader:
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction='sum').item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    return test_loss / len(loader.dataset), correct


def fit(model, X, y, epochs, path, start_epoch=0, resume_from=None):
    train_loader = DataLoader(TensorDataset(X, y), batch_size=32, drop_last=True)
    test_loader = DataLoader(TensorDataset(X, y), batch_size=100)
    optimizer, scheduler = make_training(model)
    if resume_from is not None:
        checkpoint = torch.load(resume_from)
        model.load_state_dict(checkpoint['model_state_dict'])
        optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
        scheduler.load_state_dict(checkpoint['scheduler_state_dict'])
        start_epoch = checkpoint['epoch']
    history = []
    for epoch in range(start_epoch + 1, epochs + 1):
        loss = train_epoch(model, train_loader, optimizer)
        scheduler.step()
        history.append((epoch, loss, scheduler.get_last_lr()[0]) + evaluate(model, test_loader))
        torch.save({
            'epoch': epoch,
            'model_state_dict': model.state_dict(),
            'optimizer_state_dict': optimizer.state_dict(),
            'scheduler_state_dict': scheduler.state_dict(),
            'loss': loss,
        }, path)
    return history
"""

CNN_WARMUP_COSINE = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR
from torch.utils.data import DataLoader, Dataset


class Digits(Dataset):
    """A map-style dataset over in-memory arrays, with a transform, as tutorials write one."""

    def __init__(self, images, labels, transform=None):
        self.images = images
        self.labels = labels
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        image = self.images[idx]
        if self.transform:
            image = self.transform(image)
        return {'image': image, 'label': int(self.labels[idx])}


def normalize(image):
    return (torch.as_tensor(image) - 0.5) / 0.25


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d((1, 1)),
        )
        self.classifier = nn.Linear(16, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def make_model():
    return ConvNet()


def param_groups(model, weight_decay):
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if param.ndim <= 1 or name.endswith(".bias"):
            no_decay.append(param)
        else:
            decay.append(param)
    return [{'params': decay, 'weight_decay': weight_decay},
            {'params': no_decay, 'weight_decay': 0.0}]


def fit(model, images, labels, epochs, warmup_epochs=2):
    loader = DataLoader(Digits(images, labels, transform=normalize), batch_size=16)
    optimizer = torch.optim.SGD(param_groups(model, 5e-4), lr=0.1, momentum=0.9, nesterov=True)
    warmup = LinearLR(optimizer, start_factor=0.1, total_iters=warmup_epochs)
    cosine = CosineAnnealingLR(optimizer, T_max=epochs - warmup_epochs, eta_min=1e-3)
    scheduler = SequentialLR(optimizer, schedulers=[warmup, cosine], milestones=[warmup_epochs])
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    history = []
    for epoch in range(epochs):
        model.train()
        running = 0.0
        for i, batch in enumerate(loader):
            inputs, targets = batch['image'], batch['label']
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            running += loss.item()
        scheduler.step()
        lrs = [group['lr'] for group in optimizer.param_groups]
        history.append((running / len(loader), lrs))
    return history
'''

NANOGPT_TRAIN = """
import inspect
import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        T = x.size(1)
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size=40, block_size=16, n_embd=32, n_head=4, n_layer=2):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.wte.weight = self.lm_head.weight

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        param_dict = {pn: p for pn, p in self.named_parameters()}
        param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {'params': decay_params, 'weight_decay': weight_decay},
            {'params': nodecay_params, 'weight_decay': 0.0}
        ]
        num_decay_params = sum(p.numel() for p in decay_params)
        num_nodecay_params = sum(p.numel() for p in nodecay_params)
        fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device_type == 'cuda'
        extra_args = dict(fused=True) if use_fused else dict()
        optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)
        return optimizer, num_decay_params, num_nodecay_params


def make_model():
    return GPT()


learning_rate = 6e-3
warmup_iters = 3
lr_decay_iters = 10
min_lr = 6e-4


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    assert 0 <= decay_ratio <= 1
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


def get_batch(data, it, batch_size=4, block_size=16):
    ix = [(it * 7 + 13 * j) % (len(data) - block_size) for j in range(batch_size)]
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x, y


def train(model, data, max_iters=12, grad_clip=1.0, gradient_accumulation_steps=2):
    optimizer, n_decay, n_nodecay = model.configure_optimizers(0.1, learning_rate, (0.9, 0.95), 'cpu')
    losses = []
    for iter_num in range(max_iters):
        lr = get_lr(iter_num)
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        for micro_step in range(gradient_accumulation_steps):
            X, Y = get_batch(data, iter_num * gradient_accumulation_steps + micro_step)
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
            loss.backward()
        if grad_clip != 0.0:
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append((loss.item() * gradient_accumulation_steps, norm.item(), lr))
    return losses, n_decay, n_nodecay, optimizer
"""

ONE_CYCLE = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_model():
    return nn.Sequential(nn.Linear(6, 24), nn.Tanh(), nn.Linear(24, 24), nn.SiLU(), nn.Linear(24, 1))


def fit(model, X, y, epochs=4, batch_size=20):
    loader = DataLoader(TensorDataset(X, y), batch_size=batch_size, shuffle=False)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=0.1, steps_per_epoch=len(loader), epochs=epochs)
    loss_fn = nn.MSELoss()
    trace = []
    for epoch in range(epochs):
        for xb, yb in loader:
            pred = model(xb)
            loss = loss_fn(pred, yb)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
            optimizer.step()
            scheduler.step()
            trace.append((loss.item(), optimizer.param_groups[0]['lr'], optimizer.param_groups[0]['momentum']))
    return trace
"""

LBFGS_FIT = """
import torch


class Polynomial(torch.nn.Module):
    def __init__(self, degree=3):
        super().__init__()
        self.coeffs = torch.nn.Parameter(torch.zeros(degree + 1))

    def forward(self, x):
        powers = torch.stack([x ** i for i in range(len(self.coeffs))], dim=-1)
        return powers @ self.coeffs


def make_model():
    return Polynomial()


def fit(model, x, y, steps=5, line_search_fn="strong_wolfe"):
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=10, history_size=5,
                                  line_search_fn=line_search_fn)
    losses = []

    def closure():
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    for step in range(steps):
        loss = optimizer.step(closure)
        losses.append(loss.item())
    return losses, optimizer.state_dict()["state"][0]["n_iter"]
"""
