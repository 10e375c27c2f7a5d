"""``Adamax``: Adam with the second moment replaced by an exponentially weighted infinity norm."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ember
from ember.ops._dispatch import xp_of
from ember.optim._common import (
    blocks,
    check_args,
    effective_grad,
    lerp_,
    lr_value,
    params_to_step,
    restore_groups,
    rv,
    scalar_state,
)
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor


def adamax_update(p, g, m, u, step, lr, beta1, beta2, eps, weight_decay, maximize):
    """One Adamax step (step count ``step``, already incremented) on raw arrays, in place.

    g <- -g if maximize;  g <- g + wd * p
    m <- m + (1 - beta1) * (g - m)
    u <- max(beta2 * u, |g| + eps)
    p <- p - lr / (1 - beta1^t) * m / u
    """
    xp = xp_of(p)
    step_scale = -lr / (1 - beta1**step)
    arrays = (p, g, m, u)
    # Each block rebinds the names to aligned views of the same arrays.
    for p, g, m, u in blocks(*arrays):
        g = effective_grad(p, g, weight_decay, maximize, xp)
        tmp = xp.empty_like(p)
        lerp_(m, g, 1 - beta1, tmp, xp)
        xp.multiply(u, beta2, out=u)
        xp.abs(g, out=tmp)
        xp.add(tmp, eps, out=tmp)
        xp.maximum(u, tmp, out=u)
        xp.multiply(m, step_scale, out=tmp)
        xp.divide(tmp, u, out=tmp)
        xp.add(p, tmp, out=p)


class Adamax(Optimizer):
    """Adamax (``torch.optim.Adamax``): Adam steps scaled by a decaying max of ``|grad|``.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        betas: decay rates of the first moment and of the infinity norm.
        eps: added to ``|grad|`` before the maximum, for numerical stability.
        weight_decay: L2 penalty added to the gradient.
        foreach, differentiable, capturable: torch's implementation flags, kept in the groups;
            ember runs one implementation (``differentiable``/``capturable`` must stay False).
        maximize: ascend the objective instead of descending.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
        >>> opt = ember.optim.Adamax([w], lr=0.1)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.9, -0.9]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ):
        check_args(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        # NOTE: matches torch: the implementation flags stay in every group (same state dicts).
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_groups(
            self, dict(foreach=None, maximize=False, differentiable=False, capturable=False)
        )

    def _init_state(self, st: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        st["step"] = scalar_state(0.0)
        st["exp_avg"] = ember.zeros_like(p)
        st["exp_inf"] = ember.zeros_like(p)

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = lr_value(group["lr"]), group["betas"], group["eps"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        for p, st, step in params_to_step(self, group):
            adamax_update(
                rv(p._data),
                rv(p._grad._data),
                rv(st["exp_avg"]._data),
                rv(st["exp_inf"]._data),
                step,
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                maximize,
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["Adamax"]
