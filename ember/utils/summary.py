"""``ember.summary``: a model's layers, output shapes and parameter counts as a table, in the
layout users know from torchinfo.

The forward runs on the meta device: every parameter and buffer is replaced, for the one call,
by a meta tensor of its shape and dtype (through ``functional_call``, which puts the originals
back afterwards), the inputs are meta tensors too, and forward hooks record the output shapes.
Nothing is allocated or computed, so a model of billions of parameters built with
``device="meta"`` is summarized in milliseconds, and the user's model is left exactly as it
was (parameters, buffers, hooks and training flags).

How rows are built: a row is made when a module is called (a pre-hook), as a child of the
module that called it; the containers between the two in the module tree (a ``ModuleList`` or
``ModuleDict`` is never called itself) get rows of their own on the way, so rows follow the
module tree in the order forward reaches it. Modules forward never reaches are appended under
their parent with no output shape. A module called twice gets two rows; the second shows
``(recursive)`` instead of a count. A parameter is counted in the first row that shows it
(tied weights: ``(tied)`` on the later rows), so the shown counts add up to the total.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ember._device import device as _device_ctx
from ember._dtype import get_default_dtype
from ember.autograd.grad_mode import no_grad
from ember.nn.modules.module import Module
from ember.nn.parameter import is_lazy
from ember.nn.utils.rnn import PackedSequence
from ember.nn.utils.stateless import _functional_call
from ember.ops.creation import empty
from ember.tensor import Tensor

__all__ = ["summary", "ModelSummary", "LayerInfo"]

_MB = 1e6  # NOTE: matches torchinfo: "MB" is 10**6 bytes


@dataclass(eq=False)
class LayerInfo:
    """One row of a :class:`ModelSummary`.

    Attributes:
        name: dotted name in the model (``""`` for the model itself).
        type_name: the module's class name.
        depth: 0 for the model, 1 for its children, and so on.
        output_shape: the output's structure with each tensor replaced by its shape (a tuple);
            ``None`` for a module forward did not call.
        num_params: parameters counted in this row (its own, or its whole subtree at the
            depth limit), leaving out those an earlier row counted.
        trainable: ``"True"``, ``"False"`` or ``"Partial"`` over the module's parameters
            (its subtree's), ``"--"`` without any.
        note: ``"(recursive)"`` for a module's second call, ``"(tied)"`` when every
            parameter shown here was counted in an earlier row, else ``""``.
    """

    module: Module = field(repr=False)
    name: str
    type_name: str
    depth: int
    output_shape: Any = None
    output_bytes: int = 0
    called: bool = False
    num_params: int = 0
    trainable: str = "--"
    note: str = ""
    children: list = field(default_factory=list, repr=False)


class ModelSummary:
    """What :func:`summary` returns: ``str()`` is the table; the numbers are attributes.

    Attributes:
        layers: the rows shown, a list of :class:`LayerInfo` in table order.
        total_params: parameters of the model, each tensor counted once (tied weights once).
        trainable_params: those of them with ``requires_grad``.
        non_trainable_params: the others.
        total_param_bytes: bytes the parameters take.
        total_input_bytes: bytes the inputs take.
        total_output_bytes: estimated bytes of the forward/backward pass: the outputs of the
            innermost modules (those that call no other module), twice (values and gradients).
    """

    def __init__(
        self,
        model_name: str,
        layers: list[LayerInfo],
        total_params: int,
        trainable_params: int,
        total_param_bytes: int,
        total_input_bytes: int,
        total_output_bytes: int,
    ):
        self.model_name = model_name
        self.layers = layers
        self.total_params = total_params
        self.trainable_params = trainable_params
        self.non_trainable_params = total_params - trainable_params
        self.total_param_bytes = total_param_bytes
        self.total_input_bytes = total_input_bytes
        self.total_output_bytes = total_output_bytes

    @property
    def summary_list(self) -> list[LayerInfo]:
        """The rows (torchinfo's name for them)."""
        return self.layers

    @property
    def total_bytes(self) -> int:
        """Parameters, inputs and the forward/backward pass together."""
        return self.total_param_bytes + self.total_input_bytes + self.total_output_bytes

    @property
    def params_size_mb(self) -> float:
        return self.total_param_bytes / _MB

    @property
    def input_size_mb(self) -> float:
        return self.total_input_bytes / _MB

    @property
    def forward_backward_size_mb(self) -> float:
        return self.total_output_bytes / _MB

    @property
    def total_size_mb(self) -> float:
        return self.total_bytes / _MB

    def __str__(self) -> str:
        header = ("Layer (type)", "Output Shape", "Param #", "Trainable")
        cells = [header]
        for row in self.layers:
            if row.depth == 0:
                label = row.type_name
            else:
                # NOTE: matches torchinfo: the tree drawing of its rows
                lead = "├─" if row.depth == 1 else "│    " * (row.depth - 1) + "└─"
                label = f"{lead}{row.name.rsplit('.', 1)[-1]} ({row.type_name})"
            shape = "--" if row.output_shape is None else _format_shape(row.output_shape)
            count = row.note or (f"{row.num_params:,}" if row.num_params else "--")
            cells.append((label, shape, count, row.trainable))
        widths = [max(len(c[i]) for c in cells) for i in range(4)]
        widths = [max(widths[0], 40), max(widths[1], 25), max(widths[2], 15), widths[3]]
        line = "=" * (sum(widths) + 3 * 2)

        def fmt(c):
            return "  ".join(s.ljust(w) for s, w in zip(c, widths, strict=True)).rstrip()

        lines = [
            line,
            fmt(header),
            line,
            *(fmt(c) for c in cells[1:]),
            line,
            f"Total params: {self.total_params:,}",
            f"Trainable params: {self.trainable_params:,}",
            f"Non-trainable params: {self.non_trainable_params:,}",
            line,
            f"Input size (MB): {self.input_size_mb:0.2f}",
            f"Forward/backward pass size (MB): {self.forward_backward_size_mb:0.2f}",
            f"Params size (MB): {self.params_size_mb:0.2f}",
            f"Estimated Total Size (MB): {self.total_size_mb:0.2f}",
            line,
        ]
        return "\n".join(lines)

    __repr__ = __str__


def _format_shape(out) -> str:
    if isinstance(out, tuple) and all(isinstance(s, int) for s in out):
        return "[" + ", ".join(str(s) for s in out) + "]"
    if isinstance(out, _Packed):
        return f"PackedSequence(data={_format_shape(out.shape)})"
    if isinstance(out, dict):
        return "{" + ", ".join(f"{k}: {_format_shape(v)}" for k, v in out.items()) + "}"
    if isinstance(out, _Seq):
        return "(" + ", ".join(_format_shape(v) for v in out) + ")"
    return "--"  # a non-tensor output (None, a number)


class _Seq(list):
    """A tuple/list output, kept apart from a shape (itself a tuple of ints)."""


@dataclass(frozen=True)
class _Packed:
    shape: tuple


def _shapes(out) -> tuple[Any, int]:
    """(``out`` with every tensor replaced by its shape, the bytes those tensors take)."""
    if isinstance(out, Tensor):
        return tuple(out.shape), out.numel() * out.element_size()
    if isinstance(out, PackedSequence):
        shape, nbytes = _shapes(out.data)
        return _Packed(shape), nbytes
    if isinstance(out, Mapping):
        items = {k: _shapes(v) for k, v in out.items()}
        return {k: s for k, (s, _) in items.items()}, sum(b for _, b in items.values())
    if isinstance(out, (tuple, list)):
        items = [_shapes(v) for v in out]
        return _Seq(s for s, _ in items), sum(b for _, b in items)
    return None, 0


def _to_meta(obj):
    """Meta tensors of the shapes and dtypes of the tensors in ``obj`` (nested lists, tuples
    and dicts); anything else is passed through."""
    if isinstance(obj, Tensor):
        return empty(tuple(obj.shape), dtype=obj.dtype, device="meta")
    if isinstance(obj, PackedSequence):
        # batch_sizes and the permutations stay: forward reads them (small CPU int tensors)
        return obj._replace(data=_to_meta(obj.data))
    if isinstance(obj, Mapping):
        return {k: _to_meta(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a named tuple
        return type(obj)(*(_to_meta(v) for v in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to_meta(v) for v in obj)
    return obj


def _is_shape(obj) -> bool:
    return (
        isinstance(obj, Sequence)
        and not isinstance(obj, str)
        and all(isinstance(s, int) and not isinstance(s, bool) for s in obj)
    )


def _inputs_from_sizes(input_size, dtypes) -> list[Tensor]:
    shapes = [input_size] if _is_shape(input_size) else input_size
    if not isinstance(shapes, Sequence) or not shapes or not all(_is_shape(s) for s in shapes):
        raise ValueError(
            f"summary(): input_size must be a shape such as (2, 3, 32, 32) (batch dimension "
            f"included) or a list of shapes, got {input_size!r}"
        )
    for s in shapes:
        if any(d < 0 for d in s):
            raise ValueError(f"summary(): input_size has a negative dimension: {tuple(s)}")
    if dtypes is None:
        dtypes = [get_default_dtype()] * len(shapes)
    elif len(dtypes) != len(shapes):
        raise ValueError(
            f"summary(): {len(dtypes)} dtypes for {len(shapes)} input shapes; give one dtype "
            "per input"
        )
    return [empty(tuple(s), dtype=d, device="meta") for s, d in zip(shapes, dtypes, strict=True)]


def _input_bytes(obj) -> int:
    return _shapes(obj)[1]


def summary(
    model: Module,
    input_size: Any = None,
    input_data: Any = None,
    depth: int = 3,
    *,
    dtypes: Sequence | None = None,
    mode: str = "eval",
    **kwargs: Any,
) -> ModelSummary:
    """A table of ``model``'s layers with their output shapes and parameter counts, worked out
    on the meta device (no memory, no compute), like torchinfo's ``summary``.

    Args:
        model: the module to summarize; it is left as it was.
        input_size: the input's shape, batch dimension included, or a list of shapes for a
            forward of several arguments.
        input_data: the inputs themselves instead: a tensor, a list/tuple of positional
            arguments or a dict of keyword arguments (tensors in them are replaced by meta
            tensors of their shape and dtype; other values are passed as they are).
        depth: the deepest level of nested modules shown (the model is level 0); a row at
            this depth counts its whole subtree.
        dtypes: one dtype per shape in ``input_size`` (default: the default dtype; token ids
            need ``ember.long``).
        mode: ``"eval"`` (default, as torchinfo), ``"train"`` or ``"same"``: the training
            flags forward runs with; every module's own flag is restored afterwards.
        **kwargs: more keyword arguments for ``model``'s forward.

    Returns:
        A :class:`ModelSummary`; print it to see the table.

    Raises:
        ValueError: neither or both of ``input_size`` and ``input_data`` given, a bad shape,
            a bad ``depth`` or ``mode``.
        RuntimeError: forward failed on the meta device; the message names the module.

    Example:
        >>> net = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(),
        ...                           ember.nn.Linear(8, 2))
        >>> s = ember.summary(net, input_size=(16, 4))
        >>> s.total_params
        58
        >>> s.trainable_params, s.non_trainable_params
        (58, 0)
        >>> print(str(s).splitlines()[4])  # doctest: +NORMALIZE_WHITESPACE
        ├─0 (Linear)          [16, 8]          40          True
        >>> [(row.name, row.output_shape, row.num_params) for row in s.layers]
        [('', (16, 2), 0), ('0', (16, 8), 40), ('1', (16, 8), 0), ('2', (16, 2), 18)]
    """
    if not isinstance(model, Module):
        raise TypeError(f"summary(): model must be an nn.Module, got {type(model).__name__}")
    if input_size is None and input_data is None:
        raise ValueError(
            "summary(): give the input's shape as input_size=(batch, ...) or example inputs "
            "as input_data=...; the table needs a forward pass"
        )
    if input_size is not None and input_data is not None:
        raise ValueError("summary(): give input_size or input_data, not both")
    if dtypes is not None and input_size is None:
        raise ValueError(
            "summary(): dtypes goes with input_size; input_data tensors keep their own dtypes"
        )
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"summary(): depth must be a non-negative int, got {depth!r}")
    if mode not in ("eval", "train", "same"):
        raise ValueError(f"summary(): mode must be 'eval', 'train' or 'same', got {mode!r}")

    lazy = [n for n, t in (*model.named_parameters(), *model.named_buffers()) if is_lazy(t)]
    if lazy:
        raise ValueError(
            f"summary(): {', '.join(lazy)} not initialized yet (lazy modules): run the model "
            "once on real inputs first; summary never changes the model it is given"
        )
    call_kwargs = _to_meta(kwargs)
    if input_size is not None:
        args = _inputs_from_sizes(input_size, dtypes)
    elif isinstance(input_data, Mapping):
        args, call_kwargs = [], {**_to_meta(dict(input_data)), **call_kwargs}
    elif isinstance(input_data, (list, tuple)) and not isinstance(input_data, PackedSequence):
        args = list(_to_meta(input_data))
    else:
        args = [_to_meta(input_data)]
    input_bytes = _input_bytes(args) + _input_bytes(call_kwargs)

    names = {}
    for name, m in model.named_modules():
        names.setdefault(m, name)
    tracer = _Tracer(model, names)
    root = tracer.run(args, call_kwargs, mode)
    tracer.add_uncalled(root)

    layers: list[LayerInfo] = []
    seen: set[int] = set()
    _collect(root, depth, layers, seen, set())
    total = trainable = nbytes = 0
    for p in model.parameters():
        n = p.numel()
        total += n
        nbytes += n * p.element_size()
        if p.requires_grad:
            trainable += n
    return ModelSummary(
        type(model).__name__,
        layers,
        total,
        trainable,
        nbytes,
        input_bytes,
        2 * _leaf_output_bytes(root)[0],
    )


class _Tracer:
    """Runs the meta forward and builds the tree of rows from the hooks' calls."""

    def __init__(self, model: Module, names: dict):
        self.model = model
        self.names = names
        self.stack: list[LayerInfo] = []
        self.root: LayerInfo | None = None
        self.shown: set[Module] = set()

    def _row(self, module, parent):
        name = self.names.get(module, "")
        return LayerInfo(
            module, name, type(module).__name__, 0 if parent is None else parent.depth + 1
        )

    def _child_of(self, parent: LayerInfo, module: Module) -> LayerInfo:
        """``parent``, or the row of the container between ``parent`` and ``module`` that
        ``module`` hangs under (made on the way)."""
        name, pname = self.names.get(module, ""), parent.name
        prefix = pname + "." if pname else ""
        if parent.module is self.model or name.startswith(prefix):
            rest = name[len(prefix) :].split(".")[:-1]
            for i in range(len(rest)):
                cname = prefix + ".".join(rest[: i + 1])
                found = next((c for c in parent.children if c.name == cname and not c.called), None)
                if found is None:
                    found = self._row(self.model.get_submodule(cname), parent)
                    self.shown.add(found.module)
                    parent.children.append(found)
                parent = found
        return parent

    def pre_hook(self, module, args):
        if not self.stack:
            row = self.root = self._row(module, None)
        else:
            parent = self._child_of(self.stack[-1], module)
            row = self._row(module, parent)
            parent.children.append(row)
        row.called = True
        self.shown.add(module)
        self.stack.append(row)

    def hook(self, module, args, output):
        row = self.stack.pop()
        row.output_shape, row.output_bytes = _shapes(output)

    def run(self, args, kwargs, mode) -> LayerInfo:
        model = self.model
        flags = [(m, m.training) for m in model.modules()]
        metas = {}
        for name, t in (*model.named_parameters(), *model.named_buffers()):
            metas[name] = empty(tuple(t.shape), dtype=t.dtype, device="meta")
        handles = []
        try:
            for m in self.names:
                handles.append(m.register_forward_pre_hook(self.pre_hook))
                handles.append(m.register_forward_hook(self.hook))
            if mode != "same":
                model.train(mode == "train")
            # factory calls without a device inside forward (torch.arange(t)) land on meta too
            with no_grad(), _device_ctx("meta"):
                _functional_call(model, metas, tuple(args), kwargs)
        except Exception as e:
            if not self.stack:
                raise
            row = self.stack[-1]
            where = f"{row.name} ({row.type_name})" if row.name else row.type_name
            hint = ""
            if isinstance(e, (NotImplementedError, TypeError)) or "data" in str(e):
                hint = (
                    " (shapes are worked out on the meta device, without data: code that "
                    "reads tensor values, such as item() or a data-dependent shape, cannot "
                    "run there)"
                )
            raise RuntimeError(
                f"summary(): the forward of {where} failed on the meta device: "
                f"{type(e).__name__}: {e}{hint}"
            ) from e
        finally:
            for h in handles:
                h.remove()
            for m, flag in flags:
                if m.training is not flag:
                    m.training = flag
        if self.root is None:
            raise RuntimeError("summary(): the model's forward was not called")
        return self.root

    def add_uncalled(self, root: LayerInfo) -> None:
        """Rows for the modules forward never reached, under their parent's first row."""
        first: dict = {}

        def index(row):
            first.setdefault(row.module, row)
            for c in row.children:
                index(c)

        index(root)
        for name, m in self.model.named_modules():
            if m in first:
                continue
            parent = first[self.model.get_submodule(name.rpartition(".")[0])]
            row = self._row(m, parent)
            parent.children.append(row)
            first[m] = row


def _walk(row: LayerInfo):
    yield row
    for c in row.children:
        yield from _walk(c)


def _collect(row: LayerInfo, depth: int, out: list, seen: set, visited: set) -> None:
    """Fills the counts of ``row`` and below (parameters not counted before) and lists the
    rows down to ``depth``."""
    at_limit = row.depth >= depth
    # the parameters of every module in this row's part of the table (every module has a row
    # somewhere, so a row at the depth limit covers what its hidden rows would have shown)
    sub = {id(p): p for r in _walk(row) for p in r.module.parameters(recurse=False)}
    params = list(sub.values()) if at_limit else list(row.module.parameters(recurse=False))
    if sub:
        trainable = sum(p.requires_grad for p in sub.values())
        row.trainable = (
            "True" if trainable == len(sub) else ("False" if trainable == 0 else "Partial")
        )
    new = [p for p in params if id(p) not in seen]
    seen.update(id(p) for p in new)
    row.num_params = sum(p.numel() for p in new)
    if params and not new:
        row.note = "(recursive)" if row.module in visited else "(tied)"
    visited.add(row.module)
    out.append(row)
    if at_limit:  # hidden rows: their modules count as shown (a later call is recursive)
        visited.update(r.module for r in _walk(row))
        return
    for c in row.children:
        _collect(c, depth, out, seen, visited)


def _leaf_output_bytes(row: LayerInfo) -> tuple[int, bool]:
    """(bytes of the outputs of the innermost calls in ``row``'s subtree, whether the subtree
    holds a call)."""
    total, any_call = 0, False
    for c in row.children:
        b, called = _leaf_output_bytes(c)
        total += b
        any_call |= called
    if any_call:
        return total, True
    return row.output_bytes, row.called
