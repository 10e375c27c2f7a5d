"""``ember.utils.tensorboard`` (PyTorch's ``torch.utils.tensorboard``): ``SummaryWriter`` logs
scalars, histograms, images, figures, text, hyperparameters, embeddings and PR curves for
TensorBoard.

It writes through the ``tensorboard`` package's own protobufs and event file writer, an
optional extra (``pip install ember[tensorboard]``, or ``pip install tensorboard``); importing
this module without it raises the ``ModuleNotFoundError`` torch's does.

Example:
    >>> import tempfile
    >>> from ember.utils.tensorboard import SummaryWriter
    >>> with SummaryWriter(tempfile.mkdtemp()) as writer:
    ...     writer.add_scalar("loss", 0.5, global_step=0)
"""

import tensorboard


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        digits = "".join(c for c in piece if c.isdigit()) if piece[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


if not hasattr(tensorboard, "__version__") or _version(tensorboard.__version__) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from ember.utils.tensorboard.writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
