"""``LinearCrossEntropyOptions`` (PyTorch 2.13's ``linear_cross_entropy_options.py``): the
settings of ``F.linear_cross_entropy``'s chunked computation ((chunk, C) blocks of logits instead
of (N, C), same numbers), with ``"auto"`` resolved as PyTorch does. ``LinearCrossEntropyLoss``
is in ``loss.py``, as in torch: it owns a ``Linear`` (``self.linear``, initialized through
``reset_linear``) whose weight is stored flat, ``(C * prod(out_features), in_features)``.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from ember import _dtype

__all__ = ["LinearCrossEntropyOptions"]

_LOW = tuple(d for d in (_dtype.float16, getattr(_dtype, "bfloat16", None)) if d is not None)
_ACC_DTYPES = (*_LOW, _dtype.float32, _dtype.float64)
# ``"auto"`` resolved per (device type, input dtype), PyTorch's table; other pairs fall back
# to ("compact", "aspect_ratio:2"). On CPU the low-precision types pick "accurate" (float32
# weight-gradient GEMM).
_AUTO_DEFAULTS = {
    **{("cuda", d): ("compact", "aspect_ratio:2") for d in _LOW},
    **{("cpu", d): ("accurate", "aspect_ratio") for d in _LOW},
}
_AUTO_FALLBACK = ("compact", "aspect_ratio:2")


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Settings of the chunked ``F.linear_cross_entropy``: the batch is processed
    ``batch_chunk_size`` rows at a time, so only a (chunk, num_classes) block of logits exists
    at once (worth it when ``num_classes`` is much larger than ``in_features``, e.g. a language
    model's vocabulary head). ``options=None`` selects the one-pass reference computation; both
    give the same numbers.

    Args:
        allow_retain_graph: keep the gradients computed in forward after the first backward
            (``'mean'``/``'sum'``); otherwise they are scaled in place and a second backward
            recomputes them (PyTorch raises there instead).
        batch_chunk_size: rows per block; None: one block, or what ``chunking_method`` says.
        chunking_method: ``"auto"``, ``"aspect_ratio"``, ``"aspect_ratio:N"`` (N >= 1) or None:
            a block's logits sized like the input, divided by N (the chunk size is
            ``next_pow2(ceil(N_batch / ceil(C / in_features))) // N``).
        acc_policy: ``"auto"``, ``"accurate"``, ``"balanced"`` or ``"compact"``: PyTorch's
            precision/memory trade-off for low-precision inputs; ember computes float16 inputs
            in float32 under every policy, so it changes no number here.
        acc_dtype: the compute dtype: None (the input's; float32 for float16 input), or float32
            with float16 input. float64 is accepted for float64 input.

    Example:
        >>> opts = ember.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
        >>> x, w = ember.randn(5, 3), ember.randn(7, 3)
        >>> t = ember.tensor([0, 6, 2, 2, 1])
        >>> a = F.linear_cross_entropy(x, w, t, options=opts)
        >>> bool(ember.allclose(a, F.cross_entropy(F.linear(x, w), t)))
        True
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: _dtype.dtype | None = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            # NOTE: matches torch: a non-string method fails in .partition (AttributeError)
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        # NOTE: matches torch: a bool passes the int check
        if not (
            self.batch_chunk_size is None
            or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)
        ):
            raise ValueError(
                f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}"
            )
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            names = ", ".join(["None"] + [str(d) for d in _ACC_DTYPES])
            raise ValueError(
                f"acc_dtype must be one of {{{names}}}, got {self.acc_dtype!r}. "
                "Pass acc_dtype=None to let the op pick automatically."
            )

    @staticmethod
    def _chunk_size(num_batches: int, in_features: int, num_classes: int, method: str) -> int:
        """The rows per block that ``"aspect_ratio[:N]"`` picks: a (chunk, C) logits block
        about as large as the (N_batch, in_features) input, divided by N."""
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        ratio = -(-num_classes // max(in_features, 1))
        target = -(-num_batches // max(ratio, 1))
        chunk = 1 << max(target - 1, 0).bit_length()  # the next power of 2 >= target
        return min(chunk // factor, num_batches)

    def _adjust(
        self, num_batches: int, in_features: int, num_classes: int, dtype, device=None
    ) -> LinearCrossEntropyOptions:
        """These options with ``"auto"`` and None resolved for one call (PyTorch's rules);
        ``device=None`` takes the fallback pick."""
        acc_policy, method = self.acc_policy, self.chunking_method
        if method == "auto" and self.batch_chunk_size is not None:
            method = None  # an explicit size wins over the automatic method
        if acc_policy == "auto" or method == "auto":
            ap, cm = (
                _AUTO_DEFAULTS.get((device.type, dtype), _AUTO_FALLBACK)
                if device is not None
                else _AUTO_FALLBACK
            )
            acc_policy = ap if acc_policy == "auto" else acc_policy
            method = cm if method == "auto" else method
        size = (
            num_batches
            if self.batch_chunk_size is None
            else min(self.batch_chunk_size, num_batches)
        )
        if method is not None:
            size = self._chunk_size(num_batches, in_features, num_classes, method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                    f"('{method}') give different chunk sizes ({self.batch_chunk_size} vs "
                    f"{size}); pass only one."
                )
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            # "auto" computes low-precision inputs in float32; otherwise the input's dtype
            low = self.acc_policy == "auto" and device is not None and dtype in _LOW
            acc_dtype = _dtype.float32 if low else dtype
        return dataclasses.replace(
            self,
            acc_policy=acc_policy,
            chunking_method=method,
            batch_chunk_size=max(1, size),
            acc_dtype=acc_dtype,
        )
