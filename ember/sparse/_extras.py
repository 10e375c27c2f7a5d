"""The rest of PyTorch's sparse surface: the ``*_copy`` accessors, ``sspaddmm`` (and its
aliases ``saddmm``, ``dsmm``, ``hsmm``), ``resize_as_sparse_``, ``torch.sparse.spsolve`` and
the legacy sparse tensor types (``torch.sparse.FloatTensor`` ...)."""

from __future__ import annotations

from ember import _dtype
from ember._layout import sparse_coo
from ember.backend import _sparse as _k
from ember.sparse import _functions as F
from ember.sparse._array import SparseArray
from ember.sparse._methods import hspmm, smm
from ember.sparse._tensor import (
    _ccol_indices,
    _col_indices,
    _crow_indices,
    _layout_name,
    _need_coo,
    _need_sparse,
    _row_indices,
)
from ember.tensor import Tensor, _wrap


def _could_not_run(op: str, t) -> NotImplementedError:
    backend = "CPU"
    if isinstance(t, Tensor) and t._data.__class__ is SparseArray:
        backend = "SparseCPU" if t._data.layout is sparse_coo else "SparseCsrCPU"
    return NotImplementedError(
        f"Could not run '{op}' with arguments from the '{backend}' backend. This could be "
        "because the operator doesn't exist for this backend."
    )


def _out(result: Tensor, out):
    from ember.ops.pointwise import _out as dense_out

    return dense_out(result, out)


# ---- copies of the index and value tensors ---------------------------------------------------
def indices_copy(input: Tensor, *, out=None) -> Tensor:
    """A copy of ``input.indices()``; as torch's, it has no CPU kernel for a sparse COO
    tensor (use ``input.indices().clone()``), and a dense input is refused.

    Example:
        >>> ember.indices_copy(ember.eye(2).to_sparse())
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::indices_copy' with arguments from the 'SparseCPU' backend. This could be because the operator doesn't exist for this backend.
    """  # noqa: E501
    _need_coo(input, "indices")
    # NOTE: matches torch: indices_copy has no SparseCPU kernel
    raise _could_not_run("aten::indices_copy", input)


def values_copy(input: Tensor, *, out=None) -> Tensor:
    """A copy of the stored values of a CSR/CSC/BSR/BSC tensor (differentiable); as torch's,
    a sparse COO input has no CPU kernel.

    Example:
        >>> ember.values_copy(ember.eye(2).to_sparse_csr())
        tensor([1., 1.])
    """
    d = _need_sparse(input, "values")
    if d.layout is sparse_coo:
        # NOTE: matches torch: values_copy has no SparseCPU kernel
        raise _could_not_run("aten::values_copy", input)
    return _out(F.values_of(input).clone(), out)


def _no_coo(input: Tensor, name: str) -> None:
    d = input._data
    if d.__class__ is SparseArray and d.layout is sparse_coo:
        # NOTE: matches torch: the compressed index copies have no SparseCPU kernel
        raise _could_not_run(f"aten::{name}_copy", input)


def crow_indices_copy(input: Tensor, *, out=None) -> Tensor:
    """A copy of ``input.crow_indices()`` (CSR or BSR).

    Example:
        >>> ember.crow_indices_copy(ember.eye(2).to_sparse_csr())
        tensor([0, 1, 2])
    """
    _no_coo(input, "crow_indices")
    return _out(_wrap(_crow_indices(input)._data.copy()), out)


def col_indices_copy(input: Tensor, *, out=None) -> Tensor:
    """A copy of ``input.col_indices()`` (CSR or BSR).

    Example:
        >>> ember.col_indices_copy(ember.eye(2).to_sparse_csr())
        tensor([0, 1])
    """
    _no_coo(input, "col_indices")
    return _out(_wrap(_col_indices(input)._data.copy()), out)


def ccol_indices_copy(input: Tensor, *, out=None) -> Tensor:
    """A copy of ``input.ccol_indices()`` (CSC or BSC).

    Example:
        >>> ember.ccol_indices_copy(ember.eye(2).to_sparse_csc())
        tensor([0, 1, 2])
    """
    _no_coo(input, "ccol_indices")
    return _out(_wrap(_ccol_indices(input)._data.copy()), out)


def row_indices_copy(input: Tensor, *, out=None) -> Tensor:
    """A copy of ``input.row_indices()`` (CSC or BSC).

    Example:
        >>> ember.row_indices_copy(ember.eye(2).to_sparse_csc())
        tensor([0, 1])
    """
    _no_coo(input, "row_indices")
    return _out(_wrap(_row_indices(input)._data.copy()), out)


# ---- products -----------------------------------------------------------------------------
def sspaddmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` as an uncoalesced sparse COO tensor: the
    entries of ``input``, then every column of each product row where ``mat1`` (sparse COO)
    has entries.

    Example:
        >>> s = ember.sparse_coo_tensor([[0], [1]], [10.0], (2, 2))
        >>> m1 = ember.sparse_coo_tensor([[1], [0]], [2.0], (2, 3))
        >>> ember.sspaddmm(s, m1, ember.ones(3, 2)).to_dense()
        tensor([[ 0., 10.],
                [ 2.,  2.]])
    """
    if out is not None:
        raise NotImplementedError("sspaddmm: out= is not implemented in ember")
    _check_sspaddmm(input, mat1, mat2)
    p = smm(mat1, mat2)
    vi = F.values_of(input)
    vp = F.values_of(p)
    from ember.ops.joining import cat

    v = cat([vi if beta == 1 else vi * beta, vp if alpha == 1 else vp * alpha])
    idx, _ = _k.concat_entries([input._data.indices, p._data.indices], [vi._data[:0]] * 2)
    # NOTE: matches torch: the result is uncoalesced (input's entries, then the product's)
    return F.make(v, SparseArray(sparse_coo, input._data.shape, v._data, idx))


def _check_sspaddmm(input, mat1, mat2) -> None:
    for name, t in (("self", input), ("mat1", mat1)):
        if not isinstance(t, Tensor) or t._data.__class__ is not SparseArray:
            raise RuntimeError(
                f"sspaddmm: expected '{name}' to have sparse layout, got '{name}' with layout "
                "Strided"
            )
    for t in (input, mat1):
        if t._data.layout is not sparse_coo:
            raise _could_not_run("aten::sspaddmm.out", t)
    for i, t in ((2, mat1), (3, mat2)):
        if t._data.ndim != 2:
            raise RuntimeError(
                f"sspaddmm: Argument #{i}: matrices expected, got {t._data.ndim}D tensor"
            )
    if mat2._data.__class__ is SparseArray:
        raise RuntimeError("sspaddmm: expected 'mat2' to be a strided (dense) tensor")
    a, m = mat1._data, mat2._data
    if m.shape[0] != a.shape[1]:
        raise RuntimeError(
            f"sspaddmm: Argument #3: Expected dim 0 size {a.shape[1]}, got {m.shape[0]}"
        )
    s = input._data.shape
    for d, want in ((0, a.shape[0]), (1, m.shape[1])):
        if len(s) <= d or s[d] != want:
            got = s[d] if len(s) > d else None
            raise RuntimeError(f"sspaddmm: Argument #1: Expected dim {d} size {want}, got {got}")
    if input._data.dense_dim:
        raise RuntimeError(
            f"sspaddmm: expected a sparse 'self' without dense dims, got {input._data.dense_dim}"
        )
    if m.dtype != a.dtype:
        raise RuntimeError(f"expected scalar type {_ctype(a.dtype)} but found {_ctype(m.dtype)}")
    if input._data.dtype != a.dtype:
        raise RuntimeError(
            f"dtype of values ({_ctype(a.dtype)}) must match dtype of sparse tensor "
            f"({_ctype(input._data.dtype)})"
        )


def _ctype(np_dtype) -> str:
    return _dtype.SCALAR_NAMES[_dtype.from_np(np_dtype).name]


def saddmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``torch.saddmm``: another name of ``ember.sspaddmm``.

    Example:
        >>> s = ember.sparse_coo_tensor([[0], [0]], [1.0], (1, 1))
        >>> ember.saddmm(s, s, ember.ones(1, 1))._nnz()
        2
    """
    return sspaddmm(input, mat1, mat2, beta=beta, alpha=alpha, out=out)


def dsmm(input: Tensor, mat2: Tensor) -> Tensor:
    """``torch.dsmm``: ``ember.mm`` (sparse or dense ``input`` times dense ``mat2``, dense out).

    Example:
        >>> ember.dsmm(ember.eye(2).to_sparse(), ember.ones(2, 1))
        tensor([[1.],
                [1.]])
    """
    from ember.ops.linalg import mm

    return mm(input, mat2)


def hsmm(mat1: Tensor, mat2: Tensor) -> Tensor:
    """``torch.hsmm``: ``ember.hspmm`` (sparse COO times dense, as a hybrid COO tensor).

    Example:
        >>> ember.hsmm(ember.eye(2).to_sparse(), ember.ones(2, 3))._values()
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    return hspmm(mat1, mat2)


def _tensor_smm(self: Tensor, mat2: Tensor) -> Tensor:
    """``ember.smm(self, mat2)``: sparse COO ``self`` times dense ``mat2``, sparse out.

    Example:
        >>> ember.eye(2).to_sparse().smm(ember.ones(2, 2))._nnz()
        4
    """
    if self._data.__class__ is not SparseArray:
        # NOTE: matches torch: smm is sspaddmm underneath, and says so
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")
    return smm(self, mat2)


def _tensor_sspaddmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``ember.sspaddmm(self, mat1, mat2, beta=beta, alpha=alpha)``.

    Example:
        >>> s = ember.eye(2).to_sparse()
        >>> s.sspaddmm(s, ember.ones(2, 2)).to_dense()
        tensor([[2., 1.],
                [1., 2.]])
    """
    return sspaddmm(self, mat1, mat2, beta=beta, alpha=alpha)


# ---- resize_as_sparse_ -------------------------------------------------------------------
def resize_as_sparse_(input: Tensor, the_template: Tensor) -> Tensor:
    """Resize the sparse COO ``input`` in place to the size, sparse and dense dims of
    ``the_template`` (its entries stay; sparse sizes may only grow on a non-empty tensor).

    Example:
        >>> s = ember.sparse_coo_tensor([[0], [1]], [1.0], (2, 2))
        >>> ember.resize_as_sparse_(s, ember.zeros(3, 4).to_sparse()).shape
        ember.Size([3, 4])
    """
    a = input._data
    t = the_template._data
    t_sparse = t.__class__ is SparseArray
    if a.__class__ is not SparseArray:
        raise RuntimeError(
            f"resize_as_sparse_: expected a sparse COO self, got {_layout_name(input)}"
        )
    if a.layout is not sparse_coo or (t_sparse and t.layout is not sparse_coo):
        bad, which = (input, "self ") if a.layout is sparse_coo else (the_template, "src ")
        # NOTE: matches torch: the compressed resize names the operand that is not compressed
        raise RuntimeError(
            f"resize_as_sparse_compressed_: {which} expected sparse compressed tensor layout "
            f"but got {_layout_name(bad)}"
        )
    sd = t.sparse_dim if t_sparse else 0
    dd = t.dense_dim if t_sparse else t.ndim
    return input.sparse_resize_(tuple(t.shape), sd, dd)


def _tensor_resize_as_sparse_(self: Tensor, the_template: Tensor) -> Tensor:
    """``ember.resize_as_sparse_(self, the_template)``.

    Example:
        >>> s = ember.eye(2).to_sparse()
        >>> s.resize_as_sparse_(ember.zeros(2, 5).to_sparse()).shape
        ember.Size([2, 5])
    """
    return resize_as_sparse_(self, the_template)


# ---- spsolve --------------------------------------------------------------------------------
def spsolve(input: Tensor, other: Tensor, *, left: bool = True) -> Tensor:
    """``torch.sparse.spsolve``: solve ``input @ x = other`` for a sparse CSR ``input``.

    PyTorch runs it only on CUDA with cuDSS; on the CPU it has no kernel, and neither does
    ember: use ``ember.linalg.solve(input.to_dense(), other)``.

    Example:
        >>> ember.sparse.spsolve(ember.eye(2).to_sparse_csr(), ember.ones(2))
        Traceback (most recent call last):
        ...
        NotImplementedError: Could not run 'aten::_spsolve' with arguments from the 'SparseCsrCPU' backend. This could be because the operator doesn't exist for this backend.
    """  # noqa: E501
    # NOTE: matches torch: no CPU kernel (torch's is CUDA + cuDSS only)
    raise _could_not_run("aten::_spsolve", input)


Tensor.smm = _tensor_smm
Tensor.sspaddmm = _tensor_sspaddmm
Tensor.resize_as_sparse_ = _tensor_resize_as_sparse_
