"""Every docstring example in ember runs and prints what it says (STYLE: a short runnable
example on public API). One doctest pass over every module of the package; the backend is
left out (its modules are NumPy namespaces, whose docstrings are NumPy's)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import math
import pkgutil
import sys

import pytest

import ember
import ember.nn.functional as F

# ember.utils.tensorboard needs the optional tensorboard package (the tensorboard extra)
_OPTIONAL = () if importlib.util.find_spec("tensorboard") else ("ember.utils.tensorboard",)
MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(ember.__path__, "ember.")
    if not m.name.startswith(("ember.backend", *_OPTIONAL))
)


@pytest.fixture(autouse=True)
def _default_state():
    # examples may seed or change defaults: each module starts from the same state
    ember.manual_seed(0)
    yield
    ember.nn.init.set_default_version(1)
    ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    importlib.import_module(name)
    module = sys.modules[name]  # the module, even where a function shares its name
    result = doctest.testmod(
        module,
        extraglobs={"ember": ember, "math": math, "F": F},
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        report=False,
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples fail in {name}"


def test_the_examples_are_many():
    for name in MODULES:
        importlib.import_module(name)
    total = sum(len(doctest.DocTestFinder().find(sys.modules[n])) for n in MODULES)
    assert total > 300
