"""``HalfCauchy(scale)``: ``|X|`` for a centred Cauchy ``X``."""

from __future__ import annotations

import math

import ember
from ember.distributions.cauchy import Cauchy
from ember.distributions.half_normal import _Folded

__all__ = ["HalfCauchy"]


class HalfCauchy(_Folded):
    """The half-Cauchy distribution: ``|X|`` for ``X ~ Cauchy(0, scale)``.

    Example:
        >>> HalfCauchy(ember.tensor([1.0])).log_prob(ember.tensor([0.0]))
        tensor([-0.4516])
    """

    _base = Cauchy
    _number_values = True

    @property
    def mean(self):
        return ember.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance
