"""The README's commands: ``python -m ember`` (the XOR tour) and ``python -m ember.demo`` (a CNN
on the shipped handwritten digits), run as a user runs them, in a subprocess."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest

import ember
from ember.demo import DigitsCNN, load_digits, main

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is the reference for this test (pip install torch)"
)
try:
    import matplotlib
except ImportError:  # pragma: no cover - the demo extra installs it
    matplotlib = None
try:
    import tqdm
except ImportError:  # pragma: no cover - the demo extra installs it
    tqdm = None

EPOCH_LINE = re.compile(
    r"^epoch +(\d+)/(\d+)  loss (\d+\.\d{4})  train acc +(\d+\.\d\d)%  "
    r"test acc +(\d+\.\d\d)%  (\d+\.\d) s$"
)
FINAL_LINE = re.compile(
    r"^test accuracy (\d+\.\d\d)% \((\d+)/360\) after (\d+) epochs?, "
    r"\d+\.\d s$"
)
RELOAD_LINE = "into a fresh DigitsCNN: identical logits on all 360 test digits"
# The GEMMs here are tiny: with other processes on the cores, OpenBLAS's worker threads spin
# and slow them several-fold (the results are the same either way).
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}


def _demo(*args, check=True, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "ember.demo", *map(str, args)],
        capture_output=True,
        text=True,
        check=check,
        timeout=timeout,
        env=ENV,
    )


def _without_times(out: str) -> list[str]:
    return [re.sub(r"\d+\.\d s$", "<time>", line) for line in out.splitlines()]


def _png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_xor_tour_runs_and_learns_xor():
    out = subprocess.run(
        [sys.executable, "-m", "ember"], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert "MLP(" in out and "(fc1): Linear(in_features=2, out_features=8, bias=True)" in out
    assert "predictions: [0.0, 1.0, 1.0, 0.0]" in out
    assert "python -m ember.demo" in out


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    """The default run (10 epochs, seed 0), as the README's command runs it."""
    out_dir = tmp_path_factory.mktemp("demo") / "ember-demo"
    return _demo("--out", out_dir).stdout, out_dir


def test_the_default_run_reaches_97_percent(full_run):
    out, _ = full_run
    epochs = [EPOCH_LINE.match(line) for line in out.splitlines() if line.startswith("epoch")]
    assert [m is not None for m in epochs] == [True] * 10, out
    assert [int(m[1]) for m in epochs] == list(range(1, 11))
    losses = [float(m[3]) for m in epochs]
    assert losses[-1] < losses[0] / 20, losses
    final = [FINAL_LINE.match(line) for line in out.splitlines() if FINAL_LINE.match(line)]
    assert len(final) == 1, out
    assert float(final[0][1]) >= 97.0 and int(final[0][3]) == 10
    # the last epoch line and the final line report the same model
    assert epochs[-1][5] == final[0][1]


def test_the_run_prints_the_data_and_the_model_summary(full_run):
    out, _ = full_run
    assert "1437 training and 360 test images" in out
    assert re.search(r"2 \(Conv2d\) +\[1, 32, 8, 8\] +4,640 ", out), out
    assert "Total params: 9,930" in out
    assert "\r" not in out  # not a terminal: plain lines, no progress bar


def test_the_checkpoint_is_a_state_dict_ember_loads(full_run):
    _, out_dir = full_run
    state = ember.load(out_dir / "digits_cnn.pt")
    reference = DigitsCNN().state_dict()
    assert list(state) == list(reference)
    assert {k: v.shape for k, v in state.items()} == {k: v.shape for k, v in reference.items()}
    model = DigitsCNN()
    model.load_state_dict(state)
    images, labels = load_digits()
    with ember.no_grad():
        accuracy = (model(images).argmax(1) == labels).float().mean().item()
    assert accuracy > 0.97  # trained weights, not a fresh model's (about 10%)


@needs_torch
def test_the_checkpoint_is_in_pytorchs_format(full_run):
    _, out_dir = full_run
    theirs = torch.load(out_dir / "digits_cnn.pt", weights_only=True)
    ours = ember.load(out_dir / "digits_cnn.pt")
    assert list(theirs) == list(ours)
    for key, value in ours.items():
        assert theirs[key].dtype == torch.float32
        assert torch.equal(theirs[key], torch.from_numpy(value.numpy())), key


def test_the_run_reloads_its_checkpoint_and_says_so(full_run):
    out, out_dir = full_run
    assert f"wrote {out_dir / 'digits_cnn.pt'}" in out
    assert out.splitlines()[-1] == f"reloaded {out_dir / 'digits_cnn.pt'} {RELOAD_LINE}"


@pytest.mark.skipif(matplotlib is None, reason="the pictures need matplotlib")
def test_the_run_draws_the_training_curves_and_the_predictions(full_run):
    out, out_dir = full_run
    for name in ("training_curves.png", "test_predictions.png"):
        assert f"wrote {out_dir / name}" in out
        width, height = _png_size(out_dir / name)
        assert width > 400 and height > 200


@pytest.fixture(scope="module")
def plain_runs(tmp_path_factory):
    """Short runs as without matplotlib and tqdm installed (faster, too): seed 3 twice, seed 4.

    None in sys.modules makes ``import matplotlib`` raise ImportError, as if not installed."""
    code = (
        "import sys; sys.modules['matplotlib'] = sys.modules['tqdm'] = None; "
        "from ember.demo import main; sys.exit(main(sys.argv[1:]))"
    )
    runs = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        out_dir = tmp_path_factory.mktemp("plain") / name
        runs.append(
            (
                subprocess.run(
                    [
                        sys.executable,
                        "-c",
                        code,
                        "--epochs",
                        "2",
                        "--seed",
                        str(seed),
                        "--out",
                        out_dir,
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                    timeout=120,
                    env=ENV,
                ).stdout,
                out_dir,
            )
        )
    return runs


def test_without_matplotlib_and_tqdm_the_run_says_what_it_skipped(plain_runs):
    out, out_dir = plain_runs[0]
    assert (
        "matplotlib is not installed: skipped training_curves.png and test_predictions.png" in out
    )
    assert sorted(p.name for p in out_dir.iterdir()) == ["digits_cnn.pt"]
    assert out.splitlines()[-1].endswith(RELOAD_LINE)


def test_same_seed_same_numbers(plain_runs):
    (first, first_dir), (again, again_dir), (other, _) = plain_runs
    assert _without_times(first.replace(str(first_dir), "OUT")) == _without_times(
        again.replace(str(again_dir), "OUT")
    )
    epochs = [line for line in _without_times(first) if line.startswith("epoch")]
    assert len(epochs) == 2
    assert epochs != [line for line in _without_times(other) if line.startswith("epoch")]
    weights = [
        ember.load(d / "digits_cnn.pt")["classifier.1.weight"] for d in (first_dir, again_dir)
    ]
    assert weights[0].equal(weights[1])


@pytest.mark.skipif(tqdm is None, reason="the progress bar needs tqdm")
def test_in_a_terminal_tqdm_shows_a_progress_bar(tmp_path):
    leader, follower = pty.openpty()
    # a new terminal is 0 columns wide until told otherwise: say 100x30, as a window's
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ember.demo", "--epochs", "2", "--out", tmp_path],
        stdout=follower,
        stderr=follower,
        env=ENV,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=120) == 0
    out = b"".join(chunks).decode()
    assert re.search(r"epoch 1/2: +\d+%\|", out), out  # tqdm's bar, described by epoch
    assert "batch/s" in out or "s/batch" in out
    # what the terminal shows: on each line, the text after the last carriage return
    shown = [line.rstrip("\r").rsplit("\r", 1)[-1] for line in out.split("\n")]
    assert sum(bool(EPOCH_LINE.match(line)) for line in shown) == 2, out
    assert "(tqdm is not installed" not in out


def test_help_explains_the_flags(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m ember.demo")
    for flag in ("--epochs", "--seed", "--out", "--device"):
        assert flag in out
    assert "./ember-demo" in out and "digits_cnn.pt" in out


def test_a_bad_flag_exits_with_status_2_and_argparses_error(tmp_path):
    result = _demo("--bogus", "--out", tmp_path / "never", check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: python -m ember.demo")
    assert result.stderr.endswith("error: unrecognized arguments: --bogus\n")
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--epochs", "ten"], "error: argument --epochs: invalid _positive_int value: 'ten'"),
        (["--epochs", "0"], "error: argument --epochs: must be at least 1, got 0"),
        (["--seed", "1.5"], "error: argument --seed: invalid int value: '1.5'"),
        (["--device", "gpu"], "error: argument --device: Expected one of cpu, cuda, meta"),
        (
            ["--device", "meta"],
            "error: argument --device: 'meta' tensors have shapes but no values",
        ),
        pytest.param(
            ["--device", "cuda"],
            "error: argument --device: 'cuda' is not available here",
            marks=pytest.mark.skipif(ember.cuda.is_available(), reason="a GPU is here"),
        ),
        (["--out", __file__], f"error: argument --out: {__file__!r} is a file, not a folder"),
    ],
)
def test_a_bad_value_gets_argparses_error(args, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*args] if "--out" in args else [*args, "--out", str(tmp_path / "never")])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("usage: python -m ember.demo")
    assert message in captured.err, captured.err
    assert captured.out == "" and not (tmp_path / "never").exists()
