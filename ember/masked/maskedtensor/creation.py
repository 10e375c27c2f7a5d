"""Constructors of MaskedTensor (PyTorch's ``torch.masked.maskedtensor.creation``)."""

from __future__ import annotations

import warnings

from ember.masked.maskedtensor.core import _PROTOTYPE, MaskedTensor

__all__ = ["as_masked_tensor", "masked_tensor"]


def masked_tensor(data, mask, requires_grad: bool = False) -> MaskedTensor:
    """A MaskedTensor holding a copy of ``data`` (a new leaf when ``requires_grad``).

    Example:
        >>> import warnings
        >>> warnings.simplefilter("ignore", UserWarning)
        >>> ember.masked.masked_tensor(ember.tensor([1.0, 2.0]), ember.tensor([True, False]))
        MaskedTensor(
          [  1.0000,       --]
        )
    """
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask) -> MaskedTensor:
    """A MaskedTensor over ``data`` itself: differentiable, gradients flow back into ``data``.

    Example:
        >>> import warnings
        >>> warnings.simplefilter("ignore", UserWarning)
        >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
        >>> ember.masked.as_masked_tensor(x, ember.tensor([True, False])).sum().backward()
        >>> x.grad
        tensor([1., 0.])
    """
    warnings.warn(_PROTOTYPE, UserWarning, stacklevel=2)
    return MaskedTensor._from_values(data, mask)
