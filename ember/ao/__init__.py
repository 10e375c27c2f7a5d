"""``torch.ao``: quantization (partial, see ``ember.ao.quantization``)."""

from ember.ao import quantization  # noqa: F401
