"""``Bernoulli(probs=None, logits=None)``: one coin flip with success probability ``probs``."""

from __future__ import annotations

import ember
from ember.autograd import grad_mode as _gm
from ember.distributions import constraints
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import (
    _EMPTY_SIZE,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_or_logits,
    probs_to_logits,
)
from ember.nn.functional import binary_cross_entropy_with_logits
from ember.tensor import Size

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """The Bernoulli distribution, given ``probs`` or ``logits`` (log-odds), not both.

    Example:
        >>> Bernoulli(probs=ember.tensor([0.25])).log_prob(ember.tensor([1.0]))
        tensor([-1.3863])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        batch_shape = probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new_empty(*args, **kwargs)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=_EMPTY_SIZE):
        shape = self._extended_shape(sample_shape)
        with _gm.no_grad():
            return ember.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = ember.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values

    @property
    def _natural_params(self):
        return (ember.logit(self.probs),)

    def _log_normalizer(self, x):
        return ember.log1p(ember.exp(x))
