"""``AdaptiveLogSoftmaxWithLoss`` (PyTorch's ``torch.nn.modules.adaptive``)."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

from ember.nn import functional as F
from ember.nn.modules.container import ModuleList, Sequential
from ember.nn.modules.linear import Linear
from ember.nn.modules.module import Module
from ember.ops._dispatch import xp_of
from ember.ops.joining import cat
from ember.tensor import Tensor, _wrap

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

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

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Sequence[int],
        div_value: float = 4.0,
        head_bias: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted "
                "in an increasing order, where each value is between 1 and "
                f"n_classes-1 (got cutoffs={cutoffs}, n_classes={n_classes})"
            )
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
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **factory_kwargs),
                    Linear(hidden, size, bias=False, **factory_kwargs),
                )
            )

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for proj, out in self.tail:
            proj.reset_parameters()
            out.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch "
                    f"dimension (input {list(input_.shape)}, target "
                    f"{list(target_.shape)})."
                )
            if input_.dim() != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs "
                    f"with size {input_.size()}"
                )
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs "
                    f"with size {input_.size()}"
                )
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
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but "
                f"values in range [{int(t.min())}, {int(t.max())}] were found. "
            )
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
        parts = [head_logprob[:, : self.shortlist_size]]
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
