"""``ember.nn.functional``: fractional max pooling (split from ``pooling.py``, whose checks it
shares): ``fractional_max_pool2d/3d`` and their ``_with_indices`` forms."""

from __future__ import annotations

import operator

from ember import _autocast as _ac
from ember import rand
from ember.nn.functional.pooling import _SNAME
from ember.ops import fractional_pooling as _FP
from ember.tensor import Tensor

__all__ = [
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]


def _fractional_sizes(op: str, name: str, value, n: int) -> tuple:
    seq = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(seq) == 1:
        seq = seq * n
    if len(seq) != n:
        what = "a single Int or tuple of Ints" if n == 2 else "a single Int or tuple of three Ints"
        raise RuntimeError(f"{op}: {name} must either be {what}")
    try:
        return tuple(operator.index(v) for v in seq)
    except TypeError:
        bad = next(v for v in seq if not hasattr(v, "__index__"))
        raise TypeError(
            f"{op}(): argument '{name}' (position 2) must be tuple of ints, not "
            f"{type(bad).__name__}"
        ) from None


def _fractional(n, input, kernel_size, output_size, output_ratio, samples):
    op = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'dim'")
    if output_size is None:
        if n == 2:
            # NOTE: matches torch: the 2-d function takes len() of the ratio, so a bare float
            # raises TypeError (nn.FractionalMaxPool2d passes a pair)
            if len(output_ratio) > 2:
                raise ValueError(
                    "fractional_max_pool2d requires output_ratio to either be a "
                    "single Int or tuple of Ints."
                )
        ratio = output_ratio if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * n
        output_size = [int(input.size(i - n) * ratio[i]) for i in range(n)]
    if samples is None:
        if not input.is_floating_point():
            raise NotImplementedError(
                f'"check_uniform_bounds" not implemented for '
                f"'{_SNAME.get(input.dtype.name, input.dtype.name)}'"
            )
        batch = 1 if input.dim() == n + 1 else input.size(0)
        samples = rand(batch, input.size(-n - 1), n, dtype=input.dtype, device=input.device)
    k = _fractional_sizes(op, "kernel_size", kernel_size, n)
    out = _fractional_sizes(op, "output_size", output_size, n)
    where = op if n == 2 else f"{op}_out"
    nd = input.dim()
    if nd not in (n + 1, n + 2):
        raise RuntimeError(
            f"{where}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}"
        )
    for i in range(1, nd):
        if input.shape[i] <= 0:
            raise RuntimeError(
                f"{where}(): Expected input to have non-zero size for non-batch "
                f"dimensions, but got{list(input.shape)} with dimension {i} being "
                "empty."
            )
    names = ("height", "width") if n == 2 else ("time", "height", "width")
    for name, o, kk, size in zip(names, out, k, input.shape[nd - n :]):
        # NOTE: matches torch: the 3-d check is strict (a window may not end at the border)
        if o + kk - 1 > size or (n == 3 and o + kk - 1 == size):
            raise RuntimeError(
                f"{where}(): pool {name} {kk} too large relative to input {name} {size}"
            )
    if not isinstance(samples, Tensor):
        raise TypeError(
            f"{op}(): argument '_random_samples' must be Tensor, not {type(samples).__name__}"
        )
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    batched = nd == n + 2
    if samples.shape[0] < (input.shape[0] if batched else 1):
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[nd - n - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {samples.shape[2]}.")
    if not input.is_floating_point():
        raise NotImplementedError(
            f'"{op}_out_frame" not implemented for '
            f"'{_SNAME.get(input.dtype.name, input.dtype.name)}'"
        )
    return _FP.fractional_max_pool(input, k, out, samples)


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
):
    """``fractional_max_pool2d`` returning ``(output, indices)``.

    Example:
        >>> y, i = F.fractional_max_pool2d_with_indices(ember.randn(1, 2, 8, 8), 2,
        ...                                             output_size=(5, 5))
        >>> y.shape, i.dtype
        (ember.Size([1, 2, 5, 5]), ember.int64)
    """
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
):
    """Fractional max pooling (Graham, 2014) of ``(N, C, H, W)`` or ``(C, H, W)``: maxima over
    ``kernel_size`` windows whose starts step pseudo-randomly so that ``output_size`` (or
    ``output_ratio`` times the input size) windows span the input. The offsets are drawn per
    plane from ember's generator unless ``_random_samples`` ``(N, C, 2)`` in [0, 1) is given
    (the same samples give PyTorch's windows). ``return_indices`` also returns the flat
    per-plane positions of the maxima.

    Example:
        >>> F.fractional_max_pool2d(ember.randn(1, 2, 9, 9), 3, output_ratio=(0.5, 0.5)).shape
        ember.Size([1, 2, 4, 4])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            fractional_max_pool2d,
            input,
            kernel_size,
            output_size,
            output_ratio,
            return_indices,
            _random_samples,
        )
    r = _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return r if return_indices else r[0]


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
):
    """``fractional_max_pool3d`` returning ``(output, indices)``.

    Example:
        >>> y, i = F.fractional_max_pool3d_with_indices(ember.randn(1, 2, 6, 6, 6), 2,
        ...                                             output_size=3)
        >>> y.shape
        ember.Size([1, 2, 3, 3, 3])
    """
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples=None,
):
    """Fractional max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (see
    ``fractional_max_pool2d``); ``_random_samples`` is ``(N, C, 3)`` (depth, height, width).

    Example:
        >>> F.fractional_max_pool3d(ember.randn(1, 2, 6, 6, 6), 2, output_ratio=0.5).shape
        ember.Size([1, 2, 3, 3, 3])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            fractional_max_pool3d,
            input,
            kernel_size,
            output_size,
            output_ratio,
            return_indices,
            _random_samples,
        )
    r = _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return r if return_indices else r[0]
