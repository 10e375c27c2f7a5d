"""``ember.autograd.forward_ad``: forward-mode AD with dual tensors (PyTorch's
``torch.autograd.forward_ad``).

ember has no forward-mode kernels: a dual tensor is a view of its primal that records the
reverse-mode graph of what is computed from it, and ``unpack_dual`` computes an output's
tangent on demand with the double-backward identity (for ``g(u) = J^T u``, the gradient of
``<g(u), t>`` with respect to ``u`` is ``J t``; exact, the numbers of torch's forward mode; the
identity ``ember.func.jvp`` uses too). Costs: two backward passes per ``unpack_dual``.

Differences from torch: the dual tensor and what is computed from it report
``requires_grad=True`` (the graph that carries the tangents), and work done under ``no_grad``
carries no tangent.
"""

from __future__ import annotations

from collections import namedtuple

from ember.autograd import grad_mode as _gm
from ember.autograd.engine import grad as _grad
from ember.tensor import Tensor

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]


class _Level:
    """The one forward-AD level torch allows at a time: its index (None when none is entered)
    and its dual tensors ``{id(dual): (dual, tangent, primal required grad)}``."""

    def __init__(self):
        self.index = None
        self.duals = {}


_level = _Level()


def enter_dual_level() -> int:
    """Enter a new forward-AD level (only one may be active) and return its index.

    Example:
        >>> lvl = ember.autograd.forward_ad.enter_dual_level()
        >>> ember.autograd.forward_ad.exit_dual_level(level=lvl)
    """
    if _level.index is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level.index = 0
    return 0


def exit_dual_level(*, level=None) -> None:
    """Exit the forward-AD level ``level`` (the current one by default): every dual tensor
    made in it loses its tangent.

    Example:
        >>> lvl = ember.autograd.forward_ad.enter_dual_level()
        >>> ember.autograd.forward_ad.exit_dual_level()
    """
    if level is None:
        level = -1 if _level.index is None else _level.index
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _level.index:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    _level.index = None
    _level.duals = {}


def _check_level(level):
    if level is None:
        level = _level.index
    if level is None:
        return None
    if level != _level.index:
        raise RuntimeError(f"Invalid dual level {level}: the current level is {_level.index}.")
    return level


def make_dual(tensor: Tensor, tangent: Tensor, *, level=None) -> Tensor:
    """A dual tensor: ``tensor``'s values carrying ``tangent`` as their forward gradient.

    Args:
        tensor: the primal, floating point or complex.
        tangent: the forward gradient, of ``tensor``'s shape.
        level: the forward-AD level (the current one by default).

    Example:
        >>> import ember.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 0.0]))
        ...     fwAD.unpack_dual(d * d).tangent
        tensor([2., 0.])
    """
    if _check_level(level) is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if id(tensor) in _level.duals and _level.duals[id(tensor)][0] is tensor:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            f"same level {_level.index} is not supported."
        )
    outer = tensor.requires_grad
    # a view of the primal, as torch's dual; one that does not require grad becomes a leaf of
    # the graph that will carry the tangent
    with _gm.set_grad_enabled(outer or _gm.is_grad_enabled()):
        dual = tensor.view_as(tensor)
    if not dual.requires_grad:
        dual.requires_grad_()
    _level.duals[id(dual)] = (dual, tangent, outer)
    return dual


UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = (
    "The ``(primal, tangent)`` namedtuple ``unpack_dual`` returns (tangent None when the "
    "tensor carries none)."
)
UnpackedDualTensor.__module__ = "ember.autograd.forward_ad"


def _reaches_outer(t: Tensor, duals: set) -> bool:
    """Whether ``t``'s graph reaches a tensor requiring grad that is not one of this level's
    dual tensors made from a primal without grad: then its primal keeps the graph."""
    seen = set()
    stack = [t._grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for e in node._next:
            if e is None:
                continue
            if e[1] is None:  # a leaf tensor
                if id(e[0]) not in duals:
                    return True
            else:
                stack.append(e[0])
    return False


def _tangent(t: Tensor, outer: bool):
    """``J t`` summed over this level's dual tensors, by double backward; None when ``t``
    does not depend on any of them."""
    from ember.ops.creation import zeros_like

    duals = [(d, tan) for d, tan, _ in _level.duals.values()]
    if not duals or not t.requires_grad or not (t.is_floating_point() or t.is_complex()):
        return None
    keep = outer or any(tan.requires_grad for _, tan in duals)
    with _gm.enable_grad():
        u = zeros_like(t, requires_grad=True)
        gs = _grad(
            [t], [d for d, _ in duals], [u], create_graph=True, allow_unused=True, retain_graph=True
        )
        pairs = [(g, tan) for g, (_, tan) in zip(gs, duals) if g is not None]
        if not pairs:
            return None
        live = [(g, tan.to(g.dtype)) for g, tan in pairs if g.requires_grad]
        if not live:  # J^T u does not depend on u: J is zero
            return zeros_like(t)
        (jv,) = _grad(
            [g for g, _ in live],
            [u],
            [tan for _, tan in live],
            create_graph=keep,
            allow_unused=True,
            retain_graph=True,
        )
    if jv is None:
        return zeros_like(t)
    return jv if keep else jv.detach()


def unpack_dual(tensor: Tensor, *, level=None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor`` at the forward-AD level (tangent None when it has
    none, or outside any level).

    Example:
        >>> import ember.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 1.0]))
        ...     fwAD.unpack_dual(d.exp().sum())
        UnpackedDualTensor(primal=tensor(10.1073), tangent=tensor(10.1073))
    """
    if _check_level(level) is None or not _level.duals:
        return UnpackedDualTensor(tensor, None)
    entry = _level.duals.get(id(tensor))
    if entry is not None and entry[0] is tensor:
        _, tangent, outer = entry
        return UnpackedDualTensor(tensor if outer else tensor.detach(), tangent)
    if not tensor.requires_grad:
        return UnpackedDualTensor(tensor, None)
    inner = {k for k, v in _level.duals.items() if not v[2]}
    outer = _reaches_outer(tensor, inner)
    tangent = _tangent(tensor, outer)
    primal = tensor if tangent is None or outer else tensor.detach()
    return UnpackedDualTensor(primal, tangent)


class dual_level:
    """Context manager of a forward-AD level: ``enter_dual_level`` on entry,
    ``exit_dual_level`` on exit.

    Example:
        >>> import ember.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     d = fwAD.make_dual(ember.tensor(2.0), ember.tensor(1.0))
        ...     fwAD.unpack_dual(d**3).tangent
        tensor(12.)
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper
