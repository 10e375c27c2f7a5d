"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ember._layout import sparse_coo
from ember._layout import strided as _strided
from ember.ops._dispatch import xp_of
from ember.optim._common import check_fused, effective_grad, restore_groups
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor, _wrap


def sgd_update(p, g, buf, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """One SGD step on raw arrays, in place on ``p`` (and ``buf``); returns the momentum buffer.

    g <- -g if maximize;  g <- g + weight_decay * p
    b <- g (first step),  else b <- momentum * b + (1 - dampening) * g
    d <- g + momentum * b if nesterov else b
    p <- p - lr * d
    """
    xp = xp_of(p)
    g = effective_grad(p, g, weight_decay, maximize, xp)
    d = g
    if momentum != 0:
        if buf is None:
            buf = g.copy()
        else:
            xp.multiply(buf, momentum, out=buf)
            if dampening != 0:
                g = xp.multiply(g, 1 - dampening, out=xp.empty_like(g))
            xp.add(buf, g, out=buf)
        d = buf
        if nesterov:
            d = xp.multiply(buf, momentum, out=xp.empty_like(buf))
            xp.add(g, d, out=d)
    xp.subtract(p, d * lr, out=p)
    return buf


def _sparse_step(p: Tensor, grad: Tensor, state: Any, group: dict[str, Any]) -> None:
    """SGD on a sparse COO gradient, as torch's: a sparse momentum buffer (entries appended
    step after step, never densified) and the update scattered into the rows it names."""
    from ember.backend import _sparse as _k  # (sparse tensors load on first use)
    from ember.sparse._array import SparseArray
    from ember.sparse._functions import new_sparse

    if group["weight_decay"] != 0:
        # NOTE: matches torch: weight decay adds the dense parameter to the sparse gradient
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
    g = grad._data._coo()
    shape = g.shape
    idx, vals, coal = g.indices, g.values, g.coalesced
    if group["maximize"]:
        vals = -vals
    if momentum != 0:
        st = state[p]
        buf = st.get("momentum_buffer")
        if buf is None:
            buf = st["momentum_buffer"] = new_sparse(
                SparseArray(sparse_coo, shape, vals.copy(), idx.copy(), coalesced=coal)
            )
            b = buf._data
        elif buf.layout is _strided:  # a buffer a dense gradient started: it stays dense
            b = buf._data
            b *= momentum
            _k.dense_add_(b, idx, vals, 1 - dampening, coal)
            if group["nesterov"]:
                raise RuntimeError(
                    "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
                )
            p._data -= b * lr
            p._vc[0] += 1
            return
        else:
            b = buf._data
            b.values = b.values * momentum
            b.set_entries(
                *_k.add_entries(
                    b.indices, b.values, b.coalesced, idx, vals, coal, shape, 1 - dampening
                )
            )
        if group["nesterov"]:
            idx, vals, coal = _k.add_entries(
                idx, vals, coal, b.indices, b.values, b.coalesced, shape, momentum
            )
        else:
            idx, vals, coal = b.indices, b.values, b.coalesced
    _k.dense_add_(p._data, idx, vals, -lr, coal)
    p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


class SGD(Optimizer):
    """Stochastic gradient descent (``torch.optim.SGD``), optionally with momentum.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        momentum: momentum factor (0 turns momentum off).
        dampening: scales the new gradient in the momentum buffer by ``1 - dampening``.
        weight_decay: L2 penalty added to the gradient.
        nesterov: Nesterov momentum (needs momentum > 0 and zero dampening).
        maximize: ascend the objective instead of descending.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.tensor([1.0, 2.0]))
        >>> opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> (w * w).sum().backward(); opt.step(); [round(x, 4) for x in w.tolist()]
        [0.8, 1.6]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ):
        # NOTE: matches torch: SGD checks `x < 0` (not `not 0 <= x` as the others), so NaN passes.
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        # NOTE: matches torch: foreach/differentiable/fused are kept in every group so state
        # dicts carry the same keys both ways.
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        if fused:
            self._need_device_dtype_check_for_fused = True
        check_fused(self, fused, foreach, differentiable)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_groups(
            self,
            dict(nesterov=False, maximize=False, differentiable=False, foreach=None, fused=None),
        )

    def _step_group(self, group: dict[str, Any]) -> None:
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov = group["weight_decay"], group["nesterov"]
        maximize = group["maximize"]
        state = self.state
        for p in group["params"]:
            grad = p._grad
            if grad is None:
                continue
            if grad.layout is not _strided:
                _sparse_step(p, grad, state, group)
                continue
            if momentum != 0:
                st = state[p]
                buf = st.get("momentum_buffer")
                new = sgd_update(
                    p._data,
                    grad._data,
                    None if buf is None else buf._data,
                    lr,
                    momentum,
                    dampening,
                    weight_decay,
                    nesterov,
                    maximize,
                )
                if buf is None:
                    st["momentum_buffer"] = _wrap(new)
            else:
                sgd_update(
                    p._data, grad._data, None, lr, 0, dampening, weight_decay, False, maximize
                )
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed


__all__ = ["SGD"]
