"""Fetchers (``torch.utils.data._utils.fetch``): turn one index (or one list of indices) from the
sampler into one collated item, for a map-style or an iterable dataset. The same code runs in
the main process and in worker processes."""

from __future__ import annotations


class _MapDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        getitems = getattr(dataset, "__getitems__", None)
        # a dataset that fetches whole batches is asked once per batch
        self._getitems = getitems if auto_collation and getitems else None
        from ember.utils.data._utils.collate import default_collate
        from ember.utils.data.dataset import TensorDataset

        # default_collate of a TensorDataset's rows is each tensor's rows gathered at once
        self._tensors = (
            dataset.tensors
            if type(dataset) is TensorDataset
            and auto_collation
            and collate_fn is default_collate
            and dataset.tensors
            else None
        )

    def fetch(self, index):
        if (
            self._tensors is not None
            and index.__class__ is list
            and index
            and not any(t._requires_grad for t in self._tensors)
        ):
            # NOTE: matches torch's per-sample fetch and stack: the same list of fresh tensors
            # (values, dtypes, shapes), made by one gather per tensor instead of a row view per
            # sample and a stack; odd indices fall through to the per-sample path and its errors
            try:
                return [t[index] for t in self._tensors]
            except (TypeError, IndexError, RuntimeError):
                pass
        if self._getitems is not None:
            return self.collate_fn(self._getitems(index))
        if self.auto_collation:
            ds = self.dataset
            return self.collate_fn([ds[i] for i in index])
        return self.collate_fn(self.dataset[index])


class _IterableDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.dataset_iter = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        """The next item (a batch of ``len(index)`` samples when batching); StopIteration at
        the end of the stream, and for a short last batch with ``drop_last``."""
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def create_fetcher(iterable: bool, dataset, auto_collation: bool, collate_fn, drop_last: bool):
    cls = _IterableDatasetFetcher if iterable else _MapDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
