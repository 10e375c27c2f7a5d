"""InstanceNorm1d/2d/3d and their Lazy forms (PyTorch's ``torch.nn.modules.instancenorm``)."""

from __future__ import annotations

import warnings

from ember.nn import functional as F
from ember.nn.modules.batchnorm import _LazyNormBase, _NormBase
from ember.tensor import Tensor

__all__ = [
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class _InstanceNorm(_NormBase):
    """Instance normalization: as ``_NormBase``, but ``affine`` and ``track_running_stats``
    default to False, and an input without a batch dim is accepted."""

    _no_batch_dim = 0  # the rank of an unbatched input

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features,
            eps,
            momentum,
            affine,
            track_running_stats,
            device=device,
            dtype=dtype,
            bias=bias,
        )

    def _check_input_dim(self, input: Tensor) -> None:
        nd = self._no_batch_dim
        if input.dim() not in (nd, nd + 1):
            raise ValueError(f"expected {nd}D or {nd + 1}D input (got {input.dim()}D input)")

    def _get_no_batch_dim(self) -> int:
        return self._no_batch_dim

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        version = local_metadata.get("version", None)
        # NOTE: matches torch: a state_dict without a version (before 0.4) may carry running
        # statistics an untracked instance norm does not have: report and drop them
        if version is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var") if prefix + n in state_dict]
            if keys:
                klass = type(self).__name__
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    f"0.4.0, this may be expected because {klass} does not track running stats "
                    "by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True "
                    f"in {klass} to enable them. See the documentation of {klass} for details."
                )
                for k in keys:
                    state_dict.pop(k)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.size(feature_dim)}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                "silence this warning by not passing in num_features, which is not used "
                "because affine=False",
                stacklevel=2,
            )
        if input.dim() == self._get_no_batch_dim():
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Normalize each channel of each sample of ``(N, C, L)`` or ``(C, L)`` inputs over ``L``.
    No affine parameters and no running statistics unless asked for.

    Example:
        >>> m = ember.nn.InstanceNorm1d(100)
        >>> m(ember.randn(20, 100, 40)).shape
        ember.Size([20, 100, 40])
        >>> m.affine, m.track_running_stats
        (False, False)
    """

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` or ``(C, H, W)`` inputs (see
    ``InstanceNorm1d``).

    Example:
        >>> ember.nn.InstanceNorm2d(3, affine=True)(ember.randn(2, 3, 8, 8)).shape
        ember.Size([2, 3, 8, 8])
    """

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs (see
    ``InstanceNorm1d``).

    Example:
        >>> ember.nn.InstanceNorm3d(3)(ember.randn(2, 3, 4, 4, 4)).shape
        ember.Size([2, 3, 4, 4, 4])
    """

    _no_batch_dim = 4


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An ``InstanceNorm1d`` whose ``num_features`` is inferred from ``input.size(1)``.

    Example:
        >>> m = ember.nn.LazyInstanceNorm1d(affine=True)
        >>> m(ember.randn(2, 5, 6)).shape
        ember.Size([2, 5, 6])
        >>> m.weight.shape
        ember.Size([5])
    """

    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An ``InstanceNorm2d`` whose ``num_features`` is inferred from ``input.size(1)``.

    Example:
        >>> ember.nn.LazyInstanceNorm2d()(ember.randn(2, 5, 3, 3)).shape
        ember.Size([2, 5, 3, 3])
    """

    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An ``InstanceNorm3d`` whose ``num_features`` is inferred from ``input.size(1)``.

    Example:
        >>> ember.nn.LazyInstanceNorm3d()(ember.randn(2, 5, 3, 3, 3)).shape
        ember.Size([2, 5, 3, 3, 3])
    """

    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4
