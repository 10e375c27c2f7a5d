"""cartesian_prod, combinations, block_diag, diagflat, rot90, vander, msort against torch:
integer and mixed dtypes, empty results, Tensor methods, out=, errors (random float cases
are op-table rows)."""

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


def same(call):
    got, want = call(ember), call(torch)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())


def raises_like_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as ee:
        call(ember)
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.cartesian_prod(lib.tensor([1, 2, 3]), lib.tensor([4, 5])),
        lambda lib: lib.cartesian_prod(lib.tensor([1, 2, 3])),
        lambda lib: lib.cartesian_prod(lib.tensor([1.0, 2]), lib.tensor([], dtype=lib.float32)),
        lambda lib: lib.combinations(lib.tensor([1, 2, 3, 4]), 3),
        lambda lib: lib.combinations(lib.tensor([1, 2, 3]), 4),
        lambda lib: lib.combinations(lib.tensor([1, 2, 3]), 0),
        lambda lib: lib.combinations(lib.tensor([1, 2, 3]), 1),
        lambda lib: lib.combinations(lib.tensor([1, 2, 3]), 3, with_replacement=True),
        lambda lib: lib.block_diag(lib.tensor(2), lib.tensor([1.0, 2.0]), lib.ones(2, 2).int()),
        lambda lib: lib.block_diag(lib.tensor([[1, 2]]), lib.zeros(0, 3, dtype=lib.int64)),
        lambda lib: lib.block_diag(),
        lambda lib: lib.diagflat(lib.tensor([[1, 2], [3, 4]]), -1),
        lambda lib: lib.tensor([[1, 2], [3, 4]]).diagflat(2),
        lambda lib: lib.rot90(lib.arange(24).reshape(2, 3, 4), 1, [2, 0]),
        lambda lib: lib.arange(6).reshape(2, 3).rot90(-3, [1, 0]),
        lambda lib: lib.arange(6).reshape(2, 3).rot90(0),
        lambda lib: lib.vander(lib.tensor([1, 2, 3], dtype=lib.int32)),
        lambda lib: lib.vander(lib.tensor([True, False]), 3, increasing=True),
        lambda lib: lib.vander(lib.tensor([1.5, -2.0]), 0),
        lambda lib: lib.msort(lib.tensor([[3, 1], [2, 4], [0, 9]])),
        lambda lib: lib.tensor(3.0).msort(),
    ],
)
def test_values_and_dtypes(call):
    same(call)


def test_rot90_k0_is_a_copy_and_msort_out():
    x = ember.arange(4).reshape(2, 2)
    y = x.rot90(4)
    y[0, 0] = 9
    assert x[0, 0].item() == 0
    out = ember.empty(0, dtype=ember.int64)
    assert ember.msort(ember.tensor([3, 1, 2]), out=out) is out
    assert out.tolist() == [1, 2, 3]


def test_gradients_flow_to_every_input():
    def grads(lib):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([[3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        out = lib.block_diag(a, b).sum() + lib.cartesian_prod(a, a).prod(1).sum()
        out = out + lib.combinations(a, 2, with_replacement=True).pow(2).sum()
        out.backward()
        return a.grad, b.grad

    for g, w in zip(grads(ember), grads(torch)):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.cartesian_prod(lib.tensor([1, 2, 3]), lib.tensor([4.0, 5.0])),
        lambda lib: lib.cartesian_prod(lib.ones(3, 1)),
        lambda lib: lib.combinations(lib.tensor([1, 2, 3]), -1),
        lambda lib: lib.combinations(lib.ones(3, 1)),
        lambda lib: lib.block_diag(lib.ones(2, 2, 2)),
        lambda lib: lib.rot90(lib.ones(2, 3), 1, [0, 0]),
        lambda lib: lib.rot90(lib.ones(2, 3), 1, [0, 1, 2]),
        lambda lib: lib.rot90(lib.ones(3), 1, [0, 1]),
        lambda lib: lib.rot90(lib.ones(2, 3), 1, [0, 5]),
        lambda lib: lib.vander(lib.ones(3, 1)),
        lambda lib: lib.vander(lib.ones(3), -1),
    ],
)
def test_errors_match_torch(call):
    raises_like_torch(call)
