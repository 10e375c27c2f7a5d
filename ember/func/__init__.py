"""``ember.func``: function transforms (PyTorch's ``torch.func``).

``functional_call`` runs a Module with substitute parameters; ``grad``, ``grad_and_value``,
``vjp``, ``jvp``, ``jacrev``, ``jacfwd`` and ``hessian`` are built on ember's reverse-mode
autograd (forward mode through the exact double-backward identity; see
``ember/func/_eager_transforms.py`` for costs); ``vmap`` calls the function once per batch
element and stacks the results (torch's numbers at Python-loop speed: ``ember/func/_vmap.py``).
``stack_module_state``, ``functionalize``, ``linearize``, ``replace_all_batch_norm_modules_``
and ``debug_unwrap`` are in ``ember/func/_extra.py``; ``rearrange`` (einops patterns as
reshape/permute views) in ``ember/func/_rearrange.py``.
"""

from ember.func._eager_transforms import (
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    vjp,
)
from ember.func._extra import (
    debug_unwrap,
    functionalize,
    linearize,
    replace_all_batch_norm_modules_,
    stack_module_state,
)
from ember.func._functional_call import functional_call
from ember.func._rearrange import rearrange
from ember.func._vmap import vmap

for _f in (functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap):
    _f.__module__ = "ember.func"  # as torch.func's: its public home, not the file
for _f in (
    debug_unwrap,
    functionalize,
    linearize,
    rearrange,
    replace_all_batch_norm_modules_,
    stack_module_state,
):
    _f.__module__ = "ember.func"

__all__ = [
    "debug_unwrap",
    "functional_call",
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "rearrange",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]
