"""``ember.nn.functional``: the margin and embedding losses (cosine_embedding_loss,
margin_ranking_loss, hinge_embedding_loss, soft margins, multi_margin_loss, the triplet losses).

Split from ``loss.py``, whose reduction helpers they share; compositions of Tensor ops except
where ``ember/ops/loss.py`` has a primitive.
"""

from __future__ import annotations

from collections.abc import Callable

from ember import _autocast as _ac
from ember.nn.functional.loss import _ENUM, _reduce, _reduction, get_enum
from ember.ops import activation as _act
from ember.ops.ternary import where
from ember.tensor import Tensor

__all__ = [
    "cosine_embedding_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``1 - cos(x1, x2)`` where target is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1.

    Example:
        >>> x = ember.tensor([[1.0, 0.0]])
        >>> ember.nn.functional.cosine_embedding_loss(x, x, ember.tensor([1.0]))
        tensor(0.)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            cosine_embedding_loss, input1, input2, target, margin, size_average, reduce, reduction
        )
    code = get_enum(_reduction(reduction, size_average, reduce))
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(
            f"{td}D target tensor expects {want}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    d = td  # the feature dim
    eps = 1e-12  # NOTE: matches torch: added to each squared norm
    prod = (input1 * input2).sum(d)
    mag1 = (input1 * input1).sum(d) + eps
    mag2 = (input2 * input2).sum(d) + eps
    cos = prod / (mag1 * mag2).sqrt()
    pos = where(target == 1, 1 - cos, 0.0)
    neg = where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _reduce(pos + neg, code)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, -target (input1 - input2) + margin)``.

    Example:
        >>> ember.nn.functional.margin_ranking_loss(ember.tensor([1.0]), ember.tensor([2.0]),
        ...                                         ember.tensor([1.0]))
        tensor(1.)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            margin_ranking_loss, input1, input2, target, margin, size_average, reduce, reduction
        )
    code = get_enum(_reduction(reduction, size_average, reduce))
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), code)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``input`` where target is 1, ``max(0, margin - input)`` where it is -1.

    Example:
        >>> ember.nn.functional.hinge_embedding_loss(ember.tensor([0.3, 0.3]),
        ...                                          ember.tensor([1.0, -1.0]))
        tensor(0.5000)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            hinge_embedding_loss, input, target, margin, size_average, reduce, reduction
        )
    code = get_enum(_reduction(reduction, size_average, reduce))
    out_margin = where(target != 1, (margin - input).clamp_min(0), 0.0)
    out_self = where(target != -1, input, 0.0)
    return _reduce(out_margin + out_self, code)


def soft_margin_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """Two-class logistic loss ``log(1 + exp(-target * input))``.

    Example:
        >>> ember.nn.functional.soft_margin_loss(ember.tensor([0.0]), ember.tensor([1.0]))
        tensor(0.6931)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(soft_margin_loss, input, target, size_average, reduce, reduction)
    code = get_enum(_reduction(reduction, size_average, reduce))
    return _reduce((-target * input).exp().log1p(), code)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Per-class logistic loss averaged over the classes (last dim), for multi-hot targets.

    Example:
        >>> ember.nn.functional.multilabel_soft_margin_loss(ember.zeros(1, 2),
        ...                                                 ember.tensor([[1.0, 0.0]]))
        tensor(0.6931)
    """
    reduction = _reduction(reduction, size_average, reduce)
    loss = -(target * _act.LogSigmoid.apply(input) + (1 - target) * _act.LogSigmoid.apply(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction not in _ENUM:
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, _ENUM[reduction])


def _margin_input_check(input: Tensor) -> None:
    if input.dim() > 2 or input.dim() == 0 or input.numel() == 0 and input.dim() != 2:
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, "
            f"but got: {list(input.shape)}"
        )


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Multi-class hinge loss: ``sum_{j != y} max(0, margin - x[y] + x[j])**p / C``, scaled by
    ``weight[y]``.

    Example:
        >>> ember.nn.functional.multi_margin_loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]),
        ...                                       ember.tensor([3]))
        tensor(0.3250)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            multi_margin_loss, input, target, p, margin, weight, size_average, reduce, reduction
        )
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
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
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


def multilabel_margin_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """Multi-label hinge loss: for each target class ``j`` (the prefix of ``target`` before the
    first -1) and each non-target class ``k``, ``max(0, 1 - (x[j] - x[k])) / C``.

    Example:
        >>> ember.nn.functional.multilabel_margin_loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]),
        ...                                            ember.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(multilabel_margin_loss, input, target, size_average, reduce, reduction)
    code = get_enum(_reduction(reduction, size_average, reduce))
    _margin_input_check(input)
    if target.shape != input.shape:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
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


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, d(a, p) - d(a, n) + margin)`` with ``d`` the pairwise p-norm distance; ``swap``
    uses ``min(d(a, n), d(p, n))``.

    Example:
        >>> a = ember.zeros(1, 2)
        >>> ember.nn.functional.triplet_margin_loss(a, a, a + 3.0)
        tensor(0.)
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(
            triplet_margin_loss,
            anchor,
            positive,
            negative,
            margin,
            p,
            eps,
            swap,
            size_average,
            reduce,
            reduction,
        )
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
            f"{n.dim()}D inputs"
        )


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
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
