"""``ember.optim.lr_scheduler``: PyTorch's learning-rate schedulers (``torch.optim.lr_scheduler``).

A scheduler owns no learning rate of its own: it rewrites ``group["lr"]`` (and, for the cyclic
ones, ``group["momentum"]`` or ``group["betas"][0]``) in the optimizer's parameter groups each
time ``step()`` is called. Most schedulers are *chainable*: ``get_lr`` derives the next value
from the value now in the group, so several schedulers can act on one optimizer. Passing an
explicit epoch to ``step(epoch)`` (deprecated, as in torch) uses the closed form instead where a
scheduler has one.

Every formula is evaluated in torch's order of operations, so the float sequences are
bit-for-bit torch's, and ``state_dict()`` holds exactly torch's keys (the instance attributes
minus the optimizer), so a plain state dict moves between ember and torch.
"""

from __future__ import annotations

import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial, wraps
from typing import Any

from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)
_ORDER_HELP = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"


# ---- parameter-group helpers -----------------------------------------------------------------
def _copy(value: Any) -> Any:
    return value.clone() if isinstance(value, Tensor) else value


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per parameter group: a list/tuple is checked for length, a scalar repeated."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(param)} values, param_groups has {len(optimizer.param_groups)}."
            )
    else:
        param = [param] * len(optimizer.param_groups)
    return [_copy(p) for p in param]


def _group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """``group[key]`` of every group; tensors cloned so callers cannot alias the groups."""
    return [_copy(group[key]) for group in optimizer.param_groups]


def _set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    # A tensor hyper-parameter is written in place: the optimizer may hold on to that tensor.
    if isinstance(group[key], Tensor):
        group[key].fill_(value.squeeze() if isinstance(value, Tensor) else value)
    else:
        group[key] = value


def _set_momentum(group: dict[str, Any], value: float, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _warn_if_outside_step(scheduler: LRScheduler) -> None:
    if not scheduler._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=3,
        )


def _track_optimizer_step(optimizer: Optimizer) -> None:
    """Wrap ``optimizer.step`` once so the scheduler can tell whether it ran before ``step()``."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    # A weak reference: the wrapper lives on the optimizer, a strong one would be a cycle.
    opt_ref = weakref.ref(optimizer)
    func = optimizer.step.__func__

    @wraps(func)
    def step(*args, **kwargs):
        opt = opt_ref()
        opt._opt_called = True
        return func.__get__(opt, type(opt))(*args, **kwargs)

    step._wrapped_by_lr_sched = True
    optimizer.step = step


def _check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


# ---- the base class --------------------------------------------------------------------------
class LRScheduler:
    """Base class of the schedulers (``torch.optim.lr_scheduler.LRScheduler``).

    Subclasses implement ``get_lr()`` (the next lrs, from the groups' current ones) and
    optionally ``_get_closed_form_lr()`` (the lrs at ``last_epoch`` from ``base_lrs``, used by
    the deprecated ``step(epoch)``). Construction records ``initial_lr`` in every group and
    takes the first step, which sets the epoch-0 learning rates.

    Args:
        optimizer: the optimizer whose ``param_groups`` are scheduled.
        last_epoch: the index of the last epoch when resuming; -1 starts a new schedule.

    Example:
        >>> import ember
        >>> from ember.optim.lr_scheduler import LRScheduler
        >>> class Halving(LRScheduler):
        ...     def get_lr(self):
        ...         return [base * 0.5 ** self.last_epoch for base in self.base_lrs]
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = Halving(opt)
        >>> opt.step(); sched.step(); sched.get_last_lr()
        [0.5]
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                        "scheduler with last_epoch >= 0.\nThis typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)"
                    )
        self.base_lrs: list[Any] = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        # NOTE: matches torch (pytorch/pytorch#20124): to warn when `scheduler.step()` comes
        # before `optimizer.step()`, the optimizer's step is wrapped to record that it ran.
        _track_optimizer_step(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """Take the constructor's step, which sets the learning rates of epoch ``last_epoch+1``."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer (torch's keys), to save and resume a schedule."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a state from ``state_dict()``."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[Any]:
        """The learning rates of the groups as this scheduler last set them."""
        return self._last_lr

    def get_lr(self) -> list[Any]:
        """The learning rates of the next step (called by ``step()``; subclasses define it)."""
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or, deprecated, jump to ``epoch``) and write the new lrs."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    f"before `lr_scheduler.step()`. See more details at {_ORDER_HELP}",
                    UserWarning,
                    stacklevel=2,
                )
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                    "result in PyTorch skipping the first value of the learning rate schedule. "
                    f"See more details at {_ORDER_HELP}",
                    UserWarning,
                    stacklevel=2,
                )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr: list[Any] = _group_values(self.optimizer, "lr")


class _LRScheduler(LRScheduler):
    """The old name of ``LRScheduler``, kept (as a subclass, with its own ``__name__``)."""


# ---- multiplicative schedules ----------------------------------------------------------------
class _LambdaScheduler(LRScheduler):
    """Shared by LambdaLR and MultiplicativeLR: one callable per group, saved as torch does."""

    def _set_lambdas(self, optimizer: Optimizer, lr_lambda: Any) -> None:
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n

    def state_dict(self) -> dict[str, Any]:
        """The state with ``lr_lambdas``: None for a function or lambda (not picklable), the
        ``__dict__`` of a callable object (its state)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state; callable objects get their saved ``__dict__`` back."""
        # NOTE: matches torch: the caller's dict is left as it was (pytorch/pytorch#32756).
        state = dict(state_dict)
        saved = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, fn_state in zip(self.lr_lambdas, saved):
            if fn_state is not None:
                fn.__dict__.update(fn_state)


class LambdaLR(_LambdaScheduler):
    """lr = initial lr * ``lr_lambda(epoch)`` (one function, or one per group).

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5 ** epoch)
        >>> for _ in range(2):
        ...     opt.step(); sched.step()
        >>> sched.get_last_lr()
        [0.25]
    """

    def __init__(
        self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list, last_epoch: int = -1
    ) -> None:
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """``base_lr * lr_lambda(last_epoch)`` per group."""
        _warn_if_outside_step(self)
        return [
            base * fn(self.last_epoch)
            for fn, base in zip(self.lr_lambdas, self.base_lrs, strict=True)
        ]


class MultiplicativeLR(_LambdaScheduler):
    """Each step multiplies the lr by ``lr_lambda(epoch)`` (one function, or one per group).

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
        >>> for _ in range(3):
        ...     opt.step(); sched.step()
        >>> sched.get_last_lr()
        [0.125]
    """

    def __init__(
        self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list, last_epoch: int = -1
    ) -> None:
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The group's lr times ``lr_lambda(last_epoch)`` (unchanged on the initial step)."""
        _warn_if_outside_step(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [
            group["lr"] * fn(self.last_epoch)
            for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)
        ]


class StepLR(LRScheduler):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step(); sched.step(); lrs += sched.get_last_lr()
        >>> lrs
        [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The group's lr, times ``gamma`` at every multiple of ``step_size``."""
        _warn_if_outside_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each milestone (a repeated milestone counts twice).

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step(); sched.step(); lrs += sched.get_last_lr()
        >>> lrs
        [0.5, 0.5, 0.25, 0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The group's lr, times ``gamma ** count`` at a milestone."""
        _warn_if_outside_step(self)
        if self.last_epoch not in self.milestones:
            return _group_values(self.optimizer, "lr")
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the lr by ``factor`` for the first ``total_iters`` epochs, then restore it.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> lrs = sched.get_last_lr()
        >>> for _ in range(3):
        ...     opt.step(); sched.step(); lrs += sched.get_last_lr()
        >>> lrs
        [0.5, 0.5, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """``lr * factor`` at epoch 0, ``lr / factor`` at ``total_iters``, else unchanged."""
        _warn_if_outside_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
            for base in self.base_lrs
        ]


class LinearLR(LRScheduler):
    """Scale the lr by a factor going linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
        >>> lrs = sched.get_last_lr()
        >>> for _ in range(3):
        ...     opt.step(); sched.step(); lrs += sched.get_last_lr()
        >>> lrs
        [0.5, 0.75, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or equal "
                "to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The group's lr times the ratio of this epoch's factor to the previous one's."""
        _warn_if_outside_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * change
        )
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            base
            * (
                self.start_factor
                + (self.end_factor - self.start_factor)
                * min(self.total_iters, self.last_epoch)
                / self.total_iters
            )
            for base in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """Multiply the lr by ``gamma`` every epoch.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> opt.step(); sched.step(); opt.step(); sched.step(); sched.get_last_lr()
        [0.25]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The group's lr times ``gamma`` (unchanged on the initial step, so resuming holds)."""
        _warn_if_outside_step(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the lr as ``(1 - epoch / total_iters) ** power`` until ``total_iters``.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=1.0)
        >>> lrs = []
        >>> for _ in range(5):
        ...     opt.step(); sched.step(); lrs += sched.get_last_lr()
        >>> lrs
        [0.75, 0.5, 0.25, 0.0, 0.0]
    """

    def __init__(
        self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The group's lr times the ratio of this epoch's decay to the previous one's."""
        _warn_if_outside_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_values(self.optimizer, "lr")
        decay = (
            (1.0 - self.last_epoch / self.total_iters)
            / (1.0 - (self.last_epoch - 1) / self.total_iters)
        ) ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
            for base in self.base_lrs
        ]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial lr to ``eta_min`` over ``T_max`` epochs, then back up
    (a cosine of period ``2 * T_max``), computed recursively from the group's current lr.

    ``step(epoch)`` (deprecated) uses the closed form
    ``eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
        >>> lrs = []
        >>> for _ in range(3):
        ...     opt.step(); sched.step(); lrs += [round(x, 6) for x in sched.get_last_lr()]
        >>> lrs
        [0.5, 0.0, 0.5]
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The next lrs of the recursive (chainable) form."""
        _warn_if_outside_step(self)
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            # resumed with last_epoch >= 0: the first step starts from the closed form
            return [
                self.eta_min
                + (base - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                for base, _ in zip(self.base_lrs, groups, strict=True)
            ]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            # at the minimum the ratio below would divide by ~0: step up by the first increment
            return [
                group["lr"] + (base - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base, group in zip(self.base_lrs, groups, strict=True)
            ]
        ratio = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / (
            1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)
        )
        return [ratio * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base in self.base_lrs
        ]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing with warm restarts (SGDR): ``T_cur`` runs from 0 to ``T_i``, then the
    lr restarts and the period becomes ``T_i * T_mult``. ``step(epoch)`` takes fractional
    epochs (e.g. ``epoch + i / iters``) without a deprecation warning.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> lrs = []
        >>> for _ in range(4):
        ...     opt.step(); sched.step(); lrs += [round(x, 6) for x in sched.get_last_lr()]
        >>> lrs
        [0.5, 1.0, 0.5, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """``eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2`` per group."""
        _warn_if_outside_step(self)
        return [
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base in self.base_lrs
        ]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or go to ``epoch`` (which may be fractional)."""
        # NOTE: matches torch: no step-order warning and no `_step_count` here.
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch < self.T_0:
                self.T_i = self.T_0
                self.T_cur = epoch
            elif self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                # the restart index n solves T_0 * (T_mult**n - 1) / (T_mult - 1) <= epoch
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult**n
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")


# ---- cyclic schedules ------------------------------------------------------------------------
def _check_cycle_momentum(optimizer: Optimizer) -> bool:
    """Whether the optimizer cycles ``betas[0]`` (Adam-like) rather than ``momentum``."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
        )
    return "betas" in optimizer.defaults


class CyclicLR(LRScheduler):
    """Cycle the lr between ``base_lr`` and ``max_lr`` (and the momentum the opposite way
    between ``max_momentum`` and ``base_momentum``), stepped after every batch.

    The amplitude is scaled per cycle (``triangular``: 1, ``triangular2``: halved each cycle)
    or per iteration (``exp_range``: ``gamma ** iteration``), or by a custom ``scale_fn``.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0, momentum=0.9)
        >>> sched = ember.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.5, step_size_up=2)
        >>> lrs = sched.get_last_lr()
        >>> for _ in range(4):
        ...     opt.step(); sched.step(); lrs += [round(x, 6) for x in sched.get_last_lr()]
        >>> lrs
        [0.1, 0.3, 0.5, 0.3, 0.1]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _check_cycle_momentum(optimizer)
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups, strict=True
                ):
                    _set_momentum(group, high, self.use_beta1)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        # NOTE: matches torch: the built-in modes fix scale_mode, whatever was passed.
        if self.mode == "triangular":
            self._scale_fn_ref, self.scale_mode = self._triangular_scale_fn, "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref, self.scale_mode = self._triangular2_scale_fn, "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The amplitude scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma**x

    def get_lr(self) -> list[Any]:
        """The lrs at ``last_epoch`` (and, with ``cycle_momentum``, sets the momentums)."""
        _warn_if_outside_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle  # position in the cycle, in [0, 1)
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        # NOTE: matches torch: scale_fn is called once per group and value (a stateful custom
        # scale_fn sees the same calls).
        lrs = [
            base + (high - base) * scale_factor * self.scale_fn(at)
            for base, high in zip(self.base_lrs, self.max_lrs, strict=True)
        ]
        if self.cycle_momentum:
            momentums = [
                high - (high - low) * scale_factor * self.scale_fn(at)
                for low, high in zip(self.base_momentums, self.max_momentums, strict=True)
            ]
            for group, momentum in zip(self.optimizer.param_groups, momentums, strict=True):
                _set_momentum(group, momentum, self.use_beta1)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """The state; a custom ``scale_fn`` is saved only if it is a callable object (its
        ``__dict__``), not a function or lambda."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)  # a bound built-in, rebuilt on load
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = (
            None if fn is None or isinstance(fn, types.FunctionType) else fn.__dict__.copy()
        )
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state (a callable ``scale_fn`` object gets its saved ``__dict__``)."""
        state = dict(state_dict)
        fn_state = state.pop("_scale_fn_custom")
        super().load_state_dict(state)
        if fn_state is not None:
            self._scale_fn_custom.__dict__.update(fn_state)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the lr warms up from ``max_lr / div_factor`` to ``max_lr``, then
    anneals to ``initial_lr / final_div_factor`` (``three_phase``: back to the initial lr
    first), stepped after every batch; the momentum moves the opposite way.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0, momentum=0.9)
        >>> sched = ember.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5,
        ...                                              anneal_strategy="linear")
        >>> lrs = sched.get_last_lr()
        >>> for _ in range(4):
        ...     opt.step(); sched.step(); lrs += [round(x, 6) for x in sched.get_last_lr()]
        >>> lrs
        [0.04, 0.857143, 0.57143, 0.285717, 4e-06]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(
                    f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}"
                )
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        # Each phase anneals between two group keys; it ends at step `end_step`.
        warmup_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                self._phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                self._phase(
                    float(2 * pct_start * self.total_steps) - 2,
                    "max_lr",
                    "initial_lr",
                    "base_momentum",
                    "max_momentum",
                ),
                self._phase(
                    self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"
                ),
            ]
        else:
            self._schedule_phases = [
                self._phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                self._phase(
                    self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"
                ),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for high, group in zip(max_lrs, self.optimizer.param_groups):
                group["initial_lr"] = high / div_factor
                group["max_lr"] = high
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            self.use_beta1 = _check_cycle_momentum(self.optimizer)
            max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for high, low, group in zip(
                    max_momentums, base_momentums, optimizer.param_groups, strict=True
                ):
                    _set_momentum(group, high, self.use_beta1)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _phase(
        end_step: float, start_lr: str, end_lr: str, start_momentum: str, end_momentum: str
    ) -> dict[str, Any]:
        return {
            "end_step": end_step,
            "start_lr": start_lr,
            "end_lr": end_lr,
            "start_momentum": start_momentum,
            "end_momentum": end_momentum,
        }

    def _anneal_func(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        if self._anneal_func_type == "linear":
            return self._annealing_linear(start, end, pct)
        raise ValueError(f"Unknown _anneal_func_type: {self._anneal_func_type}")

    @staticmethod
    def _annealing_cos(start: float, end: float, pct: float) -> float:
        # from start (pct 0) to end (pct 1) along half a cosine
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start: float, end: float, pct: float) -> float:
        return (end - start) * pct + start

    def get_lr(self) -> list[Any]:
        """The lrs at step ``last_epoch`` (and, with ``cycle_momentum``, sets the momentums)."""
        _warn_if_outside_step(self)
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step <= end_step or i == last:
                    pct = (step - start_step) / (end_step - start_step)
                    lrs.append(
                        self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    )
                    if self.cycle_momentum:
                        momentum = self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct
                        )
                        _set_momentum(group, momentum, self.use_beta1)
                    break
                start_step = phase["end_step"]
        return lrs


# ---- combinations ----------------------------------------------------------------------------
def _check_schedulers(owner: str, optimizer: Optimizer, schedulers: Sequence) -> None:
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {scheduler.__class__.__name__} at index {i} has "
                f"{scheduler.optimizer}, which is different from {optimizer.__class__.__name__}."
            )


class _SchedulerList(LRScheduler):
    """Shared by SequentialLR and ChainedScheduler: the state nests the children's states."""

    _schedulers: list[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        """The state, with each child scheduler's state dict under ``_schedulers``."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state and each child's."""
        state = dict(state_dict)
        children = state.pop("_schedulers")
        if len(children) > len(self._schedulers):
            # NOTE: matches torch's IndexError, raised here before anything is changed
            raise IndexError(
                f"{type(self).__name__}.load_state_dict: the state dict holds "
                f"{len(children)} schedulers, this one has {len(self._schedulers)}"
            )
        self.__dict__.update(state)
        for scheduler, child in zip(self._schedulers, children):
            scheduler.load_state_dict(child)


class SequentialLR(_SchedulerList):
    """Run ``schedulers`` one after another, switching at each of ``milestones``.

    Example:
        >>> import ember
        >>> from ember.optim.lr_scheduler import ConstantLR, ExponentialLR, SequentialLR
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> warmup = ConstantLR(opt, factor=0.1, total_iters=2)
        >>> decay = ExponentialLR(opt, gamma=0.5)
        >>> sched = SequentialLR(opt, [warmup, decay], milestones=[2])
        >>> lrs = sched.get_last_lr()
        >>> for _ in range(4):
        ...     opt.step(); sched.step(); lrs += sched.get_last_lr()
        >>> lrs
        [0.1, 0.1, 1.0, 0.5, 0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        name = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(name, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than "
                f"the number of milestone points, but got number of schedulers {len(schedulers)} "
                f"and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Each child took its initial step on construction: undo them all, then take only the
        # first scheduler's, from the initial lrs.
        for group in self.optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched: LRScheduler | None = None) -> None:
        """Step back ``last_epoch`` of every (nested) child scheduler by one."""
        sched = self if sched is None else sched
        if hasattr(sched, "_schedulers"):
            for child in sched._schedulers:
                self.recursive_undo(child)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self) -> None:
        """Step the scheduler in charge; at a milestone the next one starts from its epoch 0."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            # NOTE: matches torch: the new scheduler restarts at epoch 0 (its closed form).
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_SchedulerList):
    """Step several chainable schedulers together, each acting on the lr the previous left.

    Example:
        >>> import ember
        >>> from ember.optim.lr_scheduler import ChainedScheduler, ConstantLR, ExponentialLR
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ChainedScheduler([ConstantLR(opt, factor=0.5, total_iters=2),
        ...                           ExponentialLR(opt, gamma=0.5)])
        >>> lrs = sched.get_last_lr()
        >>> for _ in range(3):
        ...     opt.step(); sched.step(); lrs += sched.get_last_lr()
        >>> lrs
        [0.5, 0.25, 0.25, 0.125]
    """

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        name = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{name} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(name, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


# ---- metric-driven ---------------------------------------------------------------------------
class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by ``factor`` once a metric has stopped improving for ``patience``
    epochs; ``step(metric)`` takes the metric.

    ``mode`` "min"/"max" says which way is better; an improvement must beat the best value by
    ``threshold`` (relative, ``threshold_mode="rel"``, or absolute, ``"abs"``). After a
    reduction, ``cooldown`` epochs pass before bad epochs count again. The lr never drops below
    ``min_lr`` (one value, or one per group) and changes smaller than ``eps`` are skipped.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.nn.Parameter(ember.ones(1))], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
        >>> for loss in [1.0, 0.9, 0.9, 0.9, 0.9]:
        ...     opt.step(); sched.step(loss)
        >>> sched.get_last_lr()
        [0.5]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(
                    f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}"
                )
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(self.optimizer, "lr")
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: Any, epoch: int | None = None) -> None:
        """Record one epoch's metric (a number or a one-element tensor); maybe reduce the lr."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self, epoch: int) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                _set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is in the cooldown after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state from ``state_dict()``."""
        self.__dict__.update(state_dict)
        self._init_is_better(
            mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode
        )
