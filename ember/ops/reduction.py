"""Reductions over a set of axes: ``sum``, ``nansum``, ``mean``, ``nanmean``, ``prod``,
``var``, ``std``, ``var_mean``, ``std_mean``, ``logsumexp``, ``all``, ``any``,
``count_nonzero`` and ``norm`` (the norms themselves live in ``ember.linalg``), and the helpers
that the reduction family's other files share. Their sibling files: ``extrema.py`` (max, min,
amax, argmax...), ``sorting.py`` (sort, topk, median, mode...), ``cumulative.py`` (cumsum,
cumprod, cummax, cummin), and ``_selection.py``, the machinery of every selection.

A reduction's backward broadcasts the gradient back over the reduced axes.

Masks in backward (ties, zeros, NaNs) are computed from the saved arrays and enter as constant
tensors: they are piecewise constant, so their derivative is zero, as in PyTorch.
"""

from __future__ import annotations

import builtins
import math
import warnings

from ember import _autocast as _ac
from ember import _dtype, backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.ops._dispatch import cj, unary, wrap_dims, xp_of
from ember.ops.broadcast import expand_to
from ember.ops.pointwise import _out
from ember.tensor import Tensor, _wrap, _wrap_dim

_ARRAY_TYPES = backend._BY_TYPE
_F16 = _dtype.float16._np
_F32 = _dtype.float32._np
_I64 = _dtype.int64._np
_U8 = _dtype.uint8._np
_TORCH_NAMES = _dtype.SCALAR_NAMES


# ---- helpers ---------------------------------------------------------------------------------
def _tname(np_dtype) -> str:
    return _TORCH_NAMES[_dtype.from_np(np_dtype).name]


def _axes(input: Tensor, dim):
    """``dim`` (None, int or sequence) as a tuple of axes, or None for "all axes".

    NOTE: matches torch: an empty dim list reduces every dim, and a 0-d tensor accepts dim 0/-1.
    """
    nd = input._data.ndim
    axes = wrap_dims(dim, nd)
    if axes is None or nd == 0 or (not axes and not isinstance(dim, int)):
        return None
    return axes


def _numel_reduced(shape, axes) -> int:
    return math.prod(s for i, s in enumerate(shape) if axes is None or i in axes)


def _keep_shape(shape, axes):
    """The shape of a reduction over ``axes`` with ``keepdim=True``."""
    return tuple(1 if axes is None or i in axes else s for i, s in enumerate(shape))


def _expand_back(g, shape, axes, keepdim):
    """Broadcast a reduced gradient back to the input ``shape``."""
    if not keepdim and (axes is not None or g.ndim):  # a 0-d total expands as it is
        g = g.reshape(_keep_shape(shape, axes))
    return expand_to(g, shape)


def _keep(t, shape, axes, keepdim):
    """A reduced tensor reshaped to the keepdim shape (so it broadcasts against the input)."""
    return t if keepdim else t.reshape(_keep_shape(shape, axes))


def _acc_dtype(npd):
    # NOTE: matches torch: half-precision reductions accumulate in float32
    return _F32 if npd.char in "eE" else npd  # float16, bfloat16


def _sum(xp, a, axes, keepdim, npd):
    if npd.char in "eE":  # as _acc_dtype, spelled out: this runs for every sum
        return xp.add.reduce(a, axis=axes, dtype=_F32, keepdims=keepdim).astype(npd)
    # ``add.reduce`` is what ``a.sum`` calls, after a Python wrapper
    return xp.add.reduce(a, axis=axes, dtype=npd, keepdims=keepdim)


def _check_nonempty(input: Tensor, axes, op: str, error=IndexError):
    """PyTorch's errors for reductions without an identity (max, argmax...) on empty input."""
    shape = input._data.shape
    if axes is None:
        if input._data.size == 0:
            if error is IndexError:
                raise IndexError(
                    f"{op}(): Expected reduction dim to be specified for input.numel() == 0."
                )
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return
    for d in axes:
        if shape and shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _out_tuple(result, out):
    if out is None:
        return result
    for o, r in zip(out, result, strict=True):
        _out(r, o)
    return type(result)(*out)


def _const(array, like):
    """A constant tensor (no graph) holding ``array`` cast to ``like``'s dtype."""
    return _wrap(array.astype(like.dtype) if array.dtype != like.dtype else array)


# ---- sum, nansum, mean, nanmean --------------------------------------------------------------
class Sum(Function):
    _array_forward = True
    _node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, axes, keepdim, npd):
        ctx.shape, ctx.axes, ctx.keepdim = a.shape, axes, keepdim
        return _sum(xp_of(a), a, axes, keepdim, npd)

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g, ctx.shape, ctx.axes, ctx.keepdim), None, None, None


class SumAll(Function):
    """The total of a floating tensor, ``x.sum()``: the usual last step of a loss, so it has its
    own Function, with one argument and no per-axis handling (and PyTorch's node name for it).
    ``SumAllTo`` is the same total with ``keepdim`` or ``dtype`` given, or of integers."""

    _array_forward = True
    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        xp = _ARRAY_TYPES[a.__class__]
        if a.dtype.char in "eE":
            return _sum(xp, a, None, False, a.dtype)
        # into a fresh 0-d array: NumPy would return a scalar, to be wrapped again
        return xp.add.reduce(a, None, None, xp.empty((), a.dtype))

    @staticmethod
    def backward(ctx, g):
        return expand_to(g, ctx.shape)  # g is 0-d: it broadcasts to the input as it is


class SumAllTo(Function):
    _array_forward = True
    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a, keepdim, npd):
        ctx.shape = a.shape
        return _sum(_ARRAY_TYPES[a.__class__], a, None, keepdim, npd)

    @staticmethod
    def backward(ctx, g):
        # g is 0-d, or all ones in shape with keepdim: it broadcasts to the input as it is
        return expand_to(g, ctx.shape), None, None


class NanSum(Function):
    _array_forward = True
    _node_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, a, axes, keepdim, npd):
        ctx.axes, ctx.keepdim = axes, keepdim
        xp = xp_of(a)
        if a.dtype.kind in "fV":
            ctx.save_for_backward(a)
            a = xp.where(xp.isnan(a), 0, a)
        return _sum(xp, a, axes, keepdim, npd)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        xd = x._data
        keep = _const(~xp_of(xd).isnan(xd), xd)
        return _keep(g, xd.shape, ctx.axes, ctx.keepdim) * keep, None, None, None


def _sum_dtype(a: Tensor, dtype):
    if dtype is not None:
        return _dtype.to_np(dtype)
    # NOTE: matches torch: integer and bool sums accumulate in int64
    if a._data.dtype.kind in "biu":
        return _I64
    return a._data.dtype


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:  # noqa: A001
    """Sum over ``dim`` (an int, a sequence of ints, or every dim when omitted).

    Integer and bool inputs sum in int64 unless ``dtype`` says otherwise.

    Example:
        >>> ember.ones(2, 3).sum(1)
        tensor([3., 3.])
    """
    if dim is None:
        if not keepdim and dtype is None and out is None and input._data.dtype.kind in "fV":
            return unary(SumAll, input)  # ``loss.sum()``
        return _out(unary(SumAllTo, input, keepdim, _sum_dtype(input, dtype)), out)
    axes = _axes(input, dim)
    return _out(unary(Sum, input, axes, keepdim, _sum_dtype(input, dtype)), out)


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Sum over ``dim`` treating NaNs as zero.

    Example:
        >>> ember.nansum(ember.tensor([1.0, float("nan"), 2.0]))
        tensor(3.)
    """
    if input._data.dtype.kind == "c":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    return _out(unary(NanSum, input, _axes(input, dim), keepdim, _sum_dtype(input, dtype)), out)


class Mean(Function):
    _array_forward = True
    _node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, axes, keepdim, npd):
        n = _numel_reduced(a.shape, axes)
        ctx.shape, ctx.axes, ctx.keepdim, ctx.n = a.shape, axes, keepdim, n
        acc = _acc_dtype(npd)
        # sum / n rather than xp.mean: an empty mean is NaN without NumPy's warning
        r = xp_of(a).add.reduce(a, axes, acc, None, keepdim) / acc.type(n)
        return r.astype(npd) if acc != npd else r

    @staticmethod
    def backward(ctx, g):
        return _expand_back(g / ctx.n, ctx.shape, ctx.axes, ctx.keepdim), None, None, None


class MeanAll(Mean):
    _node_name = "MeanBackward0"


def _float_dtype_for(input: Tensor, dtype, op: str):
    npd = input._data.dtype if dtype is None else _dtype.to_np(dtype)
    if npd.kind not in "fcV":
        what = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            f"{op}(): could not infer output dtype. {what} dtype must be either a floating point "
            f"or complex dtype. Got: {_tname(npd)}"
        )
    return npd


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Mean over ``dim`` (all dims when omitted); floating inputs only, as in PyTorch.

    Example:
        >>> ember.tensor([[1.0, 2.0], [3.0, 4.0]]).mean(0)
        tensor([2., 3.])
    """
    npd = _float_dtype_for(input, dtype, "mean")
    cls = MeanAll if dim is None else Mean
    return _out(unary(cls, input, _axes(input, dim), keepdim, npd), out)


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Mean over ``dim`` of the non-NaN elements.

    Example:
        >>> ember.nanmean(ember.tensor([1.0, float("nan"), 3.0]))
        tensor(2.)
    """
    if input._data.dtype.kind not in "fV":
        if input._data.dtype.kind == "c":
            raise RuntimeError("nansum on CPU does not support complex inputs")
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{_tname(input._data.dtype)}"
        )
    xd = input._data
    xp = xp_of(xd)
    axes = _axes(input, dim)
    count = xp.sum(~xp.isnan(xd), axis=axes, keepdims=keepdim, dtype=_I64)
    # NOTE: matches torch: nanmean is nansum / count (its grad_fn is DivBackward0)
    return _out(nansum(input, dim, keepdim, dtype=dtype) / _wrap(xp.asarray(count)), out)


# ---- prod ------------------------------------------------------------------------------------
def _to_last(t: Tensor, axis):
    """``t`` with the reduced axis last (``axis`` None: flattened)."""
    if axis is None:
        return t.reshape(-1)
    return t.transpose(axis, -1) if t.ndim else t.reshape(1)


def _from_last(t: Tensor, shape, axis):
    if axis is None or not shape:
        return t.reshape(shape)
    return t.transpose(axis, -1)


def _exclusive_eye(xt: Tensor):
    """``E[..., i, j] = x_j`` for ``j != i`` and 1 on the diagonal: row ``i`` holds the factors
    of "everything but ``x_i``", so products over rows are polynomials in x (exact at zeros)."""
    xp = xp_of(xt._data)
    n = xt.shape[-1]
    eye = xp.eye(n, dtype=xt._data.dtype)
    return xt.unsqueeze(-2) * _wrap(1 - eye) + _wrap(eye)


class Prod(Function):
    _array_forward = True
    _node_name = "ProdBackward1"

    @staticmethod
    def forward(ctx, a, axis, keepdim, npd):
        ctx.axis, ctx.keepdim = axis, keepdim
        acc = _acc_dtype(npd)
        xp = xp_of(a)
        r = xp.asarray(xp.prod(a, axis=axis, keepdims=keepdim, dtype=acc))
        r = r.astype(npd) if acc != npd else r
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        xd = x._data
        xp = xp_of(xd)
        axes = None if ctx.axis is None else (ctx.axis,)
        g = _keep(g, xd.shape, axes, ctx.keepdim)
        if xp.device_type == "meta" or not xp.any(xd == 0):
            return g * cj(_keep(out, xd.shape, axes, ctx.keepdim) / x), None, None, None
        return g * cj(_prod_others(x, ctx.axis)), None, None, None


def _prod_others(x: Tensor, axis):
    """``prod_{j != i} x_j`` along ``axis`` (all elements if None), exact with zeros."""
    xt = _to_last(x, axis)
    if _gm.state.enabled:
        # create_graph: a polynomial formula, so the next derivative is right at zeros too
        # (O(n^2) memory per slice, only on this path, as PyTorch's double-backward path).
        others = prod(_exclusive_eye(xt), -1)
    else:
        d = xt._data
        xp = xp_of(d)
        zero = d == 0
        nz = zero.sum(axis=-1, keepdims=True)
        p_nonzero = xp.prod(xp.where(zero, 1, d), axis=-1, keepdims=True)
        with_safe = xp.where(zero, 1, d)
        # no zero: prod / x_i; one zero: prod of the others at the zero, 0 elsewhere; more: 0
        r = xp.where(nz == 0, p_nonzero / with_safe, xp.where(zero & (nz == 1), p_nonzero, 0))
        others = _wrap(r.astype(d.dtype))
    return _from_last(others, x.shape, axis)


class ProdAll(Prod):
    _node_name = "ProdBackward0"


def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Product of all elements, or over the single dimension ``dim``.

    Integer and bool inputs multiply in int64. The gradient is exact with zeros in the input.

    Example:
        >>> ember.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(1)
        tensor([ 2., 12.])
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(prod, input, dim, keepdim, dtype=dtype)
    if dim is not None and not isinstance(dim, int):
        raise TypeError(
            f"prod(): argument 'dim' must be int, not {type(dim).__name__} (PyTorch's prod "
            "reduces one dim or all of them)"
        )
    npd = _sum_dtype(input, dtype)
    if dim is None:
        return _out(unary(ProdAll, input, None, False, npd), out)
    axis = _wrap_dim(dim, input._data.ndim)
    return _out(unary(Prod, input, axis if input._data.ndim else None, keepdim, npd), out)


# ---- var, std, var_mean, std_mean ------------------------------------------------------------
def _dof_check(n, correction, op):
    if n - correction <= 0:
        # NOTE: matches torch: a warning, and inf/NaN in the result
        warnings.warn(
            f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=4,
        )


class Var(Function):
    _array_forward = True
    _node_name = "VarBackward0"

    @staticmethod
    def forward(ctx, a, axes, correction, keepdim):
        ctx.axes, ctx.correction, ctx.keepdim = axes, correction, keepdim
        ctx.save_for_backward(a)
        return _var(a, axes, correction, keepdim)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return _var_backward(ctx, g, x), None, None, None


def _var(a, axes, correction, keepdim):
    xp = xp_of(a)
    n = _numel_reduced(a.shape, axes)
    acc = _acc_dtype(a.dtype)
    a2 = a.astype(acc, copy=False)
    # two passes (mean, then squared deviations): NumPy's own algorithm, without its warnings
    m = xp.sum(a2, axis=axes, keepdims=True) / acc.type(n)
    d = a2 - m
    if d.dtype.kind == "c":  # |d|^2: a complex input's variance is real
        d = xp.abs(d)
        acc = d.dtype
    v = xp.sum(d * d, axis=axes, keepdims=keepdim) / acc.type(builtins.max(0, n - correction))
    if a.dtype.kind == "c":
        return v.astype(_dtype.from_np(a.dtype).to_real()._np, copy=False)
    return v.astype(a.dtype) if acc != a.dtype else v


def _var_backward(ctx, g, x):
    shape = x._data.shape
    dof = _numel_reduced(shape, ctx.axes) - ctx.correction
    scale = 2.0 / dof if dof != 0 else math.inf
    g = _keep(g, shape, ctx.axes, ctx.keepdim)
    # d var / dx = 2 (x - mean) / (n - correction)
    return g * scale * (x - x.mean(ctx.axes, keepdim=True))


class Std(Function):
    _array_forward = True
    _node_name = "StdBackward0"

    @staticmethod
    def forward(ctx, a, axes, correction, keepdim):
        ctx.axes, ctx.correction, ctx.keepdim = axes, correction, keepdim
        xp = xp_of(a)
        r = xp.asarray(xp.sqrt(_var(a, axes, correction, keepdim)))
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        od = out._data
        zero = od == 0
        # d std = d var / (2 std); NOTE: matches torch: 0 where std == 0 (a safe denominator
        # keeps 0/0 out of the graph)
        safe = out + _const(zero, od)
        gv = g / (2 * safe) * _const(~zero, od)
        return _var_backward(ctx, gv, x), None, None, None


def _var_args(input, dim, unbiased, keepdim, correction, op):
    # NOTE: matches torch: var(x, True) and var(x, dim, False) are the old "unbiased" forms
    if isinstance(dim, bool):
        if unbiased is not None:
            raise TypeError(f"{op}(): got unbiased twice (positionally as dim and as unbiased)")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}(): pass either unbiased or correction, not both")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError(
            f"std and var only support floating point and complex dtypes (got "
            f"{_tname(input._data.dtype)} in {op})"
        )
    axes = _axes(input, dim)
    _dof_check(_numel_reduced(input._data.shape, axes), correction, op)
    return axes, correction


def var(
    input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, out=None
) -> Tensor:
    """Variance over ``dim`` with Bessel's ``correction`` (default 1; ``unbiased=False`` is 0).

    Example:
        >>> ember.tensor([1.0, 2.0, 3.0, 4.0]).var()
        tensor(1.6667)
    """
    axes, correction = _var_args(input, dim, unbiased, keepdim, correction, "var")
    return _out(unary(Var, input, axes, correction, keepdim), out)


def std(
    input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, out=None
) -> Tensor:
    """Standard deviation over ``dim`` (see ``var`` for ``correction``).

    Example:
        >>> ember.tensor([1.0, 3.0]).std()
        tensor(1.4142)
    """
    axes, correction = _var_args(input, dim, unbiased, keepdim, correction, "std")
    return _out(unary(Std, input, axes, correction, keepdim), out)


def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """``(var, mean)`` over ``dim`` (a plain tuple, as in PyTorch).

    Example:
        >>> ember.var_mean(ember.tensor([1.0, 3.0]))
        (tensor(2.), tensor(2.))
    """
    axes, correction = _var_args(input, dim, unbiased, keepdim, correction, "var_mean")
    return unary(Var, input, axes, correction, keepdim), unary(
        Mean, input, axes, keepdim, input._data.dtype
    )


def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """``(std, mean)`` over ``dim`` (a plain tuple, as in PyTorch).

    Example:
        >>> ember.std_mean(ember.tensor([1.0, 3.0]))
        (tensor(1.4142), tensor(2.))
    """
    axes, correction = _var_args(input, dim, unbiased, keepdim, correction, "std_mean")
    return unary(Std, input, axes, correction, keepdim), unary(
        Mean, input, axes, keepdim, input._data.dtype
    )


# ---- logsumexp -------------------------------------------------------------------------------
def _real_part(xp, a):
    """``a.real`` (a meta array has no ``.real``: only its shape and dtype matter)."""
    if xp.device_type == "meta":
        return a.astype(_dtype.from_np(a.dtype).to_real()._np)
    return a.real


class LogSumExp(Function):
    _array_forward = True
    _node_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx, a, axes, keepdim):
        ctx.axes, ctx.keepdim = axes, keepdim
        xp = xp_of(a)
        acc = _acc_dtype(a.dtype)
        a2 = a.astype(acc, copy=False)
        if _numel_reduced(a.shape, axes) == 0:
            r = xp.sum(a2, axis=axes, keepdims=keepdim) - acc.type(math.inf)  # log(0)
        else:
            # shift by the max so exp cannot overflow; an infinite max shifts by 0 instead
            # (complex: by the largest real part, as torch)
            m = xp.max(_real_part(xp, a2) if a2.dtype.kind == "c" else a2, axis=axes, keepdims=True)
            m = xp.where(xp.isfinite(m), m, 0).astype(acc, copy=False)
            r = xp.log(xp.sum(xp.exp(a2 - m), axis=axes, keepdims=True)) + m
            if not keepdim:
                r = r.reshape(
                    [s for i, s in enumerate(a.shape) if axes is not None and i not in axes]
                )
        r = xp.asarray(r.astype(a.dtype) if acc != a.dtype else r)
        ctx.save_for_backward(a, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        shape = x._data.shape
        out = _keep(out, shape, ctx.axes, ctx.keepdim)
        # d lse / dx = exp(x - lse), the softmax
        return _keep(g, shape, ctx.axes, ctx.keepdim) * cj((x - out).exp()), None, None


def logsumexp(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """``log(sum(exp(input)))`` over ``dim``, computed without overflow.

    Integer inputs give the default float dtype.

    Example:
        >>> ember.logsumexp(ember.tensor([0.0, 0.0]), 0)
        tensor(0.6931)
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"logsumexp(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if input._data.dtype.kind not in "fcV":
        input = input.to(_dtype.get_default_dtype())
    return _out(unary(LogSumExp, input, _axes(input, dim), keepdim), out)


# ---- all, any, count_nonzero -----------------------------------------------------------------
def _logical(input, dim, keepdim, is_all):
    a = input._data
    xp = xp_of(a)
    # NOTE: matches torch: all/any with dim=() reduce nothing (unlike sum, which reduces all)
    if dim is None:
        axes = None
    elif isinstance(dim, int):
        axes = (_wrap_dim(dim, a.ndim),) if a.ndim else None
    else:
        axes = wrap_dims(dim, a.ndim) if a.ndim else ()
    r = xp.asarray((xp.all if is_all else xp.any)(a, axis=axes, keepdims=keepdim))
    # NOTE: matches torch: uint8 input gives uint8 output (other dtypes give bool)
    return _wrap(r.astype(_U8) if a.dtype == _U8 else r)


def all(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:  # noqa: A001
    """Whether every element (over ``dim``) is nonzero; a bool tensor.

    Example:
        >>> ember.tensor([[1, 0], [1, 1]]).all(1)
        tensor([False,  True])
    """
    return _out(_logical(input, dim, keepdim, True), out)


def any(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:  # noqa: A001
    """Whether some element (over ``dim``) is nonzero; a bool tensor.

    Example:
        >>> ember.tensor([0.0, 2.0]).any()
        tensor(True)
    """
    return _out(_logical(input, dim, keepdim, False), out)


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """Number of nonzero elements over ``dim`` (all dims when None), int64.

    Example:
        >>> ember.count_nonzero(ember.tensor([[0, 1], [2, 3]]), 0)
        tensor([1, 2])
    """
    a = input._data
    xp = xp_of(a)
    return _wrap(xp.asarray(xp.sum(a != 0, axis=_axes(input, dim), dtype=_I64)))


# ---- norm (torch.norm: delegates to ember.linalg, as PyTorch does) ---------------------------
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """Vector or matrix norm (PyTorch's ``torch.norm``): ``p`` a number (incl. ``inf``, ``-inf``
    and 0) gives a vector norm over ``dim`` (all dims when None); ``'fro'`` the 2-norm over up
    to two dims; ``'nuc'`` the nuclear norm over two dims.

    Example:
        >>> ember.tensor([3.0, 4.0]).norm()
        tensor(5.)
    """
    from ember import linalg  # the norms live in ember.linalg (which imports this file)

    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _out(linalg.vector_norm(input, 2, dims, keepdim, dtype=dtype), out)
        if dims is None:
            dims = list(range(input.ndim))
        return _out(linalg.matrix_norm(input, p, dims, keepdim, dtype=dtype), out)
    return _out(linalg.vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype), out)


__all__ = [
    "sum",
    "nansum",
    "mean",
    "nanmean",
    "prod",
    "var",
    "std",
    "var_mean",
    "std_mean",
    "logsumexp",
    "all",
    "any",
    "count_nonzero",
    "norm",
]

Tensor.sum = sum
Tensor.nansum = nansum
Tensor.mean = mean
Tensor.nanmean = nanmean
Tensor.prod = prod
Tensor.var = var
Tensor.std = std
Tensor.logsumexp = logsumexp
Tensor.all = all
Tensor.any = any
Tensor.count_nonzero = count_nonzero
Tensor.norm = norm
