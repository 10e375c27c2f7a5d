"""``ember.multiprocessing.queue`` (torch's file of the same name): ``Queue`` and ``SimpleQueue``
as ``ember.multiprocessing`` exposes them (ember tensors pickle by value through them)."""

from ember.multiprocessing import Queue, SimpleQueue

__all__ = ["Queue", "SimpleQueue"]
