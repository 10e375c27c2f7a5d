"""Flattening nested tuples/lists/dicts into leaves and back (what torch's ``utils._pytree``
does for the function transforms and control-flow operators). Namedtuples keep their type."""

from __future__ import annotations


class Spec:
    """How to rebuild a tree from its leaves: ``kind`` ('leaf', tuple/list/dict/namedtuple
    type), ``keys`` for dicts, and one child spec per child."""

    __slots__ = ("kind", "keys", "children", "n")

    def __init__(self, kind, keys, children, n):
        self.kind, self.keys, self.children, self.n = kind, keys, children, n

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, Spec)
            and self.kind is other.kind
            and self.keys == other.keys
            and self.children == other.children
        )

    def __repr__(self) -> str:
        if self.kind is None:
            return "*"
        name = getattr(self.kind, "__name__", str(self.kind))
        return f"{name}({', '.join(map(repr, self.children))})"


LEAF = Spec(None, None, (), 1)


def _is_node(x) -> bool:
    return type(x) in (tuple, list, dict) or (isinstance(x, tuple) and hasattr(x, "_fields"))


def tree_flatten(tree) -> tuple[list, Spec]:
    """The leaves of ``tree`` (depth first, dict keys in insertion order) and its spec."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves: list) -> Spec:
    if not _is_node(tree):
        leaves.append(tree)
        return LEAF
    if type(tree) is dict:
        keys = tuple(tree)
        children = tuple(_flatten(tree[k], leaves) for k in keys)
    else:
        keys = None
        children = tuple(_flatten(c, leaves) for c in tree)
    return Spec(type(tree), keys, children, sum(c.n for c in children))


def tree_unflatten(leaves, spec: Spec):
    """Rebuild the tree of ``spec`` from ``leaves`` (the inverse of :func:`tree_flatten`)."""
    it = iter(leaves)
    return _unflatten(it, spec)


def _unflatten(it, spec: Spec):
    if spec.kind is None:
        return next(it)
    children = [_unflatten(it, c) for c in spec.children]
    if spec.kind is dict:
        return dict(zip(spec.keys, children, strict=True))
    if spec.kind is list:
        return children
    if spec.kind is tuple:
        return tuple(children)
    return spec.kind(*children)  # a namedtuple


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)
