"""Meta forms of the FFT kernels (``_fft.py``): shapes and dtypes."""

from __future__ import annotations

import numpy as _np

from ember.backend.meta import MetaArray


def _complex(dtype):
    return _np.result_type(dtype, _np.complex64)


def fft_c2c(a, axes: tuple, scale: int, forward: bool):
    return MetaArray(a.shape, _complex(a.dtype))


def fft_r2c(a, axes: tuple, scale: int, onesided: bool):
    shape = list(a.shape)
    if onesided:
        shape[axes[-1]] = shape[axes[-1]] // 2 + 1
    return MetaArray(tuple(shape), _complex(a.dtype))


def fft_c2r(a, axes: tuple, scale: int, last_size: int):
    shape = list(a.shape)
    shape[axes[-1]] = last_size
    return MetaArray(tuple(shape), _np.empty((), a.dtype).real.dtype)
