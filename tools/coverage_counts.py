"""Print, per torch namespace, how many of its public names ember implements, lists as
deliberately unsupported (with a reason, in ember/_unsupported.py), and still misses.

Usage: ``python tools/coverage_counts.py`` (a Markdown table, for the README's compatibility
table) or ``python tools/coverage_counts.py --missing`` (also the missing names). Needs torch.

The census is tests/test_coverage.py's (``dir()`` without leading underscores, plus a package's
importable submodules; the docstring there says why not ``__all__``), so the counts are exactly
what that test checks. Names torch's ``dir()`` shows that are not API (standard-library modules,
typing helpers, docstring fragments; "not API" in ember/_unsupported.py) are left out of the
public count and shown in their own column.
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _census():
    """tests/test_coverage.py as a module (one definition of the census)."""
    sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location("_coverage", ROOT / "tests" / "test_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counts() -> list[dict]:
    warnings.simplefilter("ignore")
    cov = _census()
    from ember import _unsupported as U

    rows = []
    for torch_ns, ember_ns in cov.PAIRS:
        names = cov.torch_public_names(torch_ns)
        ours = cov._resolve(ember_ns)
        table = U.UNSUPPORTED.get(torch_ns, {})
        not_api = {n for n in names if table.get(n, ("",))[0] == U.NOT_API}
        public = names - not_api
        implemented = {n for n in public if cov.implemented(ours, n)}
        unsupported = {n for n in public - implemented if n in table}
        missing = public - implemented - unsupported
        rows.append(
            {
                "namespace": torch_ns,
                "public": len(public),
                "implemented": len(implemented),
                "unsupported": len(unsupported),
                "missing": sorted(missing),
                "not_api": len(not_api),
            }
        )
    return rows


def table(rows: list[dict]) -> str:
    """The Markdown table of ``counts()`` (the README's compatibility table, verbatim)."""
    lines = [
        "| torch namespace | public names | implemented | unsupported (reason) | missing |",
        "|---|---:|---:|---:|---:|",
    ]
    total = {"public": 0, "implemented": 0, "unsupported": 0, "missing": 0}
    for r in rows:
        lines.append(
            f"| `{r['namespace']}` | {r['public']} | {r['implemented']} | {r['unsupported']} "
            f"| {len(r['missing'])} |"
        )
        for key in ("public", "implemented", "unsupported"):
            total[key] += r[key]
        total["missing"] += len(r["missing"])
    lines.append(
        f"| all | {total['public']} | {total['implemented']} | {total['unsupported']} "
        f"| {total['missing']} |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", action="store_true", help="list the missing names too")
    args = parser.parse_args(argv)
    rows = counts()
    print(table(rows))
    not_api = ", ".join(f"{r['namespace']} {r['not_api']}" for r in rows if r["not_api"])
    print(f"\nNot API (dir() names left out of the counts, each with its reason): {not_api}")
    if args.missing:
        for r in rows:
            if r["missing"]:
                print(f"\n{r['namespace']} missing ({len(r['missing'])}): {' '.join(r['missing'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
