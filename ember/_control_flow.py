"""The symbolic-shape helpers (``sym_int``, ``sym_max``...) and the control-flow operators
(``cond``, ``while_loop``) as eager torch runs them.

In torch these exist so that code traced by ``torch.compile``/``torch.export`` keeps a branch or
a loop symbolic. ember is eager only, so on plain numbers and tensors they do what the Python
they stand for does, with torch's argument checks. Where torch traces both branches of a tensor
predicate (checking that they return matching tensors), ember runs the taken branch only.
"""

from __future__ import annotations

import builtins
import math
import numbers

from ember import _dtype
from ember.func._tree import tree_flatten, tree_unflatten
from ember.tensor import Tensor

__all__ = [
    "cond",
    "sym_float",
    "sym_int",
    "sym_ite",
    "sym_max",
    "sym_min",
    "sym_not",
    "sym_sqrt",
    "sym_sum",
    "while_loop",
]


# ---- symbolic-shape helpers ----------------------------------------------------------------------
def sym_float(a):
    """``float(a)`` (torch keeps a symbolic float symbolic; ember's numbers are concrete).

    Example:
        >>> ember.sym_float(3)
        3.0
    """
    return builtins.float(a)


def sym_int(a):
    """``int(a)``: truncates toward zero.

    Example:
        >>> ember.sym_int(-3.7)
        -3
    """
    return builtins.int(a)


def sym_ite(b, t, f):
    """``t if b else f``, for a Python ``bool`` ``b`` and ``t``, ``f`` of one type.

    Example:
        >>> ember.sym_ite(True, 1, 2)
        1
    """
    # NOTE: matches torch: AssertionError, even for an int or a bool tensor as b.
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


# numpy scalars register as numbers.Integral / numbers.Real, which torch also accepts here
_NUMBERS = (numbers.Integral, numbers.Real)


def _check_number(a) -> None:
    if not isinstance(a, _NUMBERS):
        raise AssertionError(
            f"expected (<class 'numpy.integer'>, <class 'numpy.floating'>, <class 'int'>, "
            f"<class 'float'>), got {type(a)}"
        )


def sym_max(a, b):
    """``max(a, b)`` of two numbers, a float if either is a float (so that the result type does
    not depend on which is larger).

    Example:
        >>> ember.sym_max(1, 2.0), ember.sym_max(3, 2.0), ember.sym_max(1, 2)
        (2.0, 3.0, 2)
    """
    _check_number(a)
    _check_number(b)
    if not isinstance(a, numbers.Integral) or not isinstance(b, numbers.Integral):
        return builtins.float(builtins.max(a, b))
    return builtins.max(a, b)


def sym_min(a, b):
    """``min(a, b)`` of two numbers, a float if either is a float.

    Example:
        >>> ember.sym_min(1, 2.0)
        1.0
    """
    _check_number(a)
    _check_number(b)
    if not isinstance(a, numbers.Integral) or not isinstance(b, numbers.Integral):
        return builtins.float(builtins.min(a, b))
    return builtins.min(a, b)


def sym_not(a):
    """``not a``.

    Example:
        >>> ember.sym_not(0)
        True
    """
    return not a


def sym_sqrt(a):
    """``math.sqrt(a)`` (a float; ``ValueError`` for a negative number).

    Example:
        >>> ember.sym_sqrt(4)
        2.0
    """
    return math.sqrt(a)


def sym_sum(*args):
    """The sum of numbers given as one list/tuple or as separate arguments (0 for none).

    Example:
        >>> ember.sym_sum([1, 2, 3]), ember.sym_sum(1, 2.5)
        (6, 3.5)
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


# ---- control flow --------------------------------------------------------------------------------
def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``.

    ``pred`` is a Python bool/int/float or a one-element tensor; ``operands`` a tuple or list of
    (possibly nested) tensors. Gradients flow through the branch taken, as in eager code.
    torch traces both branches of a tensor predicate and checks that their outputs match;
    ember (eager only) runs the taken branch, so a mismatch in the other goes unnoticed.

    Example:
        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.cond(x.sum() > 0, lambda a: a + 1, lambda a: a - 1, (x,))
        tensor([2., 3.])
    """
    if isinstance(pred, (builtins.bool, builtins.int, builtins.float)):
        # NOTE: matches torch: a Python predicate skips the checks below (eager fast path)
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or not builtins.all(
        isinstance(t, Tensor) for t in tree_flatten(operands)[0]
    ):
        raise RuntimeError(
            "Expect operands to be a tuple of possibly nested dict/list/tuple that only "
            f"consists of tensor leaves, but got {operands}."
        )
    return true_fn(*operands) if pred.item() else false_fn(*operands)


def _loop_meta(x):
    return (Tensor, x.shape, x.dtype) if isinstance(x, Tensor) else (builtins.int,)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Run ``carried = body_fn(*carried)`` while ``cond_fn(*carried)``, and return the last
    ``carried``.

    ``carried_inputs`` is a tuple or list of (possibly nested) tensors and ints; each step's
    output must have the same structure, and each tensor its shape and dtype (torch's checks).
    ``cond_fn`` returns a bool or a 0-d bool tensor. When the loop body never runs, the result
    is the tuple of the flattened inputs (as torch returns). Gradients flow through the
    iterations that ran.

    Example:
        >>> ember.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2), (0, ember.ones(2)))
        (3, tensor([8., 8.]))
    """
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    flat, spec = tree_flatten(carried_inputs)
    bad = [type(x) for x in flat if not isinstance(x, (Tensor, builtins.int))]
    if bad:
        # NOTE: matches torch: an AssertionError from its subgraph argument check
        raise AssertionError(
            f"{flat} can only be of (<class 'ember.Tensor'>, <class 'int'>) but got "
            f"{tuple(type(x) for x in flat)}"
        )
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(
            "torch.while_loop: cond_fn and body_fn are called with the unpacked carried_inputs, "
            f"so carried_inputs must be a tuple or list, but got {type(carried_inputs).__name__}"
        )
    metas = [_loop_meta(x) for x in flat]
    result = tuple(flat)
    carried = carried_inputs
    while True:
        go = cond_fn(*carried)
        if isinstance(go, Tensor):
            if go.dim() != 0 or go.dtype != _dtype.bool:
                raise RuntimeError(
                    "torch.while_loop: unsupported cond_fn return type: expected cond_fn to "
                    f"return a scalar tensor or a bool but got a tensor of shape "
                    f"{tuple(go.shape)} and dtype {go.dtype}"
                )
            go = builtins.bool(go.item())
        elif not isinstance(go, builtins.bool):
            raise RuntimeError(
                "torch.while_loop: unsupported cond_fn return type: expected cond_fn to return a "
                f"scalar tensor or a bool but got {type(go).__name__}"
            )
        if not go:
            return result
        out = body_fn(*carried)
        out_flat, out_spec = tree_flatten(out)
        if len(out_flat) != len(flat):
            raise RuntimeError(
                "Expected body_fn_output and carried_inputs to have same number of leaves but "
                f"got {len(out_flat)} and {len(flat)}"
            )
        for i, (o, m) in enumerate(zip(out_flat, metas, strict=True)):
            if _loop_meta(o) != m:
                raise RuntimeError(
                    "Expected body_fn_output and carried_inputs to have same metadata but found: "
                    f"pair[{i}] differ: {_describe(o)} vs {_describe(flat[i])}"
                )
        result = out
        # the next step sees the output rebuilt with the inputs' structure
        carried = tree_unflatten(out_flat, spec)


def _describe(x) -> str:
    if isinstance(x, Tensor):
        return f"Tensor(shape={tuple(x.shape)}, dtype={x.dtype})"
    return repr(x)
