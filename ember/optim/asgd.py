"""``ASGD``: averaged stochastic gradient descent (SGD with a decaying step and a running average
of the iterates kept in the state)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ember
from ember.ops._dispatch import xp_of
from ember.optim._common import (
    blocks,
    check_args,
    effective_grad,
    lr_value,
    params_to_step,
    restore_groups,
    rv,
    scalar_state,
)
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor


def asgd_update(
    p, g, ax, eta, mu, step, lr, lambd, alpha, t0, weight_decay, maximize, scalar_rounding
):
    """One ASGD step (step count ``step``, already incremented) on raw arrays, in place.

    ``eta`` and ``mu`` are 0-d arrays (the step size and the averaging weight), updated in place
    for the next step; ``scalar_rounding`` is the dtype their new values are rounded through.

        g <- -g if maximize;  g <- g + wd * p
        p <- p * (1 - lambd * eta) - eta * g
        ax <- ax + mu * (p - ax)  (ax <- p while mu = 1)
        eta <- lr / (1 + lambd * lr * t)^alpha;  mu <- 1 / max(1, t - t0)
    """
    xp = xp_of(p)
    eta_value, mu_value = float(eta), float(mu)
    arrays = (p, g, ax)
    # Each block rebinds the names to aligned views of the same arrays.
    for p, g, ax in blocks(*arrays):
        g = effective_grad(p, g, weight_decay, maximize, xp)
        tmp = xp.empty_like(p)
        xp.multiply(p, 1 - lambd * eta_value, out=p)
        xp.multiply(g, -eta_value, out=tmp)
        xp.add(p, tmp, out=p)
        if mu_value != 1:
            xp.subtract(p, ax, out=tmp)
            xp.multiply(tmp, mu_value, out=tmp)
            xp.add(ax, tmp, out=ax)
        else:
            xp.copyto(ax, p)
    # NOTE: matches torch: the new values pass through a default-dtype tensor before they are
    # copied into the state, so they are rounded to float32 by default even in float64 state.
    eta[...] = xp.asarray(lr / ((1 + lambd * lr * step) ** alpha), dtype=scalar_rounding)
    mu[...] = xp.asarray(1 / max(1, step - t0), dtype=scalar_rounding)


def asgd_update_foreach(
    p, g, ax, eta, mu, step, lr, lambd, alpha, t0, weight_decay, maximize, scalar_rounding
):
    """``asgd_update`` in the order of torch's ``foreach=True`` path, whose numbers differ: the
    new step size is computed in the scalar state's dtype (float32 by default) from the step
    count tensor, and the update is ``p <- p - eta * (g + wd * p + lambd * p)``."""
    xp = xp_of(p)
    if maximize:
        g = xp.negative(g)
    inter = xp.add(g, weight_decay * p) if weight_decay != 0 else g
    inter = xp.add(inter, lambd * p)
    xp.subtract(p, inter * eta.astype(p.dtype), out=p)
    xp.add(ax, (p - ax) * mu.astype(p.dtype), out=ax)
    # NOTE: matches torch: each operation rounds to the state's dtype; the power is taken in
    # double precision (squares and cubes as products), and lr / x is reciprocal(x) * lr.
    dt = eta.dtype
    t = xp.asarray(step, dtype=dt) * dt.type(lambd * lr) + dt.type(1)
    if alpha == 2:
        t = t * t
    elif alpha == 3:
        t = t * t * t
    else:
        t = xp.asarray(xp.power(t.astype(xp.float64), alpha), dtype=dt)
    eta[...] = xp.reciprocal(t) * dt.type(lr)
    mu[...] = xp.asarray(1 / max(1, step - t0), dtype=scalar_rounding)


class ASGD(Optimizer):
    """ASGD (``torch.optim.ASGD``): SGD with a decaying step size that also keeps, in the state
    buffer ``ax``, the running average of the iterates after step ``t0``.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        lambd: decay term.
        alpha: power of the step size decay.
        t0: the step at which averaging starts.
        weight_decay: L2 penalty added to the gradient.
        foreach, differentiable, capturable: torch's implementation flags, kept in the groups;
            ember runs one implementation (``differentiable``/``capturable`` must stay False).
        maximize: ascend the objective instead of descending.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
        >>> opt = ember.optim.ASGD([w], lr=0.1)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.8, -0.8]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ):
        check_args(lr=lr, weight_decay=weight_decay)
        # NOTE: matches torch: the implementation flags stay in every group (same state dicts).
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
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
            self,
            dict(foreach=None, maximize=False, differentiable=False, capturable=False),
            scalars=("step", "eta", "mu"),
        )

    def _init_state(self, st: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        st["step"] = scalar_state(0.0)
        st["eta"] = scalar_state(lr_value(group["lr"]))
        st["mu"] = scalar_state(1.0)
        st["ax"] = ember.zeros_like(p)

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, lambd, alpha, t0 = lr_value(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        rounding = ember.get_default_dtype()._np
        update = asgd_update_foreach if group["foreach"] else asgd_update
        for p, st, step in params_to_step(self, group):
            update(
                rv(p._data),
                rv(p._grad._data),
                rv(st["ax"]._data),
                st["eta"]._data,
                st["mu"]._data,
                step,
                lr,
                lambd,
                alpha,
                t0,
                weight_decay,
                maximize,
                rounding,
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["ASGD"]
