"""Pieces the element-wise optimizers share: argument checks, scalar state, cache-sized blocks,
in-place lerp."""

from __future__ import annotations

from typing import Any

import ember
from ember.tensor import Tensor


def check_lr(lr: Any) -> None:
    """torch's first two checks of every optimizer: a 1-element Tensor lr, and lr >= 0."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def lr_value(lr: Any) -> Any:
    """The learning rate to compute with: a number as given, a Tensor lr as its raw 0-d array."""
    # NOTE: matches torch: a Tensor lr stays a 0-d tensor in the scalar arithmetic of the step
    # (lr / bias correction...), which therefore rounds to the lr's dtype, float32 by default.
    return lr._data.reshape(()) if isinstance(lr, Tensor) else lr


def reject_unsupported(owner: str, **flags: Any) -> None:
    """Raise for the implementation flags ember does not have (CUDA graphs, autograd through the
    step, fused kernels), naming the ones that were set."""
    on = [name for name, value in flags.items() if value]
    if on:
        raise NotImplementedError(
            f"{owner}: {', '.join(f'{name}=True' for name in on)} is not supported by ember; "
            f"leave {' and '.join(flags)} at their defaults."
        )


def scalar_dtype() -> ember.dtype:
    """The dtype of scalar state (``step``...): float64 when that is the default, else float32."""
    # NOTE: matches torch: `_get_scalar_dtype()` follows the default dtype.
    return ember.float64 if ember.get_default_dtype() == ember.float64 else ember.float32


def scalar_state(value: float) -> Tensor:
    """A 0-d scalar-state tensor holding ``value`` (a step count, a running product)."""
    return ember.tensor(float(value), dtype=scalar_dtype())


def restore_groups(optimizer: Any, flags: dict[str, Any], scalars: tuple[str, ...] = ("step",)
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
        yield tuple(f[start:start + size] for f in flat)


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
