"""Generic op tests: every row of the op table (tests/opdb) against NumPy, finite differences,
each dtype, the meta backend and torch."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import ember
from tests.opdb import Bool, Const, Int, all_rows

ROWS = all_rows()
CASES = [(row, i, s) for row in ROWS for i, s in enumerate(row.samples)]
IDS = [f"{row.name}-{s.name or i}" for row, i, s in CASES]

try:
    import torch

    torch.set_default_dtype(torch.float32)
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed (pip install torch)")

TOL = {
    "bfloat16": (1.6e-2, 1e-2),
    "float16": (1e-2, 1e-2),
    "float32": (1e-4, 1e-5),
    "float64": (1e-7, 1e-9),
}


def _rng(row, idx):
    return np.random.default_rng(zlib.crc32(f"{row.name}/{idx}".encode()))


def make_arrays(row, idx, sample):
    """The sample's arguments as NumPy arrays (float64 for float args) or plain values."""
    rng = _rng(row, idx)
    lo, hi = row.domain

    def one(a):
        if isinstance(a, tuple) and all(isinstance(s, int) for s in a):
            return ("f", rng.uniform(lo, hi, size=a).astype(np.float64))
        if isinstance(a, Int):
            return ("i", rng.integers(a.low, a.high, size=a.shape).astype(a.dtype))
        if isinstance(a, Bool):
            return ("b", rng.random(a.shape) < 0.5)
        if isinstance(a, Const):
            return ("f", np.asarray(a.values, dtype=np.float64))
        if isinstance(a, list) and a and all(isinstance(x, (tuple, Int, Bool, Const)) for x in a):
            return ("list", [one(x) for x in a])
        return ("v", a)

    return [one(a) for a in sample.args]


def to_lib(lib, arrays, dtype, requires_grad=False, device=None):
    """Build the library's tensors; returns (args, differentiable tensors in order)."""
    leaves = []

    def conv(kind_val):
        kind, val = kind_val
        if kind == "list":
            return [conv(x) for x in val]
        if kind == "v":
            return val
        low = kind == "f" and dtype == "bfloat16"  # built as float32, then rounded by the lib
        arr = val.astype(np.float32 if low else dtype) if kind == "f" else val
        if lib is ember:
            t = ember.tensor(arr, device=device) if device else ember.tensor(arr)
        else:
            t = torch.from_numpy(np.array(arr))
        if low:
            t = t.to(lib.bfloat16)
        if kind == "f" and requires_grad:
            t.requires_grad_(True)
            leaves.append(t)
        return t

    return [conv(a) for a in arrays], leaves


def flatten(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(flatten(o))
        return res
    return [out]


def to_np(x):
    if isinstance(x, ember.Tensor):
        return x.detach().float().numpy() if x.dtype is ember.bfloat16 else x.detach().numpy()
    if torch is not None and isinstance(x, torch.Tensor):
        if x.dtype is torch.bfloat16:
            return x.detach().float().numpy()
        if x._is_zerotensor():  # e.g. torch's gradient of sgn: a ZeroTensor has no data
            return np.zeros(tuple(x.shape), dtype=str(x.dtype).split(".")[-1])
        return x.detach().numpy()
    return x


def run(lib, row, sample, args):
    return row.fn(lib, *args, **sample.kwargs)


def assert_close(a, b, rtol, atol, what):
    a, b = to_np(a), to_np(b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
        if a.dtype == bool or b.dtype == bool or a.dtype.kind in "iu":
            np.testing.assert_array_equal(a, b, err_msg=what)
        else:
            np.testing.assert_allclose(
                a.astype(np.float64),
                b.astype(np.float64),
                rtol=rtol,
                atol=atol,
                equal_nan=True,
                err_msg=what,
            )
    else:
        assert a == b or (a != a and b != b), f"{what}: {a!r} != {b!r}"


@pytest.mark.parametrize("row,idx,sample", CASES, ids=IDS)
def test_forward_matches_numpy(row, idx, sample):
    if row.ref is None:
        pytest.skip(f"{row.name}: no NumPy reference (checked against torch instead)")
    arrays = make_arrays(row, idx, sample)
    args, _ = to_lib(ember, arrays, np.float64)
    got = flatten(run(ember, row, sample, args))

    def raw(kv):
        kind, val = kv
        return [raw(x) for x in val] if kind == "list" else val

    want = flatten(row.ref(*[raw(a) for a in arrays], **sample.kwargs))
    assert len(got) == len(want), f"{row.name}: {len(got)} outputs, reference has {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, 1e-7, 1e-9, f"{row.name} output {k}")


@pytest.mark.parametrize("row,idx,sample", CASES, ids=IDS)
def test_gradcheck(row, idx, sample):
    if not row.grad:
        pytest.skip(f"{row.name} is not differentiable")
    arrays = make_arrays(row, idx, sample)
    args, leaves = to_lib(ember, arrays, np.float64, requires_grad=True)
    if not leaves:
        pytest.skip("no float input in this sample")
    fn = _positional(row, sample, args, leaves)
    assert ember.autograd.gradcheck(fn, tuple(leaves), atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize("row,idx,sample", CASES, ids=IDS)
def test_gradgradcheck(row, idx, sample):
    if not row.grad:
        pytest.skip(f"{row.name}: this row is not differentiated (integer inputs or no grad)")
    if not row.gradgrad:
        pytest.skip(f"{row.name}: second derivative identically zero or not defined")
    arrays = make_arrays(row, idx, sample)
    args, leaves = to_lib(ember, arrays, np.float64, requires_grad=True)
    if not leaves:
        pytest.skip("no float input in this sample")
    fn = _positional(row, sample, args, leaves)
    assert ember.autograd.gradgradcheck(fn, tuple(leaves), atol=1e-5, rtol=1e-3)


def _positional(row, sample, args, leaves):
    """fn(*leaves) that calls the op with these leaves in place of the sample's float args."""

    def fn(*new):
        it = iter(new)
        lookup = {id(t): None for t in leaves}

        def sub(a):
            if isinstance(a, list):
                return [sub(x) for x in a]
            if isinstance(a, ember.Tensor) and id(a) in lookup:
                return next(it)
            return a

        return run(ember, row, sample, [sub(a) for a in args])

    return fn


@pytest.mark.parametrize("row,idx,sample", CASES, ids=IDS)
def test_meta_shapes(row, idx, sample):
    if not row.meta:
        pytest.skip(f"{row.name}: data-dependent output shape")
    arrays = make_arrays(row, idx, sample)
    args, _ = to_lib(ember, arrays, np.float32)
    margs, _ = to_lib(ember, arrays, np.float32, device="meta")
    want = flatten(run(ember, row, sample, args))
    got = flatten(run(ember, row, sample, margs))
    for g, w in zip(got, want):
        if isinstance(w, ember.Tensor):
            assert g.device.type == "meta"
            assert g.shape == w.shape, f"{row.name}: meta shape {g.shape} != {w.shape}"
            assert g.dtype == w.dtype, f"{row.name}: meta dtype {g.dtype} != {w.dtype}"


def _dtype_cases():
    for row, idx, s in CASES:
        # every op that takes float16 takes bfloat16 too (both compute in float32, as torch's)
        extra = ("bfloat16",) if "float16" in row.dtypes else ()
        for dt in row.dtypes + extra:
            yield pytest.param(row, idx, s, dt, id=f"{row.name}-{s.name or idx}-{dt}")


@needs_torch
@pytest.mark.parametrize("row,idx,sample,dtype", list(_dtype_cases()))
def test_dtypes_match_torch(row, idx, sample, dtype):
    if not row.torch:
        pytest.skip(row.skip_reason or f"{row.name}: no torch counterpart")
    arrays = make_arrays(row, idx, sample)
    args, _ = to_lib(ember, arrays, dtype if dtype == "bfloat16" else np.dtype(dtype))
    targs, _ = to_lib(torch, arrays, dtype if dtype == "bfloat16" else np.dtype(dtype))
    got = flatten(run(ember, row, sample, args))
    want = flatten(run(torch, row, sample, targs))
    rtol, atol = TOL[dtype]
    if dtype == "float32" and row.rtol is not None:
        rtol, atol = row.rtol, row.atol or atol
    for k, (g, w) in enumerate(zip(got, want)):
        if isinstance(w, torch.Tensor):
            assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1], (
                f"{row.name} output {k}: dtype {g.dtype}, torch gives {w.dtype}"
            )
        assert_close(g, w, rtol, atol, f"{row.name} output {k} ({dtype})")


@needs_torch
@pytest.mark.parametrize("row,idx,sample", CASES, ids=IDS)
def test_parity_with_torch_float64(row, idx, sample):
    if not row.torch:
        pytest.skip(row.skip_reason or f"{row.name}: no torch counterpart")
    arrays = make_arrays(row, idx, sample)
    grad = row.grad and not row.nondeterministic_grad
    args, leaves = to_lib(ember, arrays, np.float64, requires_grad=grad)
    targs, tleaves = to_lib(torch, arrays, np.float64, requires_grad=grad)
    got = flatten(run(ember, row, sample, args))
    want = flatten(run(torch, row, sample, targs))
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, 1e-10, 1e-10, f"{row.name} output {k}")
    if not grad or not leaves:
        return
    rng = _rng(row, idx + 1000)
    outs = [(g, w) for g, w in zip(got, want) if isinstance(w, torch.Tensor) and w.requires_grad]
    if not outs:
        return
    gouts = [rng.standard_normal(w.shape) for _, w in outs]
    eg = ember.autograd.grad(
        [g for g, _ in outs], leaves, [ember.tensor(x) for x in gouts], allow_unused=True
    )
    tg = torch.autograd.grad(
        [w for _, w in outs], tleaves, [torch.from_numpy(x) for x in gouts], allow_unused=True
    )
    for k, (a, b) in enumerate(zip(eg, tg)):
        if b is None:
            assert a is None or not np.any(to_np(a)), f"{row.name}: grad {k} should be None"
            continue
        assert a is not None, f"{row.name}: ember gave no gradient for input {k}"
        assert_close(a, b, 1e-10, 1e-10, f"{row.name} grad of input {k}")


def test_every_public_op_has_a_row():
    names = {row.name for row in ROWS}
    missing = []
    for family in ember.ops.FAMILIES:
        for name in family.__all__:
            if name not in names:
                missing.append(f"{family.__name__}.{name}")
    assert not missing, f"public ops without an op-table row: {missing}"
