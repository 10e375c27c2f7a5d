"""``ember.profiler``: torch.profiler's API over a small, truthful CPU profiler.

What it records: the wall-clock ranges of ``record_function`` blocks (``time.perf_counter``),
nested, with their self time (total minus the recorded ranges inside them). What it does not
record (torch's Kineto does): individual ops (``aten::add``...), input shapes, memory, FLOPs,
stacks and devices; the matching ``profile`` flags are accepted and have no effect. So
``key_averages().table()`` lists the user's labelled ranges, and an unlabelled program shows
an empty table. ``schedule``, ``step`` and ``on_trace_ready`` work as in torch, and
``export_chrome_trace``/``tensorboard_trace_handler`` write Chrome-trace JSON.

Example:
    >>> with ember.profiler.profile() as prof:
    ...     with ember.profiler.record_function("forward"):
    ...         y = ember.ones(3) + 1
    >>> [e.key for e in prof.key_averages()]
    ['forward']
"""

from __future__ import annotations

import enum
import functools
import os
import time

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "kineto_available",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """The kinds of activity torch can trace (ember records CPU ranges only)."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does at a step (the value a ``schedule`` returns)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities() -> set:
    """The activities this build can profile: the CPU."""
    return {ProfilerActivity.CPU}


def kineto_available() -> bool:
    """False: ember has no Kineto (its own profiler records ``record_function`` ranges)."""
    return False


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
):
    """A step -> :class:`ProfilerAction` function: skip ``skip_first`` steps, then cycles of
    ``wait`` idle, ``warmup`` warming and ``active`` recording steps (the last one saves),
    ``repeat`` times (0: forever).

    Example:
        >>> s = ember.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
        >>> [s(i).name for i in range(5)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        import warnings

        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait  # the first cycle starts without its wait
        w = wait
        num_steps = w + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod = step % num_steps
        if mod < w:
            return ProfilerAction.NONE
        if mod < w + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


# the recording profilers (innermost last) and the open ranges
_active: list = []


class _Event:
    __slots__ = ("name", "start", "end", "children_time", "depth")

    def __init__(self, name: str, start: float, depth: int):
        self.name, self.start, self.end, self.children_time, self.depth = (
            name,
            start,
            0.0,
            0.0,
            depth,
        )


class FunctionEventAvg:
    """The aggregate of the ranges with one name: ``key``, ``count``, ``cpu_time_total`` and
    ``self_cpu_time_total`` (microseconds), ``cpu_time`` (average)."""

    def __init__(self, key: str):
        self.key, self.count = key, 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.device_time_total = self.self_device_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.is_user_annotation = True

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
            f"cpu_time={self.cpu_time:.3f}us count={self.count}>"
        )


def _fmt_us(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class EventList(list):
    """A list of events (``key_averages()`` gives one aggregate per name) with ``table()``."""

    def table(self, sort_by=None, row_limit: int = 100, max_name_column_width: int = 55, **_):
        """A text table: name, self CPU %, self CPU, CPU total %, CPU total, average, calls
        (sorted by ``sort_by``, e.g. ``'cpu_time_total'``, descending)."""
        rows = list(self)
        if sort_by is not None:
            key = sort_by.replace("self_cpu_time", "self_cpu_time_total").replace(
                "_total_total", "_total"
            )
            rows.sort(key=lambda e: getattr(e, key, 0.0), reverse=True)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        total = sum(e.self_cpu_time_total for e in self) or 1.0
        width = max([4, *(len(e.key) for e in rows)])
        width = min(width, max_name_column_width)
        heads = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        line = "-" * width + "  " + "  ".join("-" * 12 for _ in heads) + "  "
        out = [line, "Name".rjust(width) + "  " + "  ".join(h.rjust(12) for h in heads) + "  "]
        out.append(line)
        for e in rows:
            cells = [
                f"{100 * e.self_cpu_time_total / total:.2f}%",
                _fmt_us(e.self_cpu_time_total),
                f"{100 * e.cpu_time_total / total:.2f}%",
                _fmt_us(e.cpu_time_total),
                _fmt_us(e.cpu_time),
                str(e.count),
            ]
            out.append(e.key[:width].rjust(width) + "  " + "  ".join(c.rjust(12) for c in cells))
        out.append(line)
        out.append(f"Self CPU time total: {_fmt_us(sum(e.self_cpu_time_total for e in self))}")
        return "\n".join(out) + "\n"

    def total_average(self) -> FunctionEventAvg:
        avg = FunctionEventAvg("Total")
        for e in self:
            avg.count += e.count
            avg.cpu_time_total += e.cpu_time_total
            avg.self_cpu_time_total += e.self_cpu_time_total
        return avg

    def __str__(self) -> str:
        return self.table()


class profile:
    """Record ``record_function`` ranges while active (see the module notes for what is and
    is not recorded). With a ``schedule``, call ``step()`` once per iteration: ranges are kept
    in RECORD steps, and ``on_trace_ready(prof)`` runs at each RECORD_AND_SAVE step's end."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events: bool = False,
        use_cuda=None,
        custom_trace_id_callback=None,
        post_processing_timeout_s=None,
    ):
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.acc_events = acc_events
        self.step_num = 0
        self._events: list[_Event] = []
        self._stack: list[_Event] = []
        self._recording = False

    def _action(self) -> ProfilerAction:
        if self.schedule is None:
            return ProfilerAction.RECORD
        return self.schedule(self.step_num)

    def start(self) -> None:
        self._enter_step()
        _active.append(self)

    def stop(self) -> None:
        if self in _active:
            _active.remove(self)
        if self._recording and self.on_trace_ready:
            self.on_trace_ready(self)
        self._recording = False

    def _enter_step(self) -> None:
        action = self._action()
        rec = action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if rec and not self._recording and not self.acc_events:
            self._events = []  # a new recording window
        self._recording = rec

    def step(self) -> None:
        """Mark the end of a training step (advances the schedule)."""
        prev = self._action()
        if prev == ProfilerAction.RECORD_AND_SAVE and self.on_trace_ready:
            self.on_trace_ready(self)
        self.step_num += 1
        if prev == ProfilerAction.RECORD_AND_SAVE:
            self._recording = False  # the next RECORD step starts a new window
        self._enter_step()

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- recording (called by record_function) -------------------------------------------------
    def _push(self, name: str, t: float) -> _Event | None:
        if not self._recording:
            return None
        ev = _Event(name, t, len(self._stack))
        self._stack.append(ev)
        return ev

    def _pop(self, ev: _Event, t: float) -> None:
        ev.end = t
        if self._stack and self._stack[-1] is ev:
            self._stack.pop()
        if self._stack:
            self._stack[-1].children_time += t - ev.start
        self._events.append(ev)

    # ---- results -----------------------------------------------------------------------------
    def events(self) -> EventList:
        """The recorded ranges, one aggregate per range (in the order they ended)."""
        out = EventList()
        for ev in self._events:
            a = FunctionEventAvg(ev.name)
            a.count = 1
            a.cpu_time_total = (ev.end - ev.start) * 1e6
            a.self_cpu_time_total = (ev.end - ev.start - ev.children_time) * 1e6
            out.append(a)
        return out

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, **_):
        """One aggregate per range name: calls, total and self CPU time (microseconds)."""
        table: dict[str, FunctionEventAvg] = {}
        for e in self.events():
            a = table.get(e.key)
            if a is None:
                a = table[e.key] = FunctionEventAvg(e.key)
            a.count += 1
            a.cpu_time_total += e.cpu_time_total
            a.self_cpu_time_total += e.self_cpu_time_total
        return EventList(table.values())

    def export_chrome_trace(self, path: str) -> None:
        """Write the ranges as a Chrome trace (JSON ``traceEvents``; gzip if ``.gz``)."""
        import gzip
        import json

        t0 = min((ev.start for ev in self._events), default=0.0)
        pid = os.getpid()
        events = [
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": ev.name,
                "pid": pid,
                "tid": 0,
                "ts": (ev.start - t0) * 1e6,
                "dur": (ev.end - ev.start) * 1e6,
            }
            for ev in self._events
        ]
        data = json.dumps({"traceEvents": events, "displayTimeUnit": "ms"})
        if path.endswith(".gz"):
            with gzip.open(path, "wt") as f:
                f.write(data)
        else:
            with open(path, "w") as f:
                f.write(data)


class record_function:
    """Label a block (``with``) or a function (decorator): its wall-clock range is recorded by
    every active :class:`profile`, and costs one check when none is active.

    Example:
        >>> with ember.profiler.record_function("load"):
        ...     pass
    """

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self.args = args
        self._open: list = []

    def __enter__(self) -> record_function:
        if _active:
            t = time.perf_counter()
            self._open = [(p, p._push(self.name, t)) for p in _active]
        return self

    def __exit__(self, *exc) -> None:
        if self._open:
            t = time.perf_counter()
            for p, ev in self._open:
                if ev is not None:
                    p._pop(ev, t)
            self._open = []

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapped


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False, use_python_export=False
):
    """An ``on_trace_ready`` callback that writes each trace as
    ``{dir_name}/{worker_name}.{timestamp}.pt.trace.json`` (``.gz`` with ``use_gzip``)."""

    def handler_fn(prof) -> None:
        import socket

        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn
