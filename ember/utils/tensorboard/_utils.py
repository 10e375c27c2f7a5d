"""Arrays for the writer: tensors and numbers to NumPy (``make_np``), images to HWC
(``convert_to_HWC``, ``make_grid``), matplotlib figures to pixels, and PNG encoding."""

from __future__ import annotations

import math
import struct
import zlib

from ember import backend

_xp = backend.for_device("cpu")


def make_np(x):
    """A NumPy array of ``x``: an array as is, a number as a 1-element array, an ember tensor
    detached and on the CPU.

    Example:
        >>> make_np(3.0).tolist(), make_np(ember.tensor([[1, 2]])).shape
        ([3.0], (1, 2))
    """
    from ember.tensor import Tensor

    if isinstance(x, _xp.ndarray):
        return x
    if _xp.isscalar(x):
        return _xp.array([x])
    if isinstance(x, Tensor):
        if x.device.type == "meta":
            raise ValueError(
                f"cannot log a meta tensor (shape {tuple(x.shape)}): it holds no values; "
                "log a CPU tensor instead"
            )
        array = x.detach().cpu().numpy()
        if array.dtype.kind == "V":  # ml_dtypes' bfloat16/float8: exact in float32
            # NOTE: differs from torch: torch goes bfloat16 -> float16, which overflows past
            # 65504 and loses small values; float32 holds every bfloat16 exactly.
            array = array.astype(_xp.float32)
        return array
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def make_grid(images, ncols: int = 8):
    """N images (N1HW or N3HW) tiled ``ncols`` to a row into one 3HW canvas, left to right,
    top to bottom, the last row padded with zeros."""
    if not isinstance(images, _xp.ndarray):
        raise AssertionError("plugin error, should pass numpy array here")
    if images.shape[1] == 1:
        images = _xp.concatenate([images] * 3, 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = math.ceil(n / ncols)
    canvas = _xp.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h : (y + 1) * h, x * w : (x + 1) * w] = images[i]
    return canvas


def convert_to_HWC(tensor, input_format: str):  # noqa: N802 - torch's name
    """An image array in ``input_format`` (``NCHW``, ``HWC``, ``CHW``, ``HW``... any order) as
    HWC with 3 (or 4) channels: a batch becomes a grid, gray becomes RGB."""
    if len(set(input_format)) != len(input_format):
        raise AssertionError(
            f"You can not use the same dimension shorthand twice. input_format: {input_format}"
        )
    if len(tensor.shape) != len(input_format):
        raise AssertionError(
            "size of input tensor and input format are different. "
            f"tensor shape: {tensor.shape}, input_format: {input_format}"
        )
    fmt = input_format.upper()
    if len(fmt) == 4:
        grid = make_grid(tensor.transpose([fmt.find(c) for c in "NCHW"]))
        return grid.transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = tensor.transpose([fmt.find(c) for c in "HWC"])
        return _xp.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        return _xp.stack([tensor.transpose([fmt.find(c) for c in "HW"])] * 3, 2)
    raise AssertionError(f"input_format must have 2, 3 or 4 letters, got {input_format!r}")


def figure_to_image(figures, close: bool = True):
    """A matplotlib figure as a CHW uint8 array (a list of figures: NCHW), rendered by Agg."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure):
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        w, h = figure.canvas.get_width_height()
        rgba = _xp.frombuffer(canvas.buffer_rgba(), dtype=_xp.uint8).reshape(h, w, 4)
        if close:
            plt.close(figure)
        return _xp.moveaxis(rgba[:, :, :3], 2, 0)

    if isinstance(figures, list):
        return _xp.stack([render(f) for f in figures])
    return render(figures)


def encode_png(hwc) -> bytes:
    """PNG bytes of an HWC uint8 array (1, 3 or 4 channels): PIL's encoder where installed, as
    torch uses, else a plain zlib one (TensorBoard only needs a valid PNG)."""
    try:
        from PIL import Image
    except ImportError:
        return _png_with_zlib(hwc)
    import io

    image = Image.fromarray(hwc[:, :, 0] if hwc.shape[2] == 1 else hwc)
    with io.BytesIO() as out:
        image.save(out, format="PNG")
        return out.getvalue()


def _png_with_zlib(hwc) -> bytes:
    """A PNG of 8-bit gray, RGB or RGBA pixels: signature, IHDR, one IDAT, IEND, each row
    prefixed by filter type 0 (none)."""
    h, w, c = hwc.shape
    color_type = {1: 0, 3: 2, 4: 6}.get(c)
    if color_type is None:
        raise ValueError(f"a PNG image has 1, 3 or 4 channels, got an image of shape {hwc.shape}")
    rows = _xp.ascontiguousarray(hwc, dtype=_xp.uint8).reshape(h, w * c)
    raw = _xp.concatenate([_xp.zeros((h, 1), _xp.uint8), rows], 1).tobytes()

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )
