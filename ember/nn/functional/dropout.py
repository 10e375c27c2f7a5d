"""``ember.nn.functional``: Dropout: dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout.

Masks come from ember's generator (``ember.manual_seed`` makes them reproducible); they are not
PyTorch's numbers, only its distribution: each element (or each channel, for the feature forms)
is kept with probability ``1 - p`` and scaled by ``1 / (1 - p)``.
"""

from __future__ import annotations

import warnings

from ember import _dtype
from ember.ops._dispatch import xp_of
from ember.ops._elementwise import _check
from ember.ops.normalization import MaskAffine, MaskMul, alpha_dropout_masks, dropout_mask
from ember.tensor import Tensor, _wrap

__all__ = [
    "alpha_dropout",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
]


_SCALAR = _dtype.SCALAR_NAMES


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _check_input(fn: str, input) -> None:
    _check(input, fn)


def _apply(
    input: Tensor,
    p: float,
    training: bool,
    inplace: bool,
    feature: bool,
    alpha: bool,
    batched: bool = True,
) -> Tensor:
    """PyTorch's dropout kernel, shared by the six forms. ``feature``: one draw per channel
    (per ``[n, c]``; per ``[c]`` when not ``batched``, where PyTorch adds a batch dim of 1)."""
    x = input._data
    # NOTE: matches torch: p == 0, eval mode and empty inputs return the input itself
    if p == 0 or not training or x.size == 0:
        return input
    if p == 1:
        # NOTE: matches torch: everything dropped is a multiply by zero (alpha dropout too)
        mask = xp_of(x).zeros((), dtype=x.dtype)
        return input.mul_(_wrap(mask)) if inplace else MaskMul.apply(input, mask)
    if feature:
        lead = 2 if batched else 1
        if x.ndim + (not batched) < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = x.shape[:lead] + (1,) * (x.ndim - lead)
    else:
        shape = x.shape
    if x.dtype.kind not in "fV":
        # NOTE: matches torch: the mask is floating point and cannot scale an integer tensor
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type "
            f"{_SCALAR.get(x.dtype.name, x.dtype.name)}"
        )
    if alpha:
        a, b = alpha_dropout_masks(x, p, shape)
        if inplace:
            return input.mul_(_wrap(a)).add_(_wrap(b))
        return MaskAffine.apply(input, a, b)
    mask = dropout_mask(x, p, shape)
    return input.mul_(_wrap(mask)) if inplace else MaskMul.apply(input, mask)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (the
    identity when ``training`` is False).

    Example:
        >>> x = ember.ones(1000)
        >>> y = ember.nn.functional.dropout(x, 0.2)
        >>> sorted(set(y.tolist()))
        [0.0, 1.25]
    """
    _check_p(p)
    _check_input("dropout", input)
    return _apply(input, p, training, inplace, False, False)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels: input ``(N, C, L)`` or ``(C, L)``; each ``[n, c, :]`` is dropped
    with probability ``p`` and the rest scaled by ``1 / (1 - p)``.

    Example:
        >>> y = ember.nn.functional.dropout1d(ember.ones(4, 3, 5), 0.5)
        >>> y.shape
        ember.Size([4, 3, 5])
    """
    _check_p(p)
    _check_input("dropout1d", input)
    nd = input.dim()
    if nd not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    return _apply(input, p, training, inplace, True, False, nd == 3)


def _rank_warning(fn: str, nd: int, spatial: str, ok: str) -> None:
    warnings.warn(
        f"{fn}: Received a {nd}-D input to {fn}, which is deprecated and will result in an "
        "error in a future release. To retain the behavior and silence this warning, please "
        f"use dropout instead. Note that {fn} exists to provide channel-wise dropout on inputs "
        f"with {spatial} spatial dimensions, a channel dimension, and an optional batch "
        f"dimension (i.e. {ok} inputs).",
        stacklevel=3,
    )


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` inputs: each ``[n, c]`` plane is dropped with
    probability ``p``, the rest scaled by ``1 / (1 - p)``.

    Example:
        >>> y = ember.nn.functional.dropout2d(ember.ones(4, 3, 5, 5), 0.5)
        >>> y.shape
        ember.Size([4, 3, 5, 5])
    """
    _check_p(p)
    _check_input("dropout2d", input)
    nd = input.dim()
    if nd not in (3, 4):
        _rank_warning("dropout2d", nd, "2", "3D or 4D")
    if nd == 3:
        # NOTE: matches torch: a 3-D input is taken as (N, C, L), not as an unbatched (C, H, W)
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _apply(input, p, training, inplace, True, False)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs: each ``[n, c]``
    volume is dropped with probability ``p``, the rest scaled by ``1 / (1 - p)``.

    Example:
        >>> y = ember.nn.functional.dropout3d(ember.ones(2, 3, 4, 4, 4), 0.5)
        >>> y.shape
        ember.Size([2, 3, 4, 4, 4])
    """
    _check_p(p)
    _check_input("dropout3d", input)
    nd = input.dim()
    if nd not in (4, 5):
        _rank_warning("dropout3d", nd, "3", "4D or 5D")
    return _apply(input, p, training, inplace, True, False, nd == 5)


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout for SELU networks: dropped elements are set to SELU's negative saturation and
    an affine map keeps a unit-normal input's mean and variance. Off unless ``training``.

    Example:
        >>> x = ember.randn(1000)
        >>> ember.nn.functional.alpha_dropout(x, 0.2, training=True).shape
        ember.Size([1000])
    """
    _check_p(p)
    _check_input("alpha_dropout", input)
    return _apply(input, p, training, inplace, False, True)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Alpha dropout of whole channels (``[n, c, ...]`` share one draw). Off unless
    ``training``.

    Example:
        >>> x = ember.randn(8, 4, 5)
        >>> ember.nn.functional.feature_alpha_dropout(x, 0.2, training=True).shape
        ember.Size([8, 4, 5])
    """
    _check_p(p)
    _check_input("feature_alpha_dropout", input)
    return _apply(input, p, training, inplace, True, True)
