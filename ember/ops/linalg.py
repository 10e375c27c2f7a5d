"""Matrix products: ``matmul`` (and ``@``), ``mm``, ``bmm``, ``mv``, ``dot``, ``vdot``; and the
argument checks and dtype-name tables shared by the other product files (``addmm.py``,
``products.py``, ``cross.py``, ``einsum.py``).

One primitive, ``Matmul``, with the node-name variants ``Mm``, ``Bmm``, ``Mv``, ``Dot``...; its
backward is written with ember ops, so every product has first and higher derivatives.

Like PyTorch, the matrix products require both operands to have the same dtype (no promotion).
"""

from __future__ import annotations

import math

from ember import _autocast as _ac
from ember import _dtype
from ember._layout import strided as _strided
from ember.autograd.function import Function
from ember.ops._dispatch import cj, xp_of
from ember.ops.pointwise import _out
from ember.tensor import Tensor

# PyTorch's C++ names of the scalar types, as its matmul dtype errors print them.
_CNAME = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
    "bfloat16": "c10::BFloat16",
}
_SNAME = _dtype.SCALAR_NAMES


def _dname(t: Tensor, table=_SNAME) -> str:
    return table[t._data.dtype.name]


def _check_tensor(op: str, name: str, pos: int, x) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


def _no_bool(kernel: str, *ts: Tensor) -> None:
    if any(t._data.dtype.kind == "b" for t in ts):
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for 'Bool'; convert the operands first, e.g. "
            "a.long() or a.float()"
        )


def _sizes(shape) -> str:
    return "x".join(str(s) for s in shape)


# ---- the matrix-product primitive ------------------------------------------------------------
def _matmul_arrays(a, b):
    """``a @ b`` on raw arrays: one BLAS call for 2-D (and for N-D @ 2-D, folded to 2-D)."""
    xp = xp_of(a)
    if a.dtype.char in "eE":
        # NOTE: matches torch: CPU half matmul accumulates in float32 (NumPy's would not).
        f32 = _dtype.float32._np
        return _matmul_arrays(a.astype(f32), b.astype(f32)).astype(a.dtype)
    if b.ndim <= 2:
        # ``dot``: for operands of at most 2 dims the same BLAS call as ``matmul``, with less
        # NumPy overhead per call (a 1-D @ 1-D product is 0-d either way)
        if a.ndim <= 2:
            return a.dot(b)
        # (..., n, k) @ (k, m): one (N, k) @ (k, m) GEMM instead of a loop over the batch
        lead = a.shape[:-1]
        out = a.reshape(math.prod(lead), a.shape[-1]).dot(b)
        return out.reshape(lead + b.shape[1:])
    return xp.matmul(a, b)


class Matmul(Function):
    """``a @ b`` with NumPy/PyTorch matmul semantics (1-D promotion, batch broadcasting)."""

    _array_forward = True
    # NOTE: matches torch: batched matmul ends in a reshape there, hence this name.
    _node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _matmul_arrays(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return _matmul_grads(a, b, g, *ctx.needs_input_grad)


def _matmul_grads(a: Tensor, b: Tensor, g: Tensor, need_a: bool, need_b: bool):
    """Gradients of ``a @ b`` for the output gradient ``g`` (Tensor ops: differentiable)."""
    na, nb = a.ndim, b.ndim
    ga = gb = None
    # each gradient is linear in the other operand: conjugating it gives the complex
    # (conjugate Wirtinger) gradients, g @ b^H and a^H @ g; no-ops on real tensors
    a, b = cj(a), cj(b)
    # d(a @ b) = da @ b + a @ db; batch dims broadcast in forward are summed by the engine,
    # but the 1-D promotions are matmul's own and are undone here.
    if na == 1 and nb == 1:  # dot: g is 0-d
        ga = g * b if need_a else None
        gb = g * a if need_b else None
    elif nb == 1:  # (..., n, k) @ (k,) -> (..., n)
        if need_a:
            ga = g.unsqueeze(-1) * b
        if need_b:
            k = a.shape[-1]
            gb = g.reshape(-1) @ a.reshape(-1, k) if na > 2 else g @ a
    elif na == 1:  # (k,) @ (..., k, m) -> (..., m)
        if need_a:
            ga = b @ g if nb == 2 else (b @ g.unsqueeze(-1)).squeeze(-1)
        if need_b:
            gb = a.unsqueeze(-1) * g.unsqueeze(-2)
    else:
        if need_a:
            ga = g @ b.mT
        if need_b:
            if nb == 2 and na > 2:  # fold the batch into one GEMM: (k, N) @ (N, m)
                k, m = a.shape[-1], g.shape[-1]
                gb = a.reshape(-1, k).mT @ g.reshape(-1, m)
            else:
                gb = a.mT @ g
    return ga, gb


class Mm(Matmul):
    _node_name = "MmBackward0"


class Bmm(Matmul):
    _node_name = "BmmBackward0"


class Mv(Matmul):
    _node_name = "MvBackward0"


class Dot(Matmul):
    _node_name = "DotBackward0"


class Vdot(Matmul):
    _node_name = "VdotBackward0"


class VecMat(Matmul):
    # NOTE: matches torch: 1-D @ 2-D is unsqueeze, mm, squeeze there.
    _node_name = "SqueezeBackward4"


def _check_dot(op: str, a: Tensor, b: Tensor) -> None:
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors"
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"{op} : expected both vectors to have same dtype, but found {_dname(a)} and "
            f"{_dname(b)}"
        )
    n, m = a._data.shape[0], b._data.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    _no_bool(op, a)


def _check_mv(mat: Tensor, vec: Tensor) -> None:
    sa, sb = mat._data.shape, vec._data.shape
    if sa[-1] != sb[0]:
        raise RuntimeError(f"size mismatch, got input ({sa[0]}), mat ({_sizes(sa)}), vec ({sb[0]})")


def _check_mm_shapes(sa, sb) -> None:
    if sa[-1] != sb[-2]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({sa[-2]}x{sa[-1]} and {sb[-2]}x{sb[-1]})"
        )


def _check_same_dtype(a: Tensor, b: Tensor) -> None:
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_dname(a, _CNAME)} != "
            f"{_dname(b, _CNAME)}; convert one of them, e.g. b.to(a.dtype)"
        )


def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Matrix product with NumPy's rules: 1-D operands are promoted to a row (first) or a
    column (second) and the added dim removed after; batch dims broadcast.

    Example:
        >>> ember.matmul(ember.ones(5, 2, 3), ember.ones(3, 4)).shape
        ember.Size([5, 2, 4])
    """
    _check_tensor("matmul", "input", 1, input)
    _check_tensor("matmul", "other", 2, other)
    if _ac.on and out is None:  # autocast's lower-precision list
        input, other = _ac.low(input, other)
    if other.layout is not _strided:  # a sparse second operand: ember.sparse's products
        return _out(other._rmm(input, "matmul"), out)
    sa, sb = input._data.shape, other._data.shape
    if (
        out is None
        and len(sa) == 2
        and len(sb) == 2
        and sa[1] == sb[0]
        and input._data.dtype is other._data.dtype
        and input._data.dtype.kind in "fV"
    ):
        return Mm.apply(input, other)  # the common 2-D product, its checks passed at once
    na, nb = len(sa), len(sb)
    if na == 0 or nb == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D"
        )
    if na == 1 and nb == 1:
        _check_dot("dot", input, other)
        return _out(Dot.apply(input, other), out)
    _check_same_dtype(input, other)
    _no_bool("addmm_impl_cpu_", input)
    if nb == 1:
        if na == 2:
            _check_mv(input, other)
        else:
            _check_mm_shapes(sa, sb + (1,))
        cls = Mv if na == 2 else Matmul
    elif na == 1:
        _check_mm_shapes((1,) + sa, sb)
        cls = VecMat if nb == 2 else Matmul
    else:
        _check_mm_shapes(sa, sb)
        cls = Mm if na == 2 and nb == 2 else Matmul
        if na > 2 and nb > 2:
            _check_batch(sa[:-2], sb[:-2])
    return _out(cls.apply(input, other), out)


def _check_batch(sa, sb) -> None:
    for i in range(1, min(len(sa), len(sb)) + 1):
        x, y = sa[-i], sb[-i]
        if x != y and x != 1 and y != 1:
            n = max(len(sa), len(sb))
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {n - i} (matmul batch dims {list(sa)} and {list(sb)})"
            )


def mm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """Product of two matrices (2-D only; no broadcasting).

    Example:
        >>> ember.mm(ember.ones(2, 3), ember.ones(3, 4)).shape
        ember.Size([2, 4])
    """
    _check_tensor("mm", "input", 1, input)
    _check_tensor("mm", "mat2", 2, mat2)
    if _ac.on and out is None:  # autocast's lower-precision list
        input, mat2 = _ac.low(input, mat2)
    if mat2.layout is not _strided:  # a sparse second operand: ember.sparse's products
        return _out(mat2._rmm(input, "mm"), out)
    if input.layout is not _strided:  # a sparse first operand: its own mm (torch's checks)
        return _out(input.mm(mat2), out)
    if input._data.ndim != 2:
        raise RuntimeError(f"self must be a matrix, got {input._data.ndim}-D tensor")
    if mat2._data.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2._data.ndim}-D tensor")
    _check_mm_shapes(input._data.shape, mat2._data.shape)
    _check_same_dtype(input, mat2)
    _no_bool("addmm_impl_cpu_", input)
    return _out(Mm.apply(input, mat2), out)


def _check_bmm(batch1: Tensor, batch2: Tensor) -> None:
    s1, s2 = batch1._data.shape, batch2._data.shape
    if len(s1) != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor, got {len(s1)}-D")
    if len(s2) != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor, got {len(s2)}-D")
    if s2[0] != s1[0] or s2[1] != s1[2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{s1[0]}, {s1[2]}] but got: [{s2[0]}, {s2[1]}]."
        )


def bmm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """Batched matrix product of 3-D tensors ``(b, n, k) @ (b, k, m)`` (no broadcasting).

    Example:
        >>> ember.bmm(ember.ones(5, 2, 3), ember.ones(5, 3, 4)).shape
        ember.Size([5, 2, 4])
    """
    _check_tensor("bmm", "input", 1, input)
    _check_tensor("bmm", "mat2", 2, mat2)
    if _ac.on and out is None:  # autocast's lower-precision list
        input, mat2 = _ac.low(input, mat2)
    _check_bmm(input, mat2)
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(
            f"expected scalar type {_dname(input)} but found {_dname(mat2)} (bmm of "
            f"{list(input.shape)} and {list(mat2.shape)}: both must have the same dtype)"
        )
    _no_bool("bmm", input)
    return _out(Bmm.apply(input, mat2), out)


def mv(input: Tensor, vec: Tensor, *, out=None) -> Tensor:
    """Matrix-vector product ``(n, k) @ (k,) -> (n,)``.

    Example:
        >>> ember.mv(ember.ones(2, 3), ember.ones(3))
        tensor([3., 3.])
    """
    _check_tensor("mv", "input", 1, input)
    _check_tensor("mv", "vec", 2, vec)
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {input._data.ndim}, {vec._data.ndim}"
        )
    _check_mv(input, vec)
    if input._data.dtype != vec._data.dtype:
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {_dname(input)} and "
            f"{_dname(vec)}"
        )
    _no_bool("addmv_impl_cpu", input)
    return _out(Mv.apply(input, vec), out)


def dot(input: Tensor, tensor: Tensor, *, out=None) -> Tensor:
    """Inner product of two 1-D tensors of the same size and dtype.

    Example:
        >>> ember.dot(ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))
        tensor(11.)
    """
    _check_tensor("dot", "input", 1, input)
    _check_tensor("dot", "tensor", 2, tensor)
    _check_dot("dot", input, tensor)
    return _out(Dot.apply(input, tensor), out)


def vdot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``dot`` with the first argument conjugated (the same as ``dot`` for real tensors)."""
    _check_tensor("vdot", "input", 1, input)
    _check_tensor("vdot", "other", 2, other)
    _check_dot("dot", input, other)
    if input._data.dtype.kind == "c":
        input = input.conj()
    return _out(Vdot.apply(input, other), out)


# ---- Tensor methods and operators backed by this file ----------------------------------------
def _matmul_op(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


def _rmatmul_op(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


__all__ = [
    "matmul",
    "mm",
    "bmm",
    "mv",
    "dot",
    "vdot",
]

Tensor.matmul = matmul
Tensor.__matmul__ = _matmul_op
Tensor.__rmatmul__ = _rmatmul_op
Tensor.mm = mm
Tensor.bmm = bmm
Tensor.mv = mv
Tensor.dot = dot
Tensor.vdot = vdot
