"""``ember.nn``: Parameter, Module, containers and layers (PyTorch's ``torch.nn``)."""

from ember.nn.parameter import Buffer, Parameter  # noqa: F401
from ember.nn.modules.module import Module, RegistrationWarning, set_registration_warnings  # noqa: F401
