"""``RMSprop``: steps divided by a running root mean square of the gradient."""

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


def rmsprop_update(p, g, sq, grad_avg, buf, lr, alpha, eps, weight_decay, momentum, maximize):
    """One RMSprop step on raw arrays, in place (``grad_avg`` given when centered, ``buf`` when
    ``momentum > 0``).

        g <- -g if maximize;  g <- g + wd * p
        s <- alpha * s + (1 - alpha) * g^2
        a <- a + (1 - alpha) * (g - a)               (centered)
        d = sqrt(s - a^2) + eps if centered, else sqrt(s) + eps
        b <- momentum * b + g / d;  p <- p - lr * b  (momentum > 0)
        p <- p - lr * g / d                          (otherwise)
    """
    xp = xp_of(p)
    # Absent buffers ride along as the parameter (never read), so one blocking serves all.
    centered, with_momentum = grad_avg is not None, buf is not None
    arrays = (p, g, sq, grad_avg if centered else p, buf if with_momentum else p)
    # Each block rebinds the names to aligned views of the same arrays.
    for p, g, sq, grad_avg, buf in blocks(*arrays):
        g = effective_grad(p, g, weight_decay, maximize, xp)
        tmp = xp.empty_like(p)
        xp.multiply(sq, alpha, out=sq)
        xp.multiply(g, 1 - alpha, out=tmp)
        xp.multiply(tmp, g, out=tmp)
        xp.add(sq, tmp, out=sq)
        avg = xp.empty_like(p)
        if centered:
            lerp_(grad_avg, g, 1 - alpha, tmp, xp)
            xp.multiply(grad_avg, grad_avg, out=avg)
            xp.subtract(sq, avg, out=avg)
            xp.sqrt(avg, out=avg)
        else:
            xp.sqrt(sq, out=avg)
        xp.add(avg, eps, out=avg)
        if with_momentum:
            xp.multiply(buf, momentum, out=buf)
            xp.divide(g, avg, out=tmp)
            xp.add(buf, tmp, out=buf)
            xp.multiply(buf, -lr, out=tmp)
        else:
            xp.multiply(g, -lr, out=tmp)
            xp.divide(tmp, avg, out=tmp)
        xp.add(p, tmp, out=p)


class RMSprop(Optimizer):
    """RMSprop (``torch.optim.RMSprop``): per-coordinate steps scaled by the inverse root mean
    square of recent gradients, optionally centered and with momentum.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        alpha: smoothing constant of the running averages.
        eps: added to the denominator for numerical stability.
        weight_decay: L2 penalty added to the gradient.
        momentum: momentum factor (0 turns momentum off).
        centered: divide by the estimated variance (mean square minus squared mean) instead.
        capturable, foreach, differentiable: torch's implementation flags, kept in the groups;
            ember runs one implementation (``capturable``/``differentiable`` must stay False).
        maximize: ascend the objective instead of descending.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
        >>> opt = ember.optim.RMSprop([w], lr=0.01)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.9, -0.9]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ):
        check_args(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        # NOTE: matches torch: the implementation flags stay in every group (same state dicts).
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_groups(
            self,
            dict(
                momentum=0,
                centered=False,
                foreach=None,
                maximize=False,
                differentiable=False,
                capturable=False,
            ),
        )

    def _init_state(self, st: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        st["step"] = scalar_state(0.0)
        st["square_avg"] = ember.zeros_like(p)
        if group["momentum"] > 0:
            st["momentum_buffer"] = ember.zeros_like(p)
        if group["centered"]:
            st["grad_avg"] = ember.zeros_like(p)

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, alpha, eps = lr_value(group["lr"]), group["alpha"], group["eps"]
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        centered, maximize = group["centered"], group["maximize"]
        for p, st, _ in params_to_step(self, group):
            # NOTE: matches torch: the buffers in use follow the group's current options (a
            # buffer missing because momentum/centered was switched on later is a KeyError).
            rmsprop_update(
                rv(p._data),
                rv(p._grad._data),
                rv(st["square_avg"]._data),
                rv(st["grad_avg"]._data) if centered else None,
                rv(st["momentum_buffer"]._data) if momentum > 0 else None,
                lr,
                alpha,
                eps,
                weight_decay,
                momentum,
                maximize,
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["RMSprop"]
