"""``ember.cpu.amp.autocast_mode`` (torch's file of the same name): the deprecated CPU
``autocast``, defined in ``ember.cpu.amp``."""

from ember.cpu.amp import autocast

__all__ = ["autocast"]
