"""Issue 12's workloads: the tensor library beyond torch.nn, each forward and backward, written
once for both libraries (``L`` is ``ember`` or ``torch``).

- ``linalg``: a batch of 64 float64 64x64 matrices through ``solve``, ``svd`` and ``cholesky``.
- ``fft``: ``rfft2`` then ``irfft2`` of a (64, 32, 32, 32) float32 batch with a spectral weight.
- ``sparse-mm``: a 10k-node graph with 100k edges (COO) times a 10k x 64 matrix.
- ``bf16-linear``: a bfloat16 ``Linear(1024, 1024)`` on a 256 batch, against the same layer in
  float32 (ember's target is its own float32 time; torch's own bfloat16/float32 ratio is shown).
- ``import``: the wall time of ``python -c "import ember"`` (and of ``import torch``).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np


def linalg_step(L, quick):
    n, b = (16, 8) if quick else (64, 64)
    rng = np.random.default_rng(0)
    a = L.tensor(rng.standard_normal((b, n, n)), dtype=L.float64, requires_grad=True)
    rhs = L.tensor(rng.standard_normal((b, n, 4)), dtype=L.float64)
    eye = L.eye(n, dtype=L.float64)

    def step():
        a.grad = None
        spd = a @ a.mT + n * eye
        x = L.linalg.solve(spd, rhs)
        s = L.linalg.svd(a, full_matrices=False)[1]
        c = L.linalg.cholesky(spd)
        (x.sum() + s.sum() + c.diagonal(dim1=-2, dim2=-1).log().sum()).backward()

    return step


def fft_step(L, quick):
    shape = (4, 8, 16, 16) if quick else (64, 32, 32, 32)
    rng = np.random.default_rng(0)
    x = L.tensor(rng.standard_normal(shape, dtype=np.float32), requires_grad=True)
    w = L.tensor(rng.standard_normal(shape[-2:-1] + (shape[-1] // 2 + 1,), dtype=np.float32))
    w.requires_grad_(True)

    def step():
        x.grad = w.grad = None
        y = L.fft.irfft2(L.fft.rfft2(x) * w, s=shape[-2:])
        y.square().sum().backward()

    return step


def sparse_step(L, quick):
    nodes, edges, feat = (1000, 10_000, 16) if quick else (10_000, 100_000, 64)
    rng = np.random.default_rng(0)
    idx = L.tensor(rng.integers(0, nodes, (2, edges)))
    vals = L.tensor(rng.random(edges, dtype=np.float32), requires_grad=True)
    x = L.tensor(rng.standard_normal((nodes, feat), dtype=np.float32), requires_grad=True)

    def step():
        vals.grad = x.grad = None
        adj = L.sparse_coo_tensor(idx, vals, (nodes, nodes))
        L.sparse.mm(adj, x).sum().backward()

    return step


def linear_step(L, quick, dtype):
    n, batch = (128, 32) if quick else (1024, 256)
    L.manual_seed(0)
    lin = L.nn.Linear(n, n).to(getattr(L, dtype))
    x = L.randn(batch, n).to(getattr(L, dtype)).requires_grad_()

    def step():
        lin.zero_grad()
        x.grad = None
        lin(x).sum().backward()

    return step


def run(name, quick, compare, ember, torch):
    """Run workload ``name`` through the harness's ``compare``."""
    if name == "import":

        def importer(module):
            return lambda: subprocess.run([sys.executable, "-c", f"import {module}"], check=True)

        tfn = importer("torch") if torch is not None else None
        compare(
            "python -c 'import ...'", importer("ember"), tfn, 1, rounds=1 if quick else 5, unit="ms"
        )
        return
    if name == "bf16-linear":
        e16, e32 = linear_step(ember, quick, "bfloat16"), linear_step(ember, quick, "float32")
        t16 = linear_step(torch, quick, "bfloat16") if torch is not None else None
        t32 = linear_step(torch, quick, "float32") if torch is not None else None
        number = 5 if quick else 10
        me16, mt16 = compare("Linear bf16, fwd+bwd", e16, t16, number, unit="ms")
        me32, mt32 = compare("Linear fp32, fwd+bwd", e32, t32, number, unit="ms")
        line = f"  ember bf16/fp32 {me16 / me32:5.2f} (target <= 1.2)"
        if mt16:
            line += f"   torch bf16/fp32 {mt16 / mt32:5.2f}"
        print(line)
        return
    build, label, number = {
        "linalg": (linalg_step, "solve+svd+cholesky 64x64x64 f64, fwd+bwd", 3),
        "fft": (fft_step, "rfft2+irfft2 64x32x32x32 f32, fwd+bwd", 3),
        "sparse-mm": (sparse_step, "sparse.mm 10k nodes 100k edges x 64, fwd+bwd", 5),
    }[name]
    compare(
        label,
        build(ember, quick),
        build(torch, quick) if torch is not None else None,
        number,
        unit="ms",
    )
