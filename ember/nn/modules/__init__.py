"""The module classes of ``ember.nn`` (PyTorch's ``torch.nn.modules``)."""

from ember.nn.modules.module import Module  # noqa: F401
