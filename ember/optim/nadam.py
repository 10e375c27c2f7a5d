"""``NAdam``: Adam with Nesterov momentum and a warming-up momentum schedule."""

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


def nadam_update(
    p,
    g,
    m,
    v,
    mu_product,
    step,
    lr,
    beta1,
    beta2,
    eps,
    weight_decay,
    momentum_decay,
    decoupled,
    maximize,
):
    """One NAdam step (step count ``step``, already incremented) on raw arrays, in place.

    ``mu_product`` is the 0-d running product of the momentum schedule, updated in place.

        g <- -g if maximize
        p <- p * (1 - lr * wd) if decoupled, else g <- g + wd * p
        mu_t = beta1 * (1 - 0.96^(t * momentum_decay) / 2)        (and mu_{t+1} likewise)
        P_t = P_{t-1} * mu_t
        m <- m + (1 - beta1) * (g - m)          v <- beta2 * v + (1 - beta2) * g^2
        d = sqrt(v / (1 - beta2^t)) + eps
        p <- p - lr * (1 - mu_t) / (1 - P_t) * g / d - lr * mu_{t+1} / (1 - P_t mu_{t+1}) * m / d
    """
    xp = xp_of(p)
    mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
    # NOTE: matches torch: the product is kept (and rounded) in its own dtype, float32 by default.
    mu_product *= mu
    prod = float(mu_product)
    grad_scale = -lr * (1.0 - mu) / (1.0 - prod)
    avg_scale = (-lr * mu_next) / (1.0 - prod * mu_next)
    bias_correction2 = 1 - beta2**step
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
        denom = xp.divide(v, bias_correction2, out=xp.empty_like(p))
        xp.sqrt(denom, out=denom)
        xp.add(denom, eps, out=denom)
        xp.multiply(g, grad_scale, out=tmp)
        xp.divide(tmp, denom, out=tmp)
        xp.add(p, tmp, out=p)
        xp.multiply(m, avg_scale, out=tmp)
        xp.divide(tmp, denom, out=tmp)
        xp.add(p, tmp, out=p)


class NAdam(Optimizer):
    """NAdam (``torch.optim.NAdam``): Adam whose step looks ahead along the momentum.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        betas: decay rates of the first and second moment averages.
        eps: added to the denominator for numerical stability.
        weight_decay: weight decay (L2 penalty, or decoupled as in AdamW).
        momentum_decay: speed of the momentum warm-up ``beta1 * (1 - 0.96^(t * psi) / 2)``.
        decoupled_weight_decay: shrink the parameters directly instead of adding to the
            gradient (NAdamW).
        foreach, capturable, differentiable: torch's implementation flags, kept in the groups;
            ember runs one implementation (``capturable``/``differentiable`` must stay False).
        maximize: ascend the objective instead of descending.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
        >>> opt = ember.optim.NAdam([w], lr=0.1)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.8944, -0.8944]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ):
        check_args(
            lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay
        )
        # NOTE: matches torch: the implementation flags stay in every group (same state dicts).
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_groups(
            self,
            dict(
                maximize=False,
                foreach=None,
                capturable=False,
                differentiable=False,
                decoupled_weight_decay=False,
            ),
            scalars=("step", "mu_product"),
        )

    def _init_state(self, st: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        st["step"] = scalar_state(0.0)
        st["mu_product"] = scalar_state(1.0)
        st["exp_avg"] = ember.zeros_like(p)
        st["exp_avg_sq"] = ember.zeros_like(p)

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = lr_value(group["lr"]), group["betas"], group["eps"]
        weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
        decoupled, maximize = group["decoupled_weight_decay"], group["maximize"]
        for p, st, step in params_to_step(self, group):
            nadam_update(
                rv(p._data),
                rv(p._grad._data),
                rv(st["exp_avg"]._data),
                rv(st["exp_avg_sq"]._data),
                st["mu_product"]._data,
                step,
                lr,
                beta1,
                beta2,
                eps,
                weight_decay,
                momentum_decay,
                decoupled,
                maximize,
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["NAdam"]
