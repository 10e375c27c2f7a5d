"""``Timer``: time a Python statement, as ``torch.utils.benchmark.Timer``.

Over the standard library's ``timeit.Timer``, with what torch adds: the thread count is set for
the measurement (``ember.set_num_threads``), tiny times are clamped to 1 ns, the block size is
chosen from the timer's own overhead (``blocked_autorange``), blocks repeat until the spread is
small enough (``adaptive_autorange``), and every result is a ``Measurement`` that ``Compare``
tabulates.
"""

from __future__ import annotations

import enum
import textwrap
import timeit as _timeit_module
from collections.abc import Callable
from typing import Any, NoReturn

from ember.utils.benchmark.utils import common

__all__ = ["Language", "Timer", "timer"]


def timer() -> float:
    """The default clock: ``timeit.default_timer`` (ember's devices run synchronously, so there
    is no pending accelerator work to wait for first)."""
    return _timeit_module.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


_NO_CPP = (
    "Timer(language='c++') is not supported: ember has no C++ runtime to compile the statement "
    "against; time the Python statement instead"
)
_NO_CALLGRIND = (
    "Timer.collect_callgrind is not supported: instruction counts come from Valgrind running "
    "torch's C++ build; ember is pure Python, so time it with blocked_autorange or profile it "
    "with cProfile"
)


class Timer:
    """Time ``stmt`` after ``setup``, in a namespace of ``globals`` (plus ``torch`` and
    ``ember``, both this library, so statements written for torch run unchanged).

    Args:
        stmt: the statement to time (a string).
        setup: run once before timing.
        global_setup: C++ only in torch; a Python timer refuses it.
        timer: the clock (seconds as a float).
        globals: names the statement reads.
        label, sub_label, description, env: how ``Compare`` groups the result (label: table,
            sub_label: row, description: column).
        num_threads: the intra-op thread count while timing.
        language: ``"python"`` (``Language.PYTHON``); C++ is not supported.

    Example:
        >>> t = Timer("x + 1", setup="x = ember.ones(3)")
        >>> m = t.timeit(100)
        >>> m.number_per_run, len(m.raw_times)
        (100, 1)
    """

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(_NO_CPP)
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most likely this code can "
                "simply be moved to `setup`."
            )
        import ember

        self._globals = dict(globals or {})
        # NOTE: matches torch: its Timer puts `torch` in the namespace; here that is ember
        self._globals.setdefault("torch", ember)
        self._globals.setdefault("ember", ember)
        self._language = Language.PYTHON
        stmt, setup = _clean(stmt), _clean(setup)
        self._timer = _timeit_module.Timer(
            stmt=stmt, setup=setup, timer=timer, globals=self._globals
        )
        self._task_spec = common.TaskSpec(
            stmt=stmt,
            setup=setup,
            global_setup=global_setup,
            label=label,
            sub_label=sub_label,
            description=description,
            env=env,
            num_threads=num_threads,
        )

    def _timeit(self, number: int) -> float:
        # A zero time would break the overhead ratio and the log10 of the unit choice.
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Time ``number`` runs as one block, after a warm-up of ``number // 100`` (at least 2).

        Example:
            >>> Timer("pass").timeit(10).number_per_run
            10
        """
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))  # warm-up: caches, lazy imports
            return common.Measurement(
                number_per_run=number,
                raw_times=[self._timeit(number=number)],
                task_spec=self._task_spec,
            )

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        # NOTE: matches torch: it keeps timeit.Timer's name but refuses, pointing at the
        # method that picks the block size itself
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], NoReturn] | None = None) -> None:
        # NOTE: matches torch (see repeat)
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(
        self,
        number: int,
        stop: Callable[[list[float]], bool],
        min_run_time: float,
        max_run_time: float | None = None,
        callback: Callable[[int, float], NoReturn] | None = None,
    ) -> list[float]:
        """Time blocks of ``number`` runs until ``min_run_time`` is spent and ``stop`` agrees,
        or ``max_run_time`` is passed."""
        total, can_stop, times = 0.0, False, []
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The smallest power of ten of runs per block whose time dwarfs the timer's own
        overhead (under 0.01%) and is at least a thousandth of ``min_run_time``."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overheads = sorted(self._timeit(0) for _ in range(5))
            overhead = overheads[2]
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:  # int32 runs, as torch
                    break
                number *= 10
        return number

    def blocked_autorange(
        self,
        callback: Callable[[int, float], NoReturn] | None = None,
        min_run_time: float = 0.2,
    ) -> common.Measurement:
        """Choose a block size, then time blocks until ``min_run_time`` seconds are spent.

        ``callback(number, seconds)`` is called after each block.

        Example:
            >>> m = Timer("pass").blocked_autorange(min_run_time=0.01)
            >>> len(m.raw_times) >= 1
            True
        """
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(
            number, lambda times: True, min_run_time=min_run_time, callback=callback
        )
        return common.Measurement(number, times, self._task_spec)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback: Callable[[int, float], NoReturn] | None = None,
    ) -> common.Measurement:
        """Time blocks until their interquartile range is under ``threshold`` times the median
        (judged from the fifth block on), at least ``min_run_time`` and at most
        ``max_run_time`` seconds.

        Example:
            >>> m = Timer("pass").adaptive_autorange(max_run_time=0.1)
            >>> m.number_per_run >= 1
            True
        """
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times: list[float]) -> bool:
            if len(times) <= 3:
                return False
            return common.Measurement(number, times, self._task_spec).meets_confidence(threshold)

        times = self._measurement_loop(number, stop, min_run_time, max_run_time, callback)
        return common.Measurement(number, times, self._task_spec)

    def collect_callgrind(
        self,
        number: int = 100,
        *,
        repeats: int | None = None,
        collect_baseline: bool = True,
        retain_out_file: bool = False,
    ) -> Any:
        raise NotImplementedError(_NO_CALLGRIND)


def _clean(code: str) -> str:
    """Dedent, and drop a leading newline and trailing whitespace (a triple-quoted block)."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()
