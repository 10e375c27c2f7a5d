"""The pooling ops behind ``ember.nn.functional``'s pooling functions: max pooling (regular and
adaptive) and average pooling (regular and adaptive), over the last 1, 2 or 3 dims.

Every pooling window is a product of 1-D windows, one per spatial axis, and both reductions
split along axes, so each pool is computed one axis at a time:

- Max pooling is a chain of 1-D max *stages*, innermost axis first. A window's row-major first
  maximum is the first maximum along the outer axis of the first maxima along the inner ones,
  so the chain picks the element PyTorch picks. A stage takes the ``k`` slots of every window
  as ``k`` strided views (for ``k = stride = 2``: ``x[..., 0::2]`` and ``x[..., 1::2]``), keeps
  their running maximum and, per window, which slot won. ``MaxPool`` runs the stages; its
  backward ``_MaxPoolScatter`` writes the gradient back slot by slot through the stages in
  reverse (no scatter-add), and the backward of that is the gather ``_MaxPoolGather``, whose
  backward is the scatter again: every order of derivative works.
- Average pooling is linear and separable: one ``(out, in)`` matrix per axis, applied with one
  GEMM each. It is composed from Tensor ops, so its gradients of every order are ``matmul``'s.

The arguments are validated by ``ember.nn.functional.pooling``; these functions take clean
per-axis tuples.
"""

from __future__ import annotations

import math

from ember import backend
from ember.autograd.function import NOGRAD_CTX, Function
from ember.ops._dispatch import xp_of
from ember.tensor import Tensor

_CPU = backend.for_device("cpu")


def out_size(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """Output length of a pooling window sliding over ``size`` elements."""
    o = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    # NOTE: matches torch: in ceil mode the last window must start inside the input or the
    # left padding, else it is dropped
    if ceil and (o - 1) * s >= size + p:
        o -= 1
    return o


def adaptive_bounds(size: int, o: int) -> list:
    """``(start, end)`` of each of the ``o`` adaptive windows over ``size`` elements:
    ``[floor(i * size / o), ceil((i + 1) * size / o))``."""
    return [((i * size) // o, -((-(i + 1) * size) // o)) for i in range(o)]


# ---- max pooling: 1-D stages ------------------------------------------------------------------
class _Stage:
    """Where the windows of one spatial axis lie.

    Regular windows start at ``i * s - p`` with slots ``j * d`` apart; the input is padded by
    ``p`` before and ``hi`` after (the right padding plus what ceil mode reads past it).
    Adaptive windows (``pos`` set) list the padded-input position of slot ``j`` of every window
    in ``pos[j]``; a slot past a window's end points at one fill element after the input.
    """

    __slots__ = ("axis", "size", "o", "k", "s", "p", "d", "hi", "pos", "starts", "dup")

    def __init__(self, axis, size, o, k, s=1, p=0, d=1, hi=0, pos=None, starts=None, dup=False):
        self.axis, self.size, self.o, self.k, self.s, self.p, self.d = axis, size, o, k, s, p, d
        self.hi, self.pos, self.starts, self.dup = hi, pos, starts, dup

    def padded(self, xp, x, fill):
        if not self.p and not self.hi:
            return x
        shape = list(x.shape)
        shape[self.axis] = self.p + self.size + self.hi
        out = xp.full(shape, fill, dtype=x.dtype)
        out[self._key(slice(self.p, self.p + self.size))] = x
        return out

    def crop(self, a):
        if not self.p and not self.hi:
            return a
        return a[self._key(slice(self.p, self.p + self.size))]

    def slot(self, xp, a, j):
        """Slot ``j`` of every window of the padded array ``a`` (a view when regular)."""
        if self.pos is None:
            start = j * self.d
            return a[self._key(slice(start, start + (self.o - 1) * self.s + 1, self.s))]
        return xp.take(a, self.pos[j], axis=self.axis)

    def _key(self, index):
        return (slice(None),) * self.axis + (index,)

    def positions(self, xp, sel):
        """Input positions (int64, unpadded) of the selected slots ``sel``."""
        shape = (self.o,) + (1,) * (sel.ndim - self.axis - 1)
        sel = sel.astype(xp.int64)
        if self.pos is None:
            starts = xp.arange(self.o, dtype=xp.int64) * self.s - self.p
            return starts.reshape(shape) + sel * self.d
        return self.starts.reshape(shape) + sel


def regular_stage(axis, size, k, s, p, d, o):
    hi = max(0, (o - 1) * s + (k - 1) * d + 1 - p - size)
    return _Stage(axis, size, o, k, s, p, d, hi)


def adaptive_stage(axis, size, o):
    if size % o == 0:  # evenly split: a regular stage with kernel = stride
        return _Stage(axis, size, o, size // o, size // o)
    bounds = adaptive_bounds(size, o)
    k = max(e - b for b, e in bounds)
    pos = [
        _CPU.asarray([b + j if b + j < e else size for b, e in bounds], dtype=_CPU.intp)
        for j in range(k)
    ]
    starts = _CPU.asarray([b for b, _ in bounds], dtype=_CPU.int64)
    # windows of consecutive outputs start at the same position only when upsampling
    return _Stage(axis, size, o, k, hi=1, pos=pos, starts=starts, dup=size < o)


def _fill(xp, dtype):
    """The padding value: never a window's maximum (ties resolve to real elements)."""
    if dtype.kind in "fV":
        return -math.inf
    return xp.iinfo(dtype).min


def _is(idx, j):
    """Mask of the windows whose winner is slot ``j`` (``idx`` is bool when ``k == 2``)."""
    if idx.dtype.kind == "b":
        return idx if j else ~idx
    return idx == j


def _max_stage(xp, x, st, fill, want_idx):
    """Maximum over the windows of one axis, and (``want_idx``) the winning slot of each."""
    a = st.padded(xp, x, fill)
    k = st.k
    slots = [st.slot(xp, a, j) for j in range(k)]
    if k == 1:
        return slots[0].copy(), (xp.zeros(slots[0].shape, dtype=bool) if want_idx else None)
    m = xp.maximum(slots[0], slots[1])
    for v in slots[2:]:
        xp.maximum(m, v, out=m)
    if not want_idx:
        return m, None
    if k == 2:
        idx = slots[1] > slots[0]  # a tie goes to the first slot
    else:
        idx = xp.full(m.shape, k - 1, dtype=xp.int8 if k < 128 else xp.int32)
        for j in range(k - 2, -1, -1):  # descending: the first slot equal to the max wins
            xp.copyto(idx, j, where=(slots[j] == m))
    if m.dtype.kind in "fV" and m.size and xp.isnan(m.min()):
        # NOTE: matches torch: a NaN is the maximum, and the last NaN of a window wins
        for j in range(k):
            xp.copyto(idx, j if k > 2 else bool(j), where=xp.isnan(slots[j]))
    if st.p and st.pos is None:
        # A window starting in the left padding picked a padding slot only if everything in it
        # is the fill value (-inf): PyTorch then reports the window's first element.
        for i in range(min(st.o, -(-st.p // st.s))):
            start = i * st.s - st.p
            if start < 0:
                first = min(-(start // st.d), k - 1)
                sub = idx[st._key(i)]
                if k == 2:
                    sub |= True
                else:
                    xp.maximum(sub, first, out=sub)
    return m, idx


def _scatter_stage(xp, g, st, idx, finite):
    """Gradient of one stage: ``g`` written at each window's winning slot, zeros elsewhere."""
    shape = list(g.shape)
    shape[st.axis] = st.p + st.size + st.hi
    regular = st.pos is None
    disjoint = regular and st.s >= (st.k - 1) * st.d + 1
    # tiled windows (stride = kernel, no dilation) cover every padded position: no zero fill
    covered = disjoint and finite and st.d == 1 and st.s == st.k and shape[st.axis] == st.o * st.s
    gi = (xp.empty if covered else xp.zeros)(shape, dtype=g.dtype)
    for j in range(st.k):
        mask = _is(idx, j)
        if regular:
            view = st.slot(xp, gi, j)
            if disjoint:
                # a product is faster than a masked copy, but spreads a non-finite gradient
                # (inf * 0 is nan) to the losers: those take the masked copy
                if finite:
                    xp.multiply(g, mask, out=view)
                else:
                    xp.copyto(view, g, where=mask)
            else:
                view += g * mask if finite else xp.where(mask, g, 0)
        else:
            c = xp.where(mask, g, 0)
            key = st._key(st.pos[j])
            if st.dup:
                xp.add_at(gi, key, c)
            else:  # positions distinct but for the fill slot, which is cropped
                gi[key] += c
    return st.crop(gi)


def _gather_stage(xp, a, st, idx):
    """The element at each window's winning slot (the adjoint of ``_scatter_stage``)."""
    a = st.padded(xp, a, 0)
    out = st.slot(xp, a, 0).copy()
    for j in range(1, st.k):
        xp.copyto(out, st.slot(xp, a, j), where=_is(idx, j))
    return out


def _flat_indices(xp, stages, idxs, in_shape):
    """PyTorch's indices: the flat position of each window's maximum within its plane."""
    nb = min(st.axis for st in stages)  # batch dims before the first spatial axis
    flat = None
    outer_in = 1
    for st, idx in zip(reversed(stages), reversed(idxs)):  # outermost axis first
        if flat is not None:
            # idx: batch + (outer input sizes) + (this and inner output sizes); pick the rows
            # the outer axes chose
            inner = idx.shape[st.axis :]
            sel = xp.take_along_axis(
                idx.reshape(idx.shape[:nb] + (outer_in,) + inner),
                flat.reshape(flat.shape[:nb] + (-1,) + inner),
                axis=nb,
            )
            sel = sel.reshape(flat.shape)
        else:
            sel = idx
        pos = st.positions(xp, sel)
        flat = pos if flat is None else flat * st.size + pos
        outer_in *= st.size
    return flat


def _stage_out_shape(shape, stages):
    shape = list(shape)
    for st in stages:
        shape[st.axis] = st.o
    return tuple(shape)


class MaxPool(Function):
    """Max pooling along the axes of ``stages`` (innermost first); with ``want_idx`` also
    returns PyTorch's flat per-plane indices."""

    _array_forward = True
    _node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, stages, want_idx):
        xp = xp_of(x)
        record = ctx is not NOGRAD_CTX
        if xp.device_type == "meta":
            y = xp.empty(_stage_out_shape(x.shape, stages), dtype=x.dtype)
            idxs = None
            flat = xp.empty(y.shape, dtype=xp.int64) if want_idx else None
        else:
            fill = _fill(xp, x.dtype)
            idxs = []
            y = x
            for st in stages:
                y, idx = _max_stage(xp, y, st, fill, record or want_idx)
                idxs.append(idx)
            flat = _flat_indices(xp, stages, idxs, x.shape) if want_idx else None
        if record:
            ctx.stages, ctx.idxs, ctx.in_shape = stages, idxs, x.shape
        return (y, flat) if want_idx else y

    @staticmethod
    def backward(ctx, g, *_):
        return _MaxPoolScatter.apply(g, ctx.stages, ctx.idxs, ctx.in_shape), None, None


class _MaxPoolScatter(Function):
    """The gradient of ``MaxPool``: ``g`` sent to each window's maximum."""

    _array_forward = True
    _node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, g, stages, idxs, in_shape):
        ctx.stages, ctx.idxs = stages, idxs
        xp = xp_of(g)
        if idxs is None:  # meta
            return xp.zeros(in_shape, dtype=g.dtype)
        finite = g.dtype.kind not in "fV" or bool(xp.isfinite(g.sum()))
        for st, idx in zip(reversed(stages), reversed(idxs)):
            g = _scatter_stage(xp, g, st, idx, finite)
        return g if g.flags.c_contiguous else xp.ascontiguousarray(g)

    @staticmethod
    def backward(ctx, gg):
        return _MaxPoolGather.apply(gg, ctx.stages, ctx.idxs), None, None, None


class _MaxPoolGather(Function):
    """Each window's maximum position read from an input-shaped ``a``."""

    _array_forward = True
    _node_name = "MaxPoolGatherBackward0"

    @staticmethod
    def forward(ctx, a, stages, idxs):
        ctx.stages, ctx.idxs, ctx.in_shape = stages, idxs, a.shape
        xp = xp_of(a)
        if idxs is None:  # meta
            return xp.empty(_stage_out_shape(a.shape, stages), dtype=a.dtype)
        for st, idx in zip(stages, idxs):
            a = _gather_stage(xp, a, st, idx)
        return a

    @staticmethod
    def backward(ctx, g):
        return _MaxPoolScatter.apply(g, ctx.stages, ctx.idxs, ctx.in_shape), None, None


def _named(name: str) -> type:
    return type(name.replace("Backward0", ""), (MaxPool,), {"_node_name": name})


_MAX_NODES = {
    (False, 2): MaxPool,
    (False, 3): _named("MaxPool3DWithIndicesBackward0"),
    (True, 2): _named("AdaptiveMaxPool2DBackward0"),
    (True, 3): _named("AdaptiveMaxPool3DBackward0"),
}


def max_pool(input: Tensor, kernel, stride, padding, dilation, output, want_idx: bool):
    """Max pooling over the last ``len(kernel)`` dims (2 or 3); leading dims are batch dims and
    ``output`` holds the checked output sizes."""
    n = len(kernel)
    nd = input.dim()
    stages = tuple(
        regular_stage(
            nd - n + i,
            input.shape[nd - n + i],
            kernel[i],
            stride[i],
            padding[i],
            dilation[i],
            output[i],
        )
        for i in reversed(range(n))
    )
    return _MAX_NODES[False, n].apply(input, stages, want_idx)


def adaptive_max_pool(input: Tensor, output, want_idx: bool):
    """Adaptive max pooling over the last ``len(output)`` dims (2 or 3); leading dims are batch
    dims."""
    n = len(output)
    nd = input.dim()
    if 0 in output:
        y = _empty_like_pooled(input, n, output)
        return (y, y.detach().long()) if want_idx else y
    stages = tuple(
        adaptive_stage(nd - n + i, input.shape[nd - n + i], output[i]) for i in reversed(range(n))
    )
    return _MAX_NODES[True, n].apply(input, stages, want_idx)


def _empty_like_pooled(input: Tensor, n: int, output) -> Tensor:
    """The empty result of pooling to a size with a 0, still connected to ``input``'s graph."""
    return input.reshape(-1)[:0].reshape(tuple(input.shape[: input.dim() - n]) + tuple(output))


# ---- average pooling: window sums along one axis at a time -----------------------------------
class _WindowSum(Function):
    """Window sums over each stage (zero padding), innermost axis first, divided by ``div``
    (a number or an array of the output's trailing shape): average pooling, a linear map. Its
    adjoint ``_WindowSumT`` spreads each (divided) value back over its window; each is the
    other's backward."""

    _array_forward = True
    _node_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, stages, div):
        ctx.stages, ctx.in_shape, ctx.div = stages, x.shape, div
        xp = xp_of(x)
        if xp.device_type == "meta":
            return xp.empty(_stage_out_shape(x.shape, stages), dtype=x.dtype)
        dtype = x.dtype
        if dtype.char in "eE":  # NOTE: matches torch: half sums accumulate in float32
            x = x.astype(xp.float32)
        for st in stages:
            a = st.padded(xp, x, 0)
            x = st.slot(xp, a, 0).copy()
            for j in range(1, st.k):
                x += st.slot(xp, a, j)
        if x.dtype.kind in "fV":
            x /= div
            return x.astype(dtype) if x.dtype != dtype else x
        # NOTE: matches torch: integer sums are divided with truncation toward zero
        return xp.floor_divide(xp.abs(x), abs(div)) * (xp.sign(x) * xp.sign(div))

    @staticmethod
    def backward(ctx, g):
        return _WindowSumT.apply(g, ctx.stages, ctx.in_shape, ctx.div), None, None


class _WindowSumT(Function):
    """Each window's value divided by ``div`` and added to every element of its window (the
    adjoint of ``_WindowSum``)."""

    _array_forward = True
    _node_name = "AvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, g, stages, in_shape, div):
        ctx.stages, ctx.div = stages, div
        xp = xp_of(g)
        if xp.device_type == "meta":
            return xp.zeros(in_shape, dtype=g.dtype)
        g = g / div
        for st in reversed(stages):
            shape = list(g.shape)
            shape[st.axis] = st.p + st.size + st.hi
            gi = xp.zeros(shape, dtype=g.dtype)
            for j in range(st.k):
                if st.pos is None:
                    st.slot(xp, gi, j)[...] += g
                elif st.dup:
                    xp.add_at(gi, st._key(st.pos[j]), g)
                else:
                    gi[st._key(st.pos[j])] += g
            g = st.crop(gi)
        return g if g.flags.c_contiguous else xp.ascontiguousarray(g)

    @staticmethod
    def backward(ctx, gg):
        return _WindowSum.apply(gg, ctx.stages, ctx.div), None, None, None


def _sum_node(name: str) -> type:
    return type(name.replace("Backward0", ""), (_WindowSum,), {"_node_name": name})


_SUM_NODES = {
    (False, 1): _sum_node("AvgPool1DBackward0"),
    (False, 2): _WindowSum,
    (False, 3): _sum_node("AvgPool3DBackward0"),
    (True, 1): _sum_node("AdaptiveAvgPool1DBackward0"),
    (True, 2): _sum_node("AdaptiveAvgPool2DBackward0"),
    (True, 3): _sum_node("AdaptiveAvgPool3DBackward0"),
}


def _divisor(counts: list, dtype):
    """The divisors of the window sums: the products of the per-axis window sizes ``counts``
    (outermost first); a number when every window has the same size."""
    if all(len(set(c)) <= 1 for c in counts):
        return math.prod(c[0] for c in counts if c)
    div = None
    for c in counts:
        a = _CPU.asarray(c, dtype=dtype)
        div = a if div is None else div[..., None] * a
    return div


def avg_pool(
    input: Tensor,
    kernel,
    stride,
    padding,
    output,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override,
) -> Tensor:
    """Average pooling over the last ``len(kernel)`` dims (arguments checked, ``output`` the
    output sizes); leading dims are batch dims."""
    n = len(kernel)
    nd = input.dim()
    stages = []
    counts = []
    for i in range(n):
        axis = nd - n + i
        size, k, s, p, o = input.shape[axis], kernel[i], stride[i], padding[i], output[i]
        stages.append(regular_stage(axis, size, k, s, p, 1, o))
        c = []
        for j in range(o):
            b = j * s - p
            e = min(b + k, size + p)
            # NOTE: matches torch: with count_include_pad the divisor counts the padding but
            # not what ceil mode reads past it
            c.append(e - b if count_include_pad else min(e, size) - max(b, 0))
        counts.append(c)
    div = divisor_override if divisor_override is not None else _divisor(counts, input._data.dtype)
    return _SUM_NODES[False, n].apply(input, tuple(reversed(stages)), div)


def adaptive_avg_pool(input: Tensor, output) -> Tensor:
    """Adaptive average pooling over the last ``len(output)`` dims; leading dims are batch
    dims. Output size 1 everywhere is a global mean."""
    n = len(output)
    nd = input.dim()
    if all(o == 1 for o in output):
        return input.mean(tuple(range(nd - n, nd)), keepdim=True)
    if 0 in output:
        return _empty_like_pooled(input, n, output)
    stages = []
    counts = []
    for i in range(n):
        axis = nd - n + i
        size, o = input.shape[axis], output[i]
        stages.append(adaptive_stage(axis, size, o))
        counts.append([e - b for b, e in adaptive_bounds(size, o)])
    div = _divisor(counts, input._data.dtype)
    return _SUM_NODES[True, n].apply(input, tuple(reversed(stages)), div)
