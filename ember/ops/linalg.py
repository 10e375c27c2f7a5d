"""Linear-algebra products: ``matmul`` (and ``@``), ``mm``, ``bmm``, ``mv``, ``dot``, the
``add*`` fused forms, ``outer``, ``inner``, ``kron``, ``tensordot``, ``einsum``, ``cross``.

Primitives (one ``Function`` each): ``Matmul`` (with the node-name variants ``Mm``, ``Bmm``,
``Mv``, ``Dot``...), the fused ``beta * input + alpha * product`` forms (``Addmm``, ``Addbmm``,
``Addr``: one pass, the product written in place, as BLAS does), ``Einsum`` and ``Cross``.
The rest (``tensordot``, ``inner``, ``outer``, ``kron``, ``multi_dot``) is composed from them and
the element-wise/shape ops. Every backward is written with ember ops, so every product has
first and higher derivatives.

Like PyTorch, the matrix products require both operands to have the same dtype (no promotion);
``outer``, ``kron`` and ``addr`` are element-wise products underneath and do promote.
"""

from __future__ import annotations

import math
import operator
import string
import warnings

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import promote, xp_of
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor, _wrap, _wrap_dim

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
}
_SNAME = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


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
    if a.dtype.char == "e":
        # NOTE: matches torch: CPU half matmul accumulates in float32 (NumPy's would not).
        f32 = _dtype.float32._np
        return _matmul_arrays(a.astype(f32), b.astype(f32)).astype(a.dtype)
    if a.ndim > 2 and b.ndim == 2:
        # (..., n, k) @ (k, m): one (N, k) @ (k, m) GEMM instead of a loop over the batch
        lead = a.shape[:-1]
        out = xp.matmul(a.reshape(math.prod(lead), a.shape[-1]), b)
        return out.reshape(lead + (b.shape[1],))
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
    sa, sb = input._data.shape, other._data.shape
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
    return _out(Vdot.apply(input, other), out)


# ---- fused forms: beta * input + alpha * product ---------------------------------------------
def _check_expand(input: Tensor, shape) -> None:
    """``input`` must broadcast to ``shape`` without growing it (PyTorch expands it)."""
    s = input._data.shape
    if len(s) > len(shape):
        raise RuntimeError(
            f"expand(ember.{input.dtype.name}{list(s)}, size={list(shape)}): the number of sizes "
            f"provided ({len(shape)}) must be greater or equal to the number of dimensions in "
            f"the tensor ({len(s)})"
        )
    lead = len(shape) - len(s)
    for i, o in enumerate(s):
        t = shape[lead + i]
        if o != t and o != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({t}) must match the existing size ({o}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: {list(shape)}.  Tensor "
                f"sizes: {list(s)}"
            )


def _fused_forward(ctx, input, a, b, beta, alpha, p):
    """``beta * input + alpha * p`` into the fresh product array ``p``; ``beta == 0`` ignores
    ``input`` (its nan and inf too), as BLAS does."""
    ctx.beta, ctx.alpha = beta, alpha
    ctx.save_for_backward(a, b)
    if alpha != 1:
        p *= alpha
    if beta != 0:
        p += input if beta == 1 else input * beta
    return p


def _fused_backward(ctx, g, product_grads):
    a, b = ctx.saved_tensors
    need_i, need_a, need_b = ctx.needs_input_grad[:3]
    beta, alpha = ctx.beta, ctx.alpha
    gi = (g if beta == 1 else g * beta) if need_i else None
    ga = gb = None
    if need_a or need_b:
        ga, gb = product_grads(a, b, g if alpha == 1 else g * alpha, need_a, need_b)
    return gi, ga, gb, None, None


class Addmm(Function):
    """``beta * input + alpha * (a @ b)`` in one pass (the product written in place)."""

    _array_forward = True
    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, input, a, b, beta, alpha):
        return _fused_forward(ctx, input, a, b, beta, alpha, _matmul_arrays(a, b))

    @staticmethod
    def backward(ctx, g):
        return _fused_backward(ctx, g, _matmul_grads)


class Addmv(Addmm):
    _node_name = "AddmvBackward0"


class Baddbmm(Addmm):
    _node_name = "BaddbmmBackward0"


def _batch_sum_arrays(a, b):
    """``sum_b a[b] @ b[b]`` as one GEMM: (n, B*k) @ (B*k, m)."""
    nb, n, k = a.shape
    return _matmul_arrays(a.transpose(1, 0, 2).reshape(n, nb * k), b.reshape(nb * k, b.shape[2]))


def _batch_sum_grads(a, b, g, need_a, need_b):
    # d sum_b a_b @ b_b: g @ b_b^T for each a_b, a_b^T @ g for each b_b
    return (g @ b.mT if need_a else None), (a.mT @ g if need_b else None)


class Addbmm(Function):
    _array_forward = True
    _node_name = "AddbmmBackward0"

    @staticmethod
    def forward(ctx, input, a, b, beta, alpha):
        return _fused_forward(ctx, input, a, b, beta, alpha, _batch_sum_arrays(a, b))

    @staticmethod
    def backward(ctx, g):
        return _fused_backward(ctx, g, _batch_sum_grads)


def _outer_grads(a, b, g, need_a, need_b):
    return (g @ b if need_a else None), (a @ g if need_b else None)


class Addr(Function):
    _array_forward = True
    _node_name = "AddrBackward0"

    @staticmethod
    def forward(ctx, input, a, b, beta, alpha):
        return _fused_forward(ctx, input, a, b, beta, alpha, a.reshape(-1, 1) * b)

    @staticmethod
    def backward(ctx, g):
        return _fused_backward(ctx, g, _outer_grads)


def _scalars(dt, beta, alpha):
    if dt.kind in "iub":
        # NOTE: matches torch: integer inputs take the scalars truncated to integers.
        return int(beta), int(alpha)
    return beta, alpha


def _check_input_dtype(op: str, input: Tensor, *others: Tensor) -> None:
    dt = input._data.dtype
    for o in others:
        if o._data.dtype != dt:
            names = ", ".join(_dname(t) for t in (input, *others))
            raise RuntimeError(
                f"{op}: input tensors must have the same dtype, but got {names} (input, then "
                "the factors); convert them, e.g. with .to(input.dtype)"
            )


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape.

    Example:
        >>> ember.addmm(ember.zeros(2), ember.ones(3, 2), ember.ones(2, 2), alpha=2)
        tensor([[4., 4.],
                [4., 4.],
                [4., 4.]])
    """
    for i, (n, t) in enumerate((("input", input), ("mat1", mat1), ("mat2", mat2))):
        _check_tensor("addmm", n, i + 1, t)
    for n, t in (("mat1", mat1), ("mat2", mat2)):
        if t._data.ndim != 2:
            raise RuntimeError(f"{n} must be a matrix, got {t._data.ndim}-D tensor")
    _check_mm_shapes(mat1._data.shape, mat2._data.shape)
    _check_input_dtype("addmm", input, mat1, mat2)
    _check_expand(input, (mat1._data.shape[0], mat2._data.shape[1]))
    _no_bool("addmm_impl_cpu_", input)
    beta, alpha = _scalars(input._data.dtype, beta, alpha)
    return _out(Addmm.apply(input, mat1, mat2, beta, alpha), out)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``.

    Example:
        >>> ember.addmv(ember.ones(2), ember.ones(2, 3), ember.ones(3))
        tensor([4., 4.])
    """
    for i, (n, t) in enumerate((("input", input), ("mat", mat), ("vec", vec))):
        _check_tensor("addmv", n, i + 1, t)
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, "
            f"{vec._data.ndim}"
        )
    _check_mv(mat, vec)
    _check_input_dtype("addmv", input, mat, vec)
    _check_expand(input, (mat._data.shape[0],))
    _no_bool("addmv_impl_cpu", input)
    beta, alpha = _scalars(input._data.dtype, beta, alpha)
    return _out(Addmv.apply(input, mat, vec, beta, alpha), out)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)``.

    Example:
        >>> ember.baddbmm(ember.zeros(2, 4), ember.ones(5, 2, 3), ember.ones(5, 3, 4)).shape
        ember.Size([5, 2, 4])
    """
    for i, (n, t) in enumerate((("input", input), ("batch1", batch1), ("batch2", batch2))):
        _check_tensor("baddbmm", n, i + 1, t)
    _check_bmm(batch1, batch2)
    _check_input_dtype("baddbmm", input, batch1, batch2)
    s1, s2 = batch1._data.shape, batch2._data.shape
    _check_expand(input, (s1[0], s1[1], s2[2]))
    _no_bool("baddbmm", input)
    beta, alpha = _scalars(input._data.dtype, beta, alpha)
    return _out(Baddbmm.apply(input, batch1, batch2, beta, alpha), out)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` (the batch is reduced).

    Example:
        >>> ember.addbmm(ember.zeros(2, 4), ember.ones(5, 2, 3), ember.ones(5, 3, 4)).sum()
        tensor(120.)
    """
    for i, (n, t) in enumerate((("input", input), ("batch1", batch1), ("batch2", batch2))):
        _check_tensor("addbmm", n, i + 1, t)
    s1, s2 = batch1._data.shape, batch2._data.shape
    if len(s1) != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor, got {len(s1)}-D")
    if len(s2) != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor, got {len(s2)}-D")
    if s1[0] != s2[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {s1[0]} and {s2[0]}"
        )
    if s1[2] != s2[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({s1[1]}x{s1[2]} and {s2[1]}x{s2[2]})"
        )
    _check_input_dtype("addbmm", input, batch1, batch2)
    _check_expand(input, (s1[1], s2[2]))
    _no_bool("addbmm", input)
    beta, alpha = _scalars(input._data.dtype, beta, alpha)
    return _out(Addbmm.apply(input, batch1, batch2, beta, alpha), out)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``.

    Example:
        >>> ember.addr(ember.zeros(2, 2), ember.ones(2), ember.ones(2))
        tensor([[1., 1.],
                [1., 1.]])
    """
    for i, (n, t) in enumerate((("input", input), ("vec1", vec1), ("vec2", vec2))):
        _check_tensor("addr", n, i + 1, t)
    for n, t in (("vec1", vec1), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {n}, but got {t._data.ndim}-D")
    _check_expand(input, (vec1._data.shape[0], vec2._data.shape[0]))
    # NOTE: matches torch: addr promotes its operands (it is an outer product, not a GEMM)
    dt = promote(input, vec1, vec2)
    if dt.kind in "iu":
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(
                    f"For integral input tensors, argument {name} must not be a floating point "
                    "number."
                )
    if dt.kind == "b":
        raise NotImplementedError("addr on bool tensors is not supported by ember")
    input, vec1, vec2 = (
        t if t._data.dtype == dt else t.to(_dtype.from_np(dt)) for t in (input, vec1, vec2)
    )
    return _out(Addr.apply(input, vec1, vec2, beta, alpha), out)


# ---- products composed from element-wise and shape ops -----------------------------------------
def _outer(op: str, a: Tensor, b: Tensor, na: str, nb: str) -> Tensor:
    for n, t in ((na, a), (nb, b)):
        if t._data.ndim != 1:
            raise RuntimeError(f"{op}: Expected 1-D argument {n}, but got {t._data.ndim}-D")
    return a.unsqueeze(1) * b


def outer(input: Tensor, vec2: Tensor, *, out=None) -> Tensor:
    """Outer product of two 1-D tensors: ``out[i, j] = input[i] * vec2[j]`` (types promote).

    Example:
        >>> ember.outer(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 10.0]))
        tensor([[ 1., 10.],
                [ 2., 20.]])
    """
    _check_tensor("outer", "input", 1, input)
    _check_tensor("outer", "vec2", 2, vec2)
    return _out(_outer("outer", input, vec2, "self", "vec2"), out)


def ger(input: Tensor, vec2: Tensor, *, out=None) -> Tensor:
    """Alias of ``outer``."""
    return outer(input, vec2, out=out)


def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Sum over the last dims: ``out[i..., j...] = sum_k input[i..., k] * other[j..., k]``;
    a 0-d operand multiplies.

    Example:
        >>> ember.inner(ember.ones(2, 3), ember.ones(4, 3)).shape
        ember.Size([2, 4])
    """
    _check_tensor("inner", "input", 1, input)
    _check_tensor("inner", "other", 2, other)
    if input._data.ndim == 0 or other._data.ndim == 0:
        return _out(input * other, out)
    sa, sb = input._data.shape, other._data.shape
    if sa[-1] != sb[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(sa)} and {list(sb)}"
        )
    return _out(tensordot(input, other, ([-1], [-1])), out)


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Contract ``dims`` dims of ``a`` with dims of ``b``: an int (the last ``dims`` of ``a``
    with the first ``dims`` of ``b``) or a pair of lists ``([dims of a], [dims of b])``.

    Example:
        >>> ember.tensordot(ember.ones(2, 3, 4), ember.ones(3, 4, 5), dims=2).shape
        ember.Size([2, 5])
        >>> ember.tensordot(ember.ones(2, 3), ember.ones(4, 3), dims=([1], [1])).shape
        ember.Size([2, 4])
    """
    _check_tensor("tensordot", "a", 1, a)
    _check_tensor("tensordot", "b", 2, b)
    na, nb = a._data.ndim, b._data.ndim
    if isinstance(dims, Tensor):
        dims = dims.item() if dims.numel() == 1 else dims.tolist()
    if isinstance(dims, bool) or not isinstance(dims, (int, list, tuple)):
        raise RuntimeError(
            "tensordot expects dims to be int or tuple[list[int], list[int]] or "
            f"list[list[int]] containing two lists, but got dims={dims}"
        )
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = dims
        for name, d in (("dims_self", dims_a), ("dims_other", dims_b)):
            if not isinstance(d, (list, tuple)):
                raise TypeError(
                    f"tensordot(): argument '{name}' must be tuple of ints, not "
                    f"{type(d).__name__}; write dims=([1], [0]) rather than dims=(1, 0)"
                )
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"both inputs should have same dtype (tensordot of {a.dtype} and {b.dtype})"
        )
    ca = [_wrap_dim(operator.index(d), na) for d in dims_a]
    cb = [_wrap_dim(operator.index(d), nb) for d in dims_b]
    for cs in (ca, cb):
        seen = set()
        for d in cs:
            if d in seen:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            seen.add(d)
    sa, sb = a._data.shape, b._data.shape
    for da, db, ua, ub in zip(ca, cb, dims_a, dims_b, strict=True):
        if sa[da] != sb[db]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {sa[da]} in dim {ua} "
                f"and second has size {sb[db]} in dim {ub}"
            )
    _no_bool("addmm_impl_cpu_", a)
    fa = [d for d in range(na) if d not in ca]
    fb = [d for d in range(nb) if d not in cb]
    k = math.prod(sa[d] for d in ca)
    ra = math.prod(sa[d] for d in fa)
    rb = math.prod(sb[d] for d in fb)
    # NOTE: as torch does: permute, fold to matrices, one mm, unfold.
    pa = a.permute(fa + ca) if fa + ca != list(range(na)) else a
    pb = b.permute(cb + fb) if cb + fb != list(range(nb)) else b
    r = Mm.apply(pa.reshape(ra, k), pb.reshape(k, rb))
    return _out(r.reshape([sa[d] for d in fa] + [sb[d] for d in fb]), out)


def kron(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Kronecker product: the block tensor ``input[i] * other`` (the shorter shape is padded
    with leading 1s).

    Example:
        >>> ember.kron(ember.eye(2), ember.ones(2, 2)).shape
        ember.Size([4, 4])
    """
    _check_tensor("kron", "input", 1, input)
    _check_tensor("kron", "other", 2, other)
    sa, sb = input._data.shape, other._data.shape
    n = max(len(sa), len(sb))
    sa = (1,) * (n - len(sa)) + sa
    sb = (1,) * (n - len(sb)) + sb
    # (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...) -> (a0, b0, a1, b1, ...) -> (a0*b0, a1*b1, ...)
    a = input.reshape([x for s in sa for x in (s, 1)])
    b = other.reshape([x for s in sb for x in (1, s)])
    return _out((a * b).reshape([x * y for x, y in zip(sa, sb, strict=True)]), out)


def multi_dot(tensors, *, out=None) -> Tensor:
    """Product of two or more matrices in the cheapest order (``ember.linalg.multi_dot``); the
    first may be a 1-D row vector and the last a 1-D column vector.

    Example:
        >>> multi_dot([ember.ones(3), ember.ones(3, 4), ember.ones(4)])
        tensor(12.)
    """
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(ts):
        _check_tensor("multi_dot", f"tensors[{i}]", 1, t)
        d = t._data.ndim
        if i == 0 and d not in (1, 2):
            raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {d}D")
        if i == n - 1 and d not in (1, 2):
            raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {d}D")
        if 0 < i < n - 1 and d != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {d}D")
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_dname(ts[0], _CNAME)} and tensor {i} {_dname(t, _CNAME)}"
            )
    row, col = ts[0]._data.ndim == 1, ts[-1]._data.ndim == 1
    if row:
        ts[0] = ts[0].unsqueeze(0)
    if col:
        ts[-1] = ts[-1].unsqueeze(1)
    for i in range(n - 1):
        s1, s2 = ts[i]._data.shape, ts[i + 1]._data.shape
        if s1[1] != s2[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(s1)} and {list(s2)} "
                "cannot be multiplied"
            )
    _no_bool("addmm_impl_cpu_", ts[0])
    r = _chain(ts)
    if row and col:
        r = r.reshape(())
    elif row:
        r = r.squeeze(0)
    elif col:
        r = r.squeeze(1)
    return _out(r, out)


def _chain(ts: list) -> Tensor:
    """Multiply matrices in the order that minimizes scalar multiplications (the classic
    matrix-chain dynamic program, as torch's multi_dot)."""
    n = len(ts)
    if n == 2:
        return Mm.apply(ts[0], ts[1])
    p = [ts[0]._data.shape[0]] + [t._data.shape[1] for t in ts]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            best = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if best is None or c < best:
                    best, split[i][j] = c, k
            cost[i][j] = best

    def build(i, j):
        if i == j:
            return ts[i]
        k = split[i][j]
        return Mm.apply(build(i, k), build(k + 1, j))

    return build(0, n - 1)


def chain_matmul(*matrices, out=None) -> Tensor:
    """Deprecated form of ``ember.linalg.multi_dot`` taking the matrices as arguments.

    Example:
        >>> ember.chain_matmul(ember.ones(2, 3), ember.ones(3, 4)).shape  # doctest: +SKIP
        ember.Size([2, 4])
    """
    # NOTE: matches torch: deprecated, with its warning.
    warnings.warn(
        "ember.chain_matmul is deprecated and will be removed in a future release. Use "
        "ember.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters.",
        UserWarning,
        stacklevel=2,
    )
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        _check_tensor("chain_matmul", "matrices", 1, t)
        if t._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t._data.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return _out(matrices[0].clone(), out)
    return multi_dot(matrices, out=out)


# ---- cross product ---------------------------------------------------------------------------
class Cross(Function):
    _array_forward = True
    _node_name = "LinalgCrossBackward0"

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.dim = dim
        ctx.save_for_backward(a, b)
        return xp_of(a).cross(a, b, axis=dim)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        # g . (a x b) = a . (b x g) = b . (g x a)
        ga = Cross.apply(b, g, ctx.dim) if need_a else None
        gb = Cross.apply(g, a, ctx.dim) if need_b else None
        return ga, gb, None


def cross(input: Tensor, other: Tensor, dim=None, *, out=None) -> Tensor:
    """Cross product of 3-vectors along ``dim`` (shapes broadcast; same number of dims).

    Without ``dim`` the first dimension of size 3 is used (deprecated, as in PyTorch: pass
    ``dim`` or use ``ember.linalg.cross``).

    Example:
        >>> ember.cross(ember.tensor([1.0, 0.0, 0.0]), ember.tensor([0.0, 1.0, 0.0]), dim=0)
        tensor([0., 0., 1.])
    """
    _check_tensor("cross", "input", 1, input)
    _check_tensor("cross", "other", 2, other)
    sa = input._data.shape
    if dim is None:
        # NOTE: matches torch: deprecated, with its warning, and the first size-3 dim of input.
        warnings.warn(
            "Using ember.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use ember.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
        dim = next((i for i, s in enumerate(sa) if s == 3), None)
        if dim is None:
            raise RuntimeError(
                f"no dimension of size 3 in input (shape {list(sa)}); pass dim= explicitly"
            )
    return _out(_cross(input, other, dim), out)


def _cross(input: Tensor, other: Tensor, dim: int) -> Tensor:
    sa, sb = input._data.shape, other._data.shape
    if len(sa) != len(sb):
        raise RuntimeError(
            f"linalg.cross: inputs must have the same number of dimensions (got shapes "
            f"{list(sa)} and {list(sb)})."
        )
    d = _wrap_dim(dim, len(sa))
    if len(sa) == 0 or sa[d] != 3 or sb[d] != 3:
        got = (sa[d], sb[d]) if sa else (1, 1)
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {got[0]} and {got[1]}"
        )
    _check_batch(sa, sb)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            f"expected scalar type {_dname(input)} but found {_dname(other)} (cross of "
            f"{input.dtype} and {other.dtype}: both must have the same dtype)"
        )
    _no_bool("cross", input)
    return Cross.apply(input, other, d)


# ---- einsum ----------------------------------------------------------------------------------
_LETTERS = string.ascii_letters


def _einsum_arrays(eq: str, arrays):
    xp = xp_of(arrays[0])
    dt = arrays[0].dtype
    if dt.char == "e":
        f32 = _dtype.float32._np
        return _einsum_arrays(eq, [a.astype(f32) for a in arrays]).astype(dt)
    if len(arrays) == 1:
        r = xp.einsum(eq, arrays[0])
        # NumPy returns views for permutations and diagonals: ember outputs own their memory
        return r.copy() if getattr(r, "base", None) is not None else r
    # BLAS-backed contraction order pays off once the loop nest is big; below that the path
    # search costs more than it saves.
    sizes = {}
    ins = eq.split("->")[0].split(",")
    for term, a in zip(ins, arrays, strict=True):
        sizes.update(zip(term, a.shape, strict=True))
    big = len(arrays) > 2 or math.prod(sizes.values()) > 32768
    return xp.einsum(eq, *arrays, optimize="greedy" if big else False)


class Einsum(Function):
    """``einsum`` on a canonical equation: explicit output, letters only, no broadcasting."""

    _array_forward = True
    # ember's own name: torch's einsum is a composite whose grad_fn is its last reshape.
    _node_name = "EinsumBackward0"

    @staticmethod
    def forward(ctx, eq, *ops):
        ctx.eq = eq
        ctx.save_for_backward(*ops)
        return _einsum_arrays(eq, ops)

    @staticmethod
    def backward(ctx, g):
        ops = ctx.saved_tensors
        lhs, out = ctx.eq.split("->")
        ins = lhs.split(",")
        grads = [None]
        for k, need in enumerate(ctx.needs_input_grad[1:]):
            grads.append(_einsum_grad(k, ins, out, ops, g) if need else None)
        return tuple(grads)


def _einsum_grad(k: int, ins: list, out: str, ops, g: Tensor) -> Tensor:
    """Gradient of a canonical einsum w.r.t. operand ``k``: the einsum of ``g`` with the other
    operands onto operand k's labels, then broadcast over labels only operand k has (summed
    away in forward) and placed on the diagonal for labels operand k repeats."""
    term = ins[k]
    shape = ops[k].shape
    sizes = dict(zip(term, shape, strict=True))
    uniq = "".join(dict.fromkeys(term))
    others = [j for j in range(len(ops)) if j != k]
    avail = set(out).union(*[set(ins[j]) for j in others])
    keep = "".join(c for c in uniq if c in avail)
    eq = ",".join([out] + [ins[j] for j in others]) + "->" + keep
    gk = _einsum_apply(eq, g, *[ops[j] for j in others])
    if len(keep) < len(uniq):
        gk = gk.reshape([sizes[c] if c in avail else 1 for c in uniq])
        gk = gk.expand([sizes[c] for c in uniq])
    if len(uniq) < len(term):
        used = set("".join(ins) + out)
        fresh = iter(c for c in _LETTERS if c not in used)
        seen, full, eyes = set(), [], []
        for c in term:
            if c in seen:
                f = next(fresh)
                full.append(f)
                eyes.append(c + f)
            else:
                seen.add(c)
                full.append(c)
        xp = xp_of(g._data)
        eye = [_wrap(xp.eye(sizes[e[0]], dtype=g._data.dtype)) for e in eyes]
        gk = _einsum_apply(",".join([uniq] + eyes) + "->" + "".join(full), gk, *eye)
    return gk


def _einsum_apply(eq: str, *ts: Tensor) -> Tensor:
    lhs, out = eq.split("->")
    if len(ts) == 1 and len(set(lhs)) == len(lhs) and sorted(lhs) == sorted(out):
        if lhs == out:
            return ts[0]
        return ts[0].permute([lhs.index(c) for c in out])
    return Einsum.apply(eq, *ts)


def _einsum_error(msg: str):
    return RuntimeError(f"einsum(): {msg}")


def _parse_terms(equation: str):
    """Split an equation into per-operand token lists (letters and '...') and the output's
    (None when implicit), with torch's errors."""
    eq = equation
    arrow = eq.find("->")
    lhs_end = arrow if arrow >= 0 else len(eq)

    def tokens(start, end, what):
        terms, cur, ell, i = [], [], False, start
        while i < end:
            c = eq[i]
            if c == " ":
                i += 1
                continue
            if c == "," and what == "input":
                terms.append(cur)
                cur, ell = [], False
                i += 1
                continue
            if c == ".":
                if eq[i : i + 3] != "..." or i + 3 > end:
                    raise _einsum_error(
                        f"found '.' for {what} that is not part of any ellipsis"
                        if what == "output"
                        else f"found '.' for operand {len(terms)} that is not part of any ellipsis"
                    )
                if ell:
                    where = "output" if what == "output" else f"operand {len(terms)}"
                    raise _einsum_error(
                        f"found '.' for {where} for which an ellipsis was already found"
                    )
                ell = True
                cur.append("...")
                i += 3
                continue
            if c not in _LETTERS:
                raise _einsum_error(
                    f"invalid subscript given at index {i} in the equation string, subscripts "
                    "must be in [a-zA-Z]"
                )
            cur.append(c)
            i += 1
        terms.append(cur)
        return terms

    ins = tokens(0, lhs_end, "input")
    out = tokens(arrow + 2, len(eq), "output")[0] if arrow >= 0 else None
    return ins, out


def _sublist_equation(args):
    """torch's sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as an equation."""

    def sub(n):
        if n is Ellipsis:
            return "..."
        n = operator.index(n)
        if 0 <= n < 26:
            return chr(ord("A") + n)
        if 26 <= n < 52:
            return chr(ord("a") + n - 26)
        raise ValueError(
            "einsum(): subscript in subscript list is not within the valid range [0, 52)"
        )

    eq = ",".join("".join(sub(s) for s in sl) for sl in args[1::2])
    if len(args) % 2 == 1:
        return eq + "->" + "".join(sub(s) for s in args[-1]), list(args[:-1:2])
    return eq, list(args[::2])


def einsum(*args) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``.

    Supports ``...`` (broadcast batch dims), the implicit output (labels used once, sorted,
    after the ellipsis dims), repeated labels (diagonals, traces), size-1 broadcasting, the
    operands as a list, and torch's sublist form ``einsum(a, [0, 1], b, [1, 2])``.

    Example:
        >>> ember.einsum("bij,bjk->bik", ember.ones(5, 2, 3), ember.ones(5, 3, 4)).shape
        ember.Size([5, 2, 4])
        >>> ember.einsum("ii", ember.eye(3))
        tensor(3.)
    """
    if not args:
        raise TypeError(
            "einsum(): must specify the equation string and at least one operand, "
            "or at least one operand and its subscripts list"
        )
    if isinstance(args[0], Tensor):
        equation, operands = _sublist_equation(args)
    else:
        equation, operands = args[0], list(args[1:])
        if not isinstance(equation, str):
            raise TypeError(f"einsum(): the equation must be a str, got {type(equation).__name__}")
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    for i, t in enumerate(operands):
        _check_tensor("einsum", f"operands[{i}]", i + 2, t)
    if not operands:
        raise _einsum_error("must provide at least one operand")
    eq, operands = _canonical(equation, operands)
    dt = operands[0]._data.dtype
    for t in operands[1:]:
        if t._data.dtype != dt:
            raise RuntimeError(
                f"expected scalar type {_dname(operands[0])} but found {_dname(t)} (einsum "
                "operands must all have the same dtype; convert them first)"
            )
    if dt.kind == "b":
        lhs, out = eq.split("->")
        if len(operands) > 1:
            _no_bool("bmm", operands[0])
        if set(lhs) - set(out):
            # NOTE: matches torch: a bool sum counts, in int64.
            operands = [operands[0].long()]
    return Einsum.apply(eq, *operands)


def _canonical(equation: str, operands: list):
    """Rewrite ``equation`` for ``operands`` in canonical form: '...' replaced by letters of
    their own, an explicit output, and dims that broadcast (size 1 against a larger size of the
    same label) squeezed out of their operand. Returns the equation and the operands to use."""
    ins, out = _parse_terms(equation)
    if len(ins) > len(operands):
        raise _einsum_error("fewer operands were provided than specified in the equation")
    if len(ins) < len(operands):
        raise _einsum_error("more operands were provided than specified in the equation")
    used = set(equation)
    fresh = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for i, (term, t) in enumerate(zip(ins, operands, strict=True)):
        nd = t._data.ndim
        labels = len(term) - ("..." in term)
        if "..." in term:
            if labels > nd:
                raise _einsum_error(
                    f"the number of subscripts in the equation ({labels}) is more than the "
                    f"number of dimensions ({nd}) for operand {i}"
                )
            n_ell = max(n_ell, nd - labels)
        elif labels != nd:
            raise _einsum_error(
                f"the number of subscripts in the equation ({labels}) does not match the number "
                f"of dimensions ({nd}) for operand {i} and no ellipsis was given"
            )
    if n_ell > len(fresh):
        raise _einsum_error(f"too many dimensions ({n_ell}) under the ellipsis")
    ell = fresh[:n_ell]
    has_ell = any("..." in term for term in ins)

    def expand_term(term, nd):
        if "..." not in term:
            return "".join(term)
        e = nd - (len(term) - 1)
        i = term.index("...")
        return "".join(term[:i]) + "".join(ell[n_ell - e :]) + "".join(term[i + 1 :])

    terms = [expand_term(term, t._data.ndim) for term, t in zip(ins, operands, strict=True)]
    if out is None:
        counts = {}
        for term in ins:
            for c in term:
                if c != "...":
                    counts[c] = counts.get(c, 0) + 1
        out_s = ("".join(ell) if has_ell else "") + "".join(
            sorted(c for c, n in counts.items() if n == 1)
        )
    else:
        seen = set()
        for c in out:
            if c == "...":
                continue
            if c in seen:
                raise _einsum_error(f"output subscript {c} appears more than once in the output")
            if not any(c in term for term in ins):
                raise _einsum_error(
                    f"output subscript {c} does not appear in the equation for any input operand"
                )
            seen.add(c)
        out_s = "".join("".join(ell) if c == "..." else c for c in out)
    # label sizes, with torch's broadcasting of size-1 dims
    size = {}
    for i, (term, t) in enumerate(zip(terms, operands, strict=True)):
        own = {}
        for c, s in zip(term, t._data.shape, strict=True):
            if c in own and own[c] != s:
                raise _einsum_error(
                    f"subscript {c} is repeated for operand {i} but the sizes don't match, "
                    f"{s} != {own[c]}"
                )
            own[c] = s
            prev = size.get(c)
            if prev is None or prev == 1:
                size[c] = s
            elif s != prev and s != 1:
                raise _einsum_error(
                    f"subscript {c} has size {s} for operand {i} which does not broadcast with "
                    f"previously seen size {prev}"
                )
    new_ops = []
    for i, (term, t) in enumerate(zip(terms, operands, strict=True)):
        drop = [j for j, c in enumerate(term) if t._data.shape[j] == 1 and size[c] != 1]
        if drop:
            t = t.reshape([s for j, s in enumerate(t._data.shape) if j not in drop])
            terms[i] = "".join(c for j, c in enumerate(term) if j not in drop)
        new_ops.append(t)
    return ",".join(terms) + "->" + out_s, new_ops


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
    "addmm",
    "addmv",
    "baddbmm",
    "addbmm",
    "addr",
    "outer",
    "ger",
    "inner",
    "tensordot",
    "kron",
    "einsum",
    "chain_matmul",
    "cross",
]

Tensor.matmul = matmul
Tensor.__matmul__ = _matmul_op
Tensor.__rmatmul__ = _rmatmul_op
Tensor.mm = mm
Tensor.bmm = bmm
Tensor.mv = mv
Tensor.dot = dot
Tensor.vdot = vdot
Tensor.addmm = addmm
Tensor.addmv = addmv
Tensor.baddbmm = baddbmm
Tensor.addbmm = addbmm
Tensor.addr = addr
Tensor.outer = Tensor.ger = outer
Tensor.inner = inner
Tensor.kron = kron
Tensor.cross = cross
Tensor.addmm_ = inplace(addmm)
Tensor.addmv_ = inplace(addmv)
Tensor.baddbmm_ = inplace(baddbmm)
Tensor.addbmm_ = inplace(addbmm)
Tensor.addr_ = inplace(addr)
