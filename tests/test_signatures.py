"""Every public callable ember shares with torch takes torch's parameters, with torch's defaults.

For each name ember covers (computed live, with ``tools/api_coverage.py``'s namespaces and rule
for public names, plus the methods of ``Tensor``), the test reads torch's signature or signatures
and ember's, and checks both directions:

- every parameter of every torch overload is accepted by ember the way torch accepts it: a
  positional-or-keyword parameter at the same position under the same name, a keyword-only one
  as keyword-only, ``*size``-style varargs as varargs;
- where both have a default, the defaults are equal (``torch.contiguous_format`` and
  ``ember.contiguous_format`` are the same default, ``1`` and ``1.0`` too);
- ember parameters that no torch overload has are ember extensions, listed in ``EXTENSIONS``.

torch's signatures come from, most faithful first: the ``.pyi`` stubs that torch generates from
its native function schemas (``torch/_C/_VariableFunctions.pyi``, ``_nn.pyi``, ``TensorBase`` in
``torch/_C/__init__.pyi``: they carry every overload of the Python argument parser),
``inspect.signature`` for functions and classes written in Python, and the signature lines of
the docstrings of the remaining C builtins (``torch.linalg``, ``torch.fft``, ``torch.special``).
Defaults may come from several of those sources (the stub writes ``layout=None`` where the
docstring writes ``layout=torch.strided``); an ember default equal to any of them is torch's.

Overloads that take named-tensor dimensions (``Dimname``: a ``str`` where torch otherwise takes
an ``int`` dim, or a ``names=`` argument) are left out: ember has no named tensors.

``EXCEPTIONS`` lists, each with its reason, the names whose difference is deliberate or cannot be
written as one Python signature. Run ``python tests/test_signatures.py`` for the numbers.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import importlib
import importlib.util
import inspect
import math
import pathlib
import re
import sys
import warnings

import pytest

import ember
from ember._unsupported import is_stub

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None

needs_torch = pytest.mark.skipif(
    torch is None, reason="torch's signatures are read from the installed torch (pip install torch)"
)

ROOT = pathlib.Path(__file__).resolve().parent.parent
P = inspect.Parameter
POSITIONAL = (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)

# Differences that are deliberate or that one Python signature cannot express.
# (qualified torch name, reason)
EXCEPTIONS: list[tuple[str, str]] = [
    (
        "torch.Tensor.bfloat16",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.bool",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.byte",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.cdouble",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.cfloat",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.char",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.contiguous",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.cpu",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.cuda",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.double",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.float",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.half",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.int",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.is_contiguous",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.long",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.new_ones",
        "torch's stub lists dtype/device positional; torch itself takes them by keyword only",
    ),
    (
        "torch.Tensor.short",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    (
        "torch.Tensor.std",
        "unbiased=None tells 'not given' from torch's True, which its two overloads tell apart",
    ),
    (
        "torch.Tensor.var",
        "unbiased=None tells 'not given' from torch's True, which its two overloads tell apart",
    ),
    (
        "torch.Tensor.view",
        "view(*size) and view(dtype) share one varargs position: the dtype is read from it",
    ),
    (
        "torch.Tensor.xpu",
        "memory formats load lazily (ember/ops/memory.py); None stands for torch's default format",
    ),
    ("torch.autograd.enable_grad", "orig_func is torch's internal decorator argument, not API"),
    (
        "torch.binary_cross_entropy_with_logits",
        "torch's stub says reduction=1; torch returns the unreduced loss, as ember",
    ),
    ("torch.dtype", "torch's dtype cannot be constructed; ember's constructor is internal"),
    ("torch.enable_grad", "orig_func is torch's internal decorator argument, not API"),
    (
        "torch.kl_div",
        "torch's stub says reduction=1 (mean); torch.kl_div(x, y) returns the unreduced loss",
    ),
    ("torch.layout", "torch's layout cannot be constructed; ember's constructor is internal"),
    ("torch.linspace", "torch's stub gives steps a default; torch.linspace(0, 1) raises, as ember"),
    (
        "torch.median",
        "median(input) reduces everything, median(input, dim=-1): one default cannot be both",
    ),
    (
        "torch.memory_format",
        "torch's memory_format cannot be constructed; ember's constructor is internal",
    ),
    ("torch.nanmedian", "as median: nanmedian(input) and nanmedian(input, dim=-1)"),
    (
        "torch.std",
        "unbiased=None tells 'not given' from torch's True, which its two overloads tell apart",
    ),
    (
        "torch.std_mean",
        "unbiased=None tells 'not given' from torch's True, which its two overloads tell apart",
    ),
    (
        "torch.tensor",
        "torch's stub lists dtype/device positional; torch itself takes only data by position",
    ),
    (
        "torch.var",
        "unbiased=None tells 'not given' from torch's True, which its two overloads tell apart",
    ),
    (
        "torch.var_mean",
        "unbiased=None tells 'not given' from torch's True, which its two overloads tell apart",
    ),
]

# Real differences found by this test and not fixed yet: each is an ember bug to fix (the test
# fails once one is fixed and still listed, so the list only shrinks).
TO_FIX: list[str] = [
    "torch.Tensor.broadcast_to",
    "torch.Tensor.chalf",
    "torch.Tensor.copy_",
    "torch.Tensor.count_nonzero",
    "torch.Tensor.dsplit",
    "torch.Tensor.eig",
    "torch.Tensor.hash_tensor",
    "torch.Tensor.histogram",
    "torch.Tensor.hsplit",
    "torch.Tensor.index_add_",
    "torch.Tensor.index_copy_",
    "torch.Tensor.index_fill_",
    "torch.Tensor.index_put_",
    "torch.Tensor.lstsq",
    "torch.Tensor.map_",
    "torch.Tensor.masked_scatter_",
    "torch.Tensor.narrow_copy",
    "torch.Tensor.new",
    "torch.Tensor.new_tensor",
    "torch.Tensor.norm",
    "torch.Tensor.orgqr",
    "torch.Tensor.ormqr",
    "torch.Tensor.put_",
    "torch.Tensor.random_",
    "torch.Tensor.requires_grad_",
    "torch.Tensor.resize_",
    "torch.Tensor.roll",
    "torch.Tensor.scatter_",
    "torch.Tensor.scatter_add_",
    "torch.Tensor.split",
    "torch.Tensor.squeeze",
    "torch.Tensor.squeeze_",
    "torch.Tensor.subtract",
    "torch.Tensor.subtract_",
    "torch.Tensor.swapaxes",
    "torch.Tensor.swapaxes_",
    "torch.Tensor.symeig",
    "torch.Tensor.tensor_split",
    "torch.Tensor.tile",
    "torch.Tensor.to",
    "torch.Tensor.to_sparse",
    "torch.Tensor.true_divide",
    "torch.Tensor.true_divide_",
    "torch.Tensor.uniform_",
    "torch.Tensor.vsplit",
    "torch.addmm",
    "torch.asarray",
    "torch.autograd.backward",
    "torch.autograd.gradgradcheck",
    "torch.baddbmm",
    "torch.bmm",
    "torch.clamp_max",
    "torch.clamp_min",
    "torch.cosine_embedding_loss",
    "torch.ctc_loss",
    "torch.cuda.BFloat16Storage",
    "torch.cuda.BoolStorage",
    "torch.cuda.ByteStorage",
    "torch.cuda.CharStorage",
    "torch.cuda.ComplexDoubleStorage",
    "torch.cuda.ComplexFloatStorage",
    "torch.cuda.DoubleStorage",
    "torch.cuda.FloatStorage",
    "torch.cuda.HalfStorage",
    "torch.cuda.IntStorage",
    "torch.cuda.LongStorage",
    "torch.cuda.MemPool",
    "torch.cuda.ShortStorage",
    "torch.dequantize",
    "torch.diagonal_copy",
    "torch.dsplit",
    "torch.eig",
    "torch.einsum",
    "torch.empty_quantized",
    "torch.expand_copy",
    "torch.fft.fftfreq",
    "torch.fft.rfftfreq",
    "torch.frobenius_norm",
    "torch.from_dlpack",
    "torch.from_file",
    "torch.gru",
    "torch.hash_tensor",
    "torch.hinge_embedding_loss",
    "torch.histogram",
    "torch.histogramdd",
    "torch.hsmm",
    "torch.hsplit",
    "torch.index_add",
    "torch.index_copy",
    "torch.isin",
    "torch.isneginf",
    "torch.isposinf",
    "torch.linalg.matrix_norm",
    "torch.linalg.matrix_rank",
    "torch.linalg.norm",
    "torch.linalg.vector_norm",
    "torch.log_softmax",
    "torch.logspace",
    "torch.lstm",
    "torch.lstsq",
    "torch.margin_ranking_loss",
    "torch.matrix_exp",
    "torch.matrix_rank",
    "torch.mm",
    "torch.nan_to_num_",
    "torch.narrow_copy",
    "torch.native_batch_norm",
    "torch.nn.GroupNorm",
    "torch.nn.functional.hardshrink",
    "torch.nn.functional.rrelu_",
    "torch.nonzero_static",
    "torch.normal",
    "torch.nuclear_norm",
    "torch.orgqr",
    "torch.ormqr",
    "torch.permute_copy",
    "torch.quantize_per_tensor",
    "torch.rand_like",
    "torch.randint",
    "torch.randint_like",
    "torch.randn_like",
    "torch.range",
    "torch.result_type",
    "torch.rnn_relu",
    "torch.rnn_tanh",
    "torch.rsub",
    "torch.scatter",
    "torch.scatter_add",
    "torch.searchsorted",
    "torch.select_copy",
    "torch.set_default_device",
    "torch.set_num_interop_threads",
    "torch.set_num_threads",
    "torch.slice_scatter",
    "torch.slogdet",
    "torch.smm",
    "torch.softmax",
    "torch.sparse_bsc_tensor",
    "torch.sparse_bsr_tensor",
    "torch.sparse_csc_tensor",
    "torch.sparse_csr_tensor",
    "torch.special.log_softmax",
    "torch.special.round",
    "torch.special.softmax",
    "torch.split_copy",
    "torch.squeeze_copy",
    "torch.subtract",
    "torch.swapaxes",
    "torch.symeig",
    "torch.take",
    "torch.tensor_split",
    "torch.transpose_copy",
    "torch.trapz",
    "torch.tril_indices",
    "torch.triplet_margin_loss",
    "torch.triu_indices",
    "torch.true_divide",
    "torch.unsafe_split",
    "torch.unsqueeze_copy",
    "torch.view_copy",
    "torch.vsplit",
]

# ember parameters that torch lacks, documented as ember extensions.
# (qualified torch name or fnmatch pattern, parameter, reason)
EXTENSIONS: list[tuple[str, str, str]] = [
    (
        "torch.Tensor.*",
        "out",
        "a Tensor method is the function of the same name (Tensor.abs is ember.abs), so it "
        "also takes the function's out=",
    ),
    (
        "torch.*_",
        "out",
        "an in-place function passes its arguments to the out-of-place one, out= included",
    ),
]


def _api_coverage():
    spec = importlib.util.spec_from_file_location(
        "_api_coverage", ROOT / "tools" / "api_coverage.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- torch's side -------------------------------------------------------------------------------
class _Missing:
    """A parameter without a default (``inspect.Parameter.empty`` reads badly in messages)."""

    def __repr__(self):
        return "<required>"


REQUIRED = _Missing()


def _literal(node: ast.AST):
    """A stub or docstring default as a comparable value: literals as themselves, names such as
    ``torch.strided`` or ``contiguous_format`` as the string ``'torch.strided'``."""
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        pass
    text = ast.unparse(node)
    if text in ("inf", "math.inf"):
        return math.inf
    if text in ("-inf", "-math.inf"):
        return -math.inf
    if text == "nan":
        return math.nan
    return "torch." + text.split(".")[-1] if re.fullmatch(r"[\w.]+", text) else text


def _params_from_args(args: ast.arguments, drop_self: bool) -> list[tuple[str, object, object]]:
    """``(name, kind, default)`` for each parameter of a parsed ``def``."""
    out = []
    positional = list(args.posonlyargs) + list(args.args)
    defaults = [REQUIRED] * (len(positional) - len(args.defaults)) + [
        _literal(d) for d in args.defaults
    ]
    for i, (a, d) in enumerate(zip(positional, defaults)):
        kind = P.POSITIONAL_ONLY if i < len(args.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        out.append((a.arg, kind, d, a.annotation))
    if args.vararg is not None:
        out.append((args.vararg.arg, P.VAR_POSITIONAL, REQUIRED, args.vararg.annotation))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append((a.arg, P.KEYWORD_ONLY, REQUIRED if d is None else _literal(d), a.annotation))
    if args.kwarg is not None:
        out.append((args.kwarg.arg, P.VAR_KEYWORD, REQUIRED, args.kwarg.annotation))
    if drop_self and out and out[0][0] == "self":
        out = out[1:]
    return out


def _named_dims(params) -> bool:
    """A named-tensor overload: a ``Dimname`` (``str | EllipsisType | None``) or ``names``."""
    for name, _kind, _default, annotation in params:
        text = ast.unparse(annotation) if annotation is not None else ""
        if name == "names" or "EllipsisType" in text:
            return True
        if name in ("dim", "dim0", "dim1", "dims", "source", "destination") and "str" in text:
            return True
    return False


@functools.cache
def _stub_overloads(stub: str, cls: str | None = None) -> dict[str, list[list]]:
    """``{function name: [overload params, ...]}`` from one of torch's ``.pyi`` stubs."""
    path = pathlib.Path(torch.__file__).parent / stub
    tree = ast.parse(path.read_text())
    body = tree.body
    if cls is not None:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
    found: dict[str, list[list]] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            params = _params_from_args(node.args, drop_self=cls is not None)
            found.setdefault(node.name, []).append(params)
    return found


def _doc_overloads(obj, name: str) -> list[list]:
    """Overloads from docstring signature lines such as ``empty(*size, *, out=None) -> Tensor``
    (torch writes one per overload, some after ``.. function::``)."""
    doc = getattr(obj, "__doc__", None) or ""
    found = []
    short = name.split(".")[-1]
    pattern = re.compile(rf"^\s*(?:\.\. function:: )?(?:[\w.]+\.)?{re.escape(short)}\((.*)\)")
    for line in doc.splitlines()[:40]:
        m = pattern.match(line)
        if not m:
            continue
        inner = m.group(1)
        inner = inner.rsplit(")", 1)[0] if "->" in inner else inner
        try:
            tree = ast.parse(f"def f({inner}): pass")
        except SyntaxError:
            continue
        found.append(_params_from_args(tree.body[0].args, drop_self=True))
    return found


def _sig_params(sig: inspect.Signature) -> list:
    out = []
    for p in sig.parameters.values():
        default = REQUIRED if p.default is P.empty else _value(p.default)
        out.append((p.name, p.kind, default, None))
    return out


def _is_star_args(params) -> bool:
    kinds = [k for _, k, _, _ in params]
    return bool(kinds) and all(k in (P.VAR_POSITIONAL, P.VAR_KEYWORD) for k in kinds)


def torch_signatures(obj, qualname: str, method: bool) -> tuple[list[list], list[list]]:
    """``(overloads, default sources)`` of a torch callable: the overloads an ember signature
    must accept, and every parameter list (overloads and docstring lines) whose defaults count
    as torch's."""
    short = qualname.split(".")[-1]
    overloads: list[list] = []
    if method:
        overloads = _stub_overloads("_C/__init__.pyi", "TensorBase").get(short, [])
    elif isinstance(obj, type(torch.empty)):  # a C builtin
        module = getattr(obj, "__module__", None) or ""
        self_ = getattr(obj, "__self__", None)
        if self_ is torch._C._VariableFunctions or module in (
            "torch",
            "torch._C._VariableFunctions",
        ):
            overloads = _stub_overloads("_C/_VariableFunctions.pyi").get(obj.__name__, [])
        elif module == "torch._C._nn" or self_ is torch._C._nn:
            overloads = _stub_overloads("_C/_nn.pyi").get(obj.__name__, [])
    if not overloads:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                params = _sig_params(inspect.signature(obj))
        except (ValueError, TypeError):
            params = None
        if params is not None and method and params and params[0][0] == "self":
            params = params[1:]
        if params is not None and not _is_star_args(params):
            overloads = [params]
    docs = _doc_overloads(obj, qualname)
    if not overloads:
        overloads = docs
    overloads = [o for o in overloads if not _named_dims(o)]
    # NOTE: a stub overload whose first parameter is ``self`` beside ones that start with
    # ``input`` is a deprecated argument order (``add(self, alpha, other)``) or a Scalar-first
    # form that the ``input`` overload already takes positionally.
    if any(o and o[0][0] == "input" for o in overloads):
        overloads = [o for o in overloads if not any(p[0] == "self" for p in o)]
    # ``self`` is never passed by keyword
    overloads = [
        [("self", P.POSITIONAL_ONLY, *p[2:]) if p[0] == "self" else p for p in o] for o in overloads
    ]
    return overloads, overloads + docs


# ---- ember's side -------------------------------------------------------------------------------
def _value(v):
    """A default as a comparable value: dtypes, layouts, memory formats and devices by name
    (``ember.strided`` is ``'torch.strided'``), lists as tuples."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, (list, tuple)):
        return tuple(_value(x) for x in v)
    if callable(v) and hasattr(v, "__name__"):  # nn.Transformer's activation=F.relu
        return f"<function {v.__name__}>"
    text = repr(v)
    if " object at 0x" in text:  # random_split's generator=default_generator
        return f"<{type(v).__name__}>"
    if text.startswith(("torch.", "ember.")):
        return "torch." + text.split(".", 1)[1]
    return text


def ember_params(obj, method: bool) -> list | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sig = inspect.signature(obj)
    except (ValueError, TypeError):
        return None
    params = _sig_params(sig)
    if method and params and params[0][1] in POSITIONAL:
        params = params[1:]  # self (ember names it input in places)
    return params


# ---- the comparison -----------------------------------------------------------------------------
def _same_default(a, b) -> bool:
    if a is REQUIRED or b is REQUIRED:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def compare(qualname, torch_overloads, default_sources, ours) -> list[str]:
    """The differences between torch's overloads and ember's parameter list, as sentences."""
    problems: list[str] = []
    by_name = {p[0]: (i, p) for i, p in enumerate(ours)}
    ours_positional = [p for p in ours if p[1] in POSITIONAL]
    ours_var = next((i for i, p in enumerate(ours) if p[1] is P.VAR_POSITIONAL), None)
    ours_varkw = any(p[1] is P.VAR_KEYWORD for p in ours)
    torch_defaults: dict[str, list] = {}
    for overload in default_sources:
        for name, _kind, default, _ann in overload:
            if default is not REQUIRED:
                torch_defaults.setdefault(name, []).append(default)
    positional_somewhere = {
        p[0] for o in torch_overloads for p in o if p[1] is P.POSITIONAL_OR_KEYWORD
    }
    # names each position takes across the overloads
    at_position: dict[int, set[str]] = {}
    for overload in torch_overloads:
        for i, p in enumerate(q for q in overload if q[1] in POSITIONAL):
            at_position.setdefault(i, set()).add(p[0])

    def _shared_position(name: str, position: int) -> bool:
        """torch's overloads put different parameters at ``position`` (``max(input, dim)``,
        ``max(input, other)``): Python takes one of them by position (the value's type picks
        the overload at run time), the others by keyword."""
        names = at_position.get(position, set())
        if len(names) < 2 or position >= len(ours_positional):
            return False
        mine = by_name.get(name)
        return ours_positional[position][0] in names and (
            mine is not None and mine[1][1] is not P.POSITIONAL_ONLY
        )

    for overload in torch_overloads:
        position = 0
        for name, kind, default, _ann in overload:
            mine = by_name.get(name)
            if kind is P.POSITIONAL_ONLY:
                if position >= len(ours_positional) and ours_var is None:
                    problems.append(f"positional argument {position + 1} ({name}) not accepted")
                position += 1
                continue
            if kind is P.VAR_POSITIONAL:
                if ours_var is None:
                    problems.append(f"*{name} (varargs) not accepted")
                continue
            if kind is P.VAR_KEYWORD:
                if not ours_varkw:
                    problems.append(f"**{name} not accepted")
                continue
            if mine is None:
                if ours_var is not None and ours[ours_var][0] == name:
                    pass  # unreachable: by_name has *name
                else:
                    problems.append(f"{name} not accepted")
                if kind is P.POSITIONAL_OR_KEYWORD:
                    position += 1
                continue
            _i, (_n, my_kind, my_default, _a) = mine
            if my_kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
                if my_kind is P.VAR_KEYWORD or not ours_varkw:
                    problems.append(f"{name}= (keyword) not accepted beside *{name}")
                if kind is P.POSITIONAL_OR_KEYWORD:
                    position += 1
                continue
            if kind is P.POSITIONAL_OR_KEYWORD and _shared_position(name, position):
                position += 1
            elif kind is P.POSITIONAL_OR_KEYWORD:
                if my_kind is P.KEYWORD_ONLY:
                    problems.append(f"{name} is keyword-only in ember, positional in torch")
                elif my_kind is P.POSITIONAL_ONLY:
                    problems.append(f"{name} is positional-only in ember")
                elif ours_positional.index(mine[1]) != position:
                    at = ours_positional.index(mine[1])
                    problems.append(
                        f"{name} is positional {at + 1} in ember, {position + 1} in torch"
                    )
                position += 1
            elif (
                kind is P.KEYWORD_ONLY
                and my_kind is not P.KEYWORD_ONLY
                and name not in positional_somewhere
            ):
                problems.append(f"{name} is keyword-only in torch, {my_kind.description} in ember")
            if default is not REQUIRED and my_default is REQUIRED:
                problems.append(f"{name} has a default in torch ({default!r}), none in ember")
    # defaults, once per parameter
    for name, _kind, my_default, _a in ours:
        if my_default is REQUIRED or name not in torch_defaults:
            continue
        if not any(_same_default(my_default, d) for d in torch_defaults[name]):
            problems.append(
                f"{name} defaults to {my_default!r}, torch to {torch_defaults[name][0]!r}"
            )
    # ember's extra parameters
    torch_names = {p[0] for o in default_sources for p in o}
    for name, kind, _d, _a in ours:
        if kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD) or name in torch_names:
            continue
        if any(fnmatch.fnmatchcase(qualname, n) and p == name for n, p, _ in EXTENSIONS):
            continue
        problems.append(f"ember parameter {name} is not torch's")
    return list(dict.fromkeys(problems))


# ---- the census ---------------------------------------------------------------------------------
def covered_callables():
    """``[(qualified torch name, torch object, ember object, is_method)]`` for every covered
    public callable, computed from what both packages have now."""
    cov = _api_coverage()
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for torch_ns, ember_ns in cov.NAMESPACES:
            theirs = cov.public_names(torch_ns)
            tmod = importlib.import_module(torch_ns)
            emod = importlib.import_module(ember_ns)
            for name in sorted(theirs):
                t = getattr(tmod, name, None)
                e = getattr(emod, name, None)
                if e is None or is_stub(e) or not callable(t) or not callable(e):
                    continue
                rows.append((f"{torch_ns}.{name}", t, e, False))
        for name in sorted(dir(torch.Tensor)):
            if name.startswith("_"):
                continue
            t = inspect.getattr_static(torch.Tensor, name, None)
            e = inspect.getattr_static(ember.Tensor, name, None)
            if e is None or isinstance(t, property) or isinstance(e, property):
                continue
            t, e = getattr(torch.Tensor, name), getattr(ember.Tensor, name, None)
            if not callable(t) or not callable(e) or is_stub(e) or isinstance(t, type):
                continue
            rows.append((f"torch.Tensor.{name}", t, e, True))
    return rows


def mismatches():
    """``({name: [problems]}, number compared, names skipped for want of a signature)``."""
    found, compared, skipped = {}, 0, []
    for qualname, t, e, method in covered_callables():
        overloads, sources = torch_signatures(t, qualname, method)
        ours = ember_params(e, method)
        if not overloads or ours is None:
            skipped.append(qualname)
            continue
        compared += 1
        problems = compare(qualname, overloads, sources, ours)
        if problems:
            found[qualname] = problems
    return found, compared, skipped


@functools.cache
def _results():
    return mismatches()


def _group(qualname: str) -> str:
    return "torch.Tensor" if qualname.startswith("torch.Tensor.") else qualname.rsplit(".", 1)[0]


GROUPS = ["torch.Tensor"] + [ns for ns, _ in _api_coverage().NAMESPACES]


@needs_torch
def test_the_census_compares_most_names():
    found, compared, skipped = _results()
    assert compared > 1500, (compared, skipped)
    assert len(skipped) < compared / 10, skipped  # signatures are read, not silently skipped


@needs_torch
@pytest.mark.parametrize("group", GROUPS)
def test_signatures_are_torchs(group):
    found, _compared, _skipped = _results()
    excepted = {name for name, _ in EXCEPTIONS} | set(TO_FIX)
    wrong = {
        name: problems
        for name, problems in found.items()
        if _group(name) == group and name not in excepted
    }
    assert not wrong, (
        "signatures that differ from torch's (fix ember, or list in EXCEPTIONS):\n"
        + ("\n".join(f"{name}: {'; '.join(problems)}" for name, problems in sorted(wrong.items())))
    )


@needs_torch
def test_no_stale_exceptions():
    found, _compared, _skipped = _results()
    stale = [name for name, _ in EXCEPTIONS if name not in found]
    stale += [name for name in TO_FIX if name not in found]
    assert not stale, f"EXCEPTIONS/TO_FIX entries that now match torch (remove them): {stale}"
    assert len({n for n, _ in EXCEPTIONS}) == len(EXCEPTIONS)
    assert len(set(TO_FIX)) == len(TO_FIX)
    assert all(reason for _, reason in EXCEPTIONS)


def test_compare_finds_what_it_should():
    """The checker itself, on hand-made parameter lists (no torch needed)."""
    req = REQUIRED
    torch_sig = [[("input", P.POSITIONAL_OR_KEYWORD, req, None), ("dim", P.KEYWORD_ONLY, 0, None)]]
    assert compare(
        "x.f", torch_sig, torch_sig, [("input", P.POSITIONAL_OR_KEYWORD, req, None)]
    ) == ["dim not accepted"]
    ours = [("input", P.POSITIONAL_OR_KEYWORD, req, None), ("dim", P.KEYWORD_ONLY, 1, None)]
    assert compare("x.f", torch_sig, torch_sig, ours) == ["dim defaults to 1, torch to 0"]
    ours = [
        ("input", P.POSITIONAL_OR_KEYWORD, req, None),
        ("dim", P.POSITIONAL_OR_KEYWORD, 0, None),
    ]
    assert compare("x.f", torch_sig, torch_sig, ours) == [
        "dim is keyword-only in torch, positional or keyword in ember"
    ]
    ours = torch_sig[0] + [("extra", P.KEYWORD_ONLY, None, None)]
    assert compare("x.f", torch_sig, torch_sig, ours) == ["ember parameter extra is not torch's"]
    assert compare("x.f", torch_sig, torch_sig, torch_sig[0]) == []


# ---- behaviour of the fixed signatures ----------------------------------------------------------
def _outcome(fn, lib):
    try:
        return "ok", fn(lib)
    except Exception as e:  # noqa: BLE001  (the error type and message are what we compare)
        return type(e).__name__, str(e)


@needs_torch
@pytest.mark.parametrize("op", ["zeros", "ones", "empty"])
@pytest.mark.parametrize(
    "call",
    [
        lambda f: f(2, 3),
        lambda f: f((2, 3)),
        lambda f: f([2, 3]),
        lambda f: f(size=(2, 3)),
        lambda f: f(size=[2]),
        lambda f: f(),
        lambda f: f((2, 3), size=(2, 3)),
        lambda f: f(2, size=(2,)),
        lambda f: f(size=(2,), pin_memory=False),
        lambda f: f(size=(2,), dtype="float64" and None, requires_grad=True),
    ],
)
def test_creation_takes_size_both_ways(op, call):
    got = _outcome(lambda lib: call(getattr(lib, op)), ember)
    want = _outcome(lambda lib: call(getattr(lib, op)), torch)
    assert got[0] == want[0], (got, want)
    if got[0] == "ok":
        assert tuple(got[1].shape) == tuple(want[1].shape)
        assert got[1].requires_grad == want[1].requires_grad
    else:
        assert got[1] == want[1]


@needs_torch
@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.full((2,), 1.5, pin_memory=False),
        lambda lib: lib.arange(3, pin_memory=False),
        lambda lib: lib.linspace(0, 1, 3, pin_memory=False),
        lambda lib: lib.logspace(0, 1, 3, pin_memory=False),
        lambda lib: lib.eye(2, pin_memory=False),
        lambda lib: lib.scalar_tensor(2.0, layout=lib.strided, pin_memory=False),
        lambda lib: lib.zeros_like(lib.ones(2), pin_memory=False),
        lambda lib: lib.full_like(lib.ones(2), 3.0, pin_memory=False),
    ],
)
def test_creation_takes_pin_memory(call):
    got, want = call(ember), call(torch)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.tolist() == want.tolist()


if __name__ == "__main__":
    found, compared, skipped = mismatches()
    for name, problems in sorted(found.items()):
        print(f"{name}: " + "; ".join(problems))
    print(f"compared {compared}, mismatching {len(found)}, skipped {len(skipped)}", file=sys.stderr)
