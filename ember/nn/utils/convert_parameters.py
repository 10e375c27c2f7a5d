"""``parameters_to_vector`` and ``vector_to_parameters`` (``torch.nn.utils.convert_parameters``):
a model's parameters as one flat vector and back."""

from __future__ import annotations

from collections.abc import Iterable

import ember
from ember.tensor import Tensor


def _typename(obj) -> str:
    # NOTE: matches torch.typename: a Tensor's type string, else the qualified class name.
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    prefix = "" if module in ("builtins", None) else module + "."
    return prefix + type(obj).__qualname__


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Concatenate the parameters, flattened, into one vector (differentiable, as torch's).

    Example:
        >>> import ember
        >>> lin = ember.nn.Linear(2, 1)
        >>> ember.nn.utils.parameters_to_vector(lin.parameters()).shape
        ember.Size([3])
    """
    return ember.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Set each parameter's data to the next slice of ``vec`` (shared with ``vec``, as torch).

    Example:
        >>> import ember
        >>> a, b = ember.nn.Parameter(ember.zeros(2)), ember.nn.Parameter(ember.zeros(1))
        >>> ember.nn.utils.vector_to_parameters(ember.tensor([1.0, 2.0, 3.0]), [a, b])
        >>> a.tolist(), b.tolist()
        ([1.0, 2.0], [3.0])
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    data = vec._data
    pointer = 0
    for param in parameters:
        n = param._data.size
        chunk = data[pointer : pointer + n]
        if chunk.size != n:
            # NOTE: matches torch: the error of viewing a too-short slice as the parameter
            raise RuntimeError(
                f"shape '{list(param._data.shape)}' is invalid for input of size {chunk.size}"
            )
        # The parameter now views vec's memory: writing to one changes the other, as in torch.
        param._data = chunk.reshape(param._data.shape)
        pointer += n


__all__ = ["parameters_to_vector", "vector_to_parameters"]
