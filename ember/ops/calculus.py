"""Finite differences, sums and scans: ``diff``, ``gradient``, ``trapezoid`` (``trapz``),
``cumulative_trapezoid`` and ``logcumsumexp``.

All but ``logcumsumexp`` are composed from slicing and arithmetic, so their gradients (to any
order) and meta shapes come from those ops. ``logcumsumexp`` is a primitive: one
``logaddexp.accumulate`` forward (exact for any spread of values), and a backward that works
in log space with the positive and negative parts of the incoming gradient apart, so it never
overflows; it is written with ``logcumsumexp`` itself and differentiates again.
"""

from __future__ import annotations

from ember import _dtype
from ember.autograd.function import Function
from ember.ops._dispatch import unary, xp_of
from ember.ops.joining import cat
from ember.ops.math import exp, log
from ember.ops.pointwise import _out
from ember.ops.rearrange import flip
from ember.ops.ternary import where
from ember.tensor import Tensor, _wrap_dim


# ---- diff ------------------------------------------------------------------------------------
def _side(t, input: Tensor, what: str):
    if t is None:
        return None
    if not isinstance(t, Tensor):
        raise TypeError(f"diff(): argument '{what}' must be Tensor, not {type(t).__name__}")
    if t.dim() != input.dim():
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    return t


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None, *, out=None):
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first);
    on bool tensors, ``!=`` of neighbours.

    Example:
        >>> ember.diff(ember.tensor([1, 3, 7]))
        tensor([2, 4])
    """
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.dim())
    pre, app = _side(prepend, input, "prepend"), _side(append, input, "append")
    x = input
    if pre is not None or app is not None:
        x = cat([t for t in (pre, x, app) if t is not None], d)
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = hi != lo if x.dtype is _dtype.bool else hi - lo
    if n == 0 and x is input:
        x = input.clone()
    return _out(x, out)


# ---- trapezoid, cumulative_trapezoid -----------------------------------------------------------
def _spacing(y: Tensor, x, dx, d: int, op: str):
    """The spacings along ``d`` as a number or a tensor that broadcasts against ``y``'s
    pairs of neighbours."""
    if x is not None and dx is not None:
        raise TypeError(f"{op}() received both x and dx; pass only one of them")
    if x is None:
        return 1 if dx is None else dx
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'x' must be Tensor, not {type(x).__name__}")
    if x.dim() == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        h = x[1:] - x[:-1]
        shape = [1] * y.dim()
        shape[d] = h.shape[0]
        return h.reshape(shape)
    return diff(x, dim=d)


def _pair_sums(y: Tensor, d: int) -> Tensor:
    m = y.shape[d]
    return y.narrow(d, 1, m - 1) + y.narrow(d, 0, m - 1)


def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoid rule integral of ``y`` along ``dim``, at points ``x`` (1-D, or shaped
    like ``y``) or evenly spaced ``dx`` apart (default 1).

    Example:
        >>> ember.trapezoid(ember.tensor([1.0, 4.0, 9.0]))
        tensor(9.)
    """
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, y.dim())
    h = _spacing(y, x, dx, d, "trapezoid")
    if y.shape[d] == 0:
        return (y.sum(d) * 0.0).to(_float_of(y))
    if isinstance(h, Tensor):
        return (h * _pair_sums(y, d)).sum(d) / 2.0
    # NOTE: matches torch: even spacing as the sum less half the end points, times dx
    m = y.shape[d]
    ends = y.narrow(d, 0, 1).squeeze(d) + y.narrow(d, m - 1, 1).squeeze(d)
    return (y.sum(d) - ends * 0.5) * h


def trapz(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """Alias of :func:`trapezoid`.

    Example:
        >>> ember.trapz(ember.tensor([1.0, 4.0, 9.0]), dx=2.0)
        tensor(18.)
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoid rule integral of ``y`` along ``dim`` (one fewer element along
    ``dim``), at points ``x`` or evenly spaced ``dx`` apart.

    Example:
        >>> ember.cumulative_trapezoid(ember.tensor([1.0, 4.0, 9.0]))
        tensor([2.5000, 9.0000])
    """
    if y.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, y.dim())
    h = _spacing(y, x, dx, d, "cumulative_trapezoid")
    if y.shape[d] == 0:
        return y.to(_float_of(y))
    return (h * _pair_sums(y, d) / 2.0).cumsum(d)


def _float_of(t: Tensor):
    return t.dtype if t.is_floating_point() else _dtype.get_default_dtype()


# ---- gradient --------------------------------------------------------------------------------
def _coord_weights(h, d: int, nd: int, n: int):
    """Spacing ``h`` (number or 1-D coordinates) as what the stencils need."""
    if isinstance(h, Tensor):
        shape = [1] * nd
        shape[d] = -1

        def at(t):
            return t.reshape(shape)

        dxs = h[1:] - h[:-1]
        return at, dxs
    return None, h


def _gradient_one(f: Tensor, h, d: int, edge_order: int) -> Tensor:
    n, nd = f.shape[d], f.dim()

    def s(start, length):
        return f.narrow(d, start, length)

    at, dxs = _coord_weights(h, d, nd, n)
    if at is None:  # even spacing
        inner = (s(2, n - 2) - s(0, n - 2)) / (2.0 * dxs) if n > 2 else None
        if edge_order == 1:
            first = (s(1, 1) - s(0, 1)) / dxs
            last = (s(n - 1, 1) - s(n - 2, 1)) / dxs
        else:
            first = (s(0, 1) * -1.5 + s(1, 1) * 2.0 - s(2, 1) * 0.5) / dxs
            last = (s(n - 3, 1) * 0.5 - s(n - 2, 1) * 2.0 + s(n - 1, 1) * 1.5) / dxs
    else:
        # second-order stencils on uneven coordinates (one-sided at the edges)
        d1, d2 = dxs[:-1], dxs[1:]
        inner = None
        if n > 2:
            a = at(-d2 / (d1 * (d1 + d2)))
            b = at((d2 - d1) / (d1 * d2))
            c = at(d1 / (d2 * (d1 + d2)))
            inner = a * s(0, n - 2) + b * s(1, n - 2) + c * s(2, n - 2)
        if edge_order == 1:
            first = (s(1, 1) - s(0, 1)) / at(dxs[:1])
            last = (s(n - 1, 1) - s(n - 2, 1)) / at(dxs[-1:])
        else:
            h1, h2 = dxs[0:1], dxs[1:2]
            a = -(2.0 * h1 + h2) / (h1 * (h1 + h2))
            b = (h1 + h2) / (h1 * h2)
            c = -h1 / (h2 * (h1 + h2))
            first = at(a) * s(0, 1) + at(b) * s(1, 1) + at(c) * s(2, 1)
            h1, h2 = dxs[-2:-1], dxs[-1:]
            a = h2 / (h1 * (h1 + h2))
            b = -(h2 + h1) / (h1 * h2)
            c = (2.0 * h2 + h1) / (h2 * (h1 + h2))
            last = at(a) * s(n - 3, 1) + at(b) * s(n - 2, 1) + at(c) * s(n - 1, 1)
    parts = [first] + ([inner] if inner is not None else []) + [last]
    return cat(parts, d)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """Estimates of the derivatives of ``input`` along each of ``dim`` (default all) by
    central differences inside and one-sided ones of order ``edge_order`` at the ends;
    ``spacing`` is one number, one number per dim, or one coordinate tensor per dim.

    Example:
        >>> ember.gradient(ember.tensor([1.0, 4.0, 9.0, 16.0]))
        (tensor([3., 4., 6., 7.]),)
    """
    nd = input.dim()
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [_wrap_dim(dim, nd)]
    else:
        dims = [_wrap_dim(k, nd) for k in dim]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                "and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}."
            )
        hs = list(spacing)
    elif isinstance(spacing, Tensor):
        raise TypeError(
            "gradient(): argument 'spacing' must be a number or a tuple of numbers or "
            "Tensors, not Tensor"
        )
    else:
        hs = [spacing] * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for k in dims:
        if input.shape[k] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    f = input if input.is_floating_point() else input.to(_dtype.get_default_dtype())
    out = []
    for k, h in zip(dims, hs):
        if isinstance(h, Tensor):
            if h.dim() == 0:
                h = h.item()
            elif not h.is_floating_point():
                h = h.to(f.dtype)
        out.append(_gradient_one(f, h, k, edge_order))
    return tuple(out)


# ---- logcumsumexp ----------------------------------------------------------------------------
class Logcumsumexp(Function):
    _array_forward = True
    _node_name = "LogcumsumexpBackward0"

    @staticmethod
    def forward(ctx, a, axis):
        ctx.axis = axis
        xp = xp_of(a)
        if a.ndim == 0:
            out = a.copy()
        elif a.dtype.kind == "c":
            meta = xp.device_type == "meta"
            out = a.astype(a.dtype) if meta else _complex_logcumsumexp(xp, a, axis)
        else:
            out = xp.logaddexp.accumulate(a, axis=axis)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        if x.dim() == 0:
            return g, None
        axis = ctx.axis
        if x._data.dtype.kind == "c":
            # d out_k / d x_i = exp(x_i - out_k) for k >= i (holomorphic: conjugated); the
            # sum over k is a reversed cumsum
            w = flip(flip(g * exp(-out).conj(), axis).cumsum(axis), axis)
            return w * exp(x).conj(), None
        # d out_k / d x_i = exp(x_i - out_k) for k >= i: the sum over k is a reversed
        # log-cumsum-exp of log|g_k| - out_k, for the positive and negative g_k apart
        pos, neg = g > 0, g < 0
        lp = where(pos, log(where(pos, g, 1.0)) - out, float("-inf"))
        ln = where(neg, log(where(neg, -g, 1.0)) - out, float("-inf"))

        def rev(t):
            return flip(Logcumsumexp.apply(flip(t, axis), axis), axis)

        return exp(x + rev(lp)) - exp(x + rev(ln)), None


def _complex_log_add_exp(xp, x, y):
    """``log(exp(x) + exp(y))`` for complex arrays as torch computes it (``logaddexp`` and
    ``logcumsumexp`` alike): the operand with the larger real part factored out
    (``log1p(e^(min - max)) + max``), two equal infinite real parts handled apart, nan in
    either operand giving nan."""
    # NOTE: matches torch: on equal real parts the second operand is the "min" one
    lt = x.real < y.real
    lo, hi = xp.where(lt, x, y), xp.where(lt, y, x)
    with xp.errstate(all="ignore"):  # inf - inf is replaced below
        r = xp.log1p(xp.exp(lo - hi)) + hi
        tie = xp.isinf(lo.real) & (lo.real == hi.real)
        if tie.any():
            r = xp.where(tie & (lo.real < 0), lo, r)
            r = xp.where(tie & (lo.real > 0), xp.log(xp.exp(lo) + xp.exp(hi)), r)
    nan = xp.isnan(x) | xp.isnan(y)
    if nan.any():
        r = xp.where(nan, xp.asarray(complex("nan+nanj"), dtype=r.dtype), r)
    return r


def _complex_logcumsumexp(xp, a, axis):
    """The running complex log-add-exp along ``axis`` (a loop over that axis only; NumPy has
    no complex ``logaddexp`` ufunc to accumulate)."""
    src = xp.moveaxis(a, axis, 0)
    out = xp.empty_like(src)
    acc = out[0] = src[0]
    for k in range(1, src.shape[0]):
        acc = out[k] = _complex_log_add_exp(xp, acc, src[k])
    return xp.moveaxis(out, 0, axis)


def logcumsumexp(input: Tensor, dim: int, *, out=None) -> Tensor:
    """``log(cumsum(exp(input), dim))``, computed without overflow.

    Example:
        >>> ember.logcumsumexp(ember.tensor([0.0, 0.0]), 0)
        tensor([0.0000, 0.6931])
    """
    if not input.is_floating_point() and input._data.dtype.kind != "c":
        raise NotImplementedError(
            f'"logcumsumexp_out_cpu" not implemented for '
            f"'{_dtype.SCALAR_NAMES[input.dtype.__repr__().split('.')[-1]]}'"
        )
    axis = _wrap_dim(dim, input.dim())
    return _out(unary(Logcumsumexp, input, axis), out)


__all__ = [
    "diff",
    "gradient",
    "trapezoid",
    "trapz",
    "cumulative_trapezoid",
    "logcumsumexp",
]

Tensor.diff = diff
Tensor.logcumsumexp = logcumsumexp
