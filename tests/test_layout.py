"""Project layout rules that a reader relies on."""

import ast
import pathlib

import ember

ROOT = pathlib.Path(ember.__file__).parent


def _imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_only_the_backend_imports_numpy_or_cupy():
    offenders = []
    for path in ROOT.rglob("*.py"):
        if path.relative_to(ROOT).parts[0] == "backend":
            continue
        for name in _imports(path):
            if name.split(".")[0] in ("numpy", "cupy", "scipy", "ml_dtypes", "threadpoolctl"):
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not offenders, offenders


def test_backend_does_not_import_the_layers_above_it():
    for path in (ROOT / "backend").rglob("*.py"):
        for name in _imports(path):
            assert not name.startswith(
                ("ember.ops", "ember.tensor", "ember.autograd", "ember.nn")
            ), f"{path.name} imports {name}"


def test_ember_imports_nothing_but_numpy_at_runtime():
    import subprocess
    import sys

    code = (
        "import sys, ember; bad = [m for m in sys.modules if m.split('.')[0] in "
        "('torch', 'scipy', 'cupy', 'ml_dtypes', 'threadpoolctl')]; print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"
