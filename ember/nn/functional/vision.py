"""``ember.nn.functional``: Shape and resampling: pad, interpolate, upsample, pixel_shuffle,
pixel_unshuffle, channel_shuffle, grid_sample, affine_grid."""

from __future__ import annotations

import operator
import warnings

from ember import _autocast as _ac
from ember import _dtype, backend
from ember.ops import grid_sample as _grid
from ember.ops import vision as _vision
from ember.tensor import Tensor

__all__ = [
    "pad",
    "interpolate",
    "upsample",
    "upsample_nearest",
    "upsample_bilinear",
    "pixel_shuffle",
    "pixel_unshuffle",
    "channel_shuffle",
    "native_channel_shuffle",
    "grid_sample",
    "affine_grid",
]

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_tuple(pad) -> tuple:
    """``pad`` as a tuple of Python ints, with torch's TypeErrors for anything else."""
    if isinstance(pad, Tensor) or not isinstance(pad, (tuple, list)):
        raise TypeError(
            f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}"
        )
    out = []
    for i, p in enumerate(pad):
        if isinstance(p, bool) or isinstance(p, float):
            raise TypeError(
                f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                f"found element of type {type(p).__name__} at pos {i}"
            )
        try:
            out.append(operator.index(p) if not isinstance(p, Tensor) else int(p.item()))
        except TypeError:
            raise TypeError(
                f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                f"found element of type {type(p).__name__} at pos {i}"
            ) from None
    return tuple(out)


def _check_non_constant(x: Tensor, pairs: tuple, mode: str) -> None:
    """torch's checks for reflect/replicate/circular over ``k = len(pairs)`` dims."""
    ndim, k = x.dim(), len(pairs)
    shape = tuple(x.shape)
    if not 1 <= k <= 3 or ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {2 * k} is not supported for {ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    sizes = shape[ndim - k :]
    outs = [n + lo + hi for n, (lo, hi) in zip(sizes, pairs)]
    if mode == "circular":
        for n, (lo, hi) in zip(sizes, pairs):
            if lo > n or hi > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
        if any(o < 0 for o in outs):
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        for n, (lo, hi) in zip(sizes, pairs):
            kept = n - max(-lo, 0) - max(-hi, 0)
            if max(lo, 0) > kept or max(hi, 0) > kept:
                # deliberate difference: torch reads memory it has not written here
                raise RuntimeError(
                    f"pad(): circular padding {(lo, hi)} wraps around more than once what "
                    f"remains ({kept}) of a dimension of size {n} after cropping (input "
                    f"{list(shape)}); crop and pad in two calls instead"
                )
        return
    batched = ndim == k + 2
    if any(s == 0 for s in shape[1 if batched else 0 :]):
        raise RuntimeError(
            f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {list(shape)}"
        )
    if mode == "reflect":
        for j in range(k - 1, -1, -1):  # torch checks the last dim first
            lo, hi = pairs[j]
            if lo >= sizes[j] or hi >= sizes[j]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * (k - 1 - j)}: Padding size should be less than the "
                    f"corresponding input dimension, but got: padding ({lo}, {hi}) at "
                    f"dimension {ndim - k + j} of input {list(shape)}"
                )
    if any(o < 0 for o in outs):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(outs)}: "
            f"{list(shape[: ndim - k]) + outs}"
        )
    if all(o < 1 for o in outs):
        names = "DHW"[3 - k :]
        # NOTE: matches torch: its 2-d message has a space before the parenthesis
        gap = " " if k == 2 else ""
        raise RuntimeError(
            f"input ({', '.join(f'{a}: {n}' for a, n in zip(names, sizes))}{gap}) is too small. "
            f"Calculated output {' '.join(f'{a}: {o}' for a, o in zip(names, outs))}"
        )


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad ``input``: ``pad`` = ``(left, right)`` for the last dim, then ``(top, bottom)`` for
    the one before, and so on (negative values crop). ``mode``: ``'constant'`` (fill with
    ``value``, default 0, any rank), ``'reflect'`` (mirror without repeating the edge),
    ``'replicate'`` (repeat the edge), ``'circular'`` (wrap around); the last three pad 1, 2 or
    3 trailing dims of a (batched or unbatched) input.

    Example:
        >>> x = ember.tensor([[1.0, 2.0, 3.0]])
        >>> ember.nn.functional.pad(x, (2, 1), mode="reflect")
        tensor([[3., 2., 1., 2., 3., 2.]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"pad(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    p = _pad_tuple(pad)
    if _ac.on and (mode == "replicate" or mode == "reflect" and len(p) <= 4) and _ac.enabled():
        input = _ac.fp32(input)[0]  # autocast's float32 list (reflection/replication pads)
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(p) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    ndim = input.dim()
    if len(p) > 2 * ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input "
            f"dimension but got padding length {len(p)} and input of dimension "
            f"{ndim}"
        )
    # torch lists pads from the last dim backwards; the primitive takes them in dim order
    pairs = tuple((p[2 * i], p[2 * i + 1]) for i in range(len(p) // 2 - 1, -1, -1))
    if mode == "constant":
        shape = tuple(input.shape)
        for n, (lo, hi) in zip(shape[ndim - len(pairs) :], pairs):
            if n + min(lo, 0) + min(hi, 0) < 0:
                raise RuntimeError(
                    f"narrow(): length must be non-negative. (pad(): cropping {(-lo, -hi)} "
                    f"from a dimension of size {n} of input {list(shape)})"
                )
        if not pairs:
            return input.clone()
        value = 0 if value is None else value
        return _vision.pad_node("constant", len(pairs)).apply(input, pairs, mode, value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    _check_non_constant(input, pairs, mode)
    return _vision.pad_node(mode, len(pairs)).apply(input, pairs, mode, 0)


# ---- interpolate ------------------------------------------------------------------------------
_MODE_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_RESAMPLE_NODE = {
    "linear": "UpsampleLinear1DBackward0",
    "bilinear": "UpsampleBilinear2DBackward0",
    "trilinear": "UpsampleTrilinear3DBackward0",
    "bicubic": "UpsampleBicubic2DBackward0",
}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_integer(x) -> bool:
    if isinstance(x, Tensor):
        return not x.is_floating_point()
    return isinstance(x, (int, backend.cpu.integer))


def _sizes_message(names: str, sizes, outs) -> str:
    ins = ", ".join(f"{a}: {n}" for a, n in zip(names, sizes))
    out = ", ".join(f"{a}: {n}" for a, n in zip(names, outs))
    # NOTE: matches torch: the 1-d message says "and output", the others "output"
    return f"input ({ins}){' and' if len(names) == 1 else ''} output ({out})"


def interpolate(
    input: Tensor,
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial dims of a ``(N, C, *spatial)`` input (1, 2 or 3 spatial dims) to
    ``size`` or by ``scale_factor``, as ``torch.nn.functional.interpolate``.

    ``mode``: ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-D input), ``'bilinear'`` and
    ``'bicubic'`` (4-D), ``'trilinear'`` (5-D), ``'area'`` (adaptive average pooling). With
    ``scale_factor`` and no ``recompute_scale_factor`` the source coordinates use
    ``1 / scale_factor`` (not ``in / out``), as PyTorch. ``antialias=True`` (4-D input,
    ``'bilinear'``, ``'bicubic'`` or ``'lanczos'``, which requires it) widens the filter by the
    downscale factor, as PyTorch (float32/float64 inputs).

    Example:
        >>> x = ember.tensor([[[1.0, 2.0]]])
        >>> ember.nn.functional.interpolate(x, scale_factor=2, mode="linear")
        tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"interpolate(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating "
                "modes: linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales = None
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                    "size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(s) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] "
                    "or Tuple[int, int, int], but got size with types "
                    f"{[type(s) for s in size]}"
                )
            out_size = [int(s) for s in size]
        else:
            if not _is_integer(size):
                raise TypeError(
                    f"interpolate(): size must be an int or a tuple of ints, not "
                    f"{type(size).__name__}"
                )
            out_size = [int(size)] * max(dim, 0)
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {spatial} and scale_factor of shape "
                    f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    "format and scale_factor in (s1, s2, ...,sK) format."
                )
            scales = [float(s) for s in scale_factor]
        else:
            if isinstance(scale_factor, Tensor):
                raise TypeError(
                    "interpolate(): scale_factor must be a float or a tuple of floats, not Tensor"
                )
            scales = [float(scale_factor)] * max(dim, 0)
        # NOTE: matches torch: the size is the double product truncated (toward zero)
        out_size = [int(n * s) for n, s in zip(spatial, scales)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = None  # the kernels then use in / out
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
            "and requires a 4-D tensor as input"
        )
    rank = input.dim()
    if mode == "lanczos" and rank == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if (
        mode in ("linear", "bilinear", "trilinear")
        and rank in (3, 4, 5)
        and (_MODE_RANK[mode] != rank)
    ):
        raise NotImplementedError(
            f"Got {rank}D input, but {mode} mode needs {_MODE_RANK[mode]}D input"
        )
    if (
        rank not in (3, 4, 5)
        or mode not in ("nearest", "nearest-exact", "area", "lanczos", *_MODE_RANK)
        or _MODE_RANK.get(mode, rank) != rank
        or (mode == "lanczos" and rank != 4)
    ):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {rank}D) for the "
            f"modes: {_MODES} (got {mode})"
        )
    names = "DHW"[3 - dim :]
    if mode != "area":
        if any(n <= 0 for n in spatial) or any(o <= 0 for o in out_size):
            raise RuntimeError(
                "Input and output sizes should be greater than 0, but got "
                + _sizes_message(names, spatial, out_size)
            )
    if input.shape[1] == 0 or (mode != "area" and 0 in spatial):
        raise RuntimeError(
            f"Non-empty {rank}D data tensor expected but got a tensor with sizes "
            f"{list(input.shape)}"
        )
    scales = scales or [None] * dim
    if mode in ("nearest", "nearest-exact"):
        if input._data.dtype.kind == "c":  # NOTE: matches torch's kernel names
            kernel = "compute_indices_weights_nearest"
            if dim == 2:
                kernel = "upsample_nearest2d_channels_last"
            raise NotImplementedError(
                f"\"{kernel}\" not implemented for '{_TNAME[input._data.dtype.name]}'"
            )
        exact = mode == "nearest-exact"
        index = tuple(
            None if (o == n and not exact) else _vision.nearest_index(n, o, s, exact)
            for n, o, s in zip(spatial, out_size, scales)
        )
        name = f"Upsample{'NearestExact' if exact else 'Nearest'}{dim}DBackward0"
        return _vision.nearest_node(name).apply(input, index, tuple(spatial))
    if antialias:
        return _interpolate_aa(input, mode, spatial, out_size, align_corners, scales)
    if not input.is_floating_point():
        raise NotImplementedError(
            f'"{_RESAMPLE_NODE.get(mode, mode)}" not implemented for '
            f"'{input.dtype}': interpolate(mode={mode!r}) needs a "
            "floating-point input; call .float() first"
        )
    dtname = "float32" if input.dtype.itemsize <= 4 else "float64"
    mats = tuple(
        _vision.resample_matrix(mode, n, o, align_corners, s, dtname)
        for n, o, s in zip(spatial, out_size, scales)
    )
    if mode == "area":
        # an axis pooled to its own size is the identity
        mats = tuple(None if n == o else m for n, o, m in zip(spatial, out_size, mats))
        name = f"AdaptiveAvgPool{max(dim, 2)}DBackward0"
    else:
        name = _RESAMPLE_NODE[mode]
    mats_t = tuple(None if m is None else m.T for m in mats)
    return _vision.resample_node(name).apply(input, mats, mats_t)


def _interpolate_aa(input, mode, spatial, out_size, align_corners, scales) -> Tensor:
    """Antialiased bilinear / bicubic / lanczos of a 4-D input: one weight matrix per axis
    (``ops.antialias``), applied by the same linear ``Resample`` node as the plain modes."""
    from ember.ops import antialias as _aa  # (loads on first use)

    dtype = input._data.dtype
    if dtype.kind != "f" or dtype.itemsize < 4:
        # NOTE: matches torch: its weight builder dispatches on float32/float64 only
        # (uint8 has a separate fixed-point kernel, not reproduced here)
        raise NotImplementedError(
            f"\"compute_index_ranges_weights\" not implemented for '{_TNAME[dtype.name]}'"
        )
    mats = tuple(
        # NOTE: matches torch: an axis whose size is unchanged is not resampled
        None if n == o else _aa.antialias_matrix(mode, n, o, align_corners, s, dtype.name)
        for n, o, s in zip(spatial, out_size, scales)
    )
    name = f"Upsample{mode.capitalize()}2DAaBackward0"
    mats_t = tuple(None if m is None else m.T for m in mats)
    (h, _), (oh, ow) = spatial, out_size
    if ow == 1 and oh != h:
        # NOTE: matches torch: its vertical pass into a width-1 output gives every row the
        # first row's result (its backward uses the true weights: the gradient stays the
        # true map's transpose, as torch's)
        mats = (_aa.first_row_matrix(mode, h, oh, align_corners, scales[0], dtype.name), mats[1])
    return _vision.resample_node(name).apply(input, mats, mats_t)


def upsample(
    input: Tensor,
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """Deprecated alias of ``interpolate`` (warns, as PyTorch)."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: ``interpolate(..., mode='nearest')`` (warns, as PyTorch)."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)`` (warns, as
    PyTorch)."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- rearrangements ---------------------------------------------------------------------------
# Each is a reshape, one permute and a reshape (one copy); the gradient is the same rearrangement
# reversed, from the view ops' own backward.
def _factor(op: str, arg: str, factor) -> int:
    if isinstance(factor, bool) or not isinstance(factor, (int, backend.cpu.integer)):
        raise TypeError(
            f"{op}(): argument '{arg}' (position 2) must be int, not {type(factor).__name__}"
        )
    return int(factor)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C * r**2, H, W)`` to ``(*, C, H * r, W * r)``: each group of ``r**2`` channels
    becomes an ``r x r`` block of pixels (sub-pixel convolution's output step).

    Example:
        >>> ember.nn.functional.pixel_shuffle(ember.ones(1, 8, 3, 3), 2).shape
        ember.Size([1, 2, 6, 6])
    """
    r = _factor("pixel_shuffle", "upscale_factor", upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got "
            f"input with {input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible "
            f"by the square of upscale_factor, but input.size(-3)={c} is not "
            f"divisible by {r * r}"
        )
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    # (.., c, r1, r2, h, w) -> (.., c, h, r1, w, r2)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """The inverse of ``pixel_shuffle``: ``(*, C, H * r, W * r)`` to ``(*, C * r**2, H, W)``.

    Example:
        >>> ember.nn.functional.pixel_unshuffle(ember.ones(1, 2, 6, 6), 2).shape
        ember.Size([1, 8, 3, 3])
    """
    r = _factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but "
            f"got input with {input.dim()} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if h % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, "
            f"but input.size(-2)={h} is not divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            f"pixel_unshuffle expects width to be divisible by downscale_factor, "
            f"but input.size(-1)={w} is not divisible by {r}"
        )
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    # (.., c, h, r1, w, r2) -> (.., c, r1, r2, h, w)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels (dim 1) of ``groups`` groups: ``(N, g * k, *)`` viewed as
    ``(N, g, k, *)``, the two group dims swapped (ShuffleNet).

    Example:
        >>> x = ember.arange(4.0).reshape(1, 4, 1)
        >>> ember.nn.functional.channel_shuffle(x, 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    g = _factor("channel_shuffle", "groups", groups)
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with "
            f"sizes {list(input.shape)}"
        )
    if g <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{g}"
        )
    n, c, *rest = input.shape
    if c % g:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {g} groups."
        )
    x = input.reshape(n, g, c // g, *rest).transpose(1, 2)
    return x.reshape(n, c, *rest)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``channel_shuffle`` (PyTorch's native kernel of the same op).

    Example:
        >>> ember.nn.functional.native_channel_shuffle(ember.ones(1, 4, 2), 2).shape
        ember.Size([1, 4, 2])
    """
    return channel_shuffle(input, groups)


# ---- grid sampling ----------------------------------------------------------------------------
_GRID_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False "
    "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
    "See the documentation of grid_sample for details."
)
_TNAME = _dtype.SCALAR_NAMES


def _grid_sample_checks(input: Tensor, grid: Tensor, mode: str) -> None:
    """torch.grid_sampler's checks, in its order."""
    ishape, gshape = list(input.shape), list(grid.shape)
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"expected scalar type {_TNAME[input.dtype.name]} but found "
            f"{_TNAME[grid.dtype.name]} (grid_sample's input and grid must "
            "have the same dtype)"
        )
    if input.dim() == 0 or grid.dim() == 0 or ishape[0] != gshape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, "
            f"but got input with sizes {ishape} and grid with sizes {gshape}"
        )
    if gshape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
            f"last dimension, but got grid with sizes {gshape}"
        )
    for i in range(2, input.dim()):
        if ishape[i] <= 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial "
                f"dimensions, but input has sizes {ishape} with dimension {i} "
                "being empty"
            )
    rank = 4 if input.dim() == 4 else 5
    if input.dim() != rank or grid.dim() != rank:
        raise RuntimeError(
            f"grid_sampler(): expected {rank}D input and grid with same number "
            f"of dimensions, but got input with sizes {ishape} and grid with "
            f"sizes {gshape}"
        )
    if rank == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        kernel = "grid_sampler_2d_cpu_kernel_impl" if rank == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_TNAME.get(input.dtype.name, input.dtype.name)}'"
        )


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """Sample ``input`` ``(N, C, H, W)`` at the points of ``grid`` ``(N, H_out, W_out, 2)``
    (or ``(N, C, D, H, W)`` at ``(N, D_out, H_out, W_out, 3)``): ``grid[..., 0]`` is x (the
    width axis), in [-1, 1] across the input (corner pixels' centres with
    ``align_corners=True``, their outer edges otherwise). Output ``(N, C, *grid.shape[1:-1])``.

    ``mode``: ``'bilinear'`` (trilinear for 5-D), ``'nearest'`` or ``'bicubic'`` (4-D only).
    ``padding_mode`` for points outside: ``'zeros'``, ``'border'`` (clamped) or
    ``'reflection'`` (mirrored at the border). Differentiable in ``input`` and ``grid``.

    Example:
        >>> x = ember.arange(4.0).reshape(1, 1, 2, 2)
        >>> grid = ember.tensor([[[[0.0, 0.0], [-1.0, -1.0]]]])
        >>> F.grid_sample(x, grid, align_corners=True)
        tensor([[[[1.5000, 0.0000]]]])
    """
    if _ac.on and _ac.enabled():  # autocast's float32 list
        return _ac.call_fp32(grid_sample, input, grid, mode, padding_mode, align_corners)
    for pos, (name, t) in enumerate((("input", input), ("grid", grid)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"grid_sample(): argument '{name}' (position {pos}) must be Tensor, "
                f"not {type(t).__name__}"
            )
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', "
            f"'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
            f"'border', or 'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_GRID_WARNING, stacklevel=2)
        align_corners = False
    _grid_sample_checks(input, grid, mode)
    out_shape = tuple(input.shape[:2]) + tuple(grid.shape[1:-1])
    if input.device.type == "meta":
        return input.new_empty(out_shape)
    low = input.dtype
    half = low.itemsize == 2
    if half:  # computed in float32, as torch's CPU kernels accumulate
        input, grid = input.float(), grid.float()
    w, taps = _grid.grid_taps(tuple(input.shape), grid, mode, padding_mode, bool(align_corners))
    out = _grid.grid_combine(input, w, taps, out_shape, grid if mode == "nearest" else None)
    return out.to(low) if half else out


def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of the affine maps ``theta`` (``(N, 2, 3)`` for a 4-D ``size``
    ``(N, C, H, W)``, ``(N, 3, 4)`` for a 5-D one): output ``(N, H, W, 2)`` (``(N, D, H, W,
    3)``), each point the map applied to the normalized output coordinates; pass it to
    ``grid_sample``.

    Example:
        >>> theta = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(theta, (1, 1, 1, 2), align_corners=False)
        tensor([[[[-0.5000,  0.0000],
                  [ 0.5000,  0.0000]]]])
    """
    if not isinstance(theta, Tensor):
        raise TypeError(
            f"affine_grid(): argument 'theta' (position 1) must be Tensor, not "
            f"{type(theta).__name__}"
        )
    if align_corners is None:
        warnings.warn(_GRID_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size) if not isinstance(size, tuple) else size
    if len(size) in (4, 5):
        k = len(size) - 2
        if theta.dim() != 3 or tuple(theta.shape[1:]) != (k, k + 1):
            raise ValueError(
                f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} "
                f"for size {size}. Got {theta.shape}."
            )
        spatial = tuple(int(s) for s in size[2:])
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D "
            f"affine transforms, respectively. Got size {size}."
        )
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size "
            "grids when align_corners=True. This is not an intended use case of "
            "affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {k + 1}] but got: [{theta.shape[0]}, {k + 1}]."
        )
    return _grid.AffineGrid.apply(theta, spatial, bool(align_corners))
