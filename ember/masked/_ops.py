"""Masked reductions and normalizations (PyTorch's ``torch.masked._ops``).

Each op replaces the masked-out elements of ``input`` by the op's identity (0 for sums, 1 for
products, -inf for amax/softmax, +inf for amin/softmin...) with ``where`` and runs the plain op
on the result, so values and gradients are those of the composition, exactly as in torch:
the gradient reaching a masked-out element is 0. Ops with no identity (mean, var, std, median)
divide by the count of masked-in elements, or let a fully masked-out slice come out ``nan``.

Strided tensors only: torch also reduces sparse COO/CSR inputs into sparse results; ember
raises ``NotImplementedError`` for them.
"""

from __future__ import annotations

import math

import ember
from ember.tensor import Tensor

_PROMOTE_TO_INT64 = frozenset(("uint8", "bool", "int8", "int16", "int32"))


def _is_mt(obj) -> bool:
    from ember.masked.maskedtensor import MaskedTensor

    return isinstance(obj, MaskedTensor)


def _reduction_identity(op_name: str, input: Tensor, *args):
    """The fill value for masked-out elements: an element equal to it cannot change the
    op's result (None where there is none)."""
    dtype = input.dtype
    device = input.device
    isfloat = dtype.is_floating_point
    signed_or_u8 = (ember.is_signed(input) and not dtype.is_complex) or dtype == ember.uint8

    def full(v):
        return ember.tensor(v, dtype=dtype, device=device)

    if op_name in ("sum", "cumsum"):
        return full(0)
    if op_name in ("prod", "cumprod"):
        return full(1)
    if op_name in ("amax", "argmax", "logaddexp"):
        if isfloat:
            return full(-math.inf)
        if signed_or_u8:
            return full(ember.iinfo(dtype).min)
        return None
    if op_name == "logsumexp":
        if isfloat:
            return full(-math.inf)
        if dtype.is_complex:
            return full(complex(-math.inf, 0.0))
        if signed_or_u8:
            return full(ember.iinfo(dtype).min)
        return None
    if op_name in ("amin", "argmin"):
        if isfloat:
            return full(math.inf)
        if signed_or_u8:
            return full(ember.iinfo(dtype).max)
        return None
    if op_name in ("mean", "var", "std"):
        return None
    if op_name == "norm":
        ord = args[0] if args else 2
        if ord == -math.inf:
            if not isfloat:
                raise AssertionError(f"input must be floating point, got {dtype}")
            return full(math.inf)
        return full(0)
    if op_name == "median":
        return ember.tensor(math.nan, dtype=dtype if isfloat else ember.float32, device=device)
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def _canonical_dim(dim, ndim: int) -> tuple[int, ...]:
    """``dim`` as a sorted tuple of non-negative dims (None or () meaning all of them)."""
    if dim == () or dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims: list[int] = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {d})"
            )
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _any(input: Tensor, dims: tuple, keepdim: bool) -> Tensor:
    r = input
    for d in reversed(dims):
        r = r.any(dim=d, keepdim=keepdim)
    return r


def _check_strided(op: str, t: Tensor) -> None:
    if t.layout != ember.strided:
        raise NotImplementedError(
            f"masked {op}: {t.layout} inputs are not supported by ember (torch reduces sparse "
            "COO/CSR inputs into sparse results); convert with .to_dense() first"
        )


def _input_mask(input: Tensor, *, mask) -> Tensor:
    """``mask`` broadcast to ``input``'s shape, as bool."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.layout != ember.strided:
        mask = mask.to_dense()
    if tuple(mask.shape) != tuple(input.shape):
        if mask.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than "
                "of the input)"
            )
        mask = ember.broadcast_to(mask, input.shape)
    return mask.to(dtype=ember.bool)


def _combine_input_and_mask(op_name: str, input, mask, *args) -> Tensor:
    """``input`` with its masked-out elements replaced by ``op_name``'s identity. A
    MaskedTensor brings its own mask (``mask`` is then ignored, as in torch)."""
    if _is_mt(input):
        data, mask = input.get_data(), input.get_mask()
        _check_strided(op_name, data)
        return ember.where(_input_mask(data, mask=mask), data, _reduction_identity(op_name, data))
    _check_strided(op_name, input)
    if mask is None:
        return input
    fill = _reduction_identity(op_name, input, *args)
    return ember.where(_input_mask(input, mask=mask), input, fill)


def _sum_dtype(input, dtype):
    if dtype is None:
        dtype = input.dtype
        if str(dtype).rsplit(".", 1)[-1] in _PROMOTE_TO_INT64:
            dtype = ember.int64
    return dtype


def _data(input):
    return input.get_data() if _is_mt(input) else input


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Sum of the masked-in elements over ``dim`` (all dims by default); masked-out elements
    count as 0.

    Args:
        input: the tensor (or a MaskedTensor, whose own mask is used).
        dim: a dim or tuple of dims; None reduces all.
        keepdim: keep the reduced dims as size 1.
        dtype: the result's dtype (bool and integers below int64 default to int64).
        mask: bool tensor broadcastable to ``input``: True = use the element.

    Example:
        >>> x = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.sum(x, 1, mask=ember.tensor([[True, False, True], [False] * 3]))
        tensor([4., 0.])
    """
    dtype = _sum_dtype(_data(input), dtype)
    dims = _canonical_dim(dim, _data(input).ndim)
    mask_input = _combine_input_and_mask("sum", input, mask)
    return ember.sum(mask_input, dims, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Product of the masked-in elements over ``dim``; masked-out elements count as 1.

    Args are as in :func:`sum`.

    Example:
        >>> x = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.prod(x, 1, mask=ember.tensor([[True, False, True], [False] * 3]))
        tensor([3., 1.])
    """
    dtype = _sum_dtype(_data(input), dtype)
    dims = _canonical_dim(dim, _data(input).ndim)
    result = _combine_input_and_mask("prod", input, mask).to(dtype=dtype)
    for d in reversed(dims):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None) -> Tensor:
    """Cumulative sum along ``dim`` with masked-out elements counting as 0.

    Args:
        input: the tensor.
        dim: the dim to accumulate along.
        dtype: the result's dtype (default: ``input``'s).
        mask: bool tensor broadcastable to ``input``.

    Example:
        >>> ember.masked.cumsum(ember.tensor([1.0, 2.0, 3.0]), 0,
        ...                     mask=ember.tensor([True, False, True]))
        tensor([1., 1., 4.])
    """
    data = _data(input)
    dtype = data.dtype if dtype is None else dtype
    d = _canonical_dim(dim, data.ndim)[0]
    mask_input = _combine_input_and_mask("sum", input, mask)
    return ember.cumsum(mask_input, d, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None) -> Tensor:
    """Cumulative product along ``dim`` with masked-out elements counting as 1.

    Args are as in :func:`cumsum`.

    Example:
        >>> ember.masked.cumprod(ember.tensor([2.0, 5.0, 3.0]), 0,
        ...                      mask=ember.tensor([True, False, True]))
        tensor([2., 2., 6.])
    """
    data = _data(input)
    dtype = data.dtype if dtype is None else dtype
    d = _canonical_dim(dim, data.ndim)[0]
    mask_input = _combine_input_and_mask("prod", input, mask)
    return ember.cumprod(mask_input, d, dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Maximum of the masked-in elements over ``dim``; a fully masked-out slice gives the
    dtype's lowest value (-inf for floats).

    Args are as in :func:`sum` (``dtype`` casts the result, default ``input``'s).

    Example:
        >>> x = ember.tensor([[1.0, 9.0, 3.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.amax(x, 1, mask=ember.tensor([[True, False, True], [False] * 3]))
        tensor([3., -inf])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("amax", input, mask)
    dims = _canonical_dim(dim, mask_input.ndim)
    return ember.amax(mask_input, dims, bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Minimum of the masked-in elements over ``dim``; a fully masked-out slice gives the
    dtype's highest value (inf for floats).

    Args are as in :func:`amax`.

    Example:
        >>> x = ember.tensor([[1.0, 0.0, 3.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.amin(x, 1, mask=ember.tensor([[True, False, True], [False] * 3]))
        tensor([1., inf])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("amin", input, mask)
    dims = _canonical_dim(dim, mask_input.ndim)
    return ember.amin(mask_input, dims, bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Index of the maximum masked-in element along ``dim`` (flattened when None).

    The index is cast to ``dtype``, which defaults to ``input``'s dtype.

    Args:
        input: the tensor.
        dim: one dim, or None for the flattened tensor.
        keepdim: keep the reduced dim as size 1.
        dtype: the result's dtype (default: ``input``'s).
        mask: bool tensor broadcastable to ``input``.

    Example:
        >>> x = ember.tensor([[1.0, 9.0, 3.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.argmax(x, 1, mask=ember.tensor([[True, False, True], [True] * 3]))
        tensor([2., 2.])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("argmax", input, mask)
    # NOTE: matches torch: the index comes back in input's dtype unless dtype= says otherwise
    return ember.argmax(mask_input, dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Index of the minimum masked-in element along ``dim`` (flattened when None).

    Args are as in :func:`argmax`.

    Example:
        >>> x = ember.tensor([[1.0, 0.0, 3.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.argmin(x, 1, mask=ember.tensor([[True, False, True], [True] * 3]))
        tensor([0., 0.])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("argmin", input, mask)
    return ember.argmin(mask_input, dim, bool(keepdim)).to(dtype=dtype)


def _count(input, dim, keepdim, mask):
    """Number of masked-in elements over ``dim`` (int64)."""
    if mask is None:
        ones = ember.ones(input.shape, dtype=ember.int64, device=input.device)
        return sum(ones, dim, keepdim=keepdim)
    return _input_mask(input, mask=mask).sum(dim=dim, keepdim=bool(keepdim))


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Mean of the masked-in elements over ``dim``; a fully masked-out slice gives nan.

    Args are as in :func:`sum`; the dtype (given or ``input``'s) must be floating or complex.

    Example:
        >>> x = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.mean(x, 1, mask=ember.tensor([[True, False, True], [False] * 3]))
        tensor([2., nan])
    """
    data = _data(input)
    source = "Optional"
    if dtype is None:
        dtype, source = data.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either a floating "
            f"point or complex dtype. Got: {dtype}"
        )
    _check_strided("mean", data)
    # NOTE: matches torch: the count comes from mask= alone; a MaskedTensor's own mask only
    # selects what is summed (so torch.masked.mean(mt) divides by numel)
    inmask = None if mask is None else _input_mask(data, mask=mask)
    count = _count(data, dim, keepdim, inmask)
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Median (the lower of the two middle values) of the masked-in elements along ``dim``;
    a fully masked-out slice gives nan, which is an error for integer inputs.

    Args:
        input: the tensor.
        dim: one dim (default: the last).
        keepdim: keep the reduced dim as size 1.
        dtype: the result's dtype for integer inputs (default: ``input``'s).
        mask: bool tensor broadcastable to ``input``.

    Example:
        >>> x = ember.tensor([[1.0, 9.0, 3.0, 2.0], [4.0, 5.0, 6.0, 7.0]])
        >>> ember.masked.median(x, 1, mask=ember.tensor([[True, False, True, True], [False] * 4]))
        tensor([2., nan])
    """
    data = _data(input)
    dtype = data.dtype if dtype is None else dtype
    d = _canonical_dim(dim, data.ndim)[0]
    is_float = data.dtype.is_floating_point
    if not is_float:
        if _is_mt(input):
            input, mask = input.get_data(), input.get_mask()
        input = input.to(dtype=ember.float32)
    mask_input = _combine_input_and_mask("median", input, mask)
    output = ember.nanmedian(mask_input, d, keepdim).values
    if is_float:
        return output
    if not bool(ember.isnan(output).any()):
        return output.to(dtype=dtype)
    raise ValueError(
        "masked median expects no fully masked out rows if dtype is not floating point"
    )


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """``log(sum(exp(x)))`` over the masked-in elements; a fully masked-out slice gives -inf.

    Args are as in :func:`amax`.

    Example:
        >>> x = ember.tensor([[0.0, 9.0, 0.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.logsumexp(x, 1, mask=ember.tensor([[True, False, True], [False] * 3]))
        tensor([0.6931,   -inf])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    dims = _canonical_dim(dim, _data(input).ndim)
    mask_input = _combine_input_and_mask("logsumexp", input, mask)
    return ember.logsumexp(mask_input, dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None) -> Tensor:
    """``log(exp(input) + exp(other))`` with masked-out elements of either side counting as
    -inf (contributing nothing).

    Args:
        input: the first tensor.
        other: the second tensor.
        dtype: the result's dtype (default: ``input``'s).
        input_mask: bool tensor broadcastable to ``input``.
        other_mask: bool tensor broadcastable to ``other``.

    Example:
        >>> m = ember.tensor([True, False, True])
        >>> ember.masked.logaddexp(ember.tensor([-100.0, -200, -300]),
        ...                        ember.tensor([-1.0, -2, -3]), input_mask=m, other_mask=m)
        tensor([-1., -inf, -3.])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    a = _combine_input_and_mask("logaddexp", input, input_mask)
    b = _combine_input_and_mask("logaddexp", other, other_mask)
    return ember.logaddexp(a, b).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Vector ``ord``-norm of the masked-in elements over ``dim``.

    Args:
        input: the tensor.
        ord: the norm's order (as in ``linalg.vector_norm``).
        dim: a dim or tuple of dims; None reduces all.
        keepdim: keep the reduced dims as size 1.
        dtype: the dtype to compute and return in (default: ``input``'s).
        mask: bool tensor broadcastable to ``input``.

    Example:
        >>> x = ember.tensor([[3.0, 9.0, 4.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.norm(x, 2.0, 1, mask=ember.tensor([[True, False, True], [False] * 3]))
        tensor([5., 0.])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("norm", input, mask, ord)
    dims = _canonical_dim(dim, _data(input).ndim)
    return ember.linalg.vector_norm(mask_input, ord, dims, bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction_opt, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    data = _data(input)
    if dtype is None:
        dtype = data.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = ember.float32
    compute_dtype = dtype
    if not (compute_dtype.is_floating_point or compute_dtype.is_complex):
        compute_dtype = ember.float32
    _check_strided("std/var", data)
    # NOTE: matches torch: as in mean, the count comes from mask= alone
    inmask = None if mask is None else _input_mask(data, mask=mask)
    count = _count(data, dim, True, inmask)
    sample_total = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    x = data - sample_total / count
    if _is_mt(input):
        inmask = input.get_mask()  # what torch sums: the MaskedTensor x - mean
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        real = compute_dtype
        if real.is_complex:
            real = ember.float64 if real == ember.complex128 else ember.float32
        count = (count.to(real) - correction).clamp_min(0)
    output = (total / count).to(dtype=dtype)
    return output.sqrt() if take_sqrt else output


def var(
    input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None
) -> Tensor:
    """Variance of the masked-in elements over ``dim`` (a fully masked-out slice gives nan).

    Args:
        input: the tensor.
        dim: a dim or tuple of dims; None reduces all.
        unbiased: False for the population variance (give this or ``correction``).
        correction: subtracted from the count (default 1, Bessel's correction).
        keepdim: keep the reduced dims as size 1.
        dtype: the result's dtype (default: ``input``'s; float32 for integer inputs).
        mask: bool tensor broadcastable to ``input``.

    Example:
        >>> x = ember.tensor([[1.0, 9.0, 3.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.var(x, 1, mask=ember.tensor([[True, False, True], [True] * 3]))
        tensor([2., 1.])
    """
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(
    input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None
) -> Tensor:
    """Standard deviation of the masked-in elements over ``dim``.

    Args are as in :func:`var`.

    Example:
        >>> x = ember.tensor([[1.0, 9.0, 3.0], [4.0, 5.0, 6.0]])
        >>> ember.masked.std(x, 1, correction=0, mask=ember.tensor([[True, False, True]]))
        tensor([1., 1.])
    """
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def softmax(input, dim, *, dtype=None, mask=None) -> Tensor:
    """Softmax along ``dim`` over the masked-in elements: masked-out elements get 0, and a
    fully masked-out slice is all nan.

    Args:
        input: the tensor.
        dim: the dim to normalize along.
        dtype: the dtype to compute and return in (default: ``input``'s).
        mask: bool tensor broadcastable to ``input``.

    Example:
        >>> ember.masked.softmax(ember.tensor([1.0, 5.0, 1.0]), 0,
        ...                      mask=ember.tensor([True, False, True]))
        tensor([0.5000, 0.0000, 0.5000])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    d = _canonical_dim(dim, _data(input).ndim)[0]
    mask_input = _combine_input_and_mask("amax", input, mask)
    return ember.nn.functional.softmax(mask_input, d, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None) -> Tensor:
    """Log-softmax along ``dim`` over the masked-in elements (-inf at masked-out ones).

    Args are as in :func:`softmax`.

    Example:
        >>> ember.masked.log_softmax(ember.tensor([1.0, 5.0, 1.0]), 0,
        ...                          mask=ember.tensor([True, False, True]))
        tensor([-0.6931,    -inf, -0.6931])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    d = _canonical_dim(dim, _data(input).ndim)[0]
    mask_input = _combine_input_and_mask("amax", input, mask)
    return ember.nn.functional.log_softmax(mask_input, d, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None) -> Tensor:
    """Softmin (softmax of ``-input``) along ``dim`` over the masked-in elements.

    Args are as in :func:`softmax`.

    Example:
        >>> ember.masked.softmin(ember.tensor([1.0, -5.0, 1.0]), 0,
        ...                      mask=ember.tensor([True, False, True]))
        tensor([0.5000, 0.0000, 0.5000])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    d = _canonical_dim(dim, _data(input).ndim)[0]
    mask_input = _combine_input_and_mask("amin", input, mask)
    return ember.nn.functional.softmin(mask_input, d, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None) -> Tensor:
    """``input`` divided by the ``ord``-norm of its masked-in elements along ``dim`` (at least
    ``eps``); masked-out elements come out 0.

    Args:
        input: the tensor.
        ord: the norm's order.
        dim: the dim to normalize along.
        eps: lower bound of the divisor.
        dtype: the dtype of the norm (default: ``input``'s).
        mask: bool tensor broadcastable to ``input``.

    Example:
        >>> ember.masked.normalize(ember.tensor([3.0, 7.0, 4.0]), 2.0, 0,
        ...                        mask=ember.tensor([True, False, True]))
        tensor([0.6000, 0.0000, 0.8000])
    """
    dtype = _data(input).dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denom = ember.maximum(nrm, nrm.new_full([], eps))
    return ember.divide(mask_input, denom)
