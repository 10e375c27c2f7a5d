"""``vmap``: map a function over a batch dimension, by calling it once per batch element.

torch batches each op (one kernel over the whole batch); ember has no batching rules, so
``vmap(f)(x)`` unbinds the mapped inputs, calls ``f`` on each element and stacks the outputs.
The numbers are torch's (each element's computation is the unbatched one); the cost is one
Python call of ``f`` per element (``B`` calls for a batch of ``B``; ``B1 * B2`` for nested
vmaps), so a vmapped function is as fast as the equivalent Python loop, not as a batched op.
Gradients flow through (the unbind and the stack are differentiable). Being a loop, it also
allows what torch's vmap refuses (``.item()``, data-dependent Python control flow).
"""

from __future__ import annotations

import functools

from ember.func._tree import LEAF, Spec, tree_flatten, tree_unflatten
from ember.tensor import Tensor


def _fname(func) -> str:
    return getattr(func, "__name__", repr(func))


def _broadcast_prefix(dims, spec: Spec, what: str, err) -> list:
    """``dims`` (an int/None, or a tree that is a prefix of ``spec``) as one entry per leaf."""
    if dims is None or isinstance(dims, int):
        return [dims] * spec.n
    dspec_kind = type(dims)
    if spec.kind is None or dspec_kind is not spec.kind or len(dims) != len(spec.children):
        raise err(
            f"{what} is not compatible with the structure of `inputs`. {what} has structure "
            f"{tree_flatten(dims)[1]} but inputs has structure {spec}."
        )
    out: list = []
    if spec.kind is dict:
        if set(dims) != set(spec.keys):
            raise err(f"{what} is not compatible with the structure of `inputs`.")
        for k, child in zip(spec.keys, spec.children, strict=True):
            out += _broadcast_prefix(dims[k], child, what, err)
    else:
        for d, child in zip(dims, spec.children, strict=True):
            out += _broadcast_prefix(d, child, what, err)
    return out


def _rng():
    from ember.random.generator import default_generator

    return default_generator._rng.bit_generator


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """Vectorize ``func`` over dimension ``in_dims`` of its inputs, stacking its outputs along
    ``out_dims``.

    Args:
        func: a function of tensors (or nested tuples/lists/dicts of them) returning tensors.
        in_dims: an int (every input), or a tuple with one entry per positional argument (an
            int, None for "not mapped", or a nested structure matching that argument).
            Keyword arguments are passed unmapped.
        out_dims: an int, or one per output (None: the output is not batched).
        randomness: ``'error'`` (random ops on the default generator raise), ``'different'``
            (each element draws its own numbers) or ``'same'`` (each element sees the same
            random numbers).
        chunk_size: accepted for torch's API; ember computes one element at a time anyway.

    ember calls ``func`` once per batch element (see the module notes): same numbers as torch,
    Python-loop speed.

    Example:
        >>> x = ember.arange(6.0).reshape(2, 3)
        >>> ember.vmap(lambda a, b: a * b, in_dims=(0, None))(x, ember.tensor([1.0, 0.0, 2.0]))
        tensor([[ 0.,  0.,  4.],
                [ 3.,  0., 10.]])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)

    return wrapped


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs):
    name = _fname(func)
    head = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): "
    if isinstance(in_dims, bool) or not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"{head}expected `in_dims` to be int or a (potentially nested) tuple matching the "
            f"structure of inputs, got: {type(in_dims)}."
        )
    flat, spec = tree_flatten(args)
    dims = _broadcast_prefix(
        in_dims if isinstance(in_dims, int) else tuple(in_dims),
        spec,
        "in_dims",
        lambda m: ValueError(head + m),
    )
    size = None
    sizes = []
    pieces = []
    for x, d in zip(flat, dims, strict=True):
        if d is None:
            pieces.append(None)
            continue
        if not isinstance(x, Tensor):
            raise ValueError(
                f"{head}Got in_dim={d} for an input but the input is of type {type(x)}. We "
                "cannot vmap over non-Tensor arguments, please use None as the respective in_dim"
            )
        n = x.dim()
        if not -n <= d < n:
            raise ValueError(
                f"{head}Got in_dim={d} for some input, but that input is a Tensor of "
                f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}."
            )
        sizes.append(x.shape[d])
        size = x.shape[d] if size is None else size
        pieces.append(d)
    if size is None:
        raise ValueError(
            f"{head}at least one input must be a Tensor mapped over (an in_dim that is not "
            "None); got none."
        )
    if any(s != size for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    if size == 0:
        return _empty_batch(func, flat, dims, spec, out_dims, kwargs)
    # one unbind per input: B views, and one differentiable node (its backward is one stack)
    columns = [x if d is None else x.unbind(d) for x, d in zip(flat, pieces, strict=True)]
    gen = _rng()
    start = gen.state
    outs = []
    for b in range(size):
        if randomness == "same":
            gen.state = start  # each element draws the same numbers
        leaves = [c if d is None else c[b] for c, d in zip(columns, pieces, strict=True)]
        outs.append(func(*tree_unflatten(leaves, spec), **kwargs))
    if randomness == "error" and gen.state != start:
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use the "
            "'same' or 'different' randomness flags on vmap or perform the randomness operation "
            "out of vmap"
        )
    return _stack_outputs(func, outs, out_dims)


def _out_dims(func, out_dims, ospec: Spec):
    if isinstance(out_dims, bool) or not (out_dims is None or isinstance(out_dims, (int, tuple))):
        raise ValueError(
            f"vmap({_fname(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None "
            f"or a python collection of ints representing where in the outputs the vmapped "
            f"dimension should appear."
        )
    single = ospec is LEAF
    if isinstance(out_dims, tuple) and single:
        if len(out_dims) != 1:
            raise ValueError(
                f"vmap({_fname(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                "compatible with the structure of `outputs`."
            )
        out_dims = out_dims[0]
    return _broadcast_prefix(
        out_dims,
        ospec,
        "out_dims",
        lambda m: ValueError(
            f"vmap({_fname(func)}, ..., out_dims={out_dims})(<inputs>): "
            + m.replace("`inputs`", "`outputs`").replace("but inputs", "but outputs")
        ),
    )


def _stack_outputs(func, outs, out_dims):
    from ember.ops.joining import stack

    flats = []
    ospec = None
    for o in outs:
        f, s = tree_flatten(o)
        ospec = s if ospec is None else ospec
        flats.append(f)
    dims = _out_dims(func, out_dims, ospec)
    result = []
    for i, d in enumerate(dims):
        column = [f[i] for f in flats]
        if d is None:
            result.append(column[0])
            continue
        for v in column:
            if not isinstance(v, Tensor):
                raise ValueError(
                    f"vmap({_fname(func)}, ...): `{_fname(func)}` must only return Tensors, got "
                    f"type {type(v)}. Did you mean to set out_dims= to None for output?"
                )
        result.append(stack(column, dim=d))
    return tree_unflatten(result, ospec)


def _empty_batch(func, flat, dims, spec, out_dims, kwargs):
    # A batch of 0 elements: run ``func`` once on meta tensors (shapes only) to learn the output
    # shapes, and return empty tensors with a batch dimension of 0.
    from ember.ops.creation import empty

    leaves = []
    for x, d in zip(flat, dims, strict=True):
        if d is None:
            leaves.append(x)
        else:
            shape = list(x.shape)
            del shape[d]
            leaves.append(empty(shape, dtype=x.dtype, device="meta"))
    device = next(x.device for x, d in zip(flat, dims, strict=True) if d is not None)
    probe = func(*tree_unflatten(leaves, spec), **kwargs)
    pflat, ospec = tree_flatten(probe)
    odims = _out_dims(func, out_dims, ospec)
    result = []
    for v, d in zip(pflat, odims, strict=True):
        if d is None:
            result.append(v)
            continue
        if not isinstance(v, Tensor):
            raise ValueError(
                f"vmap({_fname(func)}, ...): `{_fname(func)}` must only return Tensors, got "
                f"type {type(v)}. Did you mean to set out_dims= to None for output?"
            )
        shape = list(v.shape)
        shape.insert(d if d >= 0 else len(shape) + 1 + d, 0)
        result.append(empty(shape, dtype=v.dtype, device=device))
    return tree_unflatten(result, ospec)
