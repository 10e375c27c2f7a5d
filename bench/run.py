"""Benchmarks: ember and PyTorch side by side in one process run.

Each workload is timed for ember and for PyTorch (CPU eager, same thread count), alternating
A B A B after warm-up; we report the median time of each and the ratio ember/PyTorch (lower is
better). ``python -m bench`` runs them all, ``--quick`` runs tiny sizes as a smoke check,
``--only NAME`` runs one workload. Without PyTorch installed, ember's figures are printed alone.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import ember

try:
    from bench import checkpoint, tensorlib, train
except ImportError:  # run as a script: python bench/run.py
    import checkpoint
    import tensorlib
    import train

try:
    import torch
except ImportError:  # the script must run without torch
    torch = None

WORKLOADS = {}
ROWS = []  # (workload, measurement, ember, torch or None, unit): the final table
_current = [""]  # the workload now running, for compare() to file its rows under


def workload(name):
    def deco(fn):
        WORKLOADS[name] = fn
        return fn

    return deco


def timeit(fn, number):
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def compare(label, ember_fn, torch_fn, number, rounds=7, unit="us"):
    """Alternate ember and torch timings; print medians and the ratio. Returns the medians."""
    scale = {"us": 1e6, "ms": 1e3, "s": 1.0}[unit]
    ember_fn(), torch_fn and torch_fn()  # warm-up
    timeit(ember_fn, max(1, number // 10))
    if torch_fn:
        timeit(torch_fn, max(1, number // 10))
    te, tt = [], []
    for _ in range(rounds):
        te.append(timeit(ember_fn, number))
        if torch_fn:
            tt.append(timeit(torch_fn, number))
    me = statistics.median(te) * scale
    ROWS.append((_current[0], label, me, statistics.median(tt) * scale if torch_fn else None, unit))
    if torch_fn:
        mt = statistics.median(tt) * scale
        print(
            f"  {label:<40} ember {me:10.3f} {unit}   torch {mt:10.3f} {unit}   "
            f"ratio {me / mt:6.2f}"
        )
        return me, mt
    print(f"  {label:<40} ember {me:10.3f} {unit}")
    return me, None


@workload("matmul-peak")
def matmul_peak(quick):
    n = 256 if quick else 2048
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal((n, n), dtype=np.float32)
    b_np = rng.standard_normal((n, n), dtype=np.float32)
    a, b = ember.from_numpy(a_np), ember.from_numpy(b_np)
    flop = 2 * n**3
    number = 20 if quick else 3
    me, mn = compare(
        f"matmul {n}^3 float32 (vs NumPy)", lambda: a @ b, lambda: a_np @ b_np, number, unit="ms"
    )
    print(
        f"  {'':<40} ember {flop / me / 1e6:8.1f} GFLOP/s   NumPy {flop / mn / 1e6:8.1f} "
        f"GFLOP/s   ember/NumPy throughput {mn / me:5.2f}"
    )
    if torch is not None:
        ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
        compare(
            f"matmul {n}^3 float32 (vs torch)", lambda: a @ b, lambda: ta @ tb, number, unit="ms"
        )


@workload("op-overhead")
def op_overhead(quick):
    number = 2000 if quick else 200000
    for rg in (False, True):
        a = ember.ones(16, requires_grad=rg)
        b = ember.ones(16, requires_grad=rg)
        tfn = None
        if torch is not None:
            ta = torch.ones(16, requires_grad=rg)
            tb = torch.ones(16, requires_grad=rg)
            tfn = lambda ta=ta, tb=tb: ta + tb  # noqa: E731
        compare(f"a + b (16,), requires_grad={rg}", lambda a=a, b=b: a + b, tfn, number)
    a = ember.ones(16, requires_grad=True)
    b = ember.ones(16, requires_grad=True)
    tfn = None
    if torch is not None:
        ta = torch.ones(16, requires_grad=True)
        tb = torch.ones(16, requires_grad=True)
        tfn = lambda: (ta + tb).sum().backward()  # noqa: E731
    compare("(a + b).sum().backward() (16,)", lambda: (a + b).sum().backward(), tfn, number // 10)


@workload("linear-call")
def linear_call(quick):
    number = 2000 if quick else 100000
    ember.manual_seed(0)
    lin = ember.nn.Linear(16, 16)
    x = ember.randn(1, 16)
    tlin = tx = None
    if torch is not None:
        tlin = torch.nn.Linear(16, 16)
        tx = torch.randn(1, 16)
    compare(
        "nn.Linear(16, 16) on (1, 16), grad", lambda: lin(x), tlin and (lambda: tlin(tx)), number
    )

    def no_grad(mod, inp, ng):
        def run():
            with ng():
                mod(inp)

        return run

    compare(
        "nn.Linear(16, 16) on (1, 16), no_grad",
        no_grad(lin, x, ember.no_grad),
        tlin and no_grad(tlin, tx, torch.no_grad),
        number,
    )


def _train_workload(name, builder, what):
    def run(quick):
        print(f"  {what}")
        try:
            ember_step = builder(ember, quick)
            ember_step()  # the first call builds lazily allocated state (momentum buffers)
        except (NotImplementedError, AttributeError) as e:
            print(f"  ember cannot run this workload yet: {type(e).__name__}: {e}")
            return
        torch_step = builder(torch, quick) if torch is not None else None
        t0 = time.perf_counter()
        ember_step()
        once = time.perf_counter() - t0
        number = max(1, min(200, int(0.25 / max(once, 1e-6))))
        me, mt = compare(name, ember_step, torch_step, number, rounds=5 if quick else 7, unit="ms")
        if name == "mlp-large":
            flop = train.mlp_large_flop(quick)
            extra = f"   torch {flop / mt / 1e6:8.1f} GFLOP/s" if mt else ""
            print(f"  {'':<40} ember {flop / me / 1e6:8.1f} GFLOP/s{extra}")

    return run


for _name, (_builder, _what) in train.TRAIN_WORKLOADS.items():
    workload(_name)(_train_workload(_name, _builder, _what))


workload("checkpoint")(lambda quick: checkpoint.run(quick, compare))
for _name in ("linalg", "fft", "sparse-mm", "bf16-linear", "import"):
    workload(_name)(lambda quick, n=_name: tensorlib.run(n, quick, compare, ember, torch))


def _rss_peak_reset() -> bool:
    """Reset the process's peak RSS (Linux); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _rss_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def _peak_growth_mb(build) -> float | None:
    """Peak resident memory added while ``build()`` runs (MB), or None if unmeasurable."""
    import gc

    gc.collect()
    if not _rss_peak_reset():
        return None
    base = _rss_kb("VmRSS")
    model = build()
    peak = _rss_kb("VmHWM")
    del model
    gc.collect()
    return (peak - base) / 1024


@workload("construct")
def construct(quick):
    width, depth = (316, 10) if quick else (3162, 10)
    print(
        f"  model: {depth} x Linear({width}, {width}) = "
        f"{depth * (width * width + width) / 1e6:.1f}M parameters"
    )

    def builder(nn, **kw):
        return lambda: nn.Sequential(*[nn.Linear(width, width, **kw) for _ in range(depth)])

    tnn = torch.nn if torch is not None else None
    for label, kw, number in (
        ("normal (cpu)", {}, 1),
        ('device="meta"', {"device": "meta"}, 20 if quick else 200),
    ):
        eb = builder(ember.nn, **kw)
        tb = tnn and builder(tnn, **kw)
        compare(f"build, {label}", eb, tb, number, rounds=3 if not kw else 7, unit="ms")
        me = _peak_growth_mb(eb)
        mt = _peak_growth_mb(tb) if tb else None
        if me is not None:
            extra = f"   torch {mt:8.1f} MB" if mt is not None else ""
            print(f"  {'':<40} peak RSS growth: ember {me:8.1f} MB{extra}")
    if not quick:  # issue 3: a 10-billion-parameter model on meta in under a second
        big_width, big_depth = 10_000, 100
        eb = lambda: ember.nn.Sequential(
            *[
                ember.nn.Linear(big_width, big_width, device="meta")  # noqa: E731
                for _ in range(big_depth)
            ]
        )
        tb = tnn and (
            lambda: tnn.Sequential(
                *[tnn.Linear(big_width, big_width, device="meta") for _ in range(big_depth)]
            )
        )
        compare(f"build {big_depth} x Linear({big_width}), meta", eb, tb, 5, rounds=5, unit="ms")
        me = _peak_growth_mb(eb)
        if me is not None:
            print(f"  {'':<40} peak RSS growth: ember {me:8.1f} MB (10.0B parameters)")


def describe():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    blas = ""
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {}).get("name", "")
    except Exception:  # noqa: BLE001  (best effort description)
        pass
    lines = [
        f"date: {time.strftime('%Y-%m-%d')}",
        f"cpu: {cpu}, {os.cpu_count()} cores",
        f"python {sys.version.split()[0]}, numpy {np.__version__} (BLAS: {blas or 'unknown'})",
        f"torch {torch.__version__ if torch else 'not installed'}"
        + (f", threads {torch.get_num_threads()}" if torch else ""),
    ]
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes (smoke check)")
    p.add_argument("--only", action="append", choices=sorted(WORKLOADS), help="run one workload")
    args = p.parse_args(argv)
    print(describe())
    for name, fn in WORKLOADS.items():
        if args.only and name not in args.only:
            continue
        print(f"\n[{name}]")
        _current[0] = name
        fn(args.quick)
    print("\n" + table(ROWS))


def table(rows) -> str:
    """The run's results as one Markdown table (ember, PyTorch, ratio ember/PyTorch)."""
    lines = ["| workload | measurement | ember | PyTorch | ratio |", "|---|---|---:|---:|---:|"]
    for name, label, me, mt, unit in rows:
        theirs = f"{mt:.3f} {unit}" if mt is not None else "-"
        ratio = f"{me / mt:.2f}" if mt else "-"
        lines.append(f"| {name} | {label} | {me:.3f} {unit} | {theirs} | {ratio} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
