"""``torch.special``: special functions, by torch's names.

Most are ``ember.ops.special``'s (Bessel functions, ``erfcx``, ``ndtri``, ``zeta``, the
orthogonal polynomials...); the rest are torch's aliases of ops that ``ember`` already has
(``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi`` is ``digamma``, ``gammainc`` is
``igamma``, ``multigammaln`` is ``mvlgamma``...).

Example:
    >>> import ember
    >>> ember.special.expit(ember.tensor([0.0]))
    tensor([0.5000])
"""

from ember._dtype import from_np as _dt
from ember.ops import rounding as _rounding
from ember.ops._elementwise import _TORCH_NAME, _check
from ember.ops.binary_math import xlogy
from ember.ops.math import erf, erfc, erfinv, exp2, expm1, log1p, logit
from ember.ops.math import sigmoid as expit
from ember.ops.reduction import logsumexp
from ember.ops.softmax import log_softmax, softmax
from ember.ops.special import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    entr,
    erfcx,
    hermite_polynomial_h,
    hermite_polynomial_he,
    i0,
    i0e,
    i1,
    i1e,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    log_ndtr,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    ndtr,
    ndtri,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
    sinc,
    spherical_bessel_j0,
    xlog1py,
    zeta,
)
from ember.ops.special_gamma import digamma, polygamma
from ember.ops.special_gamma import digamma as psi
from ember.ops.special_gamma import igamma as gammainc
from ember.ops.special_gamma import igammac as gammaincc
from ember.ops.special_gamma import lgamma as gammaln
from ember.ops.special_gamma import mvlgamma as multigammaln


def round(input, *, decimals: int = 0, out=None):  # noqa: A001  (torch's name)
    """``ember.round`` for floating tensors: unlike ``torch.round``, ``torch.special.round``
    refuses integer and bool tensors.

    Example:
        >>> ember.special.round(ember.tensor([0.5, 1.5, 1.26]), decimals=1)
        tensor([0.5000, 1.5000, 1.3000])
    """
    d = _check(input, "round")._data.dtype
    if d.kind in "iub":
        # NOTE: matches torch: the special alias reaches torch's float kernels directly
        kernel = "round_cpu" if decimals else "round_vml_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_TORCH_NAME[_dt(d).name]}'")
    return _rounding.round(input, decimals=decimals, out=out)


__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]

from ember import _unsupported  # noqa: E402


def __getattr__(name: str):
    # Runs only on a miss, so existing names cost nothing: a torch name ember deliberately
    # lacks answers with its reason (ember/_unsupported.py).
    return _unsupported.module_getattr(__name__, name)
