"""Random ops with tensor inputs: ``normal``, ``bernoulli``, ``poisson`` and ``multinomial``,
and the zero-gradient ``Function`` nodes they (and the in-place fills) record."""

from __future__ import annotations

import math

from ember import backend
from ember.autograd.function import Function
from ember.ops.creation import _finish, _shape, zeros_like
from ember.ops.pointwise import _out
from ember.random._helpers import (
    _F64,
    _I64,
    _SCALAR_NAME,
    _acc,
    _check_float,
    _cpu,
    _empty,
    _g,
    _gen,
    _int,
    _num,
    _std_normal,
)
from ember.random.creation import _creation, _out_dtype
from ember.tensor import Tensor


# ---- ops with tensor inputs: zero-gradient nodes, as in PyTorch --------------------------------
class _Sample(Function):
    """Forward ``draw(*arrays)``; backward zero for every tensor input (a random sample does not
    depend differentiably on its parameters in PyTorch's convention)."""

    _array_forward = True

    @staticmethod
    def forward(ctx, *args):
        *arrays, draw = args
        return draw(*arrays)

    @staticmethod
    def backward(ctx, g):
        return (*(zeros_like(g) if need else None for need in ctx.needs_input_grad[:-1]), None)


def _sample_fn(node_name: str):
    return type(node_name.replace("Backward", ""), (_Sample,), {"_node_name": node_name})


_NormalTF = _sample_fn("NormalBackward1")  # normal(Tensor mean, float std)
_NormalFT = _sample_fn("NormalBackward2")  # normal(float mean, Tensor std)
_NormalTT = _sample_fn("NormalBackward3")  # normal(Tensor mean, Tensor std)
_Bernoulli = _sample_fn("BernoulliBackward0")
_Poisson = _sample_fn("PoissonBackward0")


def _is_meta(a) -> bool:
    return backend.namespace(a).device_type == "meta"


def _broadcast_shape(a, b) -> tuple:
    sa, sb = tuple(a), tuple(b)
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    out = []
    for i, (x, y) in enumerate(zip(sa, sb, strict=True)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
        out.append(y if x == 1 else x)
    return tuple(out)


def normal(
    mean,
    std=1.0,
    size=None,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
) -> Tensor:
    """Samples from N(mean, std**2): ``mean``/``std`` tensors (broadcast together) or numbers
    with an explicit ``size``.

    Example:
        >>> ember.normal(ember.zeros(3), 1.0).shape
        ember.Size([3])
        >>> ember.normal(2.0, 0.5, (2, 2)).shape
        ember.Size([2, 2])
    """
    gen = _gen(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError(
                "normal() with a number mean and a number std needs a size: normal(mean, std, size)"
            )
        m, s = _num(mean, "mean", "normal"), _num(std, "std", "normal")
        if not s >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(s)}")
        shape = _shape((size,))
        npd = _out_dtype(dtype, out)
        _check_float(npd, "normal_kernel_cpu")
        return _creation(
            shape,
            npd,
            device,
            requires_grad,
            lambda rng, sh, d: _std_normal(rng, sh, d) * _acc(d).type(s) + _acc(d).type(m),
            out,
            gen,
        )
    if size is not None:
        raise TypeError("normal() with a tensor mean or std takes no size argument")
    if mt and not st:
        s = _num(std, "std", "normal")
        if not s >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(s)}")
        npd = mean._data.dtype
        _check_float(npd, "normal_kernel_cpu")

        def draw(m):
            if _is_meta(m):
                return _empty(backend.namespace(m), m.shape, npd)
            z = _std_normal(gen._rng, m.shape, npd) * _acc(npd).type(s) + m
            return z.astype(npd, copy=False)

        return _out(_NormalTF.apply(mean, draw), out)
    if st and not mt:
        m = _num(mean, "mean", "normal")
        npd = std._data.dtype
        _check_float(npd, "normal_kernel_cpu")
        _check_std(std)

        def draw(s):
            if _is_meta(s):
                return _empty(backend.namespace(s), s.shape, npd)
            z = _std_normal(gen._rng, s.shape, npd) * s + _acc(npd).type(m)
            return z.astype(npd, copy=False)

        return _out(_NormalFT.apply(std, draw), out)
    npd = mean._data.dtype
    _check_float(npd, "normal_kernel_cpu")
    shape = _broadcast_shape(mean.shape, std.shape)
    _check_std(std)

    def draw(m, s):
        xp = backend.namespace(m)
        if xp.device_type == "meta" or _is_meta(s):
            return _empty(xp, shape, npd)
        z = _std_normal(gen._rng, shape, npd) * s.astype(npd, copy=False) + m
        return z.astype(npd, copy=False)

    return _out(_NormalTT.apply(mean, std, draw), out)


def _check_std(std: Tensor) -> None:
    if not std.is_meta and std.numel() and not bool((std._data >= 0).all()):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _check_p(p: Tensor) -> None:
    if p.is_meta or not p.numel():
        return
    d = p._data
    if not bool(((d >= 0) & (d <= 1)).all()):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false. (bernoulli: every "
            f"probability must be in [0, 1]; got a {p.dtype} tensor of shape {tuple(p.shape)} "
            "with values outside)"
        )


def _check_p_float(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 samples: ``bernoulli(probs)`` draws each element with probability ``probs[i]``;
    ``bernoulli(x, p)`` fills the shape and dtype of ``x`` with probability ``p``.

    Example:
        >>> ember.bernoulli(ember.tensor([0.0, 1.0]))
        tensor([0., 1.])
    """
    gen = _gen(generator)
    if p is not None:
        # NOTE: differs from torch, whose result here requires grad with a node that raises in
        # backward: ember returns a plain tensor.
        p = _num(p, "p", "bernoulli")
        _check_p_float(p)
        npd = input._data.dtype
        return _out(
            _creation(
                tuple(input._data.shape),
                npd,
                input.device,
                False,
                lambda rng, s, d: rng.random(s) < p,
                generator=gen,
            ),
            out,
        )
    npd = input._data.dtype
    _check_float(npd, "bernoulli_tensor_cpu_p_")
    _check_p(input)

    def draw(pr):
        if _is_meta(pr):
            return _empty(backend.namespace(pr), pr.shape, npd)
        return (gen._rng.random(pr.shape) < pr).astype(npd)

    return _out(_Bernoulli.apply(input, draw), out)


def poisson(input: Tensor, generator=None) -> Tensor:
    """Samples from Poisson(rate) for each element of ``input`` (rates >= 0), same dtype.

    Example:
        >>> ember.poisson(ember.zeros(2))
        tensor([0., 0.])
    """
    gen = _gen(generator)
    npd = input._data.dtype
    _check_float(npd, "poisson_cpu")
    if not input.is_meta and input.numel() and not bool((input._data >= 0).all()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")

    def draw(lam):
        if _is_meta(lam):
            return _empty(backend.namespace(lam), lam.shape, npd)
        try:
            return gen._rng.poisson(lam.astype(_F64)).astype(npd)
        except ValueError as e:  # NumPy's limit on the rate (about 1e19) or an infinite rate
            raise RuntimeError(f"poisson: invalid rate ({e})") from None

    return _Poisson.apply(input, draw)


def multinomial(
    input: Tensor, num_samples: int, replacement: bool = False, *, generator=None, out=None
) -> Tensor:
    """Indices sampled from the categorical distribution of each row of ``input`` (weights,
    not necessarily normalized); 1-D or 2-D input, int64 output of shape ``(..., num_samples)``.

    Without replacement each index appears at most once per row.

    Example:
        >>> ember.multinomial(ember.tensor([0.0, 1.0, 0.0]), 2, replacement=True)
        tensor([1, 1])
    """
    gen = _gen(generator)
    d = input._data
    if d.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim (multinomial got shape {tuple(d.shape)})")
    if d.dtype.kind not in "fV":
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: "
            f"{_SCALAR_NAME[d.dtype.name]}"
        )
    n = _int(num_samples, "num_samples", "multinomial")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    k = d.shape[-1]
    if not replacement and n > k:
        raise RuntimeError(
            f"cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"(n_sample={n}, prob_dist.size(-1)={k})"
        )
    xp = backend.namespace(d)
    out_shape = (*d.shape[:-1], n)
    if xp.device_type == "meta":
        return _out(_finish(_empty(xp, out_shape, _I64), False), out)
    rows = math.prod(d.shape[:-1])
    p = xp.to_numpy(d).reshape(rows, k).astype(_F64)
    if rows:
        if not bool((_cpu.isfinite(p) & (p >= 0)).all()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if not bool((p.sum(axis=1) > 0).all()):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = gen._rng
    if rows == 0:
        idx = _cpu.empty((0, n), dtype=_I64)
    elif replacement:
        idx = _sample_with_replacement(rng, p, n)
    else:
        # NOTE: matches torch's CPU algorithm (exponential race / Gumbel top-k): the n largest
        # p / q with q ~ Exp(1) are a draw without replacement.
        q = rng.standard_exponential(p.shape)
        q[q == 0] = _cpu.finfo(_F64).tiny
        keys = p / q
        idx = _cpu.argsort(-keys, axis=1, kind="stable")[:, :n].astype(_I64)
    return _out(_finish(xp.asarray(idx.reshape(out_shape)), False), out)


def _sample_with_replacement(rng, p, n):
    """Inverse-CDF sampling of every row at once: rows are laid end to end on [0, rows)."""
    rows, k = p.shape
    cdf = _cpu.cumsum(p / p.max(axis=1, keepdims=True), axis=1)  # scaled: no overflow to inf
    cdf /= cdf[:, -1:]
    offsets = _cpu.arange(rows, dtype=_F64)[:, None]
    u = rng.random((rows, n)) + offsets
    idx = _cpu.searchsorted((cdf + offsets).reshape(-1), u.reshape(-1), side="right")
    idx = idx.reshape(rows, n) - _cpu.arange(rows)[:, None] * k
    # u + offset can round up to the next row's start; no draw can land past the row's last
    # nonzero category, so clamp there (zero-probability categories are never chosen).
    last = k - 1 - _cpu.argmax(p[:, ::-1] > 0, axis=1)
    return _cpu.clip(idx, 0, last[:, None]).astype(_I64)


Tensor.bernoulli = bernoulli
Tensor.multinomial = multinomial
