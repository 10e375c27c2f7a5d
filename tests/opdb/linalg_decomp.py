"""Rows for the top-level names of ember/ops/linalg_{decomp,qr,lstsq}.py (the torch.linalg ones and
the factorizations with sign-ambiguous outputs are tested in tests/test_linalg_decomp.py)."""

import numpy as np

from tests.opdb import OpInfo, Sample

_F = ("float32", "float64")

ROWS = [
    OpInfo(
        "pinverse",
        lambda lib, x, **kw: lib.pinverse(x, **kw),
        lambda x, **kw: np.linalg.pinv(x, rcond=kw.get("rcond", 1e-15)),
        [Sample(((3, 4),)), Sample(((2, 4, 3),)), Sample(((3, 3),), {"rcond": 1e-3})],
        dtypes=_F,
        rtol=1e-3,
        atol=1e-4,
    ),
    OpInfo(
        "geqrf",
        lambda lib, x: tuple(lib.geqrf(x)),
        None,
        [Sample(((4, 3),)), Sample(((2, 3, 5),))],
        dtypes=_F,
        grad=False,
        rtol=1e-4,
    ),
    OpInfo(
        "orgqr",
        lambda lib, x, t: lib.orgqr(x, t),
        None,
        [Sample(((4, 3), (3,))), Sample(((2, 4, 4), (2, 2)))],
        dtypes=_F,
    ),
    OpInfo(
        "ormqr",
        lambda lib, x, t, c, **kw: lib.ormqr(x, t, c, **kw),
        None,
        [
            Sample(((4, 3), (3,), (4, 2))),
            Sample(((4, 3), (3,), (2, 4)), {"left": False, "transpose": True}),
        ],
        dtypes=_F,
    ),
]
