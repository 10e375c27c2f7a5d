"""Pruning of a module's tensors (PyTorch's ``torch.nn.utils.prune``).

Pruning ``module.weight`` reparametrizes it, as in PyTorch: the parameter moves to
``module.weight_orig``, a 0/1 buffer ``module.weight_mask`` joins the module, and a forward
pre-hook (the pruning method object itself) recomputes ``module.weight = weight_orig *
weight_mask`` as a plain attribute before every forward. Gradients therefore reach
``weight_orig``, masked entries get zero gradient through the product, and ``state_dict()``
holds ``weight_orig`` and ``weight_mask``. Pruning the same tensor again wraps the methods in a
:class:`PruningContainer`, which prunes only what is still unpruned. :func:`remove` makes the
pruning permanent: ``weight`` is a parameter again, holding the masked values.

Masks of the deterministic methods (L1, Ln, custom, global) equal PyTorch's, ties included:
PyTorch picks the pruned entries with ``topk``, and among equal scores its choice is an
artifact of its C++ selection algorithm, which :func:`_topk_indices` reproduces.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import ember
from ember.nn.utils._prune_ties import topk_indices as _topk_indices
from ember.tensor import Tensor

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


class BasePruningMethod(ABC):
    """Base class of pruning methods: subclasses define :meth:`compute_mask` and a
    ``PRUNING_TYPE`` (``"unstructured"``, ``"structured"`` (with a ``dim`` attribute) or
    ``"global"``), which tells a :class:`PruningContainer` which entries a later pruning may
    still act on.

    An instance is the forward pre-hook of the module it prunes: calling it with
    ``(module, inputs)`` recomputes ``module.<name>`` from ``<name>_orig`` and ``<name>_mask``.

    Example:
        >>> class EveryOther(BasePruningMethod):
        ...     PRUNING_TYPE = "unstructured"
        ...     def compute_mask(self, t, default_mask):
        ...         mask = default_mask.clone()
        ...         mask.view(-1)[::2] = 0
        ...         return mask
        >>> m = ember.nn.Linear(4, 1)
        >>> _ = EveryOther.apply(m, "weight")
        >>> m.weight_mask
        tensor([[0., 1., 0., 1.]])
    """

    _tensor_name: str
    PRUNING_TYPE: str

    def __call__(self, module, inputs) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for ``t`` (the importance scores), on top of ``default_mask`` (the mask of
        earlier prunings; ones if none): entries that ``default_mask`` zeroes stay zero.

        Args:
            t: importance scores, the shape of the tensor pruned.
            default_mask: the mask to respect, the shape of ``t``.

        Returns:
            The new mask, the shape of ``t``.
        """

    def apply_mask(self, module) -> Tensor:
        """``module.<name>_orig * module.<name>_mask``: the pruned tensor.

        Args:
            module: the module holding the pruned tensor.
        """
        name = getattr(self, "_tensor_name", None)
        if name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, name + "_mask")
        orig = getattr(module, name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name: str, *args, importance_scores: Tensor | None = None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, reparametrizing it (on first
        pruning) or composing with the pruning already there.

        Args:
            module: the module holding the tensor.
            name: the parameter's name in ``module``.
            *args: the method's arguments.
            importance_scores: scores the shape of the parameter that decide what is pruned
                (default: the parameter itself).
            **kwargs: the method's keyword arguments.

        Returns:
            The method now acting on ``module.<name>`` (a :class:`PruningContainer` when the
            tensor was pruned before).
        """
        method = _compose_with_existing(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}"
                )
        else:
            importance_scores = orig

        first_pruning = not isinstance(method, PruningContainer)
        if first_pruning:
            # NOTE: matches torch: `<name>_orig` is registered before `<name>` leaves, so it
            # takes the last place in `_parameters` (and in state_dict / parameters()).
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ember.ones_like(orig)
        else:
            default_mask = (
                getattr(module, name + "_mask")
                .detach()
                .clone(memory_format=ember.contiguous_format)
            )
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            # NOTE: matches torch: a first pruning that fails is undone; a failed re-pruning
            # leaves the tensor pruned as before but without its hook (torch drops it too).
            if first_pruning:
                module.register_parameter(name, module._parameters[name + "_orig"])
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(
        self,
        t: Tensor,
        default_mask: Tensor | None = None,
        importance_scores: Tensor | None = None,
    ) -> Tensor:
        """``t`` times the mask :meth:`compute_mask` gives, without touching any module.

        Args:
            t: the tensor to prune.
            default_mask: the mask of earlier prunings (default: ones).
            importance_scores: scores deciding what is pruned (default: ``t``).

        Example:
            >>> L1Unstructured(amount=1).prune(ember.tensor([3.0, -1.0, 2.0]))
            tensor([3., -0., 2.])
        """
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    "importance_scores should have the same shape as tensor t, got "
                    f"{importance_scores.shape} vs {t.shape}"
                )
        else:
            importance_scores = t
        if default_mask is None:
            default_mask = ember.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: ``module.<name>`` becomes a parameter again holding the
        masked values, and ``<name>_orig`` and ``<name>_mask`` leave the module. (The hook
        itself is removed by :func:`remove`, the function.)

        Args:
            module: the pruned module.
        """
        name = getattr(self, "_tensor_name", None)
        if name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        # the `_orig` Parameter object itself becomes `<name>` again, so an optimizer holding
        # it keeps training the same tensor
        orig = module._parameters[name + "_orig"]
        orig.data = pruned.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _compose_with_existing(cls, module, name, args, kwargs):
    """A new ``cls(*args, **kwargs)`` for ``module.<name>``, combined with the pruning method
    already hooked on that tensor (whose hook is taken off: ``apply`` hooks the result)."""
    old = [
        (key, hook)
        for key, hook in module._forward_pre_hooks.items()
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
    ]
    if len(old) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{module}. Use a PruningContainer."
        )
    for key, _ in old:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not old:
        return method
    previous = old[0][1]
    if isinstance(previous, PruningContainer):
        previous.add_pruning_method(method)
        return previous
    container = PruningContainer(previous)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """The sequence of pruning methods applied to one tensor, in order (iterative pruning).

    Its mask is the last method's mask computed on what the earlier ones left: for an
    ``"unstructured"`` method the still-unpruned entries, for a ``"structured"`` one the
    channels along its ``dim`` that still hold an unpruned entry, for ``"global"`` the whole
    tensor.

    Args:
        *args: pruning methods to hold (each with the same ``_tensor_name``).

    Example:
        >>> m = ember.nn.Linear(4, 2)
        >>> _ = l1_unstructured(m, "weight", amount=2)
        >>> _ = l1_unstructured(m, "weight", amount=2)
        >>> container = m._forward_pre_hooks[next(iter(m._forward_pre_hooks))]
        >>> type(container).__name__, len(container), int(m.weight_mask.sum())
        ('PruningContainer', 2, 4)
    """

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        # the container takes its tensor name from its first method; an empty one is named by
        # whoever builds it (global_unstructured does). Unlike torch, several methods at once
        # are accepted (torch looks the name up before setting it and raises AttributeError).
        if args:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        """Append ``method`` (which must act on this container's tensor).

        Args:
            method: the pruning method to add.
        """
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. "
                f"Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """``default_mask`` with the newest method's mask written over the part it may act on
        (see the class docstring).

        Args:
            t: importance scores.
            default_mask: the mask of the earlier methods.
        """
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            part = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                    "`dim` defined."
                )
            ndim = t.dim()
            dim = method.dim + ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
            # a channel stays in play while any of its entries is unpruned
            # NOTE: matches torch: on a 1-d tensor the sum runs over no dims, which reduces
            # them all (so the "channel" index is a 0-d boolean)
            live = default_mask.sum(dim=[d for d in range(ndim) if d != dim]) != 0
            part = tuple(live if d == dim else slice(None) for d in range(ndim))
        elif kind == "global":
            part = tuple(slice(None) for _ in range(t.dim()))
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[part], default_mask=default_mask[part])
        new_mask[part] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the reparametrization with a mask of ones.

    Example:
        >>> m = Identity.apply(ember.nn.Linear(2, 2), "bias")
        >>> type(m).__name__
        'Identity'
    """

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module, name: str):  # type: ignore[override]
        """Reparametrize ``module.<name>`` with a mask of ones.

        Args:
            module: the module holding the tensor.
            name: the parameter's name in ``module``.
        """
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` of the still-unpruned entries, chosen uniformly at random (with
    ember's generator, so ``ember.manual_seed`` reproduces it; not torch's random stream).

    Args:
        amount: a float in [0, 1] (the fraction to prune, rounded to a count) or an int (the
            number to prune).

    Example:
        >>> mask = RandomUnstructured(amount=0.5).compute_mask(ember.ones(8), ember.ones(8))
        >>> int(mask.sum())
        4
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        def random_entries(count):
            # the `count` entries with the largest random draws: a uniform random subset
            draws = ember.rand_like(t).reshape(-1)
            return ember.topk(draws, k=count).indices

        return _unstructured_mask(self.amount, t, default_mask, random_entries)

    @classmethod
    def apply(cls, module, name: str, amount: int | float):  # type: ignore[override]
        """Prune ``module.<name>`` at random (see the class docstring).

        Args:
            module: the module holding the tensor.
            name: the parameter's name in ``module``.
            amount: the fraction (float) or number (int) of entries to prune.
        """
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes ``amount`` of the still-unpruned entries with the smallest absolute value.

    Args:
        amount: a float in [0, 1] (the fraction to prune, rounded to a count) or an int (the
            number to prune).

    Example:
        >>> L1Unstructured(0.5).compute_mask(ember.tensor([0.1, -3.0, 2.0, -0.2]), ember.ones(4))
        tensor([0., 1., 1., 0.])
    """

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        def smallest_entries(count):
            return _topk_indices(ember.abs(t).reshape(-1), count, largest=False)

        return _unstructured_mask(self.amount, t, default_mask, smallest_entries)

    @classmethod
    def apply(  # type: ignore[override]
        cls, module, name: str, amount: int | float, importance_scores: Tensor | None = None
    ):
        """Prune the smallest-magnitude entries of ``module.<name>`` (see the class docstring).

        Args:
            module: the module holding the tensor.
            name: the parameter's name in ``module``.
            amount: the fraction (float) or number (int) of entries to prune.
            importance_scores: scores to rank instead of the parameter's own values.
        """
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` of the channels along ``dim`` (whole slices), chosen at random.

    Args:
        amount: a float in [0, 1] (the fraction of channels, rounded to a count) or an int
            (the number of channels).
        dim: the dimension whose channels are pruned.

    Example:
        >>> ones = ember.ones(3, 2)
        >>> mask = RandomStructured(amount=1, dim=0).compute_mask(ones, ones)
        >>> sorted(mask.sum(dim=1).tolist())
        [0.0, 2.0, 2.0]
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        def random_channels(channels, count):
            # keep the channels whose draw exceeds the count-th smallest one
            draws = ember.rand(channels, device=t.device)
            return draws > ember.kthvalue(draws, k=count).values

        return _structured_mask(self.amount, t, self.dim, default_mask, random_channels)

    @classmethod
    def apply(cls, module, name: str, amount: int | float, dim: int = -1):  # type: ignore[override]
        """Prune random channels of ``module.<name>`` (see the class docstring).

        Args:
            module: the module holding the tensor.
            name: the parameter's name in ``module``.
            amount: the fraction (float) or number (int) of channels to prune.
            dim: the dimension whose channels are pruned.
        """
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes ``amount`` of the channels along ``dim`` with the smallest ``n``-norm.

    Args:
        amount: a float in [0, 1] (the fraction of channels, rounded to a count) or an int
            (the number of channels).
        n: the norm's order, as ``ember.norm``'s ``p`` (``1``, ``2``, ``float("inf")``,
            ``"fro"``...).
        dim: the dimension whose channels are pruned.

    Example:
        >>> w = ember.tensor([[1.0, 1.0], [0.1, 0.2], [3.0, 0.0]])
        >>> LnStructured(amount=1, n=2, dim=0).compute_mask(w, ember.ones(3, 2))
        tensor([[1., 1.],
                [0., 0.],
                [1., 1.]])
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        def largest_norm_channels(channels, count):
            norms = _compute_norm(t, self.n, self.dim)
            return _topk_indices(norms, channels - count, largest=True)

        return _structured_mask(self.amount, t, self.dim, default_mask, largest_norm_channels)

    @classmethod
    def apply(  # type: ignore[override]
        cls,
        module,
        name: str,
        amount: int | float,
        n,
        dim: int,
        importance_scores: Tensor | None = None,
    ):
        """Prune the smallest-norm channels of ``module.<name>`` (see the class docstring).

        Args:
            module: the module holding the tensor.
            name: the parameter's name in ``module``.
            amount: the fraction (float) or number (int) of channels to prune.
            n: the norm's order.
            dim: the dimension whose channels are pruned.
            importance_scores: scores to take norms of instead of the parameter.
        """
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes with a given mask (multiplied into the earlier mask).

    Args:
        mask: the mask, the shape of the tensor pruned.

    Example:
        >>> CustomFromMask(ember.tensor([1.0, 0.0])).compute_mask(ember.ones(2), ember.ones(2))
        tensor([1., 0.])
    """

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match self.mask shape "
                f"{self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name: str, mask: Tensor):  # type: ignore[override]
        """Prune ``module.<name>`` with ``mask``.

        Args:
            module: the module holding the tensor.
            name: the parameter's name in ``module``.
            mask: the mask, the shape of the parameter.
        """
        return super().apply(module, name, mask=mask)


# ---- the functional forms ------------------------------------------------------------------------
def identity(module, name: str):
    """Reparametrize ``module.<name>`` with a mask of ones (nothing pruned).

    Returns:
        ``module``.

    Example:
        >>> m = identity(ember.nn.Linear(2, 3), "bias")
        >>> m.bias_mask
        tensor([1., 1., 1.])
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module, name: str, amount: int | float):
    """Prune ``amount`` of ``module.<name>``'s unpruned entries at random.

    Returns:
        ``module``.

    Example:
        >>> m = random_unstructured(ember.nn.Linear(4, 5), "weight", amount=0.25)
        >>> int((m.weight_mask == 0).sum())
        5
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(
    module, name: str, amount: int | float, importance_scores: Tensor | None = None
):
    """Prune ``amount`` of ``module.<name>``'s unpruned entries of smallest absolute value
    (or of smallest ``importance_scores``).

    Returns:
        ``module``.

    Example:
        >>> m = ember.nn.Linear(3, 1)
        >>> _ = ember.nn.init.constant_(m.bias, 0.0)
        >>> with ember.no_grad():
        ...     _ = m.weight.copy_(ember.tensor([[0.5, -0.1, 2.0]]))
        >>> m = l1_unstructured(m, "weight", amount=1)
        >>> m.weight
        tensor([[0.5000, -0.0000, 2.0000]], grad_fn=<MulBackward0>)
        >>> sorted(name for name, _ in m.named_parameters())
        ['bias', 'weight_orig']
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name: str, amount: int | float, dim: int):
    """Prune ``amount`` of ``module.<name>``'s channels along ``dim`` at random.

    Returns:
        ``module``.

    Example:
        >>> m = random_structured(ember.nn.Linear(3, 4), "weight", amount=2, dim=0)
        >>> int((m.weight_mask.sum(dim=1) == 0).sum())
        2
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(
    module,
    name: str,
    amount: int | float,
    n,
    dim: int,
    importance_scores: Tensor | None = None,
):
    """Prune ``amount`` of ``module.<name>``'s channels along ``dim`` with the smallest
    ``n``-norm (of ``importance_scores``, if given).

    Returns:
        ``module``.

    Example:
        >>> m = ln_structured(ember.nn.Conv2d(1, 4, 3), "weight", amount=0.5, n=2, dim=0)
        >>> (m.weight_mask.sum(dim=(1, 2, 3)) != 0).tolist().count(True)
        2
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(
    parameters: Iterable, pruning_method, importance_scores: dict | None = None, **kwargs
) -> None:
    """Prune the ``(module, name)`` tensors of ``parameters`` together: ``pruning_method``
    (an unstructured method class, built with ``**kwargs``) acts on all their entries at
    once, so a layer of small weights may lose more than another.

    Args:
        parameters: ``(module, name)`` pairs.
        pruning_method: a :class:`BasePruningMethod` subclass of ``PRUNING_TYPE``
            ``"unstructured"``, such as :class:`L1Unstructured`.
        importance_scores: ``{(module, name): scores}`` to rank instead of the tensors.
        **kwargs: the method's arguments (``amount=``).

    Example:
        >>> a, b = ember.nn.Linear(2, 2), ember.nn.Linear(2, 2)
        >>> global_unstructured([(a, "weight"), (b, "weight")], L1Unstructured, amount=4)
        >>> int((a.weight_mask == 0).sum() + (b.weight_mask == 0).sum())
        4
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    # ember reads the pairs once, so a generator works (torch iterates them three times)
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")

    flat = ember.nn.utils.parameters_to_vector
    scores = flat([importance_scores.get((m, n), getattr(m, n)) for m, n in parameters])
    default_mask = flat(
        [getattr(m, n + "_mask", ember.ones_like(getattr(m, n))) for m, n in parameters]
    )
    # the method runs inside a container, so entries pruned before are left out of the ranking
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)

    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        count = param.numel()
        custom_from_mask(module, name, mask=final_mask[start : start + count].view_as(param))
        start += count


def custom_from_mask(module, name: str, mask: Tensor):
    """Prune ``module.<name>`` with ``mask`` (zeros are pruned).

    Returns:
        ``module``.

    Example:
        >>> m = custom_from_mask(ember.nn.Linear(2, 2), "bias", ember.tensor([0.0, 1.0]))
        >>> m.bias_mask
        tensor([0., 1.])
    """
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name: str):
    """Make the pruning of ``module.<name>`` permanent: it is a parameter again holding the
    pruned values; ``<name>_orig``, ``<name>_mask`` and the hook are gone.

    Returns:
        ``module``.

    Example:
        >>> m = l1_unstructured(ember.nn.Linear(2, 2), "weight", amount=1)
        >>> m = remove(m, "weight")
        >>> sorted(name for name, _ in m.named_parameters()), is_pruned(m)
        (['bias', 'weight'], False)
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module) -> bool:
    """Whether ``module`` or any submodule carries a pruning hook.

    Example:
        >>> net = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.ReLU())
        >>> is_pruned(net), is_pruned(identity(net[0], "weight"))
        (False, True)
    """
    return any(
        isinstance(hook, BasePruningMethod)
        for _, sub in module.named_modules()
        for hook in sub._forward_pre_hooks.values()
    )


# ---- validation and helpers ----------------------------------------------------------------------
def _validate_pruning_amount_init(amount) -> None:
    # the checks that need no tensor: type and range
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    integral = isinstance(amount, numbers.Integral)
    if (integral and amount < 0) or (not integral and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _validate_pruning_amount(amount, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to "
            f"prune={tensor_size}"
        )


def _validate_structured_pruning(t: Tensor) -> None:
    if t.dim() <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {t.shape} with {t.dim()} dims"
        )


def _compute_nparams_toprune(amount, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return amount
    # NOTE: matches torch: Python's round, so halves go to the even count
    return round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n, dim: int) -> Tensor:
    """The ``n``-norm of each channel of ``t`` along ``dim`` (over all the other dims)."""
    dim = range(t.dim())[dim]
    return ember.norm(t, p=n, dim=[d for d in range(t.dim()) if d != dim])


def _along(ndim: int, dim: int, index) -> tuple:
    """The index tuple selecting ``index`` along ``dim`` and everything along the others."""
    return tuple(index if d == range(ndim)[dim] else slice(None) for d in range(ndim))


def _unstructured_mask(amount, t: Tensor, default_mask: Tensor, entries_to_prune) -> Tensor:
    """``default_mask`` with ``amount`` more entries zeroed: the flat indices that
    ``entries_to_prune(count)`` picks (called only when there is something to prune)."""
    size = t.numel()
    count = _compute_nparams_toprune(amount, size)
    _validate_pruning_amount(count, size)
    mask = default_mask.clone(memory_format=ember.contiguous_format)
    if count != 0:
        mask.view(-1)[entries_to_prune(count)] = 0
    return mask


def _structured_mask(amount, t: Tensor, dim: int, default_mask: Tensor, channels_to_keep) -> Tensor:
    """``default_mask`` with ``amount`` of the channels along ``dim`` zeroed: every channel but
    those ``channels_to_keep(channels, count)`` selects (indices or a boolean mask; called only
    when there is something to prune)."""
    _validate_structured_pruning(t)
    _validate_pruning_dim(t, dim)
    channels = t.shape[dim]
    count = _compute_nparams_toprune(amount, channels)
    _validate_pruning_amount(count, channels)
    if count == 0:
        return default_mask
    kept = channels_to_keep(channels, count)
    mask = ember.zeros_like(t)
    mask[_along(t.dim(), dim, kept)] = 1
    mask *= default_mask.to(dtype=mask.dtype)
    return mask
