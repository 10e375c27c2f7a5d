"""``ember.nn.grad`` (torch's ``torch.nn.grad``): the gradients of a convolution with respect
to its input or its weight, given the gradient of its output.

Each is the backward of ``F.conv{1,2,3}d`` for one operand, computed by differentiating the
convolution (linear in each operand, so the value of the other placeholder operand does not
matter): the same kernels as training uses, and differentiable again when the inputs require
grad, as torch's are.
"""

from __future__ import annotations

__all__ = [
    "conv1d_input",
    "conv1d_weight",
    "conv2d_input",
    "conv2d_weight",
    "conv3d_input",
    "conv3d_weight",
]


def _grad_input(dim, input_size, weight, grad_output, stride, padding, dilation, groups):
    from ember import autograd, zeros
    from ember.autograd import grad_mode
    from ember.nn import functional as F

    size = tuple(input_size)
    if len(size) == dim + 1:  # unbatched sizes name no batch dimension
        size = (1,) + size
    if len(size) != dim + 2:
        raise ValueError(f"input_size must have {dim + 2} elements, got {list(input_size)}")
    conv = getattr(F, f"conv{dim}d")
    create = grad_mode.state.enabled and (weight.requires_grad or grad_output.requires_grad)
    with grad_mode.enable_grad():
        x = zeros(size, dtype=grad_output.dtype, device=grad_output.device, requires_grad=True)
        y = conv(x, weight, None, stride, padding, dilation, groups)
        (g,) = autograd.grad(y, x, grad_output.reshape(y.shape), create_graph=create)
    return g.reshape(tuple(input_size))


def _grad_weight(dim, input, weight_size, grad_output, stride, padding, dilation, groups):
    from ember import autograd, zeros
    from ember.autograd import grad_mode
    from ember.nn import functional as F

    conv = getattr(F, f"conv{dim}d")
    create = grad_mode.state.enabled and (input.requires_grad or grad_output.requires_grad)
    with grad_mode.enable_grad():
        w = zeros(tuple(weight_size), dtype=input.dtype, device=input.device, requires_grad=True)
        y = conv(input, w, None, stride, padding, dilation, groups)
        (g,) = autograd.grad(y, w, grad_output.reshape(y.shape), create_graph=create)
    return g


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d`` with respect to its input, of size ``input_size``.

    Example:
        >>> w, go = ember.ones(1, 1, 3), ember.ones(1, 1, 3)
        >>> ember.nn.grad.conv1d_input((1, 1, 5), w, go)
        tensor([[[1., 2., 3., 2., 1.]]])
    """
    return _grad_input(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv1d`` with respect to its weight, of size ``weight_size``.

    Example:
        >>> x, go = ember.arange(5.0).reshape(1, 1, 5), ember.ones(1, 1, 3)
        >>> ember.nn.grad.conv1d_weight(x, (1, 1, 3), go)
        tensor([[[3., 6., 9.]]])
    """
    return _grad_weight(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d`` with respect to its input, of size ``input_size``.

    Example:
        >>> w, go = ember.ones(1, 1, 2, 2), ember.ones(1, 1, 2, 2)
        >>> ember.nn.grad.conv2d_input((1, 1, 3, 3), w, go)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
    """
    return _grad_input(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv2d`` with respect to its weight, of size ``weight_size``.

    Example:
        >>> x, go = ember.ones(1, 1, 3, 3), ember.ones(1, 1, 2, 2)
        >>> ember.nn.grad.conv2d_weight(x, (1, 1, 2, 2), go)
        tensor([[[[4., 4.],
                  [4., 4.]]]])
    """
    return _grad_weight(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d`` with respect to its input, of size ``input_size``.

    Example:
        >>> w, go = ember.ones(1, 1, 1, 1, 2), ember.ones(1, 1, 1, 1, 2)
        >>> ember.nn.grad.conv3d_input((1, 1, 1, 1, 3), w, go)
        tensor([[[[[1., 2., 1.]]]]])
    """
    return _grad_input(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of ``conv3d`` with respect to its weight, of size ``weight_size``.

    Example:
        >>> x, go = ember.ones(1, 1, 1, 1, 3), ember.ones(1, 1, 1, 1, 2)
        >>> ember.nn.grad.conv3d_weight(x, (1, 1, 1, 1, 2), go)
        tensor([[[[[2., 2.]]]]])
    """
    return _grad_weight(3, input, weight_size, grad_output, stride, padding, dilation, groups)
