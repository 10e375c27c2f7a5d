"""The documentation: the MkDocs site builds with --strict, the API coverage page is what
tools/api_coverage.py makes now, and every ```python block of docs/*.md runs."""

from __future__ import annotations

import importlib.util
import pathlib
import re
import subprocess
import sys
import types
import warnings

import pytest

import ember

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))

try:
    import torch
except ImportError:  # the torch-dependent checks skip
    torch = None

needs_torch = pytest.mark.skipif(
    torch is None, reason="torch is not installed (pip install torch==2.13.0)"
)
needs_mkdocs = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None
    or importlib.util.find_spec("mkdocstrings_handlers") is None,
    reason="mkdocs and mkdocstrings[python] are not installed (pip install -e '.[docs]')",
)

_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
# A block that imports PyTorch itself (not `import ember as torch`) needs torch installed.
_IMPORTS_TORCH = re.compile(r"^\s*(import torch\b(?! *as)|from torch\b)", re.MULTILINE)


def _blocks(page: pathlib.Path) -> list[str]:
    return _BLOCK.findall(page.read_text())


def _coverage_script():
    spec = importlib.util.spec_from_file_location(
        "api_coverage", ROOT / "tools" / "api_coverage.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_mkdocs
def test_mkdocs_build_strict(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    site = tmp_path / "site"
    for page in ("index.html", "coverage/index.html", "api/nn/index.html"):
        assert (site / page).is_file(), page
    # mkdocstrings rendered the reference (a heading per documented object), with the
    # docstrings' examples as code
    nn_page = (site / "api/nn/index.html").read_text()
    assert 'id="ember.nn.Module"' in nn_page
    assert "<code" in nn_page and "&gt;&gt;&gt;" in nn_page


@needs_torch
def test_coverage_page_is_up_to_date():
    page = (DOCS / "coverage.md").read_text()
    made_with = re.search(r"compared with torch (\S+)\.", page)
    assert made_with, "docs/coverage.md does not record the torch version it was made with"
    if made_with.group(1) != torch.__version__:
        pytest.skip(
            f"docs/coverage.md was made with torch {made_with.group(1)}, "
            f"torch {torch.__version__} is installed"
        )
    assert _coverage_script().render() == page, (
        "docs/coverage.md is out of date: run python tools/api_coverage.py"
    )


@needs_torch
def test_coverage_rule_drops_imports_and_keeps_the_api():
    public = _coverage_script().public_names
    functional = public("torch.nn.functional")
    assert {"relu", "conv2d", "cross_entropy", "scaled_dot_product_attention"} <= functional
    assert not functional & {
        "Tensor",
        "Optional",
        "Callable",
        "handle_torch_function",
        "has_torch_function",
        "BroadcastingList2",
        "TYPE_CHECKING",
    }
    schedulers = public("torch.optim.lr_scheduler")
    assert "StepLR" in schedulers and not schedulers & {"Optimizer", "partial", "Counter"}
    assert "functional" not in public("torch.nn")  # a submodule, a namespace of its own
    assert "Module" in public("ember.nn") and "_DatasetKind" not in public("ember.utils.data")


def test_every_page_is_in_the_nav():
    config = (ROOT / "mkdocs.yml").read_text()
    listed = set(re.findall(r":\s*(\S+\.md)\s*$", config, re.MULTILINE))
    on_disk = {str(p.relative_to(DOCS)) for p in PAGES}
    assert on_disk == listed


@pytest.mark.parametrize(
    "page", [p for p in PAGES if _blocks(p)], ids=lambda p: str(p.relative_to(DOCS))
)
def test_code_blocks_run(page, tmp_path, monkeypatch):
    # The page's blocks run in order in one namespace, a module of its own (so classes they
    # define pickle by name), in a scratch folder (they write checkpoints).
    monkeypatch.chdir(tmp_path)
    name = "_docs_" + re.sub(r"\W", "_", str(page.relative_to(DOCS))[:-3])
    module = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, module)
    skipped = 0
    try:
        with warnings.catch_warnings():
            for i, block in enumerate(_blocks(page)):
                if torch is None and _IMPORTS_TORCH.search(block):
                    skipped += 1
                    continue
                code = compile(block, f"{page.relative_to(ROOT)} (python block {i + 1})", "exec")
                exec(code, module.__dict__)
    finally:
        ember.nn.init.set_default_version(1)
        ember.nn.set_registration_warnings(True)
        ember.set_default_dtype(ember.float32)
    if skipped:
        pytest.skip(f"{skipped} block(s) of {page.name} need torch, which is not installed")
