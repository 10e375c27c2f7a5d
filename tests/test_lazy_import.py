"""What ``import ember`` leaves for first use (ember/_lazy.py, ember/_lazy_table.py): the table
is current, import loads none of it, and every lazy name and Tensor attribute answers as the
eagerly imported one would."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

import ember
from ember import _lazy, _lazy_table

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import gen_lazy_table  # noqa: E402


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout.strip().splitlines()[-1]


def test_table_is_current():
    text, problems = gen_lazy_table.generate()
    assert problems == []
    assert text == gen_lazy_table.TABLE.read_text(), (
        "ember/_lazy_table.py is stale: run python tools/gen_lazy_table.py"
    )


def test_import_ember_loads_no_lazy_module():
    code = (
        "import json, sys, ember; from ember import _lazy_table as T; "
        "print(json.dumps([m for m in T.MODULES if m in sys.modules]))"
    )
    assert json.loads(_run(code)) == []
    assert len(_lazy_table.MODULES) > 50  # the op families, linalg, fft, sparse, amp...


def test_every_lazy_name_and_tensor_attribute_resolves():
    # In a fresh interpreter: touch every lazy name, then no stand-in is left on Tensor and
    # every lazily loaded module has been imported.
    code = """
import importlib, json, sys, ember
from ember import _lazy, _lazy_table as T
bad = []
for ns in T.NAMES:
    mod = importlib.import_module(ns)
    for name in _lazy.names(ns):
        try:
            getattr(mod, name)
        except Exception as e:
            bad.append(f"{ns}.{name}: {e!r}")
for module, attrs in T.TENSOR.items():
    for name in attrs.split():
        getattr(ember.Tensor, name)
left = [n for n, v in vars(ember.Tensor).items() if isinstance(v, _lazy.LazyAttr)]
missing = [m for m in T.MODULES if m not in sys.modules]
print(json.dumps([bad, left, missing]))
"""
    assert json.loads(_run(code)) == [[], [], []]


def test_tensor_methods_and_properties_load_on_first_use():
    code = """
import json, sys, ember
x = ember.tensor([1.0, 2.0, 3.0, 4.0])
before = "ember.ops.statistics" in sys.modules
q = float(x.quantile(0.5))                   # a method: loads ember/ops/statistics.py
z = ember.tensor([1 + 2j])
re = float(z.real[0])                        # a property: loads ember/ops/complex.py
w = ember.tensor([3.0, 4.0])
w.unfold(0, 1, 1)                            # then a plain attribute read
print(json.dumps([before, q, re, type(vars(ember.Tensor)["quantile"]).__name__]))
"""
    assert json.loads(_run(code)) == [False, 2.5, 1.0, "function"]


def test_all_and_dir_list_lazy_names_without_loading_them():
    code = """
import json, sys, ember
listed = ["quantile" in ember.__all__, "quantile" in dir(ember), "svd" in ember.linalg.__all__]
loaded = ["ember.ops.statistics" in sys.modules, "ember.ops.linalg_decomp" in sys.modules]
print(json.dumps(listed + loaded))
"""
    assert json.loads(_run(code)) == [True, True, True, False, False]


def test_star_import_and_from_import_reach_lazy_names():
    from ember import quantile
    from ember.linalg import svd

    assert quantile is ember.quantile and svd is ember.linalg.svd
    ns: dict = {}
    exec("from ember.linalg import *", ns)
    assert ns["svd"] is svd


def test_stand_in_is_a_descriptor_on_class_and_instance(tmp_path, monkeypatch):
    (tmp_path / "lazy_probe_module.py").write_text("VALUE = 1\n")  # defines no Owner.value
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazy_probe_module", raising=False)

    class Owner:
        pass

    _lazy.attach_lazy_attrs(Owner, {"lazy_probe_module": "value"})
    stand_in = vars(Owner)["value"]
    assert isinstance(stand_in, _lazy.LazyAttr) and "lazy_probe_module" in repr(stand_in)
    # the module never defines Owner.value: the table would be stale, and the error says so
    with pytest.raises(RuntimeError, match="stale"):
        getattr(Owner, "value")  # noqa: B009
    with pytest.raises(RuntimeError, match="stale"):
        Owner().value = 1


def test_resolve_reads_module_attribute_and_dict_entry():
    assert _lazy.resolve("ember.ops.linalg_decomp") is sys.modules["ember.ops.linalg_decomp"]
    rt = _lazy.resolve("ember.ops.linalg_decomp:_RETURN_TYPES[svd]")
    assert rt is ember.return_types.svd
