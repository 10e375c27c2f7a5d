"""The glibc malloc tuning of ember/backend/_malloc.py: applied on import, opt-out by
environment, and what it is for (no page faults from re-growing the heap every step)."""

import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="the malloc tuning applies to glibc only",
)

# A step that frees and reallocates large arrays, as a training loop does; prints the minor
# page faults of 200 steps after a warm-up.
_STEPS = """
import resource
import ember  # noqa: F401
import numpy as np
from ember.backend import _malloc

def step():
    g = [np.ones(200_000, np.float32) for _ in range(4)]
    t = [x * 0.5 for x in g]
    del g, t

step()
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(200):
    step()
print(_malloc.top_pad, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
"""


def _run(pad=None):
    env = {k: v for k, v in os.environ.items() if k != "EMBER_MALLOC_TOP_PAD"}
    if pad is not None:
        env["EMBER_MALLOC_TOP_PAD"] = str(pad)
    out = subprocess.run(
        [sys.executable, "-c", _STEPS], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    return int(out[0]), int(out[1])


def test_import_pads_the_heap_top_and_steps_stop_faulting_pages_in():
    pad, tuned = _run()
    off, untuned = _run(0)
    assert pad == 64 << 20 and off == 0
    # 800 KB arrays freed and taken again 200 times: with the padding the pages stay mapped
    assert tuned < 1000 < untuned, (tuned, untuned)


def test_the_amount_is_set_by_the_environment():
    pad, _ = _run(16 << 20)
    assert pad == 16 << 20
