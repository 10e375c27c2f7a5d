"""``ember.func``: function transforms over Modules (PyTorch's ``torch.func``).

ember has ``functional_call``; the other ``torch.func`` transforms (``grad``, ``vmap``,
``jacrev``...) are not built: use ``ember.autograd.grad`` (with ``create_graph=True`` for
higher orders) instead of ``grad``/``vjp``.
"""

from ember.func._functional_call import functional_call

functional_call.__module__ = "ember.func"  # as torch.func's: its public home, not the file

__all__ = ["functional_call"]
