"""Differentiable ops. Each file defines one family of ``Function``s, the public functions
that apply them (listed in its ``__all__``), and the ``Tensor`` methods that reach them."""

from ember.ops import (  # noqa: F401
    addmm,
    conversion,
    creation,
    cross,
    cumulative,
    einsum,
    extrema,
    indexing,
    linalg,
    linear,
    math,
    pointwise,
    products,
    reduction,
    shape,
    softmax,
    sorting,
)

# The public op functions, by family: ``ember`` exports them all (but ``linear``, public as
# ``ember.nn.functional.linear`` as in PyTorch) and the op-table tests require a row for each.
FAMILIES = (
    pointwise, math, reduction, extrema, sorting, cumulative, shape, indexing, linalg, addmm,
    products, cross, einsum, softmax, linear,
)
