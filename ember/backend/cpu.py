"""The CPU backend: NumPy, plus the few functions NumPy lacks (``erf``, ``erfinv``...)."""

from __future__ import annotations

import numpy as _np
from numpy import *  # noqa: F403  (this module *is* the array namespace of the cpu device)

from ember.backend._special import erf, erfc, erfinv  # noqa: F401

# NOTE: matches torch: floating-point exceptions (1/0, log(-1)) give inf/nan silently. NumPy's
# state is per thread/context; this sets it for the importing one.
_np.seterr(all="ignore")

device_type = "cpu"
ndarray = _np.ndarray
Generator = _np.random.Generator


def to_numpy(array):
    return array


def from_numpy(array):
    return array


def add_at(target, index, values):
    """``target[index] += values`` with repeated indices accumulated (scatter-add)."""
    _np.add.at(target, index, values)
