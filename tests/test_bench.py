"""``python -m bench --quick`` is CI's smoke test of the benchmarks: every workload runs on tiny
sizes and the final table lists them all. No timing is asserted (timings belong in
bench/RESULTS.md, measured side by side with PyTorch)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from bench import run

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_quick_run_covers_every_workload_and_prints_one_table():
    out = subprocess.run(
        [sys.executable, "-m", "bench", "--quick"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    table = out[out.index("| workload | measurement |") :].splitlines()
    assert table[1].startswith("|---")
    listed = {line.split("|")[1].strip() for line in table[2:]}
    assert listed == set(run.WORKLOADS), listed ^ set(run.WORKLOADS)
    for line in table[2:]:
        ember_cell = line.split("|")[3].strip()
        assert float(ember_cell.split()[0]) > 0, line


def test_table_formats_ratios_and_missing_torch():
    rows = [("w", "with torch", 2.0, 4.0, "ms"), ("w", "ember alone", 1.0, None, "us")]
    text = run.table(rows)
    assert "| w | with torch | 2.000 ms | 4.000 ms | 0.50 |" in text
    assert "| w | ember alone | 1.000 us | - | - |" in text
