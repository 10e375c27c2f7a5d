"""``Multinomial(total_count=1, probs=None, logits=None)``: counts of ``total_count`` categorical
draws."""

from __future__ import annotations

import ember
from ember.distributions import constraints
from ember.distributions.binomial import Binomial
from ember.distributions.categorical import Categorical
from ember.distributions.distribution import Distribution
from ember.distributions.utils import _EMPTY_SIZE, broadcast_all
from ember.ops._dispatch import xp_of
from ember.random._helpers import _gen
from ember.tensor import Size, _wrap

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The multinomial distribution: how often each of ``K`` categories (``probs`` or
    ``logits`` over the last dimension) comes up in ``total_count`` draws.

    Example:
        >>> d = Multinomial(2, probs=ember.tensor([0.5, 0.5]))
        >>> d.log_prob(ember.tensor([1.0, 1.0]))
        tensor(-0.6931)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape=_EMPTY_SIZE):
        # one batched multinomial draw per row of probabilities (the counts' law is the same as
        # counting total_count categorical draws)
        shape = self._extended_shape(sample_shape)
        p = self.probs.detach()._data
        xp = xp_of(p)
        p = p.astype(xp.float64)
        p = xp.broadcast_to(p / p.sum(-1, keepdims=True), shape)
        counts = _gen(None)._rng.multinomial(self.total_count, p)
        return _wrap(xp.ascontiguousarray(counts.astype(self.probs._data.dtype)))

    def entropy(self):
        n = ember.tensor(self.total_count)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - ember.lgamma(n + 1)
        binomial = Binomial(total_count=self.total_count, probs=self.probs)
        support = binomial.enumerate_support(expand=False)[1:]
        binomial_probs = ember.exp(binomial.log_prob(support))
        weights = ember.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = ember.lgamma(value.sum(-1) + 1)
        log_factorial_xs = ember.lgamma(value + 1).sum(-1)
        # zero counts of impossible (-inf logit) categories contribute 0, not nan
        logits = ember.where((value == 0) & (logits == -float("inf")), 0.0, logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
