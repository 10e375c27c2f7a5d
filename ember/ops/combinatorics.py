"""Tensors built by arranging another's elements: ``cartesian_prod``, ``combinations``,
``block_diag``, ``diagflat``, ``rot90``, ``vander`` and ``msort``.

Each is composed from indexing, ``cat``, ``flip``, ``transpose``, ``diag``, ``cumprod`` and
``sort``, so autograd (to any order) and the meta device come from those ops. The index
patterns (``combinations``) are made once per call by one vectorized NumPy expression.
"""

from __future__ import annotations

from ember import _dtype
from ember import backend as _backend
from ember.ops.broadcast import meshgrid
from ember.ops.creation import ones, tensor, zeros
from ember.ops.diagonal import diag
from ember.ops.joining import cat, stack
from ember.ops.pointwise import _out
from ember.ops.rearrange import flip
from ember.ops.sorting import sort
from ember.tensor import Tensor, _wrap_dim

_cpu = _backend.cpu


def _need_1d(t: Tensor) -> None:
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """The cartesian product of 1-D tensors: one row per combination, in row-major order
    (one tensor: that tensor).

    Example:
        >>> ember.cartesian_prod(ember.tensor([1, 2]), ember.tensor([3, 4]))
        tensor([[1, 3],
                [1, 4],
                [2, 3],
                [2, 4]])
    """
    for t in tensors:
        _need_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of a 1-D tensor's elements, one per row, in
    lexicographic order of positions (``itertools.combinations``, or
    ``combinations_with_replacement``).

    Example:
        >>> ember.combinations(ember.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
    """
    _need_1d(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return zeros(0, dtype=input.dtype, device=input.device)
    n = input.shape[0]
    if n**r > 1 << 28:
        raise RuntimeError(
            f"combinations(): {n}**{r} candidate index tuples are too many to enumerate"
        )
    # every r-tuple of positions, kept where strictly (or weakly) increasing
    grid = _cpu.indices((n,) * r).reshape(r, -1)
    keep = _cpu.ones(grid.shape[1], dtype=bool)
    for k in range(r - 1):
        keep &= grid[k] <= grid[k + 1] if with_replacement else grid[k] < grid[k + 1]
    idx = tensor(_cpu.ascontiguousarray(grid[:, keep].T), device=input.device)
    return input[idx]


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix of the inputs (0-d and 1-D inputs are 1-row blocks), in the
    promoted dtype of all of them.

    Example:
        >>> ember.block_diag(ember.tensor([[1, 2]]), ember.tensor(3))
        tensor([[1, 2, 0],
                [0, 0, 3]])
    """
    if not tensors:
        return zeros(1, 0)
    blocks = []
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"block_diag(): argument 'tensors' must be tuple of Tensors, not {type(t).__name__}"
            )
        if t.dim() > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t.dim()} dimensions"
            )
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    dt = blocks[0].dtype
    for b in blocks[1:]:
        dt = _dtype.promote_types(dt, b.dtype)
    width = sum(b.shape[1] for b in blocks)
    dev = blocks[0].device
    rows, left = [], 0
    for b in blocks:
        h, w = b.shape
        parts = [b.to(dt)]
        if left:
            parts.insert(0, zeros(h, left, dtype=dt, device=dev))
        if width - left - w:
            parts.append(zeros(h, width - left - w, dtype=dt, device=dev))
        rows.append(cat(parts, 1) if len(parts) > 1 else parts[0])
        left += w
    return cat(rows, 0) if len(rows) > 1 else rows[0].clone()


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened input on its ``offset``-th diagonal.

    Example:
        >>> ember.diagflat(ember.tensor([[1, 2]]))
        tensor([[1, 0],
                [0, 2]])
    """
    return diag(input.reshape(-1), offset)


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first dim toward
    the second.

    Example:
        >>> ember.rot90(ember.tensor([[1, 2], [3, 4]]))
        tensor([[2, 4],
                [1, 3]])
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    nd = input.dim()
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = _wrap_dim(dims[0], nd), _wrap_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    k %= 4
    if k == 1:
        return flip(input, d1).transpose(d0, d1)
    if k == 2:
        return flip(input, d0, d1)
    if k == 3:
        return flip(input, d0).transpose(d0, d1)
    return input.clone()


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-D tensor: column ``j`` is ``x ** (N - 1 - j)`` (or
    ``x ** j`` with ``increasing=True``); integer and bool inputs give int64.

    Example:
        >>> ember.vander(ember.tensor([1, 2, 3]))
        tensor([[1, 1, 1],
                [4, 2, 1],
                [9, 3, 1]])
    """
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = _dtype.promote_types(x.dtype, _dtype.int64)
    if n == 0:
        return zeros(x.shape[0], 0, dtype=dt, device=x.device)
    first = ones(x.shape[0], 1, dtype=dt, device=x.device)
    if n == 1:
        return first
    # NOTE: matches torch: the powers are a running product, so gradients are cumprod's
    rest = x.to(dt).unsqueeze(1).expand(x.shape[0], n - 1)
    result = cat([first, rest], 1).cumprod(1)
    return result if increasing else flip(result, 1)


def msort(input: Tensor, *, out=None) -> Tensor:
    """``input`` sorted along its first dim (values only).

    Example:
        >>> ember.msort(ember.tensor([[3, 1], [2, 4]]))
        tensor([[2, 1],
                [3, 4]])
    """
    return _out(sort(input, 0).values, out)


def _diagflat_m(self, offset: int = 0) -> Tensor:
    return diagflat(self, offset)


def _rot90_m(self, k: int = 1, dims=(0, 1)) -> Tensor:
    return rot90(self, k, dims)


__all__ = [
    "cartesian_prod",
    "combinations",
    "block_diag",
    "diagflat",
    "rot90",
    "vander",
    "msort",
]

Tensor.diagflat = _diagflat_m
Tensor.rot90 = _rot90_m
Tensor.msort = msort
