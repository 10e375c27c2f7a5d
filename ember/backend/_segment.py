"""Segment reductions for ``ember.segment_reduce`` on raw arrays: consecutive row segments of
a 2-D array reduced in one call (SciPy imported on first use)."""

from __future__ import annotations

import numpy as np


def segment_sum(data: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``(S, R)`` sums of consecutive row segments of ``data`` ``(N, R)`` (``lengths`` sums to
    at most N): a sparse 0/1 segment matrix times ``data``, one sequential pass per segment."""
    import scipy.sparse as sp  # noqa: PLC0415  (lazy: SciPy loads on first use)

    s, n = lengths.shape[0], data.shape[0]
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    used = int(indptr[-1])
    ones = np.ones(used, dtype=data.dtype)
    seg = sp.csr_matrix((ones, np.arange(used), indptr), shape=(s, n))
    return np.asarray(seg @ data)


def segment_reduceat(ufunc, data: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``ufunc.reduceat`` of row segments beginning at ``starts`` (each running to the next
    start, the last to the end); an empty segment's row is garbage for the caller to fill."""
    n = data.shape[0]
    if starts.size and starts[-1] >= n:  # an empty trailing segment: pad so indices stay valid
        data = np.concatenate([data, np.zeros((1,) + data.shape[1:], dtype=data.dtype)])
    return ufunc.reduceat(data, starts, axis=0)
