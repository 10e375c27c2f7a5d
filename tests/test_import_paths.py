"""Every module path torch has imports on ember, or says why ember lacks it.

``import torch.backends.cudnn as cudnn`` (pytorch/examples' dcgan and imagenet) must work after
``import ember as torch`` as it does on torch: so must ``import a.b.c``, ``import a.b.c as x``,
``from a.b import c`` and ``from a.b.c import name`` for every public module path of torch that
ember provides. The rule for a path torch has and ember deliberately lacks: importing it raises
``ModuleNotFoundError`` (so ``except ImportError`` guards work) whose message carries the reason
from ember/_unsupported.py (``UNSUPPORTED_MODULES``, or a ``value``/``not API`` entry for the
name, as ``fx`` is a name of ``torch``).

The census walks torch's package tree on disk (``pkgutil.iter_modules`` per package, recursing
into public packages only, importing none of them: ``torch.utils.tensorboard`` needs an optional
package and ``torch.onnx`` is slow to import). Private paths (a dotted part starting with ``_``)
are skipped.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import pathlib
import pkgutil
import subprocess
import sys
import types
import warnings

import pytest

import ember
from ember import _unsupported as U

try:
    import torch
except ImportError:  # the census needs torch's tree; the rest of the file does not
    torch = None

needs_torch = pytest.mark.skipif(
    torch is None, reason="torch's module tree is read from the installed torch (pip install torch)"
)

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Paths still being written (the quantization flow, issue 19):
# checked with the rule above, except that a path with neither a module nor a listed reason is
# an expected failure (xfail) while its owner's work lands. Empty this once those pieces are in.
IN_PROGRESS = {
    "torch.ao": "quantization (ember/ao/)",
    "torch.quantization": "quantization (ember/quantization/)",
    "torch.nn.quantized": "quantization (the torch.nn.quantized aliases of torch.ao.nn)",
    "torch.nn.quantizable": "quantization (the torch.nn.quantizable aliases of torch.ao.nn)",
    "torch.nn.intrinsic": "quantization (the torch.nn.intrinsic aliases of torch.ao.nn)",
    "torch.nn.qat": "quantization (the torch.nn.qat aliases of torch.ao.nn)",
}

# Submodules whose name torch's package rebinds to something else (so ``from torch.a import b``
# gives that, not the module) where ember's gives the module, with why.
SHADOWED_IN_TORCH_ONLY = {
    # torch.autograd's ``variable`` is a deprecated function that only raises RuntimeError("use
    # torch.tensor"); ember's lazily imported submodule would rebind the name on first import
    "torch.autograd.variable": "a deprecated function that raises, in torch",
}


def _public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


def torch_module_paths() -> list[str]:
    """torch's public module paths, from the files of its installed package tree."""
    if torch is None:
        return []
    paths = []
    todo = [("torch", list(torch.__path__))]
    while todo:
        package, search = todo.pop()
        for info in pkgutil.iter_modules(search, package + "."):
            if not _public(info.name):
                continue
            paths.append(info.name)
            if info.ispkg:
                folder = pathlib.Path(info.module_finder.path) / info.name.rsplit(".", 1)[-1]
                todo.append((info.name, [str(folder)]))
    return sorted(paths)


TORCH_PATHS = torch_module_paths()


def ember_path(torch_path: str) -> str:
    return "ember" + torch_path[len("torch") :]


def _in_progress(torch_path: str) -> str | None:
    for prefix, owner in IN_PROGRESS.items():
        if torch_path == prefix or torch_path.startswith(prefix + "."):
            return owner
    return None


def _check_says_why(err: ImportError, torch_path: str) -> None:
    reason = U.module_reason(torch_path)
    assert reason is not None
    message = str(err)
    assert isinstance(err, ModuleNotFoundError), f"{type(err).__name__}: {message}"
    assert "is not supported by ember: " in message and reason in message, message
    assert message.startswith(f"No module named {err.name!r}: ")
    assert ember_path(torch_path).startswith(err.name)  # the first missing package is named


# ---- the census ----------------------------------------------------------------------------------
@needs_torch
def test_the_walk_sees_torchs_tree():
    assert len(TORCH_PATHS) > 600
    for path in (
        "torch.backends.cudnn",
        "torch.cuda.amp.autocast_mode",
        "torch.nn.modules.conv",
        "torch.utils.data.dataloader",
        "torch.distributions.normal",
        "torch.signal.windows.windows",
    ):
        assert path in TORCH_PATHS
    assert not [p for p in TORCH_PATHS if not _public(p)]


@needs_torch
@pytest.mark.parametrize("torch_path", TORCH_PATHS)
def test_module_path_imports_or_says_why(torch_path):
    name = ember_path(torch_path)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name == "tensorboard" and importlib.util.find_spec("tensorboard") is None:
            pytest.skip(f"{name} needs the optional tensorboard package (pip install tensorboard)")
        owner = _in_progress(torch_path)
        if U.module_reason(torch_path) is None and owner is not None:
            pytest.xfail(f"{torch_path}: {owner} is being written alongside (not listed yet)")
        assert U.module_reason(torch_path) is not None, (
            f"torch has {torch_path}; ember neither provides {name} nor says why: add the module "
            "(a re-export of what ember has) or list it in ember/_unsupported.py "
            f"UNSUPPORTED_MODULES ({err})"
        )
        _check_says_why(err, torch_path)
        return
    assert U.module_reason(torch_path) is None or torch_path not in U.UNSUPPORTED_MODULES, (
        f"{name} exists now: remove {torch_path} from ember/_unsupported.py UNSUPPORTED_MODULES"
    )
    assert isinstance(module, types.ModuleType)
    assert module.__name__ == name and sys.modules[name] is module
    # the statement forms scripts use: ``import a.b.c as x`` and ``from a.b import c`` read the
    # attribute ``c`` of ``a.b``, which is the module unless the package binds the name to
    # something else; it must be what torch binds (torch.autograd.gradcheck is the function)
    parent, leaf = name.rsplit(".", 1)
    namespace: dict = {}
    exec(f"import {name}", namespace)
    exec(f"import {name} as alias", namespace)
    exec(f"from {parent} import {leaf} as attribute", namespace)
    assert namespace["ember"] is ember and namespace["alias"] is namespace["attribute"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs: dict = {}
        exec(f"import {torch_path} as alias", theirs)
    if isinstance(theirs["alias"], types.ModuleType) or torch_path in SHADOWED_IN_TORCH_ONLY:
        assert namespace["alias"] is module
    else:
        assert type(namespace["alias"]).__name__ == type(theirs["alias"]).__name__
    # ``from a.b.c import name`` for each name the module exports
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # deprecated aliases warn on access
        for exported in getattr(module, "__all__", ()):
            exec(f"from {name} import {exported}", {})


@needs_torch
def test_listed_module_paths_are_torchs():
    not_torchs = sorted(set(U.UNSUPPORTED_MODULES) - set(TORCH_PATHS))
    assert not not_torchs, f"UNSUPPORTED_MODULES lists paths torch does not have: {not_torchs}"


@pytest.mark.parametrize("torch_path", sorted(U.UNSUPPORTED_MODULES))
def test_listed_module_paths_raise_their_reason(torch_path):
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module(ember_path(torch_path))
    _check_says_why(info.value, torch_path)


# ---- what real scripts import --------------------------------------------------------------------
# Lines from pytorch/examples (mnist, imagenet, dcgan, word_language_model, distributed/ddp,
# vae, reinforcement_learning, super_resolution...), tutorials and model code, as written there.
REAL_IMPORTS = [
    "import torch.backends.cudnn as cudnn",
    "from torch.backends import cudnn",
    "import torch.backends.mps",
    "from torch.backends.cuda import sdp_kernel",
    "import torch.nn as nn",
    "import torch.nn.functional as F",
    "import torch.nn.init as init",
    "from torch.nn import init",
    "import torch.nn.parallel",
    "from torch.nn.parallel import DistributedDataParallel as DDP",
    "from torch.nn.parallel import DistributedDataParallel",
    "from torch.nn.parallel import DataParallel",
    "from torch.nn.modules.utils import _pair, _triple",
    "from torch.nn.modules.conv import _ConvNd",
    "from torch.nn.modules.batchnorm import _BatchNorm",
    "from torch.nn.modules.loss import _Loss",
    "from torch.nn.modules.module import Module",
    "from torch.nn.parameter import Parameter",
    "from torch.nn.utils import clip_grad_norm_",
    "from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence",
    "from torch.nn.utils.parametrizations import weight_norm",
    "from torch.nn.attention import SDPBackend, sdpa_kernel",
    "import torch.optim as optim",
    "from torch.optim.lr_scheduler import StepLR",
    "from torch.optim.lr_scheduler import LambdaLR, OneCycleLR, ReduceLROnPlateau",
    "from torch.optim.optimizer import Optimizer",
    "from torch.optim.swa_utils import AveragedModel, SWALR",
    "import torch.utils.data",
    "import torch.utils.data.distributed",
    "from torch.utils.data.distributed import DistributedSampler",
    "from torch.utils.data import DataLoader, Dataset, Subset",
    "from torch.utils.data.dataloader import default_collate",
    "from torch.utils.data._utils.collate import default_collate",
    "from torch.utils.data.sampler import SubsetRandomSampler",
    "from torch.utils.checkpoint import checkpoint",
    "from torch.utils.hooks import RemovableHandle",
    "import torch.utils.model_zoo as model_zoo",
    "from torch.hub import load_state_dict_from_url",
    "import torch.distributed as dist",
    "import torch.multiprocessing as mp",
    "from torch.cuda.amp import autocast, GradScaler",
    "from torch.cuda.amp.autocast_mode import autocast",
    "from torch.cuda import amp",
    "from torch.amp import autocast",
    "from torch.amp import GradScaler",
    "import torch.autograd as autograd",
    "from torch.autograd import Variable",
    "from torch.autograd import Function",
    "from torch.autograd.functional import jacobian, hessian",
    "from torch.func import functional_call, vmap, grad",
    "from torch.distributions import Normal, Categorical",
    "from torch.distributions.normal import Normal",
    "from torch.distributions.kl import kl_divergence",
    "import torch.fft",
    "from torch.testing import assert_close",
    "from torch.profiler import profile, record_function, ProfilerActivity",
    "from torch.serialization import add_safe_globals",
    "import torch.jit",
]
# Lines that import what ember deliberately lacks: a ModuleNotFoundError that says why.
REAL_IMPORTS_UNSUPPORTED = [
    "import torch.onnx",  # word_language_model's export
    "from torch.fx import symbolic_trace",
    "from torch.utils.cpp_extension import load",
    "import torch.distributed.elastic",
]


def _on_ember(line: str) -> str:
    return line.replace("torch", "ember")


@pytest.mark.parametrize("line", REAL_IMPORTS)
def test_real_import_lines_run(line):
    assert len(REAL_IMPORTS) >= 30
    namespace: dict = {}
    exec(_on_ember(line), namespace)
    bound = [v for k, v in namespace.items() if k != "__builtins__"]
    assert bound and all(v is not None for v in bound)
    if torch is not None:  # the line is torch's own, not one ember alone accepts
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(line, {})


@pytest.mark.parametrize("line", REAL_IMPORTS_UNSUPPORTED)
def test_real_import_lines_of_unsupported_modules_say_why(line):
    with pytest.raises(ModuleNotFoundError, match="is not supported by ember: ") as info:
        exec(_on_ember(line), {})
    assert info.value.name.startswith("ember.")


# ---- the mechanisms ------------------------------------------------------------------------------
def test_flag_namespaces_are_one_object_under_both_spellings():
    import ember.backends.cudnn as cudnn

    from ember.backends import cuda

    assert cudnn is ember.backends.cudnn and sys.modules["ember.backends.cudnn"] is cudnn
    assert cuda is sys.modules["ember.backends.cuda"]
    before = cudnn.benchmark
    try:
        cudnn.benchmark = True
        assert ember.backends.cudnn.benchmark is True
    finally:
        cudnn.benchmark = before
    # every flag namespace of ember.backends is importable by its dotted name
    for name in ember.backends.__all__:
        value = getattr(ember.backends, name)
        if isinstance(value, types.ModuleType):
            assert importlib.import_module(f"ember.backends.{name}") is value


def test_a_submodule_of_a_module_file_says_why():
    # ember.jit is one file; torch.jit's submodules are TorchScript internals
    with pytest.raises(ModuleNotFoundError, match="TorchScript") as info:
        import ember.jit.frontend  # noqa: F401
    assert "is not a package" not in str(info.value)
    with pytest.raises(ModuleNotFoundError, match="cuDNN"):
        import ember.backends.cudnn.rnn  # noqa: F401


def test_the_finder_leaves_other_misses_alone():
    with pytest.raises(ModuleNotFoundError) as info:
        import ember.no_such_module  # noqa: F401
    assert str(info.value) == "No module named 'ember.no_such_module'"
    assert importlib.util.find_spec("ember.no_such_module") is None
    assert U.UnsupportedModuleFinder.find_spec("numpy.fx") is None
    # installed once, after the standard finders: asked only about what nothing else found
    assert sys.meta_path.count(U.UnsupportedModuleFinder) == 1
    position = sys.meta_path.index(U.UnsupportedModuleFinder)
    assert position > sys.meta_path.index(importlib.machinery.PathFinder)


def test_distributed_data_parallel_stands_in():
    from ember.nn.parallel import DistributedDataParallel
    from ember.nn.parallel.distributed import DistributedDataParallel as same

    assert same is DistributedDataParallel and U.is_stub(DistributedDataParallel)
    assert not isinstance(ember.nn.Linear(2, 2), DistributedDataParallel)
    with pytest.raises(NotImplementedError, match="DistributedDataParallel is not supported"):
        DistributedDataParallel(ember.nn.Linear(2, 2))


def test_import_ember_loads_none_of_the_added_modules():
    code = (
        "import sys, ember; print([m for m in ('ember.cuda', 'ember.backends', "
        "'ember.nn.modules.utils', 'ember.utils.model_zoo', 'ember.profiler.profiler') "
        "if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# ---- the added modules behave as torch's ---------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("name", ["_single", "_pair", "_triple", "_quadruple"])
@pytest.mark.parametrize("value", [3, (1, 2), [4, 5, 6], (7,)])
def test_ntuple_helpers_match_torch(name, value):
    import torch.nn.modules.utils as theirs

    import ember.nn.modules.utils as ours

    assert getattr(ours, name)(value) == getattr(theirs, name)(value)
    assert getattr(ours, name).__name__ == name


@needs_torch
def test_padding_and_pooling_helpers_match_torch():
    import torch.nn.modules.utils as theirs

    import ember.nn.modules.utils as ours

    for t, n in [((1, 2), 2), ((1, 2, 3), 1), ((), 2)]:
        assert ours._reverse_repeat_tuple(t, n) == theirs._reverse_repeat_tuple(t, n)
    for out_size, defaults in [(5, [2, 3]), ([None, 4], [1, 8, 9, 10]), ([3, None], [2, 6, 7])]:
        assert ours._list_with_default(out_size, defaults) == theirs._list_with_default(
            out_size, defaults
        )
    for lib in (ours, theirs):
        with pytest.raises(ValueError, match="Input dimension should be at least 3"):
            lib._list_with_default([None, None], [4, 5])


def _wrapped_state_dict():
    from collections import OrderedDict

    sd = OrderedDict([("module.fc.weight", 1), ("module.fc.bias", 2), ("other", 3)])
    sd._metadata = OrderedDict([("", {"v": 0}), ("module", {"v": 1}), ("module.fc", {"v": 2})])
    return sd


@needs_torch
def test_consume_prefix_matches_torch():
    import torch.nn.modules.utils as theirs

    import ember.nn.modules.utils as ours

    a, b = _wrapped_state_dict(), _wrapped_state_dict()
    ours.consume_prefix_in_state_dict_if_present(a, "module.")
    theirs.consume_prefix_in_state_dict_if_present(b, "module.")
    assert list(a.items()) == list(b.items()) == [("other", 3), ("fc.weight", 1), ("fc.bias", 2)]
    assert list(a._metadata.items()) == list(b._metadata.items())


def test_consume_prefix_lets_a_wrapped_checkpoint_load():
    model = ember.nn.Linear(2, 3)
    saved = ember.nn.DataParallel(ember.nn.Linear(2, 3)).state_dict()
    assert sorted(saved) == ["module.bias", "module.weight"]
    from ember.nn.modules.utils import consume_prefix_in_state_dict_if_present

    consume_prefix_in_state_dict_if_present(saved, "module.")
    model.load_state_dict(saved)
    assert ember.equal(model.weight, saved["weight"])


def test_backward_compatibility_worker_init_fn_warns():
    from ember.utils.data.backward_compatibility import worker_init_fn

    with pytest.warns(FutureWarning, match="backward_compatibility.worker_init_fn"):
        assert worker_init_fn(0) is None


def test_model_zoo_and_reexports_are_the_same_objects():
    import ember.accelerator.memory
    import ember.cpu.amp.grad_scaler
    import ember.cuda.amp.common
    import ember.multiprocessing.pool
    import ember.profiler.profiler
    import ember.utils.model_zoo

    assert ember.utils.model_zoo.load_url is ember.hub.load_state_dict_from_url
    assert ember.cuda.amp.common.amp_definitely_not_available is (
        ember.cuda.amp.amp_definitely_not_available
    )
    assert ember.cpu.amp.grad_scaler.GradScaler is ember.cpu.amp.GradScaler
    assert ember.profiler.profiler.profile is ember.profiler.profile
    assert ember.accelerator.memory.memory_allocated is ember.accelerator.memory_allocated
    assert ember.multiprocessing.pool.Pool is ember.multiprocessing.Pool
