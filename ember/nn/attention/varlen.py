"""Variable-length (packed) attention (PyTorch's ``torch.nn.attention.varlen``).

torch runs it only on its CUDA flash kernel; on CPU both functions raise
``NotImplementedError``, and so do ember's.
"""

from __future__ import annotations

__all__ = ["varlen_attn", "varlen_attn_out", "AuxRequest"]


class AuxRequest:
    """Which extra outputs ``varlen_attn`` should return (``lse``: the log-sum-exp).

    Example:
        >>> from ember.nn.attention.varlen import AuxRequest
        >>> AuxRequest(lse=True)
        AuxRequest(lse=True)
    """

    def __init__(self, lse: bool = False) -> None:
        self.lse = lse

    def __repr__(self) -> str:
        return f"AuxRequest(lse={self.lse})"

    def __eq__(self, other) -> bool:
        return type(other) is AuxRequest and other.lse == self.lse

    __hash__ = None


def _no_cpu_kernel():
    # NOTE: matches torch: its flash-attention op has no CPU kernel
    raise NotImplementedError(
        "Could not run 'aten::_flash_attention_forward' with arguments from the 'CPU' backend. "
        "This could be because the operator doesn't exist for this backend, or was omitted "
        "during the selective/custom build process (if using custom build)."
    )


def varlen_attn(
    query,
    key,
    value,
    cu_seq_q,
    cu_seq_k,
    max_q: int,
    max_k: int,
    *,
    return_aux: AuxRequest | None = None,
    scale: float | None = None,
    window_size: tuple[int, int] = (-1, -1),
    enable_gqa: bool = False,
    seqused_k=None,
    block_table=None,
    num_splits: int | None = None,
):
    """Attention over sequences packed along dim 0 (``cu_seq_*`` their offsets). CUDA only:
    raises ``NotImplementedError`` on CPU, as torch does.

    Example:
        >>> from ember.nn.attention.varlen import varlen_attn
        >>> q = ember.randn(6, 2, 4)
        >>> cu = ember.tensor([0, 2, 6], dtype=ember.int32)
        >>> varlen_attn(q, q, q, cu, cu, 4, 4)
        Traceback (most recent call last):
        NotImplementedError: Could not run 'aten::_flash_attention_forward' ...
    """
    _no_cpu_kernel()


def varlen_attn_out(
    out,
    query,
    key,
    value,
    cu_seq_q,
    cu_seq_k,
    max_q: int,
    max_k: int,
    *,
    return_aux: AuxRequest | None = None,
    scale: float | None = None,
    window_size: tuple[int, int] = (-1, -1),
    enable_gqa: bool = False,
    seqused_k=None,
    block_table=None,
    num_splits: int | None = None,
):
    """:func:`varlen_attn` writing into ``out``. CUDA only: raises on CPU, as torch does.

    Example:
        >>> from ember.nn.attention.varlen import varlen_attn_out
        >>> q = ember.randn(6, 2, 4)
        >>> cu = ember.tensor([0, 2, 6], dtype=ember.int32)
        >>> varlen_attn_out(ember.empty(6, 2, 4), q, q, q, cu, cu, 4, 4)
        Traceback (most recent call last):
        NotImplementedError: Could not run 'aten::_flash_attention_forward' ...
    """
    _no_cpu_kernel()
