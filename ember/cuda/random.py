"""``ember.cuda.random``: the CUDA generators' API, answered as a CPU-only torch.

torch defers seeding and state-setting calls until CUDA initializes, which never happens on a
CPU-only stack: they are accepted (after checking their argument) and do nothing. Calls that
must read a CUDA generator raise.

Example:
    >>> ember.cuda.manual_seed_all(0)
    >>> ember.cuda.get_rng_state_all()
    []
"""

from __future__ import annotations

from ember.cuda._utils import not_compiled

__all__ = [
    "get_rng_state",
    "get_rng_state_all",
    "set_rng_state",
    "set_rng_state_all",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "initial_seed",
]


def manual_seed(seed) -> None:
    """Accepted and ignored (no CUDA generator exists), as a CPU-only torch.

    Example:
        >>> ember.cuda.manual_seed(0)
    """
    int(seed)  # NOTE: matches torch: the seed is converted (and checked) even without CUDA


def manual_seed_all(seed) -> None:
    """Accepted and ignored (no CUDA generator exists), as a CPU-only torch."""
    int(seed)


def seed() -> None:
    """Accepted and ignored, as a CPU-only torch."""


def seed_all() -> None:
    """Accepted and ignored, as a CPU-only torch."""


def initial_seed() -> int:
    """The seed of the current CUDA generator: raises, as a CPU-only torch."""
    raise not_compiled()


def get_rng_state(device="cuda"):
    """A CUDA generator's state: raises, as a CPU-only torch."""
    raise not_compiled()


def get_rng_state_all() -> list:
    """The states of every CUDA generator: none (there are no devices)."""
    return []


def set_rng_state(new_state, device="cuda") -> None:
    """Accepted and ignored (torch copies the state, then defers the call until CUDA
    initializes, which never happens)."""
    import ember

    new_state.clone(memory_format=ember.contiguous_format)
    if isinstance(device, str):
        ember.device(device)
    elif isinstance(device, int):
        ember.device("cuda", device)


def set_rng_state_all(new_states) -> None:
    """Accepted and ignored, as ``set_rng_state`` for each device in turn."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)
