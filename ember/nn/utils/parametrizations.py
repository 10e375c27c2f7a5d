"""Parametrizations built on ``parametrize`` (PyTorch's ``torch.nn.utils.parametrizations``):
``orthogonal``, ``weight_norm`` and ``spectral_norm``."""

from __future__ import annotations

from enum import Enum, auto

import ember
import ember.nn.functional as F
from ember.nn.modules.module import Module
from ember.nn.utils import parametrize
from ember.tensor import Tensor

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.size(-2), q.size(-1)
    eye = ember.eye(k, dtype=q.dtype, device=q.device)
    eps = 10.0 * n * ember.finfo(q.dtype).eps
    return ember.allclose(q.mH @ q, eye, atol=eps)


def _make_orthogonal(a: Tensor) -> Tensor:
    # Q of the QR decomposition with the signs fixed so that R has a positive diagonal
    x, tau = ember.geqrf(a)
    q = ember.linalg.householder_product(x, tau)
    q *= x.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization=True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x: Tensor) -> Tensor:
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # a skew-symmetric (skew-Hermitian) matrix from the lower triangle
            x = x.tril()
            if n != k:
                x = ember.cat([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], dim=-1)
            a = x - x.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = ember.matrix_exp(a)
            else:
                eye = ember.eye(n, dtype=a.dtype, device=a.device)
                q = ember.linalg.solve(ember.add(eye, a, alpha=-0.5), ember.add(eye, a, alpha=0.5))
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = ember.linalg.householder_product(a, tau)
            # NOTE: matches torch: the diagonal's integer part (+-1 after right_inverse) flips
            # the columns' signs
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if "base" in self._buffers:
            q = self.base @ q
        if transposed:
            q = q.mT
        return q

    @ember.no_grad()
    def right_inverse(self, q: Tensor) -> Tensor:
        if q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. "
                f"Got a tensor of shape {q.shape}."
            )
        q_init = q
        n, k = q.size(-2), q.size(-1)
        transpose = n < k
        if transpose:
            q = q.mT
            n, k = k, n
        if "base" not in self._buffers:
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential "
                    "or the Cayley parametrizations when use_trivialization=False."
                )
            a, tau = ember.geqrf(q)
            # the diagonal of a stores the signs of the reflectors (-1 where tau is 0)
            diag = a.diagonal(dim1=-2, dim2=-1)
            diag.sign_()
            diag[tau == 0.0] *= -1
            return a.mT if transpose else a
        if n == k:
            q = _make_orthogonal(q) if not _is_orthogonal(q) else q.clone()
        else:
            # complete the n x k frame to an orthogonal n x n base with random columns
            extra = ember.randn(*(q.size()[:-2] + (n, n - k)), dtype=q.dtype, device=q.device)
            q = _make_orthogonal(ember.cat([q, extra], dim=-1))
        self.base = q
        # the original that maps to `base` itself: -I (householder's diagonal gives -1)
        neg_id = ember.zeros_like(q_init)
        neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_id


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: str | None = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Constrain ``module.<name>`` to orthogonal (unitary) matrices.

    Args:
        module: the module.
        name: the matrix (or batch of matrices) to constrain.
        orthogonal_map: ``"matrix_exp"``, ``"cayley"`` or ``"householder"``; by default
            ``"matrix_exp"`` for square or complex matrices, else ``"householder"``.
        use_trivialization: keep a ``base`` buffer the map is applied relative to.

    Returns:
        ``module``, parametrized.

    Example:
        >>> m = orthogonal(ember.nn.Linear(4, 3))
        >>> bool(ember.allclose(m.weight @ m.weight.T, ember.eye(3), atol=1e-5))
        True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


def _weight_norm_fn(v: Tensor, g: Tensor, dim: int) -> Tensor:
    # w = g * v / ||v||, the norm over every dimension but `dim` (all of them for dim=-1)
    return v * (g / ember.norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm_fn(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor):
        return ember.norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (magnitude ``original0``,
    direction ``original1``).

    State dicts saved with the older hook-based ``nn.utils.weight_norm`` (keys ``<name>_g``,
    ``<name>_v``) load into the parametrized module.

    Args:
        module: the module.
        name: the parameter.
        dim: the dimension kept by the norm (``None``: one norm over the whole tensor).

    Returns:
        ``module``, parametrized.

    Example:
        >>> m = weight_norm(ember.nn.Linear(4, 3))
        >>> m.parametrizations.weight.original0.shape
        ember.Size([3, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(
        state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # NOTE: matches torch: 15 power iterations at registration
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    @ember.no_grad()
    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # u, v updated in place (out=): the buffers keep their identity, as in torch
        for _ in range(n_power_iterations):
            self._u = F.normalize(ember.mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
            self._v = F.normalize(ember.mv(weight_mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: the next power iteration writes the buffers in place, which would
        # invalidate the graph of sigma
        u = self._u.clone()
        v = self._v.clone()
        sigma = ember.vdot(u, ember.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration
    (buffers ``_u``, ``_v`` of the parametrization, updated in training mode).

    Args:
        module: the module.
        name: the weight.
        n_power_iterations: power iterations per forward in training mode.
        eps: the normalization's epsilon.
        dim: the output dimension (default 1 for ``ConvTranspose*``, else 0).

    Returns:
        ``module``, parametrized.

    Example:
        >>> m = spectral_norm(ember.nn.Linear(5, 4))
        >>> sorted(m.parametrizations.weight[0]._buffers)
        ['_u', '_v']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        nn = ember.nn
        transposed = (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
