"""Primitives behind ``ember.nn.functional``'s padding and resampling (not public ops of their
own: ``F.pad`` and ``F.interpolate`` validate their arguments and call these).

Padding is one linear map per mode, ``Pad``, and its adjoint, ``PadFold`` (the gradient of a
pad: the centre of the output gradient with each border's gradient summed back into the input
elements it was copied from). Each is the other's backward, so gradients of any order are
these two array passes. ``pads`` is ``((left, right), ...)`` for the last ``len(pads)`` dims in
dim order; negative entries crop.

Both work on raw arrays by slicing only: the output is allocated once, the input copied into
its centre, and each border filled from the part of the output already written (reflect and
circular borders are slices of it, replicate borders a broadcast of its edge).
"""

from __future__ import annotations

from ember.autograd.function import Function
from ember.ops._dispatch import xp_of

_ALL = slice(None)


def _crops_and_pads(pads):
    """Split ``pads`` into the crops (the negative parts, as positive numbers) and the
    padding proper (the positive parts)."""
    crops = tuple((max(-lo, 0), max(-hi, 0)) for lo, hi in pads)
    grow = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pads)
    return crops, grow


def _crop(x, crops):
    """The view of ``x`` without ``crops`` along its last ``len(crops)`` dims."""
    if not any(lo or hi for lo, hi in crops):
        return x
    lead = x.ndim - len(crops)
    return x[(_ALL,) * lead + tuple(slice(lo, x.shape[lead + i] - hi)
                                    for i, (lo, hi) in enumerate(crops))]


def _pad_grow(x, grow, mode, value):
    """``x`` padded by the non-negative ``grow``: one allocation, then slice copies."""
    xp = xp_of(x)
    lead = x.ndim - len(grow)
    shape = x.shape[:lead] + tuple(n + lo + hi for n, (lo, hi) in zip(x.shape[lead:], grow))
    out = xp.empty(shape, dtype=x.dtype)
    centre = [slice(lo, lo + n) for n, (lo, hi) in zip(x.shape[lead:], grow)]
    out[(_ALL,) * lead + tuple(centre)] = x
    if mode == "constant":
        for i, (lo, hi) in enumerate(grow):
            head = (_ALL,) * (lead + i)
            if lo:
                out[head + (slice(0, lo),)] = value
            if hi:
                out[head + (slice(shape[lead + i] - hi, None),)] = value
        return out
    # Border of dim i: full extent along the dims already filled (so corners come out right),
    # centre only along the dims still to do (their borders are not written yet).
    for i, (lo, hi) in enumerate(grow):
        if not (lo or hi):
            continue
        n = x.shape[lead + i]
        head = (_ALL,) * (lead + i)
        tail = tuple(centre[i + 1:])

        def at(s, head=head, tail=tail):
            return head + (s,) + tail

        if mode == "reflect":
            # out index lo - k (k = 1..lo) mirrors input k, i.e. out index lo + k
            if lo:
                out[at(slice(0, lo))] = out[at(slice(2 * lo, lo, -1))]
            if hi:
                last = lo + n - 1  # out index last + k mirrors last - k
                stop = last - hi - 1
                out[at(slice(last + 1, last + 1 + hi))] = out[
                    at(slice(last - 1, stop if stop >= 0 else None, -1))]
        elif mode == "replicate":
            if lo:
                out[at(slice(0, lo))] = out[at(slice(lo, lo + 1))]
            if hi:
                out[at(slice(lo + n, lo + n + hi))] = out[at(slice(lo + n - 1, lo + n))]
        else:  # circular: out index lo - k is input n - k, out index lo + n + k is input k
            if lo:
                out[at(slice(0, lo))] = out[at(slice(n, n + lo))]
            if hi:
                out[at(slice(lo + n, lo + n + hi))] = out[at(slice(lo, lo + hi))]
    return out


def _fold_grow(g, grow, mode):
    """The adjoint of ``_pad_grow``: the centre of ``g`` with each border added back onto the
    input elements it was copied from (sums of reversed or shifted slices: no scatter)."""
    lead = g.ndim - len(grow)
    own = False  # whether ``g`` is our own array yet (the incoming gradient must not change)
    for i in range(len(grow) - 1, -1, -1):  # the reverse of the order the borders were filled
        lo, hi = grow[i]
        if not (lo or hi):
            continue
        d = lead + i
        n = g.shape[d] - lo - hi
        head = (_ALL,) * d

        def at(s, head=head):
            return head + (s,)

        c = g[at(slice(lo, lo + n))]
        if mode == "constant":
            g = c
            continue
        if not own:
            c = c.copy()
        if mode == "reflect":
            if lo:
                c[at(slice(1, 1 + lo))] += g[at(slice(lo - 1, None, -1))]
            if hi:
                c[at(slice(n - 1 - hi, n - 1))] += g[at(slice(lo + n + hi - 1, lo + n - 1, -1))]
        elif mode == "replicate":
            if lo:
                c[at(slice(0, 1))] += g[at(slice(0, lo))].sum(axis=d, keepdims=True)
            if hi:
                c[at(slice(n - 1, n))] += g[at(slice(lo + n, None))].sum(axis=d, keepdims=True)
        else:  # circular
            if lo:
                c[at(slice(n - lo, n))] += g[at(slice(0, lo))]
            if hi:
                c[at(slice(0, hi))] += g[at(slice(lo + n, None))]
        g = c
        own = True
    if not own:
        g = g.copy()
    return g


def pad_array(x, pads, mode, value=0):
    """``x`` padded (and cropped by negative entries) as ``F.pad`` with validated arguments."""
    crops, grow = _crops_and_pads(pads)
    if mode in ("reflect", "replicate"):
        # NOTE: matches torch: these index the uncropped input (a border mirrors or repeats
        # the input's own edge), so the crop comes after the padding
        return _crop(_pad_grow(x, grow, mode, value), crops)
    return _pad_grow(_crop(x, crops), grow, mode, value)


def pad_adjoint_array(g, pads, mode):
    """The gradient of ``pad_array`` with respect to its input, given the output's ``g``."""
    crops, grow = _crops_and_pads(pads)
    uncrop = tuple((lo, hi) for lo, hi in crops)
    if mode in ("reflect", "replicate"):
        if any(lo or hi for lo, hi in crops):
            g = _pad_grow(g, uncrop, "constant", 0)
        return _fold_grow(g, grow, mode)
    g = _fold_grow(g, grow, mode)
    if any(lo or hi for lo, hi in crops):
        g = _pad_grow(g, uncrop, "constant", 0)
    return g


class Pad(Function):
    """``pad_array`` as a differentiable op; ``pads``, ``mode`` and ``value`` are checked by
    ``F.pad``."""

    _array_forward = True
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, pads, mode, value):
        ctx.pads, ctx.mode = pads, mode
        return pad_array(x, pads, mode, value)

    @staticmethod
    def backward(ctx, g):
        # pad is linear: its gradient is its adjoint applied to g
        return pad_node(ctx.mode, len(ctx.pads), fold=True).apply(g, ctx.pads, ctx.mode), \
            None, None, None


class PadFold(Function):
    """The adjoint of ``Pad`` (its backward); its own backward is ``Pad`` again."""

    _array_forward = True
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, g, pads, mode):
        ctx.pads, ctx.mode = pads, mode
        return pad_adjoint_array(g, pads, mode)

    @staticmethod
    def backward(ctx, gg):
        return pad_node(ctx.mode, len(ctx.pads)).apply(gg, ctx.pads, ctx.mode, 0), None, None


_NODE_NAMES = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0",
               "circular": "CopySlices", "constant": "ConstantPadNdBackward0"}
_NODES: dict = {}


def pad_node(mode: str, k: int, fold: bool = False) -> type:
    """``Pad`` (or ``PadFold``) under PyTorch's node name for ``mode`` over ``k`` dims."""
    key = (mode, k, fold)
    cls = _NODES.get(key)
    if cls is None:
        name = _NODE_NAMES[mode].format(k)
        if fold:  # torch's node for differentiating the pad's backward
            name = ("ConstantPadNdBackward0" if mode in ("constant", "circular")
                    else name.replace("Backward0", "BackwardBackward0"))
        base = PadFold if fold else Pad
        cls = _NODES[key] = type(base.__name__ + name.split("Backward")[0], (base,),
                                 {"_node_name": name})
    return cls
