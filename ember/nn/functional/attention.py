"""``ember.nn.functional``: attention: ``scaled_dot_product_attention`` and
``multi_head_attention_forward``.

Both compute through one primitive, ``ember.ops.attention.Attention`` (scores, mask, softmax
and the weighted sum of values in one forward on raw arrays). Multi-head attention splits heads
with one view and one permute per projection, and merges them back with one permute and one
reshape; with ``batch_first`` it works in ``(N, L, E)`` directly instead of transposing to
PyTorch's ``(L, N, E)`` and back.
"""

from __future__ import annotations

import math
import warnings

from ember import _autocast as _ac
from ember.ops import joining as _joining
from ember.ops.attention import Attention
from ember.ops.creation import zeros
from ember.ops.linear import linear
from ember.random.creation import rand
from ember.tensor import Tensor

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]

_TORCH_DTYPE_NAME = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def _tname(t: Tensor) -> str:
    name = t._data.dtype.name
    return _TORCH_DTYPE_NAME.get(name, name)


def _dropout_keep(shape, p: float, like: Tensor):
    """The dropout multiplier of the attention weights: 0 where dropped, 1/(1-p) elsewhere."""
    if p >= 1.0:
        return zeros(shape, dtype=like.dtype, device=like.device)._data
    u = rand(shape, dtype=like.dtype, device=like.device)._data
    keep = (u >= p).astype(u.dtype)
    keep *= 1.0 / (1.0 - p)
    return keep


def _check_dropout(p) -> float:
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return float(p)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value``, with dropout on the weights.

    Shapes: query ``(..., L, E)``, key ``(..., S, E)``, value ``(..., S, Ev)``, output
    ``(..., L, Ev)``. ``attn_mask`` is bool (True = the key takes part) or float (added to the
    scores), broadcastable to ``(..., L, S)``; ``is_causal`` masks keys after each query
    (aligned top-left) and excludes ``attn_mask``. ``scale`` defaults to ``1/sqrt(E)``. With
    ``enable_gqa`` key and value may have fewer heads (dim -3) than query, each shared by a
    group of query heads. A query whose keys are all masked gets zeros.

    Example:
        >>> q = ember.randn(2, 4, 8, 16)
        >>> ember.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True).shape
        ember.Size([2, 4, 8, 16])
    """
    if attn_mask is not None and type(attn_mask) is not Tensor:
        # a bias subclass (nn.attention.bias.CausalBias) computes the call itself, as torch's
        # __torch_function__ hands it over
        dispatch = getattr(attn_mask, "_sdpa_dispatch", None)
        if dispatch is not None:
            return dispatch(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    for pos, (name, t) in enumerate((("query", query), ("key", key), ("value", value)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"scaled_dot_product_attention(): argument '{name}' (position "
                f"{pos}) must be Tensor, not {type(t).__name__}"
            )
    if _ac.on:  # autocast's lower-precision list
        query, key, value, attn_mask = _ac.low(query, key, value, attn_mask)
    q, k, v = query._data, key._data, value._data
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        # NOTE: matches torch: the message's double space
        raise RuntimeError(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {q.ndim} key.dim: {k.ndim} and value.dim: {v.ndim} instead."
        )
    if not (q.dtype == k.dtype == v.dtype):
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_tname(query)} key.dtype: {_tname(key)} and value.dtype: {_tname(value)} "
            f"instead."
        )
    if attn_mask is not None:
        mk = attn_mask._data.dtype.kind
        if mk != "b" and mk != "f":
            # NOTE: matches torch: the message's double space
            raise RuntimeError(
                f"Expected attn_mask dtype to be bool or float or to match query dtype, but "
                f"got attn_mask.dtype: {_tname(attn_mask)} and  query.dtype: {_tname(query)} "
                f"instead."
            )
        if is_causal:
            # NOTE: differs from torch: its 4-D CPU flash kernel (no dropout) accepts both and
            # applies both; its other kernels raise this. ember raises for every shape.
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be "
                "set when is_causal=True"
            )
    dropout_p = _check_dropout(dropout_p)
    if not _math_sdp_enabled() and q.size and k.size and v.size:
        # math kernel disabled (nn.attention.sdpa_kernel): torch's CPU kernel choice and errors
        from ember.nn.attention import _check_cpu_backend

        _check_cpu_backend(query, key, value, attn_mask, dropout_p, enable_gqa)
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise RuntimeError(
            f"scaled_dot_product_attention(): query (..., L, E), key (..., S, E) and value "
            f"(..., S, Ev) do not fit: got query {list(q.shape)}, key {list(k.shape)}, value "
            f"{list(v.shape)}"
        )
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        key, value = _repeat_kv_heads(query, key, value)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1]) if q.shape[-1] else math.inf
    keep = None
    if dropout_p > 0.0:
        keep = _dropout_keep(_score_shape(query, key, value, attn_mask), dropout_p, query)
    try:
        out, _ = Attention.apply(
            query, key, value, attn_mask, float(scale), bool(is_causal), keep, True
        )
    except ValueError as e:  # batch dims that do not broadcast
        raise RuntimeError(
            f"scaled_dot_product_attention(): the batch dims of query {list(q.shape)}, key "
            f"{list(key.shape)}, value {list(value.shape)} and attn_mask do not broadcast "
            f"({e})"
        ) from None
    return out


def _repeat_kv_heads(query: Tensor, key: Tensor, value: Tensor):
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hk == 0 or hv == 0 or hq % hk or hq % hv:
        # NOTE: matches torch: the message stops mid-sentence
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return (key.repeat_interleave(hq // hk, dim=-3), value.repeat_interleave(hq // hv, dim=-3))


def _score_shape(query: Tensor, key: Tensor, value: Tensor, mask) -> tuple:
    from ember.ops.broadcast import broadcast_shapes

    batch = broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    shape = tuple(batch) + (query.shape[-2], key.shape[-2])
    if mask is not None:
        shape = tuple(broadcast_shapes(shape, mask.shape))
    return shape


# ---- multi-head attention ----------------------------------------------------------------------
def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """PyTorch's input checks (AssertionError, its messages); returns whether batched."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                f"found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                f"but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    f"but found {attn_mask.dim()}-D tensor instead"
                )
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
                    )
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received "
        f"{query.dim()}-D query tensor"
    )


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask (True = masked out) as a float mask of 0 and -inf; a float mask as is."""
    if mask is None:
        return None
    kind = mask._data.dtype.kind
    if kind != "b" and kind not in "fV":
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
            f"same type for both instead.",
            UserWarning,
            stacklevel=3,
        )
    if kind == "b":
        return zeros(mask.shape, dtype=target_type, device=mask.device).masked_fill_(
            mask, -math.inf
        )
    return mask


def _none_or_dtype(t):
    if t is None:
        return None
    if isinstance(t, Tensor):
        return t.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _pad_last(mask: Tensor) -> Tensor:
    """``mask`` with one more column of zeros (a key that every query may attend to)."""
    return _joining.cat(
        [mask, zeros(mask.shape[:-1] + (1,), dtype=mask.dtype, device=mask.device)], -1
    )


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention as ``nn.MultiheadAttention`` computes it, on sequence-first inputs.

    query ``(L, N, E)`` or unbatched ``(L, E)``; key ``(S, N, Ek)``, value ``(S, N, Ev)``.
    Projects with ``in_proj_weight`` (packed q, k, v rows) or the separate ``*_proj_weight``,
    optionally appends ``bias_k``/``bias_v`` and a zero key/value, splits ``num_heads`` heads,
    attends and projects back with ``out_proj_weight``. ``key_padding_mask`` ``(N, S)``: True or
    -inf marks padding to ignore; ``attn_mask`` ``(L, S)`` or ``(N * num_heads, L, S)``: True or
    -inf is *not* attended (the opposite of SDPA's bool masks). Returns the output ``(L, N, E)``
    and, with ``need_weights``, the weights ``(N, L, S)`` averaged over heads (or ``(N,
    num_heads, L, S)``), else None.

    Example:
        >>> E = 8
        >>> x = ember.randn(5, 2, E)
        >>> w, ow = ember.randn(3 * E, E), ember.randn(E, E)
        >>> F = ember.nn.functional
        >>> out, attn = F.multi_head_attention_forward(x, x, x, E, 2, w, None, None, None,
        ...                                            False, 0.0, ow, None)
        >>> out.shape, attn.shape
        (ember.Size([5, 2, 8]), ember.Size([2, 5, 5]))
    """
    return _mha(
        query,
        key,
        value,
        embed_dim_to_check,
        num_heads,
        in_proj_weight,
        in_proj_bias,
        bias_k,
        bias_v,
        add_zero_attn,
        dropout_p,
        out_proj_weight,
        out_proj_bias,
        training,
        key_padding_mask,
        need_weights,
        attn_mask,
        use_separate_proj_weight,
        q_proj_weight,
        k_proj_weight,
        v_proj_weight,
        static_k,
        static_v,
        average_attn_weights,
        is_causal,
        False,
    )


def _project(
    query,
    key,
    value,
    in_proj_weight,
    in_proj_bias,
    separate,
    q_proj_weight,
    k_proj_weight,
    v_proj_weight,
):
    """The q, k, v projections, as PyTorch's packed/separate in-projection."""
    if separate:
        if q_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight is None")
        if k_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but k_proj_weight is None")
        if v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but v_proj_weight is None")
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        eq, ek, ev = query.shape[-1], key.shape[-1], value.shape[-1]
        for name, w, shape in (
            ("query", q_proj_weight, (eq, eq)),
            ("key", k_proj_weight, (eq, ek)),
            ("value", v_proj_weight, (eq, ev)),
        ):
            if tuple(w.shape) != shape:
                raise AssertionError(
                    f"expecting {name} weights shape of {shape}, but got {w.shape}"
                )
        return (
            linear(query, q_proj_weight, b_q),
            linear(key, k_proj_weight, b_k),
            linear(value, v_proj_weight, b_v),
        ), None
    if in_proj_weight is None:
        raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    e = query.shape[-1]
    if key is value:
        if query is key:
            # self-attention: one product; the caller splits q, k, v and the heads in one view
            return None, linear(query, in_proj_weight, in_proj_bias)
        w_q, w_kv = in_proj_weight.split([e, 2 * e])
        b_q = b_kv = None
        if in_proj_bias is not None:
            b_q, b_kv = in_proj_bias.split([e, 2 * e])
        kv = linear(key, w_kv, b_kv)
        k, v = kv.unflatten(-1, (2, e)).unbind(-2)
        return (linear(query, w_q, b_q), k, v), None
    w_q, w_k, w_v = in_proj_weight.chunk(3)
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    return (linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)), None


def _mha(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training,
    key_padding_mask,
    need_weights,
    attn_mask,
    use_separate_proj_weight,
    q_proj_weight,
    k_proj_weight,
    v_proj_weight,
    static_k,
    static_v,
    average_attn_weights,
    is_causal,
    batch_first,
):
    """``multi_head_attention_forward``, also on ``(N, L, E)`` inputs when ``batch_first``
    (the layout is only a matter of which axis the head split and merge permute)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        # unbatched: a batch of one, squeezed off again at the end
        query, key, value = (
            query.unsqueeze(0 if batch_first else 1),
            key.unsqueeze(0 if batch_first else 1),
            value.unsqueeze(0 if batch_first else 1),
        )
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    if batch_first:
        bsz, tgt_len, embed_dim = query.shape
        src_len = key.shape[1]
    else:
        tgt_len, bsz, embed_dim = query.shape
        src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # the hint alone: the primitive applies the causal mask itself
        attn_mask = None
    else:
        attn_mask = _canonical_mask(
            attn_mask, "attn_mask", None, "", query.dtype, check_other=False
        )
        if key_padding_mask is not None:
            is_causal = False  # merged with the padding mask it is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match "
                f"value's {value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    qkv, packed = _project(
        query,
        key,
        value,
        in_proj_weight,
        in_proj_bias,
        use_separate_proj_weight,
        q_proj_weight,
        k_proj_weight,
        v_proj_weight,
    )

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                    f"should be {(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                    f"should be {(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    # heads: (L, N, E) [or (N, L, E)] -> (N, H, L, D) with one view and one permute
    seq, bat = (1, 0) if batch_first else (0, 1)
    if packed is not None and bias_k is None and bias_v is None:
        # self-attention: q, k, v and the heads split out of the one product by one view
        lead = packed.shape[:2]
        parts = packed.view(*lead, 3, num_heads, head_dim).permute(2, bat, 3, seq, 4)
        q, k, v = parts.unbind(0)
    else:
        if packed is not None:
            qkv = packed.unflatten(-1, (3, embed_dim)).unbind(-2)
        q, k, v = qkv
        if bias_k is not None and bias_v is not None:
            if static_k is not None:
                raise AssertionError("bias cannot be added to static key.")
            if static_v is not None:
                raise AssertionError("bias cannot be added to static value.")
            shape = (bsz, 1, embed_dim) if batch_first else (1, bsz, embed_dim)
            k = _joining.cat([k, bias_k.reshape(1, 1, embed_dim).expand(*shape)], seq)
            v = _joining.cat([v, bias_v.reshape(1, 1, embed_dim).expand(*shape)], seq)
            if attn_mask is not None:
                attn_mask = _pad_last(attn_mask)
            if key_padding_mask is not None:
                key_padding_mask = _pad_last(key_padding_mask)
        elif bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        elif bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")
        q = q.view(*q.shape[:2], num_heads, head_dim).permute(bat, 2, seq, 3)
        k = (
            None
            if static_k is not None
            else k.view(*k.shape[:2], num_heads, head_dim).permute(bat, 2, seq, 3)
        )
        v = (
            None
            if static_v is not None
            else v.view(*v.shape[:2], num_heads, head_dim).permute(bat, 2, seq, 3)
        )
    if static_k is not None:
        k = _static(static_k, "static_k", bsz, num_heads, head_dim)
    if static_v is not None:
        v = _static(static_v, "static_v", bsz, num_heads, head_dim)

    if add_zero_attn:
        zshape = (bsz, num_heads, 1, head_dim)
        k = _joining.cat([k, zeros(zshape, dtype=k.dtype, device=k.device)], 2)
        v = _joining.cat([v, zeros(zshape, dtype=v.dtype, device=v.device)], 2)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[2]

    # masks as (1 or N, 1 or H, L, S), broadcast against the (N, H, L, S) scores
    if attn_mask is not None and attn_mask.shape[0] != 1:
        attn_mask = attn_mask.reshape(bsz, num_heads, tgt_len, src_len)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        kpm = key_padding_mask.view(bsz, 1, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    dropout_p = _check_dropout(dropout_p)
    keep = None
    if dropout_p > 0.0:
        shape = (bsz, num_heads, tgt_len, src_len)
        keep = _dropout_keep(shape, dropout_p, q)
    if attn_mask is not None and attn_mask.dtype != q.dtype:
        attn_mask = attn_mask.to(q.dtype)
    # NOTE: matches torch: the need_weights path uses a plain softmax (NaN where every key is
    # masked), the SDPA path a safe one (zeros there)
    out, weights = Attention.apply(
        q,
        k,
        v,
        attn_mask,
        1.0 / math.sqrt(head_dim),
        bool(is_causal) and attn_mask is None,
        keep,
        not need_weights,
    )
    # merge heads: (N, H, L, D) -> (L, N, H, D) [or (N, L, H, D)] -> (L, N, E), then project
    if batch_first:
        out = out.permute(0, 2, 1, 3).reshape(bsz, tgt_len, embed_dim)
    else:
        out = out.permute(2, 0, 1, 3).reshape(tgt_len, bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    if not need_weights:
        if not is_batched:
            out = out.squeeze(0 if batch_first else 1)
        return out, None
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not is_batched:
        out = out.squeeze(0 if batch_first else 1)
        weights = weights.squeeze(0)
    return out, weights


def _static(t: Tensor, name: str, bsz: int, num_heads: int, head_dim: int) -> Tensor:
    if t.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got {t.size(0)}")
    if t.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.size(2)}")
    return t.view(bsz, num_heads, t.size(1), head_dim)


def _math_sdp_enabled() -> bool:
    from ember.backends import cuda  # first use only: import ember does not load ember.backends

    return cuda.math_sdp_enabled()
