"""``SummaryWriter``: log scalars, histograms, images, text, hyperparameters and embeddings
for TensorBoard, as ``torch.utils.tensorboard.SummaryWriter``.

Records are TensorBoard's own protobufs written by TensorBoard's own ``EventFileWriter`` (a
queue flushed by a background thread every ``flush_secs``), so TensorBoard reads ember's runs
exactly as it reads torch's.
"""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from tensorboard.compat import tf
from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from ember.utils.tensorboard import _embedding
from ember.utils.tensorboard._utils import figure_to_image, make_np
from ember.utils.tensorboard.summary import (
    audio,
    custom_scalars,
    histogram,
    histogram_raw,
    hparams,
    image,
    pr_curve,
    pr_curve_raw,
    scalar,
    tensor_proto,
    text,
)

__all__ = ["FileWriter", "SummaryWriter"]


def _tensorflow_bins() -> list[float]:
    """TensorFlow's default histogram edges: +-1e-12 growing by 10% a step past 1e20, and 0."""
    edges, v = [], 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


_NO_GRAPH = (
    "SummaryWriter.add_graph is not supported yet: it waits for ember's graph capture "
    "(ember.fx / ember.jit.trace) to record the model's graph"
)


class FileWriter:
    """Events to one event file in ``log_dir`` (the layer under ``SummaryWriter``)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix="") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None) -> None:
        raise NotImplementedError(_NO_GRAPH)

    def add_onnx_graph(self, graph, walltime=None) -> None:
        self.add_event(event_pb2.Event(graph_def=graph.SerializeToString()), None, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()

    def reopen(self) -> None:
        self.event_writer.reopen()


class SummaryWriter:
    """Write TensorBoard event files to ``log_dir``.

    Args:
        log_dir: the run's directory; default ``runs/<Mon><DD>_<HH-MM-SS>_<hostname><comment>``.
        comment: appended to the default ``log_dir`` (ignored when ``log_dir`` is given).
        purge_step: on resuming a crashed run, TensorBoard discards the events at or after
            this step that the earlier run wrote.
        max_queue: pending events before a write is forced.
        flush_secs: seconds between flushes to disk.
        filename_suffix: appended to the event file's name.

    Example:
        >>> import tempfile
        >>> with SummaryWriter(tempfile.mkdtemp()) as w:
        ...     for step in range(3):
        ...         w.add_scalar("loss", 1.0 / (step + 1), step)
    """

    def __init__(
        self,
        log_dir=None,
        comment="",
        purge_step=None,
        max_queue=10,
        flush_secs=120,
        filename_suffix="",
    ) -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _tensorflow_bins()

    def _get_file_writer(self) -> FileWriter:
        """The main FileWriter, (re)opened after ``close`` so a closed writer can log again."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(
                self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix
            )
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # A new file version plus a session START at purge_step: TensorBoard drops
                # the older files' events from that step on.
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                start = SessionLog(status=SessionLog.START)
                self.file_writer.add_event(Event(step=step, session_log=start))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    def _add(self, summary, global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_hparams(
        self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None
    ) -> None:
        """Log hyperparameters and final metrics for the hparams plugin, in a sub-run
        ``<log_dir>/<run_name>`` (default: the current time).

        Example:
            >>> import tempfile
            >>> with SummaryWriter(tempfile.mkdtemp()) as w:
            ...     w.add_hparams({"lr": 0.1, "bsize": 32}, {"hparam/loss": 0.25})
        """
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        experiment, start, end = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as sub:
            for summary in (experiment, start, end):
                sub.file_writer.add_summary(summary, global_step)
            for k, v in metric_dict.items():
                sub.add_scalar(k, v, global_step)

    def add_scalar(
        self,
        tag,
        scalar_value,
        global_step=None,
        walltime=None,
        new_style=False,
        double_precision=False,
    ) -> None:
        """Log one number (a Python number, a NumPy scalar or a one-element tensor).

        ``new_style`` writes a tensor for the scalars plugin (float32, or float64 with
        ``double_precision``) instead of the legacy ``simple_value``.
        """
        self._add(
            scalar(tag, scalar_value, None, new_style, double_precision), global_step, walltime
        )

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None) -> None:
        """Log several numbers on one chart: each ``tag`` goes to its own sub-run
        ``<log_dir>/<main_tag>_<tag>`` (``/`` in ``main_tag`` becomes ``_``), under the tag
        ``main_tag``.

        Example:
            >>> import tempfile
            >>> with SummaryWriter(tempfile.mkdtemp()) as w:
            ...     w.add_scalars("loss", {"train": 0.5, "val": 0.7}, 0)
        """
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            sub_dir = base + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(sub_dir)
            if writer is None:
                writer = FileWriter(sub_dir, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[sub_dir] = writer
            writer.add_summary(scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None) -> None:
        """Log a whole ember tensor (the tensor plugin)."""
        self._add(tensor_proto(tag, tensor), global_step, walltime)

    def add_histogram(
        self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None
    ) -> None:
        """Log the distribution of ``values``. ``bins``: ``"tensorflow"`` (TensorFlow's
        exponential edges, the default) or anything ``numpy.histogram`` takes (a count,
        edges, ``"auto"``, ``"fd"``...); ``max_bins`` merges neighbouring buckets."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._add(histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(
        self,
        tag,
        min,  # noqa: A002 - torch's names
        max,  # noqa: A002
        num,
        sum,  # noqa: A002
        sum_squares,
        bucket_limits,
        bucket_counts,
        global_step=None,
        walltime=None,
    ) -> None:
        """Log a histogram computed elsewhere: its statistics, right bucket edges and counts."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        summary = histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._add(summary, global_step, walltime)

    def add_image(
        self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"
    ) -> None:
        """Log an image: ``dataformats`` ``CHW`` (default), ``HWC``, ``HW``...; float values in
        [0, 1] or uint8 in [0, 255]; 1 channel is shown gray.

        Example:
            >>> import tempfile
            >>> with SummaryWriter(tempfile.mkdtemp()) as w:
            ...     w.add_image("noise", ember.rand(3, 8, 8), 0)
        """
        self._add(image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(
        self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"
    ) -> None:
        """Log a batch of images as one grid (8 to a row)."""
        self._add(image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_image_with_boxes(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            "SummaryWriter.add_image_with_boxes is not supported by ember yet; draw the boxes "
            "into the image and log it with add_image"
        )

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None) -> None:
        """Log a matplotlib figure (or a list of them, as a grid), rendered by Agg;
        ``close`` closes the figure after rendering."""
        fmt = "NCHW" if isinstance(figure, list) else "CHW"
        self.add_image(tag, figure_to_image(figure, close), global_step, walltime, dataformats=fmt)

    def add_video(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            "SummaryWriter.add_video is not supported by ember yet (torch encodes the GIF "
            "through moviepy); log frames with add_images instead"
        )

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        """Log mono audio, samples in [-1, 1]."""
        self._add(audio(tag, snd_tensor, sample_rate=sample_rate), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None) -> None:
        """Log a string (Markdown) for the text plugin."""
        self._add(text(tag, text_string), global_step, walltime)

    def add_onnx_graph(self, prototxt) -> None:
        raise NotImplementedError(
            "SummaryWriter.add_onnx_graph is not supported: it needs the onnx package's model "
            "reader; ember's graphs wait for ember.fx"
        )

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        raise NotImplementedError(_NO_GRAPH)

    @staticmethod
    def _encode(raw: str) -> str:
        """A tag as one path component: ``%``, ``/`` and ``\\`` percent-encoded."""
        return raw.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")

    def add_embedding(
        self,
        mat,
        metadata=None,
        label_img=None,
        global_step=None,
        tag="default",
        metadata_header=None,
    ) -> None:
        """Log points for the projector: ``mat`` (N, D), optional ``metadata`` (N labels, or
        rows with ``metadata_header``) and ``label_img`` (N, C, H, W) thumbnails, under
        ``<log_dir>/<step:05d>/<tag>``.

        Example:
            >>> import tempfile
            >>> with SummaryWriter(tempfile.mkdtemp()) as w:
            ...     w.add_embedding(ember.randn(4, 3), metadata=["a", "b", "c", "d"])
        """
        from google.protobuf import text_format
        from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

        mat = make_np(mat)
        global_step = 0 if global_step is None else global_step
        subdir = f"{str(global_step).zfill(5)}/{self._encode(tag)}"
        logdir = self._get_file_writer().get_logdir()
        save_path = os.path.join(logdir, subdir)
        fs = tf.io.gfile
        if not fs.exists(save_path):
            fs.makedirs(save_path)
        elif fs.isdir(save_path):
            # NOTE: matches torch: a printed notice, and the files are overwritten
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        else:
            raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            _embedding.make_tsv(metadata, save_path, metadata_header=metadata_header)
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            _embedding.make_sprite(label_img, save_path)
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        _embedding.make_mat(mat, save_path)
        # One config for the run, listing every embedding logged so far.
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        info = _embedding.get_embedding_info(metadata, label_img, subdir, global_step, tag)
        self._projector_config.embeddings.extend([info])
        _embedding.write_pbtxt(logdir, text_format.MessageToString(self._projector_config))

    def add_pr_curve(
        self,
        tag,
        labels,
        predictions,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ) -> None:
        """Log a precision-recall curve of binary ``labels`` and ``predictions`` in [0, 1]."""
        labels, predictions = make_np(labels), make_np(predictions)
        summary = pr_curve(tag, labels, predictions, num_thresholds, weights)
        self._add(summary, global_step, walltime)

    def add_pr_curve_raw(
        self,
        tag,
        true_positive_counts,
        false_positive_counts,
        true_negative_counts,
        false_negative_counts,
        precision,
        recall,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ) -> None:
        """Log a precision-recall curve from counts per threshold."""
        summary = pr_curve_raw(
            tag,
            true_positive_counts,
            false_positive_counts,
            true_negative_counts,
            false_negative_counts,
            precision,
            recall,
            num_thresholds,
            weights,
        )
        self._add(summary, global_step, walltime)

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        """A custom-scalars chart with one line per tag."""
        self._add(custom_scalars({category: {title: ["Multiline", tags]}}))

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        """A custom-scalars chart of a value with its lower and upper bounds (3 tags)."""
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self._add(custom_scalars({category: {title: ["Margin", tags]}}))

    def add_custom_scalars(self, layout) -> None:
        """The custom-scalars layout: ``{category: {title: ["Multiline" or "Margin", tags]}}``."""
        self._add(custom_scalars(layout))

    def add_mesh(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            "SummaryWriter.add_mesh is not supported by ember yet; log the vertices with "
            "add_embedding or add_tensor instead"
        )

    def flush(self) -> None:
        """Write pending events of every sub-writer to disk."""
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every event file (a later log call opens a new one)."""
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
