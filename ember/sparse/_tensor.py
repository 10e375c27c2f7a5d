"""Sparse COO and CSR tensors: construction, conversion, the Tensor methods, ``repr``.

A sparse tensor is an instance of ``SparseTensor``, a subclass of ``ember.Tensor`` with no
slots of its own, whose ``_data`` is a ``SparseArray``. The subclass overrides the methods whose
sparse meaning differs (arithmetic, products, ``sum``, ``t``, ``to``, ``repr``...); any other
dense method reaches its kernel with a ``SparseArray`` and raises PyTorch's "Could not run ...
'SparseCPU' backend" ``NotImplementedError``. Dense tensors get the sparse-only methods
(``indices``, ``coalesce``...) with PyTorch's errors for the strided layout.
"""

from __future__ import annotations

from ember import _dtype
from ember._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from ember.backend import _sparse as _k
from ember.sparse import _functions as F
from ember.sparse._array import SparseArray
from ember.tensor import Tensor, _wrap

_new = object.__new__
_LAYOUT_NAMES = {
    strided: "Strided",
    sparse_coo: "Sparse",
    sparse_csr: "SparseCsr",
    sparse_csc: "SparseCsc",
    sparse_bsr: "SparseBsr",
    sparse_bsc: "SparseBsc",
}


def _as_tensor(x, dtype=None) -> Tensor:
    from ember.ops.creation import tensor

    if isinstance(x, Tensor):
        return x if dtype is None or x.dtype is dtype else x.to(dtype)
    return tensor(x, dtype=dtype)


def _index_array(x, name: str):
    t = x if isinstance(x, Tensor) else _as_tensor(x)
    if F.is_sparse_data(t._data):
        raise RuntimeError(f"{name} must be a strided tensor, got a sparse one")
    return _k.as_index_array(t._data)


def _finish(t: Tensor, dtype, device, requires_grad: bool) -> Tensor:
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise NotImplementedError(f"ember's sparse tensors live on the CPU only, got {device}")
    if requires_grad:
        t.requires_grad_(True)
    return t


def _values_tensor(values, dtype) -> Tensor:
    v = _as_tensor(values, dtype)
    if F.is_sparse_data(v._data):
        raise RuntimeError("values must be a strided tensor, got a sparse one")
    return v


def sparse_coo_tensor(
    indices,
    values,
    size=None,
    *,
    dtype=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
    is_coalesced=None,
) -> Tensor:
    """A sparse tensor in coordinate format: ``values[k]`` sits at ``indices[:, k]``.

    Indices are checked against ``size`` unless ``check_invariants=False`` (PyTorch checks only
    when asked; an out-of-bounds index would otherwise fail later, far from its cause).
    Duplicate indices are allowed and summed by ``coalesce``.

    Example:
        >>> s = ember.sparse_coo_tensor([[0, 1], [2, 0]], [3.0, 4.0], (2, 3))
        >>> s.to_dense()
        tensor([[0., 0., 3.],
                [4., 0., 0.]])
    """
    idx = _index_array(indices, "indices")
    v = _values_tensor(values, dtype)
    if idx.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    vshape = tuple(v._data.shape)
    if v._data.ndim == 0:
        raise RuntimeError("values must have at least one dimension (nnz), got a 0-d tensor")
    if idx.shape[1] != vshape[0]:
        raise RuntimeError(
            f"indices and values must have same nnz, but got nnz from indices: {idx.shape[1]}, "
            f"nnz from values: {vshape[0]}"
        )
    sd = idx.shape[0]
    if size is None:
        shape = _k.infer_size(idx, vshape[1:])
    else:
        shape = tuple(int(s) for s in size)
        if len(shape) != sd + len(vshape) - 1:
            raise RuntimeError(
                f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
                f"{len(shape)}, sparse_dim = {sd}, dense_dim = {len(vshape) - 1}"
            )
        if tuple(shape[sd:]) != vshape[1:]:
            raise RuntimeError(
                f"values has incorrect size, expected {[vshape[0], *shape[sd:]]}, got "
                f"{list(vshape)}"
            )
        if check_invariants is not False:
            msg = _k.check_coo_bounds(idx, shape)
            if msg is not None:
                raise RuntimeError(msg)
    pattern = SparseArray(sparse_coo, shape, v._data, idx, coalesced=bool(is_coalesced))
    t = F.make(v, pattern)
    return _finish(t, dtype, device, requires_grad)


def sparse_csr_tensor(
    crow_indices,
    col_indices,
    values,
    size=None,
    *,
    dtype=None,
    device=None,
    layout=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
) -> Tensor:
    """A 2-D sparse tensor in compressed-row format: row ``i`` holds the entries
    ``crow_indices[i]:crow_indices[i + 1]`` of ``col_indices`` and ``values``.

    Example:
        >>> s = ember.sparse_csr_tensor([0, 1, 2], [2, 0], [3.0, 4.0], (2, 3))
        >>> s @ ember.ones(3, 1)
        tensor([[3.],
                [4.]])
    """
    _check_layout_kw("sparse_csr_tensor", layout, sparse_csr)
    return _compressed_2d(
        sparse_csr,
        crow_indices,
        col_indices,
        values,
        size,
        dtype,
        device,
        requires_grad,
        check_invariants,
    )


def sparse_csc_tensor(
    ccol_indices,
    row_indices,
    values,
    size=None,
    *,
    dtype=None,
    device=None,
    layout=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
) -> Tensor:
    """A 2-D sparse tensor in compressed-column format: column ``j`` holds the entries
    ``ccol_indices[j]:ccol_indices[j + 1]`` of ``row_indices`` and ``values``.

    Example:
        >>> s = ember.sparse_csc_tensor([0, 1, 1, 2], [1, 0], [3.0, 4.0], (2, 3))
        >>> s.to_dense()
        tensor([[0., 0., 4.],
                [3., 0., 0.]])
    """
    _check_layout_kw("sparse_csc_tensor", layout, sparse_csc)
    return _compressed_2d(
        sparse_csc,
        ccol_indices,
        row_indices,
        values,
        size,
        dtype,
        device,
        requires_grad,
        check_invariants,
    )


# the names of the index arrays by layout: (compressed, plain, format)
_COMPRESSED_NAMES = {sparse_csr: ("crow", "col", "CSR"), sparse_csc: ("ccol", "row", "CSC")}


def _compressed_2d(
    layout, compressed, plain, values, size, dtype, device, requires_grad, check_invariants
) -> Tensor:
    """A CSR or CSC tensor; CSC is the CSR pattern of the transpose (same arrays, and the same
    checks with CSC's names in the messages)."""
    cname, pname, fmt = _COMPRESSED_NAMES[layout]
    c = _index_array(compressed, f"{cname}_indices")
    p = _index_array(plain, f"{pname}_indices")
    v = _values_tensor(values, dtype)
    if c.ndim != 1 or p.ndim != 1 or v._data.ndim != 1:
        raise NotImplementedError(
            f"ember's {fmt} tensors are 2-D without batch or dense dims: {cname}_indices, "
            f"{pname}_indices and values must be 1-D, got {c.ndim}, {p.ndim} and "
            f"{v._data.ndim} dims"
        )
    if p.shape[0] != v._data.shape[0]:
        raise RuntimeError(
            f"{pname}_indices and values must have the same number of elements, but got "
            f"{p.shape[0]} and {v._data.shape[0]}"
        )
    if size is None:
        other = int(p.max()) + 1 if p.shape[0] else 0
        shape = (c.shape[0] - 1, other) if layout is sparse_csr else (other, c.shape[0] - 1)
    else:
        shape = tuple(int(s) for s in size)
        if len(shape) != 2:
            raise RuntimeError(f"size of a {fmt} tensor must have 2 dims, got {list(shape)}")
    if check_invariants is not False:
        rows_cols = shape if layout is sparse_csr else (shape[1], shape[0])
        msg = _k.check_csr(c, p, v._data.shape[0], rows_cols)
        if msg is not None:
            if layout is sparse_csc:
                for a, b in (("crow_", "\0c"), ("col_", "\0r"), ("ncols", "\0n")):
                    msg = msg.replace(a, b)
                msg = msg.replace("nrows", "ncols")
                for a, b in (("\0c", "ccol_"), ("\0r", "row_"), ("\0n", "nrows")):
                    msg = msg.replace(a, b)
            raise RuntimeError(msg)
    pattern = SparseArray(layout, shape, v._data, crow=c, col=p)
    return _finish(F.make(v, pattern), dtype, device, requires_grad)


def _check_layout_kw(op: str, layout, expected) -> None:
    if layout is not None and layout is not expected:
        raise RuntimeError(
            f"{op}: layout must be {_LAYOUT_NAMES[expected]} but got "
            f"{_LAYOUT_NAMES.get(layout, layout)}"
        )


# ---- conversions from dense --------------------------------------------------------------------
def _to_sparse_dense(x: Tensor, layout, sparse_dim) -> Tensor:
    if layout is sparse_csr:
        if x._data.ndim != 2:
            raise NotImplementedError(
                f"to_sparse_csr: ember's CSR tensors are 2-D, got a {x._data.ndim}-D tensor"
            )
        return F.ToSparse.apply(x, sparse_csr, 2)
    if layout is sparse_csc:
        if x._data.ndim != 2:
            raise NotImplementedError(
                f"to_sparse_csc: ember's CSC tensors are 2-D, got a {x._data.ndim}-D tensor"
            )
        return F.ToSparse.apply(x, sparse_csc, 2)
    nd = x._data.ndim
    sd = nd if sparse_dim is None else int(sparse_dim)
    if not 0 <= sd <= nd:
        raise RuntimeError(f"sparse_dim must be in [0, {nd}], got {sd}")
    return F.ToSparse.apply(x, sparse_coo, sd)


def _to_sparse(self, *args, layout=None, blocksize=None, dense_dim=None) -> Tensor:
    sparse_dim = args[0] if args else None
    if layout is None or layout is sparse_coo:
        if F.is_sparse_data(self._data):
            a = self._data
            if a.layout is not sparse_coo:
                return self.to_sparse_coo()
            if sparse_dim is not None and sparse_dim != a.sparse_dim:
                raise RuntimeError(
                    "to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                    "!=self.sparse_dim() is not supported"
                )
            return self
        return _to_sparse_dense(self, sparse_coo, sparse_dim)
    if layout is strided:
        return self.to_dense()
    if layout is sparse_csr:
        return self.to_sparse_csr()
    if layout is sparse_csc:
        return self.to_sparse_csc()
    if layout is sparse_bsr or layout is sparse_bsc:
        if blocksize is None:
            src = _layout_name(self)
            raise RuntimeError(
                f"{'dense' if src == 'Strided' else 'sparse'}_to_sparse: conversion from "
                f"{src} to {_LAYOUT_NAMES[layout]} without blocksize argument given is not "
                "supported"
            )
        return (self.to_sparse_bsr if layout is sparse_bsr else self.to_sparse_bsc)(
            blocksize, dense_dim
        )
    raise NotImplementedError(f"to_sparse: layout {layout} is not implemented in ember")


def _to_sparse_coo(self) -> Tensor:
    if not F.is_sparse_data(self._data):
        return _to_sparse_dense(self, sparse_coo, None)
    a = self._data
    if a.layout is sparse_coo:
        return self
    # NOTE: matches torch: from CSC, the entries stay column-major (not coalesced); from
    # BSR/BSC, every element of each block, block by block (not coalesced)
    pattern = a._coo()
    v = F.values_of(self)
    if a.blocked:
        v = v.reshape(pattern.values.shape)
    return F.SparseNew.apply(v, pattern)


def _to_sparse_csr(self, dense_dim=None) -> Tensor:
    if not F.is_sparse_data(self._data):
        return _to_sparse_dense(self, sparse_csr, None)
    a = self._data
    if a.layout is sparse_csr:
        return self
    if a.blocked:
        raise RuntimeError(
            "sparse_compressed_to_sparse_csr: expected SparseCsr or SparseCsc layout but got "
            f"{_LAYOUT_NAMES[a.layout]}"
        )
    if a.ndim != 2 or a.dense_dim:
        raise NotImplementedError("to_sparse_csr: ember's CSR tensors are 2-D without dense dims")
    s = (self if a.layout is sparse_coo else self.to_sparse_coo()).coalesce()
    c = s._data
    crow, col = _k.coo_to_csr(c.indices, c.shape[0])
    return F.SparseCsrNew.apply(
        F.values_of(s), SparseArray(sparse_csr, c.shape, c.values, crow=crow, col=col)
    )


def _to_sparse_csc(self, dense_dim=None) -> Tensor:
    if not F.is_sparse_data(self._data):
        return _to_sparse_dense(self, sparse_csc, None)
    a = self._data
    if a.layout is sparse_csc:
        return self
    if a.blocked:
        raise RuntimeError(
            "sparse_compressed_to_sparse_csc: expected SparseCsr or SparseCsc layout but got "
            f"{_LAYOUT_NAMES[a.layout]}"
        )
    if a.ndim != 2 or a.dense_dim:
        raise NotImplementedError("to_sparse_csc: ember's CSC tensors are 2-D without dense dims")
    s = (self if a.layout is sparse_coo else self.to_sparse_coo()).coalesce()
    c = s._data
    order, ccol, row = _k.column_major_order(c.indices, c.shape)
    v = F.values_of(s)[_wrap(order)]
    return F.SparseCsrNew.apply(v, SparseArray(sparse_csc, c.shape, v._data, crow=ccol, col=row))


def _to_dense(self, dtype=None, *, masked_grad=True) -> Tensor:
    if F.is_sparse_data(self._data):
        out = F.ToDense.apply(self)
    else:
        out = self
    return out if dtype is None else out.to(dtype)


# ---- the errors of sparse-only methods on dense tensors ----------------------------------------
def _layout_name(t: Tensor) -> str:
    d = t._data
    return _LAYOUT_NAMES[d.layout] if d.__class__ is SparseArray else "Strided"


def _need_coo(t: Tensor, op: str) -> SparseArray:
    d = t._data
    if d.__class__ is not SparseArray or d.layout is not sparse_coo:
        raise RuntimeError(
            f"{op} expected sparse coordinate tensor layout but got {_layout_name(t)}"
        )
    return d


def _need_csr(t: Tensor, op: str) -> SparseArray:
    d = t._data
    if d.__class__ is not SparseArray or d.layout not in (sparse_csr, sparse_bsr):
        raise RuntimeError(
            f"{op} expected sparse row compressed tensor layout but got {_layout_name(t)}"
        )
    return d


def _need_sparse(t: Tensor, op: str) -> SparseArray:
    d = t._data
    if d.__class__ is not SparseArray:
        raise RuntimeError(f"{op} expected sparse tensor layout but got Strided")
    return d


def _indices(self) -> Tensor:
    d = _need_coo(self, "indices")
    return _wrap(d.indices)


def _public_indices(self) -> Tensor:
    d = _need_coo(self, "indices")
    if not d.coalesced:
        raise RuntimeError(
            "Cannot get indices on an uncoalesced tensor, please call .coalesce() first"
        )
    return _wrap(d.indices)


def _values(self) -> Tensor:
    _need_sparse(self, "values")
    return F.values_of(self)


def _public_values(self) -> Tensor:
    d = _need_sparse(self, "values")
    if not d.coalesced:
        raise RuntimeError(
            "Cannot get values on an uncoalesced tensor, please call .coalesce() first"
        )
    return F.values_of(self)


def _need_csc(t: Tensor, op: str) -> SparseArray:
    d = t._data
    if d.__class__ is not SparseArray or d.layout not in (sparse_csc, sparse_bsc):
        raise RuntimeError(
            f"{op} expected sparse column compressed tensor layout but got {_layout_name(t)}"
        )
    return d


def _ccol_indices(self) -> Tensor:
    return _wrap(_need_csc(self, "ccol_indices").crow)


def _row_indices(self) -> Tensor:
    return _wrap(_need_csc(self, "row_indices").col)


def _crow_indices(self) -> Tensor:
    return _wrap(_need_csr(self, "crow_indices").crow)


def _col_indices(self) -> Tensor:
    return _wrap(_need_csr(self, "col_indices").col)


def _coalesce(self) -> Tensor:
    d = _need_coo(self, "coalesce")
    if d.coalesced:
        return self
    if _k.is_sorted_unique(d.indices, d.shape):
        # already in coalesced order: the same entries, flagged (no sort, no copy)
        out = F.SparseNew.apply(F.values_of(self), d.with_values(d.values))
        out._data.coalesced = True
        return out
    return F.Coalesce.apply(self)


def _is_coalesced(self) -> bool:
    return _need_coo(self, "is_coalesced").coalesced


def _sparse_dim(self) -> int:
    d = self._data
    return d.sparse_dim if d.__class__ is SparseArray else 0


def _dense_dim(self) -> int:
    d = self._data
    return d.dense_dim if d.__class__ is SparseArray else d.ndim


def _nnz(self) -> int:
    d = self._data
    if d.__class__ is not SparseArray:
        raise NotImplementedError(
            "Could not run 'aten::_nnz' with arguments from the 'CPU' backend: _nnz() is only "
            "defined for sparse tensors"
        )
    return d.nnz


Tensor.to_sparse = _to_sparse
Tensor.to_sparse_coo = _to_sparse_coo
Tensor.to_sparse_csr = _to_sparse_csr
Tensor.to_dense = _to_dense
Tensor.indices = _public_indices
Tensor._indices = _indices
Tensor.values = _public_values
Tensor._values = _values
Tensor.crow_indices = _crow_indices
Tensor.ccol_indices = _ccol_indices
Tensor.row_indices = _row_indices
Tensor.to_sparse_csc = _to_sparse_csc
Tensor.col_indices = _col_indices
Tensor.coalesce = _coalesce
Tensor.is_coalesced = _is_coalesced
Tensor.sparse_dim = _sparse_dim
Tensor.dense_dim = _dense_dim
Tensor._nnz = _nnz


# ---- repr ---------------------------------------------------------------------------------------
def _sparse_repr(t: Tensor) -> str:
    from ember._tensor_str import _add_suffixes, _tensor_str

    a = t._data
    indent = len("tensor(")
    dt = _dtype.from_np(a.dtype)
    suffixes = [f"size={a.shape}", f"nnz={a.nnz}"]
    if dt not in (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool):
        suffixes.append(f"dtype={dt}")

    def part(prefix, arr):
        body = "[]" if arr.size == 0 else _tensor_str(arr, indent + len(prefix))
        if arr.size == 0:
            body += f", size={tuple(arr.shape)}"
        return prefix + body + ")"

    if a.layout is sparse_coo:
        parts = [part("indices=tensor(", a.indices), part("values=tensor(", a.values)]
    else:
        names = ("ccol", "row") if a.layout in (sparse_csc, sparse_bsc) else ("crow", "col")
        parts = [
            part(f"{names[0]}_indices=tensor(", a.crow),
            part(f"{names[1]}_indices=tensor(", a.col),
            part("values=tensor(", a.values),
        ]
    body = (",\n" + " " * indent).join(parts)
    suffixes.append(f"layout={a.layout}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t._grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    # NOTE: matches torch: a COO tensor starts its suffixes on a new line, a CSR one does not
    return _add_suffixes("tensor(" + body, suffixes, indent, force_newline=a.layout is sparse_coo)
