"""More sparse operations: products with a sparse second operand (dense @ sparse, sparse @
sparse), ``sampled_addmm``, ``spdiags``, ``index_select``/``unsqueeze``/``sparse_mask`` and
the ``check_sparse_tensor_invariants`` switch. Products run in SciPy; index work is vectorized
NumPy in ``ember.backend._sparse``."""

from __future__ import annotations

from ember import _dtype
from ember._layout import sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from ember.autograd.function import Function
from ember.backend import _sparse as _k
from ember.sparse import _functions as F
from ember.sparse._array import SparseArray
from ember.tensor import Tensor, _wrap, _wrap_dim


# ---- dense @ sparse ---------------------------------------------------------------------------
class DenseSparseMm(Function):
    """``d @ s`` for a dense 1-D or 2-D ``d`` and a sparse matrix ``s``, as ``(s^T @ d^T)^T``
    in SciPy. As torch's ``mm``, a sparse leaf gets the dense gradient ``d^T @ g``."""

    _node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, d, s):
        ctx.d, ctx.s = d, s
        a = s._data
        return _wrap(_k.dense_spmm(d._data, a.matrix_t(), a.dtype))

    @staticmethod
    def backward(ctx, g):
        d, s = ctx.d, ctx.s
        need_d, need_s = ctx.needs_input_grad[:2]
        gd = gs = None
        if need_d:  # g @ s^T = (s @ g^T)^T
            gd = F.mm_sparse(s, g.mT).mT if g.ndim == 2 else F.mm_sparse(s, g)
        if need_s:
            gs = d.mT @ g if d.ndim == 2 else d.unsqueeze(-1) * g
        return gd, gs


def _check_rmm(op: str, d: Tensor, s: Tensor, vec_ok: bool) -> None:
    a = s._data
    a.check_matrix(op)
    if a.blocked:
        # NOTE: matches torch: no dense @ BSR/BSC kernel on the CPU
        name = "SparseBsr" if a.layout is sparse_bsr else "SparseBsc"
        raise RuntimeError(
            f"addmm: computation on CPU is not implemented for Strided + Strided @ {name}"
        )
    dd = d._data
    if dd.ndim == 1 and not vec_ok or dd.ndim not in (1, 2):
        raise RuntimeError(f"{op}: self must be a matrix, got {dd.ndim}-D tensor")
    if dd.shape[-1] != a.shape[0]:
        # NOTE: matches torch: the message of the transposed product it computes
        raise RuntimeError(
            f"addmm: Argument #3 (dense): Expected dim 0 size {a.shape[0]}, got {dd.shape[-1]}"
        )
    if dd.dtype is not a.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtype.from_np(a.dtype)} but found {_dtype.from_np(dd.dtype)}"
        )


def rmm(d: Tensor, s: Tensor, op: str = "mm", vec_ok: bool = False) -> Tensor:
    """``d @ s`` with ``s`` sparse: dense ``d`` gives a dense product, sparse ``d`` a sparse
    one (what ``ember.mm``/``matmul``/``@`` call when their second operand is sparse)."""
    if d._data.__class__ is SparseArray:
        return spspmm(d, s, masked=False)
    _check_rmm(op, d, s, vec_ok)
    return DenseSparseMm.apply(d, s)


# ---- sparse @ sparse --------------------------------------------------------------------------
def _product_array(p, layout) -> SparseArray:
    """A SciPy CSR product as a coalesced COO or a CSR ``SparseArray``."""
    crow, col, val = _k.csr_parts(p)
    shape = tuple(p.shape)
    if layout is sparse_csr:
        return SparseArray(sparse_csr, shape, val, crow=crow, col=col)
    return SparseArray(sparse_coo, shape, val, _k.csr_to_coo_indices(crow, col), coalesced=True)


class SparseSparseMm(Function):
    """``a @ b`` for two sparse matrices (SciPy's sparse product): sparse out. The gradients
    ``g @ b^T`` and ``a^T @ g`` are sparse products too (dense when ``g`` is dense);
    ``torch.sparse.mm`` masks them to each operand's pattern."""

    _node_name = "MmBackward0"
    _masked = False

    @staticmethod
    def forward(ctx, a, b):
        ctx.a, ctx.b = a._data, b._data
        p = _k.sparse_product(a._data.matrix(), b._data.matrix(), a._data.dtype)
        out = _product_array(p, a.layout)
        return F.new_sparse(out)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.a, ctx.b
        need_a, need_b = ctx.needs_input_grad[:2]
        gd = g._data
        sparse_g = gd.__class__ is SparseArray
        ga = gb = None
        if need_a:
            if sparse_g:
                ga = _product_array(
                    _k.sparse_product(gd.matrix(), b.matrix_t(), a.dtype), sparse_coo
                )
            else:  # g @ b^T = (b @ g^T)^T
                ga = _k.dense_spmm(gd, b.matrix_t(), a.dtype)
            ga = ctx._function._finish(ga, a)
        if need_b:
            if sparse_g:
                gb = _product_array(
                    _k.sparse_product(a.matrix_t(), gd.matrix(), b.dtype), sparse_coo
                )
            else:
                gb = _k.spmm(a.matrix_t(), gd, b.dtype)
            gb = ctx._function._finish(gb, b)
        return ga, gb

    @classmethod
    def _finish(cls, grad, arr: SparseArray) -> Tensor:
        t = F.new_sparse(grad) if grad.__class__ is SparseArray else _wrap(grad)
        if not cls._masked:
            return t
        c = arr.coalesced_array()
        return F.new_sparse(c.with_values(F.values_at(t, c).astype(c.dtype, copy=False)))


class SparseSparseMmMasked(SparseSparseMm):
    _node_name = "SparseSparseMatmulBackward0"
    _masked = True


def spspmm(a: Tensor, b: Tensor, masked: bool) -> Tensor:
    da, db = a._data, b._data
    da.check_matrix("mm")
    db.check_matrix("mm")
    for x in (da, db):
        if x.blocked:
            # NOTE: matches torch: no sparse @ sparse product for blocked layouts
            name = "SparseBsr" if x.layout is sparse_bsr else "SparseBsc"
            raise RuntimeError(
                "zeros_sparse_compressed expected sparse compressed (non-block) tensor layout "
                f"but got {name}"
            )
    if da.layout is not db.layout:
        names = {sparse_coo: "Sparse", sparse_csr: "SparseCsr"}
        raise RuntimeError(
            f"addmm: computation on CPU is not implemented for {names[db.layout]} + "
            f"{names[da.layout]} @ {names[db.layout]}"
        )
    if da.shape[1] != db.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({da.shape[0]}x{da.shape[1]} and "
            f"{db.shape[0]}x{db.shape[1]})"
        )
    if da.dtype != db.dtype:
        raise RuntimeError(
            f"mat1 dtype {_dtype.from_np(da.dtype)} does not match mat2 dtype "
            f"{_dtype.from_np(db.dtype)}"
        )
    return (SparseSparseMmMasked if masked else SparseSparseMm).apply(a, b)


# ---- sampled_addmm ----------------------------------------------------------------------------
class SampledMm(Function):
    """``(m1 @ m2)`` at the given (row, col) entries only: one dot per entry."""

    _node_name = "SparseSampledAddmmBackward0"

    @staticmethod
    def forward(ctx, m1, m2, rows, cols):
        ctx.m1, ctx.m2, ctx.rows, ctx.cols = m1, m2, rows, cols
        return _wrap(_k.sampled_dots(rows, cols, m1._data, m2._data))

    @staticmethod
    def backward(ctx, g):
        m1, m2, rows, cols = ctx.m1, ctx.m2, ctx.rows, ctx.cols
        # the entries' gradient as a sparse matrix G: d m1 = G @ m2^T, d m2 = m1^T @ G
        G = _k.scipy_matrix(rows, cols, g._data, (m1.shape[0], m2.shape[1]))
        g1 = _wrap(_k.spmm(G, m2._data.T, m1._data.dtype)) if ctx.needs_input_grad[0] else None
        g2 = None
        if ctx.needs_input_grad[1]:
            g2 = _wrap(_k.spmm(_k.transpose_matrix(G), m1._data, m2._data.dtype).T.copy())
        return g1, g2, None, None


def sampled_addmm(
    input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1.0, alpha=1.0, out=None
) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` computed only at the stored entries of the
    sparse CSR ``input`` (its pattern is the result's).

    Example:
        >>> s = ember.sparse_csr_tensor([0, 1, 2], [1, 0], [1.0, 1.0], (2, 2))
        >>> ember.sparse.sampled_addmm(s, ember.eye(2), ember.ones(2, 2), beta=0.5).values()
        tensor([1.5000, 1.5000])
    """
    if out is not None:
        raise NotImplementedError("sampled_addmm: out= is not implemented in ember")
    a = input._data
    if a.__class__ is not SparseArray or a.layout is not sparse_csr:
        backend = "SparseCPU" if a.__class__ is SparseArray else "CPU"
        raise NotImplementedError(
            f"Could not run 'aten::sparse_sampled_addmm' with arguments from the '{backend}' "
            "backend: sampled_addmm takes a sparse CSR input"
        )
    s1, s2 = tuple(mat1.shape), tuple(mat2.shape)
    if len(s1) != 2 or len(s2) != 2 or s1[1] != s2[0]:
        raise RuntimeError(
            f"sampled_addmm: mat1 and mat2 shapes cannot be multiplied ({s1[0]}x{s1[-1]} and "
            f"{s2[0]}x{s2[-1]})"
        )
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(
            "sampled_addmm: Expected mat1 and mat2 to have the same dtype, but got "
            f"{_dtype_name(mat1)} and {_dtype_name(mat2)}"
        )
    if a.shape[0] != s1[0]:
        raise RuntimeError("sampled_addmm: self.shape[-2] must match mat1.shape[-2]")
    if a.shape[1] != s2[1]:
        raise RuntimeError("sampled_addmm: self.shape[-1] must match mat2.shape[-1]")
    rows, cols = a.rows_cols()
    v = SampledMm.apply(mat1, mat2, rows, cols)
    if alpha != 1:
        v = v * alpha
    if beta != 0:
        vi = F.values_of(input)
        v = v + (vi if beta == 1 else vi * beta)
    return F.make(v, a.with_values(v._data))


def _dtype_name(t: Tensor) -> str:
    names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16"}
    n = str(t.dtype).split(".")[-1]
    return names.get(n, n)


# ---- spdiags ----------------------------------------------------------------------------------
def spdiags(diagonals: Tensor, offsets: Tensor, shape, layout=None) -> Tensor:
    """A sparse matrix of ``shape`` with row ``k`` of ``diagonals`` on diagonal
    ``offsets[k]`` (``diagonals[k, j]`` lands at ``(j - offsets[k], j)``, as SciPy's).

    Example:
        >>> ember.sparse.spdiags(ember.tensor([[1.0, 2.0, 3.0]]), ember.tensor([1]), (3, 3)
        ...                      ).to_dense()
        tensor([[0., 2., 0.],
                [0., 0., 3.],
                [0., 0., 0.]])
    """
    shape = tuple(int(s) for s in shape)
    if len(shape) != 2:
        raise RuntimeError("Output shape must be 2d")
    if layout not in (None, sparse_coo, sparse_csr, sparse_csc):
        names = {strided: "Strided"}
        raise RuntimeError(
            "Only output layouts (Sparse, SparseCsc, SparseCsr) are supported, got "
            f"{names.get(layout, layout)}"
        )
    if layout is sparse_csc:
        raise NotImplementedError("spdiags: the CSC layout is not implemented in ember")
    diag = diagonals if diagonals.dim() == 2 else diagonals.reshape(1, -1)
    off = _k.as_index_array(offsets._data).reshape(-1)
    if off.shape[0] != diag.shape[0]:
        raise RuntimeError(
            f"Number of diagonals ({diag.shape[0]}) does not match the number of offsets "
            f"({off.shape[0]})"
        )
    if _k.has_duplicates(off):
        raise RuntimeError("Offset tensor contains duplicate values")
    flat, idx = _k.diagonal_entries(off, diag.shape[1], shape)
    v = diag.reshape(-1)[_wrap(flat)]
    out = F.make(v, SparseArray(sparse_coo, shape, v._data, idx))
    return out.to_sparse_csr() if layout is sparse_csr else out


# ---- selection and shape ----------------------------------------------------------------------
def index_select(s: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries of COO ``s`` whose index along ``dim`` is in ``index``, renumbered by
    their position in it (each selected position's entries in ``s``'s order, as torch's)."""
    a = s._data
    if a.layout is not sparse_coo:
        raise NotImplementedError(
            "Could not run 'aten::index_select' with arguments from the 'SparseCsrCPU' "
            "backend: index_select takes sparse COO tensors"
        )
    d = _wrap_dim(dim, a.ndim)
    if (
        not isinstance(index, Tensor)
        or index._data.__class__ is SparseArray
        or index._data.ndim > 1
        or index._data.dtype.kind not in "iu"
    ):
        raise IndexError(
            "index_select() argument index must be 1-D strided (non-sparse) long-tensor."
        )
    idx = _k.as_index_array(index._data).reshape(-1)
    n = a.shape[d]
    bad = _k.out_of_range(idx, n)
    if bad is not None:
        raise IndexError(
            f"index_select(): index contains {bad} that is out of range for tensor of size "
            f"{list(a.shape)} at dimension {d}"
        )
    sd = a.sparse_dim
    shape = list(a.shape)
    shape[d] = idx.shape[0]
    if d >= sd:  # a dense dim: the dense op on the values
        v = F.values_of(s).index_select(d - sd + 1, index.long())
        return F.make(v, SparseArray(sparse_coo, shape, v._data, a.indices, coalesced=a.coalesced))
    entries, new_idx = _k.select_entries(a.indices, d, idx)
    v = F.values_of(s)[_wrap(entries)]
    return F.make(v, SparseArray(sparse_coo, shape, v._data, new_idx))


def unsqueeze(s: Tensor, dim: int) -> Tensor:
    a = s._data
    if a.layout is not sparse_coo:
        raise RuntimeError("Sparse CSR tensors do not have strides")
    d = _wrap_dim(dim, a.ndim + 1)
    shape = list(a.shape)
    shape.insert(d, 1)
    sd = a.sparse_dim
    if d <= sd:  # a new sparse dim: a zero row of indices
        idx = _k.insert_row(a.indices, d)
        return F.make(F.values_of(s), SparseArray(sparse_coo, shape, a.values, idx))
    v = F.values_of(s).unsqueeze(d - sd + 1)
    return F.make(v, SparseArray(sparse_coo, shape, v._data, a.indices))


def sparse_mask(self: Tensor, mask: Tensor) -> Tensor:
    """``self`` (dense or sparse) read at the entries of the sparse COO ``mask``: a sparse
    tensor with ``mask``'s indices (and coalesced flag) and ``self``'s values there.

    Example:
        >>> m = ember.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 1.0], (2, 2))
        >>> ember.tensor([[1.0, 2.0], [3.0, 4.0]]).sparse_mask(m)._values()
        tensor([2., 3.])
    """
    m = mask._data if isinstance(mask, Tensor) else None
    if m is None or m.__class__ is not SparseArray:
        raise NotImplementedError(
            "Could not run 'aten::sparse_mask' with arguments from the 'CPU' backend: the mask "
            "must be a sparse COO tensor"
        )
    if m.layout is not sparse_coo:
        raise NotImplementedError(
            "Could not run 'aten::_values' with arguments from the 'SparseCsrCPU' backend: "
            "sparse_mask takes a sparse COO mask"
        )
    if tuple(self.shape) != tuple(m.shape):
        raise RuntimeError(
            f"sparse_mask(): operands have incompatible sizes; self has size "
            f"{list(self.shape)} but mask has size {list(m.shape)}"
        )
    if self._data.__class__ is SparseArray:
        src = self.to_sparse_coo().coalesce()
        v = F.values_of(src)
        slots = _k.lookup_slots(src._data.indices, m.indices, m.shape)
        if (slots < 0).any():  # positions src lacks read an appended zero row (slot -1)
            from ember.ops.creation import zeros
            from ember.ops.joining import cat

            v = cat([v, zeros((1,) + tuple(v.shape[1:]), dtype=v.dtype)])
        v = v[_wrap(slots)]
    else:
        v = self[tuple(_wrap(r) for r in m.indices)]
    return F.make(v, SparseArray(sparse_coo, m.shape, v._data, m.indices, coalesced=m.coalesced))


# ---- invariant checks ------------------------------------------------------------------------
class check_sparse_tensor_invariants:  # noqa: N801  (torch's name)
    """Turns the index checks of sparse tensor constructors on (``enable=True``) or off, as
    a context manager, a decorator, or globally with ``enable()``/``disable()``.

    ember checks a constructor's indices by default (unless ``check_invariants=False``); the
    switch is kept for torch code and reported by ``is_enabled()``.

    Example:
        >>> with ember.sparse.check_sparse_tensor_invariants():
        ...     ember.sparse.check_sparse_tensor_invariants.is_enabled()
        True
    """

    _enabled = [False]

    def __init__(self, enable: bool = True):
        self.state = enable
        self.saved_state = None

    @staticmethod
    def is_enabled() -> bool:
        return check_sparse_tensor_invariants._enabled[0]

    @staticmethod
    def enable() -> None:
        check_sparse_tensor_invariants._enabled[0] = True

    @staticmethod
    def disable() -> None:
        check_sparse_tensor_invariants._enabled[0] = False

    def __enter__(self):
        if self.saved_state is not None:
            raise RuntimeError("This context manager instance is already activated.")
        self.saved_state = self._enabled[0]
        self._enabled[0] = bool(self.state)
        return self

    def __exit__(self, *exc):
        self._enabled[0] = self.saved_state
        self.saved_state = None

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with check_sparse_tensor_invariants(self.state):
                return fn(*args, **kwargs)

        return wrapped


def _dense_resize(name: str):
    def op(self, size, sparse_dim, dense_dim):
        raise NotImplementedError(
            f"Could not run 'aten::{name}' with arguments from the 'CPU' backend: {name} "
            "resizes sparse COO tensors only"
        )

    op.__name__ = name
    return op


# dense tensors: sparse_mask reads them at a sparse pattern; the sparse resizes refuse
Tensor.sparse_mask = sparse_mask
Tensor.sparse_resize_ = _dense_resize("sparse_resize_")
Tensor.sparse_resize_and_clear_ = _dense_resize("sparse_resize_and_clear_")


# ---- gradcheck ----------------------------------------------------------------------------------
def as_sparse_gradcheck(gradcheck):
    """Wrap ``gradcheck`` (or a ``functools.partial`` of it) so that the function checked may
    take and return sparse COO/CSR tensors: each sparse input that requires grad is checked
    through its values (with ``masked=False``, the default, every element of it, the
    unspecified ones as stored zeros), and sparse outputs are compared densely.

    Example:
        >>> check = ember.sparse.as_sparse_gradcheck(ember.autograd.gradcheck)
        >>> x = ember.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=ember.float64)
        >>> check(lambda s: s.to_sparse_csr(), x.to_sparse().requires_grad_())
        True
    """

    def gradcheck_with_sparse_support(func, inputs, **kwargs):
        masked = kwargs.pop("masked", False)
        args = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
        flat, patterns = [], []
        for x in args:
            if isinstance(x, Tensor) and x.requires_grad and x.layout is not strided:
                s = x.detach()
                if not masked:  # every element stored, so each one is checked
                    from ember.ops.creation import ones

                    full = ones(tuple(s.shape), dtype=_dtype.bool).to_sparse(s.sparse_dim())
                    s = s.to_dense().sparse_mask(full)
                    if x.layout is sparse_csr:
                        s = s.to_sparse_csr()
                elif s.layout is sparse_coo:
                    s = s.coalesce()
                flat.append(F.values_of(s).detach().requires_grad_())
                patterns.append(s._data)
            else:
                flat.append(x)
                patterns.append(None)

        def dense_func(*vals):
            real = [v if p is None else F.make(v, p) for v, p in zip(vals, patterns)]
            out = func(*real)
            outs = out if isinstance(out, tuple) else (out,)
            outs = tuple(
                o.to_dense() if isinstance(o, Tensor) and o.layout is not strided else o
                for o in outs
            )
            return outs if isinstance(out, tuple) else outs[0]

        return gradcheck(dense_func, tuple(flat), **kwargs)

    return gradcheck_with_sparse_support
