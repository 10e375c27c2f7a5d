"""Fuzzing ember.load with damaged real checkpoints (hypothesis).

Every mutation (flipped bytes, truncations, inserted or deleted runs) of an ember- or
torch-written checkpoint, zip or legacy, must end in a clean error of the documented types
(RuntimeError, pickle.UnpicklingError, ValueError) or in a load whose tensors can be read
safely, never a hang, a crash or a stray exception type. Because the zip reader checks the
CRC of data.pkl, one strategy re-zips a mutated data.pkl with a valid CRC so that the
mutations reach the unpickler itself.
"""

from __future__ import annotations

import io
import zipfile
from collections import OrderedDict
from pickle import UnpicklingError

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember
from ember.serialization._zip import ZipWriter

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

CLEAN = (RuntimeError, UnpicklingError, ValueError)
FUZZ = settings(
    max_examples=250,
    deadline=2000,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _ember_checkpoint() -> bytes:
    ember.manual_seed(0)
    base = ember.arange(12.0)
    net = ember.nn.Linear(3, 2)
    obj = {
        "model": net.state_dict(),
        "views": [base, base.view(3, 4), base[1::2]],
        "p": ember.nn.Parameter(ember.ones(2)),
        "i": ember.tensor([1, 2], dtype=ember.int16),
        "meta": OrderedDict(step=3, name="x", flag=None, lr=0.1),
    }
    buf = io.BytesIO()
    ember.save(obj, buf)
    return buf.getvalue()


def _torch_checkpoints() -> dict[str, bytes]:
    if torch is None:
        return {}
    torch.manual_seed(0)
    base = torch.arange(12.0)
    obj = {
        "model": torch.nn.Linear(3, 2).state_dict(),
        "views": [base, base.view(3, 4), base[1::2]],
        "p": torch.nn.Parameter(torch.ones(2)),
        "i": torch.tensor([1, 2], dtype=torch.int16),
        "meta": OrderedDict(step=3, lr=0.1),
    }
    out = {}
    for name, new in (("torch_zip", True), ("torch_legacy", False)):
        buf = io.BytesIO()
        torch.save(obj, buf, _use_new_zipfile_serialization=new)
        out[name] = buf.getvalue()
    return out


CORPUS = {"ember_zip": _ember_checkpoint(), **_torch_checkpoints()}
NAMES = sorted(CORPUS)


def _check_load(data: bytes) -> None:
    """Load ``data``; a clean error is fine, a load must give tensors that can be read."""
    try:
        obj = ember.load(io.BytesIO(data))
    except CLEAN:
        return
    stack = [obj]
    seen = 0
    while stack and seen < 10_000:
        o = stack.pop()
        seen += 1
        if isinstance(o, ember.Tensor):
            if o.device.type == "cpu" and o.numel() <= 1_000_000:
                o.numpy(force=True).tobytes()  # every element in bounds of real memory
        elif isinstance(o, dict):
            stack.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)


def _mutate(data: bytes, edits) -> bytes:
    out = bytearray(data)
    for kind, where, value in edits:
        if not out:
            break
        pos = where % len(out)
        if kind == "set":
            out[pos] = value
        elif kind == "flip":
            out[pos] ^= 1 << (value % 8)
        elif kind == "insert":
            out[pos:pos] = bytes([value]) * (1 + value % 7)
        else:  # delete a run
            del out[pos : pos + 1 + value % 9]
    return bytes(out)


EDITS = st.lists(
    st.tuples(
        st.sampled_from(["set", "flip", "insert", "delete"]),
        st.integers(0, 1 << 20),
        st.integers(0, 255),
    ),
    min_size=1,
    max_size=6,
)


@FUZZ
@given(name=st.sampled_from(NAMES), edits=EDITS)
def test_byte_mutations(name, edits):
    _check_load(_mutate(CORPUS[name], edits))


@FUZZ
@given(name=st.sampled_from(NAMES), frac=st.floats(0.0, 1.0))
def test_truncations(name, frac):
    data = CORPUS[name]
    _check_load(data[: int(len(data) * frac)])


def _rezip(data: bytes, edits) -> bytes:
    """The zip checkpoint with data.pkl mutated and every CRC right again."""
    z = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    zw = ZipWriter(out, "archive")
    for info in z.infolist():
        payload = z.read(info)
        name = info.filename.split("/", 1)[1]
        if name == "data.pkl":
            payload = _mutate(payload, edits)
        zw.write_record(name, payload)
    zw.finish()
    return out.getvalue()


ZIP_NAMES = [n for n in NAMES if n.endswith("_zip")]


@FUZZ
@given(name=st.sampled_from(ZIP_NAMES), edits=EDITS)
def test_pickle_mutations_behind_a_valid_crc(name, edits):
    _check_load(_rezip(CORPUS[name], edits))


@pytest.mark.parametrize("name", NAMES)
def test_the_corpus_itself_loads(name):
    obj = ember.load(io.BytesIO(CORPUS[name]))
    assert ember.equal(obj["views"][1], ember.arange(12.0).view(3, 4))
    assert obj["meta"]["step"] == 3
