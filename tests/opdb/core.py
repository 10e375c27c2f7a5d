"""Rows for the ops of ember/ops/pointwise.py (arithmetic)."""

import numpy as np

from tests.opdb import Const, Int, OpInfo, Sample

BIN = [
    Sample(((3, 4), (3, 4)), name="same"),
    Sample(((3, 4), (4,)), name="bcast"),
    Sample(((2, 1, 3), (4, 1)), name="bcast2"),
    Sample(((), ()), name="0d"),
    Sample(((3,), ()), name="dim_0d"),
    Sample(((3,), 2.5), name="scalar"),
]

ROWS = [
    OpInfo("add", lambda lib, a, b: lib.add(a, b), np.add, BIN, gradgrad=False),
    OpInfo(
        "add",
        lambda lib, a, b: lib.add(a, b, alpha=2),
        lambda a, b: a + 2 * b,
        BIN[:2],
        gradgrad=False,
    ),
    OpInfo("sub", lambda lib, a, b: lib.sub(a, b), np.subtract, BIN, gradgrad=False),
    OpInfo(
        "subtract",
        lambda lib, a, b: lib.subtract(a, b, alpha=3),
        lambda a, b: a - 3 * b,
        BIN[:2],
        gradgrad=False,
    ),
    OpInfo("rsub", lambda lib, a, b: lib.rsub(a, b), lambda a, b: b - a, BIN[:2], gradgrad=False),
    OpInfo("mul", lambda lib, a, b: lib.mul(a, b), np.multiply, BIN),
    OpInfo("multiply", lambda lib, a, b: a * b, np.multiply, BIN[:3]),
    OpInfo("div", lambda lib, a, b: lib.div(a, b), np.divide, BIN, domain=(0.5, 2.0)),
    OpInfo("divide", lambda lib, a, b: a / b, np.divide, BIN[:3], domain=(0.5, 2.0)),
    OpInfo(
        "true_divide",
        lambda lib, a, b: lib.true_divide(a, b),
        np.divide,
        BIN[:2],
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "div",
        lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
        lambda a, b: np.floor(a / b),
        [Sample(((3, 4), (4,)))],
        grad=False,
        domain=(0.5, 4.0),
    ),
    OpInfo(
        "div",
        lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
        lambda a, b: np.trunc(a / b),
        [Sample(((3, 4), (4,)))],
        grad=False,
        domain=(-4.0, 4.0),
    ),
    OpInfo(
        "floor_divide",
        lambda lib, a, b: lib.floor_divide(a, b),
        lambda a, b: np.floor_divide(a, b),
        [Sample(((3, 4), (4,)))],
        grad=False,
        domain=(0.5, 4.0),
    ),
    OpInfo(
        "floor_divide",
        lambda lib, a, b: a // b,
        lambda a, b: a // b,
        [Sample((Int((3, 4), 1, 9), Int((4,), 1, 4)))],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "neg",
        lambda lib, a: lib.neg(a),
        np.negative,
        [Sample(((3, 4),)), Sample(((),))],
        gradgrad=False,
    ),
    OpInfo("negative", lambda lib, a: -a, np.negative, [Sample(((3,),))], gradgrad=False),
    OpInfo("pow", lambda lib, a, b: lib.pow(a, b), np.power, BIN[:5], domain=(0.5, 2.0)),
    OpInfo("pow", lambda lib, a: a**3, lambda a: a**3, [Sample(((3, 4),))]),
    OpInfo("pow", lambda lib, a: 2.0**a, lambda a: 2.0**a, [Sample(((3, 4),))]),
    OpInfo("pow", lambda lib, a: a**0.5, np.sqrt, [Sample(((3, 4),))], domain=(0.5, 2.0)),
    OpInfo(
        "pow",
        lambda lib, a, b: a**b,
        np.power,
        [Sample((Const([0.0, 1.0, 2.0]), Const([0.0, 2.0, 0.0])))],
        grad=False,
    ),
]
