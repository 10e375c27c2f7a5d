"""``ember.nn.parallel`` (PyTorch's ``torch.nn.parallel``): ``DataParallel`` and
``data_parallel``; ``DistributedDataParallel`` is a stand-in whose construction raises
``NotImplementedError`` (ember has no ``torch.distributed``)."""

from ember.nn.parallel.data_parallel import DataParallel, data_parallel
from ember.nn.parallel.distributed import DistributedDataParallel  # noqa: F401

# not DistributedDataParallel: __all__ lists what ember implements, never a stand-in
__all__ = ["DataParallel", "data_parallel"]
