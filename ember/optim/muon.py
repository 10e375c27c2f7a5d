"""``Muon``: momentum SGD for 2-D weights whose update is orthogonalized by a Newton-Schulz
iteration (run in bfloat16, as torch runs it)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import ember
from ember.ops._dispatch import xp_of
from ember.optim._common import lr_value, sparse_grad_error
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor, _wrap

__all__ = ["Muon"]

# the quintic Newton-Schulz coefficients, epsilon and step count torch defaults to
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.775, 2.0315
EPS = 1e-7
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad: Tensor, ns_coefficients, ns_steps: int, eps: float):
    """An approximately orthogonal matrix with ``grad``'s singular vectors (U S' V^T with S'
    near 1), by ``ns_steps`` quintic Newton-Schulz steps in bfloat16."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = grad.bfloat16()
    tall = grad.size(0) > grad.size(1)
    if tall:
        x = x.T
    x = x / x.norm().clamp(min=eps)  # spectral norm <= Frobenius norm <= 1
    # NOTE: matches torch: each bfloat16 product (mm, addmm) is computed in float32 in one
    # pass (beta * M + alpha * A @ B) and rounded to bfloat16 once, so the iteration runs on
    # float32 copies of bfloat16 values, rounding after every product.
    bf16, f32 = ember.bfloat16._np, ember.float32._np
    xs = x._data.astype(f32)
    for _ in range(ns_steps):
        gram = (xs @ xs.T).astype(bf16).astype(f32)
        gram_update = (b * gram + c * (gram @ gram)).astype(bf16).astype(f32)
        xs = (a * xs + gram_update @ xs).astype(bf16).astype(f32)
    out = _wrap(xs.astype(bf16))
    return out.T if tall else out


def _lerp(start, end, weight: float):
    """``torch.lerp(start, end, weight)`` on raw arrays, rounded as torch rounds it.

    NOTE: matches torch: its CPU kernel fuses the multiply-add (one rounding), and Muon's
    bfloat16 iteration turns any last-bit difference into a visible one; the fused form is
    emulated in a wider type (exact for float32, within an ulp's fraction for float64).
    """
    xp = xp_of(start)
    dt = start.dtype
    wide = xp.float64 if dt.itemsize <= 4 else xp.longdouble
    w = dt.type(weight)
    diff = (end - start).astype(wide)
    if abs(weight) < 0.5:
        out = start.astype(wide) + wide(w) * diff
    else:
        out = end.astype(wide) - diff * wide(dt.type(1) - w)
    return out.astype(dt)


def _axpy(p, u, alpha: float):
    """``p + alpha * u`` in ``p``'s dtype with one rounding (torch's fused ``add_(u, alpha=)``)."""
    xp = xp_of(p)
    dt = p.dtype
    wide = xp.float64 if dt.itemsize <= 4 else xp.longdouble
    return (p.astype(wide) + wide(dt.type(alpha)) * u.astype(wide)).astype(dt)


def _adjust_lr(lr: float, adjust_lr_fn: str | None, param_shape) -> float:
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon (``torch.optim.Muon``): Nesterov momentum whose update is orthogonalized.

    Only 2-D parameters are accepted (train biases and norms with another optimizer).

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        weight_decay: decoupled weight decay, scaled by ``lr``.
        momentum: momentum factor of the buffer.
        nesterov: step along ``lerp(grad, buffer, momentum)`` instead of the buffer.
        ns_coefficients: the (a, b, c) of the quintic Newton-Schulz iteration.
        eps: floor of the norm the update is divided by before the iteration.
        ns_steps: Newton-Schulz iterations (fewer than 100).
        adjust_lr_fn: ``None``/``"original"`` scales lr by ``sqrt(max(1, rows/cols))``;
            ``"match_rms_adamw"`` by ``0.2 * sqrt(max(rows, cols))``.

    Example:
        >>> w = ember.nn.Parameter(ember.eye(2))
        >>> opt = ember.optim.Muon([w], lr=0.1)
        >>> (w.sum() * 2).backward(); opt.step(); w.shape
        ember.Size([2, 2])
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps: float = EPS,
        ns_steps: int = DEFAULT_NS_STEPS,
        adjust_lr_fn: str | None = None,
    ):
        # NOTE: matches torch: these checks and messages are Muon's own
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(
            lr=lr,
            weight_decay=weight_decay,
            momentum=momentum,
            nesterov=nesterov,
            ns_coefficients=ns_coefficients,
            eps=eps,
            ns_steps=ns_steps,
            adjust_lr_fn=adjust_lr_fn,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

    def _step_group(self, group: dict[str, Any]) -> None:
        lr = float(lr_value(group["lr"]))
        wd, momentum = group["weight_decay"], group["momentum"]
        with ember.no_grad():
            for p in group["params"]:
                if p._grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                if p._grad.is_sparse:
                    raise RuntimeError(sparse_grad_error(self))
                grad = p._grad
                st = self.state[p]
                if "momentum_buffer" not in st:
                    st["momentum_buffer"] = ember.zeros_like(grad)
                if grad.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                buf = st["momentum_buffer"]
                buf._data[...] = _lerp(buf._data, grad._data, 1 - momentum)
                buf._vc[0] += 1
                if group["nesterov"]:
                    update = _wrap(_lerp(grad._data, buf._data, momentum))
                else:
                    update = buf
                update = _zeropower_via_newtonschulz(
                    update, group["ns_coefficients"], group["ns_steps"], group["eps"]
                )
                adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
                p.mul_(1 - lr * wd)
                # NOTE: matches torch: add_(update, alpha) promotes the bfloat16 update to the
                # parameter's dtype and fuses the multiply-add (one rounding)
                p._data[...] = _axpy(p._data, update._data, -adjusted_lr)
                p._vc[0] += 1
