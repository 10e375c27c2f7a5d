"""Sobol' sequence kernels for ``ember.quasirandom.SobolEngine``: the direction numbers
(Joe and Kuo's, as SciPy ships them: the same table torch compiles in) and the Gray-code
draw, vectorized over the points. SciPy is imported on first use."""

from __future__ import annotations

import numpy as np

MAXBIT = 30


def direction_numbers(dimension: int) -> np.ndarray:
    """``(dimension, MAXBIT)`` int64: column ``j`` is the direction integer of bit ``j``."""
    from scipy.stats import qmc  # noqa: PLC0415  (lazy: SciPy loads on the first engine)

    engine = qmc.Sobol(dimension, scramble=False, bits=MAXBIT)
    sv = getattr(engine, "_sv", None)
    if sv is not None and sv.shape == (dimension, MAXBIT):
        return np.asarray(sv, dtype=np.int64)
    # Public route: the point at Gray-code rank 2^(j+1) - 1 is direction integer j alone.
    out = np.empty((dimension, MAXBIT), dtype=np.int64)
    for j in range(MAXBIT):
        engine.reset()
        engine.fast_forward(2 ** (j + 1) - 1)
        out[:, j] = np.rint(engine.random(1)[0] * 2.0**MAXBIT).astype(np.int64)
    return out


def rightmost_zero(n: np.ndarray) -> np.ndarray:
    """The index of the lowest zero bit of each ``n`` (int64 >= 0)."""
    m = n + 1
    low = m & -m  # the lowest set bit of n + 1 is the lowest zero bit of n
    return np.log2(low).astype(np.int64)


def draw(quasi: np.ndarray, n: int, state: np.ndarray, num_generated: int):
    """The next ``n`` states after ``quasi`` (index ``num_generated``): ``(points, last)``,
    ``points`` ``(n, dim)`` int64, each the previous XOR the direction of the lowest zero bit
    of its predecessor's rank."""
    ranks = np.arange(num_generated, num_generated + n, dtype=np.int64)
    steps = state[:, rightmost_zero(ranks)].T  # (n, dim)
    points = np.bitwise_xor.accumulate(steps, axis=0) ^ quasi[None, :]
    return points, (points[-1].copy() if n else quasi.copy())


def fast_forward(quasi: np.ndarray, n: int, state: np.ndarray, num_generated: int):
    """The state ``n`` points on, without the points in between (XOR of the directions)."""
    if n <= 0:
        return quasi.copy()
    ranks = np.arange(num_generated, num_generated + n, dtype=np.int64)
    steps = state[:, rightmost_zero(ranks)]
    return quasi ^ np.bitwise_xor.reduce(steps, axis=1)


def scramble(state: np.ndarray, ltm: np.ndarray) -> np.ndarray:
    """Owen's linear matrix scrambling of the direction integers: bit ``MAXBIT - 1 - r`` of
    each scrambled integer is the GF(2) dot product of row ``r`` of the lower-triangular 0/1
    matrix ``ltm[d]`` (``(dim, MAXBIT, MAXBIT)``) with the integer's bits, most significant
    first."""
    shifts = np.arange(MAXBIT - 1, -1, -1, dtype=np.int64)
    bits = (state[:, :, None] >> shifts) & 1  # (dim, MAXBIT dirs, MAXBIT bits msb-first)
    prod = np.einsum("drk,djk->djr", ltm.astype(np.int64), bits) & 1
    return (prod << shifts).sum(axis=2)
