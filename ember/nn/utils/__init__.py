"""``ember.nn.utils`` (PyTorch's ``torch.nn.utils``)."""

from ember.nn.utils import clip_grad, convert_parameters, init, rnn, stateless  # noqa: F401
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

# torch.nn.utils's names that ember has (submodules stay out)
__all__ = sorted(
    n for n, v in globals().items() if not n.startswith("_") and not isinstance(v, type(rnn))
)
