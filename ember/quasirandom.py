"""``ember.quasirandom``: PyTorch's ``torch.quasirandom`` (the Sobol' engine).

Unscrambled sequences are torch's exactly (the same Joe-Kuo direction numbers and Gray-code
order). Scrambling (a random digital shift and Owen's linear matrix scramble) draws its random
bits from ember's generator, so scrambled points differ from torch's for a given seed while
keeping the same distribution and balance properties.
"""

from __future__ import annotations

from ember import _dtype
from ember import backend as _backend
from ember.ops.creation import _finish
from ember.tensor import Tensor

__all__ = ["SobolEngine"]


def _kernels():
    from ember.backend import _sobol

    return _sobol


class SobolEngine:
    """A generator of the (optionally scrambled) Sobol' low-discrepancy sequence in
    ``[0, 1)^dimension``.

    Args:
        dimension: the dimension of the points (1 to 21201).
        scramble: whether to scramble the sequence (random shift and linear matrix scramble).
        seed: the seed of the scrambling's random bits.

    Example:
        >>> engine = ember.quasirandom.SobolEngine(2)
        >>> engine.draw(3)
        tensor([[0.0000, 0.0000],
                [0.5000, 0.5000],
                [0.7500, 0.2500]])
    """

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(
                f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]"
            )
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        k = _kernels()
        np_ = _backend.cpu
        self._state = k.direction_numbers(dimension)
        if not scramble:
            self._shift = np_.zeros(dimension, dtype=np_.int64)
        else:
            self._scramble()
        self._quasi = self._shift.copy()
        self.num_generated = 0

    @property
    def sobolstate(self) -> Tensor:
        """The direction integers ``(dimension, MAXBIT)``, int64, as torch's attribute."""
        return _finish(self._state, False)

    @property
    def shift(self) -> Tensor:
        return _finish(self._shift, False)

    @property
    def quasi(self) -> Tensor:
        return _finish(self._quasi, False)

    def _scramble(self):
        from ember.random import Generator, default_generator

        g = default_generator if self.seed is None else Generator().manual_seed(self.seed)
        np_ = _backend.cpu
        rng = g._rng
        bits = np_.asarray(rng.integers(0, 2, size=(self.dimension, self.MAXBIT)), np_.int64)
        self._shift = bits.dot(np_.left_shift(1, np_.arange(self.MAXBIT, dtype=np_.int64)))
        ltm = np_.tril(rng.integers(0, 2, size=(self.dimension, self.MAXBIT, self.MAXBIT)))
        # a unit diagonal keeps each matrix invertible, so the scramble permutes the
        # elementary intervals and the balance properties survive
        ltm[:, np_.arange(self.MAXBIT), np_.arange(self.MAXBIT)] = 1
        self._state = _kernels().scramble(self._state, ltm)

    def _to_float(self, ints, dtype):
        npd = _dtype.to_np(_dtype.get_default_dtype() if dtype is None else dtype)
        return (ints * (1.0 / 2**self.MAXBIT)).astype(npd)

    def draw(self, n: int = 1, out: Tensor | None = None, dtype=None) -> Tensor:
        """The next ``n`` points, ``(n, dimension)``, in ``dtype`` (the default float dtype).

        Example:
            >>> ember.quasirandom.SobolEngine(1).draw(2, dtype=ember.float64)
            tensor([[0.0000],
                    [0.5000]], dtype=ember.float64)
        """
        np_ = _backend.cpu
        k = _kernels()
        if self.num_generated == 0:
            # the first point is the shift itself; the rest follow from rank 0
            pts, self._quasi = k.draw(self._quasi, n - 1, self._state, 0)
            ints = np_.concatenate([self._shift[None, :], pts]) if n >= 1 else pts
        else:
            ints, self._quasi = k.draw(self._quasi, n, self._state, self.num_generated - 1)
        self.num_generated += n
        result = _finish(self._to_float(ints, dtype), False)
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m: int, out: Tensor | None = None, dtype=None) -> Tensor:
        """The next ``2**m`` points; the total drawn must stay a power of two (the balance
        properties of the sequence hold for such prefixes).

        Example:
            >>> ember.quasirandom.SobolEngine(1).draw_base2(1, dtype=ember.float64)
            tensor([[0.0000],
                    [0.5000]], dtype=ember.float64)
        """
        n = 2**m
        total_n = self.num_generated + n
        if not (total_n & (total_n - 1) == 0):
            raise ValueError(
                "The balance properties of Sobol' points require "
                f"n to be a power of 2. {self.num_generated} points have been "
                f"previously generated, then: n={self.num_generated}+2**{m}={total_n}. "
                "If you still want to do this, please use "
                "'SobolEngine.draw()' instead."
            )
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        """Back to the first point of the sequence.

        Example:
            >>> e = ember.quasirandom.SobolEngine(1)
            >>> _ = e.draw(3)
            >>> e.reset().num_generated
            0
        """
        self._quasi = self._shift.copy()
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skips the next ``n`` points.

        Example:
            >>> e = ember.quasirandom.SobolEngine(1).fast_forward(2)
            >>> e.draw(1, dtype=ember.float64)
            tensor([[0.7500]], dtype=ember.float64)
        """
        k = _kernels()
        if self.num_generated == 0:
            self._quasi = k.fast_forward(self._quasi, n - 1, self._state, 0)
        else:
            self._quasi = k.fast_forward(self._quasi, n, self._state, self.num_generated - 1)
        self.num_generated += n
        return self

    def __repr__(self):
        fmt = [f"dimension={self.dimension}"]
        if self.scramble:
            fmt += ["scramble=True"]
        if self.seed is not None:
            fmt += [f"seed={self.seed}"]
        return self.__class__.__name__ + "(" + ", ".join(fmt) + ")"
