"""Rows for the ops of ember/ops/indexing.py and its siblings (gather_scatter, index_dim,
masked, nonzero_unique): ``Tensor.__getitem__``/``__setitem__``, gather and scatter, the
index_* ops, masks, take/put, and the data-dependent ones (nonzero, unique).

Indices that must not repeat (scatter, index_copy, put without accumulate: which write wins is
unspecified there) are fixed in the row's function; where repeats are allowed they come from
``Int`` samples, so repeated indices are exercised in forward and backward.
"""

import numpy as np

from tests.opdb import Bool, Int, OpInfo, Sample

S = Sample


def _grid(i, d):
    return tuple(
        i if k == d else np.arange(i.shape[k]).reshape([-1 if j == k else 1 for j in range(i.ndim)])
        for k in range(i.ndim)
    )


def _np_gather(x, d, i):
    if x.ndim == 0:
        return x.reshape(1)[i.reshape(-1)].reshape(i.shape)
    return x[_grid(i, d % x.ndim)]


def _np_scatter(x, d, i, s, add=False):
    if x.ndim == 0:
        return _np_scatter(x.reshape(1), 0, i.reshape(1), np.reshape(s, (1,)), add).reshape(())
    out = x.copy()
    s = s if np.ndim(s) == 0 else s[tuple(slice(0, n) for n in i.shape)]
    if add:
        np.add.at(out, _grid(i, d % x.ndim), s)
    else:
        out[_grid(i, d % x.ndim)] = s
    return out


def _np_take_along_dim(x, i, d=None):
    if d is None:
        return x.reshape(-1)[i.reshape(-1)]
    a, b = list(x.shape), list(i.shape)
    a[d] = b[d] = 1
    shape = np.broadcast_shapes(tuple(a), tuple(b))
    sa, sb = list(shape), list(shape)
    sa[d], sb[d] = x.shape[d], i.shape[d]
    return np.take_along_axis(np.broadcast_to(x, sa), np.broadcast_to(i, sb), d)


def _dim_key(d, i):
    return (slice(None),) * d + (i,)


def _np_index_add(x, d, i, s, alpha=1):
    out = x.copy()
    np.add.at(out, _dim_key(d % x.ndim, i), s * alpha)
    return out


def _np_index_copy(x, d, i, s):
    out = x.copy()
    out[_dim_key(d % x.ndim, i)] = s
    return out


def _np_index_fill(x, d, i, v):
    out = x.copy()
    out[_dim_key(d % x.ndim, i)] = v
    return out


def _np_masked_select(x, m):
    shape = np.broadcast_shapes(x.shape, m.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(m, shape)]


def _np_masked_scatter(x, m, s):
    shape = np.broadcast_shapes(x.shape, m.shape)
    out = np.broadcast_to(x, shape).copy()
    mb = np.broadcast_to(m, shape)
    out[mb] = s.reshape(-1)[: mb.sum()]
    return out


def _np_put(x, i, s, accumulate=False):
    out = x.copy()
    flat = out.reshape(-1)
    if accumulate:
        np.add.at(flat, i.reshape(-1), s.reshape(-1))
    else:
        flat[i.reshape(-1)] = s.reshape(-1)
    return out


def _np_unique(x, return_inverse=False, return_counts=False):
    v, inv, c = np.unique(x.reshape(-1), return_inverse=True, return_counts=True)
    out = (v,)
    if return_inverse:
        out += (inv.reshape(x.shape),)
    if return_counts:
        out += (c,)
    return out


def _np_unique_consecutive(x, return_inverse=False, return_counts=False):
    f = x.reshape(-1)
    start = np.ones(f.shape, bool)
    start[1:] = f[1:] != f[:-1]
    out = (f[start],)
    if return_inverse:
        out += ((np.cumsum(start) - 1).reshape(x.shape),)
    if return_counts:
        out += (np.diff(np.append(np.flatnonzero(start), f.size)),)
    return out


def _set(key):
    """``y = x.clone(); y[key(lib, *rest)] = value`` as a row function (value last)."""

    def fn(lib, x, *rest):
        *idx, v = rest
        y = x.clone()
        y[key(lib, *idx)] = v
        return y

    return fn


def _np_set(key):
    def ref(x, *rest):
        *idx, v = rest
        y = x.copy()
        y[key(np, *idx)] = v
        return y

    return ref


def _inplace(method, *consts):
    """``y = x.clone(); y.method(*consts, *args)`` as a row function."""

    def fn(lib, x, *args, **kwargs):
        y = x.clone()
        getattr(y, method)(*[c(lib) if callable(c) else c for c in consts], *args, **kwargs)
        return y

    return fn


_PERM = [[2, 0, 3], [1, 3, 0]]  # a scatter index without repeats along dim 1


ROWS = [
    # ---- x[index] -------------------------------------------------------------------------
    OpInfo("__getitem__", lambda lib, x: x[1], lambda x: x[1], [S(((3, 4, 5),), name="int")]),
    OpInfo(
        "__getitem__",
        lambda lib, x: x[-1, 1:3],
        lambda x: x[-1, 1:3],
        [S(((3, 4, 5),), name="int_slice")],
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x: x[1:, None, ..., ::2],
        lambda x: x[1:, None, ..., ::2],
        [S(((3, 4, 5),), name="basic")],
    ),
    OpInfo(
        "__getitem__", lambda lib, x: x[..., None], lambda x: x[..., None], [S(((),), name="0d")]
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x: x[0, 1, 2],
        lambda x: x[0, 1, 2],
        [S(((3, 4, 5),), name="all_ints")],
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x, i: x[i],
        lambda x, i: x[i],
        [
            S(((5, 4), Int((7,), 0, 5)), name="repeated"),
            S(((5, 4), Int((2, 3), -5, 5)), name="negative_2d"),
        ],
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x, i, j: x[i, j],
        lambda x, i, j: x[i, j],
        [S(((3, 4, 5), Int((2, 1), 0, 3), Int((3,), 0, 4)), name="broadcast")],
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x, i, j: x[i, :, j],
        lambda x, i, j: x[i, :, j],
        [S(((3, 4, 5), Int((2,), 0, 3), Int((2,), 0, 5)), name="separated")],
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x, j: x[0, :, j],
        lambda x, j: x[0][:, j],
        [S(((3, 4, 5), Int((2,), 0, 5)), name="int_then_advanced")],
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x, j: x[1:, None, j],
        lambda x, j: x[1:, None, j],
        [S(((3, 4, 5), Int((3,), 0, 4)), name="mixed")],
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x: x[[0, 2, 0], 1:],
        lambda x: x[[0, 2, 0], 1:],
        [S(((3, 4),), name="list")],
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x, m: x[m],
        lambda x, m: x[m],
        [S(((3, 4), Bool((3, 4))), name="mask"), S(((3, 4), Bool((3,))), name="mask_rows")],
        meta=False,
    ),
    OpInfo(
        "__getitem__",
        lambda lib, x, m: x[:, m, 1],
        lambda x, m: x[:, m, 1],
        [S(((3, 4, 5), Bool((4,))), name="mask_mixed")],
        meta=False,
    ),
    OpInfo("__getitem__", lambda lib, x: x[True], lambda x: x[None], [S(((3,),), name="true")]),
    # ---- x[index] = value -----------------------------------------------------------------
    OpInfo(
        "__setitem__",
        _set(lambda lib: 1),
        _np_set(lambda lib: 1),
        [
            S(((3, 4), 2.5), name="number"),
            S(((3, 4), (4,)), name="tensor"),
            S(((3, 4), ()), name="broadcast_0d"),
        ],
    ),
    OpInfo(
        "__setitem__",
        _set(lambda lib: (slice(1, None), None)),
        _np_set(lambda lib: (slice(1, None), None)),
        [S(((3, 4), (1, 4)), name="slice")],
    ),
    OpInfo(
        "__setitem__",
        _set(lambda lib: lib.tensor([2, 0])),
        _np_set(lambda lib: [2, 0]),
        [S(((3, 4), (2, 4)), name="advanced"), S(((3, 4), (4,)), name="advanced_bcast")],
    ),
    OpInfo(
        "__setitem__",
        _set(lambda lib, m: m),
        _np_set(lambda lib, m: m),
        [S(((3, 4), Bool((3, 4)), ()), name="mask")],
    ),
    OpInfo(
        "__setitem__",
        _set(lambda lib: (0, slice(None), lib.tensor([3, 1]))),
        lambda x, v: _np_set_int_adv(x, v),
        [S(((2, 3, 4), (3, 2)), name="int_then_advanced")],
    ),
    OpInfo(
        "__setitem__", _set(lambda lib: ...), _np_set(lambda lib: ...), [S(((), ()), name="0d")]
    ),
    # ---- gather / scatter ---------------------------------------------------------------------
    OpInfo(
        "gather",
        lambda lib, x, d, i: lib.gather(x, d, i),
        _np_gather,
        [
            S(((3, 4), 1, Int((3, 2), 0, 4))),
            S(((3, 4), 0, Int((5, 3), 0, 3)), name="smaller"),
            S(((3, 4), -1, Int((2, 6), 0, 4)), name="neg_dim"),
            S(((), 0, Int((), 0, 1)), name="0d"),
            S(((5,), 0, Int((7,), 0, 5)), name="1d"),
        ],
    ),
    OpInfo(
        "scatter",
        lambda lib, x, s: lib.scatter(x, 1, lib.tensor(_PERM), s),
        lambda x, s: _np_scatter(x, 1, np.array(_PERM), s),
        [S(((2, 4), (2, 3)))],
    ),
    OpInfo(
        "scatter",
        lambda lib, x: x.scatter(1, lib.tensor(_PERM), 2.5),
        lambda x: _np_scatter(x, 1, np.array(_PERM), 2.5),
        [S(((3, 4),), name="value")],
    ),
    OpInfo(
        "scatter",
        lambda lib, x: x.scatter(0, lib.tensor([[1, 0, 2, 2]]), -1.0, reduce="multiply"),
        lambda x: _mul_at(x, np.array([[1, 0, 2, 2]]), -1.0),
        [S(((3, 4),), name="reduce")],
        grad=False,
    ),
    OpInfo(
        "scatter_add",
        lambda lib, x, d, i, s: lib.scatter_add(x, d, i, s),
        lambda x, d, i, s: _np_scatter(x, d, i, s, add=True),
        [
            S(((3, 4), 0, Int((5, 4), 0, 3), (5, 4))),
            S(((3, 4), 1, Int((2, 6), 0, 4), (2, 6))),
            S(((), 0, Int((), 0, 1), ()), name="0d"),
        ],
    ),
    OpInfo(
        "scatter_",
        _inplace("scatter_", 1, lambda lib: lib.tensor(_PERM)),
        lambda x, s: _np_scatter(x, 1, np.array(_PERM), s),
        [S(((2, 4), (2, 3)))],
    ),
    OpInfo(
        "scatter_add_",
        _inplace("scatter_add_", 0),
        lambda x, i, s: _np_scatter(x, 0, i, s, add=True),
        [S(((3, 4), Int((5, 4), 0, 3), (5, 4)))],
    ),
    OpInfo(
        "take_along_dim",
        lambda lib, x, i, d=None: lib.take_along_dim(x, i, d),
        _np_take_along_dim,
        [
            S(((3, 4), Int((3, 2), 0, 4), 1)),
            S(((3, 4), Int((5, 1), 0, 3), 0), name="bcast"),
            S(((3, 4), Int((6,), 0, 12)), name="flat"),
        ],
    ),
    # ---- index_* ------------------------------------------------------------------------------
    OpInfo(
        "index_select",
        lambda lib, x, d, i: lib.index_select(x, d, i),
        lambda x, d, i: np.take(x, i.reshape(-1), d) if x.ndim else x,
        [
            S(((3, 4), 1, Int((5,), 0, 4))),
            S(((3, 4), -2, Int((), 0, 3)), name="0d_index"),
            S(((), 0, Int((1,), 0, 1)), name="0d"),
        ],
    ),
    OpInfo(
        "index_add",
        lambda lib, x, d, i, s, **kw: lib.index_add(x, d, i, s, **kw),
        _np_index_add,
        [
            S(((3, 4), 0, Int((5,), 0, 3), (5, 4))),
            S(((3, 4), 1, Int((3,), 0, 4), (3, 3)), {"alpha": 2.5}, name="alpha"),
        ],
    ),
    OpInfo(
        "index_add_",
        _inplace("index_add_", 1),
        lambda x, i, s: _np_index_add(x, 1, i, s),
        [S(((3, 4), Int((6,), 0, 4), (3, 6)))],
    ),
    OpInfo(
        "index_copy",
        lambda lib, x, s: lib.index_copy(x, 1, lib.tensor([3, 0]), s),
        lambda x, s: _np_index_copy(x, 1, np.array([3, 0]), s),
        [S(((3, 4), (3, 2)))],
    ),
    OpInfo(
        "index_copy_",
        _inplace("index_copy_", 0, lambda lib: lib.tensor([2, 0])),
        lambda x, s: _np_index_copy(x, 0, np.array([2, 0]), s),
        [S(((3, 4), (2, 4)))],
    ),
    OpInfo(
        "index_fill",
        lambda lib, x, d, i, v: lib.index_fill(x, d, i, v),
        _np_index_fill,
        [
            S(((3, 4), 1, Int((3,), 0, 4), 2.5)),
            S(((3, 4), 0, Int((4,), 0, 3), ()), name="tensor_value"),
        ],
    ),
    OpInfo(
        "index_fill_",
        _inplace("index_fill_", -1),
        lambda x, i, v: _np_index_fill(x, 1, i, v),
        [S(((3, 4), Int((2,), 0, 4), -1.0)), S(((3, 4), Int((3,), 0, 4), ()), name="tensor_value")],
    ),
    # ---- masks ---------------------------------------------------------------------------------
    OpInfo(
        "masked_select",
        lambda lib, x, m: lib.masked_select(x, m),
        _np_masked_select,
        [
            S(((3, 4), Bool((3, 4)))),
            S(((3, 4), Bool((4,))), name="bcast_mask"),
            S(((4,), Bool((3, 4))), name="bcast_input"),
            S(((), Bool(())), name="0d"),
        ],
        meta=False,
    ),
    OpInfo(
        "masked_scatter",
        lambda lib, x, m, s: lib.masked_scatter(x, m, s),
        _np_masked_scatter,
        [
            S(((3, 4), Bool((3, 4)), (12,))),
            S(((3, 4), Bool((4,)), (3, 5)), name="bcast"),
            S(((4,), Bool((2, 4)), (9,)), name="bcast_input"),
        ],
    ),
    OpInfo(
        "masked_scatter_",
        _inplace("masked_scatter_"),
        _np_masked_scatter,
        [S(((3, 4), Bool((4,)), (13,)))],
    ),
    # ---- take / put / index_put ----------------------------------------------------------------
    OpInfo(
        "take",
        lambda lib, x, i: lib.take(x, i),
        lambda x, i: x.reshape(-1)[i],
        [S(((3, 4), Int((2, 5), -12, 12))), S(((), Int((3,), -1, 1)), name="0d")],
    ),
    OpInfo(
        "put",
        lambda lib, x, s: lib.put(x, lib.tensor([0, 5, -1]), s),
        lambda x, s: _np_put(x, np.array([0, 5, -1]), s),
        [S(((3, 4), (3,)))],
    ),
    OpInfo(
        "put",
        lambda lib, x, i, s, **kw: x.put(i, s, **kw),
        _np_put,
        [S(((3, 4), Int((2, 3), -12, 12), (6,)), {"accumulate": True}, name="accumulate")],
    ),
    OpInfo(
        "put_",
        _inplace("put_"),
        _np_put,
        [S(((3, 4), Int((7,), -12, 12), (7,)), {"accumulate": True})],
    ),
    OpInfo(
        "index_put",
        lambda lib, x, v: lib.index_put(x, (lib.tensor([0, 2]), lib.tensor([3, 3])), v),
        lambda x, v: _np_index_put(x, ([0, 2], [3, 3]), v),
        [S(((3, 4), (2,))), S(((3, 4), ()), name="bcast")],
    ),
    OpInfo(
        "index_put",
        lambda lib, x, i, v: x.index_put((i,), v, accumulate=True),
        lambda x, i, v: _np_index_put(x, (i,), v, True),
        [S(((3, 4), Int((5,), 0, 3), (5, 4)), name="accumulate")],
    ),
    OpInfo(
        "index_put",
        lambda lib, x, m, v: x.index_put((m,), v),
        lambda x, m, v: _np_index_put(x, (m,), v),
        [S(((3, 4), Bool((3, 4)), ()), name="mask")],
    ),
    OpInfo(
        "index_put_",
        _inplace("index_put_", lambda lib: (lib.tensor([2, 0]),)),
        lambda x, v: _np_index_put(x, ([2, 0],), v),
        [S(((3, 4), (2, 4)))],
    ),
    OpInfo(
        "index_put_",
        lambda lib, x, i, v: x.clone().index_put_((i,), v, accumulate=True),
        lambda x, i, v: _np_index_put(x, (i,), v, True),
        [S(((3, 4), Int((5,), 0, 3), (4,)), name="accumulate")],
    ),
    OpInfo(
        "select_scatter",
        lambda lib, x, s, d, i: lib.select_scatter(x, s, d, i),
        lambda x, s, d, i: _np_select_scatter(x, s, d, i),
        [S(((3, 4), (4,), 0, -1)), S(((2, 3, 4), (2, 4), 1, 0))],
    ),
    OpInfo(
        "slice_scatter",
        lambda lib, x, s, **kw: lib.slice_scatter(x, s, **kw),
        lambda x, s, dim=0, start=None, end=None, step=1: _np_slice_scatter(
            x, s, dim, start, end, step
        ),
        [
            S(((3, 4), (3, 4))),
            S(((3, 4), (3, 2)), {"dim": 1, "start": 1, "step": 2}),
            S(((5, 4), (2, 4)), {"start": -3, "end": -1}),
        ],
    ),
    # ---- data-dependent results ------------------------------------------------------------
    OpInfo(
        "nonzero",
        lambda lib, x: lib.nonzero(x),
        np.argwhere,
        [S((Int((3, 4), 0, 2),)), S((Int((), 1, 2),), name="0d")],
        grad=False,
        meta=False,
    ),
    OpInfo(
        "nonzero",
        lambda lib, x: x.nonzero(as_tuple=True),
        np.nonzero,
        [S((Int((3, 4), 0, 2),), name="as_tuple")],
        grad=False,
        meta=False,
    ),
    OpInfo(
        "argwhere",
        lambda lib, x: lib.argwhere(x),
        np.argwhere,
        [S((Int((2, 3, 4), 0, 2),)), S(((3, 4),), name="float")],
        grad=False,
        meta=False,
    ),
    OpInfo(
        "unique",
        lambda lib, x, **kw: lib.unique(x, **kw),
        _np_unique,
        [
            S((Int((10,), 0, 4),)),
            S((Int((3, 4), 0, 5),), {"return_inverse": True}, name="inverse"),
            S((Int((3, 4), 0, 5),), {"return_inverse": True, "return_counts": True}, name="all"),
            S(((6,),), {"return_counts": True}, name="float"),
        ],
        grad=False,
        meta=False,
    ),
    OpInfo(
        "unique_consecutive",
        lambda lib, x, **kw: lib.unique_consecutive(x, **kw),
        _np_unique_consecutive,
        [
            S((Int((10,), 0, 2),)),
            S((Int((3, 4), 0, 2),), {"return_inverse": True, "return_counts": True}, name="all"),
        ],
        grad=False,
        meta=False,
    ),
]


def _mul_at(x, i, v):
    out = x.copy()
    np.multiply.at(out, _grid(i, 0), v)
    return out


def _np_set_int_adv(x, v):
    y = x.copy()
    y[0][:, [3, 1]] = v
    return y


def _np_index_put(x, idx, v, accumulate=False):
    out = x.copy()
    key = tuple(np.asarray(i) for i in idx)
    if accumulate:
        np.add.at(out, key, v)
    else:
        out[key] = v
    return out


def _np_select_scatter(x, s, d, i):
    out = x.copy()
    out[_dim_key(d % x.ndim, i)] = s
    return out


def _np_slice_scatter(x, s, dim, start, end, step):
    out = x.copy()
    out[_dim_key(dim, slice(start, end, step))] = s
    return out
