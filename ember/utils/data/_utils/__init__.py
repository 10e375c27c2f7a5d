"""The DataLoader's machinery (``torch.utils.data._utils``): collation, fetching, workers."""

from ember.utils.data._utils import collate, fetch, worker  # noqa: F401
