"""ember.utils.tensorboard: what SummaryWriter writes, read back with TensorBoard's own event
readers (values, tags, steps, decoded images, hparams, embedding files), and the same calls on
torch's SummaryWriter writing the same records."""

from __future__ import annotations

import glob
import io
import os
import re
import socket
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip(
    "tensorboard",
    reason="ember.utils.tensorboard needs the tensorboard package (pip install "
    "tensorboard, or the project's tensorboard extra)",
)

from tensorboard.backend.event_processing import event_accumulator, event_file_loader  # noqa: E402

import ember  # noqa: E402
from ember.utils.tensorboard import SummaryWriter, _utils  # noqa: E402

try:
    import torch
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
except ImportError:
    torch = TorchWriter = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch (pip install torch)")
PIL = pytest.importorskip("PIL.Image", reason="decoding the PNGs needs Pillow")

RNG = np.random.default_rng(0)
DATA = RNG.standard_normal(200).astype(np.float32)
IMG = RNG.random((3, 6, 7)).astype(np.float32)


def _events(log_dir) -> list:
    """Every event in every event file under ``log_dir`` (file-version headers left out), as
    (sub-directory, event)."""
    out = []
    for path in sorted(glob.glob(os.path.join(log_dir, "**", "events.out.*"), recursive=True)):
        run = os.path.relpath(os.path.dirname(path), log_dir)
        for event in event_file_loader.LegacyEventFileLoader(path).Load():
            if not event.HasField("file_version"):
                out.append((run, event))
    return out


def _accumulate(log_dir):
    acc = event_accumulator.EventAccumulator(
        str(log_dir), size_guidance={k: 0 for k in event_accumulator.DEFAULT_SIZE_GUIDANCE}
    )
    return acc.Reload()


def _decode(encoded: bytes):
    return np.asarray(PIL.open(io.BytesIO(encoded)))


# ---- scalars -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", [0.25, 3, np.float64(0.25), np.array([0.25]), ember.tensor(0.25), ember.tensor([3])]
)
def test_scalar_values_and_steps_read_back(tmp_path, value):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalar("train/loss", value, step)
    acc = _accumulate(tmp_path)
    assert acc.Tags()["scalars"] == ["train/loss"]
    got = [(e.step, e.value) for e in acc.Scalars("train/loss")]
    assert got == [(s, float(np.asarray(value).reshape(-1)[0])) for s in range(3)]


@pytest.mark.parametrize("double", [False, True])
def test_new_style_scalar_is_a_tensor_for_the_scalars_plugin(tmp_path, double):
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("x", 0.1, 5, walltime=12.5, new_style=True, double_precision=double)
    [(_, event)] = _events(tmp_path)
    value = event.summary.value[0]
    assert (event.step, event.wall_time, value.tag) == (5, 12.5, "x")
    assert value.metadata.plugin_data.plugin_name == "scalars"
    if double:
        assert value.tensor.dtype == 2 and list(value.tensor.double_val) == [0.1]  # DT_DOUBLE
    else:
        assert value.tensor.dtype == 1 and value.tensor.float_val[0] == np.float32(0.1)


def test_a_scalar_must_be_one_value(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(AssertionError, match="one element"):
        w.add_scalar("x", ember.ones(2), 0)
    with pytest.raises(NotImplementedError, match="numpy array or torch tensor"):
        _utils.make_np([1.0])


def test_add_scalars_writes_one_sub_run_per_tag(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(2):
            w.add_scalars("run/loss", {"train": step + 1.0, "val": ember.tensor(step * 2.0)}, step)
    runs = {}
    for run, event in _events(tmp_path):
        runs.setdefault(run, []).append((event.step, event.summary.value[0].tag))
        runs[run].append(event.summary.value[0].simple_value)
    assert runs == {
        "run_loss_train": [(0, "run/loss"), 1.0, (1, "run/loss"), 2.0],
        "run_loss_val": [(0, "run/loss"), 0.0, (1, "run/loss"), 2.0],
    }


# ---- histograms ----------------------------------------------------------------------------------
HIST_CASES = [
    ("tensorflow", None),
    ("tensorflow", 30),
    ("auto", None),
    (10, None),
    (10, 3),
    ([-1.0, 0.0, 0.5, 1.0], None),
]


@pytest.mark.parametrize("bins,max_bins", HIST_CASES)
def test_histogram_reads_back(tmp_path, bins, max_bins):
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("w", ember.tensor(DATA), 2, bins=bins, max_bins=max_bins)
    [h] = _accumulate(tmp_path).Histograms("w")
    v = h.histogram_value
    assert h.step == 2 and v.num == DATA.size
    assert (v.min, v.max) == (float(DATA.min()), float(DATA.max()))
    assert v.sum == pytest.approx(float(DATA.astype(float).sum()))
    assert v.sum_squares == pytest.approx(float((DATA.astype(float) ** 2).sum()))
    inside = DATA[(DATA >= bins[0]) & (DATA <= bins[-1])] if isinstance(bins, list) else DATA
    assert sum(v.bucket) == inside.size and v.bucket[0] == 0  # the empty left bucket
    assert list(v.bucket_limit) == sorted(v.bucket_limit)
    if max_bins is not None:  # neighbours merged in groups of n // max_bins, plus the left one
        n = bins if isinstance(bins, int) else len(SummaryWriter(tmp_path).default_bins) - 1
        assert len(v.bucket) <= -(-n // (n // max_bins)) + 1 < n


@needs_torch
@pytest.mark.parametrize("bins,max_bins", HIST_CASES)
@pytest.mark.parametrize("kind", ["float32", "float64", "int64", "numpy"])
def test_histogram_buckets_match_torch(tmp_path, bins, max_bins, kind):
    data = (DATA * 3).astype(kind if kind != "numpy" else "float32")
    protos = []
    for lib, writer in ((ember, SummaryWriter), (torch, TorchWriter)):
        values = data if kind == "numpy" else lib.tensor(data)
        with writer(tmp_path / lib.__name__) as w:
            w.add_histogram("h", values, 0, bins=bins, max_bins=max_bins)
        protos.append(_events(tmp_path / lib.__name__)[0][1].summary.value[0].histo)
    assert protos[0] == protos[1]


def test_histogram_raw_and_its_checks(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_histogram_raw("r", 0, 3, 4, 6, 14, [1.0, 2.0, 3.0], [1, 1, 2], global_step=1)
        with pytest.raises(ValueError, match="bucket_limits"):
            w.add_histogram_raw("r", 0, 3, 4, 6, 14, [1.0, 2.0], [1, 1, 2])
        with pytest.raises(ValueError, match="no element"):
            w.add_histogram("e", ember.zeros(0))
    [h] = _accumulate(tmp_path).Histograms("r")
    assert (h.histogram_value.bucket_limit, h.histogram_value.bucket) == ([1, 2, 3], [1, 1, 2])


# ---- images --------------------------------------------------------------------------------------
def _expected_pixels(chw_float):
    return (chw_float * 255).clip(0, 255).astype(np.uint8).transpose(1, 2, 0)


IMAGE_CASES = [
    ("CHW", IMG, _expected_pixels(IMG)),
    ("HWC", IMG.transpose(1, 2, 0), _expected_pixels(IMG)),
    ("HW", IMG[0], _expected_pixels(np.stack([IMG[0]] * 3))),
    ("CHW", IMG[:1], _expected_pixels(np.stack([IMG[0]] * 3))),  # one channel: gray
    ("CHW", IMG * 2 - 0.5, _expected_pixels(IMG * 2 - 0.5)),  # out of [0, 1]: clipped
    ("CHW", (IMG * 255).astype(np.uint8), (IMG * 255).astype(np.uint8).transpose(1, 2, 0)),
]


@pytest.mark.parametrize("fmt,array,pixels", IMAGE_CASES)
@pytest.mark.parametrize("as_tensor", [True, False])
def test_images_decode_to_their_pixels(tmp_path, fmt, array, pixels, as_tensor):
    with SummaryWriter(tmp_path) as w:
        w.add_image("img", ember.tensor(array) if as_tensor else array, 3, dataformats=fmt)
    [im] = _accumulate(tmp_path).Images("img")
    assert (im.step, im.height, im.width) == (3, 6, 7)
    np.testing.assert_array_equal(_decode(im.encoded_image_string), pixels)


def test_add_images_tiles_a_batch_eight_to_a_row(tmp_path):
    batch = RNG.random((10, 3, 4, 5)).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_images("batch", ember.tensor(batch), 0)
        w.add_images("nhwc", batch.transpose(0, 2, 3, 1), 0, dataformats="NHWC")
    acc = _accumulate(tmp_path)
    for tag in ("batch", "nhwc"):
        [im] = acc.Images(tag)
        pixels = _decode(im.encoded_image_string)
        assert pixels.shape == (2 * 4, 8 * 5, 3)
        np.testing.assert_array_equal(pixels[4:8, 5:10], _expected_pixels(batch[9]))
        assert not pixels[4:, 10:].any()  # the rest of the last row is black


def test_the_zlib_png_encoder_decodes_as_pil_encodes():
    for channels in (1, 3, 4):
        hwc = RNG.integers(0, 256, (5, 9, channels), dtype=np.uint8)
        ours = _decode(_utils._png_with_zlib(hwc))
        np.testing.assert_array_equal(ours.reshape(5, 9, channels), hwc)


def test_add_figure_renders_the_figure(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=50)
    fig.patch.set_facecolor((1.0, 0.0, 0.0))
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 1)
    assert not plt.fignum_exists(fig.number)  # closed after rendering (close=True)
    [im] = _accumulate(tmp_path).Images("fig")
    pixels = _decode(im.encoded_image_string)
    assert pixels.shape == (50, 100, 3) and (pixels[0, 0] == [255, 0, 0]).all()


# ---- text, hparams, pr curves, custom scalars ----------------------------------------------------
def test_text_reads_back(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "**bold** ünïcode", 4)
    acc = _accumulate(tmp_path)
    [t] = acc.Tensors("notes/text_summary")
    assert t.step == 4 and t.tensor_proto.string_val == ["**bold** ünïcode".encode()]
    assert acc.summary_metadata["notes/text_summary"].plugin_data.plugin_name == "text"


def test_hparams_are_the_plugin_records(tmp_path):
    from tensorboard.plugins.hparams import metadata

    hp = {"lr": 0.01, "optimizer": "adam", "layers": 3, "dropout": ember.tensor(0.5), "x": None}
    with SummaryWriter(tmp_path) as w:
        w.add_hparams(
            hp,
            {"hparam/acc": 0.9},
            hparam_domain_discrete={"optimizer": ["adam", "sgd"]},
            run_name="trial",
        )
    events = _events(tmp_path)
    assert {run for run, _ in events} == {"trial"}
    by_tag = {e.summary.value[0].tag: e.summary.value[0] for _, e in events}
    exp = metadata.parse_experiment_plugin_data(
        by_tag[metadata.EXPERIMENT_TAG].metadata.plugin_data.content
    )
    assert [h.name for h in exp.hparam_infos] == ["lr", "optimizer", "layers", "dropout"]
    assert list(exp.hparam_infos[1].domain_discrete.values[1].string_value) == list("sgd")
    assert [m.name.tag for m in exp.metric_infos] == ["hparam/acc"]
    start = metadata.parse_session_start_info_plugin_data(
        by_tag[metadata.SESSION_START_INFO_TAG].metadata.plugin_data.content
    )
    assert start.hparams["lr"].number_value == 0.01
    assert start.hparams["optimizer"].string_value == "adam"
    assert start.hparams["dropout"].number_value == 0.5
    assert by_tag["hparam/acc"].simple_value == pytest.approx(0.9)
    with pytest.raises(TypeError, match="should be dictionary"):
        SummaryWriter(tmp_path).add_hparams([], {})


def test_pr_curve_counts(tmp_path):
    labels = np.array([1, 0, 1, 1, 0])
    predictions = np.array([0.9, 0.8, 0.3, 0.6, 0.1], dtype=np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_pr_curve("pr", ember.tensor(labels), ember.tensor(predictions), 0, num_thresholds=5)
    [t] = _accumulate(tmp_path).Tensors("pr")
    data = np.array(t.tensor_proto.float_val).reshape(6, 5)
    # threshold 0: every prediction is positive: tp 3, fp 2; threshold 0.75: tp 1, fp 1
    assert data[:2, 0].tolist() == [3, 2] and data[:2, 3].tolist() == [1, 1]
    assert data[4, 3] == 0.5 and data[5, 0] == 1.0  # precision, recall


@needs_torch
def test_every_record_matches_torch(tmp_path):
    """The same calls on both writers give the same events (wall times aside), the same
    embedding files and the same PNG bytes."""
    embed = RNG.standard_normal((4, 3)).astype(np.float32)
    sprites = RNG.random((4, 3, 5, 5)).astype(np.float32)

    def log(lib, writer):
        with writer(tmp_path / lib.__name__) as w:
            w.add_scalar("s", lib.tensor(1.5), 0)
            w.add_scalar("s", 2, 1, new_style=True)
            w.add_histogram("h", lib.tensor(DATA), 2)
            w.add_image("i", lib.tensor(IMG), 3)
            w.add_images("ib", lib.tensor(np.stack([IMG] * 3)), 3)
            w.add_text("t", "hello", 4)
            w.add_hparams({"lr": 0.1, "opt": "sgd", "flag": True}, {"m": 0.5}, run_name="hp")
            w.add_scalars("main/x", {"a": 1, "b": 2.5}, 5)
            w.add_pr_curve("pr", lib.tensor([0, 1, 1, 0]), lib.tensor([0.1, 0.9, 0.6, 0.4]), 6)
            w.add_custom_scalars_multilinechart(["s", "h"], title="both")
            w.add_custom_scalars_marginchart(["s", "lo", "hi"])
            w.add_audio("a", lib.tensor(np.sin(np.arange(100) / 5.0)), 7, sample_rate=8000)
            w.add_embedding(
                lib.tensor(embed), metadata=["a", "b", "c", "d"], label_img=lib.tensor(sprites)
            )
            w.add_embedding(
                embed,
                metadata=[[1, "x"], [2, "y"], [3, "z"], [4, "w"]],
                metadata_header=["n", "s"],
                global_step=3,
                tag="with/slash",
            )

    records = []
    for lib, writer in ((ember, SummaryWriter), (torch, TorchWriter)):
        log(lib, writer)
        events = []
        for run, event in _events(tmp_path / lib.__name__):
            event.wall_time = 0
            events.append((run, event))
        root = tmp_path / lib.__name__
        files = {
            str(p.relative_to(root)): p.read_bytes()
            for p in root.rglob("*")
            if p.is_file() and "events.out" not in p.name
        }
        records.append((events, files))
    assert len(records[0][0]) == 16
    for ours, theirs in zip(records[0][0], records[1][0], strict=True):
        assert ours == theirs
    assert (
        sorted(records[0][1])
        == sorted(records[1][1])
        == [
            "00000/default/metadata.tsv",
            "00000/default/sprite.png",
            "00000/default/tensors.tsv",
            "00003/with%2fslash/metadata.tsv",
            "00003/with%2fslash/tensors.tsv",
            "projector_config.pbtxt",
        ]
    )
    assert records[0][1] == records[1][1]


# ---- embeddings ----------------------------------------------------------------------------------
def test_embedding_files(tmp_path):
    mat = np.array([[0.5, 1.0], [2.0, -3.0], [0.1, 0.0]], dtype=np.float32)
    label_img = np.ones((3, 1, 2, 2), dtype=np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_embedding(ember.tensor(mat), metadata=[7, 8, 9], label_img=ember.tensor(label_img))
    folder = tmp_path / "00000" / "default"
    assert (folder / "tensors.tsv").read_text() == (
        "0.5\t1.0\n2.0\t-3.0\n0.10000000149011612\t0.0\n"  # float32 values, widened
    )
    assert (folder / "metadata.tsv").read_text() == "7\n8\n9\n"
    sprite = _decode((folder / "sprite.png").read_bytes())
    assert sprite.shape == (4, 4, 3)  # 2 x 2 grid of 2 x 2 images, square
    assert sprite[:2].min() == 255 and sprite[2:, 2:].max() == 0  # the unused slot is black
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "default:00000"' in config
    assert 'image_path: "00000/default/sprite.png"' in config
    assert "single_image_dim: 2" in config
    with pytest.raises(AssertionError, match="#labels"):
        SummaryWriter(tmp_path).add_embedding(mat, metadata=[1, 2], global_step=1)


# ---- the writer itself ---------------------------------------------------------------------------
def test_default_log_dir_is_torchs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    w.close()
    pattern = r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_" + re.escape(socket.gethostname())
    assert re.fullmatch(pattern + r"_lr0\.1", w.get_logdir())
    assert os.listdir(w.get_logdir())[0].startswith("events.out.tfevents.")


def test_purge_step_suffix_flush_close_and_reopen(tmp_path):
    w = SummaryWriter(tmp_path, purge_step=10, filename_suffix=".ember", flush_secs=1000)
    w.add_scalar("x", 1.0, 11)
    w.flush()
    [path] = glob.glob(str(tmp_path / "events.out.*"))
    assert path.endswith(".ember")
    events = [e for _, e in _events(tmp_path)]
    assert (events[0].step, events[0].session_log.status) == (10, 1)  # START at purge_step
    assert events[1].summary.value[0].simple_value == 1.0
    w.close()
    assert w.file_writer is None
    w.add_scalar("x", 2.0, 12)  # a closed writer opens a new file
    w.close()
    assert len(glob.glob(str(tmp_path / "events.out.*"))) == 2


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda w: w.add_graph(ember.nn.Linear(2, 2), ember.zeros(1, 2)), "ember.fx"),
        (lambda w: w.add_video("v", ember.zeros(1, 1, 3, 2, 2)), "add_images"),
        (lambda w: w.add_mesh("m", ember.zeros(1, 3, 3)), "not supported"),
    ],
)
def test_what_is_not_supported_says_why(tmp_path, call, match):
    with SummaryWriter(tmp_path) as w, pytest.raises(NotImplementedError, match=match):
        call(w)


def test_not_loaded_by_import_ember_and_reached_through_utils():
    code = (
        "import sys, ember; a = 'ember.utils.tensorboard' in sys.modules; "
        "w = ember.utils.tensorboard.SummaryWriter; print(a, w.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "ember.utils.tensorboard.writer"]


@needs_torch
def test_without_tensorboard_the_import_error_is_torchs():
    """With the tensorboard package hidden, both imports fail with the same error."""
    code = """
import sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "tensorboard":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Hide())
for mod in ("torch.utils.tensorboard", "ember.utils.tensorboard"):
    try:
        __import__(mod)
    except ImportError as e:
        print(type(e).__name__, e)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    theirs, ours = out.stdout.strip().splitlines()
    assert ours == theirs == "ModuleNotFoundError No module named 'tensorboard'"
