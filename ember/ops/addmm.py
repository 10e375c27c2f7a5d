"""The fused products ``beta * input + alpha * product``: ``addmm``, ``addmv``, ``baddbmm``,
``addbmm``, ``addr`` (and their in-place ``Tensor`` methods).

Primitives ``Addmm`` (with ``Addmv``, ``Baddbmm``), ``Addbmm`` and ``Addr``: one pass, the product
written in place, as BLAS does; backward is the product's gradients written with ember ops.
Like the matrix products, the GEMM forms require one dtype; ``addr`` is an element-wise product
underneath and promotes.
"""

from __future__ import annotations

from ember import _autocast as _ac
from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import cj, promote, xp_of
from ember.ops.linalg import (
    _check_bmm,
    _check_mm_shapes,
    _check_mv,
    _check_tensor,
    _dname,
    _matmul_arrays,
    _matmul_grads,
    _no_bool,
)
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor, _wrap


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
    beta, alpha = cj(ctx.beta), cj(ctx.alpha)  # complex scalars: conjugated
    gi = (g if beta == 1 else g * beta) if need_i else None
    ga = gb = None
    if need_a or need_b:
        ga, gb = product_grads(a, b, g if alpha == 1 else g * alpha, need_a, need_b)
    return gi, ga, gb, None, None


class Addmm(Function):
    """``beta * input + alpha * (a @ b)`` in one pass (the product written in place)."""

    _array_forward = True
    _node_name = "AddmmBackward0"
    # NOTE: matches torch: float16/bfloat16 accumulate in float32 and round once, the product
    # and the beta * input term together
    _low_opmath = True

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
    # d sum_b a_b @ b_b: g @ b_b^T for each a_b, a_b^T @ g for each b_b (complex: ^H)
    a, b = cj(a), cj(b)
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
    a, b = cj(a), cj(b)  # complex: each gradient is linear in the conjugate of the other
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
    if _ac.on and out is None:  # autocast's lower-precision list
        input, mat1, mat2 = _ac.low(input, mat1, mat2)
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
    if _ac.on and out is None:  # autocast's lower-precision list
        input, batch1, batch2 = _ac.low(input, batch1, batch2)
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
    if _ac.on and out is None:  # autocast's lower-precision list
        input, batch1, batch2 = _ac.low(input, batch1, batch2)
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
    d = input._data.dtype
    if d.itemsize == 2 and d.kind in "fV" and s1[0] > 0:
        # NOTE: matches torch: half precision accumulates batch by batch, one rounded addmm
        # each (beta on the first only)
        r = input.expand(s1[1], s2[2])
        for i in range(s1[0]):
            r = Addmm.apply(r, batch1[i], batch2[i], beta if i == 0 else 1, alpha)
        return _out(r, out)
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
    if dt.kind in "iub":
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(
                    f"For integral input tensors, argument {name} must not be a floating point "
                    "number."
                )
    if dt.kind == "b":
        # NOTE: matches torch: logical: (beta and input) or (alpha and vec1 vec2^T)
        xp = xp_of(input._data)
        outer = xp.logical_and.outer(vec1._data, vec2._data) if alpha else None
        r = xp.broadcast_to(input._data, (vec1.shape[0], vec2.shape[0])) if beta else None
        if r is None:
            res = outer if outer is not None else xp.zeros((len(vec1), len(vec2)), bool)
        else:
            res = r.copy() if outer is None else xp.logical_or(r, outer)
        return _out(_wrap(res), out)
    input, vec1, vec2 = (
        t if t._data.dtype == dt else t.to(_dtype.from_np(dt)) for t in (input, vec1, vec2)
    )
    return _out(Addr.apply(input, vec1, vec2, beta, alpha), out)


__all__ = [
    "addmm",
    "addmv",
    "baddbmm",
    "addbmm",
    "addr",
]

Tensor.addmm = addmm
Tensor.addmv = addmv
Tensor.baddbmm = baddbmm
Tensor.addbmm = addbmm
Tensor.addr = addr
Tensor.addmm_ = inplace(addmm)
Tensor.addmv_ = inplace(addmv)
Tensor.baddbmm_ = inplace(baddbmm)
Tensor.addbmm_ = inplace(addbmm)
Tensor.addr_ = inplace(addr)
