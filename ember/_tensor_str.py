"""Tensor ``repr`` (temporary minimal form; replaced by PyTorch-style formatting)."""

from __future__ import annotations

from ember import backend


def tensor_repr(t) -> str:
    xp = backend.namespace(t._data)
    body = repr(xp.to_numpy(t._data).tolist()) if xp.device_type != "meta" else "..."
    extra = ""
    if t._grad_fn is not None:
        extra = f", grad_fn=<{type(t._grad_fn).__name__}>"
    elif t._requires_grad:
        extra = ", requires_grad=True"
    return f"tensor({body}{extra})"


def _rebuild_tensor(device_type, payload, requires_grad, cls):
    from ember.tensor import Tensor, _init

    xp = backend.for_device(device_type)
    if device_type == "meta":
        data = xp.empty(payload[0], dtype=payload[1])
    else:
        data = xp.from_numpy(payload)
    t = object.__new__(cls)
    _init(t, data, requires_grad)
    return t
