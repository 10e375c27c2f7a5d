"""``ember.nn``: Parameter, Module, containers and layers (PyTorch's ``torch.nn``)."""

from ember.nn.parameter import (  # noqa: F401
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)
from ember.nn.modules.module import Module, RegistrationWarning, set_registration_warnings  # noqa: F401
from ember.nn.modules.container import (  # noqa: F401
    Container,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from ember.nn.modules.linear import Identity, LazyLinear, Linear  # noqa: F401
from ember.nn import parallel  # noqa: F401
from ember.nn.parallel import DataParallel  # noqa: F401
from ember.nn import functional, init, parameter, utils  # noqa: F401
from ember.nn import modules  # noqa: F401
