"""Rows for the ops of ember/ops/shape.py and its siblings broadcast, slicing, joining,
rearrange and diagonal (views, joining, splitting, flips, repeats, triangles, diagonals,
broadcasting) and the shape methods of Tensor."""

import numpy as np

from tests.opdb import Int, OpInfo, Sample

S = Sample


def _np_diag_embed(a, offset=0, dim1=-2, dim2=-1):
    n = a.ndim + 1
    d1, d2 = dim1 % n, dim2 % n
    m = a.shape[-1] + abs(offset)
    rest = iter(a.shape[:-1])
    shape = tuple(m if i in (d1, d2) else next(rest) for i in range(n))
    out = np.zeros(shape, a.dtype)
    d = np.diagonal(out, offset, d1, d2)
    d.setflags(write=True)
    d[...] = a
    return out


def _np_diagonal_scatter(a, src, offset=0, dim1=0, dim2=1):
    out = a.copy()
    d = np.diagonal(out, offset, dim1, dim2)
    d.setflags(write=True)
    d[...] = src
    return out


def _np_split(a, sizes, dim):
    bounds = np.cumsum(sizes)[:-1]
    return np.split(a, bounds, axis=dim)


def _np_tensor_split(a, ios, dim=0):
    return np.array_split(a, ios, axis=dim)


def _np_chunk(a, chunks, dim):
    size = a.shape[dim]
    ss = -(-size // chunks)
    n = -(-size // ss)
    return _np_split(a, [ss] * (n - 1) + [size - ss * (n - 1)], dim)


def _np_repeat_interleave(a, r, dim=None):
    if dim is None:
        return np.repeat(a.reshape(-1), r)
    return np.repeat(a, r, axis=dim)


def _np_meshgrid(*xs, indexing="ij"):
    return tuple(np.meshgrid(*xs, indexing=indexing))


def _np_atleast(n):
    f = {1: np.atleast_1d, 2: np.atleast_2d, 3: np.atleast_3d}[n]
    return f


def _np_triangle(upper):
    def ref(a, k=0):
        n, m = a.shape[-2:]
        keep = ~np.tri(n, m, k - 1, dtype=bool) if upper else np.tri(n, m, k, dtype=bool)
        return np.where(keep, a, 0)

    return ref


def _np_movedim(a, s, d):
    return np.moveaxis(a, s, d)


def _np_flatten(a, s=0, e=-1):
    if a.ndim == 0:
        return a.reshape(1)
    s, e = s % a.ndim, e % a.ndim
    return a.reshape(a.shape[:s] + (-1,) + a.shape[e + 1 :])


ROWS = [
    # ---- same data, new shape ---------------------------------------------------------------
    OpInfo(
        "reshape",
        lambda lib, x: lib.reshape(x, (2, -1)),
        lambda x: x.reshape(2, -1),
        [S(((3, 4),)), S(((2, 3, 1),))],
    ),
    OpInfo(
        "reshape",
        lambda lib, x: x.t().reshape(-1),
        lambda x: x.T.reshape(-1),
        [S(((3, 4),), name="non_contiguous")],
    ),
    OpInfo("reshape", lambda lib, x: x.reshape(()), lambda x: x.reshape(()), [S(((1, 1),))]),
    OpInfo("view", lambda lib, x: x.view(4, 3), lambda x: x.reshape(4, 3), [S(((3, 4),))]),
    OpInfo("view", lambda lib, x: x.view(-1), lambda x: x.reshape(-1), [S(((),), name="0d")]),
    OpInfo(
        "view_as",
        lambda lib, x, y: x.view_as(y),
        lambda x, y: x.reshape(y.shape),
        [S(((6,), (2, 3)))],
    ),
    OpInfo(
        "reshape_as",
        lambda lib, x, y: x.t().reshape_as(y),
        lambda x, y: x.T.reshape(y.shape),
        [S(((2, 3), (6,)))],
    ),
    OpInfo("ravel", lambda lib, x: lib.ravel(x), lambda x: x.ravel(), [S(((2, 3),)), S(((),))]),
    OpInfo(
        "ravel",
        lambda lib, x: x.mT.ravel(),
        lambda x: np.swapaxes(x, -1, -2).ravel(),
        [S(((2, 3, 4),), name="non_contiguous")],
    ),
    OpInfo(
        "flatten",
        lambda lib, x, s=0, e=-1: lib.flatten(x, s, e),
        _np_flatten,
        [
            S(((2, 3, 4),)),
            S(((2, 3, 4), 1)),
            S(((2, 3, 4), 0, -2)),
            S(((),), name="0d"),
            S(((2, 3, 4), -2, -2), name="single"),
        ],
    ),
    OpInfo(
        "unflatten",
        lambda lib, x: lib.unflatten(x, -1, (2, -1)),
        lambda x: x.reshape(x.shape[:-1] + (2, -1)),
        [S(((3, 4),)), S(((4,),))],
    ),
    OpInfo(
        "squeeze",
        lambda lib, x: lib.squeeze(x),
        np.squeeze,
        [S(((3, 1, 4, 1),)), S(((1,),)), S(((),))],
    ),
    OpInfo(
        "squeeze",
        lambda lib, x: x.squeeze(-1),
        lambda x: np.squeeze(x, -1),
        [S(((3, 1, 4, 1),), name="dim")],
    ),
    OpInfo(
        "squeeze",
        lambda lib, x: x.squeeze((0, 2)),
        lambda x: x.reshape(x.shape[1:2]),
        [S(((1, 3, 1),), name="dims")],
    ),
    OpInfo("squeeze", lambda lib, x: x.squeeze(0), lambda x: x, [S(((3, 4),), name="non_one")]),
    OpInfo(
        "unsqueeze",
        lambda lib, x, d: lib.unsqueeze(x, d),
        np.expand_dims,
        [S(((3, 4), 0)), S(((3, 4), -1)), S(((), 0)), S(((3,), -2))],
    ),
    OpInfo(
        "expand",
        lambda lib, x: x.expand(2, 3, 4),
        lambda x: np.broadcast_to(x, (2, 3, 4)),
        [S(((3, 1),)), S(((1, 3, 4),)), S(((),))],
    ),
    OpInfo(
        "expand",
        lambda lib, x: x.expand(-1, 4),
        lambda x: np.broadcast_to(x, (3, 4)),
        [S(((3, 1),), name="minus_one")],
    ),
    OpInfo(
        "expand_as",
        lambda lib, x, y: x.expand_as(y),
        lambda x, y: np.broadcast_to(x, y.shape),
        [S(((3, 1), (2, 3, 4)))],
    ),
    OpInfo(
        "broadcast_to",
        lambda lib, x: lib.broadcast_to(x, (2, 3, 4)),
        lambda x: np.broadcast_to(x, (2, 3, 4)),
        [S(((4,),)), S(((3, 1),)), S(((),))],
    ),
    OpInfo(
        "broadcast_shapes",
        lambda lib, x: x.expand(lib.broadcast_shapes(x.shape, (2, 1, 1), 1)),
        lambda x: np.broadcast_to(x, np.broadcast_shapes(x.shape, (2, 1, 1), (1,))),
        [S(((3, 4),)), S(((),))],
    ),
    OpInfo(
        "broadcast_tensors",
        lambda lib, a, b: lib.broadcast_tensors(a, b),
        lambda a, b: np.broadcast_arrays(a, b),
        [S(((3, 1), (4,))), S(((2, 1, 3), (4, 1)))],
    ),
    # ---- permutations ---------------------------------------------------------------------
    OpInfo(
        "permute",
        lambda lib, x: lib.permute(x, (2, 0, 1)),
        lambda x: x.transpose(2, 0, 1),
        [S(((2, 3, 4),))],
    ),
    OpInfo("permute", lambda lib, x: x.permute(-1, 0), lambda x: x.T, [S(((2, 3),), name="neg")]),
    OpInfo("permute", lambda lib, x: x.permute(()), lambda x: x, [S(((),), name="0d")]),
    OpInfo(
        "transpose",
        lambda lib, x, a, b: lib.transpose(x, a, b),
        lambda x, a, b: np.swapaxes(x, a, b) if x.ndim else x,
        [S(((2, 3, 4), 0, 2)), S(((2, 3), -1, 0)), S(((), 0, -1))],
    ),
    OpInfo(
        "swapaxes",
        lambda lib, x: lib.swapaxes(x, 0, 1),
        lambda x: np.swapaxes(x, 0, 1),
        [S(((2, 3),))],
    ),
    OpInfo(
        "swapdims",
        lambda lib, x: lib.swapdims(x, 1, -1),
        lambda x: np.swapaxes(x, 1, -1),
        [S(((2, 3, 4),))],
    ),
    OpInfo("t", lambda lib, x: lib.t(x), lambda x: x.T, [S(((2, 3),)), S(((3,),)), S(((),))]),
    OpInfo("T", lambda lib, x: x.T, lambda x: x.T, [S(((2, 3),))]),
    OpInfo(
        "mT", lambda lib, x: x.mT, lambda x: np.swapaxes(x, -1, -2), [S(((2, 3),)), S(((4, 2, 3),))]
    ),
    OpInfo("H", lambda lib, x: x.H, lambda x: x.T, [S(((2, 3),))]),
    OpInfo("mH", lambda lib, x: x.mH, lambda x: np.swapaxes(x, -1, -2), [S(((4, 2, 3),))]),
    OpInfo(
        "adjoint",
        lambda lib, x: lib.adjoint(x),
        lambda x: np.swapaxes(x, -1, -2),
        [S(((4, 2, 3),))],
    ),
    OpInfo(
        "movedim",
        lambda lib, x, s, d: lib.movedim(x, s, d),
        _np_movedim,
        [S(((2, 3, 4), 0, -1)), S(((2, 3, 4), [0, 1], [2, 0])), S(((2, 3), -1, 0))],
    ),
    OpInfo(
        "moveaxis",
        lambda lib, x: lib.moveaxis(x, (1,), (0,)),
        lambda x: np.moveaxis(x, 1, 0),
        [S(((2, 3, 4),))],
    ),
    # ---- views into part of a tensor ---------------------------------------------------------
    OpInfo(
        "narrow",
        lambda lib, x, d, s, n: lib.narrow(x, d, s, n),
        lambda x, d, s, n: np.take(x, range(s % x.shape[d], s % x.shape[d] + n), axis=d),
        [S(((3, 4), 1, 1, 2)), S(((3, 4), -2, -2, 2)), S(((3, 4), 0, 1, 0), name="empty")],
    ),
    OpInfo(
        "select",
        lambda lib, x, d, i: lib.select(x, d, i),
        lambda x, d, i: np.take(x, i, d),
        [S(((3, 4), 1, -1)), S(((3,), 0, 2)), S(((2, 3, 4), -2, 0))],
    ),
    OpInfo(
        "unbind",
        lambda lib, x, d=0: lib.unbind(x, d),
        lambda x, d=0: tuple(np.moveaxis(x, d, 0)),
        [S(((3, 4),)), S(((3, 4), 1)), S(((2, 3, 4), -1)), S(((3,),))],
    ),
    OpInfo(
        "split",
        lambda lib, x, ss, d=0: lib.split(x, ss, d),
        lambda x, ss, d=0: _np_split(
            x, [ss] * (x.shape[d] // ss) + ([x.shape[d] % ss] if x.shape[d] % ss else []), d
        ),
        [S(((5, 4), 2)), S(((3, 4), 2, 1)), S(((3, 4), 4, -1))],
    ),
    OpInfo(
        "split",
        lambda lib, x: x.split([1, 0, 3], 1),
        lambda x: _np_split(x, [1, 0, 3], 1),
        [S(((3, 4),), name="sizes")],
    ),
    OpInfo(
        "split_with_sizes",
        lambda lib, x: lib.split_with_sizes(x, [2, 1], 0),
        lambda x: _np_split(x, [2, 1], 0),
        [S(((3, 4),))],
    ),
    OpInfo(
        "chunk",
        lambda lib, x, c, d=0: lib.chunk(x, c, d),
        _np_chunk,
        [S(((5, 4), 3, 0)), S(((3, 4), 2, 1)), S(((6,), 4, 0)), S(((3,), 5, 0))],
    ),
    OpInfo(
        "tensor_split",
        lambda lib, x, n, d=0: lib.tensor_split(x, n, d),
        _np_tensor_split,
        [
            S(((5, 4), 3)),
            S(((3, 7), 2, 1)),
            S(((3, 4), [1, 3], -1)),
            S(((6,), [1, -2]), name="neg_index"),
        ],
    ),
    OpInfo(
        "hsplit",
        lambda lib, x: lib.hsplit(x, 2),
        lambda x: np.hsplit(x, 2),
        [S(((3, 4),)), S(((4,),))],
    ),
    OpInfo(
        "vsplit",
        lambda lib, x: lib.vsplit(x, [1, 2]),
        lambda x: np.vsplit(x, [1, 2]),
        [S(((3, 4),))],
    ),
    OpInfo("dsplit", lambda lib, x: lib.dsplit(x, 2), lambda x: np.dsplit(x, 2), [S(((2, 3, 4),))]),
    OpInfo(
        "diagonal",
        lambda lib, x, o=0, a=0, b=1: lib.diagonal(x, o, a, b),
        np.diagonal,
        [
            S(((3, 4),)),
            S(((3, 4), 1)),
            S(((3, 4), -2)),
            S(((2, 3, 4), 1, 2, 0)),
            S(((2, 3, 4), 0, -1, -2)),
            S(((3, 4), 5), name="empty"),
        ],
    ),
    # ---- joining ----------------------------------------------------------------------------
    OpInfo(
        "cat",
        lambda lib, xs, d=0: lib.cat(xs, d),
        lambda xs, d=0: np.concatenate(xs, d),
        [
            S(([(2, 3), (1, 3)],)),
            S(([(2, 3), (2, 1), (2, 2)], 1)),
            S(([(2, 3, 4)], -1)),
            S(([(2, 3), (2, 0)], -1), name="empty_part"),
        ],
    ),
    OpInfo(
        "cat",
        lambda lib, x, e: lib.cat([x, e, x]),
        lambda x, e: np.concatenate([x, x]),
        [S(((2, 3), (0,)), name="legacy_empty")],
    ),
    OpInfo(
        "cat",
        lambda lib, x: lib.cat([x, lib.ones(2, 3, dtype=lib.int64)]),
        lambda x: np.concatenate([x, np.ones((2, 3))]),
        [S(((2, 3),), name="promote")],
    ),
    OpInfo(
        "concat",
        lambda lib, xs: lib.concat(xs, 1),
        lambda xs: np.concatenate(xs, 1),
        [S(([(2, 3), (2, 2)],))],
    ),
    OpInfo(
        "concatenate",
        lambda lib, xs: lib.concatenate(xs, 0),
        lambda xs: np.concatenate(xs, 0),
        [S(([(1, 3), (2, 3)],))],
    ),
    OpInfo(
        "stack",
        lambda lib, xs, d=0: lib.stack(xs, d),
        lambda xs, d=0: np.stack(xs, d),
        [
            S(([(2, 3), (2, 3)],)),
            S(([(2, 3), (2, 3), (2, 3)], -1)),
            S(([(2, 3), (2, 3), (2, 3)], 1)),
            S(([(2, 3, 4), (2, 3, 4)], -2)),
            S(([(), ()],)),
            S(([(3,)], 1)),
        ],
    ),
    OpInfo(
        "hstack",
        lambda lib, xs: lib.hstack(xs),
        np.hstack,
        [S(([(2, 3), (2, 1)],)), S(([(3,), (2,)],)), S(([(), (2,)],))],
    ),
    OpInfo(
        "vstack",
        lambda lib, xs: lib.vstack(xs),
        np.vstack,
        [S(([(2, 3), (1, 3)],)), S(([(3,), (3,)],)), S(([(), ()],))],
    ),
    OpInfo("row_stack", lambda lib, xs: lib.row_stack(xs), np.vstack, [S(([(3,), (2, 3)],))]),
    OpInfo(
        "dstack",
        lambda lib, xs: lib.dstack(xs),
        np.dstack,
        [S(([(2, 3), (2, 3)],)), S(([(3,), (3,)],)), S(([(2, 3, 1), (2, 3, 2)],))],
    ),
    OpInfo(
        "column_stack",
        lambda lib, xs: lib.column_stack(xs),
        np.column_stack,
        [S(([(3,), (3, 2)],)), S(([(), ()],))],
    ),
    OpInfo(
        "atleast_1d",
        lambda lib, x: lib.atleast_1d(x),
        np.atleast_1d,
        [S(((),)), S(((3,),)), S(((2, 3),))],
    ),
    OpInfo(
        "atleast_2d",
        lambda lib, x: lib.atleast_2d(x),
        np.atleast_2d,
        [S(((),)), S(((3,),)), S(((2, 3),))],
    ),
    OpInfo(
        "atleast_3d",
        lambda lib, x: lib.atleast_3d(x),
        np.atleast_3d,
        [S(((),)), S(((3,),)), S(((2, 3),)), S(((2, 3, 4),))],
    ),
    OpInfo(
        "atleast_3d",
        lambda lib, a, b: lib.atleast_3d([a, b]),
        lambda a, b: tuple(np.atleast_3d(a, b)),
        [S(((3,), (2, 3)), name="list")],
    ),
    # ---- flips, rolls, repeats ---------------------------------------------------------------
    OpInfo(
        "flip",
        lambda lib, x, d: lib.flip(x, d),
        lambda x, d: np.flip(x, d) if x.ndim else x,
        [S(((3, 4), [0])), S(((2, 3, 4), [0, -1])), S(((3,), [0])), S(((), [0]))],
    ),
    OpInfo(
        "flip",
        lambda lib, x: x.flip(1, 0),
        lambda x: np.flip(x, (0, 1)),
        [S(((3, 4),), name="varargs")],
    ),
    OpInfo("fliplr", lambda lib, x: lib.fliplr(x), np.fliplr, [S(((3, 4),)), S(((2, 3, 4),))]),
    OpInfo("flipud", lambda lib, x: lib.flipud(x), np.flipud, [S(((3, 4),)), S(((3,),))]),
    OpInfo(
        "roll",
        lambda lib, x, s, d=None: lib.roll(x, s, d),
        lambda x, s, d=None: np.roll(x, s, d if d is None or isinstance(d, int) else tuple(d)),
        [
            S(((3, 4), 1)),
            S(((3, 4), -5)),
            S(((3, 4), 2, 1)),
            S(((2, 3, 4), [1, -2], [0, 2])),
            S(((), 3)),
        ],
    ),
    OpInfo(
        "repeat",
        lambda lib, x: x.repeat(2, 1, 3),
        lambda x: np.tile(x, (2, 1, 3)),
        [S(((3, 4),)), S(((4,),)), S(((),))],
    ),
    OpInfo(
        "repeat",
        lambda lib, x: x.repeat((2, 0)),
        lambda x: np.tile(x, (2, 0)),
        [S(((3, 4),), name="zero")],
    ),
    OpInfo(
        "tile",
        lambda lib, x, r: lib.tile(x, r),
        np.tile,
        [S(((3, 4), [2])), S(((3, 4), [2, 1, 2])), S(((), [3])), S(((2,), []))],
    ),
    OpInfo(
        "repeat_interleave",
        lambda lib, x, r, d=None: lib.repeat_interleave(x, r, d),
        _np_repeat_interleave,
        [S(((3, 4), 2)), S(((3, 4), 3, 1)), S(((3, 4), 2, -2)), S(((), 2)), S(((3,), 0))],
    ),
    OpInfo(
        "repeat_interleave",
        lambda lib, x: x.repeat_interleave(lib.tensor([2, 0, 1]), 1),
        lambda x: np.repeat(x, [2, 0, 1], axis=1),
        [S(((2, 3),), name="tensor")],
        meta=False,
    ),
    OpInfo(
        "repeat_interleave",
        lambda lib, r: lib.repeat_interleave(r),
        lambda r: np.repeat(np.arange(len(r)), r),
        [S((Int((4,), 0, 3),), name="counts")],
        grad=False,
        meta=False,
    ),
    # ---- triangles and diagonals ---------------------------------------------------------------
    OpInfo(
        "tril",
        lambda lib, x, k=0: lib.tril(x, k),
        _np_triangle(False),
        [S(((3, 4),)), S(((3, 4), 1)), S(((2, 4, 3), -1)), S(((3, 3), -5))],
    ),
    OpInfo(
        "triu",
        lambda lib, x, k=0: lib.triu(x, k),
        _np_triangle(True),
        [S(((3, 4),)), S(((3, 4), -1)), S(((2, 4, 3), 2))],
    ),
    OpInfo(
        "diag",
        lambda lib, x, k=0: lib.diag(x, k),
        lambda x, k=0: np.diag(x, k),
        [S(((3,),)), S(((3,), 2)), S(((3,), -1)), S(((3, 4),)), S(((3, 4), 1)), S(((3, 4), -2))],
    ),
    OpInfo(
        "diag_embed",
        lambda lib, x, o=0, a=-2, b=-1: lib.diag_embed(x, o, a, b),
        _np_diag_embed,
        [S(((3,),)), S(((2, 3), 1)), S(((2, 3), -1, 0, 2)), S(((2, 3), 0, -1, 0))],
    ),
    OpInfo(
        "diagonal_scatter",
        lambda lib, x, s, o=0, a=0, b=1: lib.diagonal_scatter(x, s, o, a, b),
        _np_diagonal_scatter,
        [
            S(((3, 4), (3,))),
            S(((3, 4), (3,), 1)),
            S(((3, 4), (2,), -1)),
            S(((2, 3, 4), (4, 2), 0, 0, 1)),
        ],
    ),
    # ---- grids --------------------------------------------------------------------------------
    OpInfo(
        "meshgrid",
        lambda lib, a, b, indexing="ij": lib.meshgrid(a, b, indexing=indexing),
        _np_meshgrid,
        [S(((3,), (4,))), S(((3,), (4,)), {"indexing": "xy"}), S(((), (2,)))],
    ),
    OpInfo(
        "meshgrid",
        lambda lib, xs: lib.meshgrid(xs, indexing="xy"),
        lambda xs: tuple(np.meshgrid(*xs, indexing="xy")),
        [S(([(3,), (4,), (2,)],), name="three")],
    ),
]
