"""``Adadelta``: steps scaled by the ratio of running RMS of past updates to that of gradients."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ember
from ember.ops._dispatch import xp_of
from ember.optim._common import (
    blocks,
    check_args,
    check_lr,
    effective_grad,
    lr_value,
    params_to_step,
    restore_groups,
    rv,
    scalar_state,
)
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor


def adadelta_update(p, g, sq, acc, lr, rho, eps, weight_decay, maximize):
    """One Adadelta step on raw arrays, in place.

    g <- -g if maximize;  g <- g + wd * p
    s <- rho * s + (1 - rho) * g^2
    d = sqrt(u + eps) / sqrt(s + eps) * g
    u <- rho * u + (1 - rho) * d^2
    p <- p - lr * d
    """
    xp = xp_of(p)
    arrays = (p, g, sq, acc)
    # Each block rebinds the names to aligned views of the same arrays.
    for p, g, sq, acc in blocks(*arrays):
        g = effective_grad(p, g, weight_decay, maximize, xp)
        tmp = xp.empty_like(p)
        xp.multiply(sq, rho, out=sq)
        xp.multiply(g, 1 - rho, out=tmp)
        xp.multiply(tmp, g, out=tmp)
        xp.add(sq, tmp, out=sq)
        std = xp.add(sq, eps, out=xp.empty_like(p))
        xp.sqrt(std, out=std)
        delta = xp.add(acc, eps, out=xp.empty_like(p))
        xp.sqrt(delta, out=delta)
        xp.divide(delta, std, out=delta)
        xp.multiply(delta, g, out=delta)
        xp.multiply(acc, rho, out=acc)
        xp.multiply(delta, 1 - rho, out=tmp)
        xp.multiply(tmp, delta, out=tmp)
        xp.add(acc, tmp, out=acc)
        xp.multiply(delta, -lr, out=delta)
        xp.add(p, delta, out=p)


class Adadelta(Optimizer):
    """Adadelta (``torch.optim.Adadelta``): a unit-consistent adaptive step that needs no
    learning-rate tuning (``lr`` only rescales it).

    Args:
        params: parameters, or dicts of parameter groups.
        lr: factor applied to the step.
        rho: decay rate of the running averages.
        eps: added inside both square roots for numerical stability.
        weight_decay: L2 penalty added to the gradient.
        foreach, capturable, differentiable: torch's implementation flags, kept in the groups;
            ember runs one implementation (``capturable``/``differentiable`` must stay False).
        maximize: ascend the objective instead of descending.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
        >>> opt = ember.optim.Adadelta([w], lr=1.0)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.9968, -0.9968]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_args(eps=eps, weight_decay=weight_decay)
        # NOTE: matches torch: the implementation flags stay in every group (same state dicts).
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_groups(
            self, dict(foreach=None, maximize=False, differentiable=False, capturable=False)
        )

    def _init_state(self, st: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        st["step"] = scalar_state(0.0)
        st["square_avg"] = ember.zeros_like(p)
        st["acc_delta"] = ember.zeros_like(p)

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, rho, eps = lr_value(group["lr"]), group["rho"], group["eps"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        for p, st, _ in params_to_step(self, group):
            adadelta_update(
                rv(p._data),
                rv(p._grad._data),
                rv(st["square_avg"]._data),
                rv(st["acc_delta"]._data),
                lr,
                rho,
                eps,
                weight_decay,
                maximize,
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["Adadelta"]
