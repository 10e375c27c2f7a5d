"""Samplers (``torch.utils.data.sampler``): the order in which a DataLoader visits indices.

How the random samplers draw (ember's Generator is PCG64, so the orders differ from torch's;
the pattern of draws is torch's):

- ``RandomSampler`` with ``generator=None`` draws one int64 seed from the default generator when
  an epoch starts (its first index is taken) and shuffles with a fresh Generator seeded with it,
  so ``ember.manual_seed`` fixes every epoch's order and epochs differ from each other. With a
  ``generator`` it draws from that generator directly: a permutation per pass over the data, or
  with ``replacement=True`` 32 indices at a time.
- ``SubsetRandomSampler`` and ``WeightedRandomSampler`` draw from ``generator`` (the default
  generator when None) directly, once per epoch.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

from ember import _dtype
from ember.ops.creation import as_tensor, empty
from ember.random.creation import randint, randperm
from ember.random.generator import Generator
from ember.random.sampling import multinomial

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]

T_co = TypeVar("T_co", covariant=True)
_CHUNK = 32  # NOTE: matches torch: sampling with replacement draws 32 indices at a time


class Sampler(Generic[T_co]):
    """Base class of samplers: ``__iter__`` yields indices (or lists of indices, for a batch
    sampler); ``__len__``, when defined, says how many.

    Example:
        >>> class Backwards(Sampler):
        ...     def __init__(self, n): self.n = n
        ...     def __iter__(self): return iter(range(self.n - 1, -1, -1))
        ...     def __len__(self): return self.n
        >>> list(Backwards(3))
        [2, 1, 0]
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``.

    Example:
        >>> list(SequentialSampler("abc"))
        [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _draw_seed(generator=None) -> int:
    """A non-negative int64 drawn from ``generator`` (the default one when None), as torch's
    ``torch.empty((), dtype=torch.int64).random_(generator=...)``."""
    return int(empty((), dtype=_dtype.int64).random_(generator=generator).item())


class RandomSampler(Sampler[int]):
    """Indices in random order: a shuffle of the data (without replacement, the default), or
    ``num_samples`` independent uniform draws (``replacement=True``).

    Without replacement, ``num_samples`` beyond ``len(data_source)`` chains fresh permutations.
    See the module docstring for how the generator is used.

    Example:
        >>> g = ember.Generator().manual_seed(0)
        >>> sorted(RandomSampler(range(5), generator=g))
        [0, 1, 2, 3, 4]
        >>> len(RandomSampler(range(5), replacement=True, num_samples=8))
        8
    """

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        """How many indices one epoch yields (``len(data_source)`` unless given)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        g = self.generator
        if g is None:
            # NOTE: matches torch: one seed from the default generator per epoch, then a private
            # generator, so the default generator advances by one draw however long the epoch
            g = Generator().manual_seed(_draw_seed())
        m = self.num_samples
        if self.replacement:
            for _ in range(m // _CHUNK):
                yield from randint(n, (_CHUNK,), generator=g).tolist()
            yield from randint(n, (m % _CHUNK,), generator=g).tolist()
        else:
            for _ in range(m // n):
                yield from randperm(n, generator=g).tolist()
            yield from randperm(n, generator=g).tolist()[: m % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given ``indices`` in random order (a new shuffle every epoch).

    Example:
        >>> sorted(SubsetRandomSampler([7, 3, 5]))
        [3, 5, 7]
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices in ``[0, len(weights))`` drawn with probabilities proportional to
    ``weights`` (with replacement by default; without, an index comes at most once).

    Example:
        >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 3))
        [1, 1, 1]
    """

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            # NOTE: matches torch: a ValueError here (RandomSampler raises TypeError)
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        w = as_tensor(weights, dtype=_dtype.float64)
        if w.dim() != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}"
            )
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``).

    Example:
        >>> list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
        [[0, 1, 2], [3, 4, 5], [6]]
        >>> list(BatchSampler(range(7), batch_size=3, drop_last=True))
        [[0, 1, 2], [3, 4, 5]]
    """

    def __init__(
        self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool
    ) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        if self.drop_last:
            # zip over one iterator repeated pulls batch_size items per tuple and stops at the
            # first incomplete one: the fastest pure-Python grouping
            for batch in zip(*[it] * self.batch_size):
                yield list(batch)
            return
        while batch := list(itertools.islice(it, self.batch_size)):
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
