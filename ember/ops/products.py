"""Products composed from ``mm`` and the element-wise/shape ops: ``outer`` (``ger``), ``inner``,
``tensordot``, ``kron``, ``multi_dot`` (public as ``ember.linalg.multi_dot``) and the deprecated
``chain_matmul``.

No ``Function`` of their own: their gradients come from the ops they are built of. ``outer`` and
``kron`` are element-wise products underneath and promote.
"""

from __future__ import annotations

import math
import operator
import warnings

from ember import _autocast as _ac
from ember.ops.linalg import _CNAME, Mm, _check_tensor, _dname, _no_bool
from ember.ops.pointwise import _out
from ember.tensor import Tensor, _wrap_dim


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
    if _ac.on and len(sa) == 1 == len(sb) and _ac.enabled():  # torch's 1-D inner: dot
        return _ac.call_plain(inner, input, other, out=out)
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
    if _ac.on and out is None:  # autocast's lower-precision list (torch's mm)
        a, b = _ac.low(a, b)
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
    if _ac.on and out is None:  # autocast's lower-precision list (torch's mm)
        ts = list(_ac.low(*ts))
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


__all__ = [
    "outer",
    "ger",
    "inner",
    "tensordot",
    "kron",
    "chain_matmul",
]

Tensor.outer = Tensor.ger = outer
Tensor.inner = inner
Tensor.kron = kron
