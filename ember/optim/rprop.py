"""``Rprop``: resilient backpropagation, steps of adaptive size in the gradient's sign only."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ember
from ember.ops._dispatch import xp_of
from ember.optim._common import (
    blocks,
    check_lr,
    params_to_step,
    restore_groups,
    rv,
    scalar_state,
)
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor


def rprop_update(p, g, prev, step_size, etaminus, etaplus, step_size_min, step_size_max, maximize):
    """One Rprop step on raw arrays, in place (``prev``: the last step's gradient).

    g <- -g if maximize
    f = etaplus where g * prev > 0, etaminus where g * prev < 0, else 1
    s <- clamp(s * f, step_size_min, step_size_max)
    g <- 0 where f = etaminus     (after a sign change, skip this coordinate once)
    p <- p - sign(g) * s;  prev <- g
    """
    xp = xp_of(p)
    arrays = (p, g, prev, step_size)
    # Each block rebinds the names to aligned views of the same arrays.
    for p, g, prev, step_size in blocks(*arrays):
        # A copy (negated when maximizing): zeroed below and kept as prev; .grad stays as is.
        g = xp.negative(g, out=xp.empty_like(g)) if maximize else g.copy()
        f = xp.multiply(g, prev, out=xp.empty_like(p))
        xp.sign(f, out=f)
        # NOTE: matches torch: three masked writes in this order, so a NaN product stays NaN.
        xp.copyto(f, etaplus, where=f > 0)
        xp.copyto(f, etaminus, where=f < 0)
        xp.copyto(f, 1, where=f == 0)
        xp.multiply(step_size, f, out=step_size)
        xp.clip(step_size, step_size_min, step_size_max, out=step_size)
        xp.copyto(g, 0, where=f == etaminus)
        xp.sign(g, out=f)
        xp.multiply(f, step_size, out=f)
        xp.subtract(p, f, out=p)
        xp.copyto(prev, g)


class Rprop(Optimizer):
    """Rprop (``torch.optim.Rprop``): each coordinate moves by its own step size, grown while
    the gradient keeps its sign and shrunk when it flips.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: the initial step size of every coordinate.
        etas: (etaminus, etaplus), the factors that shrink and grow step sizes.
        step_sizes: (min, max) bounds of the step sizes.
        capturable, foreach, differentiable: torch's implementation flags, kept in the groups;
            ember runs one implementation (``capturable``/``differentiable`` must stay False).
        maximize: ascend the objective instead of descending.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
        >>> opt = ember.optim.Rprop([w], lr=0.1)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.9, -0.9]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        # NOTE: matches torch: the implementation flags stay in every group (same state dicts).
        defaults = dict(
            lr=lr,
            etas=etas,
            step_sizes=step_sizes,
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
        st["prev"] = ember.zeros_like(p)
        # NOTE: matches torch: step sizes start at the group's lr of the first step.
        lr = float(group["lr"])
        # NOTE: matches torch: a complex parameter's imaginary parts start at lr too
        st["step_size"] = ember.full_like(p, complex(lr, lr) if p.is_complex() else lr)

    def _step_group(self, group: dict[str, Any]) -> None:
        (etaminus, etaplus), (step_size_min, step_size_max) = group["etas"], group["step_sizes"]
        maximize = group["maximize"]
        for p, st, _ in params_to_step(self, group):
            rprop_update(
                rv(p._data),
                rv(p._grad._data),
                rv(st["prev"]._data),
                rv(st["step_size"]._data),
                etaminus,
                etaplus,
                step_size_min,
                step_size_max,
                maximize,
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["Rprop"]
