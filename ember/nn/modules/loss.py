"""The loss modules (MSELoss, CrossEntropyLoss...) (PyTorch's ``torch.nn.modules.loss``).

Each keeps PyTorch's constructor arguments, defaults and attributes (``reduction``; the class
``weight`` and BCEWithLogitsLoss's ``pos_weight`` as buffers) and computes through one
``ember.nn.functional`` call.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

from ember.nn import functional as F
from ember.nn.functional.loss import legacy_get_string
from ember.nn.modules.linear import Linear
from ember.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions
from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = [
    "LinearCrossEntropyLoss",
    "NLLLoss2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CTCLoss",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "MarginRankingLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "NLLLoss",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
]


class _Loss(Module):
    """Base of the losses: holds ``reduction`` (the deprecated ``size_average``/``reduce``
    arguments are mapped onto it, with PyTorch's warning)."""

    reduction: str

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = legacy_get_string(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with a per-class ``weight``, registered as a buffer (None when not given)."""

    def __init__(
        self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.weight: Tensor | None


class L1Loss(_Loss):
    """Mean absolute error; see ``F.l1_loss``.

    Example:
        >>> ember.nn.L1Loss()(ember.tensor([1.0, -2.0]), ember.tensor([0.0, 0.0]))
        tensor(1.5000)
    """

    __constants__ = ["reduction"]

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error; see ``F.mse_loss``.

    Example:
        >>> ember.nn.MSELoss()(ember.tensor([1.0, 2.0]), ember.tensor([0.0, 0.0]))
        tensor(2.5000)
    """

    __constants__ = ["reduction"]

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above; see ``F.smooth_l1_loss``.

    Example:
        >>> ember.nn.SmoothL1Loss()(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]))
        tensor(1.3125)
    """

    __constants__ = ["reduction"]

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Quadratic below ``delta``, ``delta``-scaled linear above; see ``F.huber_loss``.

    Example:
        >>> ember.nn.HuberLoss(delta=2.0)(ember.tensor([3.0]), ember.tensor([0.0]))
        tensor(4.)
    """

    __constants__ = ["reduction", "delta"]

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        if not isinstance(delta, (float, int)):
            raise TypeError(f"delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or class probabilities; see
    ``F.cross_entropy``.

    Example:
        >>> loss = ember.nn.CrossEntropyLoss(label_smoothing=0.1)
        >>> loss(ember.zeros(2, 4), ember.tensor([1, 3]))
        tensor(1.3863)
    """

    __constants__ = ["ignore_index", "reduction", "label_smoothing"]
    ignore_index: int
    label_smoothing: float

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities; see ``F.nll_loss``.

    Example:
        >>> ember.nn.NLLLoss()(ember.tensor([[0.0, -1.0]]), ember.tensor([1]))
        tensor(1.)
    """

    __constants__ = ["ignore_index", "reduction"]
    ignore_index: int

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities; see ``F.binary_cross_entropy``.

    Example:
        >>> ember.nn.BCELoss()(ember.tensor([0.5]), ember.tensor([1.0]))
        tensor(0.6931)
    """

    __constants__ = ["reduction"]

    def __init__(
        self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits, computed stably; ``weight`` and ``pos_weight`` are
    buffers. See ``F.binary_cross_entropy_with_logits``.

    Example:
        >>> ember.nn.BCEWithLogitsLoss()(ember.tensor([0.0]), ember.tensor([1.0]))
        tensor(0.6931)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)
        self.weight: Tensor | None
        self.pos_weight: Tensor | None

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of log-probabilities; use ``reduction='batchmean'`` for the
    mathematical definition. See ``F.kl_div``.

    Example:
        >>> p = ember.tensor([[0.5, 0.5]])
        >>> ember.nn.KLDivLoss(reduction="batchmean")(p.log(), p)
        tensor(0.)
    """

    __constants__ = ["reduction"]

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """Poisson negative log-likelihood; see ``F.poisson_nll_loss``.

    Example:
        >>> ember.nn.PoissonNLLLoss()(ember.tensor([0.0]), ember.tensor([1.0]))
        tensor(1.)
    """

    __constants__ = ["log_input", "full", "eps", "reduction"]
    log_input: bool
    full: bool
    eps: float

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average=None,
        eps: float = 1e-8,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class GaussianNLLLoss(_Loss):
    """Gaussian negative log-likelihood with predicted variances; see ``F.gaussian_nll_loss``.

    Example:
        >>> ember.nn.GaussianNLLLoss()(ember.ones(2), ember.ones(2), ember.ones(2))
        tensor(0.)
    """

    __constants__ = ["full", "eps", "reduction"]
    full: bool
    eps: float

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class CosineEmbeddingLoss(_Loss):
    """Cosine similarity loss for pairs labelled similar (1) or dissimilar (-1); see
    ``F.cosine_embedding_loss``.

    Example:
        >>> x = ember.tensor([[1.0, 0.0]])
        >>> ember.nn.CosineEmbeddingLoss()(x, x, ember.tensor([1.0]))
        tensor(0.)
    """

    __constants__ = ["margin", "reduction"]
    margin: float

    def __init__(
        self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class MarginRankingLoss(_Loss):
    """Ranking hinge ``max(0, -y (x1 - x2) + margin)``; see ``F.margin_ranking_loss``.

    Example:
        >>> ember.nn.MarginRankingLoss()(ember.tensor([1.0]), ember.tensor([2.0]),
        ...                              ember.tensor([1.0]))
        tensor(1.)
    """

    __constants__ = ["margin", "reduction"]
    margin: float

    def __init__(
        self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class HingeEmbeddingLoss(_Loss):
    """``x`` for target 1, ``max(0, margin - x)`` for -1; see ``F.hinge_embedding_loss``.

    Example:
        >>> ember.nn.HingeEmbeddingLoss()(ember.tensor([0.3, 0.3]), ember.tensor([1.0, -1.0]))
        tensor(0.5000)
    """

    __constants__ = ["margin", "reduction"]
    margin: float

    def __init__(
        self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss; see ``F.soft_margin_loss``.

    Example:
        >>> ember.nn.SoftMarginLoss()(ember.tensor([0.0]), ember.tensor([1.0]))
        tensor(0.6931)
    """

    __constants__ = ["reduction"]

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss; see ``F.multilabel_soft_margin_loss``.

    Example:
        >>> ember.nn.MultiLabelSoftMarginLoss()(ember.zeros(1, 2), ember.tensor([[1.0, 0.0]]))
        tensor(0.6931)
    """

    __constants__ = ["reduction"]

    def __init__(
        self, weight: Tensor | None = None, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss; see ``F.multi_margin_loss``.

    Example:
        >>> ember.nn.MultiMarginLoss()(ember.tensor([[0.1, 0.2, 0.4, 0.8]]), ember.tensor([3]))
        tensor(0.3250)
    """

    __constants__ = ["p", "margin", "reduction"]
    margin: float
    p: int

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Tensor | None = None,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                f"{weight.dim()}D instead"
            )
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(
            input,
            target,
            p=self.p,
            margin=self.margin,
            weight=self.weight,
            reduction=self.reduction,
        )


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss over target-class / non-target-class pairs; see
    ``F.multilabel_margin_loss``.

    Example:
        >>> ember.nn.MultiLabelMarginLoss()(ember.tensor([[0.1, 0.2, 0.4, 0.8]]),
        ...                                 ember.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """

    __constants__ = ["reduction"]

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """Triplet loss with the pairwise p-norm distance; see ``F.triplet_margin_loss``.

    Example:
        >>> a = ember.zeros(1, 2)
        >>> ember.nn.TripletMarginLoss()(a, a, a + 3.0)
        tensor(0.)
    """

    __constants__ = ["margin", "p", "eps", "swap", "reduction"]
    margin: float
    p: float
    eps: float
    swap: bool

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )


def _default_distance():
    # PyTorch's default is a PairwiseDistance module (a child, shown in the repr); until
    # ember.nn has one, the same distance as a function
    from ember.nn.modules import distance

    cls = getattr(distance, "PairwiseDistance", None)
    return cls() if cls is not None else F.loss._pairwise_distance


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with any distance function (default: pairwise Euclidean); see
    ``F.triplet_margin_with_distance_loss``.

    Example:
        >>> a = ember.zeros(1, 2)
        >>> ember.nn.TripletMarginWithDistanceLoss()(a, a, a + 3.0)
        tensor(0.)
    """

    __constants__ = ["margin", "swap", "reduction"]
    margin: float
    swap: bool

    def __init__(
        self,
        *,
        distance_function: Callable | None = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: expected margin to be greater "
                f"than 0, got {margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else _default_distance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


class CTCLoss(_Loss):
    """Connectionist Temporal Classification loss; see ``F.ctc_loss``.

    Example:
        >>> lp = ember.zeros(3, 1, 2).log_softmax(2)
        >>> ember.nn.CTCLoss(reduction="sum")(lp, ember.tensor([[1]]), [3], [1])
        tensor(0.2877)
    """

    __constants__ = ["blank", "reduction"]
    blank: int
    zero_infinity: bool

    def __init__(
        self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False
    ) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths, target_lengths) -> Tensor:
        return F.ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )


class NLLLoss2d(NLLLoss):
    """Deprecated alias of ``NLLLoss`` (which takes ``(N, C, H, W)`` inputs itself); warns a
    ``FutureWarning`` on construction, as PyTorch.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     loss = ember.nn.NLLLoss2d()
        >>> loss(ember.full((1, 2, 1, 1), -0.5), ember.zeros(1, 1, 1, dtype=ember.int64))
        tensor(0.5000)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average=None,
        ignore_index: int = -100,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
            "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
            "#torch.nn.NLLLoss for more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


# ---- SyncBatchNorm ------------------------------------------------------------------------------


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy of ``linear(input)`` against ``target``: a ``Linear(in_features,
    num_classes * prod(out_features))`` head and ``CrossEntropyLoss`` in one module; see
    ``F.linear_cross_entropy``.

    ``out_features`` (d1, ..., dK) gives a K-dimensional loss: logits (N, C, d1, ..., dK),
    targets (N, d1, ..., dK) of class indices or (N, C, d1, ..., dK) of probabilities.
    ``ignore_index=None`` ignores nothing with probability targets and means -100 with class
    indices. The parameters are ``linear.weight`` (stored flat) and ``linear.bias`` (when
    ``bias=True``); the class ``weight`` is a buffer.

    Example:
        >>> loss = ember.nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3))
        >>> x = ember.randn(2, 5, requires_grad=True)
        >>> loss(x, ember.randint(0, 10, (2, 4, 3))).backward()
        >>> x.grad.shape
        ember.Size([2, 5])
    """

    # NOTE: matches torch: options is not a constant (it is not scriptable there)
    __constants__ = ["num_classes", "out_features", "reduction", "ignore_index", "label_smoothing"]
    num_classes: int
    out_features: tuple[int, ...]
    ignore_index: int | None
    label_smoothing: float
    options: LinearCrossEntropyOptions | None

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple[int, ...] = (),
        bias: bool = False,
        device=None,
        dtype=None,
        reduction: str = "mean",
        weight: Tensor | None = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: LinearCrossEntropyOptions | None = None,
    ) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(
                f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}"
            )
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}"
            )
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # Linear takes a 2-D weight: the (C, *out_features, in) weight is stored flat
        self.linear = Linear(
            in_features,
            math.prod(out_features, start=num_classes),
            bias=bias,
            device=device,
            dtype=dtype,
        )
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        lin = self.linear
        shape = (self.num_classes, *self.out_features)
        weight = lin.weight.reshape((*shape, lin.in_features)) if self.out_features else lin.weight
        bias = lin.bias
        if bias is not None and self.out_features:
            bias = bias.reshape(shape)
        return F.linear_cross_entropy(
            input,
            weight,
            target,
            linear_bias=bias,
            weight=self.weight,
            reduction=self.reduction,
            ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing,
            options=self.options,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
            f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
            f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )
