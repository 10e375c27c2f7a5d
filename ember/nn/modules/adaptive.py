"""``AdaptiveLogSoftmaxWithLoss`` (PyTorch's ``torch.nn.modules.adaptive``), and three small
layers whose PyTorch files belong to other families here: ``CrossMapLRN2d`` (torch's
``normalization.py``), ``NLLLoss2d`` (``loss.py``) and ``SyncBatchNorm`` (``batchnorm.py``).
"""

from __future__ import annotations

import functools
import warnings
from collections import namedtuple
from collections.abc import Sequence

from ember.autograd.function import Function
from ember.nn import functional as F
from ember.nn.modules.batchnorm import _BatchNorm
from ember.nn.modules.container import ModuleList, Sequential
from ember.nn.modules.linear import Linear
from ember.nn.modules.loss import NLLLoss
from ember.nn.modules.module import Module
from ember.ops._dispatch import xp_of
from ember.ops.joining import cat
from ember.tensor import Tensor, _wrap

__all__ = ["AdaptiveLogSoftmaxWithLoss", "CrossMapLRN2d", "NLLLoss2d", "SyncBatchNorm"]

# torch's name for the (output, loss) pair (``torch.nn.modules.adaptive._ASMoutput``)
_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax (Grave et al., 2016): the ``cutoffs[0]`` most frequent classes and one
    entry per tail cluster share a ``head`` softmax; each tail cluster ``i`` scores its classes
    through a projection to ``in_features // div_value ** (i + 1)`` features, and only the
    clusters that some target falls into are evaluated.

    Classes must be numbered by decreasing frequency. ``forward(input, target)`` returns the
    named tuple ``(output, loss)``: each row's target log-probability and their negated mean.
    ``log_prob(input)`` gives the full ``(N, n_classes)`` log-distribution and
    ``predict(input)`` its argmax. Parameters are named as PyTorch's (``head.weight``,
    ``tail.0.0.weight``...), so its state_dicts load.

    Example:
        >>> asm = ember.nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs=[4, 8])
        >>> out, loss = asm(ember.randn(5, 16), ember.tensor([0, 3, 4, 8, 9]))
        >>> out.shape, loss.shape
        (ember.Size([5]), ember.Size([]))
    """

    in_features: int
    n_classes: int
    cutoffs: list
    div_value: float
    head_bias: bool
    head: Linear
    tail: ModuleList

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             f"n_classes-1 (got cutoffs={cutoffs}, n_classes={n_classes})")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory_kwargs)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory_kwargs),
                                        Linear(hidden, size, bias=False, **factory_kwargs)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for proj, out in self.tail:
            proj.reset_parameters()
            out.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   f"dimension (input {list(input_.shape)}, target "
                                   f"{list(target_.shape)}).")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs "
                                   f"with size {input_.size()}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs "
                                   f"with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)

        t = target._data
        xp = xp_of(t)
        # the head scores each in-shortlist target itself and each tail target's cluster
        head_index = t.astype(xp.int64)
        bounds = [0] + self.cutoffs
        rows_per_cluster = []
        used = int(((t >= 0) & (t < bounds[1])).sum())
        for i in range(1, len(bounds) - 1):
            lo, hi = bounds[i], bounds[i + 1]
            rows = xp.flatnonzero((t >= lo) & (t < hi))
            used += len(rows)
            if len(rows):
                head_index[rows] = self.shortlist_size + i - 1
                rows_per_cluster.append((i - 1, rows, lo))
        if used != t.shape[0]:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{int(t.min())}, {int(t.max())}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = head_logprob.gather(1, _wrap(head_index.reshape(-1, 1))).squeeze(1)
        for i, rows, lo in rows_per_cluster:
            r = _wrap(rows)
            logprob = F.log_softmax(self.tail[i](input.index_select(0, r)), dim=1)
            local_target = _wrap((t[rows] - lo).astype(xp.int64).reshape(-1, 1))
            local = logprob.gather(1, local_target).squeeze(1)
            # each row is in exactly one cluster: adding into the head's term is a placement
            output = output.index_add(0, r, local)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """The ``(N, n_classes)`` log-distribution, given ``self.head(input)``."""
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return cat(parts, dim=1)

    def log_prob(self, input: Tensor) -> Tensor:
        """Log-probabilities of all ``n_classes`` classes: ``(N, in_features)`` to
        ``(N, n_classes)``."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most probable class of each row, ``log_prob(input).argmax(1)``, evaluating the
        tail clusters only for rows whose head argmax is a cluster."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        outside = output >= self.shortlist_size
        if not bool(outside.any()):
            return output
        if bool(outside.all()):
            return self._full_log_prob(input, head_output).argmax(dim=1)
        output[outside] = self._full_log_prob(input[outside], head_output[outside]).argmax(dim=1)
        return output


# ---- CrossMapLRN2d ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _lrn_windows(channels: int, size: int):
    """The channel windows of torch's legacy cross-map LRN as 0/1 ``(C, C)`` matrices (row
    ``c`` marks the channels summed for channel ``c``): the forward's and the backward's."""
    from ember import backend

    np_ = backend.for_device("cpu")
    fwd = np_.zeros((channels, channels))
    bwd = np_.zeros((channels, channels))
    pre = int((size - 1) / 2 + 1)
    inv = int(size - (size - 1) / 2)
    for c in range(channels):
        # NOTE: matches torch: its running window never drops channel 0 once added, so channel
        # c sums channel 0 and [c - pre + 1, c + pre - 1] (not a centred window of ``size``)
        fwd[c, 0] = 1
        fwd[c, max(c - pre + 1, 0):min(c + pre, channels)] = 1
        # NOTE: matches torch: the backward sums ratios over [c - inv, c + size - 1 - inv],
        # another window, so torch's gradient is not the derivative of its forward
        bwd[c, max(c - inv, 0):max(min(c + size - inv, channels), 0)] = 1
    return fwd, bwd


class _CrossMapLRN2dFn(Function):
    """``x * (k + alpha / size * sum_window(x^2)) ** -beta`` over channel windows, with torch's
    legacy windows and its hand-written backward."""

    _array_forward = True
    _node_name = "CrossMapLRN2dBackward"

    @staticmethod
    def forward(ctx, x, size, alpha, beta, k):
        xp = xp_of(x)
        n, c, h, w = x.shape
        fwd, _ = _lrn_windows(c, size)
        sq = (x * x).reshape(n, c, h * w)
        scale = xp.matmul(xp.asarray(fwd, dtype=x.dtype), sq).reshape(x.shape)
        scale *= alpha / size
        scale += k
        out = x * scale ** -beta
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        n, c, h, w = x.shape
        size = ctx.size
        if size - int(size - (size - 1) / 2) < 1:
            # NOTE: matches torch: its backward fails for size 1 (a window narrower than its
            # padding)
            raise RuntimeError(f"start (1) + length ({c}) exceeds dimension size ({c}).")
        scale = _wrap(ctx.scale)
        _, bwd = _lrn_windows(c, size)
        b = _wrap(xp_of(ctx.scale).asarray(bwd, dtype=ctx.scale.dtype))
        ratio = (g * out / scale).reshape(n, c, h * w)
        acc = (b @ ratio).reshape(x.shape)
        gi = scale ** -ctx.beta * g - (2 * ctx.alpha * ctx.beta / size) * x * acc
        return gi, None, None, None, None


class CrossMapLRN2d(Module):
    """Legacy local response normalization across channels of a 4-D ``(N, C, H, W)`` input:
    ``x / (k + alpha / size * sum of x^2 over nearby channels) ** beta``.

    Kept for PyTorch parity, including its windows: channel ``c`` sums channel 0 and channels
    ``c - (size - 1) // 2 .. c + (size - 1) // 2`` (roughly), and the gradient is PyTorch's
    hand-written one, which uses a shifted window (so it is not the exact derivative). For new
    code use ``LocalResponseNorm``.

    Example:
        >>> ember.nn.CrossMapLRN2d(3)(ember.ones(1, 4, 2, 2)).shape
        ember.Size([1, 4, 2, 2])
    """

    size: int
    alpha: float
    beta: float
    k: float

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        return _CrossMapLRN2dFn.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# ---- NLLLoss2d ---------------------------------------------------------------------------------
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

    def __init__(self, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean") -> None:
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
                      "#torch.nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


# ---- SyncBatchNorm ------------------------------------------------------------------------------
class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose statistics are meant to be reduced across processes.

    ember has no process groups (``torch.distributed``), so this is always PyTorch's fallback
    when no process group is initialized: plain batch normalization over the local batch, in
    training and in eval. That is also what PyTorch computes on a CPU machine without
    ``torch.distributed.init_process_group``. Construction, parameters, buffers, repr and
    ``convert_sync_batchnorm`` are PyTorch's; ``process_group`` is stored and unused.

    Example:
        >>> m = ember.nn.SyncBatchNorm(4)
        >>> m(ember.randn(8, 4, 3)).shape
        ember.Size([8, 4, 3])
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group=None,
                 device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """``module`` with every ``BatchNorm*d`` inside replaced by a ``SyncBatchNorm`` that
        shares its parameters and buffers (a ``BatchNorm*d`` itself is returned converted).

        Example:
            >>> net = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.BatchNorm1d(8))
            >>> type(ember.nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]).__name__
            'SyncBatchNorm'
        """
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group,
                                bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out

