"""``ember.cuda.amp.autocast_mode`` (torch's file of the same name): the deprecated CUDA
``autocast`` and the ``custom_fwd``/``custom_bwd`` decorators, defined in ``ember.cuda.amp``."""

from ember.cuda.amp import autocast, custom_bwd, custom_fwd

__all__ = ["autocast", "custom_bwd", "custom_fwd"]
