"""Block compressed sparse tensors (BSR and BSC): construction and conversion.

A BSR tensor stores dense (R, C) blocks: ``crow_indices`` and ``col_indices`` index the block
rows and block columns as CSR does elements, and ``values`` is (nnz, R, C). BSC is the same
by block columns (``ccol_indices``, ``row_indices``). The ``SparseArray`` keeps the compressed
indices in ``crow`` and the plain ones in ``col`` for both, as for CSR/CSC. Products run in
SciPy's BSR kernels (``SparseArray.matrix``).
"""

from __future__ import annotations

from ember._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr
from ember.autograd.function import Function
from ember.backend import _sparse as _k
from ember.sparse import _functions as F
from ember.sparse._array import SparseArray
from ember.sparse._tensor import (
    _LAYOUT_NAMES,
    _check_layout_kw,
    _finish,
    _index_array,
    _values_tensor,
    sparse_csc_tensor,
    sparse_csr_tensor,
)
from ember.tensor import Tensor, _wrap

_NAMES = {
    sparse_bsr: ("crow_indices", "col_indices", "ncols"),
    sparse_bsc: ("ccol_indices", "row_indices", "nrows"),
}


def _blocked_tensor(op, layout, comp, plain, values, size, dtype, device, requires_grad, check):
    _check_layout_kw(op, layout[1], layout[0])
    layout = layout[0]
    cname, pname, _ = _NAMES[layout]
    c = _index_array(comp, cname)
    p = _index_array(plain, pname)
    v = _values_tensor(values, dtype)
    vshape = tuple(v._data.shape)
    if c.ndim != p.ndim:
        raise RuntimeError(
            f"{cname} and {pname} dimensionalities must be equal but got {c.ndim} and "
            f"{p.ndim}, respectively"
        )
    if len(vshape) < 3:
        raise RuntimeError(
            "values must have dimensionality > sum of batch and block dimensionalities "
            f"(=0 + 2) but got {len(vshape)}"
        )
    if c.ndim != 1 or len(vshape) != 3:
        raise NotImplementedError(
            f"{op}: ember's BSR/BSC tensors are 2-D without batch or dense dims: {cname} and "
            f"{pname} must be 1-D and values 3-D, got {c.ndim}, {p.ndim} and {len(vshape)} dims"
        )
    R, C = vshape[1], vshape[2]
    column_major = layout is sparse_bsc
    if size is None:
        n_plain = int(p.max()) + 1 if p.shape[0] else 0
        nb = (c.shape[0] - 1, n_plain)
        if column_major:
            nb = nb[::-1]
        shape = (nb[0] * R, nb[1] * C)
    else:
        shape = tuple(int(s) for s in size)
        if len(shape) != 2:
            raise RuntimeError(
                "tensor dimensionality must be sum of batch, base, and dense dimensionalities "
                f"(=0 + 2 + 0) but got {len(shape)}"
            )
    if check is not False:
        msg = _k.check_blocked(c, p, vshape[0], shape, (R, C), _NAMES[layout])
        if msg is not None:
            raise RuntimeError(msg)
    pattern = SparseArray(layout, shape, v._data, crow=c, col=p)
    return _finish(F.make(v, pattern), dtype, device, requires_grad)


def sparse_bsr_tensor(
    crow_indices,
    col_indices,
    values,
    size=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
) -> Tensor:
    """A 2-D sparse tensor of dense blocks by block rows: block row ``i`` holds the blocks
    ``values[crow_indices[i]:crow_indices[i + 1]]`` at block columns ``col_indices[...]``.

    Example:
        >>> s = ember.sparse_bsr_tensor([0, 1, 1], [1], ember.ones(1, 2, 2), (4, 4))
        >>> s.to_dense()
        tensor([[0., 0., 1., 1.],
                [0., 0., 1., 1.],
                [0., 0., 0., 0.],
                [0., 0., 0., 0.]])
    """
    return _blocked_tensor(
        "sparse_bsr_tensor",
        (sparse_bsr, layout),
        crow_indices,
        col_indices,
        values,
        size,
        dtype,
        device,
        requires_grad,
        check_invariants,
    )


def sparse_bsc_tensor(
    ccol_indices,
    row_indices,
    values,
    size=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
) -> Tensor:
    """A 2-D sparse tensor of dense blocks by block columns: block column ``j`` holds the
    blocks ``values[ccol_indices[j]:ccol_indices[j + 1]]`` at block rows ``row_indices[...]``.

    Example:
        >>> s = ember.sparse_bsc_tensor([0, 0, 1], [0], ember.ones(1, 1, 2), (1, 4))
        >>> s.to_dense()
        tensor([[0., 0., 1., 1.]])
    """
    return _blocked_tensor(
        "sparse_bsc_tensor",
        (sparse_bsc, layout),
        ccol_indices,
        row_indices,
        values,
        size,
        dtype,
        device,
        requires_grad,
        check_invariants,
    )


_COMPRESSED = {
    sparse_csr: sparse_csr_tensor,
    sparse_csc: sparse_csc_tensor,
    sparse_bsr: sparse_bsr_tensor,
    sparse_bsc: sparse_bsc_tensor,
}


def sparse_compressed_tensor(
    compressed_indices,
    plain_indices,
    values,
    size=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
) -> Tensor:
    """A CSR, CSC, BSR or BSC tensor (``layout=``) from its compressed indices (``crow`` or
    ``ccol``), plain indices (``col`` or ``row``) and values.

    Example:
        >>> s = ember.sparse_compressed_tensor([0, 1, 2], [1, 0], [5.0, 6.0], (2, 2),
        ...                                    layout=ember.sparse_csc)
        >>> s.to_dense()
        tensor([[0., 6.],
                [5., 0.]])
    """
    make = _COMPRESSED.get(layout)
    if make is None:
        got = "none" if layout is None else _LAYOUT_NAMES.get(layout, "Strided")
        if layout is sparse_coo:
            got = "Sparse"
        raise RuntimeError(
            f"sparse_compressed_tensor expected sparse compressed tensor layout but got {got}"
        )
    return make(
        compressed_indices,
        plain_indices,
        values,
        size,
        dtype=dtype,
        device=device,
        requires_grad=requires_grad,
        check_invariants=check_invariants,
    )


# ---- conversions -------------------------------------------------------------------------------
class ScatterBlocks(Function):
    """Entry values -> the (nblocks, R, C) blocks that hold them (zeros elsewhere)."""

    _node_name = "ToSparseBsrBackward0"

    @staticmethod
    def forward(ctx, v, pos, nblocks, blocksize):
        ctx.pos = pos
        return _wrap(_k.scatter_blocks(v._data, pos, nblocks, blocksize))

    @staticmethod
    def backward(ctx, g):
        # each entry sits at one block element: read the gradient there (differentiable)
        return g.reshape((-1,) + tuple(g.shape[3:]))[_wrap(ctx.pos)], None, None, None


def _blocksize(blocksize) -> tuple:
    if isinstance(blocksize, int):
        return (blocksize, blocksize)
    bs = tuple(int(b) for b in blocksize)
    if len(bs) != 2:
        raise RuntimeError(f"blocksize needs to be a tuple of size 2, but got {len(bs)}")
    return bs


def _to_blocked(self: Tensor, layout, blocksize, dense_dim) -> Tensor:
    name = "bsr" if layout is sparse_bsr else "bsc"
    target = _LAYOUT_NAMES[layout]
    a = self._data
    bs = _blocksize(blocksize)
    if a.__class__ is not SparseArray:  # from dense
        if a.ndim < 2:
            # NOTE: matches torch: it asks a 1-D tensor for its dim -2
            raise IndexError(
                "Dimension out of range (expected to be in range of [-1, 0], but got -2)"
            )
        if a.ndim > 2 or dense_dim:
            raise NotImplementedError(
                f"to_sparse_{name}: ember's BSR/BSC tensors are 2-D without batch or dense "
                f"dims, got a {a.ndim}-D tensor"
            )
        _check_divisible(f"dense_to_sparse_{name}", a.shape, bs)
        return F.ToSparse.apply(self, layout, bs)
    src = _LAYOUT_NAMES[a.layout]
    if a.blocked:
        if a.blocksize != bs:
            op = (
                f"to_sparse_{name}" if a.layout is layout else f"sparse_compressed_to_sparse_{name}"
            )
            raise RuntimeError(
                f"{op}: conversion from {src} to {target} with blocksize changed from "
                f"{list(a.blocksize)} to {list(bs)} is not supported"
            )
        if a.layout is layout:
            if dense_dim is not None:
                raise RuntimeError(
                    f"to_sparse_{name}: conversion from {src} to {target} with dense_dim "
                    "argument given is not supported"
                )
            return self
    elif a.layout is sparse_coo:
        if a.sparse_dim != 2:
            raise RuntimeError(
                f"coo_to_sparse_{name}: conversion from Sparse to {target} for input tensors "
                "with sparse_dim()!=2 is not supported"
            )
        _check_divisible(f"coo_to_sparse_{name}", a.shape, bs)
    else:
        _check_divisible(f"sparse_compressed_to_sparse_{name}", a.shape, bs)
    if a.dense_dim:
        raise NotImplementedError(
            f"to_sparse_{name}: ember's BSR/BSC tensors have no dense dims, got {a.dense_dim}"
        )
    s = self.to_sparse_coo().coalesce()
    c = s._data
    crow, plain, pos, nblocks = _k.coo_to_blocks(c.indices, c.shape, bs, layout is sparse_bsc)
    v = ScatterBlocks.apply(F.values_of(s), pos, nblocks, bs)
    return F.make(v, SparseArray(layout, c.shape, v._data, crow=crow, col=plain))


def _check_divisible(op: str, shape, bs) -> None:
    if shape[0] % bs[0] or shape[1] % bs[1]:
        raise RuntimeError(
            f"{op}: tensor sparse size ({shape[0]},{shape[1]}) must be divisible by given "
            f"blocksize ({bs[0]},{bs[1]})"
        )


def _to_sparse_bsr(self, blocksize, dense_dim=None) -> Tensor:
    """This 2-D tensor (dense or sparse) in BSR layout with (R, C) = ``blocksize`` blocks; a
    block is stored when it holds a nonzero (dense) or a stored entry (sparse).

    Example:
        >>> ember.eye(4).to_sparse_bsr((2, 2)).col_indices()
        tensor([0, 1])
    """
    return _to_blocked(self, sparse_bsr, blocksize, dense_dim)


def _to_sparse_bsc(self, blocksize, dense_dim=None) -> Tensor:
    """This 2-D tensor (dense or sparse) in BSC layout with (R, C) = ``blocksize`` blocks.

    Example:
        >>> ember.eye(4).to_sparse_bsc(2).ccol_indices()
        tensor([0, 1, 2])
    """
    return _to_blocked(self, sparse_bsc, blocksize, dense_dim)


Tensor.to_sparse_bsr = _to_sparse_bsr
Tensor.to_sparse_bsc = _to_sparse_bsc
