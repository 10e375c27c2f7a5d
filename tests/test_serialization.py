"""ember.save / ember.load: PyTorch's checkpoint formats, both ways, safety and atomicity.

Files written by torch are read by ember in a subprocess where ``import torch`` fails, which
proves the reading side needs no torch.
"""

from __future__ import annotations

import io
import json
import mmap
import os
import pickle
import struct
import subprocess
import sys
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import ember
from ember.serialization import UnpicklingError, _pickler
from ember.serialization._zip import ZipWriter

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch for parity")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def _np_value(name, shape=(2, 3)):
    rng = np.random.default_rng(0)
    if name == "bool":
        return np.asarray(rng.random(shape) > 0.5)
    if name.startswith(("int", "uint")):
        info = np.iinfo(name)
        return np.asarray(
            rng.integers(max(info.min, -1000), min(info.max, 1000), shape), dtype=name
        )
    return np.asarray(rng.standard_normal(shape), dtype=name)


def _roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return ember.load(buf, **load_kw)


def _shares(a, b) -> bool:
    return np.shares_memory(a._data, b._data)


# ---- ember -> ember --------------------------------------------------------------------------


def test_state_dict_roundtrip_keeps_keys_values_and_metadata():
    ember.manual_seed(0)
    net = ember.nn.Sequential(ember.nn.Linear(4, 3), ember.nn.ReLU(), ember.nn.Linear(3, 2))
    sd = net.state_dict()
    out = _roundtrip(sd)
    assert type(out) is OrderedDict and list(out) == list(sd)
    for k in sd:
        assert out[k].dtype is sd[k].dtype and ember.equal(out[k], sd[k])
    assert out._metadata == sd._metadata
    net2 = ember.nn.Sequential(ember.nn.Linear(4, 3), ember.nn.ReLU(), ember.nn.Linear(3, 2))
    net2.load_state_dict(out)
    x = ember.randn(5, 4)
    assert ember.equal(net(x), net2(x))


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
def test_every_dtype_roundtrips(name, shape):
    t = ember.from_numpy(_np_value(name, shape))
    out = _roundtrip({"t": t})["t"]
    assert out.dtype is t.dtype and out.shape == t.shape
    np.testing.assert_array_equal(out.numpy(), t.numpy())


def test_nested_containers_numbers_strings_none():
    obj = {
        "a": [1, 2.5, "s", None, True, (ember.ones(2), {"x": ember.zeros(1)})],
        "b": OrderedDict(k=3),
        "c": (),
        "d": b"raw",
        "e": {1, 2},
        "f": 1 + 2j,
        "g": ember.Size([2, 3]),
        "h": ember.device("cpu"),
        "i": ember.float16,
        "big": 2**70,
    }
    out = _roundtrip(obj)
    assert out["a"][:5] == [1, 2.5, "s", None, True]
    assert ember.equal(out["a"][5][0], ember.ones(2)) and type(out["a"][5]) is tuple
    assert type(out["b"]) is OrderedDict and out["b"] == {"k": 3}
    assert out["c"] == () and out["d"] == b"raw" and out["e"] == {1, 2} and out["f"] == 1 + 2j
    assert type(out["g"]) is ember.Size and out["g"] == (2, 3)
    assert out["h"] == ember.device("cpu") and out["i"] is ember.float16
    assert out["big"] == 2**70


def test_views_and_shared_storage_stay_shared():
    base = ember.arange(24, dtype=ember.float32)
    m = base.view(4, 6)
    obj = {
        "base": base,
        "m": m,
        "t": m.t(),
        "col": m[:, 2],
        "step": base[1::3],
        "tied": base,
        "F": m.t() * 2,
    }  # an owning array in Fortran order
    out = _roundtrip(obj)
    assert out["tied"] is out["base"]
    for k in ("m", "t", "col", "step"):
        assert _shares(out[k], out["base"]), k
        assert (
            out[k].stride() == obj[k].stride()
            and out[k].storage_offset() == obj[k].storage_offset()
        )
        np.testing.assert_array_equal(out[k].numpy(), obj[k].numpy())
    np.testing.assert_array_equal(out["F"].numpy(), obj["F"].numpy())
    out["m"][0, 0] = 100.0  # one memory, as before saving
    assert out["base"][0].item() == 100.0


def test_parameters_keep_requires_grad_and_attributes():
    p = ember.nn.Parameter(ember.ones(2))
    q = ember.nn.Parameter(ember.zeros(3), requires_grad=False)
    t = ember.ones(2, requires_grad=True)
    p.note = "tied"
    out = _roundtrip([p, q, t])
    assert isinstance(out[0], ember.nn.Parameter) and out[0].requires_grad
    assert isinstance(out[1], ember.nn.Parameter) and not out[1].requires_grad
    assert type(out[2]) is ember.Tensor and out[2].requires_grad and out[2].is_leaf
    assert out[0].note == "tied"


def test_optimizer_state_dict_roundtrip_resumes_the_same_trajectory():
    def run(opt, net, steps):
        for i in range(steps):
            opt.zero_grad()
            net(ember.full((2, 3), float(i), dtype=ember.float64)).pow(2).sum().backward()
            opt.step()

    ember.manual_seed(0)
    net = ember.nn.Linear(3, 2).double()
    opt = ember.optim.Adam(net.parameters(), lr=0.1)
    run(opt, net, 3)
    saved = _roundtrip({"model": net.state_dict(), "optim": opt.state_dict()})
    net2 = ember.nn.Linear(3, 2).double()
    net2.load_state_dict(saved["model"])
    opt2 = ember.optim.Adam(net2.parameters(), lr=0.1)
    opt2.load_state_dict(saved["optim"])
    run(opt, net, 2)
    run(opt2, net2, 2)
    assert ember.equal(net.weight, net2.weight)


def test_whole_module_needs_weights_only_false():
    net = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.Tanh())
    buf = io.BytesIO()
    ember.save(net, buf)
    buf.seek(0)
    with pytest.raises(UnpicklingError, match=r"ember\.nn\.modules\.container\.Sequential"):
        ember.load(buf)
    buf.seek(0)
    net2 = ember.load(buf, weights_only=False)
    assert type(net2) is ember.nn.Sequential
    x = ember.ones(1, 2)
    assert ember.equal(net(x), net2(x))


def test_file_objects_paths_and_offsets(tmp_path):
    obj = {"w": ember.arange(5)}
    ember.save(obj, tmp_path / "a.pt")  # pathlib.Path
    assert ember.equal(ember.load(str(tmp_path / "a.pt"))["w"], obj["w"])
    with open(tmp_path / "b.pt", "wb") as f:
        f.write(b"header")
        ember.save(obj, f)
    with open(tmp_path / "b.pt", "rb") as f:
        f.seek(6)  # a checkpoint that starts mid-file reads from the file's position
        assert ember.equal(ember.load(f)["w"], obj["w"])
    assert sorted(os.listdir(tmp_path)) == ["a.pt", "b.pt"]


def test_archive_folder_named_after_the_file(tmp_path):
    ember.save({"x": ember.ones(1)}, tmp_path / "model.pt")
    names = zipfile.ZipFile(tmp_path / "model.pt").namelist()
    assert names == [
        "model/data.pkl",
        "model/.format_version",
        "model/.storage_alignment",
        "model/byteorder",
        "model/data/0",
        "model/version",
        "model/.data/serialization_id",
    ]
    assert zipfile.ZipFile(tmp_path / "model.pt").testzip() is None  # every CRC is right


def test_storages_are_stored_and_64_byte_aligned(tmp_path):
    ember.save({f"t{i}": ember.ones(i + 1) for i in range(5)}, tmp_path / "m.pt")
    raw = (tmp_path / "m.pt").read_bytes()
    for info in zipfile.ZipFile(tmp_path / "m.pt").infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        n, e = struct.unpack_from("<HH", raw, info.header_offset + 26)
        assert (info.header_offset + 30 + n + e) % 64 == 0, info.filename


def test_pickle_protocol_and_module_arguments():
    out = io.BytesIO()
    ember.save({"w": ember.ones(2)}, out, pickle_protocol=4)
    out.seek(0)
    assert ember.equal(ember.load(out)["w"], ember.ones(2))
    out.seek(0)
    assert ember.equal(ember.load(out, pickle_module=pickle)["w"], ember.ones(2))
    out.seek(0)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        ember.load(out, pickle_module=pickle, weights_only=True)


# ---- map_location and mmap -------------------------------------------------------------------


def _crafted_checkpoint(location: str) -> bytes:
    """A zip checkpoint whose one float32 storage says it was saved at ``location``."""
    pid = ("storage", _pickler._STORAGE_TYPES[ember.float32], "0", location, 3)
    body = io.BytesIO()
    p = _pickler.pickler_class(pickle)(body, 2)
    p.dump(
        {
            "w": _pickler._Reduced(
                (
                    _pickler.REBUILD_TENSOR_V2,
                    (_pickler._StorageRef(pid), 0, (3,), (1,), False, OrderedDict()),
                )
            )
        }
    )
    out = io.BytesIO()
    zw = ZipWriter(out, "archive")
    zw.write_record("data.pkl", body.getvalue())
    zw.write_record("byteorder", b"little")
    zw.write_record("data/0", np.arange(3, dtype=np.float32).tobytes())
    zw.write_record("version", b"3\n")
    zw.finish()
    return out.getvalue()


def test_map_location_forms():
    data = _crafted_checkpoint("cuda:0")
    with pytest.raises(RuntimeError, match=r"CUDA device \(cuda:0\).*map_location"):
        ember.load(io.BytesIO(data))
    for ml in ("cpu", ember.device("cpu"), {"cuda:0": "cpu"}, lambda s, loc: s.cpu()):
        w = ember.load(io.BytesIO(data), map_location=ml)["w"]
        assert w.device == ember.device("cpu") and w.tolist() == [0.0, 1.0, 2.0]
    seen = []
    w = ember.load(
        io.BytesIO(_crafted_checkpoint("cpu")),
        map_location=lambda s, loc: seen.append((s.nbytes(), loc)),
    )["w"]
    assert seen == [(12, "cpu")] and w.tolist() == [0.0, 1.0, 2.0]
    meta = ember.load(io.BytesIO(data), map_location="meta")["w"]
    assert meta.device == ember.device("meta") and meta.shape == (3,)
    with pytest.raises(TypeError, match="map_location"):
        ember.load(io.BytesIO(data), map_location=3)


def test_mmap_maps_instead_of_reading(tmp_path):
    path = tmp_path / "m.pt"
    ember.save({"w": ember.arange(6.0).view(2, 3), "v": ember.ones(4)}, path)
    before = path.read_bytes()
    out = ember.load(path, mmap=True)
    arr = out["w"]._data
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    assert isinstance(getattr(arr.base, "obj", arr.base), mmap.mmap)  # a view of the map
    assert out["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    out["w"].add_(1.0)  # private mapping: copy-on-write, the file is untouched
    assert path.read_bytes() == before
    with pytest.raises(ValueError, match="file path"), open(path, "rb") as f:
        ember.load(f, mmap=True)


# ---- atomic save -----------------------------------------------------------------------------

_REAL_REPLACE = os.replace


class _Unpicklable:
    def __reduce__(self):
        raise RuntimeError("cannot pickle this")


def test_failed_pickling_leaves_the_old_file_and_no_litter(tmp_path):
    path = tmp_path / "ckpt.pt"
    ember.save({"v": 1}, path)
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="cannot pickle this"):
        ember.save({"w": ember.ones(3), "bad": _Unpicklable()}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["ckpt.pt"]


@pytest.mark.parametrize("pipelined", [False, True])
def test_failed_rename_or_write_leaves_the_old_file(tmp_path, monkeypatch, pipelined):
    # pipelined: CRCs in a thread and the disk flush overlapping the writes (big checkpoints)
    monkeypatch.setattr(ember.serialization, "_PIPELINE_BYTES", 0 if pipelined else 1 << 24)
    path = tmp_path / "ckpt.pt"
    ember.save({"v": 1}, path)
    before = path.read_bytes()

    def boom(*args):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk on fire"):
        ember.save({"w": ember.ones(3)}, path)
    monkeypatch.setattr(os, "replace", _REAL_REPLACE)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["ckpt.pt"]
    big = {"a": ember.arange(1000.0), "b": ember.ones(7, dtype=ember.int16)}
    ember.save(big, path)  # and a successful save through the same path
    assert all(ember.equal(ember.load(path)[k], v) for k, v in big.items())
    assert zipfile.ZipFile(path).testzip() is None
    before = path.read_bytes()

    real = ZipWriter.write_record

    def fail_on_storage(self, name, *args):
        if name.startswith("data/1"):
            raise OSError("write failed midway")
        return real(self, name, *args)

    monkeypatch.setattr(ZipWriter, "write_record", fail_on_storage)
    with pytest.raises(OSError, match="midway"):
        ember.save({"a": ember.ones(3), "b": ember.zeros(3)}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["ckpt.pt"]


# ---- safety ----------------------------------------------------------------------------------


def _zip_with_pickle(pkl: bytes) -> bytes:
    out = io.BytesIO()
    zw = ZipWriter(out, "archive")
    zw.write_record("data.pkl", pkl)
    zw.write_record("version", b"3\n")
    zw.finish()
    return out.getvalue()


class _System:
    def __init__(self, cmd):
        self.cmd = cmd

    def __reduce__(self):
        return (os.system, (self.cmd,))


class _Eval:
    def __reduce__(self):
        return (eval, ("__import__('os').system('true')",))


@pytest.mark.parametrize("protocol", [2, 4])
@pytest.mark.parametrize("legacy", [False, True])
def test_malicious_globals_are_refused_and_never_run(tmp_path, protocol, legacy):
    marker = tmp_path / "pwned"
    cases = [
        (_System(f"touch {marker}"), "posix.system"),
        (_Eval(), "builtins.eval"),
        (ember.nn.Linear(1, 1), "ember.nn.modules.linear.Linear"),
        (OrderedDict(a=np.ones(2)), "numpy"),
    ]
    for obj, name in cases:
        pkl = pickle.dumps({"x": obj}, protocol=protocol)
        if legacy:
            data = (
                b"".join(
                    pickle.dumps(v, protocol=2)
                    for v in (0x1950A86A20F9469CFC6C, 1001, {"little_endian": True})
                )
                + pkl
                + pickle.dumps([], protocol=2)
            )
        else:
            data = _zip_with_pickle(pkl)
        with pytest.raises(UnpicklingError, match="Weights only load failed") as e:
            ember.load(io.BytesIO(data))
        assert name in str(e.value) and "BytesIO" in str(e.value)
        assert not marker.exists()


@pytest.mark.parametrize(
    "payload",
    [
        b"\x80\x02cposix\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R.",  # GLOBAL + REDUCE
        b"\x80\x02(X\x04\x00\x00\x00trueiposix\nsystem\n.",  # INST
        b"\x80\x02ccollections\nOrderedDict\nq\x00)R}X\x06\x00\x00\x00updateNsb.",
        b"\x80\x02]q\x00cbuiltins\nprint\nq\x01\x85R.",
        b"\x80\x02cbuiltins\ngetattr\n.",
    ],
)
def test_opcode_level_attacks(payload):
    with pytest.raises(UnpicklingError):
        ember.load(io.BytesIO(_zip_with_pickle(payload)))


def test_reduce_on_allowed_reference_only_globals_is_refused():
    # torch.Tensor is allowed as a name (for _rebuild_from_type_v2) but calling it would let a
    # file allocate at will: refused.
    payload = b"\x80\x02ctorch\nTensor\nJ\x00\x00\x00\x40\x85R."
    with pytest.raises(UnpicklingError, match="unrecognized function"):
        ember.load(io.BytesIO(_zip_with_pickle(payload)))


# ---- corrupt and truncated files -------------------------------------------------------------


@pytest.fixture(scope="module")
def good_checkpoint():
    buf = io.BytesIO()
    ember.save({"w": ember.arange(20.0).view(4, 5), "b": ember.ones(3)}, buf)
    return buf.getvalue()


def test_truncated_files_name_the_file(tmp_path, good_checkpoint):
    for cut in (1, 10, 100, len(good_checkpoint) // 2, len(good_checkpoint) - 1):
        path = tmp_path / f"cut{cut}.pt"
        path.write_bytes(good_checkpoint[:cut])
        with pytest.raises((RuntimeError, UnpicklingError, ValueError)) as e:
            ember.load(path)
        assert f"cut{cut}.pt" in str(e.value)


@pytest.mark.parametrize(
    "data,match",
    [
        (b"", "empty"),
        (b"hello world, not a checkpoint", "not a checkpoint"),
        (b"\x80\x02K\x05.", "magic number"),
        (b"\x00" * 600, "not a checkpoint"),
    ],
)
def test_foreign_files(data, match):
    with pytest.raises(RuntimeError, match=match):
        ember.load(io.BytesIO(data))


def test_zip_damage(good_checkpoint):
    z = zipfile.ZipFile(io.BytesIO(good_checkpoint))
    pkl_at = z.getinfo("archive/data.pkl").header_offset + 64
    bad = bytearray(good_checkpoint)
    bad[pkl_at + 5] ^= 0xFF  # inside data.pkl: its CRC no longer matches
    with pytest.raises(RuntimeError, match="CRC"):
        ember.load(io.BytesIO(bytes(bad)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("x/other.txt", "hi")
    with pytest.raises(RuntimeError, match="no data.pkl"):
        ember.load(io.BytesIO(out.getvalue()))


def test_storage_size_mismatch_and_out_of_bounds_views():
    pid = ("storage", _pickler._STORAGE_TYPES[ember.float32], "0", "cpu", 3)
    for size, stride, offset, match in (
        ((4,), (1,), 0, "out of bounds"),
        ((2,), (1,), 2, "out of bounds"),
        ((2,), (-1,), 0, "non-negative"),
    ):
        body = io.BytesIO()
        _pickler.pickler_class(pickle)(body, 2).dump(
            _pickler._Reduced(
                (
                    _pickler.REBUILD_TENSOR_V2,
                    (_pickler._StorageRef(pid), offset, size, stride, False, OrderedDict()),
                )
            )
        )
        out = io.BytesIO()
        zw = ZipWriter(out, "archive")
        zw.write_record("data.pkl", body.getvalue())
        zw.write_record("data/0", bytes(12))
        zw.finish()
        with pytest.raises(RuntimeError, match=match):
            ember.load(io.BytesIO(out.getvalue()))
    out = io.BytesIO()
    zw = ZipWriter(out, "archive")
    zw.write_record("data.pkl", body.getvalue())
    zw.write_record("data/0", bytes(8))
    zw.finish()
    with pytest.raises(RuntimeError, match="holds 8 bytes"):
        ember.load(io.BytesIO(out.getvalue()))


def test_big_endian_checkpoint_is_byteswapped():
    z = zipfile.ZipFile(io.BytesIO(_crafted_checkpoint("cpu")))
    out = io.BytesIO()
    zw = ZipWriter(out, "archive")
    zw.write_record("data.pkl", z.read("archive/data.pkl"))
    zw.write_record("byteorder", b"big")
    zw.write_record("data/0", np.arange(3, dtype=">f4").tobytes())
    zw.finish()
    assert ember.load(io.BytesIO(out.getvalue()))["w"].tolist() == [0.0, 1.0, 2.0]


# ---- safetensors dispatch --------------------------------------------------------------------


def test_safetensors_by_extension_and_by_content(tmp_path):
    pytest.importorskip("ember.serialization.safetensors")
    t = {"w": ember.arange(6.0).view(2, 3)}
    ember.save(t, tmp_path / "m.safetensors")
    raw = (tmp_path / "m.safetensors").read_bytes()
    assert raw[8:9] == b"{"
    (tmp_path / "renamed.bin").write_bytes(raw)
    for p in ("m.safetensors", "renamed.bin"):
        assert ember.equal(ember.load(tmp_path / p)["w"], t["w"])


# ---- PyTorch interop -------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("name", DTYPES)
def test_torch_reads_every_dtype_ember_writes(name):
    value = _np_value(name)
    buf = io.BytesIO()
    ember.save({"t": ember.from_numpy(value), "s": ember.from_numpy(value)[:, 1]}, buf)
    buf.seek(0)
    out = torch.load(buf, weights_only=True)
    assert out["t"].dtype == getattr(torch, name)
    np.testing.assert_array_equal(out["t"].numpy(), value)
    np.testing.assert_array_equal(out["s"].numpy(), value[:, 1])
    assert out["s"].untyped_storage().data_ptr() == out["t"].untyped_storage().data_ptr()


@needs_torch
def test_ember_file_is_byte_identical_to_torchs(tmp_path):
    a = np.arange(12, dtype=np.float32)
    e, t = ember.from_numpy(a), torch.from_numpy(a)
    ember.save(
        OrderedDict(
            w=e.view(3, 4), v=e[::2], p=ember.nn.Parameter(ember.ones(2)), i=ember.tensor(3)
        ),
        tmp_path / "x.pt",
    )
    torch.save(
        OrderedDict(
            w=t.view(3, 4), v=t[::2], p=torch.nn.Parameter(torch.ones(2)), i=torch.tensor(3)
        ),
        tmp_path / "y.pt",
    )
    ze, zt = zipfile.ZipFile(tmp_path / "x.pt"), zipfile.ZipFile(tmp_path / "y.pt")
    assert [i.filename[1:] for i in ze.infolist()] == [i.filename[1:] for i in zt.infolist()]
    for ie, it in zip(ze.infolist(), zt.infolist()):
        assert ie.header_offset == it.header_offset
        if not ie.filename.endswith("serialization_id"):
            assert ze.read(ie) == zt.read(it), ie.filename


@needs_torch
def test_torch_reads_ember_model_and_optimizer_state():
    ember.manual_seed(0)
    net = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Tanh(), ember.nn.Linear(4, 2))
    opt = ember.optim.Adam(net.parameters(), lr=0.01)
    net(ember.ones(2, 3)).sum().backward()
    opt.step()
    buf = io.BytesIO()
    ember.save({"model": net.state_dict(), "optim": opt.state_dict(), "epoch": 3}, buf)
    buf.seek(0)
    ck = torch.load(buf, weights_only=True)
    tnet = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    tnet.load_state_dict(ck["model"])
    topt = torch.optim.Adam(tnet.parameters(), lr=0.01)
    topt.load_state_dict(ck["optim"])
    assert ck["epoch"] == 3
    w = net[0].weight
    np.testing.assert_array_equal(tnet[0].weight.detach().numpy(), w.numpy(force=True))
    st = topt.state_dict()["state"][0]
    np.testing.assert_array_equal(st["exp_avg"].numpy(), opt.state[w]["exp_avg"].numpy())


@needs_torch
def test_parameters_reach_torch_as_parameters():
    buf = io.BytesIO()
    p = ember.nn.Parameter(ember.ones(2))
    p.note = 5
    ember.save(
        {
            "p": p,
            "q": ember.nn.Parameter(ember.ones(1), requires_grad=False),
            "g": ember.ones(1, requires_grad=True),
        },
        buf,
    )
    buf.seek(0)
    out = torch.load(buf, weights_only=True)
    assert isinstance(out["p"], torch.nn.Parameter) and out["p"].requires_grad
    assert out["p"].note == 5
    assert isinstance(out["q"], torch.nn.Parameter) and not out["q"].requires_grad
    assert out["g"].requires_grad and not isinstance(out["g"], torch.nn.Parameter)


_READER = r"""
import sys
sys.modules["torch"] = None  # any import of torch now fails
import json, pickle
import numpy as np
import ember
paths = json.loads(sys.argv[1])
results = {}
for key, path in paths.items():
    obj = ember.load(path, **({"weights_only": False} if key == "module" else {}))
    if key == "module":
        obj = obj.state_dict()
    flat = {}
    def walk(prefix, o):
        if isinstance(o, ember.Tensor):
            flat[prefix] = (o.numpy(force=True).copy(), type(o).__name__, o.requires_grad,
                            o.stride(), o.storage_offset(), o._data.__array_interface__["data"][0],
                            getattr(o, "note", None))
        elif isinstance(o, dict):
            for k, v in o.items():
                walk(f"{prefix}/{k}", v)
        elif isinstance(o, (list, tuple)):
            for i, v in enumerate(o):
                walk(f"{prefix}/{i}", v)
        else:
            flat[prefix] = o
    walk("", obj)
    results[key] = flat
assert "torch" not in [m.split(".")[0] for m in sys.modules if sys.modules[m] is not None]
sys.stdout.buffer.write(pickle.dumps(results))
"""


@pytest.fixture(scope="module")
def torch_written(tmp_path_factory):
    if torch is None:
        pytest.skip("needs torch to write the files")
    d = tmp_path_factory.mktemp("torch_files")
    torch.manual_seed(0)
    base = torch.arange(24, dtype=torch.float32)
    views = {
        "base": base,
        "m": base.view(4, 6),
        "t": base.view(4, 6).t(),
        "col": base.view(4, 6)[:, 2],
        "step": base[1::3],
    }
    dtypes = {n: torch.from_numpy(_np_value(n)) for n in DTYPES}
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    net(torch.ones(2, 3)).sum().backward()
    opt.step()
    p = torch.nn.Parameter(torch.ones(2))
    p.note = "x"
    objects = {
        "views": views,
        "dtypes": dtypes,
        "model": net.state_dict(),
        "optim": opt.state_dict(),
        "params": [p, torch.ones(2, requires_grad=True)],
    }
    paths = {}
    for key, obj in objects.items():
        paths[key] = str(d / f"{key}.pt")
        torch.save(obj, paths[key])
        paths[f"{key}_legacy"] = str(d / f"{key}_legacy.pt")
        torch.save(obj, paths[f"{key}_legacy"], _use_new_zipfile_serialization=False)
    out = subprocess.run(
        [sys.executable, "-c", _READER, json.dumps(paths)],
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr.decode()[-3000:]
    return objects, pickle.loads(out.stdout)


@needs_torch
@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("key", ["views", "dtypes", "model", "optim", "params"])
def test_ember_reads_torch_files_without_torch(torch_written, key, legacy):
    objects, results = torch_written
    got = results[f"{key}_legacy" if legacy else key]
    expected = {}

    def walk(prefix, o):
        if isinstance(o, torch.Tensor):
            expected[prefix] = o
        elif isinstance(o, dict):
            for k, v in o.items():
                walk(f"{prefix}/{k}", v)
        elif isinstance(o, (list, tuple)):
            for i, v in enumerate(o):
                walk(f"{prefix}/{i}", v)
        else:
            expected[prefix] = o

    walk("", objects[key])
    assert set(got) == set(expected)
    for k, v in expected.items():
        if isinstance(v, torch.Tensor):
            arr, cls, rg, stride, offset, _, note = got[k]
            np.testing.assert_array_equal(arr, v.detach().numpy())
            assert arr.dtype == v.detach().numpy().dtype
            assert (cls == "Parameter") == isinstance(v, torch.nn.Parameter), k
            assert rg == v.requires_grad and stride == v.stride(), k
            assert offset == v.storage_offset(), k
            assert note == getattr(v, "note", None), k
        else:
            assert got[k] == v, k
    if key == "views":  # one storage: every view's address is base + offset * 4
        start = got["/base"][5]
        for k in ("/m", "/t", "/col", "/step"):
            assert got[k][5] == start + 4 * got[k][4], k


@needs_torch
def test_torch_written_whole_module_loads_with_weights_only_false(tmp_path):
    net = torch.nn.Linear(2, 3)
    torch.save(net, tmp_path / "m.pt")
    with pytest.raises(UnpicklingError, match="torch.nn.modules.linear.Linear"):
        ember.load(tmp_path / "m.pt")
