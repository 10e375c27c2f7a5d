"""``Adafactor``: Adam-like steps whose second moment of a matrix is stored factored, as a row
vector and a column vector (memory O(rows + cols) instead of O(rows * cols))."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ember
from ember.ops._dispatch import xp_of
from ember.optim._common import lerp_, lr_value, restore_groups, scalar_state, sparse_grad_error
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor

__all__ = ["Adafactor"]


def adafactor_update(p, g, row, col, var, step, lr, beta2_decay, eps1, eps2, d, wd, maximize):
    """One Adafactor step (step count ``step``, already incremented) on raw arrays, in place.

    w = t^beta2_decay;  rho = min(lr, 1/sqrt(t));  alpha = max(eps2, rms(p)) * rho
    p <- p * (1 - lr * wd)
    matrix: row <- lerp(row, mean(g^2, -1), w); col <- lerp(col, mean(g^2, -2), w);
            v = row @ col / max(mean(row, -2), eps1)
    vector: var <- lerp(var, g^2, w); v = var
    u = g / sqrt(max(v, eps1^2));  p <- p - alpha / max(1, rms(u) / d) * u
    """
    xp = xp_of(p)
    if maximize:
        g = -g
    w = step**beta2_decay
    rho = min(lr, 1 / step**0.5)
    numel = p.size
    alpha = max(eps2, float(xp.linalg.norm(p.reshape(-1))) / numel**0.5) * rho
    if wd != 0:
        xp.multiply(p, 1 - lr * wd, out=p)
    if row is not None:
        # mean of g^2 along each factored axis, as torch's norm(g, dim)^2 / n
        row_mean = xp.square(xp.linalg.norm(g, axis=-1, keepdims=True)) / g.shape[-1]
        lerp_(row, row_mean, w, xp.empty_like(row), xp)
        col_mean = xp.square(xp.linalg.norm(g, axis=-2, keepdims=True)) / g.shape[-2]
        lerp_(col, col_mean, w, xp.empty_like(col), xp)
        v = xp.matmul(row, col)
        v /= xp.maximum(row.mean(axis=-2, keepdims=True), eps1)
    else:
        lerp_(var, g * g, w, xp.empty_like(var), xp)
        v = var.copy()
    xp.maximum(v, eps1 * eps1, out=v)
    xp.sqrt(v, out=v)
    u = xp.divide(g, v, out=v)
    denom = max(1.0, float(xp.linalg.norm(u.reshape(-1))) / (numel**0.5 * d))
    u *= -alpha / denom
    p += u


class Adafactor(Optimizer):
    """Adafactor (``torch.optim.Adafactor``): relative step sizes and a factored second moment.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: the cap of the relative step size ``min(lr, 1/sqrt(t))``.
        beta2_decay: the second-moment weight of step ``t`` is ``t ** beta2_decay``.
        eps: ``(eps1, eps2)``: the floor of the second moment (None: the dtype's machine
            epsilon) and the floor of a parameter's RMS in the step size.
        d: clipping threshold of the update's RMS.
        weight_decay: decoupled weight decay, scaled by ``lr``.
        foreach: torch's implementation flag, kept in the groups.
        maximize: ascend the objective instead of descending.

    Example:
        >>> w = ember.nn.Parameter(ember.tensor([[1.0, -1.0], [2.0, 0.5]]))
        >>> opt = ember.optim.Adafactor([w], lr=0.1)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w[0].tolist()]
        [0.9078, -0.8156]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ):
        # NOTE: matches torch: these checks and messages are Adafactor's own
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(
            lr=lr,
            beta2_decay=beta2_decay,
            eps=eps,
            d=d,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_groups(self, dict(foreach=None))

    def _step_group(self, group: dict[str, Any]) -> None:
        lr = float(lr_value(group["lr"]))
        eps1, eps2 = group["eps"]
        for p in group["params"]:
            if p._grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            if p._grad.is_sparse:
                raise RuntimeError(sparse_grad_error(self))
            st = self.state[p]
            if not st:
                st["step"] = scalar_state(0.0)
                if p._grad.dim() > 1:
                    shape = list(p._grad.shape)
                    st["row_var"] = p._grad.new_zeros(shape[:-1] + [1])
                    st["col_var"] = p._grad.new_zeros(shape[:-2] + [1, shape[-1]])
                else:
                    st["variance"] = ember.zeros_like(p._grad)
            if eps1 is None:
                # NOTE: matches torch: the first parameter's dtype fixes eps1 for the group
                eps1 = ember.finfo(p.dtype).eps
            step = st["step"]._data
            step += 1
            row, col, var = st.get("row_var"), st.get("col_var"), st.get("variance")
            adafactor_update(
                p._data,
                p._grad._data,
                None if row is None else row._data,
                None if col is None else col._data,
                None if var is None else var._data,
                float(step),
                lr,
                group["beta2_decay"],
                eps1,
                eps2,
                group["d"],
                group["weight_decay"],
                group["maximize"],
            )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed
