"""Every script in examples/ runs (exit code 0, nothing on stderr but the warnings it means to
show), is listed in examples/README.md, and prints what the same script prints under PyTorch.

The ember runs are one subprocess per script (`python examples/<name>.py` from the repository
root, as a user runs them). The PyTorch runs rewrite the script's ember import lines to torch
(`import ember as torch` -> `import torch as torch`, `from ember import nn` -> `from torch import
nn`) and run all of them in one interpreter (torch is imported once: ~2 s instead of ~2 s per
script). Scripts are discovered with glob, so a new example is run without touching this file;
COMPARE says how its output is compared with torch's (not at all until it has a row).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(
    not HAS_TORCH, reason="torch is the reference for this test (pip install torch)"
)
TIMEOUT = 60  # seconds per script; each takes a few (more while other processes share the CPU)

# Floating-point literals (with sign): random draws differ between ember and torch (different
# generators), so scripts whose numbers come from random init compare with these masked.
FLOATS = r"-?\d+\.\d*(?:e[-+]?\d+)?"
EXACT = ""  # nothing masked: the printed output must be identical
# script -> what to mask before comparing with torch's output. Scripts without a row are only
# run, not compared.
COMPARE = {
    "build_neural_network.py": FLOATS + r"|(?<=Predicted class: tensor\(\[)\d+",
    "building_blocks.py": FLOATS,
    "custom_module.py": FLOATS,
    "freezing.py": FLOATS,
    "hooks.py": EXACT,  # fixed weights: every number must match torch's
    "lora.py": FLOATS,
    "maml.py": FLOATS,
    "meta_and_lazy.py": EXACT,
    "module_init.py": FLOATS,
    "module_state.py": FLOATS,
    "saving_loading.py": EXACT,
    "training_basics.py": FLOATS,
    "training_loop.py": FLOATS,
    "unregistered_parameters.py": FLOATS,
    "what_is_torch_nn.py": FLOATS,
}
# Warnings a script exists to show: script -> (warning category, how many it prints). Each is
# removed from stderr with the source line Python echoes under it; what remains must be empty.
EXPECTED_WARNINGS = {
    "unregistered_parameters.py": ("RegistrationWarning", 3),
}

# One thread each and no sharing of cores between BLAS threads: the scripts run side by side.
ENV = {
    **os.environ,
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
}

_IMPORT_LINE = re.compile(r"^(import|from) ember(?=[\s.])", re.MULTILINE)


def as_torch(source: str) -> str:
    """The script with its ember import lines rewritten to torch."""
    return _IMPORT_LINE.sub(r"\1 torch", source)


# Runs each rewritten script with runpy under its own __main__ (so that pickling classes
# defined in the script works), capturing stdout; prints one JSON object.
_TORCH_DRIVER = r"""
import contextlib, io, json, os, runpy, sys, tempfile, traceback
import torch
torch.set_num_threads(1)
results = {}
with tempfile.TemporaryDirectory() as tmp:
    for name, source in json.load(sys.stdin).items():
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(source)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                runpy.run_path(path, run_name="__main__")
            results[name] = {"ok": True, "stdout": out.getvalue()}
        except BaseException:
            results[name] = {"ok": False, "stdout": out.getvalue(),
                             "error": traceback.format_exc()}
sys.stdout.write(json.dumps(results))
"""


def _run_ember(name: str) -> subprocess.CompletedProcess:
    # -W default: show every warning once, DeprecationWarnings raised inside ember included.
    return subprocess.run(
        [sys.executable, "-W", "default", f"examples/{name}"],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def _run_torch(names: list[str]) -> dict:
    sources = {n: as_torch((EXAMPLES / n).read_text()) for n in names}
    proc = subprocess.run(
        [sys.executable, "-c", _TORCH_DRIVER],
        cwd=ROOT,
        env=ENV,
        input=json.dumps(sources),
        capture_output=True,
        text=True,
        timeout=TIMEOUT * 2,
    )
    if proc.returncode != 0:
        return {n: {"ok": False, "stdout": "", "error": proc.stderr} for n in names}
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def runs():
    """All example runs, four at a time: name -> ember's process, and "torch" -> the torch
    driver's results."""
    compared = [n for n in SCRIPTS if n in COMPARE] if HAS_TORCH else []
    with ThreadPoolExecutor(max_workers=4) as pool:
        # One torch interpreter for all (importing torch and, at the first optimizer,
        # torch._dynamo costs seconds of CPU each time), started first: it is the longest job.
        torch_future = pool.submit(_run_torch, compared) if compared else None
        futures = {n: pool.submit(_run_ember, n) for n in SCRIPTS}
        results = {n: f.result() for n, f in futures.items()}
        results["torch"] = torch_future.result() if torch_future else {}
    return results


def strip_expected_warnings(name: str, stderr: str) -> tuple[str, int]:
    """stderr without the warnings the script means to show, and how many there were."""
    if name not in EXPECTED_WARNINGS:
        return stderr, 0
    category, _ = EXPECTED_WARNINGS[name]
    # "path:line: Category: message" and the indented source line Python echoes under it.
    pattern = re.compile(rf"^.*:\d+: {category}: .*\n(?:  .*\n)?", re.MULTILINE)
    return pattern.subn("", stderr)


def normalize(stdout: str, mask: str | None = None, from_ember: bool = False) -> str:
    """What is compared: ember's reprs say `ember.` where torch's say `torch.` (ember.Size,
    ember.float64); masked values become `#`; whitespace is dropped, because a tensor's repr
    pads and wraps by the width of its numbers."""
    if from_ember:
        stdout = re.sub(r"\bember\.", "torch.", stdout)
    if mask:
        stdout = re.sub(mask, "#", stdout)
    return re.sub(r"\s+", "", stdout)


def test_examples_exist():
    assert len(SCRIPTS) >= 10, SCRIPTS
    assert set(COMPARE) <= set(SCRIPTS), "COMPARE names a script that is not in examples/"
    assert set(EXPECTED_WARNINGS) <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_is_a_user_script(name):
    """Imports ember as torch, as a PyTorch user's script would import torch, and is listed in
    the README."""
    source = (EXAMPLES / name).read_text()
    imports = re.findall(r"^(?:import|from) .*$", source, re.MULTILINE)
    # Standard-library imports may come first (isort's order); torch is always ember.
    assert "import ember as torch" in imports, f"{name} does not `import ember as torch`"
    assert not any(re.match(r"(import|from) torch\b", line) for line in imports), name
    readme = (EXAMPLES / "README.md").read_text()
    assert f"`{name}`" in readme, f"examples/README.md does not list {name}"


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_runs(runs, name):
    proc = runs[name]
    assert proc.returncode == 0, f"{name} failed:\n{proc.stderr}"
    assert proc.stdout.strip(), f"{name} printed nothing"
    rest, n_warned = strip_expected_warnings(name, proc.stderr)
    assert rest == "", f"{name} wrote to stderr:\n{rest}"
    if name in EXPECTED_WARNINGS:
        category, count = EXPECTED_WARNINGS[name]
        assert n_warned == count, f"{name}: expected {count} {category}, got {n_warned}"


@needs_torch
@pytest.mark.parametrize("name", [n for n in SCRIPTS if n in COMPARE])
def test_example_matches_torch(runs, name):
    ours = runs[name]
    theirs = runs["torch"][name]
    assert theirs["ok"], f"{name} under torch failed:\n{theirs.get('error')}"
    assert ours.returncode == 0, f"{name} failed:\n{ours.stderr}"
    mask = COMPARE[name]
    got = normalize(ours.stdout, mask, from_ember=True)
    want = normalize(theirs["stdout"], mask)
    if got != want:  # show the lines, not the whitespace-free strings
        ours_lines = normalize_lines(ours.stdout, mask, from_ember=True)
        theirs_lines = normalize_lines(theirs["stdout"], mask)
        diff = [f"ember: {a}\ntorch: {b}" for a, b in zip(ours_lines, theirs_lines) if a != b]
        pytest.fail(f"{name}: output differs from torch's:\n" + "\n".join(diff[:10]))


def normalize_lines(stdout: str, mask: str, from_ember: bool = False) -> list[str]:
    return [normalize(line, mask, from_ember) for line in stdout.splitlines()]


def test_masks_are_not_vacuous():
    """The comparison can fail: a changed word, integer or (unmasked) number is caught."""
    a = "epoch 3  loss 0.1234\ntensor([ 1.0000, -2.5000])  ember.Size([2])"
    b = "epoch 3  loss 9.9\ntensor([-3.0000,  2.5000])  torch.Size([2])"
    assert normalize(a, FLOATS, from_ember=True) == normalize(b, FLOATS)
    assert normalize(a, EXACT, from_ember=True) != normalize(b, EXACT)
    assert normalize(a.replace("epoch 3", "epoch 4"), FLOATS, True) != normalize(b, FLOATS)
    assert normalize(a.replace("Size([2])", "Size([3])"), FLOATS, True) != normalize(b, FLOATS)
    assert as_torch(
        "import ember as torch\nfrom ember import nn\nimport ember.nn.functional "
        "as F\nx = 'ember'\n"
    ) == (
        "import torch as torch\nfrom torch import nn\n"
        "import torch.nn.functional as F\nx = 'ember'\n"
    )
    stderr = (
        "/x/examples/u.py:20: RegistrationWarning: M.layers is a plain list\n"
        "  self.layers = []\n/x/y.py:3: UserWarning: other\n  f()\n"
    )
    rest, n = strip_expected_warnings("unregistered_parameters.py", stderr)
    assert n == 1 and rest == "/x/y.py:3: UserWarning: other\n  f()\n"


# ---- small ember additions the examples needed ------------------------------------------------
# (Reference values are torch 2.13's, checked by hand; NumPy's fancy indexing is the oracle for
# a range index. Importing torch here would add seconds to a test that is all about time.)
def test_skip_init():
    import ember

    m = ember.nn.utils.skip_init(ember.nn.Linear, 5, 3, dtype=ember.float64)
    assert type(m) is ember.nn.Linear and m.weight.dtype == ember.float64
    assert tuple(m.weight.shape) == (3, 5) and str(m.weight.device) == "cpu"
    assert m.weight.requires_grad and m.training
    bn = ember.nn.utils.skip_init(ember.nn.BatchNorm1d, 4, device="cpu")
    assert tuple(bn.running_var.shape) == (4,) and bn.num_batches_tracked.dtype == ember.int64
    meta = ember.nn.utils.skip_init(ember.nn.Linear, 2, 2, device="meta")
    assert meta.weight.is_meta

    class NoDevice(ember.nn.Module):
        def __init__(self, n):
            super().__init__()

    for bad, message in (
        (int, "Expected a Module; got <class 'int'>"),
        (NoDevice, "Module must support a 'device' arg to skip initialization"),
    ):
        with pytest.raises(RuntimeError) as err:
            ember.nn.utils.skip_init(bad, 1)
        assert str(err.value) == message


def test_range_index():
    import numpy as np

    import ember

    a = np.arange(12.0).reshape(3, 4)
    x = ember.tensor(a, dtype=ember.float64, requires_grad=True)
    target = [0, 3, 1]
    y = x[range(3), ember.tensor(target)]
    np.testing.assert_array_equal(y.detach().numpy(), a[range(3), target])
    np.testing.assert_array_equal(x[range(1, 3)].detach().numpy(), a[range(1, 3)])
    np.testing.assert_array_equal(x[:, range(2)].detach().numpy(), a[:, range(2)])
    assert tuple(x[range(0)].shape) == (0, 4)
    y.sum().backward()
    grad = np.zeros_like(a)
    grad[range(3), target] = 1.0
    np.testing.assert_array_equal(x.grad.numpy(), grad)
    z = ember.zeros(3, 4)
    z[range(2), 1] = 5.0
    assert z[:, 1].tolist() == [5.0, 5.0, 0.0]
