"""Versioned default initialization: what a layer's ``reset_parameters()`` draws.

PyTorch's defaults were chosen long ago and kept so that seeds reproduce (``Linear``'s
``kaiming_uniform_(a=sqrt(5))`` is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), narrower than anything
tuned today). ember keeps them as **version 1**, the default forever, so results reproduce;
newer defaults are an explicit opt-in by version number, read when ``reset_parameters()`` runs:

    >>> with ember.nn.init.default_version(2):       # for the layers built inside
    ...     m = ember.nn.Linear(4, 3)
    >>> ember.nn.init.set_default_version(2)         # from now on
    >>> ember.nn.init.set_default_version(1)

The defaults by kind of layer:

- ``linear`` (Linear, Conv*, ConvTranspose*): version 1, ``kaiming_uniform_(a=sqrt(5))`` and
  the bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)); version 2, a truncated normal whose values have
  std 1/sqrt(fan_in) (LeCun normal, as JAX's ``lecun_normal``: a normal of std
  1/(0.8796... * sqrt(fan_in)) cut at 2 of its std, 0.8796 being the std of a standard normal
  truncated to [-2, 2]), and a zero bias.
- ``bilinear`` (Bilinear): version 1, weight and bias U(-1/sqrt(in1), 1/sqrt(in1)); version 2,
  the same truncated normal with fan_in = in1 * in2 (values of std 1/sqrt(in1 * in2)), and a
  zero bias.
- ``embedding`` (Embedding, EmbeddingBag): N(0, 1) with the padding row zeroed, in both.
- ``recurrent`` (RNN, LSTM, GRU and their cells): version 1, every weight and bias
  U(-1/sqrt(hidden), 1/sqrt(hidden)); version 2, each gate's weight block orthogonal, biases
  zero and the LSTM's forget-gate bias 1.
- norms (BatchNorm, LayerNorm...): weight 1 and bias 0 in both (not versioned).

A new version is one more entry in ``_VERSIONS`` (a function per kind); layers never change.
"""

from __future__ import annotations

import contextlib
import math

from ember.autograd.grad_mode import no_grad
from ember.tensor import Tensor

_version = 1


def get_default_version() -> int:
    """The default-initialization version layers use when ``reset_parameters()`` runs (1 is
    PyTorch's defaults; see ``ember.nn._default_init`` for the table).

    Example:
        >>> ember.nn.init.get_default_version()
        1
    """
    return _version


def _check(version) -> int:
    if isinstance(version, bool) or not isinstance(version, int) or version not in _VERSIONS:
        known = ", ".join(str(v) for v in sorted(_VERSIONS))
        raise ValueError(
            f"unknown default-initialization version {version!r}; the known versions are "
            f"{known} (1 is PyTorch's defaults)"
        )
    return version


def set_default_version(version: int) -> None:
    """Make ``version`` the default initialization of every layer built (or reset) from now on.

    Example:
        >>> ember.nn.init.set_default_version(2)
        >>> ember.nn.init.set_default_version(1)
    """
    global _version
    _version = _check(version)


@contextlib.contextmanager
def default_version(version: int):
    """Within the ``with`` block, layers initialize with ``version``; the previous version is
    restored on exit.

    Example:
        >>> with ember.nn.init.default_version(2):
        ...     m = ember.nn.Linear(4, 3)
        >>> float(m.bias.abs().sum())
        0.0
    """
    global _version
    previous, _version = _version, _check(version)
    try:
        yield
    finally:
        _version = previous


# ---- the layers' entry points ------------------------------------------------------------------
def reset_linear(weight: Tensor, bias: Tensor | None) -> None:
    """Default init of Linear, Conv* and ConvTranspose* (fan_in from ``weight``'s shape)."""
    _VERSIONS[_version]["linear"](weight, bias)


def reset_bilinear(weight: Tensor, bias: Tensor | None) -> None:
    """Default init of Bilinear: ``weight`` is (out, in1, in2)."""
    _VERSIONS[_version]["bilinear"](weight, bias)


def reset_embedding(weight: Tensor, padding_idx: int | None) -> None:
    """Default init of Embedding and EmbeddingBag."""
    _VERSIONS[_version]["embedding"](weight, padding_idx)


def reset_recurrent(module) -> None:
    """Default init of RNN/LSTM/GRU and their cells: reads ``module.hidden_size`` and its
    ``weight_*``/``bias_*`` parameters (gates stacked along dim 0 in PyTorch's order, the LSTM's
    forget gate second)."""
    _VERSIONS[_version]["recurrent"](module)


# ---- version 1: PyTorch's defaults ------------------------------------------------------------
def _v1_linear(weight, bias):
    from ember.nn import init

    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


def _v1_bilinear(weight, bias):
    from ember.nn import init

    bound = 1 / math.sqrt(weight.shape[1])
    init.uniform_(weight, -bound, bound)
    if bias is not None:
        init.uniform_(bias, -bound, bound)


def _v1_embedding(weight, padding_idx):
    from ember.nn import init

    init.normal_(weight)
    if padding_idx is not None and not weight.is_meta:
        with no_grad():
            weight[padding_idx].fill_(0)


def _v1_recurrent(module):
    from ember.nn import init

    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for w in module.parameters():
        init.uniform_(w, -stdv, stdv)


# ---- version 2 ---------------------------------------------------------------------------------
# The standard deviation of a standard normal truncated to [-2, 2]: cutting the tails narrows
# the spread, so the underlying normal's std is divided by it to leave the drawn values with
# variance exactly 1/fan_in (JAX's ``variance_scaling(..., "truncated_normal")`` does the same).
_TRUNC_STD = 0.87962566103423978


def _trunc_normal_fan_in(weight, fan_in):
    from ember.nn import init

    std = 1 / (math.sqrt(fan_in) * _TRUNC_STD) if fan_in > 0 else 0.0
    init.trunc_normal_(weight, 0.0, std, -2 * std, 2 * std)


def _v2_linear(weight, bias):
    from ember.nn import init

    fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
    _trunc_normal_fan_in(weight, fan_in)
    if bias is not None:
        init.zeros_(bias)


def _v2_bilinear(weight, bias):
    from ember.nn import init

    _trunc_normal_fan_in(weight, weight.shape[1] * weight.shape[2])
    if bias is not None:
        init.zeros_(bias)


def _v2_recurrent(module):
    from ember.nn import init

    h = module.hidden_size
    lstm = type(module).__name__.startswith("LSTM")
    for name, p in module.named_parameters():
        if name.startswith("weight"):
            # each gate's block (hidden rows, or proj rows for weight_hr) on its own
            rows = h if p.shape[0] % h == 0 and h > 0 else p.shape[0]
            for block in p.split(rows, 0) if rows else ():
                if block.dim() == 2 and block.numel():
                    init.orthogonal_(block)
        else:
            init.zeros_(p)
            # the forget gate's bias: 1 in total (bias_ih carries it, bias_hh stays 0)
            if lstm and name.startswith("bias_ih") and not p.is_meta:
                with no_grad():
                    p[h : 2 * h].fill_(1.0)


_VERSIONS = {
    1: {
        "linear": _v1_linear,
        "bilinear": _v1_bilinear,
        "embedding": _v1_embedding,
        "recurrent": _v1_recurrent,
    },
    2: {
        "linear": _v2_linear,
        "bilinear": _v2_bilinear,
        "embedding": _v1_embedding,
        "recurrent": _v2_recurrent,
    },
}
