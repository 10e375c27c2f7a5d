"""``GeneralizedPareto(loc, scale, concentration)``: the peaks-over-threshold law of extreme
value theory."""

from __future__ import annotations

import math
import numbers

import ember
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.utils import _EMPTY_SIZE, _NUMBER, broadcast_all
from ember.tensor import Size

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution; ``concentration`` 0 is the shifted exponential,
    negative values give a bounded support.

    Example:
        >>> d = GeneralizedPareto(ember.tensor([0.0]), ember.tensor([1.0]), ember.tensor([0.0]))
        >>> d.log_prob(ember.tensor([1.0]))
        tensor([-1.])
    """

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, _NUMBER) for v in (loc, scale, concentration)):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_EMPTY_SIZE):
        shape = self._extended_shape(sample_shape)
        u = ember.rand(shape, dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe_concentration(self):
        # concentration ~ 0 takes the exponential limit; elsewhere divide by it.
        # torch compares with a float32 zero, which fails for float64 parameters ("Double did
        # not match Float"); comparing with zeros of the parameters' dtype works for every dtype
        eq_zero = ember.isclose(self.concentration, ember.zeros_like(self.concentration))
        return eq_zero, ember.where(
            eq_zero, ember.ones_like(self.concentration), self.concentration
        )

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        y = 1 / safe_conc + ember.ones_like(z)
        where_nonzero = ember.where(y == 0, y, y * ember.log1p(safe_conc * z))
        log_scale = (
            math.log(self.scale) if isinstance(self.scale, numbers.Real) else self.scale.log()
        )
        return -log_scale - ember.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        """``log(1 - cdf(value))``.

        Example:
            >>> d = GeneralizedPareto(0.0, 1.0, 0.0)
            >>> d.log_survival_function(ember.tensor(2.0))
            tensor(-2.)
        """
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        where_nonzero = -ember.log1p(safe_conc * z) / safe_conc
        return ember.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        """``log(cdf(value))``.

        Example:
            >>> GeneralizedPareto(0.0, 1.0, 0.0).log_cdf(ember.tensor(0.0))
            tensor(-inf)
        """
        return ember.log1p(-ember.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return ember.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero = ember.isclose(self.concentration, ember.zeros_like(self.concentration))
        safe_conc = ember.where(eq_zero, ember.ones_like(self.concentration), self.concentration)
        logu = ember.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * ember.expm1(-safe_conc * logu)
        where_zero = self.loc - self.scale * logu
        return ember.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = ember.where(valid, self.concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return ember.where(valid, result, math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = ember.where(valid, self.concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return ember.where(valid, result, math.nan)

    def entropy(self):
        ans = ember.log(self.scale) + self.concentration + 1
        return ember.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = ember.where(
            self.concentration < 0, lower - self.scale / self.concentration, math.inf
        )
        return constraints.interval(lower, upper)
