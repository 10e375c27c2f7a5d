"""``ember.utils`` (PyTorch's ``torch.utils``): ``hooks`` now; ``data`` comes with data loading."""

from ember.utils import hooks  # noqa: F401
