"""``skip_init`` (``torch.nn.utils.init``): build a module without running its parameter
initialization."""

from __future__ import annotations

import inspect

from ember.nn.modules.module import Module


def skip_init(module_cls: type, *args, **kwargs) -> Module:
    """Construct ``module_cls(*args, **kwargs)`` with uninitialized parameters and buffers.

    The module is built on the meta device (its initialization computes nothing) and then given
    empty storage on ``device`` (default ``"cpu"``) with ``to_empty``, so its values are
    whatever the memory held: initialize them yourself. The class must accept a ``device``
    keyword argument and pass it on to its parameters.

    Example:
        >>> import ember
        >>> m = ember.nn.utils.skip_init(ember.nn.Linear, 5, 3)
        >>> _ = ember.nn.init.orthogonal_(m.weight)
        >>> m.weight.shape, m.weight.device
        (ember.Size([3, 5]), device(type='cpu'))
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
