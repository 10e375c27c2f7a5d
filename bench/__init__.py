"""ember's benchmarks against PyTorch (see bench/run.py)."""
