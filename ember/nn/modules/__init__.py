"""The module classes of ``ember.nn`` (PyTorch's ``torch.nn.modules``)."""

from ember.nn.modules.container import (  # noqa: F401
    Container,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from ember.nn.modules.linear import Identity, LazyLinear, Linear  # noqa: F401
from ember.nn.modules.module import Module  # noqa: F401
