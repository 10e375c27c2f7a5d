"""``spawn``/``start_processes`` of ``torch.multiprocessing``: run ``fn(i, *args)`` in ``nprocs``
processes and join them, raising if one of them fails."""

from __future__ import annotations

import multiprocessing
import traceback


class ProcessException(Exception):
    """A child process failed."""

    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A child process raised an exception (its traceback is in the message)."""


class ProcessExitedException(ProcessException):
    """A child process exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        args = (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)
        return type(self), args


def _wrap(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        error_queue.put(traceback.format_exc())
        raise SystemExit(1) from None


class ProcessContext:
    """The started processes; ``join()`` waits for them and raises on the first failure."""

    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues

    def pids(self) -> list[int]:
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None) -> bool:
        for p in self.processes:
            p.join(timeout)
        for i, (p, q) in enumerate(zip(self.processes, self.error_queues, strict=True)):
            if p.exitcode is None:
                return False
            if p.exitcode != 0:
                for other in self.processes:
                    if other.is_alive():
                        other.terminate()
                if not q.empty():
                    msg = f"\n\n-- Process {i} terminated with the following error:\n{q.get()}"
                    raise ProcessRaisedException(msg, i, p.pid)
                raise ProcessExitedException(
                    f"process {i} terminated with exit code {p.exitcode}", i, p.pid, p.exitcode
                )
        return True


SpawnContext = ProcessContext  # torch's older name


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``start_method``; join them
    (returning None) or return their :class:`ProcessContext` when ``join`` is False."""
    ctx = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        q = ctx.SimpleQueue()
        p = ctx.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(q)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``start_processes`` with the ``'spawn'`` start method (torch's default).

    Example:
        >>> ember.multiprocessing.spawn(print, nprocs=0)
    """
    return start_processes(fn, args, nprocs, join, daemon, start_method)
