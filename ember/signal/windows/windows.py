"""The window functions of ``torch.signal.windows``, computed as torch computes them: a
``linspace`` of sample positions, then one element-wise formula, so values agree to rounding
and ``requires_grad=True`` gives the same (non-leaf) result. ``sym=False`` gives the periodic
window (the first ``M`` points of a symmetric window of length ``M + 1``)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from ember import _dtype, _layout
from ember.ops.creation import arange, empty, linspace, ones, tensor
from ember.tensor import Tensor


def _checks(name: str, M: int, dtype, layout) -> None:
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not _layout.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _start(name, M, dtype, layout, device, requires_grad):
    """Checks; returns the dtype, and the whole result for ``M == 0`` (else None)."""
    dtype = _dtype.get_default_dtype() if dtype is None else dtype
    layout = _layout.strided if layout is None else layout
    _checks(name, M, dtype, layout)
    if M == 0:
        return dtype, empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    return dtype, None


def _period(M: int, sym: bool) -> int:
    # the periodic window is the symmetric one of length M + 1, cut
    return M if not sym and M > 1 else M - 1


def exponential(
    M: int,
    *,
    center: float | None = None,
    tau: float = 1.0,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``.

    Example:
        >>> ember.signal.windows.exponential(3, dtype=ember.float64)
        tensor([0.3679, 1.0000, 0.3679], dtype=ember.float64)
    """
    dtype, done = _start("exponential", M, dtype, layout, device, requires_grad)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if done is not None:
        return done
    if center is None:
        center = _period(M, sym) / 2.0
    c = 1 / tau
    k = linspace(
        -center * c,
        (-center + (M - 1)) * c,
        M,
        dtype=dtype,
        device=device,
        requires_grad=requires_grad,
    )
    return (-k.abs()).exp()


def cosine(
    M: int,
    *,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The cosine (sine) window ``sin(pi (n + 1/2) / M)``.

    Example:
        >>> ember.signal.windows.cosine(3, dtype=ember.float64)
        tensor([0.5000, 1.0000, 0.5000], dtype=ember.float64)
    """
    dtype, done = _start("cosine", M, dtype, layout, device, requires_grad)
    if done is not None:
        return done
    c = math.pi / (M + 1 if not sym and M > 1 else M)
    k = linspace(
        0.5 * c, (0.5 + (M - 1)) * c, M, dtype=dtype, device=device, requires_grad=requires_grad
    )
    return k.sin()


def gaussian(
    M: int,
    *,
    std: float = 1.0,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The Gaussian window ``exp(-(n - (M - 1) / 2)^2 / (2 std^2))``.

    Example:
        >>> ember.signal.windows.gaussian(3, dtype=ember.float64)
        tensor([0.6065, 1.0000, 0.6065], dtype=ember.float64)
    """
    dtype, done = _start("gaussian", M, dtype, layout, device, requires_grad)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if done is not None:
        return done
    start = -_period(M, sym) / 2.0
    c = 1 / (std * math.sqrt(2))
    k = linspace(
        start * c,
        (start + (M - 1)) * c,
        M,
        dtype=dtype,
        device=device,
        requires_grad=requires_grad,
    )
    return (-(k**2)).exp()


def kaiser(
    M: int,
    *,
    beta: float = 12.0,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta)``.

    Example:
        >>> ember.signal.windows.kaiser(3, beta=1.0, dtype=ember.float64)
        tensor([0.7898, 1.0000, 0.7898], dtype=ember.float64)
    """
    dtype, done = _start("kaiser", M, dtype, layout, device, requires_grad)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if done is not None:
        return done
    if M == 1:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    b = tensor(beta, dtype=dtype, device=device)  # in the window's dtype, as torch (no NaNs)
    c = 2.0 * b / (M if not sym else M - 1)
    end = b.minimum(-b + (M - 1) * c)
    # NOTE: matches torch: linspace between the 0-d tensor bounds, computed in the dtype
    k = linspace(-b.item(), end.item(), M, dtype=dtype, device=device, requires_grad=requires_grad)
    return (b * b - k**2).sqrt().i0() / b.i0()


def general_cosine(
    M,
    *,
    a: Iterable,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The generalized cosine window ``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))``.

    Example:
        >>> ember.signal.windows.general_cosine(3, a=[0.5, 0.5], dtype=ember.float64)
        tensor([0., 1., 0.], dtype=ember.float64)
    """
    dtype, done = _start("general_cosine", M, dtype, layout, device, requires_grad)
    if done is not None:
        return done
    if M == 1:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    c = 2 * math.pi / (M if not sym else M - 1)
    k = linspace(0, (M - 1) * c, M, dtype=dtype, device=device, requires_grad=requires_grad)
    a_i = tensor(
        [(-1) ** i * w for i, w in enumerate(a)],
        dtype=dtype,
        device=device,
        requires_grad=requires_grad,
    )
    i = arange(a_i.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (a_i.unsqueeze(-1) * (i.unsqueeze(-1) * k).cos()).sum(0)


def general_hamming(
    M,
    *,
    alpha: float = 0.54,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The generalized Hamming window ``alpha - (1 - alpha) cos(2 pi n / (M - 1))``.

    Example:
        >>> ember.signal.windows.general_hamming(3, alpha=0.5, dtype=ember.float64)
        tensor([0., 1., 0.], dtype=ember.float64)
    """
    return general_cosine(
        M,
        a=[alpha, 1.0 - alpha],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def hann(
    M: int,
    *,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window (``general_hamming`` with ``alpha=0.5``).

    Example:
        >>> ember.signal.windows.hann(3, dtype=ember.float64)
        tensor([0., 1., 0.], dtype=ember.float64)
    """
    return general_hamming(
        M,
        alpha=0.5,
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def hamming(
    M: int,
    *,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hamming window (``general_hamming`` with ``alpha=0.54``).

    Example:
        >>> ember.signal.windows.hamming(3, dtype=ember.float64)
        tensor([0.0800, 1.0000, 0.0800], dtype=ember.float64)
    """
    return general_hamming(
        M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def bartlett(
    M: int,
    *,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The Bartlett (triangular) window ``1 - |2n / (M - 1) - 1|``.

    Example:
        >>> ember.signal.windows.bartlett(5, dtype=ember.float64)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000], dtype=ember.float64)
    """
    dtype, done = _start("bartlett", M, dtype, layout, device, requires_grad)
    if done is not None:
        return done
    if M == 1:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    c = 2 / (M if not sym else M - 1)
    k = linspace(-1, -1 + (M - 1) * c, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return 1 - k.abs()


def nuttall(
    M: int,
    *,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The minimum 4-term Blackman-Harris window of Nuttall.

    Example:
        >>> ember.signal.windows.nuttall(3, dtype=ember.float64)
        tensor([3.6280e-04, 1.0000e+00, 3.6280e-04], dtype=ember.float64)
    """
    return general_cosine(
        M,
        a=[0.3635819, 0.4891775, 0.1365995, 0.0106411],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )


def blackman(
    M: int,
    *,
    sym: bool = True,
    dtype=None,
    layout=_layout.strided,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window (``general_cosine`` with ``a=[0.42, 0.5, 0.08]``).

    Example:
        >>> ember.signal.windows.blackman(3, dtype=ember.float64)
        tensor([-1.3878e-17,  1.0000e+00, -1.3878e-17], dtype=ember.float64)
    """
    dtype = _dtype.get_default_dtype() if dtype is None else dtype
    _checks("blackman", M, dtype, _layout.strided if layout is None else layout)
    return general_cosine(
        M,
        a=[0.42, 0.5, 0.08],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )
