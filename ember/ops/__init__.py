"""Differentiable ops. Each file defines one family of ``Function``s, the public functions
that apply them (listed in its ``__all__``), and the ``Tensor`` methods that reach them."""

from ember.ops import (  # noqa: F401
    addmm,
    binary_math,
    broadcast,
    clamp,
    comparison,
    conversion,
    creation,
    cross,
    cumulative,
    diagonal,
    einsum,
    extrema,
    gather_scatter,
    index_dim,
    indexing,
    joining,
    linalg,
    linear,
    logical,
    masked,
    math,
    nonzero_unique,
    pointwise,
    products,
    rearrange,
    reduction,
    rounding,
    shape,
    slicing,
    softmax,
    sorting,
    special_gamma,
    ternary,
)

# The public op functions, by family: ``ember`` exports them all (but ``linear``, public as
# ``ember.nn.functional.linear`` as in PyTorch) and the op-table tests require a row for each.
FAMILIES = (
    pointwise, math, rounding, binary_math, clamp, ternary, comparison, logical,
    reduction, extrema, sorting, cumulative,
    shape, broadcast, slicing, joining, rearrange, diagonal,
    indexing, gather_scatter, index_dim, masked, nonzero_unique,
    linalg, addmm, products, cross, einsum,
    softmax, linear,
    special_gamma,
)
