"""Element-wise arithmetic: the Python operators and ``add/sub/mul/div/pow/neg``.

Each op is one ``Function``: forward on raw arrays (``xp`` of the inputs), backward on Tensors.
In-place variants (``add_``...) come from ``inplace`` below, one mechanism for all of them.
"""

from __future__ import annotations

from ember import _dtype, backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function, _check_inplace, check_inference_write
from ember.ops._dispatch import binary, cj, promote, promote2, unary, xp_of
from ember.tensor import Tensor, _wrap


class Add(Function):
    _array_forward = True
    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, g):
        return g, g


class Sub(Function):
    _array_forward = True
    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return a - b

    @staticmethod
    def backward(ctx, g):
        return g, -g


class AddAlpha(Function):
    """``a + alpha * b`` as one op (torch's add kernel): float16/bfloat16 compute in float32
    and round once, where a separate ``mul`` would round ``alpha * b`` first."""

    _array_forward = True
    _node_name = "AddBackward0"
    _low_opmath = True
    sign = 1

    @classmethod
    def forward(cls, ctx, a, b, alpha):
        ctx.alpha = alpha
        return a + b * (alpha * cls.sign)

    @classmethod
    def backward(cls, ctx, g):
        return g, g * cj(ctx.alpha * cls.sign), None


class SubAlpha(AddAlpha):
    _node_name = "SubBackward0"
    sign = -1


class Mul(Function):
    _array_forward = True
    _node_name = "MulBackward0"
    _opmath_scalar = True  # float16/bfloat16 times a number: see ops/_dispatch.binary

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        ga = gb = None
        if g._data.dtype.kind == "c" and not _gm.state.enabled:  # the real case: this one test
            if need_a:
                ga = _real_factor_grad(g, b, a)
            if need_b:
                gb = _real_factor_grad(g, a, b)
        if need_a and ga is None:
            ga = g * cj(b)
        if need_b and gb is None:
            gb = g * cj(a)
        return ga, gb


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _real_factor_grad(g, other, factor):
    """The gradient of a real ``factor`` times a complex ``other`` (a real mask or weight on a
    spectrum) for a complex ``g``, outside double backward: ``Re(g conj(other))`` summed to
    ``factor``'s shape as one contraction over the real views, ``gr or + gi oi``, with the last
    axis's real and imaginary parts paired afterwards. That skips the conjugate's copy, the
    complex product and the complex sum the engine would then reduce. None where it does not
    apply."""
    if not (isinstance(other, Tensor) and isinstance(factor, Tensor)):
        return None
    od, gd, fd = other._data, g._data, factor._data
    shape = gd.shape
    n = len(shape)
    xp = xp_of(gd)
    if (
        fd.dtype.kind != "f"
        or gd.dtype != od.dtype
        or od.shape != shape
        or not 0 < n < len(_LETTERS)
        or gd.strides[-1] != gd.itemsize
        or od.strides[-1] != od.itemsize
        or xp.device_type == "meta"
    ):
        return None
    real = od.real.dtype
    if fd.dtype != real:
        return None
    padded = (1,) * (n - fd.ndim) + fd.shape
    sub = _LETTERS[:n]
    keep = "".join(c for c, f, s in zip(sub, padded, shape, strict=True) if f == s)
    out = xp.einsum(f"{sub},{sub}->{keep}", gd.view(real), od.view(real))
    if not keep:  # a scalar factor: NumPy answers a scalar
        out = xp.asarray(out)
    elif keep.endswith(sub[-1]):  # the last axis kept: add each real part to its imaginary one
        out = out.reshape(out.shape[:-1] + (shape[-1], 2)).sum(-1)
    return _wrap(out.reshape(fd.shape))


class Div(Function):
    _array_forward = True
    _node_name = "DivBackward0"
    _opmath_scalar = True  # float16/bfloat16 divided by a number: see ops/_dispatch.binary

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a / b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # d(a/b)/db = -a / b^2
        return (g / cj(b) if need_a else None), (-g * cj(a / (b * b)) if need_b else None)


class Neg(Function):
    _array_forward = True
    _node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, a):
        return -a

    @staticmethod
    def backward(ctx, g):
        return -g


class Pow(Function):
    _array_forward = True
    _node_name = "PowBackward1"

    @staticmethod
    def forward(ctx, a, b):
        y = a**b
        ctx.save_for_backward(a, b, y)
        return y

    @staticmethod
    def backward(ctx, g):
        a, b, y = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        ga = gb = None
        if need_a:
            # d a^b / da = b * a^(b-1); NOTE: matches torch: zero where b == 0 (even at a == 0)
            ga = (
                g * cj(b * a ** (b - 1))
                if not isinstance(b, (int, float, complex))
                else (g * cj(b * a ** (b - 1)) if b != 0 else g * 0)
            )
            if not isinstance(b, (int, float, complex)):
                ga = ga.masked_fill(b == 0, 0.0)
        if need_b:
            # d a^b / db = a^b * log(a); NOTE: matches torch: zero where a == 0 and b >= 0
            if isinstance(a, (int, float, complex)):
                import math

                if isinstance(a, complex) or (isinstance(b, Tensor) and b.is_complex()):
                    import cmath

                    gb = g * cj(y * (cmath.log(a) if a != 0 else 0.0))
                else:
                    ga_log = math.log(a) if a > 0 else float("nan") if a < 0 else 0.0
                    gb = g * cj(y * ga_log)
            else:
                b_ge0 = (b.real if isinstance(b, Tensor) and b.is_complex() else b) >= 0
                gb = (g * cj(y * a.log())).masked_fill((a == 0) & b_ge0, 0.0)
        return ga, gb


class PowTensorScalar(Pow):
    _node_name = "PowBackward0"


class PowScalarTensor(Pow):
    _node_name = "PowBackward2"


def _pow_cls(a, b):
    if not isinstance(b, Tensor):
        return PowTensorScalar
    if not isinstance(a, Tensor):
        return PowScalarTensor
    return Pow


def _div_prep(a, b):
    """True division promotes integers to the default float dtype (``int / int -> float``)."""
    from ember._dtype import get_default_dtype

    xa, xb = promote2(a, b)
    dt = xa.dtype if hasattr(xa, "dtype") else xb.dtype
    if dt.kind in "biu":
        return get_default_dtype()
    return None


def add(input, other, *, alpha=1, out=None) -> Tensor:
    """``input + alpha * other``, with broadcasting and type promotion.

    Example:
        >>> ember.add(ember.ones(2), 2, alpha=3)
        tensor([7., 7.])
    """
    if alpha != 1:
        fused = _add_alpha(AddAlpha, input, other, alpha)
        if fused is not None:
            return _out(fused, out)
        other = _scaled(input, other, alpha)
    return _out(binary(Add, input, other), out)


def _add_alpha(cls, input, other, alpha):
    """``input +- alpha * other`` for two floating or complex tensors and a real number alpha,
    as one op in the promoted dtype; None for the other cases (``_scaled`` handles them)."""
    if not (
        isinstance(input, Tensor)
        and isinstance(other, Tensor)
        and (alpha.__class__ is float or alpha.__class__ is int)
    ):
        return None
    dt = promote(input, other)
    if dt.kind not in "fcV":
        return None
    a = input if input._data.dtype == dt else input.to(_dtype.from_np(dt))
    b = other if other._data.dtype == dt else other.to(_dtype.from_np(dt))
    if dt.itemsize == 2:
        # NOTE: matches torch: alpha is first rounded to float16/bfloat16 (through float32)
        alpha = float(xp_of(a._data).asarray(backend.scalar_for(alpha, dt)).astype(dt))
    return cls.apply(a, b, alpha)  # broadcast gradients are reduced by the engine


def _integral(x) -> bool:
    return x._data.dtype.kind in "biu" if isinstance(x, Tensor) else isinstance(x, int)


def _scaled(input, other, alpha):
    """``alpha * other`` for ``add``/``sub``: a Tensor through ``mul``, a number directly."""
    if isinstance(alpha, float) and _integral(input) and _integral(other):
        # without this check the float alpha would silently promote an integer sum to float
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    return mul(other, alpha) if isinstance(other, Tensor) else other * alpha


def sub(input, other, *, alpha=1, out=None) -> Tensor:
    """``input - alpha * other``."""
    if (
        isinstance(input, Tensor)
        and input._data.dtype.kind == "b"
        or (isinstance(other, Tensor) and other._data.dtype.kind == "b")
    ):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    if alpha != 1:
        fused = _add_alpha(SubAlpha, input, other, alpha)
        if fused is not None:
            return _out(fused, out)
        other = _scaled(input, other, alpha)
    return _out(binary(Sub, input, other), out)


subtract = sub


def rsub(input, other, *, alpha=1) -> Tensor:
    """``other - alpha * input``."""
    return sub(other, input, alpha=alpha)


def mul(input, other, *, out=None) -> Tensor:
    """``input * other``."""
    return _out(binary(Mul, input, other), out)


multiply = mul


def div(input, other, *, rounding_mode=None, out=None) -> Tensor:
    """``input / other``; ``rounding_mode`` ``"trunc"`` or ``"floor"`` rounds the quotient.

    Integer inputs give the default float dtype unless a rounding mode is given.
    """
    if rounding_mode is None:
        dt = _div_prep(input, other)
        if dt is not None:
            input = input.to(dt) if isinstance(input, Tensor) else input
            other = other.to(dt) if isinstance(other, Tensor) else float(other)
        return _out(binary(Div, input, other), out)
    if rounding_mode == "trunc":
        return _out(_rounded_div(input, other, "trunc"), out)
    if rounding_mode == "floor":
        return _out(floor_divide(input, other), out)
    raise ValueError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
        f"'{rounding_mode}'"
    )


divide = true_divide = div


def _rounded_div(input, other, mode):
    xa, xb = promote2(input, other)
    kind = (xa.dtype if hasattr(xa, "dtype") else xb.dtype).kind
    if kind == "c":
        from ember.ops._elementwise import _complex_unsupported  # (it imports this file)

        _complex_unsupported("div_trunc_cpu", xa.dtype if hasattr(xa, "dtype") else xb.dtype)
    if kind in "iub":
        return binary(TruncDivInt if mode == "trunc" else FloorDiv, input, other)
    q = div(input, other)
    return q.trunc() if mode == "trunc" else q.floor()


class FloorDiv(Function):
    _array_forward = True
    _node_name = "DivBackward1"

    @staticmethod
    def forward(ctx, a, b):
        integral = (
            hasattr(a, "dtype")
            and a.dtype.kind in "iu"
            or hasattr(b, "dtype")
            and b.dtype.kind in "iu"
        )
        if integral:
            if _any_zero(b):
                raise RuntimeError("ZeroDivisionError: integer division by zero")
        return a // b

    @staticmethod
    def backward(ctx, g):
        return g * 0, g * 0  # piecewise constant


class TruncDivInt(Function):
    _array_forward = True
    _node_name = "DivBackward1"

    @staticmethod
    def forward(ctx, a, b):
        if _any_zero(b):
            raise RuntimeError("ZeroDivisionError: integer division by zero")
        xp = xp_of(a) if backend.is_array(a) else xp_of(b)
        q = a // b
        # floor differs from trunc when the signs differ and the division is inexact
        fix = ((a % b) != 0) & ((a < 0) != (b < 0))
        return xp.where(fix, q + 1, q).astype(q.dtype)

    @staticmethod
    def backward(ctx, g):
        return None, None


def _any_zero(b):
    if backend.is_array(b):
        xp = xp_of(b)
        return xp.device_type != "meta" and bool((b == 0).any())
    return b == 0


def floor_divide(input, other, *, out=None) -> Tensor:
    """``floor(input / other)`` (PyTorch's ``//``)."""
    xa, xb = promote2(input, other)
    dt = xa.dtype if hasattr(xa, "dtype") else xb.dtype
    if dt.kind == "c":
        from ember.ops._elementwise import _complex_unsupported  # (it imports this file)

        _complex_unsupported("div_floor_cpu", dt)
    return _out(binary(FloorDiv, input, other), out)


def neg(input, *, out=None) -> Tensor:
    """``-input``."""
    if input._data.dtype.kind == "b":
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return _out(unary(Neg, input), out)


negative = neg


def pow(input, exponent, *, out=None) -> Tensor:  # noqa: A001  (PyTorch's name)
    """``input ** exponent`` element-wise (either may be a number)."""
    return _out(binary(_pow_cls(input, exponent), input, exponent), out)


def _out(result: Tensor, out):
    """Support ``out=``: copy the result into ``out`` (resized if empty), as PyTorch does."""
    if out is None:
        return result
    check_inference_write(out)
    if out._requires_grad and _gm.state.enabled and out._grad_fn is None:
        raise RuntimeError(
            f"{'out='} arguments don't support automatic differentiation, but one of the "
            "arguments requires grad."
        )
    if out.shape != result.shape:
        if out.numel() != 0:
            raise RuntimeError(
                f"out= tensor has shape {tuple(out.shape)} but the result has shape "
                f"{tuple(result.shape)}"
            )
        out._data = result._data.astype(out._data.dtype)
        out._vc[0] += 1
        return out
    with _gm.no_grad():
        out.copy_(result)
    return out


# ---- in-place ops: one mechanism for all of them ---------------------------------------------
def inplace(fn):
    """Make ``t.op_(...)`` from the out-of-place ``op(t, ...)``.

    Without grad recording the result is written into ``t``'s memory (views see it). With
    recording, ``op`` runs on a snapshot of ``t`` that carries ``t``'s history, and ``t`` is
    rebased onto the result's node, so the graph sees the old value where backward needs it.
    On a view, the view's base is rebased too (``CopySlices``).
    """

    def method(self, *args, **kwargs):
        if self._is_inference:
            check_inference_write(self)
        record = _gm.state.enabled and (
            self._requires_grad
            or any(isinstance(a, Tensor) and a._requires_grad for a in args)
            or any(isinstance(v, Tensor) and v._requires_grad for v in kwargs.values())
        )
        if not record:
            base = self._base
            if base is not None and base._requires_grad and _gm.state.enabled:
                _no_grad_view_error()  # a view made under no_grad of a base that records
            if fn in _UFUNC_OF and _inplace_direct(self, fn, args, kwargs):
                return self
            result = fn(self, *args, **kwargs)
            if result is not self:  # a random fill may have drawn into self (random/fills.py)
                _write(self, result)
            return self
        if self._base is not None:
            return _inplace_on_view(self, fn, args, kwargs)
        _check_inplace(self)
        result = fn(_snapshot(self), *args, **kwargs)
        _write(self, result)
        _take_history(self, result)
        return self

    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place version of :func:`{fn.__name__}`."
    # inspect.signature shows fn's parameters: the method passes its arguments through unchanged
    method.__wrapped__ = fn
    return method


def _no_grad_view_error():
    # NOTE: matches torch: the write would bypass the base's history, so it is refused
    raise RuntimeError(
        "A view was created in no_grad mode and is being modified inplace with grad mode "
        "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You "
        "can clarify your code by moving both the view and the inplace either both inside the "
        "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
        "want the inplace to be tracked)."
    )


def _inplace_direct(self: Tensor, fn, args, kwargs) -> bool:
    """``self.add_(other, alpha=...)`` (and ``sub_``, ``mul_``, ``div_``) without recording,
    computed by the ufunc straight into ``self``'s memory: one pass and no temporary, where the
    general path computes a new array and copies it in (an optimizer's update is made of these).
    Only for a floating tensor and an operand of its dtype or a Python number (so no type
    promotion is involved); returns False, having written nothing, for anything else."""
    d = self._data
    if len(args) != 1 or d.dtype.kind not in "fV":
        return False
    alpha = 1
    if kwargs:
        if fn is not add and fn is not sub or len(kwargs) != 1 or "alpha" not in kwargs:
            return False
        alpha = kwargs["alpha"]
    other = args[0]
    if isinstance(other, Tensor):
        o = other._data
        if o.dtype is not d.dtype:
            return False
    elif other.__class__ is float or other.__class__ is int:
        o = other
    else:
        return False
    xp = xp_of(d)
    if xp.device_type == "meta":  # a meta ``out=`` checks no shapes: the general path does
        return False
    if d.dtype.char in "eE" and (alpha != 1 or not isinstance(other, Tensor)):
        return False  # float16/bfloat16: the general path computes in float32 and rounds once
    if alpha != 1:
        o = o * alpha  # as ``add``/``sub`` do: the scaled operand first
    try:
        getattr(xp, _UFUNC_OF[fn])(d, o, out=d)
    except ValueError:  # shapes that do not fit, a read-only view: NumPy wrote nothing
        return False
    self._vc[0] += 1
    return True


def _snapshot(t: Tensor) -> Tensor:
    """A copy of ``t``'s data that carries ``t``'s place in the graph."""
    snap = _wrap(t._data.copy())
    if t._requires_grad:
        snap._requires_grad = True
        snap._grad_fn = t._grad_fn
        if t._output_nr:
            snap._output_nr = t._output_nr
    return snap


def _take_history(t: Tensor, src: Tensor) -> None:
    t._requires_grad = src._requires_grad
    t._grad_fn = src._grad_fn
    t._output_nr = src._output_nr


class CopySlices(Function):
    """The base of a view after an in-place op on the view: ``base`` with the view's region
    replaced by ``value``. Backward: the region's gradient goes to ``value``, the rest to
    ``base``."""

    _node_name = "CopySlices"

    @staticmethod
    def forward(ctx, base, value, view_fn):
        ctx.view_fn = view_fn
        out = base.clone()
        view_fn(out).copy_(value)
        return out

    @staticmethod
    def backward(ctx, g):
        with _gm.no_grad():
            keep = _wrap(backend.namespace(g._data).ones(g._data.shape, dtype=g._data.dtype))
            ctx.view_fn(keep).zero_()
        return g * keep, ctx.view_fn(g), None


def _inplace_on_view(view: Tensor, fn, args, kwargs):
    base = view._base
    if view._view_of_function is not None:
        raise RuntimeError(
            f"Output {view._output_nr} of {view._view_of_function} is a view and is being "
            "modified inplace. This view was created inside a custom Function (or because an "
            "input was returned as-is) and the autograd logic to handle view+inplace would "
            "override the custom backward associated with the custom Function, leading to "
            "incorrect gradients. This behavior is forbidden. You can fix this by cloning the "
            "output of the custom Function."
        )
    if view._view_fn is None:
        # Only the outputs of unbind/split/chunk (and views of them) have no way back from
        # their base. NOTE: matches torch: they refuse in-place writes, naming the last op
        if view._grad_fn is None:
            _no_grad_view_error()
        node = type(view._grad_fn).__name__
        raise RuntimeError(
            f"Output {view._output_nr} of {node.removesuffix('Backward0')} is a view and is "
            "being modified inplace. This view is the output of a function that returns "
            "multiple views. Such functions do not allow the output views to be modified "
            "inplace. You should replace the inplace operation by an out-of-place one."
        )
    if base._grad_fn is None and base._requires_grad and _gm.state.enabled:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    refresh_view(view)
    result = fn(_snapshot(view), *args, **kwargs)
    new_base = CopySlices.apply(_snapshot(base), result, view._view_fn)
    _write(view, result)  # the view's memory is the base's: both now hold the new values
    _take_history(base, new_base)
    refresh_view(view, force=True)
    return view


def refresh_view(view: Tensor, force: bool = False) -> None:
    """Re-derive a view's history from its base after the base changed in place."""
    base = view._base
    if base is None or (not force and view._view_version == view._vc[0]):
        return
    if base._requires_grad and view._view_fn is not None:
        with _gm.enable_grad():
            fresh = view._view_fn(base)
        _take_history(view, fresh)
    view._view_version = view._vc[0]


def _write(self: Tensor, result: Tensor) -> None:
    src = result._data
    dst = self._data
    if src.dtype != dst.dtype:
        if not _can_cast(src.dtype, dst.dtype):
            raise RuntimeError(
                f"result type {_name(src.dtype)} can't be cast to the desired output type "
                f"{_name(dst.dtype)}"
            )
    if src.shape != dst.shape:
        xp = xp_of(dst)
        try:
            xp.broadcast_shapes(src.shape, dst.shape)
            ok = xp.broadcast_shapes(src.shape, dst.shape) == tuple(dst.shape)
        except ValueError:
            ok = False
        if not ok:
            full = (
                list(xp.broadcast_shapes(src.shape, dst.shape))
                if _bcast_ok(xp, src, dst)
                else list(src.shape)
            )
            raise RuntimeError(
                f"output with shape {list(dst.shape)} doesn't match the broadcast shape {full}"
            )
    dst[...] = src
    self._vc[0] += 1


def _bcast_ok(xp, a, b):
    try:
        xp.broadcast_shapes(a.shape, b.shape)
        return True
    except ValueError:
        return False


def _can_cast(src, dst) -> bool:
    # NOTE: matches torch: float -> int and int -> bool are refused in in-place ops.
    order = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2, "c": 3}
    return order[src.kind] <= order[dst.kind]


def _name(npd) -> str:
    from ember._dtype import SCALAR_NAMES, from_np

    return SCALAR_NAMES[from_np(npd).name]


# ---- Tensor methods and operators backed by this file ----------------------------------------
def _radd(self, other):
    return binary(Add, other, self)


def _rsub(self, other):
    return sub(other, self)


def _rmul(self, other):
    return binary(Mul, other, self)


def _rtruediv(self, other):
    # NOTE: matches torch: s / t is reciprocal(t) * s (its rounding and its MulBackward0 node)
    return mul(self.reciprocal(), other)


def _rpow(self, other):
    return binary(PowScalarTensor, other, self)


def _rfloordiv(self, other):
    return floor_divide(other, self)


__all__ = [
    "add",
    "sub",
    "subtract",
    "rsub",
    "mul",
    "multiply",
    "div",
    "divide",
    "true_divide",
    "floor_divide",
    "neg",
    "negative",
    "pow",
]

_UFUNC_OF = {add: "add", sub: "subtract", mul: "multiply", div: "true_divide"}

Tensor.add = add
Tensor.sub = Tensor.subtract = sub
Tensor.mul = Tensor.multiply = mul
Tensor.div = Tensor.divide = Tensor.true_divide = div
Tensor.floor_divide = floor_divide
Tensor.neg = Tensor.negative = neg
Tensor.pow = pow
Tensor.__add__ = lambda self, other: binary(Add, self, other)
Tensor.__radd__ = _radd
Tensor.__sub__ = lambda self, other: sub(self, other)
Tensor.__rsub__ = _rsub
Tensor.__mul__ = lambda self, other: binary(Mul, self, other)
Tensor.__rmul__ = _rmul
Tensor.__truediv__ = lambda self, other: div(self, other)
Tensor.__rtruediv__ = _rtruediv
Tensor.__floordiv__ = floor_divide
Tensor.__rfloordiv__ = _rfloordiv
Tensor.__pow__ = pow
Tensor.__rpow__ = _rpow
Tensor.__neg__ = neg
Tensor.__pos__ = lambda self: self
Tensor.__iadd__ = Tensor.add_ = inplace(add)
Tensor.__isub__ = Tensor.sub_ = Tensor.subtract_ = inplace(sub)
Tensor.__imul__ = Tensor.mul_ = Tensor.multiply_ = inplace(mul)
Tensor.__itruediv__ = Tensor.div_ = Tensor.divide_ = Tensor.true_divide_ = inplace(div)
Tensor.__ifloordiv__ = Tensor.floor_divide_ = inplace(floor_divide)
Tensor.__ipow__ = Tensor.pow_ = inplace(pow)
Tensor.neg_ = Tensor.negative_ = inplace(neg)
