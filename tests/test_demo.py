"""The README's first command runs ``python -m ember``: it must work and learn XOR."""

import subprocess
import sys


def test_demo_runs_and_learns_xor():
    out = subprocess.run([sys.executable, "-m", "ember"], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert "MLP(" in out and "(fc1): Linear(in_features=2, out_features=8, bias=True)" in out
    assert "predictions: [0.0, 1.0, 1.0, 0.0]" in out
