"""``torch.quantization``: torch's older name for ``torch.ao.quantization`` (the same objects)."""

from ember.ao.quantization import *  # noqa: F403
from ember.ao.quantization import __getattr__  # noqa: F401  (the flow names not built yet)
