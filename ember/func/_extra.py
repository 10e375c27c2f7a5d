"""The rest of ``torch.func``: ``stack_module_state`` (model ensembles with ``vmap`` +
``functional_call``), ``functionalize``, ``linearize``, ``replace_all_batch_norm_modules_``,
``debug_unwrap``.

ember runs everything eagerly, with no wrapper tensors and no tracing, so ``functionalize`` is
the function itself (its outputs made fresh tensors, as torch's are: never views of the
inputs), ``debug_unwrap`` is the identity, and ``linearize``'s ``jvp_fn`` computes each
Jacobian-vector product anew (torch traces the linearized graph once; the numbers are the same).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import ember
from ember.func._eager_transforms import jvp
from ember.func._tree import tree_flatten, tree_unflatten
from ember.nn.modules.module import Module
from ember.tensor import Tensor

__all__ = [
    "debug_unwrap",
    "functionalize",
    "linearize",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
]


def _stacked_leaf(tensors: Sequence[Tensor], name: str) -> Tensor:
    grads = [t.requires_grad for t in tensors]
    if any(grads) and not all(grads):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = ember.stack(tuple(tensors))
    if all(grads):
        # a new leaf: optimizable, unrelated to the models' own parameters
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Stack the parameters and buffers of ``M`` models of one class along a new leading dim,
    for ensembling with ``vmap`` over ``functional_call``.

    Args:
        models: the models (a list or ModuleList), all of the same class and train/eval mode.

    Returns:
        ``(params, buffers)``: dicts from ``named_parameters`` / ``named_buffers`` names to
        tensors of shape ``(M, *shape)``. Stacked parameters are new leaves that require grad
        (when the models' do), unrelated to the models' own, so an optimizer can take them.

    Example:
        >>> models = [ember.nn.Linear(3, 2) for _ in range(4)]
        >>> params, buffers = ember.func.stack_module_state(models)
        >>> {k: tuple(v.shape) for k, v in params.items()}, buffers
        ({'weight': (4, 2, 3), 'bias': (4, 2)}, {})
        >>> def call(p, b, x):
        ...     return ember.func.functional_call(models[0], (p, b), (x,))
        >>> ember.func.vmap(call, in_dims=(0, 0, None))(params, buffers, ember.ones(5, 3)).shape
        ember.Size([4, 5, 2])
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    cls = type(models[0])
    if not all(type(m) is cls for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


_REMOVE_ERROR = (
    "functionalize(f, remove='mutations'): received invalid argument for remove={}. Valid "
    "options are:\n     remove='mutations': all inplace and out= operators will be removed from "
    "the program, and replaced with their out-of-place equivalents.\n     "
    "remove='mutations_and_views': In addition to the above, all aliasing operators {{view}} "
    "will be replaced with their non-aliasing counterparts, {{view}}_copy.\n"
)


def functionalize(func: Callable[..., Any], *, remove: str = "mutations") -> Callable[..., Any]:
    """``func`` with its mutations removed: in eager ember, ``func`` itself, with the same
    effect on its inputs (an input ``func`` mutates is mutated), and outputs that are fresh
    tensors, never views of (or the same tensor as) an input.

    Args:
        func: the function.
        remove: ``'mutations'`` or ``'mutations_and_views'`` (the same in eager).

    Example:
        >>> def f(x):
        ...     y = x.view(-1)
        ...     y.add_(1)
        ...     return y
        >>> a = ember.zeros(2, 2)
        >>> out = ember.func.functionalize(f)(a)
        >>> out, out._base is None, a
        (tensor([1., 1., 1., 1.]), True, tensor([[1., 1.],
                [1., 1.]]))
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_REMOVE_ERROR.format(remove))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        inputs = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, Tensor)]
        out = func(*args, **kwargs)
        leaves, spec = tree_flatten(out)

        def fresh(t):
            # NOTE: matches torch: functionalized outputs never alias the inputs
            if isinstance(t, Tensor) and (t._base is not None or any(t is i for i in inputs)):
                return t.clone()
            return t

        return tree_unflatten([fresh(t) for t in leaves], spec)

    return wrapped


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``func(*primals)`` and a function that gives the Jacobian-vector product at
    ``primals`` for given tangents (``jvp_fn(*tangents)``, tangents shaped like ``primals``).

    Args:
        func: a function of tensors (or nested tuples/lists/dicts of them).
        *primals: the point to linearize at.

    Example:
        >>> out, jvp_fn = ember.func.linearize(ember.sin, ember.zeros(3))
        >>> out, jvp_fn(ember.ones(3))
        (tensor([0., 0., 0.]), tensor([1., 1., 1.]))
    """
    output = func(*primals)
    flat_primals, primals_spec = tree_flatten(primals)
    metas = [(tuple(p.shape), p.device, p.dtype) for p in flat_primals]

    def jvp_fn(*tangents: Any) -> Any:
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(
                f"Expected the tangents {tangents_spec} to have the same argspec as the "
                f"primals {primals_spec}"
            )
        for idx, (t, (shape, device, dtype)) in enumerate(zip(flat_tangents, metas, strict=True)):
            for what, got, want in (
                ("shape", tuple(t.shape), shape),
                ("device", t.device, device),
                ("dtype", t.dtype, dtype),
            ):
                if got != want:
                    shown = (ember.Size(got), ember.Size(want)) if what == "shape" else (got, want)
                    raise RuntimeError(
                        f"tangent:{idx} with {what} {shown[0]} in flattened pytree doesn't "
                        f"match the {what} {shown[1]} of the corresponding primal."
                    )
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def replace_all_batch_norm_modules_(root: Module) -> Module:
    """In place, make every BatchNorm module in ``root`` use batch statistics only
    (``running_mean``/``running_var``/``num_batches_tracked`` set to None,
    ``track_running_stats`` False), as ``vmap`` over them needs; returns ``root``.

    Example:
        >>> net = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.BatchNorm1d(2))
        >>> net = ember.func.replace_all_batch_norm_modules_(net)
        >>> net[1].running_mean is None, net[1].track_running_stats
        (True, False)
    """
    from ember.nn.modules.batchnorm import _BatchNorm

    for m in root.modules():  # modules() includes root itself
        if isinstance(m, _BatchNorm) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root


def debug_unwrap(tensor: Tensor, *, recurse: bool = True) -> Tensor:
    """The tensor under a transform's wrapper; ember's transforms wrap nothing, so this
    returns ``tensor`` itself.

    Example:
        >>> x = ember.ones(2)
        >>> ember.func.debug_unwrap(x) is x
        True
    """
    return tensor
