"""``ember.multiprocessing.pool`` (torch's file of the same name): ``Pool``, the standard
library's process pool as ``ember.multiprocessing`` exposes it (ember tensors pickle by value, so
no shared-memory setup is needed in the workers)."""

from ember.multiprocessing import Pool

__all__ = ["Pool"]
