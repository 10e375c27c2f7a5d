"""``RAdam``: Adam with the variance of its adaptive step rectified while few steps are seen."""

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


def radam_update(p, g, m, v, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize):
    """One RAdam step (step count ``step``, already incremented) on raw arrays, in place.

    g <- -g if maximize
    p <- p * (1 - lr * wd) if decoupled, else g <- g + wd * p
    m <- m + (1 - beta1) * (g - m)          v <- beta2 * v + (1 - beta2) * g^2
    rho_inf = 2 / (1 - beta2) - 1           rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
    if rho_t > 5:  r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
                   p <- p - lr * m / (1 - beta1^t) * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r
    else:          p <- p - lr * m / (1 - beta1^t)
    """
    xp = xp_of(p)
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
    rect = None
    if rho_t > 5.0:
        rect = (
            (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
        ) ** 0.5
    arrays = (p, g, m, v)
    # Each block rebinds the names to aligned views of the same arrays.
    for p, g, m, v in blocks(*arrays):
        g = effective_grad(p, g, weight_decay, maximize, xp, lr, decoupled)
        tmp = xp.empty_like(p)
        lerp_(m, g, 1 - beta1, tmp, xp)
        xp.multiply(v, beta2, out=v)
        xp.multiply(g, 1 - beta2, out=tmp)
        xp.multiply(tmp, g, out=tmp)
        xp.add(v, tmp, out=v)
        update = xp.divide(m, bias_correction1, out=xp.empty_like(p))
        xp.multiply(update, lr, out=update)
        if rect is not None:
            xp.sqrt(v, out=tmp)
            xp.add(tmp, eps, out=tmp)
            # NOTE: matches torch: `scalar / tensor` is reciprocal(tensor) * scalar.
            xp.reciprocal(tmp, out=tmp)
            xp.multiply(tmp, bias_correction2**0.5, out=tmp)
            xp.multiply(update, tmp, out=update)
            xp.multiply(update, rect, out=update)
        xp.subtract(p, update, out=p)


class RAdam(Optimizer):
    """RAdam (``torch.optim.RAdam``): Adam that starts as SGD with momentum until the second
    moment estimate is reliable, then rectifies the adaptive step.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        betas: decay rates of the first and second moment averages.
        eps: added to the denominator for numerical stability.
        weight_decay: weight decay (L2 penalty, or decoupled as in AdamW).
        decoupled_weight_decay: shrink the parameters directly instead of adding to the
            gradient (RAdamW).
        foreach, capturable, differentiable: torch's implementation flags, kept in the groups;
            ember runs one implementation (``capturable``/``differentiable`` must stay False).
        maximize: ascend the objective instead of descending.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
        >>> opt = ember.optim.RAdam([w], lr=0.1)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.8, -0.8]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ):
        check_args(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        # NOTE: matches torch: the implementation flags stay in every group (same state dicts).
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_groups(
            self,
            dict(
                foreach=None,
                maximize=False,
                differentiable=False,
                decoupled_weight_decay=False,
                capturable=False,
            ),
        )

    def _init_state(self, st: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        st["step"] = scalar_state(0.0)
        st["exp_avg"] = ember.zeros_like(p)
        st["exp_avg_sq"] = ember.zeros_like(p)

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = lr_value(group["lr"]), group["betas"], group["eps"]
        weight_decay = group["weight_decay"]
        decoupled, maximize = group["decoupled_weight_decay"], group["maximize"]
        for p, st, step in params_to_step(self, group):
            radam_update(
                rv(p._data),
                rv(p._grad._data),
                rv(st["exp_avg"]._data),
                rv(st["exp_avg_sq"]._data),
                step,
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                decoupled,
                maximize,
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["RAdam"]
