"""``python -m ember.demo``: train a small convolutional network on handwritten digits.

The data is the UCI optical recognition of handwritten digits set (1,797 images of 8x8 pixels,
values 0..16; E. Alpaydin and C. Kaynak, CC BY 4.0, see ``DIGITS_LICENSE.md``), shipped inside
ember as ``digits.csv.gz``, so the demo needs no download. A fixed 360-image test set is held
out; the rest trains ``DigitsCNN`` with Adam and a one-cycle learning rate through a
``DataLoader``. The run prints the model's summary and one line per epoch, then writes into
``--out`` (default ``./ember-demo``) the checkpoint in PyTorch's format (``digits_cnn.pt``, which
``torch.load`` reads), a training-curve PNG and a PNG grid of test digits with their predicted
labels, mistakes in red (the PNGs need matplotlib; ``pip install -e ".[demo]"`` installs it
and tqdm). It then reloads the checkpoint into a fresh model and checks that the predictions
are identical.

Example:
    >>> images, labels = load_digits()
    >>> images.shape, images.dtype, labels[:10].tolist()
    (ember.Size([1797, 1, 8, 8]), ember.float32, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    >>> DigitsCNN()(images[:4]).shape
    ember.Size([4, 10])
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
from pathlib import Path

import ember
import ember.backend.cpu as xp
from ember import nn
from ember.utils.data import DataLoader, TensorDataset

__all__ = ["DigitsCNN", "load_digits", "main"]

DATA = Path(__file__).with_name("digits.csv.gz")
CHECKPOINT = "digits_cnn.pt"
CURVES = "training_curves.png"
PREDICTIONS = "test_predictions.png"
TEST_SIZE = 360  # 20% of 1,797
SPLIT_SEED = 20240610  # the split is fixed whatever --seed is, so runs compare on the same test set


def load_digits(path: str | os.PathLike | None = None) -> tuple[ember.Tensor, ember.Tensor]:
    """The digits images and labels from the shipped ``digits.csv.gz``.

    Each of the file's 1,797 rows is 64 pixel counts (0..16, row by row) and the label.

    Args:
        path: another file in the same format (default: the one shipped with ember).

    Returns:
        ``(images, labels)``: float32 images of shape ``(1797, 1, 8, 8)`` scaled to [0, 1] and
        int64 labels 0..9.

    Example:
        >>> images, labels = load_digits()
        >>> float(images.max()), (labels == 0).sum().item()
        (1.0, 178)
    """
    with gzip.open(DATA if path is None else path, "rt") as f:
        rows = xp.loadtxt(f, delimiter=",", dtype=xp.float32, ndmin=2)
    if rows.shape[1] != 65:
        raise ValueError(
            f"load_digits(): expected 65 columns (64 pixels and a label), "
            f"got {rows.shape[1]} in {path}"
        )
    images = ember.from_numpy(xp.ascontiguousarray(rows[:, :64].reshape(-1, 1, 8, 8) / 16.0))
    labels = ember.from_numpy(rows[:, 64].astype(xp.int64))
    return images, labels


class DigitsCNN(nn.Module):
    """Two 3x3 convolutions, a 2x2 max pool and a linear classifier: 9,930 parameters.

    Input ``(N, 1, 8, 8)``, output ``(N, 10)`` logits.

    Example:
        >>> model = DigitsCNN()
        >>> sum(p.numel() for p in model.parameters())
        9930
    """

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 10))

    def forward(self, x: ember.Tensor) -> ember.Tensor:
        return self.classifier(self.features(x))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ember.demo",
        description="Train a small CNN on the UCI handwritten digits (shipped with ember), "
        "print its progress and write a checkpoint and two pictures.",
        epilog="Files written into --out: digits_cnn.pt (the state_dict; ember.load or "
        "torch.load read it), training_curves.png and test_predictions.png (with "
        "matplotlib installed). pip install -e '.[demo]' adds tqdm and matplotlib.",
    )
    parser.add_argument(
        "--epochs",
        type=_positive_int,
        default=10,
        help="passes over the 1,437 training images (default: 10)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the initial weights and the shuffling; the same seed "
        "gives the same numbers (default: 0)",
    )
    parser.add_argument(
        "--out",
        default="ember-demo",
        metavar="DIR",
        help="folder for the checkpoint and pictures, created if needed (default: ./ember-demo)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="where to train: 'cpu' (default), or 'cuda' where ember has a "
        "GPU backend (CuPy) and a GPU",
    )
    return parser


def _positive_int(text: str) -> int:
    value = int(text)  # argparse turns the ValueError into "invalid _positive_int value"
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _device(parser: argparse.ArgumentParser, name: str) -> ember.device:
    try:
        device = ember.device(name)
    except (RuntimeError, ValueError) as e:
        parser.error(f"argument --device: {e}")
    if device.type == "meta":
        parser.error(
            "argument --device: 'meta' tensors have shapes but no values, so "
            "nothing can train there; use --device cpu"
        )
    if device.type == "cuda" and not ember.cuda.is_available():
        parser.error(
            f"argument --device: {name!r} is not available here (no CuPy or no GPU); "
            f"use --device cpu"
        )
    return device


def _split(n: int) -> tuple[ember.Tensor, ember.Tensor]:
    order = ember.randperm(n, generator=ember.Generator().manual_seed(SPLIT_SEED))
    return order[TEST_SIZE:], order[:TEST_SIZE]


def _progress_bar():
    """tqdm's class when stdout is a terminal and tqdm is installed, else None (plain lines:
    a bar's carriage returns would make one long line of a log file)."""
    if not sys.stdout.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


def _predict(model: nn.Module, images: ember.Tensor) -> ember.Tensor:
    model.eval()
    with ember.no_grad():
        return model(images)


def _matplotlib_figure():
    """matplotlib's Figure, drawn by the Agg canvas (no window, no global backend change)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    return Figure


def _plot_curves(Figure, history: dict, path: Path) -> None:
    epochs = range(1, len(history["loss"]) + 1)
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    loss_ax, acc_ax = fig.subplots(1, 2)
    loss_ax.plot(epochs, history["loss"], marker="o")
    loss_ax.set(title="training loss", xlabel="epoch", ylabel="cross-entropy", yscale="log")
    acc_ax.plot(epochs, [100 * a for a in history["train_acc"]], marker="o", label="train")
    acc_ax.plot(epochs, [100 * a for a in history["test_acc"]], marker="o", label="test")
    acc_ax.set(title="accuracy", xlabel="epoch", ylabel="%")
    acc_ax.legend()
    for ax in (loss_ax, acc_ax):
        ax.grid(alpha=0.3)
        ax.xaxis.get_major_locator().set_params(integer=True)
    fig.savefig(path, dpi=100)


def _plot_predictions(
    Figure, images, labels, predicted, path: Path, rows: int = 6, cols: int = 10
) -> None:
    from matplotlib.patches import Rectangle

    # mistakes first, so the grid shows them all (up to its size), then correct ones in order
    wrong = (predicted != labels).nonzero().flatten().tolist()
    right = (predicted == labels).nonzero().flatten().tolist()
    shown = (wrong + right)[: rows * cols]
    # one image of all the tiles (a cell: 8x8 pixels, a margin and room for the label above)
    # draws in a fraction of the time of one axes per digit
    cell_w, cell_h = 10, 12
    pixels = images[shown, 0].numpy()
    canvas = xp.zeros((rows * cell_h, cols * cell_w), dtype=pixels.dtype)
    fig = Figure(figsize=(cols * 0.8, rows * 0.95 + 0.3))
    ax = fig.add_axes((0, 0, 1, 1 - 0.3 / (rows * 0.95 + 0.3)))
    for k, i in enumerate(shown):
        top, left = (k // cols) * cell_h + 3, (k % cols) * cell_w + 1
        canvas[top : top + 8, left : left + 8] = pixels[k]
        pred, true = int(predicted[i]), int(labels[i])
        wrong_one = pred != true
        ax.text(
            left + 4,
            top - 0.8,
            f"{pred} (not {true})" if wrong_one else str(pred),
            ha="center",
            va="bottom",
            fontsize=9 if wrong_one else 10,
            color="red" if wrong_one else "black",
        )
        ax.add_patch(
            Rectangle(
                (left - 0.5, top - 0.5),
                8,
                8,
                fill=False,
                edgecolor="red" if wrong_one else "0.7",
                linewidth=2.5 if wrong_one else 0.8,
            )
        )
    ax.imshow(canvas, cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
    ax.set_axis_off()
    fig.suptitle(
        f"test digits with predicted labels: {len(wrong)} mistakes of {len(labels)} "
        f"(in red, shown first, with the true label)",
        fontsize=11,
        y=0.995,
    )
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    """Run the demo with command-line arguments ``argv`` (default ``sys.argv[1:]``).

    Returns:
        The exit status: 0, or 1 if the reloaded checkpoint predicts differently.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    device = _device(parser, args.device)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"argument --out: {str(out)!r} is a file, not a folder")
    start = time.perf_counter()

    images, labels = load_digits()
    train_idx, test_idx = _split(len(labels))
    x_train, y_train = images[train_idx].to(device), labels[train_idx].to(device)
    x_test, y_test = images[test_idx].to(device), labels[test_idx].to(device)
    print(
        f"UCI handwritten digits: {len(y_train)} training and {len(y_test)} test images of "
        f"8x8 pixels (shipped with ember, CC BY 4.0)"
    )

    ember.manual_seed(args.seed)
    model = DigitsCNN().to(device)
    print(ember.summary(model, input_size=(1, 1, 8, 8)))
    loader = DataLoader(
        TensorDataset(x_train, y_train),
        batch_size=32,
        shuffle=True,
        generator=ember.Generator().manual_seed(args.seed),
    )
    optimizer = ember.optim.Adam(model.parameters(), lr=0.01)
    # one-cycle: a short warm-up, then annealing, so 10 epochs are enough
    scheduler = ember.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=0.01, epochs=args.epochs, steps_per_epoch=len(loader)
    )
    loss_fn = nn.CrossEntropyLoss()

    tqdm = _progress_bar()
    if tqdm is None and sys.stdout.isatty():
        print("(tqdm is not installed: one line per epoch, no progress bar)")
    history: dict[str, list[float]] = {"loss": [], "train_acc": [], "test_acc": []}
    width = len(str(args.epochs))
    for epoch in range(1, args.epochs + 1):
        epoch_start = time.perf_counter()
        model.train()
        bar = (
            None
            if tqdm is None
            else tqdm(
                loader,
                desc=f"epoch {epoch:>{width}}/{args.epochs}",
                unit="batch",
                leave=False,
                dynamic_ncols=True,
                file=sys.stdout,
            )
        )
        total_loss, correct, seen = 0.0, 0, 0
        for step, (x, y) in enumerate(bar if bar is not None else loader):
            logits = model(x)
            loss = loss_fn(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            total_loss += loss.item() * len(y)
            correct += int((logits.argmax(1) == y).sum())
            seen += len(y)
            if bar is not None and step % 5 == 0:
                bar.set_postfix(loss=f"{total_loss / seen:.4f}", refresh=False)
        if bar is not None:
            bar.close()
        test_acc = float((_predict(model, x_test).argmax(1) == y_test).float().mean())
        history["loss"].append(total_loss / seen)
        history["train_acc"].append(correct / seen)
        history["test_acc"].append(test_acc)
        print(
            f"epoch {epoch:>{width}}/{args.epochs}  loss {total_loss / seen:.4f}  "
            f"train acc {100 * correct / seen:6.2f}%  test acc {100 * test_acc:6.2f}%  "
            f"{time.perf_counter() - epoch_start:.1f} s",
            flush=True,
        )

    logits = _predict(model, x_test)
    predicted = logits.argmax(1)
    n_right = int((predicted == y_test).sum())
    epochs = f"{args.epochs} epoch{'s' if args.epochs > 1 else ''}"
    print(
        f"test accuracy {100 * n_right / len(y_test):.2f}% ({n_right}/{len(y_test)}) after "
        f"{epochs}, {time.perf_counter() - start:.1f} s"
    )

    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / CHECKPOINT
    ember.save(model.state_dict(), checkpoint)
    print(
        f"wrote {checkpoint} (the state_dict in PyTorch's format: ember.load or torch.load read it)"
    )
    Figure = _matplotlib_figure()
    if Figure is None:
        print(
            f"matplotlib is not installed: skipped {CURVES} and {PREDICTIONS} "
            f"(pip install matplotlib, or pip install -e '.[demo]')"
        )
    else:
        _plot_curves(Figure, history, out / CURVES)
        print(f"wrote {out / CURVES} (loss and accuracy per epoch)")
        _plot_predictions(Figure, x_test.cpu(), y_test.cpu(), predicted.cpu(), out / PREDICTIONS)
        print(f"wrote {out / PREDICTIONS} (test digits with predicted labels, mistakes in red)")

    fresh = DigitsCNN().to(device)
    fresh.load_state_dict(ember.load(checkpoint, map_location=device))
    reloaded = _predict(fresh, x_test)
    if not ember.equal(reloaded.argmax(1), predicted):
        print(f"reloaded {checkpoint} into a fresh DigitsCNN: predictions DIFFER", file=sys.stderr)
        return 1
    same = "identical logits" if ember.equal(reloaded, logits) else "identical predictions"
    print(f"reloaded {checkpoint} into a fresh DigitsCNN: {same} on all {len(y_test)} test digits")
    return 0
