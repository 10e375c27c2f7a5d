"""The differentiable steps between sparse tensors and their values.

Every sparse result is built by ``make`` from a values Tensor, so an op that only changes the
values (``s * 2``, ``s.to(float64)``, ``s.t()``) is that op on ``values_of(s)`` and gets its
gradient from the dense op. The products, softmax and coalescing are primitives here, with
their gradients on raw arrays.
"""

from __future__ import annotations

from ember import _dtype
from ember._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.backend import _sparse as _k
from ember.ops.embedding import EmbeddingLookup
from ember.sparse._array import SparseArray
from ember.tensor import Tensor, _init, _wrap

_new = object.__new__
SPARSE_CLS = [Tensor]  # set to SparseTensor by ember.sparse._methods


def new_sparse(arr: SparseArray, requires_grad: bool = False) -> Tensor:
    """A leaf sparse tensor over ``arr`` (no copy)."""
    t = _new(SPARSE_CLS[0])
    _init(t, arr, requires_grad)
    return t


def is_sparse_data(d) -> bool:
    return d.__class__ is SparseArray


def values_at(g: Tensor, arr: SparseArray):
    """The raw values of gradient ``g`` (dense or sparse) at the stored entries of ``arr``."""
    gd = g._data
    if arr.blocked:
        if gd.__class__ is not SparseArray:
            return _k.gather_blocks(gd, *arr.block_coords(), arr.blocksize)
        if not arr.same_pattern(gd):  # read element by element, then as blocks
            return values_at(g, arr._coo()).reshape(arr.values.shape)
    if gd.__class__ is SparseArray:
        if arr.same_pattern(gd):
            return gd.values
        c = arr._coal
        if c is not None and c[0].same_pattern(gd):  # the coalesced form of ``arr``'s pattern
            return gd.values[c[1]]
        gc = gd._coo()
        if not gc.coalesced:
            idx, val, _ = _k.coalesce(gc.indices, gc.values, gc.shape)
        else:
            idx, val = gc.indices, gc.values
        src = _k.linear_keys(idx, gd.shape)
        keys = _k.linear_keys(arr.coo_indices(), arr.shape)
        return _k.sparse_lookup(keys, src, val)
    return _k.gather(gd, arr.coo_indices())


def grad_like(g: Tensor, arr: SparseArray) -> Tensor:
    """Gradient ``g`` masked to the pattern of ``arr``: a sparse tensor with its entries."""
    return new_sparse(arr.with_values(values_at(g, arr)))


def leaf_grad(ctx, i: int, arr: SparseArray, values) -> Tensor:
    """The sparse gradient for input ``i`` with per-entry ``values``; a sparse leaf gets it in
    its coalesced pattern, as torch's (one value per position: duplicates share it)."""
    e = ctx._next[i]
    if e is not None and e[1] is None and not arr.coalesced:
        c, inv = arr.coalesced_with_inverse()
        out = _k.empty_like_rows(c.values.shape[0], values)
        out[inv] = values
        return new_sparse(c.with_values(out))
    return new_sparse(arr.with_values(values))


class SparseNew(Function):
    """Values (a Tensor) -> sparse tensor with given index arrays; the gradient of the values
    is the output gradient read at the stored entries."""

    _node_name = "SparseCooTensorWithDimsAndTensorsBackward0"

    @staticmethod
    def forward(ctx, values, pattern):
        out = ctx.pattern = pattern.with_values(values._data)  # the one whose caches fill
        return new_sparse(out)

    @staticmethod
    def backward(ctx, g):
        return _wrap(values_at(g, ctx.pattern)), None


class SparseCsrNew(SparseNew):
    _node_name = "SparseCompressedTensorBackward0"


def make(values: Tensor, pattern: SparseArray) -> Tensor:
    """A sparse tensor with ``pattern``'s index arrays and ``values`` (differentiable)."""
    if pattern.layout is not sparse_coo:  # CSR and CSC
        return SparseCsrNew.apply(values, pattern)
    return SparseNew.apply(values, pattern)


class Values(Function):
    """Sparse tensor -> its values; the gradient is a sparse tensor of the same pattern."""

    _node_name = "ValuesBackward0"

    @staticmethod
    def forward(ctx, s):
        ctx.arr = s._data
        return _wrap(s._data.values)

    @staticmethod
    def backward(ctx, g):
        return leaf_grad(ctx, 0, ctx.arr, g._data)


def values_of(s: Tensor) -> Tensor:
    """The values of ``s`` as a Tensor that carries ``s``'s history."""
    if s._requires_grad and _gm.state.enabled:
        return Values.apply(s)
    return _wrap(s._data.values)


class ToDense(Function):
    _node_name = "ToDenseBackward0"

    @staticmethod
    def forward(ctx, s):
        a = ctx.arr = s._data
        if a.layout is sparse_csr:
            return _wrap(_k.csr_to_dense(a.crow, a.col, a.values, a.shape))
        if a.blocked:
            return _wrap(_k.blocks_to_dense(*a.block_coords(), a.values, a.shape))
        if a.layout is sparse_csc:
            return _wrap(_k.coo_to_dense(a.coo_indices(), a.values, a.shape, True))
        return _wrap(_k.coo_to_dense(a.indices, a.values, a.shape, a.coalesced))

    @staticmethod
    def backward(ctx, g):
        # NOTE: matches torch: the gradient is the dense one masked to the input's (coalesced)
        # pattern (masked_grad)
        return grad_like(g, ctx.arr.coalesced_array())


class ToSparse(Function):
    _node_name = "ToSparseBackward0"

    @staticmethod
    def forward(ctx, x, layout, sparse_dim):
        a = x._data
        if layout is sparse_bsr or layout is sparse_bsc:  # ``sparse_dim``: the blocksize
            crow, col, val = _k.dense_to_blocks(a, sparse_dim, layout is sparse_bsc)
            return new_sparse(SparseArray(layout, a.shape, val, crow=crow, col=col))
        if layout is sparse_csr:
            crow, col, val = _k.dense_to_csr(a)
            return new_sparse(SparseArray(sparse_csr, a.shape, val, crow=crow, col=col))
        if layout is sparse_csc:
            ccol, row, val = _k.dense_to_csc(a)
            return new_sparse(SparseArray(sparse_csc, a.shape, val, crow=ccol, col=row))
        idx, val = _k.dense_to_coo(a, sparse_dim)
        return new_sparse(SparseArray(sparse_coo, a.shape, val, idx, coalesced=True))

    @staticmethod
    def backward(ctx, g):
        gd = g._data
        if gd.__class__ is SparseArray:
            return ToDense.apply(g), None, None
        return g, None, None


class Coalesce(Function):
    _node_name = "CoalesceBackward0"

    @staticmethod
    def forward(ctx, s):
        a = ctx.arr = s._data
        idx, val, inv = _k.coalesce(a.indices, a.values, a.shape)
        ctx.inverse = inv
        out = SparseArray(sparse_coo, a.shape, val, idx, coalesced=True)
        ctx.out = out
        return new_sparse(out)

    @staticmethod
    def backward(ctx, g):
        v = values_at(g, ctx.out)
        return new_sparse(ctx.arr.with_values(v[ctx.inverse]))


class SparseMm(Function):
    """``beta * input + alpha * (s @ d)`` with ``s`` sparse (input optional), in SciPy.

    ``s``'s gradient is, as torch's: dense ``g @ d.T`` for ``torch.mm``/``@`` on a sparse leaf
    (``MmBackward0``), else masked to ``s``'s pattern (computed per stored entry, never as a
    dense product: the same values reach ``s``'s values either way).
    """

    _node_name = "MmBackward0"
    _masked = False  # torch.sparse.mm/addmm: sparse gradient even for a leaf

    @staticmethod
    def forward(ctx, input, s, d, beta, alpha):
        a = s._data
        p = _k.spmm(a.matrix(), d._data, a.dtype)
        if alpha != 1:
            p *= alpha
        if input is not None and beta != 0:
            p += input._data if beta == 1 else input._data * beta
        ctx.s, ctx.d, ctx.beta, ctx.alpha = s, d, beta, alpha
        return _wrap(p)

    @staticmethod
    def backward(ctx, g):
        s, d, beta, alpha = ctx.s, ctx.d, ctx.beta, ctx.alpha
        need_i, need_s, need_d = ctx.needs_input_grad[:3]
        gi = gs = gd = None
        if need_i:
            gi = g if beta == 1 else g * beta
        if alpha != 1:
            g = g * alpha
        graph = _gm.state.enabled  # create_graph: Tensor ops, differentiable again
        if need_s:
            e = ctx._next[1]
            # NOTE: matches torch: a leaf, or a tensor made by ``to_sparse*`` from a dense one,
            # gets (passes on) the dense gradient
            dense = e is not None and (e[1] is None or e[0]._function is ToSparse)
            if dense and not ctx._function._masked:
                gs = g @ d.mT if d.ndim == 2 else g.unsqueeze(-1) * d
            else:
                # NOTE: matches torch: the dense gradient masked to s's coalesced pattern (one
                # value per position, so that it adds to dense gradients of s correctly)
                a = s._data.coalesced_array()
                if a.blocked and not graph:  # one small product per stored block
                    v = _k.block_grads(*a.block_coords(), g._data, d._data, a.blocksize)
                    gs = new_sparse(a.with_values(v.astype(a.dtype, copy=False)))
                    r = c = None
                else:
                    r, c = a.rows_cols()
                if r is None:
                    pass
                elif graph:  # per-entry dot products in Tensor ops (differentiable)
                    rt, ct = _wrap(r), _wrap(c)
                    dc = d[ct].conj() if d.is_complex() else d[ct]
                    v = g[rt] * dc if g.ndim == 1 else (g[rt] * dc).sum(-1)
                    gs = make(v.reshape(a.values.shape) if a.blocked else v, a)
                else:
                    gs = new_sparse(a.with_values(_k.sddmm(r, c, g._data, d._data).astype(a.dtype)))
        if need_d:
            if graph:
                gd = mm_sparse(transpose(s), g)
            else:
                gd = _wrap(_k.spmm(s._data.matrix_t(), g._data, d._data.dtype))
        return gi, gs, gd, None, None


class SparseAddmm(SparseMm):
    _node_name = "AddmmBackward0"


class SparseMmMasked(SparseMm):
    _node_name = "SparseAddmmBackward0"
    _masked = True


def mm_sparse(s: Tensor, d: Tensor, input=None, beta=1, alpha=1, cls=SparseMm) -> Tensor:
    return cls.apply(input, s, d, beta, alpha)


def transpose(s: Tensor) -> Tensor:
    """The 2-D transpose of a COO or CSR tensor, as COO (differentiable)."""
    a = s._data
    if a.blocked:  # element by element, as COO (differentiable)
        return transpose(s.to_sparse_coo())
    idx = a.coo_indices()
    pattern = SparseArray(sparse_coo, (a.shape[1], a.shape[0]), a.values, _k.swap_rows(idx, 0, 1))
    if a.layout is sparse_csr:
        return SparseNew.apply(values_of(s), pattern)
    return make(values_of(s), pattern)


class Softmax(Function):
    _node_name = "SparseSoftmaxBackward0"

    @staticmethod
    def forward(ctx, s, dim, log):
        a = s._data
        y, group = _k.segment_softmax(a.indices, a.values, a.shape, dim, log)
        ctx.arr, ctx.y, ctx.group, ctx.log = a, y, group, log
        return new_sparse(a.with_values(y))

    @staticmethod
    def backward(ctx, g):
        a, y, group = ctx.arr, ctx.y, ctx.group
        gv = values_at(g, a)
        if ctx.log:  # d log_softmax: g - softmax * sum(g)
            gx = gv - _k.np_exp(y) * _k.segment_sum(group, gv)
        else:  # d softmax: y * (g - sum(g * y))
            gx = y * (gv - _k.segment_sum(group, gv * y))
        return new_sparse(a.with_values(gx)), None, None


def np_dtype(dt) -> object:
    return dt._np if isinstance(dt, _dtype.dtype) else dt


class EmbeddingSparse(EmbeddingLookup):
    """``weight[indices]`` whose weight gradient is a sparse COO tensor (``sparse=True`` of
    ``F.embedding``/``F.embedding_bag``): one entry per looked-up index in input order,
    ``padding_idx`` left out, uncoalesced, as torch's."""

    @staticmethod
    def backward(ctx, g):
        if ctx.freq:
            # NOTE: matches torch: refused at backward time, not at the lookup
            raise RuntimeError(
                "embedding_backward: scale_grad_by_freq not supported with sparse gradients"
            )
        (indices,) = ctx.saved_tensors
        d = g.shape[-1]
        idx = indices._data.reshape(-1)
        vals = g._data.reshape(-1, d)
        if ctx.padding_idx is not None:
            keep = idx != ctx.padding_idx
            idx, vals = idx[keep], vals[keep]
        else:  # an own copy: g may be a broadcast (read-only) view, and .grad is written later
            vals = vals.copy()
        arr = SparseArray(sparse_coo, (ctx.num, d), vals, idx.reshape(1, -1))
        return new_sparse(arr), None, None, None
