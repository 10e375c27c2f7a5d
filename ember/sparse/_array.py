"""``SparseArray``: the backend array of a sparse tensor (its ``_data``).

A sparse tensor is an ember ``Tensor`` whose ``_data`` is a ``SparseArray`` instead of a dense
backend array: it holds the layout, the dense shape and dtype, and the raw index and value
arrays (COO: ``indices`` (sparse_dim, nnz); CSR: ``crow`` and ``col``). Everything the generic
Tensor machinery reads (``shape``, ``dtype``, ``ndim``, ``size``) works, so autograd edges,
``requires_grad_`` and the engine handle sparse tensors unchanged. A dense kernel handed a
``SparseArray`` fails with PyTorch's "Could not run ... 'SparseCPU' backend" error: every
attribute and namespace function it lacks raises ``NotImplementedError`` naming it.
"""

from __future__ import annotations

from ember import backend
from ember._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr
from ember.backend import _sparse as _k


def unsupported(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"Could not run '{name}' with arguments from the 'SparseCPU' backend: ember's dense "
        "kernels take strided tensors only. Convert with .to_dense() first."
    )


class SparseArray:
    """Layout, shape, dtype and the index/value arrays of one sparse tensor (immutable, except
    that gradient accumulation appends entries with ``+=``)."""

    __slots__ = (
        "layout",
        "shape",
        "dtype",
        "values",
        "indices",
        "crow",
        "col",
        "coalesced",
        "_mat",
        "_mat_t",
        "_coal",
        "__weakref__",
    )
    base = None  # what the engine asks of a gradient's array before keeping it
    __hash__ = object.__hash__

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # dense + sparse and dense - sparse (``out=`` the dense one: in place) are what
        # ``dense.add_(sparse, alpha=...)`` and gradient accumulation ask of NumPy; any other
        # ufunc on a sparse array is the sparse backend's error (never an object scalar)
        name = ufunc.__name__
        out = kwargs.pop("out", None)
        if (
            method == "__call__"
            and name in ("add", "subtract")
            and len(inputs) == 2
            and inputs[1] is self
            and inputs[0].__class__ is not SparseArray
            and not kwargs
            and (out is None or len(out) == 1)
            and tuple(getattr(inputs[0], "shape", ())) == self.shape
        ):
            a = self._coo()
            return _k.dense_plus_sparse(
                inputs[0],
                a.indices,
                a.values,
                a.coalesced,
                -1 if name == "subtract" else 1,
                None if out is None else out[0],
            )
        raise unsupported(name)

    def __mul__(self, other):
        # a Python number times a sparse array (``add_``'s scaled operand): scaled values
        if other.__class__ in (int, float, bool):
            return self.with_values(self.values * other)
        raise unsupported("mul")

    __rmul__ = __mul__

    def __init__(self, layout, shape, values, indices=None, crow=None, col=None, coalesced=False):
        self.layout = layout
        self.shape = tuple(shape)
        self.dtype = values.dtype
        self.values = values
        self.indices = indices
        self.crow = crow
        self.col = col
        # NOTE: matches torch: fewer than two entries are coalesced whatever they say
        self.coalesced = coalesced or layout is not sparse_coo or values.shape[0] < 2
        self._mat = None
        self._mat_t = None
        self._coal = None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(name)

    @property
    def flags(self):
        return _FLAGS

    @property
    def strides(self):
        raise NotImplementedError(
            "sparse tensors have no storage or strides: ember.save, views and storage ops take "
            "strided tensors; save t.to_dense(), or t.indices() and t.values()"
        )

    def __getitem__(self, key):
        raise unsupported("index")

    def __setitem__(self, key, value):
        raise unsupported("index_put_")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def nnz(self) -> int:
        return self.values.shape[0]

    @property
    def sparse_dim(self) -> int:
        return self.indices.shape[0] if self.layout is sparse_coo else 2

    @property
    def dense_dim(self) -> int:
        # BSR/BSC values are (nnz, R, C, *dense): the block dims are not dense dims
        return self.values.ndim - (3 if self.layout in _BLOCKED else 1)

    @property
    def blocked(self) -> bool:
        return self.layout in _BLOCKED

    @property
    def blocksize(self) -> tuple:
        """(R, C) of a BSR/BSC array."""
        return tuple(self.values.shape[1:3])

    def block_coords(self):
        """Block row and block column of each stored block of a BSR/BSC array."""
        return _k.block_coords(self.crow, self.col, self.layout is sparse_bsc)

    def same_pattern(self, other: SparseArray) -> bool:
        """Whether ``other`` stores its entries at the same index arrays (by identity)."""
        if self.layout is sparse_coo:
            return other.layout is sparse_coo and other.indices is self.indices
        return other.layout is self.layout and other.crow is self.crow and other.col is self.col

    def with_values(self, values) -> SparseArray:
        """The same pattern (index arrays shared) with other values."""
        return SparseArray(
            self.layout, self.shape, values, self.indices, self.crow, self.col, self.coalesced
        )

    def copy(self) -> SparseArray:
        c = lambda a: None if a is None else a.copy()  # noqa: E731
        return SparseArray(
            self.layout,
            self.shape,
            self.values.copy(),
            c(self.indices),
            c(self.crow),
            c(self.col),
            self.coalesced,
        )

    def coalesced_array(self) -> SparseArray:  # (CSR: itself)
        """This array with duplicate entries summed, in sorted order (built once)."""
        return self.coalesced_with_inverse()[0]

    def coalesced_with_inverse(self):
        """The coalesced array and the slot in it of each stored entry of this one."""
        if self.coalesced:
            return self, None
        c = self._coal
        if c is None:
            idx, val, inv = _k.coalesce(self.indices, self.values, self.shape)
            c = SparseArray(sparse_coo, self.shape, val, idx, coalesced=True)
            c = self._coal = (c, inv)
        return c

    def rows_cols(self):
        """Row and column of each stored entry of a 2-D array."""
        if self.layout is sparse_coo:
            return self.indices[0], self.indices[1]
        if self.layout in _BLOCKED:
            idx = self.coo_indices()
            return idx[0], idx[1]
        if self.layout is sparse_csc:  # ``crow``/``col`` hold ccol_indices/row_indices
            return self.col, _k.csr_rows(self.crow)
        return _k.csr_rows(self.crow), self.col

    def coo_indices(self):
        """The (sparse_dim, nnz) index array (built from CSR/CSC when needed, in their entry
        order: column-major for CSC)."""
        if self.layout is sparse_coo:
            return self.indices
        if self.layout in _BLOCKED:  # every element of each stored block, block by block
            return _k.block_element_indices(*self.block_coords(), self.blocksize)
        if self.layout is sparse_csc:
            return _k.stack_rows(self.rows_cols())
        return _k.csr_to_coo_indices(self.crow, self.col)

    def check_matrix(self, op: str) -> None:
        if self.ndim != 2 or self.dense_dim:
            raise RuntimeError(
                f"{op}: expected a 2-D sparse matrix without dense dims, got size "
                f"{list(self.shape)} with {self.dense_dim} dense dims"
            )

    def matrix(self):
        """This 2-D array as a SciPy CSR matrix (built once, then kept)."""
        m = self._mat
        if m is None:
            if self.layout is sparse_csr:
                m = _k.scipy_matrix(None, self.col, self.values, self.shape, crow=self.crow)
            elif self.layout is sparse_bsr:
                m = _k.bsr_matrix(self.crow, self.col, self.values, self.shape)
            elif self.layout is sparse_bsc:  # the transpose of the BSR matrix of A^T
                vt = self.values.transpose(0, 2, 1)
                m = _k.bsr_matrix(self.crow, self.col, vt, self.shape[::-1], transpose=True)
            else:
                r, c = self.rows_cols()
                m = _k.scipy_matrix(r, c, self.values, self.shape)
            self._mat = m
        return m

    def matrix_t(self):
        m = self._mat_t
        if m is None:
            m = self._mat_t = _k.transpose_matrix(self.matrix())
        return m

    def dot(self, b):
        """``self @ b`` for a dense 1-D or 2-D array: what ``ember.mm``/``matmul``/``addmm``
        call when their first operand is sparse."""
        self.check_matrix("mm")
        if self.layout is sparse_bsc:
            # NOTE: matches torch: no BSC @ dense kernel on the CPU
            raise RuntimeError(
                "addmm: computation on CPU is not implemented for Strided + SparseBsc @ Strided"
            )
        if b.__class__ is SparseArray:
            raise unsupported("mm (sparse @ sparse)")
        return _k.spmm(self.matrix(), b, self.dtype)

    def __iadd__(self, other):
        # gradient accumulation into a sparse ``.grad`` (and ``add_``): entries appended
        if other.__class__ is not SparseArray:
            raise unsupported("add_ (sparse += dense)")
        a, b = self._coo(), other._coo()
        idx, val, coal = _k.add_entries(
            a.indices, a.values, a.coalesced, b.indices, b.values, b.coalesced, self.shape
        )
        self.set_entries(idx, val, coal)
        return self

    def set_entries(self, indices, values, coalesced: bool) -> None:
        """Replace, in place, every entry by the given COO ones (``add_``, ``zero_``...)."""
        self.layout, self.indices, self.values = sparse_coo, indices, values
        self.crow = self.col = self._mat = self._mat_t = self._coal = None
        self.coalesced = coalesced or values.shape[0] < 2

    def _coo(self) -> SparseArray:
        if self.layout is sparse_coo:
            return self
        values = self.values
        if self.layout in _BLOCKED:  # one entry per element of each stored block
            values = values.reshape((-1,) + values.shape[3:])
        # NOTE: matches torch: CSC entries (column-major) and blocked entries (block by block)
        # are not coalesced as COO
        return SparseArray(
            sparse_coo,
            self.shape,
            values,
            self.coo_indices(),
            coalesced=self.layout is sparse_csr,
        )


_BLOCKED = (sparse_bsr, sparse_bsc)


def _refuse(name):
    def op(self, *args, **kwargs):
        raise unsupported(name)

    op.__name__ = f"__{name}__"
    return op


for _n in (
    "eq ne lt le gt ge add radd sub rsub truediv rtruediv floordiv rfloordiv mod "
    "rmod pow rpow matmul rmatmul and rand or ror xor rxor neg pos abs invert lshift rshift"
).split():
    setattr(SparseArray, f"__{_n}__", _refuse(_n))


class _Flags:
    """``flags`` of a SparseArray: writeable for the engine's checks; memory-order questions
    (asked by views and reshapes) raise the sparse backend's error."""

    writeable = True

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("view")


_FLAGS = _Flags()


class _SparseNamespace:
    """The ``xp`` of a ``SparseArray``: the few backend functions the generic Tensor code asks
    for; any other raises PyTorch's error for an op the sparse backend lacks."""

    device_type = "cpu"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(name)

    @staticmethod
    def copy(a):
        return a.copy()

    @staticmethod
    def to_numpy(a):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    @staticmethod
    def is_contiguous(a) -> bool:
        return False

    @staticmethod
    def device_index(a):
        return None


backend._BY_TYPE[SparseArray] = _SparseNamespace()
