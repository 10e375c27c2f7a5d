"""Rows for the op of ember/ops/linear.py (``nn.functional.linear``)."""

import ember.nn.functional  # noqa: F401  (makes ember.nn.functional reachable as an attribute)
from tests.opdb import OpInfo, Sample

LINEAR = [
    Sample(((3, 4), (5, 4), (5,)), name="2d"),
    Sample(((3, 4), (5, 4), None), name="2d_nobias"),
    Sample(((4,), (5, 4), (5,)), name="1d"),
    Sample(((4,), (5, 4), None), name="1d_nobias"),
    Sample(((2, 3, 4), (5, 4), (5,)), name="3d"),
    Sample(((2, 3, 4), (5, 4), None), name="3d_nobias"),
    Sample(((2, 1, 3, 4), (5, 4), (5,)), name="4d"),
    Sample(((3, 4), (5, 4), (3, 1)), name="2d_bias_bcast"),
    Sample(((2, 3, 4), (5, 4), (1, 5)), name="fused_bias_2d"),
    Sample(((2, 3, 4), (5, 4), (3, 5)), name="added_bias"),
    Sample(((2, 3, 4), (5, 4), ()), name="0d_bias"),
    Sample(((3, 4), (4,), None), name="1d_weight"),
    Sample(((2, 3, 4), (4,), ()), name="1d_weight_3d"),
    Sample(((4,), (4,), None), name="1d_1d"),
    Sample(((0, 4), (5, 4), (5,)), name="empty_batch"),
    Sample(((3, 0), (5, 0), (5,)), name="no_features"),
]


def _linear_ref(x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


ROWS = [
    OpInfo("linear", lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), _linear_ref, LINEAR),
]
