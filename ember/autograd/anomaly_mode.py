"""Anomaly detection: ``detect_anomaly`` and ``set_detect_anomaly``.

When on, every recorded op keeps the stack where forward created it, and after each node's
backward the engine checks the gradients it returned: a NaN raises, naming the node and
showing that forward stack.
"""

from __future__ import annotations

import os
import traceback
import warnings

from ember import backend
from ember.autograd import grad_mode as _gm


def is_anomaly_enabled() -> bool:
    return _gm.anomaly.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _gm.anomaly.check_nan


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on.

    Example:
        >>> with ember.autograd.detect_anomaly():
        ...     y = (x * 0).log() * 0  # doctest: +SKIP
        ...     y.sum().backward()     # raises: 'MulBackward0' returned nan values ...
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = (False, True)
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self.prev = (_gm.anomaly.enabled, _gm.anomaly.check_nan)
        _gm.anomaly.enabled = True
        _gm.anomaly.check_nan = self.check_nan

    def __exit__(self, *exc) -> None:
        _gm.anomaly.enabled, _gm.anomaly.check_nan = self.prev

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off (immediately, and restored on exit as a context)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (_gm.anomaly.enabled, _gm.anomaly.check_nan)
        _gm.anomaly.enabled = bool(mode)
        _gm.anomaly.check_nan = check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _gm.anomaly.enabled, _gm.anomaly.check_nan = self.prev


def _capture_trace() -> str:
    # the stack up to the call that ran the op, without the frames of the recording itself
    stack = traceback.extract_stack()
    here = os.path.dirname(__file__)
    while stack and os.path.dirname(stack[-1].filename) == here:
        stack.pop()
    return "".join(traceback.format_list(stack))


def _check_grads(node, grads) -> None:
    if not _gm.anomaly.check_nan:
        return
    for i, g in enumerate(grads):
        if g is None or not hasattr(g, "_data"):
            continue
        d = g._data
        xp = backend.namespace(d)
        if xp.device_type == "meta" or d.dtype.kind not in "fcV":
            continue
        if bool(xp.isnan(d).any()):
            raise RuntimeError(
                f"Function '{type(node).__name__}' returned nan values in its {i}th output.\n"
                f"The forward call that created it was:\n{node._trace}"
            )
