"""``ember.func.rearrange``: einops-style axis reordering (PyTorch's ``torch.func.rearrange``).

A pattern such as ``"b (h h1) w -> b h (h1 w)"`` is compiled once per (tensor shape, pattern,
axis lengths) into three view steps: a reshape that splits every left-hand group into its
elementary axes, a permute into the right-hand order, and a reshape that merges the right-hand
groups. So the result is a view wherever the final merge allows one (as torch's), and autograd
flows through ember's reshape and permute. A ``1`` or ``()`` on the left is an axis that torch
sums away (``keepdim=False``), so a pattern with one gives a fresh tensor, as torch's does.

Parsing mirrors torch's rules and error messages (taken from running torch); torch reports axis
length conflicts with functorch.dim's ``DimensionBindError``, defined here with the same name.
"""

from __future__ import annotations

import functools
import keyword
import warnings

from ember.ops.joining import stack
from ember.tensor import Tensor

__all__ = ["rearrange"]

# "..." is replaced by this single character before tokenizing, so it reads as one identifier
_ELLIPSIS = "\u2026"


class DimensionBindError(Exception):
    """An axis length that does not fit the tensor (functorch.dim's error, which torch raises)."""


class _Anon:
    """A numbered axis (``2``, ``3``...): every occurrence is distinct (never equal to another)."""

    __slots__ = ("value",)

    def __init__(self, value: int):
        self.value = value

    def __repr__(self) -> str:
        return f"{self.value}-axis"


def _name_problem(name: str) -> str:
    """Why ``name`` is not a valid axis name ('' when it is); warns for discouraged names."""
    if not name.isidentifier():
        return "not a valid python identifier"
    if name[0] == "_" or name[-1] == "_":
        # NOTE: matches torch: its message repeats "should"
        return "axis name should should not start or end with underscore"
    if keyword.iskeyword(name):
        warnings.warn(
            f"It is discouraged to use axes names that are keywords: {name}",
            RuntimeWarning,
            stacklevel=7,
        )
    if name == "axis":
        warnings.warn(
            "It is discouraged to use 'axis' as an axis name and will raise an error in future",
            FutureWarning,
            stacklevel=7,
        )
    return ""


class _Side:
    """One side of a pattern: ``composition`` holds, per tensor dimension, either a list of axes
    (a group; ``[]`` is a length-1 anonymous axis) or ``_ELLIPSIS``."""

    def __init__(self, text: str):
        self.has_ellipsis = False
        self.ellipsis_grouped = False
        self.big_anon = False  # a numbered axis other than 1 (rearrange refuses those)
        self.identifiers: set = set()
        self.composition: list = []
        if "." in text:
            if "..." not in text:
                raise ValueError("Expression may contain dots only inside ellipsis (...)")
            if text.count("...") != 1 or text.count(".") != 3:
                # NOTE: matches torch: the message ends with "tensor "
                raise ValueError(
                    "Expression may contain dots only inside ellipsis (...); only one ellipsis "
                    "for tensor "
                )
            text = text.replace("...", _ELLIPSIS)
            self.has_ellipsis = True
        self._group: list | None = None
        token = ""
        for char in text:
            if char in "() ":
                if token:
                    self._add(token)
                token = ""
                if char == "(":
                    if self._group is not None:
                        raise ValueError(
                            "Axis composition is one-level (brackets inside brackets not allowed)"
                        )
                    self._group = []
                elif char == ")":
                    if self._group is None:
                        raise ValueError("Brackets are not balanced")
                    self.composition.append(self._group)
                    self._group = None
            elif char.isalnum() or char == "_" or char == _ELLIPSIS:
                token += char
            else:
                raise ValueError(f"Unknown character '{char}'")
        if self._group is not None:
            raise ValueError(f"Imbalanced parentheses in expression: '{text}'")
        if token:
            self._add(token)

    def _add(self, token: str) -> None:
        group = self._group
        if token in self.identifiers:
            raise ValueError(f"Indexing expression contains duplicate dimension '{token}'")
        if token == _ELLIPSIS:
            self.identifiers.add(token)
            self.ellipsis_grouped = group is not None
            (self.composition if group is None else group).append(token)
            return
        number = token.isdecimal()
        if number and int(token) == 1:
            if group is None:  # a 1 inside a group changes nothing
                self.composition.append([])
            return
        problem = _name_problem(token)
        if not number and problem:
            raise ValueError(f"Invalid axis identifier: {token}\n{problem}")
        axis: str | _Anon = token
        if number:
            value = int(token)
            if value < 1:
                raise ValueError(f"Anonymous axis should have positive length, not {value}")
            axis = _Anon(value)
            self.big_anon = True
        self.identifiers.add(axis)
        if group is None:
            self.composition.append([axis])
        else:
            group.append(axis)


@functools.lru_cache(256)
def _recipe(ndim: int, pattern: str, lengths: tuple) -> tuple | None:
    """Check ``pattern`` for an ``ndim``-dimensional tensor and lay out its elementary axes.

    Returns None for an identity on a 0-d tensor, else ``(left, n_axes, known, right_groups,
    anon)``: ``left`` is, per tensor dimension, ``(is_pack, axis indices)``; ``known`` maps axis
    index -> given length; ``right_groups`` lists the axis indices merged into each output
    dimension; ``anon`` lists the left ``1`` axes (summed away). ``lengths`` holds ``(name,
    type, value)`` triples: the type keeps ``2.0`` from sharing the entry of ``2``.
    """
    try:
        left_text, right_text = pattern.split("->")
    except ValueError:
        raise ValueError("Pattern must contain a single '->' separator") from None
    names = [name for name, _, _ in lengths]
    if _ELLIPSIS in names:
        raise ValueError(f"'{_ELLIPSIS}' is not an allowed axis identifier")
    left = _Side(left_text)
    right = _Side(right_text)
    if right.has_ellipsis and not left.has_ellipsis:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    if left.has_ellipsis and left.ellipsis_grouped:
        # NOTE: matches torch's wording ("is parenthesis")
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    for _, kind, _ in lengths:
        if kind is not int:
            raise TypeError(f"rearrange axis lengths must be integers, got: {kind}")
    if left.big_anon or right.big_anon:
        raise ValueError("rearrange only supports unnamed axes of size 1")
    difference = left.identifiers ^ right.identifiers
    if difference:
        raise ValueError(
            "Identifiers only on one side of rearrange expression (should be on both): "
            f"{difference}"
        )
    unmatched = set(names) - left.identifiers
    if unmatched:
        raise ValueError(f"Identifiers not found in rearrange expression: {unmatched}")

    n_anon = sum(1 for entry in left.composition if not entry)
    if left.has_ellipsis:
        n_ellipsis = ndim - (len(left.composition) - 1)
        pattern_ndim = n_anon + len(left.identifiers) - 1
        if pattern_ndim > ndim:
            raise ValueError(
                f"Number of dimensions in pattern ({pattern_ndim}) must be less than or equal to "
                f"the number of dimensions in the tensor ({ndim})"
            )
    else:
        n_ellipsis = 0
        pattern_ndim = len(left.composition)
        if pattern_ndim != ndim:
            raise ValueError(
                f"Number of dimensions in pattern ({pattern_ndim}) must be equal to the number "
                f"of dimensions in the tensor ({ndim})"
            )
    n_axes = len(left.identifiers) - left.has_ellipsis + n_ellipsis + n_anon
    if n_axes == 0:
        return None  # NOTE: matches torch: the tensor itself, whatever the right side says

    # number the elementary axes in left-hand order (torch's first-class dims d0, d1...)
    index: dict = {}
    ellipsis_axes: tuple[int, ...] = ()
    anon: list[int] = []
    left_dims: list[tuple[bool, tuple[int, ...]]] = []
    count = 0
    for entry in left.composition:
        if entry == _ELLIPSIS:
            ellipsis_axes = tuple(range(count, count + n_ellipsis))
            left_dims.extend((False, (i,)) for i in ellipsis_axes)
            count += n_ellipsis
        elif entry:
            axes = tuple(range(count, count + len(entry)))
            index.update(zip(entry, axes))
            left_dims.append((True, axes))
            count += len(entry)
        else:
            anon.append(count)
            left_dims.append((True, (count,)))
            count += 1
    right_groups: list[tuple[int, ...]] = []
    for entry in right.composition:
        if entry == _ELLIPSIS:
            right_groups.extend((i,) for i in ellipsis_axes)
        else:
            group: list[int] = []
            for axis in entry:
                group.extend(ellipsis_axes if axis == _ELLIPSIS else (index[axis],))
            right_groups.append(tuple(group))
    known = {index[name]: value for name, _, value in lengths}
    return tuple(left_dims), n_axes, known, tuple(right_groups), tuple(anon)


def _pack_name(axes: tuple[int, ...]) -> str:
    names = ", ".join(f"d{i}" for i in axes)
    return f"({names},)" if len(axes) == 1 else f"({names})"


def _bind(size: int, axes: tuple[int, ...], lengths: list[int]) -> None:
    """Give the one unknown axis of a left group the length that makes it fill ``size``."""
    # NOTE: matches torch: -1 is functorch.dim's "unbound", so a given length of -1 means "infer"
    unknown = [i for i in axes if lengths[i] == -1]
    if len(unknown) > 1:
        raise DimensionBindError(
            f"cannot infer the sizes of two dimensions at once d{unknown[0]} and d{unknown[1]}"
        )
    product = 1
    for i in axes:
        if lengths[i] != -1:
            product *= lengths[i]
    if unknown:
        # NOTE: matches torch: a given length of 0 raises ZeroDivisionError here
        if size % product:
            shown = tuple("?" if lengths[i] == -1 else lengths[i] for i in axes)
            raise DimensionBindError(
                f"inferred dimension does not evenly fit into larger dimension: {size} vs {shown}"
            )
        lengths[unknown[0]] = size // product
        product = size
    if product != size:
        # NOTE: matches torch's wording ("to do not match")
        raise DimensionBindError(
            f"Dimension sizes to do not match ({size} != {product}) when matching dimension "
            f"pack {_pack_name(axes)}"
        )


@functools.lru_cache(1024)
def _plan(shape: tuple[int, ...], pattern: str, lengths: tuple) -> tuple | None:
    """The three view steps for ``shape``: ``(split shape, permutation, merged shape, summed
    dims)`` (None: return the tensor itself)."""
    recipe = _recipe(len(shape), pattern, lengths)
    if recipe is None:
        return None
    left_dims, n_axes, known, right_groups, anon = recipe
    sizes = [-1] * n_axes
    for i, value in known.items():
        sizes[i] = value
    for size, (is_pack, axes) in zip(shape, left_dims):
        if is_pack:
            _bind(size, axes, sizes)
        else:
            sizes[axes[0]] = size
    for i, size in enumerate(sizes):
        if size == -1:
            raise ValueError(f"dimension d{i} is unbound")
        if size < 0:
            raise RuntimeError(
                f"rearrange: axis d{i} of pattern '{pattern}' would have the negative length "
                f"{size}; give every axis length as a positive int"
            )
    order = [i for group in right_groups for i in group] + list(anon)
    merged = []
    for group in right_groups:
        product = 1
        for i in group:
            product *= sizes[i]
        merged.append(product)
    merged.extend(sizes[i] for i in anon)
    summed = tuple(range(len(right_groups), len(right_groups) + len(anon)))
    permutation = None if order == sorted(order) else tuple(order)
    return tuple(sizes), permutation, tuple(merged), summed


def rearrange(
    tensor: Tensor | list[Tensor] | tuple[Tensor, ...],
    pattern: str,
    **axes_lengths: int,
) -> Tensor:
    """Reorder, split, merge, insert and remove axes as an einops-style ``pattern`` says.

    The left side names the input's axes (``(h w)`` is one input axis made of two, ``...`` any
    number of axes, ``1`` or ``()`` an axis of length 1); the right side gives the output's
    order and grouping. Lengths that cannot be inferred are given as keywords. A list or tuple
    of tensors is stacked along a new first axis first. The result is a view of the input where
    the reordering allows one.

    Args:
        tensor (Tensor or sequence of Tensor): the tensor, or tensors to stack.
        pattern (str): ``"left -> right"``, e.g. ``"b c (h w) -> b h w c"``.
        **axes_lengths (int): lengths of axes named in ``pattern``, e.g. ``w=2``.

    Returns:
        Tensor: the rearranged tensor.

    Example:
        >>> from ember.func import rearrange
        >>> images = ember.randn(32, 30, 40, 3)
        >>> rearrange(images, "b h w c -> b c h w").shape
        ember.Size([32, 3, 30, 40])
        >>> rearrange(images, "b h w c -> (b h) w c").shape
        ember.Size([960, 40, 3])
        >>> rearrange(images, "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2).shape
        ember.Size([32, 15, 20, 12])
        >>> rearrange([ember.zeros(2), ember.ones(2)], "n a -> a n")
        tensor([[0., 1.],
                [0., 1.]])
    """
    if not isinstance(tensor, Tensor):
        tensor = stack(tensor)
    lengths = tuple((name, type(value), value) for name, value in axes_lengths.items())
    plan = _plan(tuple(tensor.shape), pattern, lengths)
    if plan is None:
        return tensor
    split, permutation, merged, summed = plan
    out = tensor
    if split != tuple(out.shape):
        out = out.reshape(split)
    if permutation is not None:
        out = out.permute(permutation)
    if out is tensor or merged != tuple(out.shape):
        out = out.reshape(merged)  # also makes the no-op pattern a new view, as torch's
    if summed:
        out = out.sum(dim=summed)
        if not out.is_contiguous():  # torch's sum over its named dims gives a dense result
            out = out.contiguous()
    return out
