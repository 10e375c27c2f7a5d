"""``VonMises(loc, concentration)``: the circular normal distribution on ``[-pi, pi)``."""

from __future__ import annotations

import math

import ember
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.utils import _EMPTY_SIZE, broadcast_all, lazy_property
from ember.ops._dispatch import xp_of
from ember.random._helpers import _gen
from ember.tensor import Size, _wrap

__all__ = ["VonMises"]

# NOTE: matches torch: log I0 and log I1 use the polynomial approximations of Abramowitz and
# Stegun (9.8.1-9.8.4, relative error ~1e-7) rather than exact Bessel functions, so that
# log_prob and variance give torch's numbers
_I0_SMALL = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2)
_I0_LARGE = (
    0.39894228,
    0.1328592e-1,
    0.225319e-2,
    -0.157565e-2,
    0.916281e-2,
    -0.2057706e-1,
    0.2635537e-1,
    -0.1647633e-1,
    0.392377e-2,
)
_I1_SMALL = (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3)
_I1_LARGE = (
    0.39894228,
    -0.3988024e-1,
    -0.362018e-2,
    0.163801e-2,
    -0.1031555e-1,
    0.2282967e-1,
    -0.2895312e-1,
    0.1787654e-1,
    -0.420059e-2,
)


def _eval_poly(y, coef):
    # Horner's rule from the highest coefficient down
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    """``log I_order(x)`` for ``x > 0`` and order 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = (x / 3.75) ** 2
    small = _eval_poly(y, _I0_SMALL if order == 0 else _I1_SMALL)
    if order == 1:
        small = x.abs() * small
    small = small.log()
    y = 3.75 / x
    large = x - 0.5 * x.log() + _eval_poly(y, _I0_LARGE if order == 0 else _I1_LARGE).log()
    return ember.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, shape):
    """Best and Fisher's (1979) rejection sampler, on float64 arrays, vectorized over all
    draws: each round redraws only the still-rejected ones."""
    xp = xp_of(loc)
    rng = _gen(None)._rng
    # flat views: every draw is independent, so work on 1-d arrays and reshape at the end
    loc = xp.broadcast_to(loc, shape).reshape(-1)
    conc = xp.broadcast_to(concentration, shape).reshape(-1)
    r = xp.broadcast_to(proposal_r, shape).reshape(-1)
    x = xp.empty(loc.shape, dtype=xp.float64)
    todo = xp.arange(loc.size)
    while todo.size:
        u1, u2, u3 = rng.random((3, todo.size))
        ri, ci = r[todo], conc[todo]
        z = xp.cos(math.pi * u1)
        f = (1 + ri * z) / (ri + z)
        c = ci * (ri - f)
        with xp.errstate(divide="ignore", invalid="ignore"):
            accept = ((c * (2 - c) - u2) > 0) | ((xp.log(c / u2) + 1 - c) >= 0)
        vals = xp.sign(u3 - 0.5) * xp.arccos(xp.clip(f, -1.0, 1.0))
        x[todo[accept]] = vals[accept]
        todo = todo[~accept]
    x = ((x + math.pi + loc) % (2 * math.pi) - math.pi).reshape(shape)
    return x


class VonMises(Distribution):
    """The von Mises distribution on the circle with mean direction ``loc`` and concentration
    ``concentration``; mean and variance are the circular ones.

    Example:
        >>> VonMises(ember.tensor([0.0]), ember.tensor([1.0])).log_prob(ember.tensor([0.0]))
        tensor([-1.0738])
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * ember.cos(value - self.loc)
        return (
            log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)
        )

    @lazy_property
    def _loc(self):
        return self.loc.to(ember.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(ember.double)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho**2) / (2 * rho)
        # second-order Taylor expansion for tiny kappa, where the closed form cancels
        return ember.where(kappa < 1e-5, 1 / kappa + kappa, proposal_r)

    def sample(self, sample_shape=_EMPTY_SIZE):
        # always in float64: the sampler can hang for small concentrations in float32
        shape = tuple(self._extended_shape(sample_shape))
        x = _rejection_sample(
            self._loc.detach()._data,
            self._concentration.detach()._data,
            self._proposal_r.detach()._data,
            shape,
        )
        return _wrap(x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (
            1
            - (
                _log_modified_bessel_fn(self.concentration, order=1)
                - _log_modified_bessel_fn(self.concentration, order=0)
            ).exp()
        )
