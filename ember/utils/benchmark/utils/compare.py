"""``Compare``: measurements as a table, as ``torch.utils.benchmark.Compare``.

One table per label; rows are (num_threads, env, sub_label or stmt), grouped under a
"N threads" separator; columns are descriptions. Cells are medians in the unit of the fastest
result. Measurements of the same TaskSpec are pooled first (``Measurement.merge``). The layout
is torch's character for character, so a table printed by either library reads the same.
"""

from __future__ import annotations

import collections
import enum
import itertools
import operator

from ember.utils.benchmark.utils import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(x: float) -> int:
    # NOTE: matches torch: decided in float32
    return int(common._xp.ceil(common._xp.log10(common._f32(x))))


class _Column:
    """One description's cells: a common number format for all its rows."""

    def __init__(self, grouped_results, time_scale, time_unit, trim_sigfigs, highlight_warnings):
        self._grouped_results = grouped_results
        flat = list(itertools.chain.from_iterable(grouped_results))
        self._trim = trim_sigfigs
        self._highlight = highlight_warnings and any(r.has_warnings for r in flat if r)
        digits = [_leading_digits(r.median / time_scale) if r else None for r in flat]
        unit_digits = max(d for d in digits if d is not None)
        if trim_sigfigs:
            decimals = min(
                max(m.significant_figures - d, 0)
                for d, m in zip(digits, flat, strict=True)
                if m is not None and d is not None
            )
        else:
            decimals = 1
        width = unit_digits + decimals + (1 if decimals else 0)
        self._template = f"{{:>{width}.{decimals}f}}{{:>{7 if self._highlight else 0}}}"

    def get_results_for(self, group):
        return self._grouped_results[group]

    def num_to_str(self, value, estimated_sigfigs, spread):
        if value is None:  # a blank as wide as a number
            return " " * len(self.num_to_str(1, estimated_sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, estimated_sigfigs)
        flag = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return self._template.format(value, flag)


class _Row:
    def __init__(self, results, row_group, render_env, env_str_len, time_scale, colorize, threads):
        self._results = results
        self._row_group = row_group
        self._render_env = render_env
        self._env_str_len = env_str_len
        self._time_scale = time_scale
        self._colorize = colorize
        self._columns: tuple[_Column, ...] = ()
        self._num_threads = threads  # set on the first row of a thread group: its separator

    def register_columns(self, columns) -> None:
        self._columns = columns

    def as_column_strings(self) -> list[str]:
        first = next(r for r in self._results if r is not None)
        env = f"({first.env})" if self._render_env else ""
        out = ["  " + env.ljust(self._env_str_len + 4) + first.as_row_name]
        for m, col in zip(self._results, self._columns, strict=False):
            if m is None:
                out.append(col.num_to_str(None, 1, None))
            else:
                spread = m.iqr / m.median if m.has_warnings else None
                out.append(
                    col.num_to_str(m.median / self._time_scale, m.significant_figures, spread)
                )
        return out

    @staticmethod
    def color_segment(segment, value, best_value):
        if value <= best_value * 1.01 or value <= best_value + 1e-7:
            return BEST + BOLD + segment + TERMINATE * 2
        if value <= best_value * 1.1:
            return GOOD + BOLD + segment + TERMINATE * 2
        if value >= best_value * 5:
            return VERY_BAD + BOLD + segment + TERMINATE * 2
        if value >= best_value * 2:
            return BAD + segment + TERMINATE * 2
        return segment

    def row_separator(self, overall_width) -> list[str]:
        if self._num_threads is None:
            return []
        return [f"{self._num_threads} threads: ".ljust(overall_width, "-")]

    def finalize_column_strings(self, column_strings, col_widths) -> list[str]:
        best = [-1 for _ in column_strings]
        if self._colorize == Colorize.ROWWISE:
            row_min = min(r.median for r in self._results if r is not None)
            best = [row_min for _ in column_strings]
        elif self._colorize == Colorize.COLUMNWISE:
            best = []
            for column in self._columns:
                medians = [r.median for r in column.get_results_for(self._row_group) if r]
                best.append(min(medians) if medians else None)
        cells = [column_strings[0].ljust(col_widths[0])]
        for text, width, result, best_value in zip(
            column_strings[1:], col_widths[1:], self._results, best, strict=False
        ):
            text = text.center(width)
            if self._colorize != Colorize.NONE and result is not None and best_value is not None:
                text = self.color_segment(text, result.median, best_value)
            cells.append(text)
        return cells


class Table:
    """The table of one label's measurements."""

    def __init__(self, results, colorize, trim_significant_figures, highlight_warnings):
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self._colorize = colorize
        self._trim = trim_significant_figures
        self._highlight_warnings = highlight_warnings
        self.label = results[0].label
        self.time_unit, self.time_scale = common.select_unit(min(r.median for r in results))
        self.row_keys = common.ordered_unique(self.row_fn(r) for r in results)
        # by threads then env, keeping first-seen order of the row names within them
        self.row_keys.sort(key=operator.itemgetter(slice(2)))
        self.column_keys = common.ordered_unique(self.col_fn(r) for r in results)
        self.rows, self.columns = self.populate_rows_and_columns()

    @staticmethod
    def row_fn(m):
        return m.num_threads, m.env, m.as_row_name

    @staticmethod
    def col_fn(m):
        return m.description

    def populate_rows_and_columns(self):
        row_at = {key: i for i, key in enumerate(self.row_keys)}
        col_at = {key: i for i, key in enumerate(self.column_keys)}
        grid = [[None] * len(self.column_keys) for _ in self.row_keys]
        for r in self.results:
            grid[row_at[self.row_fn(r)]][col_at[self.col_fn(r)]] = r

        envs = {r.env for r in self.results}
        render_env = len(envs) > 1
        env_len = max(len(e) for e in envs) if render_env else 0
        rows, groups = [], []
        prior_threads, prior_env, group = -1, "", -1
        for (threads, env, _), row in zip(self.row_keys, grid, strict=True):
            new_group = threads != prior_threads
            if new_group:
                prior_threads, prior_env, group = threads, "", group + 1
                groups.append([])
            rows.append(
                _Row(
                    row,
                    group,
                    render_env and env != prior_env,  # the env shows where it changes
                    env_len,
                    self.time_scale,
                    self._colorize,
                    threads if new_group else None,
                )
            )
            groups[-1].append(row)
            prior_env = env
        columns = tuple(
            _Column(
                [tuple(row[i] for row in g) for g in groups],
                self.time_scale,
                self.time_unit,
                self._trim,
                self._highlight_warnings,
            )
            for i in range(len(self.column_keys))
        )
        for row in rows:
            row.register_columns(columns)
        return tuple(rows), columns

    def render(self) -> str:
        string_rows = [[""] + self.column_keys]
        string_rows.extend(r.as_column_strings() for r in self.rows)
        n_cols = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend([""] * (n_cols - len(r)))
        widths = [max(len(cell) for cell in col) for col in zip(*string_rows, strict=True)]
        header = "  |  ".join(c.center(w) for c, w in zip(string_rows[0], widths, strict=True))
        lines = [header]
        for cells, row in zip(string_rows[1:], self.rows, strict=True):
            lines.extend(row.row_separator(len(header)))
            lines.append("  |  ".join(row.finalize_column_strings(cells, widths)))
        title = f" {self.label or ''} ".center(len(header) - 2, "-")
        has_warnings = self._highlight_warnings and any(r.has_warnings for r in self.results)
        note = (
            "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
            if has_warnings
            else ""
        )
        body = "\n".join(lines)
        unit = self.time_unit
        return (
            f"[{title}]\n{body}\n\nTimes are in {common.unit_to_english(unit)}s ({unit}).\n{note}"
        )


class Compare:
    """Tabulate Measurements: one table per label, rows by sub_label, columns by description.

    Example:
        >>> from ember.utils.benchmark import Timer
        >>> ms = [Timer("x + 1", setup=f"x = {n}", label="add", sub_label=str(n),
        ...             description="int").timeit(100) for n in (1, 2)]
        >>> c = Compare(ms)
        >>> c.trim_significant_figures()
        >>> "add" in str(c)
        True
    """

    def __init__(self, results: list[common.Measurement]) -> None:
        self._results: list[common.Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        """Add measurements (each must be a ``Measurement``)."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Show only the digits each measurement's spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Color cells by how far each is from the best of its column (or row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Flag cells with a high interquartile range, ``(! XX%)``."""
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self) -> list[str]:
        by_label = collections.defaultdict(list)
        for r in common.Measurement.merge(self._results):
            by_label[r.label].append(r)
        return [
            Table(
                group, self._colorize, self._trim_significant_figures, self._highlight_warnings
            ).render()
            for group in by_label.values()
        ]
