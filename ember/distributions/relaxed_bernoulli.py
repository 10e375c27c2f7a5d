"""``RelaxedBernoulli(temperature, probs=None, logits=None)``: the binary Concrete (Gumbel-
sigmoid) distribution on ``(0, 1)``, and ``LogitRelaxedBernoulli`` on its logit scale."""

from __future__ import annotations

import ember
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
from ember.distributions.transformed_distribution import TransformedDistribution
from ember.distributions.transforms import SigmoidTransform
from ember.distributions.utils import (
    _EMPTY_SIZE,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_or_logits,
    probs_to_logits,
)
from ember.tensor import Size

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a ``RelaxedBernoulli`` sample: ``(logit(U) + logits) / temperature``.

    Example:
        >>> d = LogitRelaxedBernoulli(ember.tensor(0.5), probs=ember.tensor([0.5]))
        >>> d.log_prob(ember.tensor([0.0]))
        tensor([-2.0794])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None) -> None:
        self.temperature = temperature
        batch_shape = probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(LogitRelaxedBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def rsample(self, sample_shape=_EMPTY_SIZE):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(ember.rand(shape, dtype=probs.dtype))
        return (
            uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()
        ) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """The relaxed Bernoulli (binary Concrete) distribution: ``sigmoid`` of a
    ``LogitRelaxedBernoulli``; low ``temperature`` pushes samples towards 0 and 1.

    Example:
        >>> d = RelaxedBernoulli(ember.tensor(0.5), probs=ember.tensor([0.3]))
        >>> d.rsample((4,)).shape
        ember.Size([4, 1])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None) -> None:
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
