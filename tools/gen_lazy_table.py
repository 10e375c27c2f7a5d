"""Regenerate ``ember/_lazy_table.py``: which modules ``import ember`` leaves for first use, and
the names (in ``ember``, ``ember.linalg``...) and ``Tensor`` attributes that load each one.

Usage: ``python tools/gen_lazy_table.py`` (rewrites the table) or ``--check`` (exits 1 when the
table is stale). ``tests/test_lazy_import.py`` runs the check, so a change to what a lazy module
exports or attaches to ``Tensor`` fails the suite until the table is regenerated.

``SPEC`` below is the one list to edit: per namespace, the modules whose names it shows and,
per module, where those names are listed (``__all__``, a tuple such as ``LINALG_ALL``, or a
dict of name -> object such as ``_TOP``, whose entries win over earlier ones, as
``globals().update(_TOP)`` did). The ``Tensor`` attributes are found, not listed: the generator
imports ember without the table, then each lazy module, and records which module set which
attribute (an import hook compares ``Tensor.__dict__`` at every module boundary).

It refuses a table that would change what a name means: two modules setting the same
``Tensor`` attribute, a lazy name that an eager one already binds to something else, or a lazy
module that changes an eagerly loaded module (a registry it fills, a class it patches), which
would then depend on whether the lazy module has been used yet.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLE = ROOT / "ember" / "_lazy_table.py"

_ALL = ("__all__",)
_ALL_TOP = ("__all__", "_TOP")
# The kernels ember/backend/cpu.py shows from its own files (the meta device's shape rules stay
# eager: they register rules for NumPy functions that eager ops call too).
_LINALG_SOLVE_KERNELS = (
    "linalg_cholesky_ex",
    "linalg_expm",
    "linalg_ldl_factor",
    "linalg_ldl_solve",
    "linalg_lu_factor",
    "linalg_lu_solve",
    "linalg_pivots_to_perm",
    "linalg_singular_info",
    "linalg_solve_triangular",
)
_LINALG_DECOMP_KERNELS = (
    "geqrf",
    "householder_product",
    "linalg_eig",
    "linalg_eigh",
    "linalg_lstsq",
    "linalg_qr",
    "linalg_svd",
    "ormqr",
)
_FFT_KERNELS = ("fft_c2c", "fft_c2r", "fft_r2c")
SPEC: dict[str, dict[str, tuple[str, ...]]] = {
    "ember": {
        "ember.ops.linalg_solve": _ALL_TOP,
        "ember.ops.linalg_lu": _ALL_TOP,
        "ember.ops.linalg_matrix": _ALL_TOP,
        "ember.ops.complex": _ALL,
        "ember.ops.special": _ALL,
        "ember.ops.scatter_reduce": _ALL,
        "ember.ops.bucketing": _ALL,
        "ember.ops.statistics": _ALL,
        "ember.ops.distances": _ALL,
        "ember.ops.calculus": _ALL,
        "ember.ops.combinatorics": _ALL,
        "ember.ops.tensor_surface": _ALL,
        "ember.ops.aliases": _ALL,
        "ember.ops.misc_ops": _ALL,
        "ember.ops.linalg_extra": _ALL,
        "ember.ops.rnn_functional": ("gru", "lstm", "rnn_relu", "rnn_tanh"),
        "ember.ops.linalg_decomp": _ALL_TOP,
        "ember.ops.linalg_qr": _ALL_TOP,
        "ember.ops.linalg_lstsq": _ALL_TOP,
        "ember.ops.spectral": (
            "bartlett_window",
            "blackman_window",
            "hamming_window",
            "hann_window",
            "istft",
            "kaiser_window",
            "stft",
        ),
        "ember.sparse._tensor": ("sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor"),
        "ember.sparse._methods": ("hspmm", "smm", "spmm"),
        "ember.sparse._blocked": (
            "sparse_bsc_tensor",
            "sparse_bsr_tensor",
            "sparse_compressed_tensor",
        ),
        "ember.sparse._extras": (
            "ccol_indices_copy",
            "col_indices_copy",
            "crow_indices_copy",
            "dsmm",
            "hsmm",
            "indices_copy",
            "resize_as_sparse_",
            "row_indices_copy",
            "saddmm",
            "sspaddmm",
            "values_copy",
        ),
        "ember.serialization": ("load", "save"),
        "ember.ops.memory": _ALL,
        "ember.ops.legacy": _ALL,
        "ember.ops.quantized": _ALL,
        "ember.ops.fake_quantize": _ALL,
        "ember.storage": ("TOP_LEVEL",),
        "ember.utils.summary": ("summary",),
        "ember._environment": ("__all__", "has_lapack", "has_mkl", "has_openmp", "has_spectral"),
        "ember._control_flow": _ALL,
        "ember._runtime": _ALL,
        "ember.func": ("vmap",),
        "ember.amp": ("GradScaler", "autocast"),
    },
    "ember.optim": {
        "ember.optim.sparse_adam": ("SparseAdam",),
        "ember.optim.adafactor": ("Adafactor",),
        "ember.optim.muon": ("Muon",),
        "ember.optim._stateless": ("swap_in_optimizer_params_and_state",),
    },
    "ember.utils.data": {"ember.utils.data.distributed": ("DistributedSampler",)},
    "ember.linalg": {
        "ember.ops.linalg_solve": ("LINALG_ALL",),
        "ember.ops.linalg_lu": ("LINALG_ALL",),
        "ember.ops.linalg_matrix": ("LINALG_ALL",),
        "ember.ops.linalg_decomp": ("LINALG_ALL",),
        "ember.ops.linalg_qr": ("LINALG_ALL",),
        "ember.ops.linalg_lstsq": ("LINALG_ALL",),
    },
    "ember.backend.cpu": {
        "ember.backend._linalg_solve": _LINALG_SOLVE_KERNELS,
        "ember.backend._linalg_decomp": _LINALG_DECOMP_KERNELS,
        "ember.backend._fft": _FFT_KERNELS,
    },
    "ember.nn.functional": {"ember.nn.functional.lowp_mm": _ALL},
    "ember.return_types": {
        "ember.ops.linalg_solve": ("_RETURN_TYPES",),
        "ember.ops.linalg_lu": ("_RETURN_TYPES",),
        "ember.ops.linalg_decomp": ("_RETURN_TYPES",),
        "ember.ops.special": ("_RETURN_TYPES",),
        "ember.ops.statistics": ("_RETURN_TYPES",),
    },
}


# Eager registries a lazy module may add to: its own kinds of object, which cannot exist before the
# module loads, so no lookup can miss them.
REGISTRIES = {
    ("ember.backend", "_BY_TYPE"): "sparse and quantized tensors' array types "
    "(ember/sparse/_array.py, ember/ops/_quantized_array.py)",
}


# ---- collection (in a fresh interpreter: ember must not have been imported) --------------------
def _collect() -> dict:
    import collections
    import importlib
    import importlib.machinery
    import types

    stub = types.ModuleType("ember._lazy_table")
    stub.NAMES, stub.TENSOR = collections.defaultdict(dict), {}
    sys.modules["ember._lazy_table"] = stub

    writers: dict[str, list[str]] = {}  # Tensor attribute -> the modules that set it, in order
    state = {"stack": [], "snapshot": {}}

    def flush():
        tensor_mod = sys.modules.get("ember.tensor")
        cls = getattr(tensor_mod, "Tensor", None)
        if cls is None or not state["stack"]:
            return
        now = dict(cls.__dict__)
        before = state["snapshot"]
        for name, value in now.items():
            if before.get(name, flush) is not value:
                writers.setdefault(name, []).append(state["stack"][-1])
        state["snapshot"] = now

    class Finder:
        @staticmethod
        def find_spec(name, path, target=None):
            if name.split(".")[0] != "ember":
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None:
                return None
            run = spec.loader.exec_module

            def exec_module(module):
                flush()
                state["stack"].append(name)
                try:
                    run(module)
                finally:
                    flush()
                    state["stack"].pop()

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, Finder)
    import ember  # noqa: F401  (without the table: every lazy module stays out)

    for namespace in SPEC:
        importlib.import_module(namespace)
    eager = {n for n in sys.modules if n.split(".")[0] == "ember"}
    problems: list[str] = []

    # What the eager modules hold, to notice a lazy module changing them.
    def footprint():
        out = {}
        for n in eager:
            m = sys.modules[n]
            for k, v in list(vars(m).items()):
                if isinstance(v, types.ModuleType):
                    continue
                out[(n, k)] = id(v)
                if isinstance(v, (dict, list, set)):
                    out[(n, k, "len")] = len(v)
                elif isinstance(v, type) and v.__module__ == n and n != "ember.tensor":
                    out[(n, k, "dict")] = tuple(sorted(vars(v)))
        return out

    registries = {id(getattr(sys.modules[m], k)) for m, k in REGISTRIES}
    before = footprint()
    names: dict[str, dict[str, str]] = {}
    for namespace, modules in SPEC.items():
        ns = sys.modules[namespace]
        table = names.setdefault(namespace, {})
        origin: dict[str, str] = {}
        for module_name, rules in modules.items():
            module = importlib.import_module(module_name)
            for rule in rules:
                listed = getattr(module, rule)
                if not isinstance(listed, (list, tuple, dict)):
                    listed = (rule,)  # a name written in SPEC itself
                for name in listed:
                    value = listed[name] if isinstance(listed, dict) else getattr(module, name)
                    target = f"{module_name}:{name}"
                    if isinstance(listed, dict) and getattr(module, name, None) is not value:
                        found = [k for k, v in vars(module).items() if v is value]
                        target = (
                            f"{module_name}:{found[0]}"
                            if found
                            else f"{module_name}:{rule}[{name}]"
                        )
                    if name in vars(ns):
                        if vars(ns)[name] is not value:
                            problems.append(f"{namespace}.{name}: eager and lazy ({target}) differ")
                        continue
                    if name in origin and origin[name] != module_name:
                        problems.append(f"{namespace}.{name}: {origin[name]} and {module_name}")
                    origin[name], table[name] = module_name, target
    lazy = [n for n in sys.modules if n.split(".")[0] == "ember" and n not in eager]
    after = footprint()
    for key in sorted(set(before) | set(after)):
        if after.get(key[:2]) in registries and key[2:] == ("len",):
            continue
        if before.get(key) != after.get(key):
            problems.append(
                f"a lazy module changes eager {'.'.join(key[:2])} ({key[2:] or 'rebound'})"
            )

    tensor: dict[str, list[str]] = {}
    for attr, by in writers.items():
        lazy_by = [m for m in by if m in lazy]
        if not lazy_by:
            continue
        if len(by) > 1:
            problems.append(f"Tensor.{attr} is set by {', '.join(by)}")
        tensor.setdefault(lazy_by[-1], []).append(attr)
    return {
        "names": names,
        "tensor": {m: sorted(a) for m, a in sorted(tensor.items())},
        "lazy": sorted(lazy),
        "problems": problems,
    }


def _words(indent: int, key: str, words: list[str]) -> list[str]:
    """``key: "w w w",`` on one line, or a parenthesised string split into lines, all under 100
    characters."""
    pad, q = " " * indent, json.dumps
    one = f"{pad}{q(key)}: {q(' '.join(words))},"
    if len(one) <= 100:
        return [one]
    lines, line = [f"{pad}{q(key)}: ("], ""
    for w in words:
        if line and len(pad) + 4 + len(line) + len(w) + 2 > 98:
            lines.append(f"{pad}    {q(line + ' ')}")
            line = ""
        line = f"{line} {w}" if line else w
    lines += [f"{pad}    {q(line)}", f"{pad}),"]
    return lines


def _render(data: dict) -> str:
    lines = [
        '"""Generated by tools/gen_lazy_table.py: do not edit. ember/_lazy.py uses it.',
        "",
        "``NAMES``: per namespace, per module, the names that load the module on first use",
        "(``name=attr`` where the module's attribute has another name).",
        "``TENSOR``: per module, the ``Tensor`` attributes it attaches.",
        "``MODULES``: every module that ``import ember`` leaves for first use.",
        '"""',
        "",
        "NAMES = {",
    ]
    for namespace, table in data["names"].items():
        groups: dict[str, list[str]] = {}
        for name, target in table.items():
            module, _, attr = target.partition(":")
            groups.setdefault(module, []).append(name if attr == name else f"{name}={attr}")
        lines.append(f"    {json.dumps(namespace)}: {{")
        for module, words in groups.items():
            lines += _words(8, module, words)
        lines.append("    },")
    lines += ["}", "", "TENSOR = {"]
    for module, attrs in data["tensor"].items():
        lines += _words(4, module, attrs)
    lines += ["}", "", "MODULES = ("]
    lines += [f"    {json.dumps(m)}," for m in data["lazy"]]
    lines += [")", ""]
    return "\n".join(lines)


def generate() -> tuple[str, list[str]]:
    """The table's text and the problems found, from a fresh interpreter."""
    code = "import json, sys; sys.path.insert(0, sys.argv[1]); import gen_lazy_table as g; "
    code += "print(json.dumps(g._collect()))"
    out = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "tools")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if out.returncode:
        raise RuntimeError(f"collecting the lazy table failed:\n{out.stderr}")
    data = json.loads(out.stdout.splitlines()[-1])
    return _render(data), data["problems"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    args = parser.parse_args()
    text, problems = generate()
    for p in problems:
        print("problem:", p, file=sys.stderr)
    if problems:
        return 2
    if args.check:
        stale = not TABLE.exists() or TABLE.read_text() != text
        print("stale" if stale else "current")
        return int(stale)
    TABLE.write_text(text)
    print(f"wrote {TABLE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
