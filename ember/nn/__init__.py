"""``ember.nn``: Parameter, Module, containers and layers (PyTorch's ``torch.nn``)."""

from ember.nn import (  # noqa: F401
    functional,
    init,
    modules,  # noqa: F401
    parallel,  # noqa: F401
    parameter,
    utils,
)
from ember.nn.modules.container import (  # noqa: F401
    Container,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from ember.nn.modules.linear import Identity, LazyLinear, Linear  # noqa: F401
from ember.nn.modules.module import Module, RegistrationWarning, set_registration_warnings  # noqa: F401
from ember.nn.parallel import DataParallel  # noqa: F401
from ember.nn.parameter import (  # noqa: F401
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)
