"""``Adagrad``: steps divided by the root of each coordinate's summed squared gradients."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ember
from ember._layout import strided as _strided
from ember.ops._dispatch import xp_of
from ember.optim._common import (
    blocks,
    check_args,
    check_fused,
    effective_grad,
    lr_value,
    params_to_step,
    restore_groups,
    rv,
    scalar_state,
)
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor


def adagrad_update(p, g, total, step, lr, lr_decay, eps, weight_decay, maximize):
    """One Adagrad step (step count ``step``, already incremented) on raw arrays, in place.

    g <- -g if maximize;  g <- g + wd * p
    s <- s + g^2
    p <- p - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)
    """
    xp = xp_of(p)
    clr = lr / (1 + (step - 1) * lr_decay)
    arrays = (p, g, total)
    # Each block rebinds the names to aligned views of the same arrays.
    for p, g, total in blocks(*arrays):
        g = effective_grad(p, g, weight_decay, maximize, xp)
        tmp = xp.empty_like(p)
        xp.multiply(g, g, out=tmp)
        xp.add(total, tmp, out=total)
        std = xp.sqrt(total, out=xp.empty_like(p))
        xp.add(std, eps, out=std)
        xp.multiply(g, -clr, out=tmp)
        xp.divide(tmp, std, out=tmp)
        xp.add(p, tmp, out=p)


def _sparse_update(p, total, step, lr, lr_decay, eps, weight_decay, maximize) -> None:
    """Adagrad on a sparse COO gradient, as torch's: the gradient coalesced, then only the
    rows it names updated (``sum`` and the parameter stay dense)."""
    if weight_decay != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    c = p._grad._data._coo().coalesced_array()
    vals = -c.values if maximize else c.values
    if vals.shape[0] == 0:
        return
    clr = lr / (1 + (step - 1) * lr_decay)
    where = tuple(c.indices)  # unique positions: plain fancy-index updates
    total[where] += vals * vals
    std = xp_of(total).sqrt(total[where])
    std += eps
    p._data[where] += (vals / std) * -clr
    p._vc[0] += 1


class Adagrad(Optimizer):
    """Adagrad (``torch.optim.Adagrad``): per-coordinate learning rates that shrink with the
    accumulated squared gradient.

    State (``step`` and ``sum``) is created for every parameter at construction, as in torch.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        lr_decay: the learning rate at step ``t`` is ``lr / (1 + (t - 1) * lr_decay)``.
        weight_decay: L2 penalty added to the gradient.
        initial_accumulator_value: starting value of the sum of squared gradients.
        eps: added to the denominator for numerical stability.
        foreach, differentiable, fused: torch's implementation flags, kept in the groups;
            ember runs one implementation (``differentiable``/``fused`` must stay False).
        maximize: ascend the objective instead of descending.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, -1.0]))
        >>> opt = ember.optim.Adagrad([w], lr=0.1)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.9, -0.9]
    """

    _sparse_grads = True  # sparse COO gradients take their own path (``_sparse_update``)

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ):
        check_args(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        # NOTE: matches torch: the implementation flags stay in every group (same state dicts).
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        check_fused(self, fused, foreach, differentiable)
        if fused:
            self._need_device_dtype_check_for_fused = True
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p, group)

    def _init_state(self, st: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        # Also run by the step for a parameter of a group added after construction.
        # NOTE: matches torch: fused=True keeps it in float32 whatever the default dtype.
        st["step"] = ember.zeros((), dtype=ember.float32) if group["fused"] else scalar_state(0.0)
        # NOTE: matches torch: the accumulator starts from the optimizer's default
        # initial_accumulator_value, even for a group that gives its own.
        st["sum"] = ember.full_like(p, self.defaults["initial_accumulator_value"])

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_groups(self, dict(foreach=None, maximize=False, differentiable=False, fused=None))

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, lr_decay, eps = lr_value(group["lr"]), group["lr_decay"], group["eps"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        for p, st, step in params_to_step(self, group):
            if p._grad.layout is not _strided:
                _sparse_update(p, st["sum"]._data, step, lr, lr_decay, eps, weight_decay, maximize)
                continue
            adagrad_update(
                rv(p._data),
                rv(p._grad._data),
                rv(st["sum"]._data),
                step,
                lr,
                lr_decay,
                eps,
                weight_decay,
                maximize,
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["Adagrad"]
