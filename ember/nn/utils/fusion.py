"""Folding an eval-mode batch norm into the preceding convolution or linear layer (PyTorch's
``torch.nn.utils.fusion``)."""

from __future__ import annotations

import copy

import ember
from ember.nn.parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of ``conv`` that computes ``bn(conv(x))`` (both in eval mode).

    Args:
        conv: a convolution (``transpose=True`` for a transposed convolution).
        bn: the batch norm after it.
        transpose: whether ``conv`` is transposed (its output channels are dim 1).

    Returns:
        The fused convolution.

    Example:
        >>> conv, bn = ember.nn.Conv2d(2, 3, 3).eval(), ember.nn.BatchNorm2d(3).eval()
        >>> x = ember.randn(1, 2, 5, 5)
        >>> bool(ember.allclose(fuse_conv_bn_eval(conv, bn)(x), bn(conv(x)), atol=1e-6))
        True
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_conv_bn_weights(
    conv_w, conv_b, bn_rm, bn_rv, bn_eps: float, bn_w, bn_b, transpose: bool = False
):
    """The weight and bias of a convolution followed by an eval-mode batch norm.

    Returns:
        ``(weight, bias)`` as Parameters: ``w * gamma / sqrt(var + eps)`` per output channel,
        ``(b - mean) * gamma / sqrt(var + eps) + beta``.

    Example:
        >>> w, b = fuse_conv_bn_weights(ember.ones(3, 2, 1), None, ember.zeros(3),
        ...                             ember.full((3,), 3.0), 1.0, None, None)
        >>> w[:, 0, 0].tolist(), b.tolist()
        ([0.5, 0.5, 0.5], [0.0, 0.0, 0.0])
    """
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    if conv_b is None:
        conv_b = ember.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ember.ones_like(bn_rm)
    if bn_b is None:
        bn_b = ember.zeros_like(bn_rm)
    var_rsqrt = ember.rsqrt(bn_rv + bn_eps)
    rest = [1] * (len(conv_w.shape) - 2)
    shape = [1, -1, *rest] if transpose else [-1, 1, *rest]
    fused_w = (conv_w * (bn_w * var_rsqrt).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * var_rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` that computes ``bn(linear(x))`` (both in eval mode).

    Example:
        >>> lin, bn = ember.nn.Linear(4, 3).eval(), ember.nn.BatchNorm1d(3).eval()
        >>> x = ember.randn(2, 4)
        >>> bool(ember.allclose(fuse_linear_bn_eval(lin, bn)(x), bn(lin(x)), atol=1e-6))
        True
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and "
            f"bn.num_features={bn.num_features}"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps: float, bn_w, bn_b):
    """The weight and bias of a linear layer followed by an eval-mode batch norm.

    Example:
        >>> w, b = fuse_linear_bn_weights(ember.ones(2, 2), None, ember.zeros(2),
        ...                               ember.full((2,), 3.0), 1.0, ember.ones(2),
        ...                               ember.zeros(2))
        >>> w.shape, b.shape
        (ember.Size([2, 2]), ember.Size([2]))
    """
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    if linear_b is None:
        linear_b = ember.zeros_like(bn_rm)
    bn_scale = bn_w * ember.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
