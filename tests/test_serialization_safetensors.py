"""ember.serialization.safetensors: the format byte for byte, round trips, both directions with
the reference implementation (the ``safetensors`` package), validation of corrupt files."""

from __future__ import annotations

import io
import json
import os
import random
import stat

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import ember
from ember.serialization import safetensors as S
from ember.serialization.safetensors import SafetensorError

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None
try:
    import safetensors as _st
    import safetensors.numpy as st_numpy
    import safetensors.torch as st_torch
except ImportError:  # pragma: no cover
    _st = st_numpy = st_torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch (the oracle)")
# safetensors is a test-only dependency: `pip install safetensors`. Its 0.8.0 writes wrong bytes
# for non-contiguous NumPy arrays; these tests only hand it contiguous data.
needs_reference = pytest.mark.skipif(
    torch is None or _st is None, reason="needs torch and the safetensors package (reference)"
)

DTYPES = [
    ember.bool,
    ember.uint8,
    ember.int8,
    ember.int16,
    ember.int32,
    ember.int64,
    ember.float16,
    ember.float32,
    ember.float64,
]
SHAPES = [(), (0,), (5,), (2, 3), (3, 0, 2), (2, 3, 4), (1, 1, 1, 1)]


def _array(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    npd = dtype._np
    if npd.kind == "b":
        return rng.integers(0, 2, size=shape).astype(npd)
    if npd.kind in "iu":
        info = np.iinfo(npd)
        return rng.integers(info.min, info.max, size=shape, dtype=npd, endpoint=True)
    a = rng.standard_normal(size=shape).astype(npd)
    if a.size > 2:  # special values survive byte for byte
        a.reshape(-1)[:3] = [np.inf, -0.0, np.nan]
    return a


def _same(t, a):
    assert isinstance(t, ember.Tensor)
    assert t.dtype._np == a.dtype and tuple(t.shape) == a.shape
    np.testing.assert_array_equal(t.numpy(), a)  # NaN equals NaN here


def _header(data: bytes) -> dict:
    n = int.from_bytes(data[:8], "little")
    return json.loads(data[8 : 8 + n])


def _file(header, data=b"", raw=False, pad=True) -> bytes:
    text = header if raw else json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + data


# ---- round trips -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip_every_dtype_and_shape(tmp_path, dtype):
    arrays = {f"t{i}": _array(dtype, s, i) for i, s in enumerate(SHAPES)}
    path = tmp_path / "x.safetensors"
    S.save({k: ember.from_numpy(a.copy()) for k, a in arrays.items()}, path)
    for out in (
        S.load(path),
        S.load(path, mmap=True),
        S.load_file(str(path)),
        S.load_bytes(path.read_bytes()),
    ):
        assert sorted(out) == sorted(arrays)
        for k, a in arrays.items():
            _same(out[k], a)


def test_file_layout_is_the_format():
    data = S.save_bytes(
        {
            "b": ember.tensor([1.0, 2.0]),
            "a": ember.tensor([3], dtype=ember.int8),
            "c": ember.zeros(1, dtype=ember.float64),
        },
        metadata={"k": "v"},
    )
    n = int.from_bytes(data[:8], "little")
    text = data[8 : 8 + n]
    assert n % 8 == 0 and text.rstrip(b" ") + b" " * (n - len(text.rstrip(b" "))) == text
    # metadata first, then widest dtype first, then names; offsets contiguous from 0
    assert text.rstrip() == (
        b'{"__metadata__":{"k":"v"},'
        b'"c":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},'
        b'"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},'
        b'"a":{"dtype":"I8","shape":[1],"data_offsets":[16,17]}}'
    )
    assert data[8 + n :] == (np.zeros(1).tobytes() + np.array([1, 2], "<f4").tobytes() + b"\x03")


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a.t(),  # transposed
        lambda a: a[:, ::2],  # strided slice
        lambda a: a[1:, 1:3],  # offset slice
        lambda a: a[0].unsqueeze(0).expand(4, 5),  # stride 0
        lambda a: ember.from_numpy(a.numpy()[::-1, ::-2]),  # negative strides
    ],
    ids=["transposed", "step", "offset", "expanded", "negative"],
)
def test_non_contiguous_tensors_are_written_as_their_values(make):
    base = ember.arange(20, dtype=ember.float32).reshape(4, 5)
    view = make(base)
    data = S.save_bytes({"v": view})
    expect = np.ascontiguousarray(view.numpy())
    _same(S.load_bytes(data)["v"], expect)
    assert data == S.save_bytes({"v": ember.from_numpy(expect.copy())})


def test_metadata_round_trip_and_order(tmp_path):
    meta = {"z": "1", "format": "pt", "ünï": '\n"x"\t\x01'}
    path = tmp_path / "m.safetensors"
    S.save_file({"w": ember.ones(2)}, path, metadata=meta)
    assert list(_header(path.read_bytes())["__metadata__"].items()) == list(meta.items())
    with S.safe_open(path) as f:
        assert f.metadata() == meta
    S.save_file({"w": ember.ones(2)}, path)
    assert "__metadata__" not in _header(path.read_bytes())
    with S.safe_open(path) as f:
        assert f.metadata() is None


def test_empty_dict_and_file_objects():
    assert S.save_bytes({}) == b"\x08" + b"\x00" * 7 + b"{}      "
    assert S.load_bytes(S.save_bytes({})) == {}
    buf = io.BytesIO(b"junk")
    buf.seek(4)
    S.save({"x": ember.arange(4)}, buf)
    buf.seek(4)  # read from the position
    _same(S.load(buf)["x"], np.arange(4))


def test_non_seekable_stream():
    data = S.save_bytes({"x": ember.arange(3.0)})

    class Pipe(io.RawIOBase):
        def __init__(self):
            self._b = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            return self._b.readinto(b)

        def seekable(self):
            return False

        def tell(self):
            raise OSError("not seekable")

    _same(S.load(io.BufferedReader(Pipe()))["x"], np.arange(3.0, dtype=np.float32))


def test_loaded_tensors_are_writable_and_independent():
    data = bytearray(S.save_bytes({"x": ember.zeros(3), "y": ember.ones(2)}))
    out = S.load(data)
    out["x"].add_(1)
    out["y"][0] = 5
    _same(out["x"], np.ones(3, np.float32))
    _same(S.load(bytes(data))["y"], np.ones(2, np.float32))  # the source is untouched


def test_load_order_is_file_order():
    out = S.load_bytes(
        S.save_bytes(
            {
                "a": ember.zeros(1),
                "b": ember.zeros(1, dtype=ember.int64),
                "c": ember.zeros(1, dtype=ember.float64),
            }
        )
    )
    assert list(out) == ["b", "c", "a"]


# ---- the reference implementation ------------------------------------------------------------


def _pair(dtype, shape, seed):
    a = _array(dtype, shape, seed)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


@needs_reference
@pytest.mark.parametrize("metadata", [None, {}, {"format": "pt"}], ids=["none", "empty", "one"])
def test_bytes_equal_the_reference_writer(metadata):
    ours, theirs = {}, {}
    names = ["w", "b", "layer.0.weight", "ä/ß", 'quote"back\\slash', "ctl\n\x01", "", "Z", "a"]
    for i, name in enumerate(names):
        for j, dtype in enumerate(DTYPES):
            e, t = _pair(dtype, SHAPES[(i + j) % len(SHAPES)], 10 * i + j)
            ours[f"{name}{j}"], theirs[f"{name}{j}"] = e, t
    assert S.save_bytes(ours, metadata) == st_torch.save(theirs, metadata)


@needs_reference
def test_bytes_equal_the_reference_for_views():
    base = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    ours = {"t": ember.from_numpy(base.numpy().copy()).t(), "s": ember.arange(10)[2:8:2]}
    theirs = {"t": base.t().contiguous(), "s": torch.arange(10)[2:8:2].contiguous()}
    assert S.save_bytes(ours) == st_torch.save(theirs)


@needs_reference
def test_reference_files_read_by_ember(tmp_path):
    tensors = {f"k{i}": _pair(d, SHAPES[i % len(SHAPES)], i)[1] for i, d in enumerate(DTYPES)}
    tensors["t"] = torch.randn(5, 3).t().contiguous()
    path = tmp_path / "ref.safetensors"
    st_torch.save_file(tensors, path, metadata={"who": "reference"})
    for out in (S.load(path), S.load(path, mmap=True), S.load_file(path)):
        assert list(out) == list(st_torch.load_file(path))
        for k, t in tensors.items():
            assert out[k].dtype.name == str(t.dtype).split(".")[1]
            assert torch.equal(torch.from_numpy(out[k].numpy().copy()), t)
    with S.safe_open(path, "pt") as f:
        assert f.metadata() == {"who": "reference"}


@needs_reference
def test_ember_files_read_by_the_reference(tmp_path):
    pairs = {f"k{i}": _pair(d, SHAPES[i % len(SHAPES)], i) for i, d in enumerate(DTYPES)}
    pairs["view"] = (
        ember.arange(12.0).reshape(3, 4)[:, 1::2],
        torch.arange(12.0).reshape(3, 4)[:, 1::2],
    )
    path = tmp_path / "ours.safetensors"
    S.save({k: e for k, (e, _) in pairs.items()}, path, metadata={"format": "pt"})
    back = st_torch.load_file(path)
    for k, (_, t) in pairs.items():
        assert back[k].dtype == t.dtype and torch.equal(back[k], t)
    with _st.safe_open(path, "np") as f:
        assert f.metadata() == {"format": "pt"}
        np.testing.assert_array_equal(f.get_tensor("view"), pairs["view"][1].numpy())


# ---- malformed files -------------------------------------------------------------------------

GOOD = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
MALFORMED = {
    "empty": b"",
    "short": b"\x01\x00\x00",
    "huge_header_size": (10**9).to_bytes(8, "little") + b"{}",
    "header_past_end": (100).to_bytes(8, "little") + b"{}",
    "u64_max": b"\xff" * 8 + b"{}",
    "bad_utf8": _file(b'{"\xff":1}', raw=True),
    "bad_json": _file(b'{"a":', raw=True),
    "not_object": _file(b"[1,2]", raw=True),
    "nul_padding": _file(b"{}\0\0\0\0\0\0", raw=True, pad=False),
    "trailing_garbage": _file(b"{} x", raw=True),
    "zero_header": (0).to_bytes(8, "little"),
    "trailing_data": _file({}, b"\0"),
    "truncated_data": _file(GOOD, b"\0" * 4),
    "gap": _file({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8),
    "overlap": _file(
        {**GOOD, "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8
    ),
    "reversed": _file({"a": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}}, b"\0" * 8),
    "shape_mismatch": _file(
        {"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8
    ),
    "negative_dim": _file(
        {"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, b"\0" * 8
    ),
    "float_dim": _file({"a": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}}, b"\0" * 8),
    "bool_dim": _file(
        {"a": {"dtype": "F32", "shape": [True, 2], "data_offsets": [0, 8]}}, b"\0" * 8
    ),
    "unknown_dtype": _file(
        {"a": {"dtype": "F33", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8
    ),
    "lowercase_dtype": _file(
        {"a": {"dtype": "f32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8
    ),
    "missing_offsets": _file({"a": {"dtype": "F32", "shape": [2]}}, b"\0" * 8),
    "three_offsets": _file(
        {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 9]}}, b"\0" * 8
    ),
    "offset_too_big": _file(
        {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 2**64]}}, b"\0" * 8
    ),
    "overflow": _file(
        {"a": {"dtype": "F32", "shape": [2**40, 2**40], "data_offsets": [0, 8]}}, b"\0" * 8
    ),
    "empty_but_huge": _file({"a": {"dtype": "F32", "shape": [0, 2**62], "data_offsets": [0, 0]}}),
    "tensor_not_object": _file({"a": 5}),
    "metadata_not_strings": _file({"__metadata__": {"a": 1}}),
    "metadata_not_object": _file({"__metadata__": [1]}),
    "nan": _file(b'{"a":{"dtype":"F32","shape":[NaN],"data_offsets":[0,8]}}', b"\0" * 8, raw=True),
    "deep_nesting": _file(b"[" * 100_000 + b"]" * 100_000, raw=True),
    "duplicate_name": _file(
        b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
        b'"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}',
        b"\0" * 8,
        raw=True,
    ),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_files_raise_a_clean_error(tmp_path, case):
    path = tmp_path / f"{case}.safetensors"
    path.write_bytes(MALFORMED[case])
    for kwargs in ({}, {"mmap": True}, {"map_location": "meta"}):
        with pytest.raises(SafetensorError) as info:
            S.load(path, **kwargs)
        assert str(path) in str(info.value) and isinstance(info.value, ValueError)
    with pytest.raises(SafetensorError, match="<bytes>"):
        S.load_bytes(MALFORMED[case])
    with pytest.raises(SafetensorError):
        S.load(io.BytesIO(MALFORMED[case]))


@needs_reference
@pytest.mark.parametrize("case", list(MALFORMED))
def test_the_reference_rejects_the_same_files(case):
    with pytest.raises((_st.SafetensorError, ValueError)):
        st_numpy.load(MALFORMED[case])


@pytest.mark.parametrize(
    "case,needle",
    [
        ("short", "header too small"),
        ("huge_header_size", "header too large"),
        ("header_past_end", "invalid header length"),
        ("bad_json", "invalid JSON"),
        ("gap", "invalid offset for tensor `a`"),
        ("shape_mismatch", "needs 12 bytes"),
        ("truncated_data", "truncated"),
        ("duplicate_name", "duplicate key `a`"),
        ("unknown_dtype", "'F33'"),
        ("overflow", "overflow"),
    ],
)
def test_error_messages_say_what_is_wrong(case, needle):
    with pytest.raises(SafetensorError, match=needle.replace("(", r"\(").replace("[", r"\[")):
        S.load_bytes(MALFORMED[case])


def test_files_the_reference_accepts_are_read():
    # leading whitespace, unknown fields, null metadata, unpadded (misaligned) headers
    lenient = [
        _file(
            b' {"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}}',
            raw=True,
            data=np.array([1, 2], "<f4").tobytes(),
        ),
        _file({"__metadata__": None, **GOOD}, np.array([1, 2], "<f4").tobytes()),
        _file(json.dumps(GOOD).encode(), np.array([1, 2], "<f4").tobytes(), raw=True, pad=False),
    ]
    for data in lenient:
        _same(S.load_bytes(data)["a"], np.array([1, 2], np.float32))


def test_unaligned_data_is_loaded_aligned(tmp_path):
    path = tmp_path / "u.safetensors"
    path.write_bytes(
        _file(
            json.dumps({"a": {"dtype": "F64", "shape": [2], "data_offsets": [0, 16]}}).encode(),
            np.array([1.5, 2.5]).tobytes(),
            raw=True,
            pad=False,
        )
    )
    for out in (S.load(path), S.load(path, mmap=True)):
        assert out["a"]._data.flags.aligned
        _same(out["a"], np.array([1.5, 2.5]))


def test_dtypes_ember_lacks_raise_a_clear_error():
    data = _file({"a": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4)
    if "bfloat16" in ember._dtype._BY_NAME:  # pragma: no cover  (once ember gains it)
        assert S.load_bytes(data)["a"].dtype.name == "bfloat16"
    else:
        with pytest.raises(SafetensorError, match="BF16, which ember has no dtype for"):
            S.load_bytes(data)
    with pytest.raises(SafetensorError, match="F4"):
        S.load_bytes(_file({"a": {"dtype": "F4", "shape": [2], "data_offsets": [0, 1]}}, b"\0"))


def _mutations(data: bytes, rng: random.Random):
    n = 8 + int.from_bytes(data[:8], "little")
    for _ in range(300):
        b = bytearray(data)
        kind = rng.randrange(4)
        if kind == 0:  # flip bytes, mostly in the header
            for _ in range(rng.randrange(1, 4)):
                b[rng.randrange(n + 8 if rng.random() < 0.9 else len(b))] = rng.randrange(256)
        elif kind == 1:  # truncate
            del b[rng.randrange(len(b)) :]
        elif kind == 2:  # a digit of the header changed (shapes, offsets, the size field)
            digits = [i for i in range(8, n) if chr(b[i]).isdigit()]
            b[rng.choice(digits)] = ord(rng.choice("0123456789"))
        else:  # insert or delete a header byte
            i = rng.randrange(8, n)
            if rng.random() < 0.5:
                del b[i]
            else:
                b.insert(i, rng.randrange(256))
        yield bytes(b)


def test_fuzzed_files_end_in_a_clean_error_or_a_correct_load():
    tensors = {
        "w": ember.arange(12.0).reshape(3, 4),
        "b": ember.arange(5, dtype=ember.int16),
        "m": ember.tensor([True, False]),
    }
    data = S.save_bytes(tensors, metadata={"format": "pt"})
    rng = random.Random(0)
    loaded = 0
    for mutated in _mutations(data, rng):
        try:
            out = S.load_bytes(mutated)
        except SafetensorError:
            continue
        loaded += 1
        n = int.from_bytes(mutated[:8], "little")
        header = json.loads(mutated[8 : 8 + n])
        for k, t in out.items():
            begin, end = header[k]["data_offsets"]
            assert t.numpy().tobytes() == mutated[8 + n + begin : 8 + n + end]
            assert list(t.shape) == header[k]["shape"]
        if st_numpy is not None:  # whatever ember reads, the reference reads the same way
            ref = st_numpy.load(mutated)
            assert sorted(ref) == sorted(out)
            for k in out:
                np.testing.assert_array_equal(ref[k], out[k].numpy())
    assert loaded > 0  # some mutations (data bytes, padding) leave a valid file


_HEADER_TEXT = hst.recursive(
    hst.none() | hst.booleans() | hst.integers(-3, 2**65) | hst.sampled_from(["F32", "I8", "x"]),
    lambda kids: (
        hst.lists(kids, max_size=3)
        | hst.dictionaries(
            hst.sampled_from(["dtype", "shape", "data_offsets", "__metadata__", "a"]),
            kids,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None)
@given(header=_HEADER_TEXT, data=hst.binary(max_size=40))
def test_arbitrary_headers_end_in_a_clean_error_or_a_correct_load(header, data):
    blob = _file(json.dumps(header).encode(), data, raw=True)
    try:
        out = S.load_bytes(blob)
    except SafetensorError:
        return
    n = int.from_bytes(blob[:8], "little")
    for k, t in out.items():
        begin, end = header[k]["data_offsets"]
        assert t.numpy().tobytes() == blob[8 + n + begin : 8 + n + end]


@settings(max_examples=100, deadline=None)
@given(blob=hst.binary(max_size=64))
def test_arbitrary_bytes_end_in_a_clean_error(blob):
    try:
        S.load_bytes(blob)
    except SafetensorError:
        pass


@needs_torch
def test_a_torch_checkpoint_is_not_read_as_safetensors(tmp_path):
    path = tmp_path / "m.pt"
    torch.save({"w": torch.ones(2)}, path)
    assert not S.looks_like_safetensors(path.read_bytes()[:16])
    with pytest.raises(SafetensorError, match="m.pt"):
        S.load(path)


# ---- writing errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj,exc,match",
    [
        ([ember.zeros(1)], ValueError, "flat dicts of tensors"),
        ({"a": {"b": ember.zeros(1)}}, ValueError, "Key `a` is invalid.*flat dicts"),
        ({"a": 1.0}, ValueError, "expected Tensor but received float"),
        ({1: ember.zeros(1)}, TypeError, "names must be str"),
        ({"__metadata__": ember.zeros(1)}, ValueError, "__metadata__"),
    ],
)
def test_only_flat_dicts_of_tensors(tmp_path, obj, exc, match):
    with pytest.raises(exc, match=match):
        S.save(obj, tmp_path / "x.safetensors")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("metadata", [{"a": 1}, {1: "a"}, {"a": None}, ["a"]])
def test_metadata_must_map_str_to_str(metadata):
    with pytest.raises(TypeError, match="str -> str"):
        S.save_bytes({"a": ember.zeros(1)}, metadata=metadata)


def test_shared_tensors_are_refused_as_the_reference_does():
    t = ember.arange(8.0)
    for bad in (
        {"a": t, "b": t},
        {"a": t[:5], "b": t[4:]},
        {"a": t, "b": t.view(2, 4)},
        {"a": t.view(2, 4).t(), "b": t[7:]},
    ):
        with pytest.raises(RuntimeError, match="share memory"):
            S.save_bytes(bad)
    # disjoint pieces of one storage, and empty views, are fine (as the reference)
    out = S.load_bytes(S.save_bytes({"a": t[:4], "b": t[4:], "c": t[:0]}))
    _same(out["b"], np.arange(4.0, 8.0, dtype=np.float32))
    # the tensors of a loaded file share its buffer without overlapping: saving them back works
    again = S.load_bytes(S.save_bytes(out))
    assert sorted(again) == ["a", "b", "c"]


@needs_reference
def test_shared_tensor_refusal_matches_the_reference():
    t = torch.arange(8.0)
    with pytest.raises(RuntimeError):
        st_torch.save({"a": t, "b": t})
    with pytest.raises(RuntimeError):
        st_torch.save({"a": t[:5], "b": t[4:]})
    st_torch.save({"a": t[:4], "b": t[4:]})


def test_meta_tensors_cannot_be_saved():
    with pytest.raises(ValueError, match="meta device"):
        S.save_bytes({"a": ember.empty(3, device="meta")})


# ---- atomic writes ---------------------------------------------------------------------------


def test_a_failed_write_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "m.safetensors"
    S.save_file({"old": ember.ones(3)}, path)
    before = path.read_bytes()

    def fail(f, head, arrays):
        f.write(head)
        raise OSError("disk full")

    monkeypatch.setattr(S, "_write", fail)
    with pytest.raises(OSError, match="disk full"):
        S.save_file({"new": ember.zeros(10**5)}, path)
    monkeypatch.undo()
    with pytest.raises(ValueError):
        S.save({"bad": "x"}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.safetensors"]


def test_writes_keep_permissions_and_follow_links(tmp_path):
    path = tmp_path / "m.safetensors"
    S.save_file({"a": ember.ones(1)}, path)
    os.chmod(path, 0o640)
    link = tmp_path / "link.safetensors"
    link.symlink_to(path)
    S.save(ember.nn.Linear(2, 3).state_dict(), link)
    assert link.is_symlink() and stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert sorted(S.load(path)) == ["bias", "weight"]


# ---- map_location and mmap -------------------------------------------------------------------


def test_mmap_views_the_file_copy_on_write(tmp_path):
    path = tmp_path / "m.safetensors"
    S.save_file({"a": ember.arange(6.0).reshape(2, 3), "b": ember.arange(4)}, path)
    before = path.read_bytes()
    out = S.load(path, mmap=True)
    root = out["a"]._data
    while isinstance(root.base, np.ndarray):
        root = root.base
    assert isinstance(root.base, memoryview) and root.base.obj.__class__.__name__ == "mmap"
    out["a"].mul_(2)  # writable, and writes never reach the file
    _same(out["a"], np.arange(6.0, dtype=np.float32).reshape(2, 3) * 2)
    assert path.read_bytes() == before
    with open(path, "rb") as f:  # a file object over a real file maps too
        _same(S.load(f, mmap=True)["b"], np.arange(4))
    with pytest.raises(ValueError, match="mmap=True needs"):
        S.load(io.BytesIO(before), mmap=True)


@pytest.mark.parametrize("loc", ["meta", ember.device("meta"), {"cpu": "meta"}])
def test_map_location_meta_reads_only_the_header(tmp_path, loc):
    path = tmp_path / "m.safetensors"
    S.save_file({"a": ember.ones(2, 3), "i": ember.ones(4, dtype=ember.int64)}, path)
    out = S.load(path, map_location=loc)
    assert out["a"].device.type == "meta" and tuple(out["a"].shape) == (2, 3)
    assert out["i"].dtype is ember.int64
    with S.safe_open(path, device="meta") as f:
        assert f.get_tensor("a").device.type == "meta"


@pytest.mark.parametrize(
    "loc", [None, "cpu", ember.device("cpu"), {"cpu": "cpu"}, lambda t, where: None]
)
def test_map_location_cpu(loc):
    _same(S.load(S.save_bytes({"a": ember.ones(2)}), map_location=loc)["a"], np.ones(2, np.float32))


def test_map_location_callable_and_bad_values():
    data = S.save_bytes({"a": ember.ones(2)})
    seen = []
    out = S.load(data, map_location=lambda t, where: seen.append(where) or t * 2)
    assert seen == ["cpu"]
    _same(out["a"], np.full(2, 2, np.float32))
    with pytest.raises(TypeError, match="map_location"):
        S.load(data, map_location=3)
    with pytest.raises(RuntimeError):
        S.load(data, map_location="tpu")


# ---- safe_open ---------------------------------------------------------------------------------


def test_safe_open(tmp_path):
    path = tmp_path / "m.safetensors"
    w = ember.arange(12.0, dtype=ember.float64).reshape(3, 4)
    S.save_file({"w": w, "b": ember.arange(3.0)}, path, metadata={"k": "v"})
    with S.safe_open(path, framework="pt") as f:
        assert f.keys() == ["b", "w"] and f.offset_keys() == ["w", "b"]
        assert f.metadata() == {"k": "v"}
        _same(f.get_tensor("w"), w.numpy())
        s = f.get_slice("w")
        assert s.get_shape() == [3, 4] and s.get_dtype() == "F64"
        _same(s[1:, ::2], w.numpy()[1:, ::2])
        _same(s[..., 0], w.numpy()[..., 0])
        assert list(f.get_tensors()) == ["w", "b"]
        with pytest.raises(SafetensorError, match="does not contain tensor x"):
            f.get_tensor("x")
    with S.safe_open(path, framework="np") as f:
        assert isinstance(f.get_tensor("b"), np.ndarray)
    with pytest.raises(SafetensorError, match="framework tf is invalid"):
        S.safe_open(path, framework="tf")
    with pytest.raises(FileNotFoundError):
        S.safe_open(tmp_path / "missing.safetensors")


@needs_reference
def test_safe_open_matches_the_reference(tmp_path):
    path = tmp_path / "m.safetensors"
    st_torch.save_file(
        {
            "a": torch.ones(2),
            "c": torch.zeros(3, dtype=torch.float64),
            "b": torch.arange(4, dtype=torch.int8),
        },
        path,
    )
    with S.safe_open(path) as ours, _st.safe_open(path, "pt") as theirs:
        assert ours.keys() == theirs.keys() and ours.offset_keys() == theirs.offset_keys()
        assert ours.metadata() == theirs.metadata()
        for k in theirs.keys():
            assert ours.get_slice(k).get_dtype() == theirs.get_slice(k).get_dtype()
            assert torch.equal(torch.from_numpy(ours.get_tensor(k).numpy()), theirs.get_tensor(k))


def test_format_detection():
    assert S.looks_like_safetensors(S.save_bytes({"a": ember.ones(1)})[:16])
    assert S.looks_like_safetensors(S.save_bytes({})[:9])
    assert not S.looks_like_safetensors(b"PK\x03\x04" + b"\0" * 12)  # torch's zip format
    assert not S.looks_like_safetensors(b"\x80\x02\x8a\nl\xfc\x9cF\xf9 j\xa8")  # legacy pickle
    assert not S.looks_like_safetensors(b"\x08\0\0\0")


def test_a_module_state_dict_round_trips():
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4))
    sd = model.state_dict()
    out = S.load_bytes(S.save_bytes(sd))
    assert set(out) == set(sd)
    for k, v in sd.items():
        _same(out[k], v.numpy())
    model.load_state_dict(out)
