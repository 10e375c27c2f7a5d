"""Rows for the ops of ember/ops/reduction.py and the norms of ember.linalg."""

import numpy as np

from tests.opdb import Bool, Const, Int, OpInfo, Sample

NAN = float("nan")
INF = float("inf")


def _ax(a, dim):
    """NumPy's axis for PyTorch's ``dim`` (None or an empty list: every axis)."""
    if dim is None or np.ndim(a) == 0:
        return None
    if isinstance(dim, int):
        return dim
    return tuple(dim) or None


def _reduce(fn):
    def ref(a, dim=None, keepdim=False, **kw):
        return fn(a, axis=_ax(a, dim), keepdims=keepdim, **kw)

    return ref


def _var_ref(a, dim=None, unbiased=True, keepdim=False, correction=None, std=False):
    ddof = (1 if unbiased else 0) if correction is None else correction
    v = np.var(a, axis=_ax(a, dim), ddof=ddof, keepdims=keepdim)
    return np.sqrt(v) if std else v


def _lse(a, dim, keepdim=False):
    ax = _ax(a, dim)
    m = np.max(a, axis=ax, keepdims=True)
    r = np.log(np.sum(np.exp(a - m), axis=ax, keepdims=True)) + m
    return r if keepdim else np.squeeze(r, axis=ax)


def _along(fn):
    """Reference for a (values, indices) op along one dim, via index-producing ``fn``."""

    def ref(a, dim=-1, keepdim=False, **kw):
        if np.ndim(a) == 0:
            return a.copy(), np.array(0)
        idx = fn(a, dim, **kw)
        vals = np.take_along_axis(a, idx, dim)
        if not keepdim and idx.shape[dim] == 1 and fn is not _sort_idx:
            vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
        return vals, idx

    return ref


def _argext_idx(is_max):
    return lambda a, dim: (np.argmax if is_max else np.argmin)(a, axis=dim, keepdims=True)


def _sort_idx(a, dim, descending=False):
    # descending: sort the negation (equal elements keep their order; NaN comes first)
    key = np.where(np.isnan(a), -INF, -a) if descending else a
    return np.argsort(key, axis=dim, kind="stable")


def _sort_ref(a, dim=-1, descending=False):
    if np.ndim(a) == 0:
        return a.copy(), np.array(0)
    idx = _sort_idx(a, dim, descending)
    return np.take_along_axis(a, idx, dim), idx


def _topk_ref(a, k, dim=-1, largest=True):
    v, i = _sort_ref(a, dim, largest)
    if np.ndim(a) == 0:
        return v, i
    sl = (slice(None),) * (dim % a.ndim) + (slice(0, k),)
    return v[sl], i[sl]


def _kth_ref(a, k, dim=-1, keepdim=False):
    if np.ndim(a) == 0:
        return a.copy(), np.array(0)
    idx = np.argsort(a, axis=dim, kind="stable")
    sl = (slice(None),) * (dim % a.ndim) + (slice(k - 1, k),)
    idx = idx[sl]
    v = np.take_along_axis(a, idx, dim)
    return (v, idx) if keepdim else (np.squeeze(v, dim), np.squeeze(idx, dim))


def _median_ref(a, dim=None, keepdim=False):
    if dim is None:
        s = np.sort(a.reshape(-1))
        return s[(s.size - 1) // 2]
    n = a.shape[dim] if a.ndim else 1
    return _kth_ref(a, (n - 1) // 2 + 1, dim, keepdim)


def _cum_ref(is_max):
    def ref(a, dim):
        if np.ndim(a) == 0:
            return a.copy(), np.array(0)
        run = (np.maximum if is_max else np.minimum).accumulate(a, axis=dim)
        shape = [1] * a.ndim
        shape[dim] = a.shape[dim]
        pos = np.arange(a.shape[dim]).reshape(shape)
        idx = np.maximum.accumulate(np.where(a == run, pos, 0), axis=dim)
        return run, idx

    return ref


def _mode_ref(a, dim=-1, keepdim=False):
    x = np.moveaxis(np.atleast_1d(a), dim, -1)
    vals = np.empty(x.shape[:-1], a.dtype)
    idx = np.empty(x.shape[:-1], np.int64)
    for i in np.ndindex(*x.shape[:-1]):
        row = x[i]
        uniq, counts = np.unique(row, return_counts=True)
        v = uniq[np.argmax(counts)]  # the smallest of the most frequent
        vals[i], idx[i] = v, np.nonzero(row == v)[0][-1]
    if np.ndim(a) == 0:
        return vals.reshape(()), idx.reshape(())
    if keepdim:
        vals, idx = np.expand_dims(vals, dim), np.expand_dims(idx, dim)
    return vals, idx


def _vnorm(a, ord=2, dim=None, keepdim=False):
    ax = _ax(a, dim)
    x = np.abs(a)
    if ord == 0:
        return np.sum(x != 0, axis=ax, keepdims=keepdim).astype(a.dtype)
    if ord == INF:
        return np.max(x, axis=ax, keepdims=keepdim)
    if ord == -INF:
        return np.min(x, axis=ax, keepdims=keepdim)
    return np.sum(x**ord, axis=ax, keepdims=keepdim) ** (1.0 / ord)


def _mnorm(a, ord="fro", dim=(-2, -1), keepdim=False):
    x = np.moveaxis(a, dim, (-2, -1))
    r = np.linalg.norm(x, ord=ord, axis=(-2, -1))
    if keepdim:
        r = np.expand_dims(r, tuple(d % a.ndim for d in dim))
    return r


R34 = (3, 4)
R234 = (2, 3, 4)
ZEROS = Const([[2.0, 0.0, 3.0, 1.5], [0.0, 0.0, 1.0, 2.0], [1.0, 2.0, -3.0, 0.5]])
WITH_NAN = Const([[1.0, NAN, 3.0, 2.0], [0.5, -1.0, NAN, NAN]])

SUM_SAMPLES = [
    Sample((R34,), name="all"),
    Sample((R34,), {"dim": 1}, name="dim1"),
    Sample((R34,), {"dim": -1, "keepdim": True}, name="neg_keepdim"),
    Sample((R234,), {"dim": (0, 2)}, name="tuple"),
    Sample((R234,), {"dim": (-1, 0), "keepdim": True}, name="tuple_keepdim"),
    Sample((R34,), {"dim": []}, name="empty_list_reduces_all"),
    Sample(((),), name="0d"),
    Sample(((),), {"dim": 0, "keepdim": True}, name="0d_dim"),
    Sample(((0, 3),), {"dim": 0}, name="empty"),
]
ONE_DIM = [
    Sample((R34,), {"dim": 1}, name="dim1"),
    Sample((R34,), {"dim": 0, "keepdim": True}, name="dim0_keepdim"),
    Sample((R234,), {"dim": -2}, name="neg"),
    Sample(((5,),), {"dim": 0}, name="1d"),
    Sample(((),), {"dim": 0}, name="0d"),
    Sample(((),), {"dim": -1, "keepdim": True}, name="0d_keepdim"),
]
ONE_DIM_NO_KEEP = [Sample(s.args, {"dim": s.kwargs["dim"]}, name=s.name) for s in ONE_DIM]
SCAN = [
    Sample((R34,), {"dim": 1}, name="dim1"),
    Sample((R234,), {"dim": -3}, name="neg"),
    Sample(((5,),), {"dim": 0}, name="1d"),
    Sample(((),), {"dim": 0}, name="0d"),
]

ROWS = [
    # ---- sum / nansum / mean / nanmean / prod ----
    OpInfo("sum", lambda lib, a, **kw: lib.sum(a, **kw), _reduce(np.sum), SUM_SAMPLES),
    OpInfo("sum", lambda lib, a: a.sum(1, dtype=lib.float64), lambda a: a.sum(1), [Sample((R34,))]),
    OpInfo(
        "sum",
        lambda lib, a, **kw: a.sum(**kw),
        _reduce(np.sum),
        [
            Sample((Int(R34, -5, 5),), {"dim": 1}),
            Sample(
                (Bool(R34),),
            ),
            Sample(
                (Int(R34, 0, 9, "uint8"),),
            ),
        ],
        dtypes=("float64",),
    ),
    OpInfo(
        "nansum",
        lambda lib, a, **kw: lib.nansum(a, **kw),
        _reduce(np.nansum),
        SUM_SAMPLES[:7] + [Sample((WITH_NAN,), {"dim": 1}, name="nan")],
        gradgrad=False,
    ),
    OpInfo(
        "mean",
        lambda lib, a, **kw: lib.mean(a, **kw),
        _reduce(np.mean),
        SUM_SAMPLES[:8],
        gradgrad=False,
    ),
    OpInfo(
        "mean",
        lambda lib, a: a.mean((0, 1), dtype=lib.float64),
        lambda a: a.mean(),
        [Sample((R34,))],
    ),
    OpInfo(
        "nanmean",
        lambda lib, a, **kw: lib.nanmean(a, **kw),
        _reduce(np.nanmean),
        SUM_SAMPLES[:7] + [Sample((WITH_NAN,), {"dim": 1}, name="nan")],
        gradgrad=False,
    ),
    OpInfo(
        "prod",
        lambda lib, a, **kw: lib.prod(a, **kw),
        _reduce(np.prod),
        ONE_DIM
        + [
            Sample((R34,), name="all"),
            Sample(((),), name="0d_all"),
            Sample((ZEROS,), {"dim": 1}, name="zeros_dim"),
            Sample((ZEROS,), {"dim": 0, "keepdim": True}, name="zeros_dim0"),
            Sample((Const([[2.0, 0.0], [3.0, 1.5]]),), name="one_zero_all"),
            Sample((ZEROS,), name="many_zeros_all"),
        ],
        domain=(0.5, 1.5),
    ),
    OpInfo(
        "prod",
        lambda lib, a: a.prod(1),
        lambda a: a.prod(1),
        [Sample((Int(R34, -3, 4),))],
        dtypes=("float64",),
    ),
    # ---- max / min / amax / amin / aminmax / argmax / argmin ----
    OpInfo("max", lambda lib, a: lib.max(a), np.max, [Sample((R34,)), Sample(((),))]),
    OpInfo("max", lambda lib, a, **kw: lib.max(a, **kw), _along(_argext_idx(True)), ONE_DIM),
    OpInfo(
        "max",
        lambda lib, a: a.max(),
        np.max,
        [Sample((Const([1.0, 3.0, 3.0, 2.0]),), name="ties_share")],
        gradgrad=False,
    ),
    OpInfo("min", lambda lib, a: a.min(), np.min, [Sample((R34,)), Sample(((),))]),
    OpInfo("min", lambda lib, a, **kw: a.min(**kw), _along(_argext_idx(False)), ONE_DIM),
    OpInfo("amax", lambda lib, a, **kw: lib.amax(a, **kw), _reduce(np.max), SUM_SAMPLES[:8]),
    OpInfo(
        "amax",
        lambda lib, a, **kw: lib.amax(a, **kw),
        _reduce(np.max),
        [Sample((Const([[1.0, 4.0, 4.0], [2.0, 2.0, 0.0]]),), {"dim": 1}, name="ties")],
        gradgrad=False,
    ),
    OpInfo("amin", lambda lib, a, **kw: a.amin(**kw), _reduce(np.min), SUM_SAMPLES[:8]),
    OpInfo(
        "amin",
        lambda lib, a, **kw: a.amin(**kw),
        _reduce(np.min),
        [Sample((Const([[1.0, 1.0, 4.0], [2.0, 2.0, 2.0]]),), name="ties")],
        gradgrad=False,
    ),
    OpInfo(
        "aminmax",
        lambda lib, a, **kw: lib.aminmax(a, **kw),
        lambda a, dim=None, keepdim=False: (
            np.min(a, axis=dim, keepdims=keepdim),
            np.max(a, axis=dim, keepdims=keepdim),
        ),
        [
            Sample((R34,)),
            Sample((R34,), {"dim": 1}),
            Sample((R34,), {"dim": -2, "keepdim": True}),
            Sample(((),)),
        ],
    ),
    OpInfo(
        "argmax",
        lambda lib, a, **kw: lib.argmax(a, **kw),
        lambda a, dim=None, keepdim=False: np.argmax(a, axis=dim, keepdims=keepdim),
        [
            Sample((R34,)),
            Sample((R34,), {"dim": 1}),
            Sample((R234,), {"dim": -1, "keepdim": True}),
            Sample((R34,), {"keepdim": True}, name="flat_keepdim"),
            Sample(((),)),
        ],
        grad=False,
    ),
    OpInfo(
        "argmin",
        lambda lib, a, **kw: a.argmin(**kw),
        lambda a, dim=None, keepdim=False: np.argmin(a, axis=dim, keepdims=keepdim),
        [Sample((R34,)), Sample((R34,), {"dim": 0}), Sample(((),), {"dim": 0})],
        grad=False,
    ),
    # ---- var / std / var_mean / std_mean ----
    OpInfo(
        "var",
        lambda lib, a, **kw: lib.var(a, **kw),
        _var_ref,
        [
            Sample((R34,)),
            Sample((R34,), {"dim": 1}),
            Sample((R234,), {"dim": (0, 2), "keepdim": True}),
            Sample((R34,), {"dim": -1, "correction": 0}),
            Sample((R34,), {"correction": 2}),
            Sample(((),), {"correction": 0}, name="0d"),
        ],
    ),
    OpInfo(
        "var",
        lambda lib, a: a.var(1, False, True),
        lambda a: np.var(a, axis=1, keepdims=True),
        [Sample((R34,), name="unbiased_pos")],
    ),
    OpInfo(
        "std",
        lambda lib, a, **kw: lib.std(a, **kw),
        lambda a, **kw: _var_ref(a, std=True, **kw),
        [
            Sample((R34,)),
            Sample((R34,), {"dim": 0}),
            Sample((R34,), {"dim": -1, "keepdim": True}),
            Sample((R234,), {"dim": (1, 2), "correction": 0}),
        ],
    ),
    OpInfo(
        "std",
        lambda lib, a: a.std(False),
        lambda a: np.std(a),
        [Sample((R34,), name="unbiased_pos")],
    ),
    OpInfo(
        "var_mean",
        lambda lib, a, **kw: lib.var_mean(a, **kw),
        lambda a, **kw: (
            _var_ref(a, **kw),
            _reduce(np.mean)(a, kw.get("dim"), kw.get("keepdim", False)),
        ),
        [Sample((R34,)), Sample((R34,), {"dim": 1, "keepdim": True})],
    ),
    OpInfo(
        "std_mean",
        lambda lib, a, **kw: lib.std_mean(a, **kw),
        lambda a, **kw: (_var_ref(a, std=True, **kw), _reduce(np.mean)(a, kw.get("dim"))),
        [Sample((R34,)), Sample((R234,), {"dim": (0, 1), "correction": 0})],
    ),
    # ---- logsumexp ----
    OpInfo(
        "logsumexp",
        lambda lib, a, **kw: lib.logsumexp(a, **kw),
        _lse,
        [
            Sample((R34,), {"dim": 1}),
            Sample((R234,), {"dim": (0, 2), "keepdim": True}),
            Sample((R34,), {"dim": -2}),
            Sample(((),), {"dim": 0}),
            Sample((Const([[1000.0, 1000.0], [-1000.0, 0.0]]),), {"dim": 1}, name="stable"),
        ],
    ),
    # ---- all / any / count_nonzero ----
    OpInfo(
        "all",
        lambda lib, a, **kw: lib.all(a, **kw),
        _reduce(np.all),
        [
            Sample((Bool(R34),)),
            Sample((Bool(R34),), {"dim": 1}),
            Sample((Bool(R234),), {"dim": (0, 2), "keepdim": True}),
            Sample((Const([[1.0, 0.0], [2.0, NAN]]),), {"dim": 1}),
            Sample((Bool(()),)),
        ],
        grad=False,
    ),
    OpInfo(
        "any",
        lambda lib, a, **kw: a.any(**kw),
        _reduce(np.any),
        [
            Sample((Bool(R34),)),
            Sample((Bool(R34),), {"dim": 0, "keepdim": True}),
            Sample((Int(R34, 0, 2),), {"dim": -1}),
            Sample((Bool(()),), {"dim": 0}),
        ],
        grad=False,
    ),
    OpInfo(
        "count_nonzero",
        lambda lib, a, **kw: lib.count_nonzero(a, **kw),
        lambda a, dim=None: np.count_nonzero(a, axis=_ax(a, dim)),
        [
            Sample((Int(R34, 0, 3),)),
            Sample((Int(R234, 0, 3),), {"dim": (0, 2)}),
            Sample((Int(R34, 0, 3),), {"dim": -1}),
            Sample((Bool(()),)),
        ],
        grad=False,
    ),
    # ---- cumsum / cumprod / cummax / cummin ----
    OpInfo(
        "cumsum",
        lambda lib, a, **kw: lib.cumsum(a, **kw),
        lambda a, dim: np.cumsum(a, axis=dim) if np.ndim(a) else a.copy(),
        SCAN,
    ),
    OpInfo(
        "cumsum",
        lambda lib, a: a.cumsum(0),
        lambda a: np.cumsum(a, 0),
        [Sample((Int((5,), -9, 9, "int32"),)), Sample((Bool((5,)),))],
        dtypes=("float64",),
    ),
    OpInfo(
        "cumsum",
        lambda lib, a: a.clone().cumsum_(1),
        lambda a: np.cumsum(a, 1),
        [Sample((R34,), name="inplace")],
    ),
    OpInfo(
        "cumprod",
        lambda lib, a, **kw: a.cumprod(**kw),
        lambda a, dim: np.cumprod(a, axis=dim) if np.ndim(a) else a.copy(),
        SCAN
        + [
            Sample((ZEROS,), {"dim": 1}, name="zeros"),
            Sample((Const([0.0, 2.0, 0.0, 3.0, 1.5]),), {"dim": 0}, name="zeros_1d"),
        ],
        domain=(0.5, 1.5),
    ),
    OpInfo(
        "cumprod",
        lambda lib, a: a.clone().cumprod_(0),
        lambda a: np.cumprod(a, 0),
        [Sample((R34,), name="inplace")],
        domain=(0.5, 1.5),
    ),
    OpInfo("cummax", lambda lib, a, **kw: lib.cummax(a, **kw), _cum_ref(True), SCAN),
    OpInfo("cummin", lambda lib, a, **kw: a.cummin(**kw), _cum_ref(False), SCAN),
    # ---- sort / argsort / topk / kthvalue / median / nanmedian / mode ----
    OpInfo(
        "sort",
        lambda lib, a, **kw: lib.sort(a, **kw),
        _sort_ref,
        [
            Sample((R34,)),
            Sample((R34,), {"dim": 0}),
            Sample((R234,), {"dim": -2, "descending": True}),
            Sample(((),)),
            Sample(((6,),), {"descending": True}),
        ],
    ),
    OpInfo(
        "sort",
        lambda lib, a, **kw: a.sort(stable=True, **kw),
        _sort_ref,
        [
            Sample((Const([[1.0, 0.0, 1.0, 0.0, 1.0]]),), {"descending": True}, name="ties"),
            Sample((Const([1.0, NAN, 0.0, -INF]),), name="nan_last"),
            Sample((Const([1.0, NAN, 0.0, -INF]),), {"descending": True}, name="nan_first"),
        ],
        grad=False,
    ),
    OpInfo(
        "argsort",
        lambda lib, a, **kw: lib.argsort(a, **kw),
        lambda a, dim=-1, descending=False: _sort_ref(a, dim, descending)[1],
        [Sample((R34,)), Sample((R234,), {"dim": 0, "descending": True}), Sample(((),))],
        grad=False,
    ),
    OpInfo(
        "topk",
        lambda lib, a, *args, **kw: lib.topk(a, *args, **kw),
        _topk_ref,
        [
            Sample((R34, 2)),
            Sample((R34, 2), {"dim": 0}),
            Sample((R234, 3), {"dim": -1, "largest": False}),
            Sample(((10,), 10)),
            Sample(((7,), 0), name="k0"),
            Sample(((), 1)),
        ],
    ),
    OpInfo(
        "kthvalue",
        lambda lib, a, *args, **kw: a.kthvalue(*args, **kw),
        _kth_ref,
        [
            Sample((R34, 2)),
            Sample((R34, 3), {"dim": 0, "keepdim": True}),
            Sample((R234, 1), {"dim": -2}),
            Sample(((), 1)),
        ],
    ),
    OpInfo(
        "median",
        lambda lib, a: lib.median(a),
        _median_ref,
        [Sample((R34,)), Sample(((5,),)), Sample(((),))],
    ),
    OpInfo(
        "median",
        lambda lib, a: lib.median(a),
        _median_ref,
        [Sample((Const([1.0, 2.0, 2.0, 3.0]),), name="ties_share")],
        gradgrad=False,
    ),
    OpInfo("median", lambda lib, a, **kw: a.median(**kw), _median_ref, ONE_DIM),
    OpInfo(
        "median",
        lambda lib, a, **kw: a.median(**kw),
        lambda a, dim=None: (
            np.array(NAN) if dim is None else (np.array([NAN, NAN]), np.array([1, 2]))
        ),
        [Sample((WITH_NAN,), name="nan"), Sample((WITH_NAN,), {"dim": 1}, name="nan_dim")],
        grad=False,
    ),
    OpInfo(
        "nanmedian",
        lambda lib, a, **kw: lib.nanmedian(a, **kw),
        _median_ref,
        [Sample((R34,)), Sample((R34,), {"dim": 1})],
    ),
    OpInfo(
        "nanmedian",
        lambda lib, a, **kw: a.nanmedian(**kw),
        lambda a, dim=None: (
            np.array(1.0) if dim is None else (np.array([2.0, 0.5]), np.array([3, 0]))
        ),
        [
            Sample((Const([[1.0, NAN, 3.0, 2.0], [0.5, 0.75, NAN, NAN]]),), name="nan"),
            Sample(
                (Const([[1.0, NAN, 3.0, 2.0], [0.5, 0.75, NAN, NAN]]),), {"dim": 1}, name="nan_dim"
            ),
        ],
        grad=False,
    ),
    OpInfo(
        "nanmedian",
        lambda lib, a: a.nanmedian(1),
        lambda a: (np.array([2.0, 0.5]), np.array([3, 0])),
        [Sample((Const([[1.0, NAN, 3.0, 2.0], [0.5, 0.75, NAN, NAN]]),), name="nan_grad")],
    ),
    OpInfo("mode", lambda lib, a, **kw: lib.mode(a, **kw), _mode_ref, ONE_DIM),
    OpInfo(
        "mode",
        lambda lib, a, **kw: a.mode(**kw),
        _mode_ref,
        [
            Sample((Const([[1.0, 2.0, 2.0, 3.0, 2.0], [5.0, 1.0, 5.0, 1.0, 0.0]]),), name="rep"),
            Sample((Int((4, 6), 0, 3),), {"dim": 0, "keepdim": True}, name="int"),
        ],
        grad=False,
    ),
    # ---- norms ----
    OpInfo(
        "norm",
        lambda lib, a, *args, **kw: lib.norm(a, *args, **kw),
        lambda a, p="fro", dim=None, keepdim=False: (
            _mnorm(a, p, dim, keepdim)
            if p == "nuc" or (p == "fro" and dim is not None and len(dim) == 2)
            else _vnorm(a, 2 if p == "fro" else p, dim, keepdim)
        ),
        [
            Sample((R34,)),
            Sample((R34, 1), {"dim": 1}),
            Sample((R234, 3), {"dim": (0, 2)}),
            Sample((R34, INF), {"dim": -1, "keepdim": True}),
            Sample((R34, "fro"), {"dim": (0, 1)}),
            Sample(((),)),
            Sample((R34, 0.5)),
        ],
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "norm",
        lambda lib, a: a.norm("nuc"),
        lambda a: np.linalg.norm(a, "nuc"),
        [Sample((R34,), name="nuc")],
        dtypes=("float32", "float64"),
        gradgrad=False,
    ),
    OpInfo(
        "linalg.vector_norm",
        lambda lib, a, **kw: lib.linalg.vector_norm(a, **kw),
        _vnorm,
        [
            Sample((R34,)),
            Sample((R34,), {"ord": 1, "dim": 1}),
            Sample((R234,), {"ord": 3, "dim": (0, -1), "keepdim": True}),
            Sample((R34,), {"ord": INF, "dim": 0}),
            Sample((R34,), {"ord": -INF}),
            Sample((R34,), {"ord": 0}),
            Sample((R34,), {"ord": 0.5, "dim": -1}),
            Sample((R34,), {"ord": -1, "dim": 1}),
            Sample((R34,), {"ord": 1.5}),
            Sample(((),), {"ord": 3}),
            Sample(((),), {"ord": 2, "dim": 0}),
        ],
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "linalg.vector_norm",
        lambda lib, a, **kw: lib.linalg.vector_norm(a, **kw),
        _vnorm,
        [
            Sample((Const([0.0, 3.0, -4.0]),), {"ord": 2}, name="zero_entry"),
            Sample((Const([0.0, 0.0, 0.0]),), {"ord": 2}, name="zero_vector"),
            Sample((Const([0.0, 0.0]),), {"ord": 3}, name="zero_vector_p3"),
            Sample((Const([1.0, -3.0, 3.0]),), {"ord": INF}, name="inf_ties"),
        ],
        gradgrad=False,
    ),
    OpInfo(
        "linalg.matrix_norm",
        lambda lib, a, **kw: lib.linalg.matrix_norm(a, **kw),
        _mnorm,
        [
            Sample((R34,)),
            Sample((R234,), {"ord": 1}),
            Sample((R234,), {"ord": -1}),
            Sample((R34,), {"ord": INF, "keepdim": True}),
            Sample((R34,), {"ord": -INF}),
            Sample((R234,), {"ord": "fro", "dim": (0, 2), "keepdim": True}),
        ],
    ),
    OpInfo(
        "linalg.matrix_norm",
        lambda lib, a, **kw: lib.linalg.matrix_norm(a, **kw),
        _mnorm,
        [
            Sample((R34,), {"ord": "nuc"}),
            Sample((R234,), {"ord": 2}),
            Sample((R234,), {"ord": -2, "dim": (2, 0), "keepdim": True}),
            Sample((R234,), {"ord": "nuc", "dim": (0, 1)}),
        ],
        dtypes=("float32", "float64"),
        gradgrad=False,
    ),
    OpInfo(
        "linalg.norm",
        lambda lib, a, *args, **kw: lib.linalg.norm(a, *args, **kw),
        lambda a, ord=None, dim=None, keepdim=False: (
            _mnorm(a, ord, dim or (0, 1), keepdim)
            if ord is not None
            and (
                dim is None
                and a.ndim == 2
                or not isinstance(dim, (int, type(None)))
                and len(dim) == 2
            )
            else _vnorm(a, 2 if ord is None else ord, dim, keepdim)
        ),
        [
            Sample((R34,)),
            Sample((R234,)),
            Sample((R34, 1)),
            Sample(((5,), 3)),
            Sample((R234, INF), {"dim": (0, 1)}),
            Sample((R234, -1), {"dim": 2, "keepdim": True}),
            Sample((R234,), {"dim": (2, 0)}),
        ],
    ),
    OpInfo(
        "linalg.svdvals",
        lambda lib, a: lib.linalg.svdvals(a),
        lambda a: np.linalg.svd(a, compute_uv=False),
        [Sample((R34,)), Sample((R234,))],
        dtypes=("float32", "float64"),
        gradgrad=False,
    ),
]
