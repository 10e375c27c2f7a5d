"""``Identity``, ``Linear`` and ``LazyLinear`` (PyTorch's ``torch.nn.modules.linear``)."""

from __future__ import annotations

from typing import Any

from ember.autograd.grad_mode import no_grad
from ember.nn import functional as F
from ember.nn._default_init import reset_bilinear, reset_linear
from ember.nn.modules.lazy import LazyModuleMixin
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter, UninitializedParameter
from ember.ops.creation import empty
from ember.tensor import Tensor

__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]


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

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None
    ) -> None:
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
        # version 1 (the default): PyTorch's kaiming_uniform_(a=sqrt(5)), i.e.
        # U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and the bias from the same range
        reset_linear(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        # The hot path of most models: read the parameters from ``_parameters`` directly, which
        # is where ``self.weight`` resolves to, minus the failed normal lookup that precedes
        # ``Module.__getattr__``. A name moved out of ``_parameters`` (e.g. by a
        # parametrization) is still found through the attribute.
        p = self._parameters
        w = p["weight"] if "weight" in p else self.weight
        b = p["bias"] if "bias" in p else self.bias
        return F.linear(input, w, b)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name ``MultiheadAttention`` uses for its output projection (PyTorch
    keeps the class for its quantization tooling)."""


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is inferred from the first input's last dimension.

    ``weight`` and ``bias`` are ``UninitializedParameter`` until the first call, which sets
    ``in_features = input.shape[-1]``, creates and initializes them as ``Linear`` does and turns
    the module into a ``Linear``. See ``ember.nn.modules.lazy.LazyModuleMixin``.

    Example:
        >>> m = ember.nn.LazyLinear(30)
        >>> m(ember.randn(128, 20)).shape
        ember.Size([128, 30])
        >>> m
        Linear(in_features=20, out_features=30, bias=True)
    """

    cls_to_become = Linear
    weight: UninitializedParameter
    bias: UninitializedParameter

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        # A bias-less Linear(0, 0) first, so no tensor is made only to be replaced.
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self) -> None:
        # Linear.__init__ calls this before the parameters exist: only initialize real ones.
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        """Set ``in_features`` from ``input.shape[-1]``, then create and initialize
        ``weight`` and ``bias``."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            # Initialized by load_state_dict: the shapes came from the file; check the input.
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]}"
                )
            self.in_features = input.shape[-1]


class Bilinear(Module):
    """``y = x1^T A x2 + b``: inputs ``(*, in1_features)`` and ``(*, in2_features)``, output
    ``(*, out_features)``; ``weight`` is ``(out_features, in1_features, in2_features)`` and
    ``bias`` ``(out_features,)``, both U(-1/sqrt(in1_features), 1/sqrt(in1_features)) as in
    PyTorch.

    Example:
        >>> m = ember.nn.Bilinear(20, 30, 40)
        >>> m(ember.randn(128, 20), ember.randn(128, 30)).shape
        ember.Size([128, 40])
    """

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_bilinear(self.weight, self.bias)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
