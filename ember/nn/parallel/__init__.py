"""``ember.nn.parallel`` (PyTorch's ``torch.nn.parallel``): ``DataParallel`` and
``data_parallel``."""

from ember.nn.parallel.data_parallel import DataParallel, data_parallel

__all__ = ["DataParallel", "data_parallel"]
