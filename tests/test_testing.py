"""ember.testing.assert_close and make_tensor against torch.testing: outcomes and messages."""

# ruff: noqa: E501  (the case tables keep one case per line)
import warnings

import pytest

import ember

try:
    import numpy as np
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


def _named(e: Exception):
    # the library's own names (ember.Size, ember.tensor.Tensor) are the only allowed difference
    return (
        type(e).__name__,
        str(e).replace("ember.tensor.Tensor", "torch.Tensor").replace("ember.", "torch."),
    )


def _outcome(lib, make):
    try:
        lib.testing.assert_close(*make(lib))
        return ("ok", None)
    except Exception as e:  # noqa: BLE001  (the outcome is what is compared)
        return _named(e)


NAN = float("nan")
CASES = {
    "equal": lambda t: (t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.0, 3.0])),
    "one_off": lambda t: (t.tensor([1.0, 2.5, 3.0]), t.tensor([1.0, 2.0, 3.0])),
    "two_off_2d": lambda t: (t.tensor([[1.0, 2.0], [3.0, 4.0]]), t.tensor([[1.0, 2.1], [3.5, 4.0]])),
    "within_f32_tol": lambda t: (t.tensor([1.0]), t.tensor([1.0 + 1e-6])),
    "float64": lambda t: (t.tensor([1.0, 2.0], dtype=t.float64), t.tensor([1.0, 2.000001], dtype=t.float64)),
    "float16": lambda t: (t.tensor([1.0, 2.0], dtype=t.float16), t.tensor([1.0, 2.01], dtype=t.float16)),
    "float16_close": lambda t: (t.tensor([1.0, 2.0], dtype=t.float16), t.tensor([1.0, 2.001], dtype=t.float16)),
    "int_exact": lambda t: (t.tensor([1, 2, 3]), t.tensor([1, 2, 4])),
    "int_zero_expected": lambda t: (t.tensor([1, 2, 3]), t.tensor([0, 2, 3])),
    "bool": lambda t: (t.tensor([True, False]), t.tensor([True, True])),
    "scalar_tensor": lambda t: (t.tensor(1.0), t.tensor(2.0)),
    "nan": lambda t: (t.tensor(NAN), t.tensor(NAN)),
    "nan_vector": lambda t: (t.tensor([1.0, NAN]), t.tensor([1.0, NAN])),
    "inf": lambda t: (t.tensor([float("inf")]), t.tensor([float("inf")])),
    "inf_vs_big": lambda t: (t.tensor([float("inf"), 1.0]), t.tensor([1e30, 1.0])),
    "shape": lambda t: (t.ones(2), t.ones(3)),
    "dtype": lambda t: (t.ones(2), t.ones(2, dtype=t.float64)),
    "device_meta": lambda t: (t.ones(2), t.ones(2, device="meta")),
    "meta_both": lambda t: (t.ones(2, device="meta"), t.zeros(2, device="meta")),
    "numbers": lambda t: (1.0, 1.0 + 1e-8),
    "numbers_off": lambda t: (1.0, 1.1),
    "numbers_zero": lambda t: (1e-9, 0.0),
    "int_float": lambda t: (1, 1.0),
    "bools": lambda t: (True, False),
    "none": lambda t: (None, None),
    "none_vs_1": lambda t: (None, 1),
    "seq": lambda t: ([t.ones(2), 2.0], (t.ones(2), 2.0)),
    "seq_len": lambda t: ([1, 2], [1, 2, 3]),
    "seq_item": lambda t: ([t.ones(2), t.ones(2)], [t.ones(2), t.zeros(2)]),
    "map": lambda t: ({"a": t.ones(1), "b": 2}, {"b": 2, "a": t.ones(1)}),
    "map_keys": lambda t: ({"a": 1}, {"b": 1}),
    "map_item": lambda t: ({"a": t.ones(2)}, {"a": t.zeros(2)}),
    "numpy": lambda t: (np.array([1.0, 2.0]), np.array([1.0, 2.5])),
    "numpy_vs_tensor": lambda t: (np.array([1.0]), t.ones(1)),
    "np_scalar": lambda t: (np.float64(1.0), np.float64(1.5)),
    "np_bool": lambda t: (np.bool_(True), np.bool_(False)),
    "tensor_vs_number": lambda t: (t.ones(1), 1.0),
    "parameter": lambda t: (t.nn.Parameter(t.ones(2)), t.ones(2)),
    "big_mismatch": lambda t: (t.arange(100.0).reshape(10, 10), t.arange(100.0).reshape(10, 10).flip(0)),
}  # fmt: skip


@needs_torch
@pytest.mark.parametrize("name", CASES)
def test_assert_close_outcome_and_message_as_torch(name):
    assert _outcome(ember, CASES[name]) == _outcome(torch, CASES[name])


OPTION_CASES = {
    "rtol_atol": (lambda t: (t.tensor([1.0, 2.0]), t.tensor([1.0, 2.1])), dict(rtol=0.1, atol=0.0)),
    "only_rtol": (lambda t: (t.ones(1), t.ones(1)), dict(rtol=0.1)),
    "zero_tol": (lambda t: (t.tensor([1.0, 2.0]), t.tensor([1.0, 2.1])), dict(rtol=0, atol=0)),
    "equal_nan": (lambda t: (t.tensor([1.0, NAN]), t.tensor([1.0, NAN])), dict(equal_nan=True)),
    "no_check_dtype": (lambda t: (t.ones(2), t.ones(2, dtype=t.float64)), dict(check_dtype=False)),
    "no_check_dtype_off": (lambda t: (t.ones(2), t.zeros(2, dtype=t.float64)), dict(check_dtype=False)),
    "num_check_dtype": (lambda t: (1, 1.0), dict(check_dtype=False)),
    "stride": (lambda t: (t.ones(2, 3), t.ones(3, 2).t()), dict(check_stride=True)),
    "stride_off": (lambda t: (t.ones(2, 3), t.ones(3, 2).t()), dict(check_stride=False)),
    "msg_str": (lambda t: (t.ones(2), t.zeros(2)), dict(msg="custom!")),
    "msg_fn": (lambda t: (t.ones(2), t.zeros(2)), dict(msg=lambda m: f"Header\n\n{m}\n\nFooter")),
    "msg_fn_item": (lambda t: ([t.ones(2)], [t.zeros(2)]), dict(msg=lambda m: m.upper())),
    "no_subclasses": (lambda t: (t.nn.Parameter(t.ones(2)), t.ones(2)), dict(allow_subclasses=False)),
}  # fmt: skip


@needs_torch
@pytest.mark.parametrize("name", OPTION_CASES)
def test_assert_close_options_as_torch(name):
    make, kw = OPTION_CASES[name]

    def run(lib):
        try:
            lib.testing.assert_close(*make(lib), **kw)
            return ("ok", None)
        except Exception as e:  # noqa: BLE001
            return _named(e)

    assert run(ember) == run(torch)


def test_default_tolerances_per_dtype():
    from ember.testing._comparison import _DTYPE_PRECISIONS

    if torch is not None:
        from torch.testing._comparison import _DTYPE_PRECISIONS as T

        assert _DTYPE_PRECISIONS == {str(k).split(".")[1]: v for k, v in T.items()
                                     if str(k).split(".")[1] in _DTYPE_PRECISIONS}  # fmt: skip
    # float32: rtol 1.3e-6, atol 1e-5
    ember.testing.assert_close(ember.tensor([100.0]), ember.tensor([100.0 + 1e-4]))
    with pytest.raises(AssertionError, match="not close"):
        ember.testing.assert_close(ember.tensor([100.0]), ember.tensor([100.01]))


def test_assert_allclose_is_deprecated_and_looser():
    with pytest.warns(FutureWarning, match="assert_allclose"):
        ember.testing.assert_allclose(ember.tensor([1.0]), [1.00005])


@pytest.mark.parametrize(
    "dtype, lo, hi",
    [("float32", -9, 9), ("float64", -9, 9), ("float16", -9, 9), ("int64", -9, 10),
     ("int32", -9, 10), ("uint8", 0, 10), ("bool", 0, 2)],
)  # fmt: skip
def test_make_tensor_defaults_and_ranges(dtype, lo, hi):
    dt = getattr(ember, dtype)
    t = ember.testing.make_tensor(4, 5, dtype=dt, device="cpu")
    assert t.shape == (4, 5) and t.dtype is dt and t.device.type == "cpu"
    v = t.to(ember.float64)
    assert v.min().item() >= lo and v.max().item() < hi
    t = ember.testing.make_tensor((3, 4), dtype=dt, device="cpu", noncontiguous=True)
    assert t.shape == (3, 4) and not t.is_contiguous()


def test_make_tensor_options_and_errors():
    mt = ember.testing.make_tensor
    t = mt(50, dtype=ember.float32, device="cpu", low=2, high=3, requires_grad=True)
    assert t.requires_grad and t.min().item() >= 2 and t.max().item() < 3
    assert bool((mt(200, dtype=ember.int64, device="cpu", low=-1, high=2, exclude_zero=True) != 0)
                .all())  # fmt: skip
    assert mt(2, dtype=ember.float32, device="meta").is_meta
    with pytest.raises(ValueError, match="`low` must be less than `high`"):
        mt(2, dtype=ember.float32, device="cpu", low=3, high=1)
    with pytest.raises(ValueError, match="requires_grad=True` is not supported"):
        mt(2, dtype=ember.int64, device="cpu", requires_grad=True)
    with pytest.raises(ValueError, match="only supports"):
        mt(2, dtype=ember.uint8, device="cpu", low=300, high=400)
    with pytest.raises(ValueError, match="cannot be NaN"):
        mt(2, dtype=ember.float32, device="cpu", low=NAN)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # bounds beyond float16's range are clamped to it
        assert ember.isfinite(mt(100, dtype=ember.float16, device="cpu", low=-1e9, high=1e9)).all()


@needs_torch
def test_make_tensor_errors_as_torch():
    for kw in (dict(low=3, high=1), dict(low=300, high=400)):
        msgs = []
        for lib in (ember, torch):
            with pytest.raises(ValueError) as info:
                lib.testing.make_tensor(2, dtype=lib.uint8, device="cpu", **kw)
            msgs.append(str(info.value).replace("ember.", "torch."))
        assert msgs[0] == msgs[1]
