"""Rows for the ops of ember/ops/math.py and its sibling families (element-wise math,
rounding, clamp, where/lerp, comparisons, logical/bitwise ops)."""

import math

import numpy as np

from tests.opdb import Bool, Const, Int, OpInfo, Sample

NAN, INF = float("nan"), float("inf")

U = [
    Sample(((3, 4),), name="2d"),
    Sample(((),), name="0d"),
    Sample(((2, 1, 3),), name="3d"),
]
BIN = [
    Sample(((3, 4), (3, 4)), name="same"),
    Sample(((3, 4), (4,)), name="bcast"),
    Sample(((2, 1, 3), (4, 1)), name="bcast2"),
    Sample(((), ()), name="0d"),
    Sample(((3,), ()), name="dim_0d"),
]
TENSOR_SCALAR = [Sample(((3, 4), 1.5), name="scalar")]
SPECIAL = Const([0.0, -0.0, 1.0, -2.5, NAN, INF, -INF])


def _erfinv(x):
    # scipy-free reference: Newton's method on erf, vectorized (|x| < 1)
    erf = np.vectorize(math.erf)
    y = np.zeros_like(x)
    for _ in range(60):
        y = y - (erf(y) - x) / (2 / math.sqrt(math.pi) * np.exp(-y * y))
    return y


def _logit(x, eps=None):
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


# name -> (NumPy reference, domain, has a non-zero second derivative)
UNARY = {
    "abs": (np.abs, (-2.0, 2.0), False),
    "absolute": (np.abs, (-2.0, 2.0), False),
    "reciprocal": (np.reciprocal, (0.5, 2.0), True),
    "square": (np.square, (-2.0, 2.0), True),
    "sqrt": (np.sqrt, (0.5, 2.0), True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.5, 2.0), True),
    "exp": (np.exp, (-2.0, 2.0), True),
    "exp2": (np.exp2, (-2.0, 2.0), True),
    "expm1": (np.expm1, (-2.0, 2.0), True),
    "log": (np.log, (0.5, 2.0), True),
    "log2": (np.log2, (0.5, 2.0), True),
    "log10": (np.log10, (0.5, 2.0), True),
    "log1p": (np.log1p, (-0.5, 2.0), True),
    "sin": (np.sin, (-2.0, 2.0), True),
    "cos": (np.cos, (-2.0, 2.0), True),
    "tan": (np.tan, (-1.2, 1.2), True),
    "asin": (np.arcsin, (-0.9, 0.9), True),
    "arcsin": (np.arcsin, (-0.9, 0.9), True),
    "acos": (np.arccos, (-0.9, 0.9), True),
    "arccos": (np.arccos, (-0.9, 0.9), True),
    "atan": (np.arctan, (-2.0, 2.0), True),
    "arctan": (np.arctan, (-2.0, 2.0), True),
    "sinh": (np.sinh, (-2.0, 2.0), True),
    "cosh": (np.cosh, (-2.0, 2.0), True),
    "tanh": (np.tanh, (-2.0, 2.0), True),
    "asinh": (np.arcsinh, (-2.0, 2.0), True),
    "arcsinh": (np.arcsinh, (-2.0, 2.0), True),
    "acosh": (np.arccosh, (1.2, 3.0), True),
    "arccosh": (np.arccosh, (1.2, 3.0), True),
    "atanh": (np.arctanh, (-0.9, 0.9), True),
    "arctanh": (np.arctanh, (-0.9, 0.9), True),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-4.0, 4.0), True),
    "logit": (_logit, (0.1, 0.9), True),
    "erf": (np.vectorize(math.erf), (-2.0, 2.0), True),
    "erfc": (np.vectorize(math.erfc), (-2.0, 2.0), True),
    "erfinv": (_erfinv, (-0.9, 0.9), True),
    "relu": (lambda x: np.maximum(x, 0), (-2.0, 2.0), False),
    "floor": (np.floor, (-2.0, 2.0), False),
    "ceil": (np.ceil, (-2.0, 2.0), False),
    "round": (np.round, (-2.0, 2.0), False),
    "trunc": (np.trunc, (-2.0, 2.0), False),
    "fix": (np.trunc, (-2.0, 2.0), False),
    "frac": (lambda x: x - np.trunc(x), (-2.0, 2.0), False),
    "sign": (np.sign, (-2.0, 2.0), False),
    "sgn": (np.sign, (-2.0, 2.0), False),
    "nan_to_num": (np.nan_to_num, (-2.0, 2.0), False),
    "deg2rad": (np.deg2rad, (-2.0, 2.0), False),
    "rad2deg": (np.rad2deg, (-2.0, 2.0), False),
    "positive": (lambda x: x, (-2.0, 2.0), False),
}


def _unary_row(name, method=False):
    ref, domain, gg = UNARY[name]
    if method:
        fn = lambda lib, x, _n=name: getattr(x, _n)()  # noqa: E731
    else:
        fn = lambda lib, x, _n=name: getattr(lib, _n)(x)  # noqa: E731
    return OpInfo(name, fn, ref, U, gradgrad=gg, domain=domain)


ROWS = [_unary_row(n) for n in UNARY]
ROWS += [_unary_row(n, method=True) for n in ("exp", "sigmoid", "abs", "tanh", "relu")]

# unary ops with options or special inputs
ROWS += [
    OpInfo("abs", lambda lib, x: abs(x), np.abs, U[:1], gradgrad=False),
    OpInfo(
        "logit",
        lambda lib, x: lib.logit(x, eps=0.2),
        lambda x: _logit(x, 0.2),
        [Sample(((3, 4),))],
        domain=(0.0, 1.0),
    ),
    OpInfo(
        "round",
        lambda lib, x: lib.round(x, decimals=2),
        lambda x: np.round(x, 2),
        [Sample(((3, 4),)), Sample(((),))],
        gradgrad=False,
        domain=(-20.0, 20.0),
    ),
    OpInfo(
        "round",
        lambda lib, x: x.round(decimals=-1),
        lambda x: np.round(x, -1),
        [Sample(((3, 4),))],
        gradgrad=False,
        domain=(-200.0, 200.0),
    ),
    OpInfo(
        "round",
        lambda lib, x: lib.round(x),
        np.round,
        [Sample((Const([0.5, 1.5, 2.5, -0.5, -1.5]),))],
        grad=False,
    ),
    OpInfo(
        "sign",
        lambda lib, x: lib.sign(x),
        lambda x: np.where(np.isnan(x), 0, np.sign(x)),
        [Sample((SPECIAL,))],
        grad=False,
    ),
    OpInfo(
        "nan_to_num",
        lambda lib, x: lib.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0),
        lambda x: np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0),
        [Sample((SPECIAL,))],
        grad=False,
    ),
    OpInfo(
        "nan_to_num",
        lambda lib, x: lib.nan_to_num(x),
        np.nan_to_num,
        [Sample((SPECIAL,))],
        grad=False,
    ),
    OpInfo(
        "relu",
        lambda lib, x: lib.relu(x),
        lambda x: np.maximum(x, 0),
        [Sample((Int((3, 4), -5, 5),))],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "abs",
        lambda lib, x: lib.abs(x),
        np.abs,
        [Sample((Int((3, 4), -5, 5),))],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "sqrt",
        lambda lib, x: lib.sqrt(x),
        lambda x: np.sqrt(x.astype(np.float32)),
        [Sample((Int((3, 4), 0, 9),))],
        grad=False,
        dtypes=("float64",),
    ),
]

# predicates (bool results)
PRED = [Sample((SPECIAL,)), Sample(((3, 4),)), Sample((Int((3,), -3, 3),))]
ROWS += [
    OpInfo("isnan", lambda lib, x: lib.isnan(x), np.isnan, PRED, grad=False),
    OpInfo("isinf", lambda lib, x: lib.isinf(x), np.isinf, PRED, grad=False),
    OpInfo("isposinf", lambda lib, x: lib.isposinf(x), np.isposinf, PRED, grad=False),
    OpInfo("isneginf", lambda lib, x: x.isneginf(), np.isneginf, PRED, grad=False),
    OpInfo("isfinite", lambda lib, x: lib.isfinite(x), np.isfinite, PRED, grad=False),
    OpInfo("isreal", lambda lib, x: lib.isreal(x), np.isreal, PRED[:2], grad=False),
]

# two- and three-input ops
SIGNS = [
    Sample(
        (Const([-3.5, 3.5, -1.25, 1.25, 5.0]), Const([2.0, -2.0, 0.75, -0.75, 3.0])), name="signs"
    )
]
ROWS += [
    OpInfo(
        "remainder",
        lambda lib, a, b: lib.remainder(a, b),
        np.remainder,
        BIN + TENSOR_SCALAR + SIGNS,
        domain=(0.5, 3.0),
        gradgrad=False,
    ),
    OpInfo(
        "remainder", lambda lib, a, b: a % b, np.remainder, SIGNS + TENSOR_SCALAR, gradgrad=False
    ),
    OpInfo(
        "remainder",
        lambda lib, a: 2.5 % a,
        lambda a: np.remainder(2.5, a),
        U[:2],
        domain=(0.5, 3.0),
        gradgrad=False,
        torch=False,
        skip_reason="torch has no derivative for remainder(Scalar, Tensor)",
    ),
    OpInfo(
        "remainder",
        lambda lib, a: 2.5 % a,
        lambda a: np.remainder(2.5, a),
        U[:2],
        domain=(0.5, 3.0),
        grad=False,
    ),
    OpInfo(
        "remainder",
        lambda lib, a, b: lib.remainder(a, b),
        np.remainder,
        [Sample((Int((3, 4), -9, 9), Int((4,), 1, 4))), Sample((Int((3,), -9, 9), -4))],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "fmod",
        lambda lib, a, b: lib.fmod(a, b),
        np.fmod,
        BIN + TENSOR_SCALAR + SIGNS,
        domain=(0.5, 3.0),
        gradgrad=False,
    ),
    OpInfo(
        "fmod",
        lambda lib, a, b: a.fmod(b),
        np.fmod,
        [Sample((Int((3, 4), -9, 9), Int((4,), 1, 4)))],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo("atan2", lambda lib, a, b: lib.atan2(a, b), np.arctan2, BIN),
    OpInfo("arctan2", lambda lib, a, b: a.arctan2(b), np.arctan2, BIN[:2]),
    OpInfo("maximum", lambda lib, a, b: lib.maximum(a, b), np.maximum, BIN, gradgrad=False),
    OpInfo(
        "maximum",
        lambda lib, a, b: lib.maximum(a, b),
        np.maximum,
        [Sample((Const([1.0, 2.0, 3.0]), Const([1.0, 1.0, 4.0])), name="ties")],
        gradgrad=False,
    ),
    OpInfo("minimum", lambda lib, a, b: lib.minimum(a, b), np.minimum, BIN, gradgrad=False),
    OpInfo(
        "minimum",
        lambda lib, a, b: a.minimum(b),
        np.minimum,
        [Sample((Const([1.0, 2.0, 3.0]), Const([1.0, 1.0, 4.0])), name="ties")],
        gradgrad=False,
    ),
    OpInfo(
        "maximum",
        lambda lib, a, b: lib.maximum(a, b),
        np.maximum,
        [Sample((Const([NAN, 1.0]), Const([1.0, NAN])), name="nan")],
        grad=False,
    ),
    OpInfo("fmax", lambda lib, a, b: lib.fmax(a, b), np.fmax, BIN, gradgrad=False),
    OpInfo("fmin", lambda lib, a, b: lib.fmin(a, b), np.fmin, BIN, gradgrad=False),
    OpInfo(
        "fmax",
        lambda lib, a, b: lib.fmax(a, b),
        np.fmax,
        [Sample((Const([NAN, 1.0, NAN]), Const([1.0, NAN, NAN])), name="nan")],
        grad=False,
    ),
    OpInfo(
        "float_power",
        lambda lib, a, b: lib.float_power(a, b),
        np.float_power,
        BIN + TENSOR_SCALAR,
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "float_power", lambda lib, a: lib.float_power(2, a), lambda a: np.float_power(2, a), U[:2]
    ),
    OpInfo(
        "float_power",
        lambda lib, a: lib.float_power(a, 3),
        lambda a: np.float_power(a, 3),
        [Sample((Int((3,), -3, 3),))],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo("hypot", lambda lib, a, b: lib.hypot(a, b), np.hypot, BIN),
    OpInfo(
        "copysign",
        lambda lib, a, b: lib.copysign(a, b),
        np.copysign,
        BIN + TENSOR_SCALAR,
        gradgrad=False,
    ),
    OpInfo(
        "copysign",
        lambda lib, a: lib.copysign(a, -1),
        lambda a: np.copysign(a, -1),
        [Sample((Int((3,), -3, 3),))],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "xlogy",
        lambda lib, a, b: lib.xlogy(a, b),
        lambda a, b: a * np.log(b),
        BIN + TENSOR_SCALAR,
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "xlogy",
        lambda lib, b: lib.xlogy(2.0, b),
        lambda b: 2.0 * np.log(b),
        U[:2],
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "xlogy",
        lambda lib, a, b: lib.xlogy(a, b),
        lambda a, b: np.where(np.isnan(b), np.nan, np.where(a == 0, 0, a * np.log(b))),
        [Sample((Const([0.0, 0.0, 1.0, 2.0, 0.0]), Const([0.0, 1.0, 3.0, 0.5, NAN])))],
        grad=False,
    ),
    OpInfo(
        "xlogy",
        lambda lib, a, b: lib.xlogy(a, b),
        lambda a, b: a * np.log(b),
        [Sample((Const([0.0, 1.0, 2.0]), Const([0.5, 1.5, 3.0])), name="x0")],
    ),
]

CLAMP = [
    Sample(((3, 4),), {"min": -0.5, "max": 0.5}, name="both"),
    Sample(((3, 4),), {"min": -0.5}, name="min"),
    Sample(((),), {"max": 0.5}, name="max_0d"),
    Sample(((3, 4),), {"min": 0.5, "max": -0.5}, name="min_gt_max"),
]
CLAMP_T = [
    Sample(((3, 4), (3, 4), (4,)), name="tensors"),
    Sample(((3, 4), (4,), None), name="min_only"),
    Sample(((3, 4), None, ()), name="max_only"),
]
ROWS += [
    OpInfo(
        "clamp",
        lambda lib, x, **kw: lib.clamp(x, **kw),
        lambda x, min=None, max=None: np.minimum(
            np.maximum(x, -np.inf if min is None else min), np.inf if max is None else max
        ),
        CLAMP,
        gradgrad=False,
    ),
    OpInfo(
        "clamp",
        lambda lib, x, lo, hi: lib.clamp(x, lo, hi),
        lambda x, lo, hi: np.minimum(
            np.maximum(x, -np.inf if lo is None else lo), np.inf if hi is None else hi
        ),
        CLAMP_T,
        gradgrad=False,
    ),
    OpInfo(
        "clip",
        lambda lib, x, **kw: lib.clip(x, **kw),
        lambda x, min=None, max=None: np.clip(x, min, max),
        CLAMP[:2],
        gradgrad=False,
    ),
    OpInfo(
        "clamp_min",
        lambda lib, x, m: lib.clamp_min(x, m),
        np.maximum,
        [Sample(((3, 4), 0.2)), Sample(((3, 4), (4,)), name="tensor")],
        gradgrad=False,
    ),
    OpInfo(
        "clamp_max",
        lambda lib, x, m: lib.clamp_max(x, m),
        np.minimum,
        [Sample(((3, 4), 0.2)), Sample(((3, 4), (4,)), name="tensor")],
        gradgrad=False,
    ),
    OpInfo(
        "clamp",
        lambda lib, x: lib.clamp(x, min=1.5),
        lambda x: np.maximum(x, 1.5),
        [Sample((Int((3, 4), -3, 3),))],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "where",
        lambda lib, c, x, y: lib.where(c, x, y),
        np.where,
        [
            Sample((Bool((3, 4)), (3, 4), (3, 4))),
            Sample((Bool((3, 4)), (4,), ())),
            Sample((Bool((4,)), (3, 1), (3, 4))),
            Sample((Bool(()), (), ())),
        ],
    ),
    OpInfo(
        "where",
        lambda lib, c, x, y: lib.where(c, x, y),
        np.where,
        [
            Sample((Bool((3, 4)), (3, 4), 0.5), name="other_number"),
            Sample((Bool((3, 4)), -1.0, (4,)), name="input_number"),
        ],
    ),
    OpInfo(
        "where",
        lambda lib, x, y: x.where(x > 0, y),
        lambda x, y: np.where(x > 0, x, y),
        [Sample(((3, 4), (3, 4)))],
    ),
    OpInfo(
        "where",
        lambda lib, c: lib.where(c, 1.0, 0.0),
        lambda c: np.where(c, 1.0, 0.0).astype(np.float32),
        [Sample((Bool((3, 4)),))],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "lerp",
        lambda lib, a, b, w: lib.lerp(a, b, w),
        lambda a, b, w: a + w * (b - a),
        [
            Sample(((3, 4), (3, 4), 0.3), name="w_small"),
            Sample(((3, 4), (4,), 0.8), name="w_large"),
            Sample(((3, 4), (3, 4), (3, 4)), name="w_tensor"),
            Sample(((), (), ()), name="0d"),
            Sample(((4,), (3, 1), (4,)), name="bcast"),
        ],
    ),
    OpInfo(
        "addcmul",
        lambda lib, x, a, b, **kw: lib.addcmul(x, a, b, **kw),
        lambda x, a, b, value=1: x + value * a * b,
        [
            Sample(((3, 4), (3, 4), (3, 4))),
            Sample(((4,), (3, 1), (4,)), {"value": 0.5}),
            Sample(((), (), ()), {"value": -2}),
        ],
    ),
    OpInfo(
        "addcdiv",
        lambda lib, x, a, b, **kw: x.addcdiv(a, b, **kw),
        lambda x, a, b, value=1: x + value * a / b,
        [
            Sample(((3, 4), (3, 4), (3, 4))),
            Sample(((4,), (3, 1), (4,)), {"value": 0.5}),
            Sample(((), (), ()), {"value": -2}),
        ],
        domain=(0.5, 2.0),
    ),
    OpInfo(
        "masked_fill",
        lambda lib, x, m: lib.masked_fill(x, m, 0.5),
        lambda x, m: np.where(m, 0.5, x),
        [
            Sample(((3, 4), Bool((3, 4)))),
            Sample(((3, 4), Bool((4,)))),
            Sample(((4,), Bool((3, 4))), name="mask_bcast"),
            Sample(((), Bool(()))),
        ],
        gradgrad=False,
    ),
    OpInfo(
        "masked_fill",
        lambda lib, x, m, v: x.masked_fill(m, v),
        lambda x, m, v: np.where(m, v, x),
        [Sample(((3, 4), Bool((3, 4)), ()), name="tensor_value")],
        gradgrad=False,
    ),
]

# comparisons, logical and bitwise ops
CMP = [
    Sample((Int((3, 4)), Int((4,))), name="int"),
    Sample(((3, 4), (3, 4)), name="float"),
    Sample(((3, 4), 0.5), name="scalar"),
    Sample((Int((3, 4)), 2.5), name="int_float_scalar"),
    Sample((Const([1.0, NAN, INF]), Const([1.0, NAN, INF])), name="special"),
]
for _name, _ref in [
    ("eq", np.equal),
    ("ne", np.not_equal),
    ("lt", np.less),
    ("le", np.less_equal),
    ("gt", np.greater),
    ("ge", np.greater_equal),
    ("not_equal", np.not_equal),
    ("less", np.less),
    ("less_equal", np.less_equal),
    ("greater", np.greater),
    ("greater_equal", np.greater_equal),
]:
    ROWS.append(
        OpInfo(_name, lambda lib, a, b, _n=_name: getattr(lib, _n)(a, b), _ref, CMP, grad=False)
    )
ROWS += [
    OpInfo("eq", lambda lib, a, b: a == b, np.equal, CMP, grad=False),
    OpInfo("ne", lambda lib, a, b: a != b, np.not_equal, CMP, grad=False),
    OpInfo("lt", lambda lib, a, b: a < b, np.less, CMP, grad=False),
    OpInfo("le", lambda lib, a, b: a <= b, np.less_equal, CMP, grad=False),
    OpInfo("gt", lambda lib, a, b: a > b, np.greater, CMP, grad=False),
    OpInfo("ge", lambda lib, a, b: a >= b, np.greater_equal, CMP, grad=False),
    OpInfo("gt", lambda lib, a: 0.5 > a, lambda a: 0.5 > a, U[:1], grad=False),
]
LOGIC = [
    Sample((Bool((3, 4)), Bool((4,))), name="bool"),
    Sample((Int((3, 4), 0, 2), (3, 4)), name="int_float"),
]
ROWS += [
    OpInfo(
        "logical_and", lambda lib, a, b: lib.logical_and(a, b), np.logical_and, LOGIC, grad=False
    ),
    OpInfo("logical_or", lambda lib, a, b: a.logical_or(b), np.logical_or, LOGIC, grad=False),
    OpInfo(
        "logical_xor", lambda lib, a, b: lib.logical_xor(a, b), np.logical_xor, LOGIC, grad=False
    ),
    OpInfo(
        "logical_not",
        lambda lib, a: lib.logical_not(a),
        np.logical_not,
        [Sample((Bool((3, 4)),)), Sample((Const([0.0, 1.0, NAN]),))],
        grad=False,
    ),
]
BITS = [
    Sample((Int((3, 4), -8, 8), Int((4,), 0, 8)), name="int"),
    Sample((Bool((3, 4)), Bool((4,))), name="bool"),
    Sample((Int((3, 4), -8, 8, "int32"), 6), name="scalar"),
    Sample((Bool((3,)), 1), name="bool_int"),
    Sample((Int((3,), 0, 200, "uint8"), Int((3,), -8, 8, "int8")), name="mixed"),
]
SHIFTS = [
    Sample((Int((3, 4), -8, 8), Int((4,), 0, 5)), name="int"),
    Sample((Int((3, 4), -8, 8, "int16"), 3), name="scalar"),
]
ROWS += [
    OpInfo(
        "bitwise_and", lambda lib, a, b: lib.bitwise_and(a, b), np.bitwise_and, BITS, grad=False
    ),
    OpInfo("bitwise_or", lambda lib, a, b: lib.bitwise_or(a, b), np.bitwise_or, BITS, grad=False),
    OpInfo(
        "bitwise_xor", lambda lib, a, b: lib.bitwise_xor(a, b), np.bitwise_xor, BITS, grad=False
    ),
    OpInfo("bitwise_and", lambda lib, a, b: a & b, np.bitwise_and, BITS[:2], grad=False),
    OpInfo("bitwise_or", lambda lib, a, b: a | b, np.bitwise_or, BITS[:2], grad=False),
    OpInfo("bitwise_xor", lambda lib, a, b: a ^ b, np.bitwise_xor, BITS[:2], grad=False),
    OpInfo(
        "bitwise_and",
        lambda lib, a: 6 & a,
        lambda a: 6 & a,
        [Sample((Int((3,), -8, 8),))],
        grad=False,
    ),
    OpInfo(
        "bitwise_not",
        lambda lib, a: lib.bitwise_not(a),
        np.invert,
        [Sample((Int((3, 4), -8, 8),)), Sample((Bool((3,)),))],
        grad=False,
    ),
    OpInfo(
        "bitwise_not",
        lambda lib, a: ~a,
        np.invert,
        [Sample((Int((3, 4), -8, 8),)), Sample((Bool((3,)),))],
        grad=False,
    ),
    OpInfo(
        "bitwise_left_shift",
        lambda lib, a, b: lib.bitwise_left_shift(a, b),
        np.left_shift,
        SHIFTS,
        grad=False,
    ),
    OpInfo(
        "bitwise_right_shift",
        lambda lib, a, b: lib.bitwise_right_shift(a, b),
        np.right_shift,
        SHIFTS,
        grad=False,
    ),
    OpInfo("bitwise_left_shift", lambda lib, a, b: a << b, np.left_shift, SHIFTS, grad=False),
    OpInfo("bitwise_right_shift", lambda lib, a, b: a >> b, np.right_shift, SHIFTS, grad=False),
    OpInfo(
        "bitwise_left_shift",
        lambda lib, a: 1 << a,
        lambda a: 1 << a,
        [Sample((Int((3,), 0, 8),))],
        grad=False,
    ),
]

# closeness and equality
CLOSE = [
    Sample(
        (Const([1.0, 2.0, NAN, INF, -INF, 0.0]), Const([1.0 + 1e-6, 2.1, NAN, INF, INF, 1e-9])),
        name="special",
    ),
    Sample(((3, 4), (4,)), name="bcast"),
]
ROWS += [
    OpInfo(
        "isclose",
        lambda lib, a, b, **kw: lib.isclose(a, b, **kw),
        np.isclose,
        CLOSE
        + [
            Sample(CLOSE[0].args, {"equal_nan": True}, name="equal_nan"),
            Sample(CLOSE[0].args, {"rtol": 0.1, "atol": 0.0}, name="rtol"),
        ],
        grad=False,
        dtypes=("float32", "float64"),
    ),
    OpInfo(
        "isclose",
        lambda lib, a, b: lib.isclose(a, b),
        np.isclose,
        [Sample((Int((3, 4), 0, 3), Int((3, 4), 0, 3)), name="int")],
        grad=False,
        dtypes=("float64",),
    ),
    OpInfo(
        "allclose",
        lambda lib, a, b, **kw: lib.allclose(a, b, **kw),
        lambda a, b, **kw: bool(np.allclose(a, b, **kw)),
        [
            Sample((Const([1.0, 2.0]), Const([1.0 + 1e-7, 2.0]))),
            Sample((Const([1.0, NAN]), Const([1.0, NAN])), {"equal_nan": True}),
            Sample((Const([1.0, NAN]), Const([1.0, NAN]))),
            Sample(((3,), (3,))),
        ],
        grad=False,
        meta=False,
    ),
    OpInfo(
        "equal",
        lambda lib, a, b: lib.equal(a, b),
        np.array_equal,
        [
            Sample((Const([1.0, 2.0]), Const([1.0, 2.0]))),
            Sample((Const([1.0, 2.0]), Const([1.0, 2.5]))),
            Sample((Const([1.0, 2.0]), Const([1.0]))),
            Sample((Const([NAN]), Const([NAN]))),
        ],
        grad=False,
        meta=False,
    ),
]

# in-place forms: the torch-level ones (``torch.exp_(x)``) and a few methods
INPLACE_KW = {
    "clamp": {"min": -0.5, "max": 0.5},
    "clip": {"min": -0.5, "max": 0.5},
    "clamp_min": {"min": -0.5},
    "clamp_max": {"max": 0.5},
}
INPLACE_REF = {
    "clamp": lambda x, **kw: np.clip(x, kw.get("min"), kw.get("max")),
    "clamp_min": lambda x, min: np.maximum(x, min),
    "clamp_max": lambda x, max: np.minimum(x, max),
}
INPLACE_REF["clip"] = INPLACE_REF["clamp"]
NO_TORCH_INPLACE_GRAD = {"acosh", "arccosh", "asinh", "arcsinh", "atanh", "arctanh"}
for _name in [
    "abs",
    "acos",
    "acosh",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctanh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "ceil",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "cos",
    "cosh",
    "deg2rad",
    "erf",
    "erfc",
    "exp2",
    "exp",
    "expm1",
    "fix",
    "floor",
    "frac",
    "log10",
    "log1p",
    "log2",
    "log",
    "logit",
    "nan_to_num",
    "rad2deg",
    "reciprocal",
    "relu",
    "round",
    "rsqrt",
    "sigmoid",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
]:
    if _name in UNARY:
        _ref, _dom, _gg = UNARY[_name]
    else:
        _ref, _dom, _gg = INPLACE_REF[_name], (-2.0, 2.0), False
    # torch has no derivative for the in-place inverse hyperbolic functions: no grad parity
    ROWS.append(
        OpInfo(
            _name + "_",
            lambda lib, x, _n=_name, **kw: getattr(lib, _n + "_")(x.clone(), **kw),
            _ref,
            [Sample(((3, 4),), INPLACE_KW.get(_name, {}))],
            gradgrad=_gg,
            domain=_dom,
            nondeterministic_grad=_name in NO_TORCH_INPLACE_GRAD,
        )
    )
ROWS += [
    OpInfo(
        "xlogy_",
        lambda lib, a, b: lib.xlogy_(a.clone(), b),
        lambda a, b: a * np.log(b),
        BIN[:2],
        domain=(0.5, 2.0),
    ),
    OpInfo("exp_", lambda lib, x: x.clone().exp_(), np.exp, U[:2]),
    OpInfo(
        "clamp_",
        lambda lib, x, lo: x.clone().clamp_(lo),
        lambda x, lo: np.maximum(x, lo),
        [Sample(((3, 4), (4,)))],
        gradgrad=False,
    ),
    OpInfo(
        "masked_fill_",
        lambda lib, x, m: x.clone().masked_fill_(m, -1.0),
        lambda x, m: np.where(m, -1.0, x),
        [Sample(((3, 4), Bool((4,))))],
        gradgrad=False,
    ),
    OpInfo(
        "lerp_",
        lambda lib, a, b: a.clone().lerp_(b, 0.25),
        lambda a, b: a + 0.25 * (b - a),
        [Sample(((3, 4), (4,)))],
    ),
    OpInfo(
        "addcmul_",
        lambda lib, x, a, b: x.clone().addcmul_(a, b, value=2),
        lambda x, a, b: x + 2 * a * b,
        [Sample(((3, 4), (4,), (3, 1)))],
    ),
    OpInfo(
        "float_power_",
        lambda lib, a: a.double().clone().float_power_(2),
        lambda a: np.float_power(a, 2),
        [Sample(((3, 4),))],
    ),
    OpInfo(
        "remainder_",
        lambda lib, a, b: a.clone().remainder_(b),
        np.remainder,
        [Sample(((3, 4), 0.7))],
        domain=(0.5, 3.0),
        gradgrad=False,
    ),
    OpInfo(
        "eq_",
        lambda lib, a, b: a.clone().eq_(b),
        lambda a, b: (a == b).astype(a.dtype),
        [Sample((Const([1.0, 2.0, 3.0]), Const([1.0, 0.0, 3.0])))],
        grad=False,
    ),
    OpInfo(
        "logical_and_",
        lambda lib, a, b: a.clone().logical_and_(b),
        lambda a, b: np.logical_and(a, b),
        [Sample((Bool((3, 4)), Bool((4,))))],
        grad=False,
    ),
    OpInfo(
        "bitwise_or_",
        lambda lib, a, b: a.clone().bitwise_or_(b),
        np.bitwise_or,
        [Sample((Int((3, 4), 0, 8), Int((4,), 0, 8)))],
        grad=False,
    ),
]
