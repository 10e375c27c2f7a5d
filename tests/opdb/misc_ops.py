"""Rows for ember/ops/misc_ops.py: range, conj_physical_, view_as_real_copy,
view_as_complex_copy, binomial, hash_tensor, segment_reduce (more cases, errors and the
binomial distribution in tests/test_misc_ops.py)."""

import warnings

import numpy as np

from tests.opdb import OpInfo, Sample

S = Sample
F = ("float32", "float64")


def _range(lib, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in torch, and so here
        return lib.range(1, 3, 0.5, dtype=x.dtype) * x


def _seg(lib, x, reduce, lengths, **kw):
    return lib.segment_reduce(x, reduce, lengths=lib.tensor(lengths), **kw)


def _seg_ref(x, reduce, lengths, initial=None):
    f = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}[reduce]
    ends = np.cumsum(lengths)
    out = []
    for e, n in zip(ends, lengths, strict=True):
        part = x[e - n : e]
        if initial is not None:
            part = np.concatenate([part, [initial]])
            out.append(f(part) if reduce != "mean" else (part.sum()) / n)
        else:
            out.append(f(part))
    return np.stack(out)


_SEG = [S(((6,), red, [2, 1, 3]), name=red) for red in ("sum", "mean", "max", "min", "prod")] + [
    S(((6,), "sum", [2, 1, 3]), {"initial": 0.5}, name="initial")
]

ROWS = [
    OpInfo("range", _range, lambda x: np.arange(1.0, 3.25, 0.5) * x, [S(((5,),), name="1d")]),
    OpInfo(
        "conj_physical_",
        lambda lib, x: lib.conj_physical_(x * 2),
        lambda x: x * 2,
        [S(((3, 4),), name="2d"), S(((),), name="0d")],
        gradgrad=False,
    ),
    OpInfo(
        "view_as_real_copy",
        lambda lib, x, y: lib.view_as_real_copy(lib.complex(x, y)) * 3,
        lambda x, y: np.stack(np.broadcast_arrays(x, y), -1) * 3,
        [S(((3, 4), (3, 4)), name="same")],
        dtypes=F,
        gradgrad=False,
    ),
    OpInfo(
        "view_as_complex_copy",
        lambda lib, x, y: lib.view_as_complex_copy(lib.stack([x, y], -1).detach()).abs(),
        lambda x, y: np.hypot(x, y),
        [S(((3, 4), (3, 4)), name="same")],
        dtypes=F,
        grad=False,
        domain=(0.5, 2.0),
    ),
    OpInfo(
        # p in {0, 1} makes the sample deterministic: count where p = 1, else 0
        "binomial",
        lambda lib, x: lib.binomial((x * 0 + 7).detach(), (x > 0).to(x.dtype).detach()),
        lambda x: np.where(x > 0, 7.0, 0.0),
        [S(((3, 4),), name="2d"), S(((),), name="0d")],
        dtypes=F,  # torch has no half-precision binomial kernel (errors tested elsewhere)
        grad=False,
    ),
    OpInfo(
        "hash_tensor",
        lambda lib, x: lib.hash_tensor(x.detach(), 1).to(lib.float64),
        lambda x: np.bitwise_xor.reduce(x.astype(np.float64).view(np.uint64), 1).astype(np.float64),
        [S(((3, 4),), name="2d")],
        grad=False,
    ),
    OpInfo(
        "segment_reduce",
        _seg,
        _seg_ref,
        _SEG,
        dtypes=F,
        gradgrad=True,
    ),
]

ROWS.append(
    OpInfo(
        "native_norm",
        lambda lib, x, p=2: lib.native_norm(x.detach().to_sparse(), p),
        lambda x, p=2: np.sum(np.abs(x) ** p) ** (1 / p),
        [S(((3, 4),), name="2"), S(((3, 4),), {"p": 1}, name="1")],
        dtypes=F,
        grad=False,
        meta=False,
    )
)
