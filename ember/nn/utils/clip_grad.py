"""Gradient clipping (``torch.nn.utils.clip_grad``): ``clip_grad_norm_``, ``clip_grad_value_``,
``get_total_norm``, ``clip_grads_with_norm_``.

The total norm is torch's: the p-norm of the vector of per-tensor p-norms (so ``norm_type=0``
counts the tensors holding a nonzero, and the rounding is torch's). Each per-tensor norm is one
NumPy reduction on the raw gradient (a BLAS dot for the 2-norm); scaling and clamping write into
the gradients in place. Nothing is recorded by autograd.
"""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable

import ember
from ember.ops._dispatch import xp_of
from ember.tensor import Tensor, _wrap

_INF = math.inf


def _empty_norm_error(p: float, foreach: bool | None) -> RuntimeError:
    # NOTE: matches torch: the +inf norm of an empty tensor goes through _foreach_norm unless
    # foreach=False; the negative orders always through linalg.vector_norm.
    if p == _INF and foreach is not False:
        return RuntimeError(
            "_foreach_norm cannot compute the infinity norm on an empty tensor "
            "because the operation does not have an identity"
        )
    return RuntimeError(
        f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor "
        "because the operation does not have an identity"
    )


def _vector_norm(xp, a, p: float, foreach: bool | None = None):
    """The p-norm of a raw array, as a NumPy scalar of its dtype; one reduction."""
    if p == 2.0:
        flat = a.reshape(-1)
        return xp.sqrt(flat.dot(flat))  # one BLAS dot, no temporary
    if a.size == 0 and (p < 0 or p == _INF):
        raise _empty_norm_error(p, foreach)
    if p == _INF:
        return xp.maximum(a.max(), -a.min())  # no |a| temporary; nan propagates
    if p == -_INF:
        return xp.abs(a).min()
    if p == 1.0:
        return xp.abs(a).sum()
    if p == 0.0:
        # the number of nonzero entries, in the norm's dtype
        return a.dtype.type(xp.count_nonzero(a))
    return xp.power(xp.power(xp.abs(a), p).sum(), 1.0 / p)


def get_total_norm(
    tensors: Tensor | Iterable[Tensor],
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The p-norm of ``tensors`` taken together (the norm of their norms).

    Args:
        tensors: a Tensor or an iterable of Tensors (usually gradients).
        norm_type: the order p (``inf``/``"inf"``, ``-inf``, 0 and fractional p included).
        error_if_nonfinite: raise if the total norm is nan or infinite.
        foreach: accepted for torch compatibility (the computation is the same).

    Returns:
        A 0-d tensor; ``tensor(0.)`` for no tensors.

    Example:
        >>> import ember
        >>> ember.nn.utils.get_total_norm([ember.tensor([3.0, 4.0]), ember.tensor([12.0])])
        tensor(13.)
    """
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    p = float(norm_type)
    if not tensors:
        return ember.tensor(0.0)
    arrays = [t._data for t in tensors]
    xp = xp_of(arrays[0])
    with xp.errstate(all="ignore"):  # inf and nan norms are results here, not warnings
        norms = [_vector_norm(xp, a, p, foreach) for a in arrays]
        total = _vector_norm(xp, xp.array(norms), p)
    if error_if_nonfinite and not xp.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {p} for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite "
            "norm anyway, set `error_if_nonfinite=False`"
        )
    return _wrap(xp.asarray(total))


def clip_grads_with_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    total_norm: Tensor | float,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients in place by ``min(max_norm / (total_norm + 1e-6), 1)``.

    Args:
        parameters: a Tensor or an iterable of Tensors whose ``.grad`` is scaled.
        max_norm: the largest norm allowed.
        total_norm: the gradients' total norm (from ``get_total_norm``).
        foreach: accepted for torch compatibility.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.zeros(2)); w.grad = ember.tensor([3.0, 4.0])
        >>> ember.nn.utils.clip_grads_with_norm_([w], 1.0, ember.tensor(10.0)); w.grad
        tensor([0.3000, 0.4000])
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p._grad for p in parameters if p._grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    # Deliberate difference: a Python number is accepted for total_norm (torch fails in clamp).
    total = total_norm._data[()] if isinstance(total_norm, Tensor) else float(total_norm)
    xp = xp_of(grads[0]._data)
    with xp.errstate(all="ignore"):
        # NOTE: matches torch: the coefficient is computed in the norm's dtype and clamped
        # (nan stays nan, so a nan norm makes nan gradients).
        coef = xp.minimum(max_norm / (total + 1e-6), 1.0)
        if coef == 1.0:
            return  # multiplying by one changes nothing
        for g in grads:
            data = g._data
            # NOTE: matches torch: the 0-d coefficient does not promote the gradient's dtype.
            xp.multiply(data, data.dtype.type(coef), out=data)
            g._vc[0] += 1


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients in place so their total norm is at most ``max_norm``.

    The total norm is the norm of the per-gradient norms (parameters without a gradient are
    skipped); each gradient is multiplied by ``min(max_norm / (total_norm + 1e-6), 1)``.

    Args:
        parameters: a Tensor or an iterable of Tensors (read once: a generator works).
        max_norm: the largest total norm allowed.
        norm_type: the order p of the norm (``inf`` for the largest entry).
        error_if_nonfinite: raise a RuntimeError if the total norm is nan or infinite.
        foreach: accepted for torch compatibility.

    Returns:
        The total norm before clipping, a 0-d tensor.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.zeros(2)); w.grad = ember.tensor([3.0, 4.0])
        >>> ember.nn.utils.clip_grad_norm_([w], max_norm=1.0)
        tensor(5.)
        >>> w.grad
        tensor([0.6000, 0.8000])
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2
            )
    grads = [p._grad for p in parameters if p._grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Deprecated alias of :func:`clip_grad_norm_` (warns with a FutureWarning, as torch).

    Example:
        >>> import ember, warnings
        >>> w = ember.nn.Parameter(ember.zeros(2)); w.grad = ember.tensor([3.0, 4.0])
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ember.nn.utils.clip_grad_norm([w], 1.0)
        tensor(5.)
    """
    # NOTE: matches torch: deprecated with a FutureWarning (the names are ember's).
    warnings.warn(
        "`ember.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`ember.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient entry into ``[-clip_value, clip_value]``, in place.

    Args:
        parameters: a Tensor or an iterable of Tensors (read once).
        clip_value: the largest magnitude allowed.
        foreach: accepted for torch compatibility.

    Example:
        >>> import ember
        >>> w = ember.nn.Parameter(ember.zeros(3)); w.grad = ember.tensor([-3.0, 0.5, 2.0])
        >>> ember.nn.utils.clip_grad_value_([w], 1.0); w.grad
        tensor([-1.0000,  0.5000,  1.0000])
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        g = p._grad
        if g is None:
            continue
        data = g._data
        xp = xp_of(data)
        # NOTE: matches torch: clip is min(max(x, -c), c), so nan stays nan and a negative
        # clip_value leaves every entry at clip_value (one SIMD pass, 5x faster than the pair).
        xp.clip(data, -clip_value, clip_value, out=data)
        g._vc[0] += 1


__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]
