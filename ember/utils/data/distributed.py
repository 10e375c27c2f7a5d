"""``DistributedSampler`` (``torch.utils.data.distributed``): each of ``num_replicas`` processes
reads its own equal share of a dataset.

ember has no ``torch.distributed`` (``ember.distributed.is_available()`` is False), so the
replica count and rank are given explicitly, for instance from the launcher's environment
(``WORLD_SIZE``, ``RANK``). The shuffled order is drawn from a Generator seeded with ``seed +
epoch``, so every replica builds the same permutation and takes a disjoint slice of it; ember's
Generator is PCG64, so the permutation differs from torch's (the split pattern is torch's).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TypeVar

from ember.random.creation import randperm
from ember.random.generator import Generator
from ember.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]

T_co = TypeVar("T_co", covariant=True)


class DistributedSampler(Sampler[T_co]):
    """Sampler that restricts data loading to one replica's share of the dataset.

    Args:
        dataset: the dataset (anything with ``len``).
        num_replicas: number of processes taking part (required: there is no process group).
        rank: this process's rank in ``[0, num_replicas)`` (required, likewise).
        shuffle: shuffle the indices, differently each epoch (see ``set_epoch``).
        seed: the shuffle's seed; must be the same on every replica.
        drop_last: drop the tail that does not split evenly instead of padding with repeats.

    Example:
        >>> from ember.utils.data import DistributedSampler
        >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
        [1, 3, 0]
    """

    def __init__(
        self,
        dataset,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        from ember import distributed as dist

        # NOTE: matches torch: without a distributed package the replica count and rank must be
        # given (torch raises this same error when its distributed package is missing)
        if num_replicas is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size()
        if rank is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # the largest share every replica can have without repeats
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            # pad with indices from the start so the total splits evenly
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch, which reseeds the shuffle: call it before each epoch's loop so the
        replicas see a new order each epoch (all of them the same one)."""
        self.epoch = epoch
