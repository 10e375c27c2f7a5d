"""``SparseAdam``: Adam restricted to the rows a sparse gradient names (``nn.Embedding(sparse=
True)``); the moments and the parameter stay dense and only those rows move."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import ember
from ember._layout import strided as _strided
from ember.ops._dispatch import xp_of
from ember.optim._common import lr_value
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor


def sparse_adam_update(p, indices, values, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps):
    """One SparseAdam step on raw arrays, in place, for a coalesced gradient (``indices``,
    ``values``): at each named row r (every other row untouched)

    m[r] <- m[r] + (1 - b1) * (g - m[r]);  v[r] <- v[r] + (1 - b2) * (g^2 - v[r])
    p[r] <- p[r] - lr * sqrt(1 - b2^t) / (1 - b1^t) * m[r] / (sqrt(v[r]) + eps)
    """
    where = tuple(indices)  # unique positions: plain fancy-index updates
    old_m = exp_avg[where]
    upd_m = values - old_m
    upd_m *= 1 - beta1
    exp_avg[where] = old_m + upd_m
    old_v = exp_avg_sq[where]
    upd_v = values * values
    upd_v -= old_v
    upd_v *= 1 - beta2
    exp_avg_sq[where] = old_v + upd_v
    # NOTE: matches torch: the new moments are recomputed as update + old (not read back)
    numer = upd_m + old_m
    upd_v += old_v
    denom = xp_of(p).sqrt(upd_v)
    denom += eps
    step_size = lr * math.sqrt(1 - beta2**step) / (1 - beta1**step)
    numer /= denom
    p[where] += -step_size * numer


class SparseAdam(Optimizer):
    """Adam for sparse gradients (``torch.optim.SparseAdam``): each step updates the moments
    and the parameter only at the rows the (coalesced) gradient holds. Parameters are dense
    and real; their gradients must be sparse COO tensors.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate (> 0).
        betas: decay rates of the first and second moment averages.
        eps: added to the denominator (> 0).
        maximize: ascend the objective instead of descending.

    Example:
        >>> emb = ember.nn.Embedding(4, 2, sparse=True)
        >>> opt = ember.optim.SparseAdam(emb.parameters(), lr=0.1)
        >>> before = emb.weight.detach().clone()
        >>> emb(ember.tensor([1])).sum().backward(); opt.step()
        >>> (emb.weight != before).any(1).tolist()
        [False, True, False, False]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        # NOTE: matches torch: lr and eps must be strictly positive here
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        sparse, complex_ = [], []
        for gi, group in enumerate(self.param_groups):
            for pi, p in enumerate(group["params"]):
                if p.layout is not _strided:
                    sparse.append([gi, pi])
                if p.is_complex():
                    complex_.append([gi, pi])
        if sparse:
            raise ValueError(
                f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors"
            )
        if complex_:
            raise ValueError(
                f"Complex params at indices {complex_}: SparseAdam does not support complex "
                "parameters"
            )

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, eps, maximize = lr_value(group["lr"]), group["eps"], group.get("maximize", False)
        beta1, beta2 = group["betas"]
        for p in group["params"]:
            grad = p._grad
            if grad is None:
                continue
            if grad.layout is _strided:
                raise RuntimeError(
                    "SparseAdam does not support dense gradients, please consider Adam instead"
                )
            st = self.state[p]
            if not st:
                # NOTE: matches torch: the step count is a Python int here, not a tensor
                st["step"] = 0
                st["exp_avg"] = ember.zeros_like(p)
                st["exp_avg_sq"] = ember.zeros_like(p)
            st["step"] += 1
            c = grad._data._coo().coalesced_array()
            if c.values.shape[0] == 0:  # an empty gradient: nothing moves (the step counts)
                continue
            values = -c.values if maximize else c.values
            sparse_adam_update(
                p._data,
                c.indices,
                values,
                st["exp_avg"]._data,
                st["exp_avg_sq"]._data,
                st["step"],
                lr,
                beta1,
                beta2,
                eps,
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["SparseAdam"]
