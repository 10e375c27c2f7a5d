"""``ember.cuda.amp.common`` (torch's file of the same name): ``amp_definitely_not_available``,
defined in ``ember.cuda.amp``."""

from ember.cuda.amp import amp_definitely_not_available

__all__ = ["amp_definitely_not_available"]
