"""Embedding lookups (nn-only; not an op family of ``ember``): the primitives behind
``F.embedding`` and ``F.embedding_bag``.

``EmbeddingLookup`` gathers rows (one ``take``); its backward scatters the output gradient
back into a dense weight gradient with ``index_add`` (a Tensor op, so double backward works),
leaving out ``padding_idx`` and dividing by each index's count under ``scale_grad_by_freq``.
``EmbeddingBagMax`` is the elementwise max over each bag's rows; its backward routes each
output element's gradient to the row that won. The sum and mean bags are composed from
``EmbeddingLookup`` and ``index_add`` in ``ember.nn.functional.sparse``.
"""

from __future__ import annotations

from ember.autograd.function import Function
from ember.ops._dispatch import xp_of
from ember.ops.creation import zeros
from ember.tensor import _wrap


def _row_coef(idx, padding_idx, scale_grad_by_freq, dt):
    """Per looked-up row, the factor its gradient gets (None when all are 1): 0 at
    ``padding_idx``, 1 / (occurrences of the index) under ``scale_grad_by_freq``."""
    if padding_idx is None and not scale_grad_by_freq:
        return None
    xp = xp_of(idx)
    coef = xp.ones(idx.shape, dt)
    if scale_grad_by_freq and idx.size:
        counts = xp.bincount(idx)
        coef /= counts[idx]
    if padding_idx is not None:
        coef[idx == padding_idx] = 0
    return coef[:, None]


class EmbeddingLookup(Function):
    """``weight[indices]``: ``weight`` (num, dim), ``indices`` any shape of int64 in range."""

    _array_forward = True
    _node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq):
        ctx.num = weight.shape[0]
        ctx.padding_idx = padding_idx
        ctx.freq = scale_grad_by_freq
        ctx.save_for_backward(indices)
        return xp_of(weight).take(weight, indices, axis=0)

    @staticmethod
    def backward(ctx, g):
        (indices,) = ctx.saved_tensors
        d = g.shape[-1]
        flat = indices.reshape(-1)
        g2 = g.reshape(-1, d)
        coef = _row_coef(flat._data, ctx.padding_idx, ctx.freq, g._data.dtype)
        if coef is not None:
            g2 = g2 * _wrap(coef)
        gw = zeros(ctx.num, d, dtype=g.dtype, device=g.device).index_add(0, flat, g2)
        return gw, None, None, None


class EmbeddingBagMax(Function):
    """Per bag, the elementwise max of ``weight[indices]`` over its entries: ``indices`` and
    ``bags`` (the bag of each entry) are 1-D int64 of equal length, ``num_bags`` an int. An
    empty bag gives zeros."""

    _array_forward = True
    _node_name = "EmbeddingBagBackward0"

    @staticmethod
    def forward(ctx, weight, indices, bags, num_bags):
        xp = xp_of(weight)
        num, d = weight.shape
        rows = xp.take(weight, indices, axis=0)
        out = xp.full((num_bags, d), -xp.inf, weight.dtype)
        xp.maximum.at(out, bags, rows)
        # the first entry reaching each bag's max (NOTE: matches torch: the first wins a tie)
        m = indices.size
        pos = xp.where(rows == out[bags], xp.arange(m)[:, None], m)
        first = xp.full((num_bags, d), m, xp.intp)
        xp.minimum.at(first, bags, pos)
        empty = first == m
        out[empty] = 0
        # flat position (row * d + column) in the weight of each output element's winner
        win = xp.where(empty, -1, xp.take(xp.append(indices, 0), first) * d + xp.arange(d))
        ctx.win = win
        ctx.num = num
        return out

    @staticmethod
    def backward(ctx, g):
        xp = xp_of(g._data)
        win = ctx.win
        keep = win.reshape(-1) >= 0
        pos = _wrap(xp.ascontiguousarray(win.reshape(-1)[keep]).astype(xp.int64))
        sel = _wrap(xp.flatnonzero(keep).astype(xp.int64))
        gw = zeros(ctx.num * win.shape[1], dtype=g.dtype, device=g.device).index_add(
            0, pos, g.reshape(-1).index_select(0, sel)
        )
        return gw.reshape(ctx.num, win.shape[1]), None, None, None
