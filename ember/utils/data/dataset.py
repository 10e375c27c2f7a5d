"""Datasets (``torch.utils.data.dataset``): the map-style ``Dataset`` and its combinators, the
``IterableDataset`` stream, and ``random_split``."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

from ember.random.creation import randperm
from ember.random.generator import default_generator
from ember.tensor import Tensor

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "StackDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: ``dataset[i]`` is sample ``i``; subclasses define ``__getitem__``
    and usually ``__len__`` (samplers need it).

    ``a + b`` concatenates two datasets (a ``ConcatDataset``). A subclass may define
    ``__getitems__(indices)`` returning the list of samples of a batch, which the DataLoader then
    calls once per batch instead of ``__getitem__`` per sample.

    Example:
        >>> class Squares(Dataset):
        ...     def __len__(self): return 4
        ...     def __getitem__(self, i): return i * i
        >>> [Squares()[i] for i in range(4)], len(Squares() + Squares())
        ([0, 1, 4, 9], 8)
    """

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A dataset that is a stream: subclasses define ``__iter__``.

    With ``num_workers > 0`` every worker process iterates its own copy of the dataset; split
    the stream inside ``__iter__`` with ``get_worker_info()`` so that each sample comes once.
    ``a + b`` chains two streams (a ``ChainDataset``).

    Example:
        >>> class Count(IterableDataset):
        ...     def __init__(self, n): self.n = n
        ...     def __iter__(self): return iter(range(self.n))
        >>> list(Count(2) + Count(3))
        [0, 1, 0, 1, 2]
    """

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> ChainDataset:
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows of tensors that share their first dimension: ``ds[i]`` is
    ``(t[i] for t in tensors)`` as a tuple.

    Example:
        >>> ds = TensorDataset(ember.arange(6).reshape(3, 2), ember.tensor([0, 1, 0]))
        >>> len(ds), ds[1]
        (3, (tensor([2, 3]), tensor(1)))
    """

    def __init__(self, *tensors: Tensor) -> None:
        sizes = [t.size(0) for t in tensors]
        if any(s != sizes[0] for s in sizes):
            # NOTE: matches torch: an AssertionError, with torch's words first
            raise AssertionError(
                f"Size mismatch between tensors: TensorDataset needs every tensor to have the "
                f"same size in dimension 0, got sizes {sizes}"
            )
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples of several equally long datasets side by side: positional datasets give tuples,
    keyword datasets give dicts.

    Example:
        >>> StackDataset(x=[1, 2], y=["a", "b"])[1]
        {'x': 2, 'y': 'b'}
    """

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError(
                f"Size mismatch between datasets: StackDataset got lengths "
                f"{[len(d) for d in parts]}"
            )
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list):
        # A part that fetches whole batches (__getitems__) is asked once for all indices.
        named = isinstance(self.datasets, dict)
        parts = self.datasets.items() if named else enumerate(self.datasets)
        columns = {}
        for key, d in parts:
            getitems = getattr(d, "__getitems__", None)
            if callable(getitems):
                items = getitems(indices)
                if len(items) != len(indices):
                    raise ValueError(
                        "Nested dataset's output size mismatch. "
                        f"Expected {len(indices)}, got {len(items)}"
                    )
            else:
                items = [d[i] for i in indices]
            columns[key] = items
        if named:
            return [{k: col[j] for k, col in columns.items()} for j in range(len(indices))]
        return [tuple(col[j] for col in columns.values()) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """Several map-style datasets one after the other.

    Example:
        >>> ds = ConcatDataset([[0, 1, 2], [3, 4]])
        >>> len(ds), ds[3], ds[-1], ds.cumulative_sizes
        (5, 3, 4, [3, 5])
    """

    @staticmethod
    def cumsum(sequence) -> list[int]:
        """The running totals of the lengths of ``sequence``'s datasets."""
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError(
                    "ConcatDataset does not support IterableDataset: use ChainDataset to join "
                    "streams"
                )
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError(
                    f"absolute value of index should not exceed dataset length: got index {idx} "
                    f"for a ConcatDataset of length {len(self)}"
                )
            idx += len(self)
        k = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[k][idx - self.cumulative_sizes[k - 1] if k else idx]

    @property
    def cummulative_sizes(self) -> list[int]:
        """The old misspelled name of ``cumulative_sizes`` (deprecated)."""
        warnings.warn(
            "`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
            FutureWarning,
            stacklevel=2,
        )
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Several iterable datasets one after the other, chained lazily.

    Example:
        >>> class Gen(IterableDataset):
        ...     def __iter__(self): yield from "ab"
        >>> list(ChainDataset([Gen(), Gen()]))
        ['a', 'b', 'a', 'b']
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            _check_iterable(d)
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            _check_iterable(d)
            total += len(d)
        return total


def _check_iterable(d) -> None:
    if not isinstance(d, IterableDataset):
        raise AssertionError(f"ChainDataset only supports IterableDataset, got {type(d).__name__}")


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    Example:
        >>> s = Subset([10, 11, 12, 13], [3, 0])
        >>> len(s), s[0], s[1]
        (2, 13, 10)
    """

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        # NOTE: matches torch: the DataLoader fetches a Subset's batches through __getitems__,
        # which would silently bypass an overridden __getitem__
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. When subclassing "
                "Subset and overriding __getitem__, you must also override __getitems__ to "
                "ensure DataLoader works correctly with your custom logic. A simple "
                "implementation:\n\ndef __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list:
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Dataset, lengths: Sequence[int | float], generator=default_generator
) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random ``Subset``\\ s of the given lengths.

    ``lengths`` are sizes that sum to ``len(dataset)``, or fractions that sum to 1: each split
    then gets ``floor(len * fraction)`` items and the remainder is handed out one item at a time
    to the splits in order (round robin), as torch does. The order comes from
    ``randperm(len(dataset), generator=generator)``.

    Example:
        >>> a, b = random_split(range(10), [0.7, 0.3], generator=ember.Generator().manual_seed(0))
        >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
        (7, 3, True)
    """
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        n = len(dataset)
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1: got {frac}")
            sizes.append(math.floor(n * frac))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
        lengths = sizes
    if sum(lengths) != len(dataset):
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset! (random_split "
            f"got lengths {list(lengths)} summing to {sum(lengths)} for a dataset of length "
            f"{len(dataset)})"
        )
    order = randperm(sum(lengths), generator=generator).tolist()
    return [
        Subset(dataset, order[end - size : end])
        for end, size in zip(itertools.accumulate(lengths), lengths)
    ]
