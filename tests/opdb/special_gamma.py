"""Rows for ember/ops/special_gamma.py (lgamma, digamma, polygamma, mvlgamma, igamma,
igammac). NumPy has none of these functions, so the rows are checked against torch (forward and
gradients in float64 at 1e-10) and by finite differences; tests/test_special_gamma.py covers
wide ranges, special values and the accuracy."""

from tests.opdb import OpInfo, Sample

U = [
    Sample(((3, 4),), name="2d"),
    Sample(((),), name="0d"),
    Sample(((2, 1, 3),), name="3d"),
]
# negative non-integers too: the reflection formulas
NEG = [Sample(((3, 4),), name="neg")]
# torch's trigamma (polygamma(1, x), also digamma's gradient) truncates its asymptotic series and
# is accurate to ~1e-9 only; ember's is exact to ~1e-15 (tests/test_special_gamma.py checks both
# against mpmath), so those comparisons are not made here at 1e-10: gradcheck covers the grads.
TRIGAMMA = "torch's trigamma is accurate to ~1e-9 only (tests/test_special_gamma.py)"


def _shape_a(lib, x):
    # igamma's shape parameter: a constant column (torch has no derivative in it)
    return lib.tensor([[0.5], [1.5], [4.0]], dtype=x.dtype, device=x.device)


ROWS = [
    OpInfo("lgamma", lambda lib, x: lib.lgamma(x), None, U, domain=(0.1, 6.0)),
    OpInfo("lgamma", lambda lib, x: x.lgamma(), None, NEG, domain=(-4.9, -4.1)),
    OpInfo(
        "digamma",
        lambda lib, x: lib.digamma(x),
        None,
        U,
        domain=(0.1, 6.0),
        nondeterministic_grad=True,
    ),
    OpInfo(
        "digamma",
        lambda lib, x: x.digamma(),
        None,
        NEG,
        domain=(-2.9, -2.1),
        nondeterministic_grad=True,
    ),
    OpInfo(
        "polygamma",
        lambda lib, x: lib.polygamma(1, x),
        None,
        U,
        domain=(0.1, 6.0),
        torch=False,
        skip_reason=TRIGAMMA,
    ),
    OpInfo("polygamma", lambda lib, x: lib.polygamma(2, x), None, U[:1], domain=(0.2, 6.0)),
    OpInfo(
        "polygamma",
        lambda lib, x: x.polygamma(0),
        None,
        U[:1],
        domain=(0.2, 6.0),
        nondeterministic_grad=True,
    ),
    OpInfo("mvlgamma", lambda lib, x: lib.mvlgamma(x, 3), None, U, domain=(1.1, 5.0)),
    OpInfo("mvlgamma", lambda lib, x: x.mvlgamma(p=1), None, U[:1], domain=(0.2, 5.0)),
    OpInfo(
        "igamma", lambda lib, x: lib.igamma(_shape_a(lib, x), x), None, U[:1], domain=(0.1, 6.0)
    ),
    OpInfo("igammac", lambda lib, x: _shape_a(lib, x).igammac(x), None, U[:1], domain=(0.1, 6.0)),
]
