"""``Function``: the one mechanism behind every differentiable op, built-in or user-defined.

A subclass defines ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; ``Function.apply``
runs forward and, when grad recording is on and an input requires grad, makes ``ctx`` the
graph node (``grad_fn``) of the outputs. Built-in ops set ``_array_forward = True``: their
forward receives and returns raw backend arrays (fast, no graph) and their backward is written
with Tensor operations, so ``create_graph=True`` differentiates it again. User subclasses, as
in PyTorch, receive Tensors in forward (run under ``no_grad``) and return Tensors.

Broadcast reduction and dtype casting of gradients are the engine's job (``engine.py``), not
the op's: a backward may return a gradient of the broadcast output shape.
"""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict

from ember import backend
from ember.autograd import grad_mode as _gm
from ember.tensor import Tensor, _wrap

_new = object.__new__
_state = _gm.state
_anomaly = _gm.anomaly
_seq = itertools.count()
_FREED = object()


class _HookList:
    """Hooks in registration order, keyed by handle id; ``retain`` is the retain_grad hook,
    which runs after all others."""

    __slots__ = ("hooks", "retain", "__weakref__")

    def __init__(self):
        self.hooks = OrderedDict()
        self.retain = None

    def add(self, hook, prepend: bool = False):
        handle = RemovableHandle(self.hooks)
        self.hooks[handle.id] = hook
        if prepend:
            self.hooks.move_to_end(handle.id, last=False)
        return handle

    def __bool__(self):
        return bool(self.hooks)

    def __iter__(self):
        return iter(list(self.hooks.values()))


class RemovableHandle:
    """Returned by every ``register_*hook``: ``remove()`` unregisters the hook (also on exit
    when used as a context manager). Holds the hook dicts weakly, as PyTorch's does."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        extra = (
            []
            if extra_dict is None
            else (extra_dict if isinstance(extra_dict, list) else [extra_dict])
        )
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class BackwardNode:
    """A node of the autograd graph; also the ``ctx`` of its Function's forward and backward.

    ``_next`` holds one edge per forward argument: ``None`` when no gradient flows there, else
    ``(node, output_nr, shape, dtype)``, where a leaf tensor that requires grad stands for its
    own accumulation node (with output_nr None), and shape and dtype are the argument's, used
    by the engine to reduce a broadcast gradient and cast it back (one tuple per edge: it is
    built for every op).
    """

    # Slots for what ``_record`` sets on every node. The rest is rarely set: class-level
    # defaults, overridden in the instance ``__dict__`` when set, so that making a node runs no
    # ``__init__`` (one per recorded op).
    __slots__ = ("_next", "needs_input_grad", "_seq", "_out_meta", "__dict__", "__weakref__")
    _n_out = 1  # how many outputs forward returned
    _function = None  # the Function subclass, set on each generated node class
    _saved = None
    _to_save = None
    _tensor_pre_hooks = None
    _pre_hooks = None
    _post_hooks = None
    _dirty = None
    _non_diff = None
    materialize_grads = True
    _trace = None
    # False once any of the hooks, ``_trace``, ``_dirty`` or ``_non_diff`` is set: the engine and
    # ``_record`` check this one flag to take their short paths.
    _plain = True

    # ---- ctx API (PyTorch's FunctionCtx) ------------------------------------------------------
    def save_for_backward(self, *tensors) -> None:
        """Save inputs or outputs (or other tensors) for ``backward``; read them back with
        ``ctx.saved_tensors``. In-place changes to them before backward are detected."""
        self._to_save = tensors

    def mark_dirty(self, *tensors) -> None:
        """Declare inputs that forward modified in place."""
        self._dirty = tensors
        self._plain = False

    def mark_non_differentiable(self, *tensors) -> None:
        """Declare outputs that have no gradient (e.g. indices)."""
        self._non_diff = tensors
        self._plain = False

    def set_materialize_grads(self, value: bool) -> None:
        """If False, ``backward`` receives ``None`` for outputs whose gradient was not
        computed instead of zeros."""
        self.materialize_grads = value

    @property
    def saved_tensors(self) -> tuple:
        saved = self._saved
        if saved is _FREED:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or "
                "if you need to access saved tensors after calling backward."
            )
        if saved is None:
            return ()
        if len(saved) == 1:  # one saved tensor (an activation's): no list to build
            return (_unpack(self, saved[0]),)
        return tuple([_unpack(self, s) for s in saved])

    saved_variables = saved_tensors

    # ---- graph API ----------------------------------------------------------------------------
    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        out = []
        for e in self._next:
            if e is None:
                out.append((None, 0))
            elif isinstance(e[0], Tensor):
                out.append((AccumulateGrad(e[0]), 0))
            else:
                out.append((e[0], e[1]))
        return tuple(out)

    @property
    def metadata(self) -> dict:
        return self.__dict__.setdefault("_metadata", {})

    def register_hook(self, fn):
        """Register ``fn(grad_inputs, grad_outputs)`` to run after this node's backward; a
        returned tuple replaces ``grad_inputs``."""
        if self._post_hooks is None:
            self._post_hooks = _HookList()
            self._plain = False
        return self._post_hooks.add(fn)

    def register_prehook(self, fn):
        """Register ``fn(grad_outputs)`` to run before this node's backward; a returned tuple
        replaces ``grad_outputs``."""
        if self._pre_hooks is None:
            self._pre_hooks = _HookList()
            self._plain = False
        return self._pre_hooks.add(fn)

    def __call__(self, *grads):
        return self._function.backward(self, *grads)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class AccumulateGrad:
    """The node that accumulates into a leaf's ``.grad`` (built on demand for inspection)."""

    def __init__(self, variable: Tensor):
        self.variable = variable
        self.next_functions = ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __eq__(self, other):
        return isinstance(other, AccumulateGrad) and other.variable is self.variable

    def __hash__(self):
        return id(self.variable)

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"


def _unpack(node, s):
    """Turn a saved entry back into a Tensor, checking it was not modified in place."""
    kind = s.__class__
    if kind is tuple:  # an input: (tensor, its version when saved)
        t, version = s
        if t._vc[0] != version:
            _raise_modified(t, version)
        return t
    if kind is _SavedOutput:
        if s.vc[0] != s.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{_type_str(s.data)}], which is output {s.nr} of "
                f"{type(node).__name__}, is at version {s.vc[0]}; expected version {s.version} "
                "instead. Hint: the backtrace further above can show the operation that failed "
                "to compute its gradient, or enable anomaly detection with "
                "ember.autograd.set_detect_anomaly(True)."
            )
        t = _wrap(s.data)
        t._vc = s.vc
        if s.requires_grad:
            t._requires_grad = True
            t._grad_fn = node
            if s.nr:
                t._output_nr = s.nr
        return t
    if kind is _SavedValue:
        return s.value
    if kind is _SavedHooked:
        return s.unpack(node)
    return s


def _type_str(data) -> str:
    from ember._dtype import from_np

    return f"ember.{from_np(data.dtype).name} {list(data.shape)}"


def _raise_modified(t: Tensor, expected: int):
    where = (
        f"which is output {t._output_nr} of {type(t._grad_fn).__name__}"
        if t._grad_fn is not None
        else "which is a leaf tensor"
    )
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{_type_str(t._data)}], {where}, is at version {t._vc[0]}; expected "
        f"version {expected} instead. Hint: enable anomaly detection to find the operation "
        "that failed to compute its gradient, with ember.autograd.set_detect_anomaly(True)."
    )


# A saved input is the tuple ``(tensor, version)`` (one is made for nearly every recorded op: a
# tuple costs a third of an object); any other saved tuple is wrapped in ``_SavedValue``.
class _SavedValue:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _SavedOutput:
    # An output is saved without a reference to its Tensor (that would be a cycle through
    # grad_fn): its data and version counter, rebuilt with grad_fn = node on unpack.
    __slots__ = ("data", "vc", "version", "nr", "requires_grad")

    def __init__(self, data, vc, nr, requires_grad):
        self.data = data
        self.vc = vc
        self.version = vc[0]
        self.nr = nr
        self.requires_grad = requires_grad


# ---- saved-tensor hooks (``ember.autograd.graph.saved_tensors_hooks``) --------------------------
# The active (pack_hook, unpack_hook) pairs, innermost last; only the innermost applies. Every
# path that records saved tensors checks this list once (empty: nothing else runs).
saved_hooks_stack: list = []


class _SavedHooked:
    """A saved tensor that went through a pack hook: the packed value, the unpack hook paired
    with it, and the autograd identity of the tensor it stands for, re-attached on unpack (as
    torch: the version counter is not checked then)."""

    __slots__ = ("packed", "unpack_hook", "source", "nr", "leaf")

    def unpack(self, node):
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(t).__name__}"
            )
        src = self.source
        if src is None:  # a constant, or a tensor outside the graph
            return t
        if self.leaf:  # gradients must reach the leaf itself (create_graph)
            return src if _state.enabled else t
        out = _wrap(t._data)
        out._requires_grad = True
        out._grad_fn = node if src == "output" else src
        if self.nr:
            out._output_nr = self.nr
        return out


def apply_saved_hooks(node) -> None:
    """Pass every tensor ``node`` saved through the innermost pack hook (under ``no_grad``, as
    torch); called right after ``node._saved`` is built when ``saved_hooks_stack`` is set."""
    pack, unpack = saved_hooks_stack[-1]
    entries = []
    prev = _state.enabled
    _state.enabled = False
    try:
        for s in node._saved:
            kind = s.__class__
            if kind is tuple:
                t = s[0]
            elif kind is _SavedOutput or kind is Tensor or isinstance(s, Tensor):
                t = _unpack(node, s)
            else:  # None or a non-tensor value: kept as is
                entries.append(s)
                continue
            h = _new(_SavedHooked)
            h.unpack_hook = unpack
            h.nr = t._output_nr
            h.leaf = False
            if kind is _SavedOutput:
                h.source = "output" if s.requires_grad else None
            elif not t._requires_grad:
                h.source = None
            elif t._grad_fn is None:
                h.source = t
                h.leaf = True
            else:
                h.source = t._grad_fn
            version = t._vc[0]
            h.packed = pack(t)
            if t._vc[0] != version:
                raise RuntimeError(
                    "A saved tensor pack hook is modifying its input in place. Tensors provided "
                    "as input to pack hook cannot be modified by in-place operations as this can "
                    "lead to unexpected side-effects. Please open an issue if you need to "
                    "perform in-place operations on the input to a pack hook."
                )
            entries.append(h)
    finally:
        _state.enabled = prev
    # a tuple, not a list: fast paths that read ``_saved`` directly (``ops/linear.py``) then
    # take the general path through ``saved_tensors``
    node._saved = tuple(entries)


class _NoGradCtx:
    """The ctx built-in ops see when nothing is recorded: it keeps nothing."""

    __slots__ = ()
    needs_input_grad = ()
    materialize_grads = True

    def save_for_backward(self, *tensors):
        pass

    mark_dirty = mark_non_differentiable = set_materialize_grads = save_for_backward

    def __setattr__(self, name, value):
        pass


NOGRAD_CTX = _NoGradCtx()


class _FunctionMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        node_name = ns.get("_node_name") or f"{name}Backward"
        cls._Node = type(node_name, (BackwardNode,), {"__slots__": (), "_function": cls})
        if "apply" not in ns and bases:
            # each subclass gets its path as its own ``apply``: one call less on every op
            cls.apply = classmethod(_apply_arrays if cls._array_forward else _apply_tensors)


class Function(metaclass=_FunctionMeta):
    """Base class of differentiable operations (PyTorch's ``torch.autograd.Function``).

    Example:
        >>> class Exp(ember.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         (y,) = ctx.saved_tensors
        ...         return g * y
        >>> Exp.apply(ember.zeros(1, requires_grad=True))
        tensor([1.], grad_fn=<ExpBackward>)
    """

    _array_forward = False  # built-in ops: forward on raw arrays
    _node_name = None
    # built-in ops whose float16/bfloat16 inputs compute in float32 and round once at the end,
    # as torch's CPU kernels do (see ``low_opmath``)
    _low_opmath = False

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a Function subclass must implement forward")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("this Function does not implement backward")

    vjp = backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the op: forward, then the graph node recorded when an input requires grad.
        (Subclasses get ``_apply_arrays`` or ``_apply_tensors`` directly as ``apply``.)"""
        if cls._array_forward:
            return _apply_arrays(cls, *args, **kwargs)
        return _apply_tensors(cls, *args, **kwargs)


def refresh_stale_view(t: Tensor) -> None:
    """A view whose base was changed in place gets its history re-derived before use."""
    from ember.ops.pointwise import refresh_view

    refresh_view(t)


def _apply_arrays(cls, *args, **kwargs):
    """``apply`` of a built-in op: forward on arrays, outputs wrapped, node recorded if needed.

    One pass over the arguments collects the raw arrays and, when grad recording is on, the
    graph edges (``edge``, spelled out: this runs for every op without a short path).
    """
    rec = _state.enabled
    raw = []
    nxt = []
    needs = []
    requires = False
    for a in args:
        if a.__class__ is Tensor or isinstance(a, Tensor):
            if a._base is not None and a._view_version != a._vc[0]:
                refresh_stale_view(a)
            d = a._data
            raw.append(d)
            if rec and a._requires_grad:
                requires = True
                fn = a._grad_fn
                nxt.append(
                    (a, None, d.shape, d.dtype)
                    if fn is None
                    else (fn, a._output_nr, d.shape, d.dtype)
                )
                needs.append(True)
                continue
        else:
            raw.append(a)
        nxt.append(None)
        needs.append(False)
    if cls._low_opmath:
        return _apply_low(cls, args, raw, nxt, needs, requires, kwargs)
    if not requires:
        try:
            out = cls.forward(NOGRAD_CTX, *raw, **kwargs)
        except ValueError as e:
            raise numpy_error(e, raw) from None
        if out.__class__ is tuple:
            return tuple([_wrap(_as_array(o, raw)) for o in out])
        return _wrap(out if out.__class__ in _ARRAY_TYPES else backend.cpu.asarray(out))
    ctx = cls._Node()
    try:
        out = cls.forward(ctx, *raw, **kwargs)
    except ValueError as e:
        raise numpy_error(e, raw) from None
    return _record(ctx, nxt, tuple(needs), args, raw, out)


def low_opmath(raw):
    """The low-precision float dtype among raw op arguments (float16 or bfloat16) and the
    arguments with those arrays in float32; ``(None, raw)`` when there is none."""
    low = None
    for a in raw:
        if a.__class__ in _ARRAY_TYPES and a.dtype.char in "eE":
            low = a.dtype
            break
    if low is None:
        return None, raw
    f32 = _F32
    # a dtype argument naming the low dtype (a result dtype the op casts to) becomes float32 too
    return low, [
        (backend.widen(a, f32) if a.__class__ in _ARRAY_TYPES and a.dtype == low else a)
        if a is not low
        else f32
        for a in raw
    ]


def round_low(out, low):
    """Float32 op outputs rounded to ``low`` (a tuple's too)."""
    if out.__class__ is tuple:
        return tuple(round_low(o, low) for o in out)
    if out.__class__ in _ARRAY_TYPES:
        return out.astype(low) if out.dtype == _F32 else out
    if isinstance(out, backend.generic) and out.dtype == _F32:  # NumPy's 0-d result
        return backend.cpu.asarray(out).astype(low)
    return out


def _apply_low(cls, args, raw, nxt, needs, requires, kwargs):
    low, raw = low_opmath(raw)
    ctx = cls._Node() if requires else NOGRAD_CTX
    try:
        out = cls.forward(ctx, *raw, **kwargs)
    except ValueError as e:
        raise numpy_error(e, raw) from None
    if low is not None:
        out = round_low(out, low)
    if requires:
        return _record(ctx, nxt, tuple(needs), args, raw, out)
    if out.__class__ is tuple:
        return tuple([_wrap(_as_array(o, raw)) for o in out])
    return _wrap(out if out.__class__ in _ARRAY_TYPES else backend.cpu.asarray(out))


def numpy_error(exc: ValueError, raw) -> Exception:
    """The exception a user sees for a ValueError raised by NumPy inside an op's forward:
    NumPy's broadcasting failure becomes PyTorch's RuntimeError naming the two sizes and the
    dimension; any other ValueError passes through unchanged (an op's own ValueErrors are
    deliberate)."""
    if "could not be broadcast" not in str(exc):
        return exc
    shapes = [a.shape for a in raw if a.__class__ in _ARRAY_TYPES]
    # NOTE: matches torch: operands are broadcast pairwise in order, the running shape named
    # "a" and the next operand "b", with the dimension counted in the broadcast result
    out: tuple = ()
    for b in shapes:
        n = max(len(out), len(b))
        pa, pb = (1,) * (n - len(out)) + tuple(out), (1,) * (n - len(b)) + tuple(b)
        for i, (x, y) in enumerate(zip(pa, pb)):
            if x != y and x != 1 and y != 1:
                return RuntimeError(
                    f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                    f"non-singleton dimension {i}"
                )
        out = tuple(y if x == 1 else x for x, y in zip(pa, pb))
    return RuntimeError(f"{exc} (operand shapes {[list(s) for s in shapes]})")


_ARRAY_TYPES = backend._BY_TYPE
_F32 = backend.np_dtype("float32")


def _as_array(out, raw):
    # NumPy returns scalars from 0-d arithmetic and full reductions; tensors need arrays.
    if out.__class__ in _ARRAY_TYPES:
        return out
    return backend.cpu.asarray(out)


def edge(a: Tensor) -> tuple:
    """The graph edge to a tensor that requires grad: (node, output_nr, shape, dtype), where
    a leaf is its own node and has output_nr None (the engine tells leaves apart by it)."""
    fn = a._grad_fn
    d = a._data
    if fn is None:
        return (a, None, d.shape, d.dtype)
    return (fn, a._output_nr, d.shape, d.dtype)


def _edges(args) -> list:
    """One edge per forward argument (``None`` where no gradient flows)."""
    return [edge(a) if isinstance(a, Tensor) and a._requires_grad else None for a in args]


def _record(ctx, nxt, needs, args, raw, out):
    """Wrap the outputs of a recorded built-in op and make ``ctx`` their ``grad_fn``.

    The caller has built the edges ``nxt`` to the forward ``args`` (their raw arrays ``raw``)
    and ``needs``, the matching ``needs_input_grad``; the short paths in ``ops/_dispatch.py``
    build them without loops.
    """
    ctx._next = nxt
    ctx.needs_input_grad = needs
    if out.__class__ is tuple or not ctx._plain or _anomaly.enabled:
        return _record_general(ctx, args, raw, out)
    # The common case, kept short: one output, nothing in place, no anomaly mode.
    ctx._seq = next(_seq)
    raw_out = out  # NumPy returns scalars from 0-d ops; a forward may have saved the scalar
    if out.__class__ not in _ARRAY_TYPES:
        out = backend.cpu.asarray(out)
    t = _new(Tensor)
    t._data = out
    t._grad = None
    t._vc = [0]
    t._base = None
    if out.dtype.kind in "fcV":
        t._requires_grad = True
        t._grad_fn = ctx
        ctx._out_meta = ((out.shape, out.dtype),)
    else:
        t._requires_grad = False
        t._grad_fn = None
        ctx._out_meta = (None,)
    to_save = ctx._to_save
    if to_save is not None:
        ctx._to_save = None
        if len(to_save) == 1 and to_save[0] is raw_out:
            # an activation that keeps its output (relu, sigmoid, exp...): ``_save``'s first case
            s = _new(_SavedOutput)
            s.data = out
            s.vc = t._vc
            s.version = 0
            s.nr = 0
            s.requires_grad = t._requires_grad
            ctx._saved = [s]
        else:
            ctx._saved = [_save(x, args, raw, (raw_out,), (t,)) for x in to_save]
        if saved_hooks_stack:
            apply_saved_hooks(ctx)
    return t


def _record_general(ctx, args, raw, out):
    ctx._seq = next(_seq)
    if _anomaly.enabled:
        from ember.autograd.anomaly_mode import _capture_trace

        ctx._trace = _capture_trace()
        ctx._plain = False
    multi = out.__class__ is tuple
    outs = out if multi else (out,)
    ctx._n_out = len(outs)
    non_diff = ctx._non_diff
    dirty = ctx._dirty
    results = []
    out_meta = []
    for i, o in enumerate(outs):
        o = _as_array(o, raw)
        t = None
        if dirty is not None:
            for j, r in enumerate(raw):
                if r is o and isinstance(args[j], Tensor):
                    t = args[j]
                    _check_inplace(t)
                    t._vc[0] += 1
                    break
        if t is None:
            t = _wrap(o)
        diff = o.dtype.kind in "fcV" and not (
            non_diff is not None and any(o is n for n in non_diff)
        )
        if diff:
            t._requires_grad = True
            t._grad_fn = ctx
            if i:
                t._output_nr = i
            elif t._output_nr:
                t._output_nr = 0
        out_meta.append((o.shape, o.dtype) if diff else None)
        results.append(t)
    ctx._out_meta = out_meta
    to_save = ctx._to_save
    if to_save is not None:
        ctx._to_save = None
        ctx._saved = [_save(x, args, raw, outs, results) for x in to_save]
        if saved_hooks_stack:
            apply_saved_hooks(ctx)
    return tuple(results) if multi else results[0]


def _save(x, args, raw, outs, results):
    """The entry ``ctx.saved_tensors`` unpacks for ``x``, one of the values a forward passed to
    ``save_for_backward``: an output (saved without its Tensor), an input ``(tensor,
    version)``, an intermediate array (a constant for backward) or any other value as is."""
    for j in range(len(outs)):  # an output; a NumPy scalar returned by a 0-d op counts too
        if x is outs[j] or x is results[j]:
            t = results[j]
            return _SavedOutput(t._data, t._vc, j, t._requires_grad)
    for j in range(len(raw)):
        if x is raw[j]:
            a = args[j]
            if a.__class__ is Tensor or isinstance(a, Tensor):
                return (a, a._vc[0])
            break
    if x.__class__ is Tensor or isinstance(x, Tensor):
        return (x, x._vc[0])
    if x.__class__ in _ARRAY_TYPES:
        return _wrap(x)
    if x.__class__ is tuple:
        return _SavedValue(x)
    return x


def check_inference_write(t: Tensor) -> None:
    """Refuse an in-place write to an inference tensor outside ``inference_mode``, as PyTorch
    (its version counter is not tracked). Every in-place op calls this before writing."""
    if t._is_inference and not _state.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed. You can "
            "make a clone to get a normal tensor before doing inplace update (e.g. "
            "t = t.clone())."
        )


def _check_inplace(t: Tensor):
    check_inference_write(t)
    if t._grad_fn is None and t._requires_grad and _gm.state.enabled:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def _apply_tensors(cls, *args, **kwargs):
    """Run a user-defined Function: forward on Tensors under no_grad, PyTorch's semantics.

    Both of PyTorch's styles: ``forward(ctx, *args)``, or ``forward(*args)`` followed by
    ``setup_context(ctx, inputs, output)`` (then ``inputs`` has keyword and default arguments
    bound in, as PyTorch passes them)."""
    ctx = cls._Node()
    separate = cls.setup_context is not Function.setup_context
    if separate:
        args = _bind_inputs(cls, args, kwargs)
        kwargs = {}
    # NOTE: matches torch: from the inputs alone (grad mode aside), and set before forward
    ctx.needs_input_grad = tuple([isinstance(a, Tensor) and a._requires_grad for a in args])
    requires = _gm.state.enabled and any(ctx.needs_input_grad)
    with _gm.no_grad():
        if separate:
            out = cls.forward(*args)
            cls.setup_context(ctx, args, out)
        else:
            out = cls.forward(ctx, *args, **kwargs)
    multi = isinstance(out, tuple)
    outs = out if multi else (out,)
    if not requires:
        return out
    ctx._next = _edges(args)
    ctx._seq = next(_seq)
    if _anomaly.enabled:
        from ember.autograd.anomaly_mode import _capture_trace

        ctx._trace = _capture_trace()
        ctx._plain = False
    ctx._n_out = len(outs)
    dirty = ctx._dirty or ()
    non_diff = ctx._non_diff or ()
    results = []
    out_meta = []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            results.append(o)
            out_meta.append(None)
            continue
        if any(o is d for d in dirty):
            _check_inplace(o)  # forward's own in-place op already bumped the version
            t = o
        elif any(o is a for a in args):
            # NOTE: matches torch: an input returned as is becomes a new tensor (a view).
            t = _function_view(_wrap(o._data), o, cls)
        elif o._grad_fn is not None:
            t = _wrap(o._data)
            t._vc = o._vc
        elif o._base is not None:  # a view made inside forward
            t = _function_view(o, o, cls)
        else:
            t = o
        diff = t._data.dtype.kind in "fcV" and not any(o is n for n in non_diff)
        if diff:
            t._requires_grad = True
            t._grad_fn = ctx
            if i:
                t._output_nr = i
        out_meta.append((t._data.shape, t._data.dtype) if diff else None)
        results.append(t)
    ctx._out_meta = out_meta
    to_save = ctx._to_save
    if to_save is not None:
        ctx._to_save = None
        raw = [a._data if isinstance(a, Tensor) else a for a in args]
        ctx._saved = [_save(x, args, raw, outs, results) for x in to_save]
        if saved_hooks_stack:
            apply_saved_hooks(ctx)
    return tuple(results) if multi else results[0]


def _bind_inputs(cls, args, kwargs) -> tuple:
    """The positional inputs ``setup_context`` receives: ``args`` with ``kwargs`` and the
    defaults of ``forward`` bound in."""
    sig = cls.__dict__.get("_forward_signature")
    if sig is None:
        import inspect

        sig = inspect.signature(cls.forward)
        cls._forward_signature = sig
    if not kwargs and len(args) == len(sig.parameters):
        return args
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise NotImplementedError(
            f"{cls.__name__}.apply: keyword-only arguments of forward ({sorted(bound.kwargs)}) "
            "are not supported with setup_context; make them positional"
        )
    return bound.args


def _function_view(t: Tensor, source: Tensor, cls) -> Tensor:
    """Mark output ``t`` of the user Function ``cls`` as a view of ``source``'s memory that
    in-place ops must refuse while autograd records: rebasing it (``CopySlices``) would bypass
    the Function's own backward (``ops.pointwise._inplace_on_view`` raises)."""
    from ember.ops.shape import _as_view

    _as_view(t, source)
    # no way to recreate it from the base: a refresh would replace the Function's grad_fn
    t._view_fn = None
    t._view_of_function = cls.__name__
    return t


class once_differentiable:
    """Decorator for a ``backward`` that cannot itself be differentiated (PyTorch's name)."""

    def __new__(cls, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(ctx, *grads):
            with _gm.no_grad():
                return fn(ctx, *grads)

        return wrapper


# ---- tensor hooks --------------------------------------------------------------------------
def _register_tensor_hook(t: Tensor, hook):
    if t._grad_fn is None:
        if t._hooks is None:
            t._hooks = _HookList()
        return t._hooks.add(hook)
    node = t._grad_fn
    if node._tensor_pre_hooks is None:
        node._tensor_pre_hooks = {}
        node._plain = False
    hooks = node._tensor_pre_hooks.setdefault(t._output_nr, _HookList())
    return hooks.add(hook)


class _RetainGrad:
    """The hook behind ``retain_grad``: stores the grad on the tensor (held weakly)."""

    __slots__ = ("ref",)

    def __init__(self, t):
        self.ref = weakref.ref(t)

    def __call__(self, grad):
        t = self.ref()
        if t is None:
            return None
        if t._grad is None:
            g = grad.detach() if not _gm.state.enabled else grad
            t._grad = _wrap(grad._data.copy()) if not _gm.state.enabled else g
        else:
            t._grad = t._grad + grad
        return None


def _add_retain_grad(t: Tensor):
    node = t._grad_fn
    if node._tensor_pre_hooks is None:
        node._tensor_pre_hooks = {}
        node._plain = False
    hooks = node._tensor_pre_hooks.setdefault(t._output_nr, _HookList())
    # retain_grad runs after the user's hooks on the same tensor, as in PyTorch
    hooks.retain = _RetainGrad(t)
