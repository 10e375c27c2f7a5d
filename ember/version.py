"""``ember.version``: the version and build facts ``torch.version`` reports.

Example:
    >>> ember.version.cuda is None
    True
"""

from ember import __version__

__all__ = ["__version__", "cuda", "hip", "debug"]

cuda = None  # built without CUDA
hip = None  # built without ROCm
debug = False
