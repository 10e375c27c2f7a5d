"""``DataLoader`` (``torch.utils.data.dataloader``): batches from a dataset, in the main process
or in worker processes.

The main process owns the sampler, so the order of indices, and hence every batch, is the same
whatever ``num_workers`` is. With workers, batch ``k`` goes to worker ``k % num_workers`` (round
robin over live workers), up to ``prefetch_factor`` batches per worker are in flight, and results
are delivered in order (``in_order=False``: as they arrive). Each iterator draws one int64
``base_seed`` from the loader's ``generator`` (the default generator when None), as torch does,
also with ``num_workers=0``; worker ``i`` seeds ember, Python's ``random`` and NumPy's global
generator from ``base_seed + i``. Workers are forked on Linux, spawned elsewhere.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import warnings
import weakref
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from ember.utils.data._utils import collate as _collate
from ember.utils.data._utils import worker as _worker
from ember.utils.data._utils.fetch import create_fetcher
from ember.utils.data.dataset import Dataset, IterableDataset
from ember.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    _draw_seed,
)

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

T_co = TypeVar("T_co", covariant=True)
default_collate = _collate.default_collate
default_convert = _collate.default_convert
get_worker_info = _worker.get_worker_info
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")
_serial = itertools.count()  # names each multiprocessing iterator's shared-memory files


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        return create_fetcher(
            kind == _DatasetKind.Iterable, dataset, auto_collation, collate_fn, drop_last
        )


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: ``None`` forever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader(Generic[T_co]):
    """Iterate over ``dataset`` in batches.

    Args:
        dataset: a map-style ``Dataset`` (``__getitem__`` and ``__len__``) or an
            ``IterableDataset``.
        batch_size: samples per batch; ``None`` turns batching off (each item is one sample,
            passed through ``collate_fn``, ``default_convert`` by default).
        shuffle: reshuffle the indices every epoch (a ``RandomSampler`` with ``generator``).
        sampler: the order of indices (any iterable of indices); excludes ``shuffle``.
        batch_sampler: yields lists of indices; excludes ``batch_size``, ``shuffle``,
            ``sampler`` and ``drop_last``.
        num_workers: worker processes that fetch batches (0: the main process fetches).
        collate_fn: turns a list of samples into a batch (``default_collate`` by default).
        pin_memory: accepted; pinned memory needs an accelerator, so on the CPU it does nothing
            (and warns, as torch does without one).
        drop_last: drop the last batch when it is smaller than ``batch_size``.
        timeout: seconds to wait for a worker's batch before raising (0: wait forever).
        worker_init_fn: called as ``worker_init_fn(worker_id)`` in each worker after seeding.
        multiprocessing_context: a start method name (``"fork"``, ``"spawn"``...) or context.
        generator: the Generator behind ``RandomSampler`` and the workers' ``base_seed``.
        prefetch_factor: batches in flight per worker (2 when ``num_workers > 0``).
        persistent_workers: keep the workers alive between epochs.
        pin_memory_device: deprecated in torch; accepted.
        in_order: deliver batches in sampler order (``False``: as workers finish them).

    Example:
        >>> from ember.utils.data import TensorDataset
        >>> ds = TensorDataset(ember.arange(10.0).reshape(5, 2), ember.arange(5))
        >>> [y.tolist() for _, y in DataLoader(ds, batch_size=2)]
        [[0, 1], [2, 3], [4]]
        >>> len(DataLoader(ds, batch_size=2, drop_last=True))
        2
    """

    __initialized = False

    def __init__(
        self,
        dataset: Dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable | None = None,
        batch_sampler: Sampler | Iterable | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to "
                f"disable multiprocessing. (DataLoader got num_workers={num_workers})"
            )
        if timeout < 0:
            raise ValueError(
                f"timeout option should be non-negative (DataLoader got timeout={timeout})"
            )
        if num_workers == 0 and prefetch_factor is not None:
            # NOTE: matches torch: its message lacks a space after "multiprocessing."
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let "
                "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to "
                f"None. (DataLoader got prefetch_factor={prefetch_factor})"
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError(
                f"prefetch_factor option should be non-negative (DataLoader got "
                f"prefetch_factor={prefetch_factor})"
            )
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle "
                    f"option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler "
                    f"option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified "
                    f"batch_sampler option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, "
                    "shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually "
                "exclusive with drop_last"
            )

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None  # len(dataset) as len(loader) last reported it
        self._iterator = None
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        """The multiprocessing context that starts the workers (None: the default)."""
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx) -> None:
        if ctx is not None:
            if self.num_workers <= 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process "
                    f"loading (num_workers > 0), but got "
                    f"num_workers={self.num_workers}"
                )
            import multiprocessing

            if isinstance(ctx, str):
                methods = multiprocessing.get_all_start_methods()
                if ctx not in methods:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid "
                        f"start method in {methods!r}, but got "
                        f"multiprocessing_context={ctx!r}"
                    )
                ctx = multiprocessing.get_context(ctx)
            if not isinstance(ctx, multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context "
                    "object or a string specifying the start method, but got "
                    f"multiprocessing_context={ctx}"
                )
        self.__multiprocessing_context = ctx

    def __setattr__(self, attr, val) -> None:
        if self.__initialized and attr in _FROZEN:
            raise ValueError(
                f"{attr} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(attr, val)

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            # NOTE: matches torch: len(dataset) (a TypeError without one) in batches; with
            # workers that do not split the stream the real count can be larger (a warning
            # says so when it happens)
            n = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """Warn, as torch does, when ``num_workers`` exceeds the CPUs this process may use."""
        if not self.num_workers:
            return
        has_affinity = hasattr(os, "sched_getaffinity")
        cpus = len(os.sched_getaffinity(0)) if has_affinity else os.cpu_count()
        if cpus is not None and self.num_workers <= cpus:
            return
        if cpus is None:
            suggest = (
                "DataLoader is not able to compute a suggested max number of worker in "
                "current system."
            )
        else:
            suggest = (
                f"Our suggested max number of worker in current system is {cpus}"
                f"{'' if has_affinity else ' (`cpuset` is not taken into account)'}, "
                "which is smaller than what this DataLoader is going to create."
            )
        warnings.warn(
            f"This DataLoader will create {self.num_workers} worker processes in total. "
            f"{suggest} Please be aware that excessive worker creation might get DataLoader "
            "running slow or even freeze, lower the worker number to avoid potential "
            "slowness/freeze if necessary.",
            stacklevel=2,
        )


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._iterable = loader._dataset_kind == _DatasetKind.Iterable
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                "pin_memory_device is deprecated, the current accelerator will be "
                "used as the device,ignore "
                f"pin_memory_device='{loader.pin_memory_device}'.",
                stacklevel=3,
            )
        if loader.pin_memory:
            # NOTE: matches torch without an accelerator: pinning is skipped with a warning
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, "
                "then device pinned memory won't be used.",
                stacklevel=3,
            )
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # NOTE: matches torch: every iterator draws a base seed, with or without workers, so the
        # generator advances the same way whatever num_workers is
        self._base_seed = _draw_seed(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        reported = self._IterableDataset_len_called
        if self._iterable and reported is not None and self._num_yielded > reported:
            msg = (
                f"Length of IterableDataset {self._dataset} was reported to be {reported}"
                f"(when accessing len(dataloader)), but {self._num_yielded} samples have "
                "been fetched. "
            )
            if self._num_workers > 0:
                msg += (
                    "For multiprocessing data-loading, this could be caused by not properly "
                    "configuring the IterableDataset replica at each worker (split the "
                    "stream with get_worker_info())."
                )
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{type(self).__name__} cannot be pickled")


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._fetcher = create_fetcher(
            self._iterable, self._dataset, self._auto_collation, self._collate_fn, self._drop_last
        )

    def _next_data(self):
        return self._fetcher.fetch(next(self._sampler_iter))


def _default_context():
    import multiprocessing

    method = (
        "fork"
        if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
        else "spawn"
    )
    return multiprocessing.get_context(method)


class _WorkerPool:
    """The worker processes and queues of one iterator, and their shutdown. Holds no reference
    to the iterator, so a ``weakref.finalize`` on the iterator can run ``shutdown``."""

    def __init__(self, workers, index_queues, result_queue, done_event, shm_prefix) -> None:
        self.workers = workers
        self.index_queues = index_queues
        self.result_queue = result_queue
        self.done_event = done_event
        self.shm_prefix = shm_prefix
        self.closed = False

    def shutdown(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self.done_event.set()
            for q in self.index_queues:
                try:
                    q.put(None)
                except Exception:  # noqa: BLE001 - a queue already closed at interpreter exit
                    pass
            for w in self.workers:
                w.join(timeout=_worker.POLL_INTERVAL * 2)
            for q in self.index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self.workers:
                if w.is_alive():  # stuck in a fetch: it cannot be asked, so it is told
                    w.terminate()
                    w.join(timeout=_worker.POLL_INTERVAL)
            self.result_queue.cancel_join_thread()
            self.result_queue.close()
            if self.shm_prefix is not None:
                _worker.remove_shared_files(self.shm_prefix)


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        if not self._prefetch_factor or self._prefetch_factor <= 0:
            raise ValueError(
                "prefetch_factor must be positive with num_workers > 0 (DataLoader "
                f"got prefetch_factor={self._prefetch_factor})"
            )
        self._in_order = loader.in_order
        ctx = loader.multiprocessing_context or _default_context()
        result_queue = _worker.make_result_queue(ctx)
        done_event = ctx.Event()
        prefix = f"ember-dl-{os.getpid()}-{next(_serial)}-" if _worker.shm_available() else None
        workers, index_queues = [], []
        self._pool = _WorkerPool(workers, index_queues, result_queue, done_event, prefix)
        # the pool outlives a crash in the loop below and a deleted iterator: finalize runs its
        # shutdown when the iterator is collected or the interpreter exits
        self._finalizer = weakref.finalize(self, self._pool.shutdown)
        for i in range(self._num_workers):
            q = ctx.Queue()
            q.cancel_join_thread()  # never block the main process's exit on unsent indices
            w = ctx.Process(
                target=_worker.worker_loop,
                daemon=True,
                args=(
                    self._iterable,
                    self._dataset,
                    q,
                    result_queue,
                    done_event,
                    self._auto_collation,
                    self._collate_fn,
                    self._drop_last,
                    self._base_seed,
                    loader.worker_init_fn,
                    i,
                    self._num_workers,
                    None if prefix is None else f"{prefix}{i}-",
                ),
            )
            with warnings.catch_warnings():
                # Python 3.12+ warns on forking a process that runs threads (the queues' feeder
                # threads); a worker touches no lock those threads hold, and torch forks alike
                warnings.filterwarnings("ignore", ".*fork", DeprecationWarning)
                w.start()
            index_queues.append(q)
            workers.append(w)
        self._workers = workers
        self._index_queues = index_queues
        self._result_queue = result_queue
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task to send
        self._rcvd_idx = 0  # the next task to deliver (in order)
        self._task_info = {}  # task -> (worker,) while pending, (worker, data) once arrived
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: start a new epoch, drop the last one's rest
            for q in self._index_queues:
                q.put(_worker._ResumeIteration())
            waiting = self._num_workers
            while waiting:
                task, _ = self._get_data()
                if isinstance(task, _worker._ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        try:
            index = self._next_index()
        except StopIteration:
            return
        share = self._prefetch_factor * self._num_workers
        for _ in range(self._num_workers):
            w = next(self._worker_cycle)
            if self._workers_status[w] and (
                self._in_order or self._workers_num_tasks[w] < share // sum(self._workers_status)
            ):
                break
        else:
            return  # NOTE: matches torch: no live worker can take it
        self._index_queues[w].put((self._send_idx, index))
        self._task_info[self._send_idx] = (w,)
        self._workers_num_tasks[w] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self):
        """The next ``(task, data)`` from any worker; raises if a worker died or on timeout."""
        import queue

        waited = 0.0
        while True:
            wait = _worker.POLL_INTERVAL
            if self._timeout > 0:
                wait = min(wait, self._timeout - waited)
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                waited += wait
            dead = [
                w
                for i, w in enumerate(self._workers)
                if self._workers_status[i] and not w.is_alive()
            ]
            if dead:
                for i, w in enumerate(self._workers):
                    if w in dead:
                        self._workers_status[i] = False
                pids = ", ".join(str(w.pid) for w in dead)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")
            if self._timeout > 0 and waited >= self._timeout:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _next_data(self):
        while True:
            # skip tasks that will never arrive (their worker's stream ended)
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(info[1], info[0])
            task, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, _worker._IterableDatasetStopIteration):
                self._workers_status[data.worker_id] = False
                if not self._persistent_workers:
                    self._index_queues[data.worker_id].put(None)  # that worker may exit
                self._try_put_index()
                continue
            if task == self._rcvd_idx or not self._in_order:
                w = self._task_info.pop(task)[0]
                if task == self._rcvd_idx:
                    self._rcvd_idx += 1
                return self._process_data(data, w)
            self._task_info[task] += (data,)  # early: keep it until its turn

    def _process_data(self, data, worker_id: int):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, _worker._WorkerError):
            data.reraise()
        return data

    def _shutdown_workers(self) -> None:
        self._finalizer()
