"""``ember.testing``: torch.testing's ``assert_close`` and ``make_tensor``.

Example:
    >>> ember.testing.assert_close(ember.tensor(1.0), ember.tensor(1.0 + 1e-6))
"""

from ember.testing._comparison import assert_allclose, assert_close
from ember.testing._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
