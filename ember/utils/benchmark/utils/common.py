"""What a benchmark measured (``Measurement``) and what it ran (``TaskSpec``), as
``torch.utils.benchmark.utils.common``.

A ``Measurement`` holds raw block times (each the time of ``number_per_run`` runs of the
statement); its statistics (median, quartiles, significant figures) are computed once, on first
use. The arithmetic follows torch's: quartiles by linear interpolation in float64, and the
unit, digit and significant-figure decisions in float32 (torch makes a default-dtype tensor of a
Python float for them), so the same raw times print the same table.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import textwrap
from collections.abc import Iterable, Iterator
from typing import Any

from ember import backend

__all__ = [
    "Measurement",
    "TaskSpec",
    "ordered_unique",
    "select_unit",
    "set_torch_threads",
    "trim_sigfig",
    "unit_to_english",
]

_xp = backend.for_device("cpu")

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns: below this a timer cannot resolve anything
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def _f32(x: float):
    """``x`` as a float32 scalar: torch's ``torch.tensor(x)`` for the unit and digit decisions."""
    return _xp.float32(x)


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a ``Timer`` runs: the statement, its setup and the labels a ``Compare`` groups by.

    Example:
        >>> TaskSpec("x + 1", "x = 1", label="add").title
        'add'
    """

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (or the statement) with the sub-label, as a Measurement's repr heads it."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """Title, description and setup, one section a line (a multi-line one ends blank)."""
        sections = [s for s in (self.title, self.description or "", self.setup_str()) if s]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


def _quantile(sorted_values: tuple[float, ...], q: float) -> float:
    """Linear-interpolation quantile of sorted values (torch.quantile's default), in float64."""
    rank = q * (len(sorted_values) - 1)
    lo, hi = math.floor(rank), math.ceil(rank)
    a, b, w = sorted_values[lo], sorted_values[hi], rank - lo
    # NOTE: matches torch: its lerp takes the nearer end as the base, for precision
    return a + w * (b - a) if w < 0.5 else b - (b - a) * (1 - w)


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The times of one benchmark: ``raw_times`` of blocks of ``number_per_run`` runs each.

    Statistics are per run (``times``), computed on first use. The TaskSpec's fields read as
    attributes (``m.label``, ``m.num_threads``).

    Example:
        >>> m = Measurement(10, [1.0, 2.0, 4.0], TaskSpec("f()", "pass"))
        >>> m.median, m.times, m.number_per_run
        (0.2, [0.1, 0.2, 0.4], 10)
    """

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None

    def __post_init__(self) -> None:
        self._sorted_times: tuple[float, ...] = ()
        self._warnings: tuple[str, ...] = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        # Only reached on a miss: the TaskSpec's fields read through.
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute {name!r}")

    @property
    def times(self) -> list[float]:
        """Time per run of each block."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        """Interquartile range of the per-run times."""
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """How many digits of the median the spread of the middle half supports (1 to 4).

        The 90% confidence interval of the mean of the interquartile points (1.645 standard
        errors, at least 25 ns) against the median: a median 10^k times the interval carries
        k significant figures.
        """
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4 : int(_xp.ceil(_f32(3 * n / 4)))]
        std = float(_xp.asarray(middle, dtype=_xp.float32).std())
        sqrt_n = float(_xp.sqrt(_f32(len(middle))))
        interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        relative = float(_xp.log10(_f32(self._median / interval)))
        figures = int(_xp.floor(_f32(relative)))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        s = self._sorted_times
        self._median = _quantile(s, 0.5)
        self._mean = float(_xp.asarray(s, dtype=_xp.float64).mean())
        self._p25, self._p75 = _quantile(s, 0.25), _quantile(s, 0.75)

        def warn(why: str) -> None:
            rel_iqr = self.iqr / self.median * 100
            self._warnings += (
                f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the median measurement.\n"
                f"           {why}",
            )

        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            warn("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            warn("This could indicate system fluctuation.")

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether the interquartile range is under ``threshold`` times the median."""
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str | None:
        # NOTE: matches torch: its property of the same name fails and falls back to the
        # TaskSpec's field, so an unset env reads None (not "Unspecified env").
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        plural = n > 1
        threads = self.num_threads
        lines = [
            f"{object.__repr__(self)}",
            self.task_spec.summarize(),
            f"  {'Median: ' if plural else ''}{self._median / scale:.2f} {unit}",
        ]
        if n >= 4:  # quartiles of fewer points say nothing
            lines.append(
                f"  IQR:    {self.iqr / scale:.2f} {unit} "
                f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})"
            )
        lines.append(
            f"  {n} measurement{'s' if plural else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if plural else ','} {threads} thread{'s' if threads > 1 else ''}"
        )
        lines.extend(self._warnings)
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """One Measurement per distinct TaskSpec, pooling the per-run times (number_per_run 1).

        Example:
            >>> spec = TaskSpec("f()", "pass")
            >>> [m.times for m in Measurement.merge([Measurement(1, [1.0], spec)] * 2)]
            [[1.0, 1.0]]
        """
        groups: dict[TaskSpec, list[float]] = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].extend(m.times)
        return [Measurement(1, times, spec, None) for spec, times in groups.items()]


def select_unit(t: float) -> tuple[str, float]:
    """The unit that shows ``t`` seconds with 1 to 3 integer digits, and its scale.

    Example:
        >>> select_unit(2.5e-5)
        ('us', 1e-06)
    """
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(float(_xp.log10(_f32(t))) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures.

    Example:
        >>> trim_sigfig(123.456, 2)
        120.0
    """
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(_xp.ceil(_xp.log10(_xp.abs(_f32(x)))))
    scale = 10 ** (magnitude - n)
    # NOTE: matches torch: the rounding and the product are float32 (so 1.23 comes back as
    # 1.2300000190734863), half to even
    return float(_xp.round(_f32(x / scale)) * _f32(scale))


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    """The distinct elements in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``ember.set_num_threads(n)``, restoring the prior count after."""
    import ember

    prior = ember.get_num_threads()
    try:
        ember.set_num_threads(n)
        yield
    finally:
        ember.set_num_threads(prior)
