"""``Identity`` and ``Linear`` (PyTorch's ``torch.nn.modules.linear``)."""

from __future__ import annotations

import math
from typing import Any

from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.ops.creation import empty
from ember.tensor import Tensor

__all__ = ["Identity", "Linear"]


class Identity(Module):
    """Returns its input unchanged; accepts and ignores any constructor arguments (a
    placeholder where a layer is optional).

    Example:
        >>> m = ember.nn.Identity(54, unused="argument")
        >>> m(ember.ones(2)).shape
        ember.Size([2])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``: input ``(*, in_features)``, output ``(*, out_features)``.

    ``weight`` is ``(out_features, in_features)`` and ``bias`` ``(out_features,)``; both start
    as PyTorch's: U(-1/sqrt(in_features), 1/sqrt(in_features)). ``bias=False`` registers
    ``bias`` as None. ``device``/``dtype`` create the parameters there (``device="meta"``
    allocates nothing).

    Example:
        >>> m = ember.nn.Linear(20, 30)
        >>> m(ember.randn(128, 20)).shape
        ember.Size([128, 30])
    """

    __constants__ = ["in_features", "out_features"]
    in_features: int
    out_features: int
    weight: Tensor

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # kaiming_uniform_ with a=sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)): PyTorch's
        # default, kept so that seeds reproduce the same distribution.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name ``MultiheadAttention`` uses for its output projection (PyTorch
    keeps the class for its quantization tooling)."""
