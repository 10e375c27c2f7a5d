"""torch.serialization's API beyond save/load: safe globals, skip_data, the save/load options
and the location registry, each checked against PyTorch, with checkpoints crossing both ways."""

from __future__ import annotations

import dataclasses
import decimal
import enum
import fractions
import io
import mmap
import os
import struct
import sys
import types
import warnings
import zipfile
from collections import OrderedDict
from pickle import UnpicklingError

import numpy as np
import pytest

import ember
import ember.serialization as es
from ember.serialization import _locations

try:
    import torch
    import torch.serialization as ts
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)


# Module-level classes: pickles name them by module and qualname, as a user's script would.
@dataclasses.dataclass
class Point:
    x: int
    y: float
    tags: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass(slots=True)
class Slotted:
    a: int
    b: str


class WithState:
    inits = 0

    def __init__(self, v):
        WithState.inits += 1  # NEWOBJ must not run this
        self.v = v

    def __getstate__(self):
        return {"packed": self.v * 2}

    def __setstate__(self, state):
        self.v = state["packed"] // 2
        self.restored = True


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Picky:
    def __setstate__(self, state):
        raise ValueError(f"Picky refuses state {state}")


def _explode(x):
    raise KeyError(f"no {x}")


class Exploding:
    def __reduce__(self):
        return (_explode, ("way",))


class Renamed:
    def __init__(self, k=0):
        self.k = k


@pytest.fixture(autouse=True)
def _clean_state():
    es.clear_safe_globals()
    yield
    es.clear_safe_globals()
    es.set_crc32_options(True)
    es.set_default_load_endianness(None)
    es.set_default_mmap_options(mmap.MAP_PRIVATE)
    if torch is not None:
        ts.set_crc32_options(True)
        ts.set_default_load_endianness(None)
        ts.set_default_mmap_options(mmap.MAP_PRIVATE)


def _t_save(obj, **kw) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf, **kw)
    return buf.getvalue()


def _e_save(obj, **kw) -> bytes:
    buf = io.BytesIO()
    ember.save(obj, buf, **kw)
    return buf.getvalue()


def _repickle(data: bytes, old: bytes, new: bytes) -> bytes:
    """``data`` re-zipped (CRCs right) with ``old`` replaced by ``new`` in data.pkl."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            body = src.read(info)
            if info.filename.endswith("data.pkl"):
                assert old in body
                body = body.replace(old, new)
            z.writestr(info.filename, body)
    return out.getvalue()


def _e_load(data: bytes, **kw):
    return ember.load(io.BytesIO(data), **kw)


def _t_load(data: bytes, **kw):
    return torch.load(io.BytesIO(data), **kw)


def _user_objects():
    return {
        "point": Point(1, 2.5, ["a"]),
        "slotted": Slotted(3, "s"),
        "state": WithState(21),
        "color": Color.GREEN,
        "ratio": fractions.Fraction(2, 3),
        "dec": decimal.Decimal("1.25"),
    }


_USER_GLOBALS = [Point, Slotted, WithState, Color, fractions.Fraction, decimal.Decimal]


def _check_user_objects(out, w):
    assert out["point"] == Point(1, 2.5, ["a"]) and out["slotted"] == Slotted(3, "s")
    assert out["state"].v == 21 and out["state"].restored
    assert out["color"] is Color.GREEN
    assert out["ratio"] == fractions.Fraction(2, 3) and out["dec"] == decimal.Decimal("1.25")
    np.testing.assert_array_equal(np.asarray(out["w"].tolist()), w)


# ---- __all__ -----------------------------------------------------------------------------------


@needs_torch
def test_all_is_torchs_list():
    assert es.__all__ == ts.__all__
    for name in es.__all__:
        assert hasattr(es, name), name


# ---- safe globals ----------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("saver", ["torch", "ember"])
def test_user_classes_cross_with_add_safe_globals(saver):
    w = np.arange(6.0).reshape(2, 3)
    objs = _user_objects()
    if saver == "torch":
        data = _t_save({**objs, "w": torch.tensor(w)})
    else:
        data = _e_save({**objs, "w": ember.tensor(w)})
    inits = WithState.inits
    # refused by both without the allow-list, naming the first unsafe global
    with pytest.raises(UnpicklingError, match="GLOBAL .*Point was not an allowed global"):
        _e_load(data)
    with pytest.raises(UnpicklingError, match="GLOBAL .*Point was not an allowed global"):
        _t_load(data)
    es.add_safe_globals(_USER_GLOBALS)
    _check_user_objects(_e_load(data), w)
    with ts.safe_globals(_USER_GLOBALS):
        ref = _t_load(data)
    _check_user_objects(ref, w)
    assert WithState.inits == inits  # NEWOBJ: __new__ only, in both
    assert type(ref["state"]) is type(_e_load(data)["state"])


def test_safe_globals_context_and_registry():
    data = _e_save([Point(1, 2.0)])
    assert es.get_safe_globals() == []
    with es.safe_globals([Point]):
        assert es.get_safe_globals() == [Point]
        assert _e_load(data) == [Point(1, 2.0)]
    assert es.get_safe_globals() == []
    with pytest.raises(UnpicklingError):
        _e_load(data)
    es.add_safe_globals([Point])
    es.add_safe_globals([Point, Slotted])  # a set: no duplicates
    assert sorted(es.get_safe_globals(), key=str) == sorted([Point, Slotted], key=str)
    es.clear_safe_globals()
    assert es.get_safe_globals() == []


@needs_torch
def test_tuple_entries_name_the_global_as_the_file_does():
    # a class pickled under another name (renamed/moved since): the pair maps the file's name
    data = _repickle(_e_save({"r": Renamed(5)}), b"Renamed", b"OldName")
    tdata = _repickle(_t_save({"r": Renamed(5)}), b"Renamed", b"OldName")
    name = f"{Renamed.__module__}.OldName"
    with pytest.raises(UnpicklingError, match="OldName"):
        _e_load(data)
    es.add_safe_globals([(Renamed, name)])
    with ts.safe_globals([(Renamed, name)]):
        for d in (data, tdata):
            assert _e_load(d)["r"].k == 5
            assert _t_load(d)["r"].k == 5


@needs_torch
@pytest.mark.parametrize(
    "entry, exc", [((Point, "a", "b"), ValueError), ((Point, 3), TypeError)], ids=["len", "type"]
)
def test_bad_tuple_entries_raise_as_torch(entry, exc):
    data = _e_save([Point(1, 2.0)])
    es.add_safe_globals([entry])
    with pytest.raises(exc) as e:
        _e_load(data)
    with ts.safe_globals([entry]):
        with pytest.raises(exc) as t:
            _t_load(data)
    assert str(e.value).split(":")[0] in str(t.value)


@needs_torch
def test_blocked_modules_stay_refused_even_when_marked():
    data = _t_save(OrderedDict(f=os.system))
    es.add_safe_globals([os.system])
    with ts.safe_globals([os.system]):
        with pytest.raises(UnpicklingError, match="whose module posix is blocked") as t:
            _t_load(data)
        with pytest.raises(UnpicklingError, match="whose module posix is blocked") as e:
            _e_load(data)
    assert "GLOBAL posix.system" in str(t.value) and "GLOBAL posix.system" in str(e.value)


@needs_torch
def test_forbidden_global_message_matches_torchs_key_parts(tmp_path):
    path = tmp_path / "ckpt.pt"
    torch.save({"p": Point(1, 2.0)}, path)
    full = f"{Point.__module__}.Point"
    with pytest.raises(UnpicklingError) as t:
        torch.load(path)
    with pytest.raises(UnpicklingError) as e:
        ember.load(path)
    msg, ref = str(e.value), str(t.value)
    assert repr(str(path)) in msg  # ember names the file
    for part in (
        "Weights only load failed. This file can still be loaded, to do so you have two options",
        "(2) Alternatively, to load with `weights_only=True` please check the recommended steps",
        f"WeightsUnpickler error: Unsupported global: GLOBAL {full} was not an allowed global "
        "by default. Please use",
        f"add_safe_globals([{full}])` or the",
        f"safe_globals([{full}])` context manager to allowlist this global if you trust this "
        "class/function.",
        "will likely succeed, but it can result in arbitrary code execution. Do it only if you "
        "got the file from a trusted source.",
    ):
        assert part in msg and part in ref, part
    # builtins: the suggested code names them bare, so that it runs
    data = _t_save([print])
    with pytest.raises(UnpicklingError, match=r"add_safe_globals\(\[print\]\)") as e:
        _e_load(data)
    assert "GLOBAL builtins.print" in str(e.value)
    with pytest.raises(UnpicklingError, match=r"add_safe_globals\(\[print\]\)"):
        _t_load(data)


@needs_torch
def test_numpy_arrays_and_namespaces_load_once_marked():
    # what real training scripts keep next to their weights
    import argparse

    obj = {"arr": np.arange(4.0), "ns": argparse.Namespace(lr=0.1), "n": np.int64(3)}
    data = _t_save(obj)
    marked = [
        np._core.multiarray._reconstruct,
        np._core.multiarray.scalar,
        np.ndarray,
        np.dtype,
        type(np.dtype("f8")),
        type(np.dtype("i8")),
        argparse.Namespace,
    ]
    names = es.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
    assert sorted(names) == sorted(ts.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
    with es.safe_globals(marked):
        out = _e_load(data)
        assert es.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == []
    np.testing.assert_array_equal(out["arr"], obj["arr"])
    assert out["ns"] == obj["ns"] and out["n"] == 3 and type(out["n"]) is np.int64


@needs_torch
def test_errors_in_marked_code_come_out_as_raised():
    p = Picky.__new__(Picky)
    p.__dict__["a"] = 1
    for obj, exc, marked in ((p, ValueError, Picky), (Exploding(), KeyError, _explode)):
        data = _t_save([obj])
        es.add_safe_globals([marked])
        with pytest.raises(exc) as e:
            _e_load(data)
        with ts.safe_globals([marked]):
            with pytest.raises(exc) as t:
                _t_load(data)
        assert str(e.value) == str(t.value)


def test_unmarked_reduce_newobj_build_stay_refused():
    # a marked class does not open the door to calling other things
    es.add_safe_globals([Point])
    with pytest.raises(UnpicklingError, match="Weights only load failed"):
        _e_load(_e_save([Point(1, 2.0), fractions.Fraction(1, 2)]))


# ---- get_unsafe_globals_in_checkpoint --------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("saver", ["torch", "ember"])
def test_unsafe_globals_in_checkpoint_match_torch(saver, tmp_path):
    objs = {**_user_objects(), "f": print, "od": OrderedDict(a=1)}
    path = tmp_path / "c.pt"
    if saver == "torch":
        torch.save({**objs, "w": torch.ones(2)}, path)
    else:
        ember.save({**objs, "w": ember.ones(2)}, path)
    got = es.get_unsafe_globals_in_checkpoint(path)
    ref = ts.get_unsafe_globals_in_checkpoint(path)
    assert sorted(got) == sorted(ref) and len(got) == len(set(got))
    assert f"{Point.__module__}.Point" in got and "builtins.print" in got
    assert all(isinstance(n, str) for n in got)
    with open(path, "rb") as f:
        assert es.get_unsafe_globals_in_checkpoint(f) == got
    es.add_safe_globals([Point, print])
    with ts.safe_globals([Point, print]):
        got2 = es.get_unsafe_globals_in_checkpoint(path)
        assert sorted(got2) == sorted(ts.get_unsafe_globals_in_checkpoint(path))
    assert set(got) - set(got2) == {f"{Point.__module__}.Point", "builtins.print"}


@needs_torch
def test_unsafe_globals_refuses_what_torch_refuses(tmp_path):
    legacy = _t_save({"w": torch.ones(2)}, _use_new_zipfile_serialization=False)
    with pytest.raises(
        ValueError, match="Expected input to be a checkpoint returned by torch.save"
    ):
        es.get_unsafe_globals_in_checkpoint(io.BytesIO(legacy))
    with pytest.raises(
        ValueError, match="Expected input to be a checkpoint returned by torch.save"
    ):
        ts.get_unsafe_globals_in_checkpoint(io.BytesIO(legacy))
    assert es.get_unsafe_globals_in_checkpoint(io.BytesIO(_e_save({"w": ember.ones(2)}))) == []
    path = tmp_path / "script.pt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit.script's
        torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), path)
    with pytest.raises(ValueError, match="torchscript checkpoint"):
        es.get_unsafe_globals_in_checkpoint(path)


# ---- skip_data -------------------------------------------------------------------------------


@needs_torch
def test_skip_data_save_writes_structure_with_zero_bytes_as_torch():
    w = ember.arange(12.0).view(3, 4)
    obj = {"w": w, "row": w[1], "i": ember.arange(5), "h": ember.ones(2, dtype=ember.float16)}
    with es.skip_data():
        data = _e_save(obj)
    with ts.skip_data():
        tw = torch.arange(12.0).view(3, 4)
        tdata = _t_save({"w": tw, "row": tw[1], "i": torch.arange(5), "h": torch.ones(2).half()})
    for d in (data, tdata):
        z = zipfile.ZipFile(io.BytesIO(d))
        for info in z.infolist():
            if "/data/" in info.filename:  # zeros, CRC 0
                nlen, elen = struct.unpack_from("<HH", d, info.header_offset + 26)
                start = info.header_offset + 30 + nlen + elen
                assert info.CRC == 0 and d[start : start + info.file_size] == bytes(info.file_size)
            else:
                z.read(info)  # checks the CRC
    for d in (data, tdata):
        for out in (_e_load(d), _t_load(d)):
            assert tuple(out["w"].shape) == (3, 4) and tuple(out["row"].shape) == (4,)
            assert str(out["i"].dtype).endswith("int64") and str(out["h"].dtype).endswith("16")
            assert not out["w"].any() and not out["i"].any()
        e = _e_load(d)
        e["w"][1, 0] = 7.0  # the view still shares the storage
        assert e["row"][0].item() == 7.0
    assert len(data) == len(_e_save(obj))  # the space for the bytes is kept


def _zip_names_and_crcs(data):
    z = zipfile.ZipFile(io.BytesIO(data))
    return {i.filename.split("/", 1)[1]: i.CRC for i in z.infolist()}


@needs_torch
@pytest.mark.parametrize("saver", ["torch", "ember"])
@pytest.mark.parametrize("legacy", [False, True])
def test_skip_data_load_reads_no_bytes(saver, legacy):
    kw = {"_use_new_zipfile_serialization": False} if legacy else {}
    if saver == "ember" and legacy:
        pytest.skip("ember writes the zip format only")
    src = np.arange(6.0).reshape(2, 3)
    if saver == "torch":
        t = torch.tensor(src)
        data = _t_save({"w": t, "v": t[1], "b": torch.tensor([True])}, **kw)
    else:
        t = ember.tensor(src)
        data = _e_save({"w": t, "v": t[1], "b": ember.tensor([True])})
    with es.skip_data():
        out = _e_load(data)
    with ts.skip_data():
        ref = _t_load(data)
    for k in ("w", "v", "b"):
        assert tuple(out[k].shape) == tuple(ref[k].shape)
        assert str(out[k].dtype).split(".")[1] == str(ref[k].dtype).split(".")[1]
    out["w"][1, 2] = 5.0
    assert out["v"][2].item() == 5.0  # sharing kept without the data
    assert _e_load(data)["w"].tolist() == src.tolist()  # outside the block: the data again


def test_skip_data_load_does_not_read_storages(monkeypatch):
    data = _e_save({"w": ember.ones(1000)})
    from ember.serialization import _zip

    def boom(*a, **k):
        raise AssertionError("read a storage")

    monkeypatch.setattr(_zip.ZipReader, "read_into", boom)
    with es.skip_data():
        assert _e_load(data)["w"].shape == (1000,)
    with pytest.raises(UnpicklingError, match="read a storage"):
        _e_load(data)


def test_skip_data_with_mmap_and_files(tmp_path):
    path = tmp_path / "m.pt"
    ember.save({"w": ember.arange(4.0)}, path)
    with es.skip_data():
        out = ember.load(path, mmap=True)
    assert out["w"].shape == (4,)
    with es.skip_data():
        ember.save({"w": ember.arange(4.0)}, path)
    assert ember.load(path)["w"].tolist() == [0.0] * 4
    assert zipfile.ZipFile(path).namelist()[0] == "m/data.pkl"


@needs_torch
def test_skip_data_errors_and_warnings_as_torch():
    with es.skip_data():
        with pytest.raises(RuntimeError) as e:
            ember.save(ember.ones(2), io.BytesIO(), _use_new_zipfile_serialization=False)
    with ts.skip_data():
        with pytest.raises(RuntimeError) as t:
            torch.save(torch.ones(2), io.BytesIO(), _use_new_zipfile_serialization=False)
    assert str(e.value) == str(t.value)
    msg = "Serializing tensors on the meta device under skip_data context manager is a no-op"
    with es.skip_data(), pytest.warns(UserWarning, match=msg):
        data = _e_save(ember.empty(2, device="meta"))
    assert _e_load(data).device.type == "meta"
    with ts.skip_data(), pytest.warns(UserWarning, match=msg):
        _t_save(torch.empty(2, device="meta"))
    s = es.skip_data(materialize_fake_tensors=True)
    assert s.materialize_fake_tensors is True and s.__enter__() is None
    s.__exit__(None, None, None)


def test_skip_data_is_per_thread():
    import threading

    seen = []
    with es.skip_data():
        th = threading.Thread(target=lambda: seen.append(_e_load(_e_save(ember.ones(2)))))
        th.start()
        th.join()
    assert seen[0].tolist() == [1.0, 1.0]


# ---- CRC-32, mmap and byte order options -----------------------------------------------------


@needs_torch
def test_crc32_off_writes_zero_crcs_and_both_load(tmp_path):
    assert es.get_crc32_options() is True and ts.get_crc32_options() is True
    es.set_crc32_options(False)
    assert es.get_crc32_options() is False
    w = ember.arange(6.0)
    data = _e_save({"w": w})
    ts.set_crc32_options(False)
    tdata = _t_save({"w": torch.arange(6.0)})
    for d in (data, tdata):
        crcs = _zip_names_and_crcs(d)
        assert set(crcs.values()) == {0} and "data.pkl" in crcs
        assert _e_load(d)["w"].tolist() == list(range(6))
        assert _t_load(d)["w"].tolist() == list(range(6))
    es.set_crc32_options(True)
    assert set(_zip_names_and_crcs(_e_save({"w": w})).values()) != {0}
    # big (pipelined) saves honour the option too
    es.set_crc32_options(False)
    big = ember.zeros(1 << 22)
    ember.save({"big": big}, tmp_path / "big.pt")
    assert set(_zip_names_and_crcs((tmp_path / "big.pt").read_bytes()).values()) == {0}
    assert torch.load(tmp_path / "big.pt")["big"].shape == (1 << 22,)


@needs_torch
def test_mmap_options_as_torch(tmp_path):
    assert es.get_default_mmap_options() == ts.get_default_mmap_options() == mmap.MAP_PRIVATE
    for bad in (3, "x"):
        with pytest.raises(ValueError) as e:
            es.set_default_mmap_options(bad)
        with pytest.raises(ValueError) as t:
            ts.set_default_mmap_options(bad)
        assert str(e.value) == str(t.value)
    with es.set_default_mmap_options(mmap.MAP_SHARED):
        assert es.get_default_mmap_options() == mmap.MAP_SHARED
    assert es.get_default_mmap_options() == mmap.MAP_PRIVATE
    es.set_default_mmap_options(mmap.MAP_SHARED)  # a plain call sets it
    assert es.get_default_mmap_options() == mmap.MAP_SHARED


@needs_torch
@pytest.mark.parametrize("shared", [False, True])
def test_mmap_shared_writes_reach_the_file_as_in_torch(tmp_path, shared):
    flags = mmap.MAP_SHARED if shared else mmap.MAP_PRIVATE
    for lib in ("ember", "torch"):
        path = tmp_path / f"{lib}.pt"
        ember.save({"w": ember.zeros(4)}, path)
        if lib == "ember":
            with es.set_default_mmap_options(flags):
                out = ember.load(path, mmap=True)
        else:
            with ts.set_default_mmap_options(flags):
                out = torch.load(path, mmap=True)
        out["w"][2] = 9.0
        del out
        assert ember.load(path)["w"].tolist() == ([0.0, 0.0, 9.0, 0.0] if shared else [0.0] * 4)


@needs_torch
def test_load_endianness_for_archives_without_byteorder_record():
    assert list(es.LoadEndianness.__members__) == list(ts.LoadEndianness.__members__)
    assert [m.value for m in es.LoadEndianness] == [m.value for m in ts.LoadEndianness]
    assert es.get_default_load_endianness() is None is ts.get_default_load_endianness()
    for bad in ("little", 1, ts.LoadEndianness.BIG):
        with pytest.raises(TypeError, match="Invalid argument type in function"):
            es.set_default_load_endianness(bad)
    values = np.array([1.0, -2.5, 3.25], dtype=np.float32)
    data = _e_save({"w": ember.tensor(values)}, _disable_byteorder_record=True)
    assert "byteorder" not in _zip_names_and_crcs(data)
    swapped = values.byteswap()
    little = sys.byteorder == "little"
    for mode, expect in (
        (None, values),
        ("LITTLE", values),
        ("BIG", swapped if little else values),
        ("NATIVE", values),
    ):
        es.set_default_load_endianness(None if mode is None else es.LoadEndianness[mode])
        ts.set_default_load_endianness(None if mode is None else ts.LoadEndianness[mode])
        got = np.asarray(_e_load(data)["w"].tolist(), dtype=np.float32)
        ref = _t_load(data)["w"].numpy()
        np.testing.assert_array_equal(got.view(np.uint32), expect.view(np.uint32))
        np.testing.assert_array_equal(got.view(np.uint32), ref.view(np.uint32))
    # the record, where present, wins over the setting
    es.set_default_load_endianness(es.LoadEndianness.BIG)
    assert _e_load(_e_save({"w": ember.tensor(values)}))["w"].tolist() == values.tolist()


# ---- locations and the small helpers ---------------------------------------------------------


@needs_torch
def test_location_tag_and_default_restore_location_as_torch():
    s = ember.ones(2).untyped_storage()
    t = torch.ones(2).untyped_storage()
    assert es.location_tag(s) == ts.location_tag(t) == "cpu"
    assert es.location_tag(ember.empty(2, device="meta").untyped_storage()) == "meta"
    assert es.default_restore_location(s, "cpu") is s
    assert es.default_restore_location(s, "meta").device.type == "meta"
    for loc in ("cuda", "cuda:1", "hpu:0", "xpu", "foo", "cpu:0"):
        with pytest.raises(RuntimeError) as e:
            es.default_restore_location(s, loc)
        with pytest.raises(RuntimeError) as r:
            ts.default_restore_location(t, loc)
        ours = str(e.value).replace("ember", "torch")
        if loc in ("foo", "cpu:0"):
            assert ours == str(r.value)
        else:
            assert ours.split(".")[0] == str(r.value).split(".")[0], loc


@needs_torch
@pytest.mark.parametrize("loc", ["cuda", "cuda:1", 0, "hpu:0", "cpu"])
def test_validate_devices_raise_what_cpu_only_torch_raises(loc):
    for name in ("validate_cuda_device", "validate_hpu_device"):
        with pytest.raises((RuntimeError, ValueError)) as e:
            getattr(es, name)(loc)
        with pytest.raises((RuntimeError, ValueError)) as t:
            getattr(ts, name)(loc)
        assert type(e.value) is type(t.value)
        assert str(e.value).replace("ember", "torch") == str(t.value)


@needs_torch
def test_register_package_extends_load(monkeypatch):
    monkeypatch.setattr(_locations, "_package_registry", list(_locations._package_registry))
    monkeypatch.setattr(ts, "_package_registry", list(ts._package_registry))
    loc = b"X\x03\x00\x00\x00"  # BINUNICODE of length 3
    data = _repickle(_e_save({"w": ember.arange(3.0)}), loc + b"cpu", loc + b"ipu")
    with pytest.raises(RuntimeError, match="ipu"):
        _e_load(data)
    with pytest.raises(RuntimeError, match="ipu"):
        _t_load(data)
    seen = []

    def tagger(storage):
        return None

    def deserializer(storage, location):
        if location.startswith("ipu"):
            seen.append(location)
            return storage

    es.register_package(11, tagger, deserializer)
    ts.register_package(11, tagger, deserializer)
    assert _e_load(data)["w"].tolist() == [0.0, 1.0, 2.0]
    assert _t_load(data)["w"].tolist() == [0.0, 1.0, 2.0]
    assert seen == ["ipu", "ipu"]
    # a map_location callable returning None falls back to the registry, as in torch
    assert _e_load(data, map_location=lambda s, loc: None)["w"].tolist() == [0.0, 1.0, 2.0]
    # the registry orders by priority
    assert [p for p, _, _ in _locations._package_registry] == sorted(
        p for p, _, _ in _locations._package_registry
    )
    assert es.default_restore_location(ember.ones(1).untyped_storage(), "ipu:1") is not None


@needs_torch
def test_storage_helpers_as_torch():
    assert es.normalize_storage_type(ember.FloatStorage) is ember.FloatStorage
    assert es.normalize_storage_type(ember.UntypedStorage) is ember.UntypedStorage
    assert es.storage_to_tensor_type(ember.FloatStorage(2)) is ember.FloatTensor
    with pytest.raises(AttributeError, match="UntypedTensor"):
        es.storage_to_tensor_type(ember.ones(2).untyped_storage())
    with pytest.raises(AttributeError, match="UntypedTensor"):
        ts.storage_to_tensor_type(torch.ones(2).untyped_storage())
    assert str(es.StorageType("FloatStorage")) == "StorageType(dtype=ember.float32)"
    assert str(ts.StorageType("FloatStorage")) == "StorageType(dtype=torch.float32)"
    assert es.StorageType("BoolStorage").dtype is ember.bool
    for bad in ("Foo", "UntypedStorage"):
        with pytest.raises(KeyError) as e:
            es.StorageType(bad)
        with pytest.raises(KeyError) as t:
            ts.StorageType(bad)
        assert str(e.value) == str(t.value)


@needs_torch
def test_check_module_version_and_small_helpers():
    m = types.ModuleType("m")
    cases = [("1.2.3", (1, 2)), ("1.2.3", (1, 3)), ("1.2.3", (1, 2, 3)), ("1.10", ("1", "10"))]
    for version, req in cases:
        m.__version__ = version
        assert es.check_module_version_greater_or_equal(
            m, req
        ) == ts.check_module_version_greater_or_equal(m, req)
    m.__version__ = "1.x"
    for req in ((1, 2), (1, 2, 3, 4)):
        with pytest.raises(RuntimeError) as e:
            es.check_module_version_greater_or_equal(m, req)
        with pytest.raises(RuntimeError) as t:
            ts.check_module_version_greater_or_equal(m, req)
        assert str(e.value) == str(t.value)
    with pytest.warns(UserWarning, match="but continuing assuming that requirement is met"):
        assert es.check_module_version_greater_or_equal(m, (1, 2), False) is True
    with es.mkdtemp() as path:
        assert os.path.isdir(path)
        open(os.path.join(path, "f"), "w").close()
    assert not os.path.exists(path)
    assert issubclass(es.SourceChangeWarning, Warning)
    assert es.SourceChangeWarning.__mro__[1:] == ts.SourceChangeWarning.__mro__[1:]
