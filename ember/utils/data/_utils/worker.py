"""Worker processes of the DataLoader (``torch.utils.data._utils.worker``).

A worker seeds its random generators, runs ``worker_init_fn``, then loops: take ``(task, index)``
from its index queue, fetch and collate, put ``(task, batch)`` on the shared result queue. An
exception becomes a ``_WorkerError`` that the main process re-raises with the worker's id.

Tensors of at least ``SHARED_MIN_BYTES`` leave the worker through shared memory: the worker
writes the array into a file under ``/dev/shm`` and pickles only its name; the main process maps
the file, unlinks it at once and wraps the mapping as the tensor's array, so a batch crosses the
process boundary with one copy instead of the four of pickling through a pipe. Files whose
message was never read (an epoch cut short) are removed by the main process at shutdown: each
iterator's files share a name prefix.
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import sys
import traceback

from ember import backend
from ember.random.generator import manual_seed
from ember.tensor import Tensor, _init
from ember.utils.data._utils.fetch import create_fetcher

__all__ = ["WorkerInfo", "get_worker_info"]

_np = backend.cpu
POLL_INTERVAL = 1.0  # seconds between a waiting process's checks that its peer is alive
SHARED_MIN_BYTES = 1 << 19  # below ~0.5 MB a pipe is as fast (measured)
SHM_DIR = "/dev/shm"


class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker process: the worker's ``id`` (0 ..
    ``num_workers - 1``), ``num_workers``, the ``seed`` ember's default generator was seeded
    with (``base_seed + id``), and the worker's copy of ``dataset``. Read-only."""

    __slots__ = ("id", "num_workers", "seed", "dataset")

    def __init__(self, id: int, num_workers: int, seed: int, dataset) -> None:  # noqa: A002
        for k, v in zip(self.__slots__, (id, num_workers, seed, dataset)):
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}: WorkerInfo is read-only")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"WorkerInfo({fields})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The ``WorkerInfo`` of the current DataLoader worker process; None in the main process.

    Use it in an ``IterableDataset.__iter__`` to give each worker its share of the stream, or
    in ``worker_init_fn`` to configure the worker's copy of the dataset.

    Example:
        >>> get_worker_info() is None  # not inside a worker
        True
    """
    return _worker_info


class _IterableDatasetStopIteration:
    """A worker's note that its copy of the stream ended."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


class _ResumeIteration:
    """Sent to persistent workers to start a new epoch; echoed back as the acknowledgement."""


class _WorkerError:
    """An exception raised in a worker, carried to the main process as its type and text."""

    def __init__(self, where: str, exc_info=None) -> None:
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def __reduce__(self):
        import pickle

        exc_type = self.exc_type
        try:
            pickle.dumps(exc_type)
        except Exception:  # a class the main process cannot import: keep its text only
            exc_type = RuntimeError
        return _rebuild_error, (exc_type, self.exc_msg, self.where)

    def reraise(self):
        """Raise the worker's exception type, its message naming the worker and holding the
        worker's traceback."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)  # KeyError shows repr(arg): keep the traceback readable
        try:
            exc = self.exc_type(msg)
        except Exception:  # the type takes other arguments
            raise RuntimeError(msg) from None
        raise exc


def _rebuild_error(exc_type, exc_msg, where):
    e = _WorkerError.__new__(_WorkerError)
    e.exc_type, e.exc_msg, e.where = exc_type, exc_msg, where
    return e


class _KeyErrorMessage(str):
    def __repr__(self):
        return str(self)


# ---- tensors through shared memory ---------------------------------------------------------
def shm_available() -> bool:
    return os.path.isdir(SHM_DIR) and os.access(SHM_DIR, os.W_OK)


def _install_shared_reducer(prefix: str) -> None:
    """Make this process's multiprocessing pickler send big CPU tensors through shared memory
    (only in a worker: the main process keeps ember's plain pickling)."""
    from multiprocessing.reduction import ForkingPickler

    counter = itertools.count()

    def reduce_tensor(t: Tensor):
        a = t._data
        if a.__class__ is not _np.ndarray or a.nbytes < SHARED_MIN_BYTES:
            return t.__reduce_ex__(2)
        path = f"{SHM_DIR}/{prefix}{next(counter)}"
        flat = _np.ascontiguousarray(a).reshape(-1).view(_np.uint8)
        with open(path, "xb") as f:
            f.write(flat.data)
        return _rebuild_shared, (path, a.shape, a.dtype, t._requires_grad, type(t))

    ForkingPickler.register(Tensor, reduce_tensor)


def _rebuild_shared(path, shape, dtype, requires_grad, cls):
    import mmap

    fd = os.open(path, os.O_RDWR)
    try:
        buf = mmap.mmap(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)
        os.unlink(path)  # the mapping keeps the memory until the array is freed
    t = object.__new__(cls)
    _init(t, _np.frombuffer(buf, dtype=dtype).reshape(shape), requires_grad)
    return t


def remove_shared_files(prefix: str) -> None:
    """Delete the shared-memory files of one iterator that nobody received."""
    try:
        names = [n for n in os.listdir(SHM_DIR) if n.startswith(prefix)]
    except OSError:
        return
    for n in names:
        try:
            os.unlink(f"{SHM_DIR}/{n}")
        except OSError:
            pass


# ---- the worker ------------------------------------------------------------------------------
def _seed_worker(base_seed: int, worker_id: int) -> int:
    """Seed Python's, ember's and NumPy's global generators of this worker; returns ember's seed.

    NOTE: matches torch: ``base_seed + worker_id`` for Python's ``random`` and the default
    generator; NumPy's legacy global generator gets a state hashed from both (NumPy's
    SeedSequence here, torch's own hash of the same inputs), so no two workers repeat the same
    NumPy augmentations."""
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    ss = _np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32])
    _np.random.seed(ss.generate_state(4))
    return seed


def worker_loop(
    iterable: bool,
    dataset,
    index_queue,
    data_queue,
    done_event,
    auto_collation: bool,
    collate_fn,
    drop_last: bool,
    base_seed: int,
    init_fn,
    worker_id: int,
    num_workers: int,
    shm_prefix: str | None,
) -> None:
    """The body of one worker process."""
    import queue

    global _worker_info
    try:
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        if shm_prefix is not None:
            _install_shared_reducer(shm_prefix)
        where = f"in DataLoader worker process {worker_id}"
        init_error = fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = _WorkerError(where)
        ended = False
        parent = os.getppid()
        while os.getppid() == parent:  # a worker whose main process died exits
            try:
                r = index_queue.get(timeout=POLL_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):  # persistent workers: a new epoch
                data_queue.put((r, None))
                ended = False
                try:
                    fetcher = create_fetcher(
                        iterable, dataset, auto_collation, collate_fn, drop_last
                    )
                except Exception:
                    init_error = _WorkerError(where)
                continue
            if r is None:
                break
            if done_event.is_set() or ended:
                continue
            task, index = r
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not iterable:
                        data = _WorkerError(where)
                    else:
                        data = _IterableDatasetStopIteration(worker_id)
                        ended = True
                except Exception:
                    data = _WorkerError(where)
            data_queue.put((task, data))
            del data, r, index  # free the batch before blocking on the next task
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        # nobody will read what is still buffered: do not block the exit flushing it
        data_queue.cancel_join_thread()
        data_queue.close()


def make_result_queue(ctx):
    """A result queue whose feeder thread turns a batch that cannot be pickled into an error for
    that task (a plain Queue would drop it and leave the main process waiting forever)."""
    return _result_queue_class()(ctx=ctx)


@functools.cache
def _result_queue_class():
    from multiprocessing.queues import Queue  # imported when workers start: keeps import fast

    class _ResultQueue(Queue):
        def _on_queue_feeder_error(self, e, obj):
            if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], int):
                info = get_worker_info()
                wid = info.id if info is not None else "?"
                self.put(
                    (
                        obj[0],
                        _WorkerError(
                            f"in DataLoader worker process {wid} (sending its batch)",
                            (type(e), e, e.__traceback__),
                        ),
                    )
                )
            else:
                super()._on_queue_feeder_error(e, obj)

    _ResultQueue.__module__ = __name__
    _ResultQueue.__qualname__ = "_ResultQueue"
    return _ResultQueue


def __getattr__(name):
    # a spawned worker unpickling its queue looks the class up here by name
    if name == "_ResultQueue":
        return _result_queue_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
