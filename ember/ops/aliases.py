"""``torch.<name>`` entry points of ``torch.nn.functional`` computations (``torch.conv2d``,
``torch.batch_norm``, ``torch.dropout``...), with the ATen signatures PyTorch gives them at the
top level: positional arguments without defaults where ATen has none, reductions as integers
(0 none, 1 mean, 2 sum; torch's Python bindings of the losses default to 0, not to ATen's
mean, and so do these), grid-sampler modes as integers. Each maps its arguments onto the
``ember.nn.functional`` function that computes it; none repeats the math.
"""

from __future__ import annotations

import warnings

from ember.tensor import Tensor

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "affine_grid_generator",
    "alpha_dropout",
    "alpha_dropout_",
    "avg_pool1d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "channel_shuffle",
    "constant_pad_nd",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "convolution",
    "cosine_embedding_loss",
    "cosine_similarity",
    "ctc_loss",
    "dropout",
    "dropout_",
    "embedding",
    "embedding_bag",
    "embedding_renorm_",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
    "frobenius_norm",
    "grid_sampler",
    "grid_sampler_2d",
    "grid_sampler_3d",
    "group_norm",
    "gru_cell",
    "hardshrink",
    "hinge_embedding_loss",
    "instance_norm",
    "kl_div",
    "layer_norm",
    "lstm_cell",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool3d",
    "native_batch_norm",
    "native_channel_shuffle",
    "native_dropout",
    "native_group_norm",
    "native_layer_norm",
    "norm_except_dim",
    "nuclear_norm",
    "pairwise_distance",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "prelu",
    "rms_norm",
    "rnn_relu_cell",
    "rnn_tanh_cell",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
]

_REDUCTIONS = ("none", "mean", "sum")
_INTERP = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def _F():
    # ember.nn imports ember.ops: reach the functional namespace at call time
    from ember.nn import functional

    return functional


def _reduction(reduction: int) -> str:
    # NOTE: matches torch: 1 is mean, 2 is sum and any other value means no reduction
    return _REDUCTIONS[reduction] if reduction in (1, 2) else "none"


# ---- convolution ---------------------------------------------------------------------------------
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """``torch.conv1d``: see ``ember.nn.functional.conv1d``.

    Example:
        >>> ember.conv1d(ember.ones(1, 1, 3), ember.ones(1, 1, 2)).shape
        ember.Size([1, 1, 2])
    """
    return _F().conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """``torch.conv2d``: see ``ember.nn.functional.conv2d``.

    Example:
        >>> ember.conv2d(ember.ones(1, 1, 3, 3), ember.ones(1, 1, 2, 2)).shape
        ember.Size([1, 1, 2, 2])
    """
    return _F().conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """``torch.conv3d``: see ``ember.nn.functional.conv3d``.

    Example:
        >>> ember.conv3d(ember.ones(1, 1, 2, 2, 2), ember.ones(1, 1, 2, 2, 2)).shape
        ember.Size([1, 1, 1, 1, 1])
    """
    return _F().conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
) -> Tensor:
    """``torch.conv_transpose1d``: see ``ember.nn.functional.conv_transpose1d``.

    Example:
        >>> ember.conv_transpose1d(ember.ones(1, 1, 2), ember.ones(1, 1, 2)).shape
        ember.Size([1, 1, 3])
    """
    return _F().conv_transpose1d(
        input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
) -> Tensor:
    """``torch.conv_transpose2d``: see ``ember.nn.functional.conv_transpose2d``.

    Example:
        >>> ember.conv_transpose2d(ember.ones(1, 1, 2, 2), ember.ones(1, 1, 2, 2)).shape
        ember.Size([1, 1, 3, 3])
    """
    return _F().conv_transpose2d(
        input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
) -> Tensor:
    """``torch.conv_transpose3d``: see ``ember.nn.functional.conv_transpose3d``.

    Example:
        >>> ember.conv_transpose3d(ember.ones(1, 1, 1, 1, 1), ember.ones(1, 1, 2, 2, 2)).shape
        ember.Size([1, 1, 2, 2, 2])
    """
    return _F().conv_transpose3d(
        input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def convolution(
    input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
) -> Tensor:
    """``torch.convolution``: the 1/2/3-d (transposed) convolution that ``weight``'s rank
    selects; every argument is required, as in ATen.

    Example:
        >>> x, w = ember.ones(1, 1, 3), ember.ones(1, 1, 2)
        >>> ember.convolution(x, w, None, [1], [0], [1], False, [0], 1).shape
        ember.Size([1, 1, 2])
    """
    n = weight.ndim - 2
    if n not in (1, 2, 3):
        raise RuntimeError(
            f"convolution: expected a weight of 3, 4 or 5 dimensions, got {weight.ndim}"
        )
    F = _F()
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


def conv_tbc(input, weight, bias, pad=0) -> Tensor:
    """``torch.conv_tbc``: see ``ember.nn.functional.conv_tbc``.

    Example:
        >>> ember.conv_tbc(ember.ones(3, 1, 2), ember.ones(2, 2, 4), ember.zeros(4)).shape
        ember.Size([2, 1, 4])
    """
    return _F().conv_tbc(input, weight, bias, pad)


# ---- normalization -------------------------------------------------------------------------------
def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
) -> Tensor:
    """``torch.batch_norm`` (ATen's argument order; ``cudnn_enabled`` is ignored).

    Example:
        >>> ember.batch_norm(ember.ones(2, 3), None, None, None, None, True, 0.1, 1e-5,
        ...                  False).shape
        ember.Size([2, 3])
    """
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
) -> Tensor:
    """``torch.instance_norm`` (ATen's argument order; ``cudnn_enabled`` is ignored).

    Example:
        >>> ember.instance_norm(ember.ones(1, 2, 3), None, None, None, None, True, 0.1, 1e-5,
        ...                     False).shape
        ember.Size([1, 2, 3])
    """
    return _F().instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def layer_norm(
    input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True
) -> Tensor:
    """``torch.layer_norm``: see ``ember.nn.functional.layer_norm``.

    Example:
        >>> ember.layer_norm(ember.ones(2, 3), [3]).shape
        ember.Size([2, 3])
    """
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True) -> Tensor:
    """``torch.group_norm``: see ``ember.nn.functional.group_norm``.

    Example:
        >>> ember.group_norm(ember.ones(1, 4, 2), 2).shape
        ember.Size([1, 4, 2])
    """
    return _F().group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None) -> Tensor:
    """``torch.rms_norm``: see ``ember.nn.functional.rms_norm``.

    Example:
        >>> ember.rms_norm(ember.ones(2, 3), [3])
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    return _F().rms_norm(input, normalized_shape, weight, eps)


def _stat_shape(input, k: int) -> tuple:
    return tuple(input.shape[: input.ndim - k]) + (1,) * k


def native_layer_norm(input, normalized_shape, weight, bias, eps) -> tuple:
    """``torch.native_layer_norm``: ``(output, mean, rstd)``, the statistics shaped like
    ``input`` with the normalized dims kept as 1.

    Example:
        >>> [t.shape for t in ember.native_layer_norm(ember.ones(2, 3), [3], None, None, 1e-5)]
        [ember.Size([2, 3]), ember.Size([2, 1]), ember.Size([2, 1])]
    """
    k = len(tuple(normalized_shape))
    out = _F().layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(range(input.ndim - k, input.ndim))
    with _no_grad():
        x = input.detach().to(_acc(input))
        mean = x.mean(dims, keepdim=True)
        rstd = (x.var(dims, unbiased=False, keepdim=True) + eps).rsqrt()
    return out, mean.to(input.dtype), rstd.to(input.dtype)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``torch.native_batch_norm``: ``(output, save_mean, save_invstd)``; the saved statistics
    are per channel when ``training`` and empty otherwise.

    Example:
        >>> out = ember.native_batch_norm(ember.ones(2, 3), None, None, None, None, True, 0.1,
        ...                               1e-5)
        >>> [t.shape for t in out]
        [ember.Size([2, 3]), ember.Size([3]), ember.Size([3])]
    """
    import ember

    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = ember.empty(0, dtype=input.dtype)
        return out, empty, empty.clone()
    dims = (0,) + tuple(range(2, input.ndim))
    with _no_grad():
        x = input.detach().to(_acc(input))
        mean = x.mean(dims)
        invstd = (x.var(dims, unbiased=False) + eps).rsqrt()
    return out, mean.to(input.dtype), invstd.to(input.dtype)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> tuple:
    """``torch.native_group_norm``: ``(output, mean, rstd)``, the statistics of shape
    ``(N, group)``.

    Example:
        >>> out = ember.native_group_norm(ember.ones(1, 4, 2), None, None, 1, 4, 2, 2, 1e-5)
        >>> [t.shape for t in out]
        [ember.Size([1, 4, 2]), ember.Size([1, 2]), ember.Size([1, 2])]
    """
    out = _F().group_norm(input, group, weight, bias, eps)
    with _no_grad():
        x = input.detach().to(_acc(input)).reshape(N, group, -1)
        mean = x.mean(-1)
        rstd = (x.var(-1, unbiased=False) + eps).rsqrt()
    return out, mean.to(input.dtype), rstd.to(input.dtype)


def _acc(input):
    import ember

    return ember.float32 if input.dtype == ember.float16 else input.dtype


def _no_grad():
    from ember.autograd.grad_mode import no_grad

    return no_grad()


def frobenius_norm(input, dim, keepdim=False) -> Tensor:
    """``torch.frobenius_norm`` (deprecated in torch): the 2-norm over ``dim`` (at most 2 dims).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():  # torch warns that it is deprecated
        ...     warnings.simplefilter("ignore")
        ...     ember.frobenius_norm(ember.ones(2, 2), [0, 1])
        tensor(2.)
    """
    warnings.warn(
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will "
        "be removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, "
        "keepdim)` instead",
        UserWarning,
        stacklevel=2,
    )
    dim = [dim] if isinstance(dim, int) else list(dim)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    import ember

    return ember.linalg.vector_norm(input, 2.0, dim, keepdim)


def nuclear_norm(input, dim=None, keepdim=False) -> Tensor:
    """``torch.nuclear_norm`` (deprecated in torch): the sum of singular values over ``dim``
    (default the two dims of a matrix).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():  # torch warns that it is deprecated
        ...     warnings.simplefilter("ignore")
        ...     ember.nuclear_norm(ember.eye(2))
        tensor(2.)
    """
    if isinstance(dim, bool):  # NOTE: matches torch: nuclear_norm(input, keepdim) overload
        dim, keepdim = None, dim
    warnings.warn(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
        "keepdim)` instead",
        UserWarning,
        stacklevel=2,
    )
    import ember

    return ember.linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def norm_except_dim(v, pow=2, dim=0) -> Tensor:  # noqa: A002  (ATen's name)
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (kept as size 1; ``dim=-1``: over
    all): ``weight_norm``'s norm.

    Example:
        >>> ember.norm_except_dim(ember.ones(2, 3), 2, 0)
        tensor([[1.7321],
                [1.7321]])
    """
    import ember

    if dim == -1:
        return ember.linalg.vector_norm(v, pow)
    d = dim % v.ndim
    dims = [i for i in range(v.ndim) if i != d]
    if not dims:  # 1-D: one norm per element (an empty dim list would mean all dims)
        return ember.linalg.vector_norm(v.unsqueeze(-1), pow, -1)
    return ember.linalg.vector_norm(v, pow, dims, keepdim=True)


# ---- dropout ---------------------------------------------------------------------------------
def dropout(input, p, train) -> Tensor:
    """``torch.dropout(input, p, train)``: see ``ember.nn.functional.dropout``.

    Example:
        >>> ember.dropout(ember.ones(3), 0.5, False)
        tensor([1., 1., 1.])
    """
    return _F().dropout(input, p, train)


def dropout_(input, p, train) -> Tensor:
    """In-place ``torch.dropout``.

    Example:
        >>> ember.dropout_(ember.ones(2), 0.0, True)
        tensor([1., 1.])
    """
    return _F().dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train) -> Tensor:
    """``torch.alpha_dropout(input, p, train)``.

    Example:
        >>> ember.alpha_dropout(ember.ones(2), 0.5, False)
        tensor([1., 1.])
    """
    return _F().alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train) -> Tensor:
    """In-place ``torch.alpha_dropout``.

    Example:
        >>> ember.alpha_dropout_(ember.ones(2), 0.5, False)
        tensor([1., 1.])
    """
    return _F().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train) -> Tensor:
    """``torch.feature_alpha_dropout(input, p, train)``.

    Example:
        >>> ember.feature_alpha_dropout(ember.ones(1, 2, 2), 0.5, False).shape
        ember.Size([1, 2, 2])
    """
    return _F().feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train) -> Tensor:
    """In-place ``torch.feature_alpha_dropout``.

    Example:
        >>> ember.feature_alpha_dropout_(ember.ones(1, 2, 2), 0.5, False).shape
        ember.Size([1, 2, 2])
    """
    return _F().feature_alpha_dropout(input, p, train, inplace=True)


def _feature_mask(input, p):
    # one keep/drop draw per (sample, channel), broadcast over the remaining dims
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return input.new_empty(shape).bernoulli_(1 - p).div_(1 - p)


def feature_dropout(input, p, train) -> Tensor:
    """``torch.feature_dropout``: zero whole channels (dim 1) with probability ``p`` and scale
    the rest by ``1 / (1 - p)``.

    Example:
        >>> ember.feature_dropout(ember.ones(1, 2, 2), 0.5, False)
        tensor([[[1., 1.],
                 [1., 1.]]])
    """
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0:
        return input
    if p == 1:
        return input * 0
    return input * _feature_mask(input, p)


def feature_dropout_(input, p, train) -> Tensor:
    """In-place :func:`feature_dropout`.

    Example:
        >>> ember.feature_dropout_(ember.ones(1, 2), 0.5, False)
        tensor([[1., 1.]])
    """
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0:
        return input
    if p == 1:
        return input.mul_(0)
    return input.mul_(_feature_mask(input, p))


def native_dropout(input, p, train) -> tuple:
    """``torch.native_dropout``: ``(output, mask)`` with the boolean keep-mask.

    Example:
        >>> out, mask = ember.native_dropout(ember.ones(2), 0.5, False)
        >>> mask
        tensor([True, True])
    """
    import ember

    if not train:
        return input.clone(), ember.ones(input.shape, dtype=ember.bool)
    if p == 1:
        return input * 0, ember.zeros(input.shape, dtype=ember.bool)
    mask = input.detach().new_empty(input.shape).bernoulli_(1 - p).to(ember.bool)
    return input * mask * (1.0 / (1 - p)), mask


# ---- activations -------------------------------------------------------------------------------
def selu(input) -> Tensor:
    """``torch.selu``.

    Example:
        >>> ember.selu(ember.zeros(1))
        tensor([0.])
    """
    return _F().selu(input)


def selu_(input) -> Tensor:
    """In-place ``torch.selu``.

    Example:
        >>> ember.selu_(ember.zeros(1))
        tensor([0.])
    """
    return _F().selu_(input)


def celu(input, alpha=1.0) -> Tensor:
    """``torch.celu``.

    Example:
        >>> ember.celu(ember.zeros(1))
        tensor([0.])
    """
    return _F().celu(input, alpha)


def celu_(input, alpha=1.0) -> Tensor:
    """In-place ``torch.celu``.

    Example:
        >>> ember.celu_(ember.zeros(1))
        tensor([0.])
    """
    return _F().celu_(input, alpha)


def threshold(input, threshold, value, *, out=None) -> Tensor:  # noqa: A002
    """``torch.threshold``: ``value`` where ``input <= threshold``.

    Example:
        >>> ember.threshold(ember.tensor([0.5, 2.0]), 1.0, -1.0)
        tensor([-1.,  2.])
    """
    from ember.ops.pointwise import _out

    return _out(_F().threshold(input, threshold, value), out)


def threshold_(input, threshold, value) -> Tensor:  # noqa: A002
    """In-place ``torch.threshold``.

    Example:
        >>> ember.threshold_(ember.tensor([0.5, 2.0]), 1.0, -1.0)
        tensor([-1.,  2.])
    """
    return _F().threshold_(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None) -> Tensor:
    """``torch.rrelu``.

    Example:
        >>> ember.rrelu(ember.tensor([-8.0, 1.0]), 0.125, 0.125)
        tensor([-1.,  1.])
    """
    return _F().rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None) -> Tensor:
    """In-place ``torch.rrelu``.

    Example:
        >>> ember.rrelu_(ember.tensor([-8.0, 1.0]), 0.125, 0.125)
        tensor([-1.,  1.])
    """
    return _F().rrelu_(input, lower, upper, training)


def hardshrink(input, lambd=0.5, *, out=None) -> Tensor:
    """``torch.hardshrink``: zero where ``|input| <= lambd``.

    Example:
        >>> ember.hardshrink(ember.tensor([-1.0, 0.2, 1.0]))
        tensor([-1.,  0.,  1.])
    """
    from ember.ops.pointwise import _out

    return _out(_F().hardshrink(input, lambd), out)


def prelu(input, weight) -> Tensor:
    """``torch.prelu``.

    Example:
        >>> ember.prelu(ember.tensor([-2.0, 1.0]), ember.tensor([0.5]))
        tensor([-1.,  1.])
    """
    return _F().prelu(input, weight)


Tensor.hardshrink = hardshrink
Tensor.prelu = prelu


# ---- embeddings, products, distances, shuffles ---------------------------------------------------
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False) -> Tensor:
    """``torch.embedding(weight, indices, ...)`` (weight first, ``padding_idx=-1``: none).

    Example:
        >>> ember.embedding(ember.eye(3), ember.tensor([2]))
        tensor([[0., 0., 1.]])
    """
    pad = None if padding_idx is None or padding_idx < 0 else padding_idx
    return _F().embedding(
        indices, weight, pad, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse
    )


def embedding_renorm_(input, indices, max_norm, norm_type) -> Tensor:
    """Scale, in place, each row of ``input`` named in ``indices`` whose ``norm_type``-norm
    exceeds ``max_norm`` down to norm ``max_norm`` (what ``embedding(max_norm=...)`` does).

    Example:
        >>> ember.embedding_renorm_(ember.full((2, 2), 3.0), ember.tensor([1]), 1.0, 2.0)
        tensor([[3.0000, 3.0000],
                [0.7071, 0.7071]])
    """
    import ember

    with _no_grad():
        rows = ember.unique(indices.reshape(-1))
        # NOTE: matches torch: norm and scale in double, the 1e-7 keeps a zero row finite
        picked = input[rows].to(ember.float64)
        norms = ember.linalg.vector_norm(picked, norm_type, dim=1, keepdim=True)
        scale = ember.where(norms > max_norm, max_norm / (norms + 1e-7), ember.ones_like(norms))
        input[rows] = (picked * scale).to(input.dtype)
    return input


def embedding_bag(
    weight,
    indices,
    offsets,
    scale_grad_by_freq=False,
    mode=0,
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
) -> tuple:
    """``torch.embedding_bag``: ``(output, offset2bag, bag_size, max_indices)`` with ``mode``
    0 sum, 1 mean, 2 max. ``output`` is ``F.embedding_bag``'s; the other three are the
    bookkeeping tensors (``max_indices`` is zeros: ember's backward does not need it).

    Example:
        >>> w = ember.arange(6.0).reshape(3, 2)
        >>> ember.embedding_bag(w, ember.tensor([0, 1, 2]), ember.tensor([0, 1]))[0]
        tensor([[0., 1.],
                [6., 8.]])
    """
    import ember

    if mode not in (0, 1, 2):
        raise RuntimeError(f"embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {mode}")
    out = _F().embedding_bag(
        indices,
        weight,
        offsets,
        scale_grad_by_freq=scale_grad_by_freq,
        mode=("sum", "mean", "max")[mode],
        sparse=sparse,
        per_sample_weights=per_sample_weights,
        include_last_offset=include_last_offset,
        padding_idx=padding_idx,
    )
    nbags = out.shape[0]
    n = indices.numel()
    with _no_grad():
        if indices.ndim == 2:
            starts = ember.arange(nbags) * indices.shape[1]
        else:
            starts = offsets[:nbags].to(ember.int64)
        ends = ember.cat([starts[1:], ember.tensor([n])]) if nbags else starts
        if include_last_offset and indices.ndim == 1:
            ends = offsets[1 : nbags + 1].to(ember.int64)
        bag_size = ends - starts
        offset2bag = ember.repeat_interleave(ember.arange(nbags), bag_size)
    if mode == 0:
        offset2bag = ember.empty(0, dtype=ember.int64)
        return (
            out,
            offset2bag,
            ember.zeros(nbags, dtype=ember.int64),
            ember.zeros(nbags, dtype=ember.int64),
        )
    max_idx = bag_size if mode == 1 else ember.zeros(out.shape, dtype=ember.int64)
    return out, offset2bag, bag_size, max_idx


def bilinear(input1, input2, weight, bias=None) -> Tensor:
    """``torch.bilinear``: see ``ember.nn.functional.bilinear``.

    Example:
        >>> ember.bilinear(ember.ones(1, 2), ember.ones(1, 3), ember.ones(4, 2, 3)).shape
        ember.Size([1, 4])
    """
    return _F().bilinear(input1, input2, weight, bias)


def cosine_similarity(x1, x2, dim=1, eps=1e-08) -> Tensor:
    """``torch.cosine_similarity``.

    Example:
        >>> ember.cosine_similarity(ember.ones(1, 2), ember.ones(1, 2))
        tensor([1.0000])
    """
    return _F().cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False) -> Tensor:
    """``torch.pairwise_distance``.

    Example:
        >>> ember.pairwise_distance(ember.zeros(1, 2), ember.zeros(1, 2), eps=0.0)
        tensor([0.])
    """
    return _F().pairwise_distance(x1, x2, p, eps, keepdim)


def pixel_shuffle(input, upscale_factor) -> Tensor:
    """``torch.pixel_shuffle``.

    Example:
        >>> ember.pixel_shuffle(ember.zeros(1, 4, 1, 1), 2).shape
        ember.Size([1, 1, 2, 2])
    """
    return _F().pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor) -> Tensor:
    """``torch.pixel_unshuffle``.

    Example:
        >>> ember.pixel_unshuffle(ember.zeros(1, 1, 2, 2), 2).shape
        ember.Size([1, 4, 1, 1])
    """
    return _F().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input, groups) -> Tensor:
    """``torch.channel_shuffle``.

    Example:
        >>> ember.channel_shuffle(ember.arange(4.).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    return _F().channel_shuffle(input, groups)


def native_channel_shuffle(input, groups) -> Tensor:
    """``torch.native_channel_shuffle``: :func:`channel_shuffle`.

    Example:
        >>> ember.native_channel_shuffle(ember.arange(4.).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    return _F().native_channel_shuffle(input, groups)


# ---- losses (reduction as an integer) ------------------------------------------------------------
def kl_div(input, target, reduction=0, *, log_target=False) -> Tensor:
    """``torch.kl_div`` (``reduction``: 0 none, 1 mean, 2 sum; no warning for mean).

    Example:
        >>> ember.kl_div(ember.zeros(2), ember.ones(2))
        tensor([0., 0.])
    """
    r = _reduction(reduction)
    loss = _F().kl_div(input, target, reduction="none", log_target=log_target)
    return loss if r == "none" else (loss.mean() if r == "mean" else loss.sum())


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor:
    """``torch.margin_ranking_loss`` (integer ``reduction``).

    Example:
        >>> ember.margin_ranking_loss(ember.ones(2), ember.zeros(2), ember.ones(2))
        tensor([0., 0.])
    """
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0) -> Tensor:
    """``torch.hinge_embedding_loss`` (integer ``reduction``).

    Example:
        >>> ember.hinge_embedding_loss(ember.ones(2), ember.ones(2))
        tensor([1., 1.])
    """
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor:
    """``torch.cosine_embedding_loss`` (integer ``reduction``).

    Example:
        >>> ember.cosine_embedding_loss(ember.ones(1, 2), ember.ones(1, 2), ember.ones(1))
        tensor([0.])
    """
    return _F().cosine_embedding_loss(
        input1, input2, target, margin, reduction=_reduction(reduction)
    )


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False, reduction=0
) -> Tensor:
    """``torch.triplet_margin_loss`` (integer ``reduction``).

    Example:
        >>> z = ember.zeros(1, 2)
        >>> ember.triplet_margin_loss(z, z, z, eps=0.0)
        tensor([1.])
    """
    return _F().triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


def poisson_nll_loss(input, target, log_input, full, eps, reduction) -> Tensor:
    """``torch.poisson_nll_loss``: every argument required, ``reduction`` an integer.

    Example:
        >>> ember.poisson_nll_loss(ember.zeros(2), ember.ones(2), True, False, 1e-8, 1)
        tensor(1.)
    """
    return _F().poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank=0,
    reduction=0,
    zero_infinity=False,
) -> Tensor:
    """``torch.ctc_loss`` (integer ``reduction``; ``mean`` divides each loss by its target
    length, as ``F.ctc_loss``).

    Example:
        >>> lp = ember.zeros(2, 1, 2).log_softmax(2)
        >>> ember.ctc_loss(lp, ember.tensor([[1]]), [2], [1], reduction=2)
        tensor(0.2877)
    """
    return _F().ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        reduction=_reduction(reduction),
        zero_infinity=zero_infinity,
    )


def binary_cross_entropy_with_logits(
    input, target, weight=None, pos_weight=None, reduction=0
) -> Tensor:
    """``torch.binary_cross_entropy_with_logits`` (integer ``reduction``).

    Example:
        >>> ember.binary_cross_entropy_with_logits(ember.zeros(1), ember.ones(1))
        tensor([0.6931])
    """
    return _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


# ---- pooling and padding -------------------------------------------------------------------------
def adaptive_avg_pool1d(input, output_size) -> Tensor:
    """``torch.adaptive_avg_pool1d``.

    Example:
        >>> ember.adaptive_avg_pool1d(ember.arange(4.).reshape(1, 1, 4), 2)
        tensor([[[0.5000, 2.5000]]])
    """
    return _F().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size) -> tuple:
    """``torch.adaptive_max_pool1d``: ``(values, indices)`` (always both, as ATen).

    Example:
        >>> ember.adaptive_max_pool1d(ember.arange(4.).reshape(1, 1, 4), 2)[1]
        tensor([[[1, 3]]])
    """
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


def avg_pool1d(
    input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True
) -> Tensor:
    """``torch.avg_pool1d`` (``stride=()`` means ``kernel_size``).

    Example:
        >>> ember.avg_pool1d(ember.arange(4.).reshape(1, 1, 4), 2)
        tensor([[[0.5000, 2.5000]]])
    """
    return _F().avg_pool1d(
        input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad
    )


def _stride(stride):
    return None if stride is None or (isinstance(stride, (tuple, list)) and not stride) else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor:
    """``torch.max_pool1d``.

    Example:
        >>> ember.max_pool1d(ember.arange(4.).reshape(1, 1, 4), 2)
        tensor([[[1., 3.]]])
    """
    return _F().max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor:
    """``torch.max_pool2d``.

    Example:
        >>> ember.max_pool2d(ember.arange(4.).reshape(1, 1, 2, 2), 2)
        tensor([[[[3.]]]])
    """
    return _F().max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor:
    """``torch.max_pool3d``.

    Example:
        >>> ember.max_pool3d(ember.arange(8.).reshape(1, 1, 2, 2, 2), 2).flatten()
        tensor([7.])
    """
    return _F().max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(
    input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False
) -> tuple:
    """``torch.max_pool1d_with_indices``: ``(values, indices)``.

    Example:
        >>> ember.max_pool1d_with_indices(ember.arange(4.).reshape(1, 1, 4), 2)[1]
        tensor([[[1, 3]]])
    """
    return _F().max_pool1d_with_indices(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode, return_indices=True
    )


def constant_pad_nd(input, pad, value=0) -> Tensor:
    """``torch.constant_pad_nd``: ``F.pad`` in constant mode.

    Example:
        >>> ember.constant_pad_nd(ember.ones(2), [1, 0], 5.)
        tensor([5., 1., 1.])
    """
    return _F().pad(input, list(pad), "constant", value)


# ---- grids ------------------------------------------------------------------------------------
def affine_grid_generator(theta, size, align_corners) -> Tensor:
    """``torch.affine_grid_generator``: ``F.affine_grid`` with every argument required.

    Example:
        >>> th = ember.tensor([[[1.0, 0, 0], [0, 1, 0]]])
        >>> ember.affine_grid_generator(th, [1, 1, 2, 2], False).shape
        ember.Size([1, 2, 2, 2])
    """
    return _F().affine_grid(theta, list(size), align_corners=align_corners)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
    """``torch.grid_sampler``: ``F.grid_sample`` with the modes as integers
    (interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border,
    2 reflection).

    Example:
        >>> g = ember.zeros(1, 1, 1, 2)
        >>> ember.grid_sampler(ember.ones(1, 1, 2, 2), g, 0, 0, False)
        tensor([[[[1.]]]])
    """
    return _F().grid_sample(
        input,
        grid,
        mode=_INTERP[interpolation_mode],
        padding_mode=_PADDING[padding_mode],
        align_corners=align_corners,
    )


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
    """``torch.grid_sampler_2d``: :func:`grid_sampler` on 4-D input.

    Example:
        >>> g = ember.zeros(1, 1, 1, 2)
        >>> ember.grid_sampler_2d(ember.ones(1, 1, 2, 2), g, 0, 0, False)
        tensor([[[[1.]]]])
    """
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
    """``torch.grid_sampler_3d``: :func:`grid_sampler` on 5-D input.

    Example:
        >>> g = ember.zeros(1, 1, 1, 1, 3)
        >>> ember.grid_sampler_3d(ember.ones(1, 1, 2, 2, 2), g, 0, 0, False)
        tensor([[[[[1.]]]]])
    """
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


# ---- recurrent cells ------------------------------------------------------------------------
def _cell(mode, input, hx, cx, w_ih, w_hh, b_ih, b_hh):
    from ember.ops.rnn import RecurrentLayer, uniform_plan

    if b_ih is None:
        b = gh_b = None
    elif mode == "GRU":
        b, gh_b = b_ih, b_hh
    else:
        b, gh_b = (b_ih + b_hh if b_hh is not None else b_ih), None
    if input.ndim != 2:
        raise RuntimeError(
            f"{mode.lower()}_cell: expected a 2-D input (batch, input_size), got "
            f"{input.ndim}-D of shape {list(input.shape)}"
        )
    return RecurrentLayer.apply(
        input, hx, cx, w_ih, w_hh, b, gh_b, None, mode, uniform_plan(1, input.shape[0], False)
    )


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """``torch.gru_cell``: one GRU step on a ``(batch, input_size)`` input.

    Example:
        >>> ember.gru_cell(ember.ones(1, 2), ember.zeros(1, 3), ember.ones(9, 2),
        ...                ember.ones(9, 3)).shape
        ember.Size([1, 3])
    """
    return _cell("GRU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> tuple:
    """``torch.lstm_cell``: one LSTM step; ``hx`` is ``(h, c)``; returns ``(h, c)``.

    Example:
        >>> z = ember.zeros(1, 3)
        >>> h, c = ember.lstm_cell(ember.ones(1, 2), (z, z), ember.ones(12, 2), ember.ones(12, 3))
        >>> h.shape
        ember.Size([1, 3])
    """
    res = _cell("LSTM", input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)
    return res[0], res[2]


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """``torch.rnn_tanh_cell``: ``tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``.

    Example:
        >>> ember.rnn_tanh_cell(ember.zeros(1, 2), ember.zeros(1, 3), ember.ones(3, 2),
        ...                     ember.ones(3, 3))
        tensor([[0., 0., 0.]])
    """
    return _cell("RNN_TANH", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """``torch.rnn_relu_cell``: ``relu(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``.

    Example:
        >>> ember.rnn_relu_cell(ember.zeros(1, 2), ember.zeros(1, 3), ember.ones(3, 2),
        ...                     ember.ones(3, 3))
        tensor([[0., 0., 0.]])
    """
    return _cell("RNN_RELU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]
