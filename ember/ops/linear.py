"""``linear(input, weight, bias=None)``: ``input @ weight.T + bias``, the op behind ``nn.Linear``.

One primitive, ``Linear``: forward is one GEMM on the input folded to 2-D ``(M, in)`` with
``weight.T`` (a view, no copy) and the bias added in place into the fresh product; backward is
two matrix products (and the output gradient itself for the bias, which the engine sums down
to the bias's shape). Public as ``ember.nn.functional.linear`` (PyTorch has no
``torch.linear``).

PyTorch computes ``linear`` along one of three paths that accept slightly different biases:
``addmm`` for 2-D inputs (and, flattened to 2-D, for any input when the bias is 1-D in effect),
else ``matmul`` followed by an in-place ``add_``. ember computes every case in one pass but
checks each path's rules, so the same calls succeed, the same calls fail with PyTorch's
messages, and the node is named as PyTorch's (``AddmmBackward0``, ``ViewBackward0``...).
"""

from __future__ import annotations

import math

from ember import _autocast as _ac
from ember import _dtype, backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import (
    Function,
    _seq,
    apply_saved_hooks,
    refresh_stale_view,
    saved_hooks_stack,
)
from ember.ops._dispatch import cj, xp_of
from ember.ops.addmm import _check_expand
from ember.ops.broadcast import _broadcast_pair
from ember.ops.linalg import (
    _check_dot,
    _check_mm_shapes,
    _check_mv,
    _check_same_dtype,
    _dname,
    _no_bool,
)
from ember.ops.pointwise import _can_cast, _name
from ember.tensor import Tensor, _wrap

_F16, _F32 = _dtype.float16._np, _dtype.float32._np
_state = _gm.state
_anomaly = _gm.anomaly
_new = object.__new__


class Linear(Function):
    """``x @ w.T + b`` for ``x`` (*, in), ``w`` (out, in) or (in,), ``b`` None or broadcast to
    the output. Arguments are validated by ``linear``."""

    _array_forward = True
    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        half = x.dtype.char in "eE"  # float16, bfloat16
        low = x.dtype
        if half:  # NOTE: matches torch: CPU half GEMM accumulates in float32
            x, w = x.astype(_F32), w.astype(_F32)
        # ``dot`` rather than ``@``: for these 2-D operands the same BLAS call with less NumPy
        # overhead, which is most of the cost of a small layer
        if x.ndim == 2:
            out = x.dot(w.T)
            if b is not None:
                out += b.reshape(1, -1) if b.ndim == 1 else b  # same-rank adds are cheaper
        else:
            k = x.shape[-1]
            # fold (..., in) to (M, in): one GEMM, whatever the batch dims (M explicit: in may be 0)
            out = x.reshape(math.prod(x.shape[:-1]), k).dot(w.T)
            if b is not None and _fused(b):
                # added to (M, out) rows, as PyTorch's flattened addmm
                out += b.reshape(1, -1) if b.ndim == 1 else b
                b = None
            out = out.reshape(x.shape[:-1] + w.shape[:-1])
            if b is not None:
                out += b
        return out.astype(low) if half else out

    @staticmethod
    def backward(ctx, g):
        if not _state.enabled:  # not create_graph: the common 2-D case on raw arrays
            grads = _backward_arrays(ctx, g)
            if grads is not None:
                return grads
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        gx = gw = None
        # y = x w^T + b  =>  dx = g w,  dw = g^T x (batch dims folded into the product),  db = g
        # (complex: the conjugates of w and x)
        x, w = cj(x), cj(w)
        if w.ndim == 2:
            if need_x:
                gx = g @ w
            if need_w:
                if x.ndim == 2:
                    gw = g.mT @ x
                else:
                    m = math.prod(x.shape[:-1])
                    gw = g.reshape(m, w.shape[0]).mT @ x.reshape(m, x.shape[-1])
        else:  # 1-D weight: y = x @ w
            if need_x:
                gx = g.unsqueeze(-1) * w
            if need_w:
                m = math.prod(x.shape[:-1])
                gw = g.reshape(m) @ x.reshape(m, x.shape[-1])
        return gx, gw, (g if need_b else None)


def _backward_arrays(ctx, g):
    """``Linear.backward`` for 2-D float32/float64 operands without ``create_graph``: the three
    gradients as raw products wrapped once, the bias's summed here (so the engine has nothing
    to reduce), and no Tensor op dispatch. None when the case is not that one (the caller
    then runs the Tensor formulas, which also raise the saved-tensor errors)."""
    saved = ctx._saved
    if saved.__class__ is not list or g.__class__ is not Tensor:
        return None
    (x, vx), (w, vw) = saved  # inputs are saved as (tensor, version)
    if x._vc[0] != vx or w._vc[0] != vw:
        return None
    gd = g._data
    xd = x._data
    wd = w._data
    dt = gd.dtype
    if (
        xd.ndim != 2
        or wd.ndim != 2
        or gd.ndim != 2
        or xd.dtype is not dt
        or wd.dtype is not dt
        or dt.char not in "fdeE"
    ):
        return None
    need_x, need_w, need_b = ctx.needs_input_grad
    low = None
    if dt.char in "eE":  # float16, bfloat16: the products in float32, each rounded once
        low, dt = dt, _F32
        gd, xd, wd = backend.widen(gd, _F32), xd.astype(_F32), wd.astype(_F32)
    gx = gd.dot(wd) if need_x else None
    gw = gd.T.dot(xd) if need_w else None
    if low is not None:
        gx = None if gx is None else gx.astype(low)
        gw = None if gw is None else gw.astype(low)
    gx = None if gx is None else _wrap(gx)
    gw = None if gw is None else _wrap(gw)
    gb = None
    if need_b:
        # a 1-D bias (nn.Linear's) is summed here; another broadcast bias is the engine's job
        if ctx._next[2][2] == gd.shape[1:]:
            # the column sums as one GEMV with a row of ones: a third of ``sum(0)``'s cost on
            # small batches (NumPy's reduction setup dominates there)
            key = (gd.shape[0], dt, gd.__class__)  # the backend too: a meta row is no cpu row
            ones = _ONES.get(key)
            if ones is None:
                ones = _ones_row(gd, key)
            gb = ones.dot(gd)
            gb = _wrap(gb if low is None else gb.astype(low))
        else:
            gb = g
    return gx, gw, gb


_ONES: dict = {}  # (rows, dtype, array type) -> a read-only row of ones, for bias gradients


def _ones_row(gd, key):
    if len(_ONES) > 64:  # many batch sizes: keep the cache small
        _ONES.clear()
    ones = xp_of(gd).ones(key[0], dtype=key[1])
    if ones.flags is not None:  # (meta arrays have no flags)
        ones.flags.writeable = False
    _ONES[key] = ones
    return ones


def _linear_2d(cls, input: Tensor, weight: Tensor, bias: Tensor | None, dt) -> Tensor:
    """``cls.apply(input, weight, bias)`` for a validated float32/float64 2-D input, 2-D
    weight and 1-D bias (or None), all of NumPy dtype ``dt``: the same node, saved inputs and
    output, built inline (no argument loop, no ``save_for_backward`` matching), as this is
    every ``nn.Linear`` call."""
    if (
        weight._base is not None
        or (bias is not None and bias._base is not None)
        or _anomaly.enabled
    ):
        return cls.apply(input, weight, bias)  # parameters that are views, anomaly traces
    if input._base is not None and input._view_version != input._vc[0]:
        refresh_stale_view(input)
    x = input._data
    w = weight._data
    # ``dot``: for 2-D operands the same BLAS call as ``@`` with less NumPy overhead
    out = x.dot(w.T)
    if bias is not None:
        out += bias._data
        rb = bias._requires_grad
    else:
        rb = False
    ri = input._requires_grad
    rw = weight._requires_grad
    t = _new(Tensor)
    t._data = out
    t._grad = None
    t._vc = [0]
    t._base = None
    if not ((ri or rw or rb) and _state.enabled):
        t._requires_grad = False
        t._grad_fn = None
        return t
    ctx = cls._Node()
    # edges spelled out (``function.edge``): a leaf is its own node, with output_nr None
    fn = input._grad_fn
    ei = (
        None
        if not ri
        else (input, None, x.shape, dt)
        if fn is None
        else (fn, input._output_nr, x.shape, dt)
    )
    fn = weight._grad_fn
    ew = (
        None
        if not rw
        else (weight, None, w.shape, dt)
        if fn is None
        else (fn, weight._output_nr, w.shape, dt)
    )
    eb = None
    if rb:
        fn = bias._grad_fn
        b = bias._data
        eb = (bias, None, b.shape, dt) if fn is None else (fn, bias._output_nr, b.shape, dt)
    ctx._next = (ei, ew, eb)
    ctx.needs_input_grad = (ri, rw, rb)
    ctx._seq = next(_seq)
    ctx._out_meta = ((out.shape, dt),)
    ctx._saved = [(input, input._vc[0]), (weight, weight._vc[0])]  # save_for_backward(x, w)
    if saved_hooks_stack:
        apply_saved_hooks(ctx)
    t._requires_grad = True
    t._grad_fn = ctx
    return t


def _fused(b) -> bool:
    """Whether PyTorch adds this bias through its flattened ``addmm``: a bias that is 1-D, or
    1-D once its size-1 dims are dropped."""
    return b.ndim == 1 or (b.ndim > 1 and sum(s != 1 for s in b.shape) == 1)


def _node(name: str) -> type:
    return type("Linear" + name.split("Backward")[0], (Linear,), {"_node_name": name})


# PyTorch's node names along its paths (the computation is the same).
_Mm = _node("MmBackward0")  # 2-D input, no bias
_Squeeze = _node("SqueezeBackward4")  # 1-D input, no bias (unsqueeze, mm, squeeze)
_UnsafeView = _node("UnsafeViewBackward0")  # n-D input, no bias (folded matmul)
_Mv = _node("MvBackward0")  # 2-D input, 1-D weight
_Dot = _node("DotBackward0")  # 1-D input, 1-D weight
_View = _node("ViewBackward0")  # non-2-D input, fused bias (flattened addmm)
_Add = _node("AddBackward0")  # matmul, then bias added in place


def _type_check(input, weight, bias) -> None:
    for pos, (name, x) in enumerate((("input", input), ("weight", weight), ("bias", bias)), 1):
        if not isinstance(x, Tensor) and not (pos == 3 and x is None):
            raise TypeError(
                f"linear(): argument '{name}' (position {pos}) must be Tensor, not "
                f"{type(x).__name__}"
            )


def _validate(input: Tensor, weight: Tensor, bias: Tensor | None) -> type:
    """PyTorch's checks, in its order; returns the node class of the path taken."""
    _type_check(input, weight, bias)
    x, w = input._data, weight._data
    if x.ndim == 0 or w.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {x.ndim}D and {w.ndim}D"
        )
    if w.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {w.ndim}D (linear's weight "
            f"must be (out_features, in_features), got shape {list(w.shape)})"
        )
    m = math.prod(x.shape[:-1])
    if bias is not None and (x.ndim == 2 or _fused(bias._data)):
        return _validate_addmm(input, weight, bias, m)
    cls = _validate_matmul(input, weight, m)
    if bias is None:
        return cls
    b = bias._data
    out_shape = x.shape[:-1] + w.shape[:-1]
    res = _dtype.binary_np_dtype(x, b)
    if not _can_cast(res, x.dtype):
        raise RuntimeError(
            f"result type {_name(res)} can't be cast to the desired output type {_name(x.dtype)}"
        )
    full = _broadcast_pair(out_shape, b.shape)
    if full != tuple(out_shape):
        raise RuntimeError(
            f"output with shape {list(out_shape)} doesn't match the broadcast shape {list(full)}"
        )
    return _Add


def _validate_addmm(input: Tensor, weight: Tensor, bias: Tensor, m: int) -> type:
    x, w, b = input._data, weight._data, bias._data
    if w.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {w.ndim}-D tensor")
    if b.dtype != w.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {_dname(bias)} and {_dname(weight)}"
        )
    if x.dtype != w.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {_dname(input)} and {_dname(weight)}"
        )
    _check_mm_shapes((m, x.shape[-1]), w.shape[::-1])
    _check_expand(bias, (m, w.shape[0]))
    _no_bool("addmm_impl_cpu_", input)
    return Linear if x.ndim == 2 else _View


def _validate_matmul(input: Tensor, weight: Tensor, m: int) -> type:
    x, w = input._data, weight._data
    if w.ndim == 1:
        if x.ndim == 1:
            _check_dot("dot", input, weight)
            return _Dot
        if x.shape[-1] != w.shape[0]:
            k = x.shape[-1]
            raise RuntimeError(f"size mismatch, got input ({m}), mat ({m}x{k}), vec ({w.shape[0]})")
        if x.ndim == 2:
            _check_mv(input, weight)
    else:
        _check_mm_shapes((m, x.shape[-1]), w.shape[::-1])
    _check_same_dtype(input, weight)
    _no_bool("addmm_impl_cpu_", input)
    if w.ndim == 1:
        return _Mv if x.ndim == 2 else _UnsafeView
    return _Mm if x.ndim == 2 else (_Squeeze if x.ndim == 1 else _UnsafeView)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: input ``(*, in_features)``, weight ``(out_features,
    in_features)``, bias ``(out_features,)`` or None; output ``(*, out_features)``.

    Example:
        >>> x = ember.ones(2, 3)
        >>> ember.nn.functional.linear(x, ember.ones(4, 3), ember.zeros(4))
        tensor([[3., 3., 3., 3.],
                [3., 3., 3., 3.]])
    """
    if _ac.on:  # autocast's lower-precision list
        input, weight, bias = _ac.low(input, weight, bias)
    # The common calls (nn.Linear's: floating point, matching dtypes and sizes, a 2-D weight,
    # a 1-D bias or none) are recognized with a few attribute reads; anything else goes through
    # the full validation, which also picks PyTorch's node name.
    if isinstance(input, Tensor) and isinstance(weight, Tensor):
        x, w = input._data, weight._data
        dt = x.dtype
        xn = x.ndim
        if w.dtype is dt and dt.kind in "fV" and w.ndim == 2 and xn:
            ws = w.shape
            if x.shape[-1] == ws[1]:
                # 2-D float32/float64: the inline node (float16 computes in float32: apply)
                fast = xn == 2 and dt.char not in "eE"
                if bias is None:
                    if fast:
                        return _linear_2d(_Mm, input, weight, None, dt)
                    return (_Mm if xn == 2 else _UnsafeView if xn > 2 else _Squeeze).apply(
                        input, weight, None
                    )
                if isinstance(bias, Tensor):
                    b = bias._data
                    if b.dtype is dt and b.ndim == 1 and b.shape[0] == ws[0]:
                        if fast:
                            return _linear_2d(Linear, input, weight, bias, dt)
                        return (Linear if xn == 2 else _View).apply(input, weight, bias)
    return _validate(input, weight, bias).apply(input, weight, bias)


__all__ = ["linear"]


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``:
    inputs ``(*, in1)`` and ``(*, in2)`` with the same leading dims, weight ``(out, in1, in2)``.

    Computed as one matrix product ``input1 @ weight`` viewed as ``(in1, out * in2)``, then a
    batched reduction against ``input2``: no ``(*, out, in1, in2)`` intermediate.

    Example:
        >>> x1, x2 = ember.ones(2, 3), ember.ones(2, 4)
        >>> y = ember.nn.functional.bilinear(x1, x2, ember.ones(5, 3, 4))
        >>> y.shape
        ember.Size([2, 5])
    """
    if _ac.on and _ac.enabled():  # not in torch's lists; its matmul must not cast
        return _ac.call_plain(bilinear, input1, input2, weight, bias)
    for pos, (name, t) in enumerate(
        (("input1", input1), ("input2", input2), ("weight", weight)), 1
    ):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"bilinear(): argument '{name}' (position {pos}) must be Tensor, "
                f"not {type(t).__name__}"
            )
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            f"bilinear(): input batch dimensions do not match: got "
            f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}"
        )
    if weight.dim() != 3:
        raise RuntimeError(
            f"bilinear(): weight must be 3-D (out, in1, in2), got shape {list(weight.shape)}"
        )
    out, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got "
            f"{input1.shape[-1]} but expected {in1}"
        )
    if input2.shape[-1] != in2:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got "
            f"{input2.shape[-1]} but expected {in2}"
        )
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out):
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got "
            f"{list(bias.shape)} but expected [{out}]"
        )
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (M, in1) @ (in1, out*in2) -> (M, out, in2), then contract in2 against x2: (M, out)
    t = (x1 @ weight.permute(1, 0, 2).reshape(in1, out * in2)).reshape(-1, out, in2)
    y = (t @ x2.unsqueeze(-1)).squeeze(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, out)
