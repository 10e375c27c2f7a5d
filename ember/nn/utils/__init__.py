"""``ember.nn.utils`` (PyTorch's ``torch.nn.utils``)."""

# NOTE: matches torch: the functions shadow their submodules' names (``nn.utils.weight_norm``
# is the function; the module stays in sys.modules)
from ember.nn.utils import (  # noqa: F401  # noqa: E402, F401
    clip_grad,
    convert_parameters,
    fusion,
    init,
    memory_format,
    parametrizations,
    parametrize,
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
from ember.nn.utils.fusion import (  # noqa: F401
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from ember.nn.utils.init import skip_init  # noqa: F401
from ember.nn.utils.memory_format import (  # noqa: F401
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
)
from ember.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402, F401
from ember.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: E402, F401

# torch.nn.utils's names that ember has (submodules stay out)
__all__ = sorted(
    n for n, v in globals().items() if not n.startswith("_") and not isinstance(v, type(rnn))
)
