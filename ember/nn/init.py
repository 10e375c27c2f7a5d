"""``ember.nn.init``: fill tensors in place for parameter initialization (``torch.nn.init``).

Every function runs under ``no_grad`` (so it works on Parameters) and returns its tensor. Names,
signatures, defaults, formulas and errors are PyTorch's; as everywhere in ember, the random
numbers are drawn from ember's generators, so they follow the same distributions under the same
seeding semantics but are not PyTorch's numbers. On meta tensors every function checks its
arguments, allocates nothing and returns the tensor.

Example:
    >>> w = ember.empty(3, 5)
    >>> ember.nn.init.kaiming_uniform_(w, a=math.sqrt(5)).shape
    ember.Size([3, 5])
"""

from __future__ import annotations

import math
import warnings

from ember import _dtype, backend
from ember.autograd.grad_mode import no_grad
from ember.ops.creation import empty as _empty
from ember.ops.creation import eye as _eye
from ember.ops.creation import tensor as _tensor
from ember.random import rand as _rand
from ember.tensor import Tensor, _wrap

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
    # ember: versioned default initialization (see ember/nn/_default_init.py)
    "get_default_version",
    "set_default_version",
    "default_version",
    # deprecated aliases, as in PyTorch
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]

_LINEAR_FNS = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


# ---- the no_grad fills (PyTorch keeps these names; other libraries call them) ----------------
def _no_grad_uniform_(tensor: Tensor, a: float, b: float, generator=None) -> Tensor:
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor: Tensor, mean: float, std: float, generator=None) -> Tensor:
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _no_grad_fill_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _no_grad_trunc_normal_(
    tensor: Tensor, mean: float, std: float, a: float, b: float, generator=None
) -> Tensor:
    if tensor.is_meta:
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of "
            "values may be incorrect.",
            UserWarning,
            stacklevel=3,
        )
    with no_grad():
        # Rejection sampling, as PyTorch: normal proposals when [a, b] holds a good share of
        # the mass, else uniform proposals on [a, b] accepted with the normal density relative
        # to its peak on [a, b]. Only the rejected elements are drawn again.
        accept = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if accept > 0.3:
            # bounds in the tensor's dtype, so the test agrees with the values it can hold
            lo = _tensor(a, dtype=tensor.dtype).item()
            hi = _tensor(b, dtype=tensor.dtype).item()
            tensor.normal_(mean, std, generator=generator)
            bad = (tensor < lo) | (tensor > hi)
            while bool(bad.any()):
                redraw = _empty(int(bad.sum()), dtype=tensor.dtype, device=tensor.device)
                tensor[bad] = redraw.normal_(mean, std, generator=generator)
                bad = (tensor < lo) | (tensor > hi)
        else:
            peak = max(a, min(mean, b))  # the density's maximum on [a, b]
            log_peak = -0.5 * ((peak - mean) / std) ** 2
            tensor.uniform_(a, b, generator=generator)
            pending = _rejected(tensor, mean, std, log_peak, generator)
            while bool(pending.any()):
                cand = _empty(int(pending.sum()), dtype=tensor.dtype, device=tensor.device)
                cand.uniform_(a, b, generator=generator)
                tensor[pending] = cand
                pending &= _rejected(tensor, mean, std, log_peak, generator)
        return tensor


def _rejected(x: Tensor, mean: float, std: float, log_peak: float, generator) -> Tensor:
    """Where the uniform proposal ``x`` fails its acceptance test ``log u > log pdf(x) - peak``."""
    log_ratio = ((x - mean) / std).square() * -0.5 - log_peak
    u = _empty(x.shape, dtype=x.dtype, device=x.device).uniform_(generator=generator)
    return u.log() > log_ratio


# ---- gains and fans ---------------------------------------------------------------------------
def calculate_gain(nonlinearity: str, param: int | float | None = None) -> float:
    """The recommended gain for a nonlinearity (its ``nn.functional`` name).

    ``linear``/convolutions/``sigmoid``: 1, ``tanh``: 5/3, ``relu``: sqrt(2), ``leaky_relu``:
    sqrt(2 / (1 + negative_slope**2)) (``param`` is the slope, default 0.01), ``selu``: 3/4.

    Example:
        >>> ember.nn.init.calculate_gain("leaky_relu", 0.2)
        1.3867504905630728
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1  # NOTE: matches torch: an int here
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(size(1) * receptive field, size(0) * receptive field)``, the receptive field being the
    product of the dims after the first two (a Linear weight is ``(fan_out, fan_in)``)."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    shape = tensor.shape
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ---- the public fills -------------------------------------------------------------------------
def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from U(a, b).

    Example:
        >>> w = ember.nn.init.uniform_(ember.empty(3, 5), -1.0, 1.0)
        >>> bool((w.abs() <= 1).all())
        True
    """
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from N(mean, std**2)."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> Tensor:
    """Fill with samples from N(mean, std**2) truncated to [a, b] (values outside are drawn
    again). Warns when ``mean`` is more than 2 std outside [a, b].

    Example:
        >>> w = ember.nn.init.trunc_normal_(ember.empty(100), std=0.02, a=-0.04, b=0.04)
        >>> bool((w.abs() <= 0.04).all())
        True
    """
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    return _no_grad_fill_(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with 1."""
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with 0."""
    return _no_grad_zero_(tensor)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the main diagonal).

    Example:
        >>> ember.nn.init.eye_(ember.empty(2, 3))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: each output channel of a
    group passes one input channel through unchanged (as many as both counts allow).

    Example:
        >>> w = ember.nn.init.dirac_(ember.empty(2, 2, 3))
        >>> w[:, :, 1]
        tensor([[1., 0.],
                [0., 1.]])
    """
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    shape = tensor.shape
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    per_group = shape[0] // groups
    n = min(per_group, shape[1])
    out_idx = [g * per_group + d for g in range(groups) for d in range(n)]
    in_idx = [d for _ in range(groups) for d in range(n)]
    centre = tuple(_tensor([s // 2] * len(out_idx)) for s in shape[2:])
    with no_grad():
        tensor.zero_()
        if out_idx:
            tensor[(_tensor(out_idx), _tensor(in_idx), *centre)] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot uniform: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot normal: N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a, mode, nonlinearity) -> float | None:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """He uniform: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``, ``fan`` the
    ``mode`` fan and ``gain = calculate_gain(nonlinearity, a)``.

    ``nn.Linear``'s default weight init is ``kaiming_uniform_(w, a=math.sqrt(5))``, which is
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)).

    Example:
        >>> w = ember.nn.init.kaiming_uniform_(ember.empty(3, 4), mode="fan_in",
        ...                                    nonlinearity="relu")
        >>> bool((w.abs() <= math.sqrt(6 / 4)).all())
        True
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    with no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """He normal: N(0, std**2) with ``std = gain / sqrt(fan)`` (see ``kaiming_uniform_``)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    with no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain``: the Q of the QR decomposition of a
    Gaussian matrix (signs fixed so that Q is uniformly distributed). Dims after the first are
    flattened; rows are orthonormal when there are fewer rows than columns, else columns.

    Example:
        >>> w = ember.nn.init.orthogonal_(ember.empty(3, 5))
        >>> bool(((w @ w.T) - ember.eye(3)).abs().max() < 1e-5)
        True
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    gauss = _empty(rows, cols, dtype=tensor.dtype, device=tensor.device)
    gauss.normal_(0, 1, generator=generator)
    if gauss._data.dtype.char in "eE":
        raise NotImplementedError(
            f"\"geqrf_cpu\" not implemented for '{_dtype.SCALAR_NAMES[tensor.dtype.name]}': "
            "orthogonal_ needs a float32 or float64 "
            f"tensor (got {tensor.dtype}); initialize a float32 copy and convert it"
        )
    m = gauss._data if rows >= cols else gauss._data.T
    xp = backend.namespace(m)
    q, r = xp.linalg.qr(m)
    q *= xp.sign(xp.diagonal(r))  # Mezzadri's fix: Haar-distributed Q
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.view(rows, cols).copy_(_wrap(q))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Fill a 2-D tensor with N(0, std**2) samples, then zero ``ceil(sparsity * rows)`` random
    entries of each column.

    Example:
        >>> w = ember.nn.init.sparse_(ember.empty(10, 3), sparsity=0.5)
        >>> (w == 0).sum(0).tolist()
        [5, 5, 5]
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if num_zeros and cols:
            # the first num_zeros of a random permutation of the rows, for every column at once.
            # NOTE: differs from torch, which draws the permutations from the default generator
            # even when ``generator`` is given: here they come from ``generator`` too.
            order = _rand(rows, cols, generator=generator).argsort(dim=0)[:num_zeros]
            tensor.scatter_(0, order.to(tensor.device), 0.0)
    return tensor


# ---- deprecated aliases -----------------------------------------------------------------------
def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return meth(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of ``{new_name}``."
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)


from ember.nn._default_init import (  # noqa: E402  (it calls the functions above)
    default_version,
    get_default_version,
    set_default_version,
)
