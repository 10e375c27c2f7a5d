"""``ember.nn``: Parameter, Module, containers and layers (PyTorch's ``torch.nn``)."""

from ember._lazy import lazy_dir as _lazy_dir
from ember._lazy import lazy_getattr as _lazy_getattr
from ember.nn import (  # noqa: F401
    functional,
    init,
    modules,  # noqa: F401
    parallel,  # noqa: F401
    parameter,
    utils,
)
from ember.nn.modules.activation import *  # noqa: F403
from ember.nn.modules.adaptive import *  # noqa: F403
from ember.nn.modules.attention import *  # noqa: F403
from ember.nn.modules.batchnorm import *  # noqa: F403
from ember.nn.modules.channelshuffle import *  # noqa: F403
from ember.nn.modules.container import (  # noqa: F401
    Container,
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from ember.nn.modules.conv import *  # noqa: F403
from ember.nn.modules.distance import *  # noqa: F403
from ember.nn.modules.dropout import *  # noqa: F403
from ember.nn.modules.flatten import *  # noqa: F403
from ember.nn.modules.fold import *  # noqa: F403
from ember.nn.modules.instancenorm import *  # noqa: F403
from ember.nn.modules.linear import Bilinear, Identity, LazyLinear, Linear  # noqa: F401
from ember.nn.modules.linear_cross_entropy_options import *  # noqa: F403
from ember.nn.modules.loss import *  # noqa: F403
from ember.nn.modules.module import Module, RegistrationWarning, set_registration_warnings  # noqa: F401
from ember.nn.modules.normalization import *  # noqa: F403
from ember.nn.modules.padding import *  # noqa: F403
from ember.nn.modules.pixelshuffle import *  # noqa: F403
from ember.nn.modules.pooling import *  # noqa: F403
from ember.nn.modules.rnn import *  # noqa: F403
from ember.nn.modules.sparse import *  # noqa: F403
from ember.nn.modules.transformer import *  # noqa: F403
from ember.nn.modules.upsampling import *  # noqa: F403
from ember.nn.parallel import DataParallel  # noqa: F401
from ember.nn.parameter import (  # noqa: F401
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)


def factory_kwargs(kwargs):
    """The ``device``/``dtype``/``memory_format`` entries of ``kwargs`` as one dict for a
    factory call; entries of ``kwargs["factory_kwargs"]`` count too (named twice: TypeError).

    Args:
        kwargs: a module constructor's ``**kwargs`` (or None).

    Example:
        >>> ember.nn.factory_kwargs({"dtype": ember.float64, "factory_kwargs": {"device": "cpu"}})
        {'device': 'cpu', 'dtype': ember.float64}
    """
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))  # a copy: the caller's dicts stay untouched
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r


# torch.nn.attention and torch.nn.common_types load on first use
_LAZY = {"attention": "ember.nn.attention", "common_types": "ember.nn.common_types"}
__getattr__ = _lazy_getattr(__name__, _LAZY)
__dir__ = _lazy_dir(globals(), _LAZY)

# torch.nn's names that ember has (submodules stay out, as in torch's namespaces)
__all__ = sorted(
    n for n, v in globals().items() if not n.startswith("_") and not isinstance(v, type(utils))
)
