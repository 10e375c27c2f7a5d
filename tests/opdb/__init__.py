"""The op table: one ``OpInfo`` row per public op, gathered from this package's files.

Each family file (``math.py``, ``reduction.py``...) defines ``ROWS: list[OpInfo]``. The generic
tests in ``tests/test_op_table.py`` run every row: forward against the NumPy reference,
gradcheck and gradgradcheck in float64, each listed dtype, meta shapes, and parity with torch.

A row's ``fn(lib, *args, **kwargs)`` is written once for both libraries: ``lib`` is the
``ember`` or the ``torch`` module, and the args are that library's tensors (``lambda lib, x:
lib.exp(x)``, or ``lambda lib, x: x.exp()`` for methods).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Int:
    """An integer tensor argument (never differentiated): values in [low, high)."""

    shape: tuple
    low: int = 0
    high: int = 5
    dtype: str = "int64"


@dataclass(frozen=True)
class Bool:
    """A boolean tensor argument (random mask)."""

    shape: tuple


@dataclass(frozen=True)
class Const:
    """A fixed float tensor argument given by its values (differentiated like any float input)."""

    values: Any


@dataclass
class Sample:
    """One call of the op: ``args`` are shapes (tuples -> random float tensors in the row's
    domain), ``Int``/``Bool``/``Const`` markers, or plain Python values passed as they are;
    a list of shapes stands for a list of tensors (for ``cat``, ``stack``...)."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str = ""


@dataclass
class OpInfo:
    name: str
    fn: Callable  # fn(lib, *args, **kwargs)
    ref: Callable | None  # NumPy reference on float64 arrays (same arg order); None: torch only
    samples: list
    dtypes: tuple = ("float16", "float32", "float64")
    grad: bool = True  # gradcheck w.r.t. every float tensor argument, in float64
    gradgrad: bool = True  # gradgradcheck (set False where the 2nd derivative is identically 0)
    domain: tuple = (-2.0, 2.0)  # float inputs are drawn uniformly from here
    meta: bool = True  # run on meta tensors and compare shapes/dtypes
    torch: bool = True  # parity with torch (forward and backward, float64 at 1e-10)
    rtol: float | None = None  # override float32 tolerance
    atol: float | None = None
    nondeterministic_grad: bool = False  # e.g. ties in max: skip gradient parity
    skip_reason: str = ""


def all_rows() -> list:
    rows = []
    for mod in pkgutil.iter_modules(__path__):
        m = importlib.import_module(f"{__name__}.{mod.name}")
        rows.extend(getattr(m, "ROWS", []))
    return rows
