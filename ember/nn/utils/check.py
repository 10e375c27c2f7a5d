"""``ember.nn.utils.check``: find the mistakes that make a model train silently wrong (ember only).

PyTorch accepts a plain list of layers, a tensor that was meant to be a parameter, an optimizer
built before the last layer was added, a layer left in eval mode: nothing fails, the model just
trains wrong. ``check(model, optimizer=None, inputs=None)`` looks for those mistakes and returns a
:class:`CheckReport` of :class:`Finding` objects, each with a stable ``kind``, where it is, what
is wrong and the code that fixes it. It never changes the model: the forward and backward run on
a deep copy, with the random state restored afterwards.

The kinds of finding (``Finding.kind``):

- registration (read from the model itself; the same rules as the ``RegistrationWarning`` that
  ``Module.__setattr__`` gives, widened to nested containers and plain objects):
  ``unregistered_module``, ``unregistered_parameter``, ``tensor_requires_grad`` (a leaf tensor
  with ``requires_grad=True`` that is not a Parameter), ``tensor_not_buffer`` (a plain tensor
  attribute with a public name: state that ``.to()`` and ``state_dict()`` miss).
- ``shared_parameter``, ``shared_module`` (severity "info": tying weights is often intended).
- modes: ``eval_submodule`` (part of a model in training mode left in eval), ``model_in_eval``
  (the whole model in eval while an optimizer is given).
- with ``optimizer``: ``param_not_in_optimizer``, ``frozen_param_in_optimizer``,
  ``not_a_model_parameter``, ``param_in_two_groups``, ``duplicate_param_in_group``.
- with ``inputs``: ``no_gradient`` (a parameter that requires grad got none),
  ``unused_buffer`` (a persistent floating buffer the forward neither read nor changed),
  ``output_not_differentiable`` (no floating output carries a gradient).
"""

from __future__ import annotations

import collections
import dataclasses
import inspect
import sys
import types
from collections.abc import Iterator

from ember.nn.modules import module as _module
from ember.nn.modules.batchnorm import _BatchNorm
from ember.nn.modules.dropout import _DropoutNd
from ember.nn.modules.instancenorm import _InstanceNorm
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.tensor import Tensor

__all__ = ["CheckReport", "Finding", "check"]

# How deep the search goes into nested containers and plain objects, and how many items of one
# container it reads: Modules and tensors sit near the top; a long list is data (a vocabulary).
_MAX_DEPTH = 4
_MAX_ITEMS = 10_000
# Objects of these packages are not user containers: ember's own (optimizers hold the model's
# parameters and their state tensors on purpose), the standard library's, NumPy's, torch's.
_NOT_CONTAINERS = frozenset(
    (
        "builtins",
        "ember",
        "torch",
        "numpy",
        "functools",
        "weakref",
        "collections",
        "typing",
        "enum",
        "abc",
        "threading",
        "logging",
        "io",
        "re",
        "types",
        "pathlib",
    )
)
_ATOMS = (str, bytes, bytearray, int, float, complex, bool, type(None), range, slice)


@dataclasses.dataclass(frozen=True)
class Finding:
    """One likely mistake found by :func:`check`.

    Attributes:
        kind: a short stable identifier (``"unregistered_module"``, ``"no_gradient"``...).
        module: the dotted path of the module concerned (``"encoder.layers.0"``; ``""`` is the
            root).
        attribute: the attribute or parameter name concerned, or ``None``.
        message: what is wrong, in a sentence or two.
        fix: the code that fixes it (``"self.layers = nn.ModuleList([...])"``).
        severity: ``"warning"``, or ``"info"`` for what is often intended (tied weights).
    """

    kind: str
    module: str
    attribute: str | None
    message: str
    fix: str
    severity: str = "warning"

    @property
    def where(self) -> str:
        """``module.attribute`` (``<root>`` for the root module)."""
        if self.attribute is None:
            return self.module or "<root>"
        return f"{self.module}.{self.attribute}" if self.module else self.attribute

    def __str__(self) -> str:
        return f"[{self.severity}] {self.kind} at {self.where}: {self.message}\n    fix: {self.fix}"


class CheckReport:
    """What :func:`check` found: iterate it, index it, or print it.

    ``len(report)`` counts the findings and ``bool(report)`` is true when there is any (so
    ``if ember.nn.utils.check(model): ...`` reads "if check found something"); ``str(report)``
    lists them, or says "no findings".
    """

    def __init__(self, findings: list[Finding]):
        self.findings = list(findings)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def __bool__(self) -> bool:
        return bool(self.findings)

    def __getitem__(self, index):
        return self.findings[index]

    def kinds(self) -> list[str]:
        """The ``kind`` of each finding, in order."""
        return [f.kind for f in self.findings]

    def __str__(self) -> str:
        if not self.findings:
            return "ember.nn.utils.check: no findings"
        n = len(self.findings)
        lines = [f"ember.nn.utils.check: {n} finding{'s' if n > 1 else ''}"]
        lines += [f"  {str(f).replace(chr(10), chr(10) + '  ')}" for f in self.findings]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"CheckReport({self.kinds()!r})"


def check(model: Module, optimizer=None, inputs=None) -> CheckReport:
    """Look for the mistakes that make ``model`` train silently wrong; change nothing.

    Args:
        model: the root module.
        optimizer: the optimizer that will train it (anything with ``param_groups``). Given, the
            check compares its parameters with the model's and expects the model in training
            mode.
        inputs: an example input, to run one forward and backward on a deep copy of the model:
            a tensor (one argument), a tuple (the positional arguments) or a dict (keyword
            arguments). Given, the check names the parameters that got no gradient and the
            buffers the forward never used. The model's hooks run on the copy too.

    Returns:
        A :class:`CheckReport` of :class:`Finding` objects (see this module's docstring for the
        kinds).

    Example:
        >>> from ember import nn
        >>> class Tower(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.stages = [[nn.Linear(4, 4)], [nn.Linear(4, 4)]]  # not registered
        ...         self.head = nn.Linear(4, 2)
        ...     def forward(self, x):
        ...         for stage in self.stages:
        ...             x = stage[0](x)
        ...         return self.head(x)
        >>> report = ember.nn.utils.check(Tower(), inputs=ember.randn(3, 4))
        >>> report.kinds()
        ['unregistered_module']
        >>> print(report[0].fix)
        wrap it: self.stages = nn.ModuleList([nn.ModuleList([...]), ...])
        >>> print(ember.nn.utils.check(nn.Linear(4, 2), inputs=ember.randn(3, 4)))
        ember.nn.utils.check: no findings
    """
    if not isinstance(model, Module):
        raise TypeError(f"check(): model must be an nn.Module, got {type(model).__name__}")
    findings: list[Finding] = []
    owners = _Owners(model)
    findings += _unregistered(model, owners)
    findings += _shared(model)
    findings += _modes(model, optimizer is not None)
    if optimizer is not None:
        findings += _optimizer(model, optimizer, owners)
    if inputs is not None:
        from ember.nn.utils._check_forward import run_copy

        findings += run_copy(model, inputs)
    return CheckReport(findings)


# ---- where each parameter and buffer is registered ---------------------------------------------
class _Owners:
    """The model's registered members by identity: each module's path, and each parameter's and
    buffer's first (module path, name)."""

    def __init__(self, model: Module):
        self.modules: dict[int, str] = {}
        self.params: dict[int, tuple[str, str]] = {}
        self.buffers: dict[int, tuple[str, str]] = {}
        for path, m in model.named_modules():
            self.modules[id(m)] = path
            for name, p in m._parameters.items():
                if p is not None:
                    self.params.setdefault(id(p), (path, name))
            for name, b in m._buffers.items():
                if b is not None:
                    self.buffers.setdefault(id(b), (path, name))

    def registered(self, value) -> bool:
        i = id(value)
        return i in self.modules or i in self.params or i in self.buffers


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# ---- registration ------------------------------------------------------------------------------
_internal_names: frozenset | None = None


def _internal(name: str) -> bool:
    """Module's own bookkeeping (hook dicts, ``_parameters``...): never user state."""
    global _internal_names
    if _internal_names is None:
        _internal_names = frozenset(vars(Module())) | _module._OWN_STATE
    return name in _internal_names


def _derived_by_hook(module: Module, name: str) -> bool:
    # The hook-based weight_norm / spectral_norm (and user hooks written the same way) keep the
    # derived tensor as a plain attribute that a forward pre-hook recomputes from the real
    # parameters on every call: it is an output, not state.
    return any(getattr(h, "name", None) == name for h in module._forward_pre_hooks.values())


def _plain_object(value) -> bool:
    if isinstance(value, type) or inspect.isroutine(value) or isinstance(value, types.ModuleType):
        return False
    root = (type(value).__module__ or "").partition(".")[0]
    if root in _NOT_CONTAINERS:
        return False
    return hasattr(value, "__dict__") or dataclasses.is_dataclass(value)


def _fields(value) -> list:
    if dataclasses.is_dataclass(value) and not hasattr(value, "__dict__"):
        return [(f.name, getattr(value, f.name, None)) for f in dataclasses.fields(value)]
    return list(vars(value).items())


def _contents(value, where: str, depth: int, seen: set) -> Iterator[tuple[str, object]]:
    """``(where, item)`` for each Module or tensor inside a container or plain object (not
    looking inside the Modules and tensors themselves)."""
    if isinstance(value, (Module, Tensor)):
        yield where, value
        return
    if isinstance(value, _ATOMS) or depth >= _MAX_DEPTH or id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for n, (k, v) in enumerate(value.items()):
            if n >= _MAX_ITEMS:
                break
            yield from _contents(v, f"{where}[{k!r}]", depth + 1, seen)
    elif isinstance(value, (list, tuple, collections.deque)):
        for i, v in enumerate(value):
            if i >= _MAX_ITEMS:
                break
            yield from _contents(v, f"{where}[{i}]", depth + 1, seen)
    elif isinstance(value, (set, frozenset)):
        for n, v in enumerate(value):
            if n >= _MAX_ITEMS:
                break
            yield from _contents(v, f"{where}{{{n}}}", depth + 1, seen)
    elif _plain_object(value):
        for k, v in _fields(value):
            yield from _contents(v, f"{where}.{k}", depth + 1, seen)


def _public(where: str) -> bool:
    # ``self._cache = tensor`` (any part of the path private) is a cache by convention
    return not any(part.startswith("_") for part in where.replace("[", ".").split("."))


_SEQUENCES = (list, tuple, set, frozenset, collections.deque)


def _wrap(value, kind: str) -> str:
    """The registering container expression for ``value``, level by level (a dict of lists is
    an ``nn.ModuleDict`` of ``nn.ModuleList``s), showing its first entry."""
    is_dict = isinstance(value, dict)
    cls = _module._container_fixes({kind}, is_dict)[0]
    items = list(value.items()) if is_dict else [(None, v) for v in value]
    first = items[0][1] if items else None
    if not isinstance(first, (dict, *_SEQUENCES)):
        return f"{cls}({{...}})" if is_dict else f"{cls}([...])"
    more = ", ..." if len(items) > 1 else ""
    inner = _wrap(first, kind)
    if is_dict:
        return f"{cls}({{{items[0][0]!r}: {inner}{more}}})"
    return f"{cls}([{inner}{more}])"


def _container_fix(name: str, value, kind: str) -> str:
    """The code that registers ``kind`` items held in ``value`` (the attribute ``name``)."""
    is_dict = isinstance(value, dict)
    if not isinstance(value, (dict, list, tuple, set, frozenset, collections.deque)):
        cls = type(value).__name__
        what = {"Module": "modules", "Parameter": "parameters"}.get(kind, "tensors")
        return (
            f"make {cls} an nn.Module (then self.{name} = {cls}(...) registers its {what}), "
            f"or assign them to the model itself: self.<name> = ..."
        )
    if kind in ("Module", "Parameter"):
        return f"wrap it: self.{name} = {_wrap(value, kind)}"
    if kind == "tensor_requires_grad":
        if is_dict:
            return f"self.{name} = nn.ParameterDict({{k: nn.Parameter(t) for k, t in ...items()}})"
        return f"self.{name} = nn.ParameterList([nn.Parameter(t) for t in ...])"
    if is_dict:
        return f"for k, t in ...items(): self.register_buffer(f'{name}_{{k}}', t)"
    return f"for i, t in enumerate(...): self.register_buffer(f'{name}_{{i}}', t)"


def _unregistered(model: Module, owners: _Owners) -> list[Finding]:
    out = []
    for path, m in model.named_modules():
        cls = type(m).__name__
        for name, value in list(vars(m).items()):
            if name == "training" or _internal(name) or _module._set_by_class(m, name):
                continue
            if isinstance(value, _ATOMS) or (
                isinstance(value, Tensor) and _derived_by_hook(m, name)
            ):
                continue
            out += _attribute(path, cls, name, value, owners)
    return out


def _attribute(path: str, cls: str, name: str, value, owners: _Owners) -> list[Finding]:
    owner = f"{cls}.{name}"
    if isinstance(value, (Module, Tensor)):
        # stored past __setattr__ (object.__setattr__, __dict__) or a plain tensor
        if owners.registered(value) or (isinstance(value, Tensor) and value._grad_fn is not None):
            return []  # a reference to a registered member, or an activation
        if isinstance(value, Parameter):
            kind, fix = "unregistered_parameter", f"self.register_parameter('{name}', param)"
            msg = f"{owner} is an nn.Parameter kept as a plain attribute, not registered"
        elif isinstance(value, Module):
            kind, fix = "unregistered_module", f"self.add_module('{name}', module)"
            msg = f"{owner} is a {type(value).__name__} kept as a plain attribute, not registered"
        elif _module._forgotten_parameter(value):
            kind, fix = "tensor_requires_grad", f"self.{name} = nn.Parameter(tensor)"
            msg = (
                f"{owner} is a tensor with requires_grad=True but not an nn.Parameter, so it is "
                f"not registered. {_module._tensor_fix(name)}"
            )
        elif _public(name):
            kind = "tensor_not_buffer"
            fix = f"self.register_buffer('{name}', tensor)  (persistent=False: not saved)"
            msg = (
                f"{owner} is a plain tensor attribute: .to()/.cuda() do not move it and "
                "state_dict() does not save it. If it is state, register it as a buffer; if it "
                "is a cached value, give it a name starting with '_'"
            )
        else:
            return []
        if kind != "tensor_requires_grad":
            msg += ": parameters(), optimizers, .to() and state_dict() will not see it"
        return [Finding(kind, path, name, msg + ".", fix)]
    found: dict[str, list[str]] = {}
    for where, item in _contents(value, name, 0, set()):
        if owners.registered(item):
            continue  # a reference to what the model registers (a parent, a tied layer)
        kind = _module._member_kind(item)  # 'Module', 'Parameter', or None for a tensor
        if kind is not None:
            pass
        elif item._grad_fn is not None:
            continue  # an activation
        elif item._requires_grad:
            kind = "tensor_requires_grad"
        elif _public(where):
            kind = "tensor_not_buffer"
        else:
            continue
        found.setdefault(kind, []).append(where)
    out = []
    container = type(value).__name__
    plain = "plain object" if _plain_object(value) else "plain"
    for kind, wheres in found.items():
        listed = ", ".join(wheres[:4]) + (f" and {len(wheres) - 4} more" if len(wheres) > 4 else "")
        fix = _container_fix(name, value, kind)
        if kind in ("Module", "Parameter"):
            what = f"{len(wheres)} {kind}{'s' if len(wheres) > 1 else ''}"
            out_kind = "unregistered_" + kind.lower()
        elif kind == "tensor_requires_grad":
            what = f"{len(wheres)} tensor(s) with requires_grad=True (not Parameters)"
            out_kind = kind
        else:
            what = f"{len(wheres)} plain tensor(s)"
            out_kind = kind
        msg = (
            f"{owner} is a {plain} {container} holding {what} ({listed}); they are not "
            "registered, so parameters(), optimizers, .to() and state_dict() will not see them."
        )
        out.append(Finding(out_kind, path, name, msg, fix))
    return out


# ---- sharing -----------------------------------------------------------------------------------
def _shared(model: Module) -> list[Finding]:
    module_paths: dict[int, list[str]] = {}
    modules: dict[int, Module] = {}
    param_slots: dict[int, list[tuple[str, str, int]]] = {}
    for path, m in model.named_modules(remove_duplicate=False):
        module_paths.setdefault(id(m), []).append(path)
        modules[id(m)] = m
        if len(module_paths[id(m)]) > 1:
            continue  # a shared module's parameters are reported with the module
        for name, p in m._parameters.items():
            if p is not None:
                param_slots.setdefault(id(p), []).append((path, name, id(m)))
    out = []
    for i, paths in module_paths.items():
        if len(paths) > 1:
            shown = " and ".join(repr(p or "<root>") for p in paths)
            out.append(
                Finding(
                    "shared_module",
                    paths[0],
                    None,
                    f"the same {type(modules[i]).__name__} is registered as {shown}: its "
                    "parameters are shared (intended when reusing a layer).",
                    "nothing, if the reuse is intended; else give each its own copy: "
                    "copy.deepcopy(module)",
                    "info",
                )
            )
    for slots in param_slots.values():
        if len(slots) > 1:
            shown = " and ".join(repr(_join(p, n)) for p, n, _ in slots)
            out.append(
                Finding(
                    "shared_parameter",
                    slots[0][0],
                    slots[0][1],
                    f"the same Parameter is registered as {shown} (tied weights).",
                    "nothing, if the tying is intended; else give each its own: "
                    "nn.Parameter(p.detach().clone())",
                    "info",
                )
            )
    return out


# ---- training and eval modes -------------------------------------------------------------------
def _mode_dependent(m: Module) -> bool:
    """Does this layer compute differently in training and eval mode?"""
    if isinstance(m, (_DropoutNd, _BatchNorm)):
        return True
    if isinstance(m, _InstanceNorm):
        return bool(m.track_running_stats)
    name = type(m).__name__
    if name == "RReLU":
        return True
    if name in ("RNN", "LSTM", "GRU", "MultiheadAttention"):
        return float(getattr(m, "dropout", 0) or 0) > 0
    return False


def _dependent_below(m: Module, path: str) -> list[str]:
    return [_join(path, p) or "<root>" for p, sub in m.named_modules() if _mode_dependent(sub)]


def _modes(model: Module, training_expected: bool) -> list[Finding]:
    out = []
    if not model.training:
        if training_expected:
            dep = _dependent_below(model, "")
            msg = "the model is in eval mode, and an optimizer was given (about to train?)"
            if dep:
                msg += f"; these layers behave differently in training: {', '.join(dep[:6])}"
            out.append(
                Finding(
                    "model_in_eval",
                    "",
                    None,
                    msg + ".",
                    "model.train()",
                    "warning" if dep else "info",
                )
            )
        return out

    def walk(m: Module, path: str):
        for name, child in m._modules.items():
            if child is None:
                continue
            sub = _join(path, name)
            if not child.training:
                dep = _dependent_below(child, sub)
                msg = (
                    f"{sub} ({type(child).__name__}) is in eval mode while the model is in "
                    "training mode"
                )
                if dep:
                    msg += (
                        f"; these layers do not train as they should: {', '.join(dep[:6])} "
                        "(deliberate for a frozen backbone)"
                    )
                out.append(
                    Finding(
                        "eval_submodule",
                        sub,
                        None,
                        msg + ".",
                        f"model.{sub}.train()  (or call model.train() after loading)",
                        "warning" if dep else "info",
                    )
                )
            else:
                walk(child, sub)

    walk(model, "")
    return out


# ---- the optimizer -----------------------------------------------------------------------------
def _describe(t) -> str:
    shape = tuple(t.shape) if isinstance(t, Tensor) else "?"
    return f"a {type(t).__name__} of shape {shape}"


def _optimizer(model: Module, optimizer, owners: _Owners) -> list[Finding]:
    groups = getattr(optimizer, "param_groups", None)
    if groups is None:
        raise TypeError(
            f"check(): optimizer must have param_groups (an ember.optim.Optimizer), got "
            f"{type(optimizer).__name__}"
        )
    out = []
    groups_of: dict[int, list[int]] = {}
    for g, group in enumerate(groups):
        seen_here: set[int] = set()
        foreign = []
        for p in group["params"]:
            i = id(p)
            if i in seen_here:
                path, name = owners.params.get(i, ("", None))
                out.append(
                    Finding(
                        "duplicate_param_in_group",
                        path,
                        name,
                        f"param group {g} lists the same tensor more than once: it is updated "
                        "twice per step.",
                        "list each parameter once: list(dict.fromkeys(params))",
                    )
                )
                continue
            seen_here.add(i)
            groups_of.setdefault(i, []).append(g)
            if i not in owners.params:
                foreign.append(p)
            elif not p.requires_grad:
                path, name = owners.params[i]
                out.append(
                    Finding(
                        "frozen_param_in_optimizer",
                        path,
                        name,
                        f"{_join(path, name)} is in param group {g} but has requires_grad=False: "
                        "it gets no gradient, so the optimizer never updates it.",
                        "if it should train: p.requires_grad_(True); else leave it out: "
                        "optim.SGD([p for p in model.parameters() if p.requires_grad], ...)",
                    )
                )
        if foreign:
            shown = ", ".join(_describe(t) for t in foreign[:4])
            more = f" and {len(foreign) - 4} more" if len(foreign) > 4 else ""
            out.append(
                Finding(
                    "not_a_model_parameter",
                    "",
                    None,
                    f"param group {g} holds {len(foreign)} tensor(s) that are not parameters of "
                    f"this model ({shown}{more}): an optimizer built for another model (or "
                    "before the model was rebuilt), or tensors the model does not register.",
                    "build the optimizer from this model: optim.SGD(model.parameters(), ...)",
                )
            )
    for i, gs in groups_of.items():
        if len(gs) > 1:
            path, name = owners.params.get(i, ("", None))
            out.append(
                Finding(
                    "param_in_two_groups",
                    path,
                    name,
                    f"the same parameter is in param groups {gs}: it is updated once per group "
                    "(torch raises for this when the optimizer is built).",
                    "put each parameter in exactly one group",
                )
            )
    for i, (path, name) in owners.params.items():
        p = getattr(_module_at(model, path), name)
        if p.requires_grad and i not in groups_of:
            out.append(
                Finding(
                    "param_not_in_optimizer",
                    path,
                    name,
                    f"{_join(path, name)} requires grad but is in no param group: it is never "
                    "updated (a layer added after the optimizer was built?).",
                    f"optimizer.add_param_group({{'params': [model.{_join(path, name)}]}})  "
                    "(or build the optimizer after the model)",
                )
            )
    return out


def _module_at(model: Module, path: str) -> Module:
    return model.get_submodule(path) if path else model


# NOTE: matches torch's habit of a function shadowing its submodule's name (``nn.utils.
# weight_norm``): ``ember.nn.utils.check`` is the function, loaded lazily. But ``import
# ember.nn.utils.check`` (a doc build, a test collector) binds the package's attribute to this
# module after it runs, so the module answers calls too: either way ``check(...)`` works.
class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return check(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
