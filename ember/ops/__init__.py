"""Differentiable ops. Each file defines one family of ``Function``s, the public functions
that apply them (listed in its ``__all__``), and the ``Tensor`` methods that reach them."""

import importlib

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
# Some families load on first use (tools/gen_lazy_table.py), so ``FAMILIES`` imports them when
# asked for.
_FAMILY_NAMES = (
    "pointwise",
    "math",
    "rounding",
    "binary_math",
    "clamp",
    "ternary",
    "comparison",
    "logical",
    "reduction",
    "extrema",
    "sorting",
    "cumulative",
    "shape",
    "broadcast",
    "slicing",
    "joining",
    "rearrange",
    "diagonal",
    "indexing",
    "gather_scatter",
    "index_dim",
    "masked",
    "nonzero_unique",
    "linalg",
    "linalg_solve",
    "linalg_lu",
    "linalg_matrix",
    "linalg_decomp",
    "linalg_qr",
    "linalg_lstsq",
    "addmm",
    "products",
    "cross",
    "einsum",
    "complex",
    "softmax",
    "linear",
    "special_gamma",
    "tensor_surface",
    "scatter_reduce",
    "special",
    "combinatorics",
    "calculus",
    "distances",
    "statistics",
    "bucketing",
    "misc_ops",
    "linalg_extra",
)


def __getattr__(name: str):
    if name == "FAMILIES":
        return tuple(importlib.import_module(f"ember.ops.{n}") for n in _FAMILY_NAMES)
    raise AttributeError(f"module 'ember.ops' has no attribute {name!r}")
