"""``MultiheadAttention`` (PyTorch keeps it in ``torch/nn/modules/activation.py``; ember gives
attention its own file)."""

from __future__ import annotations

from ember.nn import init
from ember.nn.functional import attention as _fa
from ember.nn.modules.linear import NonDynamicallyQuantizableLinear
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.ops.creation import empty
from ember.tensor import Tensor

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of size ``embed_dim // num_heads`` each:
    ``softmax(q k^T / sqrt(head_dim) + mask) v`` per head, heads concatenated and projected.

    Inputs are ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or unbatched ``(L, E)``;
    key and value may have other sizes ``kdim``/``vdim``, in which case the projections are the
    separate ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight`` instead of the packed
    ``in_proj_weight`` ``(3 * embed_dim, embed_dim)``. ``add_bias_kv`` appends learned
    ``bias_k``/``bias_v`` to the keys and values, ``add_zero_attn`` a zero key and value.
    Initialization is PyTorch's: Xavier-uniform projections, zero biases, Xavier-normal
    ``bias_k``/``bias_v``.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(output, weights)``; masks mark with
    True (or -inf) what is *not* attended. See
    ``ember.nn.functional.multi_head_attention_forward``.

    Example:
        >>> mha = ember.nn.MultiheadAttention(16, 4, batch_first=True)
        >>> x = ember.randn(2, 5, 16)
        >>> out, weights = mha(x, x, x)
        >>> out.shape, weights.shape
        (ember.Size([2, 5, 16]), ember.Size([2, 5, 5]))
    """

    __constants__ = ["batch_first"]
    bias_k: Tensor | None
    bias_v: Tensor | None

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory_kwargs))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory_kwargs))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory_kwargs))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory_kwargs))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory_kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(
            embed_dim, embed_dim, bias=bias, **factory_kwargs
        )
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory_kwargs))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory_kwargs))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    # NOTE: matches torch: the method is ``_reset_parameters`` (MultiheadAttention has no public
    # ``reset_parameters``, so loops that call it on every module leave attention alone)
    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def __setstate__(self, state) -> None:
        # modules pickled before kdim/vdim existed had packed weights
        state.setdefault("_qkv_same_embed_dim", True)
        super().__setstate__(state)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        key_padding_mask = _fa._canonical_mask(
            key_padding_mask,
            "key_padding_mask",
            _fa._none_or_dtype(attn_mask),
            "attn_mask",
            query.dtype,
        )
        attn_mask = _fa._canonical_mask(
            attn_mask, "attn_mask", None, "", query.dtype, check_other=False
        )
        p = self._parameters
        separate = not self._qkv_same_embed_dim
        # batch_first inputs are attended as (N, L, E) directly (PyTorch transposes them to
        # (L, N, E) and back; the numbers are the same)
        return _fa._mha(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            p["in_proj_weight"],
            p["in_proj_bias"],
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            self.training,
            key_padding_mask,
            need_weights,
            attn_mask,
            separate,
            p["q_proj_weight"],
            p["k_proj_weight"],
            p["v_proj_weight"],
            None,
            None,
            average_attn_weights,
            is_causal,
            self.batch_first and query.dim() == 3,
        )
