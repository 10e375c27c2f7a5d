"""Collation (``torch.utils.data._utils.collate``): ``default_collate`` turns a list of samples
into a batch, ``default_convert`` turns one sample's arrays into tensors.

``collate(batch, collate_fn_map=...)`` is the engine: a table from types to functions, looked up
by the first sample's exact type and then by ``isinstance``; containers (mappings, namedtuples,
sequences) are collated field by field. ``default_collate`` is ``collate`` with
``default_collate_fn_map``; copy the table and add entries to collate other types.
"""

from __future__ import annotations

import collections.abc
import copy
from collections.abc import Callable

from ember import backend
from ember._dtype import float64 as _F64
from ember.ops.creation import as_tensor, tensor
from ember.ops.joining import stack
from ember.tensor import Tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map"]

_np = backend.cpu
_TEXT_KINDS = "SUO"  # NumPy arrays of bytes, str or objects are left alone (torch's [SaUO])

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def default_convert(data):
    """Turn the NumPy arrays and NumPy scalars inside ``data`` into tensors, keeping its
    structure (what the DataLoader does to each sample when ``batch_size=None``).

    Mappings, namedtuples and lists keep their type; a plain tuple becomes a list, as in torch.
    Arrays of strings or objects, and everything else, are returned unchanged.

    Example:
        >>> import numpy
        >>> default_convert({"x": numpy.arange(2), "y": (1.5, "a")})
        {'x': tensor([0, 1]), 'y': [1.5, 'a']}
    """
    cls = type(data)
    if isinstance(data, Tensor):
        return data
    if cls.__module__ == "numpy" and cls.__name__ not in ("str_", "bytes_", "string_"):
        if isinstance(data, _np.ndarray) and data.dtype.kind in _TEXT_KINDS:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return cls(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # NOTE: matches torch: tuples become lists
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like, items: dict):
    """A mapping of ``like``'s type holding ``items`` (a plain dict where the type refuses)."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            out = copy.copy(like)  # keeps a subclass's extra state, as torch does
            out.update(items)
            return out
        return type(like)(items)
    except TypeError:
        return items


def _rebuild_sequence(like, items: list):
    """A sequence of ``like``'s type holding ``items`` (a plain list where the type refuses)."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            out = copy.copy(like)
            for i, v in enumerate(items):
                out[i] = v
            return out
        return type(like)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map: dict[type | tuple[type, ...], Callable] | None = None):
    """Collate ``batch`` (a list of samples) with the per-type functions of ``collate_fn_map``;
    containers are collated field by field.

    Example:
        >>> def sum_ints(batch, *, collate_fn_map=None): return sum(batch)
        >>> collate([(1, 2), (3, 4)], collate_fn_map={int: sum_ints})
        [4, 6]
    """
    elem = batch[0]
    cls = type(elem)
    if collate_fn_map is not None:
        fn = collate_fn_map.get(cls)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(
            elem, {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
        )
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        # NOTE: matches torch: each field's samples are passed on as a tuple (so strings inside
        # a namedtuple or tuple collate to a tuple, at top level to a list)
        return cls(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError(
                "each element in list of batch should be of equal size: default_collate got "
                f"sequences of lengths {[len(e) for e in batch]}"
            )
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # NOTE: matches torch: tuples of samples collate to a list
        return _rebuild_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(cls))


def collate_tensor_fn(batch, *, collate_fn_map=None) -> Tensor:
    """Stack same-shaped tensors along a new first dimension."""
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays become tensors, then are collated as tensors; text arrays are refused."""
    if batch[0].dtype.kind in _TEXT_KINDS:
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None) -> Tensor:
    """NumPy scalars become a 1-D tensor of their dtype."""
    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None) -> Tensor:
    """Python floats become a float64 tensor (not the default dtype), as in torch."""
    return tensor(batch, dtype=_F64)


def collate_int_fn(batch, *, collate_fn_map=None) -> Tensor:
    """Python ints become an int64 tensor, bools a bool tensor."""
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes stay a list."""
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    _np.ndarray: collate_numpy_array_fn,
    (_np.bool_, _np.number, _np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Turn a list of samples into a batch (the DataLoader's default ``collate_fn``).

    Tensors are stacked along a new first dimension; NumPy arrays and scalars become tensors
    first; Python floats become a float64 tensor, ints int64, bools bool; strings and bytes stay
    as they are grouped (a list at top level, a tuple inside a field); mappings, namedtuples and
    sequences are collated field by field (tuple samples give a list, as in torch). Samples must
    have the same structure and sizes.

    Example:
        >>> b = default_collate([(ember.zeros(2), 1, "a"), (ember.ones(2), 2, "b")])
        >>> b[0].shape, b[1], b[2]
        (ember.Size([2, 2]), tensor([1, 2]), ('a', 'b'))
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
