"""ember.utils (swap_tensors, set_module, dlpack, deterministic) and
ember.utils.data.DistributedSampler against torch (issue 12)."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import ember
from ember.utils.data import DataLoader, DistributedSampler, TensorDataset

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch (pip install torch)")


# ---- swap_tensors --------------------------------------------------------------------------------
def _swap_outcome(L):
    """What a user sees after ``swap_tensors`` of a Parameter (with a grad and an attribute)
    and a plain int64 tensor, and after training the swapped parameter."""
    a = L.nn.Parameter(L.tensor([1.0, 2.0]))
    a.grad = L.tensor([0.5, 0.5])
    a.note = "a"
    b = L.arange(6, dtype=L.int64).reshape(2, 3)
    ida, idb = id(a), id(b)
    L.utils.swap_tensors(a, b)
    seen = [
        (id(a), id(b)) == (ida, idb),
        (a.tolist(), str(a.dtype), type(a).__name__, a.grad, a.requires_grad),
        hasattr(a, "note"),
        (b.tolist(), str(b.dtype), type(b).__name__, b.requires_grad, b.is_leaf),
        (getattr(b, "note", None), b.grad.tolist()),
    ]
    (b * 3).sum().backward()  # autograd reaches the swapped parameter's new contents
    return seen + [b.grad.tolist()]


def test_swap_tensors_swaps_everything_but_identity():
    assert _swap_outcome(ember) == [
        True,
        ([[0, 1, 2], [3, 4, 5]], "ember.int64", "Tensor", None, False),
        False,
        ([1.0, 2.0], "ember.float32", "Parameter", True, True),
        ("a", [0.5, 0.5]),
        [3.5, 3.5],
    ]


@needs_torch
def test_swap_tensors_matches_torch():
    ours, theirs = _swap_outcome(ember), _swap_outcome(torch)
    for o, t in zip(ours, theirs, strict=True):
        assert str(o).replace("ember.", "torch.") == str(t)


def test_swap_tensors_in_a_module_keeps_optimizer_references():
    lin = ember.nn.Linear(2, 2)
    opt = ember.optim.SGD(lin.parameters(), lr=0.1)
    new = ember.nn.Parameter(ember.zeros(2, 2))
    ember.utils.swap_tensors(lin.weight, new)
    assert opt.param_groups[0]["params"][0] is lin.weight
    assert lin.weight.abs().sum().item() == 0.0


@needs_torch
@pytest.mark.parametrize("which", ["t1", "t2"])
def test_swap_tensors_refuses_weakrefs_as_torch(which):
    outcomes = []
    for mod in (torch, ember):
        t1, t2 = mod.zeros(2), mod.ones(2)
        ref = weakref.ref(t1 if which == "t1" else t2)  # noqa: F841 - kept alive on purpose
        with pytest.raises(RuntimeError) as err:
            mod.utils.swap_tensors(t1, t2)
        outcomes.append(str(err.value))
    assert outcomes[0] == outcomes[1]


# ---- set_module, dlpack, deterministic ----------------------------------------------------------
@needs_torch
def test_set_module_matches_torch():
    def f():
        pass

    ember.utils.set_module(f, "somewhere")
    assert f.__module__ == "somewhere"
    for mod in (torch, ember):
        with pytest.raises(TypeError, match="The mod argument should be a string"):
            mod.utils.set_module(f, 3)


@needs_torch
def test_dlpack_matches_torch():
    from ember.utils import dlpack

    assert dlpack.from_dlpack is ember.from_dlpack
    assert {k: int(v) for k, v in dlpack.DLDeviceType.__members__.items()} == {
        k: int(v) for k, v in torch.utils.dlpack.DLDeviceType.__members__.items()
    }
    e = ember.arange(4.0)
    # an ember capsule is read by torch without a copy, and torch's tensor by ember
    t = torch.utils.dlpack.from_dlpack(dlpack.to_dlpack(e))
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    back = dlpack.from_dlpack(torch.arange(3.0))
    assert back.tolist() == [0.0, 1.0, 2.0]
    e[0] = 7.0
    assert t[0].item() == 7.0


@needs_torch
def test_deterministic_switch_matches_torch():
    for mod in (torch, ember):
        d = mod.utils.deterministic
        assert d.fill_uninitialized_memory is True
        d.fill_uninitialized_memory = False
        assert d.fill_uninitialized_memory is False
        d.fill_uninitialized_memory = True
    with pytest.raises(RuntimeError) as want:
        torch.utils.deterministic.fill_uninitialized_memory = 1
    with pytest.raises(RuntimeError) as got:
        ember.utils.deterministic.fill_uninitialized_memory = 1
    assert str(got.value) == str(want.value)


# ---- DistributedSampler -------------------------------------------------------------------------
CASES = [(10, 3, False), (10, 3, True), (9, 3, False), (2, 5, False), (11, 4, True), (0, 2, False)]


@needs_torch
@pytest.mark.parametrize("n,replicas,drop_last", CASES)
def test_distributed_sampler_splits_as_torch(n, replicas, drop_last):
    for rank in range(replicas):
        kw = dict(num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        ours = DistributedSampler(range(n), **kw)
        theirs = torch.utils.data.DistributedSampler(range(n), **kw)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs)
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (11, 4, True), (7, 2, False)])
def test_distributed_sampler_shuffle_partitions_the_same_permutation(n, replicas, drop_last):
    def shares(epoch, seed=0):
        out = []
        for rank in range(replicas):
            s = DistributedSampler(
                range(n), num_replicas=replicas, rank=rank, seed=seed, drop_last=drop_last
            )
            s.set_epoch(epoch)
            out.append(list(s))
        return out

    first = shares(0)
    assert shares(0) == first  # every replica (and every rerun) builds the same permutation
    assert shares(1) != first and shares(0, seed=1) != first
    flat = [i for share in first for i in share]
    if drop_last:
        assert len(set(flat)) == len(flat) == len(first[0]) * replicas
    else:
        assert set(flat) == set(range(n))
    assert len({len(s) for s in first}) == 1


@needs_torch
@pytest.mark.parametrize(
    "kwargs", [{}, {"num_replicas": 2}, {"rank": 0}, {"num_replicas": 2, "rank": 2}]
)
def test_distributed_sampler_errors(kwargs):
    assert ember.distributed.is_available() is False
    if "num_replicas" in kwargs and "rank" in kwargs:
        with pytest.raises(ValueError) as want:
            torch.utils.data.DistributedSampler(range(4), **kwargs)
        with pytest.raises(ValueError) as got:
            DistributedSampler(range(4), **kwargs)
        assert str(got.value) == str(want.value)
    else:
        # NOTE: torch with a distributed package reports the missing process group instead
        with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
            DistributedSampler(range(4), **kwargs)


def test_distributed_sampler_drives_a_dataloader():
    ds = TensorDataset(ember.arange(10.0))
    seen = []
    for rank in range(2):
        sampler = DistributedSampler(ds, num_replicas=2, rank=rank, shuffle=True, seed=3)
        sampler.set_epoch(1)
        seen += [
            x.item() for (batch,) in DataLoader(ds, batch_size=2, sampler=sampler) for x in batch
        ]
    assert sorted(seen) == [float(i) for i in range(10)]
    assert np.unique(seen).size == 10


@needs_torch
@pytest.mark.parametrize("which", ["broadcast_warning", "keepdim_warning"])
def test_backcompat_switches_match_torch(which):
    outcomes = []
    for mod in (torch, ember):
        w = getattr(mod.utils.backcompat, which)
        seen = [w.enabled]
        w.enabled = True
        seen.append(w.enabled)
        w.enabled = False
        for bad in (1, None):
            with pytest.raises(RuntimeError) as err:
                w.enabled = bad
            seen.append(str(err.value))
        outcomes.append(seen)
    assert outcomes[1] == outcomes[0]


# ---- weak ---------------------------------------------------------------------------------------
def _weak_story(mod):
    import gc

    w = mod.utils.weak
    d = w.WeakTensorKeyDictionary()
    a, b = mod.zeros(2), mod.zeros(2)  # equal values, different tensors
    d[a], d[b] = "a", "b"
    seen = [len(d), d[a], d[b], a in d, 3 in d, d.get(mod.ones(1), "none")]
    del a
    gc.collect()
    seen += [len(d), sorted(d.values()), d.setdefault(b, "x"), d.pop(b), len(d)]
    r = w.TensorWeakRef(b)
    seen.append(r() is b)
    with pytest.raises(AssertionError) as err:
        w.TensorWeakRef(3)
    seen.append(str(err.value))
    c = mod.ones(1)
    r1, r2 = w.WeakIdRef(c), w.WeakIdRef(c)
    seen += [r1 == r2, hash(r1) == id(c), r1 == w.WeakIdRef(mod.ones(1))]
    return seen


@needs_torch
def test_weak_matches_torch():
    assert _weak_story(ember) == _weak_story(torch)
