"""``Summary`` protobufs for each kind of record, as ``torch.utils.tensorboard.summary``.

Each function returns a ``tensorboard.compat.proto.summary_pb2.Summary`` that
``SummaryWriter`` wraps in an event; the plugin metadata (scalars, text, hparams, pr_curves,
custom_scalars) is what TensorBoard's plugins look for, written as torch writes it.
"""

from __future__ import annotations

import io
import struct

from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ember.utils.tensorboard._utils import _xp, convert_to_HWC, encode_png, make_np

__all__ = [
    "audio",
    "compute_curve",
    "custom_scalars",
    "half_to_int",
    "histogram",
    "histogram_raw",
    "hparams",
    "image",
    "int_to_half",
    "make_histogram",
    "make_image",
    "pr_curve",
    "pr_curve_raw",
    "scalar",
    "tensor_proto",
    "text",
]


def _plugin(name: str, content: bytes = b"") -> SummaryMetadata:
    return SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name=name, content=content)
    )


def _shape(*dims: int) -> TensorShapeProto:
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in dims])


def scalar(name, tensor, collections=None, new_style=False, double_precision=False) -> Summary:
    """One scalar: ``simple_value`` (old style), or a float (double) tensor for the scalars
    plugin (``new_style``, which TensorBoard loads faster).

    Example:
        >>> scalar("loss", 0.5).value[0].simple_value
        0.5
    """
    array = make_np(tensor).squeeze()
    if array.ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions). Was given size: {array.size} "
            f"and {array.ndim} dimensions."
        )
    value = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    if double_precision:
        proto = TensorProto(double_val=[value], dtype="DT_DOUBLE")
    else:
        proto = TensorProto(float_val=[value], dtype="DT_FLOAT")
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=_plugin("scalars"))])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):  # noqa: A002
    """A histogram from its statistics and buckets (``bucket_limits`` are right edges)."""
    hist = HistogramProto(
        min=min,
        max=max,
        num=num,
        sum=sum,
        sum_squares=sum_squares,
        bucket_limit=bucket_limits,
        bucket=bucket_counts,
    )
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram(name, values, bins, max_bins=None) -> Summary:
    """A histogram of ``values`` (any shape) over ``bins`` (NumPy's: a count, edges or a
    method name such as ``"auto"``)."""
    hist = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def make_histogram(values, bins, max_bins=None) -> HistogramProto:
    """The HistogramProto of a float array: NumPy's histogram, merged down to ``max_bins``
    buckets, cut to the buckets that hold values (plus one empty bucket on the left, since
    TensorBoard stores right edges only)."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = _xp.histogram(values, bins=bins)
    n = len(counts)
    if max_bins is not None and n > max_bins:
        group = n // max_bins
        short = -n % group  # pad with empty buckets to whole groups
        counts = _xp.concatenate([counts, _xp.zeros(short, counts.dtype)])
        counts = counts.reshape(-1, group).sum(axis=-1)
        limits = _xp.concatenate([limits[:-1:group], limits[-1:]])
    # The first and last buckets that hold values, found on the running count of non-empty
    # buckets: `start` is where it first passes 0, `end` where it reaches its total.
    filled = _xp.cumsum(counts > 0)
    start, end = (int(i) for i in _xp.searchsorted(filled, [0, filled[-1] - 1], side="right"))
    end += 1
    if start > 0:
        counts = counts[start - 1 : end]
    else:
        counts = _xp.concatenate([[0], counts[:end]])
    limits = limits[start : end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(
        min=values.min(),
        max=values.max(),
        num=len(values),
        sum=values.sum(),
        sum_squares=values.dot(values),
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )


def image(tag, tensor, rescale=1, dataformats="NCHW") -> Summary:
    """An image (or a batch tiled into a grid): uint8 as is, any other dtype taken as [0, 1]
    and scaled to [0, 255], clipped, PNG-encoded.

    Example:
        >>> image("x", ember.zeros(3, 4, 5), dataformats="CHW").value[0].image.width
        5
    """
    array = convert_to_HWC(make_np(tensor), dataformats)
    scale = 1 if array.dtype == _xp.uint8 else 255
    pixels = (array.astype(_xp.float32) * scale).clip(0, 255).astype(_xp.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(pixels, rescale=rescale))])


def make_image(tensor, rescale=1, rois=None, labels=None) -> Summary.Image:
    """The ``Summary.Image`` of an HWC uint8 array, resized by ``rescale`` (PIL's Lanczos)."""
    if rois is not None:
        raise NotImplementedError(
            "make_image(rois=...) (add_image_with_boxes) is not supported by ember's writer yet; "
            "draw the boxes into the image and log it with add_image"
        )
    height, width, channels = tensor.shape
    if rescale != 1:
        from PIL import Image

        scaled = Image.fromarray(tensor).resize(
            (int(width * rescale), int(height * rescale)), Image.Resampling.LANCZOS
        )
        tensor = _xp.asarray(scaled)
        if tensor.ndim == 2:
            tensor = tensor[:, :, None]
    # NOTE: matches torch: height and width are the sizes before rescaling
    return Summary.Image(
        height=height,
        width=width,
        colorspace=channels,
        encoded_image_string=encode_png(tensor),
    )


def audio(tag, tensor, sample_rate=44100) -> Summary:
    """Mono audio in [-1, 1] as 16-bit WAV (louder samples are clipped, with a printed
    warning, as torch does)."""
    import wave

    samples = make_np(tensor).squeeze()
    if abs(samples).max() > 1:
        print("warning: audio amplitude out of range, auto clipped.")
        samples = samples.clip(-1, 1)
    if samples.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    pcm = (samples * _xp.iinfo(_xp.int16).max).astype("<i2")
    with io.BytesIO() as out:
        with wave.open(out, "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(sample_rate)
            wav.writeframes(pcm.tobytes())
        encoded = out.getvalue()
    sound = Summary.Audio(
        sample_rate=sample_rate,
        num_channels=1,
        length_frames=pcm.shape[-1],
        encoded_audio_string=encoded,
        content_type="audio/wav",
    )
    return Summary(value=[Summary.Value(tag=tag, audio=sound)])


def text(tag, text) -> Summary:
    """A string for the text plugin, under ``<tag>/text_summary``."""
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

    proto = TensorProto(
        dtype="DT_STRING", string_val=[text.encode("utf_8")], tensor_shape=_shape(1)
    )
    meta = _plugin("text", TextPluginData(version=0).SerializeToString())
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=proto)])


def half_to_int(f: float) -> int:
    """The bits of ``f`` as a float32, read as an int32 (torch's encoding of half values)."""
    return struct.unpack("i", struct.pack("f", f))[0]


def int_to_half(i: int) -> float:
    """The inverse of ``half_to_int``."""
    return struct.unpack("f", struct.pack("i", i))[0]


# ember dtype name -> (TensorProto dtype, its value field, how values are listed)
_TENSOR_FIELDS = {
    "float16": ("DT_HALF", "half_val"),
    "bfloat16": ("DT_BFLOAT16", "half_val"),
    "float32": ("DT_FLOAT", "float_val"),
    "float64": ("DT_DOUBLE", "double_val"),
    "int8": ("DT_INT8", "int_val"),
    "uint8": ("DT_UINT8", "uint32_val"),
    "int16": ("DT_INT16", "int_val"),
    "int32": ("DT_INT32", "int_val"),
    "int64": ("DT_INT64", "int64_val"),
    "complex64": ("DT_COMPLEX64", "scomplex_val"),
    "complex128": ("DT_COMPLEX128", "dcomplex_val"),
    "bool": ("DT_BOOL", "bool_val"),
}


def tensor_proto(tag, tensor) -> Summary:
    """A whole ember tensor for the tensor plugin."""
    if tensor.numel() * tensor.element_size() >= 1 << 31:
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    name = str(tensor.dtype).rpartition(".")[2]
    if name not in _TENSOR_FIELDS:
        raise ValueError(f"{tag} has unsupported tensor dtype {tensor.dtype}")
    dtype, field = _TENSOR_FIELDS[name]
    values = make_np(tensor).reshape(-1)
    if field == "half_val":
        # NOTE: matches torch: each value's float32 bit pattern, not its 16-bit one
        listed = [half_to_int(v) for v in values.tolist()]
    elif field in ("scomplex_val", "dcomplex_val"):
        listed = _xp.stack([values.real, values.imag], -1).reshape(-1).tolist()
    else:
        listed = values.tolist()
    proto = TensorProto(dtype=dtype, tensor_shape=_shape(*tensor.shape), **{field: listed})
    return Summary(value=[Summary.Value(tag=tag, metadata=_plugin("tensor"), tensor=proto)])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The three summaries of the hparams plugin: the experiment (hyperparameter and metric
    names), the session start (the values) and the session end (success).

    Example:
        >>> exp, ssi, sei = hparams({"lr": 0.1}, {"loss": 0.2})
        >>> exp.value[0].tag, ssi.value[0].tag, sei.value[0].tag
        ('_hparams_/experiment', '_hparams_/session_start_info', '_hparams_/session_end_info')
    """
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams import api_pb2, metadata
    from tensorboard.plugins.hparams.plugin_data_pb2 import (
        HParamsPluginData,
        SessionEndInfo,
        SessionStartInfo,
    )

    for what, value in (("hparam_dict", hparam_dict), ("metric_dict", metric_dict)):
        if not isinstance(value, dict):
            raise TypeError(f"parameter: {what} should be a dictionary, nothing logged.")
    discrete = hparam_domain_discrete or {}
    if not isinstance(discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in discrete.items():
        if k not in hparam_dict or not isinstance(v, list):
            ok = False
        else:
            ok = all(isinstance(d, type(hparam_dict[k])) for d in v)
        if not ok:
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                f"hparam_dict[{k}]."
            )

    from ember.tensor import Tensor

    infos, start = [], SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        # NOTE: matches torch: a bool is an int here, so it is logged as a number (1.0/0.0)
        if isinstance(v, (int, float)):
            start.hparams[k].number_value = v
            kind, field = "DATA_TYPE_FLOAT64", "number_value"
        elif isinstance(v, str):
            start.hparams[k].string_value = v
            kind, field = "DATA_TYPE_STRING", "string_value"
        elif isinstance(v, Tensor):
            start.hparams[k].number_value = float(make_np(v).reshape(-1)[0])
            infos.append(
                api_pb2.HParamInfo(name=k, type=api_pb2.DataType.Value("DATA_TYPE_FLOAT64"))
            )
            continue
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        domain = None
        if k in discrete:
            domain = struct_pb2.ListValue(
                values=[struct_pb2.Value(**{field: d}) for d in discrete[k]]
            )
        infos.append(
            api_pb2.HParamInfo(name=k, type=api_pb2.DataType.Value(kind), domain_discrete=domain)
        )

    def wrap(tag, **data):
        content = HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **data)
        meta = _plugin(metadata.PLUGIN_NAME, content.SerializeToString())
        return Summary(value=[Summary.Value(tag=tag, metadata=meta)])

    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    experiment = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    end = SessionEndInfo(status=api_pb2.Status.Value("STATUS_SUCCESS"))
    return (
        wrap(metadata.EXPERIMENT_TAG, experiment=experiment),
        wrap(metadata.SESSION_START_INFO_TAG, session_start_info=start),
        wrap(metadata.SESSION_END_INFO_TAG, session_end_info=end),
    )


def custom_scalars(layout) -> Summary:
    """The custom_scalars plugin's layout: ``{category: {chart: ["Multiline", tags] or
    ["Margin", [value, lower, upper]]}}``."""
    from tensorboard.plugins.custom_scalar import layout_pb2

    categories = []
    for category, charts in layout.items():
        made = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = layout_pb2.MarginChartContent.Series(
                    value=tags[0], lower=tags[1], upper=tags[2]
                )
                content = layout_pb2.MarginChartContent(series=[series])
                made.append(layout_pb2.Chart(title=title, margin=content))
            else:
                content = layout_pb2.MultilineChartContent(tag=tags)
                made.append(layout_pb2.Chart(title=title, multiline=content))
        categories.append(layout_pb2.Category(title=category, chart=made))
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[layout_pb2.Layout(category=categories).SerializeToString()],
        tensor_shape=TensorShapeProto(),
    )
    value = Summary.Value(
        tag="custom_scalars__config__", tensor=proto, metadata=_plugin("custom_scalars")
    )
    return Summary(value=[value])


def _pr_summary(tag, data, num_thresholds) -> Summary:
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData

    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    proto = TensorProto(
        dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(), tensor_shape=_shape(*data.shape)
    )
    meta = _plugin("pr_curves", content)
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127, weights=None):
    """A precision-recall curve from its counts per threshold."""
    # NOTE: matches torch: more than 127 thresholds are cut to 127
    rows = (tp, fp, tn, fn, precision, recall)
    data = _xp.stack([_xp.asarray(a) if isinstance(a, list) else make_np(a) for a in rows])
    return _pr_summary(tag, data, min(num_thresholds, 127))


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None) -> Summary:
    """A precision-recall curve of binary ``labels`` against ``predictions`` in [0, 1]."""
    num_thresholds = min(num_thresholds, 127)
    data = compute_curve(labels, predictions, num_thresholds=num_thresholds, weights=weights)
    return _pr_summary(tag, data, num_thresholds)


def compute_curve(labels, predictions, num_thresholds=None, weights=None):
    """Rows tp, fp, tn, fn, precision, recall at ``num_thresholds`` evenly spaced thresholds:
    each prediction falls in the bucket of its threshold; counts at a threshold are the
    (weighted) totals of the buckets at or above it."""
    tiny = 1e-7  # a zero denominator gives precision/recall 0, not nan
    weights = 1.0 if weights is None else weights
    bucket = _xp.int32(_xp.floor(predictions * (num_thresholds - 1)))
    positive = labels.astype(_xp.float64)
    span = (0, num_thresholds - 1)
    tp_b, _ = _xp.histogram(bucket, bins=num_thresholds, range=span, weights=positive * weights)
    fp_b, _ = _xp.histogram(
        bucket, bins=num_thresholds, range=span, weights=(1.0 - positive) * weights
    )
    tp = _xp.cumsum(tp_b[::-1])[::-1]
    fp = _xp.cumsum(fp_b[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / _xp.maximum(tiny, tp + fp)
    recall = tp / _xp.maximum(tiny, tp + fn)
    return _xp.stack((tp, fp, tn, fn, precision, recall))
