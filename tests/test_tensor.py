"""Tensor basics: dtypes and promotion, devices, creation, conversion, Python protocol."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import ember

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def test_dtype_aliases_and_default():
    assert ember.float is ember.float32 and ember.double is ember.float64
    assert ember.half is ember.float16 and ember.long is ember.int64 and ember.int is ember.int32
    assert ember.get_default_dtype() is ember.float32
    assert repr(ember.float32) == "ember.float32"
    assert ember.float32.is_floating_point and not ember.int64.is_floating_point


def test_set_default_dtype():
    try:
        ember.set_default_dtype(ember.float64)
        assert ember.tensor([1.0]).dtype is ember.float64
        assert (ember.ones(2, dtype=ember.int64) * 1.5).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
    with pytest.raises(TypeError):
        ember.set_default_dtype(ember.int64)


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_promote_types_matches_torch(a, b):
    torch = pytest.importorskip("torch")
    got = ember.promote_types(getattr(ember, a), getattr(ember, b))
    want = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert got.name == str(want).split(".")[1]


SCALARS = [2, 2.5, True]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize(
    "other",
    [
        "scalar_int",
        "scalar_float",
        "scalar_bool",
        "zero_dim_f64",
        "zero_dim_i64",
        "dim_f16",
        "dim_i32",
    ],
)
def test_binary_result_dtype_matches_torch(dt, other):
    torch = pytest.importorskip("torch")

    def make(lib):
        x = lib.ones(3, dtype=getattr(lib, dt))
        o = {
            "scalar_int": 2,
            "scalar_float": 2.5,
            "scalar_bool": True,
            "zero_dim_f64": lib.tensor(1.5, dtype=lib.float64),
            "zero_dim_i64": lib.tensor(3, dtype=lib.int64),
            "dim_f16": lib.ones(3, dtype=lib.float16),
            "dim_i32": lib.ones(3, dtype=lib.int32),
        }[other]
        return x, o

    for op in (lambda x, o: x * o, lambda x, o: o * x, lambda x, o: x / o):
        x, o = make(ember)
        tx, to = make(torch)
        try:
            want = op(tx, to)
        except RuntimeError:
            continue
        got = op(x, o)
        assert got.dtype.name == str(want.dtype).split(".")[1], (dt, other)
        np.testing.assert_allclose(got.numpy().astype(float), want.numpy().astype(float))


def test_tensor_dtype_inference():
    assert ember.tensor([1, 2]).dtype is ember.int64
    assert ember.tensor([1.0, 2]).dtype is ember.float32
    assert ember.tensor([True]).dtype is ember.bool
    assert ember.tensor(np.zeros(2)).dtype is ember.float64
    assert ember.tensor(np.zeros(2, dtype=np.float32)).dtype is ember.float32
    assert ember.tensor(3.0).shape == ()
    assert ember.tensor([[1, 2], [3, 4]]).shape == (2, 2)
    with pytest.raises(ValueError, match="equal-length"):
        ember.tensor([[1, 2], [3]])


def test_tensor_from_tensor_warns_like_torch():
    x = ember.ones(2)
    with pytest.warns(UserWarning, match="clone"):
        y = ember.tensor(x)
    assert y is not x and y.dtype is x.dtype


def test_from_numpy_shares_memory_and_as_tensor():
    a = np.zeros(3)
    t = ember.from_numpy(a)
    t.add_(1)
    assert a.tolist() == [1.0, 1.0, 1.0]
    assert ember.as_tensor(a)._data is a
    assert ember.as_tensor(t) is t


def test_factories():
    assert ember.zeros(2, 3).shape == (2, 3) and ember.zeros((2, 3)).shape == (2, 3)
    assert ember.ones([4]).tolist() == [1.0] * 4
    assert ember.full((2,), 7).dtype is ember.int64
    assert ember.full((2,), 7.0).dtype is ember.float32
    assert ember.full((2,), True).dtype is ember.bool
    assert ember.empty(0).shape == (0,)
    x = ember.ones(2, 3, dtype=ember.float64)
    for f in (ember.zeros_like, ember.ones_like, ember.empty_like):
        y = f(x)
        assert y.shape == x.shape and y.dtype is ember.float64
    assert ember.full_like(x, 3).tolist() == [[3.0] * 3] * 2
    assert ember.eye(2, 3).tolist() == [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(RuntimeError, match="negative dimension"):
        ember.zeros(-1)


@pytest.mark.parametrize("args", [(5,), (1, 4), (0, 1, 0.25), (2.5,), (10, 0, -3), (-1, 1, 0.1)])
def test_arange_matches_torch(args):
    torch = pytest.importorskip("torch")
    got, want = ember.arange(*args), torch.arange(*args)
    assert got.dtype.name == str(want.dtype).split(".")[1]
    # float steps may differ in the last bit (torch's vectorized kernel rounds differently)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=1e-7)


@pytest.mark.parametrize("args", [(0, 1, 5), (-3, 7, 11), (2, 2, 1), (0, 1, 0), (1.5, -2, 8)])
def test_linspace_matches_torch(args):
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(
        ember.linspace(*args).numpy(), torch.linspace(*args).numpy(), rtol=0, atol=1e-7
    )


def test_requires_grad_factory_argument():
    assert ember.zeros(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        ember.zeros(2, dtype=ember.int64, requires_grad=True)


def test_devices():
    assert ember.device("cpu") == "cpu"
    assert repr(ember.device("cpu")) == "device(type='cpu')"
    assert str(ember.device("cuda:1")) == "cuda:1"
    x = ember.zeros(2)
    assert x.device == ember.device("cpu") and x.is_cpu and not x.is_meta
    m = ember.zeros(2, 3, device="meta")
    assert m.is_meta and m.device.type == "meta" and m.shape == (2, 3)
    with ember.device("meta"):
        assert ember.ones(4).is_meta
        with ember.device("cpu"):
            assert not ember.ones(1).is_meta
        assert ember.ones(1).is_meta
    assert not ember.ones(1).is_meta
    with pytest.raises(RuntimeError, match="device type"):
        ember.device("tpu")
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        ember.zeros(1, device="cuda")


def test_meta_allocates_nothing_and_refuses_data():
    m = ember.empty(10**6, 10**6, device="meta")  # 4 TB if it were real
    assert m.numel() == 10**12
    with pytest.raises(RuntimeError, match="meta"):
        m.sum().item()
    assert m.to("meta") is m
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta"):
        m.to("cpu")
    c = ember.ones(3).to("meta")
    assert c.is_meta and c.shape == (3,)


def test_to_and_type_conversions():
    x = ember.tensor([1.5, -2.5])
    assert x.to(ember.float64).dtype is ember.float64
    assert x.to(x) is x and x.to("cpu") is x
    assert x.to("cpu", copy=True) is not x
    assert x.long().tolist() == [1, -2]
    assert x.int().dtype is ember.int32 and x.half().dtype is ember.float16
    assert x.double().dtype is ember.float64 and x.bool().tolist() == [True, True]
    assert x.type() == "torch.FloatTensor"
    assert x.type(ember.float64).dtype is ember.float64
    y = ember.ones(2, dtype=ember.float64)
    assert x.type_as(y).dtype is ember.float64


# PyTorch's three forms of ``to``, valid and invalid combinations (``lib`` is ember or torch).
_TO_CALLS = {
    "dtype": lambda lib, t: t.to(lib.float64),
    "dtype, non_blocking": lambda lib, t: t.to(lib.float64, True),
    "dtype, non_blocking, copy": lambda lib, t: t.to(lib.float64, True, True),
    "dtype, three bools": lambda lib, t: t.to(lib.float64, True, True, True),
    "dtype, bool, copy=": lambda lib, t: t.to(lib.float64, False, copy=True),
    "dtype, dtype=": lambda lib, t: t.to(lib.float64, dtype=lib.float32),
    "dtype, device=": lambda lib, t: t.to(lib.float64, device="cpu"),
    "dtype, device": lambda lib, t: t.to(lib.float64, "cpu"),
    "device, device": lambda lib, t: t.to("cpu", "cpu"),
    "device, device=": lambda lib, t: t.to("cpu", device="cpu"),
    "device, dtype, bools": lambda lib, t: t.to("cpu", lib.float64, False, True),
    "device, None": lambda lib, t: t.to("cpu", None),
    "None, dtype": lambda lib, t: t.to(None, lib.float64),
    "None": lambda lib, t: t.to(None),
    "device, dtype=": lambda lib, t: t.to("cpu", dtype=lib.float64),
    "device object, dtype, copy=": lambda lib, t: t.to(lib.device("cpu"), lib.float16, copy=True),
    "keywords": lambda lib, t: t.to(device="cpu", dtype=lib.float64, non_blocking=True, copy=True),
    "dtype= only": lambda lib, t: t.to(dtype=lib.float64),
    "other": lambda lib, t: t.to(lib.ones(1, dtype=lib.float16)),
    "other, non_blocking": lambda lib, t: t.to(lib.ones(1, dtype=lib.float16), True),
    "other, copy=": lambda lib, t: t.to(t, copy=True),
    "other, dtype": lambda lib, t: t.to(lib.ones(1), lib.float64),
    "other, device=": lambda lib, t: t.to(lib.ones(1), device="cpu"),
    "unknown keyword": lambda lib, t: t.to(lib.float64, colour="red"),
}


@pytest.mark.parametrize("name", sorted(_TO_CALLS))
def test_to_accepts_and_refuses_what_torch_does(name):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        try:
            return _TO_CALLS[name](lib, lib.ones(2)).dtype.__repr__().split(".")[-1]
        except TypeError:
            return "TypeError"

    assert outcome(ember) == outcome(torch)


def test_to_is_differentiable():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x.to(ember.float64) * 2
    y.sum().backward()
    assert x.grad.dtype is ember.float32 and x.grad.tolist() == [2.0, 2.0]


def test_python_protocol():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert len(x) == 2 and x.size() == (2, 2) and x.size(-1) == 2 and x.dim() == 2
    assert x.numel() == 4 and x.ndim == 2 and x.shape == ember.Size([2, 2])
    assert repr(x.shape) == "ember.Size([2, 2])"
    assert float(ember.tensor(2.5)) == 2.5 and int(ember.tensor(3)) == 3
    assert [1, 2, 3][ember.tensor(1)] == 2
    assert ember.tensor(1.5).item() == 1.5
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert bool(ember.tensor([1]))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(x)
    with pytest.raises(TypeError):
        len(ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        x.item()
    assert np.asarray(x).shape == (2, 2)
    assert hash(x) == hash(x) and x in {x}


def test_numpy_requires_detach():
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


def test_pickle_and_deepcopy():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = pickle.loads(pickle.dumps(x))
    assert y.requires_grad and y.tolist() == [1.0, 2.0]
    z = copy.deepcopy(x)
    assert z.requires_grad and z._data is not x._data
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)


def test_legacy_constructor():
    assert ember.Tensor(2, 3).shape == (2, 3)
    assert ember.Tensor([1, 2]).dtype is ember.float32
    assert ember.Tensor().shape == (0,)


def test_legacy_constructor_follows_the_default_dtype():
    # as torch's: nerf-pytorch's torch.Tensor([1e10]) is float64 under set_default_dtype(float64)
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.Tensor([1e10]).dtype is ember.float64
        assert ember.Tensor(2, 3).dtype is ember.float64 and ember.Tensor().dtype is ember.float64
        assert ember.FloatTensor([1.0]).dtype is ember.float32
        assert ember.Tensor([0.1]).item() == 0.1
    finally:
        ember.set_default_dtype(ember.float32)
    # Tensor(tensor) shares the tensor's data, whatever its dtype
    x = ember.ones(2, dtype=ember.float64)
    y = ember.Tensor(x)
    assert y.dtype is ember.float64 and y._data is x._data


def test_clone_contiguous_copy():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    c = x.clone()
    c.add_(1)
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    t = x.t()
    assert not t.is_contiguous() and t.contiguous().is_contiguous()
    y = ember.zeros(2, 2)
    y.copy_(ember.tensor([5.0, 6.0]))
    assert y.tolist() == [[5.0, 6.0], [5.0, 6.0]]
    y.fill_(2).zero_()
    assert y.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_copy_is_differentiable():
    src = ember.tensor([1.0, 2.0], requires_grad=True)
    dst = ember.zeros(2)
    dst.copy_(src * 3)
    assert dst.requires_grad
    dst.sum().backward()
    assert src.grad.tolist() == [3.0, 3.0]


def test_inplace_dtype_rules():
    x = ember.ones(2, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="can't be cast"):
        x.add_(1.5)
    f = ember.ones(2)
    f.add_(ember.ones(2, dtype=ember.int64))
    assert f.dtype is ember.float32
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ember.ones(2).add_(ember.ones(3, 2))


def test_int_division_gives_float():
    a = ember.tensor([3, 4])
    assert (a / 2).dtype is ember.float32 and (a / 2).tolist() == [1.5, 2.0]
    assert (a // 2).tolist() == [1, 2]
    assert ember.div(ember.tensor([-7]), 2, rounding_mode="trunc").tolist() == [-3]
    assert ember.div(ember.tensor([-7]), 2, rounding_mode="floor").tolist() == [-4]
    with pytest.raises(RuntimeError, match="bool tensor"):
        ember.tensor([True]) - ember.tensor([False])


def test_torch_constants():
    import math

    assert (ember.pi, ember.e, ember.inf) == (math.pi, math.e, math.inf)
    assert math.isnan(ember.nan) and ember.newaxis is None
    assert ember.zeros(2, 3)[:, ember.newaxis].shape == (2, 1, 3)
