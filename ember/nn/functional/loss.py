"""``ember.nn.functional``: the losses (cross_entropy, nll_loss, mse_loss, kl_div, ctc_loss...);
the margin and embedding losses are in ``margin_loss.py``.

Each keeps PyTorch's signature, defaults, checks and messages. The class-index losses, binary
cross entropy and CTC run as primitives (``ember/ops/loss.py``); the rest are compositions of
Tensor ops whose autograd gives PyTorch's gradients. ``reduction`` is ``'none'``, ``'mean'`` or
``'sum'``; the deprecated ``size_average``/``reduce`` arguments map onto it as PyTorch's do, with
its warning.
"""

from __future__ import annotations

import math
import warnings

from ember import _autocast as _ac
from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.ops import linear_cross_entropy as _LCE
from ember.ops import loss as _L
from ember.ops.broadcast import broadcast_shapes, broadcast_tensors
from ember.ops.creation import ones_like
from ember.ops.linear import linear
from ember.ops.softmax import log_softmax
from ember.tensor import Tensor

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "ctc_loss",
    "gaussian_nll_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "linear_cross_entropy",
    "mse_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
]

_state = _gm.state
_ENUM = {"none": 0, "mean": 1, "sum": 2}
# PyTorch's scalar type names, for messages
_TNAME = _dtype.SCALAR_NAMES


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
            "instead.",
            stacklevel=3,
        )
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
            warnings.warn(
                "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                stacklevel=3,
            )
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
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def _not_differentiable(op: str, name: str, t) -> None:
    if t is not None and t.requires_grad and _state.enabled:
        raise RuntimeError(
            f"The function '{op}' is not differentiable with respect to argument '{name}'. "
            "This input cannot have requires_grad True."
        )


def _tname(t: Tensor) -> str:
    return _TNAME.get(t._data.dtype.name, t._data.dtype.name)


# ---- class-index losses --------------------------------------------------------------------------
def _check_class_weight(weight, c: int) -> None:
    if weight is not None and (weight.dim() != 1 or weight.numel() != c):
        raise RuntimeError(
            f"weight tensor should be defined either for all {c} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )


def _class_index_args(input: Tensor, target: Tensor, weight, op: str):
    """PyTorch's nll_loss_nd checks, in its order; returns (input, target) with a batch dim
    (an unbatched (C,) input gets one) and whether one was added."""
    xd, td = input._data.ndim, target._data.ndim
    if xd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {xd})")
    if xd != 1 and (td == 0 or input.shape[0] != target.shape[0]):
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target "
            f"batch_size ({target.shape[0] if td else 1})."
        )
    td_ = target._data.dtype
    if not ((td_.kind == "i" and td_.itemsize == 8) or (td_.kind == "u" and td_.itemsize == 1)):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_tname(target)}")
    if xd <= 2:
        if td > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if xd == 1:
            if td == 1 and target.shape[0] != 1:
                raise ValueError(
                    f"For 1D input, 1D target must have size 1, but got target "
                    f"size: {target.shape[0]}"
                )
            _check_class_weight(weight, input.shape[0])
            return input.unsqueeze(0), target.reshape(1), True
    elif xd == 4:
        if td != 3:
            raise RuntimeError(
                f"only batches of spatial targets supported (3D tensors) but got "
                f"targets of dimension: {td}"
            )
        if target.shape != input.shape[:1] + input.shape[2:]:
            raise RuntimeError(
                f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}"
            )
    elif target.shape != input.shape[:1] + input.shape[2:]:
        raise RuntimeError(
            f"Expected target size {list(input.shape[:1] + input.shape[2:])}, "
            f"got {list(target.shape)}"
        )
    _check_class_weight(weight, input.shape[1])
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input)} but found {_tname(weight)}")
    return input, target, False


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of the target classes: ``-weight[t] * input[n, t]``.

    ``input`` is (N, C), (C,) or (N, C, d1, ...) log-probabilities, ``target`` (N,), () or
    (N, d1, ...) class indices (int64). ``'mean'`` divides by the summed weights of the targets
    that are not ``ignore_index``.

    Example:
        >>> x = ember.tensor([[0.0, -1.0], [-2.0, 0.0]])
        >>> ember.nn.functional.nll_loss(x, ember.tensor([1, 0]))
        tensor(1.5000)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            nll_loss, input, target, weight, size_average, ignore_index, reduce, reduction
        )
    code = get_enum(_reduction(reduction, size_average, reduce))
    x, t, unbatched = _class_index_args(input, target, weight, "nll_loss")
    _float_only("nll_loss_out_frame", input)
    _not_differentiable("nll_loss_forward", "weight", weight)
    out = _L.NllLoss.apply(x, t._data, weight, code, ignore_index)
    return out.reshape(()) if unbatched and code == 0 else out


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross entropy between logits and targets: ``nll_loss(log_softmax(input, 1), target)``.

    ``target`` is class indices (int64, shaped as ``input`` without the class dim) or class
    probabilities (float, shaped as ``input``). ``label_smoothing`` mixes the target with the
    uniform distribution. Exact at extreme logits (the max is subtracted first).

    Example:
        >>> x = ember.tensor([[2.0, 0.0, 0.0], [0.0, 0.0, 1e4]])
        >>> ember.nn.functional.cross_entropy(x, ember.tensor([0, 2]))
        tensor(0.1198)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            cross_entropy,
            input,
            target,
            weight,
            size_average,
            ignore_index,
            reduce,
            reduction,
            label_smoothing,
        )
    # the call of a classification train step, recognized with a few attribute reads
    if (
        weight is None
        and size_average is None
        and reduce is None
        and label_smoothing == 0.0
        and isinstance(input, Tensor)
        and isinstance(target, Tensor)
    ):
        x, t = input._data, target._data
        td = t.dtype
        if (
            x.ndim == 2
            and t.ndim == 1
            and x.shape[0] == t.shape[0]
            and td.kind == "i"
            and td.itemsize == 8
            and x.dtype.kind in "fV"
            and reduction in _ENUM
        ):
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
    if target._data.dtype.kind not in "fV":
        raise RuntimeError(
            f"Expected floating point type for target with class probabilities, "
            f"got {_tname(target)}"
        )
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
def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``-weight (t log x + (1 - t) log(1 - x))`` for probabilities ``x`` in [0, 1]; each log is
    clamped at -100, as PyTorch's.

    Example:
        >>> ember.nn.functional.binary_cross_entropy(ember.tensor([0.5]), ember.tensor([1.0]))
        tensor(0.6931)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            binary_cross_entropy, input, target, weight, size_average, reduce, reduction
        )
    code = get_enum(_reduction(reduction, size_average, reduce))
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(broadcast_shapes(target.shape, weight.shape))
    _not_differentiable("binary_cross_entropy", "weight", weight)
    return _L.BinaryCrossEntropy.apply(input, target, weight, code)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably from the logits;
    ``pos_weight`` scales the positive term (broadcast along the last, class, dim).

    Example:
        >>> ember.nn.functional.binary_cross_entropy_with_logits(ember.tensor([0.0]),
        ...                                                      ember.tensor([1.0]))
        tensor(0.6931)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            binary_cross_entropy_with_logits,
            input,
            target,
            weight,
            size_average,
            reduce,
            reduction,
            pos_weight,
        )
    code = get_enum(_reduction(reduction, size_average, reduce))
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.size()}) must be the same as input size ({input.size()})"
        )
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
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _float_only(op: str, input: Tensor) -> None:
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f"\"{op}\" not implemented for '{_tname(input)}'")


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean squared error ``(input - target) ** 2``; a target of another size broadcasts, with
    PyTorch's warning.

    Example:
        >>> ember.nn.functional.mse_loss(ember.tensor([1.0, 2.0]), ember.tensor([0.0, 0.0]))
        tensor(2.5000)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(mse_loss, input, target, size_average, reduce, reduction, weight)
    _size_warning(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if weight is not None:
        x, y = broadcast_tensors(input, target)
        return _weighted((x - y).pow(2), input, weight, reduction, True)
    code = get_enum(reduction)
    _float_only("mse_cpu", input)
    return _reduce((input - target).square(), code)


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean absolute error ``|input - target|``.

    Example:
        >>> ember.nn.functional.l1_loss(ember.tensor([1.0, -2.0]), ember.tensor([0.0, 0.0]))
        tensor(1.5000)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(l1_loss, input, target, size_average, reduce, reduction, weight)
    _size_warning(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if weight is not None:
        x, y = broadcast_tensors(input, target)
        return _weighted((x - y).abs(), input, weight, reduction, True)
    code = get_enum(reduction)
    return _reduce((input - target).abs(), code)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input -
    target``); ``beta=0`` is the L1 loss.

    Example:
        >>> ember.nn.functional.smooth_l1_loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]))
        tensor(1.3125)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(smooth_l1_loss, input, target, size_average, reduce, reduction, beta)
    _size_warning(input, target)
    code = get_enum(_reduction(reduction, size_average, reduce))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return _reduce((input - target).abs(), code)
    x, y = broadcast_tensors(input, target)
    if x._data.dtype.kind == "c":
        _float_only("smooth_l1_cpu", x)
    return _L._SmoothL1Node.apply(x, y, float(beta), False, code)


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``.

    Example:
        >>> ember.nn.functional.huber_loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]))
        tensor(1.3125)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(huber_loss, input, target, reduction, delta, weight)
    _size_warning(input, target)
    if weight is None:
        code = get_enum(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    x, y = broadcast_tensors(input, target)
    if x._data.dtype.kind == "c":
        _float_only("huber_cpu", x)
    if weight is not None:
        loss = _L._HuberNode.apply(x, y, float(delta), True, 0)
        return _weighted(loss, input, weight, reduction, False)
    return _L._HuberNode.apply(x, y, float(delta), True, code)


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """Kullback-Leibler divergence ``target (log target - input)`` for log-probabilities
    ``input``; ``reduction='batchmean'`` divides the sum by the batch size (the KL definition),
    ``'mean'`` by the element count (with PyTorch's warning).

    Example:
        >>> p = ember.tensor([[0.5, 0.5]])
        >>> ember.nn.functional.kl_div(p.log(), p, reduction="batchmean")
        tensor(0.)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(kl_div, input, target, size_average, reduce, reduction, log_target)
    if size_average is not None or reduce is not None:
        code = get_enum(legacy_get_string(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div "
                "math definition.'mean' will be changed to behave the same as 'batchmean' in the "
                "next major release.",
                stacklevel=2,
            )
        code = 2 if reduction == "batchmean" else get_enum(reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = target.xlogy(target) - target * input
    out = _reduce(loss, code)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.shape[0]
    return out


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Poisson negative log-likelihood: ``exp(input) - target * input`` (``log_input``) or
    ``input - target * log(input + eps)``; ``full`` adds Stirling's term for targets > 1.

    Example:
        >>> ember.nn.functional.poisson_nll_loss(ember.tensor([0.0]), ember.tensor([1.0]))
        tensor(1.)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            poisson_nll_loss, input, target, log_input, full, size_average, eps, reduce, reduction
        )
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


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
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
        elif (
            input.dim() == var.dim()
            and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1
        ):
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


# ---- CTC -----------------------------------------------------------------------------------------
def _lengths(x, like: Tensor):
    """Lengths as an int64 array, from a Tensor or a sequence of ints."""
    from ember.ops._dispatch import xp_of

    if isinstance(x, Tensor):
        return x._data.astype("int64", copy=False).reshape(-1)
    return xp_of(like._data).asarray(list(x) if not isinstance(x, int) else [x], dtype="int64")


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
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
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            ctc_loss,
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            blank,
            reduction,
            zero_infinity,
        )
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
            raise RuntimeError(
                f"Expected tensor to have size {int(tl.sum())} at dimension 0, but "
                f"got size {tg.shape[0]} for argument #2 'targets'{where_}"
            )
    elif n and tg.shape[1] < int(tl.max()):
        raise RuntimeError(
            f"Expected tensor to have size at least {int(tl.max())} at dimension "
            f"1, but got size {tg.shape[1]} for argument #2 'targets'{where_}"
        )
    if n and int(il.min()) < 0:
        raise RuntimeError(
            f"Expected input_lengths to have value at least 0, but got value "
            f"{int(il.min())}{where_}"
        )
    if n and int(il.max()) > t_max:
        raise RuntimeError(
            f"Expected input_lengths to have value at most {t_max}, but got value "
            f"{int(il.max())}{where_}"
        )
    padded = _L.ctc_padded_targets(tg, tl, n)
    out = _L.CtcLoss.apply(lp, padded, il, tl, blank, code, zero_infinity)
    return out.reshape(()) if unbatched and code == 0 else out


# ---- linear + cross entropy ----------------------------------------------------------------------
def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options=None,
) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``.

    ``input`` is (N, in) or (in,); ``linear_weight`` (C, in) or (C, d1, ..., dK, in) for a
    K-dimensional loss (batched input only), ``linear_bias`` its shape without ``in``. The
    target holds class indices, shaped as the logits without the class dim, or class
    probabilities, shaped as the logits (N, C, d1, ...). ``ignore_index=None`` means -100 for
    class indices and is the only value allowed with probabilities.

    ``options`` (``nn.LinearCrossEntropyOptions``) computes the loss a block of rows at a time,
    never holding the (N, C) logits: same numbers, less memory. It covers 2-D weights, int64
    targets, no label smoothing and reductions 'mean'/'sum'/'none'; anything else warns and
    takes the reference path, as PyTorch.

    Example:
        >>> x, w = ember.randn(4, 3), ember.randn(6, 3)
        >>> t = ember.tensor([0, 5, 2, 2])
        >>> loss = F.linear_cross_entropy(x, w, t)
        >>> bool(ember.allclose(loss, F.cross_entropy(F.linear(x, w), t)))
        True
    """
    xd, wd = input.dim(), linear_weight.dim()
    if xd < 1 or xd > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {xd}")
    if wd < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {wd}")
    batch = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {in_features} and {linear_weight.shape[-1]}, respectively"
        )
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(
            f"expected linear_bias shape {(num_classes, *out_features)}, got "
            f"{tuple(linear_bias.shape)}"
        )
    if out_features and not batch:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
    logits_shape = (*batch, num_classes, *out_features)
    # NOTE: matches torch: a target shaped as the logits holds probabilities (cross_entropy's
    # rule), whatever its dtype
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        td = target._data.dtype
        if (
            out_features
            or reduction not in _ENUM
            or label_smoothing != 0.0
            or td.kind != "i"
            or td.itemsize != 8
        ):
            shape = tuple(linear_bias.shape) if linear_bias is not None else None
            warnings.warn(
                "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                f"out_features == (). Got reduction={reduction!r}, label_smoothing="
                f"{label_smoothing}, target.dtype={target.dtype}, out_features={out_features}, "
                f"tracing=False, linear_bias.shape={shape}.",
                stacklevel=2,
            )
        elif input._data.dtype.kind in "fV":
            return _linear_cross_entropy_chunked(
                input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options
            )
    if out_features:
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((flat, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
        logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    else:
        logits = linear(input, linear_weight, linear_bias)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=ignore_index,
        label_smoothing=label_smoothing,
    )


def _linear_cross_entropy_chunked(input, W, target, bias, weight, reduction, ignore_index, options):
    """The ``options`` path: checks as ``cross_entropy`` does on the logits it never makes,
    then one ``LinearCrossEntropyChunked`` over blocks of rows."""
    unbatched = input.dim() == 1
    n, c = (1 if unbatched else input.shape[0]), W.shape[0]
    td = target.dim()
    if unbatched:
        if td > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if td == 1 and target.shape[0] != 1:
            raise ValueError(
                f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}"
            )
    elif td == 0 or target.shape[0] != n:
        raise ValueError(
            f"Expected input batch_size ({n}) to match target batch_size "
            f"({target.shape[0] if td else 1})."
        )
    elif td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    _check_class_weight(weight, c)
    _not_differentiable("linear_cross_entropy", "weight", weight)
    dt = input.dtype
    if W.dtype != dt:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: "
            f"{_TNAME[dt._np.name].lower()} != {_TNAME[W.dtype._np.name].lower()}"
        )
    opts = options._adjust(
        num_batches=n, in_features=input.shape[-1], num_classes=c, dtype=dt, device=input.device
    )
    acc = opts.acc_dtype
    if acc != dt and not (dt._np.char in "eE" and acc._np.char == "f"):
        raise RuntimeError(
            f"linear_cross_entropy supports float32 acc_dtype with "
            f"float16/bfloat16 inputs, but got {acc} acc_dtype and {dt} inputs."
        )
    rec = _state.enabled
    need = (
        rec and input.requires_grad,
        rec and W.requires_grad,
        rec and bias is not None and bias.requires_grad,
    )
    # NOTE: matches torch: the chunked path casts the bias and class weight to the compute
    # dtype (the reference path's linear and cross_entropy refuse other dtypes)
    out = _LCE.LinearCrossEntropyChunked.apply(
        input.unsqueeze(0) if unbatched else input,
        W,
        bias,
        target._data.reshape(1) if unbatched else target._data,
        weight,
        _ENUM[reduction],
        ignore_index,
        opts.batch_chunk_size,
        acc._np,
        opts.allow_retain_graph,
        need,
    )
    return out.reshape(()) if unbatched and reduction == "none" else out
