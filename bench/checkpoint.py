"""Checkpoint workload: save and load a ~100M-parameter state dict, ember against PyTorch.

The model is BENCHMARKS.md's ``construct`` model, 10 x ``Linear(3162, 3162)`` (100.0M float32
parameters, 400 MB). Both libraries write PyTorch's zip format to a temporary folder; we time
``save`` to a path (ember's is atomic: temporary file, fsync, rename; PyTorch's overwrites in
place without fsync, so ember's time includes writing 403 MB to the disk), ``save`` to an open
file object (no fsync: the like-for-like comparison), ``load`` (reads every byte) and
``load(mmap=True)`` (maps the file; no data is read until used). Registered in ``bench/run.py``
as ``checkpoint``; ``python bench/checkpoint.py`` runs it alone.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np

import ember

try:
    import torch
except ImportError:  # the script must run without torch
    torch = None


def _state(width: int, depth: int):
    rng = np.random.default_rng(0)
    arrays = {}
    for i in range(depth):
        arrays[f"{i}.weight"] = rng.standard_normal((width, width), dtype=np.float32)
        arrays[f"{i}.bias"] = rng.standard_normal(width, dtype=np.float32)
    ember_sd = {k: ember.from_numpy(v) for k, v in arrays.items()}
    torch_sd = {k: torch.from_numpy(v.copy()) for k, v in arrays.items()} if torch else None
    return ember_sd, torch_sd


def _rate(n: int, me: float, mt: float | None) -> None:
    """Print the throughput of the last comparison (times in ms) in GB/s."""
    gb = n * 4 / 1e9
    print(
        f"  {'':<40} ember {gb / me * 1e3:7.2f} GB/s"
        + (f"   torch {gb / mt * 1e3:7.2f} GB/s" if mt else "")
    )


def run(quick: bool, compare) -> dict:
    """Time the workload with ``compare(label, ember_fn, torch_fn, number, rounds, unit)``
    (bench/run.py's); returns the ratios ember/PyTorch by label."""
    width, depth = (256, 4) if quick else (3162, 10)
    ember_sd, torch_sd = _state(width, depth)
    n = sum(v.numel() for v in ember_sd.values())
    print(
        f"  state dict: {depth} x Linear({width}, {width}) = {n / 1e6:.1f}M float32 "
        f"parameters, {n * 4 / 1e6:.0f} MB"
    )
    folder = tempfile.mkdtemp(prefix="ember-bench-")
    e_path, t_path = os.path.join(folder, "ember.pt"), os.path.join(folder, "torch.pt")
    rounds = 5
    ratios = {}
    try:

        def tsave():
            torch.save(torch_sd, t_path)

        me, mt = compare(
            "save (path: atomic, fsync)",
            lambda: ember.save(ember_sd, e_path),
            torch and tsave,
            1,
            rounds=rounds,
            unit="ms",
        )
        ratios["save"] = mt and me / mt
        _rate(n, me, mt)

        def save_to_file_object():  # what torch.save(path) does: no temporary file, no fsync
            with open(e_path, "wb") as f:
                ember.save(ember_sd, f)

        me, mt = compare(
            "save (open file object)",
            save_to_file_object,
            torch and tsave,
            1,
            rounds=rounds,
            unit="ms",
        )
        ratios["save file object"] = mt and me / mt
        if torch is None:
            ember.save(ember_sd, t_path)

        def check(sd):
            assert len(sd) == 2 * depth
            return sd

        me, mt = compare(
            "load",
            lambda: check(ember.load(t_path)),
            torch and (lambda: check(torch.load(e_path))),
            1,
            rounds=rounds,
            unit="ms",
        )
        ratios["load"] = mt and me / mt
        _rate(n, me, mt)
        me, mt = compare(
            "load, mmap=True",
            lambda: check(ember.load(t_path, mmap=True)),
            torch and (lambda: check(torch.load(e_path, mmap=True))),
            1,
            rounds=rounds,
            unit="ms",
        )
        ratios["load mmap"] = mt and me / mt
        out = ember.load(t_path)
        for k, v in ember_sd.items():  # what was read is what was written
            assert ember.equal(out[k], v), k
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return ratios


if __name__ == "__main__":
    import argparse
    import sys

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from bench.run import compare

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    print(run(p.parse_args().quick, compare))
