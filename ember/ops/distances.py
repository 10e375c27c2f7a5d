"""Distances and norms between rows: ``dist``, ``cdist``, ``pdist`` and ``renorm``.

``cdist`` is a primitive. Euclidean distances between many rows take PyTorch's matrix-product
form (``|a|^2 + |b|^2 - 2 a.b``, one GEMM); other cases take the differences directly, in
row blocks of a few million elements so memory stays bounded. Its backward is written in
Tensor ops (the Euclidean case as two matrix products), so it differentiates again.
``pdist`` is the upper triangle of the direct ``cdist`` of the rows with themselves;
``dist`` and ``renorm`` are compositions of ``norm``.
"""

from __future__ import annotations

import math

from ember import _autocast as _ac
from ember.autograd.function import Function
from ember.backend import _distance as _rows
from ember.ops._dispatch import xp_of
from ember.ops.creation import triu_indices
from ember.ops.linalg import matmul
from ember.ops.pointwise import _name, _out, inplace
from ember.ops.ternary import where
from ember.tensor import Tensor, _wrap_dim

_MODES = {
    "use_mm_for_euclid_dist_if_necessary": 0,
    "use_mm_for_euclid_dist": 1,
    "donot_use_mm_for_euclid_dist": 2,
}
_BLOCK = 1 << 22  # elements of the (rows, R, M) difference block in the direct path


def _direct(xp, a, b, p: float):
    """Distances between the rows of ``a`` (..., P, M) and ``b`` (..., R, M), from their
    differences, computed over blocks of ``a``'s rows."""
    batch = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    P, R, M = a.shape[-2], b.shape[-2], a.shape[-1]
    out = xp.empty(batch + (P, R), dtype=a.dtype)
    if xp.device_type == "meta":
        return out
    if a.ndim == 2 and b.ndim == 2 and M and _rows.has_rows_metric(p):
        return _rows.rows_cdist(a, b, p)  # SciPy's compiled loop: no (P, R, M) blocks
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    per_row = max(1, math.prod(batch) * R * M)
    step = max(1, _BLOCK // per_row)
    bb = b[..., None, :, :]
    for i in range(0, P, step):  # blocks of rows, not elements: bounded memory
        d = xp.abs(a[..., i : i + step, None, :] - bb)
        if p == 0:
            r = xp.count_nonzero(d, axis=-1).astype(a.dtype)
        elif p == 1:
            r = d.sum(-1)
        elif p == 2:
            r = xp.sqrt(xp.einsum("...k,...k->...", d, d))
        elif p == math.inf:
            r = d.max(-1) if M else xp.zeros(d.shape[:-1], a.dtype)
        else:
            r = (d**p).sum(-1) ** (1.0 / p)
        out[..., i : i + step, :] = r
    return out


def _euclid_mm(xp, a, b):
    """PyTorch's matrix-product form of Euclidean distances, clamped at 0 before the root."""
    ra = xp.einsum("...k,...k->...", a, a)[..., :, None]
    rb = xp.einsum("...k,...k->...", b, b)[..., None, :]
    sq = xp.matmul(a, xp.swapaxes(b, -1, -2))
    sq *= -2.0
    sq += ra
    sq += rb
    xp.maximum(sq, 0, out=sq)
    return xp.sqrt(sq, out=sq)


class Cdist(Function):
    _array_forward = True
    _node_name = "CdistBackward0"

    @staticmethod
    def forward(ctx, a, b, p, mm):
        xp = xp_of(a)
        if mm and xp.device_type != "meta":
            out = _euclid_mm(xp, a, b)
        else:
            out = _direct(xp, a, b, p)
        ctx.p = p
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, b, d = ctx.saved_tensors
        p = ctx.p
        need_a, need_b = ctx.needs_input_grad[:2]
        if p == 0:
            return (a * 0 if need_a else None), (b * 0 if need_b else None), None, None
        if p == 2:
            # d |a_i - b_j| / d a_i = (a_i - b_j) / d_ij: weights w = g / d, then products
            zero = d == 0
            w = where(zero, 0.0, g / where(zero, 1.0, d))
            ga = w.sum(-1, keepdim=True) * a - matmul(w, b) if need_a else None
            gb = w.sum(-2).unsqueeze(-1) * b - matmul(w.mT, a) if need_b else None
            return ga, gb, None, None
        diff = a.unsqueeze(-2) - b.unsqueeze(-3)  # (..., P, R, M)
        ad = diff.abs()
        sg = diff.sign()
        gg = g.unsqueeze(-1)
        if p == 1:
            t = sg * gg
        elif p == math.inf:
            # NOTE: matches torch: every coordinate that attains the maximum gets the gradient
            t = sg * (ad == d.unsqueeze(-1)) * gg
        else:
            dd = d.unsqueeze(-1)
            bad = (ad == 0) | (dd == 0)
            ratio = where(bad, 1.0, ad) / where(bad, 1.0, dd)
            t = where(bad, 0.0, sg * ratio ** (p - 1) * gg)
        ga = t.sum(-2) if need_a else None
        gb = -t.sum(-3) if need_b else None
        return ga, gb, None, None


def _float_rows(t: Tensor, which: str, op: str) -> None:
    if not t.is_floating_point():
        raise RuntimeError(
            f"{op} only supports floating-point dtypes, {which} got: {_name(t._data.dtype)}"
        )


def cdist(
    x1: Tensor,
    x2: Tensor,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
) -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M): a (..., P, R) tensor (batch dims broadcast). With ``p=2`` and more than 25
    rows on either side (or ``compute_mode="use_mm_for_euclid_dist"``) it is computed as one
    matrix product.

    Example:
        >>> ember.cdist(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0], [1.0, 0.0]]))
        tensor([[5., 1.]])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(cdist, x1, x2, p, compute_mode)
    _float_rows(x1, "X1", "cdist")
    _float_rows(x2, "X2", "cdist")
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    if x1.dtype != x2.dtype:
        raise RuntimeError(
            f"expected scalar type {_name(x1._data.dtype)} but found {_name(x2._data.dtype)}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    mode = _MODES.get(compute_mode)
    if mode is None:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    p = float(p)
    mm = p == 2 and (mode == 1 or (mode == 0 and (x1.shape[-2] > 25 or x2.shape[-2] > 25)))
    return Cdist.apply(x1, x2, p, mm)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm distance between each pair of rows ``i < j`` of an (N, M) input, row
    by row of the upper triangle (``N * (N - 1) / 2`` values).

    Example:
        >>> ember.pdist(ember.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
        tensor([5.0000, 1.0000, 4.2426])
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    d = Cdist.apply(input, input, float(p), False)
    i, j = triu_indices(n, n, 1, device=input.device)
    return d[i, j]


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast), as one number.

    Example:
        >>> ember.dist(ember.tensor([1.0, 2.0]), ember.tensor([4.0, 6.0]))
        tensor(5.)
    """
    for t in (input, other):
        if not t.is_floating_point() and t._data.dtype.kind != "c":
            raise RuntimeError(
                "norm(): input dtype should be either floating point or complex. Got "
                f"{_name(t._data.dtype)} instead."
            )
    return (input - other).norm(p)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float, *, out=None) -> Tensor:
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to norm
    ``maxnorm`` (to within a 1e-7 guard); the other slices unchanged.

    Example:
        >>> ember.renorm(ember.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    nd = input.dim()
    if nd <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    d = _wrap_dim(dim, nd)
    from ember import linalg

    norm = linalg.vector_norm(input, p, [k for k in range(nd) if k != d], keepdim=True)
    # NOTE: matches torch: the scale is maxnorm / (norm + 1e-7), applied where norm > maxnorm
    factor = where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return _out(input * factor, out)


def _renorm_m(self, p, dim, maxnorm):
    return renorm(self, p, dim, maxnorm)


_renorm_m.__name__ = "renorm"

__all__ = ["dist", "cdist", "pdist", "renorm"]

Tensor.dist = dist
Tensor.renorm = _renorm_m
Tensor.renorm_ = inplace(_renorm_m)
