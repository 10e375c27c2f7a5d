"""``QuantStub``/``DeQuantStub``: where a model's float tensors enter and leave the quantized
part (observers before ``convert``, ``Quantize``/``DeQuantize`` after), and ``QuantWrapper``."""

from __future__ import annotations

from ember import nn

__all__ = ["DeQuantStub", "QuantStub", "QuantWrapper"]


class QuantStub(nn.Module):
    """Identity before ``convert``; then replaced by a ``Quantize`` module with the observed
    scale and zero point.

    Args:
        qconfig: the module's quantization configuration (optional).

    Example:
        >>> stub = ember.ao.quantization.QuantStub()
        >>> stub(ember.ones(2))
        tensor([1., 1.])
    """

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class DeQuantStub(nn.Module):
    """Identity before ``convert``; then replaced by a ``DeQuantize`` module.

    Example:
        >>> ember.ao.quantization.DeQuantStub()(ember.ones(1))
        tensor([1.])
    """

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantWrapper(nn.Module):
    """Wraps a module between a ``QuantStub`` and a ``DeQuantStub`` (sharing its qconfig).

    Example:
        >>> w = ember.ao.quantization.QuantWrapper(ember.nn.Linear(2, 2))
        >>> list(dict(w.named_children()))
        ['quant', 'dequant', 'module']
    """

    def __init__(self, module):
        super().__init__()
        qconfig = getattr(module, "qconfig", None)
        self.add_module("quant", QuantStub(qconfig))
        self.add_module("dequant", DeQuantStub(qconfig))
        self.add_module("module", module)
        self.train(module.training)

    def forward(self, X):
        X = self.quant(X)
        X = self.module(X)
        return self.dequant(X)
