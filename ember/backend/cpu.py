"""The CPU backend: NumPy, plus the few functions NumPy lacks (``erf``, ``erfinv``...)."""

from __future__ import annotations

import numpy as _np

from ember.backend import _malloc  # noqa: F401  (glibc: keep freed heap memory; see there)
from ember.backend._gamma import (  # noqa: F401
    digamma,
    gammainc,
    gammaincc,
    lgamma,
    polygamma,
    standard_gamma_grad,
)
from ember.backend._numpy_names import numpy_names
from ember.backend._rounded import rounded_functions
from ember.backend._special import (  # noqa: F401
    erf,
    erfc,
    erfinv,
    special,
)

# This module *is* the array namespace of the cpu device: NumPy's names, plus the above.
globals().update(numpy_names())
# float32/float16 log10, expm1, tan... rounded from float64: the same bits on every CPU (see there)
globals().update(rounded_functions())

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


def is_contiguous(array) -> bool:
    return array.flags.c_contiguous


def strides_of(array) -> tuple:
    """Strides in elements, as PyTorch reports them."""
    return tuple(s // array.itemsize for s in array.strides)


def _root(array):
    while isinstance(array.base, _np.ndarray):
        array = array.base
    return array


def storage_offset(array) -> int:
    root = _root(array)
    return (
        array.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    ) // array.itemsize


def data_ptr(array) -> int:
    return array.__array_interface__["data"][0]


def device_index(array):
    return None


def broadcast_to(array, shape, subok=False):
    """NumPy's broadcast_to, without its Python overhead for contiguous inputs (the hot
    path of every reduction's backward). Read-only, as NumPy's."""
    if array.ndim == 0:  # a full reduction's gradient: every stride is 0
        out = _np.ndarray(shape, array.dtype, array, 0, (0,) * len(shape))
        out.setflags(write=False)  # cheaper than ``out.flags.writeable = False``
        return out
    if shape.__class__ is not tuple:
        shape = tuple(shape)
    if array.flags.c_contiguous and array.ndim <= len(shape):
        lead = len(shape) - array.ndim
        strides = [0] * lead
        for i, (s, t) in enumerate(zip(array.shape, shape[lead:])):
            if s == t:
                strides.append(array.strides[i])
            elif s == 1:
                strides.append(0)
            else:
                return _np.broadcast_to(array, shape)
        out = _np.ndarray(shape, array.dtype, array, 0, tuple(strides))
        out.setflags(write=False)
        return out
    return _np.broadcast_to(array, shape)


def add_at(target, index, values):
    """``target[index] += values`` with repeated indices accumulated (scatter-add)."""
    _np.add.at(target, index, values)


def as_strided(array, shape, strides, offset=0):
    """A view of the memory of the contiguous ``array`` with ``shape``, ``strides`` (in
    elements) and a start ``offset`` (in elements): the windows of a convolution. Unchecked,
    as NumPy's ``as_strided``: the caller keeps it inside ``array``."""
    isz = array.itemsize
    if 0 in shape:  # nothing to view (NumPy would still check the offset against the buffer)
        return _np.ndarray(shape, array.dtype)
    return _np.ndarray(shape, array.dtype, array, offset * isz, tuple(s * isz for s in strides))


# The linear-algebra and FFT kernels (ember/backend/_linalg_solve.py, _linalg_decomp.py,
# _fft.py) load on first use (ember/_lazy.py).
from ember import _lazy  # noqa: E402

__getattr__ = _lazy.lazy_getattr(__name__, _lazy.names(__name__))
