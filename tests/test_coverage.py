"""Coverage, honestly (issue 12): every public name of torch's tensor namespaces is implemented
by ember or listed, with its reason, in ember/_unsupported.py; calling a listed callable raises
NotImplementedError with that reason; and ember's public namespaces export torch's names only.

Which names are "public": everything ``dir()`` shows without a leading underscore (plus, for a
package, its importable top-level submodules, so the census does not depend on which submodules
some other test imported first: ``import torch.onnx`` adds ``onnx`` to ``dir(torch)``). Not
``__all__``, because torch's ``__all__`` lists leave out real API that scripts call:
``torch.__all__`` lacks ``unique``, ``broadcast_shapes``, ``from_dlpack``, ``set_default_dtype``,
``lu``, ``svd_lowrank``, ``channels_last``...; ``torch.fft.__all__`` lacks ``hfft2``/``ihfftn``;
``torch.sparse.__all__`` lacks ``spsolve``/``sampled_addmm``; ``torch.linalg`` and
``torch.nn.functional`` define none. ``dir()`` also shows names that are not API (the
standard-library modules torch/__init__ imports, typing helpers, docstring fragments): those are
listed in the same file under "not API", each with its reason, so no name is skipped silently.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pathlib
import pkgutil
import types
import warnings

import pytest

import ember
from ember import _unsupported as U

ROOT = pathlib.Path(__file__).resolve().parent.parent

try:
    import torch
except ImportError:  # the census needs torch; the stub behaviour does not
    torch = None

needs_torch = pytest.mark.skipif(
    torch is None,
    reason="torch's public names are read from the installed torch (pip install torch)",
)

# (torch namespace, ember namespace)
PAIRS = [
    ("torch.Tensor", "ember.Tensor"),
    ("torch", "ember"),
    ("torch.linalg", "ember.linalg"),
    ("torch.fft", "ember.fft"),
    ("torch.special", "ember.special"),
    ("torch.sparse", "ember.sparse"),
    ("torch.nn.functional", "ember.nn.functional"),
]

# Top-level submodules of torch that a script reaches only by importing them.
LAZY_SUBMODULE_ENTRIES = {"contrib", "nativert", "numa", "onnx"}


def _resolve(dotted: str):
    if dotted.endswith(".Tensor"):
        return importlib.import_module(dotted.rsplit(".", 1)[0]).Tensor
    return importlib.import_module(dotted)


def torch_public_names(namespace: str) -> set[str]:
    """The census: ``dir()`` without leading underscores, plus a package's importable
    top-level submodules (see the module docstring for why not ``__all__``)."""
    obj = _resolve(namespace)
    names = {n for n in dir(obj) if not n.startswith("_")}
    if isinstance(obj, types.ModuleType) and hasattr(obj, "__path__"):
        names |= {m.name for m in pkgutil.iter_modules(obj.__path__) if not m.name.startswith("_")}
    return names


def implemented(ember_obj, name: str) -> bool:
    """ember really has ``name`` (a stub from ember/_unsupported.py does not count)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated aliases warn on access
        try:
            value = getattr(ember_obj, name)
        except AttributeError:
            return False
    return not U.is_stub(value)


# ---- the census ----------------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("torch_ns,ember_ns", PAIRS, ids=[p[0] for p in PAIRS])
def test_every_torch_name_is_implemented_or_listed(torch_ns, ember_ns):
    theirs = torch_public_names(torch_ns)
    assert len(theirs) > {"torch.Tensor": 500, "torch": 900}.get(torch_ns, 10)  # census works
    ours = _resolve(ember_ns)
    listed = set(U.UNSUPPORTED.get(torch_ns, {}))
    unaccounted = sorted(n for n in theirs if n not in listed and not implemented(ours, n))
    assert not unaccounted, (
        f"{torch_ns} names that ember neither implements nor lists in ember/_unsupported.py "
        f"(implement them, or list each with its reason): {unaccounted}"
    )


@needs_torch
@pytest.mark.parametrize("torch_ns,ember_ns", PAIRS, ids=[p[0] for p in PAIRS])
def test_no_stale_entries(torch_ns, ember_ns):
    theirs = torch_public_names(torch_ns)
    ours = _resolve(ember_ns)
    listed = set(U.UNSUPPORTED.get(torch_ns, {}))
    not_torchs = sorted(listed - theirs)
    assert not not_torchs, f"listed as unsupported but torch has no such name: {not_torchs}"
    landed = sorted(n for n in listed if implemented(ours, n))
    assert not landed, f"implemented now, remove from ember/_unsupported.py: {landed}"


def test_the_table_names_only_known_namespaces():
    assert set(U.UNSUPPORTED) <= {p[0] for p in PAIRS}
    assert LAZY_SUBMODULE_ENTRIES <= set(U.UNSUPPORTED["torch"])


@needs_torch
@pytest.mark.parametrize("torch_ns", [p[0] for p in PAIRS])
def test_kinds_match_torch(torch_ns):
    # a function stub for a torch class (or the reverse) would mislead isinstance and hasattr
    theirs = _resolve(torch_ns)
    wrong = []
    for name, (kind, _) in U.UNSUPPORTED.get(torch_ns, {}).items():
        try:
            obj = getattr(theirs, name)
        except AttributeError:
            obj = importlib.import_module(f"{torch_ns}.{name}")  # a lazily imported submodule
        if kind == U.FUNCTION:
            ok = callable(obj) and not inspect.isclass(obj)
        elif kind == U.CLASS:
            ok = inspect.isclass(obj)
        elif kind == U.VALUE:
            ok = isinstance(obj, types.ModuleType) or not callable(obj)
        else:
            ok = kind == U.NOT_API
        if not ok:
            wrong.append((name, kind, type(obj).__name__))
    assert not wrong


@needs_torch
def test_tensor_flags_are_torchs_answers():
    t, e = torch.zeros(2), ember.zeros(2)
    for name, (value, _) in U.TENSOR_FLAGS.items():
        assert getattr(t, name) is value and getattr(e, name) is value, name
        assert name not in U.UNSUPPORTED["torch.Tensor"]


# ---- what an unsupported name does ---------------------------------------------------------------
def _entries():
    for torch_ns, table in U.UNSUPPORTED.items():
        ember_ns = "ember" + torch_ns[len("torch") :]
        for name, (kind, reason) in table.items():
            yield ember_ns, name, kind, reason


@pytest.mark.parametrize("ember_ns,name,kind,reason", list(_entries()))
def test_unsupported_names_say_why(ember_ns, name, kind, reason):
    ours = _resolve(ember_ns)
    if kind in (U.FUNCTION, U.CLASS):
        stub = getattr(ours, name)  # present, so hasattr(torch, name) probes agree with torch
        assert U.is_stub(stub) and inspect.isclass(stub) == (kind == U.CLASS)
        assert "unsupported" in repr(stub) or "Not supported" in stub.__doc__
        with pytest.raises(NotImplementedError) as info:
            stub(ember.zeros(2)) if ember_ns == "ember.Tensor" else stub()
        assert reason in str(info.value) and name in str(info.value)
    else:
        assert not hasattr(ours, name)  # hasattr only catches AttributeError
        with pytest.raises(AttributeError, match="has no attribute") as info:
            getattr(ours, name)
        assert reason in str(info.value)


def test_tensor_method_stubs():
    t = ember.zeros(2)
    with pytest.raises(NotImplementedError, match=r"Tensor\.to_mkldnn is not supported"):
        t.to_mkldnn()
    with pytest.raises(NotImplementedError, match="MTIA"):
        t.mtia()
    assert t.is_quantized is False and t.is_nested is False and t.is_mkldnn is False


def test_misses_and_probes_behave_as_python_expects():
    assert hasattr(ember, "ScriptModule") and not isinstance(
        ember.nn.Linear(2, 2), ember.ScriptModule
    )
    assert not hasattr(ember, "complex32") and getattr(ember, "complex32", None) is None
    assert getattr(ember, "no_such_name", 7) == 7
    with pytest.raises(AttributeError, match=r"^module 'ember' has no attribute 'no_such_name'$"):
        ember.no_such_name  # noqa: B018
    with pytest.raises(AttributeError, match="ember.linalg"):
        ember.linalg.no_such_name  # noqa: B018
    assert ember.quantized_lstm is ember.quantized_lstm  # stubs are made once
    with pytest.raises(ImportError):
        from ember import no_such_name  # noqa: F401
    namespace: dict = {}
    exec("from ember import *", namespace)
    assert "tensor" in namespace and "Tensor" in namespace and "backend" not in namespace


# ---- __all__ of ember's public namespaces --------------------------------------------------------
# ember namespace -> its documented extensions (names torch's namespace does not have)
EMBER_EXTRAS: dict[str, set[str]] = {
    "ember": {"summary"},  # ember.summary: a Keras-style model table (ember/utils/summary.py)
    "ember.linalg": set(),
    "ember.fft": set(),
    "ember.special": set(),
    "ember.sparse": set(),
    # nn: warnings for likely mistakes when assigning attributes on a Module
    "ember.nn": {"RegistrationWarning", "set_registration_warnings"},
    "ember.nn.functional": set(),
    # the versioned default initialisation (ember/nn/_default_init.py)
    "ember.nn.init": {"default_version", "get_default_version", "set_default_version"},
    # the model check for silent training mistakes (ember/nn/utils/check.py)
    "ember.nn.utils": {"check"},
    "ember.optim": set(),
    "ember.optim.lr_scheduler": set(),
    "ember.autograd": set(),
    "ember.utils.data": set(),
    "ember.cuda": set(),
    "ember.backends": set(),
    "ember.mps": set(),
    "ember.cpu": set(),
    "ember.xpu": set(),
    "ember.accelerator": set(),
    "ember.jit": set(),
    "ember.testing": set(),
    "ember.func": set(),
    "ember.distributions": set(),
    "ember.return_types": set(),
    "ember.version": set(),
}

# namespaces whose dir() shows exactly __all__ (they import helpers that are not API)
DIR_IS_ALL = ["ember.linalg", "ember.fft", "ember.nn.functional"]


@pytest.mark.parametrize("ember_ns", sorted(EMBER_EXTRAS))
def test_namespaces_have_all(ember_ns):
    module = importlib.import_module(ember_ns)
    names = module.__all__
    assert len(names) == len(set(names)), "duplicates in __all__"
    absent = [n for n in names if not hasattr(module, n) or U.is_stub(getattr(module, n))]
    assert not absent, f"{ember_ns}.__all__ names what the module lacks: {absent}"


@needs_torch
@pytest.mark.parametrize("ember_ns", sorted(EMBER_EXTRAS))
def test_all_lists_torch_names_only(ember_ns):
    theirs = importlib.import_module("torch" + ember_ns[len("ember") :])
    module = importlib.import_module(ember_ns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        foreign = sorted(
            n for n in module.__all__ if not hasattr(theirs, n) and n not in EMBER_EXTRAS[ember_ns]
        )
    assert not foreign, (
        f"{ember_ns}.__all__ exports names torch's namespace lacks (helpers, imports?): {foreign}; "
        "an intended ember extension goes in EMBER_EXTRAS with a comment"
    )
    stale = sorted(n for n in EMBER_EXTRAS[ember_ns] if hasattr(theirs, n))
    assert not stale, f"torch has these now, not ember-only: {stale}"


@pytest.mark.parametrize("ember_ns", DIR_IS_ALL)
def test_dir_shows_torchs_names(ember_ns):
    module = importlib.import_module(ember_ns)
    assert dir(module) == sorted(module.__all__)


@needs_torch
def test_the_readme_table_has_the_current_counts():
    spec = importlib.util.spec_from_file_location("_counts", ROOT / "tools" / "coverage_counts.py")
    counts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = counts.table(counts.counts())
    readme = (ROOT / "README.md").read_text()
    assert want in readme, f"README's compatibility table is stale; paste:\n{want}"
