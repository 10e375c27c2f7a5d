"""CPU kernels of the discrete Fourier transforms (``ember/ops/spectral.py``).

Three primitives, as torch's ``_fft_c2c``/``_fft_r2c``/``_fft_c2r``, each one SciPy call over
all the transformed axes. SciPy's pocketfft computes float32 in single precision and runs on
several threads (``workers``); NumPy's copy of pocketfft is single-threaded and, for float32,
measured 3-4x slower on the bench workload. SciPy is imported inside the functions, so
``import ember`` does not load it.

``scale`` is the normalization as torch's ``fft_norm_mode`` says it, independent of direction:
0 none, 1 divide by sqrt(n), 2 divide by n (n: the product of the transformed signal sizes).
"""

from __future__ import annotations

from ember.backend import _threads


def _norm(scale: int, forward: bool) -> str:
    """SciPy's ``norm`` for a scaling mode in a direction (SciPy names the direction that is
    scaled, so no-scaling is "backward" forward and "forward" inverse)."""
    if scale == 1:
        return "ortho"
    if forward:
        return "backward" if scale == 0 else "forward"
    return "forward" if scale == 0 else "backward"


def fft_c2c(a, axes: tuple, scale: int, forward: bool):
    """The complex transform of ``a`` over ``axes``: ``exp(-2 pi i jk/n)`` forward, ``+``
    inverse."""
    import scipy.fft as sf

    norm = _norm(scale, forward)
    if len(axes) == 1:  # the one-axis entry points cost a fifth of the n-d ones per call
        f = sf.fft if forward else sf.ifft
        return f(a, axis=axes[0], norm=norm, workers=_threads.workers())
    f = sf.fftn if forward else sf.ifftn
    return f(a, axes=axes, norm=norm, workers=_threads.workers())


def fft_r2c(a, axes: tuple, scale: int, onesided: bool):
    """The forward transform of the real ``a``; ``onesided`` keeps ``n // 2 + 1`` entries of the
    last axis (the rest is their conjugate mirror)."""
    import scipy.fft as sf

    norm = _norm(scale, True)
    if len(axes) == 1:
        f = sf.rfft if onesided else sf.fft
        return f(a, axis=axes[0], norm=norm, workers=_threads.workers())
    f = sf.rfftn if onesided else sf.fftn
    return f(a, axes=axes, norm=norm, workers=_threads.workers())


def fft_c2r(a, axes: tuple, scale: int, last_size: int):
    """The inverse transform of the Hermitian signal whose first half ``a`` holds (the last axis
    has ``last_size // 2 + 1`` entries): real, ``last_size`` long on the last axis."""
    import scipy.fft as sf

    norm = _norm(scale, False)
    if len(axes) == 1:
        return sf.irfft(a, n=last_size, axis=axes[0], norm=norm, workers=_threads.workers())
    s = [a.shape[ax] for ax in axes[:-1]] + [last_size]
    return sf.irfftn(a, s=s, axes=axes, norm=norm, workers=_threads.workers())
