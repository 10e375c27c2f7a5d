"""``ember.nn.functional``: the functions behind the layers (PyTorch's ``torch.nn.functional``).

Each is a thin entry point onto ``ember.ops`` with PyTorch's signature; the layers of
``ember.nn`` compute through these. PyTorch keeps them in one file; ember splits them by family
(one file each below), and this module gathers them under PyTorch's single namespace.
"""

import sys

from ember.nn import grad  # torch.nn.functional.grad is the torch.nn.grad module
from ember.nn.functional.activation import *  # noqa: F403
from ember.nn.functional.attention import *  # noqa: F403
from ember.nn.functional.checks import *  # noqa: F403
from ember.nn.functional.conv import *  # noqa: F403
from ember.nn.functional.distance import *  # noqa: F403
from ember.nn.functional.dropout import *  # noqa: F403
from ember.nn.functional.fractional_pooling import *  # noqa: F403
from ember.nn.functional.loss import *  # noqa: F403
from ember.nn.functional.margin_loss import *  # noqa: F403
from ember.nn.functional.normalization import *  # noqa: F403
from ember.nn.functional.pooling import *  # noqa: F403
from ember.nn.functional.sparse import *  # noqa: F403
from ember.nn.functional.vision import *  # noqa: F403
from ember.ops.linear import bilinear, linear

# The star imports rebind some family names to functions (``dropout`` is a module here and
# then PyTorch's function of that name): take the family modules from sys.modules.
_FAMILIES = [
    sys.modules[f"{__name__}.{name}"]
    for name in (
        "activation",
        "attention",
        "checks",
        "conv",
        "distance",
        "dropout",
        "fractional_pooling",
        "loss",
        "margin_loss",
        "normalization",
        "pooling",
        "sparse",
        "vision",
    )
]
_names = [name for family in _FAMILIES for name in family.__all__]
assert len(_names) == len(set(_names)), "a name is exported by two families"
__all__ = ["linear", "bilinear"] + _names
__all__ += ["grad"]

# The low-precision matmuls (lowp_mm.py: scaled_mm, grouped_mm...) load on first use
# (ember/_lazy.py).
from ember import _lazy, _unsupported  # noqa: E402

_LAZY = _lazy.names(__name__)
__all__ += list(_LAZY)


def _miss(name: str):
    # Runs only on a miss, so existing names cost nothing: a torch name ember deliberately
    # lacks answers with its reason (ember/_unsupported.py).
    return _unsupported.module_getattr(__name__, name)


__getattr__ = _lazy.lazy_getattr(__name__, _LAZY, fallback=_miss)


def __dir__() -> list[str]:
    return sorted(__all__)  # torch's names only, not the helpers imported above
