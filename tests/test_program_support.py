"""What real PyTorch programs call besides layers: ``Tensor.new_*``, ``tril_indices`` /
``triu_indices``, ``cuda.is_available()`` and the ``backends`` switches, checked against torch."""

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


@needs_torch
@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: x.new_zeros(2, 3),
        lambda m, x: x.new_zeros((2, 3)),
        lambda m, x: x.new_ones(4),
        lambda m, x: x.new_ones((1, 2), dtype=m.int64),
        lambda m, x: x.new_full((2, 2), 7),
        lambda m, x: x.new_full([3], 2.5, dtype=m.float32),
        lambda m, x: x.new_zeros(()),
    ],
)
def test_new_methods_match_torch(call):
    ours = call(ember, ember.ones(2, dtype=ember.float64))
    theirs = call(torch, torch.ones(2, dtype=torch.float64))
    assert ours.shape == tuple(theirs.shape) and str(ours.dtype)[6:] == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@needs_torch
def test_new_empty_matches_torch_in_shape_and_dtype():
    ours = ember.ones(2, dtype=ember.float64).new_empty((0, 3))
    theirs = torch.ones(2, dtype=torch.float64).new_empty((0, 3))
    assert ours.shape == tuple(theirs.shape) and ours.dtype == ember.float64


def test_new_methods_follow_device_and_requires_grad():
    x = ember.ones(2, device="meta")
    assert x.new_zeros(3).is_meta
    y = ember.ones(2).new_ones(3, requires_grad=True)
    assert y.requires_grad and y.is_leaf


@needs_torch
@pytest.mark.parametrize(
    "row, col, offset", [(3, 3, 0), (3, 4, 1), (4, 3, -1), (0, 3, 0), (5, 5, 7), (5, 5, -9)]
)
@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_triangle_indices_match_torch(name, row, col, offset):
    ours = getattr(ember, name)(row, col, offset)
    theirs = getattr(torch, name)(row, col, offset)
    assert ours.dtype == ember.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_cuda_is_unavailable_and_the_usual_device_choice_picks_cpu():
    device = ember.device("cuda" if ember.cuda.is_available() else "cpu")
    assert device.type == "cpu" and ember.cuda.device_count() == 0
    ember.cuda.manual_seed_all(0)  # accepted, as torch without a GPU
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        ember.cuda.synchronize()


def test_backend_switches_can_be_set():
    ember.backends.cudnn.benchmark = True
    ember.backends.cudnn.deterministic = True
    ember.backends.cudnn.benchmark = False
    assert not ember.backends.mps.is_available()
