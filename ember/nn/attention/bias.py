"""Causal attention biases that ``scaled_dot_product_attention`` takes as ``attn_mask``
(PyTorch's ``torch.nn.attention.bias``)."""

from __future__ import annotations

import warnings
from enum import IntEnum, auto

from ember.tensor import Tensor

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(IntEnum):
    """Where a causal bias's triangle is anchored.

    ``UPPER_LEFT``: query i sees keys 0..i (``is_causal=True``). ``LOWER_RIGHT``: the triangle
    is aligned to the bottom-right corner, query i sees keys 0..i + (kv_len - q_len).

    Example:
        >>> from ember.nn.attention.bias import CausalVariant
        >>> int(CausalVariant.LOWER_RIGHT)
        2
    """

    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


class CausalBias(Tensor):
    """A causal mask that ``scaled_dot_product_attention`` applies without being given the
    materialized matrix. Build it with :func:`causal_upper_left` / :func:`causal_lower_right`.

    Example:
        >>> from ember.nn.attention.bias import causal_lower_right
        >>> q = ember.randn(1, 2, 3, 4)
        >>> k = ember.randn(1, 2, 5, 4)
        >>> sdpa = ember.nn.functional.scaled_dot_product_attention
        >>> sdpa(q, k, k, causal_lower_right(3, 5)).shape
        ember.Size([1, 2, 3, 4])
    """

    # NOTE: matches torch: the tensor itself is the legacy ``Tensor(variant, q_len, kv_len)``,
    # a float32 array of that shape whose contents mean nothing; the bias lives in the fields.
    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn(
                "Lower right causal bias will produce NaNs in the output when "
                "seq_len_q > seq_len_kv!",
                stacklevel=2,
            )

    def _materialize(self, device=None) -> Tensor:
        """The bias as a bool ``(seq_len_q, seq_len_kv)`` mask (True = attend)."""
        import ember

        ones = ember.ones(self.seq_len_q, self.seq_len_kv, dtype=ember.bool, device=device)
        if self.variant == CausalVariant.UPPER_LEFT:
            return ember.tril(ones)
        return ember.tril(ones, diagonal=self.seq_len_kv - self.seq_len_q)

    @staticmethod
    def _dispatch(
        query,
        key,
        value,
        attn_mask,
        dropout_p: float = 0.0,
        is_causal: bool = False,
        scale=None,
        enable_gqa: bool = False,
    ):
        """``scaled_dot_product_attention`` with this bias as ``attn_mask``."""
        from ember.nn.attention import SDPAParams, _raise_kernel_warnings
        from ember.nn.functional.attention import scaled_dot_product_attention as sdpa

        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if (
            attn_mask.seq_len_q == attn_mask.seq_len_kv
            or attn_mask.variant == CausalVariant.UPPER_LEFT
        ):
            return sdpa(
                query,
                key,
                value,
                attn_mask=None,
                dropout_p=dropout_p,
                is_causal=True,
                scale=scale,
                enable_gqa=enable_gqa,
            )
        if attn_mask.variant == CausalVariant.LOWER_RIGHT:
            # no fused kernel on CPU: the materialized mask, as torch's fallback
            _raise_kernel_warnings(
                SDPAParams(query, key, value, None, dropout_p, is_causal, enable_gqa)
            )
            return sdpa(
                query,
                key,
                value,
                attn_mask=attn_mask._materialize(query.device),
                dropout_p=dropout_p,
                is_causal=False,
                scale=scale,
                enable_gqa=enable_gqa,
            )
        raise ValueError(
            f"CausalBias.variant must be a CausalVariant type, but found: {attn_mask.variant}"
        )

    # nn.functional.scaled_dot_product_attention hands an attn_mask with this hook to it
    _sdpa_dispatch = _dispatch

    def __repr__(self) -> str:
        return repr(self._materialize())


def causal_upper_left(*size) -> CausalBias:
    """The upper-left causal bias of ``size = (seq_len_q, seq_len_kv)`` (as ``is_causal``).

    Example:
        >>> from ember.nn.attention.bias import causal_upper_left
        >>> causal_upper_left(2, 3)
        tensor([[ True, False, False],
                [ True,  True, False]])
    """
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size) -> CausalBias:
    """The lower-right causal bias of ``size = (seq_len_q, seq_len_kv)``.

    Example:
        >>> from ember.nn.attention.bias import causal_lower_right
        >>> causal_lower_right(2, 3)
        tensor([[ True,  True, False],
                [ True,  True,  True]])
    """
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
