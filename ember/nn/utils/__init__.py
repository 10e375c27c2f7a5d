"""``ember.nn.utils`` (PyTorch's ``torch.nn.utils``)."""

from ember.nn.utils import rnn, stateless  # noqa: F401
