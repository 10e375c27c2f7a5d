"""``ember.nn.functional``: Embeddings and one_hot: embedding, embedding_bag, one_hot."""

from __future__ import annotations

import warnings

from ember import _dtype
from ember.autograd import grad_mode as _gm
from ember.autograd.grad_mode import no_grad
from ember.ops._dispatch import xp_of
from ember.ops.creation import zeros
from ember.ops.embedding import EmbeddingBagMax, EmbeddingLookup
from ember.tensor import Tensor, _wrap

__all__ = ["embedding", "embedding_bag", "one_hot"]


def _sparse_lookup():
    from ember.sparse._functions import EmbeddingSparse  # (sparse tensors load on first use)

    return EmbeddingSparse


_TYPE_NAMES = {
    "float64": "DoubleTensor",
    "float32": "FloatTensor",
    "float16": "HalfTensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
    "int16": "ShortTensor",
    "int8": "CharTensor",
    "uint8": "ByteTensor",
    "bool": "BoolTensor",
}


def _type_name(t: Tensor) -> str:
    return "ember." + _TYPE_NAMES.get(t._data.dtype.name, t._data.dtype.name)


def _check_indices(input, op: str):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input._data.dtype.name not in ("int64", "int32"):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {_type_name(input)} instead (while checking arguments "
            f"for {op}); convert the indices with .long()"
        )


def _wrap_padding_idx(padding_idx, num: int, what: str = "Padding_idx"):
    if padding_idx is None:
        return None
    if padding_idx > 0:
        if padding_idx >= num:
            raise AssertionError(f"{what} must be within num_embeddings")
    elif padding_idx < 0:
        if padding_idx < -num:
            raise AssertionError(f"{what} must be within num_embeddings")
        padding_idx = num + padding_idx
    return padding_idx


def _renorm_(weight: Tensor, idx, max_norm: float, norm_type: float) -> None:
    """Scale, in place and without recording, the rows of ``weight`` listed in ``idx`` whose
    ``norm_type``-norm exceeds ``max_norm`` down to norm ``max_norm`` (each row once)."""
    xp = xp_of(idx)
    if xp.device_type == "meta":  # no values to renormalize
        return
    rows = xp.unique(idx.reshape(-1))
    if rows.size == 0:
        return
    sub = weight._data[rows]
    p = float(norm_type)
    a = xp.abs(sub)
    if p == float("inf"):
        norms = a.max(1)
    elif p == 0:
        norms = (a != 0).sum(1).astype(sub.dtype)
    else:
        norms = (a**p).sum(1) ** (1.0 / p)
    over = norms > max_norm
    if not over.any():
        return
    # NOTE: matches torch: the 1e-7 guard in the denominator
    scale = max_norm / (norms[over] + 1e-7)
    sel = _wrap(rows[over].astype(xp.int64))
    with no_grad():
        weight[sel] = weight[sel] * _wrap(scale.astype(sub.dtype)[:, None])


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` (num_embeddings, embedding_dim) picked by the integer ``input``:
    output ``(*input.shape, embedding_dim)``.

    ``padding_idx``: that row gets no gradient. ``max_norm``: the looked-up rows whose
    ``norm_type``-norm exceeds it are first scaled down to it, in place in ``weight``.
    ``scale_grad_by_freq``: each row's gradient is divided by how often it appears in
    ``input``.

    Example:
        >>> w = ember.arange(6.0).reshape(3, 2)
        >>> ember.nn.functional.embedding(ember.tensor([2, 0]), w)
        tensor([[4., 5.],
                [0., 1.]])
    """
    _check_indices(input, "embedding")
    if not isinstance(weight, Tensor):
        raise TypeError(
            f"embedding(): argument 'weight' must be Tensor, not {type(weight).__name__}"
        )
    if weight.dim() != 2:
        raise RuntimeError(
            f"'weight' must be 2-D (num_embeddings, embedding_dim), got shape {list(weight.shape)}"
        )
    if weight._data.dtype.kind == "c" and weight.requires_grad and _gm.is_grad_enabled():
        # NOTE: matches torch: the lookup has no complex derivative
        raise RuntimeError(
            "embedding does not support automatic differentiation for outputs with complex dtype."
        )
    num = weight.shape[0]
    padding_idx = _wrap_padding_idx(padding_idx, num)
    idx = input._data
    if idx.size and not input.is_meta:  # a meta tensor has no values to check
        lo, hi = idx.min(), idx.max()
        if lo < 0 or hi >= num:
            bad = int(lo) if lo < 0 else int(hi)
            # NOTE: matches torch: IndexError, "index out of range in self"
            raise IndexError(
                f"index out of range in self (embedding: index {bad} with {num} embeddings)"
            )
    if max_norm is not None:
        _renorm_(weight, idx, max_norm, norm_type)
    if idx.dtype.name != "int64":
        input = input.long()
    lookup = _sparse_lookup() if sparse else EmbeddingLookup
    return lookup.apply(weight, input, padding_idx, bool(scale_grad_by_freq))


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """Sums, means or maxes of bags of embedding rows, without materializing the rows per bag.

    ``input`` 1-D with ``offsets`` (where each bag starts; with ``include_last_offset`` the
    last entry is the end of the last bag), or 2-D ``(bags, length)`` without. Entries equal
    to ``padding_idx`` are left out (and not counted by ``mean``); an empty bag gives zeros.
    ``per_sample_weights`` (``input``'s shape) weights each entry, ``mode="sum"`` only.

    Example:
        >>> w = ember.arange(6.0).reshape(3, 2)
        >>> ember.nn.functional.embedding_bag(ember.tensor([0, 1, 2]), w, ember.tensor([0, 1]),
        ...                                   mode="sum")
        tensor([[0., 1.],
                [6., 8.]])
    """
    if (
        isinstance(weight, Tensor)
        and isinstance(input, Tensor)
        and weight.dtype == _dtype.int64
        and input.is_floating_point()
    ):
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage "
            "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
            "`embedding_bag(input, weight, ...)`.",
            stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
            f"not None, then it must have the same shape as the input "
            f"({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated "
                "is a mini-batch of fixed length sequences. However, found offsets "
                f"of type {type(offsets)}"
            )
        bags, length = input.shape
        starts = list(range(0, bags * length, length)) if length else [0] * bags
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        # a meta offsets tensor has no values: only its length (the bag count) is known
        starts = [0] * offsets.shape[0] if offsets.is_meta else [int(v) for v in offsets.tolist()]
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    _check_indices(input, "embedding_bag")
    idx = input._data
    num = weight.shape[0]
    n = idx.shape[0]
    if idx.size and not input.is_meta and (idx.min() < 0 or idx.max() >= num):
        bad = int(idx.min()) if idx.min() < 0 else int(idx.max())
        raise RuntimeError(
            f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {bad}"
        )
    if starts and starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
            f"has to start from position 0. However, got {starts[0]}"
        )
    if starts and starts[-1] > n:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {n} but got "
            f"offsets[-1] of {starts[-1]}"
        )
    if max_norm is not None:
        _renorm_(weight, idx, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    padding_idx = _wrap_padding_idx(padding_idx, num, "padding_idx")
    # NOTE: matches torch (CPU): with include_last_offset the last bag still runs to the end of
    # the input, whatever the last offset says
    num_bags = max(len(starts) - 1, 0) if include_last_offset else len(starts)
    ends = starts[1:num_bags] + [n]
    if input.is_meta:  # the shape alone: which entries fall in which bag is data
        return zeros(num_bags, weight.shape[1], dtype=weight.dtype, device=weight.device)
    xp = xp_of(idx)
    # the bag of each entry (-1 outside every bag), then the entries that count
    bag_of = xp.full(n, -1, xp.int64)
    if all(starts[b] <= ends[b] for b in range(num_bags)):  # the usual, ordered offsets
        stop = ends[num_bags - 1] if num_bags else 0
        sizes = xp.asarray(ends[:num_bags], xp.int64) - xp.asarray(starts[:num_bags], xp.int64)
        bag_of[:stop] = xp.repeat(xp.arange(num_bags, dtype=xp.int64), sizes)
    else:
        for b in range(num_bags):
            if ends[b] > starts[b]:
                bag_of[starts[b] : ends[b]] = b
    keep = bag_of >= 0
    if padding_idx is not None:
        keep &= idx != padding_idx
    sel = xp.flatnonzero(keep)
    every = sel.size == n
    entries = input if every else _wrap(idx[sel].astype(xp.int64))
    bag_t = _wrap(bag_of if every else bag_of[sel])
    if entries._data.dtype.name != "int64":
        entries = entries.long()
    if mode == "max":
        return EmbeddingBagMax.apply(weight, entries, bag_t, num_bags)
    lookup = _sparse_lookup() if sparse else EmbeddingLookup
    rows = lookup.apply(weight, entries, None, bool(scale_grad_by_freq))
    if mode == "sum" and per_sample_weights is not None:
        psw = (
            per_sample_weights
            if every
            else per_sample_weights.index_select(0, _wrap(sel.astype(xp.int64)))
        )
        rows = rows * psw.unsqueeze(1)
    elif mode == "mean":
        counts = xp.bincount(bag_t._data, minlength=num_bags).astype(weight._data.dtype)
        inv = 1 / xp.maximum(counts, 1)
        rows = rows * _wrap(inv[bag_t._data][:, None])
    out = zeros(num_bags, weight.shape[1], dtype=weight.dtype, device=weight.device)
    return out.index_add(0, bag_t, rows)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 ``(*tensor.shape, num_classes)`` with a 1 at each value's position;
    ``num_classes=-1`` uses ``tensor.max() + 1``.

    Example:
        >>> ember.nn.functional.one_hot(ember.tensor([0, 2]))
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'input' must be Tensor, not {type(tensor).__name__}")
    x = tensor._data
    if x.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    xp = xp_of(x)
    if num_classes == -1:
        if x.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(x.max()) + 1
    if x.size and xp.device_type != "meta":
        if x.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if x.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes < 0:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = (x[..., None] == xp.arange(num_classes)).astype(xp.int64)
    return _wrap(out)
