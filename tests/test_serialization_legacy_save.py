"""``ember.save(..., _use_new_zipfile_serialization=False)``: PyTorch's legacy format."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8"]
DTYPES += ["uint8", "bool", "complex64", "complex128"]


def _save(obj, **kw) -> bytes:
    buf = io.BytesIO()
    ember.save(obj, buf, _use_new_zipfile_serialization=False, **kw)
    return buf.getvalue()


def _sample():
    x = ember.arange(12.0)
    return {
        "x": x,
        "view": x[3:9].reshape(2, 3),  # shares x's storage
        "t": ember.arange(6).reshape(2, 3).T,
        "p": ember.nn.Parameter(ember.ones(2, 2)),
        "g": ember.zeros(3).requires_grad_(),
        "empty": ember.empty(0, 4),
        "meta": [1, 2.5, "s", None, (3,)],
    }


def test_layout_headers_and_storage_section():
    data = _save(_sample())
    f = io.BytesIO(data)
    assert pickle.load(f) == 0x1950A86A20F9469CFC6C
    assert pickle.load(f) == 1001
    info = pickle.load(f)
    assert info == {
        "protocol_version": 1001,
        "little_endian": True,
        "type_sizes": {"short": 2, "int": 4, "long": 4},
    }
    pids = []

    class Reader(pickle.Unpickler):
        def find_class(self, module, name):
            return name if name.endswith("Storage") else (lambda *a, **k: None)

        def persistent_load(self, pid):
            pids.append(pid)

    Reader(f).load()
    keys = pickle.load(f)
    assert all(len(p) == 6 and p[0] == "storage" and p[5] is None for p in pids)
    assert keys == sorted(keys) and set(keys) == {p[2] for p in pids}
    assert len(keys) == 5  # x and its view share one storage
    size = {"FloatStorage": 4, "LongStorage": 8}
    declared = {p[2]: (p[4], size[p[1]]) for p in pids}
    rest, pos = f.read(), 0
    for k in keys:  # each storage: its element count, then its bytes
        numel, isz = declared[k]
        assert int.from_bytes(rest[pos : pos + 8], "little") == numel
        pos += 8 + numel * isz
    assert pos == len(rest)


@pytest.mark.parametrize("dtype", DTYPES)
def test_roundtrip_every_dtype(dtype):
    dt = getattr(ember, dtype)
    x = (ember.arange(10) % 3).to(dt).reshape(2, 5)
    y = ember.load(io.BytesIO(_save({"x": x, "v": x[:, 1:]})))
    assert y["x"].dtype == dt and ember.equal(y["x"], x) and ember.equal(y["v"], x[:, 1:])


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_loads_it(dtype):
    dt = getattr(ember, dtype)
    x = (ember.arange(10) % 3).to(dt).reshape(2, 5)
    got = torch.load(io.BytesIO(_save({"x": x, "v": x[:, 1:]})))
    assert str(got["x"].dtype) == "torch." + dtype
    want = torch.arange(10).remainder(3).to(getattr(torch, dtype)).reshape(2, 5)
    assert torch.equal(got["x"], want) and torch.equal(got["v"], want[:, 1:])
    assert got["v"].untyped_storage().data_ptr() == got["x"].untyped_storage().data_ptr()


@needs_torch
def test_torch_loads_views_params_and_matches_torchs_structure():
    got = torch.load(io.BytesIO(_save(_sample())))
    assert torch.equal(got["view"], torch.arange(12.0)[3:9].reshape(2, 3))
    assert got["view"].storage_offset() == 3 and got["t"].stride() == (1, 3)
    assert isinstance(got["p"], torch.nn.Parameter) and got["g"].requires_grad
    assert got["meta"] == [1, 2.5, "s", None, (3,)] and got["empty"].shape == (0, 4)
    # the same object saved by torch has the same number of storages and headers
    tx = torch.arange(12.0)
    tobj = {"x": tx, "view": tx[3:9].reshape(2, 3), "t": torch.arange(6).reshape(2, 3).T}
    tobj.update(p=torch.nn.Parameter(torch.ones(2, 2)), g=torch.zeros(3).requires_grad_())
    tobj.update(empty=torch.empty(0, 4), meta=[1, 2.5, "s", None, (3,)])
    tbuf = io.BytesIO()
    torch.save(tobj, tbuf, _use_new_zipfile_serialization=False)
    tf, ef = io.BytesIO(tbuf.getvalue()), io.BytesIO(_save(_sample()))
    for _ in range(3):
        assert pickle.load(tf) == pickle.load(ef)


@needs_torch
def test_state_dict_to_torch_module(tmp_path):
    ember.manual_seed(0)
    m = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4))
    path = tmp_path / "legacy.pt"
    ember.save(m.state_dict(), path, _use_new_zipfile_serialization=False)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    tm.load_state_dict(torch.load(path))
    x = np.random.default_rng(0).standard_normal((5, 3)).astype("float32")
    m.eval()
    tm.eval()
    want = tm(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(m(ember.from_numpy(x)).detach().numpy(), want, rtol=1e-6)
    assert list(tmp_path.iterdir()) == [path]  # atomic: no temporary left


def test_failure_writes_nothing(tmp_path):
    path = tmp_path / "f.pt"
    path.write_bytes(b"old")
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        ember.save({"f": lambda: 0}, path, _use_new_zipfile_serialization=False)
    assert path.read_bytes() == b"old" and list(tmp_path.iterdir()) == [path]


@needs_torch
def test_errors_match_torch():
    x = ember.arange(4.0)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        _save([x, x.view(ember.int32)])
    with pytest.raises(RuntimeError) as want:
        with torch.serialization.skip_data():
            torch.save(torch.ones(2), io.BytesIO(), _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError) as got:
        with ember.serialization.skip_data():
            _save(ember.ones(2))
    assert str(got.value) == str(want.value)
