"""``ember.utils.data`` (PyTorch's ``torch.utils.data``): datasets, samplers and the DataLoader.

Example:
    >>> from ember.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(ember.arange(8.0).reshape(4, 2), ember.tensor([0, 1, 0, 1]))
    >>> [x.shape for x, _ in DataLoader(ds, batch_size=3)]
    [ember.Size([3, 2]), ember.Size([1, 2])]
"""

from ember.utils.data.dataloader import (
    DataLoader,
    _DatasetKind,
    default_collate,
    default_convert,
    get_worker_info,
)
from ember.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from ember.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "_DatasetKind",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]

# DistributedSampler loads on first use (ember/_lazy.py).
from ember import _lazy  # noqa: E402

_LAZY = _lazy.names(__name__)
__getattr__ = _lazy.lazy_getattr(__name__, _LAZY)
__dir__ = _lazy.lazy_dir(globals(), _LAZY)
