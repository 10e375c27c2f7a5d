"""Distances between the rows of two 2-D CPU arrays by SciPy's compiled loops
(``scipy.spatial.distance.cdist``), for the metrics where it beats NumPy's block-wise
differences: p = 1, 2 and infinity (SciPy's general Minkowski loop is slower than NumPy's).

SciPy computes in float64; the result is cast back to the input dtype.
"""

from __future__ import annotations

import math

_METRIC = {1.0: "cityblock", 2.0: "euclidean", math.inf: "chebyshev"}


def has_rows_metric(p: float) -> bool:
    """Whether :func:`rows_cdist` handles the ``p``-norm."""
    return p in _METRIC


def rows_cdist(a, b, p: float):
    """``(P, R)`` distances between the rows of ``a`` (P, M) and ``b`` (R, M)."""
    from scipy.spatial.distance import cdist

    return cdist(a, b, _METRIC[p]).astype(a.dtype, copy=False)
