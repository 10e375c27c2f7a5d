"""``swap_in_optimizer_params_and_state``: run an optimizer's API on other parameters and state
(copies, for a dry run or a what-if step) without touching the live ones."""

from __future__ import annotations

import contextlib
from collections import defaultdict
from typing import Any

from ember.tensor import Tensor

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _check_state(state: Any) -> dict:
    if not isinstance(state, dict):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed "
            f"parameter ids to per-param state dicts, got {type(state).__name__}."
        )
    if any(isinstance(k, Tensor) for k in state):
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style state keyed by packed parameter ids."
        )
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(
            f"{_NAME} requires per-parameter optimizer state entries to be dictionaries."
        )
    return state


def _check_groups(optimizer, groups: Any) -> list:
    if not isinstance(groups, list):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of param-group "
            f"dicts, got {type(groups).__name__}."
        )
    if len(optimizer.param_groups) != len(groups):
        raise RuntimeError(
            "swapin_optim_state has a different number of parameter groups than the live optimizer."
        )
    return groups


def _check_group(idx: int, live: dict, group: Any) -> list[int]:
    if not isinstance(group, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = group.get("params")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param_groups[*]['params'] entries "
            "keyed by packed parameter ids."
        )
    if len(live["params"]) != len(ids):
        raise RuntimeError(
            f"swapin_optim_state param group {idx} has a different number of params than the "
            "live optimizer param group."
        )
    swapin_only = [k for k in group if k not in live]
    live_only = [k for k in live if k not in group]
    if swapin_only or live_only:
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly match "
            f"the live optimizer group keys for group {idx}. Keys only in swap-in: "
            f"{swapin_only}. Keys only in live: {live_only}."
        )
    return ids


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(
    optimizer, swapin_parameters: dict[str, Tensor], swapin_optim_state: dict[str, Any]
):
    """Temporarily run ``optimizer`` on other parameters and state; restore the live ones after.

    Args:
        optimizer: the live optimizer; it must have stepped once (its state is initialized).
        swapin_parameters: tensors to use as the parameters, in the order of the optimizer's
            groups (usually ``model.named_parameters()`` order; the names are not used).
        swapin_optim_state: an ``optimizer.state_dict()``-shaped dict whose state and group
            settings are installed. In-place changes to its tensors (a ``step()``'s moment
            updates) show in it afterwards; replaced entries do not.

    Example:
        >>> w = ember.nn.Parameter(ember.ones(2))
        >>> opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> w.sum().backward(); opt.step()
        >>> trial = ember.ones(2).requires_grad_()
        >>> trial.grad = ember.ones(2)
        >>> with ember.optim.swap_in_optimizer_params_and_state(
        ...         opt, {"w": trial}, opt.state_dict()):
        ...     opt.step()
        >>> w.tolist(), trial.tolist()  # the live parameter is untouched
        ([0.8999999761581421, 0.8999999761581421], [0.8100000023841858, 0.8100000023841858])
    """
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _check_state(swapin_optim_state.get("state"))
    groups = _check_groups(optimizer, swapin_optim_state.get("param_groups"))
    flat = list(swapin_parameters.values())
    offset, seen, plan = 0, set(), []
    for idx, (live, group) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _check_group(idx, live, group)
        seen.update(ids)
        end = offset + len(ids)
        if end > len(flat):
            raise RuntimeError(
                f"{_NAME} requires the explicit parameter state to match optimizer.param_groups "
                "ordering."
            )
        plan.append((live, group, flat[offset:end]))
        offset = end
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed parameter "
            f"ids from param_groups[*]['params']; got extra keys {extra!r}."
        )

    live_state = optimizer.state
    # shallow copies keep each group's own ``params`` list object for the restore
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped: defaultdict = defaultdict(dict)
        for live, group, params in plan:
            live["params"] = params
            for key, value in group.items():
                if key != "params":
                    live[key] = value
            for p, pid in zip(params, group["params"]):
                # a shallow copy: in-place tensor updates reach the caller's dict, new entries
                # stay local to the context
                swapped[p] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = live_state
