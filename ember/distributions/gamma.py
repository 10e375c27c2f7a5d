"""``Gamma(concentration, rate)``, with reparameterized samples through the implicit gradient
of the Gamma CDF."""

from __future__ import annotations

import ember
from ember.autograd.function import Function
from ember.distributions import constraints
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.utils import _EMPTY_SIZE, _NUMBER, broadcast_all
from ember.ops._dispatch import xp_of
from ember.random._helpers import _gen
from ember.tensor import Size, _wrap

__all__ = ["Gamma"]


class _StandardGamma(Function):
    """A draw ``x ~ Gamma(alpha, 1)`` per element of ``alpha``; its gradient is the implicit
    reparameterization ``dx/dalpha = -(dF/dalpha) / (dF/dx)`` at the drawn value (``F`` the
    CDF), so that ``x`` moves with ``alpha`` at a fixed quantile."""

    _array_forward = True
    _node_name = "StandardGammaBackward0"

    @staticmethod
    def forward(ctx, alpha):
        xp = xp_of(alpha)
        x = _gen(None)._rng.standard_gamma(alpha.astype(xp.float64))
        x = xp.asarray(x)  # a 0-d alpha gives a Python float
        x = x.astype(alpha.dtype, copy=False)
        # small alphas underflow to 0; keep samples inside the support's interior
        x = xp.maximum(x, xp.finfo(alpha.dtype).tiny)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, g):
        alpha, x = ctx.saved_tensors
        return g * _wrap(xp_of(x._data).standard_gamma_grad(alpha._data, x._data))


def _standard_gamma(concentration):
    return _StandardGamma.apply(concentration)


class Gamma(ExponentialFamily):
    """The Gamma distribution with shape ``concentration`` and inverse scale ``rate``.

    Example:
        >>> Gamma(ember.tensor([2.0]), ember.tensor([4.0])).mean
        tensor([0.5000])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, _NUMBER) and isinstance(rate, _NUMBER):
            batch_shape = Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=_EMPTY_SIZE):
        shape = self._extended_shape(sample_shape)
        return _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            ember.xlogy(self.concentration, self.rate)
            + ember.xlogy(self.concentration - 1, value)
            - self.rate * value
            - ember.lgamma(self.concentration)
        )

    def entropy(self):
        return (
            self.concentration
            - ember.log(self.rate)
            + ember.lgamma(self.concentration)
            + (1.0 - self.concentration) * ember.digamma(self.concentration)
        )

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return ember.lgamma(x + 1) + (x + 1) * ember.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ember.igamma(self.concentration, self.rate * value)
