"""dist, cdist, pdist, renorm against torch: gradients at zero distance and at ties (p=inf),
batch broadcasting, the matrix-product and direct paths, in-place renorm_, errors (random
float cases are op-table rows)."""

from __future__ import annotations

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)
pytestmark = needs_torch
INF = float("inf")
MODES = ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"]


def close(a, b, rtol=1e-10, atol=1e-12):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def raises_like_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as ee:
        call(ember)
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, INF])
def test_cdist_gradient_with_repeated_rows_and_ties(p):
    rows = [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [2.0, -1.0]]

    def run(lib):
        x = lib.tensor(rows, dtype=lib.float64, requires_grad=True)
        d = lib.cdist(x, x, p, compute_mode="donot_use_mm_for_euclid_dist")
        (g,) = lib.autograd.grad(d.sum(), x)
        return d, g

    for a, b in zip(run(ember), run(torch)):
        close(a, b)


@pytest.mark.parametrize("mode", MODES)
def test_cdist_batched_broadcast_and_large(mode):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 1, 40, 5)), rng.standard_normal((4, 30, 5))

    def run(lib):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        d = lib.cdist(x, y, compute_mode=mode)
        d.backward(lib.ones_like(d))
        return d, x.grad, y.grad

    for e, t in zip(run(ember), run(torch)):
        close(e, t, rtol=1e-9)


@pytest.mark.parametrize("p", [1.0, 2.0, INF])
def test_cdist_2d_float32(p):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((50, 8)).astype(np.float32), rng.standard_normal((60, 8))
    b = b.astype(np.float32)
    close(
        ember.cdist(ember.tensor(a), ember.tensor(b), p),
        torch.cdist(torch.tensor(a), torch.tensor(b), p),
        rtol=1e-5,
        atol=1e-5,
    )


def test_pdist_and_dist():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 3))
    for p in (0.0, 1.0, 2.0, 3.5, INF):
        close(ember.pdist(ember.tensor(a), p), torch.pdist(torch.tensor(a), p))
        close(
            ember.tensor(a).dist(ember.tensor(a[::-1].copy()), p),
            torch.tensor(a).dist(torch.tensor(a[::-1].copy()), p),
        )


def test_renorm_inplace_and_out():
    a = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    e, t = ember.tensor(a), torch.tensor(a)
    assert e.renorm_(2, 0, 1.0) is e
    close(e, t.renorm_(2, 0, 1.0))
    out = ember.empty(0, dtype=ember.float64)
    assert ember.renorm(ember.tensor(a), 1, 1, 0.5, out=out) is out
    close(out, torch.renorm(torch.tensor(a), 1, 1, 0.5))


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.cdist(lib.ones(3, 4).int(), lib.ones(5, 4).int()),
        lambda lib: lib.cdist(lib.ones(3, 4), lib.ones(5, 4).int()),
        lambda lib: lib.cdist(lib.ones(3, 4).double(), lib.ones(5, 4)),
        lambda lib: lib.cdist(lib.ones(3, 4), lib.ones(5, 4), -1),
        lambda lib: lib.cdist(lib.ones(4), lib.ones(5, 4)),
        lambda lib: lib.cdist(lib.ones(3, 4), lib.ones(5, 3)),
        lambda lib: lib.cdist(lib.ones(3, 4), lib.ones(5, 4), compute_mode="foo"),
        lambda lib: lib.pdist(lib.ones(3, 4).int()),
        lambda lib: lib.pdist(lib.ones(3)),
        lambda lib: lib.pdist(lib.ones(3, 2), -1),
        lambda lib: lib.dist(lib.tensor([1, 2]), lib.tensor([3, 4])),
        lambda lib: lib.renorm(lib.ones(2, 3), -1, 0, 1),
        lambda lib: lib.renorm(lib.ones(2, 3), 2, 0, -1),
        lambda lib: lib.renorm(lib.ones(3), 2, 0, 1),
        lambda lib: lib.renorm(lib.ones(2, 3).long(), 2, 0, 1),
    ],
)
def test_errors_match_torch(call):
    raises_like_torch(call)
