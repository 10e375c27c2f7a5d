"""Variable-length sequences for recurrent layers (PyTorch's ``torch.nn.utils.rnn``).

A ``PackedSequence`` holds a batch of sequences sorted by decreasing length, time-major and
without padding: ``data`` is ``(sum of lengths, *)`` with step ``t``'s ``batch_sizes[t]`` rows
contiguous. The recurrent layers take one and return one. Packing and padding are gathers
(``index_select``) over precomputed row indices, so gradients flow through them.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import NamedTuple

from ember import _dtype
from ember.ops.creation import full, tensor
from ember.ops.joining import cat, stack
from ember.tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


class _PackedSequenceBase(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceBase):
    """A packed batch of variable-length sequences (a named tuple of ``data``, ``batch_sizes``,
    ``sorted_indices``, ``unsorted_indices``). Make one with ``pack_padded_sequence`` or
    ``pack_sequence``, not by hand.

    Example:
        >>> from ember.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([ember.ones(3, 2), ember.ones(1, 2)])
        >>> p.batch_sizes
        tensor([2, 1, 1])
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # NOTE: matches torch: PackedSequence((data, batch_sizes)) is accepted too
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU; make a PackedSequence with "
                "pack_padded_sequence or pack_sequence"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """``data`` converted by ``Tensor.to``; the indices follow it to its device and
        ``batch_sizes`` stays on the CPU. Returns ``self`` when nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = lambda t: None if t is None else t.to(data.device)  # noqa: E731
        return type(self)(
            data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices)
        )

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def double(self) -> PackedSequence:
        return self.to(dtype=_dtype.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=_dtype.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=_dtype.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=_dtype.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=_dtype.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=_dtype.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=_dtype.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=_dtype.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of ``0..n-1`` (None for None).

    Example:
        >>> invert_permutation(ember.tensor([2, 0, 1]))
        tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    order = permutation.tolist()
    inv = [0] * len(order)
    for i, p in enumerate(order):
        inv[p] = i
    return tensor(inv, dtype=_dtype.int64, device=permutation.device)


def _lengths_list(lengths) -> list:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(
                f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                f"{lengths.device.type} tensor"
            )
        return [int(v) for v in lengths.tolist()]
    return [operator.index(v) if not hasattr(v, "item") else int(v.item()) for v in lengths]


def pack_padded_sequence(
    input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences
    of the given ``lengths``. With ``enforce_sorted=False`` the lengths may come in any order:
    the batch is sorted and the permutation kept, so layers restore the original order.

    Example:
        >>> x = ember.zeros(3, 2, 4)
        >>> pack_padded_sequence(x, [3, 1]).batch_sizes
        tensor([2, 1, 1])
    """
    lens = _lengths_list(lengths)
    sorted_indices = None
    if enforce_sorted:
        if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
    else:
        # NOTE: matches torch: a stable descending sort (ties keep their order)
        order = sorted(range(len(lens)), key=lambda i: -lens[i])
        lens = [lens[i] for i in order]
        sorted_indices = tensor(order, dtype=_dtype.int64, device=input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if len(lens) != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got "
            f"{len(lens)} (batch_size={batch})"
        )
    if lens and lens[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an "
            "element in 'lengths' that is <= 0"
        )
    if lens and lens[0] > steps:
        raise RuntimeError(
            f"pack_padded_sequence: the longest length, {lens[0]}, exceeds the "
            f"{steps} time steps of the padded input {list(input.shape)}"
        )
    sizes = [sum(1 for n in lens if n > t) for t in range(lens[0] if lens else 0)]
    rows = [t * batch + i for t, b in enumerate(sizes) for i in range(b)]
    flat = input.reshape((steps * batch,) + tuple(input.shape[2:]))
    data = flat.index_select(0, tensor(rows, dtype=_dtype.int64, device=input.device))
    return PackedSequence(data, tensor(sizes, dtype=_dtype.int64), sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo ``pack_padded_sequence``: the padded batch ``(T, B, *)`` (``(B, T, *)`` with
    ``batch_first``) in the original order, and the lengths (int64). ``total_length`` pads to
    that many steps.

    Example:
        >>> p = pack_sequence([ember.ones(2, 1), ember.ones(1, 1)])
        >>> padded, lengths = pad_packed_sequence(p)
        >>> padded.shape, lengths
        (ember.Size([2, 2, 1]), tensor([2, 1]))
    """
    data, sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = total_length
    batch = sizes[0] if sizes else 0
    n = data.shape[0]
    # row of each padded position in cat(data, padding row): n where there is no element
    rows = [n] * (steps * batch)
    r = 0
    for t, b in enumerate(sizes):
        for i in range(b):
            rows[(i * steps + t) if batch_first else (t * batch + i)] = r
            r += 1
    pad = full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    idx = tensor(rows, dtype=_dtype.int64, device=data.device)
    shape = ((batch, steps) if batch_first else (steps, batch)) + tuple(data.shape[1:])
    padded = cat([data, pad]).index_select(0, idx).reshape(shape)
    lens = [sum(1 for b in sizes if b > i) for i in range(batch)]
    lengths = tensor(lens, dtype=_dtype.int64)
    if sequence.unsorted_indices is not None:
        un = sequence.unsorted_indices
        return (padded.index_select(0 if batch_first else 1, un), lengths.index_select(0, un.cpu()))
    return padded, lengths


def pad_sequence(
    sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"
) -> Tensor:
    """Stack sequences of shapes ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)`` with
    ``batch_first``), filling with ``padding_value`` on the ``padding_side``.

    Example:
        >>> pad_sequence([ember.ones(2), ember.ones(1)], batch_first=True)
        tensor([[1., 1.],
                [1., 0.]])
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg "
            f"of type: {type(sequences)}"
        )
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    longest = max(s.shape[0] for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    padded = []
    for s in sequences:
        if tuple(s.shape[1:]) != trailing:
            raise RuntimeError(
                f"pad_sequence: every sequence must have the trailing shape "
                f"{list(trailing)} of the first, got {list(s.shape)}"
            )
        short = longest - s.shape[0]
        if short:
            fill = full((short,) + trailing, padding_value, dtype=s.dtype, device=s.device)
            s = cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
) -> list[Tensor]:
    """Split a padded batch back into its sequences (the inverse of ``pad_sequence``).

    ``padded_sequences`` is left as it is (PyTorch transposes it in place when
    ``batch_first`` is False; a deliberate difference).

    Example:
        >>> x = pad_sequence([ember.ones(2), ember.ones(1)])
        >>> [s.shape for s in unpad_sequence(x, ember.tensor([2, 1]))]
        [ember.Size([2]), ember.Size([1])]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    lens = _lengths_list(lengths)
    return [padded_sequences[i, :n] for i, n in enumerate(lens)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)`` (by decreasing length unless
    ``enforce_sorted=False``).

    Example:
        >>> pack_sequence([ember.ones(1), ember.ones(2)], enforce_sorted=False).batch_sizes
        tensor([2, 1])
    """
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a ``PackedSequence`` holds, in their original order.

    Example:
        >>> seqs = unpack_sequence(pack_sequence([ember.ones(1), ember.ones(2)], False))
        >>> [s.shape for s in seqs]
        [ember.Size([1]), ember.Size([2])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
