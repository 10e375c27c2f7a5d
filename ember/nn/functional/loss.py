"""``ember.nn.functional``: the losses (cross_entropy, nll_loss, mse_loss, kl_div, ctc_loss...).

Each keeps PyTorch's signature, defaults, checks and messages. The class-index losses, binary
cross entropy and CTC run as primitives (``ember/ops/loss.py``); the rest are compositions of
Tensor ops whose autograd gives PyTorch's gradients. ``reduction`` is ``'none'``, ``'mean'`` or
``'sum'``; the deprecated ``size_average``/``reduce`` arguments map onto it as PyTorch's do, with
its warning.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

from ember.autograd import grad_mode as _gm
from ember.ops import loss as _L
from ember.ops.broadcast import broadcast_shapes, broadcast_tensors
from ember.ops.creation import ones_like
from ember.ops.softmax import log_softmax
from ember.ops.ternary import where
from ember.tensor import Tensor

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "ctc_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

_state = _gm.state
_ENUM = {"none": 0, "mean": 1, "sum": 2}
# PyTorch's scalar type names, for messages
_TNAME = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
          "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


# ---- reductions ----------------------------------------------------------------------------------
def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The ``reduction`` meant by the deprecated ``size_average``/``reduce`` pair (None counts
    as True), with PyTorch's deprecation warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
            "instead.", stacklevel=3)
    return ret


def _reduction(reduction: str, size_average=None, reduce=None) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return reduction


def get_enum(reduction: str) -> int:
    """PyTorch's reduction code (0 none, 1 mean, 2 sum); ValueError for anything else."""
    code = _ENUM.get(reduction) if isinstance(reduction, str) else None
    if code is None:
        if reduction == "elementwise_mean":
            warnings.warn("reduction='elementwise_mean' is deprecated. Please use "
                          "reduction='mean' instead.", stacklevel=3)
            return 1
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return code


def _reduce(loss: Tensor, code: int) -> Tensor:
    if code == 1:
        return loss.mean()
    if code == 2:
        return loss.sum()
    return loss


def _size_warning(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.", stacklevel=3)


def _not_differentiable(op: str, name: str, t) -> None:
    if t is not None and t.requires_grad and _state.enabled:
        raise RuntimeError(
            f"The function '{op}' is not differentiable with respect to argument '{name}'. "
            "This input cannot have requires_grad True.")


def _tname(t: Tensor) -> str:
    return _TNAME.get(t._data.dtype.name, t._data.dtype.name)


# ---- class-index losses --------------------------------------------------------------------------
def _check_class_weight(weight, c: int) -> None:
    if weight is not None and (weight.dim() != 1 or weight.numel() != c):
        raise RuntimeError(
            f"weight tensor should be defined either for all {c} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}")


def _class_index_args(input: Tensor, target: Tensor, weight, op: str):
    """PyTorch's nll_loss_nd checks, in its order; returns (input, target) with a batch dim
    (an unbatched (C,) input gets one) and whether one was added."""
    xd, td = input._data.ndim, target._data.ndim
    if xd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {xd})")
    if xd != 1 and (td == 0 or input.shape[0] != target.shape[0]):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0] if td else 1}).")
    td_ = target._data.dtype
    if not ((td_.kind == "i" and td_.itemsize == 8) or (td_.kind == "u" and td_.itemsize == 1)):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_tname(target)}")
    if xd <= 2:
        if td > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if xd == 1:
            if td == 1 and target.shape[0] != 1:
                raise ValueError(f"For 1D input, 1D target must have size 1, but got target "
                                 f"size: {target.shape[0]}")
            _check_class_weight(weight, input.shape[0])
            return input.unsqueeze(0), target.reshape(1), True
    elif xd == 4:
        if td != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {td}")
        if target.shape != input.shape[:1] + input.shape[2:]:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                               f"{list(target.shape)}")
    elif target.shape != input.shape[:1] + input.shape[2:]:
        raise RuntimeError(f"Expected target size {list(input.shape[:1] + input.shape[2:])}, "
                           f"got {list(target.shape)}")
    _check_class_weight(weight, input.shape[1])
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input)} but found {_tname(weight)}")
    return input, target, False


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of the target classes: ``-weight[t] * input[n, t]``.

    ``input`` is (N, C), (C,) or (N, C, d1, ...) log-probabilities, ``target`` (N,), () or
    (N, d1, ...) class indices (int64). ``'mean'`` divides by the summed weights of the targets
    that are not ``ignore_index``.

    Example:
        >>> x = ember.tensor([[0.0, -1.0], [-2.0, 0.0]])
        >>> ember.nn.functional.nll_loss(x, ember.tensor([1, 0]))
        tensor(1.5000)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    x, t, unbatched = _class_index_args(input, target, weight, "nll_loss")
    _float_only("nll_loss_out_frame", input)
    _not_differentiable("nll_loss_forward", "weight", weight)
    out = _L.NllLoss.apply(x, t._data, weight, code, ignore_index)
    return out.reshape(()) if unbatched and code == 0 else out


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy between logits and targets: ``nll_loss(log_softmax(input, 1), target)``.

    ``target`` is class indices (int64, shaped as ``input`` without the class dim) or class
    probabilities (float, shaped as ``input``). ``label_smoothing`` mixes the target with the
    uniform distribution. Exact at extreme logits (the max is subtracted first).

    Example:
        >>> x = ember.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 1e4]])
        >>> ember.nn.functional.cross_entropy(x, ember.tensor([0, 2]))
        tensor(0.1198)
    """
    # the call of a classification train step, recognized with a few attribute reads
    if (weight is None and size_average is None and reduce is None and label_smoothing == 0.0
            and isinstance(input, Tensor) and isinstance(target, Tensor)):
        x, t = input._data, target._data
        td = t.dtype
        if (x.ndim == 2 and t.ndim == 1 and x.shape[0] == t.shape[0] and td.kind == "i"
                and td.itemsize == 8 and x.dtype.kind == "f" and reduction in _ENUM):
            return _L.CrossEntropy.apply(input, t, None, _ENUM[reduction], ignore_index, 0.0)
    code = get_enum(_reduction(reduction, size_average, reduce))
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.shape == target.shape:
        return _cross_entropy_probs(input, target, weight, ignore_index, code, label_smoothing)
    x, t, unbatched = _class_index_args(input, target, weight, "cross_entropy")
    _float_only("log_softmax_lastdim_kernel_impl", input)
    _not_differentiable("nll_loss_forward", "weight", weight)
    out = _L.CrossEntropy.apply(x, t._data, weight, code, ignore_index, label_smoothing)
    return out.reshape(()) if unbatched and code == 0 else out


def _cross_entropy_probs(input, target, weight, ignore_index, code, smoothing):
    if target._data.dtype.kind != "f":
        raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                           f"got {_tname(target)}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    dim = 1 if input.dim() > 1 else 0
    c = input.shape[dim]
    _check_class_weight(weight, c)
    logp = log_softmax(input, dim)
    if smoothing > 0.0:
        target = target * (1 - smoothing) + smoothing / c
    prod = logp * target
    if weight is not None:
        prod = prod * weight.reshape((1, c) + (1,) * (input.dim() - 2) if dim else (c,))
    if code == 0:
        return -prod.sum(dim)
    if code == 2:
        return -prod.sum()
    n = input.numel() // c if c else 0
    # NOTE: matches torch: 'mean' divides by the number of elements, not by the weights
    return -prod.sum() / n if n else -prod.sum() * math.nan


# ---- binary cross entropy ------------------------------------------------------------------------
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """``-weight (t log x + (1 - t) log(1 - x))`` for probabilities ``x`` in [0, 1]; each log is
    clamped at -100, as PyTorch's.

    Example:
        >>> ember.nn.functional.binary_cross_entropy(ember.tensor([0.5]), ember.tensor([1.0]))
        tensor(0.6931)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(broadcast_shapes(target.shape, weight.shape))
    _not_differentiable("binary_cross_entropy", "weight", weight)
    return _L.BinaryCrossEntropy.apply(input, target, weight, code)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably from the logits;
    ``pos_weight`` scales the positive term (broadcast along the last, class, dim).

    Example:
        >>> ember.nn.functional.binary_cross_entropy_with_logits(ember.tensor([0.0]),
        ...                                                      ember.tensor([1.0]))
        tensor(0.6931)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    _not_differentiable("binary_cross_entropy_with_logits", "weight", weight)
    _not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    return _L.BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, code)


# ---- regression losses ---------------------------------------------------------------------------
def _weighted(loss: Tensor, input: Tensor, weight: Tensor, reduction: str, mean_by_weight: bool):
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean_by_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def _float_only(op: str, input: Tensor) -> None:
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"{op}" not implemented for \'{_tname(input)}\'')


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean squared error ``(input - target) ** 2``; a target of another size broadcasts, with
    PyTorch's warning.

    Example:
        >>> ember.nn.functional.mse_loss(ember.tensor([1.0, 2.0]), ember.tensor([0.0, 0.0]))
        tensor(2.5000)
    """
    _size_warning(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if weight is not None:
        x, y = broadcast_tensors(input, target)
        return _weighted((x - y).pow(2), input, weight, reduction, True)
    code = get_enum(reduction)
    _float_only("mse_cpu", input)
    return _reduce((input - target).square(), code)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean absolute error ``|input - target|``.

    Example:
        >>> ember.nn.functional.l1_loss(ember.tensor([1.0, -2.0]), ember.tensor([0.0, 0.0]))
        tensor(1.5000)
    """
    _size_warning(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if weight is not None:
        x, y = broadcast_tensors(input, target)
        return _weighted((x - y).abs(), input, weight, reduction, True)
    code = get_enum(reduction)
    return _reduce((input - target).abs(), code)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input -
    target``); ``beta=0`` is the L1 loss.

    Example:
        >>> ember.nn.functional.smooth_l1_loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]))
        tensor(1.3125)
    """
    _size_warning(input, target)
    code = get_enum(_reduction(reduction, size_average, reduce))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return _reduce((input - target).abs(), code)
    x, y = broadcast_tensors(input, target)
    return _L._SmoothL1Node.apply(x, y, float(beta), False, code)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``.

    Example:
        >>> ember.nn.functional.huber_loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]))
        tensor(1.3125)
    """
    _size_warning(input, target)
    if weight is None:
        code = get_enum(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    x, y = broadcast_tensors(input, target)
    if weight is not None:
        loss = _L._HuberNode.apply(x, y, float(delta), True, 0)
        return _weighted(loss, input, weight, reduction, False)
    return _L._HuberNode.apply(x, y, float(delta), True, code)


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence ``target (log target - input)`` for log-probabilities
    ``input``; ``reduction='batchmean'`` divides the sum by the batch size (the KL definition),
    ``'mean'`` by the element count (with PyTorch's warning).

    Example:
        >>> p = ember.tensor([[0.5, 0.5]])
        >>> ember.nn.functional.kl_div(p.log(), p, reduction="batchmean")
        tensor(0.)
    """
    if size_average is not None or reduce is not None:
        code = get_enum(legacy_get_string(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div "
                "math definition.'mean' will be changed to behave the same as 'batchmean' in the "
                "next major release.", stacklevel=2)
        code = 2 if reduction == "batchmean" else get_enum(reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = target.xlogy(target) - target * input
    out = _reduce(loss, code)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.shape[0]
    return out


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """Poisson negative log-likelihood: ``exp(input) - target * input`` (``log_input``) or
    ``input - target * log(input + eps)``; ``full`` adds Stirling's term for targets > 1.

    Example:
        >>> ember.nn.functional.poisson_nll_loss(ember.tensor([0.0]), ember.tensor([1.0]))
        tensor(1.)
    """
    reduction = _reduction(reduction, size_average, reduce)
    code = get_enum(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, code)


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Gaussian negative log-likelihood ``0.5 (log var + (input - target)**2 / var)``, var
    clamped below at ``eps``. ``var`` is input's shape, one dim short (one variance per row),
    or has a single dim of size 1 where input's differs; or a float.

    Example:
        >>> ember.nn.functional.gaussian_nll_loss(ember.tensor([1.0]), ember.tensor([1.0]),
        ...                                       ember.tensor([1.0]))
        tensor(0.)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)  # one variance per row: broadcast along the last dim
        elif input.dim() == var.dim() and sum(
                v for i, v in zip(input.shape, var.shape) if i != v) == 1:
            pass  # one dim of size 1 where input's differs: broadcasts
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # NOTE: matches torch: the clamp is not recorded, so the gradient reaches var as if
    # unclamped
    var = var.clone()
    with _gm.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, _ENUM[reduction])


# ---- margin and embedding losses -----------------------------------------------------------------
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where target is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1.

    Example:
        >>> x = ember.tensor([[1.0, 0.0]])
        >>> ember.nn.functional.cosine_embedding_loss(x, x, ember.tensor([1.0]))
        tensor(0.)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(
            f"{td}D target tensor expects {want}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}.")
    d = td  # the feature dim
    eps = 1e-12  # NOTE: matches torch: added to each squared norm
    prod = (input1 * input2).sum(d)
    mag1 = (input1 * input1).sum(d) + eps
    mag2 = (input2 * input2).sum(d) + eps
    cos = prod / (mag1 * mag2).sqrt()
    pos = where(target == 1, 1 - cos, 0.0)
    neg = where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _reduce(pos + neg, code)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """``max(0, -target (input1 - input2) + margin)``.

    Example:
        >>> ember.nn.functional.margin_ranking_loss(ember.tensor([1.0]), ember.tensor([2.0]),
        ...                                         ember.tensor([1.0]))
        tensor(1.)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), code)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """``input`` where target is 1, ``max(0, margin - input)`` where it is -1.

    Example:
        >>> ember.nn.functional.hinge_embedding_loss(ember.tensor([0.3, 0.3]),
        ...                                          ember.tensor([1.0, -1.0]))
        tensor(0.5000)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    out_margin = where(target != 1, (margin - input).clamp_min(0), 0.0)
    out_self = where(target != -1, input, 0.0)
    return _reduce(out_margin + out_self, code)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-target * input))``.

    Example:
        >>> ember.nn.functional.soft_margin_loss(ember.tensor([0.0]), ember.tensor([1.0]))
        tensor(0.6931)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    return _reduce((-target * input).exp().log1p(), code)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average=None, reduce=None,
                                reduction: str = "mean") -> Tensor:
    """Per-class logistic loss averaged over the classes (last dim), for multi-hot targets.

    Example:
        >>> ember.nn.functional.multilabel_soft_margin_loss(ember.zeros(1, 2),
        ...                                                 ember.tensor([[1.0, 0.0]]))
        tensor(0.6931)
    """
    reduction = _reduction(reduction, size_average, reduce)
    loss = -(target * _L.LogSigmoid.apply(input) + (1 - target) * _L.LogSigmoid.apply(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction not in _ENUM:
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, _ENUM[reduction])


def _margin_input_check(input: Tensor) -> None:
    if input.dim() > 2 or input.dim() == 0 or input.numel() == 0 and input.dim() != 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average=None, reduce=None,
                      reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: ``sum_{j != y} max(0, margin - x[y] + x[j])**p / C``, scaled by
    ``weight[y]``.

    Example:
        >>> ember.nn.functional.multi_margin_loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]),
        ...                                       ember.tensor([3]))
        tensor(0.3250)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _margin_input_check(input)
    x = input if input.dim() == 2 else input.unsqueeze(0)
    n, c = x.shape
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError(
            f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{n}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got "
                           f"{list(weight.shape)}")
    t = target._data.reshape(n)
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")
    idx = _as_long(t)
    xy = x.gather(1, idx.unsqueeze(1))
    z = (margin - xy + x).relu()  # relu: no gradient at z == 0, as torch's strict z > 0
    if p == 2:
        z = z * z
    z = z * _as_float(t[:, None] != _arange_np(c, t), x)  # the sum skips j == y
    if weight is not None:
        z = z * weight[idx].unsqueeze(1)
    loss = z.sum(1) / c
    if input.dim() == 1 and target.dim() == 0:
        loss = loss.reshape(())
    return _reduce(loss, code)


def _as_long(array) -> Tensor:
    from ember.tensor import _wrap

    return _wrap(array.astype("int64", copy=False))


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss: for each target class ``j`` (the prefix of ``target`` before the
    first -1) and each non-target class ``k``, ``max(0, 1 - (x[j] - x[k])) / C``.

    Example:
        >>> ember.nn.functional.multilabel_margin_loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]),
        ...                                            ember.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    _margin_input_check(input)
    if target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    x = input if input.dim() == 2 else input.unsqueeze(0)
    n, c = x.shape
    t = target._data.reshape(n, c)
    if t.size and (t.min() < -1 or t.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    # the targets of a row are its entries before the first -1; count[n, j] = how many times
    # class j is listed there (torch sums over the listed entries), is_target[n, k] marks them
    stop = (t < 0).cumsum(1) > 0
    listed = (t[:, :, None] == _arange_np(c, t)) & ~stop[:, :, None]
    count = _as_float(listed.sum(1), x)
    not_target = _as_float(listed.any(1) == 0, x)
    # z[n, j, k] = 1 - x[n, j] + x[n, k]
    z = (1 - x.unsqueeze(2) + x.unsqueeze(1)).relu()
    loss = (z * (count.unsqueeze(2) * not_target.unsqueeze(1))).sum((1, 2)) / c
    if input.dim() == 1:
        loss = loss.reshape(())
    return _reduce(loss, code)


def _arange_np(c: int, like):
    from ember.ops._dispatch import xp_of

    return xp_of(like).arange(c)


def _as_float(array, like: Tensor) -> Tensor:
    from ember.tensor import _wrap

    return _wrap(array.astype(like._data.dtype))


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6) -> Tensor:
    # torch.pairwise_distance: the p-norm of x1 - x2 + eps along the last dim
    d = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, d if d >= 0 else None)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """``max(0, d(a, p) - d(a, n) + margin)`` with ``d`` the pairwise p-norm distance; ``swap``
    uses ``min(d(a, n), d(p, n))``.

    Example:
        >>> a = ember.zeros(1, 2)
        >>> ember.nn.functional.triplet_margin_loss(a, a, a + 3.0)
        tensor(0.)
    """
    code = get_enum(_reduction(reduction, size_average, reduce))
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    dpos = _pairwise_distance(anchor, positive, p, eps)
    dneg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        dneg = dneg.minimum(_pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dpos - dneg).clamp_min(0), code)


def _triplet_dims(a: Tensor, p: Tensor, n: Tensor) -> None:
    if not (a.dim() == p.dim() == n.dim()):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a.dim()}D, positive {p.dim()}D, and negative "
            f"{n.dim()}D inputs")


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable | None = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """``triplet_margin_loss`` with any distance (default: pairwise Euclidean).

    Example:
        >>> a = ember.zeros(1, 2)
        >>> ember.nn.functional.triplet_margin_with_distance_loss(a, a, a + 3.0)
        tensor(0.)
    """
    if reduction not in _ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    dist = distance_function if distance_function is not None else _pairwise_distance
    dpos = dist(anchor, positive)
    dneg = dist(anchor, negative)
    if swap:
        dneg = dneg.minimum(dist(positive, negative))
    return _reduce((margin + dpos - dneg).clamp_min(0), _ENUM[reduction])


# ---- CTC -----------------------------------------------------------------------------------------
def _lengths(x, like: Tensor):
    """Lengths as an int64 array, from a Tensor or a sequence of ints."""
    from ember.ops._dispatch import xp_of

    if isinstance(x, Tensor):
        return x._data.astype("int64", copy=False).reshape(-1)
    return xp_of(like._data).asarray(list(x) if not isinstance(x, int) else [x], dtype="int64")


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Connectionist Temporal Classification loss: ``-log p(targets | log_probs)`` summed over
    all alignments.

    ``log_probs`` (T, N, C) or (T, C) log-probabilities (log_softmax outputs); ``targets``
    (N, S) padded or 1-D concatenated; ``input_lengths``/``target_lengths`` (N,) tensors or
    sequences. ``'mean'`` divides each loss by its target length, then averages over the batch;
    ``zero_infinity`` zeroes impossible alignments' losses and gradients.

    Example:
        >>> lp = ember.zeros(3, 1, 2).log_softmax(2)
        >>> ember.nn.functional.ctc_loss(lp, ember.tensor([[1]]), [3], [1], reduction="sum")
        tensor(0.2877)
    """
    code = get_enum(reduction)
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    il = _lengths(input_lengths, log_probs)
    tl = _lengths(target_lengths, log_probs)
    t_max, n, c = lp.shape if lp.dim() == 3 else (0, -1, 0)
    if il.shape[0] != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl.shape[0] != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    tg = targets._data
    if unbatched and tg.ndim == 1 and tg.shape[0] != int(tl.sum()):
        tg = tg.reshape(1, -1)
    where_ = " (while checking arguments for ctc_loss_allocate_outputs)"
    if tg.ndim == 1:
        if tg.shape[0] != int(tl.sum()):
            raise RuntimeError(f"Expected tensor to have size {int(tl.sum())} at dimension 0, but "
                               f"got size {tg.shape[0]} for argument #2 'targets'{where_}")
    elif n and tg.shape[1] < int(tl.max()):
        raise RuntimeError(f"Expected tensor to have size at least {int(tl.max())} at dimension "
                           f"1, but got size {tg.shape[1]} for argument #2 'targets'{where_}")
    if n and int(il.min()) < 0:
        raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                           f"{int(il.min())}{where_}")
    if n and int(il.max()) > t_max:
        raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value "
                           f"{int(il.max())}{where_}")
    padded = _L.ctc_padded_targets(tg, tl, n)
    out = _L.CtcLoss.apply(lp, padded, il, tl, blank, code, zero_infinity)
    return out.reshape(()) if unbatched and code == 0 else out
