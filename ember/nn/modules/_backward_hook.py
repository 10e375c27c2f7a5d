"""Module full backward hooks: an identity Function on the module's inputs and one on its
outputs, whose graph nodes capture the gradients flowing through them.

When backward reaches the output node, the gradients with respect to the outputs are known:
the backward pre-hooks run there (and may replace them). When it reaches the input node, the
gradients with respect to the inputs are known: the full backward hooks run there (and may
replace them). If no input requires grad, the full hooks run at the output node with
``grad_input`` all ``None``.

What the hooks see is PyTorch's: ``grad_output`` has ``None`` for an output no gradient
reached; ``grad_input`` has ``None`` for a non-tensor argument and zeros for a tensor argument
that does not require grad (while some other one does).
"""

from __future__ import annotations

import warnings

from ember.autograd import grad_mode as _gm
from ember.autograd.function import Function
from ember.tensor import Tensor


class BackwardHookFunction(Function):
    """Identity on tensors; marks a place in the graph where gradients can be observed."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _pack(indices, values, size) -> tuple:
    out = [None] * size
    for i, v in zip(indices, values, strict=True):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """Connects one module call's ``grad_input`` and ``grad_output`` to its user hooks."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = -1
        self.input_index = None
        self.input_zeros = None  # position -> (shape, dtype, device) of inputs without grad
        self.n_outputs = -1
        self.output_index = None

    def _wrap(self, args, on_node):
        """Route the tensors among ``args`` through one identity node; ``on_node(node)``
        registers the hook on it. Returns (new args, indices of the tensors) or (args, None)
        when nothing needs a gradient."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (_gm.is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        nodes = [
            t.grad_fn
            for t in new
            if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"
        ]
        on_node(nodes[0])
        out = list(args)
        for i, t in zip(index, new, strict=True):
            out[i] = t
        return (tuple(out) if type(args) is tuple else type(args)(*out)), index

    def setup_input_hook(self, args):
        def on_node(node):
            node.register_hook(self._input_hook)

        res, self.input_index = self._wrap(args, on_node)
        self.n_inputs = len(args)
        if self.input_index is not None:
            # NOTE: matches torch: a tensor input that does not require grad gets zeros in
            # grad_input (PyTorch materializes the undefined gradient of its identity output).
            self.input_zeros = {
                i: (a.shape, a.dtype, a.device)
                for i, a in enumerate(args)
                if isinstance(a, Tensor) and not a.requires_grad
            }
        return res

    def _input_hook(self, grad_input, _grad_output):
        if self.grad_outputs is None:
            # The output node was not reached (the outputs did not take part in this
            # backward); there is nothing to report.
            return None
        res = _pack(self.input_index, grad_input, self.n_inputs)
        if self.input_zeros:
            from ember.ops.creation import zeros

            res = list(res)
            for i, (shape, dtype, device) in self.input_zeros.items():
                if res[i] is None:
                    res[i] = zeros(shape, dtype=dtype, device=device)
            res = tuple(res)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, "
                    f"got {len(out)}, but expected {len(res)}"
                )
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_index)

    def setup_output_hook(self, result):
        def on_node(node):
            # A pre-hook sees the gradients before zeros are filled in, so an output that no
            # gradient reached is None in grad_output (as in PyTorch); and with materializing
            # off, nothing flows back from it into the module.
            node.materialize_grads = False
            node.register_prehook(self._output_hook)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_index = self._wrap(args, on_node)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]

    def _output_hook(self, grad_output):
        self.grad_outputs = _pack(self.output_index, grad_output, self.n_outputs)
        for hook in self.user_pre_hooks:
            out = hook(self.module, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(self.grad_outputs):
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of "
                    f"grad_output, got {len(out)}, but expected "
                    f"{len(self.grad_outputs)}"
                )
            self.grad_outputs = tuple(out)
        local = self.grad_outputs
        if self.input_index is None:
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to "
                "module outputs since no inputs require gradients. See "
                "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.register_full_backward_hook for more details.",
                stacklevel=2,
            )
            grad_inputs = (None,) * self.n_inputs
            for hook in self.user_hooks:
                out = hook(self.module, grad_inputs, self.grad_outputs)
                if out is not None and not (isinstance(out, tuple) and all(g is None for g in out)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires "
                        "gradient should always return None or None for all "
                        "gradients."
                    )
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_index)
