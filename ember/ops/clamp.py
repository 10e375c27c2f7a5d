"""``clamp`` (``clip``), ``clamp_min`` and ``clamp_max`` with number or tensor bounds, with
their Tensor methods and in-place forms."""

from __future__ import annotations

from ember import backend
from ember.autograd.function import Function
from ember.ops._dispatch import promote, unary, xp_of
from ember.ops._elementwise import _cast, _check, _complex_unsupported
from ember.ops.pointwise import _out, inplace
from ember.tensor import Tensor


class Clamp(Function):
    """``clamp`` with number bounds: the gradient passes where ``min <= x <= max``."""

    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, x, lo, hi, dt):
        x = _cast(x, dt)
        xp = xp_of(x)
        y = x
        if lo is not None:
            y = xp.maximum(y, lo)
        if hi is not None:
            y = xp.minimum(y, hi)
        if y is x:
            y = x.copy()
        ctx.save_for_backward(x)
        ctx.bounds = lo, hi
        return y

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        lo, hi = ctx.bounds
        # NOTE: matches torch: the bounds are inclusive and a nan input gets no gradient
        keep = (x >= lo) if hi is None else (x <= hi) if lo is None else (x >= lo) & (x <= hi)
        return g.masked_fill(~keep, 0.0), None, None, None


class ClampMin(Clamp):
    _node_name = "ClampMinBackward0"


class ClampMax(Clamp):
    _node_name = "ClampMaxBackward0"


class ClampT(Function):
    """``clamp`` with tensor bounds: gradients also flow to the bound that was taken."""

    _low_opmath = True  # float16/bfloat16 computed in float32, rounded once
    _array_forward = True
    _node_name = "ClampBackward0"

    @staticmethod
    def forward(ctx, x, lo, hi, dt):
        ctx.save_for_backward(x, lo, hi)
        x = _cast(x, dt)
        xp = xp_of(x)
        y = x
        if lo is not None:
            y = xp.maximum(y, _cast(lo, dt))
        if hi is not None:
            y = xp.minimum(y, _cast(hi, dt))
        return y

    @staticmethod
    def backward(ctx, g):
        x, lo, hi = ctx.saved_tensors
        _, need_lo, need_hi, _ = ctx.needs_input_grad
        g_lo = g_hi = None
        if lo is not None and hi is not None:
            # NOTE: matches torch: when min > max the result is max, and only max gets gradient
            gx = g.masked_fill(~((x >= lo) & (x <= hi)), 0.0)
            if need_lo:
                g_lo = g.masked_fill(~((x < lo) & (lo < hi)), 0.0)
            if need_hi:
                g_hi = g.masked_fill(~((x > hi) | (hi < lo)), 0.0)
        elif lo is not None:
            gx = g.masked_fill(x < lo, 0.0)
            g_lo = g.masked_fill(~(x < lo), 0.0) if need_lo else None
        else:
            gx = g.masked_fill(x > hi, 0.0)
            g_hi = g.masked_fill(~(x > hi), 0.0) if need_hi else None
        return gx, g_lo, g_hi, None


class ClampMinT(ClampT):
    _node_name = "ClampMinBackward1"


class ClampMaxT(ClampT):
    _node_name = "ClampMaxBackward1"


def _clamp(input, min, max, out, cls, cls_t, op):  # noqa: A002
    _check(input, op)
    if min is None and max is None:
        raise RuntimeError(f"torch.{op}: At least one of 'min' or 'max' must not be None")
    dt = promote(input, min, max)
    if dt.kind == "c":
        _complex_unsupported("clamp", dt)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if not (isinstance(min, Tensor) or min is None) or not (
            isinstance(max, Tensor) or max is None
        ):
            raise TypeError(
                f"{op}() received an invalid combination of arguments: min and max must both "
                f"be Tensors (or None) or both numbers, got {type(min).__name__} and "
                f"{type(max).__name__}; wrap the number with ember.tensor(...)"
            )
        return _out(cls_t.apply(input, min, max, dt), out)
    for v in (min, max):
        if v is not None and not isinstance(v, (int, float, backend.generic)):
            raise TypeError(
                f"{op}(): min and max must be numbers or Tensors, not {type(v).__name__}"
            )
    lo = None if min is None else (min.item() if isinstance(min, backend.generic) else min)
    hi = None if max is None else (max.item() if isinstance(max, backend.generic) else max)
    return _out(unary(cls, input, lo, hi, dt), out)


def clamp(input: Tensor, min=None, max=None, *, out=None) -> Tensor:  # noqa: A002
    """Limit each element to ``[min, max]`` (numbers or tensors; either may be None).

    The result dtype follows type promotion with the bounds (an int tensor clamped to 0.5 is
    float). When ``min > max`` every element becomes ``max``.

    Example:
        >>> ember.clamp(ember.tensor([-2.0, 0.5, 3.0]), min=0.0, max=1.0)
        tensor([0.0000, 0.5000, 1.0000])
    """
    return _clamp(input, min, max, out, Clamp, ClampT, "clamp")


clip = clamp


def clamp_min(input: Tensor, min) -> Tensor:  # noqa: A002
    """``clamp(input, min=min)``."""
    if min is None:
        raise TypeError("clamp_min(): argument 'min' must be a number or Tensor, not None")
    return _clamp(input, min, None, None, ClampMin, ClampMinT, "clamp_min")


def clamp_max(input: Tensor, max) -> Tensor:  # noqa: A002
    """``clamp(input, max=max)``."""
    if max is None:
        raise TypeError("clamp_max(): argument 'max' must be a number or Tensor, not None")
    return _clamp(input, None, max, None, ClampMax, ClampMaxT, "clamp_max")


# ---- Tensor methods and in-place forms --------------------------------------------------------
_BINARY_METHODS = {"clamp": clamp, "clip": clip, "clamp_min": clamp_min, "clamp_max": clamp_max}
for _name, _fn in _BINARY_METHODS.items():
    setattr(Tensor, _name, _fn)
    setattr(Tensor, _name + "_", inplace(_fn))

# torch-level in-place functions (``torch.clamp_(x, ...)``...)
_TORCH_INPLACE = ("clamp", "clamp_max", "clamp_min", "clip")
for _name in _TORCH_INPLACE:
    globals()[_name + "_"] = getattr(Tensor, _name + "_")

__all__ = [
    "clamp",
    "clip",
    "clamp_min",
    "clamp_max",
    *(n + "_" for n in _TORCH_INPLACE),
]
