"""``ember.nn.utils`` (PyTorch's ``torch.nn.utils``)."""

# NOTE: matches torch: the functions shadow their submodules' names (``nn.utils.weight_norm``
# is the function; the module stays in sys.modules)
from ember._lazy import lazy_dir as _lazy_dir
from ember._lazy import lazy_getattr as _lazy_getattr
from ember.nn.utils import (  # noqa: F401
    clip_grad,
    convert_parameters,
    init,
    rnn,
    stateless,
)
from ember.nn.utils.clip_grad import (  # noqa: F401
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from ember.nn.utils.convert_parameters import (  # noqa: F401
    parameters_to_vector,
    vector_to_parameters,
)
from ember.nn.utils.init import skip_init  # noqa: F401
from ember.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402, F401
from ember.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: E402, F401

# torch.nn.utils's names that ember has (submodules stay out)
# parametrizations, pruning, fusion and memory formats load on first use (import ember stays lean)
_LAZY = {m: f"ember.nn.utils.{m}" for m in ("fusion", "memory_format", "parametrize", "prune")}
_LAZY["parametrizations"] = "ember.nn.utils.parametrizations"
_LAZY.update(
    {
        n: f"ember.nn.utils.fusion:{n}"
        for n in (
            "fuse_conv_bn_eval",
            "fuse_conv_bn_weights",
            "fuse_linear_bn_eval",
            "fuse_linear_bn_weights",
        )
    }
)
_LAZY.update(
    {
        n: f"ember.nn.utils.memory_format:{n}"
        for n in ("convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format")
    }
)
# ember only: the model check (ember/nn/utils/check.py)
_LAZY["check"] = "ember.nn.utils.check:check"
__getattr__ = _lazy_getattr(__name__, _LAZY)
__dir__ = _lazy_dir(globals(), _LAZY)

__all__ = sorted(
    [n for n, v in globals().items() if not n.startswith("_") and not isinstance(v, type(rnn))]
    + [n for n, t in _LAZY.items() if ":" in t]
)
