"""The backward engine: walks the graph from the outputs without recursion.

1. Run nodes newest first (highest sequence number). Every node was created after the nodes
   that feed it, so this runs each node after all the nodes that send it gradients, and nodes
   can be discovered as their edges are reached: no pass over the graph beforehand. Leaf
   tensors (their own accumulation nodes) come last.
2. A node's backward returns one gradient per forward argument; each is reduced to the
   argument's shape if it was broadcast, cast to its dtype, and summed into the buffer of the
   next node (a leaf tensor accumulates into ``.grad``).

Saved tensors are freed after a node runs unless ``retain_graph``; with ``create_graph`` the
backward formulas run with grad recording on, so the gradients themselves are differentiable.
``autograd.grad`` and ``backward(inputs=)`` first find the nodes from which an input can be
reached, and run only those.
"""

from __future__ import annotations

from heapq import heappop, heappush

from ember import backend
from ember.autograd import grad_mode as _gm
from ember.autograd.function import _FREED, BackwardNode
from ember.tensor import Tensor, _wrap

_state = _gm.state
_ARRAY_TYPES = backend._BY_TYPE


def _make_grads(outputs, grad_outputs):
    grads = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            if out._data.size != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs; got an output of "
                    f"shape {tuple(out._data.shape)}: pass gradient= (a tensor of that shape)"
                )
            if out._data.dtype.kind not in "fV":
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got "
                    f"{out.dtype}"
                )
            xp = backend.namespace(out._data)
            d = xp.empty(out._data.shape, dtype=out._data.dtype)
            d[...] = 1
            g = _wrap(d)
        elif not isinstance(g, Tensor):
            from ember.ops.creation import tensor as _tensor

            g = _tensor(g, dtype=out.dtype)
        elif g._data.shape != out._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {tuple(g._data.shape)} and "
                f"output[0] has a shape of {tuple(out._data.shape)}."
            )
        grads.append(g)
    return grads


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def tensor_backward(
    self, gradient=None, retain_graph=None, create_graph=False, inputs=None
) -> None:
    """``Tensor.backward``: the gradient of this tensor w.r.t. graph leaves, accumulated into
    their ``.grad`` (see ``autograd.backward``).

    Example:
        >>> x = ember.ones(3, requires_grad=True)
        >>> (x * 2).sum().backward()
        >>> x.grad
        tensor([2., 2., 2.])
    """
    if gradient is None and inputs is None and not create_graph and self._requires_grad:
        # the common ``loss.backward()``: seed a scalar loss with 1 (what _make_grads does,
        # without its loop and checks); anything else takes the general path and its errors
        d = self._data
        if d.size == 1 and d.dtype.kind in "fV":
            one = _ARRAY_TYPES[d.__class__].empty(d.shape, d.dtype)
            one[()] = 1.0
            _run((self,), (_wrap(one),), bool(retain_graph), False, None, True)
            return
    backward(self, gradient, retain_graph, create_graph, inputs)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate into the ``.grad`` of graph leaves the gradient of ``tensors``.

    Example:
        >>> x = ember.ones(3, requires_grad=True)
        >>> ember.autograd.backward((x * 2).sum())
        >>> x.grad
        tensor([2., 2., 2.])
    """
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(
            f"got {len(grad_tensors)} gradients for {len(tensors)} tensors in backward"
        )
    for t in tensors:
        if not t._requires_grad:
            raise RuntimeError(
                "element 0 of tensors does not require grad and does not have a grad_fn"
            )
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs)
    if inputs:
        for i in inputs:
            if not i._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(tensors, grad_tensors)
    _run(tensors, grads, retain_graph, create_graph, inputs or None, accumulate=True)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """Return the gradients of ``outputs`` w.r.t. ``inputs`` (no ``.grad`` is touched).

    Example:
        >>> x = ember.tensor(3.0, requires_grad=True)
        >>> (g,) = ember.autograd.grad(x ** 2, x, create_graph=True)
        >>> ember.autograd.grad(g, x)
        (tensor(2.),)
    """
    if is_grads_batched:
        return _grad_batched(
            outputs,
            inputs,
            grad_outputs,
            retain_graph,
            create_graph,
            allow_unused,
            materialize_grads,
        )
    outputs = _as_tuple(_edge_tensors(outputs))
    inputs = _as_tuple(_edge_tensors(inputs))
    if allow_unused is None:
        allow_unused = materialize_grads
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"grad requires one grad_output per output: got {len(grad_outputs)} for "
            f"{len(outputs)} outputs"
        )
    for i, t in enumerate(outputs):
        if not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    for t in inputs:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grad_outputs)
    result = _run(outputs, grads, retain_graph, create_graph, inputs, accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs, result)):
        if g is None:
            if materialize_grads:
                g = _wrap(backend.namespace(t._data).zeros(t._data.shape, dtype=t._data.dtype))
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
        out.append(g)
    return tuple(out)


def _edge_tensors(x):
    """``x`` with each ``autograd.graph.GradientEdge`` replaced by a stand-in tensor at that
    edge (its node and output index; a leaf's AccumulateGrad edge by the leaf itself)."""
    from ember.autograd.function import AccumulateGrad
    from ember.autograd.graph import GradientEdge

    if isinstance(x, GradientEdge):
        x = (x,)
    elif not isinstance(x, (tuple, list)) or not any(isinstance(e, GradientEdge) for e in x):
        return x
    out = []
    for e in x:
        if isinstance(e, GradientEdge):
            if isinstance(e.node, AccumulateGrad):
                e = e.node.variable
            else:
                shape, dtype = e.node._out_meta[e.output_nr]
                t = _wrap(backend.cpu.zeros(shape, dtype=dtype))
                t._requires_grad = True
                t._grad_fn = e.node
                t._output_nr = e.output_nr
                e = t
        out.append(e)
    return tuple(out)


def _grad_batched(
    outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads
):
    """``grad(..., is_grads_batched=True)``: dim 0 of every grad_output indexes a batch of
    vector-Jacobian products, one backward pass each (torch vmaps one pass; ember's vmap loops
    too), stacked along a new dim 0 of each input's gradient."""
    from ember.ops.joining import stack

    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    batched = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            # NOTE: matches torch: the implicit gradient (ones) has no batch dim, so vmap refuses
            # it for a 0-d output
            if out._data.ndim == 0:
                raise ValueError(
                    "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that "
                    "input is a Tensor of dimensionality 0 so expected in_dim to satisfy "
                    "0 <= in_dim < 0."
                )
            g = _make_grads((out,), (None,))[0]
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        first = g[0]  # NOTE: matches torch: an empty batch fails here with indexing's IndexError
        if first._data.shape != out._data.shape:
            # NOTE: matches torch: its message drops one more leading dim than the batch dim
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {_torch_size(first._data.shape[1:])} "
                f"and output[{i}] has a shape of {_torch_size(out._data.shape)}. If you only "
                "want some tensors in `grad_output` to be considered batched, consider using "
                "vmap."
            )
        batched.append(g)
    sizes = [g._data.shape[0] for g in batched]
    if len(set(sizes)) > 1:
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    n = sizes[0] if sizes else 0
    per_input = [[] for _ in inputs]
    for b in range(n):
        res = grad(
            outputs,
            inputs,
            [g[b] for g in batched],
            retain_graph=retain_graph or b < n - 1,
            create_graph=create_graph,
            allow_unused=allow_unused,
        )
        for acc, r in zip(per_input, res):
            acc.append(r)
    out = []
    for t, acc in zip(inputs, per_input):
        if not acc or acc[0] is None:
            # NOTE: matches torch: an unused input's materialized gradient has no batch dim
            g = None
            if materialize_grads:
                g = _wrap(backend.namespace(t._data).zeros(t._data.shape, dtype=t._data.dtype))
            out.append(g)
        else:
            out.append(stack(acc))
    return tuple(out)


def _torch_size(shape) -> str:
    return f"torch.Size({list(shape)})"


def _key(t):
    """The node a gradient for tensor ``t`` flows into, and which of its outputs."""
    fn = t._grad_fn
    return (t, 0) if fn is None else (fn, t._output_nr)


def _run(roots, root_grads, retain_graph, create_graph, inputs, accumulate):
    # Order of execution: a node's consumers were all created after it, so they have higher
    # sequence numbers; running nodes newest first (a heap on -seq) therefore runs each node
    # after every node that feeds it gradients. That lets nodes be discovered as the walk
    # reaches them, with no separate pass to count dependencies. Leaf tensors (their own
    # accumulation nodes) run after all other nodes, in the order their last incoming edge was
    # processed; ``leaves`` (a dict, which keeps insertion order) records that order.
    targets = needed = captured = None
    if inputs is not None:  # autograd.grad / backward(inputs=): capture, and prune the walk
        targets = {}
        for i, t in enumerate(inputs):
            targets.setdefault(_key(t), []).append(i)
        needed = _needed_nodes(roots, {k[0] for k in targets})
        captured = [None] * len(inputs)

    buffers = {}  # node -> gradients of its outputs, summed over its consumers
    ready = []  # heap of (-seq, node) over the nodes reached and not yet run
    leaves = {}  # leaf tensor -> its gradient (None if only None reached it)
    # ``new``: the first node a step reached for the first time. When nothing else waits, it is
    # the one to run next, so it bypasses the heap: in a chain (the usual case) the heap stays
    # empty.
    new = None
    if len(roots) == 1 and roots[0]._grad_fn is not None:  # loss.backward(): one root node
        t = roots[0]
        new = t._grad_fn
        buffers[new] = b = [None] * new._n_out
        b[t._output_nr] = root_grads[0]
    else:
        for t, g in zip(roots, root_grads):
            node = t._grad_fn
            if node is None:
                _leaf_edge(leaves, t, g)
                continue
            b = buffers.get(node)
            if b is None:
                b = buffers[node] = [None] * node._n_out
                if new is None:
                    new = node
                else:
                    heappush(ready, (-node._seq, node))
            nr = t._output_nr
            b[nr] = g if b[nr] is None else b[nr] + g
        if new is not None and ready:
            heappush(ready, (-new._seq, new))
            new = None

    state = _state
    prev = state.enabled
    state.enabled = create_graph
    running[0] += 1
    try:
        if targets is None:  # every node runs (loss.backward()): the lean walk
            _walk(new, ready, buffers, leaves, retain_graph)
            new = None
        while new is not None or ready:
            if new is not None:
                node = new
                new = None
            else:
                node = heappop(ready)[1]
            grads = buffers.pop(node)
            plain = node._plain
            if not plain and node._tensor_pre_hooks is not None:
                grads = _node_grads(node, grads)
            if targets is not None:
                for nr in range(node._n_out):
                    for i in targets.get((node, nr), ()):
                        captured[i] = grads[nr]
                if node not in needed:
                    _release(node, retain_graph)
                    continue
            nxt = node._next
            if plain and node._n_out == 1 and grads[0] is not None:
                in_grads = node._function.backward(node, grads[0])  # the common case
                if in_grads.__class__ is not tuple:
                    # one Tensor for a one-input node (an activation's): no normalizing call
                    in_grads = (
                        (in_grads,)
                        if in_grads.__class__ is Tensor and len(nxt) == 1
                        else _check_count(node, in_grads)
                    )
                elif len(in_grads) != len(nxt):
                    in_grads = _check_count(node, in_grads)
            else:
                in_grads = _call_backward(node, grads)
            if not retain_graph and node._saved is not None:
                node._saved = _FREED
            for e, g in zip(nxt, in_grads):
                if e is None:
                    continue
                target, nr, shape, dtype = e
                if needed is not None and target not in needed:
                    continue
                # (``is not`` on dtypes: NumPy's are canonical; ``_fit`` compares by value)
                if g is not None and (
                    g.__class__ is not Tensor
                    or g._data.shape != shape
                    or g._data.dtype is not dtype
                ):
                    g = _fit(g, shape, dtype, node, e)
                if nr is None:  # a leaf tensor
                    if target in leaves:
                        _leaf_edge(leaves, target, g)
                    else:
                        leaves[target] = g
                    continue
                b = buffers.get(target)
                if b is None:  # first reached: schedule it
                    b = buffers[target] = [None] * target._n_out
                    if new is None:
                        new = target
                    else:
                        heappush(ready, (-target._seq, target))
                if g is not None:
                    b[nr] = g if b[nr] is None else b[nr] + g
            if new is not None and ready:  # others wait: the heap picks the newest
                heappush(ready, (-new._seq, new))
                new = None

        # Gradients handed to more than one place are copied before a leaf owns them: ``seen``
        # holds the arrays given away so far (built when a leaf first needs it).
        seen = {id(r._data) for r in root_grads} if leaves else None
        for t, g in leaves.items():
            if g is None:  # only None reached it: nothing to run (captured stays None)
                continue
            if t._hooks:
                g = _run_leaf_hooks(t, g)
                # a hook may keep the gradient it saw: .grad gets a copy, as torch's (which
                # steals a gradient only when nothing else references it)
                seen.add(id(g._data))
            if targets is not None:
                for i in targets.get((t, 0), ()):
                    captured[i] = g
            elif create_graph or t._post_acc_hooks is not None:
                _accumulate_leaf(t, g, create_graph, seen)
            elif t._grad is not None:
                # a training step: add into the existing .grad in place (_accumulate_leaf's
                # last case, without its checks)
                if g.layout is not t._grad.layout:  # sparse and dense: a new (dense) sum
                    t._grad = t._grad + g
                    continue
                gd = t._grad._data
                gd += g._data
            else:
                # the first gradient (after zero_grad(set_to_none=True)): the leaf takes the
                # array itself when nothing else holds it, as ``_accumulate_leaf`` decides
                d = g._data
                flags = d.flags
                if (
                    d.base is not None
                    or id(d) in seen
                    or (flags is not None and not flags.writeable)
                ):
                    d = backend.namespace(d).copy(d)
                elif (
                    g.__class__ is Tensor
                    and g._grad_fn is None
                    and not g._requires_grad
                    and g._base is None
                    and not g._is_inference
                ):
                    # a fresh gradient a backward just made (the usual case): the leaf keeps
                    # that Tensor rather than a second wrapper over the same array
                    seen.add(id(d))
                    t._grad = g
                    continue
                seen.add(id(d))
                t._grad = _wrap(d)
                if g.__class__ is not Tensor and g.layout is not Tensor.layout:
                    t._grad.__class__ = g.__class__  # a sparse gradient stays a sparse tensor
        if accumulate and inputs is not None:
            if seen is None:
                seen = {id(r._data) for r in root_grads}
            done = set()
            for t, g in zip(inputs, captured):
                if g is not None and id(t) not in done:
                    done.add(id(t))
                    _accumulate_leaf(t, g, create_graph, seen)
    except BaseException:
        if running[0] == 1:  # a failed backward drops the callbacks it queued, as torch
            final_callbacks.clear()
        raise
    finally:
        state.enabled = prev
        running[0] -= 1
    if final_callbacks and not running[0]:
        _run_final_callbacks()
    return captured


# Callbacks queued during a backward (``Variable._execution_engine.queue_callback``), run when
# the outermost running backward finishes; ``running`` counts the backwards in progress.
final_callbacks: list = []
running = [0]


def _run_final_callbacks():
    while final_callbacks:
        final_callbacks.pop(0)()


def _walk(new, ready, buffers, leaves, retain_graph):
    """``_run``'s walk when every reached node runs (no ``inputs`` to capture or prune for):
    the same steps, with the capture and pruning checks left out of the per-node loop."""
    pop = buffers.pop
    get = buffers.get
    while True:
        if new is not None:
            node = new
            new = None
        elif ready:
            node = heappop(ready)[1]
        else:
            return
        grads = pop(node)
        nxt = node._next
        if node._plain and node._n_out == 1 and grads[0] is not None:
            in_grads = node._function.backward(node, grads[0])  # the common case
            if in_grads.__class__ is not tuple:
                in_grads = (
                    (in_grads,)
                    if in_grads.__class__ is Tensor and len(nxt) == 1
                    else _check_count(node, in_grads)
                )
            elif len(in_grads) != len(nxt):
                in_grads = _check_count(node, in_grads)
        else:
            if node._tensor_pre_hooks is not None:  # (never set on a plain node)
                grads = _node_grads(node, grads)
            in_grads = _call_backward(node, grads)
        if not retain_graph and node._saved is not None:
            node._saved = _FREED
        for e, g in zip(nxt, in_grads):
            if e is None:
                continue
            target, nr, shape, dtype = e
            if g is not None and (
                g.__class__ is not Tensor or g._data.shape != shape or g._data.dtype is not dtype
            ):
                g = _fit(g, shape, dtype, node, e)
            if nr is None:  # a leaf tensor
                if target in leaves:
                    _leaf_edge(leaves, target, g)
                else:
                    leaves[target] = g
                continue
            b = get(target)
            if b is None:  # first reached: schedule it
                if target._n_out == 1:
                    buffers[target] = [g]
                else:
                    b = buffers[target] = [None] * target._n_out
                    b[nr] = g
                if new is None:
                    new = target
                else:
                    heappush(ready, (-target._seq, target))
            elif g is not None:
                b[nr] = g if b[nr] is None else b[nr] + g
        if new is not None and ready:  # others wait: the heap picks the newest
            heappush(ready, (-new._seq, new))
            new = None


def _leaf_edge(leaves, t, g):
    """One more gradient (or None) for leaf ``t``: summed, and ``t`` moved last in the order."""
    old = leaves.pop(t, None)
    if old is not None:
        g = old if g is None else old + g
    leaves[t] = g


def _needed_nodes(roots, target_nodes):
    """Nodes from which some target node can be reached (so their backward must run)."""
    needed = set()
    order = []
    # iterative post-order over the graph reachable from the roots
    visited = set()
    for t in roots:
        start = t._grad_fn or t
        if start in visited:
            continue
        stack = [(start, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if node in visited:
                continue
            visited.add(node)
            stack.append((node, True))
            if node._next is not None:
                for e in node._next:
                    if e is not None and e[0] not in visited:
                        stack.append((e[0], False))
    for node in order:  # children come before parents in post-order
        if node in target_nodes:
            needed.add(node)
        elif node._next is not None and any(e is not None and e[0] in needed for e in node._next):
            needed.add(node)
    return needed


def _node_grads(node: BackwardNode, grads):
    """The gradients of a node's outputs, after tensor hooks and retain_grad."""
    hooks = node._tensor_pre_hooks
    if hooks is not None:
        for nr, hl in hooks.items():
            g = grads[nr]
            if g is None:
                continue
            for h in hl:
                r = h(g)
                if r is not None:
                    g = r
            grads[nr] = g
            if hl.retain is not None:
                hl.retain(g)
    return grads


def _call_backward(node: BackwardNode, grads):
    if node._pre_hooks:
        for h in node._pre_hooks:
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)
    if node.materialize_grads:
        for i, g in enumerate(grads):
            if g is None:
                m = node._out_meta[i]
                if m is not None:
                    grads[i] = _wrap(_zeros_for(grads, m))
    out = _check_count(node, node._function.backward(node, *grads))
    if node._post_hooks:
        for h in node._post_hooks:
            r = h(out, tuple(grads))
            if r is not None:
                out = tuple(r)
    if node._trace is not None:
        from ember.autograd.anomaly_mode import _check_grads

        _check_grads(node, out)
    return out


def _check_count(node, out):
    """Normalize what a backward returned to a tuple with one entry per forward argument."""
    if out.__class__ is not tuple:
        out = tuple(out) if isinstance(out, list) else (out,)
    n_in = len(node._next)
    if len(out) != n_in:
        if len(out) > n_in and all(g is None for g in out[n_in:]):
            return out[:n_in]
        raise RuntimeError(
            f"function {type(node).__name__} returned an incorrect number of gradients "
            f"(expected {n_in}, got {len(out)})"
        )
    return out


def _zeros_for(grads, m):
    # zeros for an output no gradient reached, on the device of the gradients that did
    xp = next((backend.namespace(g._data) for g in grads if g is not None), backend.cpu)
    return xp.zeros(m[0], dtype=m[1])


def _fit(g, shape, dtype, node, edge):
    """Reduce a broadcast gradient to the argument's shape and cast it to its dtype."""
    i = next(j for j, e in enumerate(node._next) if e is edge)  # for error messages
    if not isinstance(g, Tensor):
        from ember.ops.creation import tensor as _tensor

        g = _tensor(g, dtype=None)
    d = g._data
    if d.shape != shape:
        g = _sum_to(g, shape, node, i)
    if g._data.dtype != dtype:
        if g._data.dtype.kind == "c" and dtype.kind != "c":
            # NOTE: matches torch: a real input's gradient is the real part of a complex one
            g = g.real
        g = g.to(_dtype_of(dtype))
    return g


def _dtype_of(np_dtype):
    from ember._dtype import from_np

    return from_np(np_dtype)


def _sum_to(g, shape, node, i):
    gshape = g._data.shape
    lead = len(gshape) - len(shape)
    if lead < 0:
        raise RuntimeError(
            f"function {type(node).__name__} returned an invalid gradient at index {i} - got "
            f"{list(gshape)} but expected shape compatible with {list(shape)}"
        )
    kept = []  # dims of size 1 in ``shape`` that the gradient broadcast
    for k, s in enumerate(shape):
        gs = gshape[lead + k]
        if s == 1 and gs != 1:
            kept.append(lead + k)
        elif s != gs:
            raise RuntimeError(
                f"function {type(node).__name__} returned an invalid gradient at index {i} - "
                f"got {list(gshape)} but expected shape compatible with {list(shape)}"
            )
    if not kept:  # only leading dims to drop (a bias's gradient): one sum, no reshape
        return g.sum(dim=tuple(range(lead))) if lead else g.reshape(shape)
    g = g.sum(dim=list(range(lead)) + kept, keepdim=True)
    return g.reshape(shape) if lead or g._data.shape != shape else g


def _run_leaf_hooks(t: Tensor, g):
    if g is None:
        return None
    if t._hooks:
        for h in t._hooks:
            r = h(g)
            if r is not None:
                g = r
    return g


def _accumulate_leaf(t: Tensor, g: Tensor, create_graph: bool, seen: set):
    if not isinstance(t, Tensor):
        return
    if t._grad is None:
        if create_graph:
            # NOTE: matches torch: the leaf keeps a differentiable copy (CopyBackwards), never
            # the gradient itself, which may be a view or also handed to another leaf
            from ember.ops.creation import empty_like

            t._grad = empty_like(g).copy_(g) if g.layout is Tensor.layout else g.clone()
        else:
            d = g._data
            if id(d) in seen or getattr(d, "base", None) is not None or not _writeable(d):
                d = backend.namespace(d).copy(d)
            seen.add(id(d))
            t._grad = _wrap(d)
            if g.__class__ is not Tensor and g.layout is not Tensor.layout:
                t._grad.__class__ = g.__class__  # a sparse gradient stays a sparse tensor
    elif create_graph or _state.enabled or g.layout is not t._grad.layout:
        t._grad = t._grad + g
    else:
        gd = t._grad._data
        gd += g._data
    if t._post_acc_hooks:
        for h in t._post_acc_hooks:
            h(t)


def _writeable(d):
    flags = getattr(d, "flags", None)
    return flags is None or flags.writeable


def _release(node, retain_graph):
    if not retain_graph and node._saved is not None:
        node._saved = _FREED


Tensor.backward = tensor_backward
