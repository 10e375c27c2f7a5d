"""``Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None)``: the law of
sample scatter matrices, sampled by the Bartlett decomposition."""

from __future__ import annotations

import math
import warnings

import ember
from ember.distributions import constraints
from ember.distributions.chi2 import Chi2
from ember.distributions.distribution import _fmt
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.multivariate_normal import _precision_to_scale_tril
from ember.distributions.utils import _EMPTY_SIZE, _NUMBER, lazy_property
from ember.linalg import cholesky, slogdet, solve_triangular
from ember.tensor import Size

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p: int):
    """The multivariate digamma ``sum_i digamma(x - i / 2)`` over ``i < p``."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    return ember.digamma(
        x.unsqueeze(-1) - ember.arange(p, dtype=x.dtype).div(2).expand(x.shape + (-1,))
    ).sum(-1)


def _cholesky_solve(b, low):
    """``(L L^T)^-1 b`` by two triangular solves."""
    return solve_triangular(low.mT, solve_triangular(low, b, upper=False), upper=True)


class Wishart(ExponentialFamily):
    """The Wishart distribution with ``df`` degrees of freedom and scale matrix given by exactly
    one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``.

    Example:
        >>> Wishart(ember.tensor(4.0), ember.eye(2)).mean
        tensor([[4., 0.],
                [0., 4.]])
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self,
        df,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ) -> None:
        given = [p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None]
        if len(given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        param = given[0]
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, _NUMBER):
            batch_shape = Size(param.shape[:-2])
            self.df = ember.tensor(df, dtype=param.dtype)
        else:
            batch_shape = ember.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if bool(self.df.le(event_shape[-1] - 1).any()):
            raise ValueError(
                f"Value of df={_fmt(df)} expected to be greater than ndim - 1 = "
                f"{event_shape[-1] - 1}."
            )
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        if bool(self.df.lt(event_shape[-1]).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._make_chi2(self.df, batch_shape)

    def _make_chi2(self, df, batch_shape):
        # the squared Bartlett diagonal: chi2(df - i) for row i
        p = self._event_shape[-1]
        offsets = ember.arange(p, dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(df=df.unsqueeze(-1) - offsets.expand(batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        new._event_shape = self.event_shape
        new._dist_chi2 = new._make_chi2(new.df, batch_shape)
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        low = self._unbroadcasted_scale_tril
        return (low @ low.mT).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        low = self._unbroadcasted_scale_tril
        identity = ember.eye(self._event_shape[-1], dtype=low.dtype)
        return _cholesky_solve(identity, low).expand(self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = ember.where(factor <= 0, math.nan, factor)
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        v = self.covariance_matrix
        diag_v = v.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (
            v.pow(2) + diag_v.unsqueeze(-1) * diag_v.unsqueeze(-2)
        )

    def _bartlett_sampling(self, sample_shape=_EMPTY_SIZE):
        p = self._event_shape[-1]
        eps = float(ember.finfo(self.df.dtype).eps)
        diag = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=eps)
        i, j = ember.tril_indices(p, p, offset=-1)
        lower = ember.randn(
            Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,), dtype=diag.dtype
        )
        noise = diag.diag_embed(dim1=-2, dim2=-1)
        noise[..., i, j] = lower
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.mT

    def rsample(self, sample_shape=_EMPTY_SIZE, max_try_correction=None):
        """A Bartlett-decomposition sample; singular ones (possible for small ``df``) are redrawn
        up to ``max_try_correction`` (10) times."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # torch 2.13 inverts this test (it flags the valid samples as singular, warns on every
        # call and redraws them); ember redraws only the truly singular ones
        is_singular = ~self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        if bool(is_singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(sample_shape)
                sample = ember.where(
                    is_singular.view(is_singular.shape + (1,) * (sample.dim() - is_singular.dim())),
                    sample_new,
                    sample,
                )
                is_singular = ~self.support.check(sample)
                if self._batch_shape:
                    is_singular = is_singular.amax(self._batch_dims)
                if not bool(is_singular.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        low = self._unbroadcasted_scale_tril
        return (
            -nu * (p * _LOG_2 / 2 + low.diagonal(dim1=-2, dim2=-1).log().sum(-1))
            - ember.mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * slogdet(value).logabsdet
            - _cholesky_solve(value, low).diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2
        )

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        low = self._unbroadcasted_scale_tril
        return (
            (p + 1) * (p * _LOG_2 / 2 + low.diagonal(dim1=-2, dim2=-1).log().sum(-1))
            + ember.mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-slogdet(-2 * x).logabsdet + _LOG_2 * p) + ember.mvlgamma(
            y + (p + 1) / 2, p=p
        )
