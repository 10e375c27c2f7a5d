"""``NegativeBinomial(total_count, probs=None, logits=None)``: successes before a number of
failures, the overdispersed count likelihood (scRNA-seq, click counts)."""

from __future__ import annotations

import ember
from ember.distributions import constraints
from ember.distributions.binomial import _CountDistribution
from ember.distributions.gamma import Gamma
from ember.distributions.utils import (
    _EMPTY_SIZE,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from ember.nn.functional import logsigmoid

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_CountDistribution):
    """The number of successes, each with probability ``probs`` (or log-odds ``logits``), seen
    before ``total_count`` failures; ``total_count`` may be any nonnegative real.

    Example:
        >>> d = NegativeBinomial(ember.tensor([3.0]), probs=ember.tensor([0.25]))
        >>> d.mean, d.log_prob(ember.tensor([1.0]))
        (tensor([1.]), tensor([-1.1507]))
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None) -> None:
        super().__init__(total_count, probs, logits, validate_args)

    @property
    def mean(self):
        return self.total_count * ember.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / ember.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        # the Gamma-Poisson mixture that sampling draws from
        return Gamma(
            concentration=self.total_count, rate=ember.exp(-self.logits), validate_args=False
        )

    def sample(self, sample_shape=_EMPTY_SIZE):
        with ember.no_grad():
            return ember.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(
            self.logits
        )
        log_normalization = (
            -ember.lgamma(self.total_count + value)
            + ember.lgamma(1.0 + value)
            + ember.lgamma(self.total_count)
        )
        # NOTE: matches torch: zero failures and zero successes is certain (lgamma(0) is inf)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized - log_normalization
