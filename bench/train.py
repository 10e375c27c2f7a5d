"""Training-step workloads (BENCHMARKS.md): the same model code runs on ember and on PyTorch.

Each builder takes the framework module (``ember`` or ``torch``: the code is written for
PyTorch and runs on ember unchanged, which is the point) and returns a ``step()`` closure that
does one forward, backward and parameter update on fixed data. Until ember has optimizers (#9),
ember's side updates through ``_sgd``/``_adamw`` below, plain in-place tensor arithmetic; PyTorch's
side uses ``torch.optim`` (what its users run).
"""

from __future__ import annotations

import numpy as np


def _has_optim(lib) -> bool:
    return hasattr(lib, "optim") and hasattr(lib.optim, "SGD")


def _sgd(lib, params, lr, momentum=0.0):
    """``torch.optim.SGD`` where the framework has it, else the same update in tensor ops."""
    params = list(params)
    if _has_optim(lib):
        opt = lib.optim.SGD(params, lr=lr, momentum=momentum)
        return opt.zero_grad, opt.step
    bufs = [None] * len(params)

    def zero_grad():
        for p in params:
            p.grad = None

    def step():
        with lib.no_grad():
            for i, p in enumerate(params):
                g = p.grad
                if momentum:
                    if bufs[i] is None:
                        bufs[i] = g.clone()
                    else:
                        bufs[i].mul_(momentum).add_(g)
                    g = bufs[i]
                p.add_(g, alpha=-lr)

    return zero_grad, step


def _adamw(lib, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    """``torch.optim.AdamW`` where the framework has it, else the same update in tensor ops."""
    params = list(params)
    if hasattr(lib, "optim") and hasattr(lib.optim, "AdamW"):
        opt = lib.optim.AdamW(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        return opt.zero_grad, opt.step
    b1, b2 = betas
    m = [lib.zeros_like(p) for p in params]
    v = [lib.zeros_like(p) for p in params]
    t = [0]

    def zero_grad():
        for p in params:
            p.grad = None

    def step():
        t[0] += 1
        c1, c2 = 1 - b1 ** t[0], 1 - b2 ** t[0]
        with lib.no_grad():
            for p, mi, vi in zip(params, m, v):
                g = p.grad
                p.mul_(1 - lr * weight_decay)
                mi.mul_(b1).add_(g, alpha=1 - b1)
                vi.mul_(b2).add_(g * g, alpha=1 - b2)
                denom = (vi / c2).sqrt_().add_(eps)
                p.sub_(mi / denom * (lr / c1))

    return zero_grad, step


def _data(lib, *shapes_and_kinds, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for shape, kind in shapes_and_kinds:
        if kind == "float":
            out.append(lib.from_numpy(rng.standard_normal(shape).astype(np.float32)))
        else:
            out.append(lib.from_numpy(rng.integers(0, kind, shape).astype(np.int64)))
    return out


def _train_step(model, loss_fn, inputs, target, opt):
    zero_grad, step = opt

    def run():
        zero_grad()
        loss = loss_fn(model(*inputs), target)
        loss.backward()
        step()
        return loss

    return run


def mlp_small(lib, quick):
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)
    )
    x, y = _data(lib, ((32, 784), "float"), ((32,), 10))
    return _train_step(
        model, nn.CrossEntropyLoss(), (x,), y, _sgd(lib, model.parameters(), 0.01, momentum=0.9)
    )


def mlp_large(lib, quick):
    nn = lib.nn
    lib.manual_seed(0)
    batch, widths = (64, (256, 512, 512, 256)) if quick else (512, (1024, 2048, 2048, 1024))
    layers = []
    for i in range(3):
        layers += [nn.Linear(widths[i], widths[i + 1])] + ([nn.ReLU()] if i < 2 else [])
    model = nn.Sequential(*layers)
    x, y = _data(lib, ((batch, widths[0]), "float"), ((batch, widths[-1]), "float"))
    return _train_step(model, nn.MSELoss(), (x,), y, _sgd(lib, model.parameters(), 0.01))


def mlp_large_flop(quick):
    batch, w = (64, (256, 512, 512, 256)) if quick else (512, (1024, 2048, 2048, 1024))
    params = sum(w[i] * w[i + 1] + w[i + 1] for i in range(3))
    return 6 * batch * params


def cnn(lib, quick):
    nn = lib.nn
    lib.manual_seed(0)
    batch = 8 if quick else 64
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(4096, 10),
    )
    x, y = _data(lib, ((batch, 3, 32, 32), "float"), ((batch,), 10))
    return _train_step(model, nn.CrossEntropyLoss(), (x,), y, _sgd(lib, model.parameters(), 0.01))


class _GPTFactory:
    """A GPT-style decoder written against ``torch.nn`` (built for either framework)."""

    @staticmethod
    def build(lib, vocab, d_model, nhead, d_ff, n_layers, seq):
        nn = lib.nn
        F = nn.functional

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.ln1 = nn.LayerNorm(d_model)
                self.attn_qkv = nn.Linear(d_model, 3 * d_model)
                self.attn_out = nn.Linear(d_model, d_model)
                self.ln2 = nn.LayerNorm(d_model)
                self.ff = nn.Sequential(
                    nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model)
                )

            def forward(self, x):
                b, t, c = x.shape
                q, k, v = self.attn_qkv(self.ln1(x)).split(d_model, dim=2)
                q = q.view(b, t, nhead, c // nhead).transpose(1, 2)
                k = k.view(b, t, nhead, c // nhead).transpose(1, 2)
                v = v.view(b, t, nhead, c // nhead).transpose(1, 2)
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                y = y.transpose(1, 2).contiguous().view(b, t, c)
                x = x + self.attn_out(y)
                return x + self.ff(self.ln2(x))

        class GPT(nn.Module):
            def __init__(self):
                super().__init__()
                self.tok = nn.Embedding(vocab, d_model)
                self.pos = nn.Embedding(seq, d_model)
                self.blocks = nn.ModuleList([Block() for _ in range(n_layers)])
                self.ln_f = nn.LayerNorm(d_model)
                self.head = nn.Linear(d_model, vocab, bias=False)

            def forward(self, idx):
                t = idx.shape[1]
                x = self.tok(idx) + self.pos(lib.arange(t))
                for block in self.blocks:
                    x = block(x)
                return self.head(self.ln_f(x))

        return GPT()


def transformer(lib, quick):
    lib.manual_seed(0)
    vocab, d_model, nhead, d_ff, n_layers = 512, 128, 4, 512, 2
    batch, seq = (4, 16) if quick else (16, 64)
    model = _GPTFactory.build(lib, vocab, d_model, nhead, d_ff, n_layers, seq)
    idx, tgt = _data(lib, ((batch, seq), vocab), ((batch, seq), vocab))
    F = lib.nn.functional

    def loss_fn(logits, target):
        return F.cross_entropy(logits.view(-1, vocab), target.view(-1))

    return _train_step(model, loss_fn, (idx,), tgt, _adamw(lib, model.parameters()))


def lstm(lib, quick):
    lib.manual_seed(0)
    seq, batch = (8, 4) if quick else (32, 16)
    model = lib.nn.LSTM(64, 128)
    (x,) = _data(lib, ((seq, batch, 64), "float"))

    def run():
        model.zero_grad(set_to_none=True)
        out, (h, c) = model(x)
        loss = out.mean() + h.mean()
        loss.backward()
        return loss

    return run


def deep_stack(lib, quick):
    nn = lib.nn
    lib.manual_seed(0)
    depth = 20 if quick else 100
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(32, 32), nn.ReLU()]
    model = nn.Sequential(*layers)
    (x,) = _data(lib, ((8, 32), "float"))

    def run():
        model.zero_grad(set_to_none=True)
        loss = model(x).sum()
        loss.backward()
        return loss

    return run


TRAIN_WORKLOADS = {
    "mlp-small": (mlp_small, "train step: batch 32, 784-256-256-10 ReLU MLP, CE, SGD momentum"),
    "mlp-large": (mlp_large, "train step: batch 512, 1024-2048-2048-1024 MLP, MSE, SGD"),
    "cnn": (cnn, "train step: batch 64 3x32x32, 2 x (conv-ReLU-maxpool), Linear, CE, SGD"),
    "transformer": (transformer, "train step: GPT 2 layers, d 128, 4 heads, seq 64, AdamW"),
    "lstm": (lstm, "nn.LSTM(64, 128), seq 32, batch 16, forward + backward"),
    "deep-stack": (deep_stack, "100 x (Linear(32, 32) + ReLU), batch 8, forward + backward"),
}
