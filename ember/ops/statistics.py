"""Counting and statistics: ``bincount``, ``histc``, ``histogram``, ``histogramdd``,
``quantile``, ``nanquantile``, ``cov`` and ``corrcoef``.

The counts are one ``bincount`` over flat bin numbers (computed by a vectorized
``searchsorted``, or by PyTorch's linear interpolation for ``histc``); they carry no
gradient. ``quantile`` is a sort, two gathers and a ``lerp`` (so its gradient is theirs);
``cov`` and ``corrcoef`` are compositions of sums and one matrix product.
"""

from __future__ import annotations

import math
import warnings

from ember import _autocast as _ac
from ember import _dtype
from ember.ops._dispatch import xp_of
from ember.ops._selection import _return_type
from ember.ops.creation import tensor
from ember.ops.gather_scatter import gather
from ember.ops.pointwise import _name, _out
from ember.ops.sorting import sort
from ember.ops.ternary import lerp
from ember.tensor import Tensor, _wrap, _wrap_dim

# (torch.return_types; ember/return_types.py shows them)
_RETURN_TYPES = {n: _return_type(n, ("hist", "bin_edges")) for n in ("histogram", "histogramdd")}


# ---- bincount --------------------------------------------------------------------------------
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value ``0..max(input)`` occurs in a 1-D non-negative integer tensor (at
    least ``minlength`` bins); with ``weights``, the sum of the weights of each value instead.

    Example:
        >>> ember.bincount(ember.tensor([0, 2, 2, 5]))
        tensor([1, 0, 2, 0, 0, 1])
    """
    a = input._data
    if a.dtype.kind not in "iu":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_name(a.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = xp_of(a)
    if a.ndim != 1 or (a.size and xp.device_type != "meta" and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    w = None
    out_dt = _dtype.int64._np
    if weights is not None:
        w = weights._data
        if w.ndim != 1 or w.shape[0] != a.shape[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        # NOTE: matches torch: float32 weights count in float32, all other weights in float64
        out_dt = w.dtype if w.dtype == _dtype.float32._np else _dtype.float64._np
        w = w.astype(_dtype.float64._np)
    if xp.device_type == "meta":
        raise NotImplementedError("bincount on meta tensors: the output size depends on data")
    counts = xp.bincount(a, w, minlength=minlength)
    return _wrap(counts.astype(out_dt, copy=False))


# ---- histograms ------------------------------------------------------------------------------
def _float_input(t: Tensor, op: str) -> None:
    if not t.is_floating_point():
        raise NotImplementedError(f"\"{op}\" not implemented for '{_name(t._data.dtype)}'")


def _bin_numbers(xp, col, edges, linear: bool):
    """Bin of each value of ``col`` among ``edges`` (-1 outside or NaN); the last bin holds
    its right edge."""
    lo, hi = edges[0], edges[-1]
    nb = edges.shape[0] - 1
    inside = (col >= lo) & (col <= hi)
    if linear:
        # NOTE: matches torch (histc): the bin is interpolated in the input dtype, no search
        with_nan = xp.where(inside, col, lo)
        pos = ((with_nan - lo) * nb / (hi - lo)).astype(xp.int64)
    else:
        pos = xp.searchsorted(edges, col, side="right") - 1
    pos = xp.minimum(pos, nb - 1)
    return xp.where(inside, pos, -1)


def _histogramdd(x, weight, edges_list, linear: bool, density: bool):
    """Counts of the rows of ``x`` (N, D) over the grid of ``edges_list`` (D arrays)."""
    xp = xp_of(x)
    nbins = tuple(e.shape[0] - 1 for e in edges_list)
    if xp.device_type == "meta":
        return xp.empty(nbins, dtype=x.dtype)
    flat = xp.zeros(x.shape[0], dtype=xp.int64)
    keep = xp.ones(x.shape[0], dtype=bool)
    for d, e in enumerate(edges_list):
        pos = _bin_numbers(xp, x[:, d], e, linear)
        keep &= pos >= 0
        flat = flat * nbins[d] + pos
    w = None if weight is None else weight[keep].astype(xp.float64)
    hist = xp.bincount(flat[keep], w, minlength=math.prod(nbins)).astype(x.dtype)
    hist = hist.reshape(nbins)
    if density:
        total = hist.sum()
        for d, e in enumerate(edges_list):
            shape = [1] * len(nbins)
            shape[d] = nbins[d]
            hist = hist / xp.diff(e).reshape(shape)
        hist = hist / total
    return hist


def _edges_from_counts(x, bins, rng, op: str, histc: bool = False):
    """Evenly spaced edges for each column of ``x`` (N, D): from ``rng`` or the data."""
    xp = xp_of(x)
    D = x.shape[1]
    out = []
    for d in range(D):
        b = bins[d]
        if b <= 0:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {b} for dimension {d}"
            )
        if rng is not None:
            lo, hi = float(rng[2 * d]), float(rng[2 * d + 1])
            if lo > hi:
                raise RuntimeError(
                    f"torch.histogramdd: min should not exceed max, but got min {lo:g} max "
                    f"{hi:g} for dimension {d}"
                )
        elif x.shape[0] and xp.device_type != "meta":
            lo, hi = float(x[:, d].min()), float(x[:, d].max())
        else:
            lo, hi = 0.0, 0.0 if histc else 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            where = f"{op}: range of" if histc else f"torch.histogramdd: dimension {d}'s range"
            raise RuntimeError(f"{where} [{lo:g}, {hi:g}] is not finite")
        if lo == hi:
            # NOTE: matches torch: histc widens an empty range by 1, histogram by 0.5
            lo, hi = (lo - 1, hi + 1) if histc else (lo - 0.5, hi + 0.5)
        out.append(_edges(xp, lo, hi, b + 1, x.dtype))
    return out


def _edges(xp, lo: float, hi: float, n: int, npd):
    """``n`` evenly spaced edges from ``lo`` to ``hi`` in dtype ``npd``, rounded as torch's
    ``linspace`` rounds them: the step in ``npd``, each edge one fused multiply-add from the
    nearer end (emulated in a wider type, so the product is exact)."""
    if xp.device_type == "meta":
        return xp.empty((n,), dtype=npd)
    wide = xp.longdouble if npd == xp.float64 else xp.float64
    lo_, hi_ = npd.type(lo), npd.type(hi)
    step = wide((hi_ - lo_) / npd.type(n - 1))
    i = xp.arange(n)
    up = (wide(lo_) + step * i.astype(wide)).astype(npd)
    down = (wide(hi_) - step * (n - 1 - i).astype(wide)).astype(npd)
    return xp.where(i < n // 2, up, down)


def _dev(a) -> str:
    return "meta" if xp_of(a).device_type == "meta" else "cpu"


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *, out=None) -> Tensor:
    """Counts of ``input``'s elements in ``bins`` equal bins over ``[min, max]`` (the data's
    range when both are 0); elements outside are ignored.

    Example:
        >>> ember.histc(ember.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    _float_input(input, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = input._data.reshape(-1, 1)
    # NOTE: matches torch: min == max (the default 0, 0 included) means the data's range
    rng = None if min == max else (min, max)
    edges = _edges_from_counts(x, [bins], rng, "torch.histc", histc=True)
    return _out(_wrap(_histogramdd(x, None, edges, True, False)), out)


def _check_weight(weight, shape, x) -> None:
    if weight is None:
        return
    if tuple(weight.shape) != tuple(shape):
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"{list(x.shape)} and weight with shape {list(weight.shape)}"
        )


def _dd(input: Tensor, bins, rng, weight, density, D: int, x):
    if isinstance(bins, Tensor):
        bins = [bins]
    if isinstance(bins, int):
        bins = [bins] * D
    if all(isinstance(b, Tensor) for b in bins):
        edges = []
        for d, b in enumerate(bins):
            if b._data.dtype != x.dtype:
                raise RuntimeError(
                    "torch.histogramdd: input tensor and bins tensors should have the same "
                    f"dtype, but got input with dtype {_short(x.dtype)} and bins for dimension "
                    f"{d} with dtype {_short(b._data.dtype)}"
                )
            edges.append(b._data)
    else:
        edges = _edges_from_counts(x, [int(b) for b in bins], rng, "torch.histogramdd")
    w = None if weight is None else weight._data.reshape(-1)
    return _histogramdd(x, w, edges, False, density), edges


def _short(npd) -> str:
    return (
        str(_dtype.from_np(npd))
        .split(".")[-1]
        .replace("float32", "float")
        .replace("float64", "double")
    )


def histogram(input: Tensor, bins, *, range=None, weight=None, density: bool = False, out=None):
    """The histogram of ``input``'s elements: ``bins`` equal bins over ``range`` (default the
    data's range), or the bin edges given as a 1-D tensor; returns ``(hist, bin_edges)``.

    Example:
        >>> ember.histogram(ember.tensor([1.0, 2.0, 1.0]), bins=2)
        histogram(hist=tensor([2., 1.]), bin_edges=tensor([1.0000, 1.5000, 2.0000]))
    """
    _float_input(input, "histogramdd")
    x = input._data.reshape(-1, 1)
    _check_weight(weight, input.shape, x)
    hist, edges = _dd(input, bins, range, weight, density, 1, x)
    result = _RETURN_TYPES["histogram"](_wrap(hist), _wrap(edges[0].copy()))
    if out is not None:
        _out(result[0], out[0])
        _out(result[1], out[1])
        return _RETURN_TYPES["histogram"](out[0], out[1])
    return result


def histogramdd(input: Tensor, bins, *, range=None, weight=None, density: bool = False):
    """The D-dimensional histogram of the points in the rows of ``input`` (..., D): ``bins``
    is a count for every dim, a count per dim, or a 1-D edges tensor per dim; returns
    ``(hist, bin_edges)``.

    Example:
        >>> pts = ember.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
        >>> ember.histogramdd(pts, bins=2).hist
        tensor([[0., 1.],
                [1., 1.]])
    """
    _float_input(input, "histogramdd")
    D = input.shape[-1] if input.dim() else 1
    x = input._data.reshape(-1, D)
    _check_weight(weight, input.shape[:-1], input)
    hist, edges = _dd(input, bins, range, weight, density, D, x)
    return _RETURN_TYPES["histogramdd"](_wrap(hist), tuple(_wrap(e.copy()) for e in edges))


# ---- quantile --------------------------------------------------------------------------------
_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, out, op="quantile"):
    if not input.is_floating_point() or input.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    if interpolation not in _INTERP:
        raise RuntimeError(
            f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {q}")
        qt = tensor([float(q)], dtype=input.dtype, device=input.device)
    else:
        if q.dim() > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
        qd = q._data
        if xp_of(qd).device_type != "meta" and qd.size and ((qd < 0).any() or (qd > 1).any()):
            raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
        qt = q.reshape(-1).detach()
    nd = input.dim()
    if dim is None:
        x = input.reshape(-1)
        kept = [1] * nd
    else:
        d = _wrap_dim(dim, nd)
        x = input.movedim(d, -1) if nd else input.reshape(1)
        kept = list(input.shape)
        if nd:
            kept[d] = 1
    s = sort(x, -1).values  # NaN sorts last
    n = s.shape[-1]
    with_nan = s.isnan()
    # the fractional rank of each q in each row: (..., Q)
    if ignore_nan:
        valid = (~with_nan).sum(-1, keepdim=True).to(s.dtype)
        ranks = qt * (valid - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)  # an all-NaN row picks a NaN
    else:
        ranks = (qt * (n - 1)).expand(*s.shape[:-1], qt.shape[0])
        ranks = ranks.masked_fill(with_nan.any(-1, keepdim=True), n - 1)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()  # NOTE: matches torch: halves round to even
    below = ranks.floor().long()
    if interpolation in ("lower", "higher", "nearest"):
        res = gather(s, -1, below)
    else:
        above = ranks.ceil().long().clamp_max(n - 1)
        weights = ranks - below if interpolation == "linear" else ranks * 0 + 0.5
        res = lerp(gather(s, -1, below), gather(s, -1, above), weights)
    # (..., Q) -> (Q, *kept or reduced shape)
    res = res.movedim(-1, 0)
    if keepdim:
        res = res.reshape([res.shape[0]] + kept)
    elif dim is None:
        res = res.reshape(res.shape[0])
    if scalar_q or q.dim() == 0:
        res = res.squeeze(0)
    return _out(res, out)


def quantile(input, q, dim=None, keepdim: bool = False, *, interpolation="linear", out=None):
    """The ``q``-quantiles of ``input`` along ``dim`` (all elements if None), ``q`` a number
    or 1-D tensor in [0, 1] (its values become the first dim); ranks between elements are
    resolved by ``interpolation``. A slice with a NaN gives NaN.

    Example:
        >>> ember.quantile(ember.tensor([1.0, 2.0, 4.0, 8.0]), 0.5)
        tensor(3.)
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(quantile, input, q, dim, keepdim, interpolation=interpolation)
    return _quantile(input, q, dim, keepdim, interpolation, False, out)


def nanquantile(input, q, dim=None, keepdim: bool = False, *, interpolation="linear", out=None):
    """:func:`quantile` ignoring NaNs (a slice of only NaNs gives NaN).

    Example:
        >>> ember.nanquantile(ember.tensor([1.0, float("nan"), 3.0]), 0.5)
        tensor(2.)
    """
    if _ac.on and out is None and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(nanquantile, input, q, dim, keepdim, interpolation=interpolation)
    # NOTE: matches torch: the messages of nanquantile say "quantile()"
    return _quantile(input, q, dim, keepdim, interpolation, True, out)


# ---- cov, corrcoef ---------------------------------------------------------------------------
def cov(input: Tensor, *, correction: int = 1, fweights=None, aweights=None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in the
    columns; a 1-D input is one variable), with frequency and/or importance weights.

    Example:
        >>> ember.cov(ember.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
        tensor([[ 1., -1.],
                [-1.,  1.]])
    """
    if input.dim() > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.dim()} dimensions"
        )
    x = input if input.dim() == 2 else input.reshape(1, -1)
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        _check_cov_weights(fweights, "fweights", n_obs, integral=True)
        w = fweights
    if aweights is not None:
        _check_cov_weights(aweights, "aweights", n_obs, integral=False)
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else tensor(n_obs, device=input.device)
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if _dev(norm._data) != "meta" and float(norm.item()) <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm = norm * 0
    xm = x - avg.unsqueeze(1)
    c = xm.matmul((xm * w if w is not None else xm).t().conj())
    return (c / norm).squeeze()


def _check_cov_weights(w, name: str, n_obs: int, integral: bool) -> None:
    if w.dim() > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w.dim()} dimensions"
        )
    if w.numel() != n_obs:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w.numel()} != {n_obs}"
        )
    kind = w._data.dtype.kind
    if integral and kind not in "iu":
        raise RuntimeError(
            f"cov(): expected fweights to have integral dtype but got fweights with "
            f"{_name(w._data.dtype)} dtype"
        )
    if not integral and kind not in "fc":
        raise RuntimeError(
            f"cov(): expected aweights to have floating point dtype but got aweights with "
            f"{_name(w._data.dtype)} dtype"
        )
    if _dev(w._data) != "meta" and w.numel() and bool((w._data < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def corrcoef(input: Tensor) -> Tensor:
    """The Pearson correlation coefficients of the variables in the rows of ``input``
    (clipped to [-1, 1]).

    Example:
        >>> ember.corrcoef(ember.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]))
        tensor([[ 1.0000, -0.9820],
                [-0.9820,  1.0000]])
    """
    c = cov(input)
    if c.dim() == 0:
        return c / c
    sd = c.diagonal().sqrt()
    c = c / sd.unsqueeze(1)
    c = c / sd.unsqueeze(0)
    if c._data.dtype.kind == "c":  # NOTE: matches torch: each part clipped (clamp refuses complex)
        from ember.ops.complex import complex as _complex

        return _complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


def _bincount_m(self, weights=None, minlength: int = 0):
    return bincount(self, weights, minlength)


def _histc_m(self, bins: int = 100, min: float = 0, max: float = 0):
    return histc(self, bins, min, max)


def _quantile_m(self, q, dim=None, keepdim=False, *, interpolation="linear"):
    return quantile(self, q, dim, keepdim, interpolation=interpolation)


def _nanquantile_m(self, q, dim=None, keepdim=False, *, interpolation="linear"):
    return nanquantile(self, q, dim, keepdim, interpolation=interpolation)


def _cov_m(self, *, correction=1, fweights=None, aweights=None):
    return cov(self, correction=correction, fweights=fweights, aweights=aweights)


__all__ = [
    "bincount",
    "histc",
    "histogram",
    "histogramdd",
    "quantile",
    "nanquantile",
    "cov",
    "corrcoef",
]

Tensor.bincount = _bincount_m
Tensor.histc = _histc_m
Tensor.histogram = histogram
Tensor.quantile = _quantile_m
Tensor.nanquantile = _nanquantile_m
Tensor.cov = _cov_m
Tensor.corrcoef = corrcoef
