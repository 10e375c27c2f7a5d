"""Tests for ember/backend/_special.py (erf, erfc, erfinv, computed by scipy.special).

The module is loaded from its file path so that these tests do not depend on the rest of the
package importing. References: ``math.erf``/``math.erfc`` (the C library's, accurate to an ulp
or so) and ``scipy.special`` where installed.
"""

from __future__ import annotations

import ast
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[1] / "ember" / "backend" / "_special.py"


def _load():
    spec = importlib.util.spec_from_file_location("_ember_special_under_test", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


special = _load()
FUNCS = {"erf": special.erf, "erfc": special.erfc, "erfinv": special.erfinv}
TINY = np.finfo(np.float64).tiny
# A few ulp against a correctly rounded-ish reference.
RTOL_EXACT = 5e-15
# scipy's own erfc loses up to ~6e-14 in the far tail (it rounds x*x before exp).
RTOL_SCIPY = 1e-13


def _scipy_special():
    return pytest.importorskip("scipy.special", reason="scipy is the reference for this test")


def _rel_err(actual, expected):
    """Relative error; absolute (in units of the smallest normal) for subnormal references."""
    same = actual == expected  # infinities count as no error
    with np.errstate(invalid="ignore"):
        err = np.abs(actual - expected) / np.maximum(np.abs(expected), TINY)
    return np.where(same, 0.0, err)


def _assert_rel(actual, expected, rtol):
    assert actual.shape == expected.shape
    assert np.array_equal(np.isnan(actual), np.isnan(expected))
    ok = ~np.isnan(expected)
    err = _rel_err(actual[ok], expected[ok])
    worst = int(np.argmax(err))
    assert err[worst] <= rtol, f"rel err {err[worst]:.3g} at {actual[ok][worst]!r}"


def _erf_grid():
    return np.concatenate(
        [
            np.linspace(-7.0, 7.0, 140_001),
            np.linspace(-1.5, 1.5, 30_001),
            np.geomspace(1e-310, 1e-2, 2_000),
            -np.geomspace(1e-310, 1e-2, 2_000),
        ]
    )


def _erfc_grid():
    return np.concatenate(
        [
            np.linspace(-6.0, 26.5, 130_001),
            np.linspace(-1.5, 1.5, 30_001),
            np.geomspace(1e-310, 1e-2, 2_000),
        ]
    )


def _erfinv_grid():
    near_one = 1.0 - np.geomspace(2.0**-53, 0.5, 4_000)
    grid = np.concatenate(
        [
            np.linspace(-1.0, 1.0, 100_001)[1:-1],
            near_one,
            np.geomspace(1e-310, 1e-2, 2_000),
            [np.nextafter(1.0, 0.0), 1.0 - 1e-15, 0.85, np.nextafter(0.85, 1.0)],
        ]
    )
    return np.concatenate([grid, -grid])


# --- accuracy -------------------------------------------------------------------------------


def test_erf_matches_libm():
    x = _erf_grid()
    _assert_rel(special.erf(x), np.array([math.erf(v) for v in x]), RTOL_EXACT)


def test_erfc_matches_libm_with_relative_accuracy_in_tail():
    x = _erfc_grid()
    expected = np.array([math.erfc(v) for v in x])
    assert expected.min() > TINY  # this grid stays out of the subnormal range
    # scipy's erfc (the kernel now) is within RTOL_SCIPY of libm's (torch's) in the far tail
    _assert_rel(special.erfc(x), expected, RTOL_SCIPY)


def test_erfc_subnormal_tail():
    # Past x ~ 26.55, erfc is subnormal: only absolute accuracy at that scale is possible.
    # scipy's erfc flushes to 0 from x ~ 26.64 where libm (torch) still gives subnormals
    # (< 1.2e-310): the only place the two differ by more than RTOL_SCIPY.
    x = np.linspace(26.5, 27.5, 2_001)
    expected = np.array([math.erfc(v) for v in x])
    actual = special.erfc(x)
    assert np.all(np.abs(actual - expected) <= RTOL_SCIPY * expected + 1.2e-310)
    assert np.all(actual >= 0.0)


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (10.0, 2.088487583762544757e-45),
        (5.0, 1.5374597944280348502e-12),
        (20.0, 5.3958656116079009289e-176),
        (26.0, 5.6631924088561428465e-296),
        (-5.0, 1.9999999999984625402),
    ],
)
def test_erfc_known_tail_values(x, expected):
    assert special.erfc(np.array(x)) == pytest.approx(expected, rel=RTOL_SCIPY)


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_erf_erfc_match_scipy(name):
    sc = _scipy_special()
    x = _erf_grid() if name == "erf" else _erfc_grid()
    _assert_rel(FUNCS[name](x), getattr(sc, name)(x), RTOL_SCIPY)


def test_erfinv_matches_scipy():
    sc = _scipy_special()
    x = _erfinv_grid()
    _assert_rel(special.erfinv(x), sc.erfinv(x), RTOL_SCIPY)


@pytest.mark.parametrize("c", [1e-15, 2.0**-53, 1e-12, 1e-8, 1e-4, 0.01, 0.1])
def test_erfinv_near_one_matches_scipy(c):
    sc = _scipy_special()
    x = np.array([1.0 - c, c - 1.0])
    _assert_rel(special.erfinv(x), sc.erfinv(x), RTOL_SCIPY)


def test_erfinv_round_trips_through_erf_and_erfc():
    x = _erfinv_grid()
    y = special.erfinv(x)
    # erf'(y) <= 2/sqrt(pi): a few-ulp error in y moves erf(y) by about as much.
    assert np.max(np.abs(special.erf(y) - x)) <= 4e-16
    # 1 - x is exact here; erfc(y) amplifies y's relative error by 2 y^2 (up to ~70).
    near_one = x > 0.5
    _assert_rel(special.erfc(y[near_one]), 1.0 - x[near_one], 2e-14)


@pytest.mark.parametrize("name", ["erf", "erfinv"])
def test_odd_symmetry_is_exact(name):
    x = np.linspace(0.0, 6.0 if name == "erf" else 1.0, 10_001)
    f = FUNCS[name]
    assert np.array_equal(f(-x), -f(x))


def test_erfc_reflection():
    x = np.linspace(0.0, 6.0, 10_001)
    np.testing.assert_allclose(special.erfc(-x), 2.0 - special.erfc(x), rtol=0, atol=4.5e-16)


# --- special values -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "x", "expected"),
    [
        ("erf", np.inf, 1.0),
        ("erf", -np.inf, -1.0),
        ("erf", np.nan, np.nan),
        ("erf", 0.0, 0.0),
        ("erf", -0.0, -0.0),
        ("erf", 30.0, 1.0),
        ("erf", 1e308, 1.0),
        ("erf", 5e-324, 5e-324),
        ("erfc", np.inf, 0.0),
        ("erfc", -np.inf, 2.0),
        ("erfc", np.nan, np.nan),
        ("erfc", 0.0, 1.0),
        ("erfc", -0.0, 1.0),
        ("erfc", 27.5, 0.0),
        ("erfc", -30.0, 2.0),
        ("erfc", 1e308, 0.0),
        ("erfinv", 1.0, np.inf),
        ("erfinv", -1.0, -np.inf),
        ("erfinv", 0.0, 0.0),
        ("erfinv", -0.0, -0.0),
        ("erfinv", np.nan, np.nan),
        ("erfinv", 1.5, np.nan),
        ("erfinv", -1.0000000000000002, np.nan),
        ("erfinv", np.inf, np.nan),
        ("erfinv", -np.inf, np.nan),
        ("erfinv", 5e-324, 5e-324),
    ],
)
def test_special_values(name, x, expected):
    out = FUNCS[name](np.array(x))
    assert isinstance(out, np.ndarray)
    assert out.shape == ()
    assert out.dtype == np.float64
    if np.isnan(expected):
        assert np.isnan(out)
    else:
        assert out == expected
        assert np.signbit(out) == np.signbit(expected)


# --- dtypes, shapes, layout -----------------------------------------------------------------


def _sample(name, shape, dtype):
    rng = np.random.default_rng(0)
    scale = 1.0 if name == "erfinv" else 3.0
    return (rng.uniform(-1.0, 1.0, shape) * scale).astype(dtype)


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 4), (2, 0, 3), (2, 3, 5)])
def test_dtype_and_shape_preserved(name, dtype, shape):
    x = _sample(name, shape, dtype)
    out = FUNCS[name](x)
    assert type(out) is np.ndarray
    assert out.dtype == dtype
    assert out.shape == shape
    # float64 inside, then one rounding to the input's dtype.
    expected = FUNCS[name](x.astype(np.float64)).astype(dtype)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_low_precision_special_values(name, dtype):
    x = np.array([np.inf, -np.inf, np.nan, 0.0, 1.0, -1.0], dtype=dtype)
    out = FUNCS[name](x)
    expected = FUNCS[name](x.astype(np.float64)).astype(dtype)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_zero_d_input_gives_zero_d_ndarray(name):
    out = FUNCS[name](np.float64(0.5))
    assert type(out) is np.ndarray
    assert out.shape == ()
    assert out.dtype == np.float64


def test_integer_input_computes_in_float64():
    out = special.erf(np.array([0, 1, -2]))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [0.0, math.erf(1.0), math.erf(-2.0)], rtol=RTOL_EXACT)


def test_complex_input_rejected():
    with pytest.raises(TypeError):
        special.erf(np.array([1.0 + 1.0j]))


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_large_strided_mixed_input(name):
    # Longer than one processing slice, non-contiguous, and mixing every branch.
    rng = np.random.default_rng(1)
    hi = 1.0 if name == "erfinv" else 30.0
    base = rng.uniform(-hi, hi, (3, 100_000))
    base[0, ::97] = np.nan
    base[1, ::89] = np.inf
    x = base[:, ::3].T
    before = x.copy()
    out = FUNCS[name](x)
    np.testing.assert_array_equal(x, before)  # input untouched
    assert out.shape == x.shape
    flat = x.ravel()
    expected = np.concatenate([FUNCS[name](flat[i : i + 1]) for i in range(0, flat.size, 997)])
    np.testing.assert_array_equal(out.ravel()[::997], expected)


def test_module_imports_only_numpy_at_top_level():
    # scipy is imported lazily, inside a function (import ember must not load it)
    tree = ast.parse(_PATH.read_text())
    imported = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= {"numpy", "math", "__future__"}
