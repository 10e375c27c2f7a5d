"""``ember.multiprocessing``: Python's ``multiprocessing`` plus torch's additions.

Everything in the standard library's ``multiprocessing`` is re-exported. torch adds the tensor
sharing strategies (ember tensors are NumPy arrays, pickled between processes by value, so the
strategy is recorded only) and ``spawn``/``start_processes``, which run ``fn(i, *args)`` in
``nprocs`` processes and raise if one fails.

Example:
    >>> ember.multiprocessing.get_sharing_strategy()
    'file_descriptor'
"""

from __future__ import annotations

import multiprocessing as _mp
from multiprocessing import *  # noqa: F403

from ember.multiprocessing.spawn import (
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = ["file_descriptor"]


def set_sharing_strategy(new_strategy: str) -> None:
    """Set how tensors are shared between processes (``'file_descriptor'`` or
    ``'file_system'``); ember pickles arrays by value either way."""
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"unknown sharing strategy {new_strategy!r}")
    _strategy[0] = new_strategy


def get_sharing_strategy() -> str:
    """The current sharing strategy."""
    return _strategy[0]


def get_all_sharing_strategies() -> set[str]:
    """The supported sharing strategies."""
    return set(_STRATEGIES)


def init_reductions() -> None:
    """Register torch's pickling reductions for shared tensors: a no-op (ember tensors pickle
    by value)."""
    return None


__all__ = [
    *_mp.__all__,
    "ProcessContext",
    "ProcessExitedException",
    "ProcessRaisedException",
    "SpawnContext",
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "init_reductions",
    "set_sharing_strategy",
    "spawn",
    "start_processes",
]
