"""``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``: torch.func's
function transforms on top of ember's reverse-mode autograd.

Each call runs the function once on fresh graph inputs and differentiates with
``autograd.grad``. When an input already takes part in a graph (it requires grad, or an outer
transform is differentiating through this one), the backward is built with ``create_graph`` so
the transforms nest (``grad(grad(f))``, ``hessian``). Forward mode (``jvp``, ``jacfwd``) uses
the double-backward identity: for ``g(u) = J^T u``, the gradient of ``<g(u), v>`` with respect
to ``u`` is ``J v``, exact (no finite differences). Costs: ``jacrev`` runs one backward per
output element, ``jacfwd`` one backward through the backward graph per input element.
"""

from __future__ import annotations

import functools

from ember.autograd.engine import grad as _autograd_grad
from ember.autograd.grad_mode import enable_grad
from ember.func._tree import tree_flatten, tree_unflatten
from ember.tensor import Tensor


def _fname(func) -> str:
    return getattr(func, "__name__", repr(func))


def _check_argnums(argnums, nargs: int, api: str):
    if isinstance(argnums, bool) or not isinstance(argnums, (int, tuple)):
        raise RuntimeError(
            f"{api}: Expected argnums to be int or tuple of ints, got: {type(argnums)}"
        )
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError(f"{api}: 'argnums' must be non-empty")
        for a in argnums:
            _check_argnums(a, nargs, api)
        if len(set(a % max(nargs, 1) for a in argnums)) != len(argnums):
            raise RuntimeError(f"{api}: 'argnums' must not contain duplicates, got {argnums}")
        return
    if not -nargs <= argnums < nargs:
        raise RuntimeError(
            f"{api}: Got argnums={argnums}, but only {nargs} positional inputs were given."
        )


def _prepare(args, argnums):
    """Fresh differentiable stand-ins for ``args[argnums]``: a leaf of a detached copy when
    nothing outside needs the graph, else a view (so the outer graph sees through it). Returns
    the new args, the flat stand-ins, the spec of the differentiated part, and whether a
    graph must be kept (``create_graph``)."""
    picked = args[argnums] if isinstance(argnums, int) else tuple(args[a] for a in argnums)
    flat, spec = tree_flatten(picked)
    outer = False
    fresh = []
    for x in flat:
        if not isinstance(x, Tensor):
            raise RuntimeError(
                f"Expected the inputs to differentiate to be Tensors, got {type(x).__name__}"
            )
        if x.requires_grad:
            outer = True
            fresh.append(x.view_as(x))
        else:
            fresh.append(x.detach().requires_grad_())
    new_picked = tree_unflatten(fresh, spec)
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = new_picked
    else:
        for a, v in zip(argnums, new_picked, strict=True):
            args[a] = v
    return tuple(args), fresh, spec, outer


def _grads(outputs, inputs, grad_outputs, create_graph: bool):
    gs = _autograd_grad(
        outputs,
        inputs,
        grad_outputs=grad_outputs,
        create_graph=create_graph,
        retain_graph=True,
        allow_unused=True,
    )
    from ember.ops.creation import zeros_like

    return [zeros_like(x) if g is None else g for g, x in zip(gs, inputs, strict=True)]


def _maybe_detach(tree, keep: bool):
    if keep:
        return tree
    flat, spec = tree_flatten(tree)
    return tree_unflatten([v.detach() if isinstance(v, Tensor) else v for v in flat], spec)


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """Like :func:`grad`, returning ``(gradient, value)`` (``(gradient, (value, aux))`` with
    ``has_aux``).

    Example:
        >>> g, v = ember.func.grad_and_value(lambda x: (x**2).sum())(ember.tensor([1.0, 2.0]))
        >>> g, v
        (tensor([2., 4.]), tensor(5.))
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        api = "grad_and_value(f)(*args)"
        _check_argnums(argnums, len(args), api)
        with enable_grad():
            args2, fresh, spec, outer = _prepare(args, argnums)
            out = func(*args2, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(
                        f"{api}: output of function f should be a tuple: (output, aux) if "
                        "has_aux is True"
                    )
                out, aux = out
            if not isinstance(out, Tensor):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            if out.requires_grad:
                gs = _grads([out], fresh, None, outer)
            else:
                from ember.ops.creation import zeros_like

                gs = [zeros_like(x) for x in fresh]
        g = tree_unflatten([v if outer else v.detach() for v in gs], spec)
        value = out if outer else out.detach()
        if has_aux:
            return g, (value, _maybe_detach(aux, outer))
        return g, value

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """The gradient of scalar-valued ``func`` with respect to argument ``argnums`` (an int or a
    tuple of ints; an argument may be a nested tuple/list/dict of tensors, and the gradient
    has its structure). ``has_aux``: ``func`` returns ``(output, aux)`` and the result is
    ``(gradient, aux)``. Transforms nest (``grad(grad(f))``).

    Example:
        >>> ember.func.grad(lambda x: x.sin().sum())(ember.tensor([0.0]))
        tensor([1.])
        >>> ember.func.grad(ember.func.grad(lambda x: x**3))(ember.tensor(2.0))
        tensor(12.)
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` returns the vector-Jacobian products,
    one per primal (a tuple), for cotangents shaped like the output. With ``has_aux``,
    ``func`` returns ``(output, aux)`` and so does this, plus ``aux`` last.

    Example:
        >>> out, vjp_fn = ember.func.vjp(lambda x: x * 3, ember.tensor([1.0, 2.0]))
        >>> vjp_fn(ember.tensor([1.0, 1.0]))
        (tensor([3., 3.]),)
    """
    with enable_grad():
        args, fresh, pspec, outer = _prepare(primals, tuple(range(len(primals))))
        out = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(
                    "vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
                    "has_aux is True"
                )
            out, aux = out
    oflat, ospec = tree_flatten(out)
    for v in oflat:
        if not isinstance(v, Tensor):
            raise RuntimeError(
                f"vjp(f, *primals): Expected f to be a function that has only Tensors as "
                f"outputs, got {type(v)}"
            )

    def vjp_fn(*cotangents, retain_graph=True, create_graph=None):
        cots = cotangents[0] if len(cotangents) == 1 else cotangents
        cflat, cspec = tree_flatten(cots)
        if len(cflat) != len(oflat):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the original function, but got {cspec} and {ospec}"
            )
        for c, o in zip(cflat, oflat, strict=True):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(
                    "Mismatch in shape: grad_output[0] has a shape of "
                    f"{c.shape} and output[0] has a shape of {o.shape}."
                )
        keep = outer or bool(create_graph) or any(c.requires_grad for c in cflat)
        with enable_grad():
            pairs = [(o, c) for o, c in zip(oflat, cflat, strict=True) if o.requires_grad]
            if pairs:
                gs = _grads([p[0] for p in pairs], fresh, [p[1] for p in pairs], keep)
            else:
                from ember.ops.creation import zeros_like

                gs = [zeros_like(x) for x in fresh]
        gs = [g if keep else g.detach() for g in gs]
        return tuple(tree_unflatten(gs, pspec))

    result = _maybe_detach(out, outer)
    if has_aux:
        return result, vjp_fn, _maybe_detach(aux, outer)
    return result, vjp_fn


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product, exact, computed as the
    gradient of a vector-Jacobian product (two backward passes; ember has no forward mode).

    Example:
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.func.jvp(lambda x: x**2, (x,), (ember.tensor([1.0, 0.0]),))
        (tensor([1., 4.]), tensor([2., 0.]))
    """
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
            f"to call f(*primals). Got: {type(primals)}"
        )
    if not isinstance(tangents, tuple):
        raise RuntimeError(
            f"jvp(f, primals, tangents): Expected tangents to be a tuple. Got: {type(tangents)}"
        )
    pflat, pspec = tree_flatten(primals)
    tflat, tspec = tree_flatten(tangents)
    if pspec != tspec:
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
            f"Got primals with structure {pspec} and tangents with structure {tspec}"
        )
    for p, t in zip(pflat, tflat, strict=True):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "jvp(f, primals, tangents): Expected primals and tangents to have the same "
                f"shape. Got primal of shape {tuple(p.shape)} and tangent of shape "
                f"{tuple(t.shape)}"
            )
    from ember.ops.creation import zeros_like

    with enable_grad():
        args, fresh, _, outer = _prepare(primals, tuple(range(len(primals))))
        out = func(*args)
        aux = None
        if has_aux:
            out, aux = out
        oflat, ospec = tree_flatten(out)
        keep = outer or any(t.requires_grad for t in tflat)
        # u: dummy cotangents; g(u) = J^T u is linear in u, and d<g(u), v>/du = J v
        us = [zeros_like(o).requires_grad_() for o in oflat]
        live = [(o, u) for o, u in zip(oflat, us, strict=True) if o.requires_grad]
        if live:
            gs = _grads([p[0] for p in live], fresh, [p[1] for p in live], True)
            pairs = [(g, t) for g, t in zip(gs, tflat, strict=True) if g.requires_grad]
        else:
            pairs = []
        if pairs:
            jv = _grads([p[0] for p in pairs], us, [p[1] for p in pairs], keep)
        else:
            jv = [zeros_like(o) for o in oflat]
    jv = [v if keep else v.detach() for v in jv]
    result = (_maybe_detach(out, outer), tree_unflatten(jv, ospec))
    if has_aux:
        return (*result, _maybe_detach(aux, outer))
    return result


def _jacobian(func, argnums, has_aux, forward: bool, api: str):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from ember.ops.creation import zeros, zeros_like
        from ember.ops.joining import stack

        _check_argnums(argnums, len(args), api)
        with enable_grad():
            args2, fresh, ispec, outer = _prepare(args, argnums)
            out = func(*args2, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(
                        f"{api}: output of function f should be a tuple: (output, aux) if "
                        "has_aux is True"
                    )
                out, aux = out
            oflat, ospec = tree_flatten(out)
            for v in oflat:
                if not isinstance(v, Tensor):
                    raise RuntimeError(
                        f"{api}: Expected f to be a function that has only Tensors as outputs, "
                        f"got {type(v)}"
                    )
            # jac[i][j]: d out_i / d in_j, shaped out_i.shape + in_j.shape
            jac = [[None] * len(fresh) for _ in oflat]
            if not forward:
                for i, o in enumerate(oflat):
                    rows = [[] for _ in fresh]
                    flat_o = o.reshape(-1)
                    for k in range(flat_o.numel()):
                        if o.requires_grad:
                            gs = _grads([flat_o[k]], fresh, None, outer)
                        else:
                            gs = [zeros_like(x) for x in fresh]
                        for j, g in enumerate(gs):
                            rows[j].append(g)
                    for j, x in enumerate(fresh):
                        if rows[j]:
                            jac[i][j] = stack(rows[j]).reshape(*o.shape, *x.shape)
                        else:
                            jac[i][j] = zeros(*o.shape, *x.shape, dtype=o.dtype)
            else:
                us = [zeros_like(o).requires_grad_() for o in oflat]
                live = [k for k, o in enumerate(oflat) if o.requires_grad]
                gs = (
                    _grads([oflat[k] for k in live], fresh, [us[k] for k in live], True)
                    if live
                    else []
                )
                for j, x in enumerate(fresh):
                    cols = [[] for _ in oflat]
                    g = gs[j] if gs else None
                    for k in range(x.numel()):
                        if g is not None and g.requires_grad:
                            e = zeros(x.numel(), dtype=x.dtype)
                            e[k] = 1
                            jv = _grads([g], us, [e.reshape(x.shape)], outer)
                        else:
                            jv = [zeros_like(o) for o in oflat]
                        for i, v in enumerate(jv):
                            cols[i].append(v)
                    for i, o in enumerate(oflat):
                        if cols[i]:
                            jac[i][j] = stack(cols[i], dim=-1).reshape(*o.shape, *x.shape)
                        else:
                            jac[i][j] = zeros(*o.shape, *x.shape, dtype=o.dtype)
        rows = [
            tree_unflatten([v if outer else v.detach() for v in jac[i]], ispec)
            for i in range(len(oflat))
        ]
        result = tree_unflatten(rows, ospec)
        if has_aux:
            return result, _maybe_detach(aux, outer)
        return result

    return wrapper


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` with respect to argument(s) ``argnums`` by reverse mode: for
    output ``o`` and input ``x``, a tensor of shape ``o.shape + x.shape``. One backward pass
    per output element (``chunk_size`` is accepted; ember has no batched backward).

    Example:
        >>> ember.func.jacrev(lambda x: x**2)(ember.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, False, "jacrev(f, argnums)(*args)")


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """The Jacobian of ``func`` by forward-mode products (exact, through double backward): one
    backward pass through the backward graph per input element, so cheaper than
    :func:`jacrev` when inputs are fewer than outputs.

    Example:
        >>> ember.func.jacfwd(lambda x: x.sin())(ember.tensor([0.0]))
        tensor([[1.]])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    return _jacobian(func, argnums, has_aux, True, "jacfwd(f, argnums)(*args)")


def hessian(func, argnums=0):
    """The Hessian of scalar-valued ``func``: ``jacfwd(jacrev(func, argnums), argnums)``.

    Example:
        >>> ember.func.hessian(lambda x: (x**3).sum())(ember.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
