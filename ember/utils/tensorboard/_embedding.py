"""The projector plugin's files for ``SummaryWriter.add_embedding``: ``tensors.tsv`` (one
point a line), ``metadata.tsv`` (labels), ``sprite.png`` (the label images in a square grid)
and ``projector_config.pbtxt`` (where each embedding's files are). Paths go through
TensorBoard's ``gfile``, as torch's do, so remote log dirs work where TensorBoard's do."""

from __future__ import annotations

import math

from tensorboard.compat import tf
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

from ember.utils.tensorboard._utils import _xp, encode_png, make_grid, make_np


def _join(a: str, b: str) -> str:
    # TensorFlow's gfile has join(); TensorBoard's stub has it on the filesystem object.
    gfile = tf.io.gfile
    if hasattr(gfile, "join"):
        return gfile.join(a, b)
    return gfile.get_filesystem(a).join(a, b)


def _write(path: str, data: bytes) -> None:
    with tf.io.gfile.GFile(path, "wb") as f:
        f.write(data)


def make_tsv(metadata, save_path, metadata_header=None) -> None:
    """``metadata.tsv``: one label a line, or with a header, one tab-separated row a line."""
    if not metadata_header:
        lines = [str(x) for x in metadata]
    else:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [metadata_header, *metadata]]
    _write(_join(save_path, "metadata.tsv"), ("\n".join(lines) + "\n").encode())


def make_sprite(label_img, save_path) -> None:
    """``sprite.png``: the N label images (N1HW or N3HW in [0, 1]) in a grid of
    ceil(sqrt(N)) columns, on a square black canvas (the projector expects a square)."""
    images = make_np(label_img)
    grid = make_grid(images, ncols=math.ceil(images.shape[0] ** 0.5))  # 3HW
    side = grid.shape[2]
    square = _xp.zeros((side, side, 3))
    square[: grid.shape[1]] = grid.transpose(1, 2, 0)
    _write(_join(save_path, "sprite.png"), encode_png(_xp.uint8((square * 255).clip(0, 255))))


def get_embedding_info(metadata, label_img, subdir, global_step, tag) -> EmbeddingInfo:
    """The projector config entry of one embedding."""
    info = EmbeddingInfo()
    info.tensor_name = f"{tag}:{str(global_step).zfill(5)}"
    info.tensor_path = _join(subdir, "tensors.tsv")
    if metadata is not None:
        info.metadata_path = _join(subdir, "metadata.tsv")
    if label_img is not None:
        info.sprite.image_path = _join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])  # W, H
    return info


def write_pbtxt(save_path, contents: str) -> None:
    _write(_join(save_path, "projector_config.pbtxt"), contents.encode())


def make_mat(matlist, save_path) -> None:
    """``tensors.tsv``: one point a line, each value as Python prints the float (a float32
    value widened to float64, as torch writes it)."""
    lines = ["\t".join(str(v) for v in row) + "\n" for row in matlist.tolist()]
    _write(_join(save_path, "tensors.tsv"), "".join(lines).encode())
