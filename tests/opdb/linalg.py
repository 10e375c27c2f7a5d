"""Rows for the ops of ember/ops/linalg.py (products, einsum, cross) and ember/ops/softmax.py."""

import warnings

import numpy as np

from tests.opdb import Int, OpInfo, Sample

MATMUL = [
    Sample(((3,), (3,)), name="1d_1d"),
    Sample(((2, 3), (3,)), name="2d_1d"),
    Sample(((3,), (3, 4)), name="1d_2d"),
    Sample(((2, 3), (3, 4)), name="2d_2d"),
    Sample(((5, 2, 3), (3, 4)), name="3d_2d"),
    Sample(((2, 3), (5, 3, 4)), name="2d_3d"),
    Sample(((5, 2, 3), (5, 3, 4)), name="3d_3d"),
    Sample(((2, 1, 2, 3), (4, 3, 2)), name="bcast_batch"),
    Sample(((1, 2, 3), (3, 3, 2)), name="bcast_1"),
    Sample(((3,), (2, 3, 4)), name="1d_3d"),
    Sample(((2, 4, 3), (3,)), name="3d_1d"),
]

EINSUM = [
    Sample(("ij,jk->ik", (2, 3), (3, 4)), name="mm"),
    Sample(("ij,jk", (2, 3), (3, 4)), name="implicit"),
    Sample(("bij,bjk->bik", (5, 2, 3), (5, 3, 4)), name="batch"),
    Sample(("i,j->ij", (3,), (4,)), name="outer"),
    Sample(("ii->", (3, 3)), name="trace"),
    Sample(("ii", (3, 3)), name="trace_implicit"),
    Sample(("ii->i", (3, 3)), name="diag"),
    Sample(("iij->ij", (3, 3, 2)), name="diag_partial"),
    Sample(("...ij,...jk", (5, 2, 3), (3, 4)), name="ellipsis_implicit"),
    Sample(("...ij,...jk->...ik", (2, 1, 2, 3), (4, 3, 2)), name="ellipsis_bcast"),
    Sample(("ij->ji", (2, 3)), name="transpose"),
    Sample(("ij->j", (2, 3)), name="sum"),
    Sample(("ij->", (2, 3)), name="sum_all"),
    Sample(("i,i->", (4,), (4,)), name="dot"),
    Sample(("ij,j->i", (2, 3), (3,)), name="mv"),
    Sample(("ijk,ikl,lm->jm", (2, 3, 4), (2, 4, 2), (2, 3)), name="three"),
    Sample(("Ba,ab->Bb", (3, 2), (2, 5)), name="upper"),
    Sample(("i,->i", (3,), ()), name="scalar"),
    Sample(("", ()), name="0d"),
    Sample(("ij,ij->ij", (2, 3), (2, 3)), name="hadamard"),
    Sample(("ij,kj->ik", (2, 3), (4, 3)), name="inner"),
]


def _ref_einsum(eq, *ops):
    return np.einsum(eq, *ops)


def _ref_einsum_bcast(eq, *ops):
    """NumPy's einsum refuses some of torch's forms; broadcast the operands explicitly."""
    if eq == "...ij->ij":
        return ops[0].reshape(-1, *ops[0].shape[-2:]).sum(0)
    if eq == "bij,bjk->bik":
        return np.matmul(*ops)
    if eq == "i,i->":
        a, b = np.broadcast_arrays(*ops)
        return np.einsum(eq, a, b)
    raise AssertionError(eq)


EINSUM_TORCH = [
    Sample(("...ij->ij", (5, 2, 3)), name="sum_ellipsis"),
    Sample(("bij,bjk->bik", (5, 2, 3), (1, 3, 4)), name="size1_bcast"),
    Sample(("i,i->", (1,), (3,)), name="size1_label"),
]


def _softmax(x, dim):
    if x.ndim == 0:
        return np.exp(x - x)
    e = np.exp(x - x.max(dim, keepdims=True))
    return e / e.sum(dim, keepdims=True)


def _log_softmax(x, dim):
    if x.ndim == 0:
        return x - x
    z = x - x.max(dim, keepdims=True)
    return z - np.log(np.exp(z).sum(dim, keepdims=True))


SOFTMAX = [
    Sample(((3, 4), 1), name="dim1"),
    Sample(((3, 4), 0), name="dim0"),
    Sample(((2, 3, 4), -1), name="neg_dim"),
    Sample(((2, 3, 4), -2), name="neg_dim2"),
    Sample(((5,), 0), name="1d"),
    Sample(((), 0), name="0d"),
    Sample(((), -1), name="0d_neg"),
]


def _quiet(fn, *args, **kwargs):
    """Call a deprecated op (its warning is asserted in tests/test_linalg.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _multi_dot(lib):
    if lib.__name__ == "torch":
        return lib.linalg.multi_dot
    from ember.ops.products import multi_dot

    return getattr(lib.linalg, "multi_dot", multi_dot)


def _chain_ref(*ms):
    r = ms[0]
    for m in ms[1:]:
        r = r @ m
    return r


def _kron_ref(a, b):
    return np.kron(a, b)


def _tensordot_ref(a, b, dims):
    return np.tensordot(a, b, axes=dims)


ROWS = [
    OpInfo("matmul", lambda lib, a, b: lib.matmul(a, b), np.matmul, MATMUL),
    OpInfo("matmul", lambda lib, a, b: a @ b, np.matmul, MATMUL[:4] + MATMUL[7:8]),
    OpInfo("matmul", lambda lib, a, b: a.matmul(b), np.matmul, MATMUL[3:4]),
    OpInfo(
        "matmul",
        lambda lib, a, b: lib.matmul(a, b),
        np.matmul,
        [
            Sample((Int((2, 3), -5, 5), Int((3, 4), -5, 5)), name="int"),
            Sample((Int((2, 2, 3), -5, 5), Int((3,), -5, 5)), name="int_3d_1d"),
        ],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "mm",
        lambda lib, a, b: lib.mm(a, b),
        np.matmul,
        [
            Sample(((2, 3), (3, 4))),
            Sample(((1, 5), (5, 1)), name="vec"),
            Sample(((0, 3), (3, 2)), name="empty"),
        ],
    ),
    OpInfo("mm", lambda lib, a, b: a.mm(b), np.matmul, [Sample(((4, 3), (3, 2)))]),
    OpInfo(
        "bmm",
        lambda lib, a, b: lib.bmm(a, b),
        np.matmul,
        [Sample(((5, 2, 3), (5, 3, 4))), Sample(((1, 3, 3), (1, 3, 1)), name="b1")],
    ),
    OpInfo("bmm", lambda lib, a, b: a.bmm(b), np.matmul, [Sample(((2, 2, 3), (2, 3, 4)))]),
    OpInfo("mv", lambda lib, a, b: lib.mv(a, b), np.matmul, [Sample(((2, 3), (3,)))]),
    OpInfo("mv", lambda lib, a, b: a.mv(b), np.matmul, [Sample(((4, 3), (3,)))]),
    OpInfo(
        "dot",
        lambda lib, a, b: lib.dot(a, b),
        np.dot,
        [Sample(((3,), (3,))), Sample(((1,), (1,)), name="one")],
    ),
    OpInfo("dot", lambda lib, a, b: a.dot(b), np.dot, [Sample(((5,), (5,)))]),
    OpInfo(
        "dot",
        lambda lib, a, b: lib.dot(a, b),
        np.dot,
        [Sample((Int((4,), -5, 5), Int((4,), -5, 5)), name="int")],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo("vdot", lambda lib, a, b: lib.vdot(a, b), np.vdot, [Sample(((3,), (3,)))]),
    OpInfo("vdot", lambda lib, a, b: a.vdot(b), np.vdot, [Sample(((4,), (4,)))]),
    OpInfo(
        "addmm",
        lambda lib, i, a, b: lib.addmm(i, a, b),
        lambda i, a, b: i + a @ b,
        [
            Sample(((2, 4), (2, 3), (3, 4))),
            Sample(((4,), (2, 3), (3, 4)), name="bcast"),
            Sample(((), (2, 3), (3, 4)), name="0d"),
            Sample(((1, 1), (2, 3), (3, 4)), name="11"),
        ],
    ),
    OpInfo(
        "addmm",
        lambda lib, i, a, b: lib.addmm(i, a, b, beta=0.5, alpha=-2.0),
        lambda i, a, b: 0.5 * i - 2.0 * (a @ b),
        [Sample(((2, 4), (2, 3), (3, 4)))],
    ),
    OpInfo(
        "addmm",
        lambda lib, i, a, b: lib.addmm(i, a, b, beta=0),
        lambda i, a, b: a @ b,
        [Sample(((2, 4), (2, 3), (3, 4)))],
    ),
    OpInfo(
        "addmm",
        lambda lib, i, a, b: i.addmm(a, b, alpha=3),
        lambda i, a, b: i + 3 * (a @ b),
        [Sample(((2, 4), (2, 3), (3, 4)))],
    ),
    OpInfo(
        "addmm_",
        lambda lib, i, a, b: i.clone().addmm_(a, b, beta=2),
        lambda i, a, b: 2 * i + a @ b,
        [Sample(((2, 4), (2, 3), (3, 4)))],
    ),
    OpInfo(
        "addmm",
        lambda lib, i, a, b: lib.addmm(i, a, b, beta=2, alpha=3),
        lambda i, a, b: 2 * i + 3 * (a @ b),
        [Sample((Int((2, 4), -5, 5), Int((2, 3), -5, 5), Int((3, 4), -5, 5)), name="int")],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "addmv",
        lambda lib, i, a, b: lib.addmv(i, a, b),
        lambda i, a, b: i + a @ b,
        [Sample(((2,), (2, 3), (3,))), Sample(((), (2, 3), (3,)), name="0d")],
    ),
    OpInfo(
        "addmv",
        lambda lib, i, a, b: i.addmv(a, b, beta=0.5, alpha=2),
        lambda i, a, b: 0.5 * i + 2 * (a @ b),
        [Sample(((2,), (2, 3), (3,)))],
    ),
    OpInfo(
        "addmv_",
        lambda lib, i, a, b: i.clone().addmv_(a, b),
        lambda i, a, b: i + a @ b,
        [Sample(((2,), (2, 3), (3,)))],
    ),
    OpInfo(
        "baddbmm",
        lambda lib, i, a, b: lib.baddbmm(i, a, b),
        lambda i, a, b: i + a @ b,
        [
            Sample(((5, 2, 4), (5, 2, 3), (5, 3, 4))),
            Sample(((2, 4), (5, 2, 3), (5, 3, 4)), name="bcast"),
        ],
    ),
    OpInfo(
        "baddbmm",
        lambda lib, i, a, b: i.baddbmm(a, b, beta=-1, alpha=0.5),
        lambda i, a, b: -i + 0.5 * (a @ b),
        [Sample(((5, 2, 4), (5, 2, 3), (5, 3, 4)))],
    ),
    OpInfo(
        "baddbmm_",
        lambda lib, i, a, b: i.clone().baddbmm_(a, b),
        lambda i, a, b: i + a @ b,
        [Sample(((3, 2, 4), (3, 2, 3), (3, 3, 4)))],
    ),
    OpInfo(
        "addbmm",
        lambda lib, i, a, b: lib.addbmm(i, a, b),
        lambda i, a, b: i + (a @ b).sum(0),
        [
            Sample(((2, 4), (5, 2, 3), (5, 3, 4))),
            Sample(((4,), (5, 2, 3), (5, 3, 4)), name="bcast"),
        ],
    ),
    OpInfo(
        "addbmm",
        lambda lib, i, a, b: i.addbmm(a, b, beta=2, alpha=0.5),
        lambda i, a, b: 2 * i + 0.5 * (a @ b).sum(0),
        [Sample(((2, 4), (3, 2, 3), (3, 3, 4)))],
    ),
    OpInfo(
        "addbmm_",
        lambda lib, i, a, b: i.clone().addbmm_(a, b),
        lambda i, a, b: i + (a @ b).sum(0),
        [Sample(((2, 4), (3, 2, 3), (3, 3, 4)))],
    ),
    OpInfo(
        "addr",
        lambda lib, i, a, b: lib.addr(i, a, b),
        lambda i, a, b: i + np.outer(a, b),
        [Sample(((2, 4), (2,), (4,))), Sample(((4,), (2,), (4,)), name="bcast")],
    ),
    OpInfo(
        "addr",
        lambda lib, i, a, b: i.addr(a, b, beta=0.5, alpha=3),
        lambda i, a, b: 0.5 * i + 3 * np.outer(a, b),
        [Sample(((2, 4), (2,), (4,)))],
    ),
    OpInfo(
        "addr_",
        lambda lib, i, a, b: i.clone().addr_(a, b),
        lambda i, a, b: i + np.outer(a, b),
        [Sample(((2, 4), (2,), (4,)))],
    ),
    OpInfo(
        "outer",
        lambda lib, a, b: lib.outer(a, b),
        np.outer,
        [Sample(((3,), (4,))), Sample(((1,), (2,)), name="one")],
    ),
    OpInfo("outer", lambda lib, a, b: a.outer(b), np.outer, [Sample(((3,), (2,)))]),
    OpInfo(
        "outer",
        lambda lib, a, b: lib.outer(a, b),
        np.outer,
        [Sample((Int((3,)), (4,)), name="int_float")],
        grad=False,
    ),
    OpInfo("ger", lambda lib, a, b: lib.ger(a, b), np.outer, [Sample(((3,), (4,)))]),
    OpInfo(
        "inner",
        lambda lib, a, b: lib.inner(a, b),
        np.inner,
        [
            Sample(((3,), (3,)), name="1d"),
            Sample(((2, 3), (4, 3)), name="2d"),
            Sample(((2, 1, 3), (3,)), name="3d_1d"),
            Sample(((), (2, 3)), name="0d"),
        ],
    ),
    OpInfo("inner", lambda lib, a, b: a.inner(b), np.inner, [Sample(((2, 3), (3,)))]),
    OpInfo(
        "tensordot",
        lambda lib, a, b, d: lib.tensordot(a, b, dims=d),
        _tensordot_ref,
        [
            Sample(((2, 3, 4), (3, 4, 5), 2), name="int"),
            Sample(((2, 3), (3, 4), 1), name="one"),
            Sample(((2, 3), (4, 5), 0), name="outer"),
            Sample(((3, 5, 4, 6), (6, 4, 5, 3), ([2, 1, 3], [1, 2, 0])), name="lists"),
            Sample(((2, 3), (4, 3), [[-1], [1]]), name="neg"),
        ],
    ),
    OpInfo(
        "tensordot",
        lambda lib, a, b: lib.tensordot(a, b),
        lambda a, b: np.tensordot(a, b, 2),
        [Sample(((2, 3, 4), (3, 4)), name="default")],
    ),
    OpInfo(
        "kron",
        lambda lib, a, b: lib.kron(a, b),
        _kron_ref,
        [
            Sample(((2, 3), (4, 2))),
            Sample(((2, 3), (4,)), name="ndim"),
            Sample(((), (3,)), name="0d"),
            Sample(((2, 1, 2), (2, 3)), name="3d"),
        ],
    ),
    OpInfo("kron", lambda lib, a, b: a.kron(b), _kron_ref, [Sample(((2,), (3,)))]),
    OpInfo("einsum", lambda lib, eq, *ops: lib.einsum(eq, *ops), _ref_einsum, EINSUM),
    OpInfo("einsum", lambda lib, eq, *ops: lib.einsum(eq, *ops), _ref_einsum_bcast, EINSUM_TORCH),
    OpInfo(
        "einsum",
        lambda lib, a, b: lib.einsum("ij,jk->ik", [a, b]),
        np.matmul,
        [Sample(((2, 3), (3, 4)), name="list")],
    ),
    OpInfo(
        "einsum",
        lambda lib, a, b: lib.einsum(a, [0, 1], b, [1, 2], [0, 2]),
        np.matmul,
        [Sample(((2, 3), (3, 4)), name="sublist")],
    ),
    OpInfo(
        "einsum",
        lambda lib, eq, *ops: lib.einsum(eq, *ops),
        _ref_einsum,
        [Sample(("ij,jk->ik", Int((2, 3), -5, 5), Int((3, 4), -5, 5)), name="int")],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "chain_matmul",
        lambda lib, *ms: _quiet(lib.chain_matmul, *ms),
        _chain_ref,
        [Sample(((2, 3), (3, 4))), Sample(((2, 3), (3, 4), (4, 5), (5, 2)), name="four")],
    ),
    OpInfo(
        "linalg.multi_dot",
        lambda lib, *ms: _multi_dot(lib)(list(ms)),
        _chain_ref,
        [
            Sample(((2, 3), (3, 4), (4, 5)), name="three"),
            Sample(((3,), (3, 4), (4,)), name="vec_ends"),
            Sample(((3,), (3,)), name="two_vecs"),
            Sample(((6, 2), (2, 5), (5, 1), (1, 4)), name="order"),
        ],
    ),
    OpInfo(
        "cross",
        lambda lib, a, b, d: lib.cross(a, b, dim=d),
        lambda a, b, d: np.cross(a, b, axis=d),
        [
            Sample(((4, 3), (4, 3), 1)),
            Sample(((3, 4), (3, 4), 0), name="dim0"),
            Sample(((4, 3), (1, 3), -1), name="bcast"),
            Sample(((3,), (3,), 0), name="1d"),
        ],
    ),
    OpInfo(
        "cross",
        lambda lib, a, b: _quiet(lib.cross, a, b),
        lambda a, b: np.cross(a, b, axis=0),
        [Sample(((3, 4), (3, 4)), name="default_dim")],
    ),
    OpInfo(
        "cross",
        lambda lib, a, b: a.cross(b, dim=-1),
        lambda a, b: np.cross(a, b),
        [Sample(((2, 3), (2, 3)))],
    ),
    OpInfo("softmax", lambda lib, x, d: lib.softmax(x, d), _softmax, SOFTMAX),
    OpInfo(
        "softmax", lambda lib, x: x.softmax(dim=-1), lambda x: _softmax(x, -1), [Sample(((2, 5),))]
    ),
    OpInfo(
        "softmax",
        lambda lib, x: lib.softmax(x, 1, dtype=lib.float64),
        lambda x: _softmax(x, 1),
        [Sample(((2, 5),), name="dtype")],
    ),
    OpInfo(
        "softmax",
        lambda lib, x: lib.softmax(x, 1),
        lambda x: _softmax(x, 1),
        [Sample(((3, 4),), name="large")],
        domain=(-500.0, 500.0),
        grad=False,
    ),
    OpInfo("log_softmax", lambda lib, x, d: lib.log_softmax(x, d), _log_softmax, SOFTMAX),
    OpInfo(
        "log_softmax",
        lambda lib, x: x.log_softmax(0),
        lambda x: _log_softmax(x, 0),
        [Sample(((4, 2),))],
    ),
    OpInfo(
        "log_softmax",
        lambda lib, x: lib.log_softmax(x, -1, dtype=lib.float64),
        lambda x: _log_softmax(x, -1),
        [Sample(((2, 5),), name="dtype")],
    ),
    OpInfo(
        "log_softmax",
        lambda lib, x: lib.log_softmax(x, 1),
        lambda x: _log_softmax(x, 1),
        [Sample(((3, 4),), name="large")],
        domain=(-500.0, 500.0),
        grad=False,
    ),
]
