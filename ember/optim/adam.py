"""``Adam``: adaptive moment estimation, with L2 or decoupled weight decay and AMSGrad."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import ember
from ember.ops._dispatch import xp_of
from ember.optim._common import (
    check_args,
    check_fused,
    effective_grad,
    params_to_step,
    restore_groups,
    rv,
    scalar_state,
)
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor


def adam_update(p, g, m, v, vmax, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize):
    """One Adam step (step count ``step``, already incremented) on raw arrays, in place.

    g <- -g if maximize
    p <- p * (1 - lr * wd) if decoupled (AdamW), else g <- g + wd * p
    m <- m + (1 - beta1) * (g - m)          v <- beta2 * v + (1 - beta2) * g^2
    vmax <- max(vmax, v) if amsgrad (and used in place of v below)
    p <- p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
    """
    xp = xp_of(p)
    g = effective_grad(p, g, weight_decay, maximize, xp, lr, decoupled)
    tmp = xp.subtract(g, m, out=xp.empty_like(m))
    # NOTE: matches torch: lerp with a weight below 1/2 is m + w * (g - m).
    xp.multiply(tmp, 1 - beta1, out=tmp)
    xp.add(m, tmp, out=m)
    xp.multiply(v, beta2, out=v)
    xp.multiply(g, g, out=tmp)
    xp.multiply(tmp, 1 - beta2, out=tmp)
    xp.add(v, tmp, out=v)
    if vmax is not None:
        xp.maximum(vmax, v, out=vmax)
        v = vmax
    xp.sqrt(v, out=tmp)
    xp.divide(tmp, math.sqrt(1 - beta2**step), out=tmp)
    xp.add(tmp, eps, out=tmp)
    xp.divide(m, tmp, out=tmp)
    xp.multiply(tmp, lr / (1 - beta1**step), out=tmp)
    xp.subtract(p, tmp, out=p)


class Adam(Optimizer):
    """Adam (``torch.optim.Adam``): per-coordinate steps from running gradient moments.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        betas: decay rates of the first and second moment averages.
        eps: added to the denominator for numerical stability.
        weight_decay: L2 penalty added to the gradient (decoupled in ``AdamW``).
        amsgrad: use the running maximum of the second moment (AMSGrad).
        maximize: ascend the objective instead of descending.
        decoupled_weight_decay: shrink the parameters directly (AdamW) instead of adding to
            the gradient.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
        >>> opt = ember.optim.Adam([w], lr=0.1)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.9, -0.9]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ):
        check_args(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        # NOTE: matches torch: the implementation flags stay in every group (same state dicts).
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)
        check_fused(self, fused, foreach, differentiable)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_groups(
            self,
            dict(
                amsgrad=False,
                maximize=False,
                capturable=False,
                differentiable=False,
                decoupled_weight_decay=False,
                foreach=None,
                fused=None,
            ),
        )

    def _init_state(self, st: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        # NOTE: matches torch: the step count is a 0-d float32 tensor (float64 when that is the
        # default dtype).
        # NOTE: matches torch: fused=True keeps it in float32 whatever the default dtype.
        st["step"] = ember.zeros((), dtype=ember.float32) if group["fused"] else scalar_state(0.0)
        st["exp_avg"] = ember.zeros_like(p)
        st["exp_avg_sq"] = ember.zeros_like(p)
        if group["amsgrad"]:
            st["max_exp_avg_sq"] = ember.zeros_like(p)

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
        decoupled = group.get("decoupled_weight_decay", False)
        for p, st, step in params_to_step(self, group):
            vmax = rv(st["max_exp_avg_sq"]._data) if amsgrad else None
            adam_update(
                rv(p._data),
                rv(p._grad._data),
                rv(st["exp_avg"]._data),
                rv(st["exp_avg_sq"]._data),
                vmax,
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


__all__ = ["Adam"]
