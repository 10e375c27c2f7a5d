"""``ember.amp.GradScaler``: loss scaling for mixed-precision training, as torch's.

The loss is multiplied by a scale before ``backward`` so small gradients survive a
low-precision backward; ``unscale_`` divides the gradients back (and records whether any is
inf/nan), ``step`` skips the optimizer step when one was, and ``update`` shrinks the scale
after an overflow (``backoff_factor``) or grows it after ``growth_interval`` clean steps
(``growth_factor``). On the CPU it is real, as in torch; a scaler for ``"cuda"`` disables
itself with torch's warning (no CUDA here) and passes everything through.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from enum import Enum
from typing import Any

from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.ops._dispatch import xp_of

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _non_finite_check_and_unscale_(grads, found_inf, inv_scale) -> None:
    """Multiply every gradient by ``inv_scale`` in place and set ``found_inf`` to 1 when any
    element is inf or nan (torch's ``_amp_foreach_non_finite_check_and_unscale_``)."""
    inv = float(inv_scale._data)
    fi = found_inf._data
    for g in grads:
        a = g._data
        xp = xp_of(a)
        if not bool(xp.isfinite(a).all()):
            fi[...] = 1.0
        if inv == 1.0:
            continue
        if a.dtype.char in "eE" or a.dtype.kind == "V":
            # float16/bfloat16 compute in float32 and round once, as torch's CPU kernel
            a[...] = a.astype(_dtype.float32._np) * xp.float32(inv)
        elif a.dtype.char == "d":
            xp.multiply(a, inv, out=a)
        else:
            xp.multiply(a, xp.float32(inv), out=a)
        g._vc[0] += 1


def _update_scale_(scale, tracker, found_inf, growth_factor, backoff_factor, interval) -> None:
    """torch's ``_amp_update_scale_``: back off after an overflow, else count the clean step
    and grow the scale (if it stays finite) after ``interval`` of them."""
    s, t = scale._data, tracker._data
    xp = xp_of(s)
    if float(found_inf._data):
        s[...] = float(s) * backoff_factor
        t[...] = 0
    else:
        n = int(t) + 1
        if n == interval:
            grown = xp.float32(float(s) * growth_factor)
            if xp.isfinite(grown):
                s[...] = grown
            t[...] = 0
        else:
            t[...] = n
    scale._vc[0] += 1
    tracker._vc[0] += 1


class GradScaler:
    """Scales the loss and unscales the gradients for mixed-precision training.

    Args:
        device: ``"cpu"`` for a working scaler; ``"cuda"`` (the default, as torch's) warns and
            disables itself.
        init_scale: the first scale.
        growth_factor: the scale's factor after ``growth_interval`` steps without inf/nan.
        backoff_factor: the scale's factor after a step with inf/nan gradients.
        growth_interval: clean steps between growths.
        enabled: False makes every method a pass-through.

    Example:
        >>> model = ember.nn.Linear(3, 1)
        >>> opt = ember.optim.SGD(model.parameters(), lr=0.1)
        >>> scaler = ember.amp.GradScaler("cpu", init_scale=1024.0)
        >>> with ember.autocast("cpu"):
        ...     loss = model(ember.ones(2, 3)).float().pow(2).mean()
        >>> scaler.scale(loss).backward()
        >>> scaler.step(opt)
        >>> scaler.update()
        >>> scaler.get_scale()
        1024.0
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            # NOTE: matches torch: a CPU-only build disables a CUDA scaler with a warning
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str):
        fix = (
            "This may indicate your script did not use scaler.scale(loss or outputs) earlier "
            "in the iteration."
        )
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev) -> None:
        import ember

        self._scale = ember.full((), self._init_scale, dtype=ember.float32, device=dev)
        self._growth_tracker = ember.full(
            (), self._init_growth_tracker, dtype=ember.int32, device=dev
        )

    def scale(self, outputs):
        """``outputs`` (a tensor, or an iterable of tensors) multiplied by the scale.

        Example:
            >>> ember.amp.GradScaler("cpu", init_scale=4.0).scale(ember.ones(2))
            tensor([4., 4.])
        """
        if not self._enabled:
            return outputs
        if hasattr(outputs, "_data"):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale

        def apply_scale(val):
            if hasattr(val, "_data"):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale
            if isinstance(val, (list, tuple)):
                return type(val)(map(apply_scale, val))
            if hasattr(val, "__iter__"):
                return map(apply_scale, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16: bool):
        per_dtype = defaultdict(list)
        with _gm.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype is _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    per_dtype[param.grad.dtype].append(param.grad)
            for grads in per_dtype.values():
                _non_finite_check_and_unscale_(grads, found_inf, inv_scale)
        # NOTE: matches torch: no gradients at all records no device
        return {found_inf.device: found_inf} if per_dtype else {}

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale in place (for clipping before
        ``step``); records whether any was inf/nan. At most once per ``update``."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        import ember

        # the reciprocal in float64, rounded once to float32, as torch's
        inv_scale = ember.full((), 1.0 / float(self._scale._data), dtype=ember.float32)
        found_inf = ember.full((), 0.0, dtype=ember.float32)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        if not sum(float(v._data) for v in optimizer_state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer, *args, **kwargs):
        """Unscale the gradients (unless ``unscale_`` did) and run ``optimizer.step`` unless
        one of them is inf/nan; returns what ``optimizer.step`` returns, or None if skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, state, *args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        """Set the next scale: ``new_scale`` if given, else backed off after an overflow or
        grown after ``growth_interval`` clean steps."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                _scale._data[...] = new_scale
            else:
                reason = (
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False."
                )
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                _scale._data[...] = new_scale._data.reshape(())
            _scale._vc[0] += 1
        else:
            found_infs = [
                f
                for state in self._per_optimizer_states.values()
                for f in state["found_inf_per_device"].values()
            ]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found_infs[0]
            for f in found_infs[1:]:
                combined._data[...] = combined._data + f._data
            _update_scale_(
                _scale,
                _growth_tracker,
                combined,
                self._growth_factor,
                self._backoff_factor,
                self._growth_interval,
            )
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else float(self._scale._data)
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            if self._growth_tracker is None:
                return self._init_growth_tracker
            return int(self._growth_tracker._data)
        return 0

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and
        ``_growth_tracker`` (empty when disabled), as torch's."""
        if self._enabled:
            return {
                "scale": self.get_scale(),
                "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker(),
            }
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a state from ``state_dict()``."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved "
                "from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale._data[...] = state_dict["scale"]
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker._data[...] = state_dict["_growth_tracker"]

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError(
                    "A GradScaler instance may only be pickled at the beginning "
                    "of an iteration, or at the end after scaler.update()."
                )
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer):
        import ember

        self._check_scale_growth_tracker("_check_inf_per_device")
        dummy_inv_scale = ember.full((), 1.0, dtype=ember.float32)
        found_inf = ember.full((), 0.0, dtype=ember.float32)
        state = self._per_optimizer_states[id(optimizer)]
        state["found_inf_per_device"] = self._unscale_grads_(
            optimizer, dummy_inv_scale, found_inf, True
        )
        return state["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
