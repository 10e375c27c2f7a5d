"""Activation checkpointing (PyTorch's ``torch.utils.checkpoint``).

``checkpoint(fn, *args)`` keeps no activation of ``fn``: backward runs ``fn`` again (with the
forward's RNG state) and differentiates the recomputation.

- ``use_reentrant=True`` (torch's ``CheckpointFunction``): forward runs under ``no_grad``; the
  Function's backward recomputes on detached inputs and runs an inner ``backward``, which
  accumulates the parameters' gradients itself. As in torch, gradients flow only when an input
  requires grad, and ``autograd.grad`` cannot reach the parameters through it.
- ``use_reentrant=False``: forward records ``fn``'s graph on detached inputs only long enough
  to find the tensors it reads that require grad (inputs, parameters, captured tensors), then
  drops it (the activations go with it) and hands the outputs one graph node whose edges lead
  to those tensors. Its backward recomputes and returns ``autograd.grad`` of the recomputation
  for them, so ``autograd.grad``, inputs that need no grad, keyword arguments and nested
  outputs work, as in torch. (torch frees activations one by one during the forward through
  saved-tensor hooks, so its forward peak is lower; ember's peak is one checkpointed call.)
"""

from __future__ import annotations

import contextlib
import warnings

import ember
from ember.autograd import function as _fn
from ember.autograd.function import Function
from ember.tensor import Tensor

__all__ = [
    "checkpoint",
    "checkpoint_sequential",
    "CheckpointError",
    "CheckpointFunction",
    "check_backward_validity",
    "detach_variable",
    "get_device_states",
    "set_device_states",
    "noop_context_fn",
    "set_checkpoint_early_stop",
    "DefaultDeviceType",
    "set_checkpoint_debug_enabled",
]

_DEFAULT_DETERMINISM_MODE = "default"
_checkpoint_debug_enabled: bool | None = None
_early_stop = True


class CheckpointError(RuntimeError):
    """Raised when the recomputation in backward differs from the forward."""


def detach_variable(inputs: tuple) -> tuple:
    """Detached copies of a tuple's tensors that keep ``requires_grad``.

    Example:
        >>> x = ember.ones(2, requires_grad=True) * 2
        >>> d = detach_variable((x, 3))
        >>> d[0].is_leaf, d[0].requires_grad, d[1]
        (True, True, 3)
    """
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: ",
            type(inputs).__name__,
        )
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    """Warn when no input tensor requires grad (the reentrant checkpoint then gives none).

    Example:
        >>> check_backward_validity((ember.ones(1, requires_grad=True),))
    """
    if not any(isinstance(inp, Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3
        )


def get_device_states(*args) -> tuple[list, list]:
    """The RNG states of the accelerators the arguments live on: none on a CPU-only stack.

    Example:
        >>> get_device_states(ember.ones(1))
        ([], [])
    """
    return [], []


def set_device_states(devices, states, *, device_type=None) -> None:
    """Restore accelerator RNG states (nothing to restore on a CPU-only stack).

    Example:
        >>> set_device_states([], [])
    """
    if devices:
        raise RuntimeError(f"no accelerator device is available to set the RNG state of {devices}")


class DefaultDeviceType:
    """The accelerator type whose RNG state checkpoint preserves (``"cuda"`` by default, as
    torch's; without one, only the CPU state matters)."""

    _default_device_type = "cuda"

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        return DefaultDeviceType._default_device_type


def noop_context_fn():
    """The default ``context_fn``: two null contexts (forward, recomputation).

    Example:
        >>> len(noop_context_fn())
        2
    """
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Whether the non-reentrant recomputation may stop once it has what backward needs.

    ember always recomputes the whole function, so this only records the setting.

    Example:
        >>> with set_checkpoint_early_stop(False):
        ...     pass
    """
    global _early_stop
    prev = _early_stop
    _early_stop = enable
    try:
        yield
    finally:
        _early_stop = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Override every checkpoint's ``debug`` flag inside the context.

    Example:
        >>> with set_checkpoint_debug_enabled(True):
        ...     pass
    """
    global _checkpoint_debug_enabled
    prev = _checkpoint_debug_enabled
    _checkpoint_debug_enabled = enabled
    try:
        yield
    finally:
        _checkpoint_debug_enabled = prev


@contextlib.contextmanager
def _rng_restored(state):
    """Run with the global RNG at ``state`` (the forward's), then put back the current state,
    so recomputation draws the forward's numbers and leaves the generator as it found it."""
    if state is None:
        yield
        return
    current = ember.get_rng_state()
    ember.set_rng_state(state)
    try:
        yield
    finally:
        ember.set_rng_state(current)


def _is_checkpoint_valid() -> bool:
    """Whether the backward running now is a plain one (no ``inputs`` to capture): the inner
    backward of a reentrant checkpoint accumulates into ``.grad``, which ``autograd.grad`` and
    ``backward(inputs=)`` must not see. Found from the engine's innermost running walk."""
    import sys

    from ember.autograd import engine

    code = engine._run.__code__
    f = sys._getframe(1)
    while f is not None:
        if f.f_code is code:
            return f.f_locals.get("inputs") is None
        f = f.f_back
    return True


class CheckpointFunction(Function):
    """The reentrant checkpoint (``use_reentrant=True``) as an autograd Function."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = ember.get_rng_state() if preserve_rng_state else None
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                tensors.append(a)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(a)
        ctx.save_for_backward(*tensors)
        # forward runs under no_grad (a user Function's forward): no activation is kept
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with _rng_restored(ctx.rng_state), ember.enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outs, out_grads = [], []
        for o, g in zip(outputs, grads):
            if isinstance(o, Tensor) and o.requires_grad:
                outs.append(o)
                out_grads.append(g)
        if not outs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        # the inner backward accumulates the parameters' .grad itself (torch's design)
        ember.autograd.backward(outs, out_grads)
        return (None, None) + tuple(
            inp.grad if isinstance(inp, Tensor) else None for inp in detached
        )


# ---- non-reentrant --------------------------------------------------------------------------
def _flatten(obj, out: list):
    """Tensors of nested tuples/lists/dicts in order, and a rebuild spec."""
    if isinstance(obj, Tensor):
        out.append(obj)
        return ("T",)
    if isinstance(obj, (tuple, list)) and type(obj) in (tuple, list):
        return (type(obj), [_flatten(o, out) for o in obj])
    if type(obj) is dict:
        return (dict, [(k, _flatten(v, out)) for k, v in obj.items()])
    return ("C", obj)


def _unflatten(spec, it):
    kind = spec[0]
    if kind == "T":
        return next(it)
    if kind == "C":
        return spec[1]
    if kind is dict:
        return {k: _unflatten(s, it) for k, s in spec[1]}
    return kind(_unflatten(s, it) for s in spec[1])


def _detach_all(tensors: list) -> list:
    out = []
    for t in tensors:
        d = t.detach()
        if t.requires_grad:
            d.requires_grad_(True)
        out.append(d)
    return out


class _NonReentrantCheckpoint(Function):
    """The node that stands for a checkpointed call (``use_reentrant=False``)."""

    @staticmethod
    def backward(ctx, *grads):
        # kept until the node dies: a second backward (retain_graph=True) recomputes again
        fn, in_tensors, spec, rng, recompute_ctx, sources, out_meta, check = ctx.checkpoint_state
        create_graph = ember.is_grad_enabled()
        # the recomputation reads the original inputs, so that with create_graph its gradients
        # stay connected to them (double backward); grad() only runs the recomputed nodes
        args, kwargs = _unflatten(spec, iter(in_tensors))
        with _rng_restored(rng), ember.enable_grad(), recompute_ctx:
            out = fn(*args, **kwargs)
        flat = []
        _flatten(out, flat)
        if check:
            _check_recomputed(out_meta, flat)
        outs, out_grads = [], []
        for o, g in zip(flat, grads):
            if g is not None and o.requires_grad:
                outs.append(o)
                out_grads.append(g)
        targets = [in_tensors[s] if isinstance(s, int) else s for s in sources]
        if not outs:
            return (None,) * len(targets)
        res = ember.autograd.grad(
            outs,
            targets,
            out_grads,
            # the inputs' own nodes belong to the outer graph: its backward still runs them
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
        )
        return tuple(res)


def _meta(t: Tensor) -> dict:
    return {"shape": t.shape, "dtype": t.dtype, "device": t.device}


def _check_recomputed(out_meta, flat) -> None:
    if len(out_meta) != len(flat):
        raise CheckpointError(
            "torch.utils.checkpoint: A different number of tensors was saved during the "
            "original forward and recomputation.\n"
            f"Number of tensors saved during forward: {len(out_meta)}\n"
            f"Number of tensors saved during recomputation: {len(flat)}"
        )
    bad = []
    for i, (m, t) in enumerate(zip(out_meta, flat)):
        if m != _meta(t):
            bad.append(
                f"tensor at position {i}:\nsaved metadata: {m}\nrecomputed metadata: {_meta(t)}\n"
            )
    if bad:
        raise CheckpointError(
            "torch.utils.checkpoint: Recomputed values for the following tensors have "
            "different metadata than during the forward pass.\n" + "".join(bad)
        )


def _checkpoint_without_reentrant(
    function, preserve, context_fn, determinism_check, debug, args, kwargs
):
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    fwd_ctx, recompute_ctx = context_fn()
    if not ember.is_grad_enabled():
        with fwd_ctx:
            return function(*args, **kwargs)
    rng = ember.get_rng_state() if preserve else None
    in_tensors: list = []
    spec = _flatten((args, kwargs), in_tensors)
    args_d = _detach_all(in_tensors)
    d_index = {id(d): i for i, d in enumerate(args_d)}
    a, k = _unflatten(spec, iter(args_d))
    start = next(_fn._seq)
    with fwd_ctx:
        out = function(*a, **k)
    flat: list = []
    out_spec = _flatten(out, flat)
    # the tensors the call read that require grad: walk the graph made inside the call
    sources: list = []  # an int (index of a detached input) or a leaf tensor
    edges: list = []
    seen_src: set = set()
    seen_nodes: set = set()
    stack = []

    def add_leaf(t):
        if id(t) in seen_src:
            return
        seen_src.add(id(t))
        i = d_index.get(id(t))
        if i is not None:
            sources.append(i)
            edges.append(_fn.edge(in_tensors[i]))
        else:
            sources.append(t)
            edges.append(_fn.edge(t))

    def add_outside(e):
        # A tensor made before the call that the call read without receiving it (a captured
        # closure variable, a tensor inside an argument object): the gradient for it is taken
        # at its graph position, through a handle tensor with its node and output number.
        key = (id(e[0]), e[1])
        if key in seen_src:
            return
        seen_src.add(key)
        handle = ember.zeros(())
        handle._requires_grad = True
        handle._grad_fn = e[0]
        handle._output_nr = e[1]
        sources.append(handle)
        edges.append(e)

    for o in flat:
        if o.requires_grad:
            if o.grad_fn is None:
                add_leaf(o)
            else:
                stack.append(o.grad_fn)
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        for e in node._next:
            if e is None:
                continue
            tgt = e[0]
            if isinstance(tgt, Tensor):
                add_leaf(tgt)
            elif tgt._seq < start:
                add_outside(e)
            else:
                stack.append(tgt)
    if not sources:
        return out
    ctx = _NonReentrantCheckpoint._Node()
    ctx.set_materialize_grads(False)
    ctx._next = edges
    ctx.needs_input_grad = (True,) * len(edges)
    ctx._seq = next(_fn._seq)
    ctx._n_out = len(flat)
    meta = []
    results = []
    for i, o in enumerate(flat):
        t = o.detach()
        if o.requires_grad:
            t._requires_grad = True
            t._grad_fn = ctx
            t._output_nr = i
            meta.append((t.shape, t.dtype))
        else:
            meta.append(None)
        results.append(t)
    ctx._out_meta = meta
    check = determinism_check == "default"
    ctx.checkpoint_state = (
        function,
        in_tensors,
        spec,
        rng,
        recompute_ctx,
        sources,
        [_meta(t) for t in flat] if check else None,
        check,
    )
    return _unflatten(out_spec, iter(results))


def checkpoint(
    function,
    *args,
    use_reentrant: bool | None = None,
    context_fn=noop_context_fn,
    determinism_check: str = _DEFAULT_DETERMINISM_MODE,
    debug: bool = False,
    early_stop: bool = True,
    **kwargs,
):
    """Run ``function(*args, **kwargs)`` without keeping its activations; backward recomputes
    them.

    Args:
        function: the callable (a module, a block of a model...).
        *args: its arguments.
        use_reentrant: torch's two variants (see the module docstring); ``None`` warns and
            takes ``True``, as torch 2.13 does. ``False`` is the recommended one.
        context_fn: returns two context managers, entered around the forward and around the
            recomputation (``use_reentrant=False`` only).
        determinism_check: ``"default"`` compares the recomputed outputs' shapes, dtypes and
            devices with the forward's (``CheckpointError`` on a difference); ``"none"``.
        debug: accepted (``use_reentrant=False`` only).
        early_stop: accepted; ember recomputes the whole function.
        **kwargs: ``preserve_rng_state`` (default True: the recomputation draws the forward's
            random numbers), then keyword arguments of ``function``.

    Returns:
        ``function``'s output.

    Example:
        >>> lin = ember.nn.Linear(3, 3)
        >>> x = ember.randn(2, 3, requires_grad=True)
        >>> y = checkpoint(lin, x, use_reentrant=False)
        >>> y.sum().backward()
        >>> lin.weight.grad.shape
        ember.Size([3, 3])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(
        function, preserve, context_fn, determinism_check, debug, args, kwargs
    )


def checkpoint_sequential(functions, segments: int, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules in ``segments`` chunks, checkpointing all but the last.

    Args:
        functions: an ``nn.Sequential`` or a list of callables.
        segments: how many chunks.
        input: the first function's input.
        use_reentrant: as in ``checkpoint``.
        **kwargs: ``preserve_rng_state``.

    Returns:
        The last function's output.

    Example:
        >>> net = ember.nn.Sequential(ember.nn.Linear(3, 3), ember.nn.ReLU(), ember.nn.Linear(3, 1))
        >>> x = ember.randn(4, 3, requires_grad=True)
        >>> checkpoint_sequential(net, 2, x, use_reentrant=False).shape
        ember.Size([4, 1])
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    if isinstance(functions, ember.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end, functions),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return run_function(end + 1, len(functions) - 1, functions)(input)
