"""``SparseTensor`` (the class of every sparse tensor) and the ``torch.sparse`` functions."""

from __future__ import annotations

from ember import _dtype
from ember._device import device as _device_cls
from ember._layout import sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided
from ember.backend import _sparse as _k
from ember.sparse import _functions as F
from ember.sparse import _ops
from ember.sparse._array import SparseArray, unsupported
from ember.sparse._tensor import _sparse_repr
from ember.tensor import Tensor, _wrap, _wrap_dim


def _check_mm(op: str, s: Tensor, d: Tensor, dense_ok_1d: bool) -> None:
    a = s._data
    a.check_matrix(op)
    if a.blocked:
        _check_blocked_mm(a, d, dense_ok_1d)
    if not isinstance(d, Tensor):
        raise TypeError(f"{op}: expected a Tensor as the second operand, got {type(d).__name__}")
    dd = d._data
    if dd.__class__ is SparseArray:
        raise NotImplementedError(f"{op}: sparse @ sparse is not implemented in ember")
    if dd.ndim == 1 and not dense_ok_1d:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if dd.ndim not in (1, 2):
        raise RuntimeError(f"{op}: expected a 1-D or 2-D dense operand, got {dd.ndim}-D")
    if dd.shape[0] != a.shape[1]:
        raise RuntimeError(
            f"addmm: Argument #3 (dense): Expected dim 0 size {a.shape[1]}, got {dd.shape[0]}"
        )
    if dd.dtype is not a.dtype:
        raise RuntimeError(f"expected scalar type {_scalar(a.dtype)} but found {_scalar(dd.dtype)}")


def _scalar(np_dtype) -> str:
    return _dtype.SCALAR_NAMES[_dtype.from_np(np_dtype).name]


def _check_blocked_mm(a: SparseArray, d, dense_ok_1d: bool) -> None:
    """torch's checks (and messages) of a BSR/BSC @ dense product."""
    if a.layout is sparse_bsc:
        # NOTE: matches torch: no BSC @ dense kernel on the CPU
        raise RuntimeError(
            "addmm: computation on CPU is not implemented for Strided + SparseBsc @ Strided"
        )
    if not isinstance(d, Tensor) or d._data.__class__ is SparseArray:
        return  # the generic checks say what is wrong
    dd = d._data
    if dd.ndim == 1 and not dense_ok_1d:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if dd.ndim > 2:
        raise RuntimeError("expand is unsupported for SparseBsr tensors")
    if dd.ndim == 2 and dd.shape[0] != a.shape[1]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
            f"{dd.shape[0]}x{dd.shape[1]})"
        )


def _need_coo_layout(t: Tensor, op: str) -> None:
    if t._data.__class__ is not SparseArray or t._data.layout is not sparse_coo:
        raise NotImplementedError(
            f"Could not run 'aten::{op}' with arguments from the "
            f"'{'SparseCsrCPU' if t.is_sparse_csr else 'CPU'}' backend: it takes sparse COO "
            "tensors"
        )


def _scalar_like(x) -> bool:
    return isinstance(x, (int, float, bool)) or (isinstance(x, Tensor) and x._data.ndim == 0)


class SparseTensor(Tensor):
    """A sparse COO or CSR tensor: ``type`` aside, an ``ember.Tensor`` (see the module doc).

    Example:
        >>> s = ember.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse()
        >>> s.layout, s._nnz()
        (ember.sparse_coo, 2)
    """

    __slots__ = ()

    @property
    def layout(self):
        return self._data.layout

    @property
    def is_sparse(self) -> bool:
        return self._data.layout is sparse_coo

    @property
    def is_sparse_csr(self) -> bool:
        return self._data.layout is sparse_csr

    @property
    def grad(self):
        g = self._grad
        if g is not None and g.__class__ is Tensor and g._data.__class__ is SparseArray:
            g.__class__ = SparseTensor  # the engine wraps gradient arrays as plain Tensors
        return g

    @grad.setter
    def grad(self, value):
        if value is not None and tuple(value.shape) != tuple(self.shape):
            raise RuntimeError(
                f"assigned grad has data of a different size: grad {tuple(value.shape)} for a "
                f"tensor of shape {tuple(self.shape)}"
            )
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def data(self):
        return F.new_sparse(self._data)

    def detach(self):
        t = F.new_sparse(self._data)
        t._vc = self._vc
        return t

    def __repr__(self, *, tensor_contents=None) -> str:
        return _sparse_repr(self)

    def __len__(self) -> int:
        return self._data.shape[0]

    def is_contiguous(self, memory_format=None) -> bool:
        return False

    def stride(self, dim=None):
        raise RuntimeError("Sparse tensors do not have strides")

    def clone(self, *, memory_format=None):
        a = self._data
        return F.make(F.values_of(self).clone(), a.copy())

    # ---- dtype conversion --------------------------------------------------------------------
    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        dev = kwargs.get("device")
        for x in args:
            if isinstance(x, _dtype.dtype):
                dtype = x
            elif isinstance(x, Tensor):
                dtype = x.dtype
            elif isinstance(x, (str, _device_cls)):
                dev = x
        if dev is not None and _device_cls(dev).type != "cpu":
            raise NotImplementedError(f"ember's sparse tensors live on the CPU only, got {dev}")
        if dtype is None or dtype is self.dtype:
            return self.clone() if kwargs.get("copy") else self
        return F.make(F.values_of(self).to(dtype), self._data)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """The legacy type name (``'torch.sparse.FloatTensor'``), or a copy converted to the
        dtype of a type (``ember.sparse.DoubleTensor``, ``'torch.sparse.DoubleTensor'``)."""
        a = self._data
        if dtype is None:
            if a.layout is not sparse_coo:
                # NOTE: matches torch: compressed layouts have no legacy type name
                raise RuntimeError("Unimplemented backend SparseCsrCPU")
            return f"torch.sparse.{_dtype.SCALAR_NAMES[self.dtype.name]}Tensor"
        if isinstance(dtype, str):
            from ember.ops.conversion import _TYPE_NAMES

            name = dtype.replace("torch.sparse.", "torch.", 1)
            if name not in _TYPE_NAMES:
                raise ValueError(f"invalid type: {dtype!r}")
            dtype = _TYPE_NAMES[name]
        elif not isinstance(dtype, _dtype.dtype):
            dtype = dtype.dtype  # a legacy type class (dense or sparse): its dtype
        return self.to(dtype)

    def float(self, memory_format=None):
        return self.to(_dtype.float32)

    def double(self, memory_format=None):
        return self.to(_dtype.float64)

    def half(self, memory_format=None):
        return self.to(_dtype.float16)

    def int(self, memory_format=None):
        return self.to(_dtype.int32)

    def long(self, memory_format=None):
        return self.to(_dtype.int64)

    def bool(self, memory_format=None):
        return self.to(_dtype.bool)

    # ---- element-wise ------------------------------------------------------------------------
    def _map(self, fn):
        return F.make(fn(F.values_of(self)), self._data)

    def neg(self):
        return self._map(lambda v: -v)

    __neg__ = neg

    def abs(self):
        return self._map(lambda v: v.abs())

    def mul(self, other):
        if _scalar_like(other):
            return self._map(lambda v: v * other)
        if not isinstance(other, Tensor):
            return NotImplemented
        if tuple(other.shape) != tuple(self.shape):
            raise RuntimeError(
                f"mul: expected sizes of 'self' and 'other' to match, but {list(self.shape)} != "
                f"{list(other.shape)}"
            )
        a = self.coalesce() if self._data.layout is sparse_coo else self.to_sparse_coo()
        if other._data.__class__ is SparseArray:
            b = other.to_sparse_coo().coalesce()
            ka = _k.linear_keys(a._data.indices, a._data.shape)
            kb = _k.linear_keys(b._data.indices, b._data.shape)
            ia, ib = _k.intersect(ka, kb)
            va = F.values_of(a)[_wrap(ia)]
            vb = F.values_of(b)[_wrap(ib)]
            idx = a._data.indices[:, ia]
            pattern = SparseArray(sparse_coo, a._data.shape, va._data, idx, coalesced=True)
            return F.make(va * vb, pattern)
        # NOTE: matches torch: sparse * dense keeps the sparse pattern (a mask of the product)
        idx = a._data.indices
        picked = other[tuple(_wrap(r) for r in idx)]
        return F.make(F.values_of(a) * picked, a._data)

    __mul__ = mul

    def __rmul__(self, other):
        return self.mul(other)

    def div(self, other, *, rounding_mode=None):
        if not _scalar_like(other):
            raise unsupported("div (sparse / tensor)")
        return self._map(lambda v: v.div(other, rounding_mode=rounding_mode))

    __truediv__ = div

    def add(self, other, *, alpha=1):
        if not isinstance(other, Tensor):
            raise unsupported("add (sparse + scalar)")
        if other._data.__class__ is not SparseArray:
            # NOTE: a deliberate difference: torch refuses add(sparse, dense); ember gives the
            # dense sum, as add(dense, sparse) does, so that the engine can add a sparse and a
            # dense gradient of one tensor in either order
            dense = self.to_dense()
            return dense + other if alpha == 1 else dense.add(other, alpha=alpha)
        if tuple(other.shape) != tuple(self.shape):
            raise RuntimeError(
                f"add: expected sizes of 'self' and 'other' to match, but {list(self.shape)} != "
                f"{list(other.shape)}"
            )
        a, b = self._data, other._data
        vb = F.values_of(other)
        if alpha != 1:
            vb = vb * alpha
        if a.same_pattern(b):
            return F.make(F.values_of(self) + vb, a)
        if a.layout is not sparse_coo or b.layout is not sparse_coo:
            return self.to_sparse_coo().add(other.to_sparse_coo(), alpha=alpha)
        from ember.ops.joining import cat

        idx, _ = _k.concat_entries([a.indices, b.indices], [a.values[:0], b.values[:0]])
        v = cat([F.values_of(self), vb])
        out = F.make(v, SparseArray(sparse_coo, a.shape, v._data, idx))
        # NOTE: matches torch: the sum of two coalesced tensors is coalesced
        return out.coalesce() if a.coalesced and b.coalesced else out

    def __add__(self, other):
        return self.add(other)

    def __radd__(self, other):
        # dense + sparse: a dense result, as torch's
        if isinstance(other, Tensor):
            return other + self.to_dense()
        raise unsupported("add (scalar + sparse)")

    def sub(self, other, *, alpha=1):
        return self.add(other, alpha=-alpha)

    def __sub__(self, other):
        return self.add(other, alpha=-1)

    def __rsub__(self, other):
        if isinstance(other, Tensor):
            return other - self.to_dense()
        raise unsupported("sub (scalar - sparse)")

    # ---- in place ------------------------------------------------------------------------------
    def _inplace(self, op: str) -> SparseArray:
        """The array an in-place op rewrites (after torch's autograd checks); bumps the
        version counter."""
        if self._requires_grad and F._gm.state.enabled:
            if self._grad_fn is None:
                raise RuntimeError(
                    "a leaf Variable that requires grad is being used in an in-place operation."
                )
            raise NotImplementedError(
                f"{op}: in-place ops on sparse tensors with autograd history are not "
                "implemented in ember; use the out-of-place op"
            )
        self._vc[0] += 1
        return self._data

    def _scale_(self, op: str, factor) -> SparseTensor:
        a = self._inplace(op)
        v = a.values
        if isinstance(factor, Tensor):
            factor = factor._data
        if v.flags.writeable and v.base is None:
            v *= factor
        else:  # a read-only or shared values array: a new one
            a.values = (v * factor).astype(v.dtype, copy=False)
        a._mat = a._mat_t = a._coal = None
        return self

    def mul_(self, other) -> SparseTensor:
        if _scalar_like(other):
            return self._scale_("mul_", other)
        out = self.mul(other)
        a, b = self._inplace("mul_"), out._data._coo()
        a.set_entries(b.indices, b.values.astype(a.dtype, copy=False), b.coalesced)
        return self

    def div_(self, other) -> SparseTensor:
        if not _scalar_like(other):
            raise unsupported("div_ (sparse / tensor)")
        a = self._inplace("div_")
        d = other._data if isinstance(other, Tensor) else other
        a.values = (a.values / d).astype(a.dtype, copy=False)
        a._mat = a._mat_t = a._coal = None
        return self

    def neg_(self) -> SparseTensor:
        return self._scale_("neg_", -1)

    def zero_(self) -> SparseTensor:
        a = self._inplace("zero_")
        if a.blocked:  # every block row (BSR) or block column (BSC) empty
            by_col = a.layout is sparse_bsc
            a.crow, a.col = _k.empty_csr(a.shape[by_col] // a.blocksize[by_col])
            a.values = a.values[:0].copy()
            a._mat = a._mat_t = None
        elif a.layout is not sparse_coo:  # every row (CSR) or column (CSC) empty
            a.crow, a.col = _k.empty_csr(a.shape[0 if a.layout is sparse_csr else 1])
            a.values = a.values[:0].copy()
            a._mat = a._mat_t = None
        else:  # NOTE: matches torch: no entries left, flagged coalesced
            a.set_entries(_k.empty_indices(a.sparse_dim), a.values[:0].copy(), True)
        return self

    def add_(self, other, *, alpha=1) -> SparseTensor:
        if not isinstance(other, Tensor) or other._data.__class__ is not SparseArray:
            # NOTE: matches torch: a dense (or scalar) addend cannot go into a sparse tensor
            raise RuntimeError(
                "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
            )
        a, b = self._data, other._data
        if tuple(b.shape) != tuple(a.shape):
            raise RuntimeError(
                f"add: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
                f"{list(b.shape)}"
            )
        self._inplace("add_")
        ac, bc = a._coo(), b._coo()
        idx, val, coal = _k.add_entries(
            ac.indices, ac.values, ac.coalesced, bc.indices, bc.values, bc.coalesced, a.shape, alpha
        )
        a.set_entries(idx, val.astype(a.dtype, copy=False), coal)
        return self

    def sub_(self, other, *, alpha=1) -> SparseTensor:
        return self.add_(other, alpha=-alpha)

    def copy_(self, src, non_blocking=False) -> SparseTensor:
        if not isinstance(src, Tensor) or src._data.__class__ is not SparseArray:
            raise RuntimeError(
                "copy_() between dense and sparse Tensors is not implemented! Found self type = "
                f"sparse {self.dtype} and src type = "
                f"{src.dtype if isinstance(src, Tensor) else type(src).__name__}"
            )
        b = src._data._coo()
        self._check_resize(b.shape, b.sparse_dim, b.dense_dim)
        a = self._inplace("copy_")
        a.shape = tuple(b.shape)
        a.set_entries(b.indices.copy(), b.values.astype(a.dtype), b.coalesced)
        return self

    def _check_resize(self, size, sparse_dim: int, dense_dim: int) -> None:
        """torch's rules for resizing a non-empty sparse tensor in place: the sparse/dense
        dim counts and the dense sizes stay, sparse sizes only grow."""
        a = self._data
        size = tuple(int(s) for s in size)
        if len(size) != sparse_dim + dense_dim:
            raise RuntimeError(
                f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim "
                f"({dense_dim}), but got {len(size)}"
            )
        if a.nnz == 0:
            return
        sd, dd = a.sparse_dim, a.dense_dim
        if sparse_dim != sd:
            raise RuntimeError(
                f"changing the number of sparse dimensions (from {sd} to {sparse_dim}) on a "
                "non-empty sparse tensor is not supported."
            )
        if dense_dim != dd:
            raise RuntimeError(
                f"changing the number of dense dimensions (from {dd} to {dense_dim}) on a "
                "non-empty sparse tensor is not supported."
            )
        old = list(a.shape)
        if any(n < o for n, o in zip(size[:sd], old[:sd])):
            raise RuntimeError(
                f"shrinking the size of sparse dimensions (from {old[:sd]} to {list(size[:sd])}) "
                "on a non-empty sparse tensor is not supported."
            )
        if tuple(size[sd:]) != tuple(old[sd:]):
            raise RuntimeError(
                f"shrinking or expanding the size of dense dimensions (from {old[sd:]} to "
                f"{list(size[sd:])}) on a non-empty sparse tensor is not supported."
            )

    def sparse_resize_(self, size, sparse_dim: int, dense_dim: int) -> SparseTensor:
        _need_coo_layout(self, "sparse_resize_")
        self._check_resize(size, sparse_dim, dense_dim)
        a = self._inplace("sparse_resize_")
        shape = tuple(int(s) for s in size)
        if a.nnz == 0:
            dense = shape[sparse_dim:]
            a.shape = shape
            a.set_entries(
                _k.empty_indices(sparse_dim), _k.empty_values(dense, a.values), a.coalesced
            )
        else:
            a.shape = shape
            a._mat = a._mat_t = a._coal = None
        return self

    def sparse_resize_and_clear_(self, size, sparse_dim: int, dense_dim: int) -> SparseTensor:
        _need_coo_layout(self, "sparse_resize_and_clear_")
        shape = tuple(int(s) for s in size)
        if len(shape) != sparse_dim + dense_dim:
            raise RuntimeError(
                f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim "
                f"({dense_dim}), but got {len(shape)}"
            )
        a = self._inplace("sparse_resize_and_clear_")
        a.shape = shape
        a.set_entries(
            _k.empty_indices(sparse_dim), _k.empty_values(shape[sparse_dim:], a.values), True
        )
        return self

    # ---- shape --------------------------------------------------------------------------------
    def transpose(self, dim0, dim1):
        a = self._data
        d0, d1 = _wrap_dim(dim0, a.ndim), _wrap_dim(dim1, a.ndim)
        if a.layout is not sparse_coo:  # 2-D compressed: the other compressed layout
            return self if d0 == d1 else self.t()
        sd = a.sparse_dim
        if d0 == d1:
            return F.make(F.values_of(self), a)
        if d0 < sd and d1 < sd:
            shape = list(a.shape)
            shape[d0], shape[d1] = shape[d1], shape[d0]
            pattern = SparseArray(sparse_coo, shape, a.values, _k.swap_rows(a.indices, d0, d1))
            return F.make(F.values_of(self), pattern)
        if d0 >= sd and d1 >= sd:
            v = F.values_of(self).transpose(d0 - sd + 1, d1 - sd + 1)
            shape = list(a.shape)
            shape[d0], shape[d1] = shape[d1], shape[d0]
            return F.make(
                v, SparseArray(sparse_coo, shape, v._data, a.indices, coalesced=a.coalesced)
            )
        raise RuntimeError(
            f"transpose(): can't transpose a sparse dim with a dense dim (dims {d0} and {d1}, "
            f"sparse_dim {sd})"
        )

    def t(self):
        n = self._data.ndim
        if n > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
        if n < 2:
            return self
        a = self._data
        if a.blocked:  # BSR <-> BSC with each block transposed
            v = F.values_of(self).transpose(1, 2)
            other = sparse_bsc if a.layout is sparse_bsr else sparse_bsr
            pattern = SparseArray(other, a.shape[::-1], v._data, crow=a.crow, col=a.col)
            return F.make(v, pattern)
        if a.layout is not sparse_coo:
            # NOTE: matches torch: CSR transposes to CSC and back, sharing the values
            other = sparse_csc if a.layout is sparse_csr else sparse_csr
            shape = (a.shape[1], a.shape[0])
            pattern = SparseArray(other, shape, a.values, crow=a.crow, col=a.col)
            return F.make(F.values_of(self), pattern)
        return self.transpose(0, 1)

    @property
    def T(self):
        return self.t()

    @property
    def mT(self):
        return self.transpose(-2, -1) if self._data.layout is sparse_coo else self.t()

    # ---- products and reductions ------------------------------------------------------------
    def mm(self, mat2):
        if isinstance(mat2, Tensor) and mat2._data.__class__ is SparseArray:
            return _ops.spspmm(self, mat2, masked=False)
        _check_mm("mm", self, mat2, False)
        return F.mm_sparse(self, mat2)

    def matmul(self, other):
        if isinstance(other, Tensor) and other._data.__class__ is SparseArray:
            return _ops.spspmm(self, other, masked=False)
        _check_mm("matmul", self, other, True)
        return F.mm_sparse(self, other)

    __matmul__ = matmul

    def __rmatmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return _ops.rmm(other, self, "matmul", vec_ok=True)

    def _rmm(self, other, op: str):
        """``other @ self`` for ``ember.mm``/``ember.matmul`` (sparse second operand)."""
        return _ops.rmm(other, self, op, vec_ok=op == "matmul")

    def index_select(self, dim, index):
        return _ops.index_select(self, dim, index)

    def unsqueeze(self, dim):
        return _ops.unsqueeze(self, dim)

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        return sum(self, dim, dtype=dtype)


# ---- torch.sparse -------------------------------------------------------------------------
def mm(mat1: Tensor, mat2: Tensor, reduce: str | None = None) -> Tensor:
    """``mat1 @ mat2`` with ``mat1`` sparse (COO or CSR) and ``mat2`` dense; the gradient of a
    sparse ``mat1`` keeps its sparsity pattern.

    Example:
        >>> s = ember.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
        >>> ember.sparse.mm(s, ember.ones(2, 2))
        tensor([[2., 2.],
                [3., 3.]])
    """
    if reduce is not None:
        raise NotImplementedError("torch.sparse.mm: reduce= is not implemented in ember")
    s1 = mat1._data.__class__ is SparseArray
    if isinstance(mat2, Tensor) and mat2._data.__class__ is SparseArray:
        if s1:
            return _ops.spspmm(mat1, mat2, masked=True)
        # dense @ sparse as (sparse^T @ dense^T)^T: sparse's gradient masked, as torch's
        _ops._check_rmm("mm", mat1, mat2, False)
        return mm(mat2.t(), mat1.t()).t()
    if not s1:
        return mat1.mm(mat2)
    _check_mm("mm", mat1, mat2, False)
    return F.mm_sparse(mat1, mat2, cls=F.SparseMmMasked)


def addmm(mat: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1.0, alpha=1.0) -> Tensor:
    """``beta * mat + alpha * (mat1 @ mat2)`` with ``mat1`` sparse; as ``ember.sparse.mm``
    for the gradients.

    Example:
        >>> s = ember.sparse_coo_tensor([[0], [1]], [2.0], (2, 2))
        >>> ember.sparse.addmm(ember.ones(2, 1), s, ember.ones(2, 1), alpha=3)
        tensor([[7.],
                [1.]])
    """
    if mat1._data.__class__ is not SparseArray:
        from ember.ops.addmm import addmm as dense_addmm

        return dense_addmm(mat, mat1, mat2, beta=beta, alpha=alpha)
    _check_mm("addmm", mat1, mat2, False)
    return F.mm_sparse(mat1, mat2, mat, beta, alpha, cls=F.SparseMmMasked)


def sum(input: Tensor, dim=None, dtype=None) -> Tensor:  # noqa: A001
    """Sum of a sparse tensor over ``dim`` (all dims by default): dense when every sparse dim
    is summed, else sparse.

    Example:
        >>> s = ember.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
        >>> ember.sparse.sum(s)
        tensor(12.)
        >>> ember.sparse.sum(s, 1).to_dense()
        tensor([3., 9.])
    """
    if input._data.__class__ is not SparseArray:
        return input.sum() if dim is None else input.sum(dim, dtype=dtype)
    s = input if input._data.layout is sparse_coo else input.to_sparse_coo()
    v = F.values_of(s)
    if dtype is not None:
        v = v.to(dtype)
    a = s._data
    if dim is None:
        return v.sum()
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    dims = sorted({_wrap_dim(d, a.ndim) for d in dims})
    sd = a.sparse_dim
    dense_axes = [d - sd + 1 for d in dims if d >= sd]
    if dense_axes:
        v = v.sum(dense_axes)
    kept = [d for d in range(sd) if d not in dims]
    if not kept:
        return v.sum(0)
    shape = tuple(a.shape[d] for d in kept) + tuple(
        a.shape[d] for d in range(sd, a.ndim) if d not in dims
    )
    idx = _k.keep_rows(a.indices, kept)
    return F.make(v, SparseArray(sparse_coo, shape, v._data, idx)).coalesce()


def _softmax(input: Tensor, dim: int, dtype, log: bool) -> Tensor:
    if input._data.__class__ is not SparseArray:
        raise RuntimeError(
            f"{'log_softmax' if log else 'softmax'} expected sparse coordinate tensor layout but "
            "got Strided"
        )
    s = input.to_sparse_coo()
    if dtype is not None:
        s = s.to(dtype)
    s = s.coalesce()
    a = s._data
    d = _wrap_dim(dim, a.ndim)
    if d >= a.sparse_dim:  # along a dense dim: the dense op on the values
        from ember.ops.softmax import log_softmax as dls
        from ember.ops.softmax import softmax as dsm

        v = (dls if log else dsm)(F.values_of(s), d - a.sparse_dim + 1)
        return F.make(v, a)
    return F.Softmax.apply(s, d, log)


def softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Softmax over ``dim`` of the stored values of a sparse tensor; implicit zeros count as
    absent (minus infinity), as torch's.

    Example:
        >>> s = ember.sparse_coo_tensor([[0, 0], [0, 2]], [1.0, 1.0], (1, 3))
        >>> ember.sparse.softmax(s, 1).to_dense()
        tensor([[0.5000, 0.0000, 0.5000]])
    """
    return _softmax(input, dim, dtype, False)


def log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Log of ``ember.sparse.softmax``, computed stably.

    Example:
        >>> s = ember.sparse_coo_tensor([[0, 0], [0, 2]], [1.0, 1.0], (1, 3))
        >>> ember.sparse.log_softmax(s, 1).values()
        tensor([-0.6931, -0.6931])
    """
    return _softmax(input, dim, dtype, True)


def spmm(input: Tensor, mat2: Tensor) -> Tensor:
    """``torch.spmm``: ``input @ mat2`` for a sparse or dense ``input`` (``torch.mm``).

    Example:
        >>> ember.spmm(ember.eye(2).to_sparse(), ember.ones(2, 1))
        tensor([[1.],
                [1.]])
    """
    if input._data.__class__ is SparseArray:
        return input.mm(mat2)
    from ember.ops.linalg import mm as dense_mm

    return dense_mm(input, mat2)


F.SPARSE_CLS[0] = SparseTensor


def _row_product(name: str, mat1: Tensor, mat2: Tensor):
    if mat1._data.__class__ is not SparseArray or mat1._data.layout is not sparse_coo:
        raise NotImplementedError(
            f"Could not run 'aten::{name}' with arguments from the "
            f"'{'SparseCsrCPU' if mat1.layout is not strided else 'CPU'}' backend. This could "
            f"be because the operator doesn't exist for this backend ({name} takes a sparse COO "
            "first operand)."
        )
    _check_mm(name, mat1, mat2, False)
    rows = _k.nonzero_rows(mat1._data.indices)
    return rows, F.mm_sparse(mat1, mat2)[_wrap(rows)]


def hspmm(mat1: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """``mat1 @ mat2`` (sparse COO times dense) as a hybrid COO tensor: one sparse dim (the
    rows of ``mat1`` that hold entries) and the product rows as dense values.

    Example:
        >>> s = ember.sparse_coo_tensor([[0, 2], [1, 0]], [1.0, 2.0], (3, 2))
        >>> ember.hspmm(s, ember.ones(2, 2))._values()
        tensor([[1., 1.],
                [2., 2.]])
    """
    if out is not None:
        raise NotImplementedError("hspmm: out= is not implemented in ember")
    rows, v = _row_product("hspmm", mat1, mat2)
    shape = (mat1._data.shape[0], mat2._data.shape[1])
    # NOTE: matches torch: hspmm's result is flagged uncoalesced (though its rows are sorted)
    pattern = SparseArray(sparse_coo, shape, v._data, rows.reshape(1, -1))
    return F.make(v, pattern)


def smm(input: Tensor, mat: Tensor) -> Tensor:
    """``input @ mat`` (sparse COO times dense) as a sparse COO matrix holding every column of
    each row of ``input`` that has an entry.

    Example:
        >>> s = ember.sparse_coo_tensor([[0, 2], [1, 0]], [1.0, 2.0], (3, 2))
        >>> ember.smm(s, ember.ones(2, 2))._nnz()
        4
    """
    rows, v = _row_product("smm", input, mat)
    m = mat._data.shape[1]
    v = v.reshape(-1)
    shape = (input._data.shape[0], m)
    # NOTE: matches torch: smm's result is flagged uncoalesced (it is sspaddmm's)
    pattern = SparseArray(sparse_coo, shape, v._data, _k.row_col_grid(rows, m))
    return F.make(v, pattern)
