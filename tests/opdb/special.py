"""Rows for ember/ops/special.py (the top-level element-wise ops it adds) and the
``ember.special`` functions, referenced against scipy.special / NumPy."""

import numpy as np
import scipy.special as sc

from tests.opdb import Const, Int, OpInfo, Sample

NAN, INF = float("nan"), float("inf")
U = [Sample(((3, 4),), name="2d"), Sample(((),), name="0d"), Sample(((2, 1, 3),), name="3d")]
BIN = [
    Sample(((3, 4), (3, 4)), name="same"),
    Sample(((3, 4), (4,)), name="bcast"),
    Sample(((), ()), name="0d"),
]
INTS = [
    Sample((Int((3, 4), -20, 20), Int((3, 4), -20, 20)), name="same"),
    Sample((Int((3, 4), -20, 20), Int((4,), 1, 9)), name="bcast"),
]
F32_64 = ("float32", "float64")


def _sinc(x):
    return np.sinc(x)


ROWS = [
    OpInfo("i0", lambda lib, x: lib.i0(x), sc.i0, U),
    OpInfo("i0", lambda lib, x: x.i0(), sc.i0, U[:1]),
    OpInfo("i0_", lambda lib, x: x.clone().i0_(), sc.i0, U[:1], grad=False),
    OpInfo("sinc", lambda lib, x: lib.sinc(x), _sinc, U),
    OpInfo("sinc", lambda lib, x: lib.sinc(x), _sinc, [Sample((Const([0.0, 1.0, -2.5]),))]),
    OpInfo("sinc_", lambda lib, x: x.clone().sinc_(), _sinc, U[:1], grad=False),
    OpInfo("logaddexp", lambda lib, a, b: lib.logaddexp(a, b), np.logaddexp, BIN),
    OpInfo("logaddexp", lambda lib, a, b: a.logaddexp(b), np.logaddexp, BIN[:1]),
    OpInfo("logaddexp2", lambda lib, a, b: lib.logaddexp2(a, b), np.logaddexp2, BIN),
    OpInfo("gcd", lambda lib, a, b: lib.gcd(a, b), np.gcd, INTS, dtypes=(), grad=False),
    OpInfo("gcd_", lambda lib, a, b: a.clone().gcd_(b), np.gcd, INTS, dtypes=(), grad=False),
    OpInfo("lcm", lambda lib, a, b: lib.lcm(a, b), np.lcm, INTS, dtypes=(), grad=False),
    OpInfo("lcm_", lambda lib, a, b: a.clone().lcm_(b), np.lcm, INTS, dtypes=(), grad=False),
    OpInfo(
        "heaviside",
        lambda lib, a, b: lib.heaviside(a, b),
        np.heaviside,
        [Sample((Const([-1.0, 0.0, 2.0, 0.0]), Const([0.5, 0.25, 3.0, 1.0])))],
        grad=False,
    ),
    OpInfo(
        "frexp",
        lambda lib, x: lib.frexp(x)[0],
        lambda x: np.frexp(x)[0],
        U,
        gradgrad=False,
    ),
    OpInfo(
        "frexp",
        lambda lib, x: lib.frexp(x)[1].to(x.dtype),
        lambda x: np.frexp(x)[1].astype(x.dtype),
        U[:1],
        grad=False,
    ),
    OpInfo("ldexp", lambda lib, a, b: lib.ldexp(a, b), lambda a, b: a * 2.0**b, BIN),
    OpInfo(
        "ldexp",
        lambda lib, a, b: lib.ldexp(a, b),
        lambda a, b: a * 2.0**b,
        [Sample(((3, 4), Int((3, 4), -5, 5)))],
        grad=False,  # torch's gradient is 0 for negative integer exponents (a quirk we match)
    ),
    OpInfo(
        "ldexp_",
        lambda lib, a, b: a.clone().ldexp_(b),
        lambda a, b: a * 2.0**b,
        BIN[:1],
        grad=False,
    ),
    OpInfo("nextafter", lambda lib, a, b: lib.nextafter(a, b), np.nextafter, BIN, grad=False),
    OpInfo(
        "signbit",
        lambda lib, x: lib.signbit(x),
        np.signbit,
        U + [Sample((Const([0.0, -0.0, -1.0, INF, -INF]),))],
        grad=False,
    ),
]
