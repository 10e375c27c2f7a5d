"""Differentiable ops. Each file defines one family of ``Function``s, the public functions
that apply them, and the ``Tensor`` methods that reach them."""

from ember.ops import conversion, creation, pointwise, reduction, shape  # noqa: F401
