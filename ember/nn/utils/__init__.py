"""``ember.nn.utils`` (PyTorch's ``torch.nn.utils``)."""

from ember.nn.utils import stateless  # noqa: F401
