"""searchsorted, bucketize, isin, unravel_index against torch: batched sequences, sorter=,
side=/right=, out_int32=, scalars, promotion of mixed dtypes, errors."""

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
S = [1, 3, 5, 7, 9]
V = [[3, 6, 9, 0], [3, 6, 10, 1]]


def same(call):
    got, want = call(ember), call(torch)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def raises_like_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as ee:
        call(ember)
    assert str(ee.value).replace("ember", "torch") == str(te.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.searchsorted(lib.tensor(S), lib.tensor(V)),
        lambda lib: lib.searchsorted(lib.tensor(S), lib.tensor(V), right=True),
        lambda lib: lib.searchsorted(lib.tensor(S), lib.tensor(V), side="right"),
        lambda lib: lib.searchsorted(lib.tensor(S), lib.tensor(V), out_int32=True),
        lambda lib: lib.searchsorted(lib.tensor(S), 5),
        lambda lib: lib.searchsorted(lib.tensor(S), 5.5),
        lambda lib: lib.searchsorted(lib.tensor(S), lib.tensor(V).float()),
        lambda lib: lib.searchsorted(lib.tensor(S).double(), lib.tensor(V)),
        lambda lib: lib.searchsorted(
            lib.tensor([[1, 3, 5], [2, 4, 6]]), lib.tensor([[3, 6, 9], [3, 6, 10]])
        ),
        lambda lib: lib.searchsorted(
            lib.tensor([[1.0, 3, 5], [2, 4, 6]]),
            lib.tensor([[3.0, 6, 9, 2, 2], [2, 4, 6, 0, 7]]),
            right=True,
        ),
        lambda lib: lib.searchsorted(
            lib.tensor([5, 1, 3]), lib.tensor([2, 4, 5]), sorter=lib.tensor([1, 2, 0])
        ),
        lambda lib: lib.searchsorted(
            lib.tensor([[5, 1, 3], [0, 9, 4]]),
            lib.tensor([[2, 4], [5, 9]]),
            sorter=lib.tensor([[1, 2, 0], [0, 2, 1]]),
            side="right",
        ),
        lambda lib: lib.bucketize(lib.tensor(V), lib.tensor(S)),
        lambda lib: lib.bucketize(lib.tensor(V), lib.tensor(S), right=True, out_int32=True),
        lambda lib: lib.bucketize(3, lib.tensor(S)),
        lambda lib: lib.isin(lib.tensor([1, 2, 3, 4]), lib.tensor([2, 4])),
        lambda lib: lib.isin(lib.tensor([1, 2, 3, 4]), 2),
        lambda lib: lib.isin(2, lib.tensor([2, 4])),
        lambda lib: lib.isin(lib.tensor([1.0, 2]), lib.tensor([2, 4])),
        lambda lib: lib.isin(lib.tensor([1.5, 2]), 2),
        lambda lib: lib.isin(lib.tensor([[1, 2], [3, 4]]), lib.tensor([[2], [4]]), invert=True),
        lambda lib: lib.isin(lib.tensor([1, 2, 3]), lib.tensor([1, 3]), assume_unique=True),
        lambda lib: lib.unravel_index(lib.tensor([4, 5, -1, 6, -7]), (2, 3)),
        lambda lib: lib.unravel_index(lib.tensor(4), (2, 3)),
        lambda lib: lib.unravel_index(lib.tensor([1], dtype=lib.int32), (2, 3)),
        lambda lib: lib.unravel_index(lib.tensor([[1, 2]]), lib.Size([2, 3])),
        lambda lib: lib.unravel_index(lib.tensor([1]), 6),
    ],
)
def test_values_and_dtypes(call):
    same(call)


def test_batched_searchsorted_random():
    rng = np.random.default_rng(0)
    seq = np.sort(rng.integers(0, 20, (3, 4, 10)), -1)
    vals = rng.integers(-2, 22, (3, 4, 7))
    for right in (False, True):
        same(lambda lib, r=right: lib.searchsorted(lib.tensor(seq), lib.tensor(vals), right=r))
        same(
            lambda lib, r=right: lib.searchsorted(
                lib.tensor(seq * 0.5), lib.tensor(vals * 0.5), right=r
            )
        )


def test_out_and_empty():
    out = ember.empty(0, dtype=ember.int64)
    r = ember.searchsorted(ember.tensor(S), ember.tensor([4, 8]), out=out)
    assert r is out
    assert out.tolist() == [2, 4]
    assert ember.unravel_index(ember.tensor([1]), ()) == ()
    out = ember.empty(0, dtype=ember.bool)
    assert ember.isin(ember.tensor([1, 2]), 2, out=out) is out
    assert out.tolist() == [False, True]


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.searchsorted(lib.tensor(S), lib.tensor(V), side="left", right=True),
        lambda lib: lib.searchsorted(lib.tensor(S), lib.tensor(V), side="foo"),
        lambda lib: lib.searchsorted(lib.tensor([[1, 3, 5], [2, 4, 6]]), lib.tensor([[3, 6]])),
        lambda lib: lib.searchsorted(lib.tensor([[1, 3, 5], [2, 4, 6]]), lib.tensor(3)),
        lambda lib: lib.searchsorted(lib.tensor(3), lib.tensor(3)),
        lambda lib: lib.searchsorted(
            lib.tensor([5, 1, 3]), lib.tensor([2]), sorter=lib.tensor([1])
        ),
        lambda lib: lib.searchsorted(
            lib.tensor([5, 1, 3]), lib.tensor([2]), sorter=lib.tensor([1, 2, 5])
        ),
        lambda lib: lib.bucketize(lib.tensor([3, 6]), lib.tensor([[1, 2]])),
        lambda lib: lib.isin(lib.tensor([True, False]), lib.tensor([True])),
        lambda lib: lib.unravel_index(lib.tensor([1.0]), (2, 3)),
        lambda lib: lib.unravel_index(lib.tensor([True]), (2, 3)),
        lambda lib: lib.unravel_index(lib.tensor([1]), (2, -3)),
        lambda lib: lib.unravel_index(lib.tensor([0]), (2, 0)),
    ],
)
def test_errors_match_torch(call):
    raises_like_torch(call)
