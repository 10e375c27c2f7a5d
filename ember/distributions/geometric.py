"""``Geometric(probs=None, logits=None)``: the number of failures before the first success."""

from __future__ import annotations

import ember
from ember.autograd import grad_mode as _gm
from ember.distributions import constraints
from ember.distributions.distribution import Distribution
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

__all__ = ["Geometric"]


class Geometric(Distribution):
    """The geometric distribution on ``{0, 1, 2, ...}`` with success probability ``probs``
    (or ``logits``, exactly one of them).

    Example:
        >>> Geometric(ember.tensor([0.5])).log_prob(ember.tensor([1.0]))
        tensor([-1.3863])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        batch_shape = probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            # probs = 0 is inside unit_interval but has no geometric law
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                invalid = value.detach()[~valid]
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} "
                    f"to be positive but found invalid values:\n{invalid}"
                )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return ember.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=_EMPTY_SIZE):
        shape = self._extended_shape(sample_shape)
        tiny = float(ember.finfo(self.probs.dtype).tiny)
        with _gm.no_grad():
            u = ember.empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # 0 failures at certain success has probability 1: avoid 0 * log(0)
        probs = ember.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return (
            binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
        )
