"""``HalfNormal(scale)``: ``|X|`` for a centred normal ``X``."""

from __future__ import annotations

import math

import ember
from ember.distributions import constraints
from ember.distributions.normal import Normal
from ember.distributions.transformed_distribution import TransformedDistribution
from ember.distributions.transforms import AbsTransform

__all__ = ["HalfNormal"]


class _Folded(TransformedDistribution):
    """``|X|`` for ``X`` from the centred ``_base(0, scale)``: the half-normal and half-Cauchy
    distributions share everything but their moments."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _base = Normal
    _number_values = False  # log_prob converts a number first (HalfCauchy, as torch's)

    def __init__(self, scale, validate_args=None) -> None:
        base_dist = self._base(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    def log_prob(self, value):
        if self._number_values:
            value = ember.as_tensor(value, dtype=self.base_dist.scale.dtype)
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ember.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    """The half-normal distribution: ``|X|`` for ``X ~ Normal(0, scale)``.

    Example:
        >>> HalfNormal(ember.tensor([1.0])).log_prob(ember.tensor([0.0]))
        tensor([-0.2258])
    """

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
