"""DataLoader with worker processes: the same batches as num_workers=0, seeding, worker_init_fn
and get_worker_info, IterableDataset sharding, errors re-raised with the worker's id, timeouts,
dead workers, clean shutdown (no live process, no shared-memory file left), persistent workers,
big batches through shared memory. At most 2 workers (the test machine has 2 cores; more warns)."""

from __future__ import annotations

import gc
import os
import time

import numpy as np
import pytest

import ember
import ember.utils.data as ed
from ember.utils.data._utils import worker as W

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork start method needed")


def _ids(n=23):
    return ed.TensorDataset(ember.arange(n * 2, dtype=ember.float64).reshape(n, 2), ember.arange(n))


def _flat(batches):
    """Batches as nested Python lists, for exact comparison."""

    def conv(x):
        if isinstance(x, ember.Tensor):
            return (str(x.dtype), x.tolist())
        if isinstance(x, dict):
            return {k: conv(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [conv(v) for v in x]
        return x

    return [conv(b) for b in batches]


def _shm_files(it=None):
    prefix = it._pool.shm_prefix if it is not None else "ember-dl-"
    return [n for n in os.listdir(W.SHM_DIR) if n.startswith(prefix)] if W.shm_available() else []


class _Dicts(ed.Dataset):
    def __len__(self):
        return 11

    def __getitem__(self, i):
        return {
            "x": np.full(3, i, dtype=np.float32),
            "i": i,
            "tag": f"t{i}",
            "pair": (i, float(i) / 2),
        }


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"batch_size": 4},
        {"batch_size": 4, "drop_last": True},
        {"batch_size": None},
        {"batch_size": 5, "shuffle": True},
        {"batch_sampler": [[3, 1], [0], [2, 2, 2]]},
    ],
)
def test_same_batches_as_the_main_process(workers, kwargs):
    for ds in (_ids(), _Dicts()):

        def run(n, ds=ds):
            kw = dict(kwargs)
            if kw.get("shuffle"):
                kw["generator"] = ember.Generator().manual_seed(21)
            return _flat(ed.DataLoader(ds, num_workers=n, **kw))

        assert run(workers) == run(0)


def test_shuffled_epochs_match_the_main_process_with_a_seeded_generator():
    def epochs(n):
        loader = ed.DataLoader(
            _ids(),
            batch_size=6,
            shuffle=True,
            num_workers=n,
            generator=ember.Generator().manual_seed(3),
        )
        return [_flat(loader) for _ in range(2)]

    e0, e2 = epochs(0), epochs(2)
    assert e0 == e2 and e2[0] != e2[1]


class _Seeds(ed.Dataset):
    """Each sample reports the worker that made it, its seed, and draws from ember's default
    generator, Python's random and NumPy's global generator."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        import random

        info = ed.get_worker_info()
        try:
            info.id = 99
            frozen = False
        except AttributeError:  # torch: dataclasses.FrozenInstanceError, an AttributeError
            frozen = True
        return {
            "frozen": frozen,
            "id": info.id,
            "n": info.num_workers,
            "seed": info.seed,
            "same_ds": info.dataset is not None and type(info.dataset) is _Seeds,
            "ember": ember.rand(1).item(),
            "py": random.random(),
            "np": float(np.random.rand()),
        }


def test_worker_seeding_info_and_reproducibility():
    def run(seed):
        loader = ed.DataLoader(
            _Seeds(), batch_size=None, num_workers=2, generator=ember.Generator().manual_seed(seed)
        )
        return list(loader)

    a, b, c = run(5), run(5), run(6)
    assert a == b and a != c
    g = ember.Generator().manual_seed(5)
    base = int(ember.empty((), dtype=ember.int64).random_(generator=g).item())
    assert [s["id"] for s in a] == [0, 1] * 4 and all(s["n"] == 2 and s["same_ds"] for s in a)
    assert all(s["frozen"] for s in a)
    assert [s["seed"] for s in a[:2]] == [base, base + 1]
    for key in ("ember", "py", "np"):  # workers do not repeat each other's random streams
        assert a[0][key] != a[1][key]
    ember.manual_seed(base + 1)
    assert a[1]["ember"] == ember.rand(1).item()


def _record_init(worker_id):
    info = ed.get_worker_info()
    assert info.id == worker_id
    info.dataset.inited = worker_id


class _InitAware(ed.Dataset):
    inited = None

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.inited


def test_worker_init_fn_runs_in_each_worker():
    out = list(
        ed.DataLoader(_InitAware(), batch_size=None, num_workers=2, worker_init_fn=_record_init)
    )
    assert out == [0, 1, 0, 1] and _InitAware.inited is None  # the main copy is untouched


class _Stream(ed.IterableDataset):
    def __init__(self, n, shard=True):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = ed.get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


def test_iterable_dataset_sharded_by_worker_info():
    got = [v for b in ed.DataLoader(_Stream(11), batch_size=3, num_workers=2) for v in b.tolist()]
    assert sorted(got) == list(range(11))
    single = [b.tolist() for b in ed.DataLoader(_Stream(11), batch_size=3)]
    assert sorted(v for b in single for v in b) == list(range(11))
    dropped = [
        b.tolist() for b in ed.DataLoader(_Stream(11), batch_size=3, num_workers=2, drop_last=True)
    ]
    assert all(len(b) == 3 for b in dropped) and len(dropped) == 3  # 6 + 5 items: 2 + 1 full


def test_iterable_dataset_without_sharding_repeats_and_warns():
    loader = ed.DataLoader(_Stream(4, shard=False), batch_size=None, num_workers=2)
    assert len(loader) == 4
    with pytest.warns(UserWarning, match="multiprocessing data-loading"):
        got = list(loader)
    assert sorted(got) == [0, 0, 1, 1, 2, 2, 3, 3]


class _Fails(ed.Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        if i == 6:
            raise KeyError(f"missing sample {i}")
        if i == 9:
            raise ValueError(f"bad sample {i}")
        return i


def test_worker_exception_reraised_with_worker_id_and_shutdown():
    it = iter(ed.DataLoader(_Fails(), batch_size=2, num_workers=2))
    assert next(it).tolist() == [0, 1]
    assert next(it).tolist() == [2, 3]
    assert next(it).tolist() == [4, 5]
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 1") as e:
        next(it)
    assert "missing sample 6" in str(e.value) and "Traceback" in str(e.value)
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 0"):
        next(it)  # batch [8, 9] (task 4, worker 0)
    assert next(it).tolist() == [10, 11]
    workers = it._workers
    del it, e
    gc.collect()
    assert not any(w.is_alive() for w in workers)


def test_error_in_worker_init_fn_is_reraised():
    def boom(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")

    with pytest.raises(RuntimeError, match="in DataLoader worker process 0"):
        list(ed.DataLoader(range(4), num_workers=1, worker_init_fn=boom))


class _Unpicklable(ed.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return lambda: i  # a batch that cannot cross the process boundary


def test_a_batch_that_cannot_be_pickled_raises_instead_of_hanging():
    loader = ed.DataLoader(_Unpicklable(), batch_size=None, num_workers=1, timeout=20)
    with pytest.raises(Exception, match="DataLoader worker process 0"):
        list(loader)


class _Slow(ed.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(1.0)
        return i


def test_timeout():
    loader = ed.DataLoader(_Slow(), batch_size=None, num_workers=1, timeout=0.3)
    t = time.perf_counter()
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0\.3 seconds"):
        next(iter(loader))
    assert time.perf_counter() - t < 2.5


class _Dies(ed.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(3)


def test_dead_worker_is_reported():
    with pytest.raises(
        RuntimeError,
        match=r"DataLoader worker \(pid\(s\) \d+\) exited "
        "unexpectedly",
    ):
        list(ed.DataLoader(_Dies(), batch_size=None, num_workers=1))


def test_deleting_the_iterator_mid_epoch_stops_workers_and_frees_shared_memory():
    big = ed.TensorDataset(ember.randn(48, 256, 256))  # 1 MB batches go through shared memory
    it = iter(ed.DataLoader(big, batch_size=4, num_workers=2, prefetch_factor=3))
    first = next(it)
    assert first[0].shape == (4, 256, 256)
    workers, prefix = it._workers, it._pool.shm_prefix
    if prefix is not None:  # the workers fill the prefetch queue with shared-memory batches
        deadline = time.monotonic() + 10
        while not _shm_files(it) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _shm_files(it)
    del it
    gc.collect()
    assert not any(w.is_alive() for w in workers)
    if prefix is not None:
        assert not [n for n in os.listdir(W.SHM_DIR) if n.startswith(prefix)]
    np.testing.assert_array_equal(first[0].numpy(), big.tensors[0][:4].numpy())


def test_big_batches_cross_through_shared_memory_exactly():
    x = ember.randn(40, 3, 64, 64)  # 768 KB batches of 16: above SHARED_MIN_BYTES
    y = ember.arange(40)
    loader = ed.DataLoader(ed.TensorDataset(x, y), batch_size=16, num_workers=2)
    it = iter(loader)
    out = list(it)
    assert [b[0].shape[0] for b in out] == [16, 16, 8]
    np.testing.assert_array_equal(np.concatenate([b[0].numpy() for b in out]), x.numpy())
    np.testing.assert_array_equal(np.concatenate([b[1].numpy() for b in out]), y.numpy())
    assert out[0][0].dtype == ember.float32 and not out[0][0].requires_grad
    if W.shm_available():
        import mmap

        root = out[0][0]._data
        while isinstance(root, np.ndarray):
            root = root.base
        assert isinstance(root.obj, mmap.mmap)  # it came through shared memory, not the pipe
    out[0][0].add_(1)  # the mapped memory is private to this process and writable
    assert _shm_files(it) == [] and not any(w.is_alive() for w in it._workers)


def test_in_order_false_delivers_every_batch():
    got = [
        b[1].tolist() for b in ed.DataLoader(_ids(), batch_size=3, num_workers=2, in_order=False)
    ]
    assert sorted(v for b in got for v in b) == list(range(23))


def test_persistent_workers_survive_epochs():
    loader = ed.DataLoader(
        _ids(),
        batch_size=5,
        num_workers=2,
        persistent_workers=True,
        shuffle=True,
        generator=ember.Generator().manual_seed(1),
    )
    e1 = _flat(loader)
    pids = [w.pid for w in loader._iterator._workers]
    it = iter(loader)
    next(it)  # a new epoch cut short: the next one still starts clean
    e3 = _flat(loader)
    assert [w.pid for w in loader._iterator._workers] == pids
    assert all(w.is_alive() for w in loader._iterator._workers)
    ids = sorted(v for b in e3 for v in b[1][1])
    assert ids == list(range(23)) and e1 != e3
    workers = loader._iterator._workers
    del loader, it
    gc.collect()
    assert not any(w.is_alive() for w in workers)


def test_workers_exit_at_the_end_of_an_epoch():
    it = iter(ed.DataLoader(_ids(), batch_size=8, num_workers=2))
    assert len(list(it)) == 3
    assert not any(w.is_alive() for w in it._workers)


def test_spawn_context():
    loader = ed.DataLoader(_ids(9), batch_size=4, num_workers=1, multiprocessing_context="spawn")
    assert _flat(loader) == _flat(ed.DataLoader(_ids(9), batch_size=4))
