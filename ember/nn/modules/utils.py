"""``ember.nn.modules.utils`` (torch's file of the same name): the argument normalisers that
custom layers import (``_pair``, ``_triple``...) and ``consume_prefix_in_state_dict_if_present``.

Example:
    >>> from ember.nn.modules.utils import _pair
    >>> _pair(3), _pair((1, 2))
    ((3, 3), (1, 2))
"""

from __future__ import annotations

import collections.abc
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse"):
    """A function that turns a scalar into an ``n``-tuple of it and any iterable into a tuple
    (of whatever length it has: the layers check lengths themselves)."""

    def parse(x) -> tuple:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return (x,) * n

    parse.__name__ = parse.__qualname__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """``t`` reversed with each element repeated ``n`` times: a conv layer's per-dimension
    ``padding`` (first dimension first) as ``F.pad`` takes it (last dimension first, a
    (left, right) pair each): ``_reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)``."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """An adaptive pooling ``output_size`` with each ``None`` replaced by the input's size in
    that dimension (``defaults`` is the input's shape; its last dimensions line up)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    tail = defaults[-len(out_size) :]
    return [d if v is None else v for v, d in zip(out_size, tail)]


def consume_prefix_in_state_dict_if_present(state_dict: dict[str, Any], prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in place, and from
    the keys of its ``_metadata`` if it has one.

    A checkpoint saved from a ``DataParallel``/``DistributedDataParallel`` wrapper has every key
    under ``"module."``; stripping it lets the bare model load it.

    Args:
        state_dict: the state dict to change.
        prefix: the prefix to remove (``"module."``).

    Example:
        >>> sd = {"module.weight": 1, "module.bias": 2}
        >>> consume_prefix_in_state_dict_if_present(sd, "module.")
        >>> sorted(sd)
        ['bias', 'weight']
    """
    for key in [k for k in state_dict if k.startswith(prefix)]:
        state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    # the wrapper's own entry ("") stays; the wrapped module's entry is the prefix without its
    # dot ("module"), and its children's start with the prefix
    bare = prefix.replace(".", "")
    for key in [k for k in metadata if k and (k == bare or k.startswith(prefix))]:
        # NOTE: matches torch: the "module" entry becomes "" too, replacing the wrapper's
        metadata[key[len(prefix) :]] = metadata.pop(key)
