"""Write docs/coverage.md: which public names of PyTorch's namespaces ember has.

Usage: ``python tools/api_coverage.py`` (writes ``docs/coverage.md``) or
``python tools/api_coverage.py --check`` (exit status 1 when the page is out of date).
Needs ``torch`` installed: the torch side of the comparison is read from the installed
package, so the page records the torch version it was made with.

The rule for "public" is in ``RULE`` below and at the top of the generated page.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import sys
import types
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "coverage.md"

# (torch namespace, ember namespace): the order of the page.
NAMESPACES = [
    ("torch", "ember"),
    ("torch.nn", "ember.nn"),
    ("torch.nn.functional", "ember.nn.functional"),
    ("torch.nn.init", "ember.nn.init"),
    ("torch.optim", "ember.optim"),
    ("torch.optim.lr_scheduler", "ember.optim.lr_scheduler"),
    ("torch.utils.data", "ember.utils.data"),
    ("torch.distributions", "ember.distributions"),
    ("torch.linalg", "ember.linalg"),
    ("torch.fft", "ember.fft"),
    ("torch.special", "ember.special"),
    ("torch.sparse", "ember.sparse"),
    ("torch.func", "ember.func"),
    ("torch.autograd", "ember.autograd"),
    ("torch.amp", "ember.amp"),
    ("torch.cuda", "ember.cuda"),
    ("torch.nn.utils", "ember.nn.utils"),
    ("torch.utils.checkpoint", "ember.utils.checkpoint"),
]

# torch's argument-dispatch machinery, importable from some namespaces but not their API.
DISPATCH_MODULES = ("torch.overrides", "torch._jit_internal")
DISPATCH_NAMES = frozenset(
    {
        "has_torch_function",
        "has_torch_function_unary",
        "has_torch_function_variadic",
        "handle_torch_function",
        "boolean_dispatch",
    }
)

RULE = """\
A name counts as public API of a namespace when it does not start with an underscore and it is
either listed in the namespace's `__all__` or any other attribute that `dir()` shows and none of
these applies:

- it is a submodule (`torch.nn.functional` is a namespace of its own here, not a name of
  `torch.nn`);
- its object is not defined in the package itself (`__module__` outside `torch`, or
  outside `ember`): typing helpers (`Optional`, `Callable`), standard-library imports
  (`partial`, `bisect_right`) and plain constants (`TYPE_CHECKING`, `PRIVATE_OPS`);
- it is torch's argument-dispatch machinery (`handle_torch_function`, `has_torch_function*`,
  `boolean_dispatch`, `BroadcastingList*`);
- it is a class defined in another namespace and imported for annotations (`Tensor` in
  `torch.nn.functional` and `torch.nn.init`, `Optimizer` in `torch.optim.lr_scheduler`).

A torch name is *covered* when the ember namespace has it (a stand-in that raises does not
count). *Unsupported* names are listed, each with its reason, in `ember/_unsupported.py`: what a
CPU-only NumPy stack cannot do (quantization, TorchScript, vendor GPU kernels...); calling one
raises `NotImplementedError` with the reason. *Missing* names are neither. *ember only* lists
ember's public names (same rule) that the torch namespace does not have.
"""


def _module_of(obj) -> str | None:
    """Where ``obj`` was defined: its own ``__module__``, else its class's for instances of
    torch/ember classes (dtypes, devices, layouts); None for plain Python values."""
    name = getattr(obj, "__module__", None)
    if isinstance(name, str):
        return name
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return None
    cls_module = getattr(type(obj), "__module__", None)
    return None if cls_module == "builtins" else cls_module


def public_names(namespace: str) -> set[str]:
    """The public names of ``namespace`` by ``RULE``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = importlib.import_module(namespace)
        listed = set(getattr(module, "__all__", ()) or ())
        names = {
            n
            for n in listed
            # (an ``__all__`` entry the module lacks, torch.sparse's "solve", is no API)
            if not n.startswith("_")
            and hasattr(module, n)
            and not isinstance(getattr(module, n), types.ModuleType)
        }
        package = namespace.split(".")[0]
        for name in dir(module):
            if name in listed or name.startswith("_") or name in DISPATCH_NAMES:
                continue
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType):
                continue
            home = _module_of(obj)
            if home is None or not (home == package or home.startswith(package + ".")):
                continue
            if home.startswith(DISPATCH_MODULES):
                continue
            if (
                isinstance(obj, type)
                and namespace != package
                and not (home == namespace or home.startswith(namespace + "."))
            ):
                continue  # a class imported from elsewhere for annotations
            names.add(name)
    return names


def _code_list(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) if names else "(none)"


def _by_kind(module, names: list[str]) -> str:
    """``names`` as lines of classes, functions and other values (torch's long lists mix
    JIT types, storages, functions and constants: grouping makes them readable)."""
    kinds: dict[str, list[str]] = {"classes": [], "functions": [], "other": []}
    for n in names:
        obj = getattr(module, n, None)
        kind = "classes" if isinstance(obj, type) else "functions" if callable(obj) else "other"
        kinds[kind].append(n)
    return "\n".join(f"- {kind} ({len(v)}): {_code_list(v)}" for kind, v in kinds.items() if v)


def render() -> str:
    import torch

    import ember
    from ember._unsupported import UNSUPPORTED, is_stub

    rows, sections = [], []
    total_torch = total_covered = total_unsupported = 0
    for torch_ns, ember_ns in NAMESPACES:
        theirs = public_names(torch_ns)
        torch_module = importlib.import_module(torch_ns)
        ours_module = importlib.import_module(ember_ns)
        # a stub from ember/_unsupported.py (it raises NotImplementedError) is not coverage
        covered = sorted(
            n for n in theirs if hasattr(ours_module, n) and not is_stub(getattr(ours_module, n))
        )
        listed = UNSUPPORTED.get(torch_ns, {})
        rest = sorted(theirs - set(covered))
        unsupported = [n for n in rest if n in listed]
        missing = [n for n in rest if n not in listed]
        extra = sorted(public_names(ember_ns) - theirs)
        total_torch += len(theirs)
        total_covered += len(covered)
        total_unsupported += len(unsupported)
        rows.append(
            f"| `{torch_ns}` | {len(theirs)} | {len(covered)} | {len(unsupported)} "
            f"| {len(missing)} |"
        )
        by_reason: dict[str, list[str]] = {}
        for n in unsupported:
            by_reason.setdefault(listed[n][1], []).append(n)
        reasons = "\n".join(f"- {r}: {_code_list(v)}" for r, v in by_reason.items())
        sections.append(
            f"## `{torch_ns}`\n\n"
            f"ember: `{ember_ns}`. {len(covered)} of {len(theirs)} names covered.\n\n"
            f"**Covered ({len(covered)}):** {_code_list(covered)}\n\n"
            f"**Unsupported, with the reason ({len(unsupported)}):**\n\n"
            f"{reasons or '(none)'}\n\n"
            f"**Missing ({len(missing)}):**\n\n"
            f"{_by_kind(torch_module, missing) if missing else '(none)'}\n\n"
            f"**ember only ({len(extra)}):** {_code_list(extra)}\n"
        )
    rows.append(
        f"| all | {total_torch} | {total_covered} | {total_unsupported} "
        f"| {total_torch - total_covered - total_unsupported} |"
    )
    head = (
        "# API coverage\n\n"
        "<!-- Generated by tools/api_coverage.py; do not edit by hand. -->\n\n"
        f"ember {ember.__version__} compared with torch {torch.__version__}. This page is made "
        "by `python tools/api_coverage.py`; `tests/test_docs.py` checks that it is up to "
        "date.\n\n"
        "## Which names count\n\n" + RULE + "\n"
        "## Summary\n\n"
        "| torch namespace | public names | covered | unsupported | missing |\n"
        "|---|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n\n"
    )
    return head + "\n".join(sections)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with docs/coverage.md instead of writing it"
    )
    parser.add_argument("--out", type=pathlib.Path, default=PAGE, help="page to write or check")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.out.read_text() if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date: run python tools/api_coverage.py", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
