"""``ember.autograd.functional``: Jacobians, Hessians and their products with vectors
(PyTorch's ``torch.autograd.functional``), on ``autograd.grad``.

Every function runs ``func`` once on fresh inputs (detached leaves, or differentiable views of
inputs that require grad when ``create_graph=True``) and differentiates with
``autograd.grad``. The forward-mode products (``jvp``, ``hvp``) use the double-backward
identity: ``J^T u`` is linear in a dummy cotangent ``u``, and the gradient of ``<J^T u, v>``
with respect to ``u`` is ``J v``, exact. ``vectorize=True`` and ``strategy="forward-mode"``
give the same numbers through the same row-by-row computation (torch batches it with vmap).
"""

from __future__ import annotations

from ember.autograd import grad_mode as _gm
from ember.autograd.engine import grad as _grad
from ember.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRATEGY_HINT = (
    ' Hint: If your function has more outputs than inputs, "forward-mode" tends to be more '
    'performant. Otherwise, prefer to use "reverse-mode".'
)


def _as_tuple(x, arg_name: str, fn_name: str):
    """``(was_tuple, x as a tuple of Tensors)``; a TypeError names any non-Tensor."""
    was_tuple = isinstance(x, tuple)
    items = x if was_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            # NOTE: matches torch: "outputs" reads "the outputs of the user-provided function"
            where = f"value at index {i}" if was_tuple else f"given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the {where} has type {type(el)}."
            )
    return was_tuple, items


def _unpack(res, was_tuple):
    """Undo ``_as_tuple``: ``was_tuple`` is one flag, or (outputs', inputs') for a
    Jacobian's tuple of tuples."""
    if isinstance(was_tuple, tuple):
        outs_tuple, ins_tuple = was_tuple
        if not ins_tuple:
            res = tuple(r[0] for r in res)
        return res if outs_tuple else res[0]
    return res if was_tuple else res[0]


def _fresh(inputs, create_graph: bool, need_graph: bool):
    """New Tensor objects for ``inputs``, so that tensors ``func`` captures from outside are
    told apart from the arguments: views that keep the outer graph (``create_graph`` and
    requires grad), else detached leaves."""
    return tuple(
        x.view_as(x) if create_graph and x.requires_grad else x.detach().requires_grad_(need_graph)
        for x in inputs
    )


def _finish(tensors, create_graph: bool):
    """Results without history unless ``create_graph`` (nested tuples too)."""
    if create_graph:
        return tensors
    return tuple(
        t.detach() if isinstance(t, Tensor) else None if t is None else _finish(t, False)
        for t in tensors
    )


def _check_v(v, other, other_tuple: bool):
    if len(v) != len(other):
        if other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.shape != b.shape:
            where = f"Entry {i} in " if other_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.shape} but got {a.shape}.")


_STRICT_MESSAGES = {
    "hessian": (
        "The hessian of the user-provided function with respect to input {i} is independent "
        "of the input. This is not allowed in strict mode. You should ensure that your "
        "function is thrice differentiable and that the hessian depends on the inputs."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided function "
        "with respect to input {i} is independent of the input. This is not allowed in strict "
        "mode. You should ensure that your function is twice differentiable and that the "
        "jacobian depends on the inputs (this would be violated by a linear function for "
        "example)."
    ),
    "grad_inputs": (
        "The gradient with respect to input {i} is independent of the inputs of the "
        "user-provided function. This is not allowed in strict mode."
    ),
    "outputs": (
        "Output {i} of the user-provided function does not require gradients. The outputs "
        "must be computed in a differentiable manner from the input when running in strict "
        "mode."
    ),
}


def _check_requires_grad(tensors, kind: str, strict: bool):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode."
            )
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad (None per input when none do)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad(
        [p[0] for p in pairs],
        inputs,
        [p[1] for p in pairs],
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_ZERO_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
    "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. "
    "This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it prevents from using "
    "the double backward trick to replace forward mode AD.",
}


def _fill_zeros(grads, refs, strict: bool, create_graph: bool, stage: str):
    """``grads`` with zeros (shaped as ``refs``) for None; strict mode raises instead."""
    from ember.ops.creation import zeros_like

    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _prepare_v(v, inputs, create_graph, fn_name, against, against_tuple, none_message):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _fresh(v, create_graph, False)
        _check_v(v, against, against_tuple)
        return v
    if len(against) != 1 or against[0].numel() != 1:
        raise RuntimeError(none_message)
    return None


_V_NONE_INPUT = (
    "The vector v can only be None if the input to the user-provided function is a single "
    "Tensor with a single element."
)


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T J)``: the vector-Jacobian product of ``func`` at ``inputs``.

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple of Tensors.
        v: the vector (shaped as the outputs); may be None for a one-element output.
        create_graph: keep the graph of the results (to differentiate them).
        strict: raise when an output does not depend on an input, instead of zeros.

    Example:
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.autograd.functional.vjp(lambda x: x**2, x, ember.ones(2))
        (tensor([1., 4.]), tensor([2., 4.]))
    """
    with _gm.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, True)
        out_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(
            v,
            inputs,
            create_graph,
            "vjp",
            outputs,
            out_tuple,
            "The vector v can only be None if the user-provided function returns a single "
            "Tensor with a single element.",
        )
    with _gm.set_grad_enabled(create_graph or _gm.is_grad_enabled()):
        res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_zeros(res, inputs, strict, create_graph, "back")
    return (
        _unpack(_finish(outputs, create_graph), out_tuple),
        _unpack(_finish(res, create_graph), in_tuple),
    )


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), J v)``: the Jacobian-vector product, exact, by double backward.

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple of Tensors.
        v: the vector (shaped as the inputs); may be None for a one-element input.
        create_graph: keep the graph of the results.
        strict: raise when an output does not depend on an input, instead of zeros.

    Example:
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.autograd.functional.jvp(lambda x: x**2, x, ember.tensor([1.0, 0.0]))
        (tensor([1., 4.]), tensor([2., 0.]))
    """
    from ember.ops.creation import zeros_like

    with _gm.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, True)
        v = _prepare_v(v, inputs, create_graph, "jvp", inputs, in_tuple, _V_NONE_INPUT)
        out_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        _check_requires_grad(outputs, "outputs", strict)
        # u: a dummy cotangent; J^T u is linear in u, so its value never matters
        us = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, us, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with _gm.set_grad_enabled(True if create_graph else _gm.is_grad_enabled()):
        res = _autograd_grad(grad_inputs, us, v, create_graph=create_graph)
        res = _fill_zeros(res, outputs, strict, create_graph, "back_trick")
    return (
        _unpack(_finish(outputs, create_graph), out_tuple),
        _unpack(_finish(res, create_graph), out_tuple),
    )


def jacobian(
    func,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """The Jacobian of ``func`` at ``inputs``: a Tensor of shape ``out.shape + in.shape`` for
    one input and one output, else a tuple (per output) of tuples (per input).

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple of Tensors.
        create_graph: keep the graph of the Jacobian.
        strict: raise when an output does not depend on an input, instead of zeros.
        vectorize: accepted for torch's API (the same numbers, computed row by row).
        strategy: ``"reverse-mode"`` or ``"forward-mode"`` (the latter needs
            ``vectorize=True``, as torch; it gives the same numbers).

    Example:
        >>> ember.autograd.functional.jacobian(lambda x: x**2, ember.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    return _jacobian(func, inputs, create_graph, strict, vectorize, strategy, False)


def _jacobian(func, inputs, create_graph, strict, vectorize, strategy, _keep_forward):
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode".' + _STRATEGY_HINT
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-'
                'mode"` are not supported together (yet). Please either set `create_graph=False` '
                'or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                "are not supported together (yet). Please either set `strict=False` or "
                '`strategy="reverse-mode"`.'
            )
        if not vectorize:
            # NOTE: matches torch: its message lacks the space between "is" and "only"
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                "only implemented for `vectorize=True`."
            )
        # NOTE: matches torch: forward mode does not detach: the Jacobian keeps the graph of
        # inputs that require grad (always within a forward-over-reverse Hessian)
        create_graph = _keep_forward or any(
            isinstance(x, Tensor) and x.requires_grad
            for x in (inputs if isinstance(inputs, tuple) else (inputs,))
        )
    from ember import stack
    from ember.ops.creation import zeros_like

    with _gm.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, True)
        out_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or `vectorize=False`."
            )
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(out.numel()):
                vj = _autograd_grad(
                    (flat[j],), inputs, retain_graph=True, create_graph=create_graph
                )
                for k, (g, x) in enumerate(zip(vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode."
                            )
                        g = zeros_like(x)
                    elif strict and create_graph and not g.requires_grad:
                        # NOTE: matches torch: the message names the output's index
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode when "
                            "create_graph=True."
                        )
                    rows[k].append(g)
            jac.append(
                tuple(
                    (stack(r) if r else zeros_like(x).reshape(0, *x.shape)).view(
                        tuple(out.shape) + tuple(x.shape)
                    )
                    for r, x in zip(rows, inputs)
                )
            )
        if strategy == "forward-mode" and create_graph:
            jac = _one_graph(jac)
        res = _unpack(_finish(tuple(jac), create_graph), (out_tuple, in_tuple))
        if strategy == "forward-mode" and in_tuple:
            # NOTE: matches torch: forward mode gives lists (per output, of lists per input)
            # where reverse mode gives tuples, for a tuple of inputs
            res = [list(r) for r in res] if out_tuple else list(res)
        return res


def _one_graph(jac):
    """NOTE: matches torch: forward mode computes every block from one batched tensor, so all
    blocks require grad when one does; a block without history gets an exact ``+ 0`` from a
    block with it (the sum of none of its elements)."""
    ref = next((b for row in jac for b in row if b.requires_grad), None)
    if ref is None:
        return jac
    zero = ref.reshape(-1)[:0].sum()
    return [tuple(b if b.requires_grad else b + zero.to(b.dtype) for b in row) for row in jac]


def hessian(
    func,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """The Hessian of a scalar function ``func`` at ``inputs``: a Tensor of shape
    ``in.shape + in.shape`` for one input, else a tuple of tuples (input i, input j).

    Args:
        func: a function of Tensors returning a one-element Tensor.
        inputs: a Tensor or a tuple of Tensors.
        create_graph: keep the graph of the Hessian.
        strict: raise when the function is not twice differentiable in an input.
        vectorize: accepted for torch's API (the same numbers).
        outer_jacobian_strategy: ``"reverse-mode"`` or ``"forward-mode"`` (see
            :func:`jacobian`).

    Example:
        >>> ember.autograd.functional.hessian(lambda x: (x**3).sum(), ember.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar(*inp):
        out = func(*inp)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(scalar, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = _jacobian(
        jac_func, inputs, create_graph, strict, vectorize, outer_jacobian_strategy, True
    )
    return _unpack(res, (in_tuple, in_tuple))


def _scalar_output(func, inputs, fn_name, strict):
    out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    if out_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    return out_tuple, outputs


def _hessian_setup(func, inputs, v, create_graph, strict, name):
    """The first half of ``vhp``/``hvp`` (under grad mode): the inputs as fresh leaves, ``v``
    checked against them, the scalar output and its Jacobian, kept differentiable."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _fresh(inputs, create_graph, True)
    v = _prepare_v(v, inputs, create_graph, name, inputs, in_tuple, _V_NONE_INPUT)
    out_tuple, outputs = _scalar_output(func, inputs, name, strict)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return in_tuple, inputs, v, out_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T H)``: the vector-Hessian product of a scalar function.

    Args:
        func: a function of Tensors returning a one-element Tensor.
        inputs: a Tensor or a tuple of Tensors.
        v: the vector (shaped as the inputs); may be None for a one-element input.
        create_graph: keep the graph of the results.
        strict: raise when the function is not twice differentiable in an input.

    Example:
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.autograd.functional.vhp(lambda x: (x**3).sum(), x, ember.ones(2))
        (tensor(9.), tensor([ 6., 12.]))
    """
    with _gm.enable_grad():
        in_tuple, inputs, v, out_tuple, outputs, jac = _hessian_setup(
            func, inputs, v, create_graph, strict, "vhp"
        )
    with _gm.set_grad_enabled(True if create_graph else _gm.is_grad_enabled()):
        res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_zeros(res, inputs, strict, create_graph, "double_back")
    return (
        _unpack(_finish(outputs, create_graph), out_tuple),
        _unpack(_finish(res, create_graph), in_tuple),
    )


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), H v)``: the Hessian-vector product of a scalar function, exact, by
    double backward (equal to :func:`vhp` for a symmetric Hessian).

    Args:
        func: a function of Tensors returning a one-element Tensor.
        inputs: a Tensor or a tuple of Tensors.
        v: the vector (shaped as the inputs); may be None for a one-element input.
        create_graph: keep the graph of the results.
        strict: raise when the function is not twice differentiable in an input.

    Example:
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.autograd.functional.hvp(lambda x: (x**3).sum(), x, ember.ones(2))
        (tensor(9.), tensor([ 6., 12.]))
    """
    from ember.ops.creation import zeros_like

    with _gm.enable_grad():
        in_tuple, inputs, v, out_tuple, outputs, jac = _hessian_setup(
            func, inputs, v, create_graph, strict, "hvp"
        )
        us = tuple(zeros_like(x, requires_grad=True) for x in inputs)
        double_back = _autograd_grad(jac, inputs, us, create_graph=True)
        # NOTE: matches torch: this strict check looks at the Jacobian again
        _check_requires_grad(jac, "hessian", strict)
    with _gm.set_grad_enabled(True if create_graph else _gm.is_grad_enabled()):
        res = _autograd_grad(double_back, us, v, create_graph=create_graph)
        res = _fill_zeros(res, inputs, strict, create_graph, "double_back_trick")
    return (
        _unpack(_finish(outputs, create_graph), out_tuple),
        _unpack(_finish(res, create_graph), in_tuple),
    )
