"""``Transformer``, its encoder and decoder stacks and layers (PyTorch's
``torch.nn.modules.transformer``).

The layers are compositions of ``MultiheadAttention``, ``Linear``, ``LayerNorm`` and
``Dropout`` with PyTorch's attribute names (``self_attn``, ``linear1``, ``norm1``,
``dropout1``...), so a PyTorch ``state_dict`` loads as is. PyTorch's inference fast paths
(nested tensors, fused encoder kernels) compute the same numbers as its regular path, except
that the nested path returns zeros at padded positions; ember has the regular path only and
zeroes those positions where PyTorch would take the nested path.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ember._autocast import is_autocast_enabled as _is_autocast_enabled
from ember.autograd import grad_mode as _gm
from ember.nn import functional as F
from ember.nn import init
from ember.nn.functional import attention as _fa
from ember.nn.modules.attention import MultiheadAttention
from ember.nn.modules.container import ModuleList
from ember.nn.modules.dropout import Dropout
from ember.nn.modules.linear import Linear
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import LayerNorm
from ember.ops.creation import full
from ember.ops.diagonal import triu
from ember.tensor import Tensor

__all__ = [
    "Transformer",
    "TransformerEncoder",
    "TransformerDecoder",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
]


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src: Tensor, batch_first: bool) -> int:
    if src.dim() == 2:
        return src.size(0)
    return src.size(1 if batch_first else 0)


def _detect_is_causal_mask(
    mask: Tensor | None, is_causal: bool | None = None, size: int | None = None
) -> bool:
    """``is_causal`` when given; else whether ``mask`` is exactly the causal float mask."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        if mask.size() == causal.size():
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class Transformer(Module):
    """The encoder-decoder transformer of "Attention Is All You Need": an encoder stack of
    ``num_encoder_layers`` ``TransformerEncoderLayer`` and a decoder stack of
    ``num_decoder_layers`` ``TransformerDecoderLayer``, each followed by a ``LayerNorm``
    (``custom_encoder``/``custom_decoder`` replace them). Every parameter with more than one
    dimension is re-initialized Xavier-uniform, as PyTorch does.

    ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    src_is_causal=None, tgt_is_causal=None, memory_is_causal=False)``: src ``(S, N, E)``, tgt
    ``(T, N, E)`` (batch first with ``batch_first``), output ``(T, N, E)``.

    Example:
        >>> model = ember.nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1,
        ...                              num_decoder_layers=1, dim_feedforward=32)
        >>> src, tgt = ember.randn(7, 3, 16), ember.randn(5, 3, 16)
        >>> mask = ember.nn.Transformer.generate_square_subsequent_mask(5)
        >>> model(src, tgt, tgt_mask=mask).shape
        ember.Size([5, 3, 16])
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu,
        custom_encoder: Any | None = None,
        custom_decoder: Any | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(
                d_model,
                nhead,
                dim_feedforward,
                dropout,
                activation,
                layer_norm_eps,
                batch_first,
                norm_first,
                bias,
                **factory_kwargs,
            )
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(
                d_model,
                nhead,
                dim_feedforward,
                dropout,
                activation,
                layer_norm_eps,
                batch_first,
                norm_first,
                bias,
                **factory_kwargs,
            )
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        is_batched = src.dim() == 3
        if is_batched and src.size(0 if self.batch_first else 1) != tgt.size(
            0 if self.batch_first else 1
        ):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """The ``(sz, sz)`` causal float mask: 0 on and below the diagonal, -inf above.

        Example:
            >>> ember.nn.Transformer.generate_square_subsequent_mask(2)
            tensor([[0., -inf],
                    [0., 0.]])
        """
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)


class TransformerEncoder(Module):
    """A stack of ``num_layers`` copies of ``encoder_layer``, then ``norm`` if given.

    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)``; with
    ``is_causal=None`` a ``mask`` equal to the causal mask is detected and passed on as the
    causal hint. ``enable_nested_tensor`` and ``mask_check`` steer PyTorch's nested-tensor
    inference path (eval mode, no grad, ``batch_first``, right-padded ``src_key_padding_mask``):
    ember computes such a call on the regular path and, as PyTorch, returns zeros at the padded
    positions (then ``norm``).

    Example:
        >>> layer = ember.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32)
        >>> encoder = ember.nn.TransformerEncoder(layer, num_layers=2,
        ...                                       enable_nested_tensor=False)
        >>> encoder(ember.randn(7, 3, 16)).shape
        ember.Size([7, 3, 16])
    """

    __constants__ = ["norm"]

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        # NOTE: differs from torch: no warning when the layer rules the nested path out
        self.use_nested_tensor = enable_nested_tensor and _nested_path_allowed(encoder_layer)
        self.mask_check = mask_check

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        src_key_padding_mask = _fa._canonical_mask(
            src_key_padding_mask,
            "src_key_padding_mask",
            _fa._none_or_dtype(mask),
            "mask",
            src.dtype,
        )
        mask = _fa._canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        first = self.layers[0]
        seq_len = _get_seq_len(src, first.self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        zero_padded = self._takes_nested_path(src, mask, src_key_padding_mask)
        output = src
        for mod in self.layers:
            output = mod(
                output,
                src_mask=mask,
                is_causal=is_causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if zero_padded:
            # NOTE: matches torch: its nested-tensor inference path drops the padded positions
            # and pads the result back with zeros (before ``norm``); the valid positions are the
            # regular path's, since padded keys are masked out of every attention row anyway.
            output = output.masked_fill((src_key_padding_mask != 0).unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _takes_nested_path(self, src: Tensor, mask, src_key_padding_mask) -> bool:
        """Whether torch's ``TransformerEncoder.forward`` would run this call as nested tensors."""
        first = self.layers[0]
        if not (
            _mha_fastpath_enabled()
            and getattr(self, "use_nested_tensor", False)
            and not first.training
            and src.dim() == 3
            and src_key_padding_mask is not None
            and mask is None
            and src.device.type == "cpu"  # torch's path is for real devices, not meta
            and not _is_autocast_enabled()  # NOTE: matches torch: the no-argument (CUDA) query
        ):
            return False
        valid = src_key_padding_mask == 0
        if getattr(self, "mask_check", True) and bool((valid[:, 1:] & ~valid[:, :-1]).any()):
            return False  # padding not all at the end of each sequence: the regular path
        attn = first.self_attn
        args = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight)
        args += (attn.out_proj.bias, first.norm1.weight, first.norm1.bias, first.norm2.weight)
        args += (first.norm2.bias, first.linear1.weight, first.linear1.bias)
        args += (first.linear2.weight, first.linear2.bias)
        return not (_gm.is_grad_enabled() and any(a.requires_grad for a in args))


def _nested_path_allowed(layer) -> bool:
    """torch's conditions on the encoder layer for its nested-tensor inference path."""
    attn = getattr(layer, "self_attn", None)
    return (
        isinstance(layer, TransformerEncoderLayer)
        and not layer.norm_first
        and attn.batch_first
        and attn._qkv_same_embed_dim
        and attn.in_proj_bias is not None
        and layer.activation_relu_or_gelu
        and layer.norm1.eps == layer.norm2.eps
        and attn.num_heads % 2 == 0
    )


class TransformerDecoder(Module):
    """A stack of ``num_layers`` copies of ``decoder_layer``, then ``norm`` if given.

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False)``.

    Example:
        >>> layer = ember.nn.TransformerDecoderLayer(d_model=16, nhead=2, dim_feedforward=32)
        >>> decoder = ember.nn.TransformerDecoder(layer, num_layers=2)
        >>> decoder(ember.randn(5, 3, 16), ember.randn(7, 3, 16)).shape
        ember.Size([5, 3, 16])
    """

    __constants__ = ["norm"]

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for mod in self.layers:
            output = mod(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block (``linear1``, activation, ``linear2``), each
    with dropout, a residual connection and a ``LayerNorm``: after the residual sum (the
    default) or, with ``norm_first``, on the block's input.

    ``activation`` is ``"relu"``, ``"gelu"`` or a callable. ``forward(src, src_mask=None,
    src_key_padding_mask=None, is_causal=False)``: src ``(S, N, E)``, ``(N, S, E)`` with
    ``batch_first``, or unbatched ``(S, E)``.

    Example:
        >>> layer = ember.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32,
        ...                                          batch_first=True)
        >>> layer(ember.randn(3, 7, 16)).shape
        ember.Size([3, 7, 16])
    """

    __constants__ = ["norm_first"]

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **factory_kwargs
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # NOTE: matches torch: 1 for relu, 2 for gelu, 0 otherwise (its fast path's flag)
        from ember.nn.modules import activation as _act

        if activation is F.relu or isinstance(activation, getattr(_act, "ReLU", ())):
            self.activation_relu_or_gelu = 1
        elif activation is getattr(F, "gelu", None) or isinstance(
            activation, getattr(_act, "GELU", ())
        ):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        src_key_padding_mask = _fa._canonical_mask(
            src_key_padding_mask,
            "src_key_padding_mask",
            _fa._none_or_dtype(src_mask),
            "src_mask",
            src.dtype,
        )
        src_mask = _fa._canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(
                self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal
            )
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(
                x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal)
            )
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(
        self,
        x: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's output (``multihead_attn``) and a
    feed-forward block, each with dropout, a residual connection and a ``LayerNorm`` (after the
    sum, or before the block with ``norm_first``).

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)``.

    Example:
        >>> layer = ember.nn.TransformerDecoderLayer(d_model=16, nhead=2, dim_feedforward=32)
        >>> layer(ember.randn(5, 3, 16), ember.randn(7, 3, 16)).shape
        ember.Size([5, 3, 16])
    """

    __constants__ = ["norm_first"]

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **factory_kwargs
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **factory_kwargs
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            self.activation = _get_activation_fn(activation)
        else:
            self.activation = activation

    def __setstate__(self, state) -> None:
        state.setdefault("activation", F.relu)
        super().__setstate__(state)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x
                + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            )
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(
        self,
        x: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            is_causal=is_causal,
            need_weights=False,
        )[0]
        return self.dropout1(x)

    def _mha_block(
        self,
        x: Tensor,
        mem: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        x = self.multihead_attn(
            x,
            mem,
            mem,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            is_causal=is_causal,
            need_weights=False,
        )[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _mha_fastpath_enabled() -> bool:
    from ember.backends import mha  # first use only: import ember does not load ember.backends

    return mha.get_fastpath_enabled()
