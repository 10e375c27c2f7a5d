"""Pieces the element-wise optimizers share: argument checks, the loop over a group's parameters,
the gradient an update follows (maximize, weight decay), scalar state, cache-sized blocks, in-place
lerp."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import ember
from ember._layout import strided as _strided
from ember.tensor import Tensor


def check_lr(lr: Any) -> None:
    """torch's first two checks of every optimizer: a 1-element Tensor lr, and lr >= 0."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


# torch's names for the hyper-parameters in "Invalid <name> value: <value>".
_LABELS = {"eps": "epsilon"}


def check_args(**values: Any) -> None:
    """torch's checks of an optimizer's hyper-parameters, in the order given: ``lr`` as in
    ``check_lr``, each of ``betas`` in [0, 1), every other value >= 0.

    Example:
        >>> from ember.optim._common import check_args
        >>> check_args(lr=0.1, eps=-1.0)
        Traceback (most recent call last):
        ...
        ValueError: Invalid epsilon value: -1.0
    """
    for name, value in values.items():
        if name == "lr":
            check_lr(value)
        elif name == "betas":
            for i in (0, 1):
                if not 0.0 <= value[i] < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {i}: {value[i]}")
        elif not 0.0 <= value:
            raise ValueError(f"Invalid {_LABELS.get(name, name)} value: {value}")


def rv(a: Any) -> Any:
    """A complex parameter's (or state's) raw array as real numbers: torch updates complex
    parameters through ``view_as_real``, so every element-wise rule treats the real and
    imaginary parts as two independent parameters (``|g|^2`` per part, not ``g * g``)."""
    return a.view(a.real.dtype) if a.dtype.kind == "c" else a


def lr_value(lr: Any) -> Any:
    """The learning rate to compute with: a number as given, a Tensor lr as its raw 0-d array."""
    # NOTE: matches torch: a Tensor lr stays a 0-d tensor in the scalar arithmetic of the step
    # (lr / bias correction...), which therefore rounds to the lr's dtype, float32 by default.
    return lr._data.reshape(()) if isinstance(lr, Tensor) else lr


def check_fused(optimizer: Any, fused: Any, foreach: Any, differentiable: Any) -> None:
    """torch's constructor checks of ``fused=True`` (run after ``Optimizer.__init__``): it
    excludes ``differentiable`` and ``foreach``. ember runs one implementation for every flag,
    so a fused step gives the single-tensor step's numbers (torch's fused CPU kernels differ
    from those in the last bits only)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # NOTE: matches torch: a fused optimizer takes GradScaler's scale in its step.
        optimizer._step_supports_amp_scaling = True


_FUSED_DEVICES = ["mps", "cuda", "xpu", "hpu", "cpu", "mtia", "privateuseone"]
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]
# torch's wording of the capturable assertion, where it differs from "params and state_steps"
_CAPTURABLE_WHAT = {
    "NAdam": "params, mu_products and state_steps",
    "ASGD": "params, mus, etas, and state_steps",
}


def _fused_dtype_check(p: Tensor) -> None:
    if not p.is_floating_point():
        raise RuntimeError(
            "`fused=True` requires all the params to be floating point Tensors of supported "
            f"devices: {_FUSED_DEVICES} but {p.dtype} and {p.device.type}"
        )


def check_step_flags(optimizer: Any, group: dict[str, Any]) -> None:
    """torch's step-time refusals of the implementation flags for CPU parameters, run before a
    group's update: ``fused`` needs floating-point parameters (and, in SGD and Adagrad, dense
    gradients), ``capturable`` asserts that the parameters are on an accelerator (after the
    state is created, as torch), and ``differentiable`` runs the step with grad mode on, which
    refuses the in-place update of a leaf that requires grad."""
    if group.get("fused"):
        once = getattr(optimizer, "_need_device_dtype_check_for_fused", None)
        for p in group["params"]:
            g = p._grad
            if g is None:
                continue
            if once is None:  # Adam, AdamW: each parameter when its state is created
                if not optimizer.state.get(p):
                    _fused_dtype_check(p)
                continue
            if once:  # SGD, Adagrad: the first parameter with a gradient, once
                _fused_dtype_check(p)
                optimizer._need_device_dtype_check_for_fused = once = False
            if g.layout is not _strided or p.is_complex():
                if type(optimizer).__name__ == "SGD":
                    if g.layout is not _strided:
                        raise RuntimeError("`_fused_sgd` does not support sparse gradients")
                else:
                    raise RuntimeError("`fused` does not support sparse grad or complex param")
    if group.get("capturable"):
        with_grad = [p for p in group["params"] if p._grad is not None]
        if with_grad:
            init = getattr(optimizer, "_init_state", None)
            for p in with_grad:
                st = optimizer.state[p]
                if not st and init is not None:
                    init(st, p, group)
            name = type(optimizer).__name__
            devices = _CAPTURABLE_DEVICES[:-1] if name == "Adadelta" else _CAPTURABLE_DEVICES
            what = _CAPTURABLE_WHAT.get(name, "params and state_steps")
            raise AssertionError(
                f"If capturable=True, {what} must be on supported devices: {devices}."
            )
    if optimizer.defaults.get("differentiable"):
        for p in group["params"]:
            g = p._grad
            if g is None:
                continue
            if p.requires_grad and p.is_leaf:
                # NOTE: matches torch: its step runs with grad mode on under differentiable=True,
                # so the in-place update of a leaf parameter that requires grad is refused
                raise RuntimeError(
                    "a leaf Variable that requires grad is being used in an in-place operation."
                )
            if p.requires_grad or g.requires_grad:
                raise NotImplementedError(
                    f"{type(optimizer).__name__}(differentiable=True): ember cannot record the "
                    "update for autograd (a non-leaf parameter, or a gradient that requires "
                    "grad); compute the update with tensor ops instead, or detach the gradients."
                )


def params_to_step(
    optimizer: Any, group: dict[str, Any]
) -> Iterator[tuple[Tensor, dict[str, Any], float]]:
    """The parameters of ``group`` that have a gradient, each with its state and new step count.

    A parameter's empty state is filled by ``optimizer._init_state(st, p, group)`` on its first
    step; then the 0-d ``st["step"]`` grows by one in place (in its own dtype) and its value comes
    with the parameter. The caller updates the raw arrays and bumps ``p._vc[0]``.
    """
    state = optimizer.state
    for p in group["params"]:
        if p._grad is None:
            continue
        if p._grad.layout is not _strided and not getattr(optimizer, "_sparse_grads", False):
            raise RuntimeError(sparse_grad_error(optimizer))
        st = state[p]
        if not st:
            optimizer._init_state(st, p, group)
        step = st["step"]._data
        step += 1
        yield p, st, float(step)


def sparse_grad_error(optimizer: Any) -> str:
    """torch's message for a sparse gradient reaching an optimizer without a sparse path."""
    name = type(optimizer).__name__
    if name in ("Adam", "AdamW"):
        # NOTE: matches torch: AdamW reports itself as Adam
        return "Adam does not support sparse gradients, please consider SparseAdam instead"
    return f"{name} does not support sparse gradients"


def effective_grad(
    p, g, weight_decay: float, maximize: bool, xp, lr: Any = 0.0, decoupled: bool = False
):
    """The gradient an update follows, on raw arrays; a new array whenever it differs from ``g``
    (the parameter's ``.grad`` is never written, and 0-d arrays stay arrays).

        g <- -g if maximize
        p <- p * (1 - lr * wd) if decoupled (in place), else g <- g + wd * p
    """
    if maximize:
        g = xp.negative(g, out=xp.empty_like(g))
    if weight_decay != 0:
        if decoupled:
            xp.multiply(p, 1 - lr * weight_decay, out=p)
        else:
            decay = xp.multiply(p, weight_decay, out=xp.empty_like(p))
            g = xp.add(g, decay, out=decay)
    return g


def scalar_dtype() -> ember.dtype:
    """The dtype of scalar state (``step``...): float64 when that is the default, else float32."""
    # NOTE: matches torch: `_get_scalar_dtype()` follows the default dtype.
    return ember.float64 if ember.get_default_dtype() == ember.float64 else ember.float32


def scalar_state(value: float) -> Tensor:
    """A 0-d scalar-state tensor holding ``value`` (a step count, a running product)."""
    return ember.tensor(float(value), dtype=scalar_dtype())


def restore_groups(
    optimizer: Any, flags: dict[str, Any], scalars: tuple[str, ...] = ("step",)
) -> None:
    """``__setstate__`` of an unpickled optimizer: fill flags missing from old groups and turn
    scalar state saved as Python numbers back into 0-d tensors."""
    for group in optimizer.param_groups:
        for key, value in flags.items():
            group.setdefault(key, value)
        for p in group["params"]:
            st = optimizer.state.get(p)
            if not st:
                continue
            for key in scalars:
                if key in st and not isinstance(st[key], Tensor):
                    st[key] = scalar_state(st[key])


BLOCK_BYTES = 1 << 18


def blocks(*arrays):
    """The arrays in aligned flat blocks of about 256 KB each, or whole when they are small or
    not all C-contiguous; updates run block by block, so their temporaries stay in cache
    (about twice as fast as whole-array passes at a million elements)."""
    first = arrays[0]
    size = BLOCK_BYTES // first.itemsize
    n = first.size
    if n <= size or not all(a.flags.c_contiguous for a in arrays):
        yield arrays
        return
    flat = [a.reshape(-1) for a in arrays]
    for start in range(0, n, size):
        yield tuple(f[start : start + size] for f in flat)


def lerp_(a, b, weight: float, tmp, xp) -> None:
    """``a <- a + weight * (b - a)`` in place, using ``tmp`` (same shape) as scratch."""
    xp.subtract(b, a, out=tmp)
    # NOTE: matches torch: a weight of at least 1/2 is computed from the far end,
    # b - (b - a) * (1 - weight), which keeps weight = 1 exact.
    if abs(weight) < 0.5:
        xp.multiply(tmp, weight, out=tmp)
        xp.add(a, tmp, out=a)
    else:
        xp.multiply(tmp, 1 - weight, out=tmp)
        xp.subtract(b, tmp, out=a)
