"""ember.utils.benchmark against torch.utils.benchmark: Timer's counting and block sizing (on a
fake clock, so no assertion depends on real timings), Measurement's statistics and repr, and
Compare's table, from the same raw times."""

from __future__ import annotations

import random

import pytest

import ember
from ember.utils import benchmark as B

try:
    import torch
    import torch.utils.benchmark as TB
except ImportError:
    torch = TB = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch (pip install torch)")


def _fake_clock(step: float):
    """A clock that advances by ``step`` each time the statement runs: block times are then
    exact functions of the run count, whatever the machine's speed."""
    now = [0.0]
    return now, "now[0] += step", {"now": now, "step": step}, (lambda: now[0])


# ---- Timer ---------------------------------------------------------------------------------------
def test_timeit_runs_a_warm_up_then_the_block():
    calls = []
    m = B.Timer("calls.append(1)", globals={"calls": calls}).timeit(500)
    assert len(calls) == 5 + 500  # warm-up of number // 100 (at least 2), then the block
    assert m.number_per_run == 500 and len(m.raw_times) == 1
    assert m.times == [m.raw_times[0] / 500]


def test_timer_namespace_and_setup():
    seen = []
    B.Timer("seen.append((torch, ember, x))", setup="x = 41 + 1", globals={"seen": seen}).timeit(2)
    assert seen[-1] == (ember, ember, 42)  # `torch` in a statement is ember, as after
    # `import ember as torch`
    # setup and stmt written as indented blocks are dedented
    B.Timer(
        """
        y = x
        seen.append(y)
    """,
        setup="""
        x = 7
    """,
        globals={"seen": seen},
    ).timeit(2)
    assert seen[-1] == 7


def test_num_threads_is_set_while_timing_and_restored():
    prior = ember.get_num_threads()
    seen = []
    B.Timer("seen.append(ember.get_num_threads())", globals={"seen": seen}, num_threads=3).timeit(4)
    assert set(seen) == {3} and ember.get_num_threads() == prior
    seen.clear()
    B.Timer("seen.append(ember.get_num_threads())", globals={"seen": seen}).blocked_autorange(
        min_run_time=0.001
    )
    assert set(seen) == {1} and ember.get_num_threads() == prior


def test_blocked_autorange_block_size_and_stop():
    now, stmt, globs, clock = _fake_clock(3e-6)
    calls = []
    m = B.Timer(stmt, timer=clock, globals=globs).blocked_autorange(
        callback=lambda n, t: calls.append((n, t)), min_run_time=0.2
    )
    # 100 runs of 3 us: the first block size whose time is >= min_run_time / 1000 (and whose
    # relative overhead, the 1 ns floor, is under 0.01%)
    assert m.number_per_run == 100
    assert sum(m.raw_times) >= 0.2 > sum(m.raw_times[:-1])
    assert calls == [(100, t) for t in m.raw_times]
    assert m.median == pytest.approx(3e-6)


def test_adaptive_autorange_stops_when_the_spread_is_small():
    _, stmt, globs, clock = _fake_clock(1e-5)
    m = B.Timer(stmt, timer=clock, globals=globs).adaptive_autorange(min_run_time=0.01)
    # constant blocks: confident from the fourth block on, so min_run_time decides
    assert m.number_per_run == 10 and sum(m.raw_times) >= 0.01 > sum(m.raw_times[:-1])
    assert len(m.raw_times) >= 4 and m.meets_confidence(0.1)


@needs_torch
@pytest.mark.parametrize("method", ["blocked_autorange", "adaptive_autorange", "timeit"])
def test_timer_counts_match_torch_on_the_same_clock(method):
    results = []
    for lib in (B, TB):
        _, stmt, globs, clock = _fake_clock(7e-6)
        timer = lib.Timer(stmt, timer=clock, globals=globs)
        m = timer.timeit(300) if method == "timeit" else getattr(timer, method)()
        results.append((m.number_per_run, m.raw_times, globs["now"][0]))
    assert results[0] == results[1]


@needs_torch
@pytest.mark.parametrize("kwargs", [{"stmt": 1}, {"global_setup": "int x;"}, {"language": "f"}])
def test_timer_refusals_match_torch(kwargs):
    with pytest.raises(ValueError) as theirs:
        TB.Timer(**kwargs)
    with pytest.raises(ValueError) as ours:
        B.Timer(**kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("language", ["c++", "cpp", B.Language.CPP])
def test_cpp_statements_say_why(language):
    with pytest.raises(NotImplementedError, match="no C.. runtime"):
        B.Timer("int x = 1;", language=language)


@needs_torch
@pytest.mark.parametrize("method", ["repeat", "autorange"])
def test_repeat_and_autorange_refuse_as_torch(method):
    msgs = []
    for lib in (B, TB):
        with pytest.raises(NotImplementedError) as info:
            getattr(lib.Timer(), method)()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_collect_callgrind_says_why():
    with pytest.raises(NotImplementedError, match="Valgrind"):
        B.Timer("pass").collect_callgrind()


# ---- Measurement ---------------------------------------------------------------------------------
SPECS = [
    {"stmt": "x + 1", "setup": "x = 1"},
    {"stmt": "x + 1", "setup": "pass", "label": "add", "sub_label": "int", "description": "d"},
    {"stmt": "y = x\ny + 1", "setup": "x = 1\nz = 2", "sub_label": "two", "num_threads": 4},
    {"stmt": "f()", "setup": "", "description": "a description", "env": "py3"},
]


def _raw(n: int, seed: int, scale: float = 1e-5, spread: float = 1.0) -> list[float]:
    rnd = random.Random(seed)
    return [scale * (1 + spread * rnd.random()) for _ in range(n)]


def test_measurement_statistics():
    m = B.Measurement(10, [4e-5, 1e-5, 3e-5, 2e-5, 5e-5], B.TaskSpec("f()", "pass"))
    assert m.times == pytest.approx([4e-6, 1e-6, 3e-6, 2e-6, 5e-6])
    assert m.median == pytest.approx(3e-6) and m.mean == pytest.approx(3e-6)
    assert m.iqr == pytest.approx(2e-6)  # quartiles 2 and 4 us
    assert m.has_warnings and not m.meets_confidence(0.5)  # IQR is 67% of the median
    assert m.meets_confidence(0.7)
    assert m.label is None and m.num_threads == 1 and m.stmt == "f()"
    assert B.Measurement(1, [1.0] * 8, B.TaskSpec("f()", "pass")).significant_figures == 4


@needs_torch
@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 9, 40])
@pytest.mark.parametrize("scale,spread", [(1e-8, 0.01), (1e-5, 1.0), (3e-3, 0.1), (2.0, 0.3)])
def test_measurement_matches_torch(spec, n, scale, spread):
    raw = _raw(n, seed=n, scale=scale, spread=spread)
    ours = B.Measurement(7, raw, B.TaskSpec(**spec))
    theirs = TB.Measurement(7, raw, TB.TaskSpec(**spec))
    for name in ("times", "median", "iqr", "significant_figures", "has_warnings", "title"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.mean == pytest.approx(theirs.mean, rel=1e-15)
    assert ours.meets_confidence(0.05) == theirs.meets_confidence(0.05)
    assert (ours.env, ours.as_row_name) == (theirs.env, theirs.as_row_name)
    # the first line is the object's default repr (its class path and address)
    assert repr(ours).split("\n")[0].startswith("<ember.utils.benchmark.utils.common.Measurement")
    assert repr(ours).split("\n")[1:] == repr(theirs).split("\n")[1:]


@needs_torch
def test_merge_matches_torch():
    specs = [SPECS[0], SPECS[1], SPECS[0]]
    ours = B.Measurement.merge(
        [B.Measurement(i + 1, _raw(3, i), B.TaskSpec(**s)) for i, s in enumerate(specs)]
    )
    theirs = TB.Measurement.merge(
        [TB.Measurement(i + 1, _raw(3, i), TB.TaskSpec(**s)) for i, s in enumerate(specs)]
    )
    assert [(m.number_per_run, m.raw_times, m.stmt, m.label) for m in ours] == [
        (m.number_per_run, m.raw_times, m.stmt, m.label) for m in theirs
    ]


@needs_torch
def test_unit_and_sigfig_helpers_match_torch():
    rnd = random.Random(0)
    for _ in range(2000):
        x = 10 ** rnd.uniform(-10, 3)
        n = rnd.randint(1, 4)
        assert B.select_unit(x) == TB.select_unit(x)
        assert B.trim_sigfig(x, n) == TB.trim_sigfig(x, n)
    for unit in ("ns", "us", "ms", "s"):
        assert B.unit_to_english(unit) == TB.unit_to_english(unit)
    assert B.ordered_unique([3, 1, 3, 2, 1]) == [3, 1, 2]


# ---- Compare -------------------------------------------------------------------------------------
def _grid(lib, seed=0, envs=(None,), labels=("matmul",), holes=()):
    """Measurements over labels x threads x envs x sub_labels x descriptions, with some cells
    left out (``holes``) and one cell measured twice (merged by Compare)."""
    rnd = random.Random(seed)
    out = []
    for label in labels:
        for threads in (1, 4):
            for env in envs:
                for sub in ("small", "a larger one"):
                    for desc in ("float32", "float64 (slow)"):
                        if (sub, desc) in holes:
                            continue
                        spec = lib.TaskSpec(
                            "x @ x",
                            "x = ones(8)",
                            label=label,
                            sub_label=sub,
                            description=desc,
                            env=env,
                            num_threads=threads,
                        )
                        spread = rnd.choice([0.01, 0.2, 1.0])
                        scale = 1e-6 * (1 + 10 * rnd.random()) * (3 if "slow" in desc else 1)
                        raw = _raw(rnd.randint(1, 12), rnd.randint(0, 99), scale, spread)
                        out.append(lib.Measurement(100, raw, spec))
    out.append(lib.Measurement(50, _raw(5, 1, 2e-4, 0.05), out[0].task_spec))
    return out


COMPARE_CASES = [
    {},
    {"envs": ("py311", "other env")},
    {"labels": ("matmul", "add")},
    {"holes": (("small", "float64 (slow)"),)},
]


@needs_torch
@pytest.mark.parametrize("case", COMPARE_CASES)
@pytest.mark.parametrize("options", ["", "trim", "colorize", "rowwise", "warnings", "all"])
def test_compare_table_matches_torch(case, options):
    tables = []
    for lib in (B, TB):
        c = lib.Compare(_grid(lib, **case)[:-3])
        c.extend_results(_grid(lib, **case)[-3:])
        if options in ("trim", "all"):
            c.trim_significant_figures()
        if options in ("colorize", "all"):
            c.colorize()
        if options == "rowwise":
            c.colorize(rowwise=True)
        if options in ("warnings", "all"):
            c.highlight_warnings()
        tables.append(str(c))
    assert tables[0] == tables[1]
    assert "Times are in" in tables[0]


def test_compare_prints_and_checks_its_input(capsys):
    c = B.Compare(_grid(B))
    c.print()
    out = capsys.readouterr().out
    assert out == str(c) + "\n" and "1 threads: " in out and "4 threads: " in out
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        c.extend_results([1.0])
