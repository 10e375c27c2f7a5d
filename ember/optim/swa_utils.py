"""``ember.optim.swa_utils``: weight averaging (SWA, EMA) as in ``torch.optim.swa_utils``.

``AveragedModel`` keeps a copy of a model whose parameters (and optionally buffers) are a running
average of the trained model's; ``update_bn`` recomputes BatchNorm statistics for the averaged
weights with one pass over the data; ``SWALR`` anneals each group's lr to a constant SWA lr.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

import ember
from ember.nn.modules.batchnorm import _BatchNorm
from ember.nn.modules.module import Module
from ember.ops._dispatch import xp_of
from ember.optim.lr_scheduler import LRScheduler, _format_param, _warn_if_outside_step
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def _is_float(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def _lerp_(avg: Tensor, cur: Tensor, weight: float) -> None:
    """``avg <- avg + weight * (cur - avg)`` in place: on the raw arrays (one temporary, in
    torch's two-sided form) where both match, through ``Tensor.lerp_`` otherwise."""
    a, c = avg._data, cur._data
    if a.dtype != c.dtype or a.shape != c.shape or not getattr(a.flags, "writeable", False):
        avg.lerp_(cur, weight)
        return
    xp = xp_of(a)
    diff = xp.subtract(c, a)
    # NOTE: matches torch: weights from 0.5 up interpolate from `cur`, which is more exact
    # there (torch's kernel also fuses the multiply-add, so results agree to the last bits).
    if weight < 0.5:
        xp.multiply(diff, weight, out=diff)
        xp.add(a, diff, out=a)
    else:
        xp.multiply(diff, 1 - weight, out=diff)
        xp.subtract(c, diff, out=a)
    avg._vc[0] += 1  # an in-place write: autograd must see the tensor changed


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """An in-place exponential moving average over lists of tensors, for ``multi_avg_fn``:
    ``ema <- decay * ema + (1 - decay) * current``.

    Example:
        >>> import ember
        >>> ema, cur = [ember.tensor([1.0])], [ember.tensor([3.0])]
        >>> ember.optim.swa_utils.get_ema_multi_avg_fn(0.75)(ema, cur, 1); ema
        [tensor([1.5000])]
    """
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _) -> None:
        with ember.no_grad():
            if _is_float(ema_param_list[0]):
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    _lerp_(p_ema, p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """An in-place running mean over lists of tensors, for ``multi_avg_fn``:
    ``avg <- avg + (current - avg) / (n + 1)``.

    Example:
        >>> import ember
        >>> avg, cur = [ember.tensor([1.0])], [ember.tensor([4.0])]
        >>> ember.optim.swa_utils.get_swa_multi_avg_fn()(avg, cur, 2); avg
        [tensor([2.])]
    """

    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        with ember.no_grad():
            if _is_float(averaged_param_list[0]):
                weight = 1 / (num_averaged + 1)
                # NOTE: matches torch: with a tensor count (AveragedModel's n_averaged, an
                # int64) the weight is a float32 tensor, so it is rounded to float32.
                weight = weight.item() if isinstance(weight, Tensor) else weight
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    _lerp_(p_avg, p_model, weight)
                return
            diffs = [m - a for m, a in zip(current_param_list, averaged_param_list)]
            for p_avg, diff in zip(averaged_param_list, diffs):
                if isinstance(num_averaged, Tensor):
                    # NOTE: matches torch: integer tensors with a tensor count raise
                    # addcdiv's integer-division error.
                    p_avg.addcdiv_(diff, num_averaged + 1)
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """The exponential moving average of one tensor, for ``avg_fn``:
    ``decay * ema + (1 - decay) * current``.

    Example:
        >>> import ember
        >>> fn = ember.optim.swa_utils.get_ema_avg_fn(0.5)
        >>> fn(ember.tensor([1.0]), ember.tensor([3.0]), 1)
        tensor([2.])
    """
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        with ember.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """The running mean of one tensor, for ``avg_fn``: ``avg + (current - avg) / (n + 1)``.

    Example:
        >>> import ember
        >>> ember.optim.swa_utils.get_swa_avg_fn()(ember.tensor([1.0]), ember.tensor([4.0]), 2)
        tensor([2.])
    """

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        with ember.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters average the model's over calls to
    ``update_parameters(model)``.

    By default the average is the plain running mean (SWA); ``avg_fn`` (one tensor at a time,
    returns the new average) or ``multi_avg_fn`` (lists of tensors, in place) change it, e.g.
    ``multi_avg_fn=get_ema_multi_avg_fn(0.999)`` for an EMA. The first update copies the
    model. With ``use_buffers=True`` buffers are averaged too; otherwise they are copied from
    the model on every update. ``n_averaged`` (an int64 buffer) counts the updates.

    Args:
        model: the model to average (deep-copied).
        device: where to keep the averaged copy.
        avg_fn: ``(averaged, current, n_averaged) -> new averaged``, per tensor.
        multi_avg_fn: ``(averaged_list, current_list, n_averaged) -> None``, in place.
        use_buffers: average the buffers as well as the parameters.

    Example:
        >>> import ember
        >>> model = ember.nn.Linear(2, 1)
        >>> swa = ember.optim.swa_utils.AveragedModel(model)
        >>> for value in [1.0, 2.0, 6.0]:
        ...     with ember.no_grad():
        ...         _ = model.bias.fill_(value)
        ...     swa.update_parameters(model)
        >>> swa.module.bias.tolist(), int(swa.n_averaged)
        ([3.0], 3)
    """

    n_averaged: Tensor

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable | None = None,
        multi_avg_fn: Callable | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", ember.tensor(0, dtype=ember.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Run the averaged copy of the model."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters (and buffers with ``use_buffers``) into the
        average; the first call copies them."""
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        with ember.no_grad():
            averaged, current = [], []
            first = bool(self.n_averaged == 0)
            for p_avg, p_model in zip(mine, theirs):
                p_avg = p_avg.detach()
                p_model = p_model.detach().to(p_avg.device)
                averaged.append(p_avg)
                current.append(p_model)
                if first:
                    p_avg.copy_(p_model)
            if self.n_averaged > 0:
                self._average(averaged, current)
            if not self.use_buffers:
                # buffers (e.g. BatchNorm statistics) follow the model as they are
                for b_avg, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged += 1

    def _average(self, averaged: list[Tensor], current: list[Tensor]) -> None:
        if self.avg_fn is not None and self.multi_avg_fn is None:
            for p_avg, p_model in zip(averaged, current, strict=True):
                n = self.n_averaged.to(p_avg.device)
                p_avg.copy_(self.avg_fn(p_avg, p_model, n))
            return
        # NOTE: matches torch: tensors are grouped by (device, dtype), each group averaged as a
        # list; without a multi_avg_fn, CPU tensors take the per-tensor running mean.
        groups: dict[tuple, tuple[list[Tensor], list[Tensor]]] = {}
        for p_avg, p_model in zip(averaged, current):
            mine, theirs = groups.setdefault((str(p_avg.device), p_avg.dtype), ([], []))
            mine.append(p_avg)
            theirs.append(p_model)
        for mine, theirs in groups.values():
            n = self.n_averaged.to(mine[0].device)
            if self.multi_avg_fn:
                self.multi_avg_fn(mine, theirs, n)
            else:
                mean = get_swa_avg_fn()
                for p_avg, p_model in zip(mine, theirs, strict=True):
                    p_avg.copy_(mean(p_avg, p_model, n))


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the BatchNorm running statistics of ``model`` with one pass over ``loader``.

    The statistics are reset and accumulated as a plain average over the batches (momentum
    None), in training mode; each module's momentum and the model's mode are restored after.
    A batch is a tensor, or a list/tuple whose first item is the input.

    Example:
        >>> import ember
        >>> model = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.BatchNorm1d(2))
        >>> loader = [(ember.randn(8, 2), None) for _ in range(3)]
        >>> ember.optim.swa_utils.update_bn(loader, model)
        >>> int(model[1].num_batches_tracked), model[1].momentum
        (3, 0.1)
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with ember.no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to ``swa_lr`` over ``anneal_epochs`` epochs (cosine or linear),
    then hold it: the lr schedule of the SWA phase.

    Args:
        optimizer: the optimizer.
        swa_lr: the target lr, one value or one per group.
        anneal_epochs: epochs of the annealing (0: switch at once).
        anneal_strategy: "cos" or "linear".
        last_epoch: the index of the last epoch when resuming.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=2,
        ...                                     anneal_strategy="linear")
        >>> lrs = [round(x, 6) for x in sched.get_last_lr()]
        >>> for _ in range(3):
        ...     opt.step(); sched.step(); lrs += [round(x, 6) for x in sched.get_last_lr()]
        >>> lrs
        [1.0, 0.55, 0.1, 0.1]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float | list[float],
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        # the lr the annealing started from, recovered from the current lr and its progress
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[Any]:
        """The lrs of the next step: ``swa_lr * alpha + start_lr * (1 - alpha)``."""
        _warn_if_outside_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        start_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
            for group in self.optimizer.param_groups
        ]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [
            group["swa_lr"] * alpha + lr * (1 - alpha)
            for group, lr in zip(self.optimizer.param_groups, start_lrs, strict=True)
        ]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        """The state, without the annealing function (rebuilt from its name on load)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state from ``state_dict()``."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
