"""FlexAttention in eager form (PyTorch's ``torch.nn.attention.flex_attention``).

torch's eager ``flex_attention`` (without ``torch.compile``) materializes the score matrix and
applies ``score_mod`` and the block mask's ``mask_mod`` to it; ember does the same with its
broadcasting ops. The mods are called once on broadcast index tensors ``b (B,1,1,1)``,
``h (1,H,1,1)``, ``q_idx (1,1,L,1)``, ``kv_idx (1,1,1,S)`` rather than through ``vmap``, which
gives the same values for mods written from elementwise tensor ops and indexing.
"""

from __future__ import annotations

import inspect
import math
import warnings

import ember
from ember.tensor import Tensor

__all__ = [
    "BlockMask",
    "flex_attention",
    "AuxOutput",
    "AuxRequest",
    "FlexKernelOptions",
    "create_block_mask",
    "create_mask",
    "or_masks",
    "and_masks",
    "noop_mask",
]

FlexKernelOptions = dict  # torch's is a TypedDict of kernel tuning knobs (no effect in eager)


class AuxRequest:
    """Which extra outputs :func:`flex_attention` returns: ``lse``, ``max_scores``.

    Example:
        >>> from ember.nn.attention.flex_attention import AuxRequest
        >>> AuxRequest(lse=True)
        AuxRequest(lse=True, max_scores=False)
    """

    def __init__(self, lse: bool = False, max_scores: bool = False) -> None:
        self.lse, self.max_scores = lse, max_scores

    def __repr__(self) -> str:
        return f"AuxRequest(lse={self.lse}, max_scores={self.max_scores})"


class AuxOutput:
    """The extra outputs of :func:`flex_attention` (None where not requested).

    Example:
        >>> from ember.nn.attention.flex_attention import AuxOutput
        >>> AuxOutput().lse is None
        True
    """

    def __init__(self, lse: Tensor | None = None, max_scores: Tensor | None = None) -> None:
        self.lse, self.max_scores = lse, max_scores

    def __repr__(self) -> str:
        return f"AuxOutput(lse={self.lse}, max_scores={self.max_scores})"


def noop_mask(batch: Tensor, head: Tensor, token_q: Tensor, token_kv: Tensor) -> Tensor:
    """The mask_mod that keeps every score.

    Example:
        >>> from ember.nn.attention.flex_attention import noop_mask
        >>> i = ember.tensor(0)
        >>> noop_mask(i, i, i, i)
        tensor(True)
    """
    return batch.new_ones((), dtype=ember.bool)


def _index_grid(B: int, H: int, L: int, S: int, device=None):
    ar = ember.arange
    return (
        ar(B, device=device).view(B, 1, 1, 1),
        ar(H, device=device).view(1, H, 1, 1),
        ar(L, device=device).view(1, 1, L, 1),
        ar(S, device=device).view(1, 1, 1, S),
    )


def and_masks(*mask_mods):
    """A mask_mod that keeps a score where every one of ``mask_mods`` keeps it.

    Example:
        >>> from ember.nn.attention.flex_attention import and_masks, create_mask
        >>> m = and_masks(lambda b, h, q, k: q >= k, lambda b, h, q, k: k > 0)
        >>> create_mask(m, 1, 1, 2, 2)[0, 0]
        tensor([[False, False],
                [False,  True]])
    """
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        result = b.new_ones((), dtype=ember.bool)
        for mod in mask_mods:
            result = result & mod(b, h, q_idx, kv_idx)
        return result

    return and_mask


def or_masks(*mask_mods):
    """A mask_mod that keeps a score where any one of ``mask_mods`` keeps it.

    Example:
        >>> from ember.nn.attention.flex_attention import or_masks, create_mask
        >>> m = or_masks(lambda b, h, q, k: q >= k, lambda b, h, q, k: k == 1)
        >>> create_mask(m, 1, 1, 2, 2)[0, 0]
        tensor([[True, True],
                [True, True]])
    """
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        result = b.new_zeros((), dtype=ember.bool)
        for mod in mask_mods:
            result = result | mod(b, h, q_idx, kv_idx)
        return result

    return or_mask


def _n_args(fn) -> int:
    return len(inspect.signature(fn).parameters)


def create_mask(mod_fn, B: int | None, H: int | None, Q_LEN: int, KV_LEN: int, device=None):
    """The dense bool ``(B, H, Q_LEN, KV_LEN)`` mask of a mask_mod (4 arguments) or of a
    score_mod (5 arguments: True where it does not give -inf). ``B``/``H`` None mean 1.

    Example:
        >>> from ember.nn.attention.flex_attention import create_mask
        >>> create_mask(lambda b, h, q, k: q >= k, None, None, 2, 2)
        tensor([[[[ True, False],
                  [ True,  True]]]])
    """
    B = 1 if B is None else B
    H = 1 if H is None else H
    b, h, q, k = _index_grid(B, H, Q_LEN, KV_LEN, device)
    if _n_args(mod_fn) == 5:
        out = mod_fn(ember.zeros((), device=device), b, h, q, k)
        mask = out != -math.inf
    else:
        mask = mod_fn(b, h, q, k)
    return mask.expand(B, H, Q_LEN, KV_LEN).clone()


class BlockMask:
    """Which ``(q block, kv block)`` tiles of the score matrix take part, and the mask_mod for
    the partly masked ones. Build it with :func:`create_block_mask`.

    Example:
        >>> from ember.nn.attention.flex_attention import create_block_mask
        >>> bm = create_block_mask(lambda b, h, q, k: q >= k, None, None, 8, 8, BLOCK_SIZE=4)
        >>> bm.kv_num_blocks, bm.full_kv_num_blocks
        (tensor([[[1, 1]]], dtype=ember.int32), tensor([[[0, 1]]], dtype=ember.int32))
    """

    def __init__(
        self,
        seq_lengths,
        kv_num_blocks,
        kv_indices,
        full_kv_num_blocks,
        full_kv_indices,
        q_num_blocks=None,
        q_indices=None,
        full_q_num_blocks=None,
        full_q_indices=None,
        BLOCK_SIZE=(128, 128),
        mask_mod=None,
    ) -> None:
        self.seq_lengths = tuple(seq_lengths)
        self.kv_num_blocks, self.kv_indices = kv_num_blocks, kv_indices
        self.full_kv_num_blocks, self.full_kv_indices = full_kv_num_blocks, full_kv_indices
        self.q_num_blocks, self.q_indices = q_num_blocks, q_indices
        self.full_q_num_blocks, self.full_q_indices = full_q_num_blocks, full_q_indices
        self.BLOCK_SIZE = tuple(BLOCK_SIZE)
        self.mask_mod = noop_mask if mask_mod is None else mask_mod

    @property
    def shape(self) -> tuple:
        *batch_dims, _ = self.kv_num_blocks.shape
        return (*batch_dims, *self.seq_lengths)

    def numel(self) -> int:
        return math.prod(self.shape)

    def to_dense(self) -> Tensor:
        """The block-level mask ``(B, H, q blocks, kv blocks)``, int32 (1 = computed)."""
        dense = self._blocks(self.kv_num_blocks, self.kv_indices)
        if self.full_kv_num_blocks is not None:
            dense = dense | self._blocks(self.full_kv_num_blocks, self.full_kv_indices)
        return dense.to(ember.int32)

    def _blocks(self, num, idx) -> Tensor:
        n_kv = idx.shape[-1]
        ranks = ember.arange(n_kv).view(*([1] * (idx.ndim - 1)), n_kv)
        used = ranks < num.unsqueeze(-1)
        out = ember.zeros(idx.shape, dtype=ember.bool)
        return out.scatter(-1, idx.long(), used)

    def sparsity(self) -> float:
        """The percentage of the score matrix the block mask skips."""
        computed = self.kv_num_blocks.sum().item()
        if self.full_kv_num_blocks is not None:
            computed += self.full_kv_num_blocks.sum().item()
        computed *= self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1]
        return 100 * (1 - computed / self.numel())

    def __repr__(self) -> str:
        return f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%)"


def create_block_mask(
    mask_mod,
    B: int | None,
    H: int | None,
    Q_LEN: int,
    KV_LEN: int,
    device=None,
    BLOCK_SIZE: int | tuple[int, int] = 128,
    _compile=False,
    separate_full_blocks: bool = True,
    compute_dq_write_order: bool = False,
    dq_kv_order: bool = True,
) -> BlockMask:
    """The :class:`BlockMask` of ``mask_mod`` over ``(B, H, Q_LEN, KV_LEN)`` (None: 1): tiles
    of ``BLOCK_SIZE`` that are all kept are "full", tiles partly kept run ``mask_mod``.

    Example:
        >>> from ember.nn.attention.flex_attention import create_block_mask
        >>> create_block_mask(lambda b, h, q, k: q >= k, 1, 1, 8, 8, BLOCK_SIZE=4).shape
        (1, 1, 8, 8)
    """
    bq, bk = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
    Bn, Hn = 1 if B is None else B, 1 if H is None else H
    mask = create_mask(mask_mod, Bn, Hn, Q_LEN, KV_LEN, device)
    nq, nk = -(-Q_LEN // bq), -(-KV_LEN // bk)
    padded = ember.nn.functional.pad(mask, (0, nk * bk - KV_LEN, 0, nq * bq - Q_LEN))
    tiles = padded.view(Bn, Hn, nq, bq, nk, bk)
    any_ = tiles.any(5).any(3)
    # NOTE: matches torch: a tile is full only if every padded position is kept too
    all_ = tiles.all(5).all(3)
    partial = any_ & ~all_ if separate_full_blocks else any_

    def counts_indices(blocks):
        num = blocks.sum(-1).to(ember.int32)
        idx = ember.argsort(blocks.to(ember.int32), dim=-1, descending=True, stable=True)
        return num, idx.to(ember.int32)

    kv_num, kv_idx = counts_indices(partial)
    full_num = full_idx = None
    if separate_full_blocks:
        full_num, full_idx = counts_indices(all_)
    return BlockMask(
        (Q_LEN, KV_LEN), kv_num, kv_idx, full_num, full_idx, BLOCK_SIZE=(bq, bk),
        mask_mod=mask_mod,
    )  # fmt: skip


_EAGER_WARNING = (
    "flex_attention called without torch.compile() - this will use an unfused implementation "
    "that materializes the full scores matrix instead of generating a fused kernel."
)

_warned = [False]


def flex_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    score_mod=None,
    block_mask: BlockMask | None = None,
    scale: float | None = None,
    enable_gqa: bool = False,
    return_lse: bool = False,
    kernel_options=None,
    *,
    return_aux: AuxRequest | None = None,
):
    """Attention with a user ``score_mod(score, b, h, q_idx, kv_idx)`` applied to the scaled
    scores and a ``block_mask`` (its ``mask_mod`` and skipped tiles give -inf). Queries with
    no kept key give zeros (and -inf log-sum-exp). Eager: warns as torch does without compile.

    Shapes: query ``(B, Hq, L, E)``, key ``(B, Hkv, S, E)``, value ``(B, Hkv, S, Ev)``.

    Example:
        >>> import warnings
        >>> from ember.nn.attention.flex_attention import flex_attention
        >>> q = ember.randn(1, 2, 4, 8)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     flex_attention(q, q, q, score_mod=lambda s, b, h, qi, ki: s + (qi - ki)).shape
        ember.Size([1, 2, 4, 8])
    """
    if return_lse:
        warnings.warn(
            "return_lse is deprecated and will be removed in v2.10. Please use "
            "return_aux=AuxRequest(lse=True) instead.",
            FutureWarning,
            stacklevel=2,
        )
    if not _warned[0]:
        # NOTE: matches torch: the eager-mode warning comes once per process
        _warned[0] = True
        warnings.warn(_EAGER_WARNING, UserWarning, stacklevel=2)
    B, Hq, L, E = query.shape
    Hkv, S = key.shape[1], key.shape[2]
    if Hq != Hkv:
        if not enable_gqa:
            raise ValueError(
                f"Expect query and key/value to have the same number of heads but got Hq={Hq} "
                f"and Hkv={Hkv}. Try setting enable_gqa=True for GQA."
            )
        if Hq % Hkv:
            raise ValueError(
                f"Expect number of query heads to be a multiple of kv heads for GQA but got "
                f"Hq={Hq} and Hkv={Hkv}."
            )
        key = key.repeat_interleave(Hq // Hkv, dim=1)
        value = value.repeat_interleave(Hq // Hkv, dim=1)
    if scale is None:
        scale = 1.0 / math.sqrt(E)
    scores = (query @ key.mT) * scale
    b, h, qi, ki = _index_grid(B, Hq, L, S, query.device)
    if score_mod is not None:
        scores = score_mod(scores, b, h, qi, ki)
    if block_mask is not None:
        keep = block_mask.mask_mod(b, h, qi, ki)
        bq, bk = block_mask.BLOCK_SIZE
        tiles = block_mask.to_dense().bool()
        tiles = tiles.repeat_interleave(bq, dim=-2)[..., :L, :]
        tiles = tiles.repeat_interleave(bk, dim=-1)[..., :S]
        scores = scores.masked_fill(~(keep & tiles), -math.inf)
    lse = scores.logsumexp(-1, keepdim=True)
    dead = lse == -math.inf
    weights = (scores - lse.masked_fill(dead, 0.0)).exp()
    out = (weights @ value).to(query.dtype)
    want_lse = return_lse or (return_aux is not None and return_aux.lse)
    if return_aux is not None:
        aux = AuxOutput(
            lse=lse.squeeze(-1) if return_aux.lse else None,
            max_scores=scores.amax(-1) if return_aux.max_scores else None,
        )
        return out, aux
    if want_lse:
        return out, lse.squeeze(-1)
    return out
