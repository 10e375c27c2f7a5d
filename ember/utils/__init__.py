"""``ember.utils`` (PyTorch's ``torch.utils``): ``hooks`` and ``data`` (datasets, samplers,
DataLoader)."""

from ember.utils import checkpoint, data, hooks  # noqa: F401
